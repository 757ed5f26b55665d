//! Allocation sizes of types under the module's data layout, LLVM 3.7's rules: what DXC adds up
//! for the groupshared byte counts of PSV0 (`DataLayout::getTypeAllocSize`).

use std::collections::{BTreeMap, HashMap};

use dxil_module::{Module, TypeData, TypeId};

/// Deepest type nesting followed; DXIL types are a few levels deep, and a deeper (or cyclic)
/// type in a malformed module is refused rather than followed. The depth bound alone does not
/// bound the work: a struct whose elements repeat one struct type, nested, would be visited
/// exponentially often, so sizes are also memoized per type ([`Sizes`]).
const MAX_DEPTH: u32 = 32;

/// The alignment rules of a data layout string (`e-m:e-p:32:32-i1:32-...`), in bytes.
#[derive(Clone, Debug)]
pub(crate) struct DataLayout {
    /// bits → ABI alignment of integer types. Maps, not sorted vectors: a hostile layout string
    /// can hold as many entries as it has bytes, and inserting into a vector is linear.
    ints: BTreeMap<u32, u64>,
    /// bits → ABI alignment of floating-point types.
    floats: BTreeMap<u32, u64>,
    /// bits → ABI alignment of vector types.
    vectors: BTreeMap<u32, u64>,
    aggregate: u64,
    pointer_bytes: u64,
    pointer_align: u64,
}

impl DataLayout {
    /// LLVM 3.7's defaults, overridden by the entries of `spec`; entries this does not need
    /// (endianness, mangling, native widths, stack alignment) and malformed ones are skipped.
    pub(crate) fn parse(spec: &str) -> DataLayout {
        let mut dl = DataLayout {
            ints: BTreeMap::from([(1, 1), (8, 1), (16, 2), (32, 4), (64, 4)]),
            floats: BTreeMap::from([(16, 2), (32, 4), (64, 8), (128, 16)]),
            vectors: BTreeMap::from([(64, 8), (128, 16)]),
            aggregate: 0,
            pointer_bytes: 8,
            pointer_align: 8,
        };
        for item in spec.split('-') {
            let mut fields = item.split(':');
            let head = fields.next().unwrap_or("");
            let nums: Vec<u64> = fields.map_while(|f| f.parse().ok()).collect();
            let Some((kind, size)) = head.split_at_checked(1) else {
                continue;
            };
            let bits = size.parse::<u32>().ok();
            let abi = nums.first().map(|a| a / 8);
            match (kind, bits, abi) {
                ("i", Some(bits), Some(abi)) => set(&mut dl.ints, bits, abi),
                ("f", Some(bits), Some(abi)) => set(&mut dl.floats, bits, abi),
                ("v", Some(bits), Some(abi)) => set(&mut dl.vectors, bits, abi),
                ("a", _, Some(abi)) => dl.aggregate = abi,
                // `p[n]:size:abi`: only address space 0 sizes pointers here.
                ("p", None | Some(0), Some(size)) => {
                    dl.pointer_bytes = size;
                    dl.pointer_align = nums.get(1).map_or(size, |a| a / 8);
                }
                _ => {}
            }
        }
        dl
    }

    /// `getTypeAllocSize`: the bytes an object of type `t` occupies in an array. `None` for
    /// types without a size (void, functions, opaque structs) or nested deeper than the limit.
    /// `sizes` carries the sizes already computed (start with [`Sizes::default`]); sharing it
    /// between calls on one module makes each type cost one visit.
    pub(crate) fn alloc_size(&self, m: &Module, t: TypeId, sizes: &mut Sizes) -> Option<u64> {
        self.size_align(m, t, 0, sizes)
            .map(|(size, align)| round_up(size, align))
    }

    /// (store size, ABI alignment) of `t`.
    fn size_align(
        &self,
        m: &Module,
        t: TypeId,
        depth: u32,
        sizes: &mut Sizes,
    ) -> Option<(u64, u64)> {
        if let Some(&known) = sizes.0.get(&t) {
            return Some(known);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        // Only successes are remembered: a failure ends the whole computation (every caller
        // propagates `None`), so a failed type is never asked for twice.
        let result = self.size_align_uncached(m, t, depth, sizes)?;
        sizes.0.insert(t, result);
        Some(result)
    }

    fn size_align_uncached(
        &self,
        m: &Module,
        t: TypeId,
        depth: u32,
        sizes: &mut Sizes,
    ) -> Option<(u64, u64)> {
        let scalar = |table: &BTreeMap<u32, u64>, bits: u32| {
            (u64::from(bits).div_ceil(8), lookup_int(table, bits))
        };
        Some(match m.types.get(t)? {
            TypeData::Int(bits) => scalar(&self.ints, *bits),
            TypeData::Half => (2, lookup_exact(&self.floats, 16)?),
            TypeData::Float => (4, lookup_exact(&self.floats, 32)?),
            TypeData::Double => (8, lookup_exact(&self.floats, 64)?),
            TypeData::Pointer { .. } => (self.pointer_bytes, self.pointer_align.max(1)),
            TypeData::Array { len, elem } => {
                let (size, align) = self.size_align(m, *elem, depth + 1, sizes)?;
                (round_up(size, align).checked_mul(*len)?, align)
            }
            TypeData::Vector { len, elem } => {
                let (elem_size, elem_align) = self.size_align(m, *elem, depth + 1, sizes)?;
                let bits =
                    u32::try_from(elem_size.checked_mul(8)?.checked_mul(u64::from(*len))?).ok()?;
                let align = match lookup_exact(&self.vectors, bits) {
                    Some(a) => a,
                    // No entry: the vector's allocation size, rounded up to a power of two.
                    None => round_up(elem_size, elem_align)
                        .checked_mul(u64::from(*len))?
                        .checked_next_power_of_two()?,
                };
                (u64::from(bits).div_ceil(8), align.max(1))
            }
            TypeData::Struct {
                packed,
                opaque: false,
                elems,
                ..
            } => {
                let mut offset = 0u64;
                let mut align = 1u64;
                for &e in elems {
                    let (size, a) = self.size_align(m, e, depth + 1, sizes)?;
                    let a = if *packed { 1 } else { a };
                    offset = round_up(offset, a).checked_add(round_up(size, a))?;
                    align = align.max(a);
                }
                let align = if *packed {
                    1
                } else {
                    align.max(self.aggregate)
                };
                (round_up(offset, align), align)
            }
            _ => return None,
        })
    }
}

/// (store size, ABI alignment) of the types sized so far, for one module and data layout.
#[derive(Default)]
pub(crate) struct Sizes(HashMap<TypeId, (u64, u64)>);

fn set(table: &mut BTreeMap<u32, u64>, bits: u32, align: u64) {
    // An alignment of 0 bytes (from a malformed entry) would make sizes meaningless.
    table.insert(bits, align.max(1));
}

fn lookup_exact(table: &BTreeMap<u32, u64>, bits: u32) -> Option<u64> {
    table.get(&bits).copied()
}

/// LLVM's integer rule: the exact width, else the smallest wider entry, else the widest.
fn lookup_int(table: &BTreeMap<u32, u64>, bits: u32) -> u64 {
    table
        .range(bits..)
        .next()
        .or(table.last_key_value())
        .map_or(1, |e| *e.1)
}

fn round_up(v: u64, align: u64) -> u64 {
    v.div_ceil(align.max(1)).saturating_mul(align.max(1))
}

/// Bytes of all groupshared (address space 3) globals, which DXC reports in PSV0.
pub(crate) fn group_shared_bytes(m: &Module) -> u32 {
    let dl = DataLayout::parse(&m.datalayout);
    let mut sizes = Sizes::default();
    let total: u64 = m
        .globals
        .iter()
        .filter(|g| g.address_space == 3)
        .filter_map(|g| dl.alloc_size(m, g.value_ty, &mut sizes))
        .fold(0u64, u64::saturating_add);
    u32::try_from(total).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DXIL_LAYOUT: &str =
        "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";
    const NATIVE_16: &str =
        "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

    #[test]
    fn dxil_layouts() {
        let mut m = Module::default();
        let i16 = m.types.int(16);
        let f64 = m.types.intern(TypeData::Double);
        let f32 = m.types.intern(TypeData::Float);
        let arr = m.types.intern(TypeData::Array { len: 7, elem: f32 });
        let v3 = m.types.intern(TypeData::Vector { len: 3, elem: f32 });
        let st = m.types.intern(TypeData::Struct {
            name: None,
            packed: false,
            opaque: false,
            elems: vec![i16, f64, i16],
        });
        let dl = DataLayout::parse(DXIL_LAYOUT);
        assert_eq!(dl.alloc_size(&m, i16, &mut Sizes::default()), Some(4));
        assert_eq!(dl.alloc_size(&m, arr, &mut Sizes::default()), Some(28));
        assert_eq!(dl.alloc_size(&m, v3, &mut Sizes::default()), Some(16));
        assert_eq!(dl.alloc_size(&m, st, &mut Sizes::default()), Some(24));
        let dl = DataLayout::parse(NATIVE_16);
        assert_eq!(dl.alloc_size(&m, i16, &mut Sizes::default()), Some(2));
        assert_eq!(dl.alloc_size(&m, st, &mut Sizes::default()), Some(24));
        let arr16 = m.types.intern(TypeData::Array { len: 5, elem: i16 });
        assert_eq!(dl.alloc_size(&m, arr16, &mut Sizes::default()), Some(10));
        let void = m.types.intern(TypeData::Void);
        assert_eq!(dl.alloc_size(&m, void, &mut Sizes::default()), None);
    }

    #[test]
    fn repeated_nested_structs_are_sized_once_per_type() {
        // 30 levels of `{T, T, T, T}`: 4^30 visits without memoization (this test would not
        // finish), 31 with it.
        let mut m = Module::default();
        let mut t = m.types.int(32);
        for _ in 0..30 {
            t = m.types.intern(TypeData::Struct {
                name: None,
                packed: false,
                opaque: false,
                elems: vec![t; 4],
            });
        }
        let dl = DataLayout::parse(DXIL_LAYOUT);
        assert_eq!(dl.alloc_size(&m, t, &mut Sizes::default()), Some(1 << 62));
    }

    #[test]
    fn long_layout_strings_parse_in_linear_time() {
        // 200k distinct integer widths, inserted in descending order: each insertion into a
        // sorted vector moved every entry after it (quadratic).
        let spec: String = (1..=200_000u32)
            .rev()
            .map(|bits| format!("i{bits}:16-"))
            .collect();
        let dl = DataLayout::parse(&spec);
        assert_eq!(lookup_int(&dl.ints, 3), 2);
        assert_eq!(lookup_int(&dl.ints, 300_000), 2);
        // A zero alignment reads as 1.
        let dl = DataLayout::parse("i32:0");
        assert_eq!(lookup_int(&dl.ints, 32), 1);
    }
}
