//! Canonical types and LLVM's type enumeration order.
//!
//! The module's type table may hold duplicates and types in any order (a text parser builds it
//! as it goes), so types are first re-interned as LLVM uniques them: identified structs by name,
//! everything else by structure. Ids of the output table are then handed out in the order
//! `ValueEnumerator::EnumerateType` reaches types: subtypes before the type, except that an
//! identified struct is marked as visited before its body so that recursive references through
//! pointers come out as forward references.

use std::collections::HashMap;

use crate::entity::TypeId;
use crate::types::{OtherFloatKind, TypeData};

use super::FxBuild;
use super::error::{Result, invalid, mismatch};

/// A canonical type node; children are node indices.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Node {
    Void,
    Half,
    Float,
    Double,
    Label,
    Metadata,
    Other(OtherFloatKind),
    Int(u32),
    Pointer(u32, u32),
    Array(u64, u32),
    Vector(u32, u32),
    /// A literal struct.
    Literal {
        packed: bool,
        elems: Vec<u32>,
    },
    /// An identified struct: unique by name; `body` is `None` while opaque.
    Named {
        name: String,
        packed: bool,
        body: Option<Vec<u32>>,
    },
    Function {
        vararg: bool,
        ret: u32,
        params: Vec<u32>,
    },
}

impl Node {
    fn child(&self, i: usize) -> Option<u32> {
        match self {
            Node::Pointer(p, _) => (i == 0).then_some(*p),
            Node::Array(_, e) | Node::Vector(_, e) => (i == 0).then_some(*e),
            Node::Literal { elems, .. } => elems.get(i).copied(),
            Node::Named { body, .. } => body.as_ref().and_then(|b| b.get(i).copied()),
            Node::Function { ret, params, .. } => {
                if i == 0 {
                    Some(*ret)
                } else {
                    params.get(i - 1).copied()
                }
            }
            _ => None,
        }
    }
}

const NONE: u32 = u32::MAX;
/// An identified struct whose enumeration has started (LLVM's `~0U` marker).
const VISITING: u32 = u32::MAX - 1;

/// Canonical type nodes, the model → node map, and the output enumeration.
pub(crate) struct TypeTable {
    pub nodes: Vec<Node>,
    index: HashMap<Node, u32, FxBuild>,
    named: HashMap<String, u32, FxBuild>,
    /// Model `TypeId` → node.
    model: Vec<u32>,
    /// Node → output type id (or `NONE` / `VISITING`).
    out_id: Vec<u32>,
    /// Output order: nodes by output id.
    pub order: Vec<u32>,
    stack: Vec<(u32, u32)>,
}

impl TypeTable {
    /// Canonicalizes every type of the module.
    pub fn new(types: &crate::types::Types) -> Result<TypeTable> {
        let n = types.len();
        let mut t = TypeTable {
            nodes: Vec::with_capacity(n + 2),
            index: HashMap::with_capacity_and_hasher(n + 2, FxBuild::default()),
            named: HashMap::default(),
            model: vec![NONE; n],
            out_id: Vec::new(),
            order: Vec::with_capacity(n + 2),
            stack: Vec::with_capacity(16),
        };
        // Identified structs first: they are the only nodes that can close a cycle, and giving
        // them a node up front lets everything else be interned bottom-up.
        for (id, d) in types.iter() {
            if let TypeData::Struct {
                name: Some(name),
                packed,
                ..
            } = d
            {
                let node = match t.named.get(name) {
                    Some(&node) => node,
                    None => {
                        let node = t.nodes.len() as u32;
                        t.nodes.push(Node::Named {
                            name: name.clone(),
                            packed: *packed,
                            body: None,
                        });
                        t.named.insert(name.clone(), node);
                        node
                    }
                };
                t.model[id.index()] = node;
            }
        }
        // Everything else, depth first with an explicit stack (input-driven depth).
        let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
        let mut stack: Vec<u32> = Vec::with_capacity(16);
        for root in 0..n as u32 {
            if t.model[root as usize] != NONE || state[root as usize] == 2 {
                continue;
            }
            stack.push(root);
            while let Some(&top) = stack.last() {
                let data = types
                    .get(TypeId(top))
                    .ok_or_else(|| invalid(format!("type id {top} out of range")))?;
                if state[top as usize] == 0 {
                    state[top as usize] = 1;
                    let mut pending = false;
                    for_each_model_child(data, |c| {
                        let ci = c.index();
                        if ci < n && t.model[ci] == NONE && state[ci] == 0 {
                            stack.push(c.0);
                            pending = true;
                        }
                    });
                    if pending {
                        continue;
                    }
                }
                stack.pop();
                if state[top as usize] == 2 {
                    continue;
                }
                let node = t.lower(data, top)?;
                t.model[top as usize] = t.intern(node);
                state[top as usize] = 2;
            }
        }
        // Struct bodies, now that every element has a node.
        for (id, d) in types.iter() {
            if let TypeData::Struct {
                name: Some(_),
                opaque,
                elems,
                ..
            } = d
            {
                let node = t.model[id.index()];
                let body = if *opaque {
                    None
                } else {
                    let mut b = Vec::with_capacity(elems.len());
                    for e in elems {
                        b.push(t.node_of(*e)?);
                    }
                    Some(b)
                };
                if let Some(Node::Named { body: slot, .. }) = t.nodes.get_mut(node as usize)
                    && slot.is_none()
                {
                    *slot = body;
                }
            }
        }
        t.out_id = vec![NONE; t.nodes.len()];
        Ok(t)
    }

    fn lower(&self, d: &TypeData, id: u32) -> Result<Node> {
        let c = |t: &TypeId| -> Result<u32> {
            match self.model.get(t.index()) {
                Some(&n) if n != NONE => Ok(n),
                Some(_) => Err(invalid(format!(
                    "type {id} is part of a cycle that does not pass through a named struct"
                ))),
                None => Err(invalid(format!(
                    "type {id} refers to type {} which does not exist",
                    t.0
                ))),
            }
        };
        Ok(match d {
            TypeData::Void => Node::Void,
            TypeData::Half => Node::Half,
            TypeData::Float => Node::Float,
            TypeData::Double => Node::Double,
            TypeData::Label => Node::Label,
            TypeData::Metadata => Node::Metadata,
            TypeData::OtherFloat(k) => Node::Other(*k),
            TypeData::Int(w) => {
                // LLVM's IntegerType::MAX_INT_BITS; also bounds what wide constants allocate.
                if !(1..=1 << 23).contains(w) {
                    return Err(mismatch(format!("type {id}: integer width {w}")));
                }
                Node::Int(*w)
            }
            TypeData::Pointer {
                pointee,
                address_space,
            } => Node::Pointer(c(pointee)?, *address_space),
            TypeData::Array { len, elem } => Node::Array(*len, c(elem)?),
            TypeData::Vector { len, elem } => Node::Vector(*len, c(elem)?),
            TypeData::Struct {
                name: None,
                packed,
                opaque,
                elems,
            } => {
                if *opaque {
                    return Err(mismatch(format!(
                        "type {id} is an opaque struct without a name"
                    )));
                }
                Node::Literal {
                    packed: *packed,
                    elems: elems.iter().map(c).collect::<Result<_>>()?,
                }
            }
            TypeData::Struct { name: Some(_), .. } => {
                return Err(invalid(format!("type {id}: named struct lowered twice")));
            }
            TypeData::Function {
                vararg,
                ret,
                params,
            } => Node::Function {
                vararg: *vararg,
                ret: c(ret)?,
                params: params.iter().map(c).collect::<Result<_>>()?,
            },
        })
    }

    /// Interns a node that is not an identified struct.
    pub fn intern(&mut self, node: Node) -> u32 {
        if let Some(&n) = self.index.get(&node) {
            return n;
        }
        let n = self.nodes.len() as u32;
        self.index.insert(node.clone(), n);
        self.nodes.push(node);
        if !self.out_id.is_empty() {
            self.out_id.push(NONE);
        }
        n
    }

    /// The node of a model type.
    #[inline]
    pub fn node_of(&self, t: TypeId) -> Result<u32> {
        match self.model.get(t.index()) {
            Some(&n) if n != NONE => Ok(n),
            _ => Err(invalid(format!("type id {} out of range", t.0))),
        }
    }

    #[inline]
    pub fn node(&self, n: u32) -> &Node {
        // Node ids only come from this table.
        self.nodes.get(n as usize).unwrap_or(&Node::Void)
    }

    /// `EnumerateType`: gives `root` (and whatever it contains) an output id.
    #[inline]
    pub fn enumerate(&mut self, root: u32) {
        // Asked for every operand and result: nearly always numbered already.
        if self.out_id.get(root as usize).is_none_or(|&id| id != NONE) {
            return;
        }
        self.enumerate_new(root);
    }

    #[inline(never)]
    fn enumerate_new(&mut self, root: u32) {
        if matches!(self.node(root), Node::Named { .. }) {
            self.out_id[root as usize] = VISITING;
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((root, 0));
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let child = self
                .nodes
                .get(node as usize)
                .and_then(|n| n.child(*next as usize));
            if let Some(c) = child {
                *next += 1;
                if self.out_id.get(c as usize).is_some_and(|&id| id == NONE) {
                    if matches!(self.node(c), Node::Named { .. }) {
                        self.out_id[c as usize] = VISITING;
                    }
                    stack.push((c, 0));
                }
                continue;
            }
            stack.pop();
            let id = self.out_id[node as usize];
            if id != NONE && id != VISITING {
                // Reached another way while its subtypes were enumerated.
                continue;
            }
            self.out_id[node as usize] = self.order.len() as u32;
            self.order.push(node);
        }
        self.stack = stack;
    }

    /// The output id of an enumerated node.
    #[inline]
    pub fn id(&self, node: u32) -> Result<u32> {
        match self.out_id.get(node as usize) {
            Some(&id) if id < VISITING => Ok(id),
            _ => Err(invalid(format!("type node {node} was not enumerated"))),
        }
    }

    /// Output id of a model type (which must have been enumerated).
    #[inline]
    pub fn id_of(&self, t: TypeId) -> Result<u32> {
        self.id(self.node_of(t)?)
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// The pointee of a pointer node.
    pub fn pointee(&self, n: u32) -> Option<u32> {
        match self.node(n) {
            Node::Pointer(p, _) => Some(*p),
            _ => None,
        }
    }

    pub fn is_void(&self, n: u32) -> bool {
        matches!(self.node(n), Node::Void)
    }
}

fn for_each_model_child(d: &TypeData, mut f: impl FnMut(TypeId)) {
    match d {
        TypeData::Pointer { pointee, .. } => f(*pointee),
        TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => f(*elem),
        TypeData::Struct {
            name: None, elems, ..
        } => elems.iter().for_each(|&e| f(e)),
        TypeData::Function { ret, params, .. } => {
            f(*ret);
            params.iter().for_each(|&p| f(p));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Types;

    #[test]
    fn duplicates_merge_and_recursive_structs_come_after_their_pointer() {
        let mut ty = Types::new();
        // %S = type { %S*, i32 }, listed before its parts; plus duplicate i32 and S*.
        let s = ty.push(TypeData::Struct {
            name: Some("S".into()),
            packed: false,
            opaque: false,
            elems: vec![TypeId(1), TypeId(2)],
        });
        let ps = ty.push(TypeData::Pointer {
            pointee: s,
            address_space: 0,
        });
        let i32a = ty.push(TypeData::Int(32));
        let i32b = ty.push(TypeData::Int(32));
        let ps2 = ty.push(TypeData::Pointer {
            pointee: s,
            address_space: 0,
        });
        let mut t = TypeTable::new(&ty).unwrap();
        assert_eq!(t.node_of(i32a).unwrap(), t.node_of(i32b).unwrap());
        assert_eq!(t.node_of(ps).unwrap(), t.node_of(ps2).unwrap());
        t.enumerate(t.node_of(s).unwrap());
        // LLVM: S is marked, its body enumerates S* (whose pointee S is in progress), then i32,
        // then S itself.
        let order: Vec<&Node> = t.order.iter().map(|&n| t.node(n)).collect();
        assert!(matches!(order[0], Node::Pointer(..)));
        assert!(matches!(order[1], Node::Int(32)));
        assert!(matches!(order[2], Node::Named { .. }));
        assert_eq!(t.id_of(ps2).unwrap(), 0);
        assert_eq!(t.id_of(s).unwrap(), 2);
    }

    #[test]
    fn cycles_without_a_named_struct_are_errors() {
        let mut ty = Types::new();
        ty.push(TypeData::Pointer {
            pointee: TypeId(0),
            address_space: 0,
        });
        assert!(TypeTable::new(&ty).is_err());
        let mut ty = Types::new();
        ty.push(TypeData::Array {
            len: 1,
            elem: TypeId(7),
        });
        assert!(TypeTable::new(&ty).is_err());
    }
}
