//! Patchable specialization constants: the table of where each value lies in a container,
//! and patching in place.
//!
//! Each patchable constant is an `i32` in each function that uses it, in a constants block
//! of their own just before the first instruction that uses one (`WriteOptions::patchable_late`
//! of `dxil-module`), which the bitcode writer encodes as a 5-chunk VBR8 field whatever its value, so any 32-bit
//! value fits without moving a bit. Patching rewrites those chunks, then the `HASH` part (MD5
//! of the bitcode, written after the `DXIL` part in patchable containers) and the container
//! digest; nothing else changes.
//!
//! The table can travel inside the container as a `PRIV` part (the validator and the runtime
//! ignore private data): magic `DXRSSPC1`, a `u32` count, then per constant `spec_id: u32`,
//! `type: u8` (0 bool, 1 signed int, 2 unsigned int, 3 float), `bits: u8`, `folded: u8`,
//! `offsets: u8` (count), `value: u64`, then `offsets × u64` container bit offsets.

use dxil_container::hash::{Md5Prefix, RetailPrefix};
use serde::Serialize;

use crate::error::{Error, ErrorKind, Result};
pub use crate::lower::consts::SpecType;

const MAGIC: &[u8; 8] = b"DXRSSPC1";

/// One specialization constant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpecConstant {
    pub spec_id: u32,
    #[serde(rename = "type")]
    pub ty: SpecType,
    /// The value the container holds now, as bits of the constant's type.
    pub value: u64,
    /// Bit offsets (from the start of the container) of the value's VBR fields.
    pub bit_offsets: Vec<u64>,
    /// Why the value was folded into the code (then it cannot be patched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded: Option<String>,
}

/// Every specialization constant of a translated shader.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpecTable {
    pub constants: Vec<SpecConstant>,
}

fn err(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::SpecConstant, message)
}

impl SpecTable {
    /// The `PRIV` payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + self.constants.len() * 24);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.constants.len() as u32).to_le_bytes());
        for c in &self.constants {
            out.extend_from_slice(&c.spec_id.to_le_bytes());
            let (t, bits) = match c.ty {
                SpecType::Bool => (0u8, 1u8),
                SpecType::Int { bits, signed: true } => (1, bits),
                SpecType::Int {
                    bits,
                    signed: false,
                } => (2, bits),
                SpecType::Float { bits } => (3, bits),
            };
            let reason = c.folded.as_deref().map_or(&b""[..], |r| {
                let b = r.as_bytes();
                &b[..b.len().min(255)]
            });
            out.push(t);
            out.push(bits);
            out.push(reason.len() as u8);
            out.push(c.bit_offsets.len().min(255) as u8);
            out.extend_from_slice(&c.value.to_le_bytes());
            for o in c.bit_offsets.iter().take(255) {
                out.extend_from_slice(&o.to_le_bytes());
            }
            out.extend_from_slice(reason);
        }
        out
    }

    /// Reads a `PRIV` payload.
    pub fn from_bytes(data: &[u8]) -> Result<SpecTable> {
        let mut r = Reader { data, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(err(
                "the private data is not a specialization-constant table",
            ));
        }
        let n = r.u32()?;
        let mut constants = Vec::new();
        for _ in 0..n {
            let spec_id = r.u32()?;
            let head = r.take(4)?;
            let (t, bits, reason_len, count) = (head[0], head[1], head[2], head[3]);
            let ty = match t {
                0 => SpecType::Bool,
                1 => SpecType::Int { bits, signed: true },
                2 => SpecType::Int {
                    bits,
                    signed: false,
                },
                3 => SpecType::Float { bits },
                _ => return Err(err(format!("unknown constant type {t} in the table"))),
            };
            let value = r.u64()?;
            let mut bit_offsets = Vec::with_capacity(usize::from(count));
            for _ in 0..count {
                bit_offsets.push(r.u64()?);
            }
            let reason = r.take(usize::from(reason_len))?;
            constants.push(SpecConstant {
                spec_id,
                ty,
                value,
                bit_offsets,
                folded: (reason_len != 0).then(|| String::from_utf8_lossy(reason).into_owned()),
            });
        }
        Ok(SpecTable { constants })
    }

    /// The table a container carries in its `PRIV` part, if any.
    pub fn from_container(container: &[u8]) -> Result<Option<SpecTable>> {
        let c = dxil_container::Container::parse(container)
            .map_err(|e| err(format!("not a container: {e}")))?;
        match c.part(dxil_container::FourCC::PRIV) {
            Some(p) if p.data.starts_with(MAGIC) => Ok(Some(SpecTable::from_bytes(p.data)?)),
            _ => Ok(None),
        }
    }
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let s = self
            .data
            .get(self.at..self.at + n)
            .ok_or_else(|| err("specialization-constant table truncated"))?;
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

/// Replaces the `PRIV` table of a container by `table` (same size) and re-signs it.
pub(crate) fn rewrite_table(container: &mut [u8], table: &SpecTable) -> Result<()> {
    let (start, len) = {
        let c = dxil_container::Container::parse(container)
            .map_err(|e| err(format!("not a container: {e}")))?;
        let p = c
            .part(dxil_container::FourCC::PRIV)
            .ok_or_else(|| err("the container has no PRIV part"))?;
        (p.data_offset, p.data.len())
    };
    let bytes = table.to_bytes();
    if bytes.len() != len {
        return Err(crate::error::internal(
            "the specialization table changed size",
        ));
    }
    container[start..start + len].copy_from_slice(&bytes);
    dxil_container::set_digest(container, dxil_container::DigestMode::Retail)
        .map_err(|e| err(format!("signing: {e}")))
}

/// The bits a value of a constant's type is patched with (booleans 0/1, others their low
/// 32 bits), or an error when the value does not fit the type.
fn patch_bits(c: &SpecConstant, value: u64) -> Result<u32> {
    let fits = match c.ty {
        SpecType::Bool => value <= 1,
        SpecType::Int { bits, .. } | SpecType::Float { bits } => bits >= 64 || value >> bits == 0,
    };
    if !fits {
        return Err(err(format!(
            "value {value:#x} does not fit specialization constant {} ({:?})",
            c.spec_id, c.ty
        )));
    }
    Ok(value as u32)
}

/// Where the hashes of a container live.
struct Layout {
    bitcode: std::ops::Range<usize>,
    hash_digest: Option<usize>,
}

fn layout(container: &[u8]) -> Result<Layout> {
    let c = dxil_container::Container::parse(container)
        .map_err(|e| err(format!("not a container: {e}")))?;
    let p = match c.program() {
        Some(Ok(p)) => p,
        _ => return Err(err("the container has no DXIL part")),
    };
    let start = p.bitcode_byte_offset_in_container;
    let hash_digest = c
        .part(dxil_container::FourCC::HASH)
        .map(|h| h.data_offset + 4)
        .filter(|&o| o + 16 <= container.len());
    Ok(Layout {
        bitcode: start..start + p.bitcode.len(),
        hash_digest,
    })
}

/// Rewrites the value bits of the constants in `values`, leaving the hashes stale.
fn patch_values(container: &mut [u8], table: &SpecTable, values: &[(u32, u64)]) -> Result<()> {
    for &(id, value) in values {
        let c = table
            .constants
            .iter()
            .find(|c| c.spec_id == id)
            .ok_or_else(|| err(format!("the shader has no specialization constant {id}")))?;
        if let Some(why) = &c.folded {
            return Err(err(format!(
                "specialization constant {id} was folded at translation ({why}); translate again to change it"
            )));
        }
        let bits = patch_bits(c, value)?;
        for &off in &c.bit_offsets {
            dxil_module::patch_constant(
                container,
                &dxil_module::PatchSite {
                    constant: dxil_module::ConstId(0),
                    bit_offset: off,
                },
                i64::from(bits as i32),
            )
            .map_err(|e| err(format!("patching constant {id}: {e}")))?;
        }
    }
    Ok(())
}

/// Patches specialization constants in place: `(spec id, value bits)` pairs. Rewrites the
/// values' bits, the `HASH` part and the container digest. To patch the same container
/// repeatedly, [`Patcher`] keeps what does not change and rehashes only the bytes from the
/// first patch site on.
pub fn patch(container: &mut [u8], table: &SpecTable, values: &[(u32, u64)]) -> Result<()> {
    let l = layout(container)?;
    patch_values(container, table, values)?;
    Patcher::sign(
        container,
        &l,
        RetailPrefix::new(&[], 0),
        Md5Prefix::new(&[], 0),
    );
    Ok(())
}

/// A container kept ready for repeated patching (a renderer specializing one shader many
/// times): the layout is parsed once, and the hash states of the bytes before the first patch
/// site are kept, so that each [`Patcher::set`] rewrites the value bits and hashes only the
/// bytes from the first site to the end. The result is byte for byte what [`patch`] writes.
///
/// The translator writes the sites just before the first instruction that uses one and the
/// `HASH` part after the bitcode, so the saving is everything before that instruction (the
/// header parts, the types, the module's constants and metadata, the function's other
/// constants). The two tails (the bitcode's for the `HASH` part, the container's for its
/// digest) are hashed in one interleaved pass (`dxil-container`'s paired block function),
/// which takes about as long as one MD5 stream over the bytes after the first site.
///
/// The sites cannot go later than that first use: LLVM 3.7's reader numbers a function's
/// constants block from the size of its value list, which a forward reference to a value not
/// yet read has already grown to that value's slot, so a constants block after the
/// instructions that use it misnumbers them (DXC's validator then reports "Referring to an
/// argument in another function!": the forward references' placeholders are never replaced).
///
/// Measured (`cargo bench -p dxil-from-spirv --bench spec_patch`, 2-core AMD EPYC at about
/// 3.1 GHz, load average 8-12, the bench with the `md5` crate's block function and a pair
/// adding `k` and `m` after the step function, and with the current ones, alternated three
/// times in one run; minimum and median of 20 000 patches):
///
/// | container | bytes after the first site | minimum before → after | median before → after |
/// |---|---|---|---|
/// | `tests/data/spec_10k.spv`, 10 100 bytes | 7523 | 16.3-16.7 → 13.1-13.8 µs | 16.9-18.1 → 16.0-19.0 µs |
/// | `spv.int16.amd.frag` (corpus), 7288 bytes | 5203 | 11.5-11.8 → 9.0-9.5 µs | 11.8-12.2 → 11.2-12.5 µs |
/// | `tests/data/spec_big.spv`, 4760 bytes | 2623 | 6.0-6.1 → 4.9-5.2 µs | 6.4-7.0 → 6.2-7.5 µs |
///
/// One MD5 stream costs 1.55-1.65 ns per byte (the `md5` crate's 1.9-2.0) and the paired pass
/// 1.6-1.7 ns per byte at its best (2.2-2.5 before): a patch stays within 10 µs while about
/// 5.5 KB follow the first site, not for `spec_10k`, whose constants are used near the top of
/// its body. The medians improve less: the code now keeps a core's adders busy, and the other
/// hardware thread of a loaded machine takes its share of them.
pub struct Patcher {
    container: Vec<u8>,
    table: SpecTable,
    bitcode: std::ops::Range<usize>,
    hash_digest: Option<usize>,
    /// Plain MD5 of the bitcode's whole blocks before the first site (for the `HASH` part).
    bitcode_prefix: Md5Prefix,
    /// The container digest's state over the hashed bytes before the first one a patch changes.
    digest_prefix: RetailPrefix,
}

impl Patcher {
    /// Prepares `container` with its table (as [`crate::Output::spec_constants`] gives it).
    pub fn new(container: Vec<u8>, table: SpecTable) -> Result<Patcher> {
        let l = layout(&container)?;
        let first_site = table
            .constants
            .iter()
            .filter(|c| c.folded.is_none())
            .flat_map(|c| c.bit_offsets.iter())
            .map(|&o| usize::try_from(o / 8).unwrap_or(usize::MAX))
            .min()
            .unwrap_or(l.bitcode.end);
        // The table may come from the container itself: sites outside the bitcode are refused
        // before any state is kept for them.
        if !(l.bitcode.start..l.bitcode.end).contains(&first_site) && first_site != l.bitcode.end {
            return Err(err(format!(
                "a patch site (byte {first_site}) lies outside the bitcode ({:?})",
                l.bitcode
            )));
        }
        let bitcode_prefix =
            Md5Prefix::new(&container[l.bitcode.clone()], first_site - l.bitcode.start);
        let hashed = dxil_container::hash::hashed_range(&container);
        // The HASH part changes too (DXC's order puts it before the bitcode).
        let first_change = l.hash_digest.map_or(first_site, |h| h.min(first_site));
        let digest_prefix = RetailPrefix::new(hashed, first_change.saturating_sub(HASHED_START));
        Ok(Patcher {
            bitcode: l.bitcode,
            hash_digest: l.hash_digest,
            bitcode_prefix,
            digest_prefix,
            container,
            table,
        })
    }

    /// Prepares a container that carries its table in a `PRIV` part.
    pub fn from_container(container: Vec<u8>) -> Result<Patcher> {
        let table = SpecTable::from_container(&container)?
            .ok_or_else(|| err("the container carries no specialization-constant table"))?;
        Patcher::new(container, table)
    }

    /// Sets specialization constants (`(spec id, value bits)` pairs) and re-signs.
    pub fn set(&mut self, values: &[(u32, u64)]) -> Result<()> {
        patch_values(&mut self.container, &self.table, values)?;
        let l = Layout {
            bitcode: self.bitcode.clone(),
            hash_digest: self.hash_digest,
        };
        Patcher::sign(
            &mut self.container,
            &l,
            self.digest_prefix,
            self.bitcode_prefix,
        );
        Ok(())
    }

    /// Writes the `HASH` part's MD5 and the container digest, resuming both from prefixes of
    /// the bytes as they are.
    fn sign(container: &mut [u8], l: &Layout, mut digest: RetailPrefix, bitcode: Md5Prefix) {
        let end = HASHED_START + dxil_container::hash::hashed_range(container).len();
        if let Some(h) = l.hash_digest {
            // The digest's blocks before the HASH part's digest need only the new value bits:
            // they go with the bitcode's MD5 in one pass; the rest waits for that MD5.
            let (advanced, md5) = digest.advance_with_md5(
                &container[HASHED_START..end],
                h.saturating_sub(HASHED_START),
                &bitcode,
                &container[l.bitcode.clone()],
            );
            digest = advanced;
            container[h..h + 16].copy_from_slice(&md5);
        }
        let d = digest.finish(&container[HASHED_START..end]);
        container[dxil_container::hash::DIGEST_OFFSET..][..16].copy_from_slice(&d);
    }

    /// The container as patched so far.
    pub fn container(&self) -> &[u8] {
        &self.container
    }

    /// The table of the constants.
    pub fn table(&self) -> &SpecTable {
        &self.table
    }

    /// Gives the container back.
    pub fn into_container(self) -> Vec<u8> {
        self.container
    }
}

const HASHED_START: usize = dxil_container::hash::HASHED_RANGE_START;
