//! The container digest (DXC's `ComputeHashRetail`/`ComputeHashDebug`, a modified MD5) and the
//! classification of a stored digest.
//!
//! The digest runs MD5's compression function over bytes `[20, ContainerSizeInBytes)` in 64-byte
//! blocks, but finishes differently from RFC 1321: the byte count goes into the first and last
//! dwords of the final block and the left-over bytes start at byte 4 of that block. When 56 or
//! more bytes are left over they get a block of their own (with the usual `0x80` terminator) and
//! the two length words go into one more block.

// Our block function (the `md5` crate's, with a shorter chain from step to step): signing a
// container hashes it twice in series (the `HASH` part's digest goes into the bytes the
// container digest covers), so its speed is part of every translation's.
use crate::md5x2::compress;
use serde::Serialize;

/// Where the digest lives in the header, and where the hashed range starts.
pub const DIGEST_OFFSET: usize = 4;
/// First byte covered by the digest (the header's version field).
pub const HASHED_RANGE_START: usize = 20;

/// Digest DXC writes for pre-release shader models (`PreviewByPassHash`).
pub const PREVIEW_DIGEST: [u8; 16] = [2; 16];
/// Digest that asks newer runtimes to skip the check (INF-0004).
pub const BYPASS_DIGEST: [u8; 16] = [1; 16];

const MD5_INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// The two length words of the final block, as functions of the byte count.
#[derive(Clone, Copy)]
enum Variant {
    Retail,
    Debug,
}

impl Variant {
    fn length_words(self, byte_count: u32) -> (u32, u32) {
        match self {
            Variant::Retail => (byte_count << 3, (byte_count << 1) | 1),
            Variant::Debug => ((byte_count << 4) | 0xf, (byte_count << 2) | 0x1000_0000),
        }
    }
}

fn modified_md5(data: &[u8], variant: Variant) -> [u8; 16] {
    finish(MD5_INIT, data, data.len(), variant)
}

/// Compresses the whole blocks of `rest` into `state` and finishes the digest of `total` bytes
/// (the bytes `state` already covers and `rest`).
fn finish(mut state: [u32; 4], rest: &[u8], total: usize, variant: Variant) -> [u8; 16] {
    let (blocks, tail) = rest.as_chunks::<64>();
    compress(&mut state, blocks);
    let (last, n) = final_blocks(tail, total, variant);
    compress(&mut state, &last[..n]);
    state_bytes(state)
}

/// The modified MD5's last one or two blocks, from the bytes after the whole blocks.
fn final_blocks(tail: &[u8], total: usize, variant: Variant) -> ([[u8; 64]; 2], usize) {
    // The format's length field is 32 bits; DXC truncates the count the same way.
    let (first, last) = variant.length_words(total as u32);
    let mut blocks = [[0u8; 64]; 2];
    let n = if tail.len() >= 56 {
        blocks[0][..tail.len()].copy_from_slice(tail);
        blocks[0][tail.len()] = 0x80;
        2
    } else {
        blocks[0][4..4 + tail.len()].copy_from_slice(tail);
        blocks[0][4 + tail.len()] = 0x80;
        1
    };
    let block = &mut blocks[n - 1];
    block[..4].copy_from_slice(&first.to_le_bytes());
    block[60..].copy_from_slice(&last.to_le_bytes());
    (blocks, n)
}

/// RFC 1321's last one or two blocks, from the bytes after the whole blocks.
fn md5_final_blocks(tail: &[u8], total: usize) -> ([[u8; 64]; 2], usize) {
    let mut blocks = [[0u8; 64]; 2];
    blocks[0][..tail.len()].copy_from_slice(tail);
    blocks[0][tail.len()] = 0x80;
    let n = if tail.len() >= 56 { 2 } else { 1 };
    blocks[n - 1][56..].copy_from_slice(&((total as u64) << 3).to_le_bytes());
    (blocks, n)
}

fn state_bytes(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// The retail digest resumable after a prefix: the compression state over the first whole
/// 64-byte blocks of the hashed bytes. A caller that rewrites only later bytes (patching
/// specialization constants in place) rehashes from there instead of from the start.
#[derive(Clone, Copy, Debug)]
pub struct RetailPrefix {
    state: [u32; 4],
    len: usize,
}

impl RetailPrefix {
    /// The state after the whole 64-byte blocks among the first `prefix` bytes of `data`.
    pub fn new(data: &[u8], prefix: usize) -> RetailPrefix {
        let len = prefix.min(data.len()) / 64 * 64;
        let mut state = MD5_INIT;
        compress(&mut state, data[..len].as_chunks::<64>().0);
        RetailPrefix { state, len }
    }

    /// Bytes at the start of the hashed data that the state covers (a multiple of 64).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the state covers nothing yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// [`retail_hash`] of `data`, whose first [`RetailPrefix::len`] bytes must be the ones the
    /// state was made from (only the bytes after them are read).
    pub fn finish(&self, data: &[u8]) -> [u8; 16] {
        let rest = data.get(self.len..).unwrap_or(&[]);
        finish(self.state, rest, data.len(), Variant::Retail)
    }

    /// Moves the state on over the whole blocks of `data` before byte `upto`, computing in the
    /// same pass the plain MD5 of `md5_data` that `md5` resumes (two independent chains
    /// interleaved take little longer than one). For a container whose `HASH` part lies after
    /// the bitcode: `upto` is where its digest starts, and the returned MD5 goes there before
    /// the returned state [finishes](RetailPrefix::finish) the container digest.
    pub fn advance_with_md5(
        &self,
        data: &[u8],
        upto: usize,
        md5: &Md5Prefix,
        md5_data: &[u8],
    ) -> (RetailPrefix, [u8; 16]) {
        let start = self.len.min(data.len());
        let end = upto.clamp(start, data.len());
        let (blocks, _) = data[start..end].as_chunks::<64>();
        let (whole, tail) = md5_data.get(md5.len..).unwrap_or(&[]).as_chunks::<64>();
        let (last, n) = md5_final_blocks(tail, md5_data.len());
        let (mut state, mut md5_state) = (self.state, md5.state);
        crate::md5x2::compress_two(
            &mut state,
            (blocks, &[]),
            &mut md5_state,
            (whole, &last[..n]),
        );
        let advanced = RetailPrefix {
            state,
            len: start + blocks.len() * 64,
        };
        (advanced, state_bytes(md5_state))
    }
}

/// Plain MD5 resumable after a prefix, as [`RetailPrefix`] is for the digest.
#[derive(Clone, Copy, Debug)]
pub struct Md5Prefix {
    state: [u32; 4],
    len: usize,
}

impl Md5Prefix {
    /// The state after the whole 64-byte blocks among the first `prefix` bytes of `data`.
    pub fn new(data: &[u8], prefix: usize) -> Md5Prefix {
        let len = prefix.min(data.len()) / 64 * 64;
        let mut state = MD5_INIT;
        compress(&mut state, data[..len].as_chunks::<64>().0);
        Md5Prefix { state, len }
    }

    /// Bytes at the start of the data that the state covers (a multiple of 64).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the state covers nothing yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// [`md5`] of `data`, whose first [`Md5Prefix::len`] bytes must be the ones the state was
    /// made from.
    pub fn finish(&self, data: &[u8]) -> [u8; 16] {
        let mut state = self.state;
        let (whole, tail) = data.get(self.len..).unwrap_or(&[]).as_chunks::<64>();
        compress(&mut state, whole);
        let (last, n) = md5_final_blocks(tail, data.len());
        compress(&mut state, &last[..n]);
        state_bytes(state)
    }
}

/// DXC's `ComputeHashRetail` over `data`: what the validator stores in a signed container.
pub fn retail_hash(data: &[u8]) -> [u8; 16] {
    modified_md5(data, Variant::Retail)
}

/// DXC's `ComputeHashDebug` over `data` (a debug validator build's digest).
pub fn debug_hash(data: &[u8]) -> [u8; 16] {
    modified_md5(data, Variant::Debug)
}

/// Plain RFC 1321 MD5, as used by the `HASH` part.
pub fn md5(data: &[u8]) -> [u8; 16] {
    Md5Prefix::new(&[], 0).finish(data)
}

/// The bytes a container digest covers: `[20, declared size)`, clipped to the data present.
pub fn hashed_range(container: &[u8]) -> &[u8] {
    let declared = container
        .get(24..28)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .unwrap_or(container.len());
    let end = declared.min(container.len());
    container.get(HASHED_RANGE_START..end).unwrap_or_default()
}

/// The retail digest of a whole container (computed over [`hashed_range`]).
pub fn container_digest(container: &[u8]) -> [u8; 16] {
    retail_hash(hashed_range(container))
}

/// What the digest stored in a container header says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "status")]
pub enum DigestStatus {
    /// The stored digest equals the retail hash: signed by a validator (or an equivalent tool).
    Signed,
    /// The stored digest equals the debug-variant hash.
    SignedDebug,
    /// All zero: never signed (`-Vd`, Mesa before signing).
    Unsigned,
    /// Sixteen 0x01 bytes: the bypass sentinel.
    Bypass,
    /// Sixteen 0x02 bytes: the pre-release shader model sentinel.
    Preview,
    /// Anything else: the container was changed after signing, or signed over other bytes.
    Wrong {
        /// The retail digest of the bytes as they are.
        expected: [u8; 16],
    },
}

impl DigestStatus {
    /// Classifies `stored` against the bytes it should cover.
    pub fn classify(stored: [u8; 16], hashed: &[u8]) -> DigestStatus {
        if stored == [0; 16] {
            return DigestStatus::Unsigned;
        }
        if stored == BYPASS_DIGEST {
            return DigestStatus::Bypass;
        }
        if stored == PREVIEW_DIGEST {
            return DigestStatus::Preview;
        }
        let expected = retail_hash(hashed);
        if stored == expected {
            DigestStatus::Signed
        } else if stored == debug_hash(hashed) {
            DigestStatus::SignedDebug
        } else {
            DigestStatus::Wrong { expected }
        }
    }
}

/// Lower-case hex of a digest, the way DXC prints shader hashes.
pub fn hex(digest: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(digest.len() * 2);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resumed_digest_equals_the_whole() {
        let data: Vec<u8> = (0..700u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300, 700] {
            let d = &data[..len];
            for prefix in [0, 10, 64, 100, 128, 320, 1000] {
                let p = RetailPrefix::new(d, prefix);
                assert_eq!(p.len() % 64, 0);
                assert!(p.len() <= prefix.min(len));
                assert_eq!(p.finish(d), retail_hash(d), "len {len}, prefix {prefix}");
            }
        }
    }

    #[test]
    fn resumed_md5_and_the_paired_pass_equal_the_md5_crate() {
        let data: Vec<u8> = (0..900u32).map(|i| (i * 13 + 5) as u8).collect();
        for len in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300, 700, 900] {
            let d = &data[..len];
            for prefix in [0, 10, 64, 100, 128, 320, 1000] {
                let m = Md5Prefix::new(d, prefix);
                assert_eq!(m.len() % 64, 0);
                assert_eq!(m.finish(d), md5(d), "len {len}, prefix {prefix}");
                // The digest's data: another window, paired with the MD5 pass.
                let r = &data[len / 3..];
                for (rp, upto) in [(0, 0), (0, 200), (64, 130), (128, 900), (500, 100)] {
                    let p = RetailPrefix::new(r, rp);
                    let (q, digest) = p.advance_with_md5(r, upto, &m, d);
                    assert_eq!(digest, md5(d), "len {len}, prefix {prefix}");
                    assert_eq!(q.len() % 64, 0);
                    assert!(q.len() >= p.len().min(r.len()));
                    assert_eq!(q.finish(r), retail_hash(r), "rp {rp}, upto {upto}");
                }
            }
        }
    }

    /// A direct transcription of the format's final-block rule, built byte by byte, to check the
    /// block-slicing version above on every tail length.
    fn reference(data: &[u8]) -> [u8; 16] {
        let n = data.len() as u32;
        let mut padded = Vec::new();
        let full = data.len() / 64 * 64;
        padded.extend_from_slice(&data[..full]);
        let tail = &data[full..];
        if tail.len() >= 56 {
            padded.extend_from_slice(tail);
            padded.push(0x80);
            padded.resize(full + 64, 0);
            padded.extend_from_slice(&(n << 3).to_le_bytes());
            padded.resize(full + 124, 0);
            padded.extend_from_slice(&((n << 1) | 1).to_le_bytes());
        } else {
            padded.extend_from_slice(&(n << 3).to_le_bytes());
            padded.extend_from_slice(tail);
            padded.push(0x80);
            padded.resize(full + 60, 0);
            padded.extend_from_slice(&((n << 1) | 1).to_le_bytes());
        }
        assert_eq!(padded.len() % 64, 0);
        let mut state = MD5_INIT;
        let (blocks, rest) = padded.as_chunks::<64>();
        assert!(rest.is_empty());
        md5::block_api::compress(&mut state, blocks);
        let mut out = [0u8; 16];
        for (c, w) in out.chunks_exact_mut(4).zip(state) {
            c.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    #[test]
    fn matches_reference_for_every_tail_length() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in 0..data.len() {
            assert_eq!(
                retail_hash(&data[..len]),
                reference(&data[..len]),
                "len {len}"
            );
        }
    }

    #[test]
    fn md5_equals_the_md5_crate() {
        use md5::Digest as _;
        let data: Vec<u8> = (0..400u32).map(|i| (i * 29 + 1) as u8).collect();
        for len in 0..data.len() {
            let theirs: [u8; 16] = md5::Md5::digest(&data[..len]).into();
            assert_eq!(md5(&data[..len]), theirs, "len {len}");
        }
    }

    #[test]
    fn plain_md5_is_rfc1321() {
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn retail_differs_from_plain_and_debug() {
        let data = b"dxil container bytes";
        assert_ne!(retail_hash(data), md5(data));
        assert_ne!(retail_hash(data), debug_hash(data));
    }

    #[test]
    fn classification() {
        let data = b"0123456789abcdef0123";
        assert_eq!(
            DigestStatus::classify([0; 16], data),
            DigestStatus::Unsigned
        );
        assert_eq!(DigestStatus::classify([1; 16], data), DigestStatus::Bypass);
        assert_eq!(DigestStatus::classify([2; 16], data), DigestStatus::Preview);
        assert_eq!(
            DigestStatus::classify(retail_hash(data), data),
            DigestStatus::Signed
        );
        assert_eq!(
            DigestStatus::classify(debug_hash(data), data),
            DigestStatus::SignedDebug
        );
        assert_eq!(
            DigestStatus::classify([9; 16], data),
            DigestStatus::Wrong {
                expected: retail_hash(data)
            }
        );
    }

    #[test]
    fn hashed_range_clips() {
        let mut c = vec![0u8; 40];
        c[24..28].copy_from_slice(&32u32.to_le_bytes());
        assert_eq!(hashed_range(&c).len(), 12);
        c[24..28].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(hashed_range(&c).len(), 20);
        assert!(hashed_range(&c[..10]).is_empty());
    }
}
