//! The LLVM 3.7 assembly printer, producing the text DXC's disassembler (`dxc -dumpbin`) prints
//! for the module.
//!
//! The layout, numbering and spelling follow LLVM 3.7's `AsmWriter`: `SlotTracker` numbering of
//! unnamed values, metadata and attribute groups; `TypeFinder` order for struct definitions; and
//! DXC's annotation writer for the comments after `dx.op` calls. Everything the printer numbers is
//! computed up front into flat vectors, and the text goes straight into the caller's writer.

mod attrs;
mod ident;
mod inst;
mod md;
mod number;
mod types;
mod value;

use std::fmt::{self, Write};

use dxil_module::{Body, FUNCTION_SLOT, Function, MdData, MdId, Module, TypeData, TypeId};

use attrs::{AttrTable, write_attrs};
use ident::{write_escaped, write_metadata_identifier, write_name};
use md::{Kinds, MdSlots};
use number::write_u64;
use types::TypeNames;

/// What the printer adds beyond the module itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// LLVM's comment lines: `; Function Attrs: ...` before functions, `; <label>:N` and the
    /// `; preds = ...` / `; No predecessors!` notes on blocks; and a first line with the
    /// module's metadata kind table ([`KINDS_COMMENT`](crate::parse::KINDS_COMMENT)), which the
    /// parser reads back.
    pub comments: bool,
    /// DXC's trailing notes on instructions: `  ; OpName(args)` after each `dx.op` call and
    /// ` ; line:L col:C` for instructions with a debug location.
    pub dxc_annotations: bool,
}

impl Default for PrintOptions {
    /// Everything on: the text matches DXC's listing.
    fn default() -> Self {
        PrintOptions {
            comments: true,
            dxc_annotations: true,
        }
    }
}

/// Prints the module as DXC's disassembler does (with [`PrintOptions::default`]).
pub fn print_module<W: Write + ?Sized>(module: &Module, out: &mut W) -> fmt::Result {
    print_module_with(module, &PrintOptions::default(), out)
}

/// Prints the module with the given options.
pub fn print_module_with<W: Write + ?Sized>(
    module: &Module,
    options: &PrintOptions,
    out: &mut W,
) -> fmt::Result {
    Printer::new(module, *options, out).module()
}

/// Prints the module to a byte sink (a file, stdout), through a 64 KiB buffer.
pub fn write_module<W: std::io::Write + ?Sized>(
    module: &Module,
    options: &PrintOptions,
    out: &mut W,
) -> std::io::Result<()> {
    let mut sink = IoSink {
        buf: String::with_capacity(IO_CHUNK + 4096),
        out,
        error: None,
    };
    let printed = print_module_with(module, options, &mut sink);
    let flushed = printed.and_then(|()| sink.flush());
    match (flushed, sink.error.take()) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(e)) => Err(e),
        (Err(_), None) => Err(std::io::Error::other("formatting the module failed")),
    }
}

const IO_CHUNK: usize = 1 << 16;

/// `fmt::Write` over an `io::Write`, keeping the first I/O error for the caller.
struct IoSink<'a, W: std::io::Write + ?Sized> {
    buf: String,
    out: &'a mut W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write + ?Sized> IoSink<'_, W> {
    fn flush(&mut self) -> fmt::Result {
        if let Err(e) = self.out.write_all(self.buf.as_bytes()) {
            self.error = Some(e);
            return Err(fmt::Error);
        }
        self.buf.clear();
        Ok(())
    }
}

impl<W: std::io::Write + ?Sized> Write for IoSink<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.buf.push_str(s);
        if self.buf.len() >= IO_CHUNK {
            self.flush()?;
        }
        Ok(())
    }
}

/// The module's text with [`PrintOptions::default`].
pub fn module_to_string(module: &Module) -> String {
    let mut s = String::new();
    // Writing to a `String` cannot fail.
    let _ = print_module(module, &mut s);
    s
}

const NO_SLOT: u32 = u32::MAX;

/// Slot numbers and names of one function's arguments, blocks and instructions.
#[derive(Default)]
struct Locals<'m> {
    params: &'m [TypeId],
    arg_slot: Vec<u32>,
    arg_name: Vec<Option<&'m str>>,
    inst_slot: Vec<u32>,
    inst_name: Vec<Option<&'m str>>,
    block_slot: Vec<u32>,
    block_name: Vec<Option<&'m str>>,
    /// Predecessors of each block (CSR: `pred_start[b]..pred_start[b + 1]` into `preds`), in the
    /// order LLVM lists them: most recently created branch first.
    pred_start: Vec<u32>,
    preds: Vec<u32>,
}

impl<'m> Locals<'m> {
    fn build(&mut self, m: &'m Module, f: &'m Function, with_preds: bool) {
        self.params = m.types.function_signature(f.ty).map_or(&[], |(_, p, _)| p);
        let Some(body) = &f.body else {
            self.arg_slot.clear();
            self.arg_name.clear();
            return;
        };
        let reset = |v: &mut Vec<u32>, n| {
            v.clear();
            v.resize(n, NO_SLOT);
        };
        let reset_names = |v: &mut Vec<Option<&'m str>>, n| {
            v.clear();
            v.resize(n, None);
        };
        let (na, ni, nb) = (self.params.len(), body.insts.len(), body.blocks.len());
        reset(&mut self.arg_slot, na);
        reset(&mut self.inst_slot, ni);
        reset(&mut self.block_slot, nb);
        reset_names(&mut self.arg_name, na);
        reset_names(&mut self.inst_name, ni);
        reset_names(&mut self.block_name, nb);
        for n in &body.names {
            let (slot, i, s) = match n {
                dxil_module::LocalName::Arg(a, s) => (&mut self.arg_name, *a as usize, s),
                dxil_module::LocalName::Inst(x, s) => (&mut self.inst_name, x.index(), s),
                dxil_module::LocalName::Block(b, s) => (&mut self.block_name, b.index(), s),
            };
            if let Some(e) = slot.get_mut(i)
                && !s.is_empty()
            {
                *e = Some(s.as_str());
            }
        }
        let mut next = 0u32;
        for (s, n) in self.arg_slot.iter_mut().zip(&self.arg_name) {
            if n.is_none() {
                *s = next;
                next += 1;
            }
        }
        for (b, blk) in body.blocks.iter().enumerate() {
            if self.block_name.get(b).is_some_and(|n| n.is_none()) {
                self.block_slot[b] = next;
                next += 1;
            }
            for i in blk.start..blk.end.min(ni as u32) {
                let i = i as usize;
                let unnamed = self.inst_name.get(i).is_some_and(|n| n.is_none());
                if unnamed && body.insts.get(i).is_some_and(|d| !m.types.is_void(d.ty)) {
                    self.inst_slot[i] = next;
                    next += 1;
                }
            }
        }
        self.pred_start.clear();
        self.preds.clear();
        if with_preds {
            self.build_preds(body);
        }
    }

    /// A block's use list holds its branches newest first, so walking the terminators backwards
    /// yields LLVM's predecessor order.
    fn build_preds(&mut self, body: &Body) {
        let nb = body.blocks.len();
        let mut count = vec![0u32; nb + 1];
        let mut succ = Vec::new();
        for b in 0..nb {
            body.successors(dxil_module::BlockId(b as u32), &mut succ);
            for s in &succ {
                if let Some(c) = count.get_mut(s.index()) {
                    *c += 1;
                }
            }
        }
        let mut total = 0;
        for c in &count[..nb] {
            self.pred_start.push(total);
            total += c;
        }
        self.pred_start.push(total);
        self.preds.resize(total as usize, 0);
        let mut fill: Vec<u32> = self.pred_start[..nb].to_vec();
        for b in (0..nb).rev() {
            body.successors(dxil_module::BlockId(b as u32), &mut succ);
            for s in &succ {
                if let Some(pos) = fill.get_mut(s.index()) {
                    if let Some(p) = self.preds.get_mut(*pos as usize) {
                        *p = b as u32;
                    }
                    *pos += 1;
                }
            }
        }
    }

    fn preds_of(&self, b: usize) -> &[u32] {
        match (self.pred_start.get(b), self.pred_start.get(b + 1)) {
            (Some(&s), Some(&e)) => self.preds.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Deferred pieces of an operand's text. Constants and metadata nest as deeply as the input
/// says, so they are written from an explicit stack rather than by recursion.
#[derive(Copy, Clone)]
enum Work {
    S(&'static str),
    Ty(TypeId),
    /// A value without its type.
    Op(dxil_module::Value),
    /// A value preceded by its type.
    TyOp(dxil_module::Value),
    /// A metadata node operand as stored (0 = null, else id + 1).
    Md(u32),
    /// An element of a `ConstantDataArray/Vector`: element type and raw bits.
    Elem(TypeId, u64),
}

struct Printer<'m, 'o, W: Write + ?Sized> {
    m: &'m Module,
    out: &'o mut W,
    opts: PrintOptions,
    types: TypeNames,
    kinds: Kinds<'m>,
    md: MdSlots,
    attrs: AttrTable<'m>,
    /// Function attribute set number → `#N`.
    as_slot: Vec<u32>,
    /// Text written over and over, rendered once: `@name` of every global and function, and
    /// scalar constants as they are met. Spans are (start, len) into `cache`.
    cache: String,
    global_text: Vec<(u32, u32)>,
    function_text: Vec<(u32, u32)>,
    const_text: Vec<(u32, u32)>,
    /// The function being printed.
    func: Option<&'m Function>,
    locals: Locals<'m>,
    work: Vec<Work>,
    /// Most work items one operand may take (see `drain`).
    work_budget: usize,
    att: Vec<(u32, MdId)>,
    /// Per constant: 0 unknown, 1 plain, 2 zero (`zeroinitializer`), 3 `undef`, 4 in progress.
    const_class: Vec<u8>,
    line: String,
}

impl<'m, 'o, W: Write + ?Sized> Printer<'m, 'o, W> {
    fn new(m: &'m Module, opts: PrintOptions, out: &'o mut W) -> Self {
        let kinds = Kinds::new(&m.metadata);
        let types = TypeNames::new(m, &kinds);
        let md = MdSlots::new(m, &kinds);
        let attrs = AttrTable::new(m);
        // Attribute groups are numbered as LLVM's SlotTracker meets them: every function's own
        // attributes first, then call sites function by function.
        let mut as_slot = vec![NO_SLOT; attrs.fn_set_count()];
        let mut next = 0;
        let mut number = |set: Option<u32>| {
            if let Some(s) = set.and_then(|s| as_slot.get_mut(s as usize))
                && *s == NO_SLOT
            {
                *s = next;
                next += 1;
            }
        };
        for f in &m.functions {
            number(attrs.fn_set(f.attrs));
        }
        for f in &m.functions {
            if let Some(body) = &f.body {
                for inst in &body.insts {
                    if let dxil_module::InstKind::Call { attrs: a, .. } = &inst.kind {
                        number(attrs.fn_set(*a));
                    }
                }
            }
        }
        // Unnamed globals, then unnamed functions, are numbered `@0`, `@1`, ...
        let mut cache = String::with_capacity(64 * (m.globals.len() + m.functions.len()) + 4096);
        let mut next = 0u64;
        let mut render = |cache: &mut String, name: &str| -> (u32, u32) {
            let start = cache.len();
            if name.is_empty() {
                cache.push('@');
                let _ = write_u64(cache, next);
                next += 1;
            } else {
                let _ = write_name(cache, "@", name);
            }
            (start as u32, (cache.len() - start) as u32)
        };
        let global_text = m
            .globals
            .iter()
            .map(|g| render(&mut cache, &g.name))
            .collect();
        let function_text = m
            .functions
            .iter()
            .map(|f| render(&mut cache, &f.name))
            .collect();
        Printer {
            m,
            out,
            cache,
            global_text,
            function_text,
            const_text: vec![(NO_SLOT, 0); m.constants.len()],
            opts,
            types,
            kinds,
            md,
            attrs,
            as_slot,
            func: None,
            locals: Locals::default(),
            work: Vec::with_capacity(64),
            work_budget: 16
                * (m.constants.len()
                    + m.constants.values.len()
                    + m.constants.words.len()
                    + m.metadata.operands.len())
                + 4096,
            att: Vec::with_capacity(4),
            const_class: vec![0; m.constants.len()],
            line: String::with_capacity(128),
        }
    }

    fn s(&mut self, s: &str) -> fmt::Result {
        self.out.write_str(s)
    }

    fn num(&mut self, n: u64) -> fmt::Result {
        write_u64(self.out, n)
    }

    fn ty(&mut self, t: TypeId) -> fmt::Result {
        self.types.write(self.m, self.out, t)
    }

    fn module(&mut self) -> fmt::Result {
        let m = self.m;
        if self.opts.comments {
            md::write_kinds_comment(self.out, &m.metadata)?;
        }
        if !m.datalayout.is_empty() {
            self.s("target datalayout = \"")?;
            self.s(&m.datalayout)?;
            self.s("\"\n")?;
        }
        if !m.triple.is_empty() {
            self.s("target triple = \"")?;
            self.s(&m.triple)?;
            self.s("\"\n")?;
        }
        self.type_definitions()?;
        if !m.globals.is_empty() {
            self.s("\n")?;
        }
        for i in 0..m.globals.len() {
            self.global(i)?;
            self.s("\n")?;
        }
        for fi in 0..m.functions.len() {
            self.function(fi)?;
        }
        if !self.as_slot.is_empty() {
            self.s("\n")?;
            self.attribute_groups()?;
        }
        if !m.metadata.named.is_empty() {
            self.s("\n")?;
        }
        for nmd in &m.metadata.named {
            self.s("!")?;
            write_metadata_identifier(self.out, &nmd.name)?;
            self.s(" = !{")?;
            for (i, op) in m.metadata.named_operands(nmd).iter().enumerate() {
                if i > 0 {
                    self.s(", ")?;
                }
                self.md_ref(*op)?;
            }
            self.s("}\n")?;
        }
        if !self.md.order.is_empty() {
            self.s("\n")?;
            for slot in 0..self.md.order.len() {
                let id = self.md.order[slot];
                self.s("!")?;
                self.num(slot as u64)?;
                self.s(" = ")?;
                self.md_node_body(id)?;
                self.s("\n")?;
            }
        }
        Ok(())
    }

    fn type_definitions(&mut self) -> fmt::Result {
        if self.types.numbered.is_empty() && self.types.named.is_empty() {
            return Ok(());
        }
        self.s("\n")?;
        for i in 0..self.types.numbered.len() {
            let t = self.types.numbered[i];
            self.s("%")?;
            self.num(i as u64)?;
            self.s(" = type ")?;
            self.types.write_struct_body(self.m, self.out, t)?;
            self.s("\n")?;
        }
        for i in 0..self.types.named.len() {
            let t = self.types.named[i];
            if let TypeData::Struct { name: Some(n), .. } = self.m.types.data(t) {
                write_name(self.out, "%", n)?;
            }
            self.s(" = type ")?;
            self.types.write_struct_body(self.m, self.out, t)?;
            self.s("\n")?;
        }
        Ok(())
    }

    fn global(&mut self, i: usize) -> fmt::Result {
        let m = self.m;
        let g = &m.globals[i];
        self.global_name(i)?;
        self.s(" = ")?;
        if g.init.is_none() && linkage_keyword(g.linkage).is_empty() {
            self.s("external ")?;
        }
        self.s(linkage_keyword(g.linkage))?;
        if !is_local_linkage(g.linkage) {
            self.s(visibility_keyword(g.visibility))?;
        }
        self.s(dll_keyword(g.dll_storage, g.linkage))?;
        self.s(match g.thread_local {
            0 => "",
            2 => "thread_local(localdynamic) ",
            3 => "thread_local(initialexec) ",
            4 => "thread_local(localexec) ",
            _ => "thread_local ",
        })?;
        if g.unnamed_addr != 0 {
            self.s("unnamed_addr ")?;
        }
        if g.address_space != 0 {
            self.s("addrspace(")?;
            self.num(u64::from(g.address_space))?;
            self.s(") ")?;
        }
        if g.externally_initialized {
            self.s("externally_initialized ")?;
        }
        self.s(if g.is_constant {
            "constant "
        } else {
            "global "
        })?;
        self.ty(g.value_ty)?;
        if let Some(init) = g.init {
            self.s(" ")?;
            self.operand(init)?;
        }
        if let Some(sec) = section_name(m, g.section) {
            self.s(", section \"")?;
            write_escaped(self.out, sec.as_bytes())?;
            self.s("\"")?;
        }
        if let Some(a) = alignment(g.align) {
            self.s(", align ")?;
            self.num(a)?;
        }
        Ok(())
    }

    fn global_name(&mut self, i: usize) -> fmt::Result {
        let span = self.global_text.get(i).copied();
        self.cached(span)
    }

    fn function_name(&mut self, i: usize) -> fmt::Result {
        let span = self.function_text.get(i).copied();
        self.cached(span)
    }

    /// Writes a span of `cache`, or `<badref>` for a missing one.
    fn cached(&mut self, span: Option<(u32, u32)>) -> fmt::Result {
        match span.and_then(|(s, n)| self.cache.get(s as usize..(s + n) as usize)) {
            Some(text) => self.out.write_str(text),
            None => self.out.write_str("<badref>"),
        }
    }

    fn function(&mut self, fi: usize) -> fmt::Result {
        let m = self.m;
        let f = &m.functions[fi];
        self.locals.build(m, f, self.opts.comments);
        self.func = Some(f);
        self.s("\n")?;
        let fn_attrs = self.attrs.get(f.attrs, FUNCTION_SLOT);
        if self.opts.comments && fn_attrs.iter().any(|a| !matches!(a, attrs::Attr::Str(..))) {
            self.out.write_str("; Function Attrs: ")?;
            write_attrs(
                self.out,
                self.attrs.get(f.attrs, FUNCTION_SLOT),
                false,
                true,
            )?;
            self.s("\n")?;
        }
        let body = f.body.as_ref();
        self.s(if body.is_some() {
            "define "
        } else {
            "declare "
        })?;
        self.s(linkage_keyword(f.linkage))?;
        if !is_local_linkage(f.linkage) {
            self.s(visibility_keyword(f.visibility))?;
        }
        self.s(dll_keyword(f.dll_storage, f.linkage))?;
        if f.calling_conv != 0 {
            write_calling_conv(self.out, f.calling_conv)?;
            self.s(" ")?;
        }
        if !self.attrs.get(f.attrs, 0).is_empty() {
            write_attrs(self.out, self.attrs.get(f.attrs, 0), false, false)?;
            self.s(" ")?;
        }
        let (ret, vararg) = match m.types.data(f.ty) {
            TypeData::Function { ret, vararg, .. } => (*ret, *vararg),
            _ => (f.ty, false),
        };
        self.ty(ret)?;
        self.s(" ")?;
        self.function_name(fi)?;
        self.s("(")?;
        let params = self.locals.params;
        for (i, &p) in params.iter().enumerate() {
            if i > 0 {
                self.s(", ")?;
            }
            self.ty(p)?;
            let idx = i as u32 + 1;
            if !self.attrs.get(f.attrs, idx).is_empty() {
                self.s(" ")?;
                write_attrs(self.out, self.attrs.get(f.attrs, idx), false, false)?;
            }
            if body.is_some()
                && let Some(name) = self.locals.arg_name.get(i).copied().flatten()
            {
                self.s(" ")?;
                write_name(self.out, "%", name)?;
            }
        }
        if vararg {
            if !params.is_empty() {
                self.s(", ")?;
            }
            self.s("...")?;
        }
        self.s(")")?;
        if f.unnamed_addr != 0 {
            self.s(" unnamed_addr")?;
        }
        if let Some(set) = self.attrs.fn_set(f.attrs) {
            self.s(" #")?;
            let n = self.as_slot.get(set as usize).copied().unwrap_or(NO_SLOT);
            self.num(u64::from(n))?;
        }
        if let Some(sec) = section_name(m, f.section) {
            self.s(" section \"")?;
            write_escaped(self.out, sec.as_bytes())?;
            self.s("\"")?;
        }
        if let Some(a) = alignment(f.align) {
            self.s(" align ")?;
            self.num(a)?;
        }
        if let Some(gc) = f.gc.checked_sub(1).and_then(|i| m.gc_names.get(i as usize)) {
            self.s(" gc \"")?;
            self.s(gc)?;
            self.s("\"")?;
        }
        let Some(body) = body else {
            self.func = None;
            return self.s("\n");
        };
        let mut att = std::mem::take(&mut self.att);
        self.kinds.function_attachments(body, &mut att);
        for &(kind, node) in &att {
            self.s(" ")?;
            self.kinds.write_kind(self.out, kind)?;
            self.s(" ")?;
            self.md_ref(node)?;
        }
        self.att = att;
        self.s(" {")?;
        self.body(body)?;
        self.s("}\n")?;
        self.func = None;
        Ok(())
    }

    fn body(&mut self, body: &'m Body) -> fmt::Result {
        let mut att_cursor = 0usize;
        let mut loc_cursor = 0usize;
        for (b, blk) in body.blocks.iter().enumerate() {
            self.block_header(b)?;
            // A well-formed body's blocks lie within its instructions; clamp anything else.
            for i in blk.start..blk.end.min(body.insts.len() as u32) {
                self.instruction(body, i, &mut att_cursor, &mut loc_cursor)?;
            }
        }
        Ok(())
    }

    fn block_header(&mut self, b: usize) -> fmt::Result {
        let comments = self.opts.comments;
        let has_preds = !self.locals.preds_of(b).is_empty();
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        if let Some(Some(name)) = self.locals.block_name.get(b) {
            write_name(&mut line, "", name)?;
            line.push(':');
            self.s("\n")?;
        } else if comments && has_preds {
            line.push_str("; <label>:");
            write_u64(&mut line, u64::from(self.locals.block_slot[b]))?;
            self.s("\n")?;
        }
        if comments && b > 0 {
            // `formatted_raw_ostream::PadToColumn(50)`: at least one space.
            let pad = 50usize.saturating_sub(line.len()).max(1);
            for _ in 0..pad {
                line.push(' ');
            }
            line.push(';');
            let preds = self.locals.preds_of(b);
            if preds.is_empty() {
                line.push_str(" No predecessors!");
            } else {
                line.push_str(" preds = ");
                for (i, &p) in preds.iter().enumerate() {
                    if i > 0 {
                        line.push_str(", ");
                    }
                    write_block_ref(&mut line, &self.locals, p as usize)?;
                }
            }
        }
        line.push('\n');
        let r = self.out.write_str(&line);
        self.line = line;
        r
    }

    fn attribute_groups(&mut self) -> fmt::Result {
        let mut by_slot: Vec<(u32, u32)> = self
            .as_slot
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != NO_SLOT)
            .map(|(set, s)| (*s, set as u32))
            .collect();
        by_slot.sort_unstable();
        for (slot, set) in by_slot {
            self.s("attributes #")?;
            self.num(u64::from(slot))?;
            self.s(" = { ")?;
            write_attrs(self.out, self.attrs.fn_set_attrs(set), true, false)?;
            self.s(" }\n")?;
        }
        Ok(())
    }

    /// `!N` for a node, `!"..."` for a string, `type value` for a value.
    fn md_ref(&mut self, id: MdId) -> fmt::Result {
        self.work.push(Work::Md(id.0 + 1));
        self.drain()
    }

    fn md_node_body(&mut self, id: MdId) -> fmt::Result {
        match self.m.metadata.get(id) {
            Some(MdData::Node { distinct, operands }) => {
                if *distinct {
                    self.s("distinct ")?;
                }
                self.s("!{")?;
                let ops = operands.get(&self.m.metadata.operands);
                self.work.push(Work::S("}"));
                for (i, &op) in ops.iter().enumerate().rev() {
                    self.work.push(Work::Md(op));
                    if i > 0 {
                        self.work.push(Work::S(", "));
                    }
                }
                self.drain()
            }
            Some(MdData::Other { code, .. }) => {
                // Debug-info records (DILocation, DISubprogram, ...) are not spelled out.
                self.s("!<unsupported metadata record ")?;
                self.num(u64::from(*code))?;
                self.s(">")
            }
            _ => self.s("<badref>"),
        }
    }
}

/// `%name` or `%N` for a block of the current function.
fn write_block_ref<W: Write + ?Sized>(out: &mut W, locals: &Locals<'_>, b: usize) -> fmt::Result {
    if let Some(Some(name)) = locals.block_name.get(b) {
        return write_name(out, "%", name);
    }
    match locals.block_slot.get(b) {
        Some(&s) if s != NO_SLOT => {
            out.write_char('%')?;
            write_u64(out, u64::from(s))
        }
        _ => out.write_str("<badref>"),
    }
}

/// The linkage keyword (with its trailing space) for a bitcode linkage number, decoded as LLVM
/// 3.7 decodes it (obsolete numbers map to their replacements).
fn linkage_keyword(raw: u32) -> &'static str {
    match raw {
        2 => "appending ",
        3 => "internal ",
        7 => "extern_weak ",
        8 => "common ",
        9 | 13 | 14 => "private ",
        12 => "available_externally ",
        1 | 16 => "weak ",
        10 | 17 => "weak_odr ",
        4 | 18 => "linkonce ",
        11 | 19 => "linkonce_odr ",
        _ => "",
    }
}

fn is_local_linkage(raw: u32) -> bool {
    matches!(raw, 3 | 9 | 13 | 14)
}

fn visibility_keyword(v: u32) -> &'static str {
    match v {
        1 => "hidden ",
        2 => "protected ",
        _ => "",
    }
}

/// DLL storage class; the obsolete dllimport/dllexport linkages imply it when the record has none.
fn dll_keyword(storage: u32, linkage: u32) -> &'static str {
    match (storage, linkage) {
        (1, _) | (0, 5) => "dllimport ",
        (2, _) | (0, 6) => "dllexport ",
        _ => "",
    }
}

/// Alignment from a log2(align) + 1 field.
fn alignment(field: u32) -> Option<u64> {
    match field {
        1..=64 => 1u64.checked_shl(field - 1),
        _ => None,
    }
}

fn section_name(m: &Module, field: u32) -> Option<&str> {
    field
        .checked_sub(1)
        .and_then(|i| m.section_names.get(i as usize))
        .map(String::as_str)
}

fn write_calling_conv<W: Write + ?Sized>(out: &mut W, cc: u32) -> fmt::Result {
    let name = match cc {
        8 => "fastcc",
        9 => "coldcc",
        10 => "ghccc",
        12 => "webkit_jscc",
        13 => "anyregcc",
        14 => "preserve_mostcc",
        15 => "preserve_allcc",
        64 => "x86_stdcallcc",
        65 => "x86_fastcallcc",
        66 => "arm_apcscc",
        67 => "arm_aapcscc",
        68 => "arm_aapcs_vfpcc",
        69 => "msp430_intrcc",
        70 => "x86_thiscallcc",
        71 => "ptx_kernel",
        72 => "ptx_device",
        75 => "spir_func",
        76 => "spir_kernel",
        77 => "intel_ocl_bicc",
        78 => "x86_64_sysvcc",
        79 => "x86_64_win64cc",
        80 => "x86_vectorcallcc",
        _ => {
            out.write_str("cc")?;
            return write_u64(out, u64::from(cc));
        }
    };
    out.write_str(name)
}

#[cfg(test)]
mod tests;
