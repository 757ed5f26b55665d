//! Type checks of the entry function before lowering.
//!
//! DXC's validator guarantees well-typed modules; the bitcode reader only guarantees that ids resolve. A malformed
//! module (operands of the wrong type) would otherwise lower to invalid SPIR-V, so every instruction's operand
//! types are checked against what LLVM requires, and every call's operands against the callee's declared type.

use dxil_module::{Body, CastOp, InstKind, TypeData, TypeId, Value};

use super::Ctx;
use crate::error::{Error, Invalid};

impl<'a> Ctx<'a> {
    pub(super) fn verify_types(&mut self, body: &Body) -> Result<(), Error> {
        let func = self.func_of(self.entry.function);
        let m = self.m;
        let tys = &m.types;
        let vt = |v: Value| m.value_type(func, v);
        for bb in 0..body.blocks.len() {
            self.at_block = bb as u32;
            for i in body.block_insts(dxil_module::BlockId(bb as u32)) {
                self.at_inst = i;
                let Some(d) = body.insts.get(i as usize) else {
                    return Err(self.invalid(Invalid::range("instruction index out of range")));
                };
                let ty = d.ty;
                let bad = |what: &str| {
                    Err(self.invalid(Invalid::ty(format!("ill-typed instruction: {what}"))))
                };
                let same = |a: Value, t: TypeId| vt(a) == Some(t);
                let is_i1 = |t: Option<TypeId>| {
                    t.is_some_and(|t| matches!(tys.data(tys.scalar_of(t)), TypeData::Int(1)))
                };
                let is_ptr =
                    |v: Value| matches!(vt(v).map(|t| tys.data(t)), Some(TypeData::Pointer { .. }));
                let lanes = |t: Option<TypeId>| match t.map(|t| tys.data(t)) {
                    Some(TypeData::Vector { len, .. }) => *len,
                    _ => 1,
                };
                match &d.kind {
                    InstKind::Binary { op, lhs, rhs, .. } => {
                        if !same(*lhs, ty) || !same(*rhs, ty) {
                            return bad("binary operands differ from the result type");
                        }
                        let float = tys.is_float(tys.scalar_of(ty));
                        let int = tys.int_width(tys.scalar_of(ty)).is_some();
                        if (op.is_float() && !float) || (!op.is_float() && !int) {
                            return bad("binary operator on operands of the wrong kind");
                        }
                    }
                    InstKind::Cmp { pred, lhs, rhs, .. } => {
                        let t = vt(*lhs);
                        if t.is_none()
                            || vt(*rhs) != t
                            || !is_i1(Some(ty))
                            || lanes(t) != lanes(Some(ty))
                        {
                            return bad("comparison operands differ or the result is not i1");
                        }
                        let st = tys.scalar_of(t.unwrap_or(ty));
                        if pred.is_float() != tys.is_float(st)
                            || (!pred.is_float() && tys.int_width(st).is_none())
                        {
                            return bad("comparison predicate does not suit its operands");
                        }
                    }
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    } if !same(*if_true, ty) || !same(*if_false, ty) || !is_i1(vt(*cond)) => {
                        return bad(
                            "select operands differ from the result type or the condition is not i1",
                        );
                    }
                    InstKind::Cast { op, value } => {
                        let Some(from) = vt(*value) else {
                            return bad("cast of an untyped value");
                        };
                        if lanes(Some(from)) != lanes(Some(ty)) {
                            return bad("cast between different vector lengths");
                        }
                        let (fs, ts) = (tys.scalar_of(from), tys.scalar_of(ty));
                        let (fw, tw) = (tys.scalar_bits(fs), tys.scalar_bits(ts));
                        let (fi, ti) = (tys.int_width(fs).is_some(), tys.int_width(ts).is_some());
                        let (ff, tf) = (tys.is_float(fs), tys.is_float(ts));
                        let ok = match op {
                            CastOp::Trunc => fi && ti && tw < fw,
                            CastOp::ZExt | CastOp::SExt => fi && ti && tw > fw,
                            CastOp::FPToUI | CastOp::FPToSI => ff && ti,
                            CastOp::UIToFP | CastOp::SIToFP => fi && tf,
                            CastOp::FPTrunc => ff && tf && tw < fw,
                            CastOp::FPExt => ff && tf && tw > fw,
                            CastOp::BitCast => {
                                let ptrs = matches!(tys.data(from), TypeData::Pointer { .. })
                                    && matches!(tys.data(ty), TypeData::Pointer { .. });
                                ptrs || (fw == tw && fw != 0 && fw != 1 && (fi || ff) && (ti || tf))
                            }
                            CastOp::AddrSpaceCast => true,
                            CastOp::PtrToInt | CastOp::IntToPtr => true,
                        };
                        if !ok {
                            return bad(&format!("{} from {fw} to {tw} bits", op.name()));
                        }
                    }
                    InstKind::Phi { incoming }
                        if body.phi_incoming(*incoming).any(|(v, _)| !same(v, ty)) =>
                    {
                        return bad("phi incoming value of another type");
                    }
                    InstKind::CondBr { cond, .. } if !is_i1(vt(*cond)) || lanes(vt(*cond)) != 1 => {
                        return bad("branch condition is not i1");
                    }
                    InstKind::Switch { cond, cases, .. } => {
                        let t = vt(*cond);
                        if t.and_then(|t| tys.int_width(t)).is_none()
                            || body.switch_cases(*cases).any(|(v, _)| vt(v) != t)
                        {
                            return bad("switch on a non-integer or with cases of another type");
                        }
                    }
                    InstKind::ExtractValue { aggregate, indices } => {
                        let Some(at) = vt(*aggregate) else {
                            return bad("extractvalue of an untyped value");
                        };
                        let idx = body.raw(*indices);
                        let et = match idx {
                            [k] => tys.element_at(at, *k as u64),
                            _ => None,
                        };
                        if et != Some(ty) {
                            return bad("extractvalue result type differs from the element");
                        }
                    }
                    InstKind::InsertValue {
                        aggregate,
                        element,
                        indices,
                    } => {
                        let idx = body.raw(*indices);
                        let et = match idx {
                            [k] => tys.element_at(ty, *k as u64),
                            _ => None,
                        };
                        if !same(*aggregate, ty) || et.is_none() || vt(*element) != et {
                            return bad("insertvalue operand types");
                        }
                    }
                    InstKind::ExtractElement { vector, index } => {
                        let v = vt(*vector);
                        if v.and_then(|v| tys.element_at(v, 0)) != Some(ty)
                            || vt(*index).and_then(|t| tys.int_width(t)).is_none()
                        {
                            return bad("extractelement operand types");
                        }
                    }
                    InstKind::InsertElement {
                        vector,
                        element,
                        index,
                    } if !same(*vector, ty)
                        || vt(*element) != tys.element_at(ty, 0)
                        || vt(*index).and_then(|t| tys.int_width(t)).is_none() =>
                    {
                        return bad("insertelement operand types");
                    }
                    InstKind::Load { ptr, .. } if !is_ptr(*ptr) => {
                        return bad("load from a non-pointer");
                    }
                    InstKind::Store { ptr, .. } if !is_ptr(*ptr) => {
                        return bad("store to a non-pointer");
                    }
                    InstKind::Gep { operands, .. } => {
                        let mut ops = body.values(*operands);
                        let base = ops.next();
                        if !matches!(
                            base.and_then(vt).map(|t| tys.data(t)),
                            Some(TypeData::Pointer { .. })
                        ) || ops.any(|v| vt(v).and_then(|t| tys.int_width(t)).is_none())
                        {
                            return bad(
                                "getelementptr of a non-pointer or with non-integer indices",
                            );
                        }
                    }
                    InstKind::Call {
                        callee,
                        args,
                        fn_ty,
                        ..
                    } => {
                        let declared = callee
                            .as_function()
                            .and_then(|f| m.function(f))
                            .map(|f| f.ty);
                        let sig = declared
                            .or(Some(*fn_ty))
                            .and_then(|t| tys.function_signature(t));
                        let Some((ret, params, _)) = sig else {
                            return bad("call of something that is not a function");
                        };
                        let argv = body.values(*args);
                        if ret != ty
                            || argv.len() != params.len()
                            || argv.zip(params.iter()).any(|(v, &p)| vt(v) != Some(p))
                        {
                            return bad("call operands or result differ from the callee's type");
                        }
                    }
                    _ => {}
                }
            }
        }
        self.verify_dx_op_classes()
    }

    /// Each `dx.op` call's opcode must belong to the class its callee's name says (dxil-shader's table), so that
    /// the operands have the shape the opcode's lowering expects.
    fn verify_dx_op_classes(&mut self) -> Result<(), Error> {
        let func = self
            .func_of(self.entry.function)
            .ok_or_else(|| self.invalid(Invalid::reference("no entry function")))?;
        let table = self.entry.dxil.dx_ops();
        let Some(body) = func.body.as_ref() else {
            return Ok(());
        };
        for (i, d) in body.insts.iter().enumerate() {
            if let InstKind::Call { callee, .. } = &d.kind
                && callee
                    .as_function()
                    .and_then(|f| self.m.function(f))
                    .is_some_and(|f| f.name.starts_with("dx.op."))
                && let Err(e) = table.decode(self.m, func, dxil_module::InstId(i as u32))
            {
                self.at_inst = i as u32;
                return Err(self.invalid(e));
            }
        }
        Ok(())
    }
}
