//! DEFINE_ABBREV: reading an abbreviation definition and registering it locally or for the
//! block id BLOCKINFO selected.

use super::{BLOCKINFO_BLOCK_ID, BitstreamReader, Entry, builtin_abbrev::*};
use crate::abbrev::{AbbrevOp, encoding, validate_abbrev};
use crate::bits::BitCursor;
use crate::error::{Error, ErrorKind, Result};
use crate::limits;

impl<'a> BitstreamReader<'a> {
    pub(super) fn define_abbrev(&mut self, start: u64) -> Result<Entry> {
        let Some(frame) = self.frames.last() else {
            return Err(self.usage("internal: DEFINE_ABBREV at the top level"));
        };
        let target = if frame.block_id == BLOCKINFO_BLOCK_ID {
            match frame.blockinfo_target {
                Some(t) => Some(t),
                None => {
                    return Err(self
                        .cur
                        .malformed(start, "DEFINE_ABBREV in BLOCKINFO before any SETBID"));
                }
            }
        } else {
            None
        };
        let count = match target {
            Some((_, list)) => self.store.blockinfo_list_len(list),
            None => self.store.count(&frame.scope),
        };
        if count >= limits::MAX_ABBREVS_PER_BLOCK {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                self.cur.abs(start),
                format!(
                    "more than {} abbreviations in one block",
                    limits::MAX_ABBREVS_PER_BLOCK
                ),
            ));
        }
        let scope = frame.scope;
        let in_blockinfo = target.is_some();
        let ops_start = self.store.ops_for(in_blockinfo).len();
        let parsed = read_abbrev_definition(&mut self.cur, self.store.ops_for(in_blockinfo));
        let checked = parsed.and_then(|()| {
            let ops = self.store.pending_ops(in_blockinfo, ops_start);
            validate_abbrev(ops).map_err(|m| self.cur.malformed(start, m))
        });
        if let Err(e) = checked {
            self.store.abandon(in_blockinfo, ops_start);
            return Err(e);
        }
        let index = match target {
            Some((_, list)) => self.store.commit_blockinfo(list, ops_start),
            None => self.store.commit_local(&scope, ops_start),
        };
        self.refresh_current();
        Ok(Entry::DefineAbbrev {
            abbrev_id: FIRST_APPLICATION_ABBREV + index as u32,
            blockinfo_target: target.map(|(id, _)| id),
            bit_offset: self.cur.abs(start),
        })
    }
}

fn read_abbrev_definition(cur: &mut BitCursor<'_>, out: &mut Vec<AbbrevOp>) -> Result<()> {
    let start = cur.pos();
    let n = cur.read_vbr_u32(5, "abbreviation operand count")?;
    if n as usize > limits::MAX_ABBREV_OPERANDS {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            cur.abs(start),
            format!(
                "abbreviation with {n} operands (limit {})",
                limits::MAX_ABBREV_OPERANDS
            ),
        ));
    }
    for _ in 0..n {
        if let Some(op) = cur.read_short_abbrev_op() {
            out.push(op);
            continue;
        }
        let op_pos = cur.pos();
        if cur.read_fixed(1)? == 1 {
            out.push(AbbrevOp::Literal(cur.read_vbr(8)?));
            continue;
        }
        let op = match cur.read_fixed(3)? {
            encoding::FIXED => {
                let w = cur.read_vbr(5)?;
                if w > 64 {
                    return Err(cur.malformed(op_pos, format!("Fixed width {w} exceeds 64")));
                }
                AbbrevOp::Fixed(w as u32)
            }
            encoding::VBR => {
                let w = cur.read_vbr(5)?;
                if w == 1 || w > 32 {
                    return Err(cur.malformed(op_pos, format!("VBR width {w} is not 0 or 2..=32")));
                }
                AbbrevOp::Vbr(w as u32)
            }
            encoding::ARRAY => AbbrevOp::Array,
            encoding::CHAR6 => AbbrevOp::Char6,
            encoding::BLOB => AbbrevOp::Blob,
            e => {
                return Err(cur.malformed(op_pos, format!("unknown abbreviation encoding {e}")));
            }
        };
        out.push(op);
    }
    Ok(())
}
