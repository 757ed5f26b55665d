//! Comparing a resource's final bytes with an `[[expect]]`.

use std::fmt;

use crate::case::Expected;

/// One expected word, typed as the expectation gave it (for messages).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExpectedWord {
    U32(u32),
    I32(i32),
    F32 {
        value: f32,
        tolerance_ulp: u32,
    },
    /// A word of a `hex` file; `len` < 4 for a trailing partial word.
    Bytes {
        word: u32,
        len: usize,
    },
}

/// The first differing word of a resource that failed its expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The resource (`u0`, `u1 (space 2)`) or memory name.
    pub target: String,
    /// Word index of the first difference.
    pub index: usize,
    pub expected: ExpectedWord,
    /// The resource's word at `index` (a partial trailing word is zero-extended).
    pub actual: u32,
    /// How many of the expected words differ.
    pub differing: usize,
    /// How many words were expected.
    pub total: usize,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: word {}: expected ", self.target, self.index)?;
        match self.expected {
            ExpectedWord::U32(v) => write!(
                f,
                "{v} (0x{v:08x}), actual {} (0x{:08x})",
                self.actual, self.actual
            )?,
            ExpectedWord::I32(v) => {
                let a = i32::from_ne_bytes(self.actual.to_ne_bytes());
                write!(f, "{v}, actual {a} (0x{:08x})", self.actual)?
            }
            ExpectedWord::F32 {
                value,
                tolerance_ulp,
            } => {
                let a = f32::from_bits(self.actual);
                write!(
                    f,
                    "{value:?} (0x{:08x}), actual {a:?} (0x{:08x})",
                    value.to_bits(),
                    self.actual
                )?;
                if tolerance_ulp > 0 {
                    write!(
                        f,
                        ", {} ulp apart, {tolerance_ulp} allowed",
                        ulp_distance(value.to_bits(), self.actual)
                    )?;
                }
            }
            ExpectedWord::Bytes { word, len } => {
                let digits = len * 2;
                write!(f, "0x{word:0digits$x}, actual 0x{:0digits$x}", self.actual)?
            }
        }
        write!(f, " ({} of {} words differ)", self.differing, self.total)
    }
}

/// Distance between two floats in units in the last place, with -0 and +0 the same point and
/// the two signs' ranges laid end to end, so that the distance across zero is the sum.
pub fn ulp_distance(a: u32, b: u32) -> u64 {
    fn ordered(bits: u32) -> i64 {
        let magnitude = i64::from(bits & 0x7fff_ffff);
        if bits & 0x8000_0000 != 0 {
            -magnitude
        } else {
            magnitude
        }
    }
    ordered(a).abs_diff(ordered(b))
}

fn f32_matches(expected: f32, actual: u32, tolerance_ulp: u32) -> bool {
    let a = f32::from_bits(actual);
    if expected.is_nan() || a.is_nan() {
        return expected.is_nan() && a.is_nan();
    }
    ulp_distance(expected.to_bits(), actual) <= u64::from(tolerance_ulp)
}

fn word_at(bytes: &[u8], index: usize) -> (u32, usize) {
    let start = index.saturating_mul(4);
    let chunk = bytes.get(start..).unwrap_or(&[]);
    let len = chunk.len().min(4);
    let mut w = [0u8; 4];
    if let (Some(dst), Some(src)) = (w.get_mut(..len), chunk.get(..len)) {
        dst.copy_from_slice(src);
    }
    (u32::from_le_bytes(w), len)
}

/// Checks `actual` (a resource's final bytes) against `expected`; `None` when it holds.
/// Bytes past the end of `actual` read as zero (the parser keeps expectations inside resources).
pub fn check(target: &str, expected: &Expected, actual: &[u8]) -> Option<Mismatch> {
    let mut first: Option<(usize, ExpectedWord, u32)> = None;
    let mut differing = 0usize;
    let mut note = |i: usize, e: ExpectedWord, a: u32| {
        differing += 1;
        if first.is_none() {
            first = Some((i, e, a));
        }
    };
    let total = match expected {
        Expected::U32(values) => {
            for (i, &v) in values.iter().enumerate() {
                let (a, _) = word_at(actual, i);
                if a != v {
                    note(i, ExpectedWord::U32(v), a);
                }
            }
            values.len()
        }
        Expected::I32(values) => {
            for (i, &v) in values.iter().enumerate() {
                let (a, _) = word_at(actual, i);
                if a != u32::from_ne_bytes(v.to_ne_bytes()) {
                    note(i, ExpectedWord::I32(v), a);
                }
            }
            values.len()
        }
        Expected::F32 {
            values,
            tolerance_ulp,
        } => {
            for (i, &v) in values.iter().enumerate() {
                let (a, _) = word_at(actual, i);
                if !f32_matches(v, a, *tolerance_ulp) {
                    note(
                        i,
                        ExpectedWord::F32 {
                            value: v,
                            tolerance_ulp: *tolerance_ulp,
                        },
                        a,
                    );
                }
            }
            values.len()
        }
        Expected::Bytes { bytes, .. } => {
            let words = bytes.len().div_ceil(4);
            for i in 0..words {
                let (e, len) = word_at(bytes, i);
                let (a, _) = word_at(actual, i);
                // Only the bytes the file has take part in a trailing partial word.
                let mask = if len >= 4 {
                    u32::MAX
                } else {
                    (1u32 << (len * 8)) - 1
                };
                if a & mask != e {
                    note(i, ExpectedWord::Bytes { word: e, len }, a & mask);
                }
            }
            words
        }
    };
    first.map(|(index, expected, actual)| Mismatch {
        target: target.to_string(),
        index,
        expected,
        actual,
        differing,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn u32_reports_first_difference_and_count() {
        let actual = bytes(&[1, 2, 9, 4, 8]);
        assert_eq!(
            check("u0", &Expected::U32(vec![1, 2, 3, 4]), &actual).map(|m| m.index),
            Some(2)
        );
        let m = check("u0", &Expected::U32(vec![1, 5, 3, 4, 7]), &actual).unwrap();
        assert_eq!((m.index, m.actual, m.differing, m.total), (1, 2, 3, 5));
        assert_eq!(m.expected, ExpectedWord::U32(5));
        assert!(
            m.to_string()
                .starts_with("u0: word 1: expected 5 (0x00000005), actual 2")
        );
        assert!(check("u0", &Expected::U32(vec![1, 2, 9]), &actual).is_none());
    }

    #[test]
    fn i32_compares_bit_patterns() {
        let actual = bytes(&[u32::MAX, 5]);
        assert!(check("u0", &Expected::I32(vec![-1, 5]), &actual).is_none());
        let m = check("u0", &Expected::I32(vec![-2]), &actual).unwrap();
        assert!(m.to_string().contains("expected -2, actual -1"));
    }

    #[test]
    fn f32_tolerance_in_ulps() {
        let one = 1.0f32.to_bits();
        let actual = bytes(&[one + 2, (-0.0f32).to_bits(), f32::NAN.to_bits()]);
        let exact = Expected::F32 {
            values: vec![1.0, 0.0, f32::NAN],
            tolerance_ulp: 0,
        };
        assert_eq!(
            check("u0", &exact, &actual).map(|m| (m.index, m.differing)),
            Some((0, 1))
        );
        let loose = Expected::F32 {
            values: vec![1.0, 0.0, f32::NAN],
            tolerance_ulp: 2,
        };
        assert!(check("u0", &loose, &actual).is_none());
        // A NaN never matches a number, whatever the tolerance.
        let nan_vs_num = Expected::F32 {
            values: vec![1.0, 0.0, 3.0],
            tolerance_ulp: u32::MAX,
        };
        assert_eq!(check("u0", &nan_vs_num, &actual).map(|m| m.index), Some(2));
    }

    #[test]
    fn ulp_distance_across_zero() {
        assert_eq!(ulp_distance(0, 0x8000_0000), 0);
        assert_eq!(ulp_distance(1, 0x8000_0001), 2);
        assert_eq!(ulp_distance(1.0f32.to_bits(), 1.0f32.to_bits() + 3), 3);
        assert_eq!(ulp_distance(f32::MAX.to_bits(), f32::INFINITY.to_bits()), 1);
    }

    #[test]
    fn hex_compares_bytes_with_partial_tail() {
        let actual = bytes(&[0x0403_0201, 0x0807_0605]);
        let ok = Expected::Bytes {
            path: PathBuf::from("x"),
            bytes: vec![1, 2, 3, 4, 5, 6],
        };
        assert!(check("u0", &ok, &actual).is_none());
        let bad = Expected::Bytes {
            path: PathBuf::from("x"),
            bytes: vec![1, 2, 3, 4, 5, 7],
        };
        let m = check("u0", &bad, &actual).unwrap();
        assert_eq!((m.index, m.actual, m.total), (1, 0x0605, 2));
        assert!(m.to_string().contains("expected 0x0705, actual 0x0605"));
    }

    #[test]
    fn short_actual_reads_as_zero() {
        let m = check("u0", &Expected::U32(vec![0, 1]), &[0, 0, 0, 0]).unwrap();
        assert_eq!((m.index, m.actual), (1, 0));
    }
}
