//! METADATA blocks: nodes, named metadata, kinds; module-level and per function.

use crate::codes;
use std::borrow::Cow;

use super::{
    FnState, KINDS_MEMO, KindsMemo, Next, ReadErrorKind, Reader, Result, block, chars_to_string,
};
use crate::entity::{MdId, PoolRange};
use crate::metadata::{KNOWN_KINDS, MdData, MdKind, NamedMd};
use crate::value::MAX_VALUE_INDEX;

impl Reader<'_> {
    pub(super) fn md_ref(&self, n: u64, f: Option<&FnState>) -> Result<MdId> {
        let n = usize::try_from(n).map_err(|_| self.malformed("metadata id too large"))?;
        if let Some(st) = f
            && n >= self.md_module_count
        {
            return st
                .local_md
                .get(n - self.md_module_count)
                .copied()
                .ok_or_else(|| self.malformed(format!("function metadata id {n} not defined")));
        }
        if f.is_some() && n >= self.md_module_count {
            return Err(self.malformed(format!("metadata id {n} not defined")));
        }
        if n > MAX_VALUE_INDEX as usize || n as u64 > self.bits_total {
            return Err(self.malformed(format!("metadata id {n} out of range")));
        }
        Ok(MdId(n as u32))
    }

    pub(super) fn read_metadata(&mut self, mut f: Option<&mut FnState>) -> Result<()> {
        let mut pending_name: Option<Cow<'static, str>> = None;
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if pending_name.is_some() && code != codes::metadata::NAMED_NODE {
                        return Err(self.malformed("METADATA_NAME not followed by NAMED_NODE"));
                    }
                    match code {
                        codes::metadata::STRING => {
                            let start = self.m.metadata.bytes.len() as u32;
                            self.m
                                .metadata
                                .bytes
                                .extend(self.ops.iter().map(|&c| c as u8));
                            let id = self.m.metadata.push(MdData::String(PoolRange {
                                start,
                                len: self.ops.len() as u32,
                            }));
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                        codes::metadata::VALUE => {
                            let ty = self.op_type(0)?;
                            let n = self.op(1)?;
                            let n32 = u32::try_from(n)
                                .map_err(|_| self.malformed("value id exceeds 32 bits"))?;
                            let value = self
                                .lookup_value(n32, f.as_deref())
                                .ok_or_else(|| self.malformed(format!("value {n} not defined")))?;
                            let id = self.m.metadata.push(MdData::Value { ty, value });
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                        codes::metadata::NODE | codes::metadata::DISTINCT_NODE => {
                            // Operands are stored as read (0 = null, else id + 1) once every
                            // id is known to be in range, as `md_ref` would check it.
                            let limit = u64::from(MAX_VALUE_INDEX).min(self.bits_total);
                            if let Some(&o) = self.ops.iter().find(|&&o| o != 0 && o - 1 > limit) {
                                return Err(
                                    self.malformed(format!("metadata id {} out of range", o - 1))
                                );
                            }
                            let start = self.m.metadata.operands.len() as u32;
                            self.m
                                .metadata
                                .operands
                                .extend(self.ops.iter().map(|&o| o as u32));
                            let id = self.m.metadata.push(MdData::Node {
                                distinct: code == codes::metadata::DISTINCT_NODE,
                                operands: PoolRange {
                                    start,
                                    len: self.ops.len() as u32,
                                },
                            });
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                        codes::metadata::NAME => pending_name = Some(self.named_md_name()),
                        codes::metadata::NAMED_NODE => {
                            let name = pending_name
                                .take()
                                .ok_or_else(|| self.malformed("NAMED_NODE without a NAME"))?;
                            if self.m.metadata.named_ops.capacity() == 0 {
                                // DXC modules have up to about ten named lists of one or two
                                // operands; growing from 4 would reallocate both twice.
                                self.m.metadata.named_ops.reserve(16);
                                self.m.metadata.named.reserve(12);
                            }
                            let start = self.m.metadata.named_ops.len();
                            for i in 0..self.ops.len() {
                                let id = self.md_ref(self.ops[i], None)?;
                                self.m.metadata.named_ops.push(id);
                            }
                            let operands = PoolRange {
                                start: start as u32,
                                len: (self.m.metadata.named_ops.len() - start) as u32,
                            };
                            self.m.metadata.named.push(NamedMd { name, operands });
                        }
                        codes::metadata::KIND => {
                            let id = self.op_u32(0)?;
                            if self.m.metadata.kinds.capacity() == 0 {
                                // Every DXC module registers the known kinds and a few more.
                                self.m.metadata.kinds.reserve(KNOWN_KINDS.len() + 8);
                            }
                            let mut buf = [0u8; 64];
                            let chars = &self.ops[1..];
                            let kind = if chars.len() <= buf.len() {
                                for (b, c) in buf.iter_mut().zip(chars) {
                                    *b = *c as u8;
                                }
                                MdKind::new(id, &buf[..chars.len()])
                            } else {
                                let bytes: Vec<u8> = chars.iter().map(|&c| c as u8).collect();
                                MdKind::new(id, &bytes)
                            };
                            self.m.metadata.kinds.push(kind);
                        }
                        codes::metadata::OLD_NODE | codes::metadata::OLD_FN_NODE => {
                            return Err(self.unsupported("pre-3.6 metadata nodes"));
                        }
                        _ => {
                            let start = self.m.metadata.raw.len() as u32;
                            self.m.metadata.raw.extend_from_slice(&self.ops);
                            let id = self.m.metadata.push(MdData::Other {
                                code,
                                operands: PoolRange {
                                    start,
                                    len: self.ops.len() as u32,
                                },
                            });
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        if pending_name.is_some() {
            return Err(self.malformed("METADATA_NAME at the end of the block"));
        }
        Ok(())
    }

    /// A module-level METADATA block. DXC writes the same block of kind records into every
    /// module: one identical to the last such block on this thread takes its kinds instead of
    /// decoding them again (see [`KindsMemo`]).
    pub(super) fn read_module_metadata(&mut self) -> Result<()> {
        let bytes = self.bs.pending_block_bytes().unwrap_or(&[]);
        let width = self.block_width;
        // Abbreviations registered by BLOCKINFO would take part in the decoding: no memo then.
        let memo_ok = self.m.metadata.kinds.is_empty()
            && self.bs.blockinfo_abbrev(block::METADATA, 4).is_none();
        if memo_ok {
            let known = KINDS_MEMO
                .try_with(|m| {
                    let mut m = m.borrow_mut();
                    let i = m
                        .iter()
                        .position(|m| m.width == width && m.bytes == bytes)?;
                    // Most recently used first.
                    m.get_mut(..=i)?.rotate_right(1);
                    let kinds = &m.first()?.kinds;
                    // Into the module's own list: a recycled module's keeps its allocation.
                    self.m.metadata.kinds.extend_from_slice(kinds);
                    Some(())
                })
                .ok()
                .flatten();
            if known.is_some() {
                return Ok(self.bs.skip_block()?);
            }
        }
        // Sized from the block length: bounded by the input, and it saves the repeated growth
        // that dominated reading small modules.
        let words = self.block_words as usize;
        let md = &mut self.m.metadata;
        let before = (md.items.len(), md.named.len());
        md.items.reserve(words / 3);
        md.operands.reserve(words);
        md.bytes.reserve(words * 2);
        self.bs.enter_block()?;
        self.read_metadata(None)?;
        self.md_module_count = self.m.metadata.items.len();
        let md = &self.m.metadata;
        if memo_ok
            && (md.items.len(), md.named.len()) == before
            && !md.kinds.is_empty()
            && bytes.len() <= KindsMemo::MAX_BYTES
        {
            let memo = KindsMemo {
                width,
                bytes: bytes.to_vec(),
                kinds: md.kinds.clone(),
            };
            let _ = KINDS_MEMO.try_with(|m| {
                let mut m = m.borrow_mut();
                m.truncate(KindsMemo::ENTRIES - 1);
                m.insert(0, memo);
            });
        }
        Ok(())
    }

    /// The name of a METADATA_NAME record: the known names of DXC modules without allocating.
    pub(super) fn named_md_name(&self) -> Cow<'static, str> {
        let mut buf = [0u8; 32];
        if self.ops.len() <= buf.len() {
            for (b, c) in buf.iter_mut().zip(&self.ops) {
                *b = *c as u8;
            }
            NamedMd::name_from_bytes(&buf[..self.ops.len()])
        } else {
            Cow::Owned(chars_to_string(&self.ops))
        }
    }

    pub(super) fn note_local_md(&self, f: Option<&mut FnState>, id: MdId) {
        if let Some(st) = f {
            st.local_md.push(id);
        }
    }

    pub(super) fn check_metadata(&self) -> Result<()> {
        let n = self.m.metadata.items.len() as u32;
        if self.m.metadata.operands.iter().any(|&o| o > n)
            || self.m.metadata.named_ops.iter().any(|o| o.0 >= n)
        {
            return Err(self.malformed("metadata node refers to an undefined metadata id"));
        }
        Ok(())
    }
}
