//! Blocks that every module of a shape writes with the same bits, recorded once per thread and
//! replayed: the BLOCKINFO block (given the type-id width and the abbreviation set) and the
//! metadata kind table. Defining them anew costs a small shader's translation a few percent
//! (validating and encoding each abbreviation, one record per character of each kind name).

use std::cell::RefCell;
use std::rc::Rc;

use dxil_bitstream::{AbbrevOp, BitstreamWriter, BlockRecording, BlockinfoRecording};

use crate::codes::function::*;
use crate::codes::{self, block};

use super::error::{Result, WriteError, WriteErrorKind};
use super::{CALL_EXPLICIT_TYPE, FN_CALL, Writer, code};

/// At most this many BLOCKINFO shapes are kept per thread (type-id widths are 1..=32, times
/// two abbreviation sets); past it the oldest goes.
const MAX_BLOCKINFO_SHAPES: usize = 8;

/// A kind table as written (id, name) and its recorded block.
type KindsEntry = (Vec<(u32, String)>, Rc<BlockRecording>);

/// A BLOCKINFO shape (type-id width, compact bodies) and its recording.
type BlockinfoEntry = (u32, bool, Rc<BlockinfoRecording>);

thread_local! {
    static BLOCKINFO: RefCell<Vec<BlockinfoEntry>> =
        const { RefCell::new(Vec::new()) };
    /// The last kind table written and its block.
    static KINDS: RefCell<Option<KindsEntry>> =
        const { RefCell::new(None) };
}

impl Writer<'_, '_> {
    pub(super) fn write_blockinfo(&mut self) -> Result<()> {
        let (tb, compact) = (self.typebits, self.compact);
        let cached = BLOCKINFO.with_borrow(|v| {
            v.iter()
                .find(|e| e.0 == tb && e.1 == compact)
                .map(|e| Rc::clone(&e.2))
        });
        let recording = match cached {
            Some(r) => r,
            None => {
                let r = Rc::new(BlockinfoRecording::record(|bs| {
                    define_blockinfo(bs, tb, compact)
                })?);
                BLOCKINFO.with_borrow_mut(|v| {
                    if v.len() >= MAX_BLOCKINFO_SHAPES {
                        v.remove(0);
                    }
                    v.push((tb, compact, Rc::clone(&r)));
                });
                r
            }
        };
        self.bs.replay_blockinfo(&recording)?;
        Ok(())
    }

    /// The METADATA_KIND records, in a metadata block of their own.
    pub(super) fn write_kinds(&mut self) -> Result<()> {
        let kinds = &self.e.kinds;
        if kinds.is_empty() {
            return Ok(());
        }
        let cached = KINDS.with_borrow(|c| {
            c.as_ref()
                .filter(|(names, _)| {
                    names.len() == kinds.len()
                        && names
                            .iter()
                            .zip(kinds)
                            .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
                })
                .map(|(_, r)| Rc::clone(r))
        });
        let recording = match cached {
            Some(r) => r,
            None => {
                let r = Rc::new(BlockRecording::record(block::METADATA, 3, |bs| {
                    let mut vals = Vec::new();
                    for &(id, name) in kinds {
                        vals.clear();
                        vals.push(u64::from(id));
                        vals.extend(name.bytes().map(u64::from));
                        bs.emit_record_unabbrev(codes::metadata::KIND, &vals)?;
                    }
                    Ok::<(), WriteError>(())
                })?);
                let names = kinds.iter().map(|&(id, n)| (id, n.to_owned())).collect();
                KINDS.with_borrow_mut(|c| *c = Some((names, Rc::clone(&r))));
                r
            }
        };
        self.bs.replay_block(&recording)?;
        Ok(())
    }
}

/// DXC's BLOCKINFO abbreviations (value symbol table, constants, function blocks), then those
/// of [`super::WriteOptions::compact_bodies`] when `compact`.
fn define_blockinfo(bs: &mut BitstreamWriter, tb: u32, compact: bool) -> Result<()> {
    use AbbrevOp::*;
    let vst = block::VALUE_SYMTAB;
    bs.define_blockinfo_abbrev(vst, &[Fixed(3), Vbr(8), Array, Fixed(8)])?;
    bs.define_blockinfo_abbrev(
        vst,
        &[code(codes::value_symtab::ENTRY), Vbr(8), Array, Fixed(7)],
    )?;
    bs.define_blockinfo_abbrev(
        vst,
        &[code(codes::value_symtab::ENTRY), Vbr(8), Array, Char6],
    )?;
    bs.define_blockinfo_abbrev(
        vst,
        &[code(codes::value_symtab::BBENTRY), Vbr(8), Array, Char6],
    )?;
    let cst = block::CONSTANTS;
    bs.define_blockinfo_abbrev(cst, &[code(codes::constants::SETTYPE), Fixed(tb)])?;
    bs.define_blockinfo_abbrev(cst, &[code(codes::constants::INTEGER), Vbr(8)])?;
    bs.define_blockinfo_abbrev(
        cst,
        &[code(codes::constants::CE_CAST), Fixed(4), Fixed(tb), Vbr(8)],
    )?;
    bs.define_blockinfo_abbrev(cst, &[code(codes::constants::NULL)])?;
    let f = block::FUNCTION;
    bs.define_blockinfo_abbrev(f, &[code(INST_LOAD), Vbr(6), Fixed(tb), Vbr(4), Fixed(1)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_BINOP), Vbr(6), Vbr(6), Fixed(4)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_BINOP), Vbr(6), Vbr(6), Fixed(4), Fixed(7)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_CAST), Vbr(6), Fixed(tb), Fixed(4)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_RET)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_RET), Vbr(6)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_UNREACHABLE)])?;
    bs.define_blockinfo_abbrev(f, &[code(INST_GEP), Fixed(1), Fixed(tb), Array, Vbr(6)])?;
    if compact {
        define_compact_abbrevs(bs, tb)?;
    }
    Ok(())
}

/// The function-block abbreviations of [`super::WriteOptions::compact_bodies`], ids
/// [`FN_CALL`]..=`FN_CONDBR` in that order. Relative value ids are VBR6 as in DXC's own
/// abbreviations (most are under 32); small fields get narrower encodings.
fn define_compact_abbrevs(bs: &mut BitstreamWriter, tb: u32) -> Result<()> {
    use AbbrevOp::*;
    let f = block::FUNCTION;
    let defs: [&[AbbrevOp]; 7] = [
        // attribute list, cc word, function type, callee, arguments.
        &[
            code(INST_CALL),
            Vbr(4),
            Literal(CALL_EXPLICIT_TYPE),
            Fixed(tb),
            Vbr(6),
            Array,
            Vbr(6),
        ],
        // aggregate, one index.
        &[code(INST_EXTRACTVAL), Vbr(6), Vbr(4)],
        // lhs, rhs, predicate (all under 64).
        &[code(INST_CMP2), Vbr(6), Vbr(6), Fixed(6)],
        // pointer, value, alignment, volatile.
        &[code(INST_STORE), Vbr(6), Vbr(6), Vbr(4), Fixed(1)],
        // true value, false value, condition.
        &[code(INST_VSELECT), Vbr(6), Vbr(6), Vbr(6)],
        // destination block.
        &[code(INST_BR), Vbr(6)],
        // true block, false block, condition.
        &[code(INST_BR), Vbr(6), Vbr(6), Vbr(6)],
    ];
    for (k, ops) in defs.into_iter().enumerate() {
        let id = bs.define_blockinfo_abbrev(f, ops)?;
        if id != FN_CALL + k as u32 {
            return Err(WriteError::new(
                WriteErrorKind::Internal,
                format!("compact abbreviation {k} got id {id}"),
            ));
        }
    }
    Ok(())
}
