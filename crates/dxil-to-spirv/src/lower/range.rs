//! Upper bounds of integer values, to prove array indices in range.
//!
//! A dynamic index into a groupshared or local array is clamped into the array (D3D leaves an
//! out-of-range index undefined, but it must not reach other memory), and a clamp costs the
//! driver more than its one instruction: it hides the index's arithmetic, so that constant offsets
//! no longer fold into the access and neighbouring accesses no longer share an address. Most
//! indices are provably in range: thread ids are bounded by the group size, and the arithmetic on
//! them (`16 * y + x`, `i & 15`, `i % 20`) keeps a bound. [`Ctx::max_of`] derives one from the
//! defining instructions: constants; `ThreadIdInGroup`, `FlattenedThreadIdInGroup`, `GroupId` and
//! `ThreadId` (D3D12 dispatches at most 65535 groups per dimension), `WaveGetLaneIndex` and
//! `WaveGetLaneCount`; `add`, `mul`, `shl`, `lshr` that cannot wrap;
//! `and`, `or`, `xor`, `urem`, `udiv` by a constant; `zext`, `trunc`, `select` and acyclic `phi`s.
//! The walk visits a bounded number of values per question and remembers answers per function.

use dxil_module::{BinOp, BlockId, Body, CastOp, InstId, InstKind, Predicate, Value, ValueRef};
use dxil_shader::ops::OpCode;

use super::{Args, Ctx};

/// Values a single question may visit before it gives up (the answer is then "unknown").
const BUDGET: u32 = 256;
/// How deep the walk may go from the question's value.
const MAX_DEPTH: u32 = 32;

impl Ctx<'_> {
    /// An upper bound of `v` (an integer of at most 32 bits, read as unsigned), when one can be
    /// proven from its definition.
    pub fn max_of(&mut self, v: Value) -> Option<u64> {
        let mut budget = BUDGET;
        self.max_rec(v, 0, &mut budget)
    }

    fn max_rec(&mut self, v: Value, depth: u32, budget: &mut u32) -> Option<u64> {
        if depth > MAX_DEPTH || *budget == 0 {
            return None;
        }
        *budget -= 1;
        match v.get() {
            ValueRef::Const(_) => self.const_int(v).map(|c| u64::from(c as u32)),
            ValueRef::Inst(i) => {
                if let Some(&known) = self.f.max_cache.get(&i.0) {
                    return known;
                }
                // A cycle (a phi reached again through its loop) proves nothing.
                self.f.max_cache.insert(i.0, None);
                let bound = self
                    .inst_max(i, depth, budget)
                    .filter(|&b| b <= u64::from(u32::MAX));
                // An answer cut short by the budget is not remembered: another question may do better.
                if bound.is_some() || *budget > 0 {
                    self.f.max_cache.insert(i.0, bound);
                } else {
                    self.f.max_cache.remove(&i.0);
                }
                bound
            }
            _ => None,
        }
    }

    fn inst_max(&mut self, i: InstId, depth: u32, budget: &mut u32) -> Option<u64> {
        let m = self.m;
        let body = m.function(self.entry.function)?.body.as_ref()?;
        let d = body.inst(i)?;
        let bits = m.types.scalar_bits(d.ty);
        if bits == 0 || bits > 32 {
            return None;
        }
        let mask = (1u64 << bits) - 1;
        let mut rec = |s: &mut Self, v: Value| s.max_rec(v, depth + 1, budget);
        let bound = match &d.kind {
            InstKind::Binary { op, lhs, rhs, .. } => {
                let c = self.const_int(*rhs).map(|c| u64::from(c as u32) & mask);
                match op {
                    BinOp::Add => rec(self, *lhs)?.checked_add(rec(self, *rhs)?)?,
                    BinOp::Mul => rec(self, *lhs)?.checked_mul(rec(self, *rhs)?)?,
                    BinOp::Shl => {
                        let s = c.filter(|&s| s < u64::from(bits))?;
                        rec(self, *lhs)?.checked_shl(s as u32)?
                    }
                    BinOp::LShr => match c {
                        Some(s) if s < u64::from(bits) => rec(self, *lhs).unwrap_or(mask) >> s,
                        _ => rec(self, *lhs)?,
                    },
                    BinOp::And => match (rec(self, *lhs), rec(self, *rhs)) {
                        (Some(a), Some(b)) => a.min(b),
                        (a, b) => a.or(b)?,
                    },
                    BinOp::Or | BinOp::Xor => {
                        let m = rec(self, *lhs)?.max(rec(self, *rhs)?);
                        m.checked_add(1)?.next_power_of_two() - 1
                    }
                    BinOp::URem => match c {
                        Some(c) if c > 0 => rec(self, *lhs).map_or(c - 1, |a| a.min(c - 1)),
                        _ => return None,
                    },
                    // Division by zero gives all ones here (D3D's udiv), so only a constant
                    // divisor bounds the quotient.
                    BinOp::UDiv => match c {
                        Some(c) if c > 0 => rec(self, *lhs)? / c,
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            InstKind::Cast { op, value } => match op {
                CastOp::ZExt => rec(self, *value)?,
                CastOp::Trunc => rec(self, *value).map_or(mask, |b| b.min(mask)),
                _ => return None,
            },
            InstKind::Select {
                if_true, if_false, ..
            } => rec(self, *if_true)?.max(rec(self, *if_false)?),
            InstKind::Phi { incoming } => {
                let here = block_of(body, i)?;
                let edges: Vec<(Value, BlockId)> = body.phi_incoming(*incoming).collect();
                let mut most = 0;
                for (v, from) in edges {
                    // A loop's next index is bounded by the test that takes the back edge.
                    let on_edge = edge_bound(self, body, from, here, v);
                    let b = match (rec(self, v), on_edge) {
                        (Some(a), Some(e)) => a.min(e),
                        (a, e) => a.or(e)?,
                    };
                    most = most.max(b);
                }
                most
            }
            InstKind::Call { callee, args, .. } => {
                let a = Args(args.get(&body.pool));
                let op = self.dx_opcode(*callee, a).ok()??;
                self.intrinsic_max(op, a)?
            }
            _ => return None,
        };
        (bound <= mask).then_some(bound)
    }

    /// Bounds of the values of thread and wave ids.
    fn intrinsic_max(&self, op: OpCode, a: Args<'_>) -> Option<u64> {
        let [x, y, z] = self.entry.num_threads.map(u64::from);
        match op {
            OpCode::ThreadIdInGroup => {
                let n = match self.const_int(a.get(1)?)? {
                    0 => x,
                    1 => y,
                    2 => z,
                    _ => return None,
                };
                n.checked_sub(1)
            }
            OpCode::FlattenedThreadIdInGroup => (x * y * z).checked_sub(1),
            // D3D12 dispatches at most 65535 groups per dimension.
            OpCode::GroupId | OpCode::ThreadId => {
                let n = match self.const_int(a.get(1)?)? {
                    0 => x,
                    1 => y,
                    2 => z,
                    _ => return None,
                };
                let groups = 65_535;
                if op == OpCode::GroupId {
                    Some(groups - 1)
                } else {
                    (groups * n).checked_sub(1)
                }
            }
            // Waves have at most 128 lanes.
            OpCode::WaveGetLaneIndex => Some(127),
            OpCode::WaveGetLaneCount => Some(128),
            _ => None,
        }
    }
}

impl Ctx<'_> {
    /// How many low bits of `v` (an integer of at most 32 bits) are known to be zero: 4 for
    /// `16 * i`, `i << 4` or `(a << 4) + 32`. The same walk as [`Ctx::max_of`], without phis.
    pub fn known_zero_bits(&mut self, v: Value) -> u32 {
        let mut budget = BUDGET;
        self.zero_bits_rec(v, 0, &mut budget)
    }

    fn zero_bits_rec(&mut self, v: Value, depth: u32, budget: &mut u32) -> u32 {
        if depth > MAX_DEPTH || *budget == 0 {
            return 0;
        }
        *budget -= 1;
        let i = match v.get() {
            ValueRef::Const(_) => {
                return self.const_int(v).map_or(0, |c| (c as u32).trailing_zeros());
            }
            ValueRef::Inst(i) => i,
            _ => return 0,
        };
        let m = self.m;
        let Some(d) = m
            .function(self.entry.function)
            .and_then(|f| f.body.as_ref())
            .and_then(|b| b.inst(i))
        else {
            return 0;
        };
        let mut rec = |s: &mut Self, v: Value| s.zero_bits_rec(v, depth + 1, budget);
        let z = match &d.kind {
            InstKind::Binary { op, lhs, rhs, .. } => match op {
                BinOp::Add | BinOp::Sub | BinOp::Or | BinOp::Xor => {
                    rec(self, *lhs).min(rec(self, *rhs))
                }
                BinOp::Mul => rec(self, *lhs).saturating_add(rec(self, *rhs)),
                BinOp::And => rec(self, *lhs).max(rec(self, *rhs)),
                BinOp::Shl => match self.const_int(*rhs) {
                    Some(c) if (0..32).contains(&c) => rec(self, *lhs).saturating_add(c as u32),
                    _ => 0,
                },
                _ => 0,
            },
            InstKind::Cast {
                op: CastOp::ZExt | CastOp::Trunc,
                value,
            } => rec(self, *value),
            InstKind::Select {
                if_true, if_false, ..
            } => rec(self, *if_true).min(rec(self, *if_false)),
            _ => 0,
        };
        z.min(32)
    }
}

/// The block holding instruction `i`.
fn block_of(body: &Body, i: InstId) -> Option<BlockId> {
    let at = body.blocks.partition_point(|b| b.end <= i.0);
    let b = body.blocks.get(at)?;
    (b.start <= i.0).then(|| BlockId(u32::try_from(at).unwrap_or(u32::MAX)))
}

/// A bound of `v` on the edge `from` → `to`, when `from` ends in a conditional branch that takes
/// that edge only when `v <u N` (or `v <=u N`, `N >u v`, …) for a constant `N`.
fn edge_bound(cx: &Ctx<'_>, body: &Body, from: BlockId, to: BlockId, v: Value) -> Option<u64> {
    let InstKind::CondBr {
        cond,
        if_true,
        if_false,
    } = body.terminator(from)?
    else {
        return None;
    };
    let taken_when = match (*if_true == to, *if_false == to) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    let ValueRef::Inst(c) = cond.get() else {
        return None;
    };
    let InstKind::Cmp { pred, lhs, rhs, .. } = &body.inst(c)?.kind else {
        return None;
    };
    // Normalise to `v <pred> n`.
    let (pred, n) = if *lhs == v {
        (*pred, *rhs)
    } else if *rhs == v {
        let swapped = match *pred {
            Predicate::ICMP_UGT => Predicate::ICMP_ULT,
            Predicate::ICMP_UGE => Predicate::ICMP_ULE,
            Predicate::ICMP_ULT => Predicate::ICMP_UGT,
            Predicate::ICMP_ULE => Predicate::ICMP_UGE,
            _ => return None,
        };
        (swapped, *lhs)
    } else {
        return None;
    };
    let n = u64::from(cx.const_int(n)? as u32);
    match (pred, taken_when) {
        (Predicate::ICMP_ULT, true) | (Predicate::ICMP_UGE, false) => n.checked_sub(1),
        (Predicate::ICMP_ULE, true) | (Predicate::ICMP_UGT, false) => Some(n),
        _ => None,
    }
}
