//! The bit cursor: fixed-width and VBR fields read LSB first from little-endian words.
//!
//! Reading LSB-first from little-endian 32-bit words is the same as reading LSB-first from the
//! bytes in order, so the cursor loads any 8 bytes around the current position as one
//! little-endian `u64` (at least 57 usable bits) and only falls back to a byte-by-byte window
//! within 8 bytes of the end.

use crate::abbrev::{AbbrevOp, encoding};
use crate::error::{Error, ErrorKind, Result};

#[derive(Debug, Clone)]
pub(crate) struct BitCursor<'a> {
    data: &'a [u8],
    /// Current position in bits from `data[0]`.
    pos: u64,
    /// `data.len() * 8`.
    end: u64,
    /// Absolute bit offset of `data[0]`, for error messages and reported positions.
    base_bit: u64,
}

#[inline(always)]
fn low_mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

impl<'a> BitCursor<'a> {
    pub fn new(data: &'a [u8], base_bit: u64) -> Self {
        BitCursor {
            data,
            pos: 0,
            end: (data.len() as u64) * 8,
            base_bit,
        }
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    #[inline(always)]
    pub fn pos(&self) -> u64 {
        self.pos
    }

    #[inline(always)]
    pub fn end(&self) -> u64 {
        self.end
    }

    #[inline(always)]
    pub fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    /// Absolute bit offset of relative position `pos`.
    #[inline(always)]
    pub fn abs(&self, pos: u64) -> u64 {
        self.base_bit + pos
    }

    /// Moves to `pos`, which the caller has already checked to be within the data.
    pub fn seek(&mut self, pos: u64) {
        debug_assert!(pos <= self.end);
        self.pos = pos.min(self.end);
    }

    #[cold]
    pub fn truncated(&self, needed: u64, what: &str) -> Error {
        Error::new(
            ErrorKind::Truncated,
            self.abs(self.pos),
            format!(
                "{what} needs {needed} bits but only {} remain",
                self.remaining()
            ),
        )
    }

    #[cold]
    pub fn malformed(&self, at: u64, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Malformed, self.abs(at), message)
    }

    /// The bits from the current position (bit 0 = next bit) and how many of them are data.
    #[inline(always)]
    fn window(&self) -> (u64, u64) {
        let byte = (self.pos >> 3) as usize;
        let shift = (self.pos & 7) as u32;
        match self.data.get(byte..).and_then(|s| s.first_chunk::<8>()) {
            Some(w) => (u64::from_le_bytes(*w) >> shift, 64 - u64::from(shift)),
            None => self.window_near_end(),
        }
    }

    #[inline(never)]
    fn window_near_end(&self) -> (u64, u64) {
        let byte = (self.pos >> 3) as usize;
        let shift = (self.pos & 7) as u32;
        let mut buf = [0u8; 8];
        let rest = self.data.get(byte..).unwrap_or(&[]);
        let n = rest.len().min(8);
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        (u64::from_le_bytes(buf) >> shift, self.remaining())
    }

    /// Reads an `n`-bit field, `n` ≤ 64. `n` = 0 reads nothing and yields 0.
    #[inline(always)]
    pub fn read_fixed(&mut self, n: u32) -> Result<u64> {
        let (w, avail) = self.window();
        if n <= 56 && u64::from(n) <= avail {
            self.pos += u64::from(n);
            return Ok(w & low_mask(n));
        }
        self.read_fixed_slow(n)
    }

    #[inline(never)]
    fn read_fixed_slow(&mut self, n: u32) -> Result<u64> {
        debug_assert!(n <= 64);
        if u64::from(n) > self.remaining() {
            return Err(self.truncated(u64::from(n), "a fixed-width field"));
        }
        // n > 56 here, or the window was short but enough data remains: two halves, each of
        // which fits in any window that has at least that many bits.
        let lo_bits = n.min(32);
        let (w, _) = self.window();
        let lo = w & low_mask(lo_bits);
        self.pos += u64::from(lo_bits);
        let hi_bits = n - lo_bits;
        let (w, _) = self.window();
        let hi = w & low_mask(hi_bits);
        self.pos += u64::from(hi_bits);
        Ok(lo | (hi << lo_bits))
    }

    /// Skips `n` bits, checking that they exist.
    #[inline]
    pub fn skip_bits(&mut self, n: u64, what: &str) -> Result<()> {
        if n > self.remaining() {
            return Err(self.truncated(n, what));
        }
        self.pos += n;
        Ok(())
    }

    /// Reads a VBR field in `n`-bit chunks, 2 ≤ `n` ≤ 32. Over-long encodings (extra chunks
    /// whose payload is zero) are accepted; a value that does not fit in 64 bits is an error.
    #[inline(always)]
    pub fn read_vbr(&mut self, n: u32) -> Result<u64> {
        debug_assert!((2..=32).contains(&n));
        let (w, avail) = self.window();
        let cont = 1u64 << (n - 1);
        let chunk = w & low_mask(n);
        if chunk & cont == 0 && u64::from(n) <= avail {
            self.pos += u64::from(n);
            return Ok(chunk);
        }
        self.read_vbr_multi(n, w, avail)
    }

    /// Multi-chunk VBR: first within the loaded window (up to 64 bits, so the value cannot
    /// overflow there), then chunk by chunk.
    #[inline(never)]
    fn read_vbr_multi(&mut self, n: u32, w: u64, avail: u64) -> Result<u64> {
        let cont = 1u64 << (n - 1);
        let mask = low_mask(n);
        let mut value = 0u64;
        let mut used = 0u32;
        let mut shift = 0u32;
        while u64::from(used + n) <= avail {
            let chunk = (w >> used) & mask;
            value |= (chunk & (cont - 1)) << shift;
            used += n;
            shift += n - 1;
            if chunk & cont == 0 {
                self.pos += u64::from(used);
                return Ok(value);
            }
        }
        self.read_vbr_slow(n)
    }

    #[inline(never)]
    fn read_vbr_slow(&mut self, n: u32) -> Result<u64> {
        let start = self.pos;
        let cont = 1u64 << (n - 1);
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let chunk = self.read_fixed(n)?;
            let payload = chunk & (cont - 1);
            if payload != 0 {
                if shift >= 64 || (payload << shift) >> shift != payload {
                    return Err(self.malformed(start, format!("VBR{n} value exceeds 64 bits")));
                }
                value |= payload << shift;
            }
            if chunk & cont == 0 {
                return Ok(value);
            }
            shift = shift.saturating_add(n - 1);
        }
    }

    /// One DEFINE_ABBREV operand in its short forms, decoded from a single window: a literal
    /// below 128, Array, Char6, Blob, or Fixed/VBR with a valid width below 16. `None` (and
    /// nothing consumed) for anything else, which the caller decodes field by field.
    #[inline(always)]
    pub fn read_short_abbrev_op(&mut self) -> Option<AbbrevOp> {
        let (w, avail) = self.window();
        if avail < 9 {
            return None;
        }
        let (op, bits) = if w & 1 == 1 {
            let v = (w >> 1) & 0xFF;
            if v & 0x80 != 0 {
                return None;
            }
            (AbbrevOp::Literal(v), 9)
        } else {
            let width = ((w >> 4) & 0x1F) as u32;
            match (w >> 1) & 7 {
                encoding::FIXED if width < 16 => (AbbrevOp::Fixed(width), 9),
                encoding::VBR if width < 16 && width != 1 => (AbbrevOp::Vbr(width), 9),
                encoding::ARRAY => (AbbrevOp::Array, 4),
                encoding::CHAR6 => (AbbrevOp::Char6, 4),
                encoding::BLOB => (AbbrevOp::Blob, 4),
                _ => return None,
            }
        };
        self.pos += bits;
        Some(op)
    }

    /// The common start of an unabbreviated record: code and operand count both below 32, so
    /// each is one VBR6 chunk. `None` (and nothing consumed) otherwise.
    #[inline(always)]
    pub fn read_two_small_vbr6(&mut self) -> Option<(u32, u32)> {
        let (w, avail) = self.window();
        if w & (1 << 5 | 1 << 11) == 0 && avail >= 12 {
            self.pos += 12;
            return Some(((w & 31) as u32, ((w >> 6) & 31) as u32));
        }
        None
    }

    /// Fills `out` with consecutive VBR`n` values (2 ≤ `n` ≤ 32).
    pub fn read_vbr_into(&mut self, n: u32, out: &mut [u64]) -> Result<()> {
        for slot in out {
            *slot = self.read_vbr(n)?;
        }
        Ok(())
    }

    /// Appends `count` consecutive VBR`n` values (2 ≤ `n` ≤ 32) to `ops`, decoding every
    /// value that lies entirely within the loaded 64-bit window before loading the next one.
    /// The caller has checked that `count` values can fit in the remaining data.
    #[inline]
    pub fn read_vbr_push(&mut self, n: u32, count: usize, ops: &mut Vec<u64>) -> Result<()> {
        ops.reserve(count);
        // Constant widths let the compiler fold masks and shifts in the hot loop.
        match n {
            6 => self.vbr_push(6, count, ops),
            4 => self.vbr_push(4, count, ops),
            8 => self.vbr_push(8, count, ops),
            _ => self.vbr_push(n, count, ops),
        }
    }

    #[inline(always)]
    fn vbr_push(&mut self, n: u32, count: usize, ops: &mut Vec<u64>) -> Result<()> {
        debug_assert!((2..=32).contains(&n));
        let cont = 1u64 << (n - 1);
        let mask = low_mask(n);
        let mut remaining = count;
        while remaining > 0 {
            let (mut w, avail) = self.window();
            // At most 64 bits, consumed from the bottom of `w`.
            let avail = avail as u32;
            let mut left = avail;
            while remaining > 0 && left >= n {
                let chunk = w & mask;
                if chunk & cont == 0 {
                    ops.push(chunk);
                    w >>= n;
                    left -= n;
                    remaining -= 1;
                    continue;
                }
                // Two chunks, the most common long form (values 2^(n-1) to 2^(2n-2)-1).
                if n <= 16 && left >= 2 * n {
                    let second = (w >> n) & mask;
                    if second & cont == 0 {
                        ops.push((chunk & (cont - 1)) | (second << (n - 1)));
                        w >>= 2 * n;
                        left -= 2 * n;
                        remaining -= 1;
                        continue;
                    }
                }
                // More chunks: decode on copies, so a value cut by the window's end is
                // simply decoded again from the next window.
                let mut v = chunk & (cont - 1);
                let mut rest = w >> n;
                let mut rest_left = left - n;
                let mut shift = n - 1;
                let complete = loop {
                    if rest_left < n {
                        break false;
                    }
                    let c = rest & mask;
                    // `shift` < the bits consumed ≤ 64: nothing is shifted out.
                    v |= (c & (cont - 1)) << shift;
                    rest >>= n;
                    rest_left -= n;
                    if c & cont == 0 {
                        break true;
                    }
                    shift += n - 1;
                };
                if !complete {
                    break;
                }
                ops.push(v);
                w = rest;
                left = rest_left;
                remaining -= 1;
            }
            let used = avail - left;
            if used == 0 {
                // Not even one value ends inside a full window: an over-long encoding wider
                // than the window, or the data ends (the slow path reports which).
                ops.push(self.read_vbr_slow(n)?);
                remaining -= 1;
            } else {
                self.pos += u64::from(used);
            }
        }
        Ok(())
    }

    /// Appends `count` consecutive `n`-bit fields (1 ≤ `n` ≤ 64) to `ops`.
    #[inline]
    pub fn read_fixed_push(&mut self, n: u32, count: usize, ops: &mut Vec<u64>) -> Result<()> {
        ops.reserve(count);
        // Strings are arrays of Fixed(8), Fixed(7) or Char6: constant widths turn the
        // per-window division into a multiplication.
        match n {
            8 => self.fixed_push(8, count, ops),
            7 => self.fixed_push(7, count, ops),
            6 => self.fixed_push(6, count, ops),
            _ => self.fixed_push(n, count, ops),
        }
    }

    #[inline(always)]
    fn fixed_push(&mut self, n: u32, count: usize, ops: &mut Vec<u64>) -> Result<()> {
        if n == 0 || n > 56 {
            for _ in 0..count {
                ops.push(self.read_fixed(n)?);
            }
            return Ok(());
        }
        let mask = low_mask(n);
        let mut remaining = count;
        while remaining > 0 {
            let (mut w, avail) = self.window();
            let k = ((avail as u32 / n) as usize).min(remaining);
            if k == 0 {
                return Err(self.truncated(u64::from(n), "a fixed-width field"));
            }
            for _ in 0..k {
                ops.push(w & mask);
                w >>= n;
            }
            self.pos += k as u64 * u64::from(n);
            remaining -= k;
        }
        Ok(())
    }

    /// Reads a VBR field that must fit in 32 bits (counts, codes, ids).
    #[inline(always)]
    pub fn read_vbr_u32(&mut self, n: u32, what: &str) -> Result<u32> {
        let start = self.pos;
        let v = self.read_vbr(n)?;
        u32::try_from(v).map_err(|_| self.malformed(start, format!("{what} {v} exceeds 32 bits")))
    }

    /// Moves to the next multiple of 32 bits.
    #[inline]
    pub fn align32(&mut self) -> Result<()> {
        let aligned = (self.pos + 31) & !31;
        if aligned > self.end {
            return Err(self.truncated(aligned - self.pos, "32-bit alignment"));
        }
        self.pos = aligned;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(bytes: &[u8]) -> BitCursor<'_> {
        BitCursor::new(bytes, 0)
    }

    #[test]
    fn fixed_fields_are_lsb_first() {
        // 0b1011_0101, 0b0000_0011
        let bytes = [0xB5, 0x03, 0, 0];
        let mut c = cursor(&bytes);
        assert_eq!(c.read_fixed(1).unwrap(), 1);
        assert_eq!(c.read_fixed(2).unwrap(), 0b10);
        assert_eq!(c.read_fixed(0).unwrap(), 0);
        assert_eq!(c.read_fixed(5).unwrap(), 0b10110);
        assert_eq!(c.read_fixed(3).unwrap(), 0b011);
        assert_eq!(c.pos(), 11);
    }

    #[test]
    fn wide_fixed_fields_at_every_alignment() {
        let value: u64 = 0xF123_4567_89AB_CDEF;
        for skip in 0..16u32 {
            for width in [33u32, 56, 57, 63, 64] {
                let v = value & low_mask(width);
                let wide = u128::from(v) << skip;
                let bytes = wide.to_le_bytes();
                let mut c = cursor(&bytes[..12]);
                c.read_fixed(skip).unwrap();
                assert_eq!(c.read_fixed(width).unwrap(), v, "skip {skip} width {width}");
                assert_eq!(c.pos(), u64::from(skip + width));
            }
        }
        // Exactly 64 bits of data, read at the very end (window path near the end).
        let bytes = u64::MAX.to_le_bytes();
        let mut c = cursor(&bytes);
        assert_eq!(c.read_fixed(64).unwrap(), u64::MAX);
        assert_eq!(c.remaining(), 0);
        assert_eq!(c.read_fixed(0).unwrap(), 0);
        assert_eq!(c.read_fixed(1).unwrap_err().kind(), ErrorKind::Truncated);
    }

    #[test]
    fn vbr_canonical_and_over_long() {
        // vbr6 of 0x1F: one chunk 0b011111.
        let mut c = cursor(&[0x1F, 0, 0, 0]);
        assert_eq!(c.read_vbr(6).unwrap(), 0x1F);
        assert_eq!(c.pos(), 6);
        // vbr6 of 32: chunks 0b100000, 0b000001.
        let mut c = cursor(&[0x60, 0x00, 0, 0]);
        assert_eq!(c.read_vbr(6).unwrap(), 32);
        assert_eq!(c.pos(), 12);
        // Over-long vbr4 of 5: 1101, 1000, 1000, 0000 (three chunks more than needed).
        let mut c = cursor(&[0x8D, 0x08, 0, 0]);
        assert_eq!(c.read_vbr(4).unwrap(), 5);
        assert_eq!(c.pos(), 16);
    }

    #[test]
    fn vbr_near_and_beyond_64_bits() {
        for n in [2u32, 3, 5, 6, 8, 17, 31, 32] {
            for value in [0u64, 1, u64::MAX, u64::MAX >> 1, 1u64 << 63, 0x8ACF_1234] {
                let mut bits = crate::writer::tests::raw_vbr(value, n, 1);
                bits.extend([0u8; 8]);
                let mut c = cursor(&bits);
                assert_eq!(c.read_vbr(n).unwrap(), value, "vbr{n} {value:#x}");
            }
        }
        // vbr2 has one payload bit per chunk: a 65th payload-1 chunk overflows.
        let mut bits = vec![0xFFu8; 17];
        bits.extend([0u8; 4]);
        let mut c = cursor(&bits);
        let err = c.read_vbr(2).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed);
        assert_eq!(err.bit_offset(), 0);
        // Many zero-payload continuation chunks beyond bit 64 are still a valid (over-long) 0.
        let mut bits = vec![0xAAu8; 40];
        bits.extend([0u8; 4]);
        let mut c = cursor(&bits);
        assert_eq!(c.read_vbr(2).unwrap(), 0);
        assert_eq!(c.pos(), 40 * 8 + 2);
    }

    #[test]
    fn vbr_u32_rejects_wide_values() {
        let bits = crate::writer::tests::raw_vbr(1u64 << 32, 6, 1);
        let mut c = cursor(&bits);
        assert_eq!(
            c.read_vbr_u32(6, "count").unwrap_err().kind(),
            ErrorKind::Malformed
        );
    }

    #[test]
    fn truncation_at_every_bit_is_an_error() {
        let bytes = [0xFFu8; 8];
        for start in 0..64u32 {
            for n in 1..=64u32 {
                let mut c = cursor(&bytes);
                c.read_fixed(start).unwrap();
                let r = c.read_fixed(n);
                if start + n <= 64 {
                    assert_eq!(r.unwrap(), low_mask(n));
                } else {
                    let e = r.unwrap_err();
                    assert_eq!(e.kind(), ErrorKind::Truncated);
                    assert_eq!(e.bit_offset(), u64::from(start));
                    assert_eq!(c.pos(), u64::from(start));
                }
                let mut c = cursor(&bytes);
                c.read_fixed(start).unwrap();
                if (2..=32).contains(&n) {
                    // All-ones chunks never terminate: always truncated (or overflowing).
                    assert!(c.read_vbr(n).is_err());
                }
            }
        }
    }

    #[test]
    fn batch_reads_match_scalar_reads() {
        // Pseudo-random bits with a bias towards clear continuation bits, so runs of
        // single-chunk values alternate with multi-chunk ones.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..96)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x as u8) & if x & 0x100 == 0 { 0x5B } else { 0xFF }
            })
            .collect();
        for start in 0..8u32 {
            for n in 1..=64u32 {
                let mut scalar = cursor(&bytes);
                scalar.read_fixed(start).unwrap();
                let mut batch = scalar.clone();
                let count = (bytes.len() as u64 * 8 - u64::from(start)) / u64::from(n);
                let expect: Vec<u64> = (0..count).map(|_| scalar.read_fixed(n).unwrap()).collect();
                let mut got = vec![7];
                batch.read_fixed_push(n, count as usize, &mut got).unwrap();
                assert_eq!(got.remove(0), 7);
                assert_eq!(got, expect, "fixed{n} from bit {start}");
                assert_eq!(batch.pos(), scalar.pos());
                assert_eq!(
                    batch.read_fixed_push(n, 1, &mut got).unwrap_err().kind(),
                    ErrorKind::Truncated
                );
            }
            for n in 2..=32u32 {
                let mut scalar = cursor(&bytes);
                scalar.read_fixed(start).unwrap();
                let mut batch = scalar.clone();
                let mut expect = Vec::new();
                let mut probe = scalar.clone();
                while let Ok(v) = probe.read_vbr(n) {
                    expect.push(v);
                    scalar = probe.clone();
                }
                let mut got = Vec::new();
                batch.read_vbr_push(n, expect.len(), &mut got).unwrap();
                assert_eq!(got, expect, "vbr{n} from bit {start}");
                assert_eq!(batch.pos(), scalar.pos());
                assert!(batch.read_vbr_push(n, 1, &mut got).is_err());
            }
        }
    }

    #[test]
    fn align32_and_absolute_offsets() {
        let bytes = [0u8; 8];
        let mut c = BitCursor::new(&bytes, 800);
        c.read_fixed(3).unwrap();
        c.align32().unwrap();
        assert_eq!(c.pos(), 32);
        c.align32().unwrap();
        assert_eq!(c.pos(), 32);
        assert_eq!(c.abs(c.pos()), 832);
        c.read_fixed(32).unwrap();
        c.align32().unwrap();
        let e = c.read_fixed(1).unwrap_err();
        assert_eq!(e.bit_offset(), 864);
    }
}
