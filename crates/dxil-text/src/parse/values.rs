//! Values and constants: literals, `null`/`undef`/`zeroinitializer`, aggregates, `c"..."`
//! strings, constant expressions, and references to globals and locals.
//!
//! Constants take the form the bitcode reader gives them: zero integers, `+0.0`, `null` and
//! all-zero aggregates are `Null`; all-`undef` aggregates are `Undef`; arrays and vectors of
//! plain numbers are `Data`; `[N x i8]` strings are `String` or `CString`.

use dxil_module::inst::BinFlagKind;
use dxil_module::{
    BinOp, CastOp, ConstData, ConstId, Constant, Module, PoolRange, Predicate, TypeData, TypeId,
    Value,
};

use super::lexer::Tok;
use super::number::{FloatKind, IntValue, float_bits, int_value};
use super::{FxMap, Parser, Result};

#[derive(Default)]
pub(crate) struct ConstState {
    /// Scalars by (type, kind, bits): 0 null, 1 undef, 2 integer, 3 float.
    scalars: FxMap<(TypeId, u8, u64), ConstId>,
    /// Elements of the aggregates being parsed (nested ones stack up).
    stack: Vec<Value>,
    words: Vec<u64>,
    bytes: Vec<u8>,
}

impl ConstState {
    /// Rewrites module-level forward references in constants.
    pub fn patch(&mut self, m: &mut Module, map: &dyn Fn(Value) -> Value) {
        for v in m.constants.values.iter_mut() {
            *v = map(*v);
        }
        let fix: Vec<(ConstId, Constant)> = m
            .constants
            .iter()
            .filter_map(|(id, c)| {
                let mut d = c.data.clone();
                let mut changed = false;
                let mut f = |v: &mut Value| {
                    let n = map(*v);
                    changed |= n != *v;
                    *v = n;
                };
                match &mut d {
                    ConstData::Cast { value, .. } => f(value),
                    ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
                        f(lhs);
                        f(rhs);
                    }
                    ConstData::Select {
                        cond,
                        if_true,
                        if_false,
                    } => {
                        f(cond);
                        f(if_true);
                        f(if_false);
                    }
                    ConstData::ExtractElement { vector, index } => {
                        f(vector);
                        f(index);
                    }
                    ConstData::InsertElement {
                        vector,
                        element,
                        index,
                    } => {
                        f(vector);
                        f(element);
                        f(index);
                    }
                    ConstData::ShuffleVector { v1, v2, mask } => {
                        f(v1);
                        f(v2);
                        f(mask);
                    }
                    _ => {}
                }
                changed.then_some((id, Constant { ty: c.ty, data: d }))
            })
            .collect();
        for (id, c) in fix {
            m.constants.set(id, c);
        }
    }
}

/// Element types of `ConstantDataArray/Vector` in LLVM 3.7.
fn data_compatible(d: &TypeData) -> Option<u32> {
    match d {
        TypeData::Int(w @ (8 | 16 | 32 | 64)) => Some(*w),
        TypeData::Float => Some(32),
        TypeData::Double => Some(64),
        _ => None,
    }
}

pub(crate) fn cast_op(w: &str) -> Option<CastOp> {
    Some(match w {
        "trunc" => CastOp::Trunc,
        "zext" => CastOp::ZExt,
        "sext" => CastOp::SExt,
        "fptoui" => CastOp::FPToUI,
        "fptosi" => CastOp::FPToSI,
        "uitofp" => CastOp::UIToFP,
        "sitofp" => CastOp::SIToFP,
        "fptrunc" => CastOp::FPTrunc,
        "fpext" => CastOp::FPExt,
        "ptrtoint" => CastOp::PtrToInt,
        "inttoptr" => CastOp::IntToPtr,
        "bitcast" => CastOp::BitCast,
        "addrspacecast" => CastOp::AddrSpaceCast,
        _ => return None,
    })
}

pub(crate) fn bin_op(w: &str) -> Option<BinOp> {
    Some(match w {
        "add" => BinOp::Add,
        "fadd" => BinOp::FAdd,
        "sub" => BinOp::Sub,
        "fsub" => BinOp::FSub,
        "mul" => BinOp::Mul,
        "fmul" => BinOp::FMul,
        "udiv" => BinOp::UDiv,
        "sdiv" => BinOp::SDiv,
        "fdiv" => BinOp::FDiv,
        "urem" => BinOp::URem,
        "srem" => BinOp::SRem,
        "frem" => BinOp::FRem,
        "shl" => BinOp::Shl,
        "lshr" => BinOp::LShr,
        "ashr" => BinOp::AShr,
        "and" => BinOp::And,
        "or" => BinOp::Or,
        "xor" => BinOp::Xor,
        _ => return None,
    })
}

pub(crate) fn predicate(w: &str, float: bool) -> Option<Predicate> {
    const F: [&str; 16] = [
        "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge",
        "ult", "ule", "une", "true",
    ];
    const I: [&str; 10] = [
        "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
    ];
    if float {
        F.iter().position(|p| *p == w).map(|i| Predicate(i as u8))
    } else {
        I.iter()
            .position(|p| *p == w)
            .map(|i| Predicate(32 + i as u8))
    }
}

impl<'a> Parser<'a> {
    // ------------------------------------------------------------------ type predicates

    /// Scalar type of a vector (or the type itself) and the vector length (0 for scalars).
    pub(crate) fn scalar_and_len(&self, t: TypeId) -> (TypeId, u32) {
        match self.m.types.data(t) {
            TypeData::Vector { len, elem } => (*elem, *len),
            _ => (t, 0),
        }
    }

    pub(crate) fn is_int_or_int_vector(&self, t: TypeId) -> bool {
        matches!(
            self.m.types.data(self.scalar_and_len(t).0),
            TypeData::Int(_)
        )
    }

    pub(crate) fn is_fp_or_fp_vector(&self, t: TypeId) -> bool {
        matches!(
            self.m.types.data(self.scalar_and_len(t).0),
            TypeData::Half | TypeData::Float | TypeData::Double | TypeData::OtherFloat(_)
        )
    }

    fn is_ptr_or_ptr_vector(&self, t: TypeId) -> bool {
        matches!(
            self.m.types.data(self.scalar_and_len(t).0),
            TypeData::Pointer { .. }
        )
    }

    /// Bits of a first-class scalar or vector (0 for anything else).
    fn prim_bits(&self, t: TypeId) -> u64 {
        let (s, len) = self.scalar_and_len(t);
        let bits = match self.m.types.data(s) {
            TypeData::Int(w) => u64::from(*w),
            TypeData::Half => 16,
            TypeData::Float => 32,
            TypeData::Double => 64,
            TypeData::OtherFloat(dxil_module::types::OtherFloatKind::X86Fp80) => 80,
            TypeData::OtherFloat(dxil_module::types::OtherFloatKind::X86Mmx) => 64,
            TypeData::OtherFloat(_) => 128,
            _ => 0,
        };
        bits * u64::from(len.max(1))
    }

    fn addrspace_of(&self, t: TypeId) -> Option<u32> {
        match self.m.types.data(self.scalar_and_len(t).0) {
            TypeData::Pointer { address_space, .. } => Some(*address_space),
            _ => None,
        }
    }

    /// `CastInst::castIsValid` of LLVM 3.7.
    pub(crate) fn cast_ok(&self, op: CastOp, from: TypeId, to: TypeId) -> bool {
        let (_, fl) = self.scalar_and_len(from);
        let (_, tl) = self.scalar_and_len(to);
        let same_shape = fl == tl;
        let (fb, tb) = (self.prim_bits(from), self.prim_bits(to));
        let (fi, ti) = (
            self.is_int_or_int_vector(from),
            self.is_int_or_int_vector(to),
        );
        let (ff, tf) = (self.is_fp_or_fp_vector(from), self.is_fp_or_fp_vector(to));
        let (fp, tp) = (
            self.is_ptr_or_ptr_vector(from),
            self.is_ptr_or_ptr_vector(to),
        );
        match op {
            CastOp::Trunc => fi && ti && same_shape && fb > tb,
            CastOp::ZExt | CastOp::SExt => fi && ti && same_shape && fb < tb,
            CastOp::FPTrunc => ff && tf && same_shape && fb > tb,
            CastOp::FPExt => ff && tf && same_shape && fb < tb,
            CastOp::FPToUI | CastOp::FPToSI => ff && ti && same_shape,
            CastOp::UIToFP | CastOp::SIToFP => fi && tf && same_shape,
            CastOp::PtrToInt => fp && ti && same_shape,
            CastOp::IntToPtr => fi && tp && same_shape,
            CastOp::BitCast => {
                if fp || tp {
                    fp && tp && same_shape && self.addrspace_of(from) == self.addrspace_of(to)
                } else {
                    fb != 0 && fb == tb
                }
            }
            CastOp::AddrSpaceCast => {
                fp && tp && same_shape && self.addrspace_of(from) != self.addrspace_of(to)
            }
        }
    }

    /// `i1`, or `<N x i1>` for an `N`-vector operand type (comparison results).
    pub(crate) fn bool_like(&mut self, operand: TypeId) -> TypeId {
        let i1 = self.int_type(1);
        match self.scalar_and_len(operand) {
            (_, 0) => i1,
            (_, len) => self
                .types
                .intern(&mut self.m, TypeData::Vector { len, elem: i1 }),
        }
    }

    /// The integer value of a constant operand.
    pub(crate) fn const_int_of(&self, v: Value) -> Option<i64> {
        self.m.constants.as_int(v.as_const()?)
    }

    /// The result type of `getelementptr` with source element type `src` over `ops` (the base
    /// pointer, then the indices).
    pub(crate) fn gep_type(&mut self, src: TypeId, ops: &[Value], at: u32) -> Result<TypeId> {
        let Some(&base) = ops.first() else {
            return Err(self.err_at(at, "getelementptr needs a base pointer"));
        };
        let base_ty = self.value_type(base).unwrap_or(src);
        let address_space = match self.m.types.data(base_ty) {
            TypeData::Pointer {
                pointee,
                address_space,
            } => {
                if *pointee != src {
                    return Err(self.err_at(
                        at,
                        "explicit pointee type doesn't match operand's pointee type",
                    ));
                }
                *address_space
            }
            TypeData::Vector { .. } => {
                return Err(self.err_at(at, "vector getelementptr is not supported"));
            }
            _ => return Err(self.err_at(at, "base of getelementptr must be a pointer")),
        };
        let mut t = src;
        for (i, &idx) in ops.iter().enumerate().skip(1) {
            let it = self.value_type(idx);
            if !it.is_some_and(|x| matches!(self.m.types.data(x), TypeData::Int(_))) {
                return Err(self.err_at(at, "getelementptr index must be an integer"));
            }
            if i == 1 {
                continue;
            }
            t = match self.m.types.data(t) {
                TypeData::Struct {
                    elems,
                    opaque: false,
                    ..
                } => {
                    let Some(k) = self.const_int_of(idx) else {
                        return Err(self.err_at(at, "struct index must be a constant integer"));
                    };
                    match usize::try_from(k).ok().and_then(|k| elems.get(k)) {
                        Some(&e) => e,
                        None => return Err(self.err_at(at, "struct index out of range")),
                    }
                }
                TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => *elem,
                _ => return Err(self.err_at(at, "invalid getelementptr indices")),
            };
        }
        Ok(self.types.pointer(&mut self.m, t, address_space))
    }

    // ------------------------------------------------------------------ constants

    fn scalar(&mut self, ty: TypeId, data: ConstData) -> ConstId {
        let key = match data {
            ConstData::Null => (ty, 0, 0),
            ConstData::Undef => (ty, 1, 0),
            ConstData::Int(v) => (ty, 2, v as u64),
            ConstData::Float(b) => (ty, 3, b),
            other => return self.m.constants.push(Constant { ty, data: other }),
        };
        if let Some(&c) = self.consts.scalars.get(&key) {
            return c;
        }
        let c = self.m.constants.push(Constant { ty, data });
        self.consts.scalars.insert(key, c);
        c
    }

    pub(crate) fn null_const(&mut self, ty: TypeId) -> ConstId {
        self.scalar(ty, ConstData::Null)
    }

    /// An integer constant of type `ty` (an `iN`).
    pub(crate) fn int_const(&mut self, ty: TypeId, v: i64) -> ConstId {
        if v == 0 {
            self.scalar(ty, ConstData::Null)
        } else {
            self.scalar(ty, ConstData::Int(v))
        }
    }

    /// `type value`.
    pub(crate) fn typed_value(&mut self) -> Result<(Value, TypeId)> {
        let ty = self.parse_type(false)?;
        let v = self.value(ty)?;
        Ok((v, ty))
    }

    /// `type value` where the value must be a constant, global or function.
    fn typed_const(&mut self) -> Result<(Value, TypeId)> {
        let ty = self.parse_type(false)?;
        let v = self.const_value(ty)?;
        Ok((v, ty))
    }

    /// A value of type `ty`: a local, a global or function, or a constant.
    pub(crate) fn value(&mut self, ty: TypeId) -> Result<Value> {
        match self.tok.tok {
            Tok::LocalVar | Tok::LocalId(_) => self.local_ref(ty),
            _ => self.const_value(ty),
        }
    }

    /// A constant operand of type `ty`: a global or function, or a constant.
    pub(crate) fn const_value(&mut self, ty: TypeId) -> Result<Value> {
        match self.tok.tok {
            Tok::GlobalVar | Tok::GlobalId(_) => self.global_ref(ty),
            Tok::LocalVar | Tok::LocalId(_) => {
                Err(self.err("local values cannot be used in a constant"))
            }
            _ => self.constant(ty).map(Value::constant),
        }
    }

    fn check_type(&self, want: TypeId, got: TypeId, at: u32) -> Result<()> {
        if want != got {
            return Err(self.err_at(
                at,
                format!(
                    "constant expression type mismatch: '{}' where '{}' is expected",
                    self.type_text(got),
                    self.type_text(want)
                ),
            ));
        }
        Ok(())
    }

    /// A constant of type `ty`.
    pub(crate) fn constant(&mut self, ty: TypeId) -> Result<ConstId> {
        let at = self.tok.start;
        match self.tok.tok {
            Tok::Int => {
                let Some(w) = self.m.types.int_width(ty) else {
                    return Err(self.err(format!(
                        "integer constant must have integer type, not '{}'",
                        self.type_text(ty)
                    )));
                };
                let v = int_value(self.text(), w).map_err(|e| self.err(e))?;
                self.bump()?;
                Ok(match v {
                    IntValue::Small(v) => self.int_const(ty, v),
                    IntValue::Wide(words) => {
                        if words.iter().all(|&w| w == 0) {
                            self.null_const(ty)
                        } else {
                            let r = PoolRange::push(&mut self.m.constants.words, &words);
                            self.scalar(ty, ConstData::WideInt(r))
                        }
                    }
                })
            }
            Tok::Float | Tok::HexFloat => {
                let kind = match self.m.types.data(ty) {
                    TypeData::Half => FloatKind::Half,
                    TypeData::Float => FloatKind::Float,
                    TypeData::Double => FloatKind::Double,
                    TypeData::OtherFloat(_) => {
                        return Err(
                            self.err("x86_fp80, fp128 and ppc_fp128 constants are not supported")
                        );
                    }
                    _ => {
                        return Err(self.err(format!(
                            "floating-point constant must have a floating-point type, not '{}'",
                            self.type_text(ty)
                        )));
                    }
                };
                let bits = float_bits(self.text(), self.tok.tok == Tok::HexFloat, kind)
                    .map_err(|e| self.err(e))?;
                self.bump()?;
                Ok(if bits == 0 {
                    self.null_const(ty)
                } else {
                    self.scalar(ty, ConstData::Float(bits))
                })
            }
            Tok::Word => {
                let w = self.text();
                match w {
                    "true" | "false" => {
                        if self.m.types.int_width(ty) != Some(1) {
                            return Err(self.err(format!("'{w}' must be of type 'i1'")));
                        }
                        self.bump()?;
                        Ok(if w == "true" {
                            self.scalar(ty, ConstData::Int(-1))
                        } else {
                            self.null_const(ty)
                        })
                    }
                    "null" => {
                        if !matches!(self.m.types.data(ty), TypeData::Pointer { .. }) {
                            return Err(self.err("null must be a pointer type"));
                        }
                        self.bump()?;
                        Ok(self.null_const(ty))
                    }
                    "undef" | "zeroinitializer" => {
                        if !self.types.is_first_class_or_aggregate(&self.m, ty) {
                            return Err(self
                                .err(format!("invalid type '{}' for '{w}'", self.type_text(ty))));
                        }
                        if w == "zeroinitializer"
                            && matches!(
                                self.m.types.data(ty),
                                TypeData::Struct { opaque: true, .. }
                            )
                        {
                            return Err(self.err("zeroinitializer of an opaque struct"));
                        }
                        self.bump()?;
                        Ok(if w == "undef" {
                            self.scalar(ty, ConstData::Undef)
                        } else {
                            self.null_const(ty)
                        })
                    }
                    "blockaddress" => Err(self.err("blockaddress is not supported")),
                    "extractvalue" | "insertvalue" => {
                        Err(self.err(format!("'{w}' constant expressions are not supported")))
                    }
                    _ => self.const_expr(ty, at),
                }
            }
            Tok::CStr => self.c_string(ty),
            Tok::LBrace => self.struct_const(ty, false),
            Tok::Less => {
                if self.lx_next_is(b'{') {
                    self.bump()?;
                    let c = self.struct_const(ty, true)?;
                    self.expect(Tok::Greater, "'>' after a packed struct constant")?;
                    Ok(c)
                } else {
                    self.sequence_const(ty, false)
                }
            }
            Tok::LSquare => self.sequence_const(ty, true),
            Tok::MetadataId(_) | Tok::MetadataString | Tok::Exclaim => {
                Err(self.err("metadata is only allowed as a 'metadata' operand"))
            }
            _ => Err(self.expected(&format!("a value of type '{}'", self.type_text(ty)))),
        }
    }

    fn c_string(&mut self, ty: TypeId) -> Result<ConstId> {
        let t = self.bump()?;
        let mut bytes = std::mem::take(&mut self.consts.bytes);
        bytes.clear();
        self.bytes_of(&t, &mut bytes);
        let ok = matches!(self.m.types.data(ty), TypeData::Array { len, elem }
            if *len == bytes.len() as u64 && self.m.types.int_width(*elem) == Some(8));
        if !ok {
            self.consts.bytes = bytes;
            return Err(self.err_at(
                t.start,
                format!(
                    "a string of {} bytes cannot have type '{}'",
                    bytes_len(&self.consts.bytes),
                    self.type_text(ty)
                ),
            ));
        }
        let c = if bytes.iter().all(|&b| b == 0) {
            self.null_const(ty)
        } else {
            let cstr = bytes.last() == Some(&0) && !bytes[..bytes.len() - 1].contains(&0);
            let body = if cstr {
                &bytes[..bytes.len() - 1]
            } else {
                &bytes[..]
            };
            let r = PoolRange::push(&mut self.m.constants.bytes, body);
            let data = if cstr {
                ConstData::CString(r)
            } else {
                ConstData::String(r)
            };
            self.m.constants.push(Constant { ty, data })
        };
        self.consts.bytes = bytes;
        Ok(c)
    }

    /// `{ T v, ... }` (the current token is `{`).
    fn struct_const(&mut self, ty: TypeId, packed: bool) -> Result<ConstId> {
        let at = self.tok.start;
        let elems: Vec<TypeId> = match self.m.types.data(ty) {
            TypeData::Struct {
                packed: p,
                opaque: false,
                elems,
                ..
            } if *p == packed => elems.clone(),
            _ => {
                return Err(self.err(format!(
                    "{} struct constant where '{}' is expected",
                    if packed { "a packed" } else { "a" },
                    self.type_text(ty)
                )));
            }
        };
        self.bump()?;
        self.enter()?;
        let base = self.consts.stack.len();
        if !self.eat(Tok::RBrace)? {
            loop {
                let eat = self.tok.start;
                let (v, t) = self.typed_const()?;
                let i = self.consts.stack.len() - base;
                match elems.get(i) {
                    Some(&want) if want == t => {}
                    Some(&want) => {
                        return Err(self.err_at(
                            eat,
                            format!(
                                "element {i} has type '{}', the struct needs '{}'",
                                self.type_text(t),
                                self.type_text(want)
                            ),
                        ));
                    }
                    None => {
                        return Err(self.err_at(
                            eat,
                            format!("too many elements for '{}'", self.type_text(ty)),
                        ));
                    }
                }
                self.consts.stack.push(v);
                if self.eat(Tok::RBrace)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or '}' in a struct constant")?;
            }
        }
        self.leave();
        if self.consts.stack.len() - base != elems.len() {
            self.consts.stack.truncate(base);
            return Err(self.err_at(
                at,
                format!(
                    "struct constant has the wrong number of elements for '{}'",
                    self.type_text(ty)
                ),
            ));
        }
        Ok(self.finish_aggregate(ty, base, None))
    }

    /// `[T v, ...]` or `<T v, ...>` (the current token is the opening bracket).
    fn sequence_const(&mut self, ty: TypeId, array: bool) -> Result<ConstId> {
        let at = self.tok.start;
        let (len, elem) = match (self.m.types.data(ty), array) {
            (TypeData::Array { len, elem }, true) => (*len, *elem),
            (TypeData::Vector { len, elem }, false) => (u64::from(*len), *elem),
            _ => {
                return Err(self.err(format!(
                    "{} constant where '{}' is expected",
                    if array { "an array" } else { "a vector" },
                    self.type_text(ty)
                )));
            }
        };
        let close = if array { Tok::RSquare } else { Tok::Greater };
        self.bump()?;
        self.enter()?;
        let base = self.consts.stack.len();
        if !self.eat(close)? {
            loop {
                let eat = self.tok.start;
                let (v, t) = self.typed_const()?;
                if t != elem {
                    self.consts.stack.truncate(base);
                    return Err(self.err_at(
                        eat,
                        format!(
                            "element has type '{}', expected '{}'",
                            self.type_text(t),
                            self.type_text(elem)
                        ),
                    ));
                }
                if (self.consts.stack.len() - base) as u64 >= len {
                    self.consts.stack.truncate(base);
                    return Err(self.err_at(eat, format!("more than {len} elements")));
                }
                self.consts.stack.push(v);
                if self.eat(close)? {
                    break;
                }
                self.expect(
                    Tok::Comma,
                    if array {
                        "',' or ']' in an array constant"
                    } else {
                        "',' or '>' in a vector constant"
                    },
                )?;
            }
        }
        self.leave();
        let n = (self.consts.stack.len() - base) as u64;
        if n != len {
            self.consts.stack.truncate(base);
            return Err(self.err_at(at, format!("{n} elements where the type has {len}")));
        }
        Ok(self.finish_aggregate(ty, base, Some(elem)))
    }

    /// Builds the aggregate from the elements on the stack above `base`, folded as LLVM folds
    /// it, and pops them.
    fn finish_aggregate(&mut self, ty: TypeId, base: usize, elem: Option<TypeId>) -> ConstId {
        let data_of = |m: &Module, v: &Value| -> Option<ConstData> {
            v.as_const()
                .and_then(|c| m.constants.get(c))
                .map(|k| k.data.clone())
        };
        let vals = &self.consts.stack[base..];
        let c = if vals
            .iter()
            .all(|v| matches!(data_of(&self.m, v), Some(ConstData::Null)))
        {
            self.null_const(ty)
        } else if vals
            .iter()
            .all(|v| matches!(data_of(&self.m, v), Some(ConstData::Undef)))
        {
            self.scalar(ty, ConstData::Undef)
        } else {
            let bits = elem.and_then(|e| data_compatible(self.m.types.data(e)));
            let mut words = std::mem::take(&mut self.consts.words);
            words.clear();
            let plain = bits.is_some()
                && vals.iter().all(|v| {
                    let w = match data_of(&self.m, v) {
                        Some(ConstData::Null) => 0,
                        Some(ConstData::Int(x)) => x as u64,
                        Some(ConstData::Float(b)) => b,
                        _ => return false,
                    };
                    let bits = bits.unwrap_or(64);
                    words.push(if bits >= 64 {
                        w
                    } else {
                        w & ((1u64 << bits) - 1)
                    });
                    true
                });
            let c = if plain {
                let r = PoolRange::push(&mut self.m.constants.words, &words);
                self.m.constants.push(Constant {
                    ty,
                    data: ConstData::Data(r),
                })
            } else {
                let r = PoolRange::push(&mut self.m.constants.values, vals);
                self.m.constants.push(Constant {
                    ty,
                    data: ConstData::Aggregate(r),
                })
            };
            self.consts.words = words;
            c
        };
        self.consts.stack.truncate(base);
        c
    }

    /// `(T a, T b, ...)` of a constant expression, into the stack.
    fn const_operands(&mut self, n: usize) -> Result<[(Value, TypeId); 3]> {
        self.expect(Tok::LParen, "'('")?;
        let mut out = [(Value(0), TypeId(0)); 3];
        for (i, slot) in out.iter_mut().enumerate().take(n) {
            if i > 0 {
                self.expect(Tok::Comma, "','")?;
            }
            *slot = self.typed_const()?;
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(out)
    }

    /// Constant expressions: casts, `getelementptr`, binary operators, comparisons, `select`,
    /// and the vector element operations.
    fn const_expr(&mut self, ty: TypeId, at: u32) -> Result<ConstId> {
        let w = self.text();
        self.enter()?;
        let r = self.const_expr_inner(ty, at, w);
        self.leave();
        r
    }

    fn const_expr_inner(&mut self, ty: TypeId, at: u32, w: &'a str) -> Result<ConstId> {
        // Each form in a function of its own: the frames stack up once per nesting level.
        if let Some(op) = cast_op(w) {
            return self.const_cast(ty, at, op);
        }
        if w == "getelementptr" {
            return self.const_gep(ty, at);
        }
        if let Some(op) = bin_op(w) {
            return self.const_binary(ty, at, op);
        }
        self.const_other(ty, at, w)
    }

    fn const_cast(&mut self, ty: TypeId, at: u32, op: CastOp) -> Result<ConstId> {
        {
            self.bump()?;
            self.expect(Tok::LParen, "'('")?;
            let (v, from) = self.typed_const()?;
            self.expect_word("to")?;
            let to = self.parse_type(false)?;
            self.expect(Tok::RParen, "')'")?;
            if !self.cast_ok(op, from, to) {
                return Err(self.err_at(
                    at,
                    format!(
                        "invalid cast opcode for cast from '{}' to '{}'",
                        self.type_text(from),
                        self.type_text(to)
                    ),
                ));
            }
            self.check_type(ty, to, at)?;
            Ok(self.m.constants.push(Constant {
                ty,
                data: ConstData::Cast { op, value: v },
            }))
        }
    }

    fn const_gep(&mut self, ty: TypeId, at: u32) -> Result<ConstId> {
        {
            self.bump()?;
            let inbounds = self.eat_word("inbounds")?;
            self.expect(Tok::LParen, "'('")?;
            let src = self.parse_type(false)?;
            let base = self.consts.stack.len();
            loop {
                self.expect(Tok::Comma, "','")?;
                let (v, _) = self.typed_const()?;
                self.consts.stack.push(v);
                if self.eat(Tok::RParen)? {
                    break;
                }
            }
            let ops: Vec<Value> = self.consts.stack.drain(base..).collect();
            let rt = self.gep_type(src, &ops, at)?;
            self.check_type(ty, rt, at)?;
            let r = PoolRange::push(&mut self.m.constants.values, &ops);
            Ok(self.m.constants.push(Constant {
                ty,
                data: ConstData::Gep {
                    inbounds,
                    source_ty: Some(src),
                    operands: r,
                },
            }))
        }
    }

    fn const_binary(&mut self, ty: TypeId, at: u32, op: BinOp) -> Result<ConstId> {
        {
            self.bump()?;
            let mut flags = 0u8;
            loop {
                match (op.flag_kind(), self.text()) {
                    (BinFlagKind::Overflow, "nuw") if self.tok.tok == Tok::Word => flags |= 1,
                    (BinFlagKind::Overflow, "nsw") if self.tok.tok == Tok::Word => flags |= 2,
                    (BinFlagKind::Exact, "exact") if self.tok.tok == Tok::Word => flags |= 1,
                    _ => break,
                }
                self.bump()?;
            }
            let [(l, lt), (r, rt), _] = self.const_operands(2)?;
            self.check_binary(op, lt, rt, at)?;
            self.check_type(ty, lt, at)?;
            Ok(self.m.constants.push(Constant {
                ty,
                data: ConstData::Binary {
                    op,
                    flags,
                    lhs: l,
                    rhs: r,
                },
            }))
        }
    }

    fn const_other(&mut self, ty: TypeId, at: u32, w: &'a str) -> Result<ConstId> {
        match w {
            "icmp" | "fcmp" => {
                self.bump()?;
                let float = w == "fcmp";
                let pred = predicate(self.text(), float)
                    .filter(|_| self.tok.tok == Tok::Word)
                    .ok_or_else(|| self.expected("a comparison predicate"))?;
                self.bump()?;
                let [(l, lt), (r, rt), _] = self.const_operands(2)?;
                self.check_cmp(float, lt, rt, at)?;
                let res = self.bool_like(lt);
                self.check_type(ty, res, at)?;
                Ok(self.m.constants.push(Constant {
                    ty,
                    data: ConstData::Cmp {
                        pred,
                        lhs: l,
                        rhs: r,
                    },
                }))
            }
            "select" => {
                self.bump()?;
                let [(c, ct), (a, at_), (b, bt)] = self.const_operands(3)?;
                self.check_select(ct, at_, bt, at)?;
                self.check_type(ty, at_, at)?;
                Ok(self.m.constants.push(Constant {
                    ty,
                    data: ConstData::Select {
                        cond: c,
                        if_true: a,
                        if_false: b,
                    },
                }))
            }
            "extractelement" => {
                self.bump()?;
                let [(v, vt), (i, it), _] = self.const_operands(2)?;
                let et = self.check_extractelement(vt, it, at)?;
                self.check_type(ty, et, at)?;
                Ok(self.m.constants.push(Constant {
                    ty,
                    data: ConstData::ExtractElement {
                        vector: v,
                        index: i,
                    },
                }))
            }
            "insertelement" => {
                self.bump()?;
                let [(v, vt), (e, et), (i, it)] = self.const_operands(3)?;
                self.check_insertelement(vt, et, it, at)?;
                self.check_type(ty, vt, at)?;
                Ok(self.m.constants.push(Constant {
                    ty,
                    data: ConstData::InsertElement {
                        vector: v,
                        element: e,
                        index: i,
                    },
                }))
            }
            "shufflevector" => {
                self.bump()?;
                let [(a, at_), (b, bt), (mk, mt)] = self.const_operands(3)?;
                let rt = self.check_shuffle(at_, bt, mt, at)?;
                self.check_type(ty, rt, at)?;
                Ok(self.m.constants.push(Constant {
                    ty,
                    data: ConstData::ShuffleVector {
                        v1: a,
                        v2: b,
                        mask: mk,
                    },
                }))
            }
            _ => Err(self.expected(&format!("a value of type '{}'", self.type_text(ty)))),
        }
    }

    // ------------------------------------------------------------------ operand checks

    pub(crate) fn check_binary(&self, op: BinOp, lt: TypeId, rt: TypeId, at: u32) -> Result<()> {
        if lt != rt {
            return Err(self.err_at(at, "both operands of a binary operator must have one type"));
        }
        let ok = if op.is_float() {
            self.is_fp_or_fp_vector(lt)
        } else {
            self.is_int_or_int_vector(lt)
        };
        if !ok {
            return Err(self.err_at(
                at,
                format!(
                    "invalid operand type '{}' for '{}'",
                    self.type_text(lt),
                    op.name()
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn check_cmp(&self, float: bool, lt: TypeId, rt: TypeId, at: u32) -> Result<()> {
        if lt != rt {
            return Err(self.err_at(at, "compared operands must have one type"));
        }
        let ok = if float {
            self.is_fp_or_fp_vector(lt)
        } else {
            self.is_int_or_int_vector(lt) || self.is_ptr_or_ptr_vector(lt)
        };
        if !ok {
            return Err(self.err_at(
                at,
                format!(
                    "invalid operand type '{}' for a comparison",
                    self.type_text(lt)
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn check_select(&self, ct: TypeId, a: TypeId, b: TypeId, at: u32) -> Result<()> {
        if a != b {
            return Err(self.err_at(at, "both values of a select must have one type"));
        }
        let (cs, cl) = self.scalar_and_len(ct);
        let ok =
            self.m.types.int_width(cs) == Some(1) && (cl == 0 || self.scalar_and_len(a).1 == cl);
        if !ok {
            return Err(self.err_at(at, "select condition must be i1 or <N x i1>"));
        }
        Ok(())
    }

    pub(crate) fn check_extractelement(&self, vt: TypeId, it: TypeId, at: u32) -> Result<TypeId> {
        match self.m.types.data(vt) {
            TypeData::Vector { elem, .. } if self.m.types.int_width(it).is_some() => Ok(*elem),
            _ => Err(self.err_at(at, "invalid extractelement operands")),
        }
    }

    pub(crate) fn check_insertelement(
        &self,
        vt: TypeId,
        et: TypeId,
        it: TypeId,
        at: u32,
    ) -> Result<()> {
        match self.m.types.data(vt) {
            TypeData::Vector { elem, .. }
                if *elem == et && self.m.types.int_width(it).is_some() =>
            {
                Ok(())
            }
            _ => Err(self.err_at(at, "invalid insertelement operands")),
        }
    }

    pub(crate) fn check_shuffle(
        &mut self,
        a: TypeId,
        b: TypeId,
        mask: TypeId,
        at: u32,
    ) -> Result<TypeId> {
        let (ad, md) = (
            self.m.types.data(a).clone(),
            self.m.types.data(mask).clone(),
        );
        match (ad, md) {
            (TypeData::Vector { elem, .. }, TypeData::Vector { len, elem: me })
                if a == b && self.m.types.int_width(me) == Some(32) =>
            {
                Ok(self
                    .types
                    .intern(&mut self.m, TypeData::Vector { len, elem }))
            }
            _ => Err(self.err_at(at, "invalid shufflevector operands")),
        }
    }
}

fn bytes_len(b: &[u8]) -> usize {
    b.len()
}
