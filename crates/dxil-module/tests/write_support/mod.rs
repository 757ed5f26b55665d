//! Shared helpers of the writer tests: the corpus, diff localisation, and a dump of a module
//! that does not depend on the order of its tables (so two modules compare by meaning).
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Write;

use dxil_bitstream::{BitstreamReader, Entry};
use dxil_module::constants::ConstData;
use dxil_module::metadata::MdData;
use dxil_module::module::{Body, Function, LocalName};
use dxil_module::types::TypeData;
use dxil_module::{ConstId, MdId, Module, TypeId, Value, ValueRef};

/// `(relative name, DXIL-part bitcode)` of every corpus container that has a program.
pub fn corpus_programs() -> Option<Vec<(String, Vec<u8>)>> {
    let dir = dxil_corpus::corpus_dir()?;
    let files = dxil_corpus::containers(&dir);
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let c = dxil_container::Container::parse(&bytes).unwrap();
        let Some(p) = c.program() else { continue };
        let p = p.unwrap();
        let name = dxil_corpus::relative_name(&dir, &f);
        out.push((name, p.bitcode.to_vec()));
    }
    assert!(out.len() > 1800, "corpus has only {} programs", out.len());
    Some(out)
}

/// Where `ours` first departs from `theirs`: the bit, and the block and record of `theirs`.
pub fn describe_position(theirs: &[u8], ours: &[u8]) -> String {
    let byte = theirs
        .iter()
        .zip(ours)
        .position(|(a, b)| a != b)
        .unwrap_or(theirs.len().min(ours.len()));
    let bit = byte as u64 * 8
        + theirs
            .get(byte)
            .zip(ours.get(byte))
            .map_or(0, |(a, b)| u64::from((a ^ b).trailing_zeros()));
    let mut r = match BitstreamReader::new(theirs, 0) {
        Ok(r) => r,
        Err(e) => return format!("bit {bit}: unreadable: {e}"),
    };
    let mut ops = Vec::new();
    let mut what = String::from("start");
    while let Ok(e) = r.next() {
        match e {
            Entry::SubBlock {
                block_id,
                bit_offset,
                ..
            } => {
                if bit_offset > bit {
                    break;
                }
                what = format!("header of block {block_id}");
                if r.enter_block().is_err() {
                    break;
                }
            }
            Entry::Record { bit_offset, .. } => {
                if bit_offset > bit {
                    break;
                }
                match r.read_record(&mut ops) {
                    Ok(rec) => {
                        let stack: Vec<u32> = r.block_stack().collect();
                        let shown: Vec<u64> = ops.iter().take(12).copied().collect();
                        what = format!(
                            "record code {} (abbrev {}) in blocks {stack:?}, ops {shown:?}",
                            rec.code, rec.abbrev_id
                        );
                    }
                    Err(_) => break,
                }
            }
            Entry::DefineAbbrev { bit_offset, .. } => {
                if bit_offset > bit {
                    break;
                }
                what = "an abbreviation definition".into();
            }
            Entry::EndBlock {
                block_id,
                bit_offset,
            } => {
                if bit_offset > bit {
                    break;
                }
                what = format!("end of block {block_id}");
            }
            Entry::TrailingData { .. } | Entry::EndOfStream => break,
        }
    }
    format!(
        "first difference at bit {bit} (sizes {} vs {}), in {what}; {}",
        theirs.len(),
        ours.len(),
        first_item_difference(theirs, ours)
    )
}

/// The first structural difference (block, abbreviation or record), ignoring layout.
pub fn first_item_difference(theirs: &[u8], ours: &[u8]) -> String {
    use dxil_bitstream::{Item, read_items};
    let (Ok(a), Ok(b)) = (read_items(theirs), read_items(ours)) else {
        return "one stream does not parse".into();
    };
    let mut stack: Vec<u32> = Vec::new();
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            let short = |it: &Item| {
                let s = format!("{it:?}");
                s.chars().take(300).collect::<String>()
            };
            return format!(
                "item {i} in blocks {stack:?}: DXC {} / ours {}",
                short(x),
                short(y)
            );
        }
        match x {
            Item::Block { block_id, .. } => stack.push(*block_id),
            Item::EndBlock => {
                stack.pop();
            }
            _ => {}
        }
    }
    format!("items agree up to {} / {}", a.len(), b.len())
}

/// A text dump of a module that names types structurally, constants by value and metadata by
/// content, so that it does not depend on table order or numbering.
pub fn dump(m: &Module) -> String {
    let mut d = Dumper {
        m,
        md_num: HashMap::new(),
        md_defs: Vec::new(),
    };
    let mut s = String::new();
    let _ = writeln!(s, "triple {:?} datalayout {:?}", m.triple, m.datalayout);
    for g in &m.globals {
        let init = g.init.map(|v| d.value(None, v)).unwrap_or_default();
        let _ = writeln!(
            s,
            "global @{} {} as{} const={} init={} link={} align={} sec={} vis={} tls={} ua={} ext={} dll={}",
            g.name,
            d.ty(g.value_ty),
            g.address_space,
            g.is_constant,
            init,
            g.linkage,
            g.align,
            g.section,
            g.visibility,
            g.thread_local,
            g.unnamed_addr,
            g.externally_initialized,
            g.dll_storage
        );
    }
    for f in &m.functions {
        let _ = writeln!(
            s,
            "function @{} {} cc={} link={} attrs={} align={} vis={} ua={} dll={} proto={}",
            f.name,
            d.ty(f.ty),
            f.calling_conv,
            f.linkage,
            d.attrs(f.attrs),
            f.align,
            f.visibility,
            f.unnamed_addr,
            f.dll_storage,
            f.body.is_none()
        );
        if let Some(b) = &f.body {
            d.body(&mut s, f, b);
        }
    }
    for nm in &m.metadata.named {
        let ops: Vec<String> = m
            .metadata
            .named_operands(nm)
            .iter()
            .map(|&o| d.md(o))
            .collect();
        let _ = writeln!(s, "!{} = {}", nm.name, ops.join(", "));
    }
    let mut kinds: Vec<(u32, String)> = m
        .metadata
        .kinds
        .iter()
        .map(|k| (k.id, k.name.to_string()))
        .collect();
    kinds.sort();
    let _ = writeln!(s, "kinds {kinds:?}");
    for (i, def) in d.md_defs.iter().enumerate() {
        let _ = writeln!(s, "#{i} = {def}");
    }
    s
}

struct Dumper<'m> {
    m: &'m Module,
    md_num: HashMap<u32, usize>,
    md_defs: Vec<String>,
}

impl Dumper<'_> {
    fn ty(&self, t: TypeId) -> String {
        self.ty_depth(t, 0)
    }

    fn ty_depth(&self, t: TypeId, depth: usize) -> String {
        if depth > 64 {
            return "…".into();
        }
        let r = |x: TypeId| self.ty_depth(x, depth + 1);
        match self.m.types.get(t) {
            None => format!("<bad type {}>", t.0),
            Some(d) => match d {
                TypeData::Void => "void".into(),
                TypeData::Half => "half".into(),
                TypeData::Float => "float".into(),
                TypeData::Double => "double".into(),
                TypeData::Label => "label".into(),
                TypeData::Metadata => "metadata".into(),
                TypeData::OtherFloat(k) => format!("{k:?}"),
                TypeData::Int(w) => format!("i{w}"),
                TypeData::Pointer {
                    pointee,
                    address_space,
                } => format!("{} addrspace({address_space})*", r(*pointee)),
                TypeData::Array { len, elem } => format!("[{len} x {}]", r(*elem)),
                TypeData::Vector { len, elem } => format!("<{len} x {}>", r(*elem)),
                TypeData::Struct {
                    name: Some(n),
                    packed,
                    opaque,
                    elems,
                } => {
                    if depth == 0 {
                        let es: Vec<String> = elems.iter().map(|&e| r(e)).collect();
                        format!("%{n}={{packed={packed} opaque={opaque} {}}}", es.join(", "))
                    } else {
                        format!("%{n}")
                    }
                }
                TypeData::Struct {
                    name: None,
                    packed,
                    elems,
                    ..
                } => {
                    let es: Vec<String> = elems.iter().map(|&e| r(e)).collect();
                    format!(
                        "{}{{{}}}",
                        if *packed { "packed" } else { "" },
                        es.join(", ")
                    )
                }
                TypeData::Function {
                    vararg,
                    ret,
                    params,
                } => {
                    let ps: Vec<String> = params.iter().map(|&p| r(p)).collect();
                    format!(
                        "{} ({}{})",
                        r(*ret),
                        ps.join(", "),
                        if *vararg { ", ..." } else { "" }
                    )
                }
            },
        }
    }

    fn attrs(&self, l: Option<dxil_module::AttrListId>) -> String {
        let Some(l) = l else { return "none".into() };
        let mut gs: Vec<String> = self
            .m
            .attr_list(l)
            .map(|g| format!("{}:{:?}", g.slot, g.attrs))
            .collect();
        gs.sort();
        gs.join(" ")
    }

    fn constant(&mut self, c: ConstId, depth: usize) -> String {
        if depth > 64 {
            return "…".into();
        }
        let Some(k) = self.m.constants.get(c) else {
            return format!("<bad const {}>", c.0);
        };
        let ty = self.ty_depth(k.ty, 1);
        let cs = &self.m.constants;
        let body = match &k.data {
            ConstData::Null => "null".into(),
            ConstData::Undef => "undef".into(),
            ConstData::Int(v) => v.to_string(),
            ConstData::WideInt(r) => format!("{:?}", cs.words_of(*r)),
            ConstData::Float(b) => format!("0x{b:x}"),
            ConstData::Data(r) => format!("data{:?}", cs.words_of(*r)),
            ConstData::String(r) => format!("str{:?}", cs.bytes_of(*r)),
            ConstData::CString(r) => format!("cstr{:?}", cs.bytes_of(*r)),
            ConstData::Aggregate(r) => {
                let vs: Vec<Value> = cs.values_of(*r).to_vec();
                let es: Vec<String> = vs.iter().map(|&v| self.cval(v, depth + 1)).collect();
                format!("{{{}}}", es.join(", "))
            }
            ConstData::Gep {
                inbounds,
                source_ty,
                operands,
            } => {
                let vs: Vec<Value> = cs.values_of(*operands).to_vec();
                let es: Vec<String> = vs.iter().map(|&v| self.cval(v, depth + 1)).collect();
                let src = source_ty.map(|t| self.ty_depth(t, 1)).unwrap_or_default();
                format!("gep(inbounds={inbounds} {src}; {})", es.join(", "))
            }
            other => {
                let d = format!("{other:?}");
                let mut out = String::new();
                // Operands of the remaining expressions are printed in place of their ids.
                let mut vals = Vec::new();
                match other {
                    ConstData::Cast { value, .. } => vals.push(*value),
                    ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
                        vals.extend([*lhs, *rhs])
                    }
                    ConstData::Select {
                        cond,
                        if_true,
                        if_false,
                    } => vals.extend([*cond, *if_true, *if_false]),
                    ConstData::ExtractElement { vector, index } => vals.extend([*vector, *index]),
                    ConstData::InsertElement {
                        vector,
                        element,
                        index,
                    } => vals.extend([*vector, *element, *index]),
                    ConstData::ShuffleVector { v1, v2, mask } => vals.extend([*v1, *v2, *mask]),
                    _ => {}
                }
                let kind = d.split([' ', '{']).next().unwrap_or("");
                let _ = write!(out, "{kind}(");
                if let ConstData::Cast { op, .. } = other {
                    let _ = write!(out, "{op:?} ");
                }
                if let ConstData::Binary { op, flags, .. } = other {
                    let _ = write!(out, "{op:?} {flags} ");
                }
                if let ConstData::Cmp { pred, .. } = other {
                    let _ = write!(out, "{pred:?} ");
                }
                let es: Vec<String> = vals.iter().map(|&v| self.cval(v, depth + 1)).collect();
                let _ = write!(out, "{})", es.join(", "));
                out
            }
        };
        format!("{ty} {body}")
    }

    fn cval(&mut self, v: Value, depth: usize) -> String {
        match v.get() {
            ValueRef::Const(c) => self.constant(c, depth),
            ValueRef::Global(g) => format!(
                "@{}",
                self.m
                    .globals
                    .get(g.index())
                    .map_or("?", |g| g.name.as_str())
            ),
            ValueRef::Function(f) => format!(
                "@{}",
                self.m
                    .functions
                    .get(f.index())
                    .map_or("?", |f| f.name.as_str())
            ),
            other => format!("{other:?}"),
        }
    }

    fn value(&mut self, _f: Option<&Function>, v: Value) -> String {
        match v.get() {
            ValueRef::Inst(i) => format!("%i{}", i.0),
            ValueRef::Arg(a) => format!("%a{a}"),
            ValueRef::Metadata(m) => self.md(m),
            _ => self.cval(v, 0),
        }
    }

    fn md(&mut self, m: MdId) -> String {
        let Some(item) = self.m.metadata.get(m).cloned() else {
            return format!("<bad md {}>", m.0);
        };
        match item {
            MdData::String(r) => format!(
                "!{:?}",
                String::from_utf8_lossy(r.get(&self.m.metadata.bytes))
            ),
            MdData::Value { value, .. } => match value.get() {
                ValueRef::Arg(a) => format!("local %a{a}"),
                ValueRef::Inst(i) => format!("local %i{}", i.0),
                _ => self.cval(value, 0),
            },
            MdData::Other { code, .. } => format!("other{code}"),
            MdData::Node { distinct, .. } => {
                if let Some(&n) = self.md_num.get(&m.0) {
                    return format!("#{n}");
                }
                let n = self.md_defs.len();
                self.md_num.insert(m.0, n);
                self.md_defs.push(String::new());
                let ops: Vec<Option<MdId>> = self.m.metadata.node_operands(m).collect();
                let parts: Vec<String> = ops
                    .into_iter()
                    .map(|o| o.map_or("null".to_string(), |o| self.md(o)))
                    .collect();
                self.md_defs[n] = format!(
                    "{}!{{{}}}",
                    if distinct { "distinct " } else { "" },
                    parts.join(", ")
                );
                format!("#{n}")
            }
        }
    }

    fn body(&mut self, s: &mut String, f: &Function, b: &Body) {
        let kind_name = |k: u32| {
            self.m
                .metadata
                .kind_name(k)
                .map_or(format!("kind{k}"), |n| n.to_string())
        };
        for (bi, blk) in b.blocks.iter().enumerate() {
            let _ = writeln!(s, " block {bi}:");
            for i in blk.start..blk.end {
                let Some(inst) = b.insts.get(i as usize) else {
                    continue;
                };
                let mut ops = Vec::new();
                inst.kind.for_each_value(&b.pool, |v| ops.push(v));
                let ops: Vec<String> = ops.into_iter().map(|v| self.value(Some(f), v)).collect();
                let mut blocks = Vec::new();
                inst.kind.for_each_block(&b.pool, |x| blocks.push(x.0));
                let kind = format!("{:?}", inst.kind);
                let kind = kind.split([' ', '{']).next().unwrap_or("").to_string();
                let detail = match &inst.kind {
                    dxil_module::InstKind::Binary { op, flags, .. } => format!("{op:?} {flags}"),
                    dxil_module::InstKind::Cast { op, .. } => format!("{op:?}"),
                    dxil_module::InstKind::Cmp { pred, flags, .. } => format!("{pred:?} {flags}"),
                    dxil_module::InstKind::Load {
                        align,
                        volatile,
                        atomic,
                        ..
                    } => format!("{align} {volatile} {atomic:?}"),
                    dxil_module::InstKind::Store {
                        align,
                        volatile,
                        atomic,
                        ..
                    } => format!("{align} {volatile} {atomic:?}"),
                    dxil_module::InstKind::Gep {
                        inbounds,
                        source_ty,
                        ..
                    } => format!("{inbounds} {}", self.ty_depth(*source_ty, 1)),
                    dxil_module::InstKind::Alloca {
                        allocated,
                        align_field,
                        ..
                    } => format!("{} {}", self.ty_depth(*allocated, 1), align_field),
                    dxil_module::InstKind::Call {
                        fn_ty,
                        attrs,
                        cc_flags,
                        ..
                    } => format!(
                        "{} {} {cc_flags}",
                        self.ty_depth(*fn_ty, 1),
                        self.attrs(*attrs)
                    ),
                    dxil_module::InstKind::ExtractValue { indices, .. }
                    | dxil_module::InstKind::InsertValue { indices, .. } => {
                        format!("{:?}", b.raw(*indices))
                    }
                    other => {
                        let d = format!("{other:?}");
                        if d.contains("ordering") || d.contains("op:") {
                            d
                        } else {
                            String::new()
                        }
                    }
                };
                let _ = write!(
                    s,
                    "  %i{i} = {} {kind} {detail} ({}) blocks {blocks:?}",
                    self.ty_depth(inst.ty, 1),
                    ops.join(", ")
                );
                let atts: Vec<(String, MdId)> = b
                    .attachments
                    .iter()
                    .filter(|a| a.inst.0 == i)
                    .map(|a| (kind_name(a.kind), a.node))
                    .collect();
                for (k, n) in atts {
                    let md = self.md(n);
                    let _ = write!(s, " !{k} {md}");
                }
                for (_, loc) in b.debug_locs.iter().filter(|(x, _)| x.0 == i) {
                    let _ = write!(s, " loc {loc:?}");
                }
                s.push('\n');
            }
        }
        let mut fa: Vec<(String, MdId)> = b
            .fn_attachments
            .iter()
            .map(|&(k, n)| (kind_name(k), n))
            .collect();
        fa.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, n) in fa {
            let md = self.md(n);
            let _ = writeln!(s, " fn !{k} {md}");
        }
        let mut names: Vec<String> = b
            .names
            .iter()
            .map(|n| match n {
                LocalName::Arg(a, s) => format!("%a{a}={s}"),
                LocalName::Inst(i, s) => format!("%i{}={s}", i.0),
                LocalName::Block(x, s) => format!("block{}={s}", x.0),
            })
            .collect();
        names.sort();
        let _ = writeln!(s, " names {names:?}");
    }
}
