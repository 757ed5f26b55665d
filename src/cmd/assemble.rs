//! `dxil as`: assemble an LLVM-assembly listing into a DXIL container.

use std::path::PathBuf;

use dxil_assembler::{AssembleOptions, Error};

#[derive(clap::Args)]
pub struct Args {
    /// The listing (`-` for standard input).
    input: PathBuf,
    /// Where to write the container.
    #[arg(short, long)]
    output: PathBuf,
    /// Embed this root signature (a container with an RTS0 part, or a raw RTS0 payload).
    #[arg(long, value_name = "FILE")]
    root_signature: Option<PathBuf>,
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.input)?;
    let name = a.input.display().to_string();
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        // Count the position like the parser does, so that the message reads the same.
        let before = &bytes[..e.valid_up_to()];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        format!("{name}:{line}:{column}: the listing is not UTF-8 text")
    })?;
    let mut options = AssembleOptions::default();
    if let Some(rs) = &a.root_signature {
        let file = super::read_input(rs)?;
        let payload = dxil_assembler::root_signature_payload(&file)
            .map_err(|e| format!("{}: {e}", rs.display()))?;
        options.root_signature = Some(payload);
    }
    let module = dxil_text::parse_module(text)
        .map_err(|e| format!("{name}:{}:{}: {}", e.line, e.column, e.message))?;
    // A library's runtime data (RDAT) is not generated: write the rest and say so.
    let is_library = dxil_shader::DxilModule::from_module(&module).is_ok_and(|d| d.is_library());
    if is_library {
        options.allow_library_without_rdat = true;
        eprintln!(
            "dxil as: warning: {name} is a library; its RDAT part is not generated, so the \
             validator will reject the container"
        );
    }
    let container = dxil_assembler::build_container(&module, &options).map_err(|e| match e {
        Error::Parse(p) => format!("{name}:{}:{}: {}", p.line, p.column, p.message),
        e => format!("{name}: {e}"),
    })?;
    super::write_output(Some(&a.output), &container)
}
