//! Records: decoding and skipping unabbreviated and abbreviated records, arrays and blobs,
//! with every count checked against the remaining data.

use super::{BitstreamReader, Blob, builtin_abbrev::*};
use crate::abbrev::{AbbrevOp, decode_char6};
use crate::bits::BitCursor;
use crate::error::{Error, ErrorKind, Result};

impl<'a> BitstreamReader<'a> {
    /// Decodes a record's code and operands; a blob operand goes to `blob`. The decoders
    /// return just the code, so that it comes back in a register.
    #[inline(always)]
    pub(super) fn read_record_body(
        &mut self,
        abbrev_id: u32,
        start: u64,
        ops: &mut Vec<u64>,
        blob: &mut Option<Blob<'a>>,
    ) -> Result<u32> {
        let code = if abbrev_id == UNABBREV_RECORD {
            read_unabbreviated(&mut self.cur, ops)?
        } else {
            let Some(abbrev) = self
                .store
                .get(&self.scope, (abbrev_id - FIRST_APPLICATION_ABBREV) as usize)
            else {
                return Err(self.vanished(start));
            };
            read_abbreviated(&mut self.cur, abbrev, ops, blob)?
        };
        if self.in_blockinfo {
            self.blockinfo_record(code, ops, start)?;
        }
        Ok(code)
    }

    #[cold]
    fn vanished(&self, start: u64) -> Error {
        Error::new(
            ErrorKind::Internal,
            self.cur.abs(start),
            "a checked abbreviation id no longer resolves",
        )
    }

    pub(super) fn skip_record_body(&mut self, abbrev_id: u32, start: u64) -> Result<()> {
        if self.in_blockinfo {
            // BLOCKINFO records have side effects; decode them even when skipped.
            let mut ops = std::mem::take(&mut self.scratch);
            ops.clear();
            let r = self.read_record_body(abbrev_id, start, &mut ops, &mut None);
            self.scratch = ops;
            return r.map(|_| ());
        }
        if abbrev_id == UNABBREV_RECORD {
            // The batch decoder is faster than skipping value by value.
            let mut ops = std::mem::take(&mut self.scratch);
            ops.clear();
            let r = read_unabbreviated(&mut self.cur, &mut ops);
            self.scratch = ops;
            return r.map(|_| ());
        }
        let Some(abbrev) = self
            .store
            .get(&self.scope, (abbrev_id - FIRST_APPLICATION_ABBREV) as usize)
        else {
            return Err(self.vanished(start));
        };
        skip_abbreviated(&mut self.cur, abbrev)
    }
}

/// Fails unless `count` elements of at least `min_bits` each fit in the remaining data, so that
/// no allocation or loop is sized by an unchecked count.
#[inline]
fn check_count(cur: &BitCursor<'_>, count: u32, min_bits: u64, what: &str) -> Result<()> {
    let needed = u64::from(count) * min_bits;
    if needed > cur.remaining() {
        return Err(cur.truncated(needed, &format!("{what} with {count} elements")));
    }
    Ok(())
}

/// Out of line, so that [`BitstreamReader::advance`] stays small enough to inline into its
/// callers' loops; the code comes back in a register.
#[inline(never)]
fn read_unabbreviated(cur: &mut BitCursor<'_>, ops: &mut Vec<u64>) -> Result<u32> {
    let (code, n) = match cur.read_two_small_vbr6() {
        Some(pair) => pair,
        None => read_code_and_count(cur)?,
    };
    check_count(cur, n, 6, "unabbreviated record")?;
    cur.read_vbr_push(6, n as usize, ops)?;
    Ok(code)
}

#[inline(never)]
fn read_code_and_count(cur: &mut BitCursor<'_>) -> Result<(u32, u32)> {
    let start = cur.pos();
    let mut head = [0u64; 2];
    cur.read_vbr_into(6, &mut head)?;
    let [code, n] = head;
    match (u32::try_from(code), u32::try_from(n)) {
        (Ok(code), Ok(n)) => Ok((code, n)),
        _ => Err(cur.malformed(
            start,
            format!("record code {code} or operand count {n} exceeds 32 bits"),
        )),
    }
}

#[inline(always)]
fn read_scalar(cur: &mut BitCursor<'_>, op: AbbrevOp) -> Result<u64> {
    match op {
        AbbrevOp::Literal(v) => Ok(v),
        AbbrevOp::Fixed(w) => cur.read_fixed(w),
        AbbrevOp::Vbr(0) => Ok(0),
        AbbrevOp::Vbr(w) => cur.read_vbr(w),
        AbbrevOp::Char6 => Ok(u64::from(decode_char6(cur.read_fixed(6)?))),
        AbbrevOp::Array | AbbrevOp::Blob => {
            Err(cur.malformed(cur.pos(), "internal: aggregate operand read as a scalar"))
        }
    }
}

fn read_abbreviated<'a>(
    cur: &mut BitCursor<'a>,
    abbrev: &[AbbrevOp],
    ops: &mut Vec<u64>,
    blob: &mut Option<Blob<'a>>,
) -> Result<u32> {
    let Some((&code_op, rest)) = abbrev.split_first() else {
        return Err(cur.malformed(cur.pos(), "internal: empty abbreviation"));
    };
    let code_pos = cur.pos();
    let code = read_scalar(cur, code_op)?;
    let Ok(code) = u32::try_from(code) else {
        return Err(cur.malformed(code_pos, format!("record code {code} exceeds 32 bits")));
    };
    let mut it = rest.iter();
    while let Some(&op) = it.next() {
        match op {
            AbbrevOp::Array => {
                let elt = it.next().copied().unwrap_or(AbbrevOp::Array);
                read_array(cur, elt, ops)?;
            }
            AbbrevOp::Blob => *blob = Some(read_blob(cur)?),
            _ => ops.push(read_scalar(cur, op)?),
        }
    }
    Ok(code)
}

fn read_array(cur: &mut BitCursor<'_>, elt: AbbrevOp, ops: &mut Vec<u64>) -> Result<()> {
    let n = cur.read_vbr_u32(6, "array length")?;
    let Some(min_bits) = elt.min_element_bits() else {
        return Err(cur.malformed(cur.pos(), "internal: invalid array element"));
    };
    check_count(cur, n, min_bits, "array")?;
    match elt {
        AbbrevOp::Fixed(w) => cur.read_fixed_push(w, n as usize, ops),
        AbbrevOp::Vbr(w) => cur.read_vbr_push(w, n as usize, ops),
        _ => {
            let first = ops.len();
            cur.read_fixed_push(6, n as usize, ops)?;
            for v in ops.get_mut(first..).unwrap_or_default() {
                *v = u64::from(decode_char6(*v));
            }
            Ok(())
        }
    }
}

/// Reads a blob's length, alignment and bytes; returns the bytes and leaves the cursor after
/// the tail padding.
fn read_blob<'a>(cur: &mut BitCursor<'a>) -> Result<Blob<'a>> {
    let len = cur.read_vbr_u32(6, "blob length")?;
    cur.align32()?;
    let padded_bits = u64::from(len).div_ceil(4) * 32;
    if padded_bits > cur.remaining() {
        return Err(cur.truncated(padded_bits, &format!("a blob of {len} bytes")));
    }
    let start = cur.pos();
    let first = (start / 8) as usize;
    let bytes = cur
        .data()
        .get(first..first + len as usize)
        .ok_or_else(|| cur.truncated(padded_bits, "a blob"))?;
    cur.seek(start + padded_bits);
    Ok(Blob {
        byte_offset: cur.abs(start) / 8,
        bytes,
    })
}

fn skip_abbreviated(cur: &mut BitCursor<'_>, abbrev: &[AbbrevOp]) -> Result<()> {
    let mut it = abbrev.iter();
    while let Some(&op) = it.next() {
        match op {
            AbbrevOp::Literal(_) | AbbrevOp::Vbr(0) => {}
            AbbrevOp::Fixed(w) => cur.skip_bits(u64::from(w), "a fixed-width field")?,
            AbbrevOp::Vbr(w) => {
                cur.read_vbr(w)?;
            }
            AbbrevOp::Char6 => cur.skip_bits(6, "a Char6 field")?,
            AbbrevOp::Array => {
                let elt = it.next().copied().unwrap_or(AbbrevOp::Array);
                let n = cur.read_vbr_u32(6, "array length")?;
                let Some(min_bits) = elt.min_element_bits() else {
                    return Err(cur.malformed(cur.pos(), "internal: invalid array element"));
                };
                check_count(cur, n, min_bits, "array")?;
                if let AbbrevOp::Vbr(w) = elt {
                    for _ in 0..n {
                        cur.read_vbr(w)?;
                    }
                } else {
                    // Fixed and Char6 elements have exactly `min_bits` bits.
                    cur.skip_bits(u64::from(n) * min_bits, "array")?;
                }
            }
            AbbrevOp::Blob => {
                read_blob(cur)?;
            }
        }
    }
    Ok(())
}
