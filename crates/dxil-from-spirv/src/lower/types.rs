//! SPIR-V types as DXIL sees them: the flat list of scalars a value of the type holds
//! ("leaves": DXIL values are scalars, so a vector, matrix, array or struct value is a run of
//! scalars), and the number of memory slots the type takes in a local array.

use super::Tr;
use crate::builder::Scalar;
use crate::error::{Result, limit, malformed, unsupported};
use crate::spv::Type;

/// Most scalars one SSA value may hold; larger composites can live in memory but are never
/// loaded whole.
pub const MAX_LEAVES: u64 = 1 << 14;
/// Deepest type nesting followed.
pub const MAX_TYPE_DEPTH: u32 = 48;
/// Largest array length taken from a constant.
pub const MAX_ARRAY_LEN: u64 = 1 << 28;

/// Per-type caches, indexed by type id.
#[derive(Default)]
pub struct TypeCache {
    /// (start, len) into `leaf_pool`; `len == u32::MAX` = not computed.
    leaves: Vec<(u32, u32)>,
    pub leaf_pool: Vec<Scalar>,
    /// Slot counts in narrow (`.0`) and wide (`.1`) local arrays; `u64::MAX` = not computed.
    slots: Vec<(u64, u64)>,
}

impl TypeCache {
    pub fn new(bound: usize) -> TypeCache {
        TypeCache {
            leaves: vec![(0, u32::MAX); bound],
            leaf_pool: Vec::new(),
            slots: vec![(u64::MAX, u64::MAX); bound],
        }
    }
}

impl Tr<'_> {
    /// The DXIL scalar of a SPIR-V scalar type.
    pub fn scalar_kind(&self, ty: u32) -> Result<Scalar> {
        Ok(match self.spv.ty(ty)? {
            Type::Bool => Scalar::I1,
            Type::Int { width: 16, .. } => Scalar::I16,
            Type::Int { width: 32, .. } => Scalar::I32,
            Type::Int { width: 64, .. } => Scalar::I64,
            Type::Int { width: 8, .. } => {
                // Registers hold 8-bit values in `i32` (`value_kind`); this is the layout of
                // memory whose bytes other code reads.
                // (Buffers and push constants read and write bytes within their words, see
                // `int8`.)
                return Err(unsupported(
                    "8-bit integers in stage variables or atomics (DXIL has no 8-bit type)",
                ));
            }
            Type::Float { width: 16 } => Scalar::F16,
            Type::Float { width: 32 } => Scalar::F32,
            Type::Float { width: 64 } => Scalar::F64,
            t => return Err(malformed(format!("%{ty} ({t:?}) is not a scalar type"))),
        })
    }

    /// The DXIL scalar that holds a value of a SPIR-V scalar type in registers: as
    /// [`Tr::scalar_kind`], with 8-bit integers in `i32` (see `int8`).
    pub fn value_kind(&self, ty: u32) -> Result<Scalar> {
        match self.spv.ty(ty)? {
            Type::Int { width: 8, .. } => Ok(Scalar::I32),
            _ => self.scalar_kind(ty),
        }
    }

    /// Whether a SPIR-V scalar (or vector element) type is a signed integer.
    pub fn is_signed(&self, ty: u32) -> bool {
        match self.spv.ty(ty) {
            Ok(Type::Int { signed, .. }) => signed,
            Ok(Type::Vector { elem, .. }) => self.is_signed(elem),
            _ => false,
        }
    }

    /// The length of an `OpTypeArray`, from its (possibly specialization) constant.
    pub fn array_len(&self, len_id: u32) -> Result<u64> {
        let v = self.const_u64(len_id)?;
        if v == 0 || v > MAX_ARRAY_LEN {
            return Err(limit(format!("array length {v} (from %{len_id})")));
        }
        Ok(v)
    }

    /// The scalars of a value of type `ty`, in order.
    pub fn leaves(&mut self, ty: u32) -> Result<(u32, u32)> {
        match self.types.leaves.get(ty as usize) {
            Some(&(s, n)) if n != u32::MAX => return Ok((s, n)),
            Some(_) => {}
            None => return Err(malformed(format!("%{ty} is not a type"))),
        }
        let n = self.leaf_count(ty, 0)?;
        if n > MAX_LEAVES {
            return Err(limit(format!(
                "a value of type %{ty} holds {n} scalars (at most {MAX_LEAVES} are kept in registers)"
            )));
        }
        let start = self.types.leaf_pool.len() as u32;
        self.push_leaves(ty, 0)?;
        let len = self.types.leaf_pool.len() as u32 - start;
        self.types.leaves[ty as usize] = (start, len);
        Ok((start, len))
    }

    pub fn leaf_kinds(&mut self, ty: u32) -> Result<Vec<Scalar>> {
        let (s, n) = self.leaves(ty)?;
        Ok(self.types.leaf_pool[s as usize..(s + n) as usize].to_vec())
    }

    fn push_leaves(&mut self, ty: u32, depth: u32) -> Result<()> {
        if depth > MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        match self.spv.ty(ty)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                let s = self.value_kind(ty)?;
                self.types.leaf_pool.push(s);
            }
            // A ray query is the `i32` handle `AllocateRayQuery` returns.
            Type::RayQuery => self.types.leaf_pool.push(Scalar::I32),
            Type::Vector { elem, n } => {
                let s = self.value_kind(elem)?;
                for _ in 0..n {
                    self.types.leaf_pool.push(s);
                }
            }
            Type::Matrix { col, n } => {
                for _ in 0..n {
                    self.push_leaves(col, depth + 1)?;
                }
            }
            Type::Array { elem, len } => {
                let n = self.array_len(len)?;
                let start = self.types.leaf_pool.len();
                self.push_leaves(elem, depth + 1)?;
                let end = self.types.leaf_pool.len();
                for _ in 1..n {
                    self.types.leaf_pool.extend_from_within(start..end);
                }
            }
            Type::Struct { members } => {
                for i in 0..members.1 {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    self.push_leaves(m, depth + 1)?;
                }
            }
            t => return Err(type_error(&t, "in registers")),
        }
        Ok(())
    }

    /// Number of scalars of a type (saturating; no list is built).
    pub fn leaf_count(&self, ty: u32, depth: u32) -> Result<u64> {
        if depth > MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        Ok(match self.spv.ty(ty)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::RayQuery => 1,
            Type::Vector { n, .. } => u64::from(n),
            Type::Matrix { col, n } => u64::from(n) * self.leaf_count(col, depth + 1)?,
            Type::Array { elem, len } => self
                .array_len(len)?
                .saturating_mul(self.leaf_count(elem, depth + 1)?),
            Type::Struct { members } => {
                let mut total = 0u64;
                for i in 0..members.1 {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    total = total.saturating_add(self.leaf_count(m, depth + 1)?);
                }
                total
            }
            t => return Err(type_error(&t, "in registers")),
        })
    }

    /// The leaf index where member/element `index` of a composite of type `ty` starts, and
    /// the member's type.
    pub fn leaf_offset(&mut self, ty: u32, index: u32) -> Result<(u32, u32)> {
        Ok(match self.spv.ty(ty)? {
            Type::Vector { elem, n } => {
                if index >= u32::from(n) {
                    return Err(malformed(format!("component {index} of a {n}-vector")));
                }
                (index, elem)
            }
            Type::Matrix { col, n } => {
                if index >= u32::from(n) {
                    return Err(malformed(format!("column {index} of a {n}-column matrix")));
                }
                let per = self.leaves(col)?.1;
                (index * per, col)
            }
            Type::Array { elem, len } => {
                if u64::from(index) >= self.array_len(len)? {
                    return Err(malformed(format!("element {index} out of the array")));
                }
                let per = self.leaves(elem)?.1;
                (index * per, elem)
            }
            Type::Struct { members } => {
                if index >= members.1 {
                    return Err(malformed(format!(
                        "member {index} of a struct of {}",
                        members.1
                    )));
                }
                let mut off = 0;
                for i in 0..index {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    off += self.leaves(m)?.1;
                }
                (off, self.spv.type_lists[(members.0 + index) as usize])
            }
            t => {
                return Err(malformed(format!(
                    "indexing into a non-composite type ({})",
                    type_name(&t)
                )));
            }
        })
    }

    /// The number of slots a value of `ty` takes in a local array: one per scalar, two per
    /// 64-bit scalar when `wide` (an array of 32-bit words).
    pub fn slots(&mut self, ty: u32, wide: bool, depth: u32) -> Result<u64> {
        if let Some(&(narrow, w)) = self.types.slots.get(ty as usize) {
            let v = if wide { w } else { narrow };
            if v != u64::MAX {
                return Ok(v);
            }
        }
        if depth > MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        let v = match self.spv.ty(ty)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                let s = self.value_kind(ty)?;
                if wide && s.bits() == 64 { 2 } else { 1 }
            }
            Type::RayQuery => 1,
            Type::Vector { elem, n } => u64::from(n) * self.slots(elem, wide, depth + 1)?,
            Type::Matrix { col, n } => u64::from(n) * self.slots(col, wide, depth + 1)?,
            Type::Array { elem, len } => {
                self.array_len(len)?
                    .saturating_mul(self.slots(elem, wide, depth + 1)?)
            }
            Type::Struct { members } => {
                let mut total = 0u64;
                for i in 0..members.1 {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    total = total.saturating_add(self.slots(m, wide, depth + 1)?);
                }
                total
            }
            t => return Err(type_error(&t, "in variables")),
        };
        if let Some(e) = self.types.slots.get_mut(ty as usize) {
            if wide {
                e.1 = v;
            } else {
                e.0 = v;
            }
        }
        Ok(v)
    }

    /// The slot offset of member/element `index` of `ty` and the member's type.
    pub fn slot_offset(&mut self, ty: u32, index: u32, wide: bool) -> Result<(u64, u32)> {
        Ok(match self.spv.ty(ty)? {
            Type::Struct { members } => {
                if index >= members.1 {
                    return Err(malformed(format!(
                        "member {index} of a struct of {}",
                        members.1
                    )));
                }
                let mut off = 0;
                for i in 0..index {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    off += self.slots(m, wide, 0)?;
                }
                (off, self.spv.type_lists[(members.0 + index) as usize])
            }
            _ => {
                let elem = self.element_type(ty)?;
                (u64::from(index) * self.slots(elem, wide, 0)?, elem)
            }
        })
    }

    /// The element type of an array, runtime array, vector or matrix.
    pub fn element_type(&self, ty: u32) -> Result<u32> {
        Ok(match self.spv.ty(ty)? {
            Type::Vector { elem, .. } => elem,
            Type::Matrix { col, .. } => col,
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => elem,
            t => {
                return Err(malformed(format!(
                    "dynamic index into a non-array type ({})",
                    type_name(&t)
                )));
            }
        })
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, ptr_ty: u32) -> Result<(spirv::StorageClass, u32)> {
        match self.spv.ty(ptr_ty)? {
            Type::Pointer { class, pointee } => Ok((class, pointee)),
            t => Err(malformed(format!(
                "%{ptr_ty} ({}) is not a pointer type",
                type_name(&t)
            ))),
        }
    }
}

/// The error for a type a context cannot hold: pointers (buffer device addresses, variable
/// pointers) cannot be expressed in DXIL at all; other types are not supported there.
pub fn type_error(t: &Type, context: &str) -> crate::error::Error {
    match t {
        Type::Pointer { .. } => crate::error::inexpressible(format!(
            "pointers {context} (DXIL has no pointers into memory: buffer device addresses and variable pointers cannot be expressed)"
        )),
        _ => unsupported(format!("{} {context}", type_name(t))),
    }
}

/// A short name of a type for messages.
pub fn type_name(t: &Type) -> &'static str {
    match t {
        Type::None => "nothing",
        Type::Void => "void",
        Type::Bool => "bool",
        Type::Int { .. } => "integer",
        Type::Float { .. } => "float",
        Type::Vector { .. } => "vector",
        Type::Matrix { .. } => "matrix",
        Type::Array { .. } => "array",
        Type::RuntimeArray { .. } => "runtime array",
        Type::Struct { .. } => "struct",
        Type::Pointer { .. } => "pointer",
        Type::Function { .. } => "function",
        Type::Image(_) => "image",
        Type::Sampler => "sampler",
        Type::SampledImage { .. } => "sampled image",
        Type::AccelerationStructure => "acceleration structure",
        Type::RayQuery => "ray query",
        Type::Other(_) => "unsupported type",
    }
}
