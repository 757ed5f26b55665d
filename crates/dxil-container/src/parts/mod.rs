//! Typed views of the container's parts, each with a reader and a byte-exact writer.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::enums::ShaderKind;
use crate::{FourCC, Result};

pub mod library;
pub mod program;
pub mod psv;
pub mod rdat;
pub mod signature;
pub mod small;

pub use library::{RdatFunction, RdatLibrary, RdatResource, Subobject, SubobjectData};
pub use program::{ProgramHeader, write_program_part};
pub use psv::{
    Info1Union, Psv, PsvSignatureElement, PsvTablesBuilder, ResourceBinding, RuntimeInfo,
    RuntimeInfo1, StageInfo,
};
pub use rdat::{RdatPart, RuntimeData};
pub use signature::{NameId, Signature, SignatureBuilder, SignatureElement, SignatureName};
pub use small::{CompilerVersion, DebugName, FeatureInfo, ShaderHash, compute_hash_part};

/// Bytes kept undecoded; serialized as their size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawBytes<'a>(pub &'a [u8]);

impl Serialize for RawBytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Size {
            size: usize,
        }
        Size { size: self.0.len() }.serialize(s)
    }
}

/// A part decoded according to its FourCC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "content")]
pub enum PartContent<'a> {
    /// `DXIL`, `STAT`, `ILDB`.
    Program(ProgramHeader<'a>),
    /// `ISG1`, `OSG1`, `PSG1`.
    Signature(Signature<'a>),
    /// `PSV0`.
    Psv(Box<Psv<'a>>),
    /// `SFI0`.
    FeatureInfo(FeatureInfo),
    /// `HASH`.
    ShaderHash(ShaderHash),
    /// `ILDN`.
    DebugName(DebugName<'a>),
    /// `VERS`.
    CompilerVersion(CompilerVersion<'a>),
    /// `RDAT` (table of contents only).
    RuntimeData(RuntimeData),
    /// `RTS0`, decoded by the root-signature crate.
    RootSignature(RawBytes<'a>),
    /// Any other FourCC.
    Raw(RawBytes<'a>),
}

impl<'a> PartContent<'a> {
    /// Decodes `data` (a payload starting at absolute offset `base`) as a `fourcc` part. `stage`
    /// is only used for a version-0 `PSV0`, which does not store its stage.
    pub fn decode(
        fourcc: FourCC,
        data: &'a [u8],
        base: usize,
        stage: Option<ShaderKind>,
    ) -> Result<Self> {
        Ok(match fourcc {
            FourCC::DXIL | FourCC::STAT | FourCC::ILDB => {
                PartContent::Program(ProgramHeader::parse(data, base, fourcc)?)
            }
            FourCC::ISG1 | FourCC::OSG1 | FourCC::PSG1 => {
                PartContent::Signature(Signature::parse(data, base, fourcc)?)
            }
            FourCC::PSV0 => PartContent::Psv(Box::new(Psv::parse(data, base, stage)?)),
            FourCC::SFI0 => PartContent::FeatureInfo(FeatureInfo::parse(data, base)?),
            FourCC::HASH => PartContent::ShaderHash(ShaderHash::parse(data, base)?),
            FourCC::ILDN => PartContent::DebugName(DebugName::parse(data, base)?),
            FourCC::VERS => PartContent::CompilerVersion(CompilerVersion::parse(data, base)?),
            FourCC::RDAT => PartContent::RuntimeData(RuntimeData::parse(data, base)?),
            FourCC::RTS0 => PartContent::RootSignature(RawBytes(data)),
            _ => PartContent::Raw(RawBytes(data)),
        })
    }
}

/// A multi-line human summary (the data is in the typed fields; this is for `dxil info`).
impl fmt::Display for PartContent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartContent::Program(p) => writeln!(f, "  {p}"),
            PartContent::Signature(s) => write!(f, "{s}"),
            PartContent::Psv(p) => write!(f, "{p}"),
            PartContent::FeatureInfo(i) => writeln!(f, "  {i}"),
            PartContent::ShaderHash(h) => writeln!(f, "  {h}"),
            PartContent::DebugName(n) => writeln!(f, "  {:?}", n.name),
            PartContent::CompilerVersion(v) => writeln!(f, "  {v}"),
            PartContent::RuntimeData(r) => write!(f, "{r}"),
            PartContent::RootSignature(b) => writeln!(f, "  root signature, {} bytes", b.0.len()),
            PartContent::Raw(b) => writeln!(f, "  {} bytes", b.0.len()),
        }
    }
}
