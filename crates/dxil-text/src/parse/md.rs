//! Metadata: `!N = [distinct] !{...}`, `!name = !{...}`, operands (`null`, `!N`, `!"..."`,
//! `!{...}`, `type value`), attachments and the kind table.
//!
//! Strings and wrapped values are uniqued as LLVM uniques them; numbered nodes may be used
//! before they are defined (cycles through `distinct` nodes are common). Inline `!{...}`
//! operands nest through an explicit stack.

use std::borrow::Cow;

use dxil_module::metadata::{LLVM_FIXED_KINDS as FIXED_KINDS, MdKind};
use dxil_module::{
    Attribute, ConstData, FUNCTION_SLOT, InstKind, MdData, MdId, PoolRange, TypeId, Value, ValueRef,
};

use super::lexer::{Tok, Token};
use super::{FxMap, MAX_DEPTH, MODULE_FWD, Name, Parser, Result};

/// What the module says about the compilation that produced it (see [`Parser::md_finish`]).
struct Hints {
    readnone: bool,
    branches: bool,
    nonuniform_handle: bool,
    strict_float: bool,
}

/// Kinds DXC registers before `dx.dbg.varlayout` when a module uses them, in DXC's order.
const EARLY_DXC_KINDS: [&str; 3] = ["dx.controlflow.hints", "llvm.loop", "dx.precise"];

#[derive(Copy, Clone)]
struct Numbered {
    id: MdId,
    defined: bool,
    first_ref: u32,
}

const UNUSED: u32 = u32::MAX;

/// `!N` below this are kept in a vector, larger ones in a map.
const DENSE: usize = 1 << 16;

#[derive(Default)]
pub(crate) struct MdState<'a> {
    numbered: Vec<Numbered>,
    numbered_far: FxMap<u32, Numbered>,
    strings: FxMap<Box<[u8]>, MdId>,
    values: FxMap<(TypeId, Value), MdId>,
    /// Attachment kinds by name, numbered in order of first use until [`Parser::md_finish`]
    /// gives them their table ids.
    kinds: FxMap<Name<'a>, u32>,
    kind_names: Vec<String>,
    ops: Vec<u32>,
    bytes: Vec<u8>,
}

impl<'a> Parser<'a> {
    /// The item of `!N`, created as a placeholder on first use.
    fn md_slot(&mut self, n: u32, at: u32) -> Result<MdId> {
        let i = n as usize;
        // Every node needs text of its own, so numbers beyond the text's length cannot all be
        // defined.
        if i > self.src.len() {
            return Err(self.err_at(at, format!("metadata number !{n} is too large")));
        }
        if let Some(e) = self.md_entry(n)
            && e.id.0 != UNUSED
        {
            return Ok(e.id);
        }
        let id = self.m.metadata.push(MdData::Node {
            distinct: false,
            operands: PoolRange::EMPTY,
        });
        let e = Numbered {
            id,
            defined: false,
            first_ref: at,
        };
        if i < DENSE {
            if i >= self.md.numbered.len() {
                self.md.numbered.resize(
                    i + 1,
                    Numbered {
                        id: MdId(UNUSED),
                        defined: false,
                        first_ref: 0,
                    },
                );
            }
            self.md.numbered[i] = e;
        } else {
            self.md.numbered_far.insert(n, e);
        }
        Ok(id)
    }

    fn md_entry(&self, n: u32) -> Option<Numbered> {
        match self.md.numbered.get(n as usize) {
            Some(e) => Some(*e),
            None => self.md.numbered_far.get(&n).copied(),
        }
    }

    fn md_entry_mut(&mut self, n: u32) -> Option<&mut Numbered> {
        match self.md.numbered.get_mut(n as usize) {
            Some(e) => Some(e),
            None => self.md.numbered_far.get_mut(&n),
        }
    }

    fn md_string(&mut self, t: &Token) -> MdId {
        let mut bytes = std::mem::take(&mut self.md.bytes);
        bytes.clear();
        self.bytes_of(t, &mut bytes);
        let id = match self.md.strings.get(bytes.as_slice()) {
            Some(&id) => id,
            None => {
                let id = self.m.metadata.push_string(&bytes);
                self.md.strings.insert(bytes.as_slice().into(), id);
                id
            }
        };
        self.md.bytes = bytes;
        id
    }

    /// A value wrapped as metadata; values of the function being parsed are not shared.
    pub(crate) fn md_value(&mut self, ty: TypeId, v: Value) -> MdId {
        let local = match v.get() {
            ValueRef::Inst(_) | ValueRef::Arg(_) => true,
            ValueRef::Unresolved(k) => k & MODULE_FWD == 0,
            _ => false,
        };
        if local {
            let id = self.m.metadata.push(MdData::Value { ty, value: v });
            self.fs.local_mds.push(id);
            return id;
        }
        *self
            .md
            .values
            .entry((ty, v))
            .or_insert_with(|| self.m.metadata.push(MdData::Value { ty, value: v }))
    }

    /// An attachment kind (`!dx.precise`).
    pub(crate) fn md_kind(&mut self, t: &Token) -> u32 {
        let name = self.name_of(t);
        if let Some(&k) = self.md.kinds.get(&name) {
            return k;
        }
        let k = self.md.kind_names.len() as u32;
        self.md.kind_names.push(name.to_string());
        self.md.kinds.insert(name, k);
        k
    }

    /// `!N` or an inline `!{...}` (attachments, named metadata operands).
    pub(crate) fn md_node_ref(&mut self) -> Result<MdId> {
        match self.tok.tok {
            Tok::MetadataId(n) => {
                let t = self.bump()?;
                self.md_slot(n, t.start)
            }
            Tok::Exclaim => self.inline_node(),
            _ => Err(self.expected("a metadata node ('!N')")),
        }
    }

    /// `!N`, `!"..."` or `!{...}`.
    pub(crate) fn md_operand_required(&mut self) -> Result<MdId> {
        if self.tok.tok == Tok::MetadataString {
            let t = self.bump()?;
            return Ok(self.md_string(&t));
        }
        self.md_node_ref()
    }

    /// `!{...}` as a new (uniqued-by-the-writer) node.
    fn inline_node(&mut self) -> Result<MdId> {
        self.expect(Tok::Exclaim, "'!'")?;
        let operands = self.md_node_operands()?;
        Ok(self.m.metadata.push(MdData::Node {
            distinct: false,
            operands,
        }))
    }

    /// `{ op, ... }` of a node, the current token being `{`. Inline nodes among the operands
    /// are built from an explicit stack.
    fn md_node_operands(&mut self) -> Result<PoolRange> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut ops = std::mem::take(&mut self.md.ops);
        let base = ops.len();
        let r = self.md_node_operands_inner(&mut ops, base);
        ops.truncate(base);
        self.md.ops = ops;
        r
    }

    fn md_node_operands_inner(&mut self, ops: &mut Vec<u32>, base: usize) -> Result<PoolRange> {
        // Start of each open node's operands in `ops`; the outermost is `base`.
        let mut frames: Vec<usize> = vec![base];
        let mut need_operand = !self.eat(Tok::RBrace)?;
        if !need_operand {
            frames.pop();
            return Ok(PoolRange::push(&mut self.m.metadata.operands, &[]));
        }
        loop {
            if need_operand {
                if self.tok.tok == Tok::Exclaim && self.lx_next_is(b'{') {
                    self.bump()?;
                    self.bump()?;
                    if frames.len() as u32 + self.depth >= MAX_DEPTH {
                        return Err(
                            self.err(format!("metadata nested deeper than {MAX_DEPTH} levels"))
                        );
                    }
                    frames.push(ops.len());
                    if !self.eat(Tok::RBrace)? {
                        continue;
                    }
                    // `!{}`: falls through to close the empty node.
                } else {
                    let enc = self.md_simple_operand()?;
                    ops.push(enc);
                    need_operand = false;
                    continue;
                }
            } else if self.eat(Tok::Comma)? {
                need_operand = true;
                continue;
            } else if !self.eat(Tok::RBrace)? {
                return Err(self.expected("',' or '}' in a metadata node"));
            }
            // Close the innermost node.
            let start = frames.pop().unwrap_or(base);
            let range = PoolRange::push(&mut self.m.metadata.operands, &ops[start..]);
            ops.truncate(start);
            if frames.is_empty() {
                return Ok(range);
            }
            let id = self.m.metadata.push(MdData::Node {
                distinct: false,
                operands: range,
            });
            ops.push(id.0 + 1);
            need_operand = false;
        }
    }

    /// One node operand other than an inline node, encoded as 0 (null) or id + 1.
    fn md_simple_operand(&mut self) -> Result<u32> {
        match self.tok.tok {
            Tok::Word if self.text() == "null" => {
                self.bump()?;
                Ok(0)
            }
            Tok::MetadataId(n) => {
                let t = self.bump()?;
                Ok(self.md_slot(n, t.start)?.0 + 1)
            }
            Tok::MetadataString => {
                let t = self.bump()?;
                Ok(self.md_string(&t).0 + 1)
            }
            Tok::MetadataVar => Err(self.err(format!(
                "specialized metadata ('{}') is not supported",
                self.describe(&self.tok)
            ))),
            _ => {
                let at = self.tok.start;
                let ty = self.parse_type(false)?;
                if ty == self.types.metadata {
                    return Err(
                        self.err_at(at, "'metadata' operands are written without a type here")
                    );
                }
                let v = self.const_value(ty)?;
                Ok(self.md_value(ty, v).0 + 1)
            }
        }
    }

    /// `!N = [distinct] !{...}`.
    pub(crate) fn metadata_definition(&mut self) -> Result<()> {
        let t = self.bump()?;
        let Tok::MetadataId(n) = t.tok else {
            return Err(self.err_at(t.start, "expected '!N'"));
        };
        self.expect(Tok::Equal, "'='")?;
        let distinct = self.eat_word("distinct")?;
        match self.tok.tok {
            Tok::Exclaim => {}
            Tok::MetadataVar => {
                return Err(self.err(format!(
                    "specialized metadata ('{}') is not supported",
                    self.describe(&self.tok)
                )));
            }
            _ => return Err(self.expected("'!{'")),
        }
        self.bump()?;
        let id = self.md_slot(n, t.start)?;
        if self.md_entry(n).is_some_and(|e| e.defined) {
            return Err(self.err_at(t.start, format!("redefinition of metadata '!{n}'")));
        }
        let operands = self.md_node_operands()?;
        if let Some(item) = self.m.metadata.items.get_mut(id.index()) {
            *item = MdData::Node { distinct, operands };
        }
        if let Some(e) = self.md_entry_mut(n) {
            e.defined = true;
        }
        Ok(())
    }

    /// `!name = !{!0, !1}`.
    pub(crate) fn named_metadata(&mut self) -> Result<()> {
        let t = self.bump()?;
        let name = self.name_of(&t).into_owned();
        self.expect(Tok::Equal, "'='")?;
        self.expect(Tok::Exclaim, "'!'")?;
        self.expect(Tok::LBrace, "'{'")?;
        let mut operands = Vec::new();
        if !self.eat(Tok::RBrace)? {
            loop {
                operands.push(self.md_node_ref()?);
                if self.eat(Tok::RBrace)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or '}'")?;
            }
        }
        self.m.metadata.extend_named(&name, &operands);
        Ok(())
    }

    /// Checks every `!N` used was defined, and builds the kind table.
    ///
    /// DXC writes every kind its context registered, used or not, in the order its passes first
    /// asked for them, and the listing shows only the used ones. The printer carries the whole
    /// table in a [`KINDS_COMMENT`](super::KINDS_COMMENT) line; when the text has one, that is
    /// the table. Otherwise it is rebuilt from what the listing implies: LLVM's fixed kinds; `dx.temp` and `dx.dbg.varlayout`, which DXC
    /// always registers (`dx.temp` first when the module calls `readnone` functions, which in
    /// DXC's output mostly means the entry point reads inputs that code generation copied
    /// through temporaries); the used DXC kinds in DXC's order; `dx.nonuniform` when a handle is
    /// created with a non-uniform index (the `NonUniformResourceIndex` marker is gone, the kind
    /// stays); `dx.precise` also when floating-point arithmetic lacks fast-math flags (only
    /// `precise` code does in DXC's output); and `dx.break.br` when a function branches.
    /// Attachments are renumbered to match.
    pub(crate) fn md_finish(&mut self) -> Result<()> {
        if let Some((n, e)) = self
            .md
            .numbered
            .iter()
            .enumerate()
            .map(|(n, e)| (n as u32, e))
            .chain(self.md.numbered_far.iter().map(|(n, e)| (*n, e)))
            .filter(|(_, e)| e.id.0 != UNUSED && !e.defined)
            .min_by_key(|(_, e)| e.first_ref)
        {
            return Err(self.err_at(e.first_ref, format!("use of undefined metadata '!{n}'")));
        }
        let table = match self.declared_kinds()? {
            Some(declared) => {
                let mut table: Vec<Cow<'static, str>> =
                    declared.into_iter().map(Cow::Owned).collect();
                for u in &self.md.kind_names {
                    if !table.iter().any(|t| t == u) {
                        table.push(Cow::Owned(u.clone()));
                    }
                }
                table
            }
            None => self.inferred_kinds(),
        };
        let used = &self.md.kind_names;
        let remap: Vec<u32> = used
            .iter()
            .map(|u| table.iter().position(|t| t == u).unwrap_or(0) as u32)
            .collect();
        self.m.metadata.kinds = table
            .iter()
            .enumerate()
            .map(|(i, name)| MdKind::new(i as u32, name.as_bytes()))
            .collect();
        if !remap.is_empty() {
            let map = |k: &mut u32| {
                if let Some(&r) = remap.get(*k as usize) {
                    *k = r;
                }
            };
            for f in &mut self.m.functions {
                if let Some(b) = &mut f.body {
                    for a in &mut b.attachments {
                        map(&mut a.kind);
                    }
                    for (k, _) in &mut b.fn_attachments {
                        map(k);
                    }
                }
            }
        }
        Ok(())
    }

    /// The kind table of the [`KINDS_COMMENT`](super::KINDS_COMMENT) line, when one of the
    /// comment lines before the first line of code is that line.
    fn declared_kinds(&self) -> Result<Option<Vec<String>>> {
        let src = self.src.as_bytes();
        let mut pos = 0usize;
        while pos < src.len() {
            let end = memchr::memchr(b'\n', &src[pos..]).map_or(src.len(), |n| pos + n);
            let line = &src[pos..end];
            let indent = line
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t' | b'\r'))
                .count();
            let rest = &line[indent..];
            if rest.starts_with(super::KINDS_COMMENT.as_bytes()) {
                let start = pos + indent + super::KINDS_COMMENT.len();
                // An empty list stands for no table: the printer writes none for an empty
                // table, so reading one as empty would not survive print -> parse.
                return self
                    .kind_list(start, end)
                    .map(|kinds| (!kinds.is_empty()).then_some(kinds));
            }
            if !rest.is_empty() && rest[0] != b';' {
                break;
            }
            pos = end + 1;
        }
        Ok(None)
    }

    /// The `!name` items of a kind-table line, `src[start..end]`.
    fn kind_list(&self, start: usize, end: usize) -> Result<Vec<String>> {
        let src = self.src.as_bytes();
        let is_name_char =
            |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_' | b'\\');
        let mut names: Vec<String> = Vec::new();
        let mut i = start;
        let mut bytes = Vec::new();
        while i < end {
            match src[i] {
                b' ' | b'\t' | b'\r' => i += 1,
                b'!' => {
                    let at = i;
                    i += 1;
                    let name_start = i;
                    while i < end && is_name_char(src[i]) {
                        i += 1;
                    }
                    if i == name_start {
                        return Err(self.err_at(at as u32, "expected a kind name after '!'"));
                    }
                    super::lexer::unescape(&src[name_start..i], &mut bytes);
                    let name = String::from_utf8_lossy(&bytes).into_owned();
                    if names.contains(&name) {
                        return Err(self.err_at(
                            at as u32,
                            format!("metadata kind '!{name}' is listed twice"),
                        ));
                    }
                    names.push(name);
                }
                _ => {
                    return Err(self.err_at(i as u32, "expected '!name' in the metadata kind list"));
                }
            }
        }
        Ok(names)
    }

    /// The kind table rebuilt from what the module implies (see [`Parser::md_finish`]).
    fn inferred_kinds(&self) -> Vec<Cow<'static, str>> {
        let hints = self.module_hints();
        let used = &self.md.kind_names;
        // DXC compiles everything with fast math except `precise` code, so floating-point
        // arithmetic without fast-math flags means `precise` was there.
        let is_used =
            |k: &str| used.iter().any(|u| u == k) || (k == "dx.precise" && hints.strict_float);
        let mut table: Vec<Cow<'static, str>> =
            FIXED_KINDS.iter().map(|k| Cow::Borrowed(*k)).collect();
        let early = EARLY_DXC_KINDS.iter().filter(|k| is_used(k));
        let mut others: Vec<Cow<'static, str>> = used
            .iter()
            .filter(|u| {
                !FIXED_KINDS.contains(&u.as_str()) && !EARLY_DXC_KINDS.contains(&u.as_str())
            })
            .map(|u| Cow::Owned(u.clone()))
            .collect();
        if hints.nonuniform_handle && !others.iter().any(|k| k == "dx.nonuniform") {
            others.push(Cow::Borrowed("dx.nonuniform"));
        }
        others.retain(|k| k != "dx.temp" && k != "dx.dbg.varlayout" && k != "dx.break.br");
        if hints.readnone {
            table.push(Cow::Borrowed("dx.temp"));
            table.extend(early.map(|k| Cow::Borrowed(*k)));
            table.push(Cow::Borrowed("dx.dbg.varlayout"));
            table.extend(others);
        } else {
            table.extend(early.map(|k| Cow::Borrowed(*k)));
            table.push(Cow::Borrowed("dx.dbg.varlayout"));
            table.extend(others);
            table.push(Cow::Borrowed("dx.temp"));
        }
        if hints.branches || is_used("dx.break.br") {
            table.push(Cow::Borrowed("dx.break.br"));
        }
        table
    }

    fn module_hints(&self) -> Hints {
        let m = &self.m;
        let readnone = m
            .attr_groups
            .iter()
            .any(|g| g.slot == FUNCTION_SLOT && g.attrs.contains(&Attribute::Enum(20)));
        let mut branches = false;
        let mut nonuniform_handle = false;
        let mut strict_float = false;
        for f in &m.functions {
            let Some(b) = &f.body else { continue };
            branches |= b.blocks.len() > 1;
            for inst in &b.insts {
                match &inst.kind {
                    InstKind::Binary { op, flags: 0, .. } if op.is_float() => strict_float = true,
                    InstKind::Cmp { pred, flags: 0, .. } if pred.is_float() => strict_float = true,
                    _ => {}
                }
                let InstKind::Call { callee, args, .. } = &inst.kind else {
                    continue;
                };
                let creates_handle = callee
                    .as_function()
                    .and_then(|c| m.function(c))
                    .is_some_and(|c| c.name.starts_with("dx.op.createHandle"));
                let last = b.values(*args).last();
                let nonuniform = last
                    .and_then(|v| v.as_const())
                    .and_then(|c| m.constants.get(c))
                    .is_some_and(|k| {
                        m.types.int_width(k.ty) == Some(1) && k.data == ConstData::Int(-1)
                    });
                nonuniform_handle |= creates_handle && nonuniform;
            }
        }
        Hints {
            readnone,
            branches,
            nonuniform_handle,
            strict_float,
        }
    }
}
