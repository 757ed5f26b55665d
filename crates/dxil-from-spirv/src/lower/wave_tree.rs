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

use dxil_module::{BinOp, CastOp, Predicate, Value};
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

impl Tr<'_> {
    /// The active lanes' ballot: four words of 32 lanes.
    pub(super) fn active_mask(&mut self) -> Result<Vec<Value>> {
        let i32t = self.b.t.i32;
        let four = self
            .b
            .named_struct("dx.types.fouri32", &[i32t, i32t, i32t, i32t]);
        let yes = self.b.i1c(true);
        let r = self.b.dxop(OpCode::WaveActiveBallot, None, four, &[yes])?;
        (0..4).map(|i| self.b.extract_value(r, i, i32t)).collect()
    }

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
        mask: &[Value],
        levels: u32,
        result: TreeResult,
    ) -> Result<Vec<Value>> {
        if mask.len() != 4 {
            return Err(malformed("a lane mask that is not four words"));
        }
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
        let me = self.lane_index()?;
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
        let i1t = self.b.t.i1;
        // Whether some lower sibling block has been taken into the prefix yet: the first one
        // starts it as is (no combine with an identity, which would not be exact for floats).
        let have = if scan { Some(self.b.phi(i1t)?) } else { None };
        let mut blocks = Vec::with_capacity(xs.len());
        let mut prefixes = Vec::with_capacity(xs.len());
        for &x in &xs {
            let t = self.b.type_of(x)?;
            blocks.push(self.b.phi(t)?);
            prefixes.push(if scan { Some(self.b.phi(t)?) } else { None });
        }
        let (lane, any, below) = self.sibling_lane(mask, me, j)?;
        // The sibling block joins the prefix when it is below this lane.
        let take = match have {
            Some(_) => Some(self.b.binary(BinOp::And, any, below)?),
            None => None,
        };
        let mut next_blocks = Vec::with_capacity(xs.len());
        let mut next_prefixes = Vec::with_capacity(xs.len());
        for (&block, &prefix) in blocks.iter().zip(&prefixes) {
            let y = self.wave_same(OpCode::WaveReadLaneAt, &[block, lane])?;
            // The sibling block's lanes come first when it is below this lane's block.
            let low = self.combine(combine, y, block)?;
            let high = self.combine(combine, block, y)?;
            let both = self.b.select(below, low, high)?;
            next_blocks.push(self.b.select(any, both, block)?);
            next_prefixes.push(match (prefix, have, take) {
                (Some(p), Some(h), Some(take)) => {
                    let with = self.combine(combine, y, p)?;
                    let grown = self.b.select(h, with, y)?;
                    Some(self.b.select(take, grown, p)?)
                }
                _ => None,
            });
        }
        let next_have = match (have, take) {
            (Some(h), Some(take)) => Some(self.b.binary(BinOp::Or, h, take)?),
            _ => None,
        };
        let one = self.b.i32c(1);
        let next_j = self.b.binary(BinOp::Add, j, one)?;
        let n = self.b.i32c(i64::from(levels));
        let more = self.b.cmp(Predicate::ICMP_ULT, next_j, n)?;
        self.b.cond_br(more, body, exit)?;
        let zero = self.b.i32c(0);
        self.b.set_phi_incoming(j, &[(zero, pre), (next_j, body)])?;
        if let (Some(h), Some(nh)) = (have, next_have) {
            let no = self.b.i1c(false);
            self.b.set_phi_incoming(h, &[(no, pre), (nh, body)])?;
        }
        for i in 0..xs.len() {
            self.b
                .set_phi_incoming(blocks[i], &[(xs[i], pre), (next_blocks[i], body)])?;
            if let (Some(p), Some(np), Some(id)) = (prefixes[i], next_prefixes[i], ids[i]) {
                self.b.set_phi_incoming(p, &[(id, pre), (np, body)])?;
            }
        }
        self.b.start_block(exit)?;
        let mut out = Vec::with_capacity(xs.len());
        for i in 0..xs.len() {
            let mut r = match (result, next_prefixes[i], next_have, ids[i]) {
                (TreeResult::Reduce, ..) => next_blocks[i],
                (TreeResult::Inclusive, Some(p), Some(h), _) => {
                    let with = self.combine(combine, p, xs[i])?;
                    self.b.select(h, with, xs[i])?
                }
                (TreeResult::Exclusive, Some(p), Some(h), Some(id)) => self.b.select(h, p, id)?,
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

    /// At level `j` (an `i32` value), the lowest lane of `mask` in the sibling block of `2^j`
    /// lanes (this lane when there is none), whether there is one, and whether that block is
    /// below this lane. Blocks are aligned, so one of up to 32 lanes lies inside one word and
    /// the block of 64 lanes is words 0-1 or 2-3.
    fn sibling_lane(
        &mut self,
        mask: &[Value],
        me: Value,
        j: Value,
    ) -> Result<(Value, Value, Value)> {
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
        let lane = self.b.select(any, lane, me)?;
        let bit = self.b.binary(BinOp::And, me, size)?;
        let below = self.b.cmp(Predicate::ICMP_NE, bit, zero)?;
        Ok((lane, any, below))
    }
}
