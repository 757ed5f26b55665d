//! Abbreviation operands, their validation, Char6, and the per-block abbreviation tables
//! shared by the reader and the writer.

use std::collections::HashMap;
use std::sync::Arc;

use crate::limits;

/// One operand of an abbreviation (`DEFINE_ABBREV`).
///
/// The first operand of an abbreviation encodes the record code; the others encode the record's
/// operands in order. `Fixed(0)` and `Vbr(0)` are kept as written (DXC writes them, and an exact
/// re-encoding must reproduce them) but take no bits and decode as the value 0, as LLVM does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AbbrevOp {
    /// A constant that takes no bits in the record.
    Literal(u64),
    /// A fixed-width field of 0 to 64 bits.
    Fixed(u32),
    /// A variable-width field in chunks of 2 to 32 bits (0: the constant 0).
    Vbr(u32),
    /// `vbr6` element count, then the elements, each encoded as the next (and last) operand.
    Array,
    /// A 6-bit character from `[a-zA-Z0-9._]`; the decoded operand is the character's ASCII code.
    Char6,
    /// `vbr6` byte count, 32-bit alignment, the bytes, 32-bit alignment. Must be the last operand.
    Blob,
}

/// The 3-bit encoding numbers `DEFINE_ABBREV` uses for non-literal operands.
pub(crate) mod encoding {
    pub const FIXED: u64 = 1;
    pub const VBR: u64 = 2;
    pub const ARRAY: u64 = 3;
    pub const CHAR6: u64 = 4;
    pub const BLOB: u64 = 5;
}

const CHAR6_DECODE: [u8; 64] = *b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

/// Decodes a 6-bit Char6 value (only the low 6 bits are used) to its ASCII character.
#[inline]
pub fn decode_char6(bits: u64) -> u8 {
    CHAR6_DECODE[(bits & 63) as usize]
}

/// Encodes an ASCII character as Char6, or `None` when it is outside `[a-zA-Z0-9._]`.
#[inline]
pub fn encode_char6(ch: u64) -> Option<u64> {
    let c = u8::try_from(ch).ok()?;
    Some(u64::from(match c {
        b'a'..=b'z' => c - b'a',
        b'A'..=b'Z' => c - b'A' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'.' => 62,
        b'_' => 63,
        _ => return None,
    }))
}

/// Whether `ch` is representable as Char6.
pub fn is_char6(ch: u64) -> bool {
    encode_char6(ch).is_some()
}

impl AbbrevOp {
    /// The fewest bits one value of this operand can take inside an array; `None` for operands
    /// that cannot be array elements.
    pub(crate) fn min_element_bits(self) -> Option<u64> {
        match self {
            AbbrevOp::Fixed(w) if w >= 1 => Some(u64::from(w)),
            AbbrevOp::Vbr(w) if w >= 2 => Some(u64::from(w)),
            AbbrevOp::Char6 => Some(6),
            _ => None,
        }
    }
}

/// Checks the structural rules of an abbreviation. Returns a description of the first
/// violation.
///
/// The rules are those of LLVM's reader, applied when the abbreviation is defined rather than
/// when it is used (LLVM 3.7 checks some of them only when a record uses the abbreviation):
/// at least one operand; `Fixed` width ≤ 64; `Vbr` width 0 or 2..=32; the first operand (the
/// record code) is neither `Array` nor `Blob`; `Array` is second to last and followed by a
/// `Fixed`/`Vbr` of non-zero width or `Char6`; `Blob` is last.
pub fn validate_abbrev(ops: &[AbbrevOp]) -> Result<(), String> {
    if ops.is_empty() {
        return Err("abbreviation has no operands".into());
    }
    if ops.len() > limits::MAX_ABBREV_OPERANDS {
        return Err(format!(
            "abbreviation has {} operands, more than the limit of {}",
            ops.len(),
            limits::MAX_ABBREV_OPERANDS
        ));
    }
    let last = ops.len() - 1;
    for (i, op) in ops.iter().enumerate() {
        match *op {
            AbbrevOp::Literal(_) | AbbrevOp::Char6 => {}
            AbbrevOp::Fixed(w) => {
                if w > 64 {
                    return Err(format!("operand {i}: Fixed width {w} exceeds 64"));
                }
            }
            AbbrevOp::Vbr(w) => {
                if w == 1 || w > 32 {
                    return Err(format!("operand {i}: VBR width {w} is not 0 or 2..=32"));
                }
            }
            AbbrevOp::Array => {
                if i == 0 {
                    return Err("the record code operand is an Array".into());
                }
                if i + 1 != last {
                    return Err(format!("operand {i}: Array is not second to last"));
                }
                let elt = ops.get(last).copied();
                if elt.and_then(AbbrevOp::min_element_bits).is_none() {
                    return Err(format!(
                        "operand {i}: Array element {elt:?} is not Fixed/VBR of non-zero width or Char6"
                    ));
                }
            }
            AbbrevOp::Blob => {
                if i == 0 {
                    return Err("the record code operand is a Blob".into());
                }
                if i != last {
                    return Err(format!("operand {i}: Blob is not the last operand"));
                }
            }
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    start: usize,
    len: usize,
}

/// The abbreviation scope of one open block, as the reader and the writer track it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope {
    /// The BLOCKINFO list for this block's id, if any.
    blockinfo_list: Option<usize>,
    /// How many BLOCKINFO abbreviations were registered for this id when the block was entered;
    /// later registrations do not apply to an already open block (as in LLVM).
    blockinfo_count: usize,
    local_start: usize,
    local_ops_start: usize,
}

/// Abbreviation storage without per-block allocation: BLOCKINFO abbreviations live for the
/// whole stream, local ones on a stack that is cut back when their block ends. Entering a
/// block copies nothing: its ids resolve first to the BLOCKINFO list as it was on entry, then
/// to its own definitions.
#[derive(Debug, Clone)]
pub(crate) struct AbbrevStore {
    /// Shared, so that a reader can take the tables of an identical BLOCKINFO block read
    /// before (see [`AbbrevStore::blockinfo_tables`]); copied on the first change.
    blockinfo: Arc<BlockinfoTables>,
    local: Vec<Span>,
    local_ops: Vec<AbbrevOp>,
}

/// What BLOCKINFO blocks registered: abbreviation lists per block id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockinfoTables {
    /// BLOCKINFO list index per block id: direct for the small ids real streams use, hashed
    /// for the rest.
    small: [Option<u32>; SMALL_BLOCK_IDS],
    index: HashMap<u32, usize>,
    lists: Vec<Vec<Span>>,
    ops: Vec<AbbrevOp>,
}

impl BlockinfoTables {
    fn new() -> Self {
        // Empty until the first SETBID: a reader usually takes the tables of an identical
        // block read before (see the reader's memo) and never fills these.
        BlockinfoTables {
            small: [None; SMALL_BLOCK_IDS],
            index: HashMap::new(),
            lists: Vec::new(),
            ops: Vec::new(),
        }
    }

    #[inline]
    fn list_of(&self, block_id: u32) -> Option<usize> {
        match self.small.get(block_id as usize) {
            Some(slot) => slot.map(|i| i as usize),
            None => self.index.get(&block_id).copied(),
        }
    }
}

const SMALL_BLOCK_IDS: usize = 32;

impl Scope {
    /// The scope of the top level, where no abbreviation applies.
    pub const TOP_LEVEL: Scope = Scope {
        blockinfo_list: None,
        blockinfo_count: 0,
        local_start: 0,
        local_ops_start: 0,
    };
}

/// Shared empty tables, so that a store costs no allocation until BLOCKINFO registers
/// something (and usually not then either: see the reader's memo).
fn empty_tables() -> Arc<BlockinfoTables> {
    thread_local! {
        static EMPTY: Arc<BlockinfoTables> = Arc::new(BlockinfoTables::new());
    }
    EMPTY.with(Arc::clone)
}

impl Default for AbbrevStore {
    fn default() -> Self {
        // Sized for a DXC module: a few local abbreviations per block.
        AbbrevStore::with_buffers(Vec::new(), Vec::new())
    }
}

impl AbbrevStore {
    /// A store whose local abbreviations go into these (emptied) buffers.
    pub fn with_buffers(mut local: Vec<Span>, mut local_ops: Vec<AbbrevOp>) -> Self {
        local.clear();
        local_ops.clear();
        if local.capacity() == 0 {
            // Sized for a DXC module: a few local abbreviations per block.
            local.reserve(16);
            local_ops.reserve(64);
        }
        AbbrevStore {
            blockinfo: empty_tables(),
            local,
            local_ops,
        }
    }

    /// Takes the local buffers (for reuse by a later store), leaving this store without
    /// local abbreviations.
    pub fn take_buffers(&mut self) -> (Vec<Span>, Vec<AbbrevOp>) {
        (
            std::mem::take(&mut self.local),
            std::mem::take(&mut self.local_ops),
        )
    }

    /// Whether no BLOCKINFO block has registered anything yet.
    pub fn blockinfo_is_empty(&self) -> bool {
        self.blockinfo.lists.is_empty()
    }

    /// The BLOCKINFO tables, to be shared with a later reader of an identical block.
    pub fn blockinfo_tables(&self) -> Arc<BlockinfoTables> {
        Arc::clone(&self.blockinfo)
    }

    /// Takes the tables another store built from an identical BLOCKINFO block (this store's
    /// must still be empty).
    pub fn set_blockinfo_tables(&mut self, tables: Arc<BlockinfoTables>) {
        debug_assert!(self.blockinfo_is_empty());
        self.blockinfo = tables;
    }

    #[inline]
    fn blockinfo_list_of(&self, block_id: u32) -> Option<usize> {
        self.blockinfo.list_of(block_id)
    }

    pub fn open_scope(&self, block_id: u32) -> Scope {
        let blockinfo_list = self.blockinfo_list_of(block_id);
        let blockinfo_count = blockinfo_list
            .and_then(|i| self.blockinfo.lists.get(i))
            .map_or(0, Vec::len);
        Scope {
            blockinfo_list,
            blockinfo_count,
            local_start: self.local.len(),
            local_ops_start: self.local_ops.len(),
        }
    }

    pub fn close_scope(&mut self, scope: &Scope) {
        self.local.truncate(scope.local_start);
        self.local_ops.truncate(scope.local_ops_start);
    }

    /// Number of application abbreviations visible in the innermost scope.
    pub fn count(&self, scope: &Scope) -> usize {
        scope.blockinfo_count + self.local.len().saturating_sub(scope.local_start)
    }

    /// Operands of application abbreviation `index` (abbrev id minus 4) in the innermost scope.
    #[inline]
    pub fn get(&self, scope: &Scope, index: usize) -> Option<&[AbbrevOp]> {
        let (span, ops) = if index < scope.blockinfo_count {
            let list = self.blockinfo.lists.get(scope.blockinfo_list?)?;
            (*list.get(index)?, &self.blockinfo.ops)
        } else {
            let i = scope.local_start + (index - scope.blockinfo_count);
            (*self.local.get(i)?, &self.local_ops)
        };
        ops.get(span.start..span.start + span.len)
    }

    /// The BLOCKINFO list for `block_id`, created on first use (what SETBID does).
    pub fn blockinfo_list_for(&mut self, block_id: u32) -> usize {
        if let Some(i) = self.blockinfo_list_of(block_id) {
            return i;
        }
        let tables = Arc::make_mut(&mut self.blockinfo);
        let next = tables.lists.len();
        if tables.lists.capacity() == 0 {
            // A DXC module registers abbreviations for three block ids.
            tables.lists.reserve(4);
        }
        match tables.small.get_mut(block_id as usize) {
            // Lists are bounded by the input size, far below u32::MAX.
            Some(slot) => *slot = Some(next as u32),
            None => {
                tables.index.insert(block_id, next);
            }
        }
        tables.lists.push(Vec::with_capacity(8));
        next
    }

    pub fn blockinfo_list_len(&self, list: usize) -> usize {
        self.blockinfo.lists.get(list).map_or(0, Vec::len)
    }

    /// Operands of abbreviation `index` registered by BLOCKINFO for `block_id`.
    pub fn blockinfo_get(&self, block_id: u32, index: usize) -> Option<&[AbbrevOp]> {
        let list = self
            .blockinfo
            .lists
            .get(self.blockinfo_list_of(block_id)?)?;
        let span = list.get(index)?;
        self.blockinfo.ops.get(span.start..span.start + span.len)
    }

    /// Starts a new abbreviation's operand list; finish it with `commit_*` or drop it with
    /// `abandon`. Lets the reader decode operands straight into the store.
    pub fn ops_for(&mut self, blockinfo: bool) -> &mut Vec<AbbrevOp> {
        if blockinfo {
            let tables = Arc::make_mut(&mut self.blockinfo);
            if tables.ops.capacity() == 0 {
                // Sized for a DXC module's BLOCKINFO (17 abbreviations, 60 operands).
                tables.ops.reserve(64);
            }
            &mut tables.ops
        } else {
            &mut self.local_ops
        }
    }

    /// The operands pushed since `start` by [`Self::ops_for`].
    pub fn pending_ops(&self, blockinfo: bool, start: usize) -> &[AbbrevOp] {
        let ops = if blockinfo {
            &self.blockinfo.ops
        } else {
            &self.local_ops
        };
        ops.get(start..).unwrap_or(&[])
    }

    /// Registers the operands pushed since `start` as a local abbreviation; returns its index.
    pub fn commit_local(&mut self, scope: &Scope, start: usize) -> usize {
        self.local.push(Span {
            start,
            len: self.local_ops.len() - start,
        });
        self.count(scope) - 1
    }

    /// Registers the operands pushed since `start` for BLOCKINFO list `list`; returns its index.
    pub fn commit_blockinfo(&mut self, list: usize, start: usize) -> usize {
        let tables = Arc::make_mut(&mut self.blockinfo);
        let span = Span {
            start,
            len: tables.ops.len() - start,
        };
        match tables.lists.get_mut(list) {
            Some(l) => {
                l.push(span);
                l.len() - 1
            }
            None => 0,
        }
    }

    pub fn abandon(&mut self, blockinfo: bool, start: usize) {
        self.ops_for(blockinfo).truncate(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char6_round_trips_all_64_values() {
        for v in 0..64u64 {
            let ch = decode_char6(v);
            assert_eq!(encode_char6(u64::from(ch)), Some(v), "{}", ch as char);
        }
        assert_eq!(decode_char6(0), b'a');
        assert_eq!(decode_char6(26), b'A');
        assert_eq!(decode_char6(52), b'0');
        assert_eq!(decode_char6(62), b'.');
        assert_eq!(decode_char6(63), b'_');
        for bad in [b' ', b'-', b'$', b'/', b'{', b'`', b'@', b'[', b':', 0, 127] {
            assert!(!is_char6(u64::from(bad)), "{bad}");
        }
        assert!(!is_char6(u64::from(b'a') + 256));
    }

    #[test]
    fn validation_rules() {
        use AbbrevOp::*;
        let ok: &[&[AbbrevOp]] = &[
            &[Literal(1)],
            &[Fixed(0), Vbr(0), Fixed(64), Vbr(2), Vbr(32)],
            &[Literal(4), Array, Char6],
            &[Fixed(3), Vbr(8), Array, Fixed(8)],
            &[Literal(1), Fixed(1), Blob],
            &[Char6, Array, Vbr(6)],
        ];
        for ops in ok {
            assert_eq!(validate_abbrev(ops), Ok(()), "{ops:?}");
        }
        let bad: &[&[AbbrevOp]] = &[
            &[],
            &[Array, Fixed(8)],
            &[Blob],
            &[Literal(1), Fixed(65)],
            &[Literal(1), Vbr(1)],
            &[Literal(1), Vbr(33)],
            &[Literal(1), Array],
            &[Literal(1), Array, Fixed(8), Fixed(8)],
            &[Literal(1), Array, Fixed(0)],
            &[Literal(1), Array, Vbr(0)],
            &[Literal(1), Array, Literal(3)],
            &[Literal(1), Array, Array],
            &[Literal(1), Array, Blob],
            &[Literal(1), Blob, Fixed(3)],
        ];
        for ops in bad {
            assert!(validate_abbrev(ops).is_err(), "{ops:?}");
        }
        let too_many = vec![Literal(0); limits::MAX_ABBREV_OPERANDS + 1];
        assert!(validate_abbrev(&too_many).is_err());
    }

    #[test]
    fn store_resolves_blockinfo_prefix_then_locals() {
        use AbbrevOp::*;
        let mut store = AbbrevStore::default();
        let list = store.blockinfo_list_for(12);
        let start = store.ops_for(true).len();
        store.ops_for(true).extend([Literal(1), Vbr(6)]);
        assert_eq!(store.commit_blockinfo(list, start), 0);

        let outer = store.open_scope(12);
        let start = store.ops_for(false).len();
        store.ops_for(false).push(Literal(7));
        assert_eq!(store.commit_local(&outer, start), 1);
        assert_eq!(store.get(&outer, 0), Some(&[Literal(1), Vbr(6)][..]));
        assert_eq!(store.get(&outer, 1), Some(&[Literal(7)][..]));
        assert_eq!(store.get(&outer, 2), None);

        // A registration after entry is not visible to the open block, only to later ones.
        let start = store.ops_for(true).len();
        store.ops_for(true).push(Literal(9));
        assert_eq!(store.commit_blockinfo(list, start), 1);
        assert_eq!(store.count(&outer), 2);

        let inner = store.open_scope(12);
        assert_eq!(store.count(&inner), 2);
        assert_eq!(store.get(&inner, 1), Some(&[Literal(9)][..]));
        store.close_scope(&inner);
        assert_eq!(store.get(&outer, 1), Some(&[Literal(7)][..]));
        store.close_scope(&outer);
        assert_eq!(store.blockinfo_get(12, 1), Some(&[Literal(9)][..]));
        assert_eq!(store.blockinfo_get(13, 0), None);

        // Ids beyond the direct table take the hashed path.
        let big = store.blockinfo_list_for(1 << 30);
        assert_eq!(store.blockinfo_list_for(1 << 30), big);
        assert_ne!(big, list);
        let start = store.ops_for(true).len();
        store.ops_for(true).push(Char6);
        store.commit_blockinfo(big, start);
        assert_eq!(store.blockinfo_get(1 << 30, 0), Some(&[Char6][..]));
        assert_eq!(store.open_scope(1 << 30).blockinfo_count, 1);
    }
}
