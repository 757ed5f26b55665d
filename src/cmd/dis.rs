//! `dxil dis`: print a container's module as LLVM assembly, in the text DXC prints.
//!
//! With several inputs (a batch, like `llvm-dis a.bc b.bc ...`) every listing goes to
//! `--out-dir` (default: beside its input) as `<input stem>.ll`, and the files are disassembled
//! in parallel on every core.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

#[derive(clap::Args)]
pub struct Args {
    /// Containers or raw bitcode files (`-` for standard input).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the listing of a single input (standard output when omitted).
    #[arg(short, long, conflicts_with = "out_dir")]
    output: Option<PathBuf>,
    /// Write each input's listing to DIR/<stem>.ll (several inputs: default beside the input).
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

pub fn run(a: Args) -> super::Result {
    if a.inputs.len() == 1 && a.out_dir.is_none() {
        let input = &a.inputs[0];
        let bytes = super::read_input(input)?;
        let text = listing(&bytes).map_err(|e| format!("{}: {e}", input.display()))?;
        return super::write_output(a.output.as_deref(), text.as_bytes());
    }
    if a.output.is_some() {
        return Err("several inputs: use --out-dir DIR instead of -o".into());
    }
    if a.inputs.iter().any(|p| p.as_os_str() == "-") {
        return Err("standard input (`-`) takes a single input".into());
    }
    let failures: Vec<String> = a
        .inputs
        .par_iter()
        .map_init(Vec::new, |buf, input| {
            batch_one(input, a.out_dir.as_deref(), buf)
                .err()
                .map(|e| format!("{}: {e}", input.display()))
        })
        .flatten()
        .collect();
    for f in &failures {
        eprintln!("error: {f}");
    }
    match failures.len() {
        0 => Ok(()),
        n => Err(format!("{n} of {} inputs failed", a.inputs.len()).into()),
    }
}

/// The listing of a container or raw bitcode.
fn listing(bytes: &[u8]) -> super::Result<String> {
    let module = super::read_module_any(bytes)?;
    let mut text = String::with_capacity(bytes.len() * 4);
    dxil_text::print_module(&module, &mut text)?;
    Ok(text)
}

fn batch_one(input: &Path, out_dir: Option<&Path>, buf: &mut Vec<u8>) -> super::Result {
    buf.clear();
    std::fs::File::open(input)
        .and_then(|mut f| std::io::Read::read_to_end(&mut f, buf))
        .map_err(|e| e.to_string())?;
    let text = listing(buf)?;
    let name = input.with_extension("ll");
    let out = match out_dir {
        Some(dir) => dir.join(name.file_name().ok_or("input has no file name")?),
        None => name,
    };
    let mut f = std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("{}: {e}", out.display()).into())
}
