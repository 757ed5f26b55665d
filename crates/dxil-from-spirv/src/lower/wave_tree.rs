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
        let me = self.lane_index()?;
        // Each level's source lane does not depend on the value: find them once for all
        // components.
        let mut sources = Vec::with_capacity(levels as usize);
        for j in 0..levels {
            sources.push(self.sibling_lane(mask, me, j)?);
        }
        let i32t = self.b.t.i32;
        let mut out = Vec::with_capacity(v.len());
        for &x in v {
            // `WaveReadLaneAt` has no `i1` overload: booleans go through as 0 or 1.
            let x = if logical {
                self.b.cast(CastOp::ZExt, x, i32t)?
            } else {
                x
            };
            let s = self.b.scalar_type_of(x)?;
            let mut block = x;
            let mut prefix: Option<Value> = None;
            for &(lane, any, below) in &sources {
                let y = self.wave_same(OpCode::WaveReadLaneAt, &[block, lane])?;
                // The sibling block's lanes come first when it is below this lane's block.
                let low = self.combine(combine, y, block)?;
                let high = self.combine(combine, block, y)?;
                let both = self.b.select(below, low, high)?;
                let next = self.b.select(any, both, block)?;
                if result != TreeResult::Reduce {
                    let take = self.b.binary(BinOp::And, any, below)?;
                    prefix = Some(match prefix {
                        None => {
                            let id = self.identity(op, s)?;
                            self.b.select(take, y, id)?
                        }
                        Some(p) => {
                            let with = self.combine(combine, y, p)?;
                            self.b.select(take, with, p)?
                        }
                    });
                }
                block = next;
            }
            let mut r = match result {
                TreeResult::Reduce => block,
                TreeResult::Inclusive => match prefix {
                    Some(p) => self.combine(combine, p, x)?,
                    None => x,
                },
                TreeResult::Exclusive => match prefix {
                    Some(p) => p,
                    None => self.identity(op, s)?,
                },
            };
            if logical {
                let z = self.b.i32c(0);
                r = self.b.cmp(Predicate::ICMP_NE, r, z)?;
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

    /// At level `j`, the lowest lane of `mask` in the sibling block of `2^j` lanes (this lane
    /// when there is none), whether there is one, and whether that block is below this lane.
    fn sibling_lane(&mut self, mask: &[Value], me: Value, j: u32) -> Result<(Value, Value, Value)> {
        let size = 1i64 << j;
        let k = self.b.i32c(size);
        let flipped = self.b.binary(BinOp::Xor, me, k)?;
        let align = self.b.i32c(!(size - 1));
        let start = self.b.binary(BinOp::And, flipped, align)?;
        let five = self.b.i32c(5);
        let word = self.b.binary(BinOp::LShr, start, five)?;
        let w = self.select_dynamic(mask, word)?;
        let i32t = self.b.t.i32;
        let zero = self.b.i32c(0);
        let (first, any) = if size < 32 {
            // The block lies inside one word.
            let k31 = self.b.i32c(31);
            let shift = self.b.binary(BinOp::And, start, k31)?;
            let bits = self.b.binary(BinOp::LShr, w, shift)?;
            let low = self.b.i32c((1i64 << size) - 1);
            let bits = self.b.binary(BinOp::And, bits, low)?;
            let f = self.b.dxop(OpCode::FirstbitLo, Some(i32t), i32t, &[bits])?;
            (f, self.b.cmp(Predicate::ICMP_NE, bits, zero)?)
        } else if size == 32 {
            let f = self.b.dxop(OpCode::FirstbitLo, Some(i32t), i32t, &[w])?;
            (f, self.b.cmp(Predicate::ICMP_NE, w, zero)?)
        } else {
            // Two words: the block starts at word 0 or 2.
            let one = self.b.i32c(1);
            let next = self.b.binary(BinOp::Add, word, one)?;
            let w1 = self.select_dynamic(mask, next)?;
            let f0 = self.b.dxop(OpCode::FirstbitLo, Some(i32t), i32t, &[w])?;
            let f1 = self.b.dxop(OpCode::FirstbitLo, Some(i32t), i32t, &[w1])?;
            let k32 = self.b.i32c(32);
            let f1 = self.b.binary(BinOp::Add, f1, k32)?;
            let in0 = self.b.cmp(Predicate::ICMP_NE, w, zero)?;
            let f = self.b.select(in0, f0, f1)?;
            let either = self.b.binary(BinOp::Or, w, w1)?;
            (f, self.b.cmp(Predicate::ICMP_NE, either, zero)?)
        };
        let lane = self.b.binary(BinOp::Add, start, first)?;
        let lane = self.b.select(any, lane, me)?;
        let bit = self.b.binary(BinOp::And, me, k)?;
        let below = self.b.cmp(Predicate::ICMP_NE, bit, zero)?;
        Ok((lane, any, below))
    }
}
