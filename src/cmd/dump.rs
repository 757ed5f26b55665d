//! `dxil dump`: the DXIL part's bitstream as nested blocks and records.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A DXIL container, or raw bitcode (starting with `BC`); `-` reads standard input.
    file: PathBuf,
    /// Print the bit offset of every entry.
    #[arg(long)]
    offsets: bool,
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.file)?;
    let (bitcode, base) = if bytes.starts_with(b"BC") {
        (&bytes[..], 0)
    } else {
        super::program_bitcode(&bytes)?
    };
    let mut out = String::new();
    let options = dxil_bitstream::DumpOptions {
        names: Some(&dxil_module::read::LlvmNames),
        offsets: a.offsets,
    };
    dxil_bitstream::dump(bitcode, base, &options, &mut out)?;
    super::write_output(None, out.as_bytes())
}
