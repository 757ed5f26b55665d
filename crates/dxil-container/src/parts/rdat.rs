//! `RDAT`: the table of contents of a library's runtime data (the records themselves are not
//! decoded here).

use std::fmt;

use serde::Serialize;

use crate::read::Cursor;
use crate::{ErrorKind, FourCC, Result};

/// `RDAT_Version_10`.
pub const RDAT_VERSION_10: u32 = 0x10;

/// `RuntimeDataPartType`, by value.
pub fn rdat_part_type_name(kind: u32) -> Option<&'static str> {
    Some(match kind {
        1 => "StringBuffer",
        2 => "IndexArrays",
        3 => "ResourceTable",
        4 => "FunctionTable",
        5 => "RawBytes",
        6 => "SubobjectTable",
        7 => "NodeIDTable",
        8 => "NodeShaderIOAttribTable",
        9 => "NodeShaderFuncAttribTable",
        10 => "IONodeTable",
        11 => "NodeShaderInfoTable",
        _ => return None,
    })
}

/// Whether parts of this type start with `{u32 RecordCount; u32 RecordStride}`.
fn is_table(kind: u32) -> bool {
    matches!(kind, 3 | 4 | 6..=11)
}

/// One RDAT sub-part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RdatPart {
    /// `RuntimeDataPartType` value.
    pub part_type: u32,
    /// Its name, when known.
    pub name: Option<&'static str>,
    /// Absolute offset of the sub-part's data (after its 8-byte header).
    pub offset: usize,
    /// Data size in bytes.
    pub size: u32,
    /// For record tables: record count and stride.
    pub records: Option<(u32, u32)>,
}

/// The RDAT table of contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeData {
    /// `RuntimeDataHeader::Version`.
    pub version: u32,
    /// Sub-parts in offset-table order.
    pub parts: Vec<RdatPart>,
}

impl RuntimeData {
    /// Parses the header, the offset table and each sub-part's header.
    pub fn parse(data: &[u8], base: usize) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(FourCC::RDAT));
        let version = c.u32("RDAT version")?;
        if version != RDAT_VERSION_10 {
            return Err(c.error_at(
                0,
                ErrorKind::Unsupported,
                format!("RDAT version {version:#x} (only 0x10 is known)"),
            ));
        }
        let count = c.u32("RDAT part count")? as usize;
        let offsets = c.u32_vec(count, "RDAT part offsets")?;
        let mut parts = Vec::with_capacity(count);
        for offset in offsets {
            let mut p = c.clone();
            p.seek(offset as usize, "RDAT part")?;
            let part_type = p.u32("RDAT part type")?;
            let size = p.u32("RDAT part size")?;
            let start = p.pos();
            p.bytes(size as usize, "RDAT part data")?;
            let records = if is_table(part_type) && size >= 8 {
                let mut t = c.clone();
                t.seek(start, "RDAT table header")?;
                Some((t.u32("record count")?, t.u32("record stride")?))
            } else {
                None
            };
            parts.push(RdatPart {
                part_type,
                name: rdat_part_type_name(part_type),
                offset: c.abs(start),
                size,
                records,
            });
        }
        Ok(RuntimeData { version, parts })
    }
}

impl fmt::Display for RuntimeData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  RDAT version {:#x}", self.version)?;
        for p in &self.parts {
            match p.name {
                Some(name) => write!(f, "  {name}")?,
                None => write!(f, "  type {}", p.part_type)?,
            }
            write!(f, " at {:#x}, {} bytes", p.offset, p.size)?;
            if let Some((count, stride)) = p.records {
                write!(f, ", {count} records of {stride} bytes")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut v = Vec::new();
        for w in [0x10u32, 2, 16, 28, 1, 4, 0x0061_6200, 3, 12, 1, 4, 0xab] {
            v.extend_from_slice(&w.to_le_bytes());
        }
        v
    }

    #[test]
    fn lists_parts() {
        let rdat = RuntimeData::parse(&sample(), 100).unwrap();
        assert_eq!(rdat.parts.len(), 2);
        assert_eq!(rdat.parts[0].name, Some("StringBuffer"));
        assert_eq!(rdat.parts[0].offset, 124);
        assert_eq!(rdat.parts[1].name, Some("ResourceTable"));
        assert_eq!(rdat.parts[1].records, Some((1, 4)));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample();
        for len in 0..bytes.len() {
            assert!(RuntimeData::parse(&bytes[..len], 0).is_err(), "len {len}");
        }
    }
}
