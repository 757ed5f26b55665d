//! FUNCTION_BLOCKs: bodies, their local values, symbol tables and attachments, and the
//! non-instruction records (block count, debug locations).

use super::{FnState, Next, ReadErrorKind, Reader, Result, block};
use crate::codes;
use crate::codes::function::{DEBUG_LOC, DEBUG_LOC_AGAIN, DECLAREBLOCKS};
use crate::entity::{BlockId, FuncId, InstId, TypeId};
use crate::inst::{DebugLoc, InstData, Ordering, SyncScope};
use crate::module::{Attachment, BlockData, LocalName};
use crate::types::TypeData;
use crate::value::{MAX_VALUE_INDEX, Value, ValueRef};

impl Reader<'_> {
    pub(super) fn push_local(st: &mut FnState, v: Value, ty: TypeId, r: &Reader<'_>) -> Result<()> {
        if (r.values.len() + st.values.len()) as u32 >= MAX_VALUE_INDEX {
            return Err(r.err(ReadErrorKind::Limit, "too many values in one function"));
        }
        st.values.push(v);
        st.types.push(ty);
        Ok(())
    }

    pub(super) fn read_function(&mut self) -> Result<()> {
        let Some(&func) = self.bodies.get(self.next_body) else {
            return Err(self.malformed("function block without a matching function definition"));
        };
        self.next_body += 1;
        self.read_function_inner(func).map_err(|e| {
            let name = self.m.functions.get(func.index()).map_or("", |f| &f.name);
            e.with_function(func.0, name)
        })
    }

    pub(super) fn read_function_inner(&mut self, func: FuncId) -> Result<()> {
        let mut st = FnState {
            values: std::mem::take(&mut self.fn_values),
            types: std::mem::take(&mut self.fn_types),
            body: self.spares.body(),
            cur_block: 0,
            declared_blocks: 0,
            unresolved: false,
            local_md: std::mem::take(&mut self.local_md),
            last_loc: None,
        };
        st.values.clear();
        st.types.clear();
        st.local_md.clear();
        let r = self.read_function_body(func, &mut st);
        // The buffers go back for the next function, whatever happened.
        self.fn_values = std::mem::take(&mut st.values);
        self.fn_types = std::mem::take(&mut st.types);
        self.local_md = std::mem::take(&mut st.local_md);
        r
    }

    pub(super) fn read_function_body(&mut self, func: FuncId, st: &mut FnState) -> Result<()> {
        let fty = self.m.functions[func.index()].ty;
        let params = match self.m.types.function_signature(fty) {
            Some((_, p, _)) => p,
            None => return Err(self.malformed("function without a function type")),
        };
        st.values.reserve(params.len() + 64);
        st.types.reserve(params.len() + 64);
        for (i, &p) in params.iter().enumerate() {
            Self::push_local(st, Value::arg(i as u32), p, self)?;
        }
        loop {
            match self.step()? {
                Next::Block(block_id) => match block_id {
                    block::CONSTANTS => {
                        // As for the module's constants: sized from the block, which bounds it.
                        self.m.constants.reserve(self.block_words as usize / 2);
                        self.bs.enter_block()?;
                        self.read_constants(Some(st))?;
                    }
                    block::METADATA => {
                        self.bs.enter_block()?;
                        self.read_metadata(Some(st))?;
                    }
                    block::METADATA_ATTACHMENT => {
                        self.bs.enter_block()?;
                        self.read_attachments(st)?;
                    }
                    block::VALUE_SYMTAB => {
                        self.bs.enter_block()?;
                        self.read_function_vst(st)?;
                    }
                    block::USELIST => self.bs.skip_block()?,
                    other => {
                        return Err(self.unsupported(format!("block id {other} inside a function")));
                    }
                },
                Next::Record(code) => {
                    let n = st.body.insts.len() as u32;
                    self.function_record_dispatch(code, st)
                        .map_err(|e| e.with_instruction(n))?;
                }
                Next::Abbrev => {}
                Next::End => break,
                _ => {
                    return Err(self.err(ReadErrorKind::Truncated, "function block not terminated"));
                }
            }
        }
        if st.declared_blocks == 0 {
            return Err(self.malformed("function body without DECLAREBLOCKS"));
        }
        if st.cur_block != st.declared_blocks {
            return Err(self.malformed(format!(
                "function declares {} blocks but {} end with a terminator",
                st.declared_blocks, st.cur_block
            )));
        }
        self.finish_function(st)?;
        let body = std::mem::take(&mut st.body);
        self.m.functions[func.index()].body = Some(body);
        Ok(())
    }

    pub(super) fn finish_function(&self, st: &mut FnState) -> Result<()> {
        let nblocks = st.body.blocks.len() as u32;
        if st.unresolved {
            let n_module = self.values.len();
            let locals = &st.values;
            let mut bad = None;
            let body = &mut st.body;
            for (i, inst) in body.insts.iter_mut().enumerate() {
                inst.kind
                    .map_values(&mut body.pool, &mut |v| match v.get() {
                        ValueRef::Unresolved(n) => {
                            let n = n as usize;
                            let r = if n < n_module {
                                None
                            } else {
                                locals.get(n - n_module).copied()
                            };
                            r.unwrap_or_else(|| {
                                bad = Some((i, n));
                                v
                            })
                        }
                        _ => v,
                    });
            }
            if let Some((i, n)) = bad {
                return Err(self
                    .malformed(format!("operand refers to undefined value {n}"))
                    .with_instruction(i as u32));
            }
        }
        for (i, inst) in st.body.insts.iter().enumerate() {
            let mut bad = false;
            inst.kind
                .for_each_block(&st.body.pool, |b| bad |= b.0 >= nblocks);
            if bad {
                return Err(self
                    .malformed("branch or phi names a block that does not exist")
                    .with_instruction(i as u32));
            }
        }
        Ok(())
    }

    pub(super) fn read_attachments(&mut self, st: &mut FnState) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if code != codes::metadata::ATTACHMENT {
                        continue;
                    }
                    if self.ops.len() % 2 == 1 {
                        let inst = self.op_u32(0)?;
                        if inst as usize >= st.body.insts.len() {
                            return Err(self.malformed(format!(
                                "attachment on instruction {inst} which does not exist"
                            )));
                        }
                        let mut i = 1;
                        while i + 1 < self.ops.len() {
                            let kind = self.op_u32(i)?;
                            let node = self.md_ref(self.ops[i + 1], Some(st))?;
                            st.body.attachments.push(Attachment {
                                inst: InstId(inst),
                                kind,
                                node,
                            });
                            i += 2;
                        }
                    } else {
                        let mut i = 0;
                        while i + 1 < self.ops.len() {
                            let kind = self.op_u32(i)?;
                            let node = self.md_ref(self.ops[i + 1], Some(st))?;
                            st.body.fn_attachments.push((kind, node));
                            i += 2;
                        }
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        st.body.attachments.sort_by_key(|a| a.inst);
        Ok(())
    }

    pub(super) fn read_function_vst(&mut self, st: &mut FnState) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => match code {
                    codes::value_symtab::ENTRY => {
                        let n = self.op(0)?;
                        let name = self.spares.string(&self.ops[1..]);
                        let v = u32::try_from(n)
                            .ok()
                            .and_then(|n| self.lookup_value(n, Some(st)))
                            .ok_or_else(|| {
                                self.malformed(format!("symbol for undefined value {n}"))
                            })?;
                        match v.get() {
                            ValueRef::Arg(a) => st.body.names.push(LocalName::Arg(a, name)),
                            ValueRef::Inst(i) => st.body.names.push(LocalName::Inst(i, name)),
                            _ => {
                                return Err(
                                    self.malformed("function symbol names a non-local value")
                                );
                            }
                        }
                    }
                    codes::value_symtab::BBENTRY => {
                        let b = self.op_u32(0)?;
                        if b as usize >= st.body.blocks.len() {
                            return Err(self.malformed(format!("name for missing block {b}")));
                        }
                        let name = self.spares.string(&self.ops[1..]);
                        st.body.names.push(LocalName::Block(BlockId(b), name));
                    }
                    _ => {}
                },
                Next::End => return Ok(()),
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
    }

    #[inline]
    pub(super) fn next_value_number(&self, st: &FnState) -> u32 {
        (self.values.len() + st.values.len()) as u32
    }

    /// A relative operand with its type appended when it is a forward reference.
    pub(super) fn value_type_pair(
        &self,
        st: &mut FnState,
        slot: &mut usize,
    ) -> Result<(Value, TypeId)> {
        let rel = self.op(*slot)? as u32;
        *slot += 1;
        let next = self.next_value_number(st);
        let n = next.wrapping_sub(rel);
        if n < next {
            let v = self
                .lookup_value(n, Some(st))
                .ok_or_else(|| self.malformed("operand refers to an undefined value"))?;
            let t = self
                .lookup_type(n, Some(st))
                .ok_or_else(|| self.malformed("operand refers to an undefined value"))?;
            Ok((v, t))
        } else {
            if n > MAX_VALUE_INDEX {
                return Err(self.malformed(format!("value id {n} out of range")));
            }
            let t = self.op_type(*slot)?;
            *slot += 1;
            st.unresolved = true;
            Ok((Value::unresolved(n), t))
        }
    }

    /// A relative operand whose type comes from context.
    #[inline]
    pub(super) fn value_plain(&self, st: &mut FnState, slot: &mut usize) -> Result<Value> {
        let rel = self.op(*slot)? as u32;
        *slot += 1;
        let next = self.next_value_number(st);
        let n = next.wrapping_sub(rel);
        self.resolve_number(st, n)
    }

    #[inline]
    pub(super) fn resolve_number(&self, st: &mut FnState, n: u32) -> Result<Value> {
        if n > MAX_VALUE_INDEX {
            return Err(self.malformed(format!("value id {n} out of range")));
        }
        match self.lookup_value(n, Some(st)) {
            Some(v) => Ok(v),
            None => {
                st.unresolved = true;
                Ok(Value::unresolved(n))
            }
        }
    }

    pub(super) fn block_id(&self, st: &FnState, v: u64) -> Result<BlockId> {
        if v < st.declared_blocks as u64 {
            Ok(BlockId(v as u32))
        } else {
            Err(self.malformed(format!(
                "block {v} out of range ({} blocks)",
                st.declared_blocks
            )))
        }
    }

    pub(super) fn function_record_dispatch(&mut self, code: u32, st: &mut FnState) -> Result<()> {
        match code {
            DECLAREBLOCKS => {
                let n = self.op(0)?;
                if n == 0 || n > self.bits_total / 4 {
                    return Err(self.malformed(format!("implausible block count {n}")));
                }
                if st.declared_blocks != 0 {
                    return Err(self.malformed("DECLAREBLOCKS twice"));
                }
                st.declared_blocks = n as usize;
                st.body.blocks.reserve(n as usize);
                // Roughly one instruction per 1.5 words of function block.
                let words = self.fn_words as usize;
                st.body.insts.reserve(words * 2 / 3);
                st.body.pool.reserve(words);
                st.values.reserve(words / 2);
                st.types.reserve(words / 2);
                st.body.blocks.push(BlockData { start: 0, end: 0 });
                Ok(())
            }
            DEBUG_LOC_AGAIN => {
                let last = st.body.insts.len();
                match (st.last_loc, last) {
                    (Some(loc), n) if n > 0 => {
                        st.body.debug_locs.push((InstId(n as u32 - 1), loc));
                        Ok(())
                    }
                    _ => Err(self.malformed("DEBUG_LOC_AGAIN without a previous location")),
                }
            }
            DEBUG_LOC => {
                let loc = DebugLoc {
                    line: self.op(0)?,
                    col: self.op(1)?,
                    scope: self.op(2)?,
                    inlined_at: self.op(3)?,
                };
                let n = st.body.insts.len();
                if n == 0 {
                    return Err(self.malformed("DEBUG_LOC before any instruction"));
                }
                st.last_loc = Some(loc);
                st.body.debug_locs.push((InstId(n as u32 - 1), loc));
                Ok(())
            }
            _ => {
                if st.declared_blocks == 0 {
                    return Err(self.malformed("instruction before DECLAREBLOCKS"));
                }
                if st.cur_block >= st.declared_blocks {
                    return Err(self.malformed("instruction after the last block's terminator"));
                }
                let (kind, ty) = self.instruction(code, st)?;
                let terminator = kind.is_terminator();
                let idx = InstId(st.body.insts.len() as u32);
                if idx.0 >= MAX_VALUE_INDEX {
                    return Err(self.err(ReadErrorKind::Limit, "too many instructions"));
                }
                st.body.insts.push(InstData { kind, ty });
                if !self.m.types.is_void(ty) {
                    Self::push_local(st, Value::inst(idx), ty, self)?;
                }
                if terminator {
                    let end = st.body.insts.len() as u32;
                    if let Some(b) = st.body.blocks.last_mut() {
                        b.end = end;
                    }
                    st.cur_block += 1;
                    if st.cur_block < st.declared_blocks {
                        st.body.blocks.push(BlockData { start: end, end });
                    }
                }
                Ok(())
            }
        }
    }

    pub(super) fn align_field(&self, v: u64) -> Result<u8> {
        if v > 32 {
            return Err(self.malformed(format!("alignment field {v} too large")));
        }
        Ok(v as u8)
    }

    pub(super) fn ordering(&self, v: u64) -> Result<Ordering> {
        if v > 6 {
            return Err(self.malformed(format!("atomic ordering {v}")));
        }
        Ok(Ordering(v as u8))
    }

    pub(super) fn scope(&self, v: u64) -> Result<SyncScope> {
        if v > 1 {
            return Err(self.malformed(format!("synchronization scope {v}")));
        }
        Ok(SyncScope(v as u8))
    }

    /// The type reached by a GEP's indices from `source` (all indices but the first step in).
    pub(super) fn gep_result(
        &mut self,
        source: TypeId,
        base_ty: TypeId,
        ops: Option<&[u32]>,
    ) -> Result<TypeId> {
        let address_space = match self.m.types.data(base_ty) {
            TypeData::Pointer { address_space, .. } => *address_space,
            TypeData::Vector { .. } => return Err(self.unsupported("vector getelementptr")),
            _ => return Err(self.malformed("getelementptr base is not a pointer")),
        };
        let mut t = source;
        for &v in ops.unwrap_or_default().iter().skip(2) {
            let v = Value(v);
            t = match self.m.types.data(t) {
                TypeData::Struct { elems, .. } => {
                    let idx = v
                        .as_const()
                        .and_then(|c| self.m.constants.as_int(c))
                        .ok_or_else(|| self.malformed("struct index is not a constant integer"))?;
                    *usize::try_from(idx)
                        .ok()
                        .and_then(|i| elems.get(i))
                        .ok_or_else(|| self.malformed("struct index out of range"))?
                }
                TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => *elem,
                _ => return Err(self.malformed("getelementptr indexes into a scalar")),
            };
        }
        Ok(self.pointer_type(t, address_space))
    }

    pub(super) fn i1_like(&mut self, operand_ty: TypeId) -> Result<TypeId> {
        let i1 = self.i1_type();
        Ok(match self.m.types.data(operand_ty) {
            TypeData::Vector { len, .. } => {
                let len = *len;
                self.vector_type(len, i1)
            }
            _ => i1,
        })
    }
}
