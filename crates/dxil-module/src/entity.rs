//! Typed `u32` indices into the module's arenas.

/// Declares a `u32` newtype index with a fixed display prefix.
macro_rules! entity {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
            #[inline]
            pub fn from_index(i: usize) -> Self {
                $name(i as u32)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// A type in [`crate::Types`].
    TypeId,
    "type"
);
entity!(
    /// A constant in [`crate::Constants`].
    ConstId,
    "const"
);
entity!(
    /// A global variable of the module.
    GlobalId,
    "global"
);
entity!(
    /// A function (definition or declaration) of the module.
    FuncId,
    "func"
);
entity!(
    /// An instruction of one function body, in program order (void instructions included).
    InstId,
    "inst"
);
entity!(
    /// A basic block of one function body.
    BlockId,
    "block"
);
entity!(
    /// A metadata item (string, value or node) in file order.
    MdId,
    "md"
);
entity!(
    /// An attribute list (the bitcode's PARAMATTR entry), 0-based.
    AttrListId,
    "attrs"
);

/// A half-open range into one of the flat pools of a body or the module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct PoolRange {
    pub start: u32,
    pub len: u32,
}

impl PoolRange {
    pub const EMPTY: PoolRange = PoolRange { start: 0, len: 0 };

    #[inline]
    pub fn get<T>(self, pool: &[T]) -> &[T] {
        let s = self.start as usize;
        pool.get(s..s + self.len as usize).unwrap_or(&[])
    }

    /// Appends `items` to `pool` and returns their range.
    pub fn push<T: Copy>(pool: &mut Vec<T>, items: &[T]) -> PoolRange {
        let start = pool.len() as u32;
        pool.extend_from_slice(items);
        PoolRange {
            start,
            len: items.len() as u32,
        }
    }
}
