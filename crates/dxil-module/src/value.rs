//! Operand references, packed into one `u32`.
//!
//! DXIL functions are dominated by calls with many operands; a 4-byte operand keeps instruction
//! operand lists in flat `u32` pools without an enum per element.

use crate::entity::{ConstId, FuncId, GlobalId, InstId, MdId};

const TAG_BITS: u32 = 3;
const TAG_SHIFT: u32 = 32 - TAG_BITS;
const INDEX_MASK: u32 = (1 << TAG_SHIFT) - 1;

/// Largest index any value kind can carry (2^29 - 1); readers reject anything beyond.
pub const MAX_VALUE_INDEX: u32 = INDEX_MASK;

/// What a [`Value`] refers to.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ValueRef {
    /// The result of an instruction of the current function.
    Inst(InstId),
    /// An argument of the current function.
    Arg(u32),
    /// A constant in the module's constant pool.
    Const(ConstId),
    /// The address of a global variable.
    Global(GlobalId),
    /// The address of a function.
    Function(FuncId),
    /// Metadata used as a value (`metadata !3`), e.g. an argument of an intrinsic call.
    Metadata(MdId),
    /// A value number not yet resolved. Only readers produce it, transiently, for forward references;
    /// a finished module never contains one.
    Unresolved(u32),
}

/// A packed operand: 3 tag bits and a 29-bit index.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl Value {
    #[inline]
    const fn pack(tag: u32, index: u32) -> Value {
        Value((tag << TAG_SHIFT) | (index & INDEX_MASK))
    }
    #[inline]
    pub const fn inst(i: InstId) -> Value {
        Value::pack(0, i.0)
    }
    #[inline]
    pub const fn arg(i: u32) -> Value {
        Value::pack(1, i)
    }
    #[inline]
    pub const fn constant(c: ConstId) -> Value {
        Value::pack(2, c.0)
    }
    #[inline]
    pub const fn global(g: GlobalId) -> Value {
        Value::pack(3, g.0)
    }
    #[inline]
    pub const fn function(f: FuncId) -> Value {
        Value::pack(4, f.0)
    }
    #[inline]
    pub const fn metadata(m: MdId) -> Value {
        Value::pack(5, m.0)
    }
    #[inline]
    pub const fn unresolved(n: u32) -> Value {
        Value::pack(7, n)
    }

    #[inline]
    pub const fn index(self) -> u32 {
        self.0 & INDEX_MASK
    }

    #[inline]
    pub fn get(self) -> ValueRef {
        let i = self.index();
        match self.0 >> TAG_SHIFT {
            0 => ValueRef::Inst(InstId(i)),
            1 => ValueRef::Arg(i),
            2 => ValueRef::Const(ConstId(i)),
            3 => ValueRef::Global(GlobalId(i)),
            4 => ValueRef::Function(FuncId(i)),
            5 => ValueRef::Metadata(MdId(i)),
            _ => ValueRef::Unresolved(i),
        }
    }

    #[inline]
    pub fn as_const(self) -> Option<ConstId> {
        match self.get() {
            ValueRef::Const(c) => Some(c),
            _ => None,
        }
    }
    #[inline]
    pub fn as_inst(self) -> Option<InstId> {
        match self.get() {
            ValueRef::Inst(i) => Some(i),
            _ => None,
        }
    }
    #[inline]
    pub fn as_function(self) -> Option<FuncId> {
        match self.get() {
            ValueRef::Function(f) => Some(f),
            _ => None,
        }
    }
}

impl From<ValueRef> for Value {
    fn from(r: ValueRef) -> Value {
        match r {
            ValueRef::Inst(i) => Value::inst(i),
            ValueRef::Arg(a) => Value::arg(a),
            ValueRef::Const(c) => Value::constant(c),
            ValueRef::Global(g) => Value::global(g),
            ValueRef::Function(f) => Value::function(f),
            ValueRef::Metadata(m) => Value::metadata(m),
            ValueRef::Unresolved(n) => Value::unresolved(n),
        }
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get() {
            ValueRef::Inst(i) => write!(f, "{i}"),
            ValueRef::Arg(a) => write!(f, "arg{a}"),
            ValueRef::Const(c) => write!(f, "{c}"),
            ValueRef::Global(g) => write!(f, "{g}"),
            ValueRef::Function(x) => write!(f, "{x}"),
            ValueRef::Metadata(m) => write!(f, "{m}"),
            ValueRef::Unresolved(n) => write!(f, "unresolved{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trips_every_kind() {
        let cases = [
            ValueRef::Inst(InstId(0)),
            ValueRef::Inst(InstId(MAX_VALUE_INDEX)),
            ValueRef::Arg(7),
            ValueRef::Const(ConstId(12345)),
            ValueRef::Global(GlobalId(3)),
            ValueRef::Function(FuncId(9)),
            ValueRef::Metadata(MdId(44)),
            ValueRef::Unresolved(MAX_VALUE_INDEX),
        ];
        for c in cases {
            assert_eq!(Value::from(c).get(), c);
        }
    }
}
