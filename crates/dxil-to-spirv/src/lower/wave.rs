//! Wave (subgroup) and quad operations.

use dxil_module::{Body, TypeId};
use dxil_shader::ops::OpCode;
use spirv::{BuiltIn, Capability, GroupOperation, Op, Scope};

use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, try_ids, words};

impl<'a> Ctx<'a> {
    fn subgroup(&mut self) -> Id {
        self.b.capability(Capability::GroupNonUniform);
        self.b.const_u32(Scope::Subgroup as u32)
    }

    /// `GroupNonUniformBallot` of a bool → `uvec4`.
    fn ballot(&mut self, cond: Id) -> Id {
        let sg = self.subgroup();
        self.b.capability(Capability::GroupNonUniformBallot);
        let u = self.b.u32();
        let v4 = self.b.vec(u, 4);
        self.op2(Op::GroupNonUniformBallot, v4, sg, cond)
    }

    fn split4(&mut self, v: Id) -> [Id; 4] {
        let u = self.b.u32();
        std::array::from_fn(|k| self.opn(Op::CompositeExtract, u, &words![v, k as u32]))
    }

    /// The arithmetic group op of `WaveActiveOp` / `WavePrefixOp` (op: sum, product, min, max; sop: signed,
    /// unsigned) for a value of scalar class `s`.
    fn arith_op(&self, op: i64, sop: i64, s: Scalar) -> Result<Op, Error> {
        let float = matches!(s, Scalar::Float(_));
        Ok(match (op, float, sop) {
            (0, true, _) => Op::GroupNonUniformFAdd,
            (0, false, _) => Op::GroupNonUniformIAdd,
            (1, true, _) => Op::GroupNonUniformFMul,
            (1, false, _) => Op::GroupNonUniformIMul,
            (2, true, _) => Op::GroupNonUniformFMin,
            (2, false, 0) => Op::GroupNonUniformSMin,
            (2, false, _) => Op::GroupNonUniformUMin,
            (3, true, _) => Op::GroupNonUniformFMax,
            (3, false, 0) => Op::GroupNonUniformSMax,
            (3, false, _) => Op::GroupNonUniformUMax,
            _ => {
                return Err(self.invalid(Invalid::ty(format!("unknown wave operation {op}/{sop}"))));
            }
        })
    }

    fn group_arith(&mut self, o: Op, t: Id, group: GroupOperation, x: Id) -> Id {
        let sg = self.subgroup();
        self.b.capability(Capability::GroupNonUniformArithmetic);
        self.opn(o, t, &words![sg, group as u32, x])
    }

    pub(super) fn wave_op(
        &mut self,
        i: u32,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let _ = i;
        if matches!(
            op,
            OpCode::QuadReadLaneAt | OpCode::QuadOp | OpCode::QuadVote
        ) {
            self.uses_quads = true;
        }
        let id = |x: Id| Ok(Val::Id(x));
        match op {
            OpCode::WaveIsFirstLane => {
                let sg = self.subgroup();
                let bt = self.b.bool();
                id(self.op1(Op::GroupNonUniformElect, bt, sg))
            }
            OpCode::WaveGetLaneIndex => {
                id(self.load_builtin(BuiltIn::SubgroupLocalInvocationId, None))
            }
            OpCode::WaveGetLaneCount => id(self.load_builtin(BuiltIn::SubgroupSize, None)),
            OpCode::WaveAnyTrue | OpCode::WaveAllTrue => {
                let sg = self.subgroup();
                self.b.capability(Capability::GroupNonUniformVote);
                let c = self.arg_id(a, 1)?;
                let bt = self.b.bool();
                id(self.op2(
                    if op == OpCode::WaveAnyTrue {
                        Op::GroupNonUniformAny
                    } else {
                        Op::GroupNonUniformAll
                    },
                    bt,
                    sg,
                    c,
                ))
            }
            OpCode::WaveActiveAllEqual => {
                let sg = self.subgroup();
                self.b.capability(Capability::GroupNonUniformVote);
                let x = self.arg_id(a, 1)?;
                let bt = self.b.bool();
                id(self.op2(Op::GroupNonUniformAllEqual, bt, sg, x))
            }
            OpCode::WaveActiveBallot => {
                let c = self.arg_id(a, 1)?;
                let v = self.ballot(c);
                let parts = self.split4(v);
                Ok(self.make_agg(&parts))
            }
            OpCode::WaveReadLaneAt => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let lane = self.arg_id(a, 2)?;
                // Shuffle takes any lane index (Broadcast wants a constant before SPIR-V 1.5); drivers spot a
                // constant index themselves.
                let sg = self.subgroup();
                self.b.capability(Capability::GroupNonUniformShuffle);
                id(self.op3(Op::GroupNonUniformShuffle, t, sg, x, lane))
            }
            OpCode::WaveReadLaneFirst => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let sg = self.subgroup();
                self.b.capability(Capability::GroupNonUniformBallot);
                id(self.op2(Op::GroupNonUniformBroadcastFirst, t, sg, x))
            }
            OpCode::WaveActiveOp | OpCode::WavePrefixOp => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let wop = self.arg_const(a, 2)?;
                let sop = self.arg_const(a, 3)?;
                let s = self.scalar_of(ty).ok_or_else(|| {
                    self.invalid(Invalid::ty("wave operation on a non-numeric value"))
                })?;
                if s == Scalar::Bool {
                    return Err(self.unsupported(Unsupported::value("wave arithmetic on bool")));
                }
                let o = self.arith_op(wop, sop, s)?;
                let g = if op == OpCode::WaveActiveOp {
                    GroupOperation::Reduce
                } else {
                    GroupOperation::ExclusiveScan
                };
                id(self.group_arith(o, t, g, x))
            }
            OpCode::WaveActiveBit => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let o = match self.arg_const(a, 2)? {
                    0 => Op::GroupNonUniformBitwiseAnd,
                    1 => Op::GroupNonUniformBitwiseOr,
                    2 => Op::GroupNonUniformBitwiseXor,
                    k => {
                        return Err(self.invalid(Invalid::Enum {
                            what: "wave bit operation",
                            value: k,
                        }));
                    }
                };
                id(self.group_arith(o, t, GroupOperation::Reduce, x))
            }
            OpCode::QuadReadLaneAt => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let lane_v = self.arg(a, 2)?;
                let sg = self.subgroup();
                match self.const_int(lane_v) {
                    Some(c) => {
                        self.b.capability(Capability::GroupNonUniformQuad);
                        let l = self.b.const_u32(c as u32 & 3);
                        id(self.op3(Op::GroupNonUniformQuadBroadcast, t, sg, x, l))
                    }
                    None => {
                        // A dynamic quad lane: shuffle to (lane & ~3) | (quadLane & 3).
                        self.b.capability(Capability::GroupNonUniformShuffle);
                        let u = self.b.u32();
                        let me = self.load_builtin(BuiltIn::SubgroupLocalInvocationId, None);
                        let m = self.b.const_u32(!3);
                        let three = self.b.const_u32(3);
                        let base = self.op2(Op::BitwiseAnd, u, me, m);
                        let q = self.value(lane_v)?;
                        let q = self.op2(Op::BitwiseAnd, u, q, three);
                        let l = self.op2(Op::BitwiseOr, u, base, q);
                        id(self.op3(Op::GroupNonUniformShuffle, t, sg, x, l))
                    }
                }
            }
            OpCode::QuadOp => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let dir = self.arg_const(a, 2)? as u32;
                if dir > 2 {
                    return Err(self.invalid(Invalid::Enum {
                        what: "quad operation",
                        value: i64::from(dir),
                    }));
                }
                let sg = self.subgroup();
                self.b.capability(Capability::GroupNonUniformQuad);
                let d = self.b.const_u32(dir);
                id(self.op3(Op::GroupNonUniformQuadSwap, t, sg, x, d))
            }
            OpCode::WaveAllBitCount | OpCode::WavePrefixBitCount => {
                let c = self.arg_id(a, 1)?;
                let v = self.ballot(c);
                let sg = self.subgroup();
                let u = self.b.u32();
                let g = if op == OpCode::WaveAllBitCount {
                    GroupOperation::Reduce
                } else {
                    GroupOperation::ExclusiveScan
                };
                id(self.opn(
                    Op::GroupNonUniformBallotBitCount,
                    u,
                    &words![sg, g as u32, v],
                ))
            }
            // Compute shaders have no helper lanes.
            OpCode::IsHelperLane => id(self.b.const_bool(false)),
            OpCode::QuadVote => {
                let c = self.arg_id(a, 1)?;
                let all = self.arg_const(a, 2)? != 0;
                let sg = self.subgroup();
                self.b.capability(Capability::GroupNonUniformQuad);
                let bt = self.b.bool();
                let mut acc = c;
                for lane in 0..4 {
                    let l = self.b.const_u32(lane);
                    let v = self.op3(Op::GroupNonUniformQuadBroadcast, bt, sg, c, l);
                    acc = self.op2(if all { Op::LogicalAnd } else { Op::LogicalOr }, bt, acc, v);
                }
                id(acc)
            }
            _ => Err(self.unsupported(Unsupported::Operation(op))),
        }
    }

    /// The partition key of a looped wave op: `WaveMatch`'s value, `WaveMultiPrefix*`'s mask; returns
    /// `key == first active lane's key`.
    pub(super) fn wave_loop_head(&mut self, body: &Body, i: u32) -> Result<Id, Error> {
        let (op, _ty, a) = self.call_args(body, i)?;
        let sg = self.subgroup();
        self.b.capability(Capability::GroupNonUniformBallot);
        let bt = self.b.bool();
        if op == OpCode::WaveMatch {
            let vt = self.arg_ty(a, 1)?;
            let x = self.arg_id(a, 1)?;
            let s = self
                .scalar_of(vt)
                .ok_or_else(|| self.invalid(Invalid::ty("WaveMatch of a non-numeric value")))?;
            // Compare bit patterns: NaNs and signed zeros partition by their bits.
            let (k, kt) = match s {
                Scalar::Float(w) => {
                    let it = self.scalar_ty(Scalar::Int(w), 1);
                    (self.op1(Op::Bitcast, it, x), it)
                }
                Scalar::Bool => {
                    let u = self.b.u32();
                    let one = self.b.const_u32(1);
                    let zero = self.b.const_u32(0);
                    (self.select(u, x, one, zero), u)
                }
                Scalar::Int(_) => (x, self.ty(vt)?),
            };
            let first = self.op2(Op::GroupNonUniformBroadcastFirst, kt, sg, k);
            return Ok(self.op2(Op::IEqual, bt, k, first));
        }
        let u = self.b.u32();
        let v4 = self.b.vec(u, 4);
        let m = try_ids::<4, Error>(|k| self.arg_id(a, 2 + k))?;
        let key = self.op_ids(Op::CompositeConstruct, v4, &m);
        let first = self.op2(Op::GroupNonUniformBroadcastFirst, v4, sg, key);
        let bv = self.b.vec(bt, 4);
        let eq = self.op2(Op::IEqual, bv, key, first);
        Ok(self.op1(Op::All, bt, eq))
    }

    /// The looped wave op itself, run by the lanes of one partition; stores into the result variables.
    pub(super) fn wave_loop_body(&mut self, body: &Body, i: u32) -> Result<(), Error> {
        let (op, ty, a) = self.call_args(body, i)?;
        match op {
            OpCode::WaveMatch => {
                let t = self.b.const_bool(true);
                let v = self.ballot(t);
                let parts = self.split4(v);
                for (k, &p) in parts.iter().enumerate() {
                    if let Some(var) = self.demoted_var(i, k as u32) {
                        self.store(var, p);
                    }
                }
            }
            OpCode::WaveMultiPrefixOp => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let wop = self.arg_const(a, 6)?;
                let sop = self.arg_const(a, 7)?;
                let s = self.scalar_of(ty).ok_or_else(|| {
                    self.invalid(Invalid::ty("wave operation on a non-numeric value"))
                })?;
                // WaveMultiPrefixOpKind: sum, and, or, xor, product.
                let float = matches!(s, Scalar::Float(_));
                let o = match (wop, float) {
                    (0, true) => Op::GroupNonUniformFAdd,
                    (0, false) => Op::GroupNonUniformIAdd,
                    (1, false) => Op::GroupNonUniformBitwiseAnd,
                    (2, false) => Op::GroupNonUniformBitwiseOr,
                    (3, false) => Op::GroupNonUniformBitwiseXor,
                    (4, true) => Op::GroupNonUniformFMul,
                    (4, false) => Op::GroupNonUniformIMul,
                    _ => {
                        return Err(self.invalid(Invalid::Enum {
                            what: "multi-prefix operation",
                            value: wop,
                        }));
                    }
                };
                let _ = sop;
                let r = self.group_arith(o, t, GroupOperation::ExclusiveScan, x);
                if let Some(var) = self.demoted_var(i, 0) {
                    self.store(var, r);
                }
            }
            OpCode::WaveMultiPrefixBitCount => {
                let c = self.arg_id(a, 1)?;
                let v = self.ballot(c);
                let sg = self.subgroup();
                let u = self.b.u32();
                let r = self.opn(
                    Op::GroupNonUniformBallotBitCount,
                    u,
                    &words![sg, GroupOperation::ExclusiveScan as u32, v],
                );
                if let Some(var) = self.demoted_var(i, 0) {
                    self.store(var, r);
                }
            }
            _ => return Err(self.invalid(Invalid::internal("looped wave operation expected"))),
        }
        Ok(())
    }
}
