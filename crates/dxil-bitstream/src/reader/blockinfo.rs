//! BLOCKINFO: its records select block ids, its abbreviations apply to later blocks, and a
//! thread-local memo spares decoding the same block again.

use std::cell::RefCell;
use std::sync::Arc;

use super::{BLOCKINFO_BLOCK_ID, BitstreamReader, Entry, Pending, PendingBlock, blockinfo_code};
use crate::abbrev::BlockinfoTables;
use crate::error::{Error, ErrorKind, Result};

/// The last few distinct BLOCKINFO blocks this thread skipped as the first of their stream,
/// and the abbreviations they registered. DXC writes one of a few BLOCKINFO blocks (the
/// constants' type field width follows the size of the type table), so a reader of many
/// modules decodes each once; the tables are shared, not copied (a later
/// change in either reader copies them first). What a first BLOCKINFO block registers depends
/// only on its bits, its abbreviation width and its nesting depth (the depth limit applies to
/// blocks nested in it), which are the key.
struct BlockinfoMemo {
    abbrev_width: u32,
    depth: usize,
    bytes: Vec<u8>,
    tables: Arc<BlockinfoTables>,
}

impl BlockinfoMemo {
    /// Larger blocks are not kept (DXC's is about 150 bytes): the memo must not hold on to
    /// large inputs.
    const MAX_BYTES: usize = 4096;
    /// Blocks remembered, most recently used first.
    const ENTRIES: usize = 8;
}

thread_local! {
    static BLOCKINFO_MEMO: RefCell<Vec<BlockinfoMemo>> = const { RefCell::new(Vec::new()) };
}

impl<'a> BitstreamReader<'a> {
    /// Reads a BLOCKINFO block to its end for its side effects, or takes what an identical
    /// block registered before on this thread (see [`BlockinfoMemo`]).
    pub(super) fn drain_blockinfo(&mut self, h: PendingBlock) -> Result<()> {
        if !self.store.blockinfo_is_empty() {
            // What a second BLOCKINFO block does depends on the first: no memo.
            return self.drain_blockinfo_uncached(h);
        }
        // The contents are whole words (the length word counts them), so bytes compare.
        let bytes = self
            .cur
            .data()
            .get((h.content / 8) as usize..(h.end / 8) as usize)
            .unwrap_or(&[]);
        let depth = self.frames.len();
        let memo = BLOCKINFO_MEMO
            .try_with(|m| {
                let mut m = m.borrow_mut();
                let i = m.iter().position(|m| {
                    m.abbrev_width == h.abbrev_width && m.depth == depth && m.bytes == bytes
                })?;
                // Most recently used first.
                m.get_mut(..=i)?.rotate_right(1);
                m.first().map(|m| Arc::clone(&m.tables))
            })
            .ok()
            .flatten();
        if let Some(tables) = memo {
            self.store.set_blockinfo_tables(tables);
            self.cur.seek(h.end);
            return Ok(());
        }
        self.drain_blockinfo_uncached(h)?;
        if bytes.len() <= BlockinfoMemo::MAX_BYTES {
            let memo = BlockinfoMemo {
                abbrev_width: h.abbrev_width,
                depth,
                bytes: bytes.to_vec(),
                tables: self.store.blockinfo_tables(),
            };
            let _ = BLOCKINFO_MEMO.try_with(|m| {
                let mut m = m.borrow_mut();
                m.truncate(BlockinfoMemo::ENTRIES - 1);
                m.insert(0, memo);
            });
        }
        Ok(())
    }

    /// Reads a BLOCKINFO block to its end for its side effects. Iterative: nested BLOCKINFO
    /// blocks are entered, other nested blocks jumped over.
    fn drain_blockinfo_uncached(&mut self, h: PendingBlock) -> Result<()> {
        // What the caller sees as the last entry stays the BLOCKINFO block itself.
        let entry = self.entry_start;
        let base = self.frames.len();
        self.push_frame(h)?;
        while self.frames.len() > base {
            if let Entry::SubBlock { block_id, .. } = self.next_inner()? {
                let Pending::Block(inner) = std::mem::replace(&mut self.pending, Pending::None)
                else {
                    return Err(self.usage("internal: sub-block without pending header"));
                };
                if block_id == BLOCKINFO_BLOCK_ID {
                    self.push_frame(inner)?;
                } else {
                    self.cur.seek(inner.end);
                }
            }
        }
        self.entry_start = entry;
        Ok(())
    }

    pub(super) fn blockinfo_record(&mut self, code: u32, ops: &[u64], start: u64) -> Result<()> {
        let at = self.cur.abs(start);
        match code {
            blockinfo_code::SETBID => {
                let Some(&id) = ops.first() else {
                    return Err(Error::new(
                        ErrorKind::Malformed,
                        at,
                        "SETBID without a block id",
                    ));
                };
                let Ok(id) = u32::try_from(id) else {
                    return Err(Error::new(
                        ErrorKind::Malformed,
                        at,
                        format!("SETBID block id {id} exceeds 32 bits"),
                    ));
                };
                let list = self.store.blockinfo_list_for(id);
                if let Some(frame) = self.frames.last_mut() {
                    frame.blockinfo_target = Some((id, list));
                }
            }
            blockinfo_code::BLOCKNAME | blockinfo_code::SETRECORDNAME
                if self
                    .frames
                    .last()
                    .and_then(|f| f.blockinfo_target)
                    .is_none() =>
            {
                return Err(Error::new(
                    ErrorKind::Malformed,
                    at,
                    format!("BLOCKINFO record {code} before any SETBID"),
                ));
            }
            _ => {}
        }
        Ok(())
    }
}
