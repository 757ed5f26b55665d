//! `dxil dis`: print a container's module as LLVM assembly.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The container (`-` for standard input).
    input: PathBuf,
    /// Where to write the listing (standard output when omitted).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(a: Args) -> super::Result {
    let _ = (&a.input, &a.output);
    Err("dxil dis: not implemented yet".into())
}
