//! Type spelling, and the order in which identified structs are defined (LLVM's `TypeFinder`).

use std::fmt::{self, Write};

use dxil_module::types::OtherFloatKind;
use dxil_module::{
    ConstData, ConstId, InstKind, MdData, MdId, Module, TypeData, TypeId, Value, ValueRef,
};

use super::ident::write_name;
use super::md::Kinds;
use super::number::write_u64;

/// Longest type text written: literal types nested as a DAG can spell exponentially long names.
const TEXT_LIMIT: usize = 1 << 20;
/// Most type text kept in the cache; beyond it (only for pathological modules) types are spelled
/// each time they are printed.
const CACHE_TOTAL: usize = 1 << 26;
const NOT_CACHED: u32 = u32::MAX;

/// Spells types, caching the text of each.
pub(crate) struct TypeNames {
    text: String,
    span: Vec<(u32, u32)>,
    /// Number of each unnamed identified struct (`%0`), or `NOT_CACHED`.
    number: Vec<u32>,
    /// Unnamed identified structs by number, then named ones, in `TypeFinder` order.
    pub(crate) numbered: Vec<TypeId>,
    pub(crate) named: Vec<TypeId>,
    /// Types whose spelling would never end: they contain themselves other than through a named
    /// struct (only a malformed type table can say so).
    recursive: Vec<bool>,
    scratch: String,
    stack: Vec<Tok>,
}

#[derive(Copy, Clone)]
enum Tok {
    Ty(TypeId),
    Body(TypeId),
    S(&'static str),
    N(u64),
}

impl TypeNames {
    pub(crate) fn new(m: &Module, kinds: &Kinds<'_>) -> Self {
        let n = m.types.len();
        let mut numbered = Vec::new();
        let mut named = Vec::new();
        let mut number = vec![NOT_CACHED; n];
        for t in find_struct_types(m, kinds) {
            if let TypeData::Struct {
                name: Some(name), ..
            } = m.types.data(t)
            {
                if name.is_empty() {
                    if let Some(slot) = number.get_mut(t.index()) {
                        *slot = numbered.len() as u32;
                    }
                    numbered.push(t);
                } else {
                    named.push(t);
                }
            }
        }
        TypeNames {
            recursive: recursive_types(m),
            text: String::with_capacity(32 * 64),
            span: vec![(NOT_CACHED, 0); n],
            number,
            numbered,
            named,
            scratch: String::with_capacity(256),
            stack: Vec::with_capacity(32),
        }
    }

    /// Writes the type's name as an operand type would show it.
    pub(crate) fn write<W: Write + ?Sized>(
        &mut self,
        m: &Module,
        out: &mut W,
        t: TypeId,
    ) -> fmt::Result {
        if let Some(&(start, len)) = self.span.get(t.index())
            && start != NOT_CACHED
        {
            let s = start as usize;
            return out.write_str(self.text.get(s..s + len as usize).unwrap_or(""));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        self.spell(m, &mut scratch, Tok::Ty(t))?;
        let r = out.write_str(&scratch);
        if self.text.len() + scratch.len() <= CACHE_TOTAL
            && let Some(span) = self.span.get_mut(t.index())
        {
            *span = (self.text.len() as u32, scratch.len() as u32);
            self.text.push_str(&scratch);
        }
        self.scratch = scratch;
        r
    }

    /// Writes the body of a struct (`{ i32, float }`, `<{ ... }>`, `{}` or `opaque`), as a type
    /// definition line shows it.
    pub(crate) fn write_struct_body<W: Write + ?Sized>(
        &mut self,
        m: &Module,
        out: &mut W,
        t: TypeId,
    ) -> fmt::Result {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        self.spell(m, &mut scratch, Tok::Body(t))?;
        let r = out.write_str(&scratch);
        self.scratch = scratch;
        r
    }

    fn spell(&mut self, m: &Module, out: &mut String, first: Tok) -> fmt::Result {
        let stack = &mut self.stack;
        stack.clear();
        stack.push(first);
        while let Some(tok) = stack.pop() {
            if out.len() > TEXT_LIMIT {
                out.push_str("...");
                break;
            }
            match tok {
                Tok::S(s) => out.push_str(s),
                Tok::N(n) => write_u64(out, n)?,
                Tok::Body(t) => match m.types.data(t) {
                    TypeData::Struct {
                        packed,
                        opaque,
                        elems,
                        ..
                    } => {
                        if *opaque {
                            out.push_str("opaque");
                            continue;
                        }
                        if *packed {
                            out.push('<');
                            stack.push(Tok::S(">"));
                        }
                        if elems.is_empty() {
                            out.push_str("{}");
                            continue;
                        }
                        out.push_str("{ ");
                        stack.push(Tok::S(" }"));
                        for (i, e) in elems.iter().enumerate().rev() {
                            stack.push(Tok::Ty(*e));
                            if i > 0 {
                                stack.push(Tok::S(", "));
                            }
                        }
                    }
                    _ => stack.push(Tok::Ty(t)),
                },
                Tok::Ty(t) if self.recursive.get(t.index()) == Some(&true) => {
                    out.push_str("<recursive type>")
                }
                Tok::Ty(t) => match m.types.data(t) {
                    TypeData::Void => out.push_str("void"),
                    TypeData::Half => out.push_str("half"),
                    TypeData::Float => out.push_str("float"),
                    TypeData::Double => out.push_str("double"),
                    TypeData::Label => out.push_str("label"),
                    TypeData::Metadata => out.push_str("metadata"),
                    TypeData::OtherFloat(k) => out.push_str(match k {
                        OtherFloatKind::X86Fp80 => "x86_fp80",
                        OtherFloatKind::Fp128 => "fp128",
                        OtherFloatKind::PpcFp128 => "ppc_fp128",
                        OtherFloatKind::X86Mmx => "x86_mmx",
                    }),
                    TypeData::Int(w) => {
                        out.push('i');
                        write_u64(out, u64::from(*w))?;
                    }
                    TypeData::Pointer {
                        pointee,
                        address_space,
                    } => {
                        stack.push(Tok::S("*"));
                        if *address_space != 0 {
                            stack.push(Tok::S(")"));
                            stack.push(Tok::N(u64::from(*address_space)));
                            stack.push(Tok::S(" addrspace("));
                        }
                        stack.push(Tok::Ty(*pointee));
                    }
                    TypeData::Array { len, elem } => {
                        out.push('[');
                        write_u64(out, *len)?;
                        out.push_str(" x ");
                        stack.push(Tok::S("]"));
                        stack.push(Tok::Ty(*elem));
                    }
                    TypeData::Vector { len, elem } => {
                        out.push('<');
                        write_u64(out, u64::from(*len))?;
                        out.push_str(" x ");
                        stack.push(Tok::S(">"));
                        stack.push(Tok::Ty(*elem));
                    }
                    TypeData::Function {
                        vararg,
                        ret,
                        params,
                    } => {
                        stack.push(Tok::S(")"));
                        if *vararg {
                            stack.push(Tok::S("..."));
                            if !params.is_empty() {
                                stack.push(Tok::S(", "));
                            }
                        }
                        for (i, p) in params.iter().enumerate().rev() {
                            stack.push(Tok::Ty(*p));
                            if i > 0 {
                                stack.push(Tok::S(", "));
                            }
                        }
                        stack.push(Tok::S(" ("));
                        stack.push(Tok::Ty(*ret));
                    }
                    TypeData::Struct { name, .. } => match name {
                        None => stack.push(Tok::Body(t)),
                        Some(n) if !n.is_empty() => write_name(out, "%", n)?,
                        Some(_) => match self.number.get(t.index()) {
                            Some(&k) if k != NOT_CACHED => {
                                out.push('%');
                                write_u64(out, u64::from(k))?;
                            }
                            _ => {
                                // LLVM prints the type's address here; the id is the stable
                                // equivalent.
                                out.push_str("%\"type ");
                                write_u64(out, u64::from(t.0))?;
                                out.push('"');
                            }
                        },
                    },
                },
            }
        }
        Ok(())
    }
}

/// Marks the types whose spelling contains themselves, and the types that contain those.
/// Named structs are spelled by name, so only literal types can form such a cycle.
fn recursive_types(m: &Module) -> Vec<bool> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let n = m.types.len();
    let child = |t: usize, i: usize| -> Option<usize> {
        let c = match m.types.data(TypeId(t as u32)) {
            TypeData::Pointer { pointee, .. } if i == 0 => *pointee,
            TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } if i == 0 => *elem,
            TypeData::Struct {
                name: None, elems, ..
            } => *elems.get(i)?,
            TypeData::Function { ret, params, .. } => {
                if i == 0 {
                    *ret
                } else {
                    *params.get(i - 1)?
                }
            }
            _ => return None,
        };
        Some(c.index())
    };
    // A cycle needs an edge to a type at the same or a later index (otherwise the indices
    // order the graph); named structs end every path. DXC's tables have no such edge, and
    // then nothing is recursive (an empty table reads as all `false`).
    let named = |c: usize| {
        matches!(
            m.types.data(TypeId(c as u32)),
            TypeData::Struct { name: Some(_), .. }
        )
    };
    let may_cycle = (0..n).any(|t| {
        let mut i = 0;
        while let Some(c) = child(t, i) {
            if c >= t && c < n && !named(c) {
                return true;
            }
            i += 1;
        }
        false
    });
    if !may_cycle {
        return Vec::new();
    }
    let mut state = vec![NEW; n];
    let mut bad = vec![false; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        state[root] = ACTIVE;
        stack.push((root, 0));
        while let Some((t, i)) = stack.last_mut() {
            let (t, i) = (*t, std::mem::replace(i, *i + 1));
            match child(t, i) {
                // Ids past the table spell as `void`.
                Some(c) if c >= n => {}
                Some(c) => match state[c] {
                    NEW => {
                        state[c] = ACTIVE;
                        stack.push((c, 0));
                    }
                    ACTIVE => bad[t] = true,
                    _ => bad[t] |= bad[c],
                },
                None => {
                    state[t] = DONE;
                    stack.pop();
                    if let Some(&(parent, _)) = stack.last() {
                        bad[parent] |= bad[t];
                    }
                }
            }
        }
    }
    bad
}

/// The struct types of a module in the order LLVM's `TypeFinder` meets them: global variable
/// types and initializers; per function its type, then per instruction its type, its
/// non-instruction operands (constants recursively, metadata operands) and its attached metadata
/// (debug locations aside); finally the operands of named metadata, recursively. Literal structs
/// are included (callers drop them).
pub(crate) fn find_struct_types(m: &Module, kinds: &Kinds<'_>) -> Vec<TypeId> {
    let identified = m
        .types
        .iter()
        .filter(|(_, d)| matches!(d, TypeData::Struct { name: Some(_), .. }))
        .count();
    let mut f = Finder {
        m,
        remaining: identified,
        seen_type: vec![false; m.types.len()],
        seen_const: vec![false; m.constants.len()],
        seen_md: vec![false; m.metadata.len()],
        structs: Vec::with_capacity(32),
        worklist: Vec::with_capacity(32),
        frames: Vec::with_capacity(32),
    };
    // Once every identified struct has been met the rest of the walk cannot change the result.
    for g in &m.globals {
        f.ty(g.ptr_ty);
        if let Some(init) = g.init {
            f.value(init);
        }
    }
    if f.remaining == 0 {
        return f.structs;
    }
    let mut att = Vec::new();
    for func in &m.functions {
        f.ty(func.ptr_ty);
        let Some(body) = &func.body else { continue };
        let mut cursor = 0usize;
        for (i, inst) in body.insts.iter().enumerate() {
            // This loop visits every instruction of modules whose resource structs appear only
            // in metadata (most DXIL): what was seen already is skipped inline.
            if !f.seen_type.get(inst.ty.index()).copied().unwrap_or(true) {
                f.ty(inst.ty);
            }
            for_each_operand_in_llvm_order(&inst.kind, &body.pool, |v| match v.get() {
                ValueRef::Const(c) if !f.seen_const.get(c.index()).copied().unwrap_or(true) => {
                    f.value(v)
                }
                ValueRef::Metadata(_) => f.value(v),
                // Arguments and instructions were met as instructions; globals and functions
                // have no operands the walk follows.
                _ => {}
            });
            if body
                .attachments
                .get(cursor)
                .is_some_and(|a| a.inst.0 <= i as u32)
            {
                kinds.attachments_of(body, i as u32, &mut cursor, &mut att);
                for &(_, node) in &att {
                    f.md(node);
                }
            }
            if f.remaining == 0 {
                return f.structs;
            }
        }
    }
    for nmd in &m.metadata.named {
        for &op in m.metadata.named_operands(nmd) {
            f.md(op);
            if f.remaining == 0 {
                return f.structs;
            }
        }
    }
    f.structs
}

/// Calls `f` on each value operand in the order of LLVM's `User::operands()` (stores put the value
/// before the pointer; calls put the callee last).
pub(crate) fn for_each_operand_in_llvm_order(
    kind: &InstKind,
    pool: &[u32],
    mut f: impl FnMut(Value),
) {
    match kind {
        InstKind::Store { ptr, value, .. } => {
            f(*value);
            f(*ptr);
        }
        InstKind::Call { callee, args, .. } => {
            for &a in args.get(pool) {
                f(Value(a));
            }
            f(*callee);
        }
        other => other.for_each_value(pool, f),
    }
}

struct Finder<'m> {
    m: &'m Module,
    /// Identified structs not met yet.
    remaining: usize,
    seen_type: Vec<bool>,
    seen_const: Vec<bool>,
    seen_md: Vec<bool>,
    structs: Vec<TypeId>,
    worklist: Vec<TypeId>,
    frames: Vec<Frame>,
}

enum Frame {
    Const(ConstId, u32),
    Md(MdId, u32),
}

/// `seen[i] = true`, reporting whether it was already set (out-of-range ids count as seen).
fn mark(seen: &mut [bool], i: usize) -> bool {
    match seen.get_mut(i) {
        Some(s) => std::mem::replace(s, true),
        None => true,
    }
}

impl Finder<'_> {
    /// `TypeFinder::incorporateType`: a depth-first walk whose subtypes are marked when queued.
    fn ty(&mut self, t: TypeId) {
        if mark(&mut self.seen_type, t.index()) {
            return;
        }
        self.worklist.push(t);
        while let Some(t) = self.worklist.pop() {
            let data = self.m.types.data(t);
            if let TypeData::Struct { name, .. } = data {
                self.structs.push(t);
                if name.is_some() {
                    self.remaining = self.remaining.saturating_sub(1);
                }
            }
            let push = |s: TypeId, f: &mut Self| {
                if !mark(&mut f.seen_type, s.index()) {
                    f.worklist.push(s);
                }
            };
            match data {
                TypeData::Pointer { pointee, .. } => push(*pointee, self),
                TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => push(*elem, self),
                TypeData::Struct { elems, .. } => {
                    for e in elems.iter().rev() {
                        push(*e, self);
                    }
                }
                TypeData::Function { ret, params, .. } => {
                    for p in params.iter().rev() {
                        push(*p, self);
                    }
                    push(*ret, self);
                }
                _ => {}
            }
        }
    }

    fn value(&mut self, v: Value) {
        self.enter_value(v);
        self.run();
    }

    fn md(&mut self, n: MdId) {
        self.enter_md(n);
        self.run();
    }

    fn enter_value(&mut self, v: Value) {
        match v.get() {
            ValueRef::Const(c) => {
                if mark(&mut self.seen_const, c.index()) {
                    return;
                }
                if let Some(k) = self.m.constants.get(c) {
                    self.ty(k.ty);
                }
                self.frames.push(Frame::Const(c, 0));
            }
            ValueRef::Metadata(n) => match self.m.metadata.get(n) {
                Some(MdData::Node { .. } | MdData::Other { .. }) => self.enter_md(n),
                Some(MdData::Value { value, .. })
                    if !matches!(value.get(), ValueRef::Metadata(_)) =>
                {
                    self.enter_value(*value);
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn enter_md(&mut self, n: MdId) {
        if matches!(
            self.m.metadata.get(n),
            Some(MdData::Node { .. } | MdData::Other { .. })
        ) && !mark(&mut self.seen_md, n.index())
        {
            self.frames.push(Frame::Md(n, 0));
        }
    }

    fn run(&mut self) {
        while let Some(top) = self.frames.last_mut() {
            if self.remaining == 0 {
                // Every identified struct has been met: nothing later changes the result.
                self.frames.clear();
                return;
            }
            match top {
                Frame::Const(c, next) => {
                    let i = *next;
                    *next += 1;
                    match const_operand(self.m, *c, i) {
                        Some(v) => self.enter_value(v),
                        None => {
                            self.frames.pop();
                        }
                    }
                }
                Frame::Md(n, next) => {
                    let i = *next as usize;
                    *next += 1;
                    let ops = match self.m.metadata.get(*n) {
                        Some(MdData::Node { operands, .. }) => {
                            operands.get(&self.m.metadata.operands)
                        }
                        _ => &[],
                    };
                    let Some(&op) = ops.get(i) else {
                        self.frames.pop();
                        continue;
                    };
                    if op == 0 {
                        continue;
                    }
                    let id = MdId(op - 1);
                    match self.m.metadata.get(id) {
                        Some(MdData::Node { .. } | MdData::Other { .. }) => self.enter_md(id),
                        // `ConstantAsMetadata`: constants only (globals are skipped anyway).
                        Some(MdData::Value { value, .. })
                            if matches!(value.get(), ValueRef::Const(_)) =>
                        {
                            self.enter_value(*value)
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// The `i`th operand of a constant, as LLVM's `User::operands()` lists them.
pub(crate) fn const_operand(m: &Module, c: ConstId, i: u32) -> Option<Value> {
    let k = m.constants.get(c)?;
    let i = i as usize;
    let fixed = |vals: &[Value]| vals.get(i).copied();
    match &k.data {
        ConstData::Aggregate(r) | ConstData::Gep { operands: r, .. } => {
            m.constants.values_of(*r).get(i).copied()
        }
        ConstData::Cast { value, .. } => fixed(&[*value]),
        ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
            fixed(&[*lhs, *rhs])
        }
        ConstData::Select {
            cond,
            if_true,
            if_false,
        } => fixed(&[*cond, *if_true, *if_false]),
        ConstData::ExtractElement { vector, index } => fixed(&[*vector, *index]),
        ConstData::InsertElement {
            vector,
            element,
            index,
        } => fixed(&[*vector, *element, *index]),
        ConstData::ShuffleVector { v1, v2, mask } => fixed(&[*v1, *v2, *mask]),
        _ => None,
    }
}
