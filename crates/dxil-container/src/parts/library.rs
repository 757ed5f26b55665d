//! The records of a library's `RDAT` part that runtimes use: the function table (every exported function, its
//! shader kind, payload and attribute sizes, the resources it uses), the resource table, and the subobject table
//! (state-object configuration, root signatures, exports associations, ray-tracing configurations, hit groups),
//! with the default-association rule D3D12 applies to local root signatures.
//!
//! Records are read at their table's stride, so that tables of newer versions (longer records) read too; a record
//! shorter than the fields read here is an error. Strings are NUL-terminated in the string buffer, arrays are rows
//! of the index-array part (`count, values...`), root signatures are byte ranges of the raw-bytes part.

use serde::Serialize;

use super::rdat::RuntimeData;
use crate::enums::{ResourceKind, ShaderKind};
use crate::read::{Cursor, c_str_at};
use crate::{Error, ErrorKind, FourCC, Result};

/// An array or string reference meaning "none".
const NULL_REF: u32 = u32::MAX;

const STRING_BUFFER: u32 = 1;
const INDEX_ARRAYS: u32 = 2;
const RESOURCE_TABLE: u32 = 3;
const FUNCTION_TABLE: u32 = 4;
const RAW_BYTES: u32 = 5;
const SUBOBJECT_TABLE: u32 = 6;

/// One resource record (`RuntimeDataResourceInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdatResource {
    /// `DXIL::ResourceClass`: 0 SRV, 1 UAV, 2 CBV, 3 sampler.
    pub class: u32,
    pub kind: ResourceKind,
    pub id: u32,
    pub space: u32,
    pub lower_bound: u32,
    /// `u32::MAX` for an unbounded range.
    pub upper_bound: u32,
    pub name: String,
    /// `DxilResourceFlag` bits (globally coherent, counter, ROV, dynamic indexing, 64-bit atomics, ...).
    pub flags: u32,
}

/// One function record (`RuntimeDataFunctionInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdatFunction {
    /// The mangled name (`\x01?RayGen@@YAXXZ`).
    pub name: String,
    /// The export name (`RayGen`).
    pub unmangled_name: String,
    /// Indices into [`RdatLibrary::resources`] of the resources it uses.
    pub resources: Vec<u32>,
    /// Names of the external functions it calls.
    pub dependencies: Vec<String>,
    pub shader_kind: ShaderKind,
    /// Hit and miss shaders: the payload size; callable shaders: the parameter size.
    pub payload_size: u32,
    /// Hit shaders: the attribute size.
    pub attribute_size: u32,
    /// The 64 feature-info bits (`FeatureInfo1 | FeatureInfo2 << 32`).
    pub feature_flags: u64,
    /// Bit `k`: valid in shader kind `k`.
    pub shader_stage_flags: u32,
    /// `kind << 16 | major << 4 | minor`.
    pub min_shader_target: u32,
}

/// A subobject of a library (`RuntimeDataSubobjectInfo`), by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum SubobjectData {
    StateObjectConfig {
        flags: u32,
    },
    /// A serialized root signature (`RTS0` bytes).
    GlobalRootSignature {
        data: Vec<u8>,
    },
    LocalRootSignature {
        data: Vec<u8>,
    },
    /// `subobject` applies to `exports` (none: a default association).
    SubobjectToExportsAssociation {
        subobject: String,
        exports: Vec<String>,
    },
    RaytracingShaderConfig {
        max_payload_size: u32,
        max_attribute_size: u32,
    },
    RaytracingPipelineConfig {
        max_trace_recursion_depth: u32,
    },
    /// `hit_group_type`: 0 triangles, 1 procedural primitives. Empty names: no such shader.
    HitGroup {
        hit_group_type: u32,
        any_hit: String,
        closest_hit: String,
        intersection: String,
    },
    RaytracingPipelineConfig1 {
        max_trace_recursion_depth: u32,
        flags: u32,
    },
    /// A kind this crate does not decode.
    Other {
        raw_kind: u32,
    },
}

/// One named subobject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subobject {
    pub name: String,
    pub data: SubobjectData,
}

/// The decoded tables of a library's `RDAT` part.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct RdatLibrary {
    pub resources: Vec<RdatResource>,
    pub functions: Vec<RdatFunction>,
    pub subobjects: Vec<Subobject>,
}

/// The sub-parts the records refer to.
struct Parts<'a> {
    strings: &'a [u8],
    strings_base: usize,
    index: Vec<u32>,
    index_base: usize,
    raw: &'a [u8],
    raw_base: usize,
}

fn err(offset: usize, kind: ErrorKind, message: String) -> Error {
    Error::new(kind, offset, Some(FourCC::RDAT), message)
}

impl Parts<'_> {
    fn string(&self, offset: u32, what: &'static str) -> Result<String> {
        if offset == NULL_REF {
            return Ok(String::new());
        }
        c_str_at(
            self.strings,
            offset as usize,
            self.strings_base,
            Some(FourCC::RDAT),
            what,
        )
        .map(str::to_string)
    }

    /// Row `at` of the index arrays (`count, values...`); `NULL_REF` is empty.
    fn row(&self, at: u32, what: &'static str) -> Result<&[u32]> {
        if at == NULL_REF {
            return Ok(&[]);
        }
        let at = at as usize;
        let bad = || {
            err(
                self.index_base.saturating_add(at.saturating_mul(4)),
                ErrorKind::Malformed,
                format!(
                    "{what}: index array {at} lies outside the {} index words",
                    self.index.len()
                ),
            )
        };
        let count = *self.index.get(at).ok_or_else(bad)? as usize;
        let end = at
            .checked_add(1)
            .and_then(|s| s.checked_add(count))
            .ok_or_else(bad)?;
        self.index.get(at + 1..end).ok_or_else(bad)
    }

    fn strings_of(&self, at: u32, what: &'static str) -> Result<Vec<String>> {
        self.row(at, what)?
            .iter()
            .map(|&s| self.string(s, what))
            .collect()
    }

    fn bytes(&self, offset: u32, size: u32, what: &'static str) -> Result<Vec<u8>> {
        let (o, n) = (offset as usize, size as usize);
        o.checked_add(n)
            .and_then(|end| self.raw.get(o..end))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| {
                err(
                    self.raw_base.saturating_add(o),
                    ErrorKind::Malformed,
                    format!(
                        "{what}: bytes {o}..+{n} lie outside the {} raw bytes",
                        self.raw.len()
                    ),
                )
            })
    }
}

/// The records of one table (`table`: the sub-part's data, at absolute offset `base`): `(absolute offset, record
/// words)` each, `need` words read from every record.
fn records(
    table: &[u8],
    base: usize,
    need: usize,
    what: &'static str,
) -> Result<Vec<(usize, Vec<u32>)>> {
    let mut c = Cursor::new(table, base, Some(FourCC::RDAT));
    let size = table.len();
    let count = c.u32("record count")? as usize;
    let stride = c.u32("record stride")? as usize;
    if stride < need * 4 {
        return Err(c.error(
            ErrorKind::Unsupported,
            format!(
                "{what}: records of {stride} bytes are shorter than the {} this reader needs",
                need * 4
            ),
        ));
    }
    let body = size.saturating_sub(8);
    if count.checked_mul(stride).is_none_or(|t| t > body) {
        return Err(c.error(
            ErrorKind::Truncated,
            format!("{what}: {count} records of {stride} bytes need more than {body} bytes"),
        ));
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let mut r = c.clone();
        r.seek(8 + i * stride, what)?;
        let at = r.abs(r.pos());
        out.push((at, r.u32_vec(need, what)?));
    }
    Ok(out)
}

impl RdatLibrary {
    /// Decodes the tables of an `RDAT` part's payload (`base`: its absolute offset in the container).
    pub fn parse(data: &[u8], base: usize) -> Result<RdatLibrary> {
        let toc = RuntimeData::parse(data, base)?;
        // A sub-part's data and its absolute offset (the table of contents checked that it fits).
        let slice = |kind: u32| -> Option<(&[u8], usize)> {
            let p = toc.parts.iter().find(|p| p.part_type == kind)?;
            let start = p.offset.checked_sub(base)?;
            Some((
                data.get(start..start.checked_add(p.size as usize)?)?,
                p.offset,
            ))
        };
        let (strings, strings_base) = slice(STRING_BUFFER).unwrap_or((&[], base));
        let (index_bytes, index_base) = slice(INDEX_ARRAYS).unwrap_or((&[], base));
        let index = index_bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let (raw, raw_base) = slice(RAW_BYTES).unwrap_or((&[], base));
        let parts = Parts {
            strings,
            strings_base,
            index,
            index_base,
            raw,
            raw_base,
        };
        let table =
            |kind: u32, need: usize, what: &'static str| -> Result<Vec<(usize, Vec<u32>)>> {
                match slice(kind) {
                    Some((t, at)) => records(t, at, need, what),
                    None => Ok(Vec::new()),
                }
            };
        let mut lib = RdatLibrary::default();
        for (_, w) in table(RESOURCE_TABLE, 8, "resource table")? {
            lib.resources.push(RdatResource {
                class: w[0],
                kind: ResourceKind::from_raw(w[1]),
                id: w[2],
                space: w[3],
                lower_bound: w[4],
                upper_bound: w[5],
                name: parts.string(w[6], "resource name")?,
                flags: w[7],
            });
        }
        for (at, w) in table(FUNCTION_TABLE, 11, "function table")? {
            let resources = parts.row(w[2], "function resources")?.to_vec();
            if let Some(&r) = resources
                .iter()
                .find(|&&r| r as usize >= lib.resources.len())
            {
                return Err(err(
                    at,
                    ErrorKind::Malformed,
                    format!(
                        "function uses resource record {r} of {}",
                        lib.resources.len()
                    ),
                ));
            }
            lib.functions.push(RdatFunction {
                name: parts.string(w[0], "function name")?,
                unmangled_name: parts.string(w[1], "unmangled function name")?,
                resources,
                dependencies: parts.strings_of(w[3], "function dependencies")?,
                shader_kind: ShaderKind::from_raw(w[4]),
                payload_size: w[5],
                attribute_size: w[6],
                feature_flags: u64::from(w[7]) | u64::from(w[8]) << 32,
                shader_stage_flags: w[9],
                min_shader_target: w[10],
            });
        }
        for (_, w) in table(SUBOBJECT_TABLE, 6, "subobject table")? {
            lib.subobjects.push(Subobject {
                name: parts.string(w[1], "subobject name")?,
                data: subobject_data(&parts, w[0], &w[2..6])?,
            });
        }
        Ok(lib)
    }

    /// The root signature (`RTS0` bytes) of the local root signature subobject associated with `export`: the one
    /// an association names it in (directly, or through a hit group that holds it); failing that, the one default
    /// association (an association without exports, or a local root signature no association names). `None` when
    /// there is none, or several defaults.
    pub fn local_root_signature_of(&self, export: &str) -> Option<&[u8]> {
        // The names `export` goes by: its own and those of the hit groups holding it.
        let names: Vec<&str> = std::iter::once(export)
            .chain(self.subobjects.iter().filter_map(|s| {
                match &s.data {
                    SubobjectData::HitGroup {
                        any_hit,
                        closest_hit,
                        intersection,
                        ..
                    } if [any_hit, closest_hit, intersection]
                        .iter()
                        .any(|n| *n == export) =>
                    {
                        Some(s.name.as_str())
                    }
                    _ => None,
                }
            }))
            .collect();
        let local = |name: &str| {
            self.subobjects.iter().find_map(|s| match &s.data {
                SubobjectData::LocalRootSignature { data } if s.name == name => {
                    Some(data.as_slice())
                }
                _ => None,
            })
        };
        let associations = || {
            self.subobjects.iter().filter_map(|s| match &s.data {
                SubobjectData::SubobjectToExportsAssociation { subobject, exports } => {
                    local(subobject).map(|d| (subobject, exports, d))
                }
                _ => None,
            })
        };
        for name in &names {
            if let Some((_, _, d)) = associations().find(|(_, ex, _)| ex.iter().any(|e| e == name))
            {
                return Some(d);
            }
        }
        let mut defaults = associations()
            .filter(|(_, ex, _)| ex.is_empty())
            .map(|(_, _, d)| d)
            .chain(self.subobjects.iter().filter_map(|s| match &s.data {
                SubobjectData::LocalRootSignature { data }
                    if associations().all(|(name, _, _)| *name != s.name) =>
                {
                    Some(data.as_slice())
                }
                _ => None,
            }));
        let first = defaults.next()?;
        defaults.next().is_none().then_some(first)
    }
}

fn subobject_data(parts: &Parts<'_>, kind: u32, u: &[u32]) -> Result<SubobjectData> {
    Ok(match kind {
        0 => SubobjectData::StateObjectConfig { flags: u[0] },
        1 => SubobjectData::GlobalRootSignature {
            data: parts.bytes(u[0], u[1], "global root signature")?,
        },
        2 => SubobjectData::LocalRootSignature {
            data: parts.bytes(u[0], u[1], "local root signature")?,
        },
        8 => SubobjectData::SubobjectToExportsAssociation {
            subobject: parts.string(u[0], "associated subobject")?,
            exports: parts.strings_of(u[1], "associated exports")?,
        },
        9 => SubobjectData::RaytracingShaderConfig {
            max_payload_size: u[0],
            max_attribute_size: u[1],
        },
        10 => SubobjectData::RaytracingPipelineConfig {
            max_trace_recursion_depth: u[0],
        },
        11 => SubobjectData::HitGroup {
            hit_group_type: u[0],
            any_hit: parts.string(u[1], "any-hit shader")?,
            closest_hit: parts.string(u[2], "closest-hit shader")?,
            intersection: parts.string(u[3], "intersection shader")?,
        },
        12 => SubobjectData::RaytracingPipelineConfig1 {
            max_trace_recursion_depth: u[0],
            flags: u[1],
        },
        raw_kind => SubobjectData::Other { raw_kind },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An RDAT part: header, offset table, then each `(type, words)` sub-part.
    fn rdat(parts: &[(u32, Vec<u32>)]) -> Vec<u8> {
        let mut words = vec![0x10, parts.len() as u32];
        let mut at = 8 + 4 * parts.len() as u32;
        for (_, w) in parts {
            words.push(at);
            at += 8 + 4 * w.len() as u32;
        }
        for (kind, w) in parts {
            words.push(*kind);
            words.push(4 * w.len() as u32);
            words.extend_from_slice(w);
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Strings packed into words: "", "RayGen", "\x01?RayGen@@YAXXZ", "lrs", "assoc", "AS".
    fn strings() -> (Vec<u32>, [u32; 6]) {
        let mut bytes = Vec::new();
        let mut offsets = [0; 6];
        for (i, s) in ["", "RayGen", "\u{1}?RayGen@@YAXXZ", "lrs", "assoc", "AS"]
            .iter()
            .enumerate()
        {
            offsets[i] = bytes.len() as u32;
            bytes.extend_from_slice(s.as_bytes());
            bytes.push(0);
        }
        while bytes.len() % 4 != 0 {
            bytes.push(0);
        }
        let words = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        (words, offsets)
    }

    fn sample(associate: bool) -> Vec<u8> {
        let (strs, o) = strings();
        // Index arrays: [1, 0] (resource 0), [1, o(RayGen)] (exports).
        let index = vec![1, 0, 1, o[1]];
        let raw = vec![0x0000_0002, 0xAABB_CCDD];
        let resources = vec![1, 32, 0, 16, 0, 0, 3, 0, o[5], 0];
        let functions = vec![
            1,
            44,
            o[2],
            o[1],
            0,
            NULL_REF,
            7,
            0,
            0,
            0x10,
            0,
            1 << 7,
            0x0006_0063,
        ];
        let mut subobjects = vec![if associate { 2 } else { 1 }, 24];
        subobjects.extend([2, o[3], 0, 8, 0, 0]);
        if associate {
            subobjects.extend([8, o[4], o[3], 2, 0, 0]);
        }
        rdat(&[
            (STRING_BUFFER, strs),
            (INDEX_ARRAYS, index),
            (RAW_BYTES, raw),
            (RESOURCE_TABLE, resources),
            (FUNCTION_TABLE, functions),
            (SUBOBJECT_TABLE, subobjects),
        ])
    }

    #[test]
    fn decodes_functions_resources_and_subobjects() {
        let lib = RdatLibrary::parse(&sample(true), 0).unwrap();
        assert_eq!(lib.resources.len(), 1);
        assert_eq!(lib.resources[0].name, "AS");
        assert_eq!(lib.resources[0].kind, ResourceKind::RTAccelerationStructure);
        let f = &lib.functions[0];
        assert_eq!(
            (f.name.as_str(), f.unmangled_name.as_str()),
            ("\u{1}?RayGen@@YAXXZ", "RayGen")
        );
        assert_eq!(f.shader_kind, ShaderKind::RayGeneration);
        assert_eq!(f.resources, [0]);
        assert!(f.dependencies.is_empty());
        assert_eq!(f.feature_flags, 0x10);
        assert_eq!(
            lib.subobjects[1].data,
            SubobjectData::SubobjectToExportsAssociation {
                subobject: "lrs".into(),
                exports: vec!["RayGen".into()]
            }
        );
        let rs = [2, 0, 0, 0, 0xDD, 0xCC, 0xBB, 0xAA];
        assert_eq!(
            lib.subobjects[0].data,
            SubobjectData::LocalRootSignature { data: rs.to_vec() }
        );
        // Explicitly associated with RayGen only.
        assert_eq!(lib.local_root_signature_of("RayGen"), Some(&rs[..]));
        assert_eq!(lib.local_root_signature_of("Miss"), None);
        // Without an association, the one local root signature is every export's default.
        let lib = RdatLibrary::parse(&sample(false), 0).unwrap();
        assert_eq!(lib.local_root_signature_of("Miss"), Some(&rs[..]));
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error_not_a_panic() {
        let bytes = sample(true);
        for len in 0..bytes.len() {
            let _ = RdatLibrary::parse(&bytes[..len], 0);
        }
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                let _ = RdatLibrary::parse(&b, 0);
            }
        }
        // A record stride shorter than the fields read.
        let mut short = sample(true);
        let pos = short.len() - 4 * 14;
        short[pos..pos + 4].copy_from_slice(&8u32.to_le_bytes());
        assert!(RdatLibrary::parse(&short, 0).is_err());
    }
}
