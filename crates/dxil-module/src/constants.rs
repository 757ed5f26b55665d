//! The module-wide constant pool.
//!
//! LLVM uniques constants per context, and the bitcode only decides in which CONSTANTS block (module
//! or function) a constant is numbered. Readers therefore put every constant, module- or
//! function-level, into this one pool; writers decide where each goes.

// FxHash: the keys are small ids and type/constant contents built by this crate; SipHash's DoS
// resistance buys nothing here and showed in translation profiles.
use rustc_hash::FxHashMap as HashMap;

use crate::entity::{BlockId, ConstId, FuncId, PoolRange, TypeId};
use crate::inst::{BinOp, CastOp, Predicate};
use crate::value::Value;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstData {
    /// The zero value of any type (`zeroinitializer`, `null`, `0`, `0.0`, `false`).
    Null,
    Undef,
    /// An integer of up to 64 bits, sign-extended to `i64` (so `i1 true` is -1).
    Int(i64),
    /// An integer wider than 64 bits: little-endian 64-bit words in [`Constants::words`].
    WideInt(PoolRange),
    /// Raw IEEE bits of a half, float or double.
    Float(u64),
    /// Struct, array or vector elements (constants, globals or functions) in [`Constants::values`].
    Aggregate(PoolRange),
    /// A `ConstantDataArray/Vector` of integers or floats: raw element bits in [`Constants::words`].
    Data(PoolRange),
    /// An `i8` array given as bytes (`c"..."`), in [`Constants::bytes`]; `CString` has an implied NUL.
    String(PoolRange),
    CString(PoolRange),
    Cast {
        op: CastOp,
        value: Value,
    },
    Binary {
        op: BinOp,
        flags: u8,
        lhs: Value,
        rhs: Value,
    },
    Cmp {
        pred: Predicate,
        lhs: Value,
        rhs: Value,
    },
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
    },
    ExtractElement {
        vector: Value,
        index: Value,
    },
    InsertElement {
        vector: Value,
        element: Value,
        index: Value,
    },
    ShuffleVector {
        v1: Value,
        v2: Value,
        mask: Value,
    },
    /// `getelementptr` constant expression: base then indices in [`Constants::values`].
    Gep {
        inbounds: bool,
        source_ty: Option<TypeId>,
        operands: PoolRange,
    },
    BlockAddress {
        function: FuncId,
        block: BlockId,
    },
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Constant {
    pub ty: TypeId,
    pub data: ConstData,
}

/// Owned form of a constant, used as the interning key and by builders.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ConstKey {
    Plain(ConstData),
    Values(u8, Vec<Value>, Option<(bool, Option<TypeId>)>),
    Words(u8, Vec<u64>),
    Bytes(u8, Vec<u8>),
}

#[derive(Clone, Debug, Default)]
pub struct Constants {
    items: Vec<Constant>,
    pub values: Vec<Value>,
    pub words: Vec<u64>,
    pub bytes: Vec<u8>,
    index: Option<HashMap<(TypeId, ConstKey), ConstId>>,
    /// Constants that [`Constants::intern`] never returns (see [`Constants::push_unique`]).
    unique: Vec<ConstId>,
}

impl Constants {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    #[inline]
    pub fn get(&self, c: ConstId) -> Option<&Constant> {
        self.items.get(c.index())
    }

    pub fn iter(&self) -> impl Iterator<Item = (ConstId, &Constant)> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, c)| (ConstId(i as u32), c))
    }

    pub fn values_of(&self, r: PoolRange) -> &[Value] {
        r.get(&self.values)
    }

    pub fn words_of(&self, r: PoolRange) -> &[u64] {
        r.get(&self.words)
    }

    pub fn bytes_of(&self, r: PoolRange) -> &[u8] {
        r.get(&self.bytes)
    }

    /// Removes every constant, keeping the arenas' allocations (see `read::recycle`).
    pub(crate) fn clear_keeping_storage(&mut self) {
        let Constants {
            items,
            values,
            words,
            bytes,
            index,
            unique,
        } = self;
        crate::read::reset_arena(items);
        crate::read::reset_arena(values);
        crate::read::reset_arena(words);
        crate::read::reset_arena(bytes);
        *index = None;
        crate::read::reset_arena(unique);
    }

    /// Reserves room for `n` more constants.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }

    /// Appends a constant without deduplication (readers keep the file's constants as they are).
    pub fn push(&mut self, c: Constant) -> ConstId {
        let id = ConstId(self.items.len() as u32);
        if self.index.is_some() {
            let key = (c.ty, self.key_of(&c.data));
            if let Some(index) = &mut self.index {
                index.entry(key).or_insert(id);
            }
        }
        self.items.push(c);
        id
    }

    /// Appends a constant that interning never hands out, even for an equal value: a value
    /// meant to be rewritten later (a patchable specialization constant) must not stand in
    /// for an ordinary constant of the same value.
    pub fn push_unique(&mut self, c: Constant) -> ConstId {
        let id = ConstId(self.items.len() as u32);
        self.items.push(c);
        self.unique.push(id);
        id
    }

    /// Replaces a constant in place (readers patch forward references).
    pub fn set(&mut self, id: ConstId, c: Constant) {
        if let Some(slot) = self.items.get_mut(id.index()) {
            *slot = c;
            self.index = None;
        }
    }

    /// Mutable access for readers that patch forward references in bulk.
    pub(crate) fn items_and_values_mut(&mut self) -> (&mut [Constant], &mut [Value]) {
        self.index = None;
        (&mut self.items, &mut self.values)
    }

    fn key_of(&self, d: &ConstData) -> ConstKey {
        match d {
            ConstData::Aggregate(r) => ConstKey::Values(0, self.values_of(*r).to_vec(), None),
            ConstData::Gep {
                inbounds,
                source_ty,
                operands,
            } => ConstKey::Values(
                1,
                self.values_of(*operands).to_vec(),
                Some((*inbounds, *source_ty)),
            ),
            ConstData::WideInt(r) => ConstKey::Words(0, self.words_of(*r).to_vec()),
            ConstData::Data(r) => ConstKey::Words(1, self.words_of(*r).to_vec()),
            ConstData::String(r) => ConstKey::Bytes(0, self.bytes_of(*r).to_vec()),
            ConstData::CString(r) => ConstKey::Bytes(1, self.bytes_of(*r).to_vec()),
            other => ConstKey::Plain(other.clone()),
        }
    }

    /// The interning index over the constants so far.
    fn build_index(&self) -> HashMap<(TypeId, ConstKey), ConstId> {
        // A floor on the capacity: a module built from scratch starts interning with no
        // constants, and growing from nothing rehashes every few constants.
        let mut map =
            HashMap::with_capacity_and_hasher(self.items.len().max(64), Default::default());
        for (i, c) in self.items.iter().enumerate() {
            if self.unique.contains(&ConstId(i as u32)) {
                continue;
            }
            map.entry((c.ty, self.key_of(&c.data)))
                .or_insert(ConstId(i as u32));
        }
        map
    }

    /// Returns the id of an equal constant, adding it if needed. Pooled payloads are given
    /// through the `ConstKey` forms so that nothing is appended to the pools for a hit.
    pub fn intern(&mut self, ty: TypeId, key: ConstKey) -> ConstId {
        let mut index = match self.index.take() {
            Some(index) => index,
            None => self.build_index(),
        };
        let id = self.intern_in(&mut index, ty, key);
        self.index = Some(index);
        id
    }

    fn intern_in(
        &mut self,
        index: &mut HashMap<(TypeId, ConstKey), ConstId>,
        ty: TypeId,
        key: ConstKey,
    ) -> ConstId {
        let next = ConstId(self.items.len() as u32);
        // One lookup for a hit and a miss alike, and the key moves in instead of a copy.
        let e = match index.entry((ty, key)) {
            std::collections::hash_map::Entry::Occupied(e) => return *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => e,
        };
        let data = match &e.key().1 {
            ConstKey::Plain(d) => d.clone(),
            ConstKey::Values(0, v, _) => ConstData::Aggregate(PoolRange::push(&mut self.values, v)),
            ConstKey::Values(_, v, gep) => {
                let (inbounds, source_ty) = gep.unwrap_or((false, None));
                ConstData::Gep {
                    inbounds,
                    source_ty,
                    operands: PoolRange::push(&mut self.values, v),
                }
            }
            ConstKey::Words(0, w) => ConstData::WideInt(PoolRange::push(&mut self.words, w)),
            ConstKey::Words(_, w) => ConstData::Data(PoolRange::push(&mut self.words, w)),
            ConstKey::Bytes(0, b) => ConstData::String(PoolRange::push(&mut self.bytes, b)),
            ConstKey::Bytes(_, b) => ConstData::CString(PoolRange::push(&mut self.bytes, b)),
        };
        e.insert(next);
        self.items.push(Constant { ty, data });
        next
    }

    pub fn int(&mut self, ty: TypeId, v: i64) -> ConstId {
        if v == 0 {
            self.intern(ty, ConstKey::Plain(ConstData::Null))
        } else {
            self.intern(ty, ConstKey::Plain(ConstData::Int(v)))
        }
    }

    pub fn undef(&mut self, ty: TypeId) -> ConstId {
        self.intern(ty, ConstKey::Plain(ConstData::Undef))
    }

    /// The integer value of a constant (`Null` counts as 0), if it is an integer constant.
    #[inline]
    pub fn as_int(&self, c: ConstId) -> Option<i64> {
        match self.get(c)?.data {
            ConstData::Int(v) => Some(v),
            ConstData::Null => Some(0),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intern_finds_pooled_constants() {
        let mut c = Constants::default();
        let t = TypeId(0);
        let a = c.int(t, 5);
        let b = c.int(t, 5);
        assert_eq!(a, b);
        let z = c.int(t, 0);
        assert_eq!(c.as_int(z), Some(0));
        let agg = c.intern(
            TypeId(1),
            ConstKey::Values(0, vec![Value::constant(a), Value::constant(z)], None),
        );
        let pool_len = c.values.len();
        let agg2 = c.intern(
            TypeId(1),
            ConstKey::Values(0, vec![Value::constant(a), Value::constant(z)], None),
        );
        assert_eq!(agg, agg2);
        assert_eq!(c.values.len(), pool_len);
    }

    #[test]
    fn unique_constants_are_never_interned() {
        let mut c = Constants::default();
        let t = TypeId(0);
        let u = c.push_unique(Constant {
            ty: t,
            data: ConstData::Int(7),
        });
        let i = c.int(t, 7);
        assert_ne!(u, i);
        // Also when the index is built after the unique constant.
        let mut d = Constants::default();
        let u = d.push_unique(Constant {
            ty: t,
            data: ConstData::Int(9),
        });
        let i = d.int(t, 9);
        assert_ne!(u, i);
        assert_eq!(d.int(t, 9), i);
    }
}
