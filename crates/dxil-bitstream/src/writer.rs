//! The writer: produces a bitstream exactly as LLVM's `BitstreamWriter` lays it out.

use std::sync::Arc;

use crate::abbrev::{
    AbbrevOp, AbbrevStore, BlockinfoTables, Scope, encode_char6, encoding, is_char6,
    validate_abbrev,
};
use crate::error::{Error, ErrorKind, Result};
use crate::limits;
use crate::reader::{
    BITCODE_MAGIC, BLOCKINFO_BLOCK_ID, TOP_LEVEL_ABBREV_WIDTH, blockinfo_code, builtin_abbrev::*,
};

/// Accumulates bits LSB first and appends them as little-endian 64-bit words (two 32-bit words
/// of the stream: one length check and copy per 64 bits instead of per 32).
#[derive(Debug, Clone, Default)]
struct BitSink {
    /// Whole 32-bit words written so far.
    out: Vec<u8>,
    /// Pending bits, fewer than 64 between calls ([`BitSink::align32`] leaves none).
    acc: u64,
    acc_bits: u32,
}

impl BitSink {
    fn bit_position(&self) -> u64 {
        self.out.len() as u64 * 8 + u64::from(self.acc_bits)
    }

    /// Appends the low `n` ≤ 32 bits of `v`; the caller guarantees `v` fits.
    #[inline(always)]
    fn put(&mut self, v: u64, n: u32) {
        debug_assert!(n <= 32 && (n == 32 || v >> n == 0));
        let bits = self.acc_bits;
        self.acc |= v << bits;
        let total = bits + n;
        if total >= 64 {
            self.out.extend_from_slice(&self.acc.to_le_bytes());
            // `bits` ≥ 32 here (n ≤ 32), so the shift is in range: the bits of `v` that did
            // not fit.
            self.acc = v >> (64 - bits);
            self.acc_bits = total - 64;
        } else {
            self.acc_bits = total;
        }
    }

    /// Appends an `n` ≤ 64-bit field; the caller guarantees `v` fits.
    #[inline]
    fn put_wide(&mut self, v: u64, n: u32) {
        if n > 32 {
            self.put(v & 0xFFFF_FFFF, 32);
            self.put(v >> 32, n - 32);
        } else {
            self.put(v, n);
        }
    }

    /// Appends `v` as VBR in `n`-bit chunks (2 ≤ `n` ≤ 32), using at least `min_chunks` chunks;
    /// with `min_chunks` ≤ 1 this is LLVM's canonical encoding.
    #[inline(always)]
    fn put_vbr(&mut self, v: u64, n: u32, min_chunks: u32) {
        // Most operands fit one chunk: that case inline, the loop out of line.
        if v >> (n - 1) == 0 && min_chunks <= 1 {
            self.put(v, n);
        } else {
            self.put_vbr_chunks(v, n, min_chunks);
        }
    }

    #[inline(never)]
    fn put_vbr_chunks(&mut self, mut v: u64, n: u32, min_chunks: u32) {
        let cont = 1u64 << (n - 1);
        let mut emitted = 1u32;
        while v >= cont || emitted < min_chunks {
            self.put((v & (cont - 1)) | cont, n);
            v >>= n - 1;
            emitted += 1;
        }
        self.put(v, n);
    }

    /// Pads to a 32-bit boundary and moves every pending bit into `out`.
    fn align32(&mut self) {
        let rem = self.acc_bits % 32;
        if rem > 0 {
            self.put(0, 32 - rem);
        }
        if self.acc_bits == 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc = 0;
            self.acc_bits = 0;
        }
    }

    fn mark(&self) -> SinkMark {
        SinkMark {
            len: self.out.len(),
            acc: self.acc,
            acc_bits: self.acc_bits,
        }
    }

    /// Takes back everything written since `mark`.
    fn rewind(&mut self, mark: SinkMark) {
        self.out.truncate(mark.len);
        self.acc = mark.acc;
        self.acc_bits = mark.acc_bits;
    }
}

/// The contents of a BLOCKINFO block, written once and replayed by
/// [`BitstreamWriter::replay_blockinfo`] into any number of streams. A writer that opens every
/// module with the same BLOCKINFO block saves validating, encoding and registering each
/// abbreviation again: the replay copies the encoded body and shares the registered tables.
#[derive(Debug, Clone)]
pub struct BlockinfoRecording {
    body: RecordedBody,
    tables: Arc<BlockinfoTables>,
    /// The block id selected by the last `SETBID`.
    target: Option<(u32, usize)>,
}

impl BlockinfoRecording {
    /// Runs `define` inside a BLOCKINFO block of a scratch stream (SETBID records, abbreviation
    /// definitions, any record BLOCKINFO allows) and keeps what it wrote. `define` must leave
    /// the BLOCKINFO block open.
    pub fn record<E: From<Error>>(
        define: impl FnOnce(&mut BitstreamWriter) -> std::result::Result<(), E>,
    ) -> std::result::Result<Self, E> {
        let mut w = BitstreamWriter::new();
        w.enter_blockinfo()?;
        let start = w.sink.out.len();
        define(&mut w)?;
        let target = match w.frames.as_slice() {
            [frame] if frame.block_id == BLOCKINFO_BLOCK_ID => frame.blockinfo_target,
            _ => {
                return Err(w
                    .invalid("the recorded definitions left the BLOCKINFO block")
                    .into());
            }
        };
        Ok(BlockinfoRecording {
            body: RecordedBody::take(&mut w, start),
            tables: w.store.blockinfo_tables(),
            target,
        })
    }
}

/// Bits after a block's length word and before its `END_BLOCK`: whole words, then the pending
/// bits of the last, partial one. A block's body starts on a word boundary, so it can be copied
/// into any stream at the same place in a block of the same id and width.
#[derive(Debug, Clone)]
struct RecordedBody {
    bytes: Vec<u8>,
    acc: u64,
    acc_bits: u32,
}

impl RecordedBody {
    fn take(w: &mut BitstreamWriter, start: usize) -> RecordedBody {
        RecordedBody {
            bytes: w.sink.out.split_off(start),
            acc: w.sink.acc,
            acc_bits: w.sink.acc_bits,
        }
    }
}

/// A block that comes out the same in many streams (a module writer's fixed tables), written
/// once and replayed by [`BitstreamWriter::replay_block`].
#[derive(Debug, Clone)]
pub struct BlockRecording {
    block_id: u32,
    abbrev_width: u32,
    body: RecordedBody,
}

impl BlockRecording {
    /// Runs `write` inside block `block_id` (abbreviation width `abbrev_width`) of a scratch
    /// stream without BLOCKINFO, and keeps what it wrote. `write` must leave that block open.
    pub fn record<E: From<Error>>(
        block_id: u32,
        abbrev_width: u32,
        write: impl FnOnce(&mut BitstreamWriter) -> std::result::Result<(), E>,
    ) -> std::result::Result<Self, E> {
        let mut w = BitstreamWriter::new();
        w.enter_subblock(block_id, abbrev_width)?;
        let start = w.sink.out.len();
        write(&mut w)?;
        if w.frames.len() != 1 {
            return Err(w
                .invalid(format!(
                    "the recorded writes left block {block_id} or opened another"
                ))
                .into());
        }
        Ok(BlockRecording {
            block_id,
            abbrev_width,
            body: RecordedBody::take(&mut w, start),
        })
    }
}

/// A sink's state, to take back a record that turned out not to match its abbreviation.
#[derive(Debug, Clone, Copy)]
struct SinkMark {
    len: usize,
    acc: u64,
    acc_bits: u32,
}

#[derive(Debug, Clone)]
struct Frame {
    block_id: u32,
    abbrev_width: u32,
    /// Byte index of the length word to back-patch.
    length_at: usize,
    scope: Scope,
    blockinfo_target: Option<(u32, usize)>,
}

/// Writes an LLVM bitstream into a `Vec<u8>`.
///
/// Abbreviation ids resolve as in the reader: first the abbreviations BLOCKINFO registered for
/// the block's id before the block was entered, then the block's own definitions. Records are
/// validated against their abbreviation before any bit is written, so a failed call leaves the
/// stream unchanged.
///
/// ```
/// use dxil_bitstream::{AbbrevOp, BitstreamWriter};
///
/// let mut w = BitstreamWriter::new();
/// w.enter_subblock(8, 3)?;
/// let id = w.define_abbrev(&[AbbrevOp::Literal(2), AbbrevOp::Array, AbbrevOp::Char6])?;
/// w.emit_record(id, 2, &[u64::from(b'd'), u64::from(b'x')])?;
/// assert!(w.emit_record(id, 2, &[u64::from(b'-')]).is_err());
/// w.exit_block()?;
/// let bytes = w.finish()?;
/// assert_eq!(bytes.len() % 4, 0);
/// # Ok::<(), dxil_bitstream::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BitstreamWriter {
    sink: BitSink,
    frames: Vec<Frame>,
    store: AbbrevStore,
}

impl Default for BitstreamWriter {
    fn default() -> Self {
        Self::new()
    }
}

/// More chunks than any 64-bit value needs in the narrowest VBR: a bound on forced padding.
const MAX_FORCED_CHUNKS: u32 = 64;

/// Where operand `index` must be forced to at least `min_chunks` VBR chunks.
#[derive(Debug, Clone, Copy)]
struct Padding {
    index: usize,
    min_chunks: u32,
}

impl BitstreamWriter {
    /// A writer whose output starts with the bitcode magic `BC 0xC0DE`.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// Like [`new`](Self::new), with room for `bytes` bytes of output before the buffer grows
    /// (a writer that knows its output's rough size saves the copies of repeated growth).
    pub fn with_capacity(bytes: usize) -> Self {
        let mut sink = BitSink {
            out: Vec::with_capacity(bytes.max(BITCODE_MAGIC.len())),
            ..BitSink::default()
        };
        sink.out.extend_from_slice(&BITCODE_MAGIC);
        BitstreamWriter {
            sink,
            frames: Vec::new(),
            store: AbbrevStore::default(),
        }
    }

    /// Bits written so far, the magic included (the offset of the next bit).
    pub fn bit_position(&self) -> u64 {
        self.sink.bit_position()
    }

    /// Id of the innermost open block, `None` at the top level.
    pub fn block_id(&self) -> Option<u32> {
        self.frames.last().map(|f| f.block_id)
    }

    /// Number of open blocks.
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// Abbreviation-id width of the innermost open block (2 at the top level).
    pub fn abbrev_width(&self) -> u32 {
        self.frames
            .last()
            .map_or(TOP_LEVEL_ABBREV_WIDTH, |f| f.abbrev_width)
    }

    #[cold]
    fn invalid(&self, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidWrite, self.bit_position(), message).in_block(self.block_id())
    }

    #[cold]
    fn limit(&self, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::LimitExceeded, self.bit_position(), message).in_block(self.block_id())
    }

    /// Writes a raw fixed-width field (`width` ≤ 64). Raw fields bypass the block structure;
    /// the reader will only make sense of them where the format expects them.
    pub fn emit_fixed(&mut self, value: u64, width: u32) -> Result<()> {
        if width > 64 || (width < 64 && value >> width != 0) {
            return Err(self.invalid(format!("{value} does not fit in a {width}-bit field")));
        }
        self.sink.put_wide(value, width);
        Ok(())
    }

    /// Writes a raw VBR field in `width`-bit chunks (2..=32), canonically.
    pub fn emit_vbr(&mut self, value: u64, width: u32) -> Result<()> {
        self.emit_vbr_min_chunks(value, width, 1)
    }

    /// Writes a raw VBR field using at least `min_chunks` chunks (an over-long encoding when the
    /// value needs fewer), so that any value of up to `(width-1)*min_chunks` bits can later be
    /// patched in place with [`patch_vbr`].
    pub fn emit_vbr_min_chunks(&mut self, value: u64, width: u32, min_chunks: u32) -> Result<()> {
        if !(2..=32).contains(&width) {
            return Err(self.invalid(format!("VBR width {width} is not 2..=32")));
        }
        if min_chunks > MAX_FORCED_CHUNKS {
            return Err(self.invalid(format!(
                "{min_chunks} VBR chunks requested; at most {MAX_FORCED_CHUNKS}"
            )));
        }
        self.sink.put_vbr(value, width, min_chunks);
        Ok(())
    }

    /// Pads with zero bits to the next 32-bit boundary.
    pub fn align32(&mut self) {
        self.sink.align32();
    }

    fn emit_abbrev_id(&mut self, id: u32) -> Result<()> {
        let width = self.abbrev_width();
        if width < 32 && id >> width != 0 {
            return Err(self.invalid(format!(
                "abbreviation id {id} does not fit in the block's {width}-bit abbreviation width"
            )));
        }
        self.sink.put(u64::from(id), width);
        Ok(())
    }

    /// Opens a nested block: `ENTER_SUBBLOCK, vbr8 id, vbr4 width, align32` and a length word
    /// that [`exit_block`](Self::exit_block) fills in.
    pub fn enter_subblock(&mut self, block_id: u32, abbrev_width: u32) -> Result<()> {
        if abbrev_width == 0 || abbrev_width > 32 {
            return Err(self.invalid(format!("abbreviation width {abbrev_width} is not 1..=32")));
        }
        if self.frames.len() >= limits::MAX_NESTING_DEPTH {
            return Err(self.limit(format!(
                "more than {} nested blocks",
                limits::MAX_NESTING_DEPTH
            )));
        }
        self.emit_abbrev_id(ENTER_SUBBLOCK)?;
        self.sink.put_vbr(u64::from(block_id), 8, 1);
        self.sink.put_vbr(u64::from(abbrev_width), 4, 1);
        self.sink.align32();
        let length_at = self.sink.out.len();
        // Straight into `out` (nothing is pending after `align32`): a recording that starts
        // here must not hold the length word in its pending bits.
        self.sink.out.extend_from_slice(&[0; 4]);
        let scope = self.store.open_scope(block_id);
        self.frames.push(Frame {
            block_id,
            abbrev_width,
            length_at,
            scope,
            blockinfo_target: None,
        });
        Ok(())
    }

    /// Closes the innermost block: `END_BLOCK`, align32, and back-patches its length word.
    pub fn exit_block(&mut self) -> Result<()> {
        let Some(length_at) = self.frames.last().map(|f| f.length_at) else {
            return Err(self.invalid("exit_block with no open block"));
        };
        self.emit_abbrev_id(END_BLOCK)?;
        self.sink.align32();
        let words = (self.sink.out.len() - length_at - 4) / 4;
        let Ok(words) = u32::try_from(words) else {
            return Err(self.invalid(format!("block of {words} words exceeds the length field")));
        };
        match self.sink.out.get_mut(length_at..length_at + 4) {
            Some(slot) => slot.copy_from_slice(&words.to_le_bytes()),
            None => {
                return Err(Error::new(
                    ErrorKind::Internal,
                    self.bit_position(),
                    "length word vanished",
                ));
            }
        }
        if let Some(frame) = self.frames.pop() {
            self.store.close_scope(&frame.scope);
        }
        Ok(())
    }

    /// Opens a BLOCKINFO block (abbreviation width 2, as LLVM writes it).
    pub fn enter_blockinfo(&mut self) -> Result<()> {
        self.enter_subblock(BLOCKINFO_BLOCK_ID, 2)
    }

    /// Inside BLOCKINFO: writes `SETBID [block_id]`, so that following abbreviation definitions
    /// register for `block_id`.
    pub fn set_blockinfo_target(&mut self, block_id: u32) -> Result<()> {
        if self.block_id() != Some(BLOCKINFO_BLOCK_ID) {
            return Err(self.invalid("SETBID outside a BLOCKINFO block"));
        }
        self.emit_record_unabbrev(blockinfo_code::SETBID, &[u64::from(block_id)])
    }

    /// Inside BLOCKINFO: registers `ops` for `block_id`, writing SETBID first unless that block
    /// id is already selected (what LLVM's `EmitBlockInfoAbbrev` does). Returns the abbreviation
    /// id it will have in blocks of that id.
    pub fn define_blockinfo_abbrev(&mut self, block_id: u32, ops: &[AbbrevOp]) -> Result<u32> {
        let current = self.frames.last().and_then(|f| f.blockinfo_target);
        if current.map(|(id, _)| id) != Some(block_id) {
            self.set_blockinfo_target(block_id)?;
        }
        self.define_abbrev(ops)
    }

    /// Writes a DEFINE_ABBREV (`vbr5 count`; per operand `1 bit isLiteral`, then `vbr8 value`
    /// or `fixed3 encoding` plus `vbr5 width` for Fixed/VBR, widths of 0 included). Outside
    /// BLOCKINFO the abbreviation is local to the current block; inside, it registers for the
    /// block id selected by SETBID. Returns its abbreviation id.
    pub fn define_abbrev(&mut self, ops: &[AbbrevOp]) -> Result<u32> {
        validate_abbrev(ops).map_err(|m| self.invalid(m))?;
        let Some(frame) = self.frames.last() else {
            return Err(self.invalid("DEFINE_ABBREV outside any block"));
        };
        let target = if frame.block_id == BLOCKINFO_BLOCK_ID {
            match frame.blockinfo_target {
                Some(t) => Some(t),
                None => return Err(self.invalid("DEFINE_ABBREV in BLOCKINFO before SETBID")),
            }
        } else {
            None
        };
        let scope = frame.scope;
        let count = match target {
            Some((_, list)) => self.store.blockinfo_list_len(list),
            None => self.store.count(&scope),
        };
        if count >= limits::MAX_ABBREVS_PER_BLOCK {
            return Err(self.limit(format!(
                "more than {} abbreviations in one block",
                limits::MAX_ABBREVS_PER_BLOCK
            )));
        }
        self.emit_abbrev_id(DEFINE_ABBREV)?;
        let s = &mut self.sink;
        s.put_vbr(ops.len() as u64, 5, 1);
        for op in ops {
            let (enc, width) = match *op {
                AbbrevOp::Literal(v) => {
                    s.put(1, 1);
                    s.put_vbr(v, 8, 1);
                    continue;
                }
                AbbrevOp::Fixed(w) => (encoding::FIXED, Some(w)),
                AbbrevOp::Vbr(w) => (encoding::VBR, Some(w)),
                AbbrevOp::Array => (encoding::ARRAY, None),
                AbbrevOp::Char6 => (encoding::CHAR6, None),
                AbbrevOp::Blob => (encoding::BLOB, None),
            };
            s.put(0, 1);
            s.put(enc, 3);
            if let Some(w) = width {
                s.put_vbr(u64::from(w), 5, 1);
            }
        }
        let in_blockinfo = target.is_some();
        let start = self.store.ops_for(in_blockinfo).len();
        self.store.ops_for(in_blockinfo).extend_from_slice(ops);
        let index = match target {
            Some((_, list)) => self.store.commit_blockinfo(list, start),
            None => self.store.commit_local(&scope, start),
        };
        Ok(FIRST_APPLICATION_ABBREV + index as u32)
    }

    /// Writes a whole BLOCKINFO block recorded by [`BlockinfoRecording::record`]: the same bits,
    /// and the same abbreviations registered for later blocks, as running the recorded
    /// definitions here. It must be the stream's first BLOCKINFO block (the recording carries
    /// complete tables, not additions to earlier ones).
    pub fn replay_blockinfo(&mut self, recording: &BlockinfoRecording) -> Result<()> {
        if !self.store.blockinfo_is_empty() {
            return Err(self.invalid("a recorded BLOCKINFO block after another BLOCKINFO block"));
        }
        self.enter_blockinfo()?;
        // The length word leaves the sink on a word boundary, where the recording started.
        self.append_body(&recording.body);
        self.store
            .set_blockinfo_tables(Arc::clone(&recording.tables));
        if let Some(frame) = self.frames.last_mut() {
            frame.blockinfo_target = recording.target;
        }
        self.exit_block()
    }

    /// Writes a whole block recorded by [`BlockRecording::record`]: the same bits as running
    /// the recorded writes here. Refused where BLOCKINFO registered abbreviations for the
    /// block's id, which would renumber the block's own.
    pub fn replay_block(&mut self, recording: &BlockRecording) -> Result<()> {
        if self.store.count(&self.store.open_scope(recording.block_id)) != 0 {
            return Err(self.invalid(format!(
                "a recorded block {} where BLOCKINFO defines abbreviations for it",
                recording.block_id
            )));
        }
        self.enter_subblock(recording.block_id, recording.abbrev_width)?;
        self.append_body(&recording.body);
        self.exit_block()
    }

    /// Copies a recorded body right after a block's length word (a word boundary, where the
    /// recording started too).
    fn append_body(&mut self, body: &RecordedBody) {
        debug_assert_eq!(self.sink.acc_bits, 0);
        self.sink.out.extend_from_slice(&body.bytes);
        self.sink.acc = body.acc;
        self.sink.acc_bits = body.acc_bits;
    }

    /// Writes an unabbreviated record: `UNABBREV_RECORD, vbr6 code, vbr6 count, vbr6 ops...`.
    pub fn emit_record_unabbrev(&mut self, code: u32, ops: &[u64]) -> Result<()> {
        self.emit_record_impl(UNABBREV_RECORD, code, ops, None, None)
            .map(|_| ())
    }

    /// Writes a record with abbreviation `abbrev_id` ([`UNABBREV_RECORD`] is accepted too).
    /// The code and operands are checked against the abbreviation first: literals must match,
    /// Fixed values must fit their width, Char6 values must be `[a-zA-Z0-9._]`, and the number
    /// of operands must match (array elements are the operands after the scalar ones).
    pub fn emit_record(&mut self, abbrev_id: u32, code: u32, ops: &[u64]) -> Result<()> {
        self.emit_record_impl(abbrev_id, code, ops, None, None)
            .map(|_| ())
    }

    /// Like [`emit_record`](Self::emit_record), for an abbreviation that ends in `Blob`.
    pub fn emit_record_with_blob(
        &mut self,
        abbrev_id: u32,
        code: u32,
        ops: &[u64],
        blob: &[u8],
    ) -> Result<()> {
        self.emit_record_impl(abbrev_id, code, ops, Some(blob), None)
            .map(|_| ())
    }

    /// Like [`emit_record`](Self::emit_record), but writes operand `operand_index` (which must
    /// be VBR-encoded: any operand of an unabbreviated record, or a `Vbr` operand or array
    /// element) with at least `min_chunks` chunks. Returns the bit position of that operand's
    /// first chunk, counted like [`bit_position`](Self::bit_position), for a later
    /// [`patch_vbr`].
    pub fn emit_record_min_chunks(
        &mut self,
        abbrev_id: u32,
        code: u32,
        ops: &[u64],
        operand_index: usize,
        min_chunks: u32,
    ) -> Result<u64> {
        if min_chunks > MAX_FORCED_CHUNKS {
            return Err(self.invalid(format!(
                "{min_chunks} VBR chunks requested; at most {MAX_FORCED_CHUNKS}"
            )));
        }
        let pad = Padding {
            index: operand_index,
            min_chunks,
        };
        match self.emit_record_impl(abbrev_id, code, ops, None, Some(pad))? {
            Some(pos) => Ok(pos),
            None => Err(Error::new(
                ErrorKind::Internal,
                self.bit_position(),
                "padded operand was not written",
            )),
        }
    }

    fn emit_record_impl(
        &mut self,
        abbrev_id: u32,
        code: u32,
        ops: &[u64],
        blob: Option<&[u8]>,
        pad: Option<Padding>,
    ) -> Result<Option<u64>> {
        let Some(frame) = self.frames.last() else {
            return Err(self.invalid("record outside any block"));
        };
        let scope = frame.scope;
        let in_blockinfo = frame.block_id == BLOCKINFO_BLOCK_ID;
        let has_target = frame.blockinfo_target.is_some();
        if in_blockinfo {
            self.check_blockinfo_record(code, ops, has_target)?;
        }
        let width = frame.abbrev_width;
        if width < 32 && abbrev_id >> width != 0 {
            return Err(self.invalid(format!(
                "abbreviation id {abbrev_id} does not fit in the block's {width}-bit abbreviation width"
            )));
        }
        let padded_at = if abbrev_id == UNABBREV_RECORD {
            if blob.is_some() {
                return Err(self.invalid("an unabbreviated record cannot carry a blob"));
            }
            if u32::try_from(ops.len()).is_err() {
                return Err(self.invalid("more than 2^32 operands"));
            }
            if let Some(p) = pad
                && p.index >= ops.len()
            {
                return Err(self.invalid(format!(
                    "operand {} to pad does not exist ({} operands)",
                    p.index,
                    ops.len()
                )));
            }
            let s = &mut self.sink;
            s.put(u64::from(abbrev_id), width);
            s.put_vbr(u64::from(code), 6, 1);
            s.put_vbr(ops.len() as u64, 6, 1);
            match pad {
                // The common case, without the per-operand padding test.
                None => {
                    for &v in ops {
                        s.put_vbr(v, 6, 1);
                    }
                    None
                }
                Some(p) => {
                    let (before, after) = ops.split_at(p.index);
                    for &v in before {
                        s.put_vbr(v, 6, 1);
                    }
                    let at = s.bit_position();
                    for (k, &v) in after.iter().enumerate() {
                        s.put_vbr(v, 6, if k == 0 { p.min_chunks } else { 1 });
                    }
                    Some(at)
                }
            }
        } else {
            let Some(index) = abbrev_id.checked_sub(FIRST_APPLICATION_ABBREV) else {
                return Err(self.invalid(format!(
                    "abbreviation id {abbrev_id} is built in, not a record abbreviation"
                )));
            };
            let Some(abbrev) = self.store.get(&scope, index as usize) else {
                return Err(self.invalid(format!(
                    "abbreviation id {abbrev_id} is not defined in this block ({} defined)",
                    self.store.count(&scope)
                )));
            };
            // One pass that writes and checks together; a record that does not match is taken
            // back (the sink only ever appends whole words, so its length and pending bits
            // restore it exactly) and checked again for the message.
            let mark = self.sink.mark();
            self.sink.put(u64::from(abbrev_id), width);
            match emit_checked(&mut self.sink, abbrev, code, ops, blob, pad) {
                Some(at) => at,
                None => {
                    self.sink.rewind(mark);
                    let m = match check_abbreviated(abbrev, code, ops, blob, pad) {
                        Err(m) => m,
                        Ok(()) => "rejected while written, accepted when checked".into(),
                    };
                    return Err(
                        self.invalid(format!("record {code} with abbreviation {abbrev_id}: {m}"))
                    );
                }
            }
        };
        if in_blockinfo {
            self.apply_blockinfo_record(code, ops);
        }
        Ok(padded_at)
    }

    fn check_blockinfo_record(&self, code: u32, ops: &[u64], has_target: bool) -> Result<()> {
        match code {
            blockinfo_code::SETBID => match ops.first() {
                None => Err(self.invalid("SETBID without a block id")),
                Some(&id) if u32::try_from(id).is_err() => {
                    Err(self.invalid(format!("SETBID block id {id} exceeds 32 bits")))
                }
                Some(_) => Ok(()),
            },
            blockinfo_code::BLOCKNAME | blockinfo_code::SETRECORDNAME if !has_target => {
                Err(self.invalid(format!("BLOCKINFO record {code} before any SETBID")))
            }
            _ => Ok(()),
        }
    }

    fn apply_blockinfo_record(&mut self, code: u32, ops: &[u64]) {
        if code != blockinfo_code::SETBID {
            return;
        }
        if let Some(id) = ops.first().and_then(|&v| u32::try_from(v).ok()) {
            let list = self.store.blockinfo_list_for(id);
            if let Some(frame) = self.frames.last_mut() {
                frame.blockinfo_target = Some((id, list));
            }
        }
    }

    /// Returns the bytes. Fails if a block is still open.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        if let Some(frame) = self.frames.last() {
            return Err(self.invalid(format!(
                "{} block(s) still open (innermost: block {})",
                self.frames.len(),
                frame.block_id
            )));
        }
        self.sink.align32();
        Ok(self.sink.out)
    }
}

fn check_scalar(op: AbbrevOp, v: u64) -> Result<(), String> {
    match op {
        AbbrevOp::Literal(l) if v != l => Err(format!("{v} differs from the literal {l}")),
        AbbrevOp::Fixed(w) if w < 64 && v >> w != 0 => {
            Err(format!("{v} does not fit in Fixed({w})"))
        }
        AbbrevOp::Vbr(0) if v != 0 => Err(format!("{v} is not 0, the only value of VBR(0)")),
        AbbrevOp::Char6 if !is_char6(v) => Err(format!("{v} is not a Char6 character")),
        AbbrevOp::Array | AbbrevOp::Blob => Err("aggregate in scalar position".into()),
        _ => Ok(()),
    }
}

fn check_padding(op: AbbrevOp) -> Result<(), String> {
    match op {
        AbbrevOp::Vbr(w) if w >= 2 => Ok(()),
        _ => Err(format!(
            "cannot pad operand encoded as {op:?}: it is not VBR"
        )),
    }
}

/// Validates a record against its abbreviation without writing anything.
fn check_abbreviated(
    abbrev: &[AbbrevOp],
    code: u32,
    ops: &[u64],
    blob: Option<&[u8]>,
    pad: Option<Padding>,
) -> Result<(), String> {
    let Some((&code_op, rest)) = abbrev.split_first() else {
        return Err("empty abbreviation".into());
    };
    check_scalar(code_op, u64::from(code)).map_err(|m| format!("record code: {m}"))?;
    let mut vals = ops.iter().copied().enumerate();
    let mut it = rest.iter().copied();
    let mut saw_blob = false;
    while let Some(op) = it.next() {
        match op {
            AbbrevOp::Array => {
                let Some(elt) = it.next() else {
                    return Err("array without element encoding".into());
                };
                let first = ops.len() - vals.len();
                if u32::try_from(ops.len() - first).is_err() {
                    return Err("array longer than 2^32 elements".into());
                }
                for (i, v) in vals.by_ref() {
                    check_scalar(elt, v).map_err(|m| format!("array element {i}: {m}"))?;
                }
                if let Some(p) = pad
                    && p.index >= first
                {
                    check_padding(elt)?;
                }
            }
            AbbrevOp::Blob => {
                saw_blob = true;
                match blob {
                    None => {
                        return Err("the abbreviation ends in a Blob but no blob was given".into());
                    }
                    Some(b) if u32::try_from(b.len()).is_err() => {
                        return Err("blob longer than 2^32 bytes".into());
                    }
                    Some(_) => {}
                }
            }
            _ => {
                let Some((i, v)) = vals.next() else {
                    return Err(format!("too few operands ({})", ops.len()));
                };
                check_scalar(op, v).map_err(|m| format!("operand {i}: {m}"))?;
                if pad.is_some_and(|p| p.index == i) {
                    check_padding(op)?;
                }
            }
        }
    }
    if vals.next().is_some() {
        return Err(format!("too many operands ({})", ops.len()));
    }
    if blob.is_some() && !saw_blob {
        return Err("a blob was given but the abbreviation has no Blob operand".into());
    }
    if let Some(p) = pad
        && p.index >= ops.len()
    {
        return Err(format!("operand {} to pad does not exist", p.index));
    }
    Ok(())
}

/// Writes one operand, or `None` (having written nothing) when `v` does not fit `op`.
#[inline(always)]
fn put_checked(s: &mut BitSink, op: AbbrevOp, v: u64, min_chunks: u32) -> Option<()> {
    match op {
        AbbrevOp::Literal(l) => (v == l).then_some(()),
        AbbrevOp::Fixed(w) => {
            if w < 64 && v >> w != 0 {
                return None;
            }
            s.put_wide(v, w);
            Some(())
        }
        // Widths of 1 or over 32 never pass `validate_abbrev`.
        AbbrevOp::Vbr(w) if w >= 2 => {
            s.put_vbr(v, w, min_chunks);
            Some(())
        }
        AbbrevOp::Vbr(_) => (v == 0).then_some(()),
        AbbrevOp::Char6 => {
            s.put(encode_char6(v)?, 6);
            Some(())
        }
        AbbrevOp::Array | AbbrevOp::Blob => None,
    }
}

/// Whether a padded operand may be encoded as `op`.
fn paddable(op: AbbrevOp) -> bool {
    matches!(op, AbbrevOp::Vbr(w) if w >= 2)
}

/// Writes a record with its abbreviation, checking as it goes what [`check_abbreviated`]
/// checks. `None` when the record does not match; the bits written until then are the
/// caller's to take back. Otherwise the padded operand's bit position, if any.
fn emit_checked(
    s: &mut BitSink,
    abbrev: &[AbbrevOp],
    code: u32,
    ops: &[u64],
    blob: Option<&[u8]>,
    pad: Option<Padding>,
) -> Option<Option<u64>> {
    let (&code_op, rest) = abbrev.split_first()?;
    put_checked(s, code_op, u64::from(code), 1)?;
    let mut padded_at = None;
    let mut next = 0usize;
    let mut saw_blob = false;
    let mut it = rest.iter().copied();
    while let Some(op) = it.next() {
        match op {
            AbbrevOp::Array => {
                let elt = it.next()?;
                let elems = ops.get(next..)?;
                u32::try_from(elems.len()).ok()?;
                s.put_vbr(elems.len() as u64, 6, 1);
                match pad {
                    Some(p) if p.index >= next => {
                        if !paddable(elt) {
                            return None;
                        }
                        for (k, &v) in elems.iter().enumerate() {
                            let min_chunks = if next + k == p.index {
                                padded_at = Some(s.bit_position());
                                p.min_chunks
                            } else {
                                1
                            };
                            put_checked(s, elt, v, min_chunks)?;
                        }
                    }
                    _ => {
                        for &v in elems {
                            put_checked(s, elt, v, 1)?;
                        }
                    }
                }
                next = ops.len();
            }
            AbbrevOp::Blob => {
                let bytes = blob?;
                u32::try_from(bytes.len()).ok()?;
                saw_blob = true;
                s.put_vbr(bytes.len() as u64, 6, 1);
                s.align32();
                s.out.extend_from_slice(bytes);
                s.out.resize(s.out.len().next_multiple_of(4), 0);
            }
            _ => {
                let &v = ops.get(next)?;
                let min_chunks = match pad {
                    Some(p) if p.index == next => {
                        if !paddable(op) {
                            return None;
                        }
                        padded_at = Some(s.bit_position());
                        p.min_chunks
                    }
                    _ => 1,
                };
                put_checked(s, op, v, min_chunks)?;
                next += 1;
            }
        }
    }
    if next != ops.len() || (blob.is_some() && !saw_blob) {
        return None;
    }
    if pad.is_some_and(|p| p.index >= ops.len()) {
        return None;
    }
    Some(padded_at)
}

/// Overwrites, in place, a VBR field of exactly `chunks` chunks of `width` bits that starts at
/// `bit_offset` in `bytes` (bit 0 = LSB of `bytes[0]`), keeping its length: continuation bits
/// stay `1…1 0` and no block length or offset changes. Fails if the field found there does not
/// have exactly that many chunks (a wrong offset) or `value` needs more than
/// `(width-1)*chunks` bits. This is how patchable constants written with
/// [`BitstreamWriter::emit_record_min_chunks`] are specialized later.
pub fn patch_vbr(
    bytes: &mut [u8],
    bit_offset: u64,
    width: u32,
    chunks: u32,
    value: u64,
) -> Result<()> {
    let fail = |kind, m: String| Err(Error::new(kind, bit_offset, m));
    if !(2..=32).contains(&width) || chunks == 0 {
        return fail(
            ErrorKind::InvalidWrite,
            format!("cannot patch VBR{width} with {chunks} chunks"),
        );
    }
    let payload_bits = u64::from(width - 1) * u64::from(chunks);
    if payload_bits < 64 && value >> payload_bits != 0 {
        return fail(
            ErrorKind::InvalidWrite,
            format!("{value} needs more than the {payload_bits} payload bits of the field"),
        );
    }
    let total = u64::from(width) * u64::from(chunks);
    if bit_offset
        .checked_add(total)
        .is_none_or(|end| end > bytes.len() as u64 * 8)
    {
        return fail(
            ErrorKind::Truncated,
            format!("a {total}-bit field does not fit in {} bytes", bytes.len()),
        );
    }
    let bit = |bytes: &[u8], pos: u64| {
        bytes
            .get((pos / 8) as usize)
            .is_some_and(|b| b >> (pos % 8) & 1 == 1)
    };
    for c in 0..u64::from(chunks) {
        let cont_pos = bit_offset + c * u64::from(width) + u64::from(width) - 1;
        if bit(bytes, cont_pos) != (c + 1 < u64::from(chunks)) {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "the VBR{width} field at this offset does not have exactly {chunks} chunks"
                ),
            );
        }
    }
    for i in 0..payload_bits {
        let chunk = i / u64::from(width - 1);
        let pos = bit_offset + chunk * u64::from(width) + i % u64::from(width - 1);
        let set = i < 64 && (value >> i) & 1 == 1;
        if let Some(b) = bytes.get_mut((pos / 8) as usize) {
            let m = 1u8 << (pos % 8);
            if set {
                *b |= m;
            } else {
                *b &= !m;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bits::BitCursor;
    use crate::{BitstreamReader, Entry};

    /// `value` as VBR`n` with at least `min_chunks` chunks, zero-padded to whole words.
    pub(crate) fn raw_vbr(value: u64, n: u32, min_chunks: u32) -> Vec<u8> {
        let mut s = BitSink::default();
        s.put_vbr(value, n, min_chunks);
        s.align32();
        s.out
    }

    fn body(bytes: &[u8]) -> BitCursor<'_> {
        let mut c = BitCursor::new(bytes, 0);
        c.seek(32);
        c
    }

    #[test]
    fn empty_stream_is_just_the_magic() {
        assert_eq!(BitstreamWriter::new().finish().unwrap(), BITCODE_MAGIC);
    }

    #[test]
    fn module_block_header_matches_llvm_layout() {
        // DXC's validator tests spell a MODULE block entry as 21 0C 00 00.
        let mut w = BitstreamWriter::new();
        w.enter_subblock(8, 3).unwrap();
        w.exit_block().unwrap();
        assert_eq!(
            w.finish().unwrap(),
            [
                0x42, 0x43, 0xC0, 0xDE, 0x21, 0x0C, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0
            ]
        );
    }

    #[test]
    fn canonical_vbr_matches_llvm() {
        // vbr6(32) = 100000 000001; vbr8(127) = 1 chunk; vbr8(128) = 10000000 00000001.
        assert_eq!(raw_vbr(32, 6, 1), [0x20 | (1 << 6), 0, 0, 0]);
        assert_eq!(raw_vbr(127, 8, 1), [127, 0, 0, 0]);
        assert_eq!(raw_vbr(128, 8, 1), [0x80, 0x01, 0, 0]);
        assert_eq!(raw_vbr(0, 6, 1), [0, 0, 0, 0]);
        // u64::MAX in vbr32: 3 chunks of 31 payload bits.
        let b = raw_vbr(u64::MAX, 32, 1);
        assert_eq!(b.len(), 12);
        assert_eq!(BitCursor::new(&b, 0).read_vbr(32).unwrap(), u64::MAX);
    }

    #[test]
    fn vbr_lengths_are_canonical_at_every_width() {
        // The canonical length: as many chunks as the value needs, at least one.
        let chunks = |v: u64, n: u32| 1 + (64 - v.leading_zeros()).saturating_sub(1) / (n - 1);
        for n in 2..=32u32 {
            let cont = 1u64 << (n - 1);
            let two = 1u128 << (2 * (n - 1));
            let mut values = vec![0, 1, cont - 1, cont, cont + 1, u64::MAX, u64::MAX >> 1];
            if let Ok(t) = u64::try_from(two) {
                values.extend([t - 1, t, t + 1]);
            }
            for v in values {
                let mut s = BitSink::default();
                s.put_vbr(v, n, 1);
                let bits = s.bit_position();
                assert_eq!(bits, u64::from(n * chunks(v, n)), "vbr{n}({v})");
                s.align32();
                assert_eq!(
                    BitCursor::new(&s.out, 0).read_vbr(n).unwrap(),
                    v,
                    "vbr{n}({v})"
                );
            }
        }
    }

    #[test]
    fn forced_chunks_are_over_long_and_patchable() {
        // Godot's sentinel: 0x45678900 sign-rotated is 0x8ACF1200, 5 VBR8 chunks.
        let mut w = BitstreamWriter::new();
        w.enter_subblock(11, 4).unwrap();
        let int = w
            .define_abbrev(&[AbbrevOp::Literal(4), AbbrevOp::Vbr(8)])
            .unwrap();
        let small = w.emit_record_min_chunks(int, 4, &[2], 0, 5).unwrap();
        let unabbrev = w
            .emit_record_min_chunks(UNABBREV_RECORD, 4, &[7, 2], 1, 3)
            .unwrap();
        w.exit_block().unwrap();
        let mut bytes = w.finish().unwrap();

        let mut c = BitCursor::new(&bytes, 0);
        c.seek(small);
        assert_eq!(c.read_vbr(8).unwrap(), 2);
        assert_eq!(c.pos(), small + 40);
        c.seek(unabbrev);
        assert_eq!(c.read_vbr(6).unwrap(), 2);
        assert_eq!(c.pos(), unabbrev + 18);

        patch_vbr(&mut bytes, small, 8, 5, 0x8ACF_1200).unwrap();
        patch_vbr(&mut bytes, unabbrev, 6, 3, 0x7FFF).unwrap();
        let mut r = BitstreamReader::new(&bytes, 0).unwrap();
        let mut ops = Vec::new();
        let mut seen = Vec::new();
        loop {
            match r.next().unwrap() {
                Entry::SubBlock { .. } => r.enter_block().unwrap(),
                Entry::Record { .. } => {
                    r.read_record(&mut ops).unwrap();
                    seen.push(ops.clone());
                }
                Entry::EndOfStream => break,
                _ => {}
            }
        }
        assert_eq!(seen, [vec![0x8ACF_1200], vec![7, 0x7FFF]]);

        // Too wide for the field, wrong chunk count, out of range.
        assert!(patch_vbr(&mut bytes, small, 8, 5, 1 << 35).is_err());
        let mut w = BitstreamWriter::new();
        assert!(w.emit_vbr_min_chunks(1, 6, 65).is_err());
        w.enter_subblock(8, 3).unwrap();
        assert!(
            w.emit_record_min_chunks(UNABBREV_RECORD, 1, &[1], 0, 65)
                .is_err()
        );
        assert_eq!(w.bit_position(), 96);
        assert_eq!(
            patch_vbr(&mut bytes, small, 8, 4, 1).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            patch_vbr(&mut bytes, small + 1, 8, 5, 1)
                .unwrap_err()
                .kind(),
            ErrorKind::Malformed
        );
        assert_eq!(
            patch_vbr(&mut bytes, u64::MAX - 3, 8, 5, 1)
                .unwrap_err()
                .kind(),
            ErrorKind::Truncated
        );
    }

    #[test]
    fn define_abbrev_encoding_matches_llvm() {
        let mut w = BitstreamWriter::new();
        w.enter_subblock(17, 4).unwrap();
        let before = w.bit_position();
        let id = w
            .define_abbrev(&[
                AbbrevOp::Literal(8),
                AbbrevOp::Fixed(0),
                AbbrevOp::Vbr(0),
                AbbrevOp::Fixed(64),
                AbbrevOp::Array,
                AbbrevOp::Char6,
            ])
            .unwrap();
        assert_eq!(id, 4);
        w.exit_block().unwrap();
        let bytes = w.finish().unwrap();
        let mut c = body(&bytes);
        c.seek(before);
        assert_eq!(c.read_fixed(4).unwrap(), 2, "DEFINE_ABBREV id");
        assert_eq!(c.read_vbr(5).unwrap(), 6, "operand count");
        assert_eq!((c.read_fixed(1).unwrap(), c.read_vbr(8).unwrap()), (1, 8));
        // Fixed(0) and VBR(0) are written with an explicit width of 0, as LLVM 3.7 does.
        for (enc, width) in [
            (1, Some(0)),
            (2, Some(0)),
            (1, Some(64)),
            (3, None),
            (4, None),
        ] {
            assert_eq!(c.read_fixed(1).unwrap(), 0);
            assert_eq!(c.read_fixed(3).unwrap(), enc);
            if let Some(width) = width {
                assert_eq!(c.read_vbr(5).unwrap(), width);
            }
        }
        // id, count, literal, Fixed(0), VBR(0), Fixed(64) (vbr5 64 takes two chunks), Array, Char6.
        assert_eq!(c.pos(), before + 4 + 5 + 9 + 9 + 9 + 14 + 4 + 4);
    }

    #[test]
    fn records_are_validated_against_their_abbreviation() {
        let mut w = BitstreamWriter::new();
        w.enter_subblock(12, 4).unwrap();
        let a = w
            .define_abbrev(&[
                AbbrevOp::Literal(3),
                AbbrevOp::Fixed(4),
                AbbrevOp::Vbr(0),
                AbbrevOp::Char6,
            ])
            .unwrap();
        let arr = w
            .define_abbrev(&[AbbrevOp::Fixed(5), AbbrevOp::Array, AbbrevOp::Fixed(8)])
            .unwrap();
        let blob = w
            .define_abbrev(&[AbbrevOp::Literal(9), AbbrevOp::Blob])
            .unwrap();
        let pos = w.bit_position();
        let bad: &[(u32, u32, &[u64])] = &[
            (a, 4, &[1, 0, 97]),                         // literal code mismatch
            (a, 3, &[16, 0, 97]),                        // Fixed(4) overflow
            (a, 3, &[1, 1, 97]),                         // VBR(0) must be 0
            (a, 3, &[1, 0, u64::from(b'-')]),            // not Char6
            (a, 3, &[1, 0]),                             // too few
            (a, 3, &[1, 0, 97, 5]),                      // too many
            (arr, 32, &[1]),                             // Fixed(5) code overflow
            (arr, 1, &[256]),                            // element overflow
            (arr, 1, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 256]), // overflow after whole words were written
            (blob, 9, &[]),                              // blob missing
            (2, 9, &[]),                                 // built-in id
            (7, 9, &[]),                                 // undefined id
            (16, 9, &[]),                                // does not fit 4 bits
        ];
        for &(id, code, ops) in bad {
            let e = w.emit_record(id, code, ops).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidWrite, "{id} {code} {ops:?}");
            assert_eq!(w.bit_position(), pos, "a failed write must not emit bits");
        }
        assert!(w.emit_record_with_blob(a, 3, &[1, 0, 97], b"x").is_err());
        assert!(
            w.emit_record_with_blob(UNABBREV_RECORD, 3, &[], b"x")
                .is_err()
        );
        assert!(w.emit_record_min_chunks(a, 3, &[1, 0, 97], 0, 3).is_err());
        assert!(
            w.emit_record_min_chunks(UNABBREV_RECORD, 3, &[1], 1, 3)
                .is_err()
        );
        assert_eq!(w.bit_position(), pos);

        w.emit_record(a, 3, &[15, 0, u64::from(b'_')]).unwrap();
        w.emit_record(arr, 31, &[]).unwrap();
        w.emit_record(arr, 0, &[0, 255, 7]).unwrap();
        w.emit_record_with_blob(blob, 9, &[], b"abcde").unwrap();
        w.exit_block().unwrap();
        assert!(w.exit_block().is_err());
        assert!(w.emit_record_unabbrev(1, &[]).is_err());
        assert!(w.define_abbrev(&[AbbrevOp::Literal(1)]).is_err());
        w.finish().unwrap();
    }

    #[test]
    fn blockinfo_registration_and_errors() {
        let mut w = BitstreamWriter::new();
        assert!(w.enter_subblock(8, 0).is_err());
        assert!(w.enter_subblock(8, 33).is_err());
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        assert!(
            w.define_abbrev(&[AbbrevOp::Literal(1)]).is_err(),
            "before SETBID"
        );
        assert!(
            w.emit_record_unabbrev(blockinfo_code::BLOCKNAME, &[97])
                .is_err()
        );
        assert!(w.emit_record_unabbrev(blockinfo_code::SETBID, &[]).is_err());
        assert_eq!(
            w.define_blockinfo_abbrev(11, &[AbbrevOp::Literal(4), AbbrevOp::Vbr(8)])
                .unwrap(),
            4
        );
        assert_eq!(
            w.define_blockinfo_abbrev(11, &[AbbrevOp::Literal(2)])
                .unwrap(),
            5
        );
        assert_eq!(
            w.define_blockinfo_abbrev(12, &[AbbrevOp::Literal(10)])
                .unwrap(),
            4
        );
        w.exit_block().unwrap();
        assert!(w.set_blockinfo_target(3).is_err(), "outside BLOCKINFO");
        w.enter_subblock(11, 4).unwrap();
        assert_eq!(
            w.define_abbrev(&[AbbrevOp::Literal(1), AbbrevOp::Fixed(3)])
                .unwrap(),
            6
        );
        w.emit_record(4, 4, &[1 << 40]).unwrap();
        w.emit_record(5, 2, &[]).unwrap();
        w.emit_record(6, 1, &[7]).unwrap();
        assert!(w.emit_record(7, 1, &[]).is_err());
        assert!(w.finish().is_err(), "blocks still open");
    }

    /// The BLOCKINFO definitions of the replay test: two block ids, odd bit counts, and a body
    /// that ends inside a word.
    fn define_some(w: &mut BitstreamWriter) -> Result<()> {
        w.define_blockinfo_abbrev(11, &[AbbrevOp::Literal(4), AbbrevOp::Vbr(8)])?;
        w.define_blockinfo_abbrev(11, &[AbbrevOp::Literal(2)])?;
        w.define_blockinfo_abbrev(12, &[AbbrevOp::Literal(10), AbbrevOp::Fixed(5)])?;
        Ok(())
    }

    /// Writes a module block with a BLOCKINFO block (directly or replayed), then records through
    /// its abbreviations and one defined after the replay.
    fn stream_with(replay: Option<&BlockinfoRecording>) -> Vec<u8> {
        let mut w = BitstreamWriter::new();
        w.enter_subblock(8, 3).unwrap();
        match replay {
            Some(r) => w.replay_blockinfo(r).unwrap(),
            None => {
                w.enter_blockinfo().unwrap();
                define_some(&mut w).unwrap();
                w.exit_block().unwrap();
            }
        }
        w.enter_subblock(11, 4).unwrap();
        w.emit_record(4, 4, &[1 << 40]).unwrap();
        w.emit_record(5, 2, &[]).unwrap();
        assert!(
            w.emit_record(6, 1, &[]).is_err(),
            "no third abbreviation for block 11"
        );
        w.exit_block().unwrap();
        w.enter_subblock(12, 3).unwrap();
        w.emit_record(4, 10, &[31]).unwrap();
        assert!(
            w.emit_record(4, 10, &[32]).is_err(),
            "Fixed(5) still checked"
        );
        w.exit_block().unwrap();
        w.exit_block().unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn replayed_blockinfo_is_the_written_one() {
        let recording = BlockinfoRecording::record(define_some).unwrap();
        let direct = stream_with(None);
        assert_eq!(stream_with(Some(&recording)), direct);
        assert_eq!(stream_with(Some(&recording)), direct, "replayable again");

        // Only as the first BLOCKINFO block, and the definitions must stay inside theirs.
        let mut w = BitstreamWriter::new();
        w.enter_subblock(8, 3).unwrap();
        w.replay_blockinfo(&recording).unwrap();
        assert!(w.replay_blockinfo(&recording).is_err());
        assert!(BlockinfoRecording::record::<Error>(|w| w.exit_block()).is_err());
    }

    #[test]
    fn replayed_block_is_the_written_one() {
        let write = |w: &mut BitstreamWriter| -> Result<()> {
            w.emit_record_unabbrev(6, &[0, 100, 98, 103])?;
            let id = w.define_abbrev(&[AbbrevOp::Literal(4), AbbrevOp::Array, AbbrevOp::Char6])?;
            w.emit_record(id, 4, &[u64::from(b'x'), u64::from(b'.')])
        };
        let recording = BlockRecording::record(15, 3, write).unwrap();
        let stream = |replay: bool| {
            let mut w = BitstreamWriter::new();
            w.enter_subblock(8, 3).unwrap();
            w.emit_fixed(5, 3).unwrap();
            if replay {
                w.replay_block(&recording).unwrap();
            } else {
                w.enter_subblock(15, 3).unwrap();
                write(&mut w).unwrap();
                w.exit_block().unwrap();
            }
            w.emit_record_unabbrev(1, &[2]).unwrap();
            w.exit_block().unwrap();
            w.finish().unwrap()
        };
        assert_eq!(stream(true), stream(false));

        // Not where BLOCKINFO numbers abbreviations for that block id first.
        let mut w = BitstreamWriter::new();
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        w.define_blockinfo_abbrev(15, &[AbbrevOp::Literal(2)])
            .unwrap();
        w.exit_block().unwrap();
        assert!(w.replay_block(&recording).is_err());
        assert!(BlockRecording::record::<Error>(15, 3, |w| w.exit_block()).is_err());
    }
}
