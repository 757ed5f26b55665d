//! The small fixed-layout parts: `SFI0`, `HASH`, `ILDN`, `VERS`.

use std::fmt;

use serde::Serialize;

use crate::container::serialize_hex;
use crate::hash;
use crate::read::{Cursor, PutLe};
use crate::{Error, ErrorKind, FourCC, Result};

/// `SFI0` feature bits (`ShaderFeatureInfo_*` in DXC's `DxilConstants.h`), bit value and name.
pub const FEATURE_FLAG_NAMES: [(u64, &str); 35] = [
    (0x1, "Doubles"),
    (0x2, "ComputeShadersPlusRawAndStructuredBuffersViaShader4X"),
    (0x4, "UAVsAtEveryStage"),
    (0x8, "64UAVs"),
    (0x10, "MinimumPrecision"),
    (0x20, "11_1_DoubleExtensions"),
    (0x40, "11_1_ShaderExtensions"),
    (0x80, "LEVEL9ComparisonFiltering"),
    (0x100, "TiledResources"),
    (0x200, "StencilRef"),
    (0x400, "InnerCoverage"),
    (0x800, "TypedUAVLoadAdditionalFormats"),
    (0x1000, "ROVs"),
    (
        0x2000,
        "ViewportAndRTArrayIndexFromAnyShaderFeedingRasterizer",
    ),
    (0x4000, "WaveOps"),
    (0x8000, "Int64Ops"),
    (0x1_0000, "ViewID"),
    (0x2_0000, "Barycentrics"),
    (0x4_0000, "NativeLowPrecision"),
    (0x8_0000, "ShadingRate"),
    (0x10_0000, "Raytracing_Tier_1_1"),
    (0x20_0000, "SamplerFeedback"),
    (0x40_0000, "AtomicInt64OnTypedResource"),
    (0x80_0000, "AtomicInt64OnGroupShared"),
    (0x100_0000, "DerivativesInMeshAndAmpShaders"),
    (0x200_0000, "ResourceDescriptorHeapIndexing"),
    (0x400_0000, "SamplerDescriptorHeapIndexing"),
    (0x800_0000, "WaveMMA"),
    (0x1000_0000, "AtomicInt64OnHeapResource"),
    (0x2000_0000, "AdvancedTextureOps"),
    (0x4000_0000, "WriteableMSAATextures"),
    (0x8000_0000, "SampleCmpGradientOrBias"),
    (0x1_0000_0000, "ExtendedCommandInfo"),
    (0x100_0000_0000, "UsesDerivatives"),
    (0x200_0000_0000, "RequiresGroup"),
];

/// The `SFI0` part: a 64-bit feature mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureInfo {
    /// The stored bits.
    pub flags: u64,
}

impl FeatureInfo {
    /// Parses the 8-byte part.
    pub fn parse(data: &[u8], base: usize) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(FourCC::SFI0));
        let flags = c.u64("feature flags")?;
        expect_end(&c, "feature flags")?;
        Ok(FeatureInfo { flags })
    }

    /// Names of the set bits this crate knows.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        FEATURE_FLAG_NAMES
            .iter()
            .filter(|(bit, _)| self.flags & bit != 0)
            .map(|(_, name)| *name)
    }

    /// Set bits without a name here.
    pub fn unknown_bits(&self) -> u64 {
        FEATURE_FLAG_NAMES
            .iter()
            .fold(self.flags, |rest, (bit, _)| rest & !bit)
    }

    /// The 8-byte payload.
    pub fn write(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8);
        out.put_u64(self.flags);
        out
    }
}

impl Serialize for FeatureInfo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View {
            flags: u64,
            names: Vec<&'static str>,
            unknown_bits: u64,
        }
        View {
            flags: self.flags,
            names: self.names().collect(),
            unknown_bits: self.unknown_bits(),
        }
        .serialize(s)
    }
}

impl fmt::Display for FeatureInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.flags)?;
        let mut sep = " (";
        for name in self.names() {
            write!(f, "{sep}{name}")?;
            sep = ", ";
        }
        if self.unknown_bits() != 0 {
            write!(f, "{sep}unknown {:#x}", self.unknown_bits())?;
            sep = ", ";
        }
        if sep == ", " {
            write!(f, ")")?;
        }
        Ok(())
    }
}

/// `HASH` flag: the digest covers the debug bitcode with sources (`-Zss`).
pub const HASH_FLAG_INCLUDES_SOURCE: u32 = 1;

/// The `HASH` part: flags and a plain MD5 of the program bitcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShaderHash {
    /// `DxilShaderHashFlags`.
    pub flags: u32,
    /// MD5 of the `DXIL` part's bitcode (of the debug bitcode when `IncludesSource`).
    #[serde(serialize_with = "serialize_hex")]
    pub digest: [u8; 16],
}

impl ShaderHash {
    /// Parses the 20-byte part (the validator checks only this size).
    pub fn parse(data: &[u8], base: usize) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(FourCC::HASH));
        let flags = c.u32("hash flags")?;
        let digest = c.array("shader hash digest")?;
        expect_end(&c, "shader hash")?;
        Ok(ShaderHash { flags, digest })
    }

    /// The hash DXC writes for `bitcode` (flags 0: computed over the final bitcode).
    pub fn of_bitcode(bitcode: &[u8]) -> Self {
        ShaderHash {
            flags: 0,
            digest: hash::md5(bitcode),
        }
    }

    /// Whether the digest covers the sources (`-Zss`).
    pub fn includes_source(&self) -> bool {
        self.flags & HASH_FLAG_INCLUDES_SOURCE != 0
    }

    /// The 20-byte payload.
    pub fn write(&self) -> [u8; 20] {
        let mut out = [0u8; 20];
        out[..4].copy_from_slice(&self.flags.to_le_bytes());
        out[4..].copy_from_slice(&self.digest);
        out
    }
}

/// The `HASH` payload DXC writes for a program's bitcode (flags 0, plain MD5).
pub fn compute_hash_part(bitcode: &[u8]) -> [u8; 20] {
    ShaderHash::of_bitcode(bitcode).write()
}

impl fmt::Display for ShaderHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", hash::hex(&self.digest))?;
        if self.includes_source() {
            write!(f, " (includes source)")?;
        }
        Ok(())
    }
}

/// The `ILDN` part: `{u16 Flags; u16 NameLength}`, the name, a NUL, zero padding to 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DebugName<'a> {
    /// Reserved flags (0).
    pub flags: u16,
    /// The debug name (usually `<hash>.pdb`).
    pub name: &'a str,
}

impl<'a> DebugName<'a> {
    /// Parses the part.
    pub fn parse(data: &'a [u8], base: usize) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(FourCC::ILDN));
        let flags = c.u16("debug name flags")?;
        let len = c.u16("debug name length")?;
        let at = c.pos();
        let bytes = c.bytes(len.into(), "debug name")?;
        if c.u8("debug name terminator")? != 0 {
            return Err(c.error_at(
                at + usize::from(len),
                ErrorKind::Malformed,
                "debug name is not NUL-terminated",
            ));
        }
        let name = std::str::from_utf8(bytes).map_err(|e| {
            c.error_at(
                at + e.valid_up_to(),
                ErrorKind::Malformed,
                "debug name is not UTF-8",
            )
        })?;
        Ok(DebugName { flags, name })
    }

    /// The payload as DXC writes it (always at least one NUL, padded to 4).
    pub fn write(&self) -> Result<Vec<u8>> {
        let len = u16::try_from(self.name.len()).map_err(|_| {
            Error::new(
                ErrorKind::Limit,
                0,
                Some(FourCC::ILDN),
                format!("debug name of {} bytes exceeds 65535", self.name.len()),
            )
        })?;
        // Readers take the name as a C string: one with a NUL would read back cut short.
        if self.name.as_bytes().contains(&0) {
            return Err(Error::new(
                ErrorKind::Invalid,
                0,
                Some(FourCC::ILDN),
                format!("debug name {:?} contains NUL", self.name),
            ));
        }
        let mut out = Vec::with_capacity(self.name.len() + 8);
        out.put_u16(self.flags);
        out.put_u16(len);
        out.extend_from_slice(self.name.as_bytes());
        out.push(0);
        out.pad_to_4();
        Ok(out)
    }
}

/// The `VERS` part: the compiler version that produced a library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CompilerVersion<'a> {
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// `DxcVersionInfoFlags` (1: debug build).
    pub version_flags: u32,
    /// Commit count of the compiler build.
    pub commit_count: u32,
    /// Commit hash.
    pub commit_sha: &'a str,
    /// Custom version string.
    pub custom_version: &'a str,
}

impl<'a> CompilerVersion<'a> {
    /// Parses the part.
    pub fn parse(data: &'a [u8], base: usize) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(FourCC::VERS));
        let major = c.u16("major version")?;
        let minor = c.u16("minor version")?;
        let version_flags = c.u32("version flags")?;
        let commit_count = c.u32("commit count")?;
        let list_size = c.u32("version string list size")?;
        let at = c.pos();
        let list = c.bytes(list_size as usize, "version strings")?;
        let mut strings = list.split(|&b| b == 0);
        let mut next = |what: &'static str| -> Result<&'a str> {
            let s = strings.next().unwrap_or_default();
            std::str::from_utf8(s)
                .map_err(|_| c.error_at(at, ErrorKind::Malformed, format!("{what} is not UTF-8")))
        };
        let commit_sha = next("commit hash")?;
        let custom_version = next("custom version string")?;
        if list.len() != commit_sha.len() + custom_version.len() + 2 {
            return Err(c.error_at(
                at,
                ErrorKind::Malformed,
                format!(
                    "version string list of {list_size} bytes is not two NUL-terminated strings"
                ),
            ));
        }
        Ok(CompilerVersion {
            major,
            minor,
            version_flags,
            commit_count,
            commit_sha,
            custom_version,
        })
    }

    /// The payload as DXC's `DxilVersionWriter` writes it.
    pub fn write(&self) -> Result<Vec<u8>> {
        // The list is two NUL-terminated strings; a NUL inside one would make a third.
        for (what, s) in [
            ("commit hash", self.commit_sha),
            ("custom version string", self.custom_version),
        ] {
            if s.as_bytes().contains(&0) {
                return Err(Error::new(
                    ErrorKind::Invalid,
                    0,
                    Some(FourCC::VERS),
                    format!("{what} {s:?} contains NUL"),
                ));
            }
        }
        let list = self.commit_sha.len() + self.custom_version.len() + 2;
        let list_size = crate::read::len_u32(list, FourCC::VERS, "version string list")?;
        let mut out = Vec::with_capacity(16 + list + 3);
        out.put_u16(self.major);
        out.put_u16(self.minor);
        out.put_u32(self.version_flags);
        out.put_u32(self.commit_count);
        out.put_u32(list_size);
        out.extend_from_slice(self.commit_sha.as_bytes());
        out.push(0);
        out.extend_from_slice(self.custom_version.as_bytes());
        out.push(0);
        out.pad_to_4();
        Ok(out)
    }
}

impl fmt::Display for CompilerVersion<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{} ({}, {} commits, {}) flags {:#x}",
            self.major,
            self.minor,
            self.commit_sha,
            self.commit_count,
            self.custom_version,
            self.version_flags
        )
    }
}

fn expect_end(c: &Cursor<'_>, what: &str) -> Result<()> {
    if c.is_empty() {
        Ok(())
    } else {
        Err(c.error(
            ErrorKind::Malformed,
            format!("{} bytes follow the {what}", c.remaining()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_info() {
        let f = FeatureInfo {
            flags: 0x1_0000_4001 | (1 << 50),
        };
        assert_eq!(
            f.names().collect::<Vec<_>>(),
            ["Doubles", "WaveOps", "ExtendedCommandInfo"]
        );
        assert_eq!(f.unknown_bits(), 1 << 50);
        let back = FeatureInfo::parse(&f.write(), 0).unwrap();
        assert_eq!(back, f);
        assert!(FeatureInfo::parse(&[0; 7], 0).is_err());
        assert!(FeatureInfo::parse(&[0; 9], 0).is_err());
        assert_eq!(FeatureInfo { flags: 0 }.to_string(), "0x0");
        assert_eq!(FeatureInfo { flags: 1 }.to_string(), "0x1 (Doubles)");
    }

    #[test]
    fn shader_hash() {
        let bitcode = b"BC\xc0\xde";
        let bytes = compute_hash_part(bitcode);
        let h = ShaderHash::parse(&bytes, 0).unwrap();
        assert_eq!(h.digest, hash::md5(bitcode));
        assert!(!h.includes_source());
        assert_eq!(h.write(), bytes);
        assert!(ShaderHash::parse(&bytes[..19], 0).is_err());
    }

    #[test]
    fn debug_name_padding() {
        for (name, len) in [("", 8), ("a", 8), ("abc", 8), ("abcd", 12)] {
            let n = DebugName { flags: 0, name };
            let bytes = n.write().unwrap();
            assert_eq!(bytes.len(), len, "{name:?}");
            assert_eq!(DebugName::parse(&bytes, 0).unwrap(), n);
        }
        assert!(DebugName::parse(&[0, 0, 5, 0, b'a'], 0).is_err());
        assert!(DebugName::parse(&[0, 0, 1, 0, b'a', b'b'], 0).is_err());
        let e = DebugName {
            flags: 0,
            name: "a\0b",
        }
        .write()
        .unwrap_err();
        assert_eq!(
            (e.kind(), e.part()),
            (ErrorKind::Invalid, Some(FourCC::ILDN))
        );
    }

    #[test]
    fn compiler_version_matches_dxc_layout() {
        let v = CompilerVersion {
            major: 1,
            minor: 10,
            version_flags: 0,
            commit_count: 5466,
            commit_sha: "9a3e225d",
            custom_version: "1.9.0.15466",
        };
        let bytes = v.write().unwrap();
        assert_eq!(bytes.len(), 40);
        assert_eq!(&bytes[12..16], &21u32.to_le_bytes());
        assert_eq!(CompilerVersion::parse(&bytes, 0).unwrap(), v);
        let mut bad = bytes.clone();
        bad[12] = 30;
        assert!(CompilerVersion::parse(&bad, 0).is_err());
        // A NUL inside a string used to write a list that does not read back.
        for v in [
            CompilerVersion {
                commit_sha: "9a\0e",
                ..v
            },
            CompilerVersion {
                custom_version: "1.9\0",
                ..v
            },
        ] {
            let e = v.write().unwrap_err();
            assert_eq!(
                (e.kind(), e.part()),
                (ErrorKind::Invalid, Some(FourCC::VERS))
            );
        }
    }
}
