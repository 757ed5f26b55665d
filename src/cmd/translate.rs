//! `dxil to-spirv`: translate a DXIL container into SPIR-V.

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
    let _ = (&a.input, &a.output, &a.entry, a.text);
    Err("dxil to-spirv: not implemented yet".into())
}
