//! Canonical metadata: LLVM uniques strings by content, `ValueAsMetadata` by value and
//! non-distinct nodes by operands, so duplicates in the model collapse here before numbering.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::entity::{MdId, PoolRange};
use crate::metadata::{MdData, Metadata};
use crate::value::{Value, ValueRef};

use super::consts::ConstTable;
use super::error::{Result, invalid};
use super::{FxBuild, FxHasher};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NMd {
    /// Bytes in the model's metadata byte pool.
    String(PoolRange),
    /// A constant, global or function (canonical value).
    Value(Value),
    /// Operands in `ops`, each 0 (null) or representative + 1.
    Node { distinct: bool, ops: PoolRange },
    /// A function-local value (`LocalAsMetadata`): argument or instruction.
    Local(Value),
    /// A record this writer does not encode (debug info).
    Other(u32),
}

const NONE: u32 = u32::MAX;

pub(crate) struct MdTable {
    pub rep: Vec<u32>,
    pub norm: Vec<NMd>,
    pub ops: Vec<u32>,
    /// Whether any item is function-local ([`NMd::Local`]): without one, numbering a function
    /// need not look for them among the operands.
    pub has_local: bool,
}

impl MdTable {
    pub fn new(md: &Metadata, consts: &ConstTable) -> Result<MdTable> {
        let n = md.items.len();
        let mut t = MdTable {
            rep: vec![NONE; n],
            norm: vec![NMd::Other(0); n],
            ops: Vec::with_capacity(md.operands.len()),
            has_local: false,
        };
        let mut index: HashMap<u64, u32, FxBuild> =
            HashMap::with_capacity_and_hasher(n, FxBuild::default());
        let mut chain = vec![NONE; n];
        let mut state = vec![0u8; n];
        let mut forced = vec![false; n];
        let mut stack: Vec<u32> = Vec::with_capacity(16);
        for root in 0..n as u32 {
            if state[root as usize] == 2 {
                continue;
            }
            stack.push(root);
            while let Some(&x) = stack.last() {
                let xi = x as usize;
                let Some(item) = md.items.get(xi) else {
                    return Err(invalid(format!("metadata {x} out of range")));
                };
                if state[xi] == 0 {
                    state[xi] = 1;
                    let mut pending = false;
                    if let MdData::Node { operands, .. } = item {
                        for &o in operands.get(&md.operands) {
                            if o == 0 {
                                continue;
                            }
                            let c = (o - 1) as usize;
                            match state.get(c) {
                                Some(0) => {
                                    stack.push(o - 1);
                                    pending = true;
                                }
                                Some(1) => {
                                    // A cycle: the node on the stack keeps its identity.
                                    forced[c] = true;
                                    t.rep[c] = o - 1;
                                }
                                Some(_) => {}
                                None => {
                                    return Err(invalid(format!(
                                        "metadata {x} refers to metadata {c} which does not exist"
                                    )));
                                }
                            }
                        }
                    }
                    if pending {
                        continue;
                    }
                }
                stack.pop();
                if state[xi] == 2 {
                    continue;
                }
                state[xi] = 2;
                let (norm, mergeable) = match item {
                    MdData::String(r) => (NMd::String(*r), true),
                    MdData::Value { value, .. } => match value.get() {
                        ValueRef::Const(_) | ValueRef::Global(_) | ValueRef::Function(_) => {
                            (NMd::Value(consts.canon(*value)), true)
                        }
                        ValueRef::Arg(_) | ValueRef::Inst(_) => {
                            t.has_local = true;
                            (NMd::Local(*value), false)
                        }
                        _ => {
                            return Err(invalid(format!(
                                "metadata {x} wraps {value:?}, which is not a value"
                            )));
                        }
                    },
                    MdData::Node { distinct, operands } => {
                        let start = t.ops.len() as u32;
                        for &o in operands.get(&md.operands) {
                            let enc = if o == 0 {
                                0
                            } else {
                                match t.rep.get((o - 1) as usize) {
                                    Some(&r) if r != NONE => r + 1,
                                    _ => {
                                        return Err(invalid(format!(
                                            "metadata {x}: operand {} unresolved",
                                            o - 1
                                        )));
                                    }
                                }
                            };
                            t.ops.push(enc);
                        }
                        let r = PoolRange {
                            start,
                            len: operands.len,
                        };
                        (
                            NMd::Node {
                                distinct: *distinct,
                                ops: r,
                            },
                            !*distinct && !forced[xi],
                        )
                    }
                    MdData::Other { code, .. } => (NMd::Other(*code), false),
                };
                t.norm[xi] = norm;
                if !mergeable {
                    t.rep[xi] = x;
                    continue;
                }
                let h = t.hash_of(md, &norm);
                let mut found = NONE;
                let mut at = index.get(&h).copied().unwrap_or(NONE);
                while at != NONE {
                    if t.same(md, at, &norm) {
                        found = at;
                        break;
                    }
                    at = chain[at as usize];
                }
                if found != NONE {
                    t.rep[xi] = found;
                } else {
                    t.rep[xi] = x;
                    if let Some(head) = index.insert(h, x) {
                        chain[xi] = head;
                    }
                }
            }
        }
        Ok(t)
    }

    fn hash_of(&self, md: &Metadata, n: &NMd) -> u64 {
        let mut h = FxHasher::default();
        match *n {
            NMd::String(r) => {
                0u8.hash(&mut h);
                r.get(&md.bytes).hash(&mut h);
            }
            NMd::Value(v) => {
                1u8.hash(&mut h);
                v.hash(&mut h);
            }
            NMd::Node { ops, .. } => {
                2u8.hash(&mut h);
                ops.get(&self.ops).hash(&mut h);
            }
            NMd::Local(_) | NMd::Other(_) => 3u8.hash(&mut h),
        }
        h.finish()
    }

    fn same(&self, md: &Metadata, rep: u32, n: &NMd) -> bool {
        match (self.norm.get(rep as usize), n) {
            (Some(NMd::String(a)), NMd::String(b)) => a.get(&md.bytes) == b.get(&md.bytes),
            (Some(NMd::Value(a)), NMd::Value(b)) => a == b,
            (
                Some(NMd::Node {
                    distinct: false,
                    ops: a,
                }),
                NMd::Node {
                    distinct: false,
                    ops: b,
                },
            ) => a.get(&self.ops) == b.get(&self.ops),
            _ => false,
        }
    }

    #[inline]
    pub fn rep_of(&self, m: MdId) -> Result<u32> {
        match self.rep.get(m.index()) {
            Some(&r) if r != NONE => Ok(r),
            _ => Err(invalid(format!("metadata {} out of range", m.0))),
        }
    }

    #[inline]
    pub fn norm(&self, rep: u32) -> NMd {
        self.norm
            .get(rep as usize)
            .copied()
            .unwrap_or(NMd::Other(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Module;
    use crate::types::TypeData;

    #[test]
    fn uniqued_nodes_merge_distinct_and_cyclic_do_not() {
        let mut m = Module::default();
        m.types.push(TypeData::Int(32));
        let s1 = m.metadata.push_string(b"x");
        let s2 = m.metadata.push_string(b"x");
        let n1 = m.metadata.push_node(false, &[Some(s1), None]);
        let n2 = m.metadata.push_node(false, &[Some(s2), None]);
        let d1 = m.metadata.push_node(true, &[Some(s1)]);
        let d2 = m.metadata.push_node(true, &[Some(s1)]);
        // A self-referencing uniqued node (only possible through a cycle).
        let cyc = MdId(m.metadata.items.len() as u32);
        m.metadata.push_node(false, &[Some(cyc)]);
        let mut types = super::super::types::TypeTable::new(&m.types).unwrap();
        let consts = ConstTable::new(&m, &mut types, &[]).unwrap();
        let t = MdTable::new(&m.metadata, &consts).unwrap();
        assert_eq!(t.rep_of(s2).unwrap(), s1.0);
        assert_eq!(t.rep_of(n2).unwrap(), n1.0);
        assert_ne!(t.rep_of(d1).unwrap(), t.rep_of(d2).unwrap());
        assert_eq!(t.rep_of(cyc).unwrap(), cyc.0);
    }
}
