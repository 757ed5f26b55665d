//! The pull reader: a cursor over blocks, abbreviation definitions and records.
//!
//! This file holds the public types and the per-entry loop ([`BitstreamReader::next`],
//! [`BitstreamReader::advance`]); what an entry leads to lives beside it: `blocks` (block
//! headers, entering, skipping and leaving), `abbrevs` (DEFINE_ABBREV), `blockinfo` (BLOCKINFO
//! records and the memo of decoded BLOCKINFO blocks) and `records` (decoding and skipping record
//! bodies). The hot record path stays in one module (`records`) so that its helpers inline.

use std::cell::Cell;

use crate::abbrev::{AbbrevOp, AbbrevStore, Scope, Span};
use crate::bits::BitCursor;
use crate::error::{Error, ErrorKind, Result};

mod abbrevs;
mod blockinfo;
mod blocks;
mod records;
#[cfg(test)]
mod tests;

/// Block id of BLOCKINFO, the block that registers abbreviations for other block ids.
pub const BLOCKINFO_BLOCK_ID: u32 = 0;

/// The built-in abbreviation ids every block has.
pub mod builtin_abbrev {
    /// Ends the current block; followed by 32-bit alignment.
    pub const END_BLOCK: u32 = 0;
    /// Starts a nested block: `vbr8 id, vbr4 abbrev width, align32, u32 length in words`.
    pub const ENTER_SUBBLOCK: u32 = 1;
    /// Defines an abbreviation local to the current block (or, inside BLOCKINFO, for the
    /// block id selected by SETBID).
    pub const DEFINE_ABBREV: u32 = 2;
    /// A record with every field `vbr6`: code, operand count, operands.
    pub const UNABBREV_RECORD: u32 = 3;
    /// The first id of an application-defined abbreviation.
    pub const FIRST_APPLICATION_ABBREV: u32 = 4;
}
use builtin_abbrev::*;

/// Record codes with a meaning inside BLOCKINFO.
pub mod blockinfo_code {
    /// `[block id]`: following DEFINE_ABBREVs register abbreviations for that block id.
    pub const SETBID: u32 = 1;
    /// `[name chars...]`: names the selected block id.
    pub const BLOCKNAME: u32 = 2;
    /// `[code, name chars...]`: names a record code of the selected block id.
    pub const SETRECORDNAME: u32 = 3;
}

/// The abbreviation-id width at the top level of a stream.
pub const TOP_LEVEL_ABBREV_WIDTH: u32 = 2;

/// `'B' 'C' 0xC0 0xDE`: LLVM IR bitcode.
pub const BITCODE_MAGIC: [u8; 4] = [0x42, 0x43, 0xC0, 0xDE];

/// Magic of the optional wrapper header (`0x0B17C0DE`, little-endian, then version, offset,
/// size and cpu type as `u32`s).
pub const WRAPPER_MAGIC: u32 = 0x0B17_C0DE;

/// What [`BitstreamReader::next`] found. Every `bit_offset` is absolute and points at the
/// entry's abbreviation id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A nested block's header has been read. Call [`BitstreamReader::enter_block`] to read its
    /// contents or [`BitstreamReader::skip_block`] to jump over it; calling `next` again skips it.
    SubBlock {
        block_id: u32,
        abbrev_width: u32,
        /// The block's length word: the number of 32-bit words after it, up to and including
        /// the END_BLOCK padding. Checked against the data on the header and on END_BLOCK.
        length_words: u32,
        bit_offset: u64,
    },
    /// A record's abbreviation id has been read. Call [`BitstreamReader::read_record`] to decode
    /// it or [`BitstreamReader::skip_record`]; calling `next` again skips it.
    Record { abbrev_id: u32, bit_offset: u64 },
    /// An abbreviation was defined and registered. `blockinfo_target` is `None` for a definition
    /// local to the current block (look it up with [`BitstreamReader::abbrev`]) and the selected
    /// block id for a definition inside BLOCKINFO (see [`BitstreamReader::blockinfo_abbrev`]).
    /// `abbrev_id` is the id it has in blocks of that id.
    DefineAbbrev {
        abbrev_id: u32,
        blockinfo_target: Option<u32>,
        bit_offset: u64,
    },
    /// The current block ended (after its realignment); the reader is back in its parent.
    EndBlock { block_id: u32, bit_offset: u64 },
    /// At the top level, where only blocks may appear, the rest of the stream is not a block.
    /// DXC's reader rejects any such bits ("Unused bits in buffer"); `all_zero` tells zero
    /// padding from other junk. The next call returns [`Entry::EndOfStream`].
    TrailingData {
        bit_offset: u64,
        byte_len: u64,
        all_zero: bool,
    },
    /// The data ended at the top level, after a complete block.
    EndOfStream,
}

/// What [`BitstreamReader::advance`] found: a record, already decoded, or any other entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// A record; its operands are in the vector passed to `advance`.
    Record(Record<'a>),
    /// Anything but a record, exactly as [`BitstreamReader::next`] returns it.
    Entry(Entry),
}

/// A decoded record. Operands (without the code) are in the caller's vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    pub code: u32,
    /// [`builtin_abbrev::UNABBREV_RECORD`] or an application abbreviation id.
    pub abbrev_id: u32,
    /// Absolute bit offset of the record's abbreviation id.
    pub bit_offset: u64,
    /// The blob operand, for abbreviations that end in `Blob`.
    pub blob: Option<Blob<'a>>,
}

/// A blob operand: bytes borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blob<'a> {
    /// Absolute byte offset of the first blob byte.
    pub byte_offset: u64,
    pub bytes: &'a [u8],
}

#[derive(Debug, Clone, Copy)]
struct PendingBlock {
    block_id: u32,
    abbrev_width: u32,
    start: u64,
    /// Where the contents begin (after the length word) and end (after END_BLOCK).
    content: u64,
    end: u64,
}

#[derive(Debug, Clone, Copy)]
enum Pending {
    None,
    Record { abbrev_id: u32, start: u64 },
    Block(PendingBlock),
}

#[derive(Debug, Clone)]
struct Frame {
    block_id: u32,
    abbrev_width: u32,
    /// Relative bit position where the block must end (after END_BLOCK's alignment).
    end: u64,
    scope: Scope,
    /// Inside BLOCKINFO: the block id SETBID selected and its list in the store.
    blockinfo_target: Option<(u32, usize)>,
}

thread_local! {
    static BUFFERS: Cell<Buffers> = Cell::new(Buffers::default());
}

/// A reader's growable buffers, handed from a dropped reader to the next one on the thread,
/// so that reading many streams does not allocate them again for each.
#[derive(Default)]
struct Buffers {
    frames: Vec<Frame>,
    local: Vec<Span>,
    local_ops: Vec<AbbrevOp>,
    scratch: Vec<u64>,
}

impl Buffers {
    /// Buffers that grew beyond this many elements are not kept (hostile input can make them
    /// large; the thread must not keep that memory).
    const KEEP: usize = 1 << 12;

    fn keep<T>(mut v: Vec<T>) -> Vec<T> {
        v.clear();
        if v.capacity() > Self::KEEP {
            Vec::new()
        } else {
            v
        }
    }
}

/// A pull reader over one LLVM bitstream.
///
/// ```
/// use dxil_bitstream::{BitstreamReader, BitstreamWriter, Entry};
///
/// let mut w = BitstreamWriter::new();
/// w.enter_subblock(8, 3)?;
/// w.emit_record_unabbrev(1, &[2])?;
/// w.exit_block()?;
/// let bytes = w.finish()?;
///
/// let mut r = BitstreamReader::new(&bytes, 0)?;
/// let mut ops = Vec::new();
/// loop {
///     match r.next()? {
///         Entry::SubBlock { .. } => r.enter_block()?,
///         Entry::Record { .. } => {
///             let rec = r.read_record(&mut ops)?;
///             assert_eq!((rec.code, ops.as_slice()), (1, &[2u64][..]));
///         }
///         Entry::EndOfStream => break,
///         _ => {}
///     }
/// }
/// # Ok::<(), dxil_bitstream::Error>(())
/// ```
///
/// After any error the reader is stopped: further calls return an error of kind
/// [`ErrorKind::Usage`].
#[derive(Debug, Clone)]
pub struct BitstreamReader<'a> {
    cur: BitCursor<'a>,
    frames: Vec<Frame>,
    /// Copies from the innermost frame, kept current on entry, exit and definition, so the
    /// per-record path touches no frame.
    width: u32,
    abbrev_limit: u32,
    scope: Scope,
    in_blockinfo: bool,
    store: AbbrevStore,
    pending: Pending,
    /// Relative position of the last entry's abbreviation id ([`Self::entry_bit_offset`]).
    entry_start: u64,
    scratch: Vec<u64>,
    failed: bool,
}

/// Removes the optional wrapper header; returns the bitcode and its absolute byte offset.
fn strip_wrapper(bytes: &[u8], base_offset: u64) -> Result<(&[u8], u64)> {
    let word = |i: usize| {
        bytes
            .get(i * 4..i * 4 + 4)
            .and_then(|s| s.first_chunk::<4>())
            .map(|w| u32::from_le_bytes(*w))
    };
    if word(0) != Some(WRAPPER_MAGIC) {
        return Ok((bytes, base_offset));
    }
    let (Some(offset), Some(size)) = (word(2), word(3)) else {
        return Err(Error::new(
            ErrorKind::Truncated,
            base_offset.saturating_mul(8),
            format!(
                "wrapper header needs 20 bytes but only {} are present",
                bytes.len()
            ),
        ));
    };
    let (offset, size) = (offset as usize, size as usize);
    match offset
        .checked_add(size)
        .and_then(|end| bytes.get(offset..end))
    {
        Some(inner) => Ok((inner, base_offset.saturating_add(offset as u64))),
        None => Err(Error::new(
            ErrorKind::Truncated,
            base_offset.saturating_mul(8),
            format!(
                "wrapper header places {size} bytes of bitcode at offset {offset}, past the end of the {} input bytes",
                bytes.len()
            ),
        )),
    }
}

impl<'a> BitstreamReader<'a> {
    /// Starts reading `bytes`, which must begin with `BC 0xC0DE` or with the wrapper header.
    /// `base_offset` is the byte offset of `bytes` in the enclosing file; every position this
    /// reader reports adds it.
    pub fn new(bytes: &'a [u8], base_offset: u64) -> Result<Self> {
        let (bytes, base) = strip_wrapper(bytes, base_offset)?;
        let base_bit = base.saturating_mul(8);
        match bytes.first_chunk::<4>() {
            None => {
                return Err(Error::new(
                    ErrorKind::Truncated,
                    base_bit,
                    format!(
                        "bitcode magic needs 4 bytes but only {} are present",
                        bytes.len()
                    ),
                ));
            }
            Some(m) if *m != BITCODE_MAGIC => {
                return Err(Error::new(
                    ErrorKind::Malformed,
                    base_bit,
                    format!("not LLVM bitcode: magic is {m:02X?}, expected [42, 43, C0, DE]"),
                ));
            }
            Some(_) => {}
        }
        if bytes.len() % 4 != 0 {
            return Err(Error::new(
                ErrorKind::Malformed,
                base_bit,
                format!("bitcode size {} is not a multiple of 4 bytes", bytes.len()),
            ));
        }
        let mut cur = BitCursor::new(bytes, base_bit);
        cur.seek(32);
        let b = BUFFERS.try_with(Cell::take).unwrap_or_default();
        let mut frames = b.frames;
        frames.clear();
        if frames.capacity() == 0 {
            frames.reserve(8);
        }
        Ok(BitstreamReader {
            cur,
            frames,
            width: TOP_LEVEL_ABBREV_WIDTH,
            abbrev_limit: FIRST_APPLICATION_ABBREV,
            scope: Scope::TOP_LEVEL,
            in_blockinfo: false,
            store: AbbrevStore::with_buffers(b.local, b.local_ops),
            pending: Pending::None,
            entry_start: 32,
            scratch: b.scratch,
            failed: false,
        })
    }

    /// Absolute bit position of the next unread bit.
    pub fn bit_position(&self) -> u64 {
        self.cur.abs(self.cur.pos())
    }

    /// Ends reading: the reader's buffers go to the next reader created on this thread, which
    /// then does not allocate them (for callers that read many streams).
    pub fn recycle(mut self) {
        let (local, local_ops) = self.store.take_buffers();
        let b = Buffers {
            frames: Buffers::keep(std::mem::take(&mut self.frames)),
            local: Buffers::keep(local),
            local_ops: Buffers::keep(local_ops),
            scratch: Buffers::keep(std::mem::take(&mut self.scratch)),
        };
        let _ = BUFFERS.try_with(|c| c.set(b));
    }

    /// Absolute bit offset of the last entry [`Self::next`] or [`Self::advance`] returned (its
    /// abbreviation id), or of the first block before any: what callers report errors at.
    #[inline]
    pub fn entry_bit_offset(&self) -> u64 {
        self.cur.abs(self.entry_start)
    }

    /// Absolute byte offset of the bitcode magic (after the wrapper header, if any).
    pub fn bitcode_byte_offset(&self) -> u64 {
        self.cur.abs(0) / 8
    }

    /// The bitcode bytes this reader reads, from the magic on.
    pub fn bitcode(&self) -> &'a [u8] {
        self.cur.data()
    }

    /// Id of the innermost open block, `None` at the top level.
    pub fn block_id(&self) -> Option<u32> {
        self.frames.last().map(|f| f.block_id)
    }

    /// Number of open blocks (0 at the top level).
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// Ids of the open blocks, outermost first.
    pub fn block_stack(&self) -> impl Iterator<Item = u32> + '_ {
        self.frames.iter().map(|f| f.block_id)
    }

    /// Abbreviation-id width of the innermost open block (2 at the top level).
    pub fn abbrev_width(&self) -> u32 {
        self.frames
            .last()
            .map_or(TOP_LEVEL_ABBREV_WIDTH, |f| f.abbrev_width)
    }

    /// Number of application abbreviations usable in the current block.
    pub fn abbrev_count(&self) -> usize {
        self.frames.last().map_or(0, |f| self.store.count(&f.scope))
    }

    /// Operands of application abbreviation `abbrev_id` in the current block.
    pub fn abbrev(&self, abbrev_id: u32) -> Option<&[AbbrevOp]> {
        let frame = self.frames.last()?;
        let index = abbrev_id.checked_sub(FIRST_APPLICATION_ABBREV)?;
        self.store.get(&frame.scope, index as usize)
    }

    /// Operands of the abbreviation that BLOCKINFO registered as `abbrev_id` for `block_id`.
    pub fn blockinfo_abbrev(&self, block_id: u32, abbrev_id: u32) -> Option<&[AbbrevOp]> {
        let index = abbrev_id.checked_sub(FIRST_APPLICATION_ABBREV)?;
        self.store.blockinfo_get(block_id, index as usize)
    }

    #[cold]
    fn usage(&self, message: &str) -> Error {
        Error::new(ErrorKind::Usage, self.bit_position(), message)
    }

    /// Marks the reader stopped and adds the block context.
    #[cold]
    fn fail(&mut self, e: Error) -> Error {
        self.failed = true;
        self.pending = Pending::None;
        e.in_block(self.block_id())
    }

    #[inline(always)]
    fn check_live(&self) -> Result<()> {
        if self.failed {
            return Err(self.usage("the reader stopped at an earlier error"));
        }
        Ok(())
    }

    /// Reads the next entry. A record or block returned by the previous call and neither read
    /// nor entered is skipped first.
    // Not an `Iterator`: between calls the caller enters, skips or decodes what was returned.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Result<Entry> {
        self.check_live()?;
        match self.next_inner() {
            Ok(e) => Ok(e),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Like [`Self::next`], but a record is decoded at once into `ops` (cleared first), as
    /// [`Self::read_record`] would: the one call per record that readers of whole streams want.
    /// Inlined into the caller's loop (the decoding itself is out of line), so that the
    /// [`Step`] never goes through memory.
    #[inline(always)]
    pub fn advance(&mut self, ops: &mut Vec<u64>) -> Result<Step<'a>> {
        self.check_live()?;
        match self.advance_inner(ops) {
            Ok(s) => Ok(s),
            Err(e) => Err(self.fail(e)),
        }
    }

    #[inline(always)]
    fn advance_inner(&mut self, ops: &mut Vec<u64>) -> Result<Step<'a>> {
        if !matches!(self.pending, Pending::None) {
            self.finish_pending()?;
        }
        if self.frames.is_empty() {
            return self.next_top_level().map(Step::Entry);
        }
        let start = self.cur.pos();
        self.entry_start = start;
        let id = match self.cur.read_fixed(self.width) {
            Ok(id) => id as u32,
            Err(e) => return Err(self.ended_inside_block(e)),
        };
        if id < UNABBREV_RECORD {
            return self.builtin_entry(id, start).map(Step::Entry);
        }
        if id >= self.abbrev_limit {
            return Err(self.undefined_abbrev(id, start));
        }
        ops.clear();
        let mut blob = None;
        let code = self.read_record_body(id, start, ops, &mut blob)?;
        Ok(Step::Record(Record {
            code,
            abbrev_id: id,
            bit_offset: self.cur.abs(start),
            blob,
        }))
    }

    /// Enters the block whose [`Entry::SubBlock`] was just returned.
    pub fn enter_block(&mut self) -> Result<()> {
        self.check_live()?;
        let Pending::Block(h) = self.pending else {
            return Err(self.usage("enter_block called without a pending sub-block"));
        };
        self.pending = Pending::None;
        self.push_frame(h).map_err(|e| self.fail(e))
    }

    /// The contents of the block whose [`Entry::SubBlock`] was just returned (whole words,
    /// from after its length word up to and including END_BLOCK's padding), for callers that
    /// recognise blocks they have read before. `None` when no sub-block is pending.
    pub fn pending_block_bytes(&self) -> Option<&'a [u8]> {
        let Pending::Block(h) = self.pending else {
            return None;
        };
        self.cur
            .data()
            .get((h.content / 8) as usize..(h.end / 8) as usize)
    }

    /// Skips the block whose [`Entry::SubBlock`] was just returned, using its length word.
    /// A BLOCKINFO block is read instead, so that its abbreviations still apply.
    pub fn skip_block(&mut self) -> Result<()> {
        self.check_live()?;
        let Pending::Block(h) = self.pending else {
            return Err(self.usage("skip_block called without a pending sub-block"));
        };
        self.pending = Pending::None;
        self.skip_pending_block(h).map_err(|e| self.fail(e))
    }

    /// Decodes the record whose [`Entry::Record`] was just returned into `ops` (cleared first).
    /// `Char6` and array elements come out as plain operands; a blob is returned as a slice.
    #[inline]
    pub fn read_record(&mut self, ops: &mut Vec<u64>) -> Result<Record<'a>> {
        // A stopped reader has nothing pending, so this also refuses after an error.
        let Pending::Record { abbrev_id, start } = self.pending else {
            return Err(self.usage("read_record called without a pending record"));
        };
        self.pending = Pending::None;
        ops.clear();
        let mut blob = None;
        match self.read_record_body(abbrev_id, start, ops, &mut blob) {
            Ok(code) => Ok(Record {
                code,
                abbrev_id,
                bit_offset: self.cur.abs(start),
                blob,
            }),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Skips the record whose [`Entry::Record`] was just returned.
    pub fn skip_record(&mut self) -> Result<()> {
        self.check_live()?;
        let Pending::Record { abbrev_id, start } = self.pending else {
            return Err(self.usage("skip_record called without a pending record"));
        };
        self.pending = Pending::None;
        self.skip_record_body(abbrev_id, start)
            .map_err(|e| self.fail(e))
    }

    #[inline(always)]
    fn next_inner(&mut self) -> Result<Entry> {
        if !matches!(self.pending, Pending::None) {
            self.finish_pending()?;
        }
        if self.frames.is_empty() {
            return self.next_top_level();
        }
        let start = self.cur.pos();
        self.entry_start = start;
        // Widths are at most 32, so the id fits.
        let id = match self.cur.read_fixed(self.width) {
            Ok(id) => id as u32,
            Err(e) => return Err(self.ended_inside_block(e)),
        };
        if id < UNABBREV_RECORD {
            return self.builtin_entry(id, start);
        }
        if id >= self.abbrev_limit {
            return Err(self.undefined_abbrev(id, start));
        }
        self.pending = Pending::Record {
            abbrev_id: id,
            start,
        };
        Ok(Entry::Record {
            abbrev_id: id,
            bit_offset: self.cur.abs(start),
        })
    }

    /// Skips what the caller neither read nor entered.
    #[inline(never)]
    fn finish_pending(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::None => Ok(()),
            Pending::Record { abbrev_id, start } => self.skip_record_body(abbrev_id, start),
            Pending::Block(h) => self.skip_pending_block(h),
        }
    }

    #[cold]
    fn ended_inside_block(&self, e: Error) -> Error {
        match self.frames.last() {
            Some(f) if self.cur.remaining() == 0 => Error::new(
                ErrorKind::Truncated,
                self.bit_position(),
                format!("the data ends inside block {}", f.block_id),
            ),
            _ => e,
        }
    }

    #[cold]
    fn undefined_abbrev(&self, id: u32, start: u64) -> Error {
        let (block_id, count) = self
            .frames
            .last()
            .map_or((0, 0), |f| (f.block_id, self.store.count(&f.scope)));
        self.cur.malformed(
            start,
            format!(
                "abbreviation id {id} is not defined (block {block_id} has ids 4..{})",
                count + 4
            ),
        )
    }

    /// END_BLOCK, ENTER_SUBBLOCK and DEFINE_ABBREV: rare next to records, kept out of line.
    #[inline(never)]
    fn builtin_entry(&mut self, id: u32, start: u64) -> Result<Entry> {
        match id {
            END_BLOCK => self.end_block(start),
            ENTER_SUBBLOCK => self.read_block_header(start),
            _ => self.define_abbrev(start),
        }
    }
}
