//! A bounds-checked little-endian cursor over one part's bytes that reports absolute offsets.

use std::borrow::Cow;

use crate::{Error, ErrorKind, FourCC, Result};

#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute container offset of `data[0]`.
    base: usize,
    part: Option<FourCC>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8], base: usize, part: Option<FourCC>) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            part,
        }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Absolute offset of a position relative to the start of this cursor's data.
    pub(crate) fn abs(&self, pos: usize) -> usize {
        self.base.saturating_add(pos)
    }

    #[cold]
    pub(crate) fn error_at(
        &self,
        pos: usize,
        kind: ErrorKind,
        message: impl Into<Cow<'static, str>>,
    ) -> Error {
        Error::new(kind, self.abs(pos), self.part, message)
    }

    #[cold]
    pub(crate) fn error(&self, kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Error {
        self.error_at(self.pos, kind, message)
    }

    pub(crate) fn seek(&mut self, pos: usize, what: &'static str) -> Result<()> {
        if pos > self.data.len() {
            return Err(self.error(
                ErrorKind::Truncated,
                format!(
                    "{what} at offset {pos} lies past the end of {} bytes",
                    self.data.len()
                ),
            ));
        }
        self.pos = pos;
        Ok(())
    }

    pub(crate) fn bytes(&mut self, len: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(len).filter(|&e| e <= self.data.len());
        match end.and_then(|end| self.data.get(self.pos..end).map(|s| (s, end))) {
            Some((slice, end)) => {
                self.pos = end;
                Ok(slice)
            }
            None => Err(self.error(
                ErrorKind::Truncated,
                format!("{what} needs {len} bytes, {} remain", self.remaining()),
            )),
        }
    }

    pub(crate) fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let bytes = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// `count` little-endian u32s; the count is checked against the remaining bytes before any
    /// allocation, so a hostile count cannot allocate more than the input holds.
    pub(crate) fn u32_vec(&mut self, count: usize, what: &'static str) -> Result<Vec<u32>> {
        let len = count.checked_mul(4).ok_or_else(|| {
            self.error(
                ErrorKind::Truncated,
                format!("{what}: {count} dwords overflow"),
            )
        })?;
        let bytes = self.bytes(len, what)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Checks that `count` records of `stride` bytes fit in what remains, before allocating.
    pub(crate) fn check_records(
        &self,
        count: usize,
        stride: usize,
        what: &'static str,
    ) -> Result<()> {
        match count.checked_mul(stride) {
            Some(total) if total <= self.remaining() => Ok(()),
            _ => Err(self.error(
                ErrorKind::Truncated,
                format!(
                    "{count} {what} of {stride} bytes need more than the {} bytes that remain",
                    self.remaining()
                ),
            )),
        }
    }
}

/// Longest name read through [`c_str_at`]. Many elements may point into one string area, so
/// without a bound a hostile part could make reading quadratic in its size; real semantic and
/// entry names are far shorter.
pub const MAX_STRING_LEN: usize = 4096;

/// The NUL-terminated UTF-8 string starting at `offset` in `data` (at most [`MAX_STRING_LEN`]
/// bytes).
pub(crate) fn c_str_at<'a>(
    data: &'a [u8],
    offset: usize,
    base: usize,
    part: Option<FourCC>,
    what: &'static str,
) -> Result<&'a str> {
    let tail = data.get(offset..).ok_or_else(|| {
        Error::new(
            ErrorKind::Malformed,
            base.saturating_add(offset),
            part,
            format!("{what} offset {offset} is outside {} bytes", data.len()),
        )
    })?;
    let window = tail.get(..=MAX_STRING_LEN).unwrap_or(tail);
    let len = window.iter().position(|&b| b == 0).ok_or_else(|| {
        let (kind, message) = if window.len() > MAX_STRING_LEN {
            (
                ErrorKind::Unsupported,
                format!("{what} at offset {offset} is longer than {MAX_STRING_LEN} bytes"),
            )
        } else {
            (
                ErrorKind::Truncated,
                format!("{what} at offset {offset} has no terminating NUL"),
            )
        };
        Error::new(kind, base.saturating_add(offset), part, message)
    })?;
    let bytes = tail.get(..len).unwrap_or_default();
    std::str::from_utf8(bytes).map_err(|e| {
        Error::new(
            ErrorKind::Malformed,
            base.saturating_add(offset + e.valid_up_to()),
            part,
            format!("{what} at offset {offset} is not UTF-8"),
        )
    })
}

/// Appends little-endian values to a byte vector (the writers' counterpart of [`Cursor`]).
pub(crate) trait PutLe {
    fn put_u8(&mut self, v: u8);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_u64(&mut self, v: u64);
    fn pad_to_4(&mut self);
}

impl PutLe for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn pad_to_4(&mut self) {
        while !self.len().is_multiple_of(4) {
            self.push(0);
        }
    }
}

/// Converts a writer-side length to the `u32` a field holds.
pub(crate) fn len_u32(len: usize, part: FourCC, what: &'static str) -> Result<u32> {
    u32::try_from(len).map_err(|_| {
        Error::new(
            ErrorKind::Limit,
            0,
            Some(part),
            format!("{what} of {len} does not fit in a u32 field"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_reports_absolute_offsets() {
        let data = [1, 0, 2, 0, 0, 0, 3];
        let mut c = Cursor::new(&data, 100, Some(FourCC::SFI0));
        assert_eq!(c.u16("a").unwrap(), 1);
        assert_eq!(c.u32("b").unwrap(), 2);
        let e = c.u16("c").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert_eq!(e.offset(), 106);
        assert_eq!(e.part(), Some(FourCC::SFI0));
    }

    #[test]
    fn vec_count_is_bounded_by_input() {
        let data = [0u8; 8];
        let mut c = Cursor::new(&data, 0, None);
        assert!(c.u32_vec(usize::MAX, "x").is_err());
        assert!(c.u32_vec(3, "x").is_err());
        assert_eq!(c.u32_vec(2, "x").unwrap(), vec![0, 0]);
    }

    #[test]
    fn c_strings() {
        let data = b"ab\0c";
        assert_eq!(c_str_at(data, 0, 0, None, "s").unwrap(), "ab");
        assert_eq!(c_str_at(data, 2, 0, None, "s").unwrap(), "");
        assert!(c_str_at(data, 3, 0, None, "s").is_err());
        assert!(c_str_at(data, 9, 0, None, "s").is_err());
        assert!(c_str_at(b"\xff\0", 0, 0, None, "s").is_err());
        let mut long = vec![b'a'; MAX_STRING_LEN + 10];
        assert_eq!(
            c_str_at(&long, 0, 0, None, "s").unwrap_err().kind(),
            ErrorKind::Unsupported
        );
        long[MAX_STRING_LEN] = 0;
        assert_eq!(
            c_str_at(&long, 0, 0, None, "s").unwrap().len(),
            MAX_STRING_LEN
        );
    }
}
