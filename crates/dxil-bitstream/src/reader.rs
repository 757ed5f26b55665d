//! The pull reader: a cursor over blocks, abbreviation definitions and records.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crate::abbrev::{
    AbbrevOp, AbbrevStore, BlockinfoTables, Scope, Span, decode_char6, encoding, validate_abbrev,
};
use crate::bits::BitCursor;
use crate::error::{Error, ErrorKind, Result};
use crate::limits;

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

    fn next_top_level(&mut self) -> Result<Entry> {
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

    fn read_block_header(&mut self, start: u64) -> Result<Entry> {
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

    fn push_frame(&mut self, h: PendingBlock) -> Result<()> {
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

    fn refresh_current(&mut self) {
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

    fn skip_pending_block(&mut self, h: PendingBlock) -> Result<()> {
        if h.block_id == BLOCKINFO_BLOCK_ID {
            return self.drain_blockinfo(h);
        }
        self.cur.seek(h.end);
        Ok(())
    }

    /// Reads a BLOCKINFO block to its end for its side effects, or takes what an identical
    /// block registered before on this thread (see [`BlockinfoMemo`]).
    fn drain_blockinfo(&mut self, h: PendingBlock) -> Result<()> {
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

    fn end_block(&mut self, start: u64) -> Result<Entry> {
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

    fn define_abbrev(&mut self, start: u64) -> Result<Entry> {
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

    /// Decodes a record's code and operands; a blob operand goes to `blob`. The decoders
    /// return just the code, so that it comes back in a register.
    #[inline(always)]
    fn read_record_body(
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

    fn skip_record_body(&mut self, abbrev_id: u32, start: u64) -> Result<()> {
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

    fn blockinfo_record(&mut self, code: u32, ops: &[u64], start: u64) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::BitstreamWriter;

    fn write(f: impl FnOnce(&mut BitstreamWriter)) -> Vec<u8> {
        let mut w = BitstreamWriter::new();
        f(&mut w);
        w.finish().unwrap()
    }

    /// Reads everything, entering every block; returns the records as (code, abbrev id, ops,
    /// blob) and the final error, if any.
    /// (code, abbrev id, operands, blob) of one record.
    type Rec = (u32, u32, Vec<u64>, Option<Vec<u8>>);

    fn records(bytes: &[u8]) -> (Vec<Rec>, Option<Error>) {
        let mut out = Vec::new();
        let mut r = match BitstreamReader::new(bytes, 0) {
            Ok(r) => r,
            Err(e) => return (out, Some(e)),
        };
        let mut ops = Vec::new();
        loop {
            let step = match r.next() {
                Ok(Entry::SubBlock { .. }) => r.enter_block(),
                Ok(Entry::Record { .. }) => r.read_record(&mut ops).map(|rec| {
                    out.push((
                        rec.code,
                        rec.abbrev_id,
                        ops.clone(),
                        rec.blob.map(|b| b.bytes.to_vec()),
                    ))
                }),
                Ok(Entry::EndOfStream) => return (out, None),
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = step {
                return (out, Some(e));
            }
        }
    }

    #[test]
    fn every_encoding_reads_back() {
        use AbbrevOp::*;
        let chars: Vec<u64> = b"azAZ09._".iter().map(|&c| u64::from(c)).collect();
        let bytes = write(|w| {
            w.enter_subblock(8, 5).unwrap();
            let scalars = w
                .define_abbrev(&[
                    Literal(7),
                    Fixed(0),
                    Vbr(0),
                    Fixed(1),
                    Fixed(64),
                    Vbr(2),
                    Vbr(32),
                    Char6,
                    Literal(u64::MAX),
                ])
                .unwrap();
            let fixed_code = w.define_abbrev(&[Fixed(32), Array, Fixed(8)]).unwrap();
            let char6 = w.define_abbrev(&[Char6, Array, Char6]).unwrap();
            let vbr_arr = w.define_abbrev(&[Vbr(6), Array, Vbr(6)]).unwrap();
            let blob = w.define_abbrev(&[Literal(3), Fixed(3), Blob]).unwrap();
            w.emit_record(
                scalars,
                7,
                &[
                    0,
                    0,
                    1,
                    u64::MAX,
                    u64::MAX,
                    u64::MAX,
                    u64::from(b'_'),
                    u64::MAX,
                ],
            )
            .unwrap();
            w.emit_record(
                scalars,
                7,
                &[0, 0, 0, 0, 0, 1 << 63, u64::from(b'.'), u64::MAX],
            )
            .unwrap();
            w.emit_record(fixed_code, u32::MAX, &[0, 255, 128]).unwrap();
            w.emit_record(char6, u32::from(b'Z'), &chars).unwrap();
            w.emit_record(vbr_arr, 1000, &[31, 32, 1 << 40, u64::MAX])
                .unwrap();
            w.emit_record(vbr_arr, 0, &[]).unwrap();
            for len in 0..6 {
                w.emit_record_with_blob(blob, 3, &[5], &b"hello"[..len])
                    .unwrap();
            }
            w.emit_record_unabbrev(u32::MAX, &[u64::MAX, 0, 63])
                .unwrap();
            w.exit_block().unwrap();
        });
        let (recs, err) = records(&bytes);
        assert!(err.is_none(), "{err:?}");
        let mut expect = vec![
            (
                7,
                4,
                vec![
                    0,
                    0,
                    1,
                    u64::MAX,
                    u64::MAX,
                    u64::MAX,
                    u64::from(b'_'),
                    u64::MAX,
                ],
                None,
            ),
            (
                7,
                4,
                vec![0, 0, 0, 0, 0, 1 << 63, u64::from(b'.'), u64::MAX],
                None,
            ),
            (u32::MAX, 5, vec![0, 255, 128], None),
            (u32::from(b'Z'), 6, chars.clone(), None),
            (1000, 7, vec![31, 32, 1 << 40, u64::MAX], None),
            (0, 7, vec![], None),
        ];
        for len in 0..6 {
            expect.push((3, 8, vec![5], Some(b"hello"[..len].to_vec())));
        }
        expect.push((u32::MAX, 3, vec![u64::MAX, 0, 63], None));
        assert_eq!(recs, expect);
    }

    #[test]
    fn zero_width_operands_take_no_bits() {
        use AbbrevOp::*;
        let mut start = 0;
        let bytes = write(|w| {
            w.enter_subblock(9, 3).unwrap();
            let id = w
                .define_abbrev(&[Fixed(0), Vbr(0), Literal(5), Fixed(0)])
                .unwrap();
            start = w.bit_position();
            w.emit_record(id, 0, &[0, 5, 0]).unwrap();
            assert_eq!(w.bit_position(), start + 3, "only the abbreviation id");
            w.exit_block().unwrap();
        });
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
        r.enter_block().unwrap();
        assert!(matches!(
            r.next().unwrap(),
            Entry::DefineAbbrev {
                abbrev_id: 4,
                blockinfo_target: None,
                ..
            }
        ));
        assert_eq!(
            r.abbrev(4),
            Some(&[Fixed(0), Vbr(0), Literal(5), Fixed(0)][..])
        );
        assert_eq!(
            r.next().unwrap(),
            Entry::Record {
                abbrev_id: 4,
                bit_offset: start
            }
        );
        let mut ops = vec![99];
        let rec = r.read_record(&mut ops).unwrap();
        assert_eq!((rec.code, ops.as_slice()), (0, &[0, 5, 0][..]));
        assert_eq!(r.bit_position(), start + 3);
    }

    #[test]
    fn blockinfo_abbrevs_come_first_and_survive_skipping() {
        use AbbrevOp::*;
        let bytes = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.enter_blockinfo().unwrap();
            w.define_blockinfo_abbrev(11, &[Literal(4), Vbr(8)])
                .unwrap();
            w.emit_record_unabbrev(blockinfo_code::BLOCKNAME, &[97])
                .unwrap();
            w.define_blockinfo_abbrev(12, &[Literal(10)]).unwrap();
            w.exit_block().unwrap();
            w.enter_subblock(11, 4).unwrap();
            let local = w.define_abbrev(&[Literal(1), Fixed(8)]).unwrap();
            assert_eq!(local, 5);
            w.emit_record(4, 4, &[300]).unwrap();
            w.emit_record(5, 1, &[200]).unwrap();
            w.exit_block().unwrap();
            w.enter_subblock(12, 4).unwrap();
            w.emit_record(4, 10, &[]).unwrap();
            w.exit_block().unwrap();
            w.exit_block().unwrap();
        });
        let expect = vec![
            (4, 4, vec![300], None),
            (1, 5, vec![200], None),
            (10, 4, vec![], None),
        ];
        // Entered: the BLOCKINFO records are visible.
        let (recs, err) = records(&bytes);
        assert!(err.is_none());
        assert_eq!(recs.iter().filter(|r| r.1 == UNABBREV_RECORD).count(), 3);
        assert_eq!(
            recs.into_iter()
                .filter(|r| r.1 != UNABBREV_RECORD)
                .collect::<Vec<_>>(),
            expect
        );

        // Skipped: BLOCKINFO is still applied.
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        let mut ops = Vec::new();
        let mut seen = Vec::new();
        loop {
            match r.next().unwrap() {
                Entry::SubBlock {
                    block_id: BLOCKINFO_BLOCK_ID,
                    ..
                } => r.skip_block().unwrap(),
                Entry::SubBlock { .. } => r.enter_block().unwrap(),
                Entry::Record { .. } => {
                    let rec = r.read_record(&mut ops).unwrap();
                    seen.push((rec.code, rec.abbrev_id, ops.clone(), None));
                }
                Entry::DefineAbbrev {
                    blockinfo_target, ..
                } => assert!(blockinfo_target.is_none()),
                Entry::EndOfStream => break,
                _ => {}
            }
        }
        assert_eq!(seen, expect);
        assert_eq!(r.blockinfo_abbrev(11, 4), Some(&[Literal(4), Vbr(8)][..]));
        assert_eq!(r.blockinfo_abbrev(11, 5), None);

        // Not touched at all (next() skips the pending block): same.
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
        r.enter_block().unwrap();
        assert!(matches!(
            r.next().unwrap(),
            Entry::SubBlock { block_id: 0, .. }
        ));
        assert!(matches!(
            r.next().unwrap(),
            Entry::SubBlock { block_id: 11, .. }
        ));
        r.enter_block().unwrap();
        assert_eq!(r.abbrev_count(), 1);
        assert!(matches!(
            r.next().unwrap(),
            Entry::DefineAbbrev { abbrev_id: 5, .. }
        ));
        assert_eq!(r.abbrev_count(), 2);
        assert_eq!(r.block_stack().collect::<Vec<_>>(), [8, 11]);
    }

    /// Writes raw fields at BLOCKINFO level to get past the writer's own checks.
    fn raw_blockinfo(f: impl FnOnce(&mut BitstreamWriter)) -> Vec<u8> {
        write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.enter_blockinfo().unwrap();
            f(w);
            w.exit_block().unwrap();
            w.exit_block().unwrap();
        })
    }

    #[test]
    fn blockinfo_order_errors() {
        // DEFINE_ABBREV before SETBID: id 2 in width 2, one literal operand.
        let bytes = raw_blockinfo(|w| {
            w.emit_fixed(2, 2).unwrap();
            w.emit_vbr(1, 5).unwrap();
            w.emit_fixed(1, 1).unwrap();
            w.emit_vbr(1, 8).unwrap();
        });
        let err = records(&bytes).1.unwrap();
        assert_eq!(err.kind(), ErrorKind::Malformed);
        assert_eq!(err.block_id(), Some(0));
        // BLOCKNAME before SETBID, and SETBID without operand.
        for (code, ops) in [(2u64, 1u64), (1, 0)] {
            let bytes = raw_blockinfo(|w| {
                w.emit_fixed(3, 2).unwrap();
                w.emit_vbr(code, 6).unwrap();
                w.emit_vbr(ops, 6).unwrap();
                for _ in 0..ops {
                    w.emit_vbr(97, 6).unwrap();
                }
            });
            assert_eq!(
                records(&bytes).1.unwrap().kind(),
                ErrorKind::Malformed,
                "{code}"
            );
        }
    }

    #[test]
    fn trailing_data_and_wrapper() {
        let module = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.emit_record_unabbrev(1, &[2]).unwrap();
            w.exit_block().unwrap();
        });
        for (extra, all_zero) in [
            ([0u8; 4], true),
            ([0, 0, 0, 0x80], false),
            ([0xFF; 4], false),
        ] {
            let mut bytes = module.clone();
            bytes.extend_from_slice(&extra);
            bytes.extend_from_slice(&[0; 4]);
            let mut r = BitstreamReader::new(&bytes, 100).unwrap();
            assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
            assert_eq!(
                r.next().unwrap(),
                Entry::TrailingData {
                    bit_offset: (100 + module.len() as u64) * 8,
                    byte_len: 8,
                    all_zero
                }
            );
            assert_eq!(r.next().unwrap(), Entry::EndOfStream);
        }
        // A second top-level block is a block, not trailing data.
        let mut two = module.clone();
        two.extend_from_slice(&module[4..]);
        let mut r = BitstreamReader::new(&two, 0).unwrap();
        assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
        assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
        assert_eq!(r.next().unwrap(), Entry::EndOfStream);

        // Wrapper: magic, version, offset, size, cputype, then the bitcode and some padding.
        let mut wrapped = Vec::new();
        for word in [WRAPPER_MAGIC, 0, 20, module.len() as u32, 7] {
            wrapped.extend_from_slice(&word.to_le_bytes());
        }
        wrapped.extend_from_slice(&module);
        wrapped.extend_from_slice(&[0xAB; 4]);
        let r = BitstreamReader::new(&wrapped, 1000).unwrap();
        assert_eq!(r.bitcode_byte_offset(), 1020);
        assert_eq!(r.bit_position(), 1024 * 8);
        assert_eq!(records(&wrapped).0, [(1, 3, vec![2], None)]);
        wrapped.truncate(30);
        assert_eq!(
            BitstreamReader::new(&wrapped, 0).unwrap_err().kind(),
            ErrorKind::Truncated
        );
        assert_eq!(
            BitstreamReader::new(&wrapped[..12], 0).unwrap_err().kind(),
            ErrorKind::Truncated
        );
    }

    #[test]
    fn header_and_structure_errors() {
        let kind = |bytes: &[u8]| records(bytes).1.map(|e| e.kind());
        assert_eq!(kind(b"BC"), Some(ErrorKind::Truncated));
        assert_eq!(kind(b"BC\xC0\xDD"), Some(ErrorKind::Malformed));
        assert_eq!(kind(b"BC\xC0\xDE\0"), Some(ErrorKind::Malformed));
        assert_eq!(kind(b"BC\xC0\xDE"), None);

        // Abbreviation width 0 and 33.
        for width in [0, 33] {
            let bytes = write(|w| {
                w.emit_fixed(1, 2).unwrap();
                w.emit_vbr(8, 8).unwrap();
                w.emit_vbr(width, 4).unwrap();
                w.align32();
                w.emit_fixed(0, 32).unwrap();
            });
            assert_eq!(kind(&bytes), Some(ErrorKind::Malformed), "{width}");
        }
        // Undefined abbreviation id.
        let bytes = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.emit_fixed(4, 3).unwrap();
            w.exit_block().unwrap();
        });
        let err = records(&bytes).1.unwrap();
        assert_eq!(
            (err.kind(), err.bit_offset(), err.block_id()),
            (ErrorKind::Malformed, 96, Some(8))
        );

        // A length word that disagrees with END_BLOCK, either way.
        let module = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.emit_record_unabbrev(1, &[2]).unwrap();
            w.exit_block().unwrap();
        });
        for delta in [-1i32, 1] {
            let mut bytes = module.clone();
            let len = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
            bytes[8..12].copy_from_slice(&len.wrapping_add_signed(delta).to_le_bytes());
            bytes.extend_from_slice(&[0; 4]);
            assert_eq!(kind(&bytes), Some(ErrorKind::Malformed), "{delta}");
        }
        // A length word beyond the data.
        let mut bytes = module.clone();
        bytes[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(kind(&bytes), Some(ErrorKind::Truncated));

        // An operand count the data cannot hold: no allocation, a typed error.
        let bytes = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.emit_fixed(3, 3).unwrap();
            w.emit_vbr(1, 6).unwrap();
            w.emit_vbr(u64::from(u32::MAX), 6).unwrap();
            w.align32();
            w.exit_block().unwrap();
        });
        assert_eq!(kind(&bytes), Some(ErrorKind::Truncated));
    }

    #[test]
    fn nesting_is_limited() {
        let bytes = write(|w| {
            for _ in 0..limits::MAX_NESTING_DEPTH {
                w.enter_subblock(9, 2).unwrap();
            }
            assert_eq!(
                w.enter_subblock(9, 2).unwrap_err().kind(),
                ErrorKind::LimitExceeded
            );
            for _ in 0..limits::MAX_NESTING_DEPTH {
                w.exit_block().unwrap();
            }
        });
        assert!(records(&bytes).1.is_none());
        // One more level, written by hand.
        let mut deeper = bytes[..4].to_vec();
        let inner = write(|w| {
            for _ in 0..limits::MAX_NESTING_DEPTH {
                w.enter_subblock(9, 2).unwrap();
            }
            for _ in 0..limits::MAX_NESTING_DEPTH {
                w.exit_block().unwrap();
            }
        });
        // Wrap `inner`'s body in one more block: header, length, body, END_BLOCK word.
        deeper.extend_from_slice(&[0x25, 0x08, 0, 0]);
        deeper.extend_from_slice(&((inner.len() as u32 - 4) / 4 + 1).to_le_bytes());
        deeper.extend_from_slice(&inner[4..]);
        deeper.extend_from_slice(&[0; 4]);
        assert_eq!(records(&deeper).1.unwrap().kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn api_misuse_and_stopping() {
        let bytes = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.emit_record_unabbrev(1, &[2]).unwrap();
            w.exit_block().unwrap();
        });
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        let mut ops = Vec::new();
        assert_eq!(
            r.read_record(&mut ops).unwrap_err().kind(),
            ErrorKind::Usage
        );
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        assert_eq!(r.enter_block().unwrap_err().kind(), ErrorKind::Usage);
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        assert_eq!(r.skip_record().unwrap_err().kind(), ErrorKind::Usage);
        // Misuse changes no state, so reading goes on.
        assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));

        // A data error stops the reader.
        let mut bad = bytes.clone();
        bad[12] = 0xFF;
        let mut r = BitstreamReader::new(&bad, 0).unwrap();
        r.next().unwrap();
        r.enter_block().unwrap();
        assert_eq!(r.next().unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(r.next().unwrap_err().kind(), ErrorKind::Usage, "stopped");

        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        r.next().unwrap();
        r.enter_block().unwrap();
        assert!(matches!(r.next().unwrap(), Entry::Record { .. }));
        r.skip_record().unwrap();
        assert!(matches!(
            r.next().unwrap(),
            Entry::EndBlock { block_id: 8, .. }
        ));
        assert_eq!(r.depth(), 0);
        assert_eq!(r.next().unwrap(), Entry::EndOfStream);
        assert_eq!(r.next().unwrap(), Entry::EndOfStream);
    }

    /// Builds a stream exercising every path, then truncates it at every word: always a typed
    /// error, never a panic. Length words of blocks cut by the truncation are shortened to fit,
    /// so that reading reaches the cut instead of failing at the block header.
    #[test]
    fn truncation_at_every_word_is_a_typed_error() {
        use AbbrevOp::*;
        let full = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.enter_blockinfo().unwrap();
            w.define_blockinfo_abbrev(12, &[Literal(2), Vbr(6), Array, Char6])
                .unwrap();
            w.exit_block().unwrap();
            let a = w
                .define_abbrev(&[Fixed(5), Fixed(64), Vbr(4), Array, Fixed(8)])
                .unwrap();
            let b = w.define_abbrev(&[Literal(9), Blob]).unwrap();
            w.emit_record(a, 17, &[u64::MAX, 1 << 40, 1, 2, 3, 4, 5])
                .unwrap();
            w.emit_record_with_blob(b, 9, &[], b"0123456789").unwrap();
            w.enter_subblock(12, 4).unwrap();
            w.emit_record(4, 2, &[1000, u64::from(b'x'), u64::from(b'.')])
                .unwrap();
            w.emit_record_unabbrev(3, &[u64::MAX; 5]).unwrap();
            w.exit_block().unwrap();
            w.emit_record_unabbrev(1, &[1]).unwrap();
            w.exit_block().unwrap();
        });
        assert!(records(&full).1.is_none());
        // Length-word positions and block ends, from a full read.
        let mut blocks = Vec::new();
        let mut r = BitstreamReader::new(&full, 0).unwrap();
        loop {
            match r.next().unwrap() {
                Entry::SubBlock { length_words, .. } => {
                    r.enter_block().unwrap();
                    let content = (r.bit_position() / 8) as usize;
                    blocks.push((content - 4, content + length_words as usize * 4));
                }
                Entry::EndOfStream => break,
                _ => {}
            }
        }
        for cut in (8..full.len()).step_by(4) {
            let mut bytes = full[..cut].to_vec();
            for &(len_at, end) in &blocks {
                if len_at + 4 <= cut && end > cut {
                    let words = ((cut - len_at - 4) / 4) as u32;
                    bytes[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());
                }
            }
            let err = records(&bytes)
                .1
                .unwrap_or_else(|| panic!("cut at {cut} read cleanly"));
            assert_eq!(err.kind(), ErrorKind::Truncated, "cut at {cut}: {err}");
            assert!(err.bit_offset() <= cut as u64 * 8, "cut at {cut}: {err}");
            // Unpatched, too: typed error.
            let err = records(&full[..cut]).1.unwrap();
            assert_eq!(err.kind(), ErrorKind::Truncated, "cut at {cut}: {err}");
        }
        for cut in 0..full.len() {
            if cut % 4 != 0 {
                assert!(records(&full[..cut]).1.is_some());
            }
        }
    }

    /// `advance` sees what `next` + `read_record` see, at the same offsets, and fails the same
    /// way on every truncation.
    #[test]
    fn advance_matches_next_and_read_record() {
        use AbbrevOp::*;
        let full = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.enter_blockinfo().unwrap();
            w.define_blockinfo_abbrev(12, &[Literal(2), Vbr(6), Array, Char6])
                .unwrap();
            w.exit_block().unwrap();
            let a = w
                .define_abbrev(&[Fixed(5), Fixed(64), Vbr(4), Array, Fixed(8)])
                .unwrap();
            let b = w.define_abbrev(&[Literal(9), Blob]).unwrap();
            w.emit_record(a, 17, &[u64::MAX, 1 << 40, 1, 2, 3]).unwrap();
            w.emit_record_with_blob(b, 9, &[], b"0123456789").unwrap();
            w.enter_subblock(12, 4).unwrap();
            w.emit_record(4, 2, &[1000, u64::from(b'x')]).unwrap();
            w.emit_record_unabbrev(3, &[u64::MAX, 0, 31, 32, 1 << 20])
                .unwrap();
            w.exit_block().unwrap();
            w.exit_block().unwrap();
        });
        // (what, bit offset reported for the entry, operands, blob)
        type Seen = (String, u64, Vec<u64>, Option<Vec<u8>>);
        fn by_next(bytes: &[u8]) -> (Vec<Seen>, Option<ErrorKind>) {
            let mut out = Vec::new();
            let mut r = BitstreamReader::new(bytes, 7).unwrap();
            let mut ops = Vec::new();
            loop {
                let e = match r.next() {
                    Ok(e) => e,
                    Err(e) => return (out, Some(e.kind())),
                };
                let at = r.entry_bit_offset();
                match e {
                    Entry::SubBlock { .. } => {
                        out.push((format!("{e:?}"), at, vec![], None));
                        if let Err(e) = r.enter_block() {
                            return (out, Some(e.kind()));
                        }
                    }
                    Entry::Record { bit_offset, .. } => {
                        assert_eq!(bit_offset, at);
                        match r.read_record(&mut ops) {
                            Ok(rec) => out.push((
                                format!("record {} {}", rec.code, rec.abbrev_id),
                                at,
                                ops.clone(),
                                rec.blob.map(|b| b.bytes.to_vec()),
                            )),
                            Err(e) => return (out, Some(e.kind())),
                        }
                    }
                    Entry::EndOfStream => return (out, None),
                    _ => out.push((format!("{e:?}"), at, vec![], None)),
                }
            }
        }
        fn by_advance(bytes: &[u8]) -> (Vec<Seen>, Option<ErrorKind>) {
            let mut out = Vec::new();
            let mut r = BitstreamReader::new(bytes, 7).unwrap();
            let mut ops = vec![99];
            loop {
                let s = match r.advance(&mut ops) {
                    Ok(s) => s,
                    Err(e) => return (out, Some(e.kind())),
                };
                let at = r.entry_bit_offset();
                match s {
                    Step::Entry(e @ Entry::SubBlock { .. }) => {
                        out.push((format!("{e:?}"), at, vec![], None));
                        if let Err(e) = r.enter_block() {
                            return (out, Some(e.kind()));
                        }
                    }
                    Step::Record(rec) => {
                        assert_eq!(rec.bit_offset, at);
                        out.push((
                            format!("record {} {}", rec.code, rec.abbrev_id),
                            at,
                            ops.clone(),
                            rec.blob.map(|b| b.bytes.to_vec()),
                        ));
                    }
                    Step::Entry(Entry::EndOfStream) => return (out, None),
                    Step::Entry(e) => out.push((format!("{e:?}"), at, vec![], None)),
                }
            }
        }
        let (a, ea) = by_next(&full);
        assert_eq!(ea, None);
        // SETBID, then the four records written above.
        assert_eq!(a.iter().filter(|s| s.0.starts_with("record")).count(), 5);
        assert_eq!((a.clone(), ea), by_advance(&full));
        for cut in (4..full.len()).step_by(4) {
            assert_eq!(
                by_next(&full[..cut]),
                by_advance(&full[..cut]),
                "cut at {cut}"
            );
        }
        // A stopped reader refuses `advance` too.
        let mut r = BitstreamReader::new(&full[..20], 0).unwrap();
        let mut ops = Vec::new();
        while r.advance(&mut ops).is_ok() {}
        assert_eq!(r.advance(&mut ops).unwrap_err().kind(), ErrorKind::Usage);
    }

    /// A BLOCKINFO block identical to one read before on this thread is not decoded again;
    /// what it registers is the same either way, and a different block is decoded.
    #[test]
    fn blockinfo_memo_gives_the_same_abbreviations() {
        use AbbrevOp::*;
        let stream = |width: u64| {
            write(|w| {
                w.enter_subblock(8, 3).unwrap();
                w.enter_blockinfo().unwrap();
                w.define_blockinfo_abbrev(12, &[Literal(2), Vbr(6), Array, Char6])
                    .unwrap();
                w.define_blockinfo_abbrev(11, &[Literal(1), Fixed(width as u32)])
                    .unwrap();
                w.exit_block().unwrap();
                w.enter_subblock(11, 4).unwrap();
                w.emit_record(4, 1, &[width]).unwrap();
                w.exit_block().unwrap();
                w.enter_subblock(12, 4).unwrap();
                w.emit_record(4, 2, &[7, u64::from(b'a')]).unwrap();
                w.exit_block().unwrap();
                w.exit_block().unwrap();
            })
        };
        let read = |bytes: &[u8]| {
            let mut r = BitstreamReader::new(bytes, 0).unwrap();
            let mut ops = Vec::new();
            let mut out = Vec::new();
            loop {
                match r.advance(&mut ops).unwrap() {
                    Step::Entry(Entry::SubBlock { block_id: 0, .. }) => r.skip_block().unwrap(),
                    Step::Entry(Entry::SubBlock { .. }) => r.enter_block().unwrap(),
                    Step::Record(rec) => out.push((rec.code, ops.clone())),
                    Step::Entry(Entry::EndOfStream) => break,
                    Step::Entry(_) => {}
                }
            }
            let abbrev = |id| r.blockinfo_abbrev(11, id).map(<[AbbrevOp]>::to_vec);
            (out, abbrev(4), abbrev(5))
        };
        let (a, b) = (stream(5), stream(9));
        let first = read(&a);
        assert_eq!(first.0, [(1, vec![5]), (2, vec![7, u64::from(b'a')])]);
        assert_eq!(first.1, Some(vec![Literal(1), Fixed(5)]));
        assert_eq!(first.2, None);
        // Again (from the memo), then a different block, then the first again.
        assert_eq!(read(&a), first);
        let other = read(&b);
        assert_eq!(other.1, Some(vec![Literal(1), Fixed(9)]));
        assert_eq!(other.0[0], (1, vec![9]));
        assert_eq!(read(&a), first);
        // A reader that takes the memo and then reads a second BLOCKINFO block adds to its
        // own copy: the memo's tables are unchanged for the next reader.
        let mut twice = a.clone();
        let extra = write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.enter_blockinfo().unwrap();
            w.define_blockinfo_abbrev(11, &[Literal(3)]).unwrap();
            w.exit_block().unwrap();
            w.exit_block().unwrap();
        });
        twice.extend_from_slice(&extra[4..]);
        let mut r = BitstreamReader::new(&twice, 0).unwrap();
        let mut ops = Vec::new();
        loop {
            match r.advance(&mut ops).unwrap() {
                // Both BLOCKINFO blocks are skipped, so both go through the memo path.
                Step::Entry(Entry::SubBlock { block_id: 0, .. }) => r.skip_block().unwrap(),
                Step::Entry(Entry::SubBlock { .. }) => r.enter_block().unwrap(),
                Step::Entry(Entry::EndOfStream) => break,
                _ => {}
            }
        }
        assert_eq!(r.blockinfo_abbrev(11, 5), Some(&[Literal(3)][..]));
        assert_eq!(read(&a), first);
    }
}
