//! Instructions, with their attachments and DXC's trailing notes.

use std::fmt::{self, Write};

use dxil_module::inst::{BinFlagKind, fast_math};
use dxil_module::{
    BinOp, BlockId, Body, ConstData, InstKind, Ordering, PoolRange, Predicate, RmwOp, SyncScope,
    TypeData, TypeId, Value, ValueRef,
};
use dxil_shader::ops::{CALL_COMMENT_PREFIX, OpCode, write_call_comment};

use super::attrs::write_attrs;
use super::ident::write_name;
use super::value::PLAIN;
use super::{NO_SLOT, Printer, alignment, write_block_ref, write_calling_conv};

impl<'m, W: Write + ?Sized> Printer<'m, '_, W> {
    pub(super) fn instruction(
        &mut self,
        body: &'m Body,
        i: u32,
        att_cursor: &mut usize,
        loc_cursor: &mut usize,
    ) -> fmt::Result {
        let m = self.m;
        let Some(inst) = body.insts.get(i as usize) else {
            return Ok(());
        };
        self.s("  ")?;
        if let Some(Some(name)) = self.locals.inst_name.get(i as usize) {
            write_name(self.out, "%", name)?;
            self.s(" = ")?;
        } else if !m.types.is_void(inst.ty) {
            match self.locals.inst_slot.get(i as usize) {
                Some(&s) if s != NO_SLOT => {
                    self.s("%")?;
                    self.num(u64::from(s))?;
                    self.s(" = ")?;
                }
                _ => self.s("<badref> = ")?,
            }
        }
        self.instruction_body(body, &inst.kind, inst.ty)?;

        let mut att = std::mem::take(&mut self.att);
        self.kinds.attachments_of(body, i, att_cursor, &mut att);
        for &(kind, node) in &att {
            self.s(", ")?;
            self.kinds.write_kind(self.out, kind)?;
            self.s(" ")?;
            self.md_ref(node)?;
        }
        self.att = att;

        if self.opts.dxc_annotations {
            while body
                .debug_locs
                .get(*loc_cursor)
                .is_some_and(|(x, _)| x.0 < i)
            {
                *loc_cursor += 1;
            }
            if let Some((x, loc)) = body.debug_locs.get(*loc_cursor)
                && x.0 == i
                && loc.line != 0
            {
                self.s(" ; line:")?;
                self.num(loc.line)?;
                self.s(" col:")?;
                self.num(loc.col)?;
            }
            if let InstKind::Call { callee, args, .. } = &inst.kind {
                self.dx_op_comment(body, *callee, *args)?;
            }
        }
        self.s("\n")
    }

    /// An instruction's text after `%x = `, in LLVM's syntax for its opcode. The longer forms
    /// have their own printers below, grouped by family (terminators, arithmetic, phi, memory,
    /// atomics), so that this stays a table of opcodes.
    fn instruction_body(
        &mut self,
        body: &'m Body,
        kind: &InstKind,
        ty: dxil_module::TypeId,
    ) -> fmt::Result {
        match kind {
            InstKind::Ret { value: None } => self.s("ret void"),
            InstKind::Ret { value: Some(v) } => {
                self.s("ret ")?;
                self.typed_operand(*v)
            }
            InstKind::Br { dest } => {
                self.s("br label ")?;
                self.block(dest.index())
            }
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => self.cond_br(*cond, *if_true, *if_false),
            InstKind::Switch {
                cond,
                default,
                cases,
            } => self.switch(body, *cond, *default, *cases),
            InstKind::Unreachable => self.s("unreachable"),
            InstKind::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => self.binary(*op, *lhs, *rhs, *flags),
            InstKind::Cast { op, value } => {
                self.s(op.name())?;
                self.s(" ")?;
                self.typed_operand(*value)?;
                self.s(" to ")?;
                self.ty(ty)
            }
            InstKind::Cmp {
                pred,
                lhs,
                rhs,
                flags,
            } => self.cmp(*pred, *lhs, *rhs, *flags),
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => {
                self.s("select")?;
                self.operand_list(&[cond.0, if_true.0, if_false.0], true)
            }
            InstKind::ExtractElement { vector, index } => {
                self.s("extractelement")?;
                self.operand_list(&[vector.0, index.0], false)
            }
            InstKind::InsertElement {
                vector,
                element,
                index,
            } => {
                self.s("insertelement")?;
                self.operand_list(&[vector.0, element.0, index.0], false)
            }
            InstKind::ShuffleVector { v1, v2, mask } => {
                self.s("shufflevector")?;
                self.operand_list(&[v1.0, v2.0, mask.0], true)
            }
            InstKind::ExtractValue { aggregate, indices } => {
                self.s("extractvalue ")?;
                self.typed_operand(*aggregate)?;
                self.indices(body.raw(*indices))
            }
            InstKind::InsertValue {
                aggregate,
                element,
                indices,
            } => {
                self.s("insertvalue ")?;
                self.typed_operand(*aggregate)?;
                self.s(", ")?;
                self.typed_operand(*element)?;
                self.indices(body.raw(*indices))
            }
            InstKind::Phi { incoming } => self.phi(body, *incoming, ty),
            InstKind::Alloca {
                allocated,
                size,
                align_field,
            } => self.alloca(*allocated, *size, *align_field),
            InstKind::Load {
                ptr,
                align,
                volatile,
                atomic,
            } => self.load(*ptr, *align, *volatile, *atomic, ty),
            InstKind::Store {
                ptr,
                value,
                align,
                volatile,
                atomic,
            } => self.store(*ptr, *value, *align, *volatile, *atomic),
            InstKind::Gep {
                inbounds,
                source_ty,
                operands,
            } => self.gep(body, *inbounds, *source_ty, *operands),
            InstKind::Call {
                callee,
                fn_ty,
                attrs,
                cc_flags,
                args,
            } => self.call(body, *callee, *fn_ty, *attrs, *cc_flags, *args),
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                ordering,
                scope,
            } => self.atomic_rmw(*op, [*ptr, *value], *volatile, *ordering, *scope),
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                volatile,
                success,
                scope,
                failure,
                weak,
            } => self.cmpxchg(
                [*ptr, *cmp, *new],
                *volatile,
                *weak,
                *scope,
                [*success, *failure],
            ),
            InstKind::Fence { ordering, scope } => {
                self.s("fence")?;
                self.atomic(*ordering, *scope)
            }
            InstKind::VaArg { list, .. } => {
                self.s("va_arg ")?;
                self.typed_operand(*list)?;
                self.s(", ")?;
                self.ty(ty)
            }
        }
    }

    // Terminators.

    /// `br i1 %c, label %t, label %f`.
    fn cond_br(&mut self, cond: Value, if_true: BlockId, if_false: BlockId) -> fmt::Result {
        self.s("br ")?;
        self.typed_operand(cond)?;
        self.s(", label ")?;
        self.block(if_true.index())?;
        self.s(", label ")?;
        self.block(if_false.index())
    }

    /// `switch`, one case per line as LLVM prints it.
    fn switch(
        &mut self,
        body: &'m Body,
        cond: Value,
        default: BlockId,
        cases: PoolRange,
    ) -> fmt::Result {
        self.s("switch ")?;
        self.typed_operand(cond)?;
        self.s(", label ")?;
        self.block(default.index())?;
        self.s(" [")?;
        for (v, b) in body.switch_cases(cases) {
            self.s("\n    ")?;
            self.typed_operand(v)?;
            self.s(", label ")?;
            self.block(b.index())?;
        }
        self.s("\n  ]")
    }

    // Arithmetic.

    /// A binary operator with the flags its kind allows (nuw/nsw, exact or fast-math).
    fn binary(&mut self, op: BinOp, lhs: Value, rhs: Value, flags: u8) -> fmt::Result {
        self.s(op.name())?;
        match op.flag_kind() {
            BinFlagKind::FastMath => self.fast_math(flags)?,
            BinFlagKind::Overflow => {
                if flags & 1 != 0 {
                    self.s(" nuw")?;
                }
                if flags & 2 != 0 {
                    self.s(" nsw")?;
                }
            }
            BinFlagKind::Exact => {
                if flags & 1 != 0 {
                    self.s(" exact")?;
                }
            }
            BinFlagKind::None => {}
        }
        self.operand_list(&[lhs.0, rhs.0], false)
    }

    /// `icmp`, or `fcmp` with its fast-math flags.
    fn cmp(&mut self, pred: Predicate, lhs: Value, rhs: Value, flags: u8) -> fmt::Result {
        if pred.is_float() {
            self.s("fcmp")?;
            self.fast_math(flags)?;
        } else {
            self.s("icmp")?;
        }
        self.s(" ")?;
        self.s(pred.name())?;
        self.operand_list(&[lhs.0, rhs.0], false)
    }

    // Phi.

    /// `phi ty [ v, %bb ], ...` in record order.
    fn phi(&mut self, body: &'m Body, incoming: PoolRange, ty: TypeId) -> fmt::Result {
        self.s("phi ")?;
        self.ty(ty)?;
        self.s(" ")?;
        for (n, (v, b)) in body.phi_incoming(incoming).enumerate() {
            self.s(if n == 0 { "[ " } else { ", [ " })?;
            self.operand(v)?;
            self.s(", ")?;
            self.block(b.index())?;
            self.s(" ]")?;
        }
        Ok(())
    }

    // Memory.

    /// `alloca`: the element count is left out when it is the plain `i32 1` LLVM omits.
    fn alloca(&mut self, allocated: TypeId, size: Value, align_field: u32) -> fmt::Result {
        self.s("alloca ")?;
        if align_field & (1 << 5) != 0 {
            self.s("inalloca ")?;
        }
        self.ty(allocated)?;
        let plain_one = matches!(
            self.value_type(size).map(|t| self.m.types.data(t)),
            Some(TypeData::Int(32))
        ) && self.const_zext(size) == Some(1);
        if !plain_one {
            self.s(", ")?;
            self.typed_operand(size)?;
        }
        if let Some(a) = alignment(align_field & !0x60) {
            self.s(", align ")?;
            self.num(a)?;
        }
        Ok(())
    }

    /// `load`, atomic (ordering 0 means not atomic) and volatile as flagged.
    fn load(
        &mut self,
        ptr: Value,
        align: u8,
        volatile: bool,
        atomic: Option<(Ordering, SyncScope)>,
        ty: TypeId,
    ) -> fmt::Result {
        let atomic = atomic.filter(|(o, _)| o.0 != 0);
        self.s("load")?;
        if atomic.is_some() {
            self.s(" atomic")?;
        }
        if volatile {
            self.s(" volatile")?;
        }
        self.s(" ")?;
        self.ty(ty)?;
        self.s(",")?;
        self.operand_list(&[ptr.0], false)?;
        if let Some((o, scope)) = atomic {
            self.atomic(o, scope)?;
        }
        self.align(u32::from(align))
    }

    /// `store`, atomic (ordering 0 means not atomic) and volatile as flagged.
    fn store(
        &mut self,
        ptr: Value,
        value: Value,
        align: u8,
        volatile: bool,
        atomic: Option<(Ordering, SyncScope)>,
    ) -> fmt::Result {
        let atomic = atomic.filter(|(o, _)| o.0 != 0);
        self.s("store")?;
        if atomic.is_some() {
            self.s(" atomic")?;
        }
        if volatile {
            self.s(" volatile")?;
        }
        self.operand_list(&[value.0, ptr.0], true)?;
        if let Some((o, scope)) = atomic {
            self.atomic(o, scope)?;
        }
        self.align(u32::from(align))
    }

    /// `getelementptr [inbounds] source_ty, operands...`.
    fn gep(
        &mut self,
        body: &'m Body,
        inbounds: bool,
        source_ty: TypeId,
        operands: PoolRange,
    ) -> fmt::Result {
        self.s(if inbounds {
            "getelementptr inbounds "
        } else {
            "getelementptr "
        })?;
        self.ty(source_ty)?;
        self.s(",")?;
        self.operand_list(body.raw(operands), false)
    }

    // Atomics.

    /// `atomicrmw [volatile] op ptr, value ordering`; `operands` is `[ptr, value]`.
    fn atomic_rmw(
        &mut self,
        op: RmwOp,
        operands: [Value; 2],
        volatile: bool,
        ordering: Ordering,
        scope: SyncScope,
    ) -> fmt::Result {
        self.s("atomicrmw")?;
        if volatile {
            self.s(" volatile")?;
        }
        self.s(" ")?;
        self.s(op.name())?;
        self.operand_list(&operands.map(|v| v.0), false)?;
        self.atomic(ordering, scope)
    }

    /// `cmpxchg`; `operands` is `[ptr, cmp, new]`, `orderings` `[success, failure]`.
    fn cmpxchg(
        &mut self,
        operands: [Value; 3],
        volatile: bool,
        weak: bool,
        scope: SyncScope,
        orderings: [Ordering; 2],
    ) -> fmt::Result {
        self.s("cmpxchg")?;
        if weak {
            self.s(" weak")?;
        }
        if volatile {
            self.s(" volatile")?;
        }
        self.operand_list(&operands.map(|v| v.0), false)?;
        if scope.0 == 0 {
            self.s(" singlethread")?;
        }
        let [success, failure] = orderings;
        self.ordering(success)?;
        self.ordering(failure)
    }

    fn block(&mut self, b: usize) -> fmt::Result {
        write_block_ref(self.out, &self.locals, b)
    }

    /// LLVM's generic operand layout: one leading type when all operands share it, otherwise
    /// every operand typed (always for select, store, shufflevector and ret).
    fn operand_list(&mut self, ops: &[u32], all_types: bool) -> fmt::Result {
        let Some(&first) = ops.first() else {
            return Ok(());
        };
        let first_ty = self.value_type(Value(first));
        let all = all_types
            || ops[1..]
                .iter()
                .any(|&o| self.value_type(Value(o)) != first_ty);
        if !all {
            self.s(" ")?;
            self.value_type_text(Value(first))?;
        }
        self.s(" ")?;
        for (i, &o) in ops.iter().enumerate() {
            if i > 0 {
                self.s(", ")?;
            }
            if all {
                self.typed_operand(Value(o))?;
            } else {
                self.operand(Value(o))?;
            }
        }
        Ok(())
    }

    fn indices(&mut self, idx: &[u32]) -> fmt::Result {
        for &i in idx {
            self.s(", ")?;
            self.num(u64::from(i))?;
        }
        Ok(())
    }

    fn fast_math(&mut self, flags: u8) -> fmt::Result {
        if flags & fast_math::UNSAFE_ALGEBRA != 0 {
            return self.s(" fast");
        }
        if flags & fast_math::NO_NANS != 0 {
            self.s(" nnan")?;
        }
        if flags & fast_math::NO_INFS != 0 {
            self.s(" ninf")?;
        }
        if flags & fast_math::NO_SIGNED_ZEROS != 0 {
            self.s(" nsz")?;
        }
        if flags & fast_math::ALLOW_RECIPROCAL != 0 {
            self.s(" arcp")?;
        }
        Ok(())
    }

    fn align(&mut self, field: u32) -> fmt::Result {
        if let Some(a) = alignment(field) {
            self.s(", align ")?;
            self.num(a)?;
        }
        Ok(())
    }

    fn ordering(&mut self, o: Ordering) -> fmt::Result {
        match o.0 {
            1..=6 => {
                self.s(" ")?;
                self.s(o.name())
            }
            n => {
                self.s(" <bad ordering ")?;
                self.num(u64::from(n))?;
                self.s(">")
            }
        }
    }

    /// ` [singlethread] ordering`, nothing for a non-atomic ordering.
    fn atomic(&mut self, o: Ordering, scope: SyncScope) -> fmt::Result {
        if o.0 == 0 {
            return Ok(());
        }
        if scope.0 == 0 {
            self.s(" singlethread")?;
        }
        self.ordering(o)
    }

    fn call(
        &mut self,
        body: &'m Body,
        callee: Value,
        fn_ty: dxil_module::TypeId,
        attrs: Option<dxil_module::AttrListId>,
        cc_flags: u32,
        args: PoolRange,
    ) -> fmt::Result {
        let m = self.m;
        let musttail = cc_flags & (1 << 14) != 0;
        if musttail {
            self.s("musttail ")?;
        } else if cc_flags & 1 != 0 {
            self.s("tail ")?;
        }
        self.s("call")?;
        let cc = (cc_flags & !(1 << 14)) >> 1;
        if cc != 0 {
            self.s(" ")?;
            write_calling_conv(self.out, cc)?;
        }
        if !self.attrs.get(attrs, 0).is_empty() {
            self.s(" ")?;
            write_attrs(self.out, self.attrs.get(attrs, 0), false, false)?;
        }
        self.s(" ")?;
        match m.types.data(fn_ty) {
            TypeData::Function { vararg: true, .. } => self.ty(fn_ty)?,
            TypeData::Function { ret, .. } => self.ty(*ret)?,
            _ => self.s("<badtype>")?,
        }
        self.s(" ")?;
        self.operand(callee)?;
        self.s("(")?;
        for (i, v) in body.values(args).enumerate() {
            if i > 0 {
                self.s(", ")?;
            }
            self.value_type_text(v)?;
            let idx = i as u32 + 1;
            if !self.attrs.get(attrs, idx).is_empty() {
                self.s(" ")?;
                write_attrs(self.out, self.attrs.get(attrs, idx), false, false)?;
            }
            self.s(" ")?;
            self.operand(v)?;
        }
        if musttail
            && self.func.is_some_and(|f| {
                matches!(m.types.data(f.ty), TypeData::Function { vararg: true, .. })
            })
        {
            self.s(", ...")?;
        }
        self.s(")")?;
        if let Some(set) = self.attrs.fn_set(attrs) {
            self.s(" #")?;
            let n = self.as_slot.get(set as usize).copied().unwrap_or(NO_SLOT);
            self.num(u64::from(n))?;
        }
        Ok(())
    }

    /// DXC's `  ; OpName(args)` after a call to a `dx.op.*` function whose first argument is a
    /// constant integer.
    fn dx_op_comment(&mut self, body: &Body, callee: Value, args: PoolRange) -> fmt::Result {
        let m = self.m;
        let ValueRef::Function(f) = callee.get() else {
            return Ok(());
        };
        if !m
            .functions
            .get(f.index())
            .is_some_and(|f| f.name.starts_with("dx.op."))
        {
            return Ok(());
        }
        let args = body.raw(args);
        let Some(opcode) = args.first().and_then(|&a| self.const_zext(Value(a))) else {
            return Ok(());
        };
        let opcode = opcode as u32;
        let props = if opcode == OpCode::AnnotateHandle.as_u32() {
            args.get(2).and_then(|&p| self.resource_props(Value(p)))
        } else {
            None
        };
        self.s(CALL_COMMENT_PREFIX)?;
        write_call_comment(&mut self.out, opcode, props)
    }

    /// The two words of a constant `%dx.types.ResourceProperties` operand as DXC loads them: the
    /// fields of a constant struct, zeros for any other constant.
    fn resource_props(&mut self, v: Value) -> Option<[u32; 2]> {
        let c = v.as_const()?;
        let k = self.m.constants.get(c)?;
        let ConstData::Aggregate(r) = &k.data else {
            return Some([0, 0]);
        };
        if !matches!(self.m.types.data(k.ty), TypeData::Struct { .. })
            || self.const_class(c) != PLAIN
        {
            return Some([0, 0]);
        }
        let vals = self.m.constants.values_of(*r);
        let word = |i: usize| {
            vals.get(i)
                .and_then(|&e| self.const_zext(e))
                .map_or(0, |x| x as u32)
        };
        Some([word(0), word(1)])
    }
}
