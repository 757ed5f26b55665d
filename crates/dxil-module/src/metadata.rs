//! Metadata: strings, values, nodes, named metadata and kinds, as LLVM 3.7 stores them.

use crate::entity::{MdId, PoolRange, TypeId};
use crate::value::Value;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum MdData {
    /// `!"..."`: bytes in [`Metadata::bytes`].
    String(PoolRange),
    /// A constant, global or function wrapped as metadata (`i32 4`, `void ()* @main`).
    Value { ty: TypeId, value: Value },
    /// `!{...}` / `distinct !{...}`: operands in [`Metadata::operands`], each `0` for null or
    /// metadata id + 1.
    Node { distinct: bool, operands: PoolRange },
    /// Any other metadata record (debug info, locations): the record code and its raw operands
    /// in [`Metadata::raw`]. Kept so that files with such records still read and round-trip.
    Other { code: u32, operands: PoolRange },
}

/// `!name = !{!1, !2}`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NamedMd {
    /// Borrowed from [`KNOWN_NAMED`] when it is one of them (every DXC module names the same
    /// few lists; sharing the names saves an allocation and a free per list).
    pub name: std::borrow::Cow<'static, str>,
    /// Operands in [`Metadata::named_ops`] (a range, not a list of its own: a module has
    /// a handful of named lists, and one pool saves an allocation and a free for each).
    pub operands: PoolRange,
}

/// Named metadata DXC writes into (nearly) every module.
pub const KNOWN_NAMED: [&str; 11] = [
    "llvm.ident",
    "dx.version",
    "dx.valver",
    "dx.shaderModel",
    "dx.entryPoints",
    "dx.resources",
    "dx.viewIdState",
    "dx.typeAnnotations",
    "dx.dxrPayloadAnnotations",
    "dx.targetTypes",
    "dx.source.contents",
];

impl NamedMd {
    /// The name as the file spells it, shared with [`KNOWN_NAMED`] when possible.
    pub fn name_from_bytes(name: &[u8]) -> std::borrow::Cow<'static, str> {
        match KNOWN_NAMED.iter().find(|k| k.as_bytes() == name) {
            Some(k) => std::borrow::Cow::Borrowed(*k),
            None => std::borrow::Cow::Owned(String::from_utf8_lossy(name).into_owned()),
        }
    }
}

/// A metadata kind (`!dx.precise`), with the id this file gives it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MdKind {
    pub id: u32,
    /// Borrowed from [`KNOWN_KINDS`] when it is one of them (every DXC module registers the same
    /// few dozen kinds; sharing them keeps reading allocation-free for them).
    pub name: std::borrow::Cow<'static, str>,
}

/// Kinds every LLVM 3.7 context registers, with ids 0..13 in this order (a file's kind table
/// may number them differently; printers and writers map them back to these).
pub const LLVM_FIXED_KINDS: [&str; 14] = [
    "dbg",
    "tbaa",
    "prof",
    "fpmath",
    "range",
    "tbaa.struct",
    "invariant.load",
    "alias.scope",
    "noalias",
    "nontemporal",
    "llvm.mem.parallel_loop_access",
    "nonnull",
    "dereferenceable",
    "dereferenceable_or_null",
];

/// Kinds LLVM 3.7 registers in every context, followed by the ones DXC adds.
pub const KNOWN_KINDS: &[&str] = &concat_kinds::<14, 10, 24>(
    LLVM_FIXED_KINDS,
    [
        "dx.hl.resource.attribute",
        "dx.controlflow.hints",
        "dx.precise",
        "dx.nonuniform",
        "dx.temp",
        "dx.dbg.varlayout",
        "llvm.loop",
        "dx.ishelper",
        "dx.resourceAccess",
        "dx.isPreciseAtSpecDefinition",
    ],
);

/// `a` followed by `b`, for kind tables that extend the fixed ones.
pub(crate) const fn concat_kinds<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N);
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

impl MdKind {
    /// A kind, sharing the name with [`KNOWN_KINDS`] when possible.
    pub fn new(id: u32, name: &[u8]) -> MdKind {
        let name = match KNOWN_KINDS.iter().find(|k| k.as_bytes() == name) {
            Some(k) => std::borrow::Cow::Borrowed(*k),
            None => std::borrow::Cow::Owned(String::from_utf8_lossy(name).into_owned()),
        };
        MdKind { id, name }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Metadata {
    pub items: Vec<MdData>,
    pub bytes: Vec<u8>,
    pub operands: Vec<u32>,
    pub raw: Vec<u64>,
    pub named: Vec<NamedMd>,
    /// The operands of the named lists ([`NamedMd::operands`]).
    pub named_ops: Vec<MdId>,
    pub kinds: Vec<MdKind>,
}

impl Metadata {
    #[inline]
    pub fn get(&self, m: MdId) -> Option<&MdData> {
        self.items.get(m.index())
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn push(&mut self, d: MdData) -> MdId {
        let id = MdId(self.items.len() as u32);
        self.items.push(d);
        id
    }

    pub fn push_string(&mut self, s: &[u8]) -> MdId {
        let r = PoolRange::push(&mut self.bytes, s);
        self.push(MdData::String(r))
    }

    pub fn push_node(&mut self, distinct: bool, ops: &[Option<MdId>]) -> MdId {
        let start = self.operands.len() as u32;
        self.operands
            .extend(ops.iter().map(|o| o.map_or(0, |m| m.0 + 1)));
        self.push(MdData::Node {
            distinct,
            operands: PoolRange {
                start,
                len: ops.len() as u32,
            },
        })
    }

    /// The bytes of a string item.
    pub fn string(&self, m: MdId) -> Option<&[u8]> {
        match self.get(m)? {
            MdData::String(r) => Some(r.get(&self.bytes)),
            _ => None,
        }
    }

    /// The operands of a node (`None` = null operand); empty for anything else.
    pub fn node_operands(&self, m: MdId) -> impl ExactSizeIterator<Item = Option<MdId>> + '_ {
        let ops: &[u32] = match self.get(m) {
            Some(MdData::Node { operands, .. }) => operands.get(&self.operands),
            _ => &[],
        };
        ops.iter()
            .map(|&o| if o == 0 { None } else { Some(MdId(o - 1)) })
    }

    pub fn named(&self, name: &str) -> Option<&NamedMd> {
        self.named.iter().find(|n| n.name == name)
    }

    /// The operands of a named list.
    pub fn named_operands(&self, n: &NamedMd) -> &[MdId] {
        n.operands.get(&self.named_ops)
    }

    /// The operands of the named list `name`; empty when there is none.
    pub fn named_operands_of(&self, name: &str) -> &[MdId] {
        self.named(name).map_or(&[], |n| self.named_operands(n))
    }

    /// Appends a named list.
    pub fn push_named(&mut self, name: impl Into<std::borrow::Cow<'static, str>>, ops: &[MdId]) {
        let operands = PoolRange::push(&mut self.named_ops, ops);
        self.named.push(NamedMd {
            name: name.into(),
            operands,
        });
    }

    /// Appends `ops` to the named list `name`, creating it when missing (LLVM merges a name
    /// that a listing defines twice).
    pub fn extend_named(&mut self, name: &str, ops: &[MdId]) {
        let Some(i) = self.named.iter().position(|n| n.name == name) else {
            self.push_named(name.to_string(), ops);
            return;
        };
        // The list moves to the pool's end so that its operands stay one range.
        let old = self.named[i].operands;
        let start = self.named_ops.len();
        self.named_ops
            .extend_from_within(old.start as usize..(old.start + old.len) as usize);
        self.named_ops.extend_from_slice(ops);
        self.named[i].operands = PoolRange {
            start: start as u32,
            len: (self.named_ops.len() - start) as u32,
        };
    }

    /// Replaces the operands of named list `i` (tests and tools that edit a module).
    pub fn set_named_operands(&mut self, i: usize, ops: &[MdId]) {
        let r = PoolRange::push(&mut self.named_ops, ops);
        if let Some(n) = self.named.get_mut(i) {
            n.operands = r;
        }
    }

    pub fn kind_name(&self, id: u32) -> Option<&str> {
        self.kinds
            .iter()
            .find(|k| k.id == id)
            .map(|k| k.name.as_ref())
    }

    pub fn kind_id(&self, name: &str) -> Option<u32> {
        self.kinds.iter().find(|k| k.name == name).map(|k| k.id)
    }
}
