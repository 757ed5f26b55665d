//! `dxil dis`: print a container's module as LLVM assembly, in the text DXC prints.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The container, or a raw bitcode file (`-` for standard input).
    input: PathBuf,
    /// Where to write the listing (standard output when omitted).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.input)?;
    let module =
        super::read_module_any(&bytes).map_err(|e| format!("{}: {e}", a.input.display()))?;
    let options = dxil_text::PrintOptions::default();
    match a.output.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            let file = std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let mut w = std::io::BufWriter::new(file);
            dxil_text::write_module(&module, &options, &mut w)
                .and_then(|()| std::io::Write::flush(&mut w))
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
        _ => {
            let stdout = std::io::stdout();
            let mut w = stdout.lock();
            dxil_text::write_module(&module, &options, &mut w)?;
        }
    }
    Ok(())
}
