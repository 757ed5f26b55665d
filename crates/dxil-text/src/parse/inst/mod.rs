//! Function declarations and definitions: headers, basic blocks and every instruction of the
//! model.
//!
//! Unnamed values and blocks share one numbering per function, as in LLVM: arguments first,
//! then each block (a block without a label starts after a terminator) and each unnamed
//! non-void instruction. Blocks are referred to through handles that become positions when the
//! function ends, so branches to blocks defined later need no second pass over the text.

use dxil_module::inst::{BinFlagKind, fast_math};
use dxil_module::{
    Attachment, BinOp, BlockData, BlockId, Body, CastOp, Function, InstData, InstId, InstKind,
    LocalName, Ordering, PoolRange, RmwOp, SyncScope, TypeData, TypeId, Value, ValueRef,
};

use super::lexer::Tok;
use super::types::VOID;
use super::values::{bin_op, cast_op, predicate};
use super::{FxMap, Key, MODULE_FWD, Name, Parser, Result};

mod ops;

const NONE: u32 = u32::MAX;

#[derive(Copy, Clone)]
enum Slot {
    Val(Value),
    Block(u32),
}

struct LocalFwd<'a> {
    key: Key<'a>,
    ty: TypeId,
    at: u32,
    resolved: Option<Value>,
}

/// State of the function being parsed; reused from function to function.
#[derive(Default)]
pub(crate) struct FnState<'a> {
    pub body: Body,
    pub params: Vec<TypeId>,
    ret: TypeId,
    active: bool,
    slots: Vec<Slot>,
    names: FxMap<Name<'a>, Value>,
    fwd: Vec<LocalFwd<'a>>,
    fwd_index: FxMap<Key<'a>, u32>,
    /// Per block handle: its position, or `NONE` while only referred to.
    block_pos: Vec<u32>,
    block_first_use: Vec<(u32, Key<'a>)>,
    blocks: FxMap<Key<'a>, u32>,
    remap_blocks: bool,
    /// Metadata items wrapping local values (`metadata float %x`), patched with the function.
    pub local_mds: Vec<dxil_module::MdId>,
    /// Scratch lists of call, phi and getelementptr operands (instructions do not nest).
    buf_vals: Vec<u32>,
    buf_types: Vec<TypeId>,
    buf_values: Vec<Value>,
}

impl<'a> FnState<'a> {
    pub fn fwd_type(&self, k: u32) -> Option<TypeId> {
        self.fwd.get(k as usize).map(|f| f.ty)
    }

    fn reset(&mut self) {
        self.body = Body::default();
        self.params.clear();
        self.slots.clear();
        self.names.clear();
        self.fwd.clear();
        self.fwd_index.clear();
        self.block_pos.clear();
        self.block_first_use.clear();
        self.blocks.clear();
        self.remap_blocks = false;
        self.local_mds.clear();
    }
}

/// Calling conventions by name (LLVM 3.7 numbering).
fn calling_conv(w: &str) -> Option<u32> {
    Some(match w {
        "ccc" => 0,
        "fastcc" => 8,
        "coldcc" => 9,
        "ghccc" => 10,
        "webkit_jscc" => 12,
        "anyregcc" => 13,
        "preserve_mostcc" => 14,
        "preserve_allcc" => 15,
        "x86_stdcallcc" => 64,
        "x86_fastcallcc" => 65,
        "arm_apcscc" => 66,
        "arm_aapcscc" => 67,
        "arm_aapcs_vfpcc" => 68,
        "msp430_intrcc" => 69,
        "x86_thiscallcc" => 70,
        "ptx_kernel" => 71,
        "ptx_device" => 72,
        "spir_func" => 75,
        "spir_kernel" => 76,
        "intel_ocl_bicc" => 77,
        "x86_64_sysvcc" => 78,
        "x86_64_win64cc" => 79,
        "x86_vectorcallcc" => 80,
        _ => return None,
    })
}

fn ordering(w: &str) -> Option<Ordering> {
    Some(Ordering(match w {
        "unordered" => 1,
        "monotonic" => 2,
        "acquire" => 3,
        "release" => 4,
        "acq_rel" => 5,
        "seq_cst" => 6,
        _ => return None,
    }))
}

fn rmw_op(w: &str) -> Option<RmwOp> {
    Some(match w {
        "xchg" => RmwOp::Xchg,
        "add" => RmwOp::Add,
        "sub" => RmwOp::Sub,
        "and" => RmwOp::And,
        "nand" => RmwOp::Nand,
        "or" => RmwOp::Or,
        "xor" => RmwOp::Xor,
        "max" => RmwOp::Max,
        "min" => RmwOp::Min,
        "umax" => RmwOp::UMax,
        "umin" => RmwOp::UMin,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    // ------------------------------------------------------------------ headers

    /// `[cc]`: a calling convention keyword or `cc N`.
    fn calling_conv(&mut self) -> Result<u32> {
        if self.tok.tok != Tok::Word {
            return Ok(0);
        }
        if self.text() == "cc" {
            self.bump()?;
            return self.u32_literal("a calling convention number");
        }
        match calling_conv(self.text()) {
            Some(cc) => {
                self.bump()?;
                Ok(cc)
            }
            None => Ok(0),
        }
    }

    /// `define ...` / `declare ...`.
    pub(crate) fn function(&mut self, define: bool) -> Result<()> {
        let kw_at = self.tok.start;
        self.bump()?;
        let linkage = self.linkage()?.unwrap_or(0);
        if !define && !matches!(linkage, 0 | 7) {
            return Err(self.err_at(kw_at, "invalid linkage for a function declaration"));
        }
        let visibility = self.visibility()?;
        let dll_storage = self.dll_storage()?;
        let calling_conv = self.calling_conv()?;
        let ret_attrs = self.param_attrs()?;
        let ret_at = self.tok.start;
        let ret = self.parse_type(true)?;
        if matches!(
            self.m.types.data(ret),
            TypeData::Label | TypeData::Metadata | TypeData::Function { .. }
        ) {
            return Err(self.err_at(ret_at, "invalid function return type"));
        }
        if !matches!(self.tok.tok, Tok::GlobalVar | Tok::GlobalId(_)) {
            return Err(self.expected("a function name"));
        }
        let key = self.define_global_name()?;
        self.expect(Tok::LParen, "'(' before the parameters")?;
        self.fs.reset();
        let mut vararg = false;
        let mut param_attrs: Vec<(u32, Vec<dxil_module::Attribute>)> = Vec::new();
        let mut arg_names: Vec<(u32, Key<'a>, u32)> = Vec::new();
        if !self.eat(Tok::RParen)? {
            loop {
                if self.eat(Tok::DotDotDot)? {
                    vararg = true;
                    self.expect(Tok::RParen, "')' after '...'")?;
                    break;
                }
                let pat = self.tok.start;
                let p = self.parse_type(false)?;
                if matches!(
                    self.m.types.data(p),
                    TypeData::Label | TypeData::Function { .. }
                ) {
                    return Err(self.err_at(pat, "invalid function parameter type"));
                }
                let i = self.fs.params.len() as u32;
                self.fs.params.push(p);
                let a = self.param_attrs()?;
                if !a.is_empty() {
                    param_attrs.push((i + 1, a));
                }
                match self.tok.tok {
                    Tok::LocalVar => {
                        let t = self.bump()?;
                        arg_names.push((i, Key::Name(self.name_of(&t)), t.start));
                    }
                    Tok::LocalId(n) => {
                        let t = self.bump()?;
                        arg_names.push((i, Key::Id(n), t.start));
                    }
                    _ => {}
                }
                if self.eat(Tok::RParen)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or ')' in the parameter list")?;
            }
        }
        let params = self.fs.params.clone();
        let fn_ty = self.types.intern(
            &mut self.m,
            TypeData::Function {
                vararg,
                ret,
                params,
            },
        );
        let ptr_ty = self.types.pointer(&mut self.m, fn_ty, 0);
        let unnamed_addr = u32::from(self.eat_word("unnamed_addr")?);
        let mut fn_attrs = Vec::new();
        let mut group_refs = Vec::new();
        let mut align = 0;
        let mut section = 0;
        let mut gc = 0;
        loop {
            match self.tok.tok {
                Tok::AttrGroupId(n) => {
                    group_refs.push((n, self.tok.start));
                    self.bump()?;
                }
                Tok::Word if self.text() == "align" => {
                    self.bump()?;
                    align = self.alignment_value()?;
                }
                Tok::Word if self.text() == "section" => {
                    self.bump()?;
                    let s = self.string("a section name")?;
                    section = self.section_index(s);
                }
                Tok::Word if self.text() == "gc" => {
                    self.bump()?;
                    let s = self.raw_string("a garbage collector name")?;
                    gc = match self.m.gc_names.iter().position(|g| *g == s) {
                        Some(i) => i as u32 + 1,
                        None => {
                            self.m.gc_names.push(s);
                            self.m.gc_names.len() as u32
                        }
                    };
                }
                Tok::Word
                    if matches!(
                        self.text(),
                        "comdat" | "prefix" | "prologue" | "personality"
                    ) =>
                {
                    return Err(self.err(format!("'{}' is not supported", self.text())));
                }
                Tok::Word | Tok::Str => {
                    if !self.fn_attr(&mut fn_attrs)? {
                        break;
                    }
                }
                _ => break,
            }
        }
        let fid = self.next_func_id();
        let name = match &key {
            Key::Name(n) => n.to_string(),
            Key::Id(_) => String::new(),
        };
        self.bind_global(key, Value::function(fid), ptr_ty)?;
        let mut slots: Vec<(u32, Vec<dxil_module::Attribute>)> = Vec::new();
        if !ret_attrs.is_empty() {
            slots.push((0, ret_attrs));
        }
        slots.extend(param_attrs);
        let attrs = self.attrs_pending(slots, fn_attrs, group_refs, None);
        self.m.functions.push(Function {
            name,
            ty: fn_ty,
            ptr_ty,
            calling_conv,
            linkage,
            attrs,
            align,
            section,
            visibility,
            gc,
            unnamed_addr,
            prologue_data: 0,
            dll_storage,
            comdat: 0,
            prefix_data: 0,
            personality: 0,
            body: None,
            is_proto: !define,
        });
        if define {
            self.function_body(fid, ret, arg_names)?;
        } else if self.tok.tok == Tok::LBrace {
            return Err(self.err("a declaration has no body; use 'define'"));
        }
        Ok(())
    }

    fn function_body(
        &mut self,
        fid: dxil_module::FuncId,
        ret: TypeId,
        arg_names: Vec<(u32, Key<'a>, u32)>,
    ) -> Result<()> {
        self.fs.active = true;
        self.fs.ret = ret;
        // Arguments: named ones by name, the rest numbered in order.
        let mut named = arg_names.into_iter().peekable();
        for i in 0..self.fs.params.len() as u32 {
            match named.next_if(|(a, _, _)| *a == i) {
                Some((_, Key::Name(n), at)) => {
                    if self.fs.names.contains_key(&n) {
                        return Err(self.err_at(at, format!("redefinition of argument '%{n}'")));
                    }
                    self.fs.body.names.push(LocalName::Arg(i, n.to_string()));
                    self.fs.names.insert(n, Value::arg(i));
                }
                Some((_, Key::Id(n), at)) if n as usize != self.fs.slots.len() => {
                    return Err(self.err_at(
                        at,
                        format!(
                            "argument expected to be numbered '%{}'",
                            self.fs.slots.len()
                        ),
                    ));
                }
                _ => self.fs.slots.push(Slot::Val(Value::arg(i))),
            }
        }
        // Function attachments come before the body.
        let mut fn_att = Vec::new();
        while self.tok.tok == Tok::MetadataVar {
            let kt = self.bump()?;
            let kind = self.md_kind(&kt);
            let node = self.md_node_ref()?;
            fn_att.push((kind, node));
        }
        self.fs.body.fn_attachments = fn_att;
        self.expect(Tok::LBrace, "'{' to start the function body")?;
        // Listings end a body with a `}` line; its length bounds the reservations.
        let rest = self
            .src
            .as_bytes()
            .get(self.tok.start as usize..)
            .unwrap_or(&[]);
        let len = memchr::memmem::find(rest, b"\n}").unwrap_or(rest.len());
        self.fs.body.insts.reserve(len / 48);
        self.fs.body.pool.reserve(len / 12);
        while !self.eat(Tok::RBrace)? {
            if self.tok.tok == Tok::Eof {
                return Err(self.expected("'}' to end the function body"));
            }
            self.basic_block()?;
        }
        if self.fs.body.blocks.is_empty() {
            return Err(self.err_at(
                self.tok.start,
                "function body requires at least one basic block",
            ));
        }
        self.finish_function()?;
        let body = std::mem::take(&mut self.fs.body);
        if let Some(f) = self.m.functions.get_mut(fid.index()) {
            f.body = Some(body);
        }
        self.fs.active = false;
        Ok(())
    }

    fn finish_function(&mut self) -> Result<()> {
        if let Some((h, _)) = self
            .fs
            .block_pos
            .iter()
            .enumerate()
            .find(|(_, p)| **p == NONE)
        {
            let (at, key) = self.fs.block_first_use[h].clone();
            return Err(self.err_at(at, format!("use of undefined label '{}'", key.show('%'))));
        }
        if let Some(f) = self.fs.fwd.iter().find(|f| f.resolved.is_none()) {
            return Err(self.err_at(
                f.at,
                format!("use of undefined value '{}'", f.key.show('%')),
            ));
        }
        let fs = &mut self.fs;
        if !fs.fwd.is_empty() {
            let table: Vec<Value> = fs
                .fwd
                .iter()
                .map(|f| f.resolved.unwrap_or(Value(0)))
                .collect();
            let map = |v: Value| match v.get() {
                ValueRef::Unresolved(k) if k & MODULE_FWD == 0 => {
                    table.get(k as usize).copied().unwrap_or(v)
                }
                _ => v,
            };
            let body = &mut fs.body;
            for inst in &mut body.insts {
                inst.kind.map_values(&mut body.pool, &mut |v| map(v));
            }
            for id in &fs.local_mds {
                if let Some(dxil_module::MdData::Value { value, .. }) =
                    self.m.metadata.items.get_mut(id.index())
                {
                    *value = map(*value);
                }
            }
        }
        if fs.remap_blocks {
            let pos = &fs.block_pos;
            let map = |b: &mut BlockId| {
                if let Some(&p) = pos.get(b.index()) {
                    *b = BlockId(p);
                }
            };
            let body = &mut fs.body;
            for inst in &mut body.insts {
                match &mut inst.kind {
                    InstKind::Br { dest } => map(dest),
                    InstKind::CondBr {
                        if_true, if_false, ..
                    } => {
                        map(if_true);
                        map(if_false);
                    }
                    InstKind::Switch { default, cases, .. } => {
                        map(default);
                        remap_pairs(&mut body.pool, *cases, pos);
                    }
                    InstKind::Phi { incoming } => remap_pairs(&mut body.pool, *incoming, pos),
                    _ => {}
                }
            }
            for n in &mut body.names {
                if let LocalName::Block(b, _) = n {
                    map(b);
                }
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ locals

    fn local_key(&mut self) -> Result<(Key<'a>, u32)> {
        let t = self.bump()?;
        match t.tok {
            Tok::LocalVar => Ok((Key::Name(self.name_of(&t)), t.start)),
            Tok::LocalId(n) => Ok((Key::Id(n), t.start)),
            _ => Err(self.err_at(t.start, "expected a local name")),
        }
    }

    /// A `%name` / `%N` value use of type `ty`.
    pub(crate) fn local_ref(&mut self, ty: TypeId) -> Result<Value> {
        if !self.fs.active {
            return Err(self.err("local values are only allowed inside a function body"));
        }
        let (key, at) = self.local_key()?;
        let found = match &key {
            Key::Id(n) => match self.fs.slots.get(*n as usize) {
                Some(Slot::Val(v)) => Some(*v),
                Some(Slot::Block(_)) => {
                    return Err(self.err_at(at, format!("'%{n}' is a basic block, not a value")));
                }
                None => None,
            },
            Key::Name(n) => self.fs.names.get(n).copied(),
        };
        if let Some(v) = found {
            let vt = self.value_type(v);
            if vt != Some(ty) {
                return Err(self.err_at(
                    at,
                    format!(
                        "'{}' has type '{}', expected '{}'",
                        key.show('%'),
                        vt.map_or_else(|| "?".into(), |t| self.type_text(t)),
                        self.type_text(ty)
                    ),
                ));
            }
            return Ok(v);
        }
        if matches!(self.m.types.data(ty), TypeData::Void | TypeData::Label) {
            return Err(self.err_at(at, "invalid forward reference type"));
        }
        if let Some(&k) = self.fs.fwd_index.get(&key) {
            let f = &self.fs.fwd[k as usize];
            if f.ty != ty {
                return Err(self.err_at(
                    at,
                    format!(
                        "'{}' was used with type '{}' before, here with '{}'",
                        key.show('%'),
                        self.type_text(f.ty),
                        self.type_text(ty)
                    ),
                ));
            }
            return Ok(Value::unresolved(k));
        }
        let k = self.fs.fwd.len() as u32;
        if k >= MODULE_FWD {
            return Err(self.err_at(at, "too many forward references"));
        }
        self.fs.fwd.push(LocalFwd {
            key: key.clone(),
            ty,
            at,
            resolved: None,
        });
        self.fs.fwd_index.insert(key, k);
        Ok(Value::unresolved(k))
    }

    /// Defines a local value (an instruction result) and resolves forward uses of it.
    fn define_local(&mut self, key: Key<'a>, v: Value, ty: TypeId, at: u32) -> Result<()> {
        if let Some(k) = self.fs.fwd_index.remove(&key)
            && let Some(f) = self.fs.fwd.get_mut(k as usize)
        {
            if f.ty != ty {
                let want = f.ty;
                return Err(self.err_at(
                    at,
                    format!(
                        "'{}' is defined with type '{}' but was used as '{}'",
                        key.show('%'),
                        self.type_text(ty),
                        self.type_text(want)
                    ),
                ));
            }
            f.resolved = Some(v);
        }
        match key {
            Key::Id(_) => self.fs.slots.push(Slot::Val(v)),
            Key::Name(n) => {
                if self.fs.names.contains_key(&n)
                    || self.fs.blocks.contains_key(&Key::Name(n.clone()))
                {
                    return Err(self.err_at(at, format!("redefinition of value '%{n}'")));
                }
                if let ValueRef::Inst(i) = v.get() {
                    self.fs.body.names.push(LocalName::Inst(i, n.to_string()));
                }
                self.fs.names.insert(n, v);
            }
        }
        Ok(())
    }

    /// The handle of a block named by `%name` / `%N` (the current token).
    fn block_ref(&mut self) -> Result<BlockId> {
        if !matches!(self.tok.tok, Tok::LocalVar | Tok::LocalId(_)) {
            return Err(self.expected("a basic block name"));
        }
        let (key, at) = self.local_key()?;
        if let Key::Id(n) = key
            && let Some(s) = self.fs.slots.get(n as usize)
        {
            return match s {
                Slot::Block(h) => Ok(BlockId(*h)),
                Slot::Val(_) => {
                    Err(self.err_at(at, format!("'%{n}' is a value, not a basic block")))
                }
            };
        }
        if let Some(&h) = self.fs.blocks.get(&key) {
            return Ok(BlockId(h));
        }
        if let Key::Name(n) = &key
            && self.fs.names.contains_key(n)
        {
            return Err(self.err_at(at, format!("'%{n}' is a value, not a basic block")));
        }
        let h = self.fs.block_pos.len() as u32;
        self.fs.block_pos.push(NONE);
        self.fs.block_first_use.push((at, key.clone()));
        self.fs.blocks.insert(key, h);
        Ok(BlockId(h))
    }

    /// `label %x`.
    fn label_operand(&mut self) -> Result<BlockId> {
        self.expect_word("label")?;
        self.block_ref()
    }

    fn basic_block(&mut self) -> Result<()> {
        let at = self.tok.start;
        let slot = self.fs.slots.len() as u32;
        let key = match self.tok.tok {
            Tok::Label => {
                let t = self.bump()?;
                Key::Name(self.name_of(&t))
            }
            Tok::LabelId(n) => {
                if n != slot {
                    return Err(self.err(format!("label expected to be numbered '{slot}'")));
                }
                self.bump()?;
                Key::Id(n)
            }
            _ => Key::Id(slot),
        };
        let pos = self.fs.body.blocks.len() as u32;
        let h = match self.fs.blocks.get(&key) {
            Some(&h) => {
                if self.fs.block_pos.get(h as usize) != Some(&NONE) {
                    return Err(
                        self.err_at(at, format!("redefinition of label '{}'", key.show('%')))
                    );
                }
                h
            }
            None => {
                let h = self.fs.block_pos.len() as u32;
                self.fs.block_pos.push(NONE);
                self.fs.block_first_use.push((at, key.clone()));
                self.fs.blocks.insert(key.clone(), h);
                h
            }
        };
        if let Some(p) = self.fs.block_pos.get_mut(h as usize) {
            *p = pos;
        }
        if h != pos {
            self.fs.remap_blocks = true;
        }
        match &key {
            Key::Id(_) => self.fs.slots.push(Slot::Block(h)),
            Key::Name(n) => {
                if self.fs.names.contains_key(n) {
                    return Err(self.err_at(at, format!("redefinition of '%{n}'")));
                }
                self.fs
                    .body
                    .names
                    .push(LocalName::Block(BlockId(h), n.to_string()));
            }
        }
        let start = self.fs.body.insts.len() as u32;
        self.fs.body.blocks.push(BlockData { start, end: start });
        loop {
            if matches!(
                self.tok.tok,
                Tok::RBrace | Tok::Eof | Tok::Label | Tok::LabelId(_)
            ) {
                return Err(self.expected("an instruction (the block has no terminator yet)"));
            }
            if self.instruction()? {
                break;
            }
        }
        let end = self.fs.body.insts.len() as u32;
        if let Some(b) = self.fs.body.blocks.last_mut() {
            b.end = end;
        }
        Ok(())
    }
}

fn remap_pairs(pool: &mut [u32], r: PoolRange, pos: &[u32]) {
    let s = r.start as usize;
    if let Some(slice) = pool.get_mut(s..s + r.len as usize) {
        for pair in slice.chunks_exact_mut(2) {
            if let Some(&p) = pos.get(pair[1] as usize) {
                pair[1] = p;
            }
        }
    }
}
