//! Reader and writer for the DXBC/DXIL container that holds a compiled D3D12 shader.
//!
//! A container is a 32-byte header (magic `DXBC`, a 16-byte digest, version, size, part count),
//! a table of part offsets, and contiguous parts, each `{FourCC, size}` plus payload.
//!
//! Reading is lazy and zero-copy in the style of wasmparser: [`Container::parse`] checks the
//! header and part table (strictly, or leniently with [`Container::parse_lenient`], which lists
//! what is wrong as [`Problem`]s instead of failing) and hands out [`Part`]s that borrow the input.
//! A part is decoded only when asked for ([`Container::psv`], [`Part::decode`], ...), and every
//! error names the part and the absolute byte offset.
//!
//! Writing is byte-exact: each typed part ([`ProgramHeader`], [`Signature`], [`Psv`],
//! [`FeatureInfo`], [`ShaderHash`], [`DebugName`], [`CompilerVersion`]) serializes back to the
//! bytes DXC produces for it, with the validator-version-dependent rules (signature name sharing
//! and padding, PSV0 version) taken as parameters, and [`write_container`] assembles parts and
//! computes the container digest (DXC's modified MD5, [`hash::retail_hash`]).
//!
//! Why hand-written: no crates.io crate reads DXIL containers. The few DXBC readers that exist
//! target SM4/5 (`ISGN`/`SHEX` parts), do not know PSV0, cannot write, and do not produce the
//! modified-MD5 digest. MD5 itself comes from the `md-5` crate; only the non-standard final block
//! is done here.

#![forbid(unsafe_code)]

use std::fmt;

use serde::Serialize;

pub mod container;
pub mod enums;
mod error;
mod fourcc;
pub mod fuzz;
pub mod hash;
mod md5x2;
pub mod parts;
mod read;
pub mod writer;

pub use container::{Container, ContainerInfo, Header, Part, PartInfo, Problem};
pub use enums::{
    ComponentType, InputPrimitive, InterpolationMode, MeshOutputTopology, MinPrecision,
    PrimitiveTopology, ResourceKind, ResourceType, SemanticKind, ShaderKind, SystemValue,
    TessellatorDomain, TessellatorOutputPrimitive,
};
pub use error::{Error, ErrorKind, Result};
pub use fourcc::FourCC;
pub use hash::DigestStatus;
pub use parts::{
    CompilerVersion, DebugName, FeatureInfo, PartContent, ProgramHeader, Psv, RdatFunction,
    RdatLibrary, RdatResource, RuntimeData, ShaderHash, Signature, SignatureBuilder,
    SignatureElement, Subobject, SubobjectData, compute_hash_part, write_program_part,
};
pub use read::MAX_STRING_LEN;
pub use writer::{ContainerBuilder, DigestMode, set_digest, write_container};

/// For [`open_enum!`]: the expansion names serde through this crate, so that users of the macro
/// need not name serde themselves.
#[doc(hidden)]
pub use serde as __serde;

/// A validator version (`!dx.valver`): it selects the byte rules of several parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ValidatorVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl ValidatorVersion {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Self {
        ValidatorVersion { major, minor }
    }

    /// From 1.7 on, signature names are shared by content and signature parts padded to 4
    /// (and the container writer requires every part size to be a multiple of 4).
    pub fn aligns_signature_parts(self) -> bool {
        self >= ValidatorVersion::new(1, 7)
    }

    /// From 1.7 on, signature names with equal text are stored once.
    pub fn dedups_signature_names(self) -> bool {
        self >= ValidatorVersion::new(1, 7)
    }

    /// From 1.5 on, signature read/write masks come from usage and `i1` is `UInt32` (before:
    /// `~Mask` for outputs, 0 for inputs, `i1` as `Unknown`), and DXC writes a `HASH` part.
    pub fn has_usage_masks_and_hash(self) -> bool {
        self >= ValidatorVersion::new(1, 5)
    }

    /// The PSV0 version DXC writes for this validator (`hlsl::GetPSVVersion`): below 1.1 → 0,
    /// 1.1–1.5 → 1, 1.6–1.7 → 2, 1.8–1.9 → 3, 1.10 and later → 4.
    pub fn psv_version(self) -> u32 {
        if self < ValidatorVersion::new(1, 1) {
            0
        } else if self < ValidatorVersion::new(1, 6) {
            1
        } else if self < ValidatorVersion::new(1, 8) {
            2
        } else if self < ValidatorVersion::new(1, 10) {
            3
        } else {
            4
        }
    }
}

impl fmt::Display for ValidatorVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validator_version_rules() {
        let v = ValidatorVersion::new;
        assert_eq!(
            [
                v(1, 0),
                v(1, 1),
                v(1, 5),
                v(1, 6),
                v(1, 7),
                v(1, 8),
                v(1, 9),
                v(1, 10),
                v(2, 0)
            ]
            .map(|x| x.psv_version()),
            [0, 1, 1, 2, 2, 3, 3, 4, 4]
        );
        assert!(!v(1, 6).aligns_signature_parts());
        assert!(v(1, 7).aligns_signature_parts());
        assert!(v(1, 10) > v(1, 9));
        assert_eq!(v(1, 8).to_string(), "1.8");
    }
}
