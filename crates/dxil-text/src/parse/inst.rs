//! Function declarations and definitions: headers, basic blocks and every instruction of the
//! model.
//!
//! Unnamed values and blocks share one numbering per function, as in LLVM: arguments first,
//! then each block (a block without a label starts after a terminator) and each unnamed
//! non-void instruction. Blocks are referred to through handles that become positions when the
//! function ends, so branches to blocks defined later need no second pass over the text.

use dxil_module::inst::{BinFlagKind, fast_math};
use dxil_module::{
    Attachment, BlockData, BlockId, Body, Function, InstData, InstId, InstKind, LocalName,
    Ordering, PoolRange, RmwOp, SyncScope, TypeData, TypeId, Value, ValueRef,
};

use super::lexer::Tok;
use super::types::VOID;
use super::values::{bin_op, cast_op, predicate};
use super::{FxMap, Key, MODULE_FWD, Name, Parser, Result};

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

    // ------------------------------------------------------------------ instructions

    /// Parses one instruction; returns whether it was a terminator.
    fn instruction(&mut self) -> Result<bool> {
        let at = self.tok.start;
        let result = match self.tok.tok {
            Tok::LocalVar | Tok::LocalId(_) => {
                let r = self.local_key()?;
                self.expect(Tok::Equal, "'=' after the result name")?;
                Some(r)
            }
            _ => None,
        };
        if self.tok.tok != Tok::Word {
            return Err(self.expected("an instruction opcode"));
        }
        let op_at = self.tok.start;
        let (kind, ty, ate_comma) = self.instruction_body(op_at)?;
        let terminator = kind.is_terminator();
        let idx = InstId(self.fs.body.insts.len() as u32);
        if idx.0 >= dxil_module::value::MAX_VALUE_INDEX {
            return Err(self.err_at(at, "too many instructions in one function"));
        }
        self.fs.body.insts.push(InstData { kind, ty });
        let void = self.is_void(ty);
        match result {
            Some((_, rat)) if void => {
                return Err(self.err_at(rat, "instructions returning void cannot have a name"));
            }
            Some((Key::Id(n), rat)) => {
                let want = self.fs.slots.len() as u32;
                if n != want {
                    return Err(self.err_at(
                        rat,
                        format!("instruction expected to be numbered '%{want}'"),
                    ));
                }
                self.define_local(Key::Id(n), Value::inst(idx), ty, rat)?;
            }
            Some((key, rat)) => self.define_local(key, Value::inst(idx), ty, rat)?,
            None if !void => {
                let n = self.fs.slots.len() as u32;
                self.define_local(Key::Id(n), Value::inst(idx), ty, at)?;
            }
            None => {}
        }
        self.attachments(idx, ate_comma)?;
        Ok(terminator)
    }

    /// `, !kind !N` pairs after an instruction. `ate_comma`: the instruction's own parser
    /// already consumed the comma before the first one.
    fn attachments(&mut self, inst: InstId, mut ate_comma: bool) -> Result<()> {
        loop {
            if !ate_comma && !self.eat(Tok::Comma)? {
                return Ok(());
            }
            ate_comma = false;
            if self.tok.tok != Tok::MetadataVar {
                return Err(self.expected("a metadata attachment ('!kind !N')"));
            }
            let kt = self.bump()?;
            let kind = self.md_kind(&kt);
            let node = self.md_node_ref()?;
            self.fs
                .body
                .attachments
                .push(Attachment { inst, kind, node });
        }
    }

    /// After a comma inside an instruction: whether what follows is an attachment (then the
    /// comma belongs to it).
    fn at_attachment(&self) -> bool {
        self.tok.tok == Tok::MetadataVar
    }

    fn push_pool(&mut self, vals: &[u32]) -> PoolRange {
        PoolRange::push(&mut self.fs.body.pool, vals)
    }

    fn fast_math_flags(&mut self) -> Result<u8> {
        let mut f = 0u8;
        while self.tok.tok == Tok::Word {
            f |= match self.text() {
                "fast" => {
                    fast_math::UNSAFE_ALGEBRA
                        | fast_math::NO_NANS
                        | fast_math::NO_INFS
                        | fast_math::NO_SIGNED_ZEROS
                        | fast_math::ALLOW_RECIPROCAL
                }
                "nnan" => fast_math::NO_NANS,
                "ninf" => fast_math::NO_INFS,
                "nsz" => fast_math::NO_SIGNED_ZEROS,
                "arcp" => fast_math::ALLOW_RECIPROCAL,
                _ => break,
            };
            self.bump()?;
        }
        Ok(f)
    }

    /// `[singlethread] ordering`.
    fn atomic_ordering(&mut self) -> Result<(Ordering, SyncScope)> {
        let scope = if self.eat_word("singlethread")? {
            SyncScope(0)
        } else {
            SyncScope(1)
        };
        let o = if self.tok.tok == Tok::Word {
            ordering(self.text())
        } else {
            None
        };
        let o = o.ok_or_else(|| self.expected("an atomic ordering"))?;
        self.bump()?;
        Ok((o, scope))
    }

    /// `, align N` (optional); returns (field, ate a comma before an attachment).
    fn opt_comma_align(&mut self) -> Result<(u8, bool)> {
        if !self.eat(Tok::Comma)? {
            return Ok((0, false));
        }
        if self.at_attachment() {
            return Ok((0, true));
        }
        self.expect_word("align")?;
        Ok((self.alignment_value()? as u8, false))
    }

    /// Parses the instruction after its result name: (kind, result type, ate a comma).
    fn instruction_body(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        let w = self.text();
        let void = self.prim(VOID);
        if let Some(op) = bin_op(w) {
            self.bump()?;
            let mut flags = 0u8;
            match op.flag_kind() {
                BinFlagKind::Overflow => loop {
                    if self.eat_word("nuw")? {
                        flags |= 1;
                    } else if self.eat_word("nsw")? {
                        flags |= 2;
                    } else {
                        break;
                    }
                },
                BinFlagKind::Exact => {
                    if self.eat_word("exact")? {
                        flags |= 1;
                    }
                }
                BinFlagKind::FastMath => flags = self.fast_math_flags()?,
                BinFlagKind::None => {}
            }
            let (lhs, ty) = self.typed_value()?;
            self.expect(Tok::Comma, "','")?;
            let rhs = self.value(ty)?;
            self.check_binary(op, ty, ty, at)?;
            return Ok((
                InstKind::Binary {
                    op,
                    lhs,
                    rhs,
                    flags,
                },
                ty,
                false,
            ));
        }
        if let Some(op) = cast_op(w) {
            self.bump()?;
            let (value, from) = self.typed_value()?;
            self.expect_word("to")?;
            let to = self.parse_type(false)?;
            if !self.cast_ok(op, from, to) {
                return Err(self.err_at(
                    at,
                    format!(
                        "invalid cast opcode for cast from '{}' to '{}'",
                        self.type_text(from),
                        self.type_text(to)
                    ),
                ));
            }
            return Ok((InstKind::Cast { op, value }, to, false));
        }
        match w {
            "icmp" | "fcmp" => {
                self.bump()?;
                let float = w == "fcmp";
                let flags = if float { self.fast_math_flags()? } else { 0 };
                let pred = if self.tok.tok == Tok::Word {
                    predicate(self.text(), float)
                } else {
                    None
                };
                let pred = pred.ok_or_else(|| self.expected("a comparison predicate"))?;
                self.bump()?;
                let (lhs, ty) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let rhs = self.value(ty)?;
                self.check_cmp(float, ty, ty, at)?;
                let rt = self.bool_like(ty);
                Ok((
                    InstKind::Cmp {
                        pred,
                        lhs,
                        rhs,
                        flags,
                    },
                    rt,
                    false,
                ))
            }
            "select" => {
                self.bump()?;
                let (cond, ct) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (if_true, tt) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (if_false, ft) = self.typed_value()?;
                self.check_select(ct, tt, ft, at)?;
                Ok((
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    tt,
                    false,
                ))
            }
            "extractelement" => {
                self.bump()?;
                let (vector, vt) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (index, it) = self.typed_value()?;
                let et = self.check_extractelement(vt, it, at)?;
                Ok((InstKind::ExtractElement { vector, index }, et, false))
            }
            "insertelement" => {
                self.bump()?;
                let (vector, vt) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (element, et) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (index, it) = self.typed_value()?;
                self.check_insertelement(vt, et, it, at)?;
                Ok((
                    InstKind::InsertElement {
                        vector,
                        element,
                        index,
                    },
                    vt,
                    false,
                ))
            }
            "shufflevector" => {
                self.bump()?;
                let (v1, t1) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (v2, t2) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (mask, mt) = self.typed_value()?;
                let rt = self.check_shuffle(t1, t2, mt, at)?;
                Ok((InstKind::ShuffleVector { v1, v2, mask }, rt, false))
            }
            "extractvalue" => {
                self.bump()?;
                let (aggregate, aty) = self.typed_value()?;
                let (indices, t, ate) = self.aggregate_indices(aty, at)?;
                Ok((InstKind::ExtractValue { aggregate, indices }, t, ate))
            }
            "insertvalue" => {
                self.bump()?;
                let (aggregate, aty) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let eat = self.tok.start;
                let (element, et) = self.typed_value()?;
                let (indices, t, ate) = self.aggregate_indices(aty, at)?;
                if t != et {
                    return Err(self.err_at(
                        eat,
                        format!(
                            "inserted value has type '{}', the indexed field '{}'",
                            self.type_text(et),
                            self.type_text(t)
                        ),
                    ));
                }
                Ok((
                    InstKind::InsertValue {
                        aggregate,
                        element,
                        indices,
                    },
                    aty,
                    ate,
                ))
            }
            "phi" => self.phi(),
            "alloca" => self.alloca(at),
            "load" => self.load(at),
            "store" => self.store(at, void),
            "getelementptr" => self.gep(at),
            "call" | "tail" | "musttail" => self.call(at),
            "atomicrmw" => {
                self.bump()?;
                let volatile = self.eat_word("volatile")?;
                let op = if self.tok.tok == Tok::Word {
                    rmw_op(self.text())
                } else {
                    None
                };
                let op = op.ok_or_else(|| self.expected("an atomicrmw operation"))?;
                self.bump()?;
                let (ptr, pt) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (value, vt) = self.typed_value()?;
                if self.m.types.pointee(pt) != Some(vt) || self.m.types.int_width(vt).is_none() {
                    return Err(self.err_at(at, "atomicrmw needs an integer and a pointer to it"));
                }
                let (ordering, scope) = self.atomic_ordering()?;
                Ok((
                    InstKind::AtomicRmw {
                        op,
                        ptr,
                        value,
                        volatile,
                        ordering,
                        scope,
                    },
                    vt,
                    false,
                ))
            }
            "cmpxchg" => {
                self.bump()?;
                let weak = self.eat_word("weak")?;
                let volatile = self.eat_word("volatile")?;
                let (ptr, pt) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (cmp, ct) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let (new, nt) = self.typed_value()?;
                if self.m.types.pointee(pt) != Some(ct) || ct != nt {
                    return Err(self.err_at(at, "cmpxchg operands must match the pointee type"));
                }
                let (success, scope) = self.atomic_ordering()?;
                let failure = match self.tok.tok {
                    Tok::Word => ordering(self.text()),
                    _ => None,
                };
                let failure = failure.ok_or_else(|| self.expected("a failure ordering"))?;
                self.bump()?;
                let i1 = self.int_type(1);
                let rt = self.types.intern(
                    &mut self.m,
                    TypeData::Struct {
                        name: None,
                        packed: false,
                        opaque: false,
                        elems: vec![ct, i1],
                    },
                );
                Ok((
                    InstKind::CmpXchg {
                        ptr,
                        cmp,
                        new,
                        volatile,
                        success,
                        scope,
                        failure,
                        weak,
                    },
                    rt,
                    false,
                ))
            }
            "fence" => {
                self.bump()?;
                let (ordering, scope) = self.atomic_ordering()?;
                Ok((InstKind::Fence { ordering, scope }, void, false))
            }
            "va_arg" => {
                self.bump()?;
                let (list, list_ty) = self.typed_value()?;
                self.expect(Tok::Comma, "','")?;
                let ty = self.parse_type(false)?;
                Ok((InstKind::VaArg { list_ty, list }, ty, false))
            }
            "ret" => {
                self.bump()?;
                let rat = self.tok.start;
                let ret = self.fs.ret;
                if self.is_word("void") {
                    self.bump()?;
                    if !self.is_void(ret) {
                        return Err(self.err_at(
                            rat,
                            format!(
                                "value doesn't match function result type '{}'",
                                self.type_text(ret)
                            ),
                        ));
                    }
                    return Ok((InstKind::Ret { value: None }, void, false));
                }
                let ty = self.parse_type(false)?;
                if ty != ret {
                    return Err(self.err_at(
                        rat,
                        format!(
                            "value doesn't match function result type '{}'",
                            self.type_text(ret)
                        ),
                    ));
                }
                let v = self.value(ty)?;
                Ok((InstKind::Ret { value: Some(v) }, void, false))
            }
            "br" => {
                self.bump()?;
                if self.is_word("label") {
                    let dest = self.label_operand()?;
                    return Ok((InstKind::Br { dest }, void, false));
                }
                let cat = self.tok.start;
                let (cond, ct) = self.typed_value()?;
                if self.m.types.int_width(ct) != Some(1) {
                    return Err(self.err_at(cat, "branch condition must have 'i1' type"));
                }
                self.expect(Tok::Comma, "','")?;
                let if_true = self.label_operand()?;
                self.expect(Tok::Comma, "','")?;
                let if_false = self.label_operand()?;
                Ok((
                    InstKind::CondBr {
                        cond,
                        if_true,
                        if_false,
                    },
                    void,
                    false,
                ))
            }
            "switch" => self.switch(void),
            "unreachable" => {
                self.bump()?;
                Ok((InstKind::Unreachable, void, false))
            }
            "invoke" | "resume" | "indirectbr" | "landingpad" | "cleanupret" | "catchret"
            | "catchswitch" | "catchpad" | "cleanuppad" => {
                Err(self.err(format!("'{w}' is not supported")))
            }
            _ => Err(self.expected("an instruction opcode")),
        }
    }

    /// `, i, j, ...` of extractvalue/insertvalue: the pooled indices and the indexed type.
    fn aggregate_indices(&mut self, aty: TypeId, at: u32) -> Result<(PoolRange, TypeId, bool)> {
        let start = self.fs.body.pool.len() as u32;
        let mut t = aty;
        let mut ate = false;
        while self.eat(Tok::Comma)? {
            if self.at_attachment() {
                ate = true;
                break;
            }
            let iat = self.tok.start;
            let idx = self.u32_literal("an aggregate index")?;
            t = match self.m.types.data(t) {
                TypeData::Struct {
                    elems,
                    opaque: false,
                    ..
                } => match elems.get(idx as usize) {
                    Some(&e) => e,
                    None => return Err(self.err_at(iat, "struct index out of range")),
                },
                TypeData::Array { len, elem } if u64::from(idx) < *len => *elem,
                TypeData::Array { .. } => {
                    return Err(self.err_at(iat, "array index out of range"));
                }
                _ => return Err(self.err_at(iat, "invalid indices for an aggregate value")),
            };
            self.fs.body.pool.push(idx);
        }
        let n = self.fs.body.pool.len() as u32 - start;
        if n == 0 {
            return Err(self.err_at(at, "expected at least one aggregate index"));
        }
        Ok((PoolRange { start, len: n }, t, ate))
    }

    fn phi(&mut self) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let tat = self.tok.start;
        let ty = self.parse_type(false)?;
        if !self.types.is_first_class_or_aggregate(&self.m, ty) {
            return Err(self.err_at(tat, "phi node must have first class type"));
        }
        let mut pairs = std::mem::take(&mut self.fs.buf_vals);
        pairs.clear();
        let mut ate = false;
        loop {
            self.expect(Tok::LSquare, "'[' of a phi incoming pair")?;
            let v = self.value(ty)?;
            self.expect(Tok::Comma, "','")?;
            let b = self.block_ref()?;
            self.expect(Tok::RSquare, "']'")?;
            pairs.push(v.0);
            pairs.push(b.0);
            if !self.eat(Tok::Comma)? {
                break;
            }
            if self.at_attachment() {
                ate = true;
                break;
            }
        }
        let incoming = self.push_pool(&pairs);
        self.fs.buf_vals = pairs;
        Ok((InstKind::Phi { incoming }, ty, ate))
    }

    fn alloca(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let inalloca = self.eat_word("inalloca")?;
        let tat = self.tok.start;
        let allocated = self.parse_type(false)?;
        if !self.types.is_first_class_or_aggregate(&self.m, allocated) {
            return Err(self.err_at(tat, "invalid type for alloca"));
        }
        let mut size = None;
        let mut align = 0u32;
        let mut ate = false;
        while self.eat(Tok::Comma)? {
            if self.at_attachment() {
                ate = true;
                break;
            }
            if self.eat_word("align")? {
                align = self.alignment_value()?;
                continue;
            }
            if size.is_some() || align != 0 {
                return Err(self.expected("'align' or a metadata attachment"));
            }
            let sat = self.tok.start;
            let (v, t) = self.typed_value()?;
            if self.m.types.int_width(t).is_none() {
                return Err(self.err_at(sat, "element count must have integer type"));
            }
            size = Some(v);
        }
        let size = match size {
            Some(v) => v,
            None => {
                let i32t = self.int_type(32);
                Value::constant(self.int_const(i32t, 1))
            }
        };
        if align > 30 {
            return Err(self.err_at(at, "alloca alignment too large"));
        }
        // LLVM 3.7 always sets the explicit-type bit.
        let align_field = align | 1 << 6 | u32::from(inalloca) << 5;
        let ty = self.types.pointer(&mut self.m, allocated, 0);
        Ok((
            InstKind::Alloca {
                allocated,
                size,
                align_field,
            },
            ty,
            ate,
        ))
    }

    fn load(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let atomic = self.eat_word("atomic")?;
        let volatile = self.eat_word("volatile")?;
        let ty = self.parse_type(false)?;
        self.expect(Tok::Comma, "','")?;
        let (ptr, pt) = self.typed_value()?;
        if self.m.types.pointee(pt) != Some(ty) {
            return Err(self.err_at(
                at,
                "explicit pointee type doesn't match operand's pointee type",
            ));
        }
        let atomic = if atomic {
            Some(self.atomic_ordering()?)
        } else {
            None
        };
        let (align, ate) = self.opt_comma_align()?;
        Ok((
            InstKind::Load {
                ptr,
                align,
                volatile,
                atomic,
            },
            ty,
            ate,
        ))
    }

    fn store(&mut self, at: u32, void: TypeId) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let atomic = self.eat_word("atomic")?;
        let volatile = self.eat_word("volatile")?;
        let (value, vt) = self.typed_value()?;
        self.expect(Tok::Comma, "','")?;
        let (ptr, pt) = self.typed_value()?;
        if self.m.types.pointee(pt) != Some(vt) {
            return Err(self.err_at(at, "stored value and pointer type do not match"));
        }
        let atomic = if atomic {
            Some(self.atomic_ordering()?)
        } else {
            None
        };
        let (align, ate) = self.opt_comma_align()?;
        Ok((
            InstKind::Store {
                ptr,
                value,
                align,
                volatile,
                atomic,
            },
            void,
            ate,
        ))
    }

    fn gep(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let inbounds = self.eat_word("inbounds")?;
        let source_ty = self.parse_type(false)?;
        let mut ops = std::mem::take(&mut self.fs.buf_values);
        ops.clear();
        let mut ate = false;
        while self.eat(Tok::Comma)? {
            if self.at_attachment() {
                ate = true;
                break;
            }
            let (v, _) = self.typed_value()?;
            ops.push(v);
        }
        let ty = self.gep_type(source_ty, &ops, at)?;
        let start = self.fs.body.pool.len() as u32;
        self.fs.body.pool.extend(ops.iter().map(|v| v.0));
        let operands = PoolRange {
            start,
            len: ops.len() as u32,
        };
        self.fs.buf_values = ops;
        Ok((
            InstKind::Gep {
                inbounds,
                source_ty,
                operands,
            },
            ty,
            ate,
        ))
    }

    fn switch(&mut self, void: TypeId) -> Result<(InstKind, TypeId, bool)> {
        self.bump()?;
        let cat = self.tok.start;
        let (cond, ct) = self.typed_value()?;
        if self.m.types.int_width(ct).is_none() {
            return Err(self.err_at(cat, "switch condition must have integer type"));
        }
        self.expect(Tok::Comma, "','")?;
        let default = self.label_operand()?;
        self.expect(Tok::LSquare, "'[' before the switch cases")?;
        let mut pairs: Vec<u32> = Vec::new();
        while !self.eat(Tok::RSquare)? {
            let vat = self.tok.start;
            let t = self.parse_type(false)?;
            if t != ct {
                return Err(self.err_at(vat, "case value has the wrong type"));
            }
            let v = self.constant(t)?;
            if pairs.chunks_exact(2).any(|p| p[0] == Value::constant(v).0) {
                return Err(self.err_at(vat, "duplicate case value"));
            }
            self.expect(Tok::Comma, "','")?;
            let b = self.label_operand()?;
            pairs.push(Value::constant(v).0);
            pairs.push(b.0);
        }
        let cases = self.push_pool(&pairs);
        Ok((
            InstKind::Switch {
                cond,
                default,
                cases,
            },
            void,
            false,
        ))
    }

    /// Skips the tokens of a callee that is a constant expression (`bitcast (...)`) or a name.
    fn skip_callee(&mut self) -> Result<()> {
        if self.tok.tok == Tok::Word {
            while self.tok.tok == Tok::Word {
                self.bump()?;
            }
            if self.tok.tok != Tok::LParen {
                return Err(self.expected("'(' of a constant expression"));
            }
            let mut depth = 0u32;
            loop {
                match self.bump()?.tok {
                    Tok::LParen => depth += 1,
                    Tok::RParen => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    Tok::Eof => return Err(self.expected("')'")),
                    _ => {}
                }
            }
        }
        self.bump()?;
        Ok(())
    }

    fn call(&mut self, at: u32) -> Result<(InstKind, TypeId, bool)> {
        let mut cc_flags = 0u32;
        if self.eat_word("tail")? {
            cc_flags |= 1;
        } else if self.eat_word("musttail")? {
            cc_flags |= 1 << 14;
        }
        self.expect_word("call")?;
        let cc = self.calling_conv()?;
        cc_flags |= cc << 1;
        let ret_attrs = self.param_attrs()?;
        let tat = self.tok.start;
        let ty = self.parse_type(true)?;
        let explicit = match self.m.types.data(ty) {
            TypeData::Function { .. } => Some(ty),
            _ => None,
        };
        // The callee's type may depend on the arguments: remember where it is and read the
        // arguments first.
        let callee_tok = self.tok;
        let callee_lx = self.lx.pos();
        self.skip_callee()?;
        self.expect(Tok::LParen, "'(' before the call arguments")?;
        let mut args = std::mem::take(&mut self.fs.buf_vals);
        args.clear();
        let mut arg_types = std::mem::take(&mut self.fs.buf_types);
        arg_types.clear();
        let mut arg_attrs: Vec<(u32, Vec<dxil_module::Attribute>)> = Vec::new();
        let md_ty = self.types.metadata;
        if !self.eat(Tok::RParen)? {
            loop {
                let aat = self.tok.start;
                let t = self.parse_type(false)?;
                let a = self.param_attrs()?;
                if !a.is_empty() {
                    arg_attrs.push((args.len() as u32 + 1, a));
                }
                let v = if t == md_ty {
                    self.metadata_operand_value()?
                } else {
                    self.value(t)?
                };
                if let Some(ft) = explicit
                    && let Some((_, params, vararg)) = self.m.types.function_signature(ft)
                {
                    match params.get(args.len()) {
                        Some(&p) if p != t => {
                            return Err(self.err_at(
                                aat,
                                format!(
                                    "argument has type '{}', the callee expects '{}'",
                                    self.type_text(t),
                                    self.type_text(p)
                                ),
                            ));
                        }
                        None if !vararg => {
                            return Err(self.err_at(aat, "too many arguments for the callee"));
                        }
                        _ => {}
                    }
                }
                args.push(v.0);
                arg_types.push(t);
                if self.eat(Tok::RParen)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or ')' in the argument list")?;
            }
        }
        let fn_ty = match explicit {
            Some(ft) => {
                let n = self.m.types.function_signature(ft).map_or(0, |s| s.1.len());
                if args.len() < n {
                    return Err(self.err_at(at, "too few arguments for the callee"));
                }
                ft
            }
            None => {
                if matches!(self.m.types.data(ty), TypeData::Label | TypeData::Metadata) {
                    return Err(self.err_at(tat, "invalid call result type"));
                }
                // Usually the callee has been seen with this very type: no new type to build.
                match self.known_callee_type(&callee_tok) {
                    Some(k)
                        if self.m.types.function_signature(k)
                            == Some((ty, arg_types.as_slice(), false)) =>
                    {
                        k
                    }
                    _ => self.types.intern(
                        &mut self.m,
                        TypeData::Function {
                            vararg: false,
                            ret: ty,
                            params: arg_types.clone(),
                        },
                    ),
                }
            }
        };
        let mut fn_attrs = Vec::new();
        let mut group_refs = Vec::new();
        loop {
            match self.tok.tok {
                Tok::AttrGroupId(n) => {
                    group_refs.push((n, self.tok.start));
                    self.bump()?;
                }
                Tok::Word | Tok::Str => {
                    if !self.fn_attr(&mut fn_attrs)? {
                        break;
                    }
                }
                _ => break,
            }
        }
        // Now the callee, with its type known.
        let resume_tok = self.tok;
        let resume_lx = self.lx.pos();
        self.tok = callee_tok;
        self.lx.set_pos(callee_lx);
        let ptr_ty = self.types.pointer(&mut self.m, fn_ty, 0);
        let callee = self.value(ptr_ty)?;
        self.tok = resume_tok;
        self.lx.set_pos(resume_lx);
        let mut slots = Vec::new();
        if !ret_attrs.is_empty() {
            slots.push((0, ret_attrs));
        }
        slots.extend(arg_attrs);
        let inst = InstId(self.fs.body.insts.len() as u32);
        let attrs = self.attrs_pending(slots, fn_attrs, group_refs, Some(inst));
        let args_range = self.push_pool(&args);
        self.fs.buf_vals = args;
        self.fs.buf_types = arg_types;
        let args = args_range;
        let ret = self
            .m
            .types
            .function_signature(fn_ty)
            .map_or(ty, |(r, _, _)| r);
        Ok((
            InstKind::Call {
                callee,
                fn_ty,
                attrs,
                cc_flags,
                args,
            },
            ret,
            false,
        ))
    }

    /// The function type of a callee named by a global already defined or used.
    fn known_callee_type(&mut self, t: &super::lexer::Token) -> Option<TypeId> {
        let key = match t.tok {
            Tok::GlobalVar => Key::Name(self.name_of(t)),
            Tok::GlobalId(n) => Key::Id(n),
            _ => return None,
        };
        let found = match &key {
            Key::Name(n) => self.globals.get(n).copied(),
            Key::Id(n) => self.numbered_globals.get(*n as usize).copied(),
        };
        let ptr = match found {
            Some(v) => self.value_type(v)?,
            None => self.gfwd.get(*self.gfwd_index.get(&key)? as usize)?.ty,
        };
        self.m.types.pointee(ptr)
    }

    /// The operand of a `metadata` argument: `!N`, `!"..."`, `!{...}` or a wrapped value
    /// (`metadata float %x`).
    fn metadata_operand_value(&mut self) -> Result<Value> {
        if matches!(
            self.tok.tok,
            Tok::MetadataId(_) | Tok::MetadataString | Tok::Exclaim
        ) {
            let id = self.md_operand_required()?;
            return Ok(Value::metadata(id));
        }
        let (v, t) = self.typed_value()?;
        let id = self.md_value(t, v);
        Ok(Value::metadata(id))
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
