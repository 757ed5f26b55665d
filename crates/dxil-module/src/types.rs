//! The type table: LLVM 3.7 types with typed pointers.

// FxHash: the keys are small ids and type/constant contents built by this crate; SipHash's DoS
// resistance buys nothing here and showed in translation profiles.
use rustc_hash::FxHashMap as HashMap;

use crate::entity::TypeId;

/// One LLVM 3.7 type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    Void,
    Half,
    Float,
    Double,
    Label,
    Metadata,
    /// `x86_fp80`, `fp128`, `ppc_fp128`, `x86_mmx`: never in DXIL, kept so any 3.7 bitcode reads.
    OtherFloat(OtherFloatKind),
    Int(u32),
    Pointer {
        pointee: TypeId,
        address_space: u32,
    },
    Array {
        len: u64,
        elem: TypeId,
    },
    Vector {
        len: u32,
        elem: TypeId,
    },
    /// A literal (anonymous) or identified (named) structure. An identified struct with
    /// `opaque = true` has no body.
    Struct {
        name: Option<String>,
        packed: bool,
        opaque: bool,
        elems: Vec<TypeId>,
    },
    Function {
        vararg: bool,
        ret: TypeId,
        params: Vec<TypeId>,
    },
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum OtherFloatKind {
    X86Fp80,
    Fp128,
    PpcFp128,
    X86Mmx,
}

/// The module's types, in bitcode table order for read modules.
///
/// Identified structs are unique by name; every other type is unique by structure. The interning
/// index is built lazily, so reading (which never interns) pays nothing for it.
#[derive(Clone, Debug, Default)]
pub struct Types {
    data: Vec<TypeData>,
    index: Option<HashMap<TypeData, TypeId>>,
}

/// The least capacity of an interning index.
const MIN_INDEX_CAPACITY: usize = 64;

impl Types {
    pub fn new() -> Types {
        Types::default()
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    #[inline]
    pub fn get(&self, t: TypeId) -> Option<&TypeData> {
        self.data.get(t.index())
    }

    /// The type, or `Void` for an id that is out of range (ids in a finished module are always valid).
    #[inline]
    pub fn data(&self, t: TypeId) -> &TypeData {
        self.data.get(t.index()).unwrap_or(&TypeData::Void)
    }

    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &TypeData)> {
        self.data
            .iter()
            .enumerate()
            .map(|(i, d)| (TypeId(i as u32), d))
    }

    /// Makes room for `n` more types (readers size the table from its declared entry count).
    pub fn reserve(&mut self, n: usize) {
        self.data.reserve(n);
    }

    /// Removes every type, handing each to `spare` first (to take its storage), and keeps the table's
    /// allocation (see `read::recycle`).
    pub(crate) fn take_apart(&mut self, spare: impl FnMut(&mut TypeData)) {
        self.data.iter_mut().for_each(spare);
        crate::read::reset_arena(&mut self.data);
        self.index = None;
    }

    /// Appends a type without deduplication (readers keep the file's table as it is).
    pub fn push(&mut self, data: TypeData) -> TypeId {
        let id = TypeId(self.data.len() as u32);
        if let Some(index) = &mut self.index {
            index.entry(data.clone()).or_insert(id);
        }
        self.data.push(data);
        id
    }

    /// Replaces a type in place (used to fill in a forward-declared struct's body).
    pub fn set(&mut self, t: TypeId, data: TypeData) {
        if let Some(slot) = self.data.get_mut(t.index()) {
            *slot = data;
            self.index = None;
        }
    }

    /// Returns the id of an equal type, adding it if needed.
    pub fn intern(&mut self, data: TypeData) -> TypeId {
        let next = TypeId(self.data.len() as u32);
        let types = &mut self.data;
        let index = self.index.get_or_insert_with(|| {
            // A floor on the capacity: a module built from scratch starts interning with no
            // types, and growing from nothing rehashes every few types.
            let mut map = HashMap::with_capacity_and_hasher(
                types.len().max(MIN_INDEX_CAPACITY),
                Default::default(),
            );
            for (i, d) in types.iter().enumerate() {
                map.entry(d.clone()).or_insert(TypeId(i as u32));
            }
            map
        });
        // One lookup for a hit and a miss alike (the entry keeps the hash).
        match index.entry(data) {
            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => {
                types.push(e.key().clone());
                e.insert(next);
                next
            }
        }
    }

    pub fn find_struct(&self, name: &str) -> Option<TypeId> {
        self.iter().find_map(|(id, d)| match d {
            TypeData::Struct { name: Some(n), .. } if n == name => Some(id),
            _ => None,
        })
    }

    pub fn pointer_to(&mut self, pointee: TypeId, address_space: u32) -> TypeId {
        self.intern(TypeData::Pointer {
            pointee,
            address_space,
        })
    }

    pub fn int(&mut self, bits: u32) -> TypeId {
        self.intern(TypeData::Int(bits))
    }

    /// Integer width, if `t` is an integer type.
    pub fn int_width(&self, t: TypeId) -> Option<u32> {
        match self.data(t) {
            TypeData::Int(w) => Some(*w),
            _ => None,
        }
    }

    pub fn is_void(&self, t: TypeId) -> bool {
        matches!(self.data(t), TypeData::Void)
    }

    pub fn is_float(&self, t: TypeId) -> bool {
        matches!(
            self.data(t),
            TypeData::Half | TypeData::Float | TypeData::Double | TypeData::OtherFloat(_)
        )
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self, t: TypeId) -> Option<TypeId> {
        match self.data(t) {
            TypeData::Pointer { pointee, .. } => Some(*pointee),
            _ => None,
        }
    }

    /// Element type of an array or vector, or the scalar itself.
    pub fn scalar_of(&self, t: TypeId) -> TypeId {
        match self.data(t) {
            TypeData::Vector { elem, .. } => *elem,
            _ => t,
        }
    }

    /// The function type's return type and parameters.
    pub fn function_signature(&self, t: TypeId) -> Option<(TypeId, &[TypeId], bool)> {
        match self.data(t) {
            TypeData::Function {
                vararg,
                ret,
                params,
            } => Some((*ret, params, *vararg)),
            _ => None,
        }
    }

    /// The type reached by indexing an aggregate with a constant index (struct field, array or
    /// vector element).
    pub fn element_at(&self, t: TypeId, index: u64) -> Option<TypeId> {
        match self.data(t) {
            TypeData::Struct { elems, .. } => elems.get(usize::try_from(index).ok()?).copied(),
            TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => Some(*elem),
            _ => None,
        }
    }

    /// Size in bits of a first-class scalar, or 0.
    pub fn scalar_bits(&self, t: TypeId) -> u32 {
        match self.data(t) {
            TypeData::Int(w) => *w,
            TypeData::Half => 16,
            TypeData::Float => 32,
            TypeData::Double => 64,
            TypeData::Pointer { .. } => 32,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intern_deduplicates_structurally_but_push_does_not() {
        let mut t = Types::new();
        let a = t.push(TypeData::Int(32));
        let b = t.push(TypeData::Int(32));
        assert_ne!(a, b);
        assert_eq!(t.intern(TypeData::Int(32)), a);
        let p = t.pointer_to(a, 0);
        assert_eq!(t.pointer_to(a, 0), p);
        assert_eq!(t.pointee(p), Some(a));
        let f = t.intern(TypeData::Float);
        assert!(t.is_float(f));
        assert_eq!(t.scalar_bits(f), 32);
    }
}
