//! The container header and part table: a lazy, offset-aware view over a borrowed byte slice.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::sync::OnceLock;

use serde::Serialize;

use crate::hash::{self, DigestStatus};
use crate::parts::{
    CompilerVersion, DebugName, FeatureInfo, PartContent, ProgramHeader, Psv, RdatLibrary,
    RuntimeData, ShaderHash, Signature,
};
use crate::read::Cursor;
use crate::{Error, ErrorKind, FourCC, Result};

/// Size of the fixed container header (before the part offset table).
pub const HEADER_SIZE: usize = 32;

/// Up to this many parts, duplicates are found by scanning the earlier parts (DXC writes about
/// ten); past it, through a map, so that hostile part counts stay linear.
const SCANNED_PARTS: usize = 32;

/// Size of a part header (`FourCC`, `PartSize`).
pub const PART_HEADER_SIZE: usize = 8;
/// Largest container DXC accepts (`DxilContainerMaxSize`).
pub const MAX_CONTAINER_SIZE: u32 = 0x8000_0000;

/// The fixed container header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Header {
    /// Stored digest (bytes 4..20); see [`Container::digest_status`].
    #[serde(serialize_with = "serialize_hex")]
    pub digest: [u8; 16],
    /// Container format major version; DXC accepts only 1.
    pub version_major: u16,
    /// Container format minor version (0).
    pub version_minor: u16,
    /// `ContainerSizeInBytes`: the declared size of the whole container.
    pub size_in_bytes: u32,
    /// `PartCount` as stored.
    pub part_count: u32,
}

pub(crate) fn serialize_hex<S: serde::Serializer>(
    bytes: &[u8],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&hash::hex(bytes))
}

/// One entry of the part table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Part<'a> {
    /// Position in the part table.
    pub index: u32,
    /// The part's four-character code.
    pub fourcc: FourCC,
    /// Absolute offset of the part header.
    pub header_offset: usize,
    /// `PartSize` as stored.
    pub declared_size: u32,
    /// Absolute offset of the first payload byte.
    pub data_offset: usize,
    /// The payload; shorter than `declared_size` only in a lenient read of a damaged container
    /// (see [`Part::is_truncated`]).
    #[serde(skip)]
    pub data: &'a [u8],
}

impl<'a> Part<'a> {
    /// Whether the payload was cut short by the end of the input or the declared container size.
    pub fn is_truncated(&self) -> bool {
        self.data.len() < self.declared_size as usize
    }

    /// Decodes the payload according to its FourCC. A `PSV0` of version 0 cannot name its stage;
    /// [`Container::decode`] supplies it from the `DXIL` part, this method cannot.
    pub fn decode(&self) -> Result<PartContent<'a>> {
        PartContent::decode(self.fourcc, self.data, self.data_offset, None)
    }
}

/// A departure from what DXC's `IsValidDxilContainer` (plus the validator's duplicate-part rule)
/// accepts. A strict parse fails on the fatal ones; a lenient parse records them all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem")]
#[non_exhaustive]
pub enum Problem {
    /// The major version is not 1.
    UnsupportedVersion {
        /// Stored major version.
        major: u16,
        /// Stored minor version.
        minor: u16,
    },
    /// The declared size is larger than the input.
    SizeExceedsInput {
        /// `ContainerSizeInBytes`.
        declared: u32,
        /// Bytes present.
        actual: usize,
    },
    /// The input goes on after the declared size (DXC ignores the extra bytes).
    TrailingBytes {
        /// `ContainerSizeInBytes`.
        declared: u32,
        /// Bytes present.
        actual: usize,
    },
    /// The declared size is above `DxilContainerMaxSize` (2 GiB).
    SizeOverLimit {
        /// `ContainerSizeInBytes`.
        declared: u32,
    },
    /// The declared size is smaller than the header.
    SizeTooSmall {
        /// `ContainerSizeInBytes`.
        declared: u32,
    },
    /// The part offset table does not fit in the container; only the entries that fit are read.
    PartTableOverrun {
        /// `PartCount`.
        part_count: u32,
        /// Entries that could be read.
        readable: u32,
    },
    /// A part header lies outside the container.
    PartOutOfBounds {
        /// Table index.
        index: u32,
        /// Offset from the table.
        offset: u32,
    },
    /// A part does not start where the previous one ended (or the first right after the table).
    PartNotContiguous {
        /// Table index.
        index: u32,
        /// Where it should start.
        expected: usize,
        /// Where the table says it starts.
        actual: usize,
    },
    /// A part's payload runs past the container's end.
    PartOverrun {
        /// Table index.
        index: u32,
        /// The part's code.
        fourcc: FourCC,
        /// Where the payload would end.
        end: u64,
        /// Where the container ends.
        limit: usize,
    },
    /// The last part does not end at the declared container size.
    LastPartEnd {
        /// Where the last part ends.
        end: usize,
        /// `ContainerSizeInBytes`.
        size: u32,
    },
    /// A FourCC appears twice (the validator's `ContainerPartRepeated`).
    DuplicatePart {
        /// The repeated code.
        fourcc: FourCC,
        /// Index of its first occurrence.
        first: u32,
        /// Index of the repeat.
        index: u32,
    },
    /// A part size that is not a multiple of 4, other than a final `PRIV` (accepted by DXC only for
    /// validator versions before 1.7).
    UnalignedPart {
        /// Table index.
        index: u32,
        /// The part's code.
        fourcc: FourCC,
        /// `PartSize`.
        size: u32,
    },
}

impl Problem {
    /// Whether DXC would reject the container for this problem (strict parsing fails on these).
    pub fn is_fatal(&self) -> bool {
        !matches!(
            self,
            Problem::TrailingBytes { .. } | Problem::UnalignedPart { .. }
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::UnsupportedVersion { major, minor } => {
                write!(
                    f,
                    "container version {major}.{minor} (only major 1 is valid)"
                )
            }
            Problem::SizeExceedsInput { declared, actual } => write!(
                f,
                "declared size {declared} exceeds the {actual} bytes present"
            ),
            Problem::TrailingBytes { declared, actual } => write!(
                f,
                "{} bytes follow the declared size {declared}",
                actual.saturating_sub(*declared as usize)
            ),
            Problem::SizeOverLimit { declared } => {
                write!(f, "declared size {declared} exceeds the 2 GiB limit")
            }
            Problem::SizeTooSmall { declared } => {
                write!(f, "declared size {declared} is smaller than the header")
            }
            Problem::PartTableOverrun {
                part_count,
                readable,
            } => write!(
                f,
                "part table of {part_count} entries does not fit; {readable} readable"
            ),
            Problem::PartOutOfBounds { index, offset } => {
                write!(
                    f,
                    "part {index} at offset {offset:#x} lies outside the container"
                )
            }
            Problem::PartNotContiguous {
                index,
                expected,
                actual,
            } => write!(
                f,
                "part {index} starts at {actual:#x}, expected {expected:#x} (parts must be contiguous)"
            ),
            Problem::PartOverrun {
                index,
                fourcc,
                end,
                limit,
            } => write!(
                f,
                "part {index} ({fourcc}) ends at {end:#x}, past the container end {limit:#x}"
            ),
            Problem::LastPartEnd { end, size } => write!(
                f,
                "last part ends at {end:#x}, the container size is {size:#x}"
            ),
            Problem::DuplicatePart {
                fourcc,
                first,
                index,
            } => write!(f, "part {index} repeats {fourcc} (first at part {first})"),
            Problem::UnalignedPart {
                index,
                fourcc,
                size,
            } => write!(
                f,
                "part {index} ({fourcc}) has size {size}, not a multiple of 4"
            ),
        }
    }
}

/// A parsed container: the header and the part table, each part's payload borrowed from the input.
/// Parts are decoded only when asked for.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    data: &'a [u8],
    header: Header,
    parts: Vec<Part<'a>>,
    problems: Vec<Problem>,
    /// Hashing the whole container is the most expensive thing a reader does; done once.
    digest_status: OnceLock<DigestStatus>,
}

impl<'a> Container<'a> {
    /// Parses strictly: fails on anything DXC's `IsValidDxilContainer` rejects and on a repeated
    /// FourCC. Trailing bytes after the declared size and unaligned part sizes are allowed (DXC
    /// allows both) and are listed in [`Container::problems`].
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let container = Self::parse_lenient(data)?;
        if let Some(problem) = container.problems.iter().find(|p| p.is_fatal()) {
            return Err(Error::new(
                ErrorKind::Invalid,
                problem_offset(problem, &container),
                None,
                problem.to_string(),
            ));
        }
        Ok(container)
    }

    /// Parses as much as can be read: fails only when there is no container header (too short or
    /// wrong magic). Every departure from the rules is recorded in [`Container::problems`]; parts
    /// that lie (partly) outside the data are listed with their payload clipped.
    pub fn parse_lenient(data: &'a [u8]) -> Result<Self> {
        let mut c = Cursor::new(data, 0, None);
        let magic = FourCC(c.array("container magic")?);
        if magic != FourCC::DXBC {
            return Err(Error::new(
                ErrorKind::Malformed,
                0,
                None,
                format!("container magic is {magic}, expected DXBC"),
            ));
        }
        let digest = c.array("container digest")?;
        let version_major = c.u16("container major version")?;
        let version_minor = c.u16("container minor version")?;
        let size_in_bytes = c.u32("container size")?;
        let part_count = c.u32("part count")?;
        let header = Header {
            digest,
            version_major,
            version_minor,
            size_in_bytes,
            part_count,
        };
        let mut problems = Vec::new();
        if version_major != 1 {
            problems.push(Problem::UnsupportedVersion {
                major: version_major,
                minor: version_minor,
            });
        }
        let declared = size_in_bytes as usize;
        if declared > data.len() {
            problems.push(Problem::SizeExceedsInput {
                declared: size_in_bytes,
                actual: data.len(),
            });
        } else if declared < data.len() {
            problems.push(Problem::TrailingBytes {
                declared: size_in_bytes,
                actual: data.len(),
            });
        }
        if size_in_bytes > MAX_CONTAINER_SIZE {
            problems.push(Problem::SizeOverLimit {
                declared: size_in_bytes,
            });
        }
        if declared < HEADER_SIZE {
            problems.push(Problem::SizeTooSmall {
                declared: size_in_bytes,
            });
        }
        // Everything past the declared size (or the input) is outside the container.
        let limit = declared.min(data.len()).max(HEADER_SIZE);
        let table_room = (limit - HEADER_SIZE) / 4;
        let readable = (part_count as usize).min(table_room);
        if readable < part_count as usize {
            problems.push(Problem::PartTableOverrun {
                part_count,
                readable: readable as u32,
            });
        }
        let table_end = HEADER_SIZE + readable * 4;
        let mut parts = Vec::with_capacity(readable);
        let mut next = HEADER_SIZE.saturating_add((part_count as usize).saturating_mul(4));
        for index in 0..readable {
            let index = index as u32;
            let offset = c.u32("part offset")?;
            let header_offset = offset as usize;
            if header_offset != next {
                problems.push(Problem::PartNotContiguous {
                    index,
                    expected: next,
                    actual: header_offset,
                });
            }
            let header_end = header_offset.checked_add(PART_HEADER_SIZE);
            let header_bytes = header_end
                .filter(|&end| end <= limit && header_offset >= table_end)
                .and_then(|end| data.get(header_offset..end));
            let Some(hb) = header_bytes else {
                problems.push(Problem::PartOutOfBounds { index, offset });
                continue;
            };
            let fourcc = FourCC([hb[0], hb[1], hb[2], hb[3]]);
            let declared_size = u32::from_le_bytes([hb[4], hb[5], hb[6], hb[7]]);
            let data_offset = header_offset + PART_HEADER_SIZE;
            let end = data_offset as u64 + u64::from(declared_size);
            if end > limit as u64 {
                problems.push(Problem::PartOverrun {
                    index,
                    fourcc,
                    end,
                    limit,
                });
            }
            let clipped_end = (end.min(limit as u64)) as usize;
            let payload = data.get(data_offset..clipped_end).unwrap_or_default();
            next = data_offset.saturating_add(declared_size as usize);
            parts.push(Part {
                index,
                fourcc,
                header_offset,
                declared_size,
                data_offset,
                data: payload,
            });
        }
        if readable == part_count as usize && next != declared {
            problems.push(Problem::LastPartEnd {
                end: next,
                size: size_in_bytes,
            });
        }
        // The part count is input-controlled, so many parts are checked through a map; the few
        // parts of real containers by a scan, which costs less than hashing each FourCC.
        let mut first_of: HashMap<FourCC, u32> = HashMap::new();
        let scan = parts.len() <= SCANNED_PARTS;
        for (i, part) in parts.iter().enumerate() {
            let first = if scan {
                parts
                    .get(..i)
                    .and_then(|earlier| earlier.iter().find(|p| p.fourcc == part.fourcc))
                    .map(|p| p.index)
            } else {
                match first_of.entry(part.fourcc) {
                    Entry::Occupied(first) => Some(*first.get()),
                    Entry::Vacant(slot) => {
                        slot.insert(part.index);
                        None
                    }
                }
            };
            if let Some(first) = first {
                problems.push(Problem::DuplicatePart {
                    fourcc: part.fourcc,
                    first,
                    index: part.index,
                });
            }
            let final_priv = i + 1 == parts.len() && part.fourcc == FourCC::PRIV;
            if !(part.declared_size.is_multiple_of(4) || final_priv) {
                problems.push(Problem::UnalignedPart {
                    index: part.index,
                    fourcc: part.fourcc,
                    size: part.declared_size,
                });
            }
        }
        Ok(Container {
            data,
            header,
            parts,
            problems,
            digest_status: OnceLock::new(),
        })
    }

    /// The bytes the container was parsed from (including any trailing bytes).
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The fixed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The readable parts, in table order.
    pub fn parts(&self) -> &[Part<'a>] {
        &self.parts
    }

    /// Rule departures found while parsing (empty for a well-formed container).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The first part with this FourCC.
    pub fn part(&self, fourcc: FourCC) -> Option<&Part<'a>> {
        self.parts.iter().find(|p| p.fourcc == fourcc)
    }

    /// Classifies the stored digest against the retail hash of bytes `[20, size)`.
    pub fn digest_status(&self) -> DigestStatus {
        *self.digest_status.get_or_init(|| {
            DigestStatus::classify(self.header.digest, hash::hashed_range(self.data))
        })
    }

    /// The retail digest of the container as it is (what a validator would store).
    pub fn computed_digest(&self) -> [u8; 16] {
        hash::container_digest(self.data)
    }

    /// Decodes a part, using the `DXIL` part's shader kind for a version-0 `PSV0`.
    pub fn decode(&self, part: &Part<'a>) -> Result<PartContent<'a>> {
        let stage = if part.fourcc == FourCC::PSV0 {
            self.program().and_then(|p| p.ok()).map(|p| p.shader_kind)
        } else {
            None
        };
        PartContent::decode(part.fourcc, part.data, part.data_offset, stage)
    }

    fn typed<T>(
        &self,
        fourcc: FourCC,
        f: impl FnOnce(&Part<'a>) -> Result<T>,
    ) -> Option<Result<T>> {
        self.part(fourcc).map(f)
    }

    /// The `DXIL` part's program header and bitcode.
    pub fn program(&self) -> Option<Result<ProgramHeader<'a>>> {
        self.program_part(FourCC::DXIL)
    }

    /// A program-shaped part (`DXIL`, `STAT` or `ILDB`).
    pub fn program_part(&self, fourcc: FourCC) -> Option<Result<ProgramHeader<'a>>> {
        self.typed(fourcc, |p| {
            ProgramHeader::parse(p.data, p.data_offset, p.fourcc)
        })
    }

    /// The `ISG1` part.
    pub fn input_signature(&self) -> Option<Result<Signature<'a>>> {
        self.signature(FourCC::ISG1)
    }

    /// The `OSG1` part.
    pub fn output_signature(&self) -> Option<Result<Signature<'a>>> {
        self.signature(FourCC::OSG1)
    }

    /// The `PSG1` part.
    pub fn patch_constant_signature(&self) -> Option<Result<Signature<'a>>> {
        self.signature(FourCC::PSG1)
    }

    /// A signature-shaped part (`ISG1`, `OSG1`, `PSG1`).
    pub fn signature(&self, fourcc: FourCC) -> Option<Result<Signature<'a>>> {
        self.typed(fourcc, |p| {
            Signature::parse(p.data, p.data_offset, p.fourcc)
        })
    }

    /// The `PSV0` part (for version 0, the stage comes from the `DXIL` part).
    pub fn psv(&self) -> Option<Result<Psv<'a>>> {
        let stage = self.program().and_then(|p| p.ok()).map(|p| p.shader_kind);
        self.typed(FourCC::PSV0, |p| Psv::parse(p.data, p.data_offset, stage))
    }

    /// The `SFI0` part.
    pub fn feature_info(&self) -> Option<Result<FeatureInfo>> {
        self.typed(FourCC::SFI0, |p| FeatureInfo::parse(p.data, p.data_offset))
    }

    /// The `HASH` part.
    pub fn shader_hash(&self) -> Option<Result<ShaderHash>> {
        self.typed(FourCC::HASH, |p| ShaderHash::parse(p.data, p.data_offset))
    }

    /// The `ILDN` part.
    pub fn debug_name(&self) -> Option<Result<DebugName<'a>>> {
        self.typed(FourCC::ILDN, |p| DebugName::parse(p.data, p.data_offset))
    }

    /// The `VERS` part.
    pub fn compiler_version(&self) -> Option<Result<CompilerVersion<'a>>> {
        self.typed(FourCC::VERS, |p| {
            CompilerVersion::parse(p.data, p.data_offset)
        })
    }

    /// The `RDAT` part's table of contents.
    pub fn runtime_data(&self) -> Option<Result<RuntimeData>> {
        self.typed(FourCC::RDAT, |p| RuntimeData::parse(p.data, p.data_offset))
    }

    /// The `RDAT` part's function, resource and subobject tables (libraries).
    pub fn rdat_library(&self) -> Option<Result<RdatLibrary>> {
        self.typed(FourCC::RDAT, |p| RdatLibrary::parse(p.data, p.data_offset))
    }

    /// The raw `RTS0` payload (decoded by the root-signature crate).
    pub fn root_signature(&self) -> Option<&'a [u8]> {
        self.part(FourCC::RTS0).map(|p| p.data)
    }
}

/// Everything a container says, decoded, for `dxil info --json`: header, digest status, the
/// rule departures, and each part with its decoded content or the error that stopped it.
#[derive(Debug, Clone, Serialize)]
pub struct ContainerInfo<'a> {
    /// The fixed header.
    pub header: Header,
    /// What the stored digest is.
    pub digest_status: DigestStatus,
    /// Rule departures.
    pub problems: Vec<Problem>,
    /// The parts in table order.
    pub parts: Vec<PartInfo<'a>>,
}

/// One part of a [`ContainerInfo`].
#[derive(Debug, Clone, Serialize)]
pub struct PartInfo<'a> {
    /// Where the part is.
    #[serde(flatten)]
    pub part: Part<'a>,
    /// Its decoded content, or the decoding error's message.
    pub content: std::result::Result<PartContent<'a>, String>,
}

impl<'a> Container<'a> {
    /// Decodes every part (see [`ContainerInfo`]).
    pub fn info(&self) -> ContainerInfo<'a> {
        ContainerInfo {
            header: self.header,
            digest_status: self.digest_status(),
            problems: self.problems.clone(),
            parts: self
                .parts
                .iter()
                .map(|part| PartInfo {
                    part: *part,
                    content: self.decode(part).map_err(|e| e.to_string()),
                })
                .collect(),
        }
    }
}

fn problem_offset(problem: &Problem, container: &Container<'_>) -> usize {
    let part_offset = |index: u32| {
        container
            .parts
            .iter()
            .find(|p| p.index == index)
            .map_or(HEADER_SIZE, |p| p.header_offset)
    };
    match problem {
        Problem::UnsupportedVersion { .. } => 20,
        Problem::SizeExceedsInput { .. }
        | Problem::TrailingBytes { .. }
        | Problem::SizeOverLimit { .. }
        | Problem::SizeTooSmall { .. } => 24,
        Problem::PartTableOverrun { .. } => 28,
        Problem::PartOutOfBounds { index, .. } => HEADER_SIZE + *index as usize * 4,
        Problem::PartNotContiguous { index, .. }
        | Problem::PartOverrun { index, .. }
        | Problem::DuplicatePart { index, .. }
        | Problem::UnalignedPart { index, .. } => part_offset(*index),
        Problem::LastPartEnd { end, .. } => *end,
    }
}

/// A summary for `dxil info`: one line per header field and per part.
impl fmt::Display for Container<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.header;
        writeln!(
            f,
            "DXBC container v{}.{}, {} bytes, {} parts",
            h.version_major, h.version_minor, h.size_in_bytes, h.part_count
        )?;
        let status = match self.digest_status() {
            DigestStatus::Signed => "signed (retail hash)".to_string(),
            DigestStatus::SignedDebug => "signed (debug hash)".to_string(),
            DigestStatus::Unsigned => "unsigned (zero)".to_string(),
            DigestStatus::Bypass => "bypass sentinel".to_string(),
            DigestStatus::Preview => "preview sentinel".to_string(),
            DigestStatus::Wrong { expected } => {
                format!("WRONG (retail hash is {})", hash::hex(&expected))
            }
        };
        writeln!(f, "digest {}: {status}", hash::hex(&h.digest))?;
        for p in &self.parts {
            write!(
                f,
                "  [{}] {} at {:#x}, {} bytes",
                p.index, p.fourcc, p.header_offset, p.declared_size
            )?;
            if p.is_truncated() {
                write!(f, " (only {} present)", p.data.len())?;
            }
            writeln!(f)?;
        }
        for problem in &self.problems {
            writeln!(f, "  problem: {problem}")?;
        }
        Ok(())
    }
}
