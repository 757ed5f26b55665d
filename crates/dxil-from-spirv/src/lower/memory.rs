//! Pointers and memory: access chains, loads and stores, and the local arrays that hold
//! `Function`, `Private` and `Workgroup` variables.
//!
//! A local variable becomes one array of scalars: of the variable's one scalar type when it
//! has only one (booleans stored as `i32`), of integers of the common width when all its
//! scalars share a width, and of `i32` words otherwise (64-bit scalars then take two words,
//! 16-bit ones one). An access chain is an index into that array, constant where the
//! indices are. The finished function keeps in memory only the arrays some access indexes
//! dynamically: `promote` turns the others into values.

use dxil_module::{BinOp, CastOp, Predicate, TypeId, Value};
use spirv::{Op, StorageClass};

use super::{Slot, Tr};
use crate::builder::Scalar;
use crate::error::{Result, inexpressible, limit, malformed, unsupported};
use crate::spv::{Inst, Type};

/// Largest local array, in slots.
const MAX_LOCAL_SLOTS: u64 = 1 << 20;

/// Where a pointer points.
#[derive(Clone, Copy, Debug)]
pub enum Base {
    /// A local array (index into `Tr::locals`).
    Local(u32),
    /// A buffer: the resource and its handle.
    Buffer {
        res: u32,
        handle: Value,
    },
    /// A stage input or output variable (index into the IO tables).
    Input(u32),
    Output(u32),
    /// A descriptor variable (images, samplers, buffer blocks not yet indexed), with the
    /// array index chosen so far.
    Resource {
        res: u32,
        index: Option<Value>,
    },
    /// A texel of a storage image (`OpImageTexelPointer`): the resource, its handle and the
    /// coordinate scalars (start in the value pool, count).
    Texel {
        res: u32,
        handle: Value,
        coords: (u32, u32),
    },
}

/// A pointer: its base, the pointee type, and the offset reached (slots for locals, bytes
/// for buffers, scalars for stage variables).
#[derive(Clone, Copy, Debug)]
pub struct Ptr {
    pub base: Base,
    pub ty: u32,
    pub off: u64,
    pub dyn_off: Option<Value>,
    /// Buffers: the greatest power of two dividing every dynamic offset added.
    pub dyn_align: u32,
    /// Buffers: layout of the matrix pointed into: (matrix stride, row major).
    pub mat: Option<(u32, bool)>,
    /// Buffers: bytes between consecutive components of the vector pointed to.
    pub comp_stride: u32,
    /// Stage variables: the vertex (or control point) index of a per-vertex array.
    pub vertex: Option<Value>,
}

impl Ptr {
    pub fn new(base: Base, ty: u32) -> Ptr {
        Ptr {
            base,
            ty,
            off: 0,
            dyn_off: None,
            dyn_align: 1 << 16,
            mat: None,
            comp_stride: 0,
            vertex: None,
        }
    }
}

/// A local array.
#[derive(Clone, Copy, Debug)]
pub struct Local {
    /// The alloca or global.
    pub ptr: Value,
    pub array_ty: TypeId,
    pub elem: Scalar,
    /// 64-bit scalars take two `i32` slots.
    pub wide: bool,
    pub space: u32,
    pub slots: u64,
    /// The struct around the array when the pointer is to a struct (a mesh payload: DXIL
    /// passes it to `DispatchMesh` and gets it from `GetMeshPayload` as a struct pointer).
    pub wrapper: Option<TypeId>,
    /// It holds 16-bit scalars: the module uses native 16-bit types once it is accessed (DXC's
    /// validator does not count a variable nobody reads or writes).
    pub uses16: bool,
}

/// Bitset of the scalar kinds a type holds.
fn kind_bit(s: Scalar) -> u8 {
    match s {
        Scalar::I1 | Scalar::I32 => 1,
        Scalar::I16 => 2,
        Scalar::I64 => 4,
        Scalar::F16 => 8,
        Scalar::F32 => 16,
        Scalar::F64 => 32,
    }
}

impl Tr<'_> {
    fn kinds_of(&self, ty: u32, depth: u32) -> Result<u8> {
        if depth > super::types::MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        Ok(match self.spv.ty(ty)? {
            // Local arrays hold register values: 8-bit integers as `i32`.
            Type::Bool | Type::Int { .. } | Type::Float { .. } => kind_bit(self.value_kind(ty)?),
            Type::RayQuery => kind_bit(Scalar::I32),
            Type::Vector { elem, .. } => self.kinds_of(elem, depth + 1)?,
            Type::Matrix { col, .. } => self.kinds_of(col, depth + 1)?,
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => {
                self.kinds_of(elem, depth + 1)?
            }
            Type::Struct { members } => {
                let mut k = 0;
                for i in 0..members.1 {
                    k |= self.kinds_of(self.spv.type_lists[(members.0 + i) as usize], depth + 1)?;
                }
                k
            }
            t => return Err(super::types::type_error(&t, "in variables")),
        })
    }

    /// Creates the array that holds a variable of type `ty`.
    pub fn new_local(&mut self, ty: u32, space: u32) -> Result<u32> {
        let (elem, wide, slots, uses16) = self.local_shape(ty)?;
        let et = self.b.scalar(elem);
        let array_ty = self.b.array_of(et, slots.max(1));
        let ptr = if space == 3 {
            let n = self.locals.len();
            self.b
                .add_global(format!("tgsm{n}"), array_ty, 3, None, false, false)
        } else {
            self.b.alloca(array_ty)?
        };
        self.locals.push(Local {
            ptr,
            array_ty,
            elem,
            wide,
            space,
            slots,
            wrapper: None,
            uses16,
        });
        Ok(self.locals.len() as u32 - 1)
    }

    /// The slot scalar, whether 64-bit scalars take two slots, the slot count of a variable
    /// of type `ty`, and whether it holds 16-bit scalars.
    pub fn local_shape(&mut self, ty: u32) -> Result<(Scalar, bool, u64, bool)> {
        let kinds = self.kinds_of(ty, 0)?;
        let (elem, wide) = match kinds {
            1 => (Scalar::I32, false),
            2 => (Scalar::I16, false),
            4 => (Scalar::I64, false),
            8 => (Scalar::F16, false),
            16 => (Scalar::F32, false),
            32 => (Scalar::F64, false),
            k if k & !(1 | 16) == 0 => (Scalar::I32, false),
            k if k & !(2 | 8) == 0 => (Scalar::I16, false),
            k if k & !(4 | 32) == 0 => (Scalar::I64, false),
            k => (Scalar::I32, k & (4 | 32) != 0),
        };
        let uses16 = matches!(elem, Scalar::I16 | Scalar::F16) || kinds & (2 | 8) != 0;
        let slots = self.slots(ty, wide, 0)?;
        if slots > MAX_LOCAL_SLOTS {
            return Err(limit(format!("a variable of {slots} scalars")));
        }
        Ok((elem, wide, slots, uses16))
    }

    /// Allocas for every `Function` variable of the functions this entry point reaches and
    /// for the `Private` variables it uses (everything is inlined into `@main`, so a private
    /// variable is a local of `@main`).
    pub fn create_function_locals(&mut self) -> Result<()> {
        let spv = self.spv;
        let funcs = self.reachable_functions()?;
        for fid in funcs {
            let Some(f) = spv.function(fid) else { continue };
            let Some(first) = f.blocks.first() else {
                continue;
            };
            for inst in spv.insts(first.start, first.end) {
                let inst = inst?;
                if inst.op() != Some(Op::Variable) {
                    continue;
                }
                let ptr_ty = inst.word(0)?;
                let id = inst.word(1)?;
                let (_, pointee) = self.pointee(ptr_ty)?;
                let l = self
                    .new_local(pointee, 0)
                    .and_then(|l| self.init_ray_queries(l, pointee).map(|()| l))
                    .map_err(|e| e.or_at(inst.location()))?;
                self.local_of.insert(id, l);
            }
        }
        let privates: Vec<u32> = self
            .used_globals
            .iter()
            .copied()
            .filter(|&g| self.global_class(g) == Some(StorageClass::Private))
            .collect();
        for g in privates {
            let def = spv.def(g)?;
            let inst = spv.inst_at(def.offset)?;
            let (_, pointee) = self.pointee(def.ty)?;
            let l = self
                .new_local(pointee, 0)
                .and_then(|l| self.init_ray_queries(l, pointee).map(|()| l))
                .map_err(|e| e.or_at(inst.location()))?;
            self.local_of.insert(g, l);
            self.set_ptr(g, Ptr::new(Base::Local(l), pointee))?;
            if let Some(&init) = inst.rest(3).first() {
                let p = Ptr::new(Base::Local(l), pointee);
                let vals = self.values(init)?;
                self.store_local(&p, &vals)
                    .map_err(|e| e.or_at(inst.location()))?;
            }
        }
        Ok(())
    }

    pub fn global_class(&self, id: u32) -> Option<StorageClass> {
        let d = self.spv.def(id).ok()?;
        match self.spv.ty(d.ty).ok()? {
            Type::Pointer { class, .. } => Some(class),
            _ => None,
        }
    }

    /// `OpVariable` inside a function: its alloca was made in the first block; here only the
    /// initializer is stored.
    pub fn function_variable(&mut self, inst: &Inst<'_>) -> Result<()> {
        let ptr_ty = inst.word(0)?;
        let id = inst.word(1)?;
        let (class, pointee) = self.pointee(ptr_ty)?;
        if class != StorageClass::Function {
            return Err(malformed(
                "a variable inside a function must be of Function storage",
            ));
        }
        let l = *self
            .local_of
            .get(&id)
            .ok_or_else(|| malformed("OpVariable outside the first block of its function"))?;
        let p = Ptr::new(Base::Local(l), pointee);
        self.set_ptr(id, p)?;
        if let Some(&init) = inst.rest(3).first() {
            let vals = self.values(init)?;
            self.store_local(&p, &vals)?;
        }
        Ok(())
    }

    pub fn set_ptr(&mut self, id: u32, p: Ptr) -> Result<()> {
        self.ptrs.push(p);
        let i = self.ptrs.len() as u32 - 1;
        self.set(id, Slot::Ptr(i))
    }

    /// The pointer an id holds.
    pub fn ptr(&mut self, id: u32) -> Result<Ptr> {
        match self.slot(id) {
            Slot::Ptr(i) => self
                .ptrs
                .get(i as usize)
                .copied()
                .ok_or_else(|| crate::error::internal("dangling pointer")),
            Slot::None => {
                self.materialize(id)?;
                match self.slot(id) {
                    Slot::Ptr(i) => Ok(self.ptrs[i as usize]),
                    _ => Err(malformed(format!("%{id} is not a pointer"))),
                }
            }
            _ => Err(malformed(format!("%{id} is not a pointer"))),
        }
    }

    /// Global variables as pointers (made when first used).
    pub(super) fn materialize_global(&mut self, id: u32) -> Result<()> {
        let def = self.spv.def(id)?;
        let (class, pointee) = self.pointee(def.ty)?;
        let p = match class {
            StorageClass::Workgroup => {
                let l = match self.local_of.get(&id) {
                    Some(&l) => l,
                    None => {
                        let l = self.new_local(pointee, 3)?;
                        self.local_of.insert(id, l);
                        l
                    }
                };
                Ptr::new(Base::Local(l), pointee)
            }
            StorageClass::Input | StorageClass::Output => self.io_pointer(id, class, pointee)?,
            StorageClass::TaskPayloadWorkgroupEXT => self.payload_pointer(id, pointee)?,
            StorageClass::Private => {
                return Err(malformed(format!(
                    "private variable %{id} is not in the interface"
                )));
            }
            StorageClass::StorageBuffer
            | StorageClass::Uniform
            | StorageClass::PushConstant
            | StorageClass::UniformConstant => self.resource_pointer(id, pointee)?,
            StorageClass::PhysicalStorageBuffer => {
                return Err(inexpressible(
                    "PhysicalStorageBuffer pointers (DXIL has no buffer device addresses)",
                ));
            }
            c => return Err(unsupported(format!("variables in {c:?} storage"))),
        };
        self.set_ptr(id, p)
    }

    /// An index operand: a constant (`Ok(Err(n))`) or a dynamic `i32` value.
    pub fn index_operand(&mut self, id: u32) -> Result<std::result::Result<Value, u64>> {
        let v = self.scalar(id)?;
        if let Some(c) = self.b.as_const_int(v) {
            let s = self.b.scalar_type_of(v)?;
            let c = if s == Scalar::I64 || self.is_signed_id(id) {
                c
            } else {
                c & ((1i64 << s.bits()) - 1)
            };
            return Ok(Err(c as u64));
        }
        let v = self.int_to_i32(v, self.is_signed_id(id))?;
        Ok(Ok(v))
    }

    fn is_signed_id(&self, id: u32) -> bool {
        self.spv.type_of(id).is_ok_and(|t| self.is_signed(t))
    }

    /// An integer value as `i32` (truncated or extended).
    pub fn int_to_i32(&mut self, v: Value, signed: bool) -> Result<Value> {
        let s = self.b.scalar_type_of(v)?;
        let i32 = self.b.t.i32;
        Ok(match s {
            Scalar::I32 => v,
            Scalar::I64 => self.b.cast(CastOp::Trunc, v, i32)?,
            Scalar::I16 | Scalar::I1 => self.b.cast(
                if signed && s == Scalar::I16 {
                    CastOp::SExt
                } else {
                    CastOp::ZExt
                },
                v,
                i32,
            )?,
            _ => return Err(malformed("index of a floating-point type")),
        })
    }

    /// `dyn += v * scale`.
    pub fn add_dynamic(&mut self, p: &mut Ptr, v: Value, scale: u64) -> Result<()> {
        let scale = u32::try_from(scale).map_err(|_| limit("index stride over 4 GiB"))?;
        let scaled = if scale == 1 {
            v
        } else {
            let k = self.b.i32c(i64::from(scale));
            self.b.binary(BinOp::Mul, v, k)?
        };
        p.dyn_off = Some(match p.dyn_off {
            Some(d) => self.b.binary(BinOp::Add, d, scaled)?,
            None => scaled,
        });
        let align = if scale == 0 {
            1 << 16
        } else {
            1 << scale.trailing_zeros().min(16)
        };
        p.dyn_align = p.dyn_align.min(align);
        Ok(())
    }

    pub fn access_chain(&mut self, inst: &Inst<'_>) -> Result<()> {
        let id = inst.word(1)?;
        let base = inst.word(2)?;
        let mut p = self.ptr(base)?;
        for &idx in inst.rest(3) {
            self.step(&mut p, idx)?;
        }
        self.set_ptr(id, p)
    }

    fn step(&mut self, p: &mut Ptr, idx: u32) -> Result<()> {
        match p.base {
            Base::Local(l) => {
                let wide = self.locals[l as usize].wide;
                let ix = self.index_operand(idx)?;
                match (self.spv.ty(p.ty)?, ix) {
                    (Type::Struct { .. }, Err(k)) => {
                        let (off, mt) = self.slot_offset(p.ty, k as u32, wide)?;
                        p.off += off;
                        p.ty = mt;
                    }
                    (Type::Struct { .. }, Ok(_)) => {
                        return Err(malformed("struct member index is not a constant"));
                    }
                    (_, ix) => {
                        let elem = self.element_type(p.ty)?;
                        let stride = self.slots(elem, wide, 0)?;
                        match ix {
                            Err(k) => p.off = p.off.saturating_add(k.saturating_mul(stride)),
                            Ok(v) => self.add_dynamic(p, v, stride)?,
                        }
                        p.ty = elem;
                    }
                }
                Ok(())
            }
            Base::Buffer { .. } => self.buffer_step(p, idx),
            Base::Resource { .. } => self.resource_step(p, idx),
            Base::Input(_) | Base::Output(_) => self.io_step(p, idx),
            Base::Texel { .. } => Err(malformed("access chain into an image texel pointer")),
        }
    }

    pub fn load(&mut self, inst: &Inst<'_>) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let p = self.ptr(inst.word(2)?)?;
        match p.base {
            Base::Resource { .. } => {
                let s = self.load_descriptor(&p)?;
                return self.set(id, s);
            }
            Base::Texel { .. } => return Err(malformed("OpLoad of an image texel pointer")),
            _ => {}
        }
        let vals = match p.base {
            Base::Local(_) => self.load_local(&p, ty)?,
            Base::Buffer { .. } => self.load_buffer(&p, ty)?,
            Base::Input(_) | Base::Output(_) => self.load_io(&p, ty)?,
            _ => unreachable_base()?,
        };
        self.set_vals(id, &vals)
    }

    pub fn store(&mut self, inst: &Inst<'_>) -> Result<()> {
        let p = self.ptr(inst.word(0)?)?;
        // The stored scalars go through a buffer kept across stores (stores are frequent).
        let (s, n) = self.get(inst.word(1)?)?;
        let mut vals = std::mem::take(&mut self.scratch);
        vals.clear();
        vals.extend_from_slice(&self.pool[s as usize..(s + n) as usize]);
        let r = self.store_to(&p, &vals);
        self.scratch = vals;
        r
    }

    pub fn store_to(&mut self, p: &Ptr, vals: &[Value]) -> Result<()> {
        match p.base {
            Base::Local(_) => self.store_local(p, vals),
            Base::Buffer { .. } => self.store_buffer(p, vals),
            Base::Output(_) => self.store_io(p, vals),
            Base::Input(_) => Err(malformed("store to an input variable")),
            Base::Resource { .. } | Base::Texel { .. } => {
                Err(malformed("store to a descriptor or image texel pointer"))
            }
        }
    }

    pub fn copy_memory(&mut self, inst: &Inst<'_>) -> Result<()> {
        let dst = self.ptr(inst.word(0)?)?;
        let src = self.ptr(inst.word(1)?)?;
        let vals = match src.base {
            Base::Local(_) => self.load_local(&src, src.ty)?,
            Base::Buffer { .. } => self.load_buffer(&src, src.ty)?,
            Base::Input(_) | Base::Output(_) => self.load_io(&src, src.ty)?,
            _ => return Err(unsupported("OpCopyMemory of descriptors")),
        };
        self.store_to(&dst, &vals)
    }

    /// The element pointer of slot `k` of a local (constant part `off`, dynamic part `dyn`).
    fn local_slot_ptr(&mut self, l: Local, off: u64, dyn_off: Option<Value>) -> Result<Value> {
        if l.uses16 {
            self.features.native16 = true;
        }
        if off >= l.slots && dyn_off.is_none() {
            return Err(malformed(format!(
                "constant index {off} past the end of a variable of {} scalars",
                l.slots
            )));
        }
        let k = self.b.i32c(off as i64);
        let index = match dyn_off {
            Some(d) if off == 0 => d,
            Some(d) => self.b.binary(BinOp::Add, d, k)?,
            None => k,
        };
        let et = self.b.scalar(l.elem);
        match l.wrapper {
            Some(w) => self.b.gep_field_elem(w, l.ptr, index, et, l.space),
            None => self.b.gep_elem(l.array_ty, l.ptr, index, et, l.space),
        }
    }

    fn elem_align(s: Scalar) -> u8 {
        (s.bits() / 8).max(4) as u8
    }

    pub fn load_local(&mut self, p: &Ptr, ty: u32) -> Result<Vec<Value>> {
        let Base::Local(li) = p.base else {
            return unreachable_base();
        };
        let l = self.locals[li as usize];
        let kinds = self.leaf_kinds(ty)?;
        let mut out = Vec::with_capacity(kinds.len());
        let mut slot = p.off;
        let et = self.b.scalar(l.elem);
        for k in kinds {
            if l.wide && k.bits() == 64 {
                let lo_p = self.local_slot_ptr(l, slot, p.dyn_off)?;
                let hi_p = self.local_slot_ptr(l, slot + 1, p.dyn_off)?;
                let lo = self.b.load(lo_p, et, 4)?;
                let hi = self.b.load(hi_p, et, 4)?;
                out.push(self.join64(lo, hi, k)?);
                slot += 2;
                continue;
            }
            let ep = self.local_slot_ptr(l, slot, p.dyn_off)?;
            let raw = self.b.load(ep, et, Self::elem_align(l.elem))?;
            out.push(self.slot_to_scalar(raw, l.elem, k)?);
            slot += 1;
        }
        Ok(out)
    }

    pub fn store_local(&mut self, p: &Ptr, vals: &[Value]) -> Result<()> {
        let Base::Local(li) = p.base else {
            return unreachable_base();
        };
        let l = self.locals[li as usize];
        let mut slot = p.off;
        for &v in vals {
            let k = self.b.scalar_type_of(v)?;
            if l.wide && k.bits() == 64 {
                let (lo, hi) = self.split64(v)?;
                let lo_p = self.local_slot_ptr(l, slot, p.dyn_off)?;
                self.b.store(lo_p, lo, 4)?;
                let hi_p = self.local_slot_ptr(l, slot + 1, p.dyn_off)?;
                self.b.store(hi_p, hi, 4)?;
                slot += 2;
                continue;
            }
            let raw = self.scalar_to_slot(v, k, l.elem)?;
            let ep = self.local_slot_ptr(l, slot, p.dyn_off)?;
            self.b.store(ep, raw, Self::elem_align(l.elem))?;
            slot += 1;
        }
        Ok(())
    }

    /// Converts a slot's raw value to a scalar of kind `k`.
    pub fn slot_to_scalar(&mut self, raw: Value, elem: Scalar, k: Scalar) -> Result<Value> {
        if elem == k {
            return Ok(raw);
        }
        let kt = self.b.scalar(k);
        if k == Scalar::I1 {
            let zero = self.b.zero(elem);
            return self.b.cmp(Predicate::ICMP_NE, raw, zero);
        }
        if elem.bits() == k.bits() {
            return self.b.cast(CastOp::BitCast, raw, kt);
        }
        // A narrower scalar in a wider integer slot.
        let it = self.b.scalar(k.as_int());
        let t = self.b.cast(CastOp::Trunc, raw, it)?;
        if k.is_float() {
            self.b.cast(CastOp::BitCast, t, kt)
        } else {
            Ok(t)
        }
    }

    /// Converts a scalar of kind `k` to a slot of kind `elem`.
    pub fn scalar_to_slot(&mut self, v: Value, k: Scalar, elem: Scalar) -> Result<Value> {
        if elem == k {
            return Ok(v);
        }
        let et = self.b.scalar(elem);
        if k == Scalar::I1 {
            return self.b.cast(CastOp::ZExt, v, et);
        }
        if elem.bits() == k.bits() {
            return self.b.cast(CastOp::BitCast, v, et);
        }
        let iv = if k.is_float() {
            let it = self.b.scalar(k.as_int());
            self.b.cast(CastOp::BitCast, v, it)?
        } else {
            v
        };
        self.b.cast(CastOp::ZExt, iv, et)
    }

    /// Two `i32` halves into a 64-bit scalar of kind `k`.
    pub fn join64(&mut self, lo: Value, hi: Value, k: Scalar) -> Result<Value> {
        let i64 = self.b.t.i64;
        let lo = self.b.cast(CastOp::ZExt, lo, i64)?;
        let hi = self.b.cast(CastOp::ZExt, hi, i64)?;
        let sh = self.b.const_int(Scalar::I64, 32);
        let hi = self.b.binary(BinOp::Shl, hi, sh)?;
        let v = self.b.binary(BinOp::Or, lo, hi)?;
        self.features.int64 = true;
        if k == Scalar::F64 {
            let f64 = self.b.t.f64;
            self.b.cast(CastOp::BitCast, v, f64)
        } else {
            Ok(v)
        }
    }

    /// A 64-bit scalar into `i32` halves.
    pub fn split64(&mut self, v: Value) -> Result<(Value, Value)> {
        let k = self.b.scalar_type_of(v)?;
        let i64 = self.b.t.i64;
        let i32 = self.b.t.i32;
        self.features.int64 = true;
        let iv = if k == Scalar::F64 {
            self.b.cast(CastOp::BitCast, v, i64)?
        } else {
            v
        };
        let lo = self.b.cast(CastOp::Trunc, iv, i32)?;
        let sh = self.b.const_int(Scalar::I64, 32);
        let hi = self.b.binary(BinOp::LShr, iv, sh)?;
        let hi = self.b.cast(CastOp::Trunc, hi, i32)?;
        Ok((lo, hi))
    }

    /// The pointer to the scalar a local pointer points at (for atomics).
    pub fn local_scalar_ptr(&mut self, p: &Ptr) -> Result<(Value, Scalar)> {
        let Base::Local(li) = p.base else {
            return unreachable_base();
        };
        let l = self.locals[li as usize];
        let k = self.scalar_kind(p.ty)?;
        if k != l.elem {
            return Err(unsupported(
                "atomics on a variable that also holds scalars of other types",
            ));
        }
        let ptr = self.local_slot_ptr(l, p.off, p.dyn_off)?;
        Ok((ptr, k))
    }
}

fn unreachable_base<T>() -> Result<T> {
    Err(crate::error::internal("pointer base of the wrong kind"))
}
