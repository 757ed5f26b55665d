//! Builds the DXIL module: types, constants, `dx.op` declarations and the body of `@main`,
//! instruction by instruction. Blocks are named by *virtual* ids while the body is written
//! (a branch may name a block before its position is known) and renumbered in layout order
//! when the function is finished.

use rustc_hash::FxHashMap as FxMap;

use dxil_module::{
    AttrGroup, AttrListId, Attribute, BinOp, BlockData, BlockId, Body, CastOp, ConstData, ConstId,
    ConstKey, FUNCTION_SLOT, FuncId, Function, GlobalId, GlobalVar, InstData, InstId, InstKind,
    Module, PoolRange, Predicate, TypeData, TypeId, Value, ValueRef,
};
use dxil_shader::ops::{FnAttr, OpCode};

use crate::error::{Result, internal, limit, malformed};

/// The data layout of DXIL with min-precision 16-bit types, and with native ones.
pub const LAYOUT_LEGACY: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";
pub const LAYOUT_NATIVE_16: &str =
    "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// Most instructions one function may hold; beyond it the input is refused (a guard against
/// inputs that unroll into enormous bodies, e.g. loads of huge arrays).
pub const MAX_INSTS: usize = 1 << 21;

/// Scalar types of values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    I1,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl Scalar {
    pub fn bits(self) -> u32 {
        match self {
            Scalar::I1 => 1,
            Scalar::I16 | Scalar::F16 => 16,
            Scalar::I32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64)
    }

    /// The `dx.op` overload suffix.
    pub fn suffix(self) -> &'static str {
        match self {
            Scalar::I1 => "i1",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F16 => "f16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    /// The integer type of the same width (bools stay i1).
    pub fn as_int(self) -> Scalar {
        match self {
            Scalar::F16 => Scalar::I16,
            Scalar::F32 => Scalar::I32,
            Scalar::F64 => Scalar::I64,
            s => s,
        }
    }
}

/// Types every translation uses, interned once.
#[derive(Clone, Copy, Debug)]
pub struct Common {
    pub void: TypeId,
    pub i1: TypeId,
    pub i8: TypeId,
    pub i16: TypeId,
    pub i32: TypeId,
    pub i64: TypeId,
    pub f16: TypeId,
    pub f32: TypeId,
    pub f64: TypeId,
    pub handle: TypeId,
}

/// The module under construction and the body of its one function.
pub struct Builder {
    pub m: Module,
    pub t: Common,
    /// Declared `dx.op` functions by (class name address, overload type).
    dxops: FxMap<(usize, Option<TypeId>), (FuncId, TypeId)>,
    named: FxMap<&'static str, TypeId>,
    /// Integer constants by (width, value): most operands are small constants, and the
    /// module's own interning hashes its whole key.
    ints: FxMap<(u8, i64), Value>,
    /// Pointer types by (pointee, address space).
    pointers: FxMap<(TypeId, u32), TypeId>,
    attr_lists: [Option<AttrListId>; 6],
    pub body: Body,
    /// Virtual block → position in layout order (`u32::MAX` until started).
    vblocks: Vec<u32>,
    /// The block being written: (virtual id, first instruction).
    current: Option<(u32, u32)>,
    /// The entry point's function.
    pub main: FuncId,
    /// The function whose body is being written (`main`, or a hull shader's patch-constant
    /// function).
    pub building: FuncId,
    /// Whether the body of `building` is installed already.
    finished: bool,
    /// Constants that must never be treated as known values (patchable ones).
    pinned: Vec<ConstId>,
}

fn scalar_type(t: &Common, s: Scalar) -> TypeId {
    match s {
        Scalar::I1 => t.i1,
        Scalar::I16 => t.i16,
        Scalar::I32 => t.i32,
        Scalar::I64 => t.i64,
        Scalar::F16 => t.f16,
        Scalar::F32 => t.f32,
        Scalar::F64 => t.f64,
    }
}

impl Builder {
    pub fn new(native16: bool) -> Builder {
        let mut m = Module {
            version: 1,
            triple: "dxil-ms-dx".into(),
            datalayout: if native16 {
                LAYOUT_NATIVE_16
            } else {
                LAYOUT_LEGACY
            }
            .into(),
            ..Module::default()
        };
        let ty = &mut m.types;
        ty.reserve(64);
        let void = ty.intern(TypeData::Void);
        let i8 = ty.int(8);
        let i8p = ty.pointer_to(i8, 0);
        let handle = ty.push(TypeData::Struct {
            name: Some("dx.types.Handle".into()),
            packed: false,
            opaque: false,
            elems: vec![i8p],
        });
        let t = Common {
            void,
            i1: ty.int(1),
            i8,
            i16: ty.int(16),
            i32: ty.int(32),
            i64: ty.int(64),
            f16: ty.intern(TypeData::Half),
            f32: ty.intern(TypeData::Float),
            f64: ty.intern(TypeData::Double),
            handle,
        };
        let main_ty = m.types.intern(TypeData::Function {
            vararg: false,
            ret: void,
            params: vec![],
        });
        let main_ptr = m.types.pointer_to(main_ty, 0);
        m.functions
            .push(function("main", main_ty, main_ptr, None, true));
        let mut named = FxMap::default();
        named.insert("dx.types.Handle", handle);
        // Sized for a typical shader, so that the maps and the body do not regrow (and rehash)
        // several times from empty.
        let mut body = Body::default();
        body.insts.reserve(256);
        body.pool.reserve(1024);
        // The module's tables too: a median shader has about 25 types, 20 constants and 75
        // metadata items with as many operands.
        m.constants.reserve(64);
        let md = &mut m.metadata;
        md.items.reserve(128);
        md.operands.reserve(128);
        md.bytes.reserve(256);
        md.named.reserve(8);
        md.named_ops.reserve(8);
        Builder {
            m,
            t,
            dxops: FxMap::with_capacity_and_hasher(32, Default::default()),
            named,
            ints: FxMap::with_capacity_and_hasher(64, Default::default()),
            pointers: FxMap::with_capacity_and_hasher(16, Default::default()),
            attr_lists: [None; 6],
            body,
            vblocks: Vec::new(),
            current: None,
            main: FuncId(0),
            building: FuncId(0),
            finished: false,
            pinned: Vec::new(),
        }
    }

    pub fn scalar(&self, s: Scalar) -> TypeId {
        scalar_type(&self.t, s)
    }

    /// The scalar kind of a type, if it is one.
    pub fn scalar_of(&self, t: TypeId) -> Option<Scalar> {
        let c = &self.t;
        Some(if t == c.i1 {
            Scalar::I1
        } else if t == c.i16 {
            Scalar::I16
        } else if t == c.i32 {
            Scalar::I32
        } else if t == c.i64 {
            Scalar::I64
        } else if t == c.f16 {
            Scalar::F16
        } else if t == c.f32 {
            Scalar::F32
        } else if t == c.f64 {
            Scalar::F64
        } else {
            return None;
        })
    }

    /// A named struct type (created on first use).
    pub fn named_struct(&mut self, name: &'static str, elems: &[TypeId]) -> TypeId {
        if let Some(&t) = self.named.get(name) {
            return t;
        }
        let t = self.m.types.push(TypeData::Struct {
            name: Some(name.into()),
            packed: false,
            opaque: false,
            elems: elems.to_vec(),
        });
        self.named.insert(name, t);
        t
    }

    /// A named struct type whose name is built at run time (resource symbol types).
    pub fn named_struct_owned(&mut self, name: String, elems: &[TypeId]) -> TypeId {
        if let Some(t) = self.m.types.find_struct(&name) {
            return t;
        }
        self.m.types.push(TypeData::Struct {
            name: Some(name),
            packed: false,
            opaque: false,
            elems: elems.to_vec(),
        })
    }

    pub fn array_of(&mut self, elem: TypeId, len: u64) -> TypeId {
        self.m.types.intern(TypeData::Array { len, elem })
    }

    pub fn vector_of(&mut self, elem: TypeId, len: u32) -> TypeId {
        self.m.types.intern(TypeData::Vector { len, elem })
    }

    pub fn pointer_to(&mut self, t: TypeId, space: u32) -> TypeId {
        if let Some(&p) = self.pointers.get(&(t, space)) {
            return p;
        }
        let p = self.m.types.pointer_to(t, space);
        self.pointers.insert((t, space), p);
        p
    }

    /// `%dx.types.ResRet.<s>`: four values and the status word.
    pub fn res_ret(&mut self, s: Scalar) -> TypeId {
        let e = self.scalar(s);
        let i32 = self.t.i32;
        let name = match s {
            Scalar::F16 => "dx.types.ResRet.f16",
            Scalar::F32 => "dx.types.ResRet.f32",
            Scalar::F64 => "dx.types.ResRet.f64",
            Scalar::I16 => "dx.types.ResRet.i16",
            Scalar::I64 => "dx.types.ResRet.i64",
            _ => "dx.types.ResRet.i32",
        };
        self.named_struct(name, &[e, e, e, e, i32])
    }

    /// `%dx.types.CBufRet.<s>` (one 16-byte row).
    pub fn cbuf_ret(&mut self, s: Scalar) -> TypeId {
        let e = self.scalar(s);
        match s {
            Scalar::F64 => self.named_struct("dx.types.CBufRet.f64", &[e, e]),
            Scalar::I64 => self.named_struct("dx.types.CBufRet.i64", &[e, e]),
            Scalar::F16 => self.named_struct("dx.types.CBufRet.f16", &[e; 8]),
            Scalar::I16 => self.named_struct("dx.types.CBufRet.i16", &[e; 8]),
            Scalar::F32 => self.named_struct("dx.types.CBufRet.f32", &[e; 4]),
            _ => self.named_struct("dx.types.CBufRet.i32", &[e; 4]),
        }
    }

    pub fn handle_type(&self) -> TypeId {
        self.t.handle
    }

    /// `%dx.types.ResBind`: lower, upper, space, class.
    pub fn res_bind_type(&mut self) -> TypeId {
        let (i, b) = (self.t.i32, self.t.i8);
        self.named_struct("dx.types.ResBind", &[i, i, i, b])
    }

    /// `%dx.types.ResourceProperties`: the two property words of `annotateHandle`.
    pub fn res_props_type(&mut self) -> TypeId {
        let i = self.t.i32;
        self.named_struct("dx.types.ResourceProperties", &[i, i])
    }

    /// `%dx.types.Dimensions`: what `getDimensions` returns.
    pub fn dimensions_type(&mut self) -> TypeId {
        let i = self.t.i32;
        self.named_struct("dx.types.Dimensions", &[i, i, i, i])
    }

    // ------------------------------------------------------------------ constants

    pub fn const_int(&mut self, s: Scalar, v: i64) -> Value {
        let v = match s {
            Scalar::I1 => -(v & 1),
            Scalar::I16 => i64::from(v as i16),
            Scalar::I32 => i64::from(v as i32),
            _ => v,
        };
        let key = (s.bits() as u8, v);
        if let Some(&c) = self.ints.get(&key) {
            return c;
        }
        let ty = self.scalar(s);
        let c = Value::constant(self.m.constants.int(ty, v));
        self.ints.insert(key, c);
        c
    }

    pub fn i32c(&mut self, v: i64) -> Value {
        self.const_int(Scalar::I32, v)
    }

    pub fn i8c(&mut self, v: i64) -> Value {
        let ty = self.t.i8;
        Value::constant(self.m.constants.int(ty, i64::from(v as i8)))
    }

    pub fn i1c(&mut self, b: bool) -> Value {
        self.const_int(Scalar::I1, i64::from(b))
    }

    /// A float constant from its IEEE bits (of the type's width).
    pub fn const_float_bits(&mut self, s: Scalar, bits: u64) -> Value {
        let ty = self.scalar(s);
        let data = if bits == 0 {
            ConstData::Null
        } else {
            ConstData::Float(bits)
        };
        Value::constant(self.m.constants.intern(ty, ConstKey::Plain(data)))
    }

    /// A constant of a scalar kind from raw bits (integers sign-extended from the width).
    pub fn const_bits(&mut self, s: Scalar, bits: u64) -> Value {
        if s.is_float() {
            self.const_float_bits(s, bits)
        } else {
            self.const_int(s, bits as i64)
        }
    }

    pub fn zero(&mut self, s: Scalar) -> Value {
        self.const_bits(s, 0)
    }

    pub fn undef(&mut self, ty: TypeId) -> Value {
        Value::constant(self.m.constants.undef(ty))
    }

    pub fn undef_scalar(&mut self, s: Scalar) -> Value {
        let ty = self.scalar(s);
        self.undef(ty)
    }

    /// A constant aggregate (struct or array) of constant elements.
    pub fn const_aggregate(&mut self, ty: TypeId, elems: &[Value]) -> Value {
        Value::constant(
            self.m
                .constants
                .intern(ty, ConstKey::Values(0, elems.to_vec(), None)),
        )
    }

    /// A fresh i32 constant that is never merged with an equal one (a patchable
    /// specialization constant).
    pub fn unique_i32(&mut self, v: i32) -> ConstId {
        let ty = self.t.i32;
        let c = self.m.constants.push_unique(dxil_module::Constant {
            ty,
            data: ConstData::Int(i64::from(v)),
        });
        self.pinned.push(c);
        c
    }

    /// The integer value of a constant operand (never of a patchable constant).
    pub fn as_const_int(&self, v: Value) -> Option<i64> {
        let c = v.as_const()?;
        if self.pinned.contains(&c) {
            return None;
        }
        self.m.const_int(v)
    }

    // ------------------------------------------------------------------ globals

    pub fn add_global(
        &mut self,
        name: String,
        value_ty: TypeId,
        space: u32,
        init: Option<Value>,
        internal: bool,
        constant: bool,
    ) -> Value {
        let ptr_ty = self.m.types.pointer_to(value_ty, space);
        let g = GlobalId(self.m.globals.len() as u32);
        self.m.globals.push(GlobalVar {
            name,
            value_ty,
            ptr_ty,
            address_space: space,
            is_constant: constant,
            init,
            // 0 external, 3 internal.
            linkage: if internal { 3 } else { 0 },
            align: 3,
            section: 0,
            visibility: 0,
            thread_local: 0,
            unnamed_addr: u32::from(constant),
            externally_initialized: false,
            dll_storage: 0,
            comdat: 0,
            record_len: 0,
        });
        Value::global(g)
    }

    // ------------------------------------------------------------------ dx.op

    fn attr_list(&mut self, attr: FnAttr) -> AttrListId {
        let slot = match attr {
            FnAttr::None => 0,
            FnAttr::ReadNone => 1,
            FnAttr::ReadOnly => 2,
            FnAttr::NoDuplicate => 3,
            FnAttr::NoReturn => 4,
            FnAttr::ArgMemOnly => 5,
        };
        if let Some(l) = self.attr_lists[slot] {
            return l;
        }
        // LLVM 3.7 attribute kinds: nounwind 18, readnone 20, readonly 21, noduplicate 12,
        // noreturn 17, argmemonly 45.
        let mut attrs = vec![Attribute::Enum(18)];
        match attr {
            FnAttr::ReadNone => attrs.push(Attribute::Enum(20)),
            FnAttr::ReadOnly => attrs.push(Attribute::Enum(21)),
            FnAttr::NoDuplicate => attrs.push(Attribute::Enum(12)),
            FnAttr::NoReturn => attrs.push(Attribute::Enum(17)),
            FnAttr::ArgMemOnly => attrs.push(Attribute::Enum(45)),
            FnAttr::None => {}
        }
        let id = self.m.attr_groups.len() as u32 + 1;
        self.m.attr_groups.push(AttrGroup {
            id,
            slot: FUNCTION_SLOT,
            attrs,
        });
        self.m.attr_lists.push(vec![id]);
        let l = AttrListId(self.m.attr_lists.len() as u32 - 1);
        self.attr_lists[slot] = Some(l);
        l
    }

    /// Declares (once) `dx.op.<class>[.<overload>]` with the given signature.
    fn dxop_decl(
        &mut self,
        op: OpCode,
        overload: Option<TypeId>,
        ret: TypeId,
        args: &[Value],
    ) -> Result<(FuncId, TypeId)> {
        let info = op.info();
        let key = (
            info.class.as_ptr() as usize,
            if info.is_overloaded() { overload } else { None },
        );
        if let Some(&d) = self.dxops.get(&key) {
            return Ok(d);
        }
        // The declaration's parameter types are the first call's argument types.
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(self.t.i32);
        for &a in args {
            all.push(self.type_of(a)?);
        }
        let fn_ty = self.m.types.intern(TypeData::Function {
            vararg: false,
            ret,
            params: all,
        });
        let ptr_ty = self.m.types.pointer_to(fn_ty, 0);
        let name = match key.1 {
            Some(t) => format!("dx.op.{}.{}", info.class, self.overload_name(t)),
            None => format!("dx.op.{}", info.class),
        };
        let attrs = self.attr_list(info.attr);
        let f = FuncId(self.m.functions.len() as u32);
        self.m
            .functions
            .push(function(&name, fn_ty, ptr_ty, Some(attrs), false));
        self.dxops.insert(key, (f, fn_ty));
        Ok((f, fn_ty))
    }

    fn overload_name(&self, t: TypeId) -> String {
        if let Some(s) = self.scalar_of(t) {
            return s.suffix().to_string();
        }
        match self.m.types.data(t) {
            TypeData::Struct { name: Some(n), .. } => n.clone(),
            TypeData::Int(8) => "i8".into(),
            _ => "void".into(),
        }
    }

    /// Calls a `dx.op` function: `ret op(i32 opcode, args...)`; the declaration's parameter
    /// types are the argument types. `overload` names the overload type of overloaded ops.
    pub fn dxop(
        &mut self,
        op: OpCode,
        overload: Option<TypeId>,
        ret: TypeId,
        args: &[Value],
    ) -> Result<Value> {
        let (f, fn_ty) = self.dxop_decl(op, overload, ret, args)?;
        let code = self.i32c(i64::from(op.as_u32()));
        // Calls are the most frequent instruction: their operands go through a stack buffer
        // (no dx.op has 16 arguments) rather than a heap vector each.
        let mut buf = [0u32; 16];
        let args = match buf.get_mut(..=args.len()) {
            Some(all) => {
                all[0] = code.0;
                for (d, v) in all[1..].iter_mut().zip(args) {
                    *d = v.0;
                }
                PoolRange::push(&mut self.body.pool, all)
            }
            None => {
                let all: Vec<u32> = std::iter::once(code.0)
                    .chain(args.iter().map(|v| v.0))
                    .collect();
                PoolRange::push(&mut self.body.pool, &all)
            }
        };
        self.push(
            InstKind::Call {
                callee: Value::function(f),
                fn_ty,
                attrs: None,
                cc_flags: 0,
                args,
            },
            ret,
        )
    }

    /// The pool range of a call's arguments (the opcode first), for patching after the fact.
    pub fn call_args(&self, call: Value) -> Option<PoolRange> {
        let i = call.as_inst()?;
        match &self.body.insts.get(i.index())?.kind {
            InstKind::Call { args, .. } => Some(*args),
            _ => None,
        }
    }

    // ------------------------------------------------------------------ types of values

    pub fn type_of(&self, v: Value) -> Result<TypeId> {
        match v.get() {
            ValueRef::Const(c) => self.m.constants.get(c).map(|c| c.ty),
            ValueRef::Inst(i) => self.body.insts.get(i.index()).map(|d| d.ty),
            ValueRef::Global(g) => self.m.globals.get(g.index()).map(|g| g.ptr_ty),
            _ => None,
        }
        .ok_or_else(|| internal(format!("no type for value {v:?}")))
    }

    pub fn scalar_type_of(&self, v: Value) -> Result<Scalar> {
        let t = self.type_of(v)?;
        self.scalar_of(t)
            .ok_or_else(|| internal(format!("value {v:?} is not a scalar")))
    }

    // ------------------------------------------------------------------ instructions

    fn push(&mut self, kind: InstKind, ty: TypeId) -> Result<Value> {
        if self.current.is_none() {
            return Err(internal("instruction outside a block"));
        }
        if self.body.insts.len() >= MAX_INSTS {
            return Err(limit(format!(
                "the translation exceeds {MAX_INSTS} DXIL instructions"
            )));
        }
        let id = InstId(self.body.insts.len() as u32);
        self.body.insts.push(InstData { kind, ty });
        Ok(Value::inst(id))
    }

    pub fn binary(&mut self, op: BinOp, lhs: Value, rhs: Value) -> Result<Value> {
        let ty = self.type_of(lhs)?;
        let s = self.scalar_of(ty);
        let ok = self.type_of(rhs)? == ty
            && match s {
                Some(s) if op.is_float() => s.is_float(),
                Some(Scalar::I1) => matches!(op, BinOp::And | BinOp::Or | BinOp::Xor),
                Some(s) => !s.is_float(),
                None => false,
            };
        if !ok {
            return Err(malformed(format!(
                "operands of the wrong types for `{}`",
                op.name()
            )));
        }
        self.push(
            InstKind::Binary {
                op,
                lhs,
                rhs,
                flags: 0,
            },
            ty,
        )
    }

    pub fn cast(&mut self, op: CastOp, value: Value, to: TypeId) -> Result<Value> {
        let from = self.scalar_type_of(value)?;
        let to_s = self
            .scalar_of(to)
            .ok_or_else(|| malformed("conversion to a type that is not a scalar"))?;
        let (fb, tb) = (from.bits(), to_s.bits());
        let ok = match op {
            CastOp::Trunc => !from.is_float() && !to_s.is_float() && tb < fb,
            CastOp::ZExt | CastOp::SExt => !from.is_float() && !to_s.is_float() && tb > fb,
            CastOp::FPToUI | CastOp::FPToSI => from.is_float() && !to_s.is_float(),
            CastOp::UIToFP | CastOp::SIToFP => !from.is_float() && to_s.is_float(),
            CastOp::FPTrunc => from.is_float() && to_s.is_float() && tb < fb,
            CastOp::FPExt => from.is_float() && to_s.is_float() && tb > fb,
            CastOp::BitCast => fb == tb && from != to_s && from != Scalar::I1,
            _ => false,
        };
        if !ok {
            return Err(malformed(format!(
                "`{}` from {}-bit {} to {}-bit {}",
                op.name(),
                fb,
                if from.is_float() { "float" } else { "integer" },
                tb,
                if to_s.is_float() { "float" } else { "integer" }
            )));
        }
        self.push(InstKind::Cast { op, value }, to)
    }

    /// An integer truncated to i8 (the type of some dx.op operands, which [`Scalar`] lacks).
    pub fn trunc_to_i8(&mut self, value: Value) -> Result<Value> {
        if self.scalar_type_of(value)?.is_float() || self.scalar_type_of(value)?.bits() <= 8 {
            return Err(malformed(
                "an operand to truncate to 8 bits that is not a wider integer",
            ));
        }
        let to = self.t.i8;
        self.push(
            InstKind::Cast {
                op: CastOp::Trunc,
                value,
            },
            to,
        )
    }

    pub fn cmp(&mut self, pred: Predicate, lhs: Value, rhs: Value) -> Result<Value> {
        let ty = self.type_of(lhs)?;
        let ok = self.type_of(rhs)? == ty
            && self
                .scalar_of(ty)
                .is_some_and(|s| s.is_float() == pred.is_float());
        if !ok {
            return Err(malformed(format!(
                "comparison `{}` of operands of the wrong types",
                pred.name()
            )));
        }
        let i1 = self.t.i1;
        self.push(
            InstKind::Cmp {
                pred,
                lhs,
                rhs,
                flags: 0,
            },
            i1,
        )
    }

    pub fn select(&mut self, cond: Value, if_true: Value, if_false: Value) -> Result<Value> {
        if self.type_of(cond)? != self.t.i1 || self.type_of(if_true)? != self.type_of(if_false)? {
            return Err(malformed("select of operands of the wrong types"));
        }
        if if_true == if_false {
            return Ok(if_true);
        }
        let ty = self.type_of(if_true)?;
        self.push(
            InstKind::Select {
                cond,
                if_true,
                if_false,
            },
            ty,
        )
    }

    pub fn extract_value(&mut self, aggregate: Value, index: u32, ty: TypeId) -> Result<Value> {
        let indices = PoolRange::push(&mut self.body.pool, &[index]);
        self.push(InstKind::ExtractValue { aggregate, indices }, ty)
    }

    /// A phi with its incoming list left empty (filled by [`Builder::set_phi_incoming`]).
    pub fn phi(&mut self, ty: TypeId) -> Result<Value> {
        self.push(
            InstKind::Phi {
                incoming: PoolRange::EMPTY,
            },
            ty,
        )
    }

    /// Sets a phi's incoming `(value, virtual block)` pairs.
    pub fn set_phi_incoming(&mut self, phi: Value, pairs: &[(Value, u32)]) -> Result<()> {
        let ty = self.type_of(phi)?;
        for &(v, _) in pairs {
            if self.type_of(v)? != ty {
                return Err(malformed("phi operand of another type"));
            }
        }
        let range = self.push_pairs(pairs);
        match phi
            .as_inst()
            .and_then(|i| self.body.insts.get_mut(i.index()))
        {
            Some(InstData {
                kind: InstKind::Phi { incoming },
                ..
            }) => {
                *incoming = range;
                Ok(())
            }
            _ => Err(internal("not a phi")),
        }
    }

    pub fn alloca(&mut self, ty: TypeId) -> Result<Value> {
        let ptr = self.pointer_to(ty, 0);
        let one = self.i32c(1);
        // Alignment 4 (log2 + 1 = 3) with the explicit-type flag (bit 6).
        self.push(
            InstKind::Alloca {
                allocated: ty,
                size: one,
                align_field: 3 | (1 << 6),
            },
            ptr,
        )
    }

    /// `getelementptr inbounds <base>, i32 0, i32 index`: an element of an array.
    pub fn gep_elem(
        &mut self,
        array_ty: TypeId,
        base: Value,
        index: Value,
        elem: TypeId,
        space: u32,
    ) -> Result<Value> {
        let zero = self.i32c(0);
        self.gep_inbounds(array_ty, &[base.0, zero.0, index.0], elem, space)
    }

    /// `getelementptr inbounds <base>, i32 0, i32 0, i32 index`: an element of the array that
    /// is a struct's only field.
    pub fn gep_field_elem(
        &mut self,
        struct_ty: TypeId,
        base: Value,
        index: Value,
        elem: TypeId,
        space: u32,
    ) -> Result<Value> {
        let zero = self.i32c(0);
        self.gep_inbounds(struct_ty, &[base.0, zero.0, zero.0, index.0], elem, space)
    }

    /// `getelementptr inbounds` over `source_ty` with `operands` (base, then indices), giving a
    /// pointer to `elem` in `space`.
    fn gep_inbounds(
        &mut self,
        source_ty: TypeId,
        operands: &[u32],
        elem: TypeId,
        space: u32,
    ) -> Result<Value> {
        let operands = PoolRange::push(&mut self.body.pool, operands);
        let ptr = self.pointer_to(elem, space);
        self.push(
            InstKind::Gep {
                inbounds: true,
                source_ty,
                operands,
            },
            ptr,
        )
    }

    pub fn load(&mut self, ptr: Value, ty: TypeId, align: u8) -> Result<Value> {
        self.push(
            InstKind::Load {
                ptr,
                align: log2_align(align),
                volatile: false,
                atomic: None,
            },
            ty,
        )
    }

    pub fn store(&mut self, ptr: Value, value: Value, align: u8) -> Result<()> {
        let pt = self.type_of(ptr)?;
        if self.m.types.pointee(pt) != Some(self.type_of(value)?) {
            return Err(internal("store of a value of another type"));
        }
        let void = self.t.void;
        self.push(
            InstKind::Store {
                ptr,
                value,
                align: log2_align(align),
                volatile: false,
                atomic: None,
            },
            void,
        )?;
        Ok(())
    }

    pub fn atomic_rmw(
        &mut self,
        op: dxil_module::RmwOp,
        ptr: Value,
        value: Value,
    ) -> Result<Value> {
        let ty = self.type_of(value)?;
        self.push(
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                volatile: false,
                ordering: dxil_module::Ordering(6),
                scope: dxil_module::SyncScope(1),
            },
            ty,
        )
    }

    /// `cmpxchg`, returning the loaded value (element 0 of the result pair).
    pub fn cmpxchg(&mut self, ptr: Value, cmp: Value, new: Value) -> Result<Value> {
        let ty = self.type_of(cmp)?;
        let i1 = self.t.i1;
        let pair = self.m.types.intern(TypeData::Struct {
            name: None,
            packed: false,
            opaque: false,
            elems: vec![ty, i1],
        });
        let r = self.push(
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                volatile: false,
                success: dxil_module::Ordering(6),
                scope: dxil_module::SyncScope(1),
                failure: dxil_module::Ordering(6),
                weak: false,
            },
            pair,
        )?;
        self.extract_value(r, 0, ty)
    }

    // ------------------------------------------------------------------ blocks

    /// A new virtual block id.
    pub fn new_block(&mut self) -> u32 {
        self.vblocks.push(u32::MAX);
        self.vblocks.len() as u32 - 1
    }

    /// Starts writing block `vb` (the previous block must be terminated).
    pub fn start_block(&mut self, vb: u32) -> Result<()> {
        if self.current.is_some() {
            return Err(internal("block started before the previous one ended"));
        }
        let pos = self.body.blocks.len() as u32;
        match self.vblocks.get_mut(vb as usize) {
            Some(slot) if *slot == u32::MAX => *slot = pos,
            _ => return Err(internal(format!("block {vb} started twice"))),
        }
        self.body.blocks.push(BlockData {
            start: self.body.insts.len() as u32,
            end: self.body.insts.len() as u32,
        });
        self.current = Some((vb, self.body.insts.len() as u32));
        Ok(())
    }

    pub fn current_block(&self) -> Option<u32> {
        self.current.map(|c| c.0)
    }

    fn terminate(&mut self, kind: InstKind) -> Result<()> {
        let void = self.t.void;
        self.push(kind, void)?;
        if let Some(last) = self.body.blocks.last_mut() {
            last.end = self.body.insts.len() as u32;
        }
        self.current = None;
        Ok(())
    }

    pub fn br(&mut self, dest: u32) -> Result<()> {
        self.terminate(InstKind::Br {
            dest: BlockId(dest),
        })
    }

    pub fn cond_br(&mut self, cond: Value, if_true: u32, if_false: u32) -> Result<()> {
        if self.type_of(cond)? != self.t.i1 {
            return Err(malformed("branch condition that is not a boolean"));
        }
        if if_true == if_false {
            return self.br(if_true);
        }
        self.terminate(InstKind::CondBr {
            cond,
            if_true: BlockId(if_true),
            if_false: BlockId(if_false),
        })
    }

    /// `switch` with `(case constant, virtual block)` pairs.
    /// Pools `(value, block)` pairs (phi incoming values, switch cases) as the model keeps them.
    fn push_pairs(&mut self, pairs: &[(Value, u32)]) -> PoolRange {
        let start = self.body.pool.len() as u32;
        for &(v, b) in pairs {
            self.body.pool.push(v.0);
            self.body.pool.push(b);
        }
        PoolRange {
            start,
            len: (pairs.len() * 2) as u32,
        }
    }

    pub fn switch(&mut self, cond: Value, default: u32, cases: &[(Value, u32)]) -> Result<()> {
        if self
            .scalar_of(self.type_of(cond)?)
            .is_none_or(|s| s.is_float() || s == Scalar::I1)
        {
            return Err(malformed("switch on a value that is not an integer"));
        }
        let cases = self.push_pairs(cases);
        self.terminate(InstKind::Switch {
            cond,
            default: BlockId(default),
            cases,
        })
    }

    pub fn ret(&mut self) -> Result<()> {
        self.terminate(InstKind::Ret { value: None })
    }

    pub fn unreachable(&mut self) -> Result<()> {
        self.terminate(InstKind::Unreachable)
    }

    /// How many edges the terminator of (started) virtual block `from` has to `to`.
    pub fn edges(&self, from: u32, to: u32) -> usize {
        let Some(&pos) = self.vblocks.get(from as usize) else {
            return 0;
        };
        let Some(b) = self.body.blocks.get(pos as usize) else {
            return 0;
        };
        if b.end == b.start {
            return 0;
        }
        let Some(last) = self.body.insts.get(b.end as usize - 1) else {
            return 0;
        };
        let mut n = 0;
        last.kind
            .for_each_block(&self.body.pool, |t| n += usize::from(t.0 == to));
        n
    }

    /// Starts another function (`void ()`, no attributes) after installing the current
    /// one's body; its body is written from then on.
    pub fn begin_function(&mut self, name: &str) -> Result<FuncId> {
        self.finish_main()?;
        let ty = self.m.types.intern(TypeData::Function {
            vararg: false,
            ret: self.t.void,
            params: vec![],
        });
        let ptr = self.m.types.pointer_to(ty, 0);
        let id = FuncId(self.m.functions.len() as u32);
        self.m.functions.push(function(name, ty, ptr, None, true));
        self.building = id;
        self.finished = false;
        self.body = Body::default();
        self.vblocks.clear();
        self.current = None;
        Ok(id)
    }

    /// Runs `f` with the body of function `func` as the current body (an installed body is
    /// swapped in and back): for edits of instructions written earlier.
    pub fn with_body<R>(
        &mut self,
        func: FuncId,
        f: impl FnOnce(&mut Builder) -> Result<R>,
    ) -> Result<R> {
        if func == self.building && !self.finished {
            return f(self);
        }
        let body = self
            .m
            .functions
            .get_mut(func.index())
            .and_then(|x| x.body.take())
            .ok_or_else(|| internal("no such function body"))?;
        let saved = std::mem::replace(&mut self.body, body);
        let r = f(self);
        let body = std::mem::replace(&mut self.body, saved);
        if let Some(x) = self.m.functions.get_mut(func.index()) {
            x.body = Some(body);
        }
        r
    }

    /// Renumbers virtual block ids to layout positions and installs the body in its function
    /// (`@main` unless [`Builder::begin_function`] started another). Idempotent.
    pub fn finish_main(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.current.is_some() {
            return Err(internal("the last block has no terminator"));
        }
        let vblocks = std::mem::take(&mut self.vblocks);
        let map = |b: &mut BlockId| -> Result<()> {
            match vblocks.get(b.index()) {
                Some(&p) if p != u32::MAX => {
                    *b = BlockId(p);
                    Ok(())
                }
                _ => Err(internal(format!("branch to block {} never written", b.0))),
            }
        };
        let body = &mut self.body;
        for inst in &mut body.insts {
            match &mut inst.kind {
                InstKind::Br { dest } => map(dest)?,
                InstKind::CondBr {
                    if_true, if_false, ..
                } => {
                    map(if_true)?;
                    map(if_false)?;
                }
                InstKind::Switch { default, cases, .. } => {
                    map(default)?;
                    let r = *cases;
                    for i in (0..r.len).step_by(2) {
                        let at = (r.start + i + 1) as usize;
                        let mut b = BlockId(body.pool[at]);
                        map(&mut b)?;
                        body.pool[at] = b.0;
                    }
                }
                InstKind::Phi { incoming } => {
                    let r = *incoming;
                    for i in (0..r.len).step_by(2) {
                        let at = (r.start + i + 1) as usize;
                        let mut b = BlockId(body.pool[at]);
                        map(&mut b)?;
                        body.pool[at] = b.0;
                    }
                }
                _ => {}
            }
        }
        let body = std::mem::take(&mut self.body);
        match self.m.functions.get_mut(self.building.index()) {
            Some(f) => f.body = Some(body),
            None => return Err(internal("no main function")),
        }
        self.finished = true;
        Ok(())
    }
}

fn log2_align(bytes: u8) -> u8 {
    // log2(align) + 1, as LLVM stores it.
    match bytes {
        0 => 0,
        b => (b.trailing_zeros() + 1) as u8,
    }
}

fn function(
    name: &str,
    ty: TypeId,
    ptr_ty: TypeId,
    attrs: Option<AttrListId>,
    body: bool,
) -> Function {
    let body = if body { Some(Body::default()) } else { None };
    Function::new(name, ty, ptr_ty, attrs, body)
}
