//! LLVM types and constants → SPIR-V types and constants.

use dxil_module::{ConstData, ConstId, TypeData, TypeId, Value, ValueRef};
use spirv::{Capability, Op};

use super::{Ctx, Val};
use crate::error::{Error, Invalid, Limit, Unsupported};
use crate::spv::{Id, TypeKey};

/// The scalar class of a SPIR-V value type, for picking instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    Bool,
    Int(u8),
    Float(u8),
}

impl<'a> Ctx<'a> {
    /// The SPIR-V type of an LLVM value type (scalars, vectors, arrays, literal structs in memory).
    pub fn ty(&mut self, t: TypeId) -> Result<Id, Error> {
        if let Some(&Some(id)) = self.type_ids.get(t.index()) {
            return Ok(id);
        }
        // Types nest by recursion; a malformed module could make a type contain itself.
        self.depth += 1;
        let r = if self.depth > 64 {
            Err(self.invalid(Invalid::ty("type nested more than 64 deep")))
        } else {
            self.ty_uncached(t)
        };
        self.depth -= 1;
        r
    }

    fn ty_uncached(&mut self, t: TypeId) -> Result<Id, Error> {
        let id = match self.m.types.data(t) {
            TypeData::Void => self.b.void(),
            TypeData::Int(1) => self.b.bool(),
            TypeData::Int(16) if self.min32() => self.b.uint(32),
            TypeData::Half if self.min32() => self.b.f32(),
            TypeData::Int(w @ (8 | 16 | 32 | 64)) => {
                let w = *w as u8;
                self.int_caps(w);
                self.b.uint(w)
            }
            TypeData::Half => {
                self.b.capability(Capability::Float16);
                self.b.float(16)
            }
            TypeData::Float => self.b.f32(),
            TypeData::Double => {
                self.b.capability(Capability::Float64);
                self.b.float(64)
            }
            &TypeData::Vector { len, elem } => {
                if !(2..=4).contains(&len) {
                    return Err(
                        self.unsupported(Unsupported::ty(format!("vector of {len} elements")))
                    );
                }
                let e = self.ty(elem)?;
                self.b.vec(e, len)
            }
            &TypeData::Array { len, elem } => {
                let len = u32::try_from(len).ok().filter(|&l| l > 0).ok_or_else(|| {
                    self.unsupported(Unsupported::ty(format!("array of {len} elements")))
                })?;
                let e = self.ty(elem)?;
                self.b.ty(TypeKey::Array(e, len))
            }
            TypeData::Struct { elems, name, .. } => {
                if name.as_deref().is_some_and(|n| n.starts_with("dx.types.")) {
                    return Err(self.unsupported(Unsupported::ty(format!(
                        "`%{}` value as a first-class SPIR-V value",
                        name.as_deref().unwrap_or("")
                    ))));
                }
                let mut members = Vec::with_capacity(elems.len());
                for &e in elems {
                    members.push(self.ty(e)?);
                }
                self.b.struct_type(&members)
            }
            other => return Err(self.unsupported(Unsupported::ty(format!("type {other:?}")))),
        };
        if let Some(slot) = self.type_ids.get_mut(t.index()) {
            *slot = Some(id);
        }
        Ok(id)
    }

    pub fn int_caps(&mut self, w: u8) {
        match w {
            8 => self.b.capability(Capability::Int8),
            16 => self.b.capability(Capability::Int16),
            64 => self.b.capability(Capability::Int64),
            _ => {}
        }
    }

    /// Min-precision 16-bit types (`half`/`i16` of a module without native 16-bit types) are lowered as 32-bit
    /// types ([`crate::Requests::min_precision_32bit`]), as D3D lets min precision compute at higher precision.
    pub fn min32(&self) -> bool {
        !self.native16 && self.opts.requests.min_precision_32bit
    }

    /// Bits of the scalar of an LLVM scalar or vector type as lowered: 32 for min-precision 16-bit types lowered
    /// as 32-bit ([`Ctx::min32`]).
    pub fn bits(&self, t: TypeId) -> u32 {
        match self.m.types.scalar_bits(t) {
            16 if self.min32() => 32,
            w => w,
        }
    }

    /// Scalar class of an LLVM scalar or vector type.
    pub fn scalar_of(&self, t: TypeId) -> Option<Scalar> {
        let s = self.m.types.scalar_of(t);
        match self.m.types.data(s) {
            TypeData::Int(1) => Some(Scalar::Bool),
            TypeData::Int(16) if self.min32() => Some(Scalar::Int(32)),
            TypeData::Half if self.min32() => Some(Scalar::Float(32)),
            TypeData::Int(w) => Some(Scalar::Int(*w as u8)),
            TypeData::Half => Some(Scalar::Float(16)),
            TypeData::Float => Some(Scalar::Float(32)),
            TypeData::Double => Some(Scalar::Float(64)),
            _ => None,
        }
    }

    /// Number of vector components (1 for scalars).
    pub fn lanes(&self, t: TypeId) -> u32 {
        match self.m.types.data(t) {
            TypeData::Vector { len, .. } => *len,
            _ => 1,
        }
    }

    /// SPIR-V type for a scalar class with `lanes` components.
    pub fn scalar_ty(&mut self, s: Scalar, lanes: u32) -> Id {
        let e = match s {
            Scalar::Bool => self.b.bool(),
            Scalar::Int(w) => {
                self.int_caps(w);
                self.b.uint(w)
            }
            Scalar::Float(w) => {
                match w {
                    16 => self.b.capability(Capability::Float16),
                    64 => self.b.capability(Capability::Float64),
                    _ => {}
                }
                self.b.float(w)
            }
        };
        if lanes > 1 { self.b.vec(e, lanes) } else { e }
    }

    /// A constant of scalar class `s` (integer bits or float value as raw bits), splatted to `lanes`.
    pub fn const_scalar(&mut self, s: Scalar, lanes: u32, bits: u64) -> Id {
        let e = self.scalar_ty(s, 1);
        let c = match s {
            Scalar::Bool => self.b.const_bool(bits != 0),
            Scalar::Int(w) | Scalar::Float(w) => self.b.const_bits(e, w as u32, bits),
        };
        if lanes > 1 {
            let vt = self.b.vec(e, lanes);
            let parts = [c; 4];
            self.b
                .const_composite(vt, parts.get(..lanes as usize).unwrap_or(&parts))
        } else {
            c
        }
    }

    /// The bits of a constant of scalar type `t` as lowered: a min-precision `half` lowered as 32-bit becomes the
    /// `f32` of the same value (exact); integers keep their (sign-extended) bits, cut to the lowered width.
    fn lowered_bits(&self, t: TypeId, bits: u64) -> u64 {
        if self.min32() && matches!(self.m.types.data(self.m.types.scalar_of(t)), TypeData::Half) {
            f16_bits_to_f32(bits as u16).to_bits() as u64
        } else {
            bits
        }
    }

    /// Float constant of width `w` from an f64 value.
    pub fn const_float(&mut self, w: u8, lanes: u32, v: f64) -> Id {
        let bits = match w {
            16 => f32_to_f16_bits(v as f32) as u64,
            32 => (v as f32).to_bits() as u64,
            _ => v.to_bits(),
        };
        self.const_scalar(Scalar::Float(w), lanes, bits)
    }

    /// The SPIR-V id of an LLVM constant.
    pub fn constant(&mut self, c: ConstId) -> Result<Id, Error> {
        if let Some(&Some(id)) = self.const_ids.get(c.index()) {
            return Ok(id);
        }
        self.depth += 1;
        let r = if self.depth > 64 {
            Err(self.invalid(Invalid::ty("constant nested more than 64 deep")))
        } else {
            self.constant_uncached(c)
        };
        self.depth -= 1;
        r
    }

    fn constant_uncached(&mut self, c: ConstId) -> Result<Id, Error> {
        let m = self.m;
        let k = m.constants.get(c).ok_or_else(|| {
            self.invalid(Invalid::reference(format!(
                "constant {} does not exist",
                c.0
            )))
        })?;
        let ty = k.ty;
        let id = match &k.data {
            // Undefined values become zero: a valid refinement of `undef`, and deterministic.
            ConstData::Null | ConstData::Undef => match self.m.types.data(ty) {
                TypeData::Int(1) => self.b.const_bool(false),
                TypeData::Int(_) | TypeData::Half | TypeData::Float | TypeData::Double => {
                    let t = self.ty(ty)?;
                    let w = self.bits(ty);
                    self.b.const_bits(t, w, 0)
                }
                _ => {
                    let t = self.ty(ty)?;
                    self.b.const_null(t)
                }
            },
            &ConstData::Int(v) => match self.m.types.data(ty) {
                TypeData::Int(1) => self.b.const_bool(v & 1 != 0),
                TypeData::Int(_) => {
                    let w = self.bits(ty);
                    let t = self.ty(ty)?;
                    self.b.const_bits(t, w, v as u64)
                }
                _ => {
                    return Err(self.invalid(Invalid::ty("integer constant of a non-integer type")));
                }
            },
            &ConstData::Float(bits) => {
                let t = self.ty(ty)?;
                let w = self.bits(ty);
                self.b.const_bits(t, w, self.lowered_bits(ty, bits))
            }
            ConstData::Aggregate(r) => {
                let vals: Vec<Value> = m.constants.values_of(*r).to_vec();
                let t = self.ty(ty)?;
                let mut parts = Vec::with_capacity(vals.len());
                for v in vals {
                    let ValueRef::Const(e) = v.get() else {
                        return Err(self.unsupported(Unsupported::ty(
                            "aggregate constant with a non-constant element",
                        )));
                    };
                    parts.push(self.constant(e)?);
                }
                if parts.len() > 65_000 {
                    return Err(Limit::ConstantElements(parts.len()).into());
                }
                self.b.const_composite(t, &parts)
            }
            ConstData::Data(r) => {
                let words: Vec<u64> = m.constants.words_of(*r).to_vec();
                let t = self.ty(ty)?;
                let elem = match self.m.types.data(ty) {
                    TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => *elem,
                    _ => {
                        return Err(
                            self.invalid(Invalid::ty("data constant of a non-sequence type"))
                        );
                    }
                };
                let et = self.ty(elem)?;
                let w = self.bits(elem);
                let is_bool = matches!(self.m.types.data(elem), TypeData::Int(1));
                if words.len() > 65_000 {
                    return Err(Limit::ConstantElements(words.len()).into());
                }
                let mut parts = Vec::with_capacity(words.len());
                for bits in words {
                    parts.push(if is_bool {
                        self.b.const_bool(bits & 1 != 0)
                    } else {
                        let bits = self.lowered_bits(elem, bits);
                        self.b.const_bits(et, w, bits)
                    });
                }
                self.b.const_composite(t, &parts)
            }
            ConstData::String(r) | ConstData::CString(r) => {
                let bytes: Vec<u8> = m.constants.bytes_of(*r).to_vec();
                let t = self.ty(ty)?;
                let elem = self.m.types.scalar_of(match self.m.types.data(ty) {
                    TypeData::Array { elem, .. } => *elem,
                    _ => ty,
                });
                let et = self.ty(elem)?;
                let mut parts: Vec<Id> = bytes
                    .iter()
                    .map(|&x| self.b.const_bits(et, 8, x as u64))
                    .collect();
                if matches!(k.data, ConstData::CString(_)) {
                    parts.push(self.b.const_bits(et, 8, 0));
                }
                self.b.const_composite(t, &parts)
            }
            other => {
                return Err(
                    self.unsupported(Unsupported::ty(format!("constant expression {other:?}")))
                );
            }
        };
        if let Some(slot) = self.const_ids.get_mut(c.index()) {
            *slot = Some(id);
        }
        Ok(id)
    }

    /// The SSA id of an operand in the current block (loading demoted values as needed).
    pub fn value(&mut self, v: Value) -> Result<Id, Error> {
        match v.get() {
            ValueRef::Const(c) => self.constant(c),
            ValueRef::Inst(i) => match self.inst_val(i)? {
                Val::Id(id) => Ok(id),
                other => Err(self.invalid(Invalid::ty(format!(
                    "instruction {} used as a plain value but lowers to {other:?}",
                    i.0
                )))),
            },
            ValueRef::Global(_) | ValueRef::Function(_) => Err(self.unsupported(
                Unsupported::Pointer("a global or function address used as a value"),
            )),
            ValueRef::Arg(_) => {
                Err(self.unsupported(Unsupported::instruction("function arguments")))
            }
            ValueRef::Metadata(_) | ValueRef::Unresolved(_) => {
                Err(self.invalid(Invalid::ty("metadata or unresolved value as an operand")))
            }
        }
    }

    /// The SSA id of an integer operand, or its value when it is a constant.
    pub fn value_u32(&mut self, v: Value) -> Result<(Id, Option<u32>), Error> {
        let id = self.value(v)?;
        Ok((id, self.const_int(v).map(|c| c as u32)))
    }

    /// `Op`, type and operand helper for a bitcast between same-width scalars (no-op when the types agree).
    pub fn bitcast(&mut self, to: Id, from_ty: Id, v: Id) -> Id {
        if to == from_ty {
            v
        } else {
            self.op1(Op::Bitcast, to, v)
        }
    }
}

/// IEEE half bits of an f32 (round to nearest even), for float constants made by the translator.
/// The `f32` of the same value as IEEE half bits `h` (every half is exact in `f32`).
pub(crate) fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    match exp {
        // Zero and subnormals: man · 2^-24.
        0 => sign * man as f32 * (1.0 / 16_777_216.0),
        0x1F => f32::from_bits(u32::from(h & 0x8000) << 16 | 0x7F80_0000 | man << 13),
        _ => f32::from_bits(u32::from(h & 0x8000) << 16 | (exp + 112) << 23 | man << 13),
    }
}

pub(crate) fn f32_to_f16_bits(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xFF) as i32;
    let man = x & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7C00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1FFF;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

#[cfg(test)]
mod tests {
    use super::f32_to_f16_bits;

    #[test]
    fn half_conversion() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3C00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xC000);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7BFF);
        assert_eq!(f32_to_f16_bits(1e6), 0x7C00);
        assert_eq!(f32_to_f16_bits(0.0), 0);
        assert_eq!(f32_to_f16_bits(5.960_464_5e-8), 1);
        assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7C00, 0x7C00);
    }
}
