//! `dxil to-spirv`: translate a DXIL container into SPIR-V for Vulkan (default binding model: set =
//! space, binding = b 0 / t 100 / u 200 / s 300 + register).

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The container (`-` for standard input).
    input: PathBuf,
    /// Where to write the SPIR-V module (standard output when omitted).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The entry point to translate (libraries hold several).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Write a readable disassembly instead of the binary module.
    #[arg(long)]
    text: bool,
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.input)?;
    let module =
        super::read_module_any(&bytes).map_err(|e| format!("{}: {e}", a.input.display()))?;
    let options = dxil_to_spirv::Options {
        entry_point: a.entry.clone(),
        ..dxil_to_spirv::Options::default()
    };
    let t = dxil_to_spirv::translate(&module, &options)
        .map_err(|e| format!("{}: {e}", a.input.display()))?;
    if a.text {
        let mut text = dxil_to_spirv::disassemble(&t.words)?;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        super::write_output(a.output.as_deref(), text.as_bytes())
    } else if a.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        Err("refusing to write binary SPIR-V to a terminal: pass -o FILE or --text".into())
    } else {
        let bytes: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        super::write_output(a.output.as_deref(), &bytes)
    }
}
