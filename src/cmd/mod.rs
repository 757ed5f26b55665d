//! One module per subcommand, plus the input/output helpers they share.

pub mod assemble;
pub mod bench;
pub mod dis;
pub mod dump;
pub mod from_spirv;
pub mod info;
pub mod rootsig;
pub mod run;
pub mod spec;
pub mod translate;

use std::io::{Read, Write};
use std::path::Path;

/// A command's error: a message that already says what failed and where.
pub type Error = Box<dyn std::error::Error>;
pub type Result<T = ()> = std::result::Result<T, Error>;

/// Reads a file, or standard input for `-`.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::stdin().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()).into())
    }
}

/// Writes to a file, or standard output when `path` is `None` or `-`.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, bytes).map_err(|e| format!("{}: {e}", p.display()).into())
        }
        _ => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()?;
            Ok(())
        }
    }
}

/// Parses a container and returns its DXIL part's bitcode with the bitcode's absolute offset.
pub fn program_bitcode(bytes: &[u8]) -> Result<(&[u8], u64)> {
    let c = dxil_container::Container::parse(bytes)?;
    let p = c.program().ok_or("the container has no DXIL part")??;
    Ok((p.bitcode, p.bitcode_byte_offset_in_container as u64))
}

/// Reads a module from a container, or from raw bitcode (`BC\xC0\xDE` or a DXIL program header).
pub fn read_module_any(bytes: &[u8]) -> Result<dxil_module::Module> {
    if bytes.starts_with(b"DXBC") {
        let (bitcode, offset) = program_bitcode(bytes)?;
        return Ok(dxil_module::read_module(bitcode, offset)?);
    }
    if bytes.starts_with(b"BC\xC0\xDE") {
        return Ok(dxil_module::read_module(bytes, 0)?);
    }
    Err("not a DXIL container (no DXBC magic) nor LLVM bitcode".into())
}
