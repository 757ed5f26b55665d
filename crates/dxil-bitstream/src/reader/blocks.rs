//! Blocks: the top level, sub-block headers, entering, skipping and leaving a block.

use super::{
    BLOCKINFO_BLOCK_ID, BitstreamReader, Entry, Frame, Pending, PendingBlock,
    TOP_LEVEL_ABBREV_WIDTH, builtin_abbrev::*,
};
use crate::error::{Error, ErrorKind, Result};
use crate::limits;

impl<'a> BitstreamReader<'a> {
    pub(super) fn next_top_level(&mut self) -> Result<Entry> {
        let start = self.cur.pos();
        self.entry_start = start;
        if self.cur.remaining() == 0 {
            return Ok(Entry::EndOfStream);
        }
        if self.cur.read_fixed(TOP_LEVEL_ABBREV_WIDTH)? == u64::from(ENTER_SUBBLOCK) {
            return self.read_block_header(start);
        }
        // The top level is always 32-bit aligned here, so the rest is whole bytes.
        let rest = self.cur.data().get((start / 8) as usize..).unwrap_or(&[]);
        self.cur.seek(self.cur.end());
        Ok(Entry::TrailingData {
            bit_offset: self.cur.abs(start),
            byte_len: rest.len() as u64,
            all_zero: rest.iter().all(|&b| b == 0),
        })
    }

    pub(super) fn read_block_header(&mut self, start: u64) -> Result<Entry> {
        let block_id = self.cur.read_vbr_u32(8, "block id")?;
        let width_pos = self.cur.pos();
        let abbrev_width = self.cur.read_vbr_u32(4, "abbreviation width")?;
        if abbrev_width == 0 || abbrev_width > 32 {
            return Err(self.cur.malformed(
                width_pos,
                format!(
                    "block {block_id} declares abbreviation width {abbrev_width}; must be 1..=32"
                ),
            ));
        }
        self.cur.align32()?;
        let length_words = self.cur.read_fixed(32)? as u32;
        let end = self.cur.pos() + u64::from(length_words) * 32;
        if end > self.cur.end() {
            return Err(Error::new(
                ErrorKind::Truncated,
                self.cur.abs(self.cur.pos() - 32),
                format!(
                    "block {block_id} declares {length_words} words but only {} remain",
                    self.cur.remaining() / 32
                ),
            ));
        }
        self.pending = Pending::Block(PendingBlock {
            block_id,
            abbrev_width,
            start,
            content: self.cur.pos(),
            end,
        });
        Ok(Entry::SubBlock {
            block_id,
            abbrev_width,
            length_words,
            bit_offset: self.cur.abs(start),
        })
    }

    pub(super) fn push_frame(&mut self, h: PendingBlock) -> Result<()> {
        if self.frames.len() >= limits::MAX_NESTING_DEPTH {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                self.cur.abs(h.start),
                format!(
                    "block {} would nest deeper than {} blocks",
                    h.block_id,
                    limits::MAX_NESTING_DEPTH
                ),
            ));
        }
        let scope = self.store.open_scope(h.block_id);
        self.frames.push(Frame {
            block_id: h.block_id,
            abbrev_width: h.abbrev_width,
            end: h.end,
            scope,
            blockinfo_target: None,
        });
        self.refresh_current();
        Ok(())
    }

    pub(super) fn refresh_current(&mut self) {
        match self.frames.last() {
            Some(f) => {
                self.width = f.abbrev_width;
                self.scope = f.scope;
                self.in_blockinfo = f.block_id == BLOCKINFO_BLOCK_ID;
                let count = self.store.count(&f.scope);
                self.abbrev_limit = FIRST_APPLICATION_ABBREV
                    .saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
            }
            None => {
                self.width = TOP_LEVEL_ABBREV_WIDTH;
                self.abbrev_limit = FIRST_APPLICATION_ABBREV;
                self.in_blockinfo = false;
            }
        }
    }

    pub(super) fn skip_pending_block(&mut self, h: PendingBlock) -> Result<()> {
        if h.block_id == BLOCKINFO_BLOCK_ID {
            return self.drain_blockinfo(h);
        }
        self.cur.seek(h.end);
        Ok(())
    }

    pub(super) fn end_block(&mut self, start: u64) -> Result<Entry> {
        self.cur.align32()?;
        let (block_id, end) = match self.frames.last() {
            Some(f) => (f.block_id, f.end),
            None => return Err(self.usage("internal: END_BLOCK at the top level")),
        };
        if self.cur.pos() != end {
            return Err(self.cur.malformed(
                start,
                format!(
                    "block {block_id} ends at byte {:#x} but its length word says byte {:#x}",
                    self.cur.abs(self.cur.pos()) / 8,
                    self.cur.abs(end) / 8
                ),
            ));
        }
        if let Some(frame) = self.frames.pop() {
            self.store.close_scope(&frame.scope);
        }
        self.refresh_current();
        Ok(Entry::EndBlock {
            block_id,
            bit_offset: self.cur.abs(start),
        })
    }
}
