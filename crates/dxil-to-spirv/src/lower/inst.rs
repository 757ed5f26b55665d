//! LLVM instructions (everything that is not a `dx.op` call).

use dxil_module::{
    BinOp, Body, CastOp, ConstData, InstKind, Predicate, RmwOp, TypeData, TypeId, Value, ValueRef,
};
use spirv::{Decoration, GLOp, Op, StorageClass};

use super::types::Scalar;
use super::{Args, Ctx, NONE, PtrInfo, Val};
use crate::dxil::Stage;
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, words};

/// One index of an access chain.
#[derive(Clone, Copy)]
enum Ix {
    C(i64),
    V(Value),
}

/// Memory semantics: relaxed (D3D atomics carry no ordering of their own).
const RELAXED: u32 = 0;

impl<'a> Ctx<'a> {
    pub(super) fn lower_inst(&mut self, body: &Body, i: u32) -> Result<(), Error> {
        let d = &body.insts[i as usize];
        let ty = d.ty;
        let val = match &d.kind {
            InstKind::Binary {
                op,
                lhs,
                rhs,
                flags: _,
            } => Val::Id(self.binary(*op, ty, *lhs, *rhs, i)?),
            InstKind::Cast { op, value } => self.cast(body, *op, ty, *value)?,
            InstKind::Cmp { pred, lhs, rhs, .. } => Val::Id(self.compare(*pred, ty, *lhs, *rhs)?),
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => Val::Id(self.select_inst(ty, *cond, *if_true, *if_false)?),
            InstKind::ExtractValue { aggregate, indices } => {
                let idx = body.raw(*indices);
                let &[k] = idx else {
                    return Err(self.unsupported(Unsupported::instruction(
                        "extractvalue with nested indices",
                    )));
                };
                Val::Id(self.extract(*aggregate, k)?)
            }
            InstKind::InsertValue {
                aggregate,
                element,
                indices,
            } => {
                let idx = body.raw(*indices);
                let &[k] = idx else {
                    return Err(self
                        .unsupported(Unsupported::instruction("insertvalue with nested indices")));
                };
                self.insert_value(ty, *aggregate, *element, k)?
            }
            InstKind::ExtractElement { vector, index } => {
                let t = self.ty(ty)?;
                let vid = self.value(*vector)?;
                match self.const_int(*index) {
                    Some(c) => Val::Id(self.opn(Op::CompositeExtract, t, &words![vid, c as u32])),
                    None => {
                        let x = self.value(*index)?;
                        Val::Id(self.op2(Op::VectorExtractDynamic, t, vid, x))
                    }
                }
            }
            InstKind::InsertElement {
                vector,
                element,
                index,
            } => {
                let t = self.ty(ty)?;
                let vid = self.value(*vector)?;
                let e = self.value(*element)?;
                match self.const_int(*index) {
                    Some(c) => Val::Id(self.opn(Op::CompositeInsert, t, &words![e, vid, c as u32])),
                    None => {
                        let x = self.value(*index)?;
                        Val::Id(self.op3(Op::VectorInsertDynamic, t, vid, e, x))
                    }
                }
            }
            InstKind::ShuffleVector { v1, v2, mask } => Val::Id(self.shuffle(ty, *v1, *v2, *mask)?),
            InstKind::Phi { .. } => {
                return Err(self.invalid(Invalid::block("phi after the start of its block")));
            }
            // Allocas have their variable already; pointers are resolved at their uses (see `access`).
            InstKind::Alloca { .. } => Val::Ignore,
            // Pointers are resolved at their uses (see `access`).
            InstKind::Gep { .. } => Val::Ignore,
            // The load of a library resource variable stands for its handle (see `collect_handles`).
            InstKind::Load { .. } if self.f.handle_of[i as usize] != NONE => return Ok(()),
            InstKind::Load { ptr, atomic, .. } => {
                if atomic.is_some() {
                    return Err(self.unsupported(Unsupported::instruction("atomic load")));
                }
                let (p, pointee, _) = self.access(body, *ptr)?;
                let t = self.ty(pointee)?;
                let v = self.load(t, p);
                // Through a pointer bitcast (`load float, bitcast (i32* ...)`): reinterpret the bits.
                let want = self.ty(ty)?;
                Val::Id(self.reinterpret(want, ty, t, pointee, v)?)
            }
            InstKind::Store {
                ptr, value, atomic, ..
            } => {
                if atomic.is_some() {
                    return Err(self.unsupported(Unsupported::instruction("atomic store")));
                }
                let (p, pointee, _) = self.access(body, *ptr)?;
                let v = self.value(*value)?;
                let vty = self
                    .m
                    .value_type(self.func_of(self.entry.function), *value)
                    .ok_or_else(|| self.invalid(Invalid::operand("stored value has no type")))?;
                let have = self.ty(vty)?;
                let want = self.ty(pointee)?;
                let v = self.reinterpret(want, pointee, have, vty, v)?;
                self.store(p, v);
                Val::None
            }
            InstKind::AtomicRmw { op, ptr, value, .. } => {
                Val::Id(self.atomic_rmw(body, *op, ty, *ptr, *value)?)
            }
            InstKind::CmpXchg { ptr, cmp, new, .. } => self.cmpxchg(body, ty, *ptr, *cmp, *new)?,
            InstKind::Call { callee, args, .. } => {
                let argv: &[u32] = args.get(&body.pool);
                self.call(body, i, ty, *callee, Args(argv))?
            }
            InstKind::Fence { .. } => {
                return Err(self.unsupported(Unsupported::instruction("fence instruction")));
            }
            InstKind::VaArg { .. } => {
                return Err(self.unsupported(Unsupported::instruction("va_arg")));
            }
            InstKind::Ret { .. }
            | InstKind::Br { .. }
            | InstKind::CondBr { .. }
            | InstKind::Switch { .. }
            | InstKind::Unreachable => {
                return Err(self.invalid(Invalid::block("terminator in the middle of a block")));
            }
        };
        if let Val::Id(id) = val
            && self.f.precise.get(i as usize).copied().unwrap_or(false)
            && matches!(self.scalar_of(ty), Some(Scalar::Float(_)))
        {
            self.b.decorate(id, Decoration::NoContraction, &[]);
        }
        if !matches!(val, Val::None) {
            self.f.vals[i as usize] = val;
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------------------------
    // Arithmetic

    fn binary(
        &mut self,
        op: BinOp,
        ty: TypeId,
        lhs: Value,
        rhs: Value,
        _i: u32,
    ) -> Result<Id, Error> {
        let t = self.ty(ty)?;
        let s = self.scalar_of(ty).ok_or_else(|| {
            self.unsupported(Unsupported::value("binary operation on a non-numeric type"))
        })?;
        let lanes = self.lanes(ty);
        let a = self.value(lhs)?;
        use BinOp::*;
        if s == Scalar::Bool {
            let b = self.value(rhs)?;
            let o = match op {
                And | Mul => Op::LogicalAnd,
                Or => Op::LogicalOr,
                Xor | Add | Sub => Op::LogicalNotEqual,
                _ => {
                    return Err(
                        self.unsupported(Unsupported::value(format!("{} on i1", op.name())))
                    );
                }
            };
            return Ok(self.op2(o, t, a, b));
        }
        let w = match s {
            Scalar::Int(w) | Scalar::Float(w) => w,
            Scalar::Bool => 1,
        };
        Ok(match op {
            Add => {
                let b = self.value(rhs)?;
                self.op2(Op::IAdd, t, a, b)
            }
            Sub => {
                let b = self.value(rhs)?;
                self.op2(Op::ISub, t, a, b)
            }
            Mul => {
                let b = self.value(rhs)?;
                self.op2(Op::IMul, t, a, b)
            }
            FAdd => {
                let b = self.value(rhs)?;
                self.op2(Op::FAdd, t, a, b)
            }
            FSub => {
                let b = self.value(rhs)?;
                self.op2(Op::FSub, t, a, b)
            }
            FMul => {
                let b = self.value(rhs)?;
                self.op2(Op::FMul, t, a, b)
            }
            FDiv => {
                let b = self.value(rhs)?;
                self.op2(Op::FDiv, t, a, b)
            }
            FRem => {
                let b = self.value(rhs)?;
                self.op2(Op::FRem, t, a, b)
            }
            And => {
                let b = self.value(rhs)?;
                self.op2(Op::BitwiseAnd, t, a, b)
            }
            Or => {
                let b = self.value(rhs)?;
                self.op2(Op::BitwiseOr, t, a, b)
            }
            Xor => {
                let b = self.value(rhs)?;
                self.op2(Op::BitwiseXor, t, a, b)
            }
            Shl | LShr | AShr => {
                let b = self.shift_amount(rhs, w, lanes)?;
                let o = match op {
                    Shl => Op::ShiftLeftLogical,
                    LShr => Op::ShiftRightLogical,
                    _ => Op::ShiftRightArithmetic,
                };
                self.op2(o, t, a, b)
            }
            UDiv | URem => {
                let b = self.value(rhs)?;
                self.udiv(op == UDiv, t, w, lanes, a, b, self.const_int(rhs))
            }
            SDiv | SRem => {
                let b = self.value(rhs)?;
                self.sdiv(op == SDiv, t, w, lanes, a, b)
            }
        })
    }

    /// D3D masks shift amounts to the operand width; skip the mask when the amount is already in range.
    fn shift_amount(&mut self, rhs: Value, w: u8, lanes: u32) -> Result<Id, Error> {
        let b = self.value(rhs)?;
        if let Some(c) = self.const_int(rhs) {
            if (c as u64) < w as u64 {
                return Ok(b);
            }
            return Ok(self.const_scalar(Scalar::Int(w), lanes, (c as u64) & (w as u64 - 1)));
        }
        // DXC usually masks itself: `and %x, 31` feeding the shift.
        if let Some(i) = rhs.as_inst()
            && let Some(d) = self.inst_data(i)
            && let InstKind::Binary {
                op: BinOp::And,
                lhs,
                rhs: r2,
                ..
            } = &d.kind
        {
            let masked = [*lhs, *r2]
                .iter()
                .any(|&x| self.const_int(x).is_some_and(|c| (c as u64) < w as u64));
            if masked {
                return Ok(b);
            }
        }
        let t = self.scalar_ty(Scalar::Int(w), lanes);
        let m = self.const_scalar(Scalar::Int(w), lanes, w as u64 - 1);
        Ok(self.op2(Op::BitwiseAnd, t, b, m))
    }

    /// Unsigned division or remainder with D3D's divide-by-zero result (all ones).
    pub fn udiv(
        &mut self,
        quotient: bool,
        t: Id,
        w: u8,
        lanes: u32,
        a: Id,
        b: Id,
        b_const: Option<i64>,
    ) -> Id {
        let op = if quotient { Op::UDiv } else { Op::UMod };
        if b_const.is_some_and(|c| c != 0) {
            return self.op2(op, t, a, b);
        }
        let bt = self.scalar_ty(Scalar::Bool, lanes);
        let zero = self.const_scalar(Scalar::Int(w), lanes, 0);
        let one = self.const_scalar(Scalar::Int(w), lanes, 1);
        let ones = self.const_scalar(Scalar::Int(w), lanes, u64::MAX);
        let is0 = self.op2(Op::IEqual, bt, b, zero);
        let safe = self.select(t, is0, one, b);
        let r = self.op2(op, t, a, safe);
        self.select(t, is0, ones, r)
    }

    /// Signed division or remainder through absolute values (DXBC's expansion): avoids `OpSRem`/`OpSDiv`
    /// undefined cases (division by zero, `INT_MIN / -1`) and one driver's wrong `OpSRem`.
    fn sdiv(&mut self, quotient: bool, t: Id, w: u8, lanes: u32, a: Id, b: Id) -> Id {
        let bt = self.scalar_ty(Scalar::Bool, lanes);
        let zero = self.const_scalar(Scalar::Int(w), lanes, 0);
        let a_neg = self.op2(Op::SLessThan, bt, a, zero);
        let b_neg = self.op2(Op::SLessThan, bt, b, zero);
        let na = self.op1(Op::SNegate, t, a);
        let nb = self.op1(Op::SNegate, t, b);
        let ua = self.select(t, a_neg, na, a);
        let ub = self.select(t, b_neg, nb, b);
        let r = self.udiv(quotient, t, w, lanes, ua, ub, None);
        let neg = if quotient {
            self.op2(Op::LogicalNotEqual, bt, a_neg, b_neg)
        } else {
            a_neg
        };
        let nr = self.op1(Op::SNegate, t, r);
        self.select(t, neg, nr, r)
    }

    fn compare(
        &mut self,
        pred: Predicate,
        ty: TypeId,
        lhs: Value,
        rhs: Value,
    ) -> Result<Id, Error> {
        let lt = self
            .m
            .value_type(self.func_of(self.entry.function), lhs)
            .ok_or_else(|| self.invalid(Invalid::operand("comparison operand without a type")))?;
        let s = self.scalar_of(lt).ok_or_else(|| {
            self.unsupported(Unsupported::value("comparison of non-numeric values"))
        })?;
        let t = self.ty(ty)?;
        let a = self.value(lhs)?;
        let b = self.value(rhs)?;
        if s == Scalar::Bool {
            // i1 compares: eq/ne are logical; orderings treat true as 1 (unsigned) or -1 (signed).
            let o = match pred {
                Predicate::ICMP_EQ => Op::LogicalEqual,
                Predicate::ICMP_NE => Op::LogicalNotEqual,
                _ => {
                    let lanes = self.lanes(lt);
                    let it = self.scalar_ty(Scalar::Int(32), lanes);
                    let one = self.const_scalar(Scalar::Int(32), lanes, 1);
                    let zero = self.const_scalar(Scalar::Int(32), lanes, 0);
                    let ones = self.const_scalar(Scalar::Int(32), lanes, u64::MAX);
                    let signed = matches!(
                        pred,
                        Predicate::ICMP_SGT
                            | Predicate::ICMP_SGE
                            | Predicate::ICMP_SLT
                            | Predicate::ICMP_SLE
                    );
                    let tv = if signed { ones } else { one };
                    let ia = self.select(it, a, tv, zero);
                    let ib = self.select(it, b, tv, zero);
                    return Ok(self.op2(int_cmp(pred).unwrap_or(Op::IEqual), t, ia, ib));
                }
            };
            return Ok(self.op2(o, t, a, b));
        }
        if pred.is_float() {
            let lanes = self.lanes(lt);
            return Ok(match pred {
                Predicate::FCMP_FALSE => self.const_scalar(Scalar::Bool, lanes, 0),
                Predicate::FCMP_TRUE => self.const_scalar(Scalar::Bool, lanes, 1),
                Predicate::FCMP_ORD | Predicate::FCMP_UNO => {
                    let na = self.op1(Op::IsNan, t, a);
                    let nb = self.op1(Op::IsNan, t, b);
                    let any = self.op2(Op::LogicalOr, t, na, nb);
                    if pred == Predicate::FCMP_UNO {
                        any
                    } else {
                        self.op1(Op::LogicalNot, t, any)
                    }
                }
                p => {
                    let o = float_cmp(p)
                        .ok_or_else(|| self.invalid(Invalid::ty("unknown float predicate")))?;
                    self.op2(o, t, a, b)
                }
            });
        }
        let o =
            int_cmp(pred).ok_or_else(|| self.invalid(Invalid::ty("unknown integer predicate")))?;
        Ok(self.op2(o, t, a, b))
    }

    fn select_inst(&mut self, ty: TypeId, cond: Value, a: Value, b: Value) -> Result<Id, Error> {
        if matches!(
            self.m.types.data(ty),
            TypeData::Struct { .. } | TypeData::Pointer { .. }
        ) {
            return Err(self.unsupported(Unsupported::instruction(
                "select of aggregates, handles or pointers",
            )));
        }
        let t = self.ty(ty)?;
        let mut c = self.value(cond)?;
        let lanes = self.lanes(ty);
        let ct = self
            .m
            .value_type(self.func_of(self.entry.function), cond)
            .map_or(1, |t| self.lanes(t));
        if lanes > 1 && ct == 1 {
            // Before SPIR-V 1.4 the condition of a vector select must be a vector.
            let bv = self.scalar_ty(Scalar::Bool, lanes);
            let parts = [c; 4];
            c = self.op_ids(Op::CompositeConstruct, bv, &parts[..lanes as usize]);
        }
        let x = self.value(a)?;
        let y = self.value(b)?;
        Ok(self.select(t, c, x, y))
    }

    fn shuffle(&mut self, ty: TypeId, v1: Value, v2: Value, mask: Value) -> Result<Id, Error> {
        let t = self.ty(ty)?;
        let a = self.value(v1)?;
        let b = self.value(v2)?;
        let mut lits = Vec::new();
        let c = mask
            .as_const()
            .and_then(|c| self.m.constants.get(c))
            .ok_or_else(|| {
                self.invalid(Invalid::operand("shufflevector mask is not a constant"))
            })?;
        let n = self.lanes(ty);
        match &c.data {
            ConstData::Aggregate(r) => {
                for &e in self.m.constants.values_of(*r) {
                    lits.push(self.const_int(e).map_or(u32::MAX, |x| x as u32));
                }
            }
            ConstData::Data(r) => {
                lits.extend(self.m.constants.words_of(*r).iter().map(|&x| x as u32))
            }
            ConstData::Null => lits.resize(n as usize, 0),
            ConstData::Undef => lits.resize(n as usize, u32::MAX),
            _ => {
                return Err(self.invalid(Invalid::operand(
                    "shufflevector mask is not a constant vector",
                )));
            }
        }
        let mut args = vec![a.word(), b.word()];
        args.extend(lits);
        Ok(self.opn(Op::VectorShuffle, t, &args))
    }

    // -----------------------------------------------------------------------------------------------------------
    // Casts

    fn cast(&mut self, body: &Body, op: CastOp, ty: TypeId, value: Value) -> Result<Val, Error> {
        let from_ty = self
            .m
            .value_type(self.func_of(self.entry.function), value)
            .ok_or_else(|| self.invalid(Invalid::operand("cast operand without a type")))?;
        if matches!(self.m.types.data(ty), TypeData::Pointer { .. }) {
            // Pointer bitcasts only feed lifetime markers in DXIL; anything else is resolved at the use.
            let _ = body;
            return match op {
                CastOp::BitCast | CastOp::AddrSpaceCast => Ok(Val::Ignore),
                _ => Err(self.unsupported(Unsupported::instruction(format!(
                    "{} to a pointer",
                    op.name()
                )))),
            };
        }
        let t = self.ty(ty)?;
        let lanes = self.lanes(ty);
        let (fs, ts) = match (self.scalar_of(from_ty), self.scalar_of(ty)) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return Err(self.unsupported(Unsupported::value(format!(
                    "{} of non-numeric values",
                    op.name()
                ))));
            }
        };
        let x = self.value(value)?;
        use CastOp::*;
        if fs == ts && matches!(op, Trunc | ZExt | SExt | FPTrunc | FPExt) {
            // A min-precision 16-bit side lowered as 32-bit (`Ctx::min32`): floats stay as they are; integers keep
            // the 16 low bits, extended as the operation says (the same value a 16-bit register would hold).
            let id = if let Scalar::Float(_) = fs {
                x
            } else {
                let zero = self.b.const_u32(0);
                let sixteen = self.b.const_u32(16);
                let o = if op == SExt {
                    Op::BitFieldSExtract
                } else {
                    Op::BitFieldUExtract
                };
                self.op3(o, t, x, zero, sixteen)
            };
            return Ok(Val::Id(id));
        }
        let id = match op {
            Trunc => match ts {
                Scalar::Bool => {
                    let Scalar::Int(w) = fs else {
                        return Err(self.invalid(Invalid::ty("trunc from a non-integer")));
                    };
                    let it = self.scalar_ty(fs, lanes);
                    let one = self.const_scalar(Scalar::Int(w), lanes, 1);
                    let zero = self.const_scalar(Scalar::Int(w), lanes, 0);
                    let bit = self.op2(Op::BitwiseAnd, it, x, one);
                    self.op2(Op::INotEqual, t, bit, zero)
                }
                _ => self.op1(Op::UConvert, t, x),
            },
            ZExt | SExt => match fs {
                Scalar::Bool => {
                    let Scalar::Int(w) = ts else {
                        return Err(self.invalid(Invalid::ty("extension to a non-integer")));
                    };
                    let one = self.const_scalar(
                        Scalar::Int(w),
                        lanes,
                        if op == SExt { u64::MAX } else { 1 },
                    );
                    let zero = self.const_scalar(Scalar::Int(w), lanes, 0);
                    self.select(t, x, one, zero)
                }
                _ if op == ZExt => self.op1(Op::UConvert, t, x),
                _ => self.op1(Op::SConvert, t, x),
            },
            FPToUI | FPToSI => {
                let (Scalar::Float(fw), Scalar::Int(iw)) = (fs, ts) else {
                    return Err(self.unsupported(Unsupported::value("float to bool conversion")));
                };
                self.float_to_int(op == FPToSI, x, fw, iw, lanes)
            }
            UIToFP | SIToFP => match fs {
                Scalar::Bool => {
                    let Scalar::Float(w) = ts else {
                        return Err(self.invalid(Invalid::ty("conversion to a non-float")));
                    };
                    let one = self.const_float(w, lanes, if op == SIToFP { -1.0 } else { 1.0 });
                    let zero = self.const_float(w, lanes, 0.0);
                    self.select(t, x, one, zero)
                }
                _ if op == UIToFP => self.op1(Op::ConvertUToF, t, x),
                _ => self.op1(Op::ConvertSToF, t, x),
            },
            FPTrunc | FPExt => self.op1(Op::FConvert, t, x),
            BitCast => {
                if fs == Scalar::Bool || ts == Scalar::Bool {
                    return Err(self.unsupported(Unsupported::value("bitcast of i1")));
                }
                self.op1(Op::Bitcast, t, x)
            }
            PtrToInt | IntToPtr | AddrSpaceCast => {
                return Err(self.unsupported(Unsupported::Pointer(op.name())));
            }
        };
        Ok(Val::Id(id))
    }

    /// Float → integer with D3D's saturation: NaN → 0, values past the range → the range's ends.
    pub fn float_to_int(&mut self, signed: bool, x: Id, fw: u8, iw: u8, lanes: u32) -> Id {
        let ft = self.scalar_ty(Scalar::Float(fw), lanes);
        let it = self.scalar_ty(Scalar::Int(iw), lanes);
        let bt = self.scalar_ty(Scalar::Bool, lanes);
        // Integer range ends, and the float bounds: `lo` is exact (0 or -2^(n-1)); `hi1` = hi + 1 is a power of
        // two (exact, or infinity for narrow floats, which then never compares greater).
        let (lo_i, hi_i, lo_f, hi1_f): (u64, u64, f64, f64) = if signed {
            let h = 1u64 << (iw - 1);
            ((!0u64) << (iw - 1), h - 1, -(h as f64), h as f64)
        } else {
            let hi = if iw == 64 { u64::MAX } else { (1u64 << iw) - 1 };
            (0, hi, 0.0, 2f64.powi(iw as i32))
        };
        let lo_c = self.const_float(fw, lanes, lo_f);
        let hi1_c = self.const_float(fw, lanes, hi1_f);
        let big = self.op2(Op::FOrdGreaterThanEqual, bt, x, hi1_c);
        let small = self.op2(Op::FOrdLessThanEqual, bt, x, lo_c);
        let nan = self.op1(Op::IsNan, bt, x);
        let out1 = self.op2(Op::LogicalOr, bt, big, small);
        let out = self.op2(Op::LogicalOr, bt, out1, nan);
        let zf = self.const_float(fw, lanes, 0.0);
        let safe = self.select(ft, out, zf, x);
        let conv = self.op1(
            if signed {
                Op::ConvertFToS
            } else {
                Op::ConvertFToU
            },
            it,
            safe,
        );
        let lo = self.const_scalar(Scalar::Int(iw), lanes, lo_i);
        let hi = self.const_scalar(Scalar::Int(iw), lanes, hi_i);
        let r1 = self.select(it, big, hi, conv);
        let r2 = self.select(it, small, lo, r1);
        let zero = self.const_scalar(Scalar::Int(iw), lanes, 0);
        self.select(it, nan, zero, r2)
    }

    // -----------------------------------------------------------------------------------------------------------
    // Aggregates

    /// Component `k` of an aggregate value.
    pub fn extract(&mut self, aggregate: Value, k: u32) -> Result<Id, Error> {
        match aggregate.get() {
            ValueRef::Inst(i) => match self.inst_val(i)? {
                Val::Agg { start, len } if k < len => self
                    .agg
                    .get((start + k) as usize)
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        self.invalid(Invalid::internal(format!(
                            "component {k} of {} was not computed",
                            i.0
                        )))
                    }),
                Val::Id(id) => {
                    let d = self
                        .inst_data(i)
                        .ok_or_else(|| self.invalid(Invalid::reference("no instruction")))?;
                    let et = self.m.types.element_at(d.ty, k as u64).ok_or_else(|| {
                        self.invalid(Invalid::range("extractvalue index out of range"))
                    })?;
                    let t = self.ty(et)?;
                    Ok(self.opn(Op::CompositeExtract, t, &words![id, k]))
                }
                other => Err(self.invalid(Invalid::ty(format!("extractvalue from {other:?}")))),
            },
            ValueRef::Const(c) => {
                let k_ = self
                    .m
                    .constants
                    .get(c)
                    .ok_or_else(|| self.invalid(Invalid::reference("no constant")))?;
                let et = self.m.types.element_at(k_.ty, k as u64).ok_or_else(|| {
                    self.invalid(Invalid::range("extractvalue index out of range"))
                })?;
                match &k_.data {
                    ConstData::Aggregate(r) => {
                        let e =
                            *self
                                .m
                                .constants
                                .values_of(*r)
                                .get(k as usize)
                                .ok_or_else(|| {
                                    self.invalid(Invalid::range("extractvalue index out of range"))
                                })?;
                        self.value(e)
                    }
                    _ => {
                        let t = self.ty(et)?;
                        let w = self.bits(et);
                        Ok(if matches!(self.m.types.data(et), TypeData::Int(1)) {
                            self.b.const_bool(false)
                        } else if w > 0 {
                            self.b.const_bits(t, w, 0)
                        } else {
                            self.b.const_null(t)
                        })
                    }
                }
            }
            _ => Err(self.unsupported(Unsupported::instruction("extractvalue from this operand"))),
        }
    }

    fn insert_value(
        &mut self,
        ty: TypeId,
        aggregate: Value,
        element: Value,
        k: u32,
    ) -> Result<Val, Error> {
        let n = match self.m.types.data(ty) {
            TypeData::Struct { elems, .. } => elems.len() as u32,
            TypeData::Array { len, .. } => *len as u32,
            _ => return Err(self.invalid(Invalid::ty("insertvalue into a non-aggregate"))),
        };
        if k >= n || n > 64 {
            return Err(self.unsupported(Unsupported::instruction("insertvalue shape")));
        }
        let start = self.agg.len() as u32;
        for c in 0..n {
            let id = if c == k {
                self.value(element)?
            } else {
                self.extract(aggregate, c)?
            };
            self.agg.push(Some(id));
        }
        Ok(Val::Agg { start, len: n })
    }

    // -----------------------------------------------------------------------------------------------------------
    // Memory

    /// Resolves a pointer operand to an access chain: (pointer id, LLVM pointee type, storage class).
    ///
    /// GEPs and pointer casts are walked back to the variable. A GEP's first index steps over whole pointees: it
    /// must be 0, except in constant GEPs where it folds into the neighbouring array index.
    pub fn access(&mut self, body: &Body, ptr: Value) -> Result<(Id, TypeId, StorageClass), Error> {
        // GEP operand lists from the outermost (the pointer used) inwards.
        let mut geps: Vec<Vec<Value>> = Vec::new();
        let (var, storage, base_ty) = self.pointer_root(body, ptr, &mut geps)?;
        if geps.is_empty() {
            return Ok((var, base_ty, storage));
        }
        let terms = self.index_terms(&geps, base_ty)?;
        let (ids, pointee) = self.index_ids(terms, base_ty)?;
        let t = self.ty(pointee)?;
        let pt = self.b.ptr(storage, t);
        Ok((self.chain(pt, var, &ids), pointee, storage))
    }

    /// Walks a pointer back through GEPs and pointer casts to its variable, collecting the GEPs'
    /// operand lists (outermost first) in `geps`: returns the variable, its storage class and its
    /// LLVM value type.
    fn pointer_root(
        &mut self,
        body: &Body,
        ptr: Value,
        geps: &mut Vec<Vec<Value>>,
    ) -> Result<(Id, StorageClass, TypeId), Error> {
        let mut cur = ptr;
        let mut steps = 0;
        let root = loop {
            steps += 1;
            if steps > 64 {
                return Err(self.unsupported(Unsupported::Pointer("pointer chain deeper than 64")));
            }
            match cur.get() {
                ValueRef::Global(g) => {
                    let (var, sc) = self.global_var(g)?;
                    let gv = self
                        .m
                        .global(g)
                        .ok_or_else(|| self.invalid(Invalid::reference("no global")))?;
                    break (var, sc, gv.value_ty);
                }
                ValueRef::Inst(i) => {
                    if let Some(v) = self.alloca_of(cur) {
                        let d = self
                            .inst_data(i)
                            .ok_or_else(|| self.invalid(Invalid::reference("no instruction")))?;
                        // A local variable, or the payload of a mesh or amplification shader (a `GetMeshPayload`
                        // call, or the `alloca` passed to `DispatchMesh`).
                        let ty = match (&d.kind, self.m.types.data(d.ty)) {
                            (InstKind::Alloca { allocated, .. }, _) => *allocated,
                            (InstKind::Call { .. }, TypeData::Pointer { pointee, .. }) => *pointee,
                            _ => return Err(self.invalid(Invalid::reference("alloca expected"))),
                        };
                        let sc = if Some(v) == self.io.mesh.payload {
                            StorageClass::TaskPayloadWorkgroupEXT
                        } else {
                            self.alloca_storage(i.0)
                        };
                        break (v, sc, ty);
                    }
                    let d = body
                        .inst(i)
                        .ok_or_else(|| self.invalid(Invalid::reference("no instruction")))?;
                    match &d.kind {
                        InstKind::Gep { operands, .. } => {
                            let ops: Vec<Value> = body.values(*operands).collect();
                            cur = *ops
                                .first()
                                .ok_or_else(|| self.invalid(Invalid::reference("empty GEP")))?;
                            geps.push(ops);
                        }
                        InstKind::Cast { value, .. } => cur = *value,
                        _ => {
                            return Err(self.unsupported(Unsupported::Pointer(
                                "pointer from this instruction",
                            )));
                        }
                    }
                }
                ValueRef::Const(c) => {
                    let k = self
                        .m
                        .constants
                        .get(c)
                        .ok_or_else(|| self.invalid(Invalid::reference("no constant")))?;
                    match &k.data {
                        ConstData::Gep { operands, .. } => {
                            let ops: Vec<Value> = self.m.constants.values_of(*operands).to_vec();
                            cur = *ops
                                .first()
                                .ok_or_else(|| self.invalid(Invalid::reference("empty GEP")))?;
                            geps.push(ops);
                        }
                        ConstData::Cast { value, .. } => cur = *value,
                        _ => return Err(self.unsupported(Unsupported::Pointer("pointer constant"))),
                    }
                }
                // The entry function's parameters: a ray-tracing stage's incoming payload, attributes or data.
                ValueRef::Arg(k) => break self.incoming_param(k)?,
                _ => return Err(self.unsupported(Unsupported::Pointer("pointer operand"))),
            }
        };
        Ok(root)
    }

    /// The index terms of the collected GEPs from the variable outwards, a constant or a value
    /// each: a non-zero first index folds into the innermost array index (or, on an array
    /// variable, into its first index).
    fn index_terms(&mut self, geps: &[Vec<Value>], base_ty: TypeId) -> Result<Vec<Ix>, Error> {
        let mut terms: Vec<Ix> = Vec::new();
        for ops in geps.iter().rev() {
            let Some((first, rest)) = ops.get(1..).and_then(|x| x.split_first()) else {
                continue;
            };
            let f = self.const_int(*first);
            if f != Some(0) {
                let Some(f) = f else {
                    return Err(self.unsupported(Unsupported::Pointer(
                        "pointer arithmetic with a dynamic first GEP index",
                    )));
                };
                if let Some(last) = terms.last_mut() {
                    // Stepping over elements of the innermost array.
                    match last {
                        Ix::C(c) => *c += f,
                        Ix::V(_) => {
                            return Err(self.unsupported(Unsupported::Pointer(
                                "pointer arithmetic on a dynamic index",
                            )));
                        }
                    }
                } else {
                    // Stepping over whole variables: only meaningful as an index into the variable's array.
                    let len = match self.m.types.data(base_ty) {
                        TypeData::Array { len, .. } => *len as i64,
                        _ => {
                            return Err(self.unsupported(Unsupported::Pointer(
                                "pointer arithmetic past a scalar variable",
                            )));
                        }
                    };
                    let next = rest
                        .first()
                        .and_then(|&v| self.const_int(v))
                        .ok_or_else(|| {
                            self.unsupported(Unsupported::instruction(
                                "pointer arithmetic past a variable with a dynamic index",
                            ))
                        })?;
                    terms.push(Ix::C(f.saturating_mul(len).saturating_add(next)));
                    for &x in rest.iter().skip(1) {
                        terms.push(self.ix(x));
                    }
                    continue;
                }
            }
            for &x in rest {
                terms.push(self.ix(x));
            }
        }
        Ok(terms)
    }

    /// The access chain's index ids for `terms`, walking the types from `base_ty`, and the
    /// pointee type reached; array indices are clamped into their array unless proven inside.
    fn index_ids(&mut self, terms: Vec<Ix>, base_ty: TypeId) -> Result<(Vec<Id>, TypeId), Error> {
        let mut ids = Vec::with_capacity(terms.len());
        let mut pointee = base_ty;
        for t in terms {
            let (next, len) = match self.m.types.data(pointee) {
                TypeData::Array { len, elem } => (*elem, Some(*len)),
                TypeData::Vector { len, elem } => (*elem, Some(*len as u64)),
                TypeData::Struct { elems, .. } => {
                    let Ix::C(k) = t else {
                        return Err(
                            self.invalid(Invalid::operand("struct GEP index is not a constant"))
                        );
                    };
                    let e = *elems.get(k as usize).ok_or_else(|| {
                        self.invalid(Invalid::range("struct GEP index out of range"))
                    })?;
                    (e, None)
                }
                _ => return Err(self.invalid(Invalid::ty("GEP into a scalar"))),
            };
            let last = len.map(|l| l.saturating_sub(1).min(u32::MAX as u64) as u32);
            let id = match (t, last) {
                // Keep every index inside its array: D3D leaves out-of-range indexing of local and groupshared
                // arrays undefined, but it must not reach other memory.
                (Ix::C(c), Some(l)) => self.b.const_u32((c.max(0) as u64).min(l as u64) as u32),
                (Ix::C(c), None) => self.b.const_u32(c as u32),
                (Ix::V(v), Some(l)) => {
                    let x = self.value(v)?;
                    let xt = self
                        .m
                        .value_type(self.func_of(self.entry.function), v)
                        .map_or(32, |t| self.bits(t));
                    let u = self.b.u32();
                    // An index proven inside the array needs no clamp; one narrower than 32 bits is
                    // sign-extended, so its bound must also stay below its sign bit.
                    let sign_bit = 1u64 << xt.clamp(1, 32).saturating_sub(1);
                    if (xt == 32 || xt > 1)
                        && self
                            .max_of(v)
                            .is_some_and(|m| m <= u64::from(l) && (xt == 32 || m < sign_bit))
                    {
                        let x = if xt == 32 {
                            x
                        } else {
                            self.op1(Op::SConvert, u, x)
                        };
                        ids.push(x);
                        pointee = next;
                        continue;
                    }
                    let x = match xt {
                        32 => x,
                        1 => {
                            let one = self.b.const_u32(1);
                            let zero = self.b.const_u32(0);
                            self.select(u, x, one, zero)
                        }
                        // GEP indices are signed.
                        _ => self.op1(Op::SConvert, u, x),
                    };
                    let lc = self.b.const_u32(l);
                    self.glsl(u, GLOp::UMin, &[x, lc])
                }
                (Ix::V(_), None) => return Err(self.invalid(Invalid::ty("dynamic struct index"))),
            };
            ids.push(id);
            pointee = next;
        }
        Ok((ids, pointee))
    }

    /// A value of SPIR-V type `have` (LLVM `have_ty`) as type `want` (LLVM `want_ty`) with the same bits.
    fn reinterpret(
        &mut self,
        want: Id,
        want_ty: TypeId,
        have: Id,
        have_ty: TypeId,
        v: Id,
    ) -> Result<Id, Error> {
        if want == have {
            return Ok(v);
        }
        let (a, b) = (self.bits(want_ty), self.bits(have_ty));
        let scalars = self.scalar_of(want_ty).is_some() && self.scalar_of(have_ty).is_some();
        if !scalars || a != b || a == 1 || self.lanes(want_ty) != self.lanes(have_ty) {
            return Err(self.unsupported(Unsupported::Pointer(
                "memory access through a pointer of a different type",
            )));
        }
        Ok(self.op1(Op::Bitcast, want, v))
    }

    fn ix(&self, v: Value) -> Ix {
        match self.const_int(v) {
            Some(c) => Ix::C(c),
            None => Ix::V(v),
        }
    }

    /// The SPIR-V variable of a global (groupshared → Workgroup, static → Private).
    pub(in crate::lower) fn global_var(
        &mut self,
        g: dxil_module::GlobalId,
    ) -> Result<(Id, StorageClass), Error> {
        if let Some(Val::Ptr(p)) = self.global_vals.get(g.index()).copied()
            && let Some(pi) = self.ptrs.get(p as usize)
        {
            return Ok((pi.var, pi.storage));
        }
        let gv = self
            .m
            .global(g)
            .ok_or_else(|| self.invalid(Invalid::reference("no global")))?;
        let sc = match gv.address_space {
            _ if self.payload_global(g) => StorageClass::TaskPayloadWorkgroupEXT,
            // Vulkan has Workgroup memory in compute, mesh and task shaders only; DXIL allows groupshared there.
            3 if !matches!(
                self.entry.stage,
                Stage::Compute | Stage::Mesh | Stage::Amplification | Stage::Library
            ) =>
            {
                return Err(self.invalid(Invalid::Stage {
                    what: "groupshared memory",
                    stage: self.entry.stage.name(),
                }));
            }
            3 => StorageClass::Workgroup,
            0 => StorageClass::Private,
            a => {
                return Err(self.unsupported(Unsupported::instruction(format!(
                    "global in address space {a}"
                ))));
            }
        };
        let t = self.ty(gv.value_ty)?;
        let init = match (sc, gv.init) {
            (StorageClass::Private, Some(v)) => Some(self.value(v)?),
            (StorageClass::Private, None) => Some(self.b.const_null(t)),
            _ => None,
        };
        let pt = self.b.ptr(sc, t);
        let var = self.b.global_var(pt, sc, init);
        if sc == StorageClass::TaskPayloadWorkgroupEXT {
            self.io.mesh.payload = Some(var);
        }
        if !gv.name.is_empty() {
            let name = gv.name.trim_start_matches('\u{1}').to_string();
            self.b.name(var, &name);
        }
        let p = self.ptrs.len() as u32;
        self.ptrs.push(PtrInfo { var, storage: sc });
        if let Some(slot) = self.global_vals.get_mut(g.index()) {
            *slot = Val::Ptr(p);
        }
        Ok((var, sc))
    }

    fn atomic_rmw(
        &mut self,
        body: &Body,
        op: RmwOp,
        ty: TypeId,
        ptr: Value,
        value: Value,
    ) -> Result<Id, Error> {
        let (p, pointee, sc) = self.access(body, ptr)?;
        let t = self.ty(ty)?;
        if self.ty(pointee)? != t || !matches!(self.scalar_of(ty), Some(Scalar::Int(32 | 64))) {
            return Err(self.unsupported(Unsupported::value(
                "atomicrmw through a pointer of another type, or on a non-integer",
            )));
        }
        if self.bits(ty) == 64 {
            self.b.capability(spirv::Capability::Int64Atomics);
        }
        let v = self.value(value)?;
        let scope = self.b.const_u32(scope_of(sc));
        let sem = self.b.const_u32(RELAXED);
        let o = match op {
            RmwOp::Xchg => Op::AtomicExchange,
            RmwOp::Add => Op::AtomicIAdd,
            RmwOp::Sub => Op::AtomicISub,
            RmwOp::And => Op::AtomicAnd,
            RmwOp::Or => Op::AtomicOr,
            RmwOp::Xor => Op::AtomicXor,
            RmwOp::Max => Op::AtomicSMax,
            RmwOp::Min => Op::AtomicSMin,
            RmwOp::UMax => Op::AtomicUMax,
            RmwOp::UMin => Op::AtomicUMin,
            RmwOp::Nand => return Err(self.unsupported(Unsupported::instruction("atomicrmw nand"))),
        };
        Ok(self.opn(o, t, &words![p, scope, sem, v]))
    }

    fn cmpxchg(
        &mut self,
        body: &Body,
        ty: TypeId,
        ptr: Value,
        cmp: Value,
        new: Value,
    ) -> Result<Val, Error> {
        let (p, pointee, sc) = self.access(body, ptr)?;
        let t = self.ty(pointee)?;
        let vt = self
            .m
            .value_type(self.func_of(self.entry.function), cmp)
            .ok_or_else(|| self.invalid(Invalid::operand("cmpxchg operand without a type")))?;
        if self.ty(vt)? != t || !matches!(self.scalar_of(pointee), Some(Scalar::Int(32 | 64))) {
            return Err(self.unsupported(Unsupported::value(
                "cmpxchg through a pointer of another type, or on a non-integer",
            )));
        }
        if self.bits(pointee) == 64 {
            self.b.capability(spirv::Capability::Int64Atomics);
        }
        let c = self.value(cmp)?;
        let n = self.value(new)?;
        let scope = self.b.const_u32(scope_of(sc));
        let sem = self.b.const_u32(RELAXED);
        let old = self.opn(
            Op::AtomicCompareExchange,
            t,
            &words![p, scope, sem, sem, n, c],
        );
        let _ = ty;
        let bt = self.b.bool();
        let ok = self.op2(Op::IEqual, bt, old, c);
        let start = self.agg.len() as u32;
        self.agg.push(Some(old));
        self.agg.push(Some(ok));
        Ok(Val::Agg { start, len: 2 })
    }

    // -----------------------------------------------------------------------------------------------------------
    // Calls

    fn call(
        &mut self,
        body: &Body,
        i: u32,
        ty: TypeId,
        callee: Value,
        args: Args<'_>,
    ) -> Result<Val, Error> {
        let name = self.callee_name(callee);
        if name.starts_with("llvm.lifetime.") || name == "llvm.donothing" {
            return Ok(Val::None);
        }
        if let Some(op) = self.dx_opcode(callee, args)? {
            return self.dx_op(body, i, op, ty, args);
        }
        Err(self.unsupported(Unsupported::instruction(format!("call to @{name}"))))
    }
}

/// Memory scope of an atomic on a variable of this storage class.
pub(crate) fn scope_of(sc: StorageClass) -> u32 {
    match sc {
        StorageClass::Workgroup => spirv::Scope::Workgroup as u32,
        StorageClass::Function | StorageClass::Private => spirv::Scope::Invocation as u32,
        _ => spirv::Scope::Device as u32,
    }
}

fn int_cmp(p: Predicate) -> Option<Op> {
    Some(match p {
        Predicate::ICMP_EQ => Op::IEqual,
        Predicate::ICMP_NE => Op::INotEqual,
        Predicate::ICMP_UGT => Op::UGreaterThan,
        Predicate::ICMP_UGE => Op::UGreaterThanEqual,
        Predicate::ICMP_ULT => Op::ULessThan,
        Predicate::ICMP_ULE => Op::ULessThanEqual,
        Predicate::ICMP_SGT => Op::SGreaterThan,
        Predicate::ICMP_SGE => Op::SGreaterThanEqual,
        Predicate::ICMP_SLT => Op::SLessThan,
        Predicate::ICMP_SLE => Op::SLessThanEqual,
        _ => return None,
    })
}

fn float_cmp(p: Predicate) -> Option<Op> {
    Some(match p {
        Predicate::FCMP_OEQ => Op::FOrdEqual,
        Predicate::FCMP_OGT => Op::FOrdGreaterThan,
        Predicate::FCMP_OGE => Op::FOrdGreaterThanEqual,
        Predicate::FCMP_OLT => Op::FOrdLessThan,
        Predicate::FCMP_OLE => Op::FOrdLessThanEqual,
        Predicate::FCMP_ONE => Op::FOrdNotEqual,
        Predicate::FCMP_UEQ => Op::FUnordEqual,
        Predicate::FCMP_UGT => Op::FUnordGreaterThan,
        Predicate::FCMP_UGE => Op::FUnordGreaterThanEqual,
        Predicate::FCMP_ULT => Op::FUnordLessThan,
        Predicate::FCMP_ULE => Op::FUnordLessThanEqual,
        Predicate::FCMP_UNE => Op::FUnordNotEqual,
        _ => return None,
    })
}
