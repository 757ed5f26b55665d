//! Subgroup reductions and scans that DXIL has no operation for: clustered reductions,
//! partitioned reductions, min/max scans and bitwise or logical scans. Each is a tree over
//! aligned blocks of lanes, built from `WaveReadLaneAt` and a 128-bit lane mask (the active
//! lanes' ballot, or a partition's).
//!
//! At level `j` every lane of the mask holds the reduction of the mask's lanes in its aligned
//! block of `2^j` lanes, so any such lane of the sibling block can stand for it: the lane reads
//! the lowest one (found in the mask) and combines. A lane whose bit `j` is set has its sibling
//! below it: that block is part of its exclusive prefix, so the same tree gives scans (the
//! prefix is the union of those lower siblings). Reading only lanes of the mask keeps every
//! read on a lane that runs the same instruction: inactive lanes' values are undefined.
//!
//! The levels are one DXIL loop per operation. The loop finds each level's sibling lane and
//! packs them a byte per level into two words; a later operation over the same lane mask in
//! the same block (a module often reduces many values over one partition or over the active
//! lanes) reads them from there instead of searching again.

use dxil_module::{BinOp, Body, CastOp, InstKind, Predicate, Value};
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::Tr;
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};

/// The lanes a wave has at most (D3D12 wave sizes are 4 to 128): seven levels of the tree.
pub(super) const MAX_TREE_LEVELS: u32 = 7;

/// What the tree gives back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TreeResult {
    /// The reduction over the mask's lanes of the lane's block of `2^levels` lanes.
    Reduce,
    /// The reduction over the mask's lanes up to and including this one.
    Inclusive,
    /// The reduction over the mask's lanes below this one (the identity for the first).
    Exclusive,
}

/// The combining operation of a group instruction.
#[derive(Clone, Copy)]
enum Combine {
    Bin(BinOp),
    Dx(OpCode),
}

/// The lanes a tree runs over.
#[derive(Clone, Copy)]
pub(super) enum LaneMask<'m> {
    /// The active lanes.
    Active,
    /// A ballot's four words (a partition).
    Of(&'m [Value]),
}

/// The sibling lanes of every level for one lane mask, valid in one block and the blocks
/// that block flows straight into (the exits of the trees' loops).
pub(crate) struct LaneTable {
    /// The mask's words; `None` for the active lanes.
    mask: Option<[Value; 4]>,
    block: u32,
    me: Value,
    /// Per level `j`, the lowest lane of the mask in the sibling block, or this lane when
    /// that block has none: levels 3-6 in bytes 0-3 of the first word, 0-2 in bytes 1-3 of
    /// the second (the order the loop shifts them in).
    lanes: [Value; 2],
}

/// Where a tree's loop gets each level's sibling lane.
enum Siblings {
    /// From the table of an earlier loop.
    Table([Value; 2]),
    /// A search in the mask's words (then packed into a table for the next operation).
    Search([Value; 4]),
}

impl Tr<'_> {
    /// The levels of a clustered reduction over `size` lanes (a power of two, checked).
    pub(super) fn cluster_levels(&mut self, size: u64) -> Result<u32> {
        if size == 0 || !size.is_power_of_two() {
            return Err(malformed(format!(
                "cluster size {size} is not a power of two"
            )));
        }
        // A cluster of more lanes than any wave has is the whole wave.
        Ok(size.trailing_zeros().min(MAX_TREE_LEVELS))
    }

    /// `op` (an `OpGroupNonUniform*` arithmetic, bitwise or logical instruction) over the
    /// lanes of `mask`, component by component; see the module docs. `mask` must hold this
    /// lane, and every lane in it must run this instruction.
    pub(super) fn masked_tree(
        &mut self,
        op: Op,
        v: &[Value],
        mask: LaneMask<'_>,
        levels: u32,
        result: TreeResult,
    ) -> Result<Vec<Value>> {
        let logical = matches!(
            op,
            Op::GroupNonUniformLogicalAnd
                | Op::GroupNonUniformLogicalOr
                | Op::GroupNonUniformLogicalXor
        );
        let combine = match op {
            Op::GroupNonUniformIAdd => Combine::Bin(BinOp::Add),
            Op::GroupNonUniformFAdd => Combine::Bin(BinOp::FAdd),
            Op::GroupNonUniformIMul => Combine::Bin(BinOp::Mul),
            Op::GroupNonUniformFMul => Combine::Bin(BinOp::FMul),
            Op::GroupNonUniformSMin => Combine::Dx(OpCode::IMin),
            Op::GroupNonUniformUMin => Combine::Dx(OpCode::UMin),
            Op::GroupNonUniformFMin => Combine::Dx(OpCode::FMin),
            Op::GroupNonUniformSMax => Combine::Dx(OpCode::IMax),
            Op::GroupNonUniformUMax => Combine::Dx(OpCode::UMax),
            Op::GroupNonUniformFMax => Combine::Dx(OpCode::FMax),
            Op::GroupNonUniformBitwiseAnd | Op::GroupNonUniformLogicalAnd => {
                Combine::Bin(BinOp::And)
            }
            Op::GroupNonUniformBitwiseOr | Op::GroupNonUniformLogicalOr => Combine::Bin(BinOp::Or),
            Op::GroupNonUniformBitwiseXor | Op::GroupNonUniformLogicalXor => {
                Combine::Bin(BinOp::Xor)
            }
            _ => return Err(unsupported(format!("Op{op:?} as a group operation"))),
        };
        if levels == 0 {
            // A cluster of one lane: the value itself.
            return Ok(v.to_vec());
        }
        let (me, siblings, key) = self.siblings(mask)?;
        let i32t = self.b.t.i32;
        // Values enter the loop as `i32` for booleans: `WaveReadLaneAt` has no `i1` overload.
        let mut xs = Vec::with_capacity(v.len());
        for &x in v {
            xs.push(if logical {
                self.b.cast(CastOp::ZExt, x, i32t)?
            } else {
                x
            });
        }
        let scan = result != TreeResult::Reduce;
        let mut ids = Vec::with_capacity(xs.len());
        for &x in &xs {
            let s = self.b.scalar_type_of(x)?;
            ids.push(if scan {
                Some(self.identity(op, s)?)
            } else {
                None
            });
        }
        // One loop over the levels rather than the levels unrolled: a module with many such
        // operations (one per partition, cluster size and type) stays small and fast to
        // write. The trip count is the same in every lane, so the lanes of the mask stay
        // together and each `WaveReadLaneAt` reads a lane running the same iteration.
        let pre = self
            .b
            .current_block()
            .ok_or_else(|| crate::error::internal("a group operation outside a block"))?;
        let body = self.b.new_block();
        let exit = self.b.new_block();
        self.b.br(body)?;
        self.b.start_block(body)?;
        let j = self.b.phi(i32t)?;
        let packed = match siblings {
            Siblings::Search(_) => Some([self.b.phi(i32t)?, self.b.phi(i32t)?]),
            Siblings::Table(_) => None,
        };
        let mut blocks = Vec::with_capacity(xs.len());
        let mut prefixes = Vec::with_capacity(xs.len());
        for &x in &xs {
            let t = self.b.type_of(x)?;
            blocks.push(self.b.phi(t)?);
            prefixes.push(if scan { Some(self.b.phi(t)?) } else { None });
        }
        let (lane, next_packed) = match (siblings, packed) {
            (Siblings::Table(t), _) => (self.table_lane(t, j)?, None),
            (Siblings::Search(words), Some(p)) => {
                let lane = self.sibling_lane(&words, me, j)?;
                (lane, Some(self.pack_lane(p, lane)?))
            }
            (Siblings::Search(_), None) => {
                return Err(crate::error::internal("a lane search without its table"));
            }
        };
        // A lane outside this lane's block never is this lane, and it lies below it exactly
        // when the sibling block does.
        let any = self.b.cmp(Predicate::ICMP_NE, lane, me)?;
        let below = self.b.cmp(Predicate::ICMP_ULT, lane, me)?;
        let mut next_blocks = Vec::with_capacity(xs.len());
        let mut next_prefixes = Vec::with_capacity(xs.len());
        for (&block, &prefix) in blocks.iter().zip(&prefixes) {
            let y = self.wave_same(OpCode::WaveReadLaneAt, &[block, lane])?;
            // Every combining operation is commutative (IEEE sums and products too), so the
            // sibling block's side does not matter.
            let both = self.combine(combine, y, block)?;
            next_blocks.push(self.b.select(any, both, block)?);
            // The sibling block joins the prefix when it is below this lane. The prefix starts
            // as the identity: combining with it is exact for the scans that come here
            // (min/max, bitwise and logical; sums and products have DXIL prefix operations),
            // up to FMin/FMax of NaN operands, whose result SPIR-V leaves open.
            next_prefixes.push(match prefix {
                Some(p) => {
                    let with = self.combine(combine, y, p)?;
                    Some(self.b.select(below, with, p)?)
                }
                None => None,
            });
        }
        let one = self.b.i32c(1);
        let next_j = self.b.binary(BinOp::Add, j, one)?;
        let n = self.b.i32c(i64::from(levels));
        let more = self.b.cmp(Predicate::ICMP_ULT, next_j, n)?;
        self.b.cond_br(more, body, exit)?;
        let zero = self.b.i32c(0);
        self.b.set_phi_incoming(j, &[(zero, pre), (next_j, body)])?;
        if let (Some(p), Some(np)) = (packed, next_packed) {
            for (phi, next) in p.into_iter().zip(np) {
                self.b.set_phi_incoming(phi, &[(zero, pre), (next, body)])?;
            }
        }
        for i in 0..xs.len() {
            self.b
                .set_phi_incoming(blocks[i], &[(xs[i], pre), (next_blocks[i], body)])?;
            if let (Some(p), Some(np), Some(id)) = (prefixes[i], next_prefixes[i], ids[i]) {
                self.b.set_phi_incoming(p, &[(id, pre), (np, body)])?;
            }
        }
        self.b.start_block(exit)?;
        // The exit is dominated by the block the table was found in; a table is complete
        // only after all seven levels.
        match next_packed {
            Some(lanes) if levels == MAX_TREE_LEVELS => {
                self.tree_lanes = Some(LaneTable {
                    mask: key,
                    block: exit,
                    me,
                    lanes,
                });
            }
            Some(_) => {}
            None => {
                if let Some(t) = &mut self.tree_lanes {
                    t.block = exit;
                }
            }
        }
        let mut out = Vec::with_capacity(xs.len());
        for i in 0..xs.len() {
            let mut r = match (result, next_prefixes[i]) {
                (TreeResult::Reduce, _) => next_blocks[i],
                (TreeResult::Inclusive, Some(p)) => self.combine(combine, p, xs[i])?,
                (TreeResult::Exclusive, Some(p)) => p,
                _ => return Err(crate::error::internal("a scan without its prefix")),
            };
            if logical {
                r = self.b.cmp(Predicate::ICMP_NE, r, zero)?;
            }
            out.push(r);
        }
        Ok(out)
    }

    fn combine(&mut self, c: Combine, a: Value, b: Value) -> Result<Value> {
        match c {
            Combine::Bin(op) => self.b.binary(op, a, b),
            Combine::Dx(code) => self.binary_dxop(code, a, b),
        }
    }

    /// The value that `op` leaves unchanged (what an exclusive scan gives its first lane).
    fn identity(&mut self, op: Op, s: Scalar) -> Result<Value> {
        let bits = s.bits();
        let signed_max = if bits >= 64 {
            i64::MAX
        } else {
            (1i64 << (bits - 1)) - 1
        };
        Ok(match op {
            Op::GroupNonUniformFMul => self.fconst(s, 1.0),
            Op::GroupNonUniformFMin => self.fconst(s, f64::INFINITY),
            Op::GroupNonUniformFMax => self.fconst(s, f64::NEG_INFINITY),
            Op::GroupNonUniformIMul => self.b.const_int(s, 1),
            Op::GroupNonUniformSMin => self.b.const_int(s, signed_max),
            Op::GroupNonUniformSMax => self.b.const_int(s, -signed_max - 1),
            Op::GroupNonUniformUMin
            | Op::GroupNonUniformBitwiseAnd
            | Op::GroupNonUniformLogicalAnd => self.b.const_int(s, -1),
            // Sums, maxima of unsigned numbers, or and xor.
            _ => self.b.zero(s),
        })
    }

    /// This lane's index, where the loop gets the sibling lanes of `mask` (the last table
    /// when it is for the same mask and still in scope), and the mask's key for the table.
    fn siblings(&mut self, mask: LaneMask<'_>) -> Result<(Value, Siblings, Option<[Value; 4]>)> {
        let key = match mask {
            LaneMask::Active => None,
            LaneMask::Of(m) => Some(
                <[Value; 4]>::try_from(m)
                    .map_err(|_| malformed("a lane mask that is not four words"))?,
            ),
        };
        let block = self.b.current_block();
        if let Some(t) = &mut self.tree_lanes
            && Some(t.block) == block
            && same_mask(&self.b.body, t.mask, key)
        {
            // The next operation's words are compared with these: the stretch searched for
            // stores stays the one between two operations.
            t.mask = key;
            return Ok((t.me, Siblings::Table(t.lanes), key));
        }
        let words = match key {
            Some(m) => m,
            None => {
                let yes = self.b.i1c(true);
                let w = self.ballot(yes)?;
                <[Value; 4]>::try_from(w.as_slice())
                    .map_err(|_| crate::error::internal("a ballot that is not four words"))?
            }
        };
        let me = self.lane_index()?;
        Ok((me, Siblings::Search(words), key))
    }

    /// Level `j`'s lane from a table: byte `(j + 1) & 3` of the second word below level 3,
    /// of the first from there on.
    fn table_lane(&mut self, table: [Value; 2], j: Value) -> Result<Value> {
        let three = self.b.i32c(3);
        let early = self.b.cmp(Predicate::ICMP_ULT, j, three)?;
        let word = self.b.select(early, table[1], table[0])?;
        let one = self.b.i32c(1);
        let byte = self.b.binary(BinOp::Add, j, one)?;
        let byte = self.b.binary(BinOp::And, byte, three)?;
        let shift = self.b.binary(BinOp::Shl, byte, three)?;
        let word = self.b.binary(BinOp::LShr, word, shift)?;
        let k127 = self.b.i32c(127);
        self.b.binary(BinOp::And, word, k127)
    }

    /// Shifts a level's lane (below 128) into the top byte of the table, the bytes before it
    /// down by one, the first word's lowest into the second's top.
    fn pack_lane(&mut self, table: [Value; 2], lane: Value) -> Result<[Value; 2]> {
        let eight = self.b.i32c(8);
        let k24 = self.b.i32c(24);
        let out0 = self.b.binary(BinOp::Shl, table[0], k24)?;
        let rest1 = self.b.binary(BinOp::LShr, table[1], eight)?;
        let second = self.b.binary(BinOp::Or, rest1, out0)?;
        let top = self.b.binary(BinOp::Shl, lane, k24)?;
        let rest0 = self.b.binary(BinOp::LShr, table[0], eight)?;
        let first = self.b.binary(BinOp::Or, rest0, top)?;
        Ok([first, second])
    }

    /// At level `j` (an `i32` value), the lowest lane of `mask` in the sibling block of `2^j`
    /// lanes, or this lane when there is none. Blocks are aligned, so one of up to 32 lanes
    /// lies inside one word and the block of 64 lanes is words 0-1 or 2-3.
    fn sibling_lane(&mut self, mask: &[Value], me: Value, j: Value) -> Result<Value> {
        let one = self.b.i32c(1);
        let size = self.b.binary(BinOp::Shl, one, j)?;
        let flipped = self.b.binary(BinOp::Xor, me, size)?;
        let zero = self.b.i32c(0);
        let align = self.b.binary(BinOp::Sub, zero, size)?;
        let start = self.b.binary(BinOp::And, flipped, align)?;
        let five = self.b.i32c(5);
        let word = self.b.binary(BinOp::LShr, start, five)?;
        let w = self.select_dynamic(mask, word)?;
        let k31 = self.b.i32c(31);
        let shift = self.b.binary(BinOp::And, start, k31)?;
        let bits = self.b.binary(BinOp::LShr, w, shift)?;
        // The block's bits: the low `size` bits, all of them from 32 lanes on (a shift by 32
        // or more has no defined result, hence the select).
        let k32 = self.b.i32c(32);
        let small = self.b.cmp(Predicate::ICMP_ULT, j, five)?;
        let rest = self.b.binary(BinOp::Sub, k32, size)?;
        let keep = self.b.select(small, rest, zero)?;
        let all = self.b.i32c(-1);
        let low = self.b.binary(BinOp::LShr, all, keep)?;
        let bits0 = self.b.binary(BinOp::And, bits, low)?;
        // The second word of a block of 64 lanes (`& 3` keeps the index in range at the
        // other levels, where it is not used).
        let next = self.b.binary(BinOp::Add, word, one)?;
        let three = self.b.i32c(3);
        let next = self.b.binary(BinOp::And, next, three)?;
        let w1 = self.select_dynamic(mask, next)?;
        let six = self.b.i32c(6);
        let wide = self.b.cmp(Predicate::ICMP_EQ, j, six)?;
        let bits1 = self.b.select(wide, w1, zero)?;
        let i32t = self.b.t.i32;
        let f0 = self
            .b
            .dxop(OpCode::FirstbitLo, Some(i32t), i32t, &[bits0])?;
        let f1 = self
            .b
            .dxop(OpCode::FirstbitLo, Some(i32t), i32t, &[bits1])?;
        let f1 = self.b.binary(BinOp::Add, f1, k32)?;
        let in0 = self.b.cmp(Predicate::ICMP_NE, bits0, zero)?;
        let first = self.b.select(in0, f0, f1)?;
        let either = self.b.binary(BinOp::Or, bits0, bits1)?;
        let any = self.b.cmp(Predicate::ICMP_NE, either, zero)?;
        let lane = self.b.binary(BinOp::Add, start, first)?;
        self.b.select(any, lane, me)
    }
}

/// Whether two lane masks are the same lanes: the same values, or words loaded again from the
/// same local variable with no store to it in between (a partition kept in a variable is
/// loaded anew for each operation).
fn same_mask(body: &Body, a: Option<[Value; 4]>, b: Option<[Value; 4]>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a
            .iter()
            .zip(&b)
            .all(|(&x, &y)| x == y || same_load(body, x, y)),
        _ => false,
    }
}

fn load_of(body: &Body, v: Value) -> Option<(usize, Value)> {
    let i = v.as_inst()?.index();
    match body.insts.get(i)?.kind {
        InstKind::Load {
            ptr,
            volatile: false,
            atomic: None,
            ..
        } => Some((i, ptr)),
        _ => None,
    }
}

/// A pointer's variable (a GEP's base), and the GEP's type and operands when it is one.
fn pointer_parts(body: &Body, ptr: Value) -> (Value, Option<(dxil_module::TypeId, &[u32])>) {
    let gep = ptr
        .as_inst()
        .and_then(|i| body.insts.get(i.index()))
        .and_then(|d| match d.kind {
            InstKind::Gep {
                source_ty,
                operands,
                ..
            } => Some((source_ty, operands.get(&body.pool))),
            _ => None,
        });
    match gep {
        Some((ty, ops)) if !ops.is_empty() => (Value(ops[0]), Some((ty, ops))),
        _ => (ptr, None),
    }
}

/// `b` loads what `a` loaded: the same pointer (or a GEP with the same operands), and nothing
/// between them stores into that variable.
fn same_load(body: &Body, a: Value, b: Value) -> bool {
    let (Some((ia, pa)), Some((ib, pb))) = (load_of(body, a), load_of(body, b)) else {
        return false;
    };
    let (base, parts_a) = pointer_parts(body, pa);
    let (base_b, parts_b) = pointer_parts(body, pb);
    if base != base_b || ia >= ib || (pa != pb && (parts_a.is_none() || parts_a != parts_b)) {
        return false;
    }
    body.insts[ia + 1..ib].iter().all(|d| match d.kind {
        InstKind::Store { ptr, .. }
        | InstKind::AtomicRmw { ptr, .. }
        | InstKind::CmpXchg { ptr, .. } => pointer_parts(body, ptr).0 != base,
        _ => true,
    })
}
