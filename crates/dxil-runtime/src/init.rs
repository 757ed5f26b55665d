//! Initial contents of resources: the `init` forms of the case format.

use std::path::PathBuf;

/// How a resource's bytes start out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// `"zero"`.
    Zero,
    /// `"iota-u32"`: word i holds i.
    Iota,
    /// `"random-u32:SEED"`: the xorshift32 sequence from a non-zero seed.
    Random { seed: u32 },
    /// `"random-range:SEED:LO:HI"`: `LO + x % (HI - LO + 1)` for each xorshift32 step x.
    RandomRange { seed: u32, lo: u32, hi: u32 },
    /// `"fill-u32:VALUE"`.
    Fill(u32),
    /// An inline array of words; the rest of the resource is zero.
    Words(Vec<u32>),
    /// `{ file = "..." }`: the file's bytes (read when the case is loaded); the rest is zero.
    File { path: PathBuf, bytes: Vec<u8> },
}

/// The xorshift32 generator of the case format (Marsaglia's 13/17/5 triple).
#[derive(Clone, Copy, Debug)]
pub struct XorShift32(u32);

impl XorShift32 {
    /// A generator from a seed; a zero seed would only ever produce zero, so the case parser
    /// rejects it before it gets here.
    pub fn new(seed: u32) -> Self {
        XorShift32(seed)
    }
}

impl Iterator for XorShift32 {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        Some(x)
    }
}

impl Init {
    /// Writes the initial contents into `out` (whose length is the resource size); bytes past the
    /// end of the given data are zero, and data past the end of `out` is cut off (the parser rejects
    /// cases where that would happen).
    pub fn fill(&self, out: &mut [u8]) {
        out.fill(0);
        match self {
            Init::Zero => {}
            Init::Iota => fill_words(out, 0u32..),
            Init::Random { seed } => fill_words(out, XorShift32::new(*seed)),
            Init::RandomRange { seed, lo, hi } => {
                // span is at most 2^32, so u64 arithmetic cannot overflow.
                let span = u64::from(*hi) - u64::from(*lo) + 1;
                let lo = u64::from(*lo);
                fill_words(
                    out,
                    XorShift32::new(*seed).map(move |x| {
                        // lo + (x % span) ≤ hi, which fits in u32.
                        u32::try_from(lo + u64::from(x) % span).unwrap_or(u32::MAX)
                    }),
                )
            }
            Init::Fill(value) => fill_words(out, std::iter::repeat(*value)),
            Init::Words(words) => fill_words(out, words.iter().copied()),
            Init::File { bytes, .. } => {
                let n = bytes.len().min(out.len());
                if let (Some(dst), Some(src)) = (out.get_mut(..n), bytes.get(..n)) {
                    dst.copy_from_slice(src);
                }
            }
        }
    }

    /// The initial contents as a new buffer of `size` bytes.
    pub fn to_bytes(&self, size: usize) -> Vec<u8> {
        let mut out = vec![0; size];
        self.fill(&mut out);
        out
    }
}

/// Writes little-endian words; a trailing partial word gets the low bytes of its word.
fn fill_words(out: &mut [u8], words: impl Iterator<Item = u32>) {
    for (chunk, word) in out.chunks_mut(4).zip(words) {
        let bytes = word.to_le_bytes();
        let n = chunk.len();
        if let Some(src) = bytes.get(..n) {
            chunk.copy_from_slice(src);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn xorshift32_matches_the_reference_sequence() {
        // Marsaglia's xorshift32 from seed 1: 270369, 67634689, 2647435461, ...
        let seq: Vec<u32> = XorShift32::new(1).take(3).collect();
        assert_eq!(seq, [270369, 67634689, 2647435461]);
        // Never reaches zero from a non-zero seed.
        assert!(XorShift32::new(0xdead_beef).take(10_000).all(|x| x != 0));
    }

    #[test]
    fn random_range_matches_the_conformance_case() {
        // loop_break_continue.toml: random-range:7:0:100 gives the inputs whose expected
        // odd-counts are [20, 18, 14, 5, 0, ...]; count(n) = min(n, 40) / 2.
        let init = Init::RandomRange {
            seed: 7,
            lo: 0,
            hi: 100,
        };
        let w = words(&init.to_bytes(64));
        let counts: Vec<u32> = w.iter().map(|&n| n.min(40) / 2).collect();
        assert_eq!(
            counts,
            [20, 18, 14, 5, 0, 20, 20, 20, 20, 16, 20, 20, 20, 20, 1, 10]
        );
        assert!(w.iter().all(|&x| x <= 100));
    }

    #[test]
    fn random_range_full_width_does_not_overflow() {
        let full = Init::RandomRange {
            seed: 3,
            lo: 0,
            hi: u32::MAX,
        };
        let plain = Init::Random { seed: 3 };
        assert_eq!(full.to_bytes(40), plain.to_bytes(40));
        let single = Init::RandomRange {
            seed: 3,
            lo: 9,
            hi: 9,
        };
        assert!(words(&single.to_bytes(40)).iter().all(|&x| x == 9));
    }

    #[test]
    fn simple_forms() {
        assert_eq!(words(&Init::Iota.to_bytes(16)), [0, 1, 2, 3]);
        assert_eq!(words(&Init::Fill(7).to_bytes(8)), [7, 7]);
        assert_eq!(words(&Init::Zero.to_bytes(8)), [0, 0]);
        assert_eq!(words(&Init::Words(vec![5, 6]).to_bytes(16)), [5, 6, 0, 0]);
        let file = Init::File {
            path: PathBuf::from("x.bin"),
            bytes: vec![1, 2, 3],
        };
        assert_eq!(file.to_bytes(6), [1, 2, 3, 0, 0, 0]);
        // A partial trailing word takes the low bytes.
        assert_eq!(Init::Fill(0x0403_0201).to_bytes(6), [1, 2, 3, 4, 1, 2]);
        // Data longer than the resource is cut off.
        assert_eq!(Init::Words(vec![1, 2, 3]).to_bytes(4), [1, 0, 0, 0]);
    }
}
