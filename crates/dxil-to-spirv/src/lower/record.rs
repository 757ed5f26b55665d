//! Shader records: the arguments a local root signature gives a ray-tracing shader (see
//! [`crate::LocalRootSignature`]), read from the `ShaderRecordBufferKHR` block.
//!
//! A resource the local root signature holds gets a placement of the same kinds as global root arguments —
//! root constants ([`Placement::PushConstants`]), a root descriptor's address ([`Placement::DeviceAddress`]), a
//! table's heap slot ([`Placement::Heap`] / [`Placement::AddressTable`] with a table word) — with its entry marked
//! `record`, so that its root words are read from the record instead of the root block.

use spirv::{Decoration, GLOp, Op, StorageClass};

use super::Ctx;
use super::res::View;
use crate::binding::{LocalLocation, Placement};
use crate::dxil::ResourceClass;
use crate::error::Error;
use crate::spv::{Id, TypeKey};

impl<'a> Ctx<'a> {
    /// The placement of a view of a resource the local root signature holds; `None` for every other resource and
    /// outside ray-tracing stages.
    pub(super) fn record_placement(
        &mut self,
        res: u32,
        view: View,
    ) -> Result<Option<Placement>, Error> {
        let Some(lrs) = self.opts.local_root_signature.clone() else {
            return Ok(None);
        };
        let e = &self.res[res as usize];
        if !self.entry.stage.is_ray_tracing() || e.heap.is_some() {
            return Ok(None);
        }
        let d = e.d3d();
        let dty = self.descriptor_type(e, view);
        let Some(location) = lrs.locate(&d).map_err(Error::Binding)? else {
            return Ok(None);
        };
        let placement = match location {
            LocalLocation::Constants { offset, words } => {
                if view != View::Cbuf {
                    return Err(Error::Binding(format!(
                        "{d}: local root constants hold only constant buffers"
                    )));
                }
                Placement::PushConstants {
                    first_word: offset / 4,
                    words,
                }
            }
            LocalLocation::Address { offset } => Placement::DeviceAddress { offset },
            LocalLocation::Table { offset, slot } => {
                let model = self.opts.binding.clone();
                let heap = if view == View::Counter {
                    model.local_heap_counter(&d)
                } else {
                    model.local_heap(&d, dty)
                }
                .map_err(Error::Binding)?;
                let table_word = Some(offset / 4);
                match heap {
                    Placement::Heap {
                        set,
                        binding,
                        descriptor_type,
                        offsets,
                        ..
                    } => Placement::Heap {
                        set,
                        binding,
                        table_word,
                        offset: slot,
                        descriptor_type,
                        offsets,
                    },
                    Placement::Descriptor { set, binding, .. } => Placement::Heap {
                        set,
                        binding,
                        table_word,
                        offset: slot,
                        descriptor_type: dty,
                        offsets: None,
                    },
                    Placement::AddressTable { set, binding, .. } => Placement::AddressTable {
                        set,
                        binding,
                        table_word,
                        offset: slot,
                    },
                    other => {
                        return Err(Error::Binding(format!(
                            "{d}: a local root table needs a heap array, the binding model gives {other:?}"
                        )));
                    }
                }
            }
        };
        self.res[res as usize].record = true;
        Ok(Some(placement))
    }

    /// The `ShaderRecordBufferKHR` block: `struct { uint words[n]; }` over the whole record.
    fn record_block(&mut self) -> Id {
        if let Some(v) = self.rt.record {
            return v;
        }
        let words = self
            .opts
            .local_root_signature
            .as_ref()
            .map_or(1, |l| l.layout().1.div_ceil(4).max(1));
        let u = self.b.u32();
        let arr = self.b.ty(TypeKey::LaidOutArray {
            elem: u,
            len: words,
            stride: 4,
        });
        let s = self.b.struct_type(&[arr]);
        self.b.decorate(s, Decoration::Block, &[]);
        self.b.member_decorate(s, 0, Decoration::Offset, &[0]);
        let pt = self.b.ptr(StorageClass::ShaderRecordBufferKHR, s);
        let var = self
            .b
            .global_var(pt, StorageClass::ShaderRecordBufferKHR, None);
        self.b.name(var, "shader_record");
        self.rt.record = Some(var);
        var
    }

    /// Word `w` (an id: it may be dynamic) of the shader record.
    fn record_word(&mut self, w: Id) -> Id {
        let block = self.record_block();
        let u = self.b.u32();
        let pt = self.b.ptr(StorageClass::ShaderRecordBufferKHR, u);
        let zero = self.b.const_u32(0);
        let p = self.chain(pt, block, &[zero, w]);
        self.load(u, p)
    }

    /// Root word `w` of resource `res`: from the shader record when the local root signature holds it, else from
    /// the root block.
    pub(super) fn root_word(&mut self, res: u32, w: u32) -> Result<Id, Error> {
        if self.res[res as usize].record {
            let wc = self.b.const_u32(w);
            Ok(self.record_word(wc))
        } else {
            self.push_word(w)
        }
    }

    /// The heap slot of the table whose root word is `w`: the word itself in the root block; in the shader record,
    /// the low word of the descriptor handle shifted by the local root signature's `table_shift`.
    pub(super) fn table_slot(&mut self, res: u32, w: u32) -> Result<Id, Error> {
        let word = self.root_word(res, w)?;
        if !self.res[res as usize].record {
            return Ok(word);
        }
        let sampler = self.res[res as usize].decl.class == ResourceClass::Sampler;
        let shift = self
            .opts
            .local_root_signature
            .as_ref()
            .map_or(0, |l| l.table_shift[usize::from(sampler)]);
        if shift == 0 {
            return Ok(word);
        }
        let u = self.b.u32();
        let s = self.b.const_u32(shift);
        Ok(self.op2(Op::ShiftRightLogical, u, word, s))
    }

    /// One 16-byte row of local root constants: the record words `first_word + 4 row ..`, 0 past the constants.
    /// A dynamic row is clamped to the constants (D3D leaves reads past them undefined).
    pub(super) fn record_constant_row(
        &mut self,
        first_word: u32,
        words: u32,
        row: Id,
        row_const: Option<u32>,
    ) -> Result<[Id; 4], Error> {
        let u = self.b.u32();
        let mut out = [u; 4];
        match row_const {
            Some(r) => {
                for (k, slot) in out.iter_mut().enumerate() {
                    let w = r.saturating_mul(4).saturating_add(k as u32);
                    *slot = if w < words {
                        let wc = self.b.const_u32(first_word + w);
                        self.record_word(wc)
                    } else {
                        self.b.const_u32(0)
                    };
                }
            }
            None if words == 0 => out = [self.b.const_u32(0); 4],
            None => {
                let four = self.b.const_u32(4);
                let base = self.op2(Op::IMul, u, row, four);
                let last = self.b.const_u32(words.saturating_sub(1));
                let first = self.b.const_u32(first_word);
                let n = self.b.const_u32(words);
                let zero = self.b.const_u32(0);
                let bt = self.b.bool();
                for (k, slot) in out.iter_mut().enumerate() {
                    let kc = self.b.const_u32(k as u32);
                    let w = self.op2(Op::IAdd, u, base, kc);
                    let inside = self.op2(Op::ULessThan, bt, w, n);
                    let clamped = self.glsl(u, GLOp::UMin, &[w, last]);
                    let at = self.op2(Op::IAdd, u, first, clamped);
                    let v = self.record_word(at);
                    *slot = self.select(u, inside, v, zero);
                }
            }
        }
        Ok(out)
    }
}
