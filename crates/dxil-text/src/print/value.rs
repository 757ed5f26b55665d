//! Operands: names and slot numbers, constants (LLVM's canonical forms included) and metadata.

use std::fmt::{self, Write};

use dxil_module::types::OtherFloatKind;
use dxil_module::{
    BinOp, ConstData, ConstId, MdData, Module, PoolRange, TypeData, TypeId, Value, ValueRef,
};

use super::ident::{write_escaped, write_name};
use super::number::{
    write_double_bits, write_float_bits, write_half, write_int, write_long_double, write_u64,
    write_wide_int,
};
use super::{NO_SLOT, Printer, Work};

/// Most text the constant cache holds; past it (huge modules only) constants are spelled anew.
const CACHE_MAX: usize = 1 << 24;

pub(super) const PLAIN: u8 = 1;
pub(super) const ZERO: u8 = 2;
pub(super) const UNDEF: u8 = 3;
const IN_PROGRESS: u8 = 4;

fn int_width(d: &TypeData) -> u32 {
    match d {
        TypeData::Int(w) => *w,
        _ => 64,
    }
}

impl<'m, W: Write + ?Sized> Printer<'m, '_, W> {
    /// Writes a value as an operand, without its type.
    pub(super) fn operand(&mut self, v: Value) -> fmt::Result {
        // Names and scalars are written directly; only nested constants and metadata queue work.
        self.value(v)?;
        if self.work.is_empty() {
            Ok(())
        } else {
            self.drain()
        }
    }

    /// Writes `type value`.
    pub(super) fn typed_operand(&mut self, v: Value) -> fmt::Result {
        self.value_type_text(v)?;
        self.s(" ")?;
        self.operand(v)
    }

    /// The type of a value in the function being printed (`None` for metadata and bad ids).
    pub(super) fn value_type(&self, v: Value) -> Option<TypeId> {
        let m = self.m;
        match v.get() {
            ValueRef::Inst(i) => self
                .func
                .and_then(|f| f.body.as_ref())
                .and_then(|b| b.insts.get(i.index()))
                .map(|d| d.ty),
            ValueRef::Arg(a) => self.locals.params.get(a as usize).copied(),
            ValueRef::Const(c) => m.constants.get(c).map(|k| k.ty),
            ValueRef::Global(g) => m.globals.get(g.index()).map(|g| g.ptr_ty),
            ValueRef::Function(f) => m.functions.get(f.index()).map(|f| f.ptr_ty),
            ValueRef::Metadata(_) | ValueRef::Unresolved(_) => None,
        }
    }

    pub(super) fn value_type_text(&mut self, v: Value) -> fmt::Result {
        if let ValueRef::Metadata(_) = v.get() {
            return self.s("metadata");
        }
        match self.value_type(v) {
            Some(t) => self.ty(t),
            None => self.s("<badtype>"),
        }
    }

    /// Writes everything queued on the work stack.
    ///
    /// Constants form a graph that a malformed module can make cyclic (or a DAG whose text is
    /// exponentially long); one operand's text is therefore cut off after a number of steps
    /// proportional to the module's constant and metadata pools.
    pub(super) fn drain(&mut self) -> fmt::Result {
        let mut budget = self.work_budget;
        while let Some(w) = self.work.pop() {
            if budget == 0 {
                self.work.clear();
                return self.s("<operand too large>");
            }
            budget -= 1;
            match w {
                Work::S(s) => self.s(s)?,
                Work::Ty(t) => self.ty(t)?,
                Work::Op(v) => self.value(v)?,
                Work::TyOp(v) => {
                    self.value_type_text(v)?;
                    self.s(" ")?;
                    self.value(v)?;
                }
                Work::Md(raw) => self.md_operand(raw)?,
                Work::Elem(t, bits) => self.scalar(t, bits)?,
            }
        }
        Ok(())
    }

    fn value(&mut self, v: Value) -> fmt::Result {
        match v.get() {
            ValueRef::Inst(i) => {
                let name = self.locals.inst_name.get(i.index()).copied().flatten();
                let slot = self.locals.inst_slot.get(i.index()).copied();
                self.local_ref(name, slot)
            }
            ValueRef::Arg(a) => {
                let name = self.locals.arg_name.get(a as usize).copied().flatten();
                let slot = self.locals.arg_slot.get(a as usize).copied();
                self.local_ref(name, slot)
            }
            ValueRef::Const(c) => {
                if let Some(&(start, len)) = self.const_text.get(c.index())
                    && start != NO_SLOT
                {
                    return self.cached(Some((start, len)));
                }
                self.constant(c)
            }
            ValueRef::Global(g) => self.global_name(g.index()),
            ValueRef::Function(f) => self.function_name(f.index()),
            ValueRef::Metadata(n) => self.md_operand(n.0 + 1),
            ValueRef::Unresolved(_) => self.s("<badref>"),
        }
    }

    fn local_ref(&mut self, name: Option<&str>, slot: Option<u32>) -> fmt::Result {
        if self.func.is_none() {
            return self.s("<badref>");
        }
        if let Some(n) = name {
            return write_name(self.out, "%", n);
        }
        match slot {
            Some(s) if s != NO_SLOT => {
                self.s("%")?;
                self.num(u64::from(s))
            }
            _ => self.s("<badref>"),
        }
    }

    /// A metadata operand: `null`, `!N`, `!"..."` or `type value`.
    fn md_operand(&mut self, raw: u32) -> fmt::Result {
        let Some(id) = raw.checked_sub(1).map(dxil_module::MdId) else {
            return self.s("null");
        };
        let md = &self.m.metadata;
        match md.get(id) {
            Some(MdData::Node { .. } | MdData::Other { .. }) => match self.md.get(id) {
                Some(slot) => {
                    self.s("!")?;
                    self.num(u64::from(slot))
                }
                None => self.s("<badref>"),
            },
            Some(MdData::String(r)) => {
                self.s("!\"")?;
                write_escaped(self.out, r.get(&md.bytes))?;
                self.s("\"")
            }
            Some(MdData::Value { ty, value }) => {
                let (ty, value) = (*ty, *value);
                self.ty(ty)?;
                self.s(" ")?;
                if let ValueRef::Metadata(_) = value.get() {
                    // A value item never wraps metadata; refuse rather than loop.
                    return self.s("<badref>");
                }
                self.work.push(Work::Op(value));
                Ok(())
            }
            None => self.s("<badref>"),
        }
    }

    /// A scalar constant of type `t` from its raw bits (`ConstantDataSequential` elements).
    fn scalar(&mut self, t: TypeId, bits: u64) -> fmt::Result {
        match self.m.types.data(t) {
            TypeData::Int(w) => write_int(self.out, bits, *w),
            TypeData::Half => write_half(self.out, bits as u16),
            TypeData::Float => write_float_bits(self.out, bits as u32),
            TypeData::Double => write_double_bits(self.out, bits),
            TypeData::OtherFloat(k) => self.long_double(*k, &[bits]),
            _ => self.s("<badconst>"),
        }
    }

    fn long_double(&mut self, k: OtherFloatKind, words: &[u64]) -> fmt::Result {
        let letter = match k {
            OtherFloatKind::X86Fp80 => 'K',
            OtherFloatKind::Fp128 => 'L',
            OtherFloatKind::PpcFp128 => 'M',
            OtherFloatKind::X86Mmx => return self.s("<badconst>"),
        };
        write_long_double(self.out, letter, words)
    }

    /// A `Null`, `Undef`, `Int` or `Float` constant of a non-aggregate type, written to `out`.
    fn scalar_constant(&self, out: &mut String, k: &dxil_module::Constant) -> fmt::Result {
        let tyd = self.m.types.data(k.ty);
        match (&k.data, tyd) {
            (ConstData::Undef, _) => out.write_str("undef"),
            (ConstData::Null, TypeData::Int(1)) => out.write_str("false"),
            (ConstData::Null, TypeData::Int(_)) => out.write_str("0"),
            (ConstData::Null, TypeData::Pointer { .. }) => out.write_str("null"),
            (ConstData::Null, TypeData::Half) => write_half(out, 0),
            (ConstData::Null | ConstData::Float(_), TypeData::Float | TypeData::Double)
            | (ConstData::Float(_), TypeData::Half) => {
                let bits = match k.data {
                    ConstData::Float(b) => b,
                    _ => 0,
                };
                match tyd {
                    TypeData::Half => write_half(out, bits as u16),
                    TypeData::Float => write_float_bits(out, bits as u32),
                    _ => write_double_bits(out, bits),
                }
            }
            (ConstData::Null | ConstData::Float(_), TypeData::OtherFloat(kind)) => {
                let bits = match k.data {
                    ConstData::Float(b) => b,
                    _ => 0,
                };
                let letter = match kind {
                    OtherFloatKind::X86Fp80 => 'K',
                    OtherFloatKind::Fp128 => 'L',
                    OtherFloatKind::PpcFp128 => 'M',
                    OtherFloatKind::X86Mmx => return out.write_str("<badconst>"),
                };
                write_long_double(out, letter, &[bits])
            }
            (ConstData::Int(v), _) => write_int(out, *v as u64, int_width(tyd)),
            (ConstData::Null, _) => out.write_str("zeroinitializer"),
            _ => out.write_str("<badconst>"),
        }
    }

    /// `Constant::getNullValue(t)` as text.
    fn null_of(&mut self, t: TypeId) -> fmt::Result {
        match self.m.types.data(t) {
            TypeData::Int(1) => self.s("false"),
            TypeData::Int(_) => self.s("0"),
            TypeData::Half | TypeData::Float | TypeData::Double | TypeData::OtherFloat(_) => {
                self.scalar(t, 0)
            }
            TypeData::Pointer { .. } => self.s("null"),
            _ => self.s("zeroinitializer"),
        }
    }

    /// A constant operand: scalars through the text cache, the other forms by their printers
    /// below or queued on `work`.
    fn constant(&mut self, c: ConstId) -> fmt::Result {
        let m = self.m;
        let Some(k) = m.constants.get(c) else {
            return self.s("<badref>");
        };
        // Scalars (most operands) are rendered once into the cache and copied from there.
        if let ConstData::Null | ConstData::Undef | ConstData::Int(_) | ConstData::Float(_) = k.data
            && !matches!(
                m.types.data(k.ty),
                TypeData::Struct { .. } | TypeData::Array { .. } | TypeData::Vector { .. }
            )
            && self.cache.len() < CACHE_MAX
        {
            let start = self.cache.len();
            let mut cache = std::mem::take(&mut self.cache);
            let r = self.scalar_constant(&mut cache, k);
            let span = (start as u32, (cache.len() - start) as u32);
            self.cache = cache;
            r?;
            if let Some(s) = self.const_text.get_mut(c.index()) {
                *s = span;
            }
            return self.cached(Some(span));
        }
        let tyd = m.types.data(k.ty);
        match &k.data {
            ConstData::Null => self.null_of(k.ty),
            ConstData::Undef => self.s("undef"),
            ConstData::Int(v) => write_int(self.out, *v as u64, int_width(tyd)),
            ConstData::WideInt(r) => {
                write_wide_int(self.out, m.constants.words_of(*r), int_width(tyd))
            }
            ConstData::Float(bits) => match tyd {
                TypeData::OtherFloat(kind) => self.long_double(*kind, &[*bits]),
                _ => self.scalar(k.ty, *bits),
            },
            ConstData::Aggregate(r) => self.aggregate(c, tyd, *r),
            ConstData::Data(r) => self.data_sequence(tyd, *r),
            ConstData::String(r) => self.string_constant(*r, false),
            ConstData::CString(r) => self.string_constant(*r, true),
            ConstData::Cast { op, value } => {
                self.s(op.name())?;
                self.s(" (")?;
                self.work.push(Work::S(")"));
                self.work.push(Work::Ty(k.ty));
                self.work.push(Work::S(" to "));
                self.work.push(Work::TyOp(*value));
                Ok(())
            }
            ConstData::Binary {
                op,
                flags,
                lhs,
                rhs,
            } => self.const_binary(*op, *flags, *lhs, *rhs),
            ConstData::Cmp { pred, lhs, rhs } => {
                self.s(if pred.is_float() { "fcmp " } else { "icmp " })?;
                self.s(pred.name())?;
                self.const_expr_operands(&[*lhs, *rhs])
            }
            ConstData::Select {
                cond,
                if_true,
                if_false,
            } => {
                self.s("select")?;
                self.const_expr_operands(&[*cond, *if_true, *if_false])
            }
            ConstData::ExtractElement { vector, index } => {
                self.s("extractelement")?;
                self.const_expr_operands(&[*vector, *index])
            }
            ConstData::InsertElement {
                vector,
                element,
                index,
            } => {
                self.s("insertelement")?;
                self.const_expr_operands(&[*vector, *element, *index])
            }
            ConstData::ShuffleVector { v1, v2, mask } => {
                self.s("shufflevector")?;
                self.const_expr_operands(&[*v1, *v2, *mask])
            }
            ConstData::Gep {
                inbounds,
                source_ty,
                operands,
            } => self.const_gep(*inbounds, *source_ty, *operands),
            ConstData::BlockAddress { function, block } => {
                self.s("blockaddress(")?;
                self.function_name(function.index())?;
                self.s(", ")?;
                self.foreign_block_ref(function.index(), block.index())?;
                self.s(")")
            }
        }
    }

    // The longer constant forms, one printer each; nested operands are queued on `work`.

    /// A struct, array or vector constant from its element values: `zeroinitializer` or `undef`
    /// when every element is, `c"..."` for an `i8` array of integers, braces otherwise.
    fn aggregate(&mut self, c: ConstId, tyd: &'m TypeData, r: PoolRange) -> fmt::Result {
        let m = self.m;
        match self.const_class(c) {
            ZERO => return self.s("zeroinitializer"),
            UNDEF => return self.s("undef"),
            _ => {}
        }
        let vals = m.constants.values_of(r);
        match tyd {
            TypeData::Struct { packed, .. } => {
                if *packed {
                    self.s("<")?;
                    self.work.push(Work::S(">"));
                }
                self.s(if vals.is_empty() { "{" } else { "{ " })?;
                self.work
                    .push(Work::S(if vals.is_empty() { "}" } else { " }" }));
                for (i, v) in vals.iter().enumerate().rev() {
                    self.work.push(Work::TyOp(*v));
                    if i > 0 {
                        self.work.push(Work::S(", "));
                    }
                }
                Ok(())
            }
            TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => {
                let is_array = matches!(tyd, TypeData::Array { .. });
                if is_array
                    && matches!(m.types.data(*elem), TypeData::Int(8))
                    && let Some(bytes) = int_bytes(m, vals)
                {
                    return self.c_string(&bytes);
                }
                self.s(if is_array { "[" } else { "<" })?;
                self.work.push(Work::S(if is_array { "]" } else { ">" }));
                for (i, v) in vals.iter().enumerate().rev() {
                    self.work.push(Work::Op(*v));
                    self.work.push(Work::S(" "));
                    self.work.push(Work::Ty(*elem));
                    if i > 0 {
                        self.work.push(Work::S(", "));
                    }
                }
                Ok(())
            }
            _ => self.s("<badconst>"),
        }
    }

    /// An array or vector of plain numbers (LLVM's ConstantDataSequential), stored as words.
    fn data_sequence(&mut self, tyd: &'m TypeData, r: PoolRange) -> fmt::Result {
        let m = self.m;
        let words = m.constants.words_of(r);
        if words.iter().all(|&w| w == 0) {
            return self.s("zeroinitializer");
        }
        let (elem, is_array) = match tyd {
            TypeData::Array { elem, .. } => (*elem, true),
            TypeData::Vector { elem, .. } => (*elem, false),
            _ => return self.s("<badconst>"),
        };
        if is_array && matches!(m.types.data(elem), TypeData::Int(8)) {
            let bytes: Vec<u8> = words.iter().map(|&w| w as u8).collect();
            return self.c_string(&bytes);
        }
        self.s(if is_array { "[" } else { "<" })?;
        self.work.push(Work::S(if is_array { "]" } else { ">" }));
        for (i, &w) in words.iter().enumerate().rev() {
            self.work.push(Work::Elem(elem, w));
            self.work.push(Work::S(" "));
            self.work.push(Work::Ty(elem));
            if i > 0 {
                self.work.push(Work::S(", "));
            }
        }
        Ok(())
    }

    /// A STRING or CSTRING record's `c"..."`; `nul` is the CSTRING's implied terminator.
    fn string_constant(&mut self, r: PoolRange, nul: bool) -> fmt::Result {
        let bytes = self.m.constants.bytes_of(r);
        if bytes.iter().all(|&b| b == 0) {
            return self.s("zeroinitializer");
        }
        self.s("c\"")?;
        write_escaped(self.out, bytes)?;
        if nul {
            self.s("\\00")?;
        }
        self.s("\"")
    }

    /// A binary constant expression with the nuw/nsw or exact flags LLVM keeps on constants.
    fn const_binary(&mut self, op: BinOp, flags: u8, lhs: Value, rhs: Value) -> fmt::Result {
        self.s(op.name())?;
        match op.flag_kind() {
            dxil_module::inst::BinFlagKind::Overflow => {
                if flags & 1 != 0 {
                    self.s(" nuw")?;
                }
                if flags & 2 != 0 {
                    self.s(" nsw")?;
                }
            }
            dxil_module::inst::BinFlagKind::Exact if flags & 1 != 0 => {
                self.s(" exact")?;
            }
            _ => {}
        }
        self.const_expr_operands(&[lhs, rhs])
    }

    /// A `getelementptr` constant expression.
    fn const_gep(
        &mut self,
        inbounds: bool,
        source_ty: Option<TypeId>,
        operands: PoolRange,
    ) -> fmt::Result {
        let m = self.m;
        let ops = m.constants.values_of(operands);
        self.s(if inbounds {
            "getelementptr inbounds ("
        } else {
            "getelementptr ("
        })?;
        // LLVM prints the base pointer's element type.
        let source = ops
            .first()
            .and_then(|&b| self.value_type(b))
            .and_then(|t| m.types.pointee(m.types.scalar_of(t)))
            .or(source_ty);
        match source {
            Some(t) => self.ty(t)?,
            None => self.s("<badtype>")?,
        }
        self.s(", ")?;
        self.work.push(Work::S(")"));
        for (i, v) in ops.iter().enumerate().rev() {
            self.work.push(Work::TyOp(*v));
            if i > 0 {
                self.work.push(Work::S(", "));
            }
        }
        Ok(())
    }

    /// ` (type a, type b)` of a constant expression, queued.
    fn const_expr_operands(&mut self, ops: &[Value]) -> fmt::Result {
        self.s(" (")?;
        self.work.push(Work::S(")"));
        for (i, v) in ops.iter().enumerate().rev() {
            self.work.push(Work::TyOp(*v));
            if i > 0 {
                self.work.push(Work::S(", "));
            }
        }
        Ok(())
    }

    fn c_string(&mut self, bytes: &[u8]) -> fmt::Result {
        self.s("c\"")?;
        write_escaped(self.out, bytes)?;
        self.s("\"")
    }

    /// A block of any function, as `blockaddress` names it: the slot is counted the way
    /// `SlotTracker` numbers that function.
    fn foreign_block_ref(&mut self, f: usize, b: usize) -> fmt::Result {
        let m = self.m;
        let Some(func) = m.functions.get(f) else {
            return self.s("<badref>");
        };
        let Some(body) = &func.body else {
            return self.s("<badref>");
        };
        for n in &body.names {
            if let dxil_module::LocalName::Block(x, s) = n
                && x.index() == b
            {
                return write_name(self.out, "%", s);
            }
        }
        let named_arg = |a: usize| {
            body.names
                .iter()
                .any(|n| matches!(n, dxil_module::LocalName::Arg(x, _) if *x as usize == a))
        };
        let named_inst = |i: usize| {
            body.names
                .iter()
                .any(|n| matches!(n, dxil_module::LocalName::Inst(x, _) if x.index() == i))
        };
        let named_block = |i: usize| {
            body.names
                .iter()
                .any(|n| matches!(n, dxil_module::LocalName::Block(x, _) if x.index() == i))
        };
        let nparams = m
            .types
            .function_signature(func.ty)
            .map_or(0, |(_, p, _)| p.len());
        let mut slot = (0..nparams).filter(|&a| !named_arg(a)).count() as u64;
        for (i, blk) in body.blocks.iter().enumerate() {
            if i == b {
                break;
            }
            slot += u64::from(!named_block(i));
            for x in blk.start..blk.end {
                let x = x as usize;
                if !named_inst(x) && body.insts.get(x).is_some_and(|d| !m.types.is_void(d.ty)) {
                    slot += 1;
                }
            }
        }
        self.s("%")?;
        write_u64(self.out, slot)
    }

    /// Whether a constant prints as `zeroinitializer` (`ZERO`), `undef` (`UNDEF`) or by its
    /// contents (`PLAIN`): LLVM turns aggregates whose elements are all null into
    /// `ConstantAggregateZero`, and all-`undef` ones into `UndefValue`.
    pub(super) fn const_class(&mut self, c: ConstId) -> u8 {
        let m = self.m;
        if let Some(&k) = self.const_class.get(c.index())
            && (PLAIN..=UNDEF).contains(&k)
        {
            return k;
        }
        let mut stack = vec![c];
        while let Some(&top) = stack.last() {
            let state = self.const_class.get(top.index()).copied().unwrap_or(PLAIN);
            if (PLAIN..=UNDEF).contains(&state) {
                stack.pop();
                continue;
            }
            let data = m.constants.get(top).map(|k| &k.data);
            let result = match data {
                Some(ConstData::Aggregate(r)) => {
                    let vals = m.constants.values_of(*r);
                    if state == 0 {
                        if let Some(s) = self.const_class.get_mut(top.index()) {
                            *s = IN_PROGRESS;
                        }
                        for v in vals {
                            if let Some(e) = v.as_const()
                                && matches!(
                                    m.constants.get(e).map(|k| &k.data),
                                    Some(ConstData::Aggregate(_))
                                )
                                && self.const_class.get(e.index()) == Some(&0)
                            {
                                stack.push(e);
                            }
                        }
                        continue;
                    }
                    if vals.is_empty() || vals.iter().all(|&v| self.is_null_elem(v)) {
                        ZERO
                    } else if vals.iter().all(|&v| self.is_undef_elem(v)) {
                        UNDEF
                    } else {
                        PLAIN
                    }
                }
                Some(ConstData::Data(r)) => {
                    if m.constants.words_of(*r).iter().all(|&w| w == 0) {
                        ZERO
                    } else {
                        PLAIN
                    }
                }
                Some(ConstData::String(r) | ConstData::CString(r)) => {
                    if m.constants.bytes_of(*r).iter().all(|&b| b == 0) {
                        ZERO
                    } else {
                        PLAIN
                    }
                }
                Some(ConstData::Null) => ZERO,
                Some(ConstData::Undef) => UNDEF,
                _ => PLAIN,
            };
            if let Some(s) = self.const_class.get_mut(top.index()) {
                *s = result;
            }
            stack.pop();
        }
        self.const_class.get(c.index()).copied().unwrap_or(PLAIN)
    }

    /// `Constant::isNullValue` of an aggregate element (classes of nested aggregates are known).
    fn is_null_elem(&self, v: Value) -> bool {
        let Some(c) = v.as_const() else { return false };
        match self.m.constants.get(c).map(|k| &k.data) {
            Some(ConstData::Null) => true,
            Some(ConstData::Int(x)) => *x == 0,
            // +0.0 only: -0.0 is not a null value.
            Some(ConstData::Float(bits)) => *bits == 0,
            Some(ConstData::WideInt(r)) => self.m.constants.words_of(*r).iter().all(|&w| w == 0),
            Some(ConstData::Aggregate(_)) => self.const_class.get(c.index()) == Some(&ZERO),
            Some(ConstData::Data(r)) => self.m.constants.words_of(*r).iter().all(|&w| w == 0),
            Some(ConstData::String(r) | ConstData::CString(r)) => {
                self.m.constants.bytes_of(*r).iter().all(|&b| b == 0)
            }
            _ => false,
        }
    }

    fn is_undef_elem(&self, v: Value) -> bool {
        let Some(c) = v.as_const() else { return false };
        match self.m.constants.get(c).map(|k| &k.data) {
            Some(ConstData::Undef) => true,
            Some(ConstData::Aggregate(_)) => self.const_class.get(c.index()) == Some(&UNDEF),
            _ => false,
        }
    }

    /// The zero-extended value of an integer constant (`ConstantInt::getZExtValue`).
    pub(super) fn const_zext(&self, v: Value) -> Option<u64> {
        let c = v.as_const()?;
        let k = self.m.constants.get(c)?;
        let TypeData::Int(w) = self.m.types.data(k.ty) else {
            return None;
        };
        let raw = match &k.data {
            ConstData::Null => 0,
            ConstData::Int(x) => *x as u64,
            ConstData::WideInt(r) => self.m.constants.words_of(*r).first().copied().unwrap_or(0),
            _ => return None,
        };
        Some(if *w >= 64 {
            raw
        } else {
            raw & ((1u64 << w) - 1)
        })
    }
}

/// The bytes of an `[N x i8]` aggregate whose elements are all integer constants (LLVM stores
/// such an array as a `ConstantDataArray` and prints it as a string).
fn int_bytes(m: &Module, vals: &[Value]) -> Option<Vec<u8>> {
    vals.iter()
        .map(|v| match m.constants.get(v.as_const()?).map(|k| &k.data) {
            Some(ConstData::Int(x)) => Some(*x as u8),
            Some(ConstData::Null) => Some(0),
            _ => None,
        })
        .collect()
}
