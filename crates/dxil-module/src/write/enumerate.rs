//! LLVM 3.7's `ValueEnumerator`, recomputed from the module's content.
//!
//! The order in which LLVM meets types, values, metadata and attributes decides every id in the
//! file, so this follows `ValueEnumerator`'s walk step by step: globals, functions (with their
//! attribute lists), global initializers, the metadata type, named metadata, then per function
//! the operand types, result types, call attributes and attached metadata of every instruction,
//! and finally `OptimizeConstants` (a stable sort of the constants by type id and use count,
//! followed by the unstable `std::partition` that puts integers first). Per function body,
//! `incorporate` numbers arguments, the function's own constants (sorted the same way),
//! instructions and function-local metadata.

use std::collections::HashMap;

use crate::entity::{AttrListId, BlockId, ConstId, FuncId, GlobalId, MdId, TypeId};
use crate::inst::InstKind;
use crate::module::{Attribute, Body, Function, Module};
use crate::value::{Value, ValueRef};

use super::FxBuild;
use super::consts::{ConstTable, NConst};
use super::error::{Result, invalid, limit, mismatch, unsupported};
use super::mds::{MdTable, NMd};
use super::types::{Node, TypeTable};

pub(crate) const NONE: u32 = u32::MAX;
const VISITING: u32 = u32::MAX - 1;

/// An instruction operand in LLVM's operand order.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Operand {
    Value(Value),
    Block(BlockId),
}

/// Visits an instruction's operands in the order of LLVM's `User::operands()` (which is not the
/// record order: a store lists its value first, a call its callee last).
pub(crate) fn llvm_operands(kind: &InstKind, pool: &[u32], mut f: impl FnMut(Operand)) {
    use InstKind::*;
    let v = |x: &Value, f: &mut dyn FnMut(Operand)| f(Operand::Value(*x));
    let f: &mut dyn FnMut(Operand) = &mut f;
    match kind {
        Ret { value } => {
            if let Some(x) = value {
                v(x, f)
            }
        }
        Br { dest } => f(Operand::Block(*dest)),
        CondBr {
            cond,
            if_true,
            if_false,
        } => {
            v(cond, f);
            f(Operand::Block(*if_false));
            f(Operand::Block(*if_true));
        }
        Switch {
            cond,
            default,
            cases,
        } => {
            v(cond, f);
            f(Operand::Block(*default));
            for p in cases.get(pool).chunks_exact(2) {
                f(Operand::Value(Value(p[0])));
                f(Operand::Block(BlockId(p[1])));
            }
        }
        Unreachable | Fence { .. } => {}
        Binary { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => {
            v(lhs, f);
            v(rhs, f);
        }
        Cast { value, .. } => v(value, f),
        Select {
            cond,
            if_true,
            if_false,
        } => {
            v(cond, f);
            v(if_true, f);
            v(if_false, f);
        }
        ExtractElement { vector, index } => {
            v(vector, f);
            v(index, f);
        }
        InsertElement {
            vector,
            element,
            index,
        } => {
            v(vector, f);
            v(element, f);
            v(index, f);
        }
        ShuffleVector { v1, v2, mask } => {
            v(v1, f);
            v(v2, f);
            v(mask, f);
        }
        ExtractValue { aggregate, .. } => v(aggregate, f),
        InsertValue {
            aggregate, element, ..
        } => {
            v(aggregate, f);
            v(element, f);
        }
        Phi { incoming } => {
            for p in incoming.get(pool).chunks_exact(2) {
                f(Operand::Value(Value(p[0])));
            }
        }
        Alloca { size, .. } => v(size, f),
        Load { ptr, .. } => v(ptr, f),
        Store { ptr, value, .. } => {
            v(value, f);
            v(ptr, f);
        }
        Gep { operands, .. } => {
            for &x in operands.get(pool) {
                f(Operand::Value(Value(x)));
            }
        }
        Call { callee, args, .. } => {
            for &x in args.get(pool) {
                f(Operand::Value(Value(x)));
            }
            v(callee, f);
        }
        AtomicRmw { ptr, value, .. } => {
            v(ptr, f);
            v(value, f);
        }
        CmpXchg { ptr, cmp, new, .. } => {
            v(ptr, f);
            v(cmp, f);
            v(new, f);
        }
        VaArg { list, .. } => v(list, f),
    }
}

/// Per-function attachment and location lists, sorted by instruction, with read positions.
struct Cursors<'a> {
    atts: &'a [(u32, u32, MdId)],
    locs: &'a [(u32, crate::inst::DebugLoc)],
    att: &'a mut usize,
    loc: &'a mut usize,
}

/// A canonical attribute group: slot and attributes in LLVM's sorted order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Group {
    pub slot: u32,
    pub attrs: Vec<Attribute>,
}

/// Rank of a 3.7 attribute kind (bitcode encoding) in the in-memory `Attribute::AttrKind` enum,
/// which is what attribute sets are sorted by.
fn attr_rank(kind: u32) -> u32 {
    // Encodings 1..=45 in the order of the enum.
    const ORDER: [u32; 45] = [
        1, 2, 35, 3, 38, 36, 43, 4, 5, 40, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 39, 41, 42, 16, 17,
        18, 19, 37, 20, 21, 45, 22, 23, 24, 25, 26, 27, 28, 44, 29, 30, 31, 32, 33, 34,
    ];
    ORDER
        .iter()
        .position(|&k| k == kind)
        .map_or(1000 + kind, |p| p as u32)
}

fn attr_order(a: &Attribute, b: &Attribute) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let class = |x: &Attribute| match x {
        Attribute::Enum(_) => 0,
        Attribute::Int(..) => 1,
        _ => 2,
    };
    match (a, b) {
        (Attribute::Enum(x), Attribute::Enum(y)) => attr_rank(*x).cmp(&attr_rank(*y)),
        (Attribute::Int(kx, vx), Attribute::Int(ky, vy)) => {
            vx.cmp(vy).then(attr_rank(*kx).cmp(&attr_rank(*ky)))
        }
        _ if class(a) != class(b) => class(a).cmp(&class(b)),
        _ => {
            let kv = |x: &Attribute| -> (String, String) {
                match x {
                    Attribute::Str(k) => (k.clone(), String::new()),
                    Attribute::StrValue(k, v) => (k.clone(), v.clone()),
                    _ => (String::new(), String::new()),
                }
            };
            let (ka, va) = kv(a);
            let (kb, vb) = kv(b);
            match ka.cmp(&kb) {
                Ordering::Equal => va.cmp(&vb),
                o => o,
            }
        }
    }
}

/// The DXC kind table used when the module carries none: LLVM 3.7's fixed kinds plus the two
/// that DXC registers for every compilation (the most common table in DXC's output).
pub const DXC_DEFAULT_KINDS: [&str; 16] = crate::metadata::concat_kinds(
    crate::metadata::LLVM_FIXED_KINDS,
    ["dx.temp", "dx.dbg.varlayout"],
);

pub(crate) struct Enumerator<'m> {
    pub m: &'m Module,
    pub types: TypeTable,
    pub consts: ConstTable,
    pub mds: MdTable,

    /// Canonical values and their use counts (`ValueEnumerator::Values`).
    pub values: Vec<(Value, u32)>,
    global_ids: Vec<u32>,
    func_ids: Vec<u32>,
    /// Per representative constant: value id or `NONE`.
    const_ids: Vec<u32>,
    pub first_module_const: u32,
    pub num_module_values: u32,

    /// Per representative metadata: 0 unmapped, `VISITING`, else id + 1.
    md_ids: Vec<u32>,
    pub md_list: Vec<u32>,
    pub has_md_string: bool,
    pub num_module_mds: u32,

    /// Model attribute list → canonical list (`NONE` = empty).
    list_canon: Vec<u32>,
    canon_lists: Vec<Vec<u32>>,
    pub groups: Vec<Group>,
    list_out: Vec<u32>,
    group_out: Vec<u32>,
    /// Enumerated lists (canonical indices) and groups, in id order.
    pub lists_order: Vec<u32>,
    pub groups_order: Vec<u32>,

    /// Output kind table (id, name) and the model kind id → output kind id map.
    pub kinds: Vec<(u32, &'m str)>,

    md_ty: u32,
    label_ty: u32,

    // Per-function state.
    pub first_func_const: u32,
    pub first_inst: u32,
    /// Moves each function's patchable constants into a second constants block, written
    /// before instruction [`Enumerator::late_at`] (see `WriteOptions::patchable_late`).
    pub late_patchable: bool,
    /// The instruction before which the second constants block goes (none: `usize::MAX`),
    /// and its value ids.
    pub late_at: usize,
    pub late_first: u32,
    pub late_end: u32,
    inst_ids: Vec<u32>,
    func_consts: Vec<u32>,
    /// Function-local metadata values, in id order (ids follow the module's metadata).
    pub local_mds: Vec<Value>,
    local_md_ids: HashMap<Value, u32, FxBuild>,
    num_args: u32,

    stack: Vec<(Value, u32)>,
    md_stack: Vec<(u32, u32)>,
    ops_buf: Vec<Operand>,
}

impl<'m> Enumerator<'m> {
    /// `module_level`: enumerate the patchable constants among the module's constants (else
    /// they go where their uses put them, like any other constant).
    pub fn new(m: &'m Module, patchable: &[ConstId], module_level: bool) -> Result<Enumerator<'m>> {
        let mut types = TypeTable::new(&m.types)?;
        let consts = ConstTable::new(m, &mut types, patchable)?;
        let mds = MdTable::new(&m.metadata, &consts)?;
        let md_ty = types.intern(Node::Metadata);
        let label_ty = types.intern(Node::Label);
        let mut e = Enumerator {
            m,
            types,
            consts,
            mds,
            // Room for every module value and a typical function, so that the list rarely grows.
            values: Vec::with_capacity(
                m.globals.len() + m.functions.len() + m.constants.len() + 256,
            ),
            global_ids: vec![NONE; m.globals.len()],
            func_ids: vec![NONE; m.functions.len()],
            const_ids: vec![NONE; m.constants.len()],
            first_module_const: 0,
            num_module_values: 0,
            md_ids: vec![0; m.metadata.items.len()],
            md_list: Vec::with_capacity(m.metadata.items.len()),
            has_md_string: false,
            num_module_mds: 0,
            list_canon: Vec::with_capacity(m.attr_lists.len()),
            canon_lists: Vec::new(),
            groups: Vec::new(),
            list_out: Vec::new(),
            group_out: Vec::new(),
            lists_order: Vec::new(),
            groups_order: Vec::new(),
            kinds: Vec::new(),
            md_ty,
            label_ty,
            first_func_const: 0,
            first_inst: 0,
            late_patchable: false,
            late_at: usize::MAX,
            late_first: 0,
            late_end: 0,
            inst_ids: Vec::new(),
            func_consts: Vec::with_capacity(m.constants.len()),
            local_mds: Vec::new(),
            local_md_ids: HashMap::default(),
            num_args: 0,
            stack: Vec::with_capacity(16),
            md_stack: Vec::with_capacity(16),
            ops_buf: Vec::with_capacity(16),
        };
        e.build_attributes()?;
        e.build_kinds()?;
        e.enumerate_module(patchable, module_level)?;
        Ok(e)
    }

    // ------------------------------------------------------------------ attributes and kinds

    fn build_attributes(&mut self) -> Result<()> {
        let m = self.m;
        let mut by_id: HashMap<u32, usize, FxBuild> = HashMap::default();
        for (i, g) in m.attr_groups.iter().enumerate() {
            by_id.entry(g.id).or_insert(i);
        }
        let mut group_index: HashMap<Group, u32, FxBuild> = HashMap::default();
        let mut list_index: HashMap<Vec<u32>, u32, FxBuild> = HashMap::default();
        for (li, list) in m.attr_lists.iter().enumerate() {
            let mut gs: Vec<u32> = Vec::with_capacity(list.len());
            for gid in list {
                let Some(&gi) = by_id.get(gid) else {
                    return Err(invalid(format!(
                        "attribute list {li} names attribute group {gid}, which does not exist"
                    )));
                };
                let g = &m.attr_groups[gi];
                if g.attrs.is_empty() {
                    continue;
                }
                let mut attrs = g.attrs.clone();
                attrs.sort_by(attr_order);
                attrs.dedup();
                let key = Group {
                    slot: g.slot,
                    attrs,
                };
                let next = self.groups.len() as u32;
                let c = *group_index.entry(key.clone()).or_insert(next);
                if c == next {
                    self.groups.push(key);
                }
                gs.push(c);
            }
            // Slots in index order, the function slot (~0) last.
            gs.sort_by_key(|&g| self.groups[g as usize].slot);
            if gs
                .windows(2)
                .any(|w| self.groups[w[0] as usize].slot == self.groups[w[1] as usize].slot)
            {
                return Err(invalid(format!(
                    "attribute list {li} has two groups for the same slot"
                )));
            }
            if gs.is_empty() {
                self.list_canon.push(NONE);
                continue;
            }
            let next = self.canon_lists.len() as u32;
            let c = *list_index.entry(gs.clone()).or_insert(next);
            if c == next {
                self.canon_lists.push(gs);
            }
            self.list_canon.push(c);
        }
        self.list_out = vec![0; self.canon_lists.len()];
        self.group_out = vec![0; self.groups.len()];
        Ok(())
    }

    fn enumerate_attrs(&mut self, l: Option<AttrListId>) -> Result<()> {
        let Some(l) = l else { return Ok(()) };
        let c = *self
            .list_canon
            .get(l.index())
            .ok_or_else(|| invalid(format!("attribute list {} does not exist", l.0)))?;
        if c == NONE {
            return Ok(());
        }
        if self.list_out[c as usize] == 0 {
            self.lists_order.push(c);
            self.list_out[c as usize] = self.lists_order.len() as u32;
        }
        for i in 0..self.canon_lists[c as usize].len() {
            let g = self.canon_lists[c as usize][i];
            if self.group_out[g as usize] == 0 {
                self.groups_order.push(g);
                self.group_out[g as usize] = self.groups_order.len() as u32;
            }
        }
        Ok(())
    }

    /// The 1-based id of an attribute list (0 = none).
    pub fn attr_list_id(&self, l: Option<AttrListId>) -> u32 {
        l.and_then(|l| self.list_canon.get(l.index()))
            .filter(|&&c| c != NONE)
            .map_or(0, |&c| self.list_out[c as usize])
    }

    pub fn group_id(&self, g: u32) -> u32 {
        self.group_out.get(g as usize).copied().unwrap_or(0)
    }

    pub fn list_groups(&self, c: u32) -> &[u32] {
        self.canon_lists
            .get(c as usize)
            .map_or(&[], |v| v.as_slice())
    }

    fn build_kinds(&mut self) -> Result<()> {
        let mk = &self.m.metadata.kinds;
        if mk.is_empty() {
            self.kinds = (0u32..).zip(DXC_DEFAULT_KINDS).collect();
        } else {
            let mut ks: Vec<(u32, &'m str)> = mk.iter().map(|k| (k.id, k.name.as_ref())).collect();
            ks.sort_by_key(|k| k.0);
            if ks.windows(2).any(|w| w[0].0 == w[1].0) {
                return Err(invalid("two metadata kinds share an id"));
            }
            self.kinds = ks;
        }
        Ok(())
    }

    /// The output id of a model metadata kind.
    pub fn kind_id(&self, k: u32) -> Result<u32> {
        // Kinds keep their ids; the table only confirms the kind exists.
        match self.kinds.binary_search_by_key(&k, |x| x.0) {
            Ok(_) => Ok(k),
            Err(_) => Err(invalid(format!(
                "metadata kind {k} is not in the kind table"
            ))),
        }
    }

    // ------------------------------------------------------------------ types of values

    /// The type node of a canonical value in the current function.
    pub fn value_type(&self, func: Option<&Function>, v: Value) -> Result<u32> {
        match v.get() {
            ValueRef::Const(c) => match self.consts.ty.get(c.index()) {
                Some(&t) if t != NONE => Ok(t),
                _ => Err(invalid(format!("constant {} does not exist", c.0))),
            },
            ValueRef::Global(g) => match self.m.global(g) {
                Some(g) => self.types.node_of(g.ptr_ty),
                None => Err(invalid(format!("global {} does not exist", g.0))),
            },
            ValueRef::Function(f) => match self.m.function(f) {
                Some(f) => self.types.node_of(f.ptr_ty),
                None => Err(invalid(format!("function {} does not exist", f.0))),
            },
            ValueRef::Arg(a) => {
                let f = func.ok_or_else(|| invalid(format!("argument {a} outside a function")))?;
                let (_, params, _) = self
                    .m
                    .types
                    .function_signature(f.ty)
                    .ok_or_else(|| mismatch("function type is not a function type"))?;
                let p = params
                    .get(a as usize)
                    .ok_or_else(|| invalid(format!("argument {a} does not exist")))?;
                self.types.node_of(*p)
            }
            ValueRef::Inst(i) => {
                let b = func
                    .and_then(|f| f.body.as_ref())
                    .ok_or_else(|| invalid(format!("instruction {} outside a body", i.0)))?;
                let d = b
                    .inst(i)
                    .ok_or_else(|| invalid(format!("instruction {} does not exist", i.0)))?;
                let t = self.types.node_of(d.ty)?;
                if self.types.is_void(t) {
                    return Err(invalid(format!(
                        "instruction {} has no value (void) but is used as an operand",
                        i.0
                    )));
                }
                Ok(t)
            }
            ValueRef::Metadata(_) => Ok(self.md_ty),
            ValueRef::Unresolved(n) => Err(invalid(format!("unresolved value number {n}"))),
        }
    }

    // ------------------------------------------------------------------ values

    fn const_rep(&self, c: ConstId) -> Result<u32> {
        self.consts.rep_of(c)
    }

    fn lookup(&mut self, v: Value) -> Option<&mut u32> {
        match v.get() {
            ValueRef::Const(c) => self.const_ids.get_mut(c.index()),
            ValueRef::Global(g) => self.global_ids.get_mut(g.index()),
            ValueRef::Function(f) => self.func_ids.get_mut(f.index()),
            _ => None,
        }
    }

    /// `EnumerateValue` for a canonical module-level value (global, function or constant),
    /// operands of constants first.
    fn enumerate_value(&mut self, func: Option<&Function>, root: Value) -> Result<()> {
        // A value met again only counts one more use.
        if let Some(&mut id) = self.lookup(root)
            && id != NONE
        {
            if let Some(e) = self.values.get_mut(id as usize) {
                e.1 += 1;
            }
            return Ok(());
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((root, NONE));
        let r = self.enumerate_value_with(func, &mut stack);
        self.stack = stack;
        r
    }

    fn enumerate_value_with(
        &mut self,
        func: Option<&Function>,
        stack: &mut Vec<(Value, u32)>,
    ) -> Result<()> {
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if *next == NONE {
                // First visit.
                let id = match self.lookup(v) {
                    Some(id) => *id,
                    None => return Err(invalid(format!("{v:?} cannot be a module value"))),
                };
                if id != NONE {
                    if let Some(e) = self.values.get_mut(id as usize) {
                        e.1 += 1;
                    }
                    stack.pop();
                    continue;
                }
                let t = self.value_type(func, v)?;
                self.types.enumerate(t);
                *next = 0;
            }
            let i = *next;
            let child = match v.get() {
                ValueRef::Const(c) => self.nth_operand(c.0, i),
                _ => None,
            };
            if let Some(op) = child {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                if stack.len() > self.m.constants.len() + 8 {
                    return Err(invalid("constant operands form a cycle"));
                }
                stack.push((op, NONE));
                continue;
            }
            stack.pop();
            let id = self.values.len() as u32;
            if id >= crate::value::MAX_VALUE_INDEX {
                return Err(limit("too many values"));
            }
            self.values.push((v, 1));
            if let Some(slot) = self.lookup(v) {
                *slot = id;
            }
            if let ValueRef::Const(c) = v.get() {
                self.func_consts.push(c.0);
            }
        }
        Ok(())
    }

    /// Operand `i` of a representative constant, excluding basic blocks.
    fn nth_operand(&self, rep: u32, i: u32) -> Option<Value> {
        let n = self.consts.norm.get(rep as usize)?;
        let mut k = 0;
        let mut out = None;
        match n {
            NConst::Agg(r) | NConst::Gep { ops: r, .. } => {
                return r.get(&self.consts.vals).get(i as usize).copied();
            }
            NConst::BlockAddr { f, .. } => {
                if i == 0 {
                    out = Some(Value::function(*f));
                }
            }
            _ => n.for_each_operand(&self.consts.vals, |v| {
                if k == i {
                    out = Some(v);
                }
                k += 1;
            }),
        }
        out
    }

    /// `EnumerateOperandType`: the types of an operand, and of a constant's operands when the
    /// constant is not numbered yet.
    fn enumerate_operand_type(&mut self, func: Option<&Function>, root: Value) -> Result<()> {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((root, NONE));
        let r = (|| {
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if *next == NONE {
                    let t = self.value_type(func, v)?;
                    self.types.enumerate(t);
                    let numbered = match v.get() {
                        ValueRef::Const(c) => {
                            self.const_ids.get(c.index()).is_none_or(|&id| id != NONE)
                        }
                        _ => true,
                    };
                    if numbered {
                        stack.pop();
                        continue;
                    }
                    *next = 0;
                }
                let i = *next;
                let child = match v.get() {
                    ValueRef::Const(c) => self.nth_operand(c.0, i),
                    _ => None,
                };
                match child {
                    Some(op) => {
                        if let Some(top) = stack.last_mut() {
                            top.1 += 1;
                        }
                        if stack.len() > self.m.constants.len() + 8 {
                            return Err(invalid("constant operands form a cycle"));
                        }
                        stack.push((op, NONE));
                    }
                    None => {
                        stack.pop();
                    }
                }
            }
            Ok(())
        })();
        self.stack = stack;
        r
    }

    /// `EnumerateMetadata` for a representative: operands first (post order).
    fn enumerate_md(&mut self, func: Option<&Function>, root: u32) -> Result<()> {
        if self.md_ids.get(root as usize).is_none_or(|&id| id != 0) {
            return Ok(());
        }
        self.md_ids[root as usize] = VISITING;
        let mut stack = std::mem::take(&mut self.md_stack);
        stack.clear();
        stack.push((root, 0));
        let r = (|| {
            while let Some(&mut (x, ref mut next)) = stack.last_mut() {
                let norm = self.mds.norm(x);
                if let NMd::Node { ops, .. } = norm
                    && *next < ops.len
                {
                    let o = ops
                        .get(&self.mds.ops)
                        .get(*next as usize)
                        .copied()
                        .unwrap_or(0);
                    *next += 1;
                    if o == 0 {
                        continue;
                    }
                    let c = o - 1;
                    if self.md_ids.get(c as usize).is_some_and(|&id| id == 0) {
                        self.md_ids[c as usize] = VISITING;
                        stack.push((c, 0));
                    }
                    continue;
                }
                stack.pop();
                match norm {
                    NMd::Value(v) => self.enumerate_value(func, v)?,
                    NMd::String(_) => self.has_md_string = true,
                    NMd::Node { .. } => {}
                    NMd::Local(_) => {
                        return Err(invalid(format!(
                            "metadata {x} (a function-local value) is used inside a node or \
                             named metadata"
                        )));
                    }
                    NMd::Other(code) => {
                        return Err(unsupported(format!(
                            "metadata {x}: record code {code} (debug information) is not written"
                        )));
                    }
                }
                self.md_list.push(x);
                self.md_ids[x as usize] = self.md_list.len() as u32;
            }
            Ok(())
        })();
        self.md_stack = stack;
        r
    }

    // ------------------------------------------------------------------ the module walk

    fn enumerate_module(&mut self, patchable: &[ConstId], module_level: bool) -> Result<()> {
        let m = self.m;
        for g in 0..m.globals.len() {
            self.enumerate_value(None, Value::global(GlobalId(g as u32)))?;
        }
        for (i, f) in m.functions.iter().enumerate() {
            self.enumerate_value(None, Value::function(FuncId(i as u32)))
                .map_err(|e| e.with_function(i as u32, &f.name))?;
            self.enumerate_attrs(f.attrs)
                .map_err(|e| e.with_function(i as u32, &f.name))?;
        }
        self.first_module_const = self.values.len() as u32;
        for g in &m.globals {
            if let Some(init) = g.init {
                let v = self.canon_module_value(init)?;
                self.enumerate_value(None, v)?;
            }
        }
        self.types.enumerate(self.md_ty);
        for nm in &m.metadata.named {
            for &op in m.metadata.named_operands(nm) {
                let r = self.mds.rep_of(op)?;
                if !matches!(self.mds.norm(r), NMd::Node { .. }) {
                    return Err(invalid(format!(
                        "named metadata `{}` has operand {} which is not a node",
                        nm.name, op.0
                    )));
                }
                self.enumerate_md(None, r)?;
            }
        }
        for (i, f) in m.functions.iter().enumerate() {
            self.enumerate_function_types(f)
                .map_err(|e| e.with_function(i as u32, &f.name))?;
        }
        for &c in patchable {
            let r = self.const_rep(c)?;
            if !matches!(self.types.node(self.consts.ty[r as usize]), Node::Int(w) if *w <= 64) {
                return Err(mismatch(format!(
                    "patchable constant {} is not an integer of at most 64 bits",
                    c.0
                )));
            }
            if module_level {
                self.enumerate_value(None, Value::constant(ConstId(r)))?;
            }
        }
        self.optimize_constants(self.first_module_const as usize, self.values.len());
        self.num_module_values = self.values.len() as u32;
        self.num_module_mds = self.md_list.len() as u32;
        self.func_consts.clear();
        Ok(())
    }

    fn canon_module_value(&self, v: Value) -> Result<Value> {
        match v.get() {
            ValueRef::Const(c) => Ok(Value::constant(ConstId(self.const_rep(c)?))),
            ValueRef::Global(g) if self.m.global(g).is_some() => Ok(v),
            ValueRef::Function(f) if self.m.function(f).is_some() => Ok(v),
            _ => Err(invalid(format!("{v:?} is not a module-level value"))),
        }
    }

    /// Canonical form of a function-level operand.
    pub fn canon(&self, v: Value) -> Value {
        self.consts.canon(v)
    }

    fn enumerate_function_types(&mut self, f: &'m Function) -> Result<()> {
        let Some((_, params, _)) = self.m.types.function_signature(f.ty) else {
            return Err(mismatch("function type is not a function type"));
        };
        for &p in params {
            let n = self.types.node_of(p)?;
            self.types.enumerate(n);
        }
        let Some(body) = &f.body else { return Ok(()) };
        let mut fa: Vec<(u32, MdId)> = Vec::with_capacity(body.fn_attachments.len());
        for &(k, n) in &body.fn_attachments {
            fa.push((self.kind_id(k)?, n));
        }
        fa.sort_by_key(|a| a.0);
        for (_, n) in fa {
            let r = self.mds.rep_of(n)?;
            self.enumerate_md(Some(f), r)?;
        }
        let nblocks = body.blocks.len() as u32;
        // Attachments and locations by instruction (the model does not promise an order);
        // LLVM visits an instruction's attachments by kind id.
        let mut atts: Vec<(u32, u32, MdId)> = Vec::with_capacity(body.attachments.len());
        for a in &body.attachments {
            atts.push((a.inst.0, self.kind_id(a.kind)?, a.node));
        }
        atts.sort_by_key(|a| (a.0, a.1));
        let mut locs: Vec<(u32, crate::inst::DebugLoc)> =
            body.debug_locs.iter().map(|&(i, l)| (i.0, l)).collect();
        locs.sort_by_key(|l| l.0);
        let mut att = 0usize;
        let mut loc = 0usize;
        let mut kinds: Vec<(u32, MdId)> = Vec::with_capacity(4);
        for (i, inst) in body.insts.iter().enumerate() {
            let cursors = Cursors {
                atts: &atts,
                locs: &locs,
                att: &mut att,
                loc: &mut loc,
            };
            let r = self.enumerate_inst_types(f, body, nblocks, i, inst, cursors, &mut kinds);
            r.map_err(|e| e.with_instruction(i as u32))?;
        }
        Ok(())
    }

    fn enumerate_inst_types(
        &mut self,
        f: &'m Function,
        body: &'m Body,
        nblocks: u32,
        i: usize,
        inst: &crate::inst::InstData,
        cur: Cursors<'_>,
        kinds: &mut Vec<(u32, MdId)>,
    ) -> Result<()> {
        let mut ops = std::mem::take(&mut self.ops_buf);
        ops.clear();
        llvm_operands(&inst.kind, &body.pool, |o| ops.push(o));
        let r = self.enumerate_operands(f, nblocks, &ops);
        self.ops_buf = ops;
        r?;
        self.enumerate_inst_rest(f, i, inst, cur, kinds)
    }

    fn enumerate_operands(&mut self, f: &'m Function, nblocks: u32, ops: &[Operand]) -> Result<()> {
        for &o in ops {
            match o {
                Operand::Block(b) => {
                    if b.0 >= nblocks {
                        return Err(invalid(format!("block {} does not exist", b.0)));
                    }
                    self.types.enumerate(self.label_ty);
                }
                Operand::Value(v) => match v.get() {
                    ValueRef::Metadata(md) => {
                        let r = self.mds.rep_of(md)?;
                        if matches!(self.mds.norm(r), NMd::Local(_)) {
                            continue;
                        }
                        self.enumerate_md(Some(f), r)?;
                    }
                    _ => {
                        let v = self.canon(v);
                        // Instructions, arguments and numbered constants need no walk of
                        // their operands: only their own type.
                        let numbered = match v.get() {
                            ValueRef::Const(c) => {
                                self.const_ids.get(c.index()).is_none_or(|&id| id != NONE)
                            }
                            _ => true,
                        };
                        if numbered {
                            let t = self.value_type(Some(f), v)?;
                            self.types.enumerate(t);
                        } else {
                            self.enumerate_operand_type(Some(f), v)?;
                        }
                    }
                },
            }
        }
        Ok(())
    }

    fn enumerate_inst_rest(
        &mut self,
        f: &'m Function,
        i: usize,
        inst: &crate::inst::InstData,
        cur: Cursors<'_>,
        kinds: &mut Vec<(u32, MdId)>,
    ) -> Result<()> {
        let t = self.types.node_of(inst.ty)?;
        self.types.enumerate(t);
        if let InstKind::Call { attrs, .. } = &inst.kind {
            self.enumerate_attrs(*attrs)?;
        }
        kinds.clear();
        while let Some(&(ai, k, n)) = cur.atts.get(*cur.att) {
            if ai as usize > i {
                break;
            }
            if ai as usize == i {
                kinds.push((k, n));
            }
            *cur.att += 1;
        }
        for &(_, node) in kinds.iter() {
            let r = self.mds.rep_of(node)?;
            self.enumerate_md(Some(f), r)?;
        }
        while let Some((li, dl)) = cur.locs.get(*cur.loc) {
            if *li as usize > i {
                break;
            }
            if *li as usize == i {
                for x in [dl.scope, dl.inlined_at] {
                    if x != 0 {
                        let id = u32::try_from(x - 1)
                            .map_err(|_| invalid("debug location scope out of range"))?;
                        let r = self.mds.rep_of(MdId(id))?;
                        self.enumerate_md(Some(f), r)?;
                    }
                }
            }
            *cur.loc += 1;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ constant order

    fn is_int_like(&self, v: Value) -> bool {
        let t = match v.get() {
            ValueRef::Const(c) => self.consts.ty.get(c.index()).copied().unwrap_or(NONE),
            _ => NONE,
        };
        match self.types.node(t) {
            Node::Int(_) => true,
            Node::Vector(_, e) => matches!(self.types.node(*e), Node::Int(_)),
            _ => false,
        }
    }

    fn type_id_of_value(&self, v: Value) -> u32 {
        match v.get() {
            ValueRef::Const(c) => self
                .consts
                .ty
                .get(c.index())
                .and_then(|&t| self.types.id(t).ok())
                .unwrap_or(NONE),
            _ => NONE,
        }
    }

    /// `OptimizeConstants`: stable sort by (type id, use count descending), then
    /// `std::partition` with integers first (libstdc++'s bidirectional algorithm).
    fn optimize_constants(&mut self, start: usize, end: usize) {
        if end <= start + 1 {
            return;
        }
        let mut keyed: Vec<(u32, u32, Value)> = self.values[start..end]
            .iter()
            .map(|&(v, n)| (self.type_id_of_value(v), n, v))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let ints: Vec<bool> = keyed.iter().map(|k| self.is_int_like(k.2)).collect();
        let mut items: Vec<((Value, u32), bool)> = keyed
            .into_iter()
            .zip(ints)
            .map(|((_, n, v), i)| ((v, n), i))
            .collect();
        let (mut first, mut last) = (0usize, items.len());
        'outer: loop {
            loop {
                if first == last {
                    break 'outer;
                }
                if items[first].1 {
                    first += 1;
                } else {
                    break;
                }
            }
            last -= 1;
            loop {
                if first == last {
                    break 'outer;
                }
                if !items[last].1 {
                    last -= 1;
                } else {
                    break;
                }
            }
            items.swap(first, last);
            first += 1;
        }
        for (k, (e, _)) in items.into_iter().enumerate() {
            let id = (start + k) as u32;
            self.values[start + k] = e;
            if let Some(slot) = self.lookup(e.0) {
                *slot = id;
            }
        }
    }

    // ------------------------------------------------------------------ functions

    /// `incorporateFunction`: numbers arguments, function constants, instructions and
    /// function-local metadata.
    pub fn incorporate(&mut self, f: &'m Function) -> Result<()> {
        let Some(body) = &f.body else { return Ok(()) };
        let Some((_, params, _)) = self.m.types.function_signature(f.ty) else {
            return Err(mismatch("function type is not a function type"));
        };
        self.num_args = params.len() as u32;
        // Room for the arguments, the instructions and a typical share of constants.
        self.values
            .reserve(params.len() + body.insts.len() + body.insts.len() / 2);
        for a in 0..self.num_args {
            self.values.push((Value::arg(a), 1));
        }
        self.first_func_const = self.values.len() as u32;
        self.func_consts.clear();
        for (i, inst) in body.insts.iter().enumerate() {
            let mut r = Ok(());
            llvm_operands(&inst.kind, &body.pool, |o| {
                if r.is_err() {
                    return;
                }
                if let Operand::Value(v) = o
                    && let ValueRef::Const(_) = v.get()
                {
                    let v = self.canon(v);
                    r = self.enumerate_value(Some(f), v);
                }
            });
            r.map_err(|e| e.with_instruction(i as u32))?;
        }
        self.optimize_constants(self.first_func_const as usize, self.values.len());
        self.late_at = usize::MAX;
        let late = match self.late_patchable {
            true => self.take_late_constants(body)?,
            false => Vec::new(),
        };
        self.first_inst = self.values.len() as u32;
        self.inst_ids.clear();
        self.inst_ids.resize(body.insts.len(), NONE);
        self.local_mds.clear();
        self.local_md_ids.clear();
        let mut locals: Vec<Value> = Vec::new();
        let has_local = self.mds.has_local;
        for (i, inst) in body.insts.iter().enumerate() {
            if i == self.late_at {
                self.late_first = self.values.len() as u32;
                self.push_renumbered(late.iter().copied());
                self.late_end = self.values.len() as u32;
            }
            if has_local {
                llvm_operands(&inst.kind, &body.pool, |o| {
                    if let Operand::Value(v) = o
                        && let ValueRef::Metadata(md) = v.get()
                        && let Ok(r) = self.mds.rep_of(md)
                        && let NMd::Local(lv) = self.mds.norm(r)
                    {
                        locals.push(lv);
                    }
                });
            }
            let t = self.types.node_of(inst.ty)?;
            if !self.types.is_void(t) {
                let id = self.values.len() as u32;
                if id >= crate::value::MAX_VALUE_INDEX {
                    return Err(limit("too many values"));
                }
                self.inst_ids[i] = id;
                self.values
                    .push((Value::inst(crate::entity::InstId(i as u32)), 1));
            }
        }
        for lv in locals {
            if self.local_md_ids.contains_key(&lv) {
                continue;
            }
            let id = self.num_module_mds + self.local_mds.len() as u32;
            self.local_md_ids.insert(lv, id);
            self.local_mds.push(lv);
        }
        Ok(())
    }

    /// With [`Enumerator::late_patchable`]: takes the function's patchable constants out of
    /// its first constants block and sets [`Enumerator::late_at`], the latest instruction
    /// before their first use at which LLVM's reader can number a second constants block
    /// right. That reader numbers a constants block from the size of its value list, which a
    /// forward reference (a phi's operand, a metadata value) grows to the referenced slot:
    /// the block must come where no instruction read so far refers to one not yet read.
    /// Function-local metadata refers to values before any instruction, so it keeps the
    /// constants in the first block, as does a constant that has one as an operand.
    fn take_late_constants(&mut self, body: &Body) -> Result<Vec<(Value, u32)>> {
        let start = self.first_func_const as usize;
        let is_late = |e: &Self, v: Value| match v.get() {
            ValueRef::Const(c) => e.consts.unique.get(c.index()).copied().unwrap_or(false),
            _ => false,
        };
        if !self.values[start..].iter().any(|&(v, _)| is_late(self, v)) {
            return Ok(Vec::new());
        }
        for &(v, _) in &self.values[start..] {
            let ValueRef::Const(c) = v.get() else {
                continue;
            };
            let mut i = 0;
            while let Some(op) = self.nth_operand(c.0, i) {
                if is_late(self, op) {
                    return Ok(Vec::new());
                }
                i += 1;
            }
        }
        // `reach`: one past the highest instruction referred to so far.
        let (mut reach, mut point, mut at) = (0usize, 0usize, None);
        let mut local_md = false;
        for (i, inst) in body.insts.iter().enumerate() {
            if reach <= i {
                point = i;
            }
            let mut uses = false;
            llvm_operands(&inst.kind, &body.pool, |o| {
                let Operand::Value(v) = o else { return };
                match v.get() {
                    ValueRef::Inst(t) => reach = reach.max(t.index() + 1),
                    ValueRef::Metadata(md) => {
                        local_md |= self
                            .mds
                            .rep_of(md)
                            .is_ok_and(|r| matches!(self.mds.norm(r), NMd::Local(_)))
                    }
                    _ => uses |= is_late(self, self.canon(v)),
                }
            });
            if uses && at.is_none() {
                at = Some(point);
            }
        }
        let Some(at) = at.filter(|_| !local_md) else {
            return Ok(Vec::new());
        };
        let all = self.values.split_off(start);
        let (late, keep): (Vec<_>, Vec<_>) = all.into_iter().partition(|&(v, _)| is_late(self, v));
        self.push_renumbered(keep);
        self.late_at = at;
        Ok(late)
    }

    /// Appends value-list entries taken out of it, each numbered by its new position.
    fn push_renumbered(&mut self, entries: impl IntoIterator<Item = (Value, u32)>) {
        for e in entries {
            let id = self.values.len() as u32;
            if let Some(slot) = self.lookup(e.0) {
                *slot = id;
            }
            self.values.push(e);
        }
    }

    /// `purgeFunction`.
    pub fn purge(&mut self) {
        for &c in &self.func_consts {
            if let Some(slot) = self.const_ids.get_mut(c as usize) {
                *slot = NONE;
            }
        }
        self.func_consts.clear();
        self.values.truncate(self.num_module_values as usize);
        self.local_mds.clear();
        self.local_md_ids.clear();
        self.inst_ids.clear();
    }

    // ------------------------------------------------------------------ ids

    /// The absolute value id of an operand in the current function.
    pub fn value_id(&self, v: Value) -> Result<u32> {
        let id = match v.get() {
            ValueRef::Const(c) => {
                let r = self.const_rep(c)?;
                self.const_ids.get(r as usize).copied().unwrap_or(NONE)
            }
            ValueRef::Global(g) => self.global_ids.get(g.index()).copied().unwrap_or(NONE),
            ValueRef::Function(f) => self.func_ids.get(f.index()).copied().unwrap_or(NONE),
            ValueRef::Arg(a) => {
                if a < self.num_args {
                    self.num_module_values + a
                } else {
                    NONE
                }
            }
            ValueRef::Inst(i) => self.inst_ids.get(i.index()).copied().unwrap_or(NONE),
            ValueRef::Metadata(md) => return self.md_value_id(md),
            ValueRef::Unresolved(n) => {
                return Err(invalid(format!("unresolved value number {n}")));
            }
        };
        if id == NONE {
            return Err(invalid(format!("{v:?} has no value number here")));
        }
        Ok(id)
    }

    /// The metadata id (0-based) of metadata used as a value.
    pub fn md_value_id(&self, md: MdId) -> Result<u32> {
        let r = self.mds.rep_of(md)?;
        if let NMd::Local(lv) = self.mds.norm(r) {
            return self
                .local_md_ids
                .get(&lv)
                .copied()
                .ok_or_else(|| invalid(format!("local metadata {} not numbered", md.0)));
        }
        self.md_id(r)
    }

    /// The 0-based id of an enumerated representative.
    pub fn md_id(&self, rep: u32) -> Result<u32> {
        match self.md_ids.get(rep as usize) {
            Some(&id) if id != 0 && id != VISITING => Ok(id - 1),
            _ => Err(invalid(format!("metadata {rep} was not enumerated"))),
        }
    }

    pub fn type_id(&self, node: u32) -> Result<u32> {
        self.types.id(node)
    }

    pub fn type_id_of(&self, t: TypeId) -> Result<u32> {
        self.types.id_of(t)
    }

    /// The type node of a model value in function `f`.
    pub fn operand_type(&self, f: Option<&Function>, v: Value) -> Result<u32> {
        self.value_type(f, self.canon(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_rank_follows_the_in_memory_enum() {
        // noduplicate < nounwind; readonly < argmemonly (in memory, unlike the encodings).
        assert!(attr_rank(12) < attr_rank(18));
        assert!(attr_rank(21) < attr_rank(45));
        assert!(attr_rank(45) < attr_rank(22));
        assert!(attr_rank(39) < attr_rank(41));
        let mut a = vec![
            Attribute::Str("b".into()),
            Attribute::Enum(18),
            Attribute::StrValue("a".into(), "x".into()),
            Attribute::Enum(12),
        ];
        a.sort_by(attr_order);
        assert_eq!(
            a,
            vec![
                Attribute::Enum(12),
                Attribute::Enum(18),
                Attribute::StrValue("a".into(), "x".into()),
                Attribute::Str("b".into()),
            ]
        );
    }
}
