//! Type checks of the entry function before lowering.
//!
//! DXC's validator guarantees well-typed modules; the bitcode reader only guarantees that ids resolve. A malformed
//! module (operands of the wrong type) would otherwise lower to invalid SPIR-V, so every instruction's operand
//! types are checked against what LLVM requires, and every call's operands against the callee's declared type.

use dxil_module::{Body, CastOp, Function, InstData, InstKind, Module, TypeData, TypeId, Value};

use super::Ctx;
use crate::error::{Error, Invalid};

impl<'a> Ctx<'a> {
    pub(super) fn verify_types(&mut self, body: &Body) -> Result<(), Error> {
        let t = Typing {
            m: self.m,
            func: self.func_of(self.entry.function),
        };
        for bb in 0..body.blocks.len() {
            self.at_block = bb as u32;
            for i in body.block_insts(dxil_module::BlockId(bb as u32)) {
                self.at_inst = i;
                let Some(d) = body.insts.get(i as usize) else {
                    return Err(self.invalid(Invalid::range("instruction index out of range")));
                };
                if let Some(what) = t.type_error(body, d) {
                    return Err(self.invalid(Invalid::ty(format!("ill-typed instruction: {what}"))));
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

/// The module's types as one function sees its values, for the type checks.
struct Typing<'m> {
    m: &'m Module,
    func: Option<&'m Function>,
}

impl Typing<'_> {
    /// Why `d` is ill-typed, if it is, by LLVM's typing rules: the check of its instruction
    /// family (dispatched once here, so that other instructions cost one match).
    #[inline]
    fn type_error(&self, body: &Body, d: &InstData) -> Option<String> {
        match d.kind {
            InstKind::Binary { .. }
            | InstKind::Cmp { .. }
            | InstKind::Select { .. }
            | InstKind::Cast { .. } => self.arithmetic(d),
            InstKind::Phi { .. } | InstKind::CondBr { .. } | InstKind::Switch { .. } => {
                self.control(body, d)
            }
            InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
            | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. } => self.aggregate(body, d),
            InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Gep { .. }
            | InstKind::Call { .. } => self.memory_or_call(body, d),
            _ => None,
        }
    }

    fn vt(&self, v: Value) -> Option<TypeId> {
        self.m.value_type(self.func, v)
    }

    fn same(&self, a: Value, t: TypeId) -> bool {
        self.vt(a) == Some(t)
    }

    fn is_i1(&self, t: Option<TypeId>) -> bool {
        let tys = &self.m.types;
        t.is_some_and(|t| matches!(tys.data(tys.scalar_of(t)), TypeData::Int(1)))
    }

    fn is_ptr(&self, v: Value) -> bool {
        matches!(
            self.vt(v).map(|t| self.m.types.data(t)),
            Some(TypeData::Pointer { .. })
        )
    }

    fn lanes(&self, t: Option<TypeId>) -> u32 {
        match t.map(|t| self.m.types.data(t)) {
            Some(TypeData::Vector { len, .. }) => *len,
            _ => 1,
        }
    }

    /// Binary operators, comparisons, selects and casts.
    #[inline]
    fn arithmetic(&self, d: &InstData) -> Option<String> {
        let (tys, ty) = (&self.m.types, d.ty);
        let vt = |v| self.vt(v);
        let same = |a, t| self.same(a, t);
        let is_i1 = |t| self.is_i1(t);
        let lanes = |t| self.lanes(t);
        match &d.kind {
            InstKind::Binary { op, lhs, rhs, .. } => {
                if !same(*lhs, ty) || !same(*rhs, ty) {
                    return Some("binary operands differ from the result type".into());
                }
                let float = tys.is_float(tys.scalar_of(ty));
                let int = tys.int_width(tys.scalar_of(ty)).is_some();
                if (op.is_float() && !float) || (!op.is_float() && !int) {
                    return Some("binary operator on operands of the wrong kind".into());
                }
            }
            InstKind::Cmp { pred, lhs, rhs, .. } => {
                let t = vt(*lhs);
                if t.is_none() || vt(*rhs) != t || !is_i1(Some(ty)) || lanes(t) != lanes(Some(ty)) {
                    return Some("comparison operands differ or the result is not i1".into());
                }
                let st = tys.scalar_of(t.unwrap_or(ty));
                if pred.is_float() != tys.is_float(st)
                    || (!pred.is_float() && tys.int_width(st).is_none())
                {
                    return Some("comparison predicate does not suit its operands".into());
                }
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } if !same(*if_true, ty) || !same(*if_false, ty) || !is_i1(vt(*cond)) => {
                return Some(
                    "select operands differ from the result type or the condition is not i1".into(),
                );
            }
            InstKind::Cast { op, value } => {
                let Some(from) = vt(*value) else {
                    return Some("cast of an untyped value".into());
                };
                if lanes(Some(from)) != lanes(Some(ty)) {
                    return Some("cast between different vector lengths".into());
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
                    return Some(format!("{} from {fw} to {tw} bits", op.name()));
                }
            }
            _ => {}
        }
        None
    }

    /// Phis, conditional branches and switches.
    #[inline]
    fn control(&self, body: &Body, d: &InstData) -> Option<String> {
        let (tys, ty) = (&self.m.types, d.ty);
        let vt = |v| self.vt(v);
        let same = |a, t| self.same(a, t);
        let is_i1 = |t| self.is_i1(t);
        let lanes = |t| self.lanes(t);
        match &d.kind {
            InstKind::Phi { incoming }
                if body.phi_incoming(*incoming).any(|(v, _)| !same(v, ty)) =>
            {
                return Some("phi incoming value of another type".into());
            }
            InstKind::CondBr { cond, .. } if !is_i1(vt(*cond)) || lanes(vt(*cond)) != 1 => {
                return Some("branch condition is not i1".into());
            }
            InstKind::Switch { cond, cases, .. } => {
                let t = vt(*cond);
                if t.and_then(|t| tys.int_width(t)).is_none()
                    || body.switch_cases(*cases).any(|(v, _)| vt(v) != t)
                {
                    return Some("switch on a non-integer or with cases of another type".into());
                }
            }
            _ => {}
        }
        None
    }

    /// Element and member extraction and insertion.
    #[inline]
    fn aggregate(&self, body: &Body, d: &InstData) -> Option<String> {
        let (tys, ty) = (&self.m.types, d.ty);
        let vt = |v| self.vt(v);
        let same = |a, t| self.same(a, t);
        match &d.kind {
            InstKind::ExtractValue { aggregate, indices } => {
                let Some(at) = vt(*aggregate) else {
                    return Some("extractvalue of an untyped value".into());
                };
                let idx = body.raw(*indices);
                let et = match idx {
                    [k] => tys.element_at(at, *k as u64),
                    _ => None,
                };
                if et != Some(ty) {
                    return Some("extractvalue result type differs from the element".into());
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
                    return Some("insertvalue operand types".into());
                }
            }
            InstKind::ExtractElement { vector, index } => {
                let v = vt(*vector);
                if v.and_then(|v| tys.element_at(v, 0)) != Some(ty)
                    || vt(*index).and_then(|t| tys.int_width(t)).is_none()
                {
                    return Some("extractelement operand types".into());
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
                return Some("insertelement operand types".into());
            }
            _ => {}
        }
        None
    }

    /// Loads, stores, GEPs and calls against the callee's declared type.
    #[inline]
    fn memory_or_call(&self, body: &Body, d: &InstData) -> Option<String> {
        let (m, tys, ty) = (self.m, &self.m.types, d.ty);
        let vt = |v| self.vt(v);
        let is_ptr = |v| self.is_ptr(v);
        match &d.kind {
            InstKind::Load { ptr, .. } if !is_ptr(*ptr) => {
                return Some("load from a non-pointer".into());
            }
            InstKind::Store { ptr, .. } if !is_ptr(*ptr) => {
                return Some("store to a non-pointer".into());
            }
            InstKind::Gep { operands, .. } => {
                let mut ops = body.values(*operands);
                let base = ops.next();
                if !matches!(
                    base.and_then(vt).map(|t| tys.data(t)),
                    Some(TypeData::Pointer { .. })
                ) || ops.any(|v| vt(v).and_then(|t| tys.int_width(t)).is_none())
                {
                    return Some(
                        "getelementptr of a non-pointer or with non-integer indices".into(),
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
                    return Some("call of something that is not a function".into());
                };
                let argv = body.values(*args);
                if ret != ty
                    || argv.len() != params.len()
                    || argv.zip(params.iter()).any(|(v, &p)| vt(v) != Some(p))
                {
                    return Some("call operands or result differ from the callee's type".into());
                }
            }
            _ => {}
        }
        None
    }
}
