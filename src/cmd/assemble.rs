//! `dxil as`: assemble an LLVM-assembly listing into a DXIL container.

use std::path::PathBuf;

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
    let _ = (&a.input, &a.output, &a.root_signature);
    Err("dxil as: not implemented yet".into())
}
