//! Subgroup operations (wave intrinsics) and helper-invocation queries.

use dxil_module::{BinOp, CastOp, Predicate, Value};
use dxil_shader::ops::OpCode;
use spirv::{GroupOperation, Op};

use super::Tr;
use super::wave_tree::{LaneMask, MAX_TREE_LEVELS, TreeResult};
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};
use crate::spv::Inst;

/// `WaveOpKind` and `SignedOpKind` of `WaveActiveOp`/`WavePrefixOp`.
const SUM: i64 = 0;
const PRODUCT: i64 = 1;
const MIN: i64 = 2;
const MAX: i64 = 3;
/// `WaveBitOpKind`.
const BIT_AND: i64 = 0;
const BIT_OR: i64 = 1;
const BIT_XOR: i64 = 2;

/// `OpGroupNonUniformQuadAllKHR` and `OpGroupNonUniformQuadAnyKHR` (SPV_KHR_quad_control),
/// which the `spirv` crate does not know yet.
pub const OP_QUAD_ALL_KHR: u16 = 5110;
pub const OP_QUAD_ANY_KHR: u16 = 5111;
/// `QuadVoteOpKind`.
const QUAD_VOTE_ANY: i64 = 0;
const QUAD_VOTE_ALL: i64 = 1;

impl Tr<'_> {
    /// A quad vote (`quadVote`, shader model 6.7).
    pub(super) fn quad_vote(&mut self, inst: &Inst<'_>) -> Result<()> {
        let id = inst.word(1)?;
        if !self.quad_stage() {
            return Err(unsupported(
                "quad operations outside fragment and compute shaders",
            ));
        }
        let cond = self.scalar(inst.word(2)?)?;
        if self.b.scalar_type_of(cond)? != Scalar::I1 {
            return Err(malformed("quad vote of something that is not a boolean"));
        }
        let kind = if inst.opcode == OP_QUAD_ALL_KHR {
            QUAD_VOTE_ALL
        } else {
            QUAD_VOTE_ANY
        };
        let k = self.b.i8c(kind);
        self.wave();
        self.features.need_sm(6, 7);
        let i1 = self.b.t.i1;
        let r = self.b.dxop(OpCode::QuadVote, Some(i1), i1, &[cond, k])?;
        self.set_scalar(id, r)
    }

    /// `OpGroupNonUniformPartitionNV` as `WaveMatch` (shader model 6.5): the ballot of the
    /// lanes whose value equals this lane's. `WaveMatch` takes scalars, so a vector's lanes are
    /// those that match on every component; booleans are compared as 0/1 integers (no `i1`
    /// overload).
    fn partition(&mut self, v: &[Value]) -> Result<Vec<Value>> {
        self.features.need_sm(6, 5);
        let i32t = self.b.t.i32;
        let four = self
            .b
            .named_struct("dx.types.fouri32", &[i32t, i32t, i32t, i32t]);
        let mut acc: Option<Vec<Value>> = None;
        for &x in v {
            let x = if self.b.scalar_type_of(x)? == Scalar::I1 {
                self.b.cast(CastOp::ZExt, x, i32t)?
            } else {
                x
            };
            let s = self.b.scalar_type_of(x)?;
            self.check_overload(OpCode::WaveMatch, s)?;
            let t = self.b.scalar(s);
            let r = self.b.dxop(OpCode::WaveMatch, Some(t), four, &[x])?;
            let mut words = Vec::with_capacity(4);
            for i in 0..4 {
                let w = self.b.extract_value(r, i, i32t)?;
                words.push(match &acc {
                    Some(p) => self.b.binary(BinOp::And, p[i as usize], w)?,
                    None => w,
                });
            }
            acc = Some(words);
        }
        acc.ok_or_else(|| malformed("partition of an empty value"))
    }

    /// A partitioned scan (`Partitioned{Ex,In}clusiveScanNV`) as `WaveMultiPrefixOp`
    /// (shader model 6.5), whose four mask words are the partition's ballot. DXIL has it for
    /// sums, products and bitwise operations (booleans go through it as 0 or 1 in `i32`); an
    /// inclusive scan combines the exclusive one with the lane's own value (the order of
    /// floating-point group operations is unspecified in SPIR-V).
    fn multi_prefix(
        &mut self,
        op: Op,
        v: &[Value],
        mask: &[Value],
        inclusive: bool,
    ) -> Result<Vec<Value>> {
        // `WaveMultiPrefixOpKind`, and whether the operands are booleans.
        let (kind, logical) = match op {
            Op::GroupNonUniformIAdd | Op::GroupNonUniformFAdd => (0, false),
            Op::GroupNonUniformBitwiseAnd => (1, false),
            Op::GroupNonUniformBitwiseOr => (2, false),
            Op::GroupNonUniformBitwiseXor => (3, false),
            Op::GroupNonUniformIMul | Op::GroupNonUniformFMul => (4, false),
            Op::GroupNonUniformLogicalAnd => (1, true),
            Op::GroupNonUniformLogicalOr => (2, true),
            Op::GroupNonUniformLogicalXor => (3, true),
            _ => {
                return Err(unsupported(format!("Op{op:?} as a partitioned scan")));
            }
        };
        let [m0, m1, m2, m3] = mask else {
            return Err(malformed("a partition ballot that is not four words"));
        };
        self.features.need_sm(6, 5);
        let i32t = self.b.t.i32;
        let mut out = Vec::with_capacity(v.len());
        for &x in v {
            let x = if logical {
                self.b.cast(CastOp::ZExt, x, i32t)?
            } else {
                x
            };
            let s = self.b.scalar_type_of(x)?;
            self.check_overload(OpCode::WaveMultiPrefixOp, s)?;
            let t = self.b.scalar(s);
            let k = self.b.i8c(kind);
            // `SignedOpKind`: sums, products and bit operations do not depend on it.
            let sign = self.b.i8c(0);
            let mut r = self.b.dxop(
                OpCode::WaveMultiPrefixOp,
                Some(t),
                t,
                &[x, *m0, *m1, *m2, *m3, k, sign],
            )?;
            if inclusive {
                let bin = match (kind, s.is_float()) {
                    (0, true) => BinOp::FAdd,
                    (0, false) => BinOp::Add,
                    (1, _) => BinOp::And,
                    (2, _) => BinOp::Or,
                    (3, _) => BinOp::Xor,
                    (_, true) => BinOp::FMul,
                    _ => BinOp::Mul,
                };
                r = self.b.binary(bin, r, x)?;
            }
            if logical {
                let z = self.b.i32c(0);
                r = self.b.cmp(Predicate::ICMP_NE, r, z)?;
            }
            out.push(r);
        }
        Ok(out)
    }

    pub(super) fn wave(&mut self) {
        self.features.wave_ops = true;
    }

    pub(super) fn lane_index(&mut self) -> Result<Value> {
        self.wave();
        let i32t = self.b.t.i32;
        self.b.dxop(OpCode::WaveGetLaneIndex, None, i32t, &[])
    }

    /// The lanes where `cond` holds among the active ones: four words of 32 lanes.
    pub(super) fn ballot(&mut self, cond: Value) -> Result<Vec<Value>> {
        self.wave();
        let i32t = self.b.t.i32;
        let four = self
            .b
            .named_struct("dx.types.fouri32", &[i32t, i32t, i32t, i32t]);
        let r = self.b.dxop(OpCode::WaveActiveBallot, None, four, &[cond])?;
        (0..4).map(|i| self.b.extract_value(r, i, i32t)).collect()
    }

    /// A `dx.op` overloaded on the type of its first argument, returning that type.
    pub(super) fn wave_same(&mut self, code: OpCode, args: &[Value]) -> Result<Value> {
        self.wave();
        let s = self.b.scalar_type_of(args[0])?;
        self.check_overload(code, s)?;
        let t = self.b.scalar(s);
        self.b.dxop(code, Some(t), t, args)
    }

    pub fn group_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let id = inst.word(1)?;
        let op = non_uniform_form(op).unwrap_or(op);
        // OpGroupNonUniform* carry an execution scope first; the KHR forms do not.
        let khr = matches!(
            op,
            Op::SubgroupBallotKHR
                | Op::SubgroupFirstInvocationKHR
                | Op::SubgroupAllKHR
                | Op::SubgroupAnyKHR
                | Op::SubgroupAllEqualKHR
                | Op::SubgroupReadInvocationKHR
                // SPV_NV_shader_subgroup_partitioned's partition has no scope either.
                | Op::GroupNonUniformPartitionNV
        );
        let a = if khr { 2 } else { 3 };
        if !khr {
            let scope = self.const_u64(inst.word(2)?)?;
            if scope != spirv::Scope::Subgroup as u64 {
                return Err(unsupported(
                    "group operations at a scope other than the subgroup",
                ));
            }
        }
        self.wave();
        let out: Vec<Value> = match op {
            Op::GroupNonUniformElect => {
                let i1 = self.b.t.i1;
                vec![self.b.dxop(OpCode::WaveIsFirstLane, None, i1, &[])?]
            }
            Op::GroupNonUniformAll
            | Op::SubgroupAllKHR
            | Op::GroupNonUniformAny
            | Op::SubgroupAnyKHR => {
                let c = self.scalar(inst.word(a)?)?;
                let code = if matches!(op, Op::GroupNonUniformAll | Op::SubgroupAllKHR) {
                    OpCode::WaveAllTrue
                } else {
                    OpCode::WaveAnyTrue
                };
                let i1 = self.b.t.i1;
                vec![self.b.dxop(code, None, i1, &[c])?]
            }
            Op::GroupNonUniformAllEqual | Op::SubgroupAllEqualKHR => {
                let v = self.values(inst.word(a)?)?;
                let i1 = self.b.t.i1;
                let mut acc: Option<Value> = None;
                for x in v {
                    let s = self.b.scalar_type_of(x)?;
                    let t = self.b.scalar(s);
                    let e = self.b.dxop(OpCode::WaveActiveAllEqual, Some(t), i1, &[x])?;
                    acc = Some(match acc {
                        Some(p) => self.b.binary(BinOp::And, p, e)?,
                        None => e,
                    });
                }
                vec![acc.ok_or_else(|| malformed("empty value"))?]
            }
            Op::GroupNonUniformPartitionNV => {
                let v = self.values(inst.word(a)?)?;
                self.partition(&v)?
            }
            Op::GroupNonUniformBroadcast
            | Op::SubgroupReadInvocationKHR
            | Op::GroupNonUniformShuffle => {
                let v = self.values(inst.word(a)?)?;
                let lane = self.scalar(inst.word(a + 1)?)?;
                let lane = self.int_to_i32(lane, false)?;
                self.each(&v, |tr, x| tr.wave_same(OpCode::WaveReadLaneAt, &[x, lane]))?
            }
            Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown => {
                let v = self.values(inst.word(a)?)?;
                let d = self.scalar(inst.word(a + 1)?)?;
                let d = self.int_to_i32(d, false)?;
                let me = self.lane_index()?;
                let bin = match op {
                    Op::GroupNonUniformShuffleXor => BinOp::Xor,
                    Op::GroupNonUniformShuffleUp => BinOp::Sub,
                    _ => BinOp::Add,
                };
                let lane = self.b.binary(bin, me, d)?;
                self.each(&v, |tr, x| tr.wave_same(OpCode::WaveReadLaneAt, &[x, lane]))?
            }
            Op::GroupNonUniformBroadcastFirst | Op::SubgroupFirstInvocationKHR => {
                let v = self.values(inst.word(a)?)?;
                self.each(&v, |tr, x| tr.wave_same(OpCode::WaveReadLaneFirst, &[x]))?
            }
            Op::GroupNonUniformBallot | Op::SubgroupBallotKHR => {
                let c = self.scalar(inst.word(a)?)?;
                self.ballot(c)?
            }
            Op::GroupNonUniformInverseBallot => {
                let v = self.values(inst.word(a)?)?;
                let me = self.lane_index()?;
                vec![self.ballot_bit(&v, me)?]
            }
            Op::GroupNonUniformBallotBitExtract => {
                let v = self.values(inst.word(a)?)?;
                let i = self.scalar(inst.word(a + 1)?)?;
                let i = self.int_to_i32(i, false)?;
                vec![self.ballot_bit(&v, i)?]
            }
            Op::GroupNonUniformBallotBitCount => {
                let group = inst.word(a)?;
                let v = self.values(inst.word(a + 1)?)?;
                vec![self.ballot_count(group, &v)?]
            }
            Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                let v = self.values(inst.word(a)?)?;
                vec![self.ballot_find(&v, op == Op::GroupNonUniformBallotFindMSB)?]
            }
            Op::GroupNonUniformQuadBroadcast => {
                if !self.quad_stage() {
                    return Err(unsupported(
                        "quad operations outside fragment and compute shaders",
                    ));
                }
                let v = self.values(inst.word(a)?)?;
                let i = self.scalar(inst.word(a + 1)?)?;
                let i = self.int_to_i32(i, false)?;
                self.each(&v, |tr, x| tr.wave_same(OpCode::QuadReadLaneAt, &[x, i]))?
            }
            Op::GroupNonUniformQuadSwap => {
                if !self.quad_stage() {
                    return Err(unsupported(
                        "quad operations outside fragment and compute shaders",
                    ));
                }
                let v = self.values(inst.word(a)?)?;
                let dir = self.const_u64(inst.word(a + 1)?)?;
                let k = self.b.i8c(dir as i64);
                self.each(&v, |tr, x| tr.quad_op(x, k))?
            }
            _ => return self.group_arith(inst, op, a, id),
        };
        self.set_vals(id, &out)
    }

    fn quad_stage(&self) -> bool {
        matches!(
            self.model,
            spirv::ExecutionModel::Fragment
                | spirv::ExecutionModel::GLCompute
                | spirv::ExecutionModel::MeshEXT
                | spirv::ExecutionModel::TaskEXT
        )
    }

    fn quad_op(&mut self, x: Value, k: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(x)?;
        if s == Scalar::I1 {
            let i32t = self.b.t.i32;
            let w = self.b.cast(CastOp::ZExt, x, i32t)?;
            let r = self.wave_same(OpCode::QuadOp, &[w, k])?;
            let z = self.b.i32c(0);
            return self.b.cmp(Predicate::ICMP_NE, r, z);
        }
        self.wave_same(OpCode::QuadOp, &[x, k])
    }

    /// Bit `i` of a 4-word ballot.
    fn ballot_bit(&mut self, v: &[Value], i: Value) -> Result<Value> {
        let five = self.b.i32c(5);
        let word = self.b.binary(BinOp::LShr, i, five)?;
        let w = self.select_dynamic(v, word)?;
        let m = self.b.i32c(31);
        let bit = self.b.binary(BinOp::And, i, m)?;
        let x = self.b.binary(BinOp::LShr, w, bit)?;
        let one = self.b.i32c(1);
        let x = self.b.binary(BinOp::And, x, one)?;
        let zero = self.b.i32c(0);
        self.b.cmp(Predicate::ICMP_NE, x, zero)
    }

    /// The number of set bits of a ballot: all of them, or those of lanes below (or up to)
    /// this one.
    fn ballot_count(&mut self, group: u32, v: &[Value]) -> Result<Value> {
        let i32t = self.b.t.i32;
        let me = if group == GroupOperation::Reduce as u32 {
            None
        } else if group == GroupOperation::InclusiveScan as u32
            || group == GroupOperation::ExclusiveScan as u32
        {
            let me = self.lane_index()?;
            Some(if group == GroupOperation::InclusiveScan as u32 {
                let one = self.b.i32c(1);
                self.b.binary(BinOp::Add, me, one)?
            } else {
                me
            })
        } else {
            return Err(unsupported("clustered or partitioned ballot counts"));
        };
        let mut acc: Option<Value> = None;
        for (i, &w) in v.iter().enumerate() {
            let w = match me {
                None => w,
                Some(limit) => {
                    // Keep bits [0, limit - 32 i) of word i.
                    let base = self.b.i32c(32 * i as i64);
                    let n = self.b.binary(BinOp::Sub, limit, base)?;
                    let zero = self.b.i32c(0);
                    let k32 = self.b.i32c(32);
                    let n = self.binary_dxop(OpCode::IMax, n, zero)?;
                    let n = self.binary_dxop(OpCode::IMin, n, k32)?;
                    let all = self.b.i32c(-1);
                    let sh = self.b.binary(BinOp::Sub, k32, n)?;
                    let mask = self.b.binary(BinOp::LShr, all, sh)?;
                    let none = self.b.cmp(Predicate::ICMP_EQ, n, zero)?;
                    let mask = self.b.select(none, zero, mask)?;
                    self.b.binary(BinOp::And, w, mask)?
                }
            };
            let c = self.b.dxop(OpCode::Countbits, Some(i32t), i32t, &[w])?;
            acc = Some(match acc {
                Some(a) => self.b.binary(BinOp::Add, a, c)?,
                None => c,
            });
        }
        acc.ok_or_else(|| malformed("empty ballot"))
    }

    fn ballot_find(&mut self, v: &[Value], msb: bool) -> Result<Value> {
        let i32t = self.b.t.i32;
        let m1 = self.b.i32c(-1);
        let mut acc = m1;
        let order: Vec<usize> = if msb {
            (0..v.len()).collect()
        } else {
            (0..v.len()).rev().collect()
        };
        // Later words win for MSB, earlier for LSB: fold so that the winner is applied last.
        for i in order {
            let (code, flip) = if msb {
                (OpCode::FirstbitHi, true)
            } else {
                (OpCode::FirstbitLo, false)
            };
            let r = self.b.dxop(code, Some(i32t), i32t, &[v[i]])?;
            let r = if flip {
                let k31 = self.b.i32c(31);
                self.b.binary(BinOp::Sub, k31, r)?
            } else {
                r
            };
            let base = self.b.i32c(32 * i as i64);
            let pos = self.b.binary(BinOp::Add, r, base)?;
            let zero = self.b.i32c(0);
            let any = self.b.cmp(Predicate::ICMP_NE, v[i], zero)?;
            acc = self.b.select(any, pos, acc)?;
        }
        Ok(acc)
    }

    /// Arithmetic, min/max and bitwise reductions and scans.
    fn group_arith(&mut self, inst: &Inst<'_>, op: Op, a: usize, id: u32) -> Result<()> {
        let value = inst.word(a + 1)?;
        let mut v = self.values(value)?;
        if self.int8 && self.is_int8_value(value) {
            // Bytes live zero-extended in i32 (see `int8`). Signed bytes order as unsigned
            // ones with the sign bit flipped, which also makes the empty scan's identities
            // (0 for the maximum, all ones for the minimum) the byte's extremes; results are
            // cut back to the byte, where sums, products and those identities carry past it.
            let (op, flip) = match op {
                Op::GroupNonUniformSMin => (Op::GroupNonUniformUMin, true),
                Op::GroupNonUniformSMax => (Op::GroupNonUniformUMax, true),
                _ => (op, false),
            };
            let sign = self.b.i32c(0x80);
            if flip {
                v = self.each(&v, |tr, x| tr.b.binary(BinOp::Xor, x, sign))?;
            }
            self.group_arith_values(inst, op, a, &v, id)?;
            let out = self.values(id)?;
            let out = self.each(&out, |tr, x| {
                let x = if flip {
                    tr.b.binary(BinOp::Xor, x, sign)?
                } else {
                    x
                };
                tr.wrap8(x)
            })?;
            return self.set_vals(id, &out);
        }
        self.group_arith_values(inst, op, a, &v, id)
    }

    /// [`Tr::group_arith`] over the operand's scalars `v`.
    fn group_arith_values(
        &mut self,
        inst: &Inst<'_>,
        op: Op,
        a: usize,
        v: &[Value],
        id: u32,
    ) -> Result<()> {
        let group = inst.word(a)?;
        let exclusive_p = group == GroupOperation::PartitionedExclusiveScanNV as u32;
        let partitioned_scan =
            exclusive_p || group == GroupOperation::PartitionedInclusiveScanNV as u32;
        if partitioned_scan && inst.operand_count() == a + 3 {
            let mask = self.values(inst.word(a + 2)?)?;
            // WaveMultiPrefixOp has sums, products and bitwise operations; min/max scans go
            // through the lane tree over the partition.
            let out = if min_max(op) {
                let result = if exclusive_p {
                    TreeResult::Exclusive
                } else {
                    TreeResult::Inclusive
                };
                self.masked_tree(op, v, LaneMask::Of(&mask), MAX_TREE_LEVELS, result)?
            } else {
                self.multi_prefix(op, v, &mask, !exclusive_p)?
            };
            return self.set_vals(id, &out);
        }
        if inst.operand_count() == a + 3 {
            // The extra operand is a cluster size, or for a partitioned reduction the
            // partition's ballot; DXIL reduces only over all active lanes, so both go
            // through the lane tree.
            let (mask, levels) = if group == GroupOperation::PartitionedReduceNV as u32 {
                (Some(self.values(inst.word(a + 2)?)?), MAX_TREE_LEVELS)
            } else if group == GroupOperation::ClusteredReduce as u32 {
                let size = self.const_u64(inst.word(a + 2)?)?;
                (None, self.cluster_levels(size)?)
            } else {
                return Err(malformed("a group operation with an extra operand"));
            };
            let mask = match &mask {
                Some(m) => LaneMask::Of(m),
                None => LaneMask::Active,
            };
            let out = self.masked_tree(op, v, mask, levels, TreeResult::Reduce)?;
            return self.set_vals(id, &out);
        }
        if inst.operand_count() > a + 3 {
            return Err(malformed("a group operation with extra operands"));
        }
        enum Kind {
            Active(i64, i64),
            Bit(i64),
            Logical(i64),
        }
        let kind = match op {
            Op::GroupNonUniformIAdd | Op::GroupNonUniformFAdd => Kind::Active(SUM, 0),
            Op::GroupNonUniformIMul | Op::GroupNonUniformFMul => Kind::Active(PRODUCT, 0),
            Op::GroupNonUniformSMin | Op::GroupNonUniformFMin => Kind::Active(MIN, 0),
            Op::GroupNonUniformUMin => Kind::Active(MIN, 1),
            Op::GroupNonUniformSMax | Op::GroupNonUniformFMax => Kind::Active(MAX, 0),
            Op::GroupNonUniformUMax => Kind::Active(MAX, 1),
            Op::GroupNonUniformBitwiseAnd => Kind::Bit(BIT_AND),
            Op::GroupNonUniformBitwiseOr => Kind::Bit(BIT_OR),
            Op::GroupNonUniformBitwiseXor => Kind::Bit(BIT_XOR),
            Op::GroupNonUniformLogicalAnd => Kind::Logical(BIT_AND),
            Op::GroupNonUniformLogicalOr => Kind::Logical(BIT_OR),
            Op::GroupNonUniformLogicalXor => Kind::Logical(BIT_XOR),
            _ => return Err(unsupported(format!("Op{op:?}"))),
        };
        let reduce = group == GroupOperation::Reduce as u32;
        let inclusive = group == GroupOperation::InclusiveScan as u32;
        let exclusive = group == GroupOperation::ExclusiveScan as u32;
        if !(reduce || inclusive || exclusive) {
            return Err(malformed(
                "a clustered or partitioned group operation without its cluster size or partition",
            ));
        }
        // DXIL's prefix operations are sums and products only: other scans go through the
        // lane tree over the active lanes.
        let prefix_op = matches!(kind, Kind::Active(SUM | PRODUCT, _));
        if !reduce && !prefix_op {
            let result = if inclusive {
                TreeResult::Inclusive
            } else {
                TreeResult::Exclusive
            };
            let out = self.masked_tree(op, v, LaneMask::Active, MAX_TREE_LEVELS, result)?;
            return self.set_vals(id, &out);
        }
        let mut out = Vec::with_capacity(v.len());
        for &x in v {
            let r = match kind {
                Kind::Active(wop, sign) => {
                    let s = self.b.scalar_type_of(x)?;
                    let k = self.b.i8c(wop);
                    let sg = self.b.i8c(sign);
                    if reduce {
                        self.wave_same(OpCode::WaveActiveOp, &[x, k, sg])?
                    } else {
                        let p = self.wave_same(OpCode::WavePrefixOp, &[x, k, sg])?;
                        if exclusive {
                            p
                        } else {
                            let bin = match (wop, s.is_float()) {
                                (SUM, true) => BinOp::FAdd,
                                (SUM, false) => BinOp::Add,
                                (_, true) => BinOp::FMul,
                                _ => BinOp::Mul,
                            };
                            self.b.binary(bin, p, x)?
                        }
                    }
                }
                Kind::Bit(bop) => {
                    let k = self.b.i8c(bop);
                    self.wave_same(OpCode::WaveActiveBit, &[x, k])?
                }
                Kind::Logical(bop) => {
                    let i1 = self.b.t.i1;
                    match bop {
                        BIT_AND => self.b.dxop(OpCode::WaveAllTrue, None, i1, &[x])?,
                        BIT_OR => self.b.dxop(OpCode::WaveAnyTrue, None, i1, &[x])?,
                        _ => {
                            let i32t = self.b.t.i32;
                            let w = self.b.cast(CastOp::ZExt, x, i32t)?;
                            let k = self.b.i8c(bop);
                            let r = self.wave_same(OpCode::WaveActiveBit, &[w, k])?;
                            let z = self.b.i32c(0);
                            self.b.cmp(Predicate::ICMP_NE, r, z)?
                        }
                    }
                }
            };
            out.push(r);
        }
        self.set_vals(id, &out)
    }

    pub fn helper_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        if self.model != spirv::ExecutionModel::Fragment {
            return Err(malformed(format!("Op{op:?} outside a fragment shader")));
        }
        match op {
            Op::DemoteToHelperInvocation => {
                // The active lanes may change here: the lane tree finds its lanes again.
                self.tree_lanes = None;
                let t = self.b.i1c(true);
                self.discard(t)
            }
            _ => {
                let id = inst.word(1)?;
                self.features.need_sm(6, 6);
                let i1 = self.b.t.i1;
                let r = self.b.dxop(OpCode::IsHelperLane, Some(i1), i1, &[])?;
                self.set_scalar(id, r)
            }
        }
    }
}

/// Minima and maxima, which DXIL's prefix operations lack.
fn min_max(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformSMin
            | Op::GroupNonUniformUMin
            | Op::GroupNonUniformFMin
            | Op::GroupNonUniformSMax
            | Op::GroupNonUniformUMax
            | Op::GroupNonUniformFMax
    )
}

/// The `OpGroupNonUniform*` instruction that does at subgroup scope what a `Groups`-capability
/// instruction (`OpGroupIAdd`, ..., which all invocations reach together) or an
/// SPV_AMD_shader_ballot one (`OpGroupIAddNonUniformAMD`, ...) does; the operands are the same.
pub(super) fn non_uniform_form(op: Op) -> Option<Op> {
    Some(match op {
        Op::GroupAll => Op::GroupNonUniformAll,
        Op::GroupAny => Op::GroupNonUniformAny,
        Op::GroupIAdd | Op::GroupIAddNonUniformAMD => Op::GroupNonUniformIAdd,
        Op::GroupFAdd | Op::GroupFAddNonUniformAMD => Op::GroupNonUniformFAdd,
        Op::GroupFMin | Op::GroupFMinNonUniformAMD => Op::GroupNonUniformFMin,
        Op::GroupUMin | Op::GroupUMinNonUniformAMD => Op::GroupNonUniformUMin,
        Op::GroupSMin | Op::GroupSMinNonUniformAMD => Op::GroupNonUniformSMin,
        Op::GroupFMax | Op::GroupFMaxNonUniformAMD => Op::GroupNonUniformFMax,
        Op::GroupUMax | Op::GroupUMaxNonUniformAMD => Op::GroupNonUniformUMax,
        Op::GroupSMax | Op::GroupSMaxNonUniformAMD => Op::GroupNonUniformSMax,
        _ => return None,
    })
}
