//! Metadata kinds and metadata slot numbers (`!N`), assigned in the order of LLVM's
//! `SlotTracker`: the operands of named metadata (each node before its operands, depth first),
//! then function by function the function's attachments, the metadata operands of `llvm.*`
//! intrinsic calls and each instruction's attachments.

use std::fmt::{self, Write};

use dxil_module::metadata::LLVM_FIXED_KINDS as FIXED_KINDS;
use dxil_module::{Body, InstId, InstKind, MdData, MdId, Metadata, Module, ValueRef};

use super::ident::write_metadata_identifier;
use super::number::write_u64;

/// The module's metadata kinds: the file's kind ids mapped to the ids a fresh LLVM context gives
/// them (the fixed kinds, then the others in the order the file lists them). Attachments are
/// printed in context-id order.
pub(crate) struct Kinds<'m> {
    /// (file kind id, context id, name), sorted by file id. Modules register a few dozen kinds,
    /// so a sorted vector beats hashing here.
    by_file_id: Vec<(u32, u32, &'m str)>,
}

impl<'m> Kinds<'m> {
    pub(crate) fn new(md: &'m Metadata) -> Self {
        // Names in context-id order: the fixed kinds, then new names as the file lists them.
        let mut custom: Vec<&'m str> = Vec::new();
        let mut by_file_id = Vec::with_capacity(md.kinds.len());
        for k in &md.kinds {
            let name: &'m str = k.name.as_ref();
            // Files list the fixed kinds first, under their context ids: check that one first.
            let fixed_at_id = FIXED_KINDS.get(k.id as usize) == Some(&name);
            let ctx = match fixed_at_id
                .then_some(k.id as usize)
                .or_else(|| FIXED_KINDS.iter().position(|f| *f == name))
            {
                Some(i) => i,
                None => match custom.iter().position(|c| *c == name) {
                    Some(i) => FIXED_KINDS.len() + i,
                    None => {
                        custom.push(name);
                        FIXED_KINDS.len() + custom.len() - 1
                    }
                },
            };
            by_file_id.push((k.id, ctx as u32, name));
        }
        // A stable sort keeps the first record of a repeated id first; that one wins.
        by_file_id.sort_by_key(|e| e.0);
        by_file_id.dedup_by_key(|e| e.0);
        Kinds { by_file_id }
    }

    fn lookup(&self, file_kind: u32) -> Option<&(u32, u32, &'m str)> {
        self.by_file_id
            .binary_search_by_key(&file_kind, |e| e.0)
            .ok()
            .and_then(|i| self.by_file_id.get(i))
    }

    /// The context id of a file kind id; unknown kinds sort last.
    fn context_id(&self, file_kind: u32) -> u32 {
        self.lookup(file_kind).map_or(u32::MAX, |k| k.1)
    }

    /// Writes `!name` for an attachment kind.
    pub(crate) fn write_kind<W: Write + ?Sized>(&self, out: &mut W, file_kind: u32) -> fmt::Result {
        match self.lookup(file_kind).map(|k| (k.1, k.2)) {
            Some((_, name)) => {
                out.write_char('!')?;
                write_metadata_identifier(out, name)
            }
            None => {
                out.write_str("!<unknown kind #")?;
                write_u64(out, u64::from(file_kind))?;
                out.write_char('>')
            }
        }
    }

    /// Collects the attachments of instruction `inst` as (file kind, node), in printing order.
    /// `body.attachments` is sorted by instruction and `inst` must grow from call to call;
    /// `cursor` keeps the position.
    pub(crate) fn attachments_of(
        &self,
        body: &Body,
        inst: u32,
        cursor: &mut usize,
        out: &mut Vec<(u32, MdId)>,
    ) {
        out.clear();
        while let Some(a) = body.attachments.get(*cursor) {
            if a.inst.0 < inst {
                *cursor += 1;
            } else {
                break;
            }
        }
        let mut i = *cursor;
        while let Some(a) = body.attachments.get(i) {
            if a.inst != InstId(inst) {
                break;
            }
            out.push((a.kind, a.node));
            i += 1;
        }
        if out.len() > 1 {
            out.sort_by_key(|&(k, _)| self.context_id(k));
        }
    }

    /// The function's own attachments, in printing order.
    pub(crate) fn function_attachments(&self, body: &Body, out: &mut Vec<(u32, MdId)>) {
        out.clear();
        out.extend_from_slice(&body.fn_attachments);
        out.sort_by_key(|&(k, _)| self.context_id(k));
    }
}

/// Writes `; dxil-metadata-kinds: !dbg !tbaa ...`, the module's metadata kind table in id order.
///
/// DXC's bitcode lists every kind its compiler registered, used or not, and the listing shows
/// only the used ones; this comment carries the whole table so that the parser can give the
/// bitcode writer DXC's table back. Nothing is written for an empty table, or for one whose ids
/// are not 0, 1, 2, ... in order or that holds an empty name (the parser then infers the table).
pub(crate) fn write_kinds_comment<W: Write + ?Sized>(out: &mut W, md: &Metadata) -> fmt::Result {
    let sequential = md
        .kinds
        .iter()
        .enumerate()
        .all(|(i, k)| k.id as usize == i && !k.name.is_empty());
    if md.kinds.is_empty() || !sequential {
        return Ok(());
    }
    out.write_str(crate::parse::KINDS_COMMENT)?;
    for k in &md.kinds {
        out.write_str(" !")?;
        write_metadata_identifier(out, &k.name)?;
    }
    out.write_char('\n')
}

/// Whether a metadata item is a node (and so gets a slot), as opposed to a string or a value.
pub(crate) fn is_node(md: &Metadata, id: MdId) -> bool {
    matches!(md.get(id), Some(MdData::Node { .. } | MdData::Other { .. }))
}

/// Metadata slot numbers.
pub(crate) struct MdSlots {
    slot: Vec<u32>,
    /// Nodes by slot number.
    pub(crate) order: Vec<MdId>,
    frames: Vec<(MdId, u32)>,
}

const NONE: u32 = u32::MAX;

impl MdSlots {
    pub(crate) fn new(m: &Module, kinds: &Kinds<'_>) -> Self {
        let mut s = MdSlots {
            slot: vec![NONE; m.metadata.len()],
            order: Vec::with_capacity(m.metadata.len()),
            frames: Vec::with_capacity(32),
        };
        let md = &m.metadata;
        for nmd in &md.named {
            for &op in md.named_operands(nmd) {
                s.create(md, op);
            }
        }
        let mut att = Vec::new();
        // Whether each function is an `llvm.*` intrinsic, decided once rather than per call.
        let intrinsic: Vec<bool> = m
            .functions
            .iter()
            .map(|g| g.name.starts_with("llvm."))
            .collect();
        for f in &m.functions {
            let Some(body) = &f.body else { continue };
            if body.blocks.is_empty() {
                continue;
            }
            kinds.function_attachments(body, &mut att);
            for &(_, n) in &att {
                s.create(md, n);
            }
            let mut cursor = 0;
            for (i, inst) in body.insts.iter().enumerate() {
                if let InstKind::Call { callee, args, .. } = &inst.kind
                    && let ValueRef::Function(fid) = callee.get()
                    && intrinsic.get(fid.index()) == Some(&true)
                {
                    for v in body.values(*args) {
                        if let ValueRef::Metadata(n) = v.get() {
                            s.create(md, n);
                        }
                    }
                }
                // Most instructions have no attachments: skip the lookup for them.
                if body
                    .attachments
                    .get(cursor)
                    .is_some_and(|a| a.inst.0 <= i as u32)
                {
                    kinds.attachments_of(body, i as u32, &mut cursor, &mut att);
                    for &(_, n) in &att {
                        s.create(md, n);
                    }
                }
            }
        }
        s
    }

    /// `SlotTracker::CreateMetadataSlot`: numbers a node, then its node operands depth first.
    fn create(&mut self, md: &Metadata, root: MdId) {
        if !self.assign(md, root) {
            return;
        }
        self.frames.clear();
        self.frames.push((root, 0));
        while let Some((n, next)) = self.frames.last_mut() {
            let ops = match md.get(*n) {
                Some(MdData::Node { operands, .. }) => operands.get(&md.operands),
                _ => &[],
            };
            let Some(&op) = ops.get(*next as usize) else {
                self.frames.pop();
                continue;
            };
            *next += 1;
            if op != 0 {
                let child = MdId(op - 1);
                if self.assign(md, child) {
                    self.frames.push((child, 0));
                }
            }
        }
    }

    /// Gives a node the next slot; false when it is not a node or already has one.
    fn assign(&mut self, md: &Metadata, n: MdId) -> bool {
        if !is_node(md, n) {
            return false;
        }
        match self.slot.get_mut(n.index()) {
            Some(s) if *s == NONE => {
                *s = self.order.len() as u32;
                self.order.push(n);
                true
            }
            _ => false,
        }
    }

    pub(crate) fn get(&self, n: MdId) -> Option<u32> {
        self.slot.get(n.index()).copied().filter(|&s| s != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dxil_module::{Attachment, MdKind, PoolRange};

    #[test]
    fn named_operands_are_numbered_depth_first_before_function_attachments() {
        let mut m = Module::default();
        let md = &mut m.metadata;
        let s = md.push_string(b"x"); // 0: strings get no slot
        let leaf = md.push_node(false, &[Some(s)]); // 1
        let mid = md.push_node(false, &[Some(leaf), None]); // 2
        let other = md.push_node(true, &[]); // 3
        let top = md.push_node(false, &[Some(mid), Some(other), Some(leaf)]); // 4
        let att = md.push_node(false, &[Some(other)]); // 5
        md.push_named("a", &[top]);
        md.push_named("b", &[leaf]);
        md.kinds.push(MdKind::new(0, b"dbg"));
        let body = dxil_module::Body {
            blocks: vec![dxil_module::BlockData { start: 0, end: 1 }],
            insts: vec![dxil_module::InstData {
                kind: InstKind::Unreachable,
                ty: dxil_module::TypeId(0),
            }],
            attachments: vec![Attachment {
                inst: InstId(0),
                kind: 40,
                node: att,
            }],
            ..Default::default()
        };
        m.functions.push(dxil_module::Function::new(
            "f",
            dxil_module::TypeId(0),
            dxil_module::TypeId(0),
            None,
            Some(body),
        ));
        let kinds = Kinds::new(&m.metadata);
        let slots = MdSlots::new(&m, &kinds);
        assert_eq!(slots.order, vec![top, mid, leaf, other, att]);
        assert_eq!(slots.get(s), None);
        assert_eq!(slots.get(att), Some(4));
        let _ = PoolRange::EMPTY;
    }

    #[test]
    fn cyclic_metadata_terminates() {
        let mut md = Metadata::default();
        // Node 0 names itself and node 1; node 1 names node 0.
        md.operands.extend([1, 2, 1]);
        md.push(MdData::Node {
            distinct: true,
            operands: PoolRange { start: 0, len: 2 },
        });
        md.push(MdData::Node {
            distinct: true,
            operands: PoolRange { start: 2, len: 1 },
        });
        md.push_named("n", &[MdId(1)]);
        let m = Module {
            metadata: md,
            ..Default::default()
        };
        let kinds = Kinds::new(&m.metadata);
        let slots = MdSlots::new(&m, &kinds);
        assert_eq!(slots.order, vec![MdId(1), MdId(0)]);
    }

    #[test]
    fn attachment_order_follows_context_kind_ids() {
        let mut md = Metadata::default();
        // The file numbers the custom kind before a fixed one.
        md.kinds.push(MdKind::new(0, b"dx.precise"));
        md.kinds.push(MdKind::new(1, b"range"));
        let kinds = Kinds::new(&md);
        let body = Body {
            attachments: vec![
                Attachment {
                    inst: InstId(2),
                    kind: 0,
                    node: MdId(7),
                },
                Attachment {
                    inst: InstId(2),
                    kind: 1,
                    node: MdId(8),
                },
                Attachment {
                    inst: InstId(3),
                    kind: 0,
                    node: MdId(9),
                },
            ],
            ..Default::default()
        };
        let mut cursor = 0;
        let mut out = Vec::new();
        kinds.attachments_of(&body, 0, &mut cursor, &mut out);
        assert!(out.is_empty());
        kinds.attachments_of(&body, 2, &mut cursor, &mut out);
        assert_eq!(out, vec![(1, MdId(8)), (0, MdId(7))]);
        kinds.attachments_of(&body, 3, &mut cursor, &mut out);
        assert_eq!(out, vec![(0, MdId(9))]);
        let mut s = String::new();
        kinds.write_kind(&mut s, 0).unwrap();
        kinds.write_kind(&mut s, 5).unwrap();
        assert_eq!(s, "!dx.precise!<unknown kind #5>");
    }
}
