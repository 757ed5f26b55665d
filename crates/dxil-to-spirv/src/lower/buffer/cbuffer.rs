//! Constant buffers: rows of `uvec4` read through `cbufferLoadLegacy` and `cbufferLoad`, or root constants.

use super::*;

impl<'a> Ctx<'a> {
    /// One 16-byte row of a cbuffer as `uvec4`.
    /// The words of a cbuffer row that `mask` selects (bit k: word k; the others are 0). One
    /// selected word is one scalar load, several one vector load with only those extracted.
    pub(super) fn cbuffer_row(
        &mut self,
        h: &HandleInfo,
        row: Id,
        row_const: Option<u32>,
        mask: u8,
    ) -> Result<[Id; 4], Error> {
        // Root constants have no descriptor: words of the root block.
        let (_, _, placement) = self.view_var(h.res, View::Cbuf)?;
        if let crate::binding::Placement::PushConstants { first_word, words } = placement {
            if self.res[h.res as usize].record {
                return self.record_constant_row(first_word, words, row, row_const);
            }
            let u = self.b.u32();
            let Some(r) = row_const else {
                return Err(
                    self.unsupported(Unsupported::resource("dynamic indexing of root constants"))
                );
            };
            // Every slot is written below.
            let mut out = [u; 4];
            for (k, slot) in out.iter_mut().enumerate() {
                let w = r * 4 + k as u32;
                *slot = if w < words {
                    self.push_word(first_word + w)?
                } else {
                    self.b.const_u32(0)
                };
            }
            return Ok(out);
        }
        let d = self.desc(h, View::Cbuf)?;
        let u = self.b.u32();
        let v4 = self.b.vec(u, 4);
        let pt = self.b.ptr(d.storage, v4);
        let zero = self.b.const_u32(0);
        let mask = mask & 0xF;
        let mut out = [zero; 4];
        if mask == 0 {
            return Ok(out);
        }
        if mask.count_ones() == 1 && d.storage != StorageClass::PhysicalStorageBuffer {
            let k = mask.trailing_zeros();
            let kc = self.b.const_u32(k);
            let pu = self.b.ptr(d.storage, u);
            let p1 = match d.index {
                Some(i) => self.chain(pu, d.var, &[i, zero, row, kc]),
                None => self.chain(pu, d.var, &[zero, row, kc]),
            };
            if d.nonuniform {
                self.nonuniform(p1);
            }
            out[k as usize] = self.load(u, p1);
            return Ok(out);
        }
        let p = match d.index {
            Some(i) => self.chain(pt, d.var, &[i, zero, row]),
            None => self.chain(pt, d.var, &[zero, row]),
        };
        if d.nonuniform {
            self.nonuniform(p);
        }
        let v = self.load_from(&d, v4, p, 16);
        for (k, slot) in out.iter_mut().enumerate() {
            if mask & (1 << k) != 0 {
                *slot = self.opn(Op::CompositeExtract, u, &words![v, k as u32]);
            }
        }
        Ok(out)
    }

    /// `CBufferLoadLegacy(handle, row)` → `CBufRet.T` (4 × 32-bit, 8 × 16-bit or 2 × 64-bit).
    pub(in crate::lower) fn cbuffer_load_legacy(
        &mut self,
        i: u32,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let (row, rc) = self.value_u32(self.arg(a, 2)?)?;
        let et = self.elem0(ty);
        let used = self.f.used.get(i as usize).copied().unwrap_or(0xFF);
        let u = self.b.u32();
        let mut parts = [None; 8];
        // The row's slots: 8 × 16, 4 × 32 (also min-precision 16-bit values) or 2 × 64 bits.
        let n = match self.m.types.data(ty) {
            dxil_module::TypeData::Struct { elems, .. } => elems.len().clamp(1, 8),
            _ => 4,
        };
        let w = (128 / n) as u32;
        // The words the used slots lie in.
        let mut wmask = 0u8;
        for k in 0..n {
            if used & (1 << k) != 0 {
                wmask |= match w {
                    16 => 1 << (k / 2),
                    64 => 3 << (2 * k),
                    _ => 1 << k,
                };
            }
        }
        let words = self.cbuffer_row(&h, row, rc, wmask)?;
        for k in 0..n {
            if used & (1 << k) == 0 {
                continue;
            }
            let bits = match w {
                16 => {
                    let word = words[k / 2];
                    let x = if k % 2 == 1 {
                        let s = self.b.const_u32(16);
                        self.op2(Op::ShiftRightLogical, u, word, s)
                    } else {
                        word
                    };
                    let t16 = self.scalar_ty(Scalar::Int(16), 1);
                    self.op1(Op::UConvert, t16, x)
                }
                64 => {
                    let v2 = self.b.vec(u, 2);
                    let v = self.op2(Op::CompositeConstruct, v2, words[2 * k], words[2 * k + 1]);
                    let t64 = self.scalar_ty(Scalar::Int(64), 1);
                    self.op1(Op::Bitcast, t64, v)
                }
                _ => words[k],
            };
            parts[k] = Some(self.value_in_slot(bits, w, et)?);
        }
        Ok(self.make_partial_agg(&parts[..n]))
    }

    /// `CBufferLoad(handle, byteOffset, alignment)` → one scalar.
    pub(in crate::lower) fn cbuffer_load(&mut self, ty: TypeId, a: Args<'_>) -> Result<Id, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let u = self.b.u32();
        let (off, oc) = self.value_u32(self.arg(a, 2)?)?;
        let w = match self.bits(ty) {
            16 if !self.native16 => 32,
            w => w,
        };
        let (row, rc) = match oc {
            Some(c) => (self.b.const_u32(c >> 4), Some(c >> 4)),
            None => {
                let s = self.b.const_u32(4);
                (self.op2(Op::ShiftRightLogical, u, off, s), None)
            }
        };
        let words = self.cbuffer_row(&h, row, rc, 0xF)?;
        let v4 = self.b.vec(u, 4);
        let vec = self.op_ids(Op::CompositeConstruct, v4, &words);
        let word_at = |this: &mut Self, extra: u32| -> Id {
            match oc {
                Some(c) => words[(((c >> 2) + extra) & 3) as usize],
                None => {
                    let two = this.b.const_u32(2);
                    let three = this.b.const_u32(3);
                    let wi = this.op2(Op::ShiftRightLogical, u, off, two);
                    let wi = if extra > 0 {
                        let e = this.b.const_u32(extra);
                        this.op2(Op::IAdd, u, wi, e)
                    } else {
                        wi
                    };
                    let wi = this.op2(Op::BitwiseAnd, u, wi, three);
                    this.op2(Op::VectorExtractDynamic, u, vec, wi)
                }
            }
        };
        let bits = match w {
            64 => {
                let lo = word_at(self, 0);
                let hi = word_at(self, 1);
                let v2 = self.b.vec(u, 2);
                let v = self.op2(Op::CompositeConstruct, v2, lo, hi);
                let t64 = self.scalar_ty(Scalar::Int(64), 1);
                self.op1(Op::Bitcast, t64, v)
            }
            16 => {
                let word = word_at(self, 0);
                let sh = match oc {
                    Some(c) => self.b.const_u32((c & 2) * 8),
                    None => {
                        let two = self.b.const_u32(2);
                        let eight = self.b.const_u32(8);
                        let b = self.op2(Op::BitwiseAnd, u, off, two);
                        self.op2(Op::IMul, u, b, eight)
                    }
                };
                let x = self.op2(Op::ShiftRightLogical, u, word, sh);
                let t16 = self.scalar_ty(Scalar::Int(16), 1);
                self.op1(Op::UConvert, t16, x)
            }
            _ => word_at(self, 0),
        };
        self.value_in_slot(bits, w, ty)
    }
}
