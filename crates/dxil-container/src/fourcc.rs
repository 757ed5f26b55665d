//! Four-character codes naming container parts.

use std::fmt;

use serde::{Serialize, Serializer};

/// A part's four-character code, stored as the four bytes in file order (`DXIL` is `b"DXIL"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCC(pub [u8; 4]);

impl FourCC {
    /// Container magic.
    pub const DXBC: FourCC = FourCC(*b"DXBC");
    /// Program header + final bitcode.
    pub const DXIL: FourCC = FourCC(*b"DXIL");
    /// Shader feature flags (u64).
    pub const SFI0: FourCC = FourCC(*b"SFI0");
    /// Input signature.
    pub const ISG1: FourCC = FourCC(*b"ISG1");
    /// Output signature.
    pub const OSG1: FourCC = FourCC(*b"OSG1");
    /// Patch-constant (HS/DS) or primitive (MS) signature.
    pub const PSG1: FourCC = FourCC(*b"PSG1");
    /// Pipeline state validation data.
    pub const PSV0: FourCC = FourCC(*b"PSV0");
    /// Serialized root signature.
    pub const RTS0: FourCC = FourCC(*b"RTS0");
    /// Program header + reflection bitcode.
    pub const STAT: FourCC = FourCC(*b"STAT");
    /// Shader hash: flags + MD5 of the bitcode.
    pub const HASH: FourCC = FourCC(*b"HASH");
    /// Program header + debug bitcode.
    pub const ILDB: FourCC = FourCC(*b"ILDB");
    /// Debug name.
    pub const ILDN: FourCC = FourCC(*b"ILDN");
    /// Compiler version (libraries).
    pub const VERS: FourCC = FourCC(*b"VERS");
    /// Runtime data tables (libraries).
    pub const RDAT: FourCC = FourCC(*b"RDAT");
    /// Private user data; the only part allowed an unaligned size, and it must come last.
    pub const PRIV: FourCC = FourCC(*b"PRIV");
    /// Legacy resource reflection.
    pub const RDEF: FourCC = FourCC(*b"RDEF");
    /// Source information (PDBs).
    pub const SRCI: FourCC = FourCC(*b"SRCI");

    /// The code as the little-endian `u32` the file stores.
    pub const fn to_u32(self) -> u32 {
        u32::from_le_bytes(self.0)
    }

    /// The code from the little-endian `u32` the file stores.
    pub const fn from_u32(value: u32) -> FourCC {
        FourCC(value.to_le_bytes())
    }

    fn is_printable(self) -> bool {
        self.0.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
    }
}

impl fmt::Display for FourCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_printable() {
            for &b in &self.0 {
                write!(f, "{}", b as char)?;
            }
            Ok(())
        } else {
            write!(f, "{:#010x}", self.to_u32())
        }
    }
}

impl fmt::Debug for FourCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCC({self})")
    }
}

impl Serialize for FourCC {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_order_and_u32_agree() {
        assert_eq!(FourCC::DXIL.to_u32(), 0x4C49_5844);
        assert_eq!(FourCC::DXBC.to_u32(), 0x4342_5844);
        assert_eq!(FourCC::from_u32(0x3053_5452), FourCC::RTS0);
    }

    #[test]
    fn display_is_text_or_hex() {
        assert_eq!(FourCC::PSV0.to_string(), "PSV0");
        assert_eq!(FourCC([0, 1, 2, 3]).to_string(), "0x03020100");
        assert_eq!(format!("{:?}", FourCC::HASH), "FourCC(HASH)");
    }
}
