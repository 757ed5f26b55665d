//! `DXIL`, `STAT` and `ILDB`: a program header followed by LLVM bitcode.

use std::fmt;

use serde::Serialize;

use crate::enums::ShaderKind;
use crate::read::{Cursor, PutLe, len_u32};
use crate::{Error, ErrorKind, FourCC, Result};

/// `'DXIL'`, the bitcode header's magic.
pub const DXIL_MAGIC: u32 = 0x4C49_5844;
/// Size of `DxilProgramHeader` (program version, size, bitcode header).
pub const PROGRAM_HEADER_SIZE: usize = 24;
/// Where the bitcode header starts inside the part; `bitcode_offset` counts from here.
pub const BITCODE_HEADER_START: usize = 8;

/// A decoded program header and the bitcode it frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ProgramHeader<'a> {
    /// Stage, from bits 16..32 of `ProgramVersion`.
    pub shader_kind: ShaderKind,
    /// Shader model major version (bits 4..8).
    pub sm_major: u32,
    /// Shader model minor version (bits 0..4).
    pub sm_minor: u32,
    /// `SizeInUint32`: the part's size in dwords, header included.
    pub size_in_u32: u32,
    /// `DxilVersion`: `(major << 8) | minor`.
    pub dxil_version: u32,
    /// `BitcodeOffset`, counted from the bitcode header (byte 8 of the part); normally 16.
    pub bitcode_offset: u32,
    /// The bitcode (without padding).
    #[serde(skip)]
    pub bitcode: &'a [u8],
    /// Absolute container offset of the first bitcode byte, for bit-offset error messages.
    pub bitcode_byte_offset_in_container: usize,
}

impl<'a> ProgramHeader<'a> {
    /// Parses a program-shaped part. `base` is the absolute offset of `data[0]`.
    pub fn parse(data: &'a [u8], base: usize, part: FourCC) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(part));
        let program_version = c.u32("program version")?;
        let size_in_u32 = c.u32("program size")?;
        let magic = c.u32("DXIL magic")?;
        if magic != DXIL_MAGIC {
            return Err(c.error_at(
                8,
                ErrorKind::Malformed,
                format!(
                    "bitcode header magic is {}, expected DXIL",
                    FourCC::from_u32(magic)
                ),
            ));
        }
        let dxil_version = c.u32("DXIL version")?;
        let bitcode_offset = c.u32("bitcode offset")?;
        let bitcode_size = c.u32("bitcode size")?;
        // DXC's `IsValidDxilProgramHeader`: the declared size fits the part, and the bitcode fits
        // the declared size.
        let declared = u64::from(size_in_u32) * 4;
        if declared > data.len() as u64 {
            return Err(c.error_at(
                4,
                ErrorKind::Truncated,
                format!(
                    "program size {size_in_u32} dwords exceeds the {}-byte part",
                    data.len()
                ),
            ));
        }
        let start = BITCODE_HEADER_START as u64 + u64::from(bitcode_offset);
        let end = start + u64::from(bitcode_size);
        if end > declared {
            return Err(c.error_at(
                16,
                ErrorKind::Malformed,
                format!("bitcode [{start}, {end}) lies outside the program's {declared} bytes"),
            ));
        }
        let bitcode = data.get(start as usize..end as usize).unwrap_or_default();
        Ok(ProgramHeader {
            shader_kind: ShaderKind::from_raw(program_version >> 16),
            sm_major: (program_version >> 4) & 0xf,
            sm_minor: program_version & 0xf,
            size_in_u32,
            dxil_version,
            bitcode_offset,
            bitcode,
            bitcode_byte_offset_in_container: base.saturating_add(start as usize),
        })
    }

    /// DXIL major version.
    pub fn dxil_major(&self) -> u32 {
        self.dxil_version >> 8
    }

    /// DXIL minor version.
    pub fn dxil_minor(&self) -> u32 {
        self.dxil_version & 0xff
    }

    /// The shader-model profile name, e.g. `cs_6_6`.
    pub fn profile(&self) -> String {
        let prefix = match self.shader_kind {
            ShaderKind::Pixel => "ps",
            ShaderKind::Vertex => "vs",
            ShaderKind::Geometry => "gs",
            ShaderKind::Hull => "hs",
            ShaderKind::Domain => "ds",
            ShaderKind::Compute => "cs",
            ShaderKind::Library => "lib",
            ShaderKind::Mesh => "ms",
            ShaderKind::Amplification => "as",
            _ => "unknown",
        };
        format!("{prefix}_{}_{}", self.sm_major, self.sm_minor)
    }

    /// Serializes the part the way DXC does: canonical header, bitcode, zero padding to 4. The
    /// stored `size_in_u32` and `bitcode_offset` are recomputed, not copied.
    pub fn write(&self, part: FourCC) -> Result<Vec<u8>> {
        write_program_part(
            part,
            self.shader_kind,
            self.sm_major,
            self.sm_minor,
            self.dxil_version,
            self.bitcode,
        )
    }
}

/// Builds a `DXIL`/`STAT`/`ILDB` payload from its parts (DXC's `WriteProgramPart`).
pub fn write_program_part(
    part: FourCC,
    shader_kind: ShaderKind,
    sm_major: u32,
    sm_minor: u32,
    dxil_version: u32,
    bitcode: &[u8],
) -> Result<Vec<u8>> {
    if sm_major > 0xf || sm_minor > 0xf || shader_kind.raw() > 0xffff {
        return Err(Error::new(
            ErrorKind::Limit,
            0,
            Some(part),
            format!("program version {shader_kind} {sm_major}.{sm_minor} does not fit its fields"),
        ));
    }
    let bitcode_size = len_u32(bitcode.len(), part, "bitcode size")?;
    let padded = bitcode.len().div_ceil(4) * 4;
    let size_in_u32 = len_u32((PROGRAM_HEADER_SIZE + padded) / 4, part, "program size")?;
    let mut out = Vec::with_capacity(PROGRAM_HEADER_SIZE + padded);
    out.put_u32((shader_kind.raw() << 16) | (sm_major << 4) | sm_minor);
    out.put_u32(size_in_u32);
    out.put_u32(DXIL_MAGIC);
    out.put_u32(dxil_version);
    out.put_u32(16);
    out.put_u32(bitcode_size);
    out.extend_from_slice(bitcode);
    out.pad_to_4();
    Ok(out)
}

impl fmt::Display for ProgramHeader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}), DXIL {}.{}, {} bytes of bitcode at container offset {:#x}",
            self.profile(),
            self.shader_kind,
            self.dxil_major(),
            self.dxil_minor(),
            self.bitcode.len(),
            self.bitcode_byte_offset_in_container
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_parse() {
        let bitcode = [0x42, 0x43, 0xc0, 0xde, 1, 2, 3];
        let bytes =
            write_program_part(FourCC::DXIL, ShaderKind::Vertex, 6, 0, 0x100, &bitcode).unwrap();
        assert_eq!(bytes.len(), 24 + 8);
        assert_eq!(&bytes[..4], &0x10060u32.to_le_bytes());
        assert_eq!(&bytes[4..8], &8u32.to_le_bytes());
        let p = ProgramHeader::parse(&bytes, 100, FourCC::DXIL).unwrap();
        assert_eq!(p.shader_kind, ShaderKind::Vertex);
        assert_eq!((p.sm_major, p.sm_minor), (6, 0));
        assert_eq!(p.bitcode, &bitcode);
        assert_eq!(p.bitcode_byte_offset_in_container, 124);
        assert_eq!(p.profile(), "vs_6_0");
        assert_eq!(p.write(FourCC::DXIL).unwrap(), bytes);
    }

    #[test]
    fn rejects_bad_magic_and_sizes() {
        let good =
            write_program_part(FourCC::DXIL, ShaderKind::Compute, 6, 6, 0x106, &[1; 8]).unwrap();
        let mut bad = good.clone();
        bad[8] = b'X';
        let e = ProgramHeader::parse(&bad, 0, FourCC::DXIL).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Malformed, 8));
        let mut bad = good.clone();
        bad[4] = 100;
        assert_eq!(
            ProgramHeader::parse(&bad, 0, FourCC::DXIL)
                .unwrap_err()
                .kind(),
            ErrorKind::Truncated
        );
        let mut bad = good.clone();
        bad[20] = 200;
        assert_eq!(
            ProgramHeader::parse(&bad, 0, FourCC::DXIL)
                .unwrap_err()
                .kind(),
            ErrorKind::Malformed
        );
        assert!(ProgramHeader::parse(&good[..20], 0, FourCC::DXIL).is_err());
    }

    #[test]
    fn oversized_version_fields_are_refused() {
        assert_eq!(
            write_program_part(FourCC::DXIL, ShaderKind::Compute, 16, 0, 0, &[])
                .unwrap_err()
                .kind(),
            ErrorKind::Limit
        );
    }
}
