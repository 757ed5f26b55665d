//! Buffers: raw and structured buffers (storage buffers of words), typed buffers (texel buffers), cbuffers
//! (uniform buffers of `uvec4` rows), atomics, UAV counters, size queries, and the bounds checks.
//!
//! Raw and structured accesses address the `u32` view (`u16` view for 16-bit values; 64-bit values are two
//! words). Out-of-bounds reads select 0 after reading a clamped address; stores and atomics run in the guarded
//! blocks that `func` cuts around them, testing the same bounds.

use dxil_module::{Body, InstKind, TypeId};
use dxil_shader::ops::OpCode;
use spirv::{Capability, Op, Scope, StorageClass};

use super::res::{HandleInfo, View};
use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::binding::Placement;
use crate::dxil::{ResourceClass, ResourceKind};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, try_ids, words};

/// Address of component 0 of a raw or structured access.
#[derive(Clone, Copy, Debug)]
struct RawAddr {
    h: HandleInfo,
    structured: bool,
    stride: u32,
    /// Element index (structured) or byte address (raw).
    index: Id,
    /// Byte address of component 0 (raw buffers; structured ones compute it on demand from the
    /// index, the stride and `offset`).
    byte: Option<Id>,
    /// A structured access's dynamic byte offset in the element (`None`: constant, in `byte_c`
    /// or `offset_c`).
    offset: Option<Id>,
    offset_c: u32,
    /// The byte address when it is a constant.
    byte_c: Option<u32>,
    /// Structured buffers: the 32-bit unit index of component 0, computed as
    /// `index * (stride / 4) + offset / 4` rather than from the byte address, so that it does not
    /// wrap at 4 GiB of byte addresses and drivers see a plain product.
    word: Option<Id>,
    /// Structured buffers read through [`View::SsboVec4`]: the `uvec4` unit holding component 0
    /// (of a 32-bit access) and its lane.
    vec: Option<(Id, u32)>,
}

/// One component access resolved to a view unit.
#[derive(Clone, Copy)]
struct Unit {
    view: View,
    /// Unit index of the first unit of the component.
    unit: Id,
    /// Units per component (2 for 64-bit values in the u32 view).
    per: u32,
    /// The component's lane in a vector unit ([`View::SsboVec4`]).
    lane: Option<u32>,
}

impl<'a> Ctx<'a> {
    /// Operands of a call instruction.
    pub fn call_args<'b>(
        &self,
        body: &'b Body,
        i: u32,
    ) -> Result<(OpCode, TypeId, Args<'b>), Error> {
        let d = body
            .insts
            .get(i as usize)
            .ok_or_else(|| self.invalid(Invalid::reference("no instruction")))?;
        let InstKind::Call { callee, args, .. } = &d.kind else {
            return Err(self.invalid(Invalid::internal("not a call")));
        };
        let a = Args(args.get(&body.pool));
        let op = self
            .dx_opcode(*callee, a)?
            .ok_or_else(|| self.invalid(Invalid::internal("not a dx.op call")))?;
        Ok((op, d.ty, a))
    }

    fn raw_addr(
        &mut self,
        a: Args<'_>,
        index_at: usize,
        offset_at: usize,
    ) -> Result<RawAddr, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let decl = self.decl(&h).clone();
        match decl.kind {
            ResourceKind::RawBuffer => {
                let byte = self.arg_id(a, index_at)?;
                let byte_c = self.const_int(self.arg(a, index_at)?).map(|c| c as u32);
                Ok(RawAddr {
                    h,
                    structured: false,
                    stride: 0,
                    index: byte,
                    byte: Some(byte),
                    offset: None,
                    offset_c: 0,
                    byte_c,
                    word: None,
                    vec: None,
                })
            }
            ResourceKind::StructuredBuffer => {
                self.structured_addr(h, decl.stride, a, index_at, offset_at)
            }
            other => Err(self.invalid(Invalid::resource(format!(
                "raw access to a {other:?} resource"
            )))),
        }
    }

    /// Whether 32-bit accesses to a structured buffer of `stride` go through [`View::SsboVec4`]:
    /// its elements start on 16-byte boundaries and it is a plain descriptor (no window in an offset
    /// buffer, no root descriptor address, no heap slot that other views alias). Then every 32-bit
    /// access uses that one view, so that no second view aliases it, and a 16-byte part of an
    /// element is one vector load or store, which drivers keep as one 16-byte memory access.
    fn vec4_view(&mut self, h: &HandleInfo, stride: u32) -> Result<bool, Error> {
        if stride == 0 || !stride.is_multiple_of(16) {
            return Ok(false);
        }
        Ok(matches!(
            self.placement_of(h.res, View::SsboVec4)?,
            Placement::Descriptor { .. }
        ))
    }

    /// The address of a structured access: element `index_at`, byte offset `offset_at`.
    ///
    /// With a constant offset that is a multiple of 4, the 32-bit unit (and for strides of 16-byte
    /// multiples, the `uvec4` unit) is `index * units per element + offset / units`. Without
    /// explicit checks, an element index whose unit index would pass 32 bits (where D3D12 reads an
    /// element past the view) is sent past every view instead, unless it is proven small.
    fn structured_addr(
        &mut self,
        h: HandleInfo,
        stride: u32,
        a: Args<'_>,
        index_at: usize,
        offset_at: usize,
    ) -> Result<RawAddr, Error> {
        if stride == 0 {
            return Err(self.invalid(Invalid::resource("structured buffer without a stride")));
        }
        let u = self.b.u32();
        let index_v = self.arg(a, index_at)?;
        let index = self.value(index_v)?;
        let ci = self.const_int(index_v).map(|c| c as u32);
        let off_v = self.arg(a, offset_at)?;
        let co = if self.arg_undef(a, offset_at) {
            Some(0)
        } else {
            self.const_int(off_v).map(|c| c as u32)
        };
        let byte_c = match (ci, co) {
            (Some(i), Some(o)) => Some(i.wrapping_mul(stride).wrapping_add(o)),
            _ => None,
        };
        let offset = match co {
            Some(_) => None,
            None => Some(self.value(off_v)?),
        };
        let mut ad = RawAddr {
            h,
            structured: true,
            stride,
            index,
            byte: None,
            offset,
            offset_c: co.unwrap_or(0),
            byte_c,
            word: None,
            vec: None,
        };
        let Some(o) = co.filter(|o| o % 4 == 0 && stride.is_multiple_of(4)) else {
            return Ok(ad);
        };
        let vec = self.vec4_view(&h, stride)?;
        // Units of 16 bytes for the vector view, else of 4.
        let unit = if vec { 16 } else { 4 };
        let per = stride / unit;
        // The largest element index whose unit indices (those of its components too) fit 32 bits;
        // larger ones go to `FAR`, past any view (at most 2^30 units), with room for the
        // components' offsets.
        const FAR: u32 = u32::MAX - 15;
        let limit = (u64::from(FAR) - u64::from(o / unit)) / u64::from(per.max(1));
        let first = match ci {
            Some(i) if u64::from(i) <= limit => self.b.const_u32(i * per + o / unit),
            Some(_) => self.b.const_u32(FAR),
            None => {
                let scaled = if per == 1 {
                    index
                } else {
                    let p = self.b.const_u32(per);
                    self.op2(Op::IMul, u, index, p)
                };
                let add_offset = |this: &mut Self, base: Id| {
                    if o / unit == 0 {
                        base
                    } else {
                        let c = this.b.const_u32(o / unit);
                        this.op2(Op::IAdd, u, base, c)
                    }
                };
                let small = self.max_of(index_v).is_some_and(|m| m <= limit);
                // One unit per element at offset 0 cannot wrap: an index past 2^30 is past any
                // view already.
                let no_wrap = per == 1 && o / unit == 0;
                if self.opts.bounds_checks || small || no_wrap {
                    add_offset(self, scaled)
                } else if o < stride {
                    // Guard the element's first unit with one limit for every offset inside
                    // the element, so that the accesses to its members share one compare and
                    // select (on an H100, three guards of a 28-byte element's members cost 1%).
                    let far_base = FAR.saturating_sub(per.saturating_sub(1));
                    let bt = self.b.bool();
                    let l = self.b.const_u32(far_base / per.max(1));
                    let ok = self.op2(Op::ULessThanEqual, bt, index, l);
                    let far = self.b.const_u32(far_base);
                    let base = self.select(u, ok, scaled, far);
                    add_offset(self, base)
                } else {
                    let first = add_offset(self, scaled);
                    let bt = self.b.bool();
                    let l = self.b.const_u32(u32::try_from(limit).unwrap_or(u32::MAX));
                    let ok = self.op2(Op::ULessThanEqual, bt, index, l);
                    let far = self.b.const_u32(FAR);
                    self.select(u, ok, first, far)
                }
            }
        };
        if vec {
            ad.vec = Some((first, (o % 16) / 4));
        } else {
            ad.word = Some(first);
        }
        Ok(ad)
    }

    /// The byte address of component 0 of an access.
    fn byte_of(&mut self, ad: &RawAddr) -> Id {
        if let Some(b) = ad.byte {
            return b;
        }
        if let Some(c) = ad.byte_c {
            return self.b.const_u32(c);
        }
        let u = self.b.u32();
        let s = self.b.const_u32(ad.stride);
        let m = self.op2(Op::IMul, u, ad.index, s);
        match ad.offset {
            Some(o) => self.op2(Op::IAdd, u, m, o),
            None if ad.offset_c == 0 => m,
            None => {
                let c = self.b.const_u32(ad.offset_c);
                self.op2(Op::IAdd, u, m, c)
            }
        }
    }

    /// The view unit of component `k` (each `esize` bytes) of an access.
    fn unit_of(&mut self, ad: &RawAddr, esize: u32, k: u32) -> Unit {
        let u = self.b.u32();
        if let (Some((chunk, lane0)), 4) = (ad.vec, esize) {
            let c = lane0 + k;
            let unit = if c / 4 == 0 {
                chunk
            } else {
                let n = self.b.const_u32(c / 4);
                self.op2(Op::IAdd, u, chunk, n)
            };
            return Unit {
                view: View::SsboVec4,
                unit,
                per: 1,
                lane: Some(c % 4),
            };
        }
        let (view, shift) = if esize == 2 {
            (View::Ssbo16, 1)
        } else {
            (View::Ssbo32, 2)
        };
        let per = if esize == 8 { 2 } else { 1 };
        let base = match (ad.byte_c, ad.word) {
            (Some(c), _) => self.b.const_u32(c >> shift),
            (None, Some(w)) if shift == 2 => w,
            _ => {
                let byte = self.byte_of(ad);
                let s = self.b.const_u32(shift);
                self.op2(Op::ShiftRightLogical, u, byte, s)
            }
        };
        let unit = match (k, ad.byte_c) {
            (0, _) => base,
            (_, Some(c)) => self.b.const_u32((c >> shift).wrapping_add(k * per)),
            _ => {
                let kc = self.b.const_u32(k * per);
                self.op2(Op::IAdd, u, base, kc)
            }
        };
        Unit {
            view,
            unit,
            per,
            lane: None,
        }
    }

    /// In-bounds condition of component `k` (raw) or of the element (structured).
    fn in_bounds(&mut self, ad: &RawAddr, un: &Unit) -> Result<Id, Error> {
        let d = self.desc(&ad.h, un.view)?;
        if d.storage == StorageClass::PhysicalStorageBuffer {
            // Root descriptors: D3D12 checks no bounds.
            return Ok(self.b.const_bool(true));
        }
        let len = self.ssbo_len(&ad.h, &d, un.view);
        let u = self.b.u32();
        let bt = self.b.bool();
        if ad.structured {
            let unit_bytes = match un.view {
                View::Ssbo16 => 2,
                View::SsboVec4 => 16,
                _ => 4,
            };
            let count = if ad.stride.is_multiple_of(unit_bytes) {
                let per = self.b.const_u32(ad.stride / unit_bytes);
                self.op2(Op::UDiv, u, len, per)
            } else {
                let ub = self.b.const_u32(unit_bytes);
                let bytes = self.op2(Op::IMul, u, len, ub);
                let s = self.b.const_u32(ad.stride);
                self.op2(Op::UDiv, u, bytes, s)
            };
            Ok(self.op2(Op::ULessThan, bt, ad.index, count))
        } else {
            let last = if un.per > 1 {
                let c = self.b.const_u32(un.per - 1);
                self.op2(Op::IAdd, u, un.unit, c)
            } else {
                un.unit
            };
            Ok(self.op2(Op::ULessThan, bt, last, len))
        }
    }

    /// Loads one component (raw bits as u16/u32/u64) at `un`, or 0 when `inb` is false.
    fn load_unit(&mut self, h: &HandleInfo, un: &Unit, inb: Option<Id>) -> Result<Id, Error> {
        let d = self.desc(h, un.view)?;
        let (et, bits) = if un.view == View::Ssbo16 {
            (self.scalar_ty(Scalar::Int(16), 1), 16)
        } else {
            (self.b.u32(), 32)
        };
        let zero = self.const_scalar(Scalar::Int(bits), 1, 0);
        let u = self.b.u32();
        let mut words = [zero; 2];
        for (j, slot) in words.iter_mut().enumerate().take(un.per as usize) {
            let mut addr = if j == 0 {
                un.unit
            } else {
                let c = self.b.const_u32(j as u32);
                self.op2(Op::IAdd, u, un.unit, c)
            };
            if let Some(c) = inb {
                let z = self.b.const_u32(0);
                addr = self.select(u, c, addr, z);
            }
            let lane = un.lane.map(|l| self.b.const_u32(l));
            let p = self.ssbo_lane_ptr(&d, et, Some(addr), lane);
            let v = self.load_from(&d, et, p, u32::from(bits / 8));
            *slot = match inb {
                Some(c) => self.select(et, c, v, zero),
                None => v,
            };
        }
        if un.per == 2 {
            let v2 = self.b.vec(u, 2);
            let v = self.op2(Op::CompositeConstruct, v2, words[0], words[1]);
            let t64 = self.scalar_ty(Scalar::Int(64), 1);
            return Ok(self.op1(Op::Bitcast, t64, v));
        }
        Ok(words[0])
    }

    /// The four words of `uvec4` unit `chunk` of a [`View::SsboVec4`] view (each 0 where `inb` is
    /// false, read from unit 0 then).
    fn load_vec4(&mut self, h: &HandleInfo, chunk: Id, inb: Option<Id>) -> Result<[Id; 4], Error> {
        let d = self.desc(h, View::SsboVec4)?;
        let u = self.b.u32();
        let v4 = self.b.vec(u, 4);
        let zero = self.b.const_u32(0);
        let addr = match inb {
            Some(c) => self.select(u, c, chunk, zero),
            None => chunk,
        };
        let p = self.ssbo_ptr(&d, v4, Some(addr));
        let v = self.load_from(&d, v4, p, 16);
        let mut w = [zero; 4];
        for (j, slot) in w.iter_mut().enumerate() {
            let x = self.opn(Op::CompositeExtract, u, &words![v, j as u32]);
            *slot = match inb {
                Some(c) => self.select(u, c, x, zero),
                None => x,
            };
        }
        Ok(w)
    }

    /// Stores four words as one `uvec4` at unit `chunk` of a [`View::SsboVec4`] view.
    fn store_vec4(&mut self, h: &HandleInfo, chunk: Id, w: [Id; 4]) -> Result<(), Error> {
        let d = self.desc(h, View::SsboVec4)?;
        let u = self.b.u32();
        let v4 = self.b.vec(u, 4);
        let v = self.op_ids(Op::CompositeConstruct, v4, &w);
        let p = self.ssbo_ptr(&d, v4, Some(chunk));
        self.store_to(&d, p, v, 16);
        Ok(())
    }

    /// Stores raw bits (u16/u32/u64) at `un`.
    fn store_unit(&mut self, h: &HandleInfo, un: &Unit, bits: Id) -> Result<(), Error> {
        let d = self.desc(h, un.view)?;
        let u = self.b.u32();
        if un.per == 2 {
            let v2 = self.b.vec(u, 2);
            let v = self.op1(Op::Bitcast, v2, bits);
            for j in 0..2u32 {
                let w = self.opn(Op::CompositeExtract, u, &words![v, j]);
                let addr = if j == 0 {
                    un.unit
                } else {
                    let c = self.b.const_u32(1);
                    self.op2(Op::IAdd, u, un.unit, c)
                };
                let p = self.ssbo_ptr(&d, u, Some(addr));
                self.store_to(&d, p, w, 4);
            }
            return Ok(());
        }
        let et = if un.view == View::Ssbo16 {
            self.scalar_ty(Scalar::Int(16), 1)
        } else {
            u
        };
        let lane = un.lane.map(|l| self.b.const_u32(l));
        let p = self.ssbo_lane_ptr(&d, et, Some(un.unit), lane);
        let align = if un.view == View::Ssbo16 { 2 } else { 4 };
        self.store_to(&d, p, bits, align);
        Ok(())
    }

    /// Raw bits (u16/u32/u64) of a value of LLVM type `t`, and back. Min-precision 16-bit values (modules
    /// without native 16-bit types) are stored as 32-bit values.
    pub(super) fn bits_of(&mut self, v: Id, t: TypeId) -> Result<Id, Error> {
        let w = self.bits(t) as u8;
        let s = self
            .scalar_of(t)
            .ok_or_else(|| self.invalid(Invalid::ty("buffer access of a non-numeric value")))?;
        if w == 16 && !self.native16 {
            let u = self.b.u32();
            return Ok(match s {
                Scalar::Float(_) => {
                    let f = self.b.f32();
                    let x = self.op1(Op::FConvert, f, v);
                    self.op1(Op::Bitcast, u, x)
                }
                _ => self.op1(Op::UConvert, u, v),
            });
        }
        Ok(match s {
            Scalar::Float(_) => {
                let it = self.scalar_ty(Scalar::Int(w), 1);
                self.op1(Op::Bitcast, it, v)
            }
            Scalar::Int(_) => v,
            Scalar::Bool => {
                let u = self.b.u32();
                let one = self.b.const_u32(1);
                let zero = self.b.const_u32(0);
                self.select(u, v, one, zero)
            }
        })
    }

    pub(super) fn value_of_bits(&mut self, bits: Id, t: TypeId) -> Result<Id, Error> {
        let w = self.bits(t);
        self.value_in_slot(bits, if w == 16 && !self.native16 { 32 } else { w }, t)
    }

    /// `bits` holds a value of type `t` in a slot of `slot` bits (32 for a min-precision 16-bit value).
    fn value_in_slot(&mut self, bits: Id, slot: u32, t: TypeId) -> Result<Id, Error> {
        let s = self
            .scalar_of(t)
            .ok_or_else(|| self.invalid(Invalid::ty("buffer access of a non-numeric value")))?;
        if slot == 32 && self.bits(t) == 16 {
            let t16 = self.ty(t)?;
            return Ok(match s {
                Scalar::Float(_) => {
                    let f = self.b.f32();
                    let x = self.op1(Op::Bitcast, f, bits);
                    self.op1(Op::FConvert, t16, x)
                }
                _ => self.op1(Op::UConvert, t16, bits),
            });
        }
        Ok(match s {
            Scalar::Float(_) => {
                let ft = self.ty(t)?;
                self.op1(Op::Bitcast, ft, bits)
            }
            Scalar::Int(_) => bits,
            Scalar::Bool => {
                let bt = self.b.bool();
                let zero = self.b.const_u32(0);
                self.op2(Op::INotEqual, bt, bits, zero)
            }
        })
    }

    fn esize(&self, t: TypeId) -> u32 {
        match self.bits(t) {
            16 if self.native16 => 2,
            64 => 8,
            _ => 4,
        }
    }

    /// Loads components of a raw/structured access into a `ResRet`-shaped aggregate.
    fn raw_load_common(
        &mut self,
        i: u32,
        ty: TypeId,
        ad: RawAddr,
        ncomp: u32,
    ) -> Result<Val, Error> {
        let et = self.elem0(ty);
        let es = self.esize(et);
        let used = self.f.used.get(i as usize).copied().unwrap_or(0xFF);
        let checks = self.opts.bounds_checks;
        let mut parts = [None; 5];
        let mut elem_in = None;
        let wanted = (0..ncomp.min(4)).filter(|k| used & (1 << k) != 0).count();
        if let (Some((chunk, 0)), 4, 2..) = (ad.vec, es, wanted) {
            // The components lie in one 16-byte unit of the element: one vector load.
            let inb = if checks {
                let un = self.unit_of(&ad, es, 0);
                Some(self.in_bounds(&ad, &un)?)
            } else {
                None
            };
            let w = self.load_vec4(&ad.h, chunk, inb)?;
            for k in 0..ncomp.min(4) {
                if used & (1 << k) != 0 {
                    parts[k as usize] = Some(self.value_of_bits(w[k as usize], et)?);
                }
            }
            if used & 0x10 != 0 {
                parts[4] = Some(self.b.const_u32(1));
            }
            return Ok(self.make_partial_agg(&parts));
        }
        for k in 0..ncomp.min(4) {
            if used & (1 << k) == 0 {
                continue;
            }
            let un = self.unit_of(&ad, es, k);
            let inb = if !checks {
                None
            } else if ad.structured {
                if elem_in.is_none() {
                    elem_in = Some(self.in_bounds(&ad, &un)?);
                }
                elem_in
            } else {
                Some(self.in_bounds(&ad, &un)?)
            };
            let bits = self.load_unit(&ad.h, &un, inb)?;
            parts[k as usize] = Some(self.value_of_bits(bits, et)?);
        }
        if used & 0x10 != 0 {
            parts[4] = Some(self.b.const_u32(1));
        }
        Ok(self.make_partial_agg(&parts))
    }

    /// `RawBufferLoad(handle, index, elementOffset, mask, alignment)`.
    pub(super) fn raw_buffer_load(
        &mut self,
        i: u32,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let ad = self.raw_addr(a, 2, 3)?;
        let mask = self.arg_const(a, 4).unwrap_or(15) as u32 & 0xF;
        let n = 32 - mask.leading_zeros();
        self.raw_load_common(i, ty, ad, n.max(1))
    }

    /// `BufferLoad(handle, index, wot)`: typed, raw or structured.
    pub(super) fn buffer_load(&mut self, i: u32, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let h = self.handle_of_arg(a, 1)?;
        match self.decl(&h).kind {
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer => {
                let ad = self.raw_addr(a, 2, 3)?;
                self.raw_load_common(i, ty, ad, 4)
            }
            ResourceKind::TypedBuffer => {
                let coord = self.arg_id(a, 2)?;
                self.typed_load(i, ty, &h, coord, None, None)
            }
            k => Err(self.invalid(Invalid::resource(format!("BufferLoad from a {k:?}")))),
        }
    }

    /// `RawBufferVectorLoad(handle, index, elementOffset, alignment)` (SM 6.9): `{<N x T>, i32}`.
    pub(super) fn raw_buffer_vector_load(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let vty = self.elem0(ty);
        let n = self.lanes(vty);
        let et = self.m.types.scalar_of(vty);
        let es = self.esize(et);
        let ad = self.raw_addr(a, 2, 3)?;
        let checks = self.opts.bounds_checks;
        let mut comps = Vec::with_capacity(n as usize);
        let mut elem_in = None;
        if let (Some((chunk, 0)), 4, 4) = (ad.vec, es, n) {
            let inb = if checks {
                let un = self.unit_of(&ad, es, 0);
                Some(self.in_bounds(&ad, &un)?)
            } else {
                None
            };
            for w in self.load_vec4(&ad.h, chunk, inb)? {
                comps.push(self.value_of_bits(w, et)?);
            }
        }
        for k in comps.len() as u32..n {
            let un = self.unit_of(&ad, es, k);
            let inb = if !checks {
                None
            } else if ad.structured {
                if elem_in.is_none() {
                    elem_in = Some(self.in_bounds(&ad, &un)?);
                }
                elem_in
            } else {
                Some(self.in_bounds(&ad, &un)?)
            };
            let bits = self.load_unit(&ad.h, &un, inb)?;
            comps.push(self.value_of_bits(bits, et)?);
        }
        let vt = self.ty(vty)?;
        let v = self.op_ids(Op::CompositeConstruct, vt, &comps);
        let status = self.b.const_u32(1);
        Ok(self.make_agg(&[v, status]))
    }

    // -----------------------------------------------------------------------------------------------------------
    // Stores and atomics: condition / body of each guard.

    /// The condition of guard `k` of instruction `i`.
    /// Stores, atomics and counters need a UAV of a kind the operation addresses.
    fn check_writable(&self, op: OpCode, h: &HandleInfo) -> Result<(), Error> {
        let d = self.decl(h);
        let ok = d.class == ResourceClass::Uav
            && match op {
                OpCode::RawBufferStore | OpCode::RawBufferVectorStore => d.kind.is_raw_like(),
                OpCode::BufferStore => d.kind.is_raw_like() || d.kind == ResourceKind::TypedBuffer,
                OpCode::AtomicBinOp | OpCode::AtomicCompareExchange => {
                    d.kind.is_raw_like()
                        || ((d.kind == ResourceKind::TypedBuffer
                            || (d.kind.is_texture()
                                && !matches!(
                                    d.kind,
                                    ResourceKind::TextureCube | ResourceKind::TextureCubeArray
                                )))
                            && d.component.is_some_and(|c| {
                                crate::dxil::sampled_class(c) != crate::dxil::SampledClass::Float
                            }))
                }
                _ => true,
            };
        if ok {
            Ok(())
        } else {
            Err(self.invalid(Invalid::ty(format!(
                "{} on a {:?} {}",
                op.name(),
                d.kind,
                if d.class == ResourceClass::Uav {
                    "UAV"
                } else {
                    "non-UAV"
                }
            ))))
        }
    }

    pub(super) fn guard_cond(&mut self, body: &Body, i: u32, k: u8) -> Result<Id, Error> {
        let (op, ty, a) = self.call_args(body, i)?;
        if op == OpCode::Discard {
            // Discard(cond): demote where the condition holds.
            return self.arg_id(a, 1);
        }
        if let Some(bytes) = self.raw_vector(op, a, ty)? {
            return self.raw_vector_cond(a, bytes, k);
        }
        let h = self.handle_of_arg(a, 1)?;
        self.check_writable(op, &h)?;
        let kind = self.decl(&h).kind;
        match op {
            OpCode::RawBufferStore | OpCode::BufferStore if kind.is_raw_like() => {
                let vt = self.arg_ty(a, 4)?;
                let es = self.esize(vt);
                let mask = self.arg_const(a, 8).unwrap_or(15) as u32;
                if !kind_structured(kind) && mask & (1 << k) == 0 {
                    return Ok(self.b.const_bool(false));
                }
                let ad = self.raw_addr(a, 2, 3)?;
                let un = self.unit_of(&ad, es, k as u32);
                self.in_bounds(&ad, &un)
            }
            OpCode::RawBufferVectorStore => {
                let vty = self.arg_ty(a, 4)?;
                let et = self.m.types.scalar_of(vty);
                let es = self.esize(et);
                let ad = self.raw_addr(a, 2, 3)?;
                let un = self.unit_of(&ad, es, k as u32);
                self.in_bounds(&ad, &un)
            }
            OpCode::BufferStore => {
                let coord = self.arg_id(a, 2)?;
                self.texel_in_bounds(&h, coord)
            }
            OpCode::AtomicBinOp | OpCode::AtomicCompareExchange => {
                if let Some(var) = self.result_var(i) {
                    let et = self.elem_ty_of_atomic(body, i)?;
                    let z = self.const_scalar(Scalar::Int(et), 1, 0);
                    self.store(var, z);
                }
                self.atomic_in_bounds(op, a, &h)
            }
            OpCode::TextureStore | OpCode::TextureStoreSample => self.texture_store_cond(op, a),
            OpCode::BufferUpdateCounter => {
                if let Some(var) = self.result_var(i) {
                    let z = self.b.const_u32(0);
                    self.store(var, z);
                }
                self.counter_guard_cond(&h)
            }
            _ => Err(self.invalid(Invalid::internal("guard on an unexpected operation"))),
        }
    }

    fn elem_ty_of_atomic(&self, body: &Body, i: u32) -> Result<u8, Error> {
        let t = body.insts[i as usize].ty;
        Ok(self.bits(t).max(32) as u8)
    }

    /// The guarded action `k` of instruction `i`.
    pub(super) fn guard_body(&mut self, body: &Body, i: u32, k: u8) -> Result<(), Error> {
        let (op, ty, a) = self.call_args(body, i)?;
        if op == OpCode::Discard {
            self.demote_invocation();
            return Ok(());
        }
        if let Some(bytes) = self.raw_vector(op, a, ty)? {
            return self.raw_vector_body(body, i, op, ty, a, bytes, k);
        }
        let h = self.handle_of_arg(a, 1)?;
        self.check_writable(op, &h)?;
        let kind = self.decl(&h).kind;
        match op {
            OpCode::RawBufferStore | OpCode::BufferStore if kind.is_raw_like() => {
                if kind_structured(kind) {
                    self.raw_store(a, None)
                } else {
                    self.raw_store(a, Some(k as u32))
                }
            }
            OpCode::RawBufferVectorStore => self.raw_vector_store(a, Some(k as u32)),
            OpCode::BufferStore => self.typed_store(a),
            OpCode::AtomicBinOp | OpCode::AtomicCompareExchange => {
                let r = self.atomic(op, ty, a, &h)?;
                if let (Some(var), Some(r)) = (self.result_var(i), r) {
                    self.store(var, r);
                }
                Ok(())
            }
            OpCode::TextureStore | OpCode::TextureStoreSample => self.texture_store(op, a),
            OpCode::BufferUpdateCounter => {
                let r = self.counter_by_address_op(&h, a)?;
                if let Some(var) = self.result_var(i) {
                    self.store(var, r);
                }
                Ok(())
            }
            _ => Err(self.invalid(Invalid::internal("guard on an unexpected operation"))),
        }
    }

    /// The unguarded form (bounds checks off).
    pub(super) fn guard_body_plain(&mut self, body: &Body, i: u32) -> Result<Val, Error> {
        let (op, ty, a) = self.call_args(body, i)?;
        let h = self.handle_of_arg(a, 1)?;
        self.check_writable(op, &h)?;
        let kind = self.decl(&h).kind;
        match op {
            OpCode::RawBufferStore | OpCode::BufferStore if kind.is_raw_like() => {
                self.raw_store(a, None).map(|_| Val::None)
            }
            OpCode::RawBufferVectorStore => self.raw_vector_store(a, None).map(|_| Val::None),
            OpCode::BufferStore => self.typed_store(a).map(|_| Val::None),
            OpCode::AtomicBinOp | OpCode::AtomicCompareExchange => {
                Ok(match self.atomic(op, ty, a, &h)? {
                    Some(r) => Val::Id(r),
                    None => Val::None,
                })
            }
            OpCode::TextureStore | OpCode::TextureStoreSample => {
                self.texture_store(op, a).map(|_| Val::None)
            }
            _ => Err(self.invalid(Invalid::internal("unexpected store"))),
        }
    }

    /// `RawBufferStore/BufferStore(handle, index, offset, v0..v3, mask[, alignment])`: component `only`, or
    /// every masked component.
    fn raw_store(&mut self, a: Args<'_>, only: Option<u32>) -> Result<(), Error> {
        let ad = self.raw_addr(a, 2, 3)?;
        let vt = self.arg_ty(a, 4)?;
        let es = self.esize(vt);
        let mask = self.arg_const(a, 8).unwrap_or(15) as u32 & 0xF;
        if let (Some((chunk, 0)), 4, 0xF, None) = (ad.vec, es, mask, only) {
            // A whole 16-byte unit of the element: one vector store.
            let mut w = [chunk; 4];
            for (k, slot) in w.iter_mut().enumerate() {
                let v = self.arg_id(a, 4 + k)?;
                *slot = self.bits_of(v, vt)?;
            }
            return self.store_vec4(&ad.h, chunk, w);
        }
        for k in 0..4u32 {
            if mask & (1 << k) == 0 || only.is_some_and(|o| o != k) {
                continue;
            }
            let v = self.arg_id(a, 4 + k as usize)?;
            let bits = self.bits_of(v, vt)?;
            let un = self.unit_of(&ad, es, k);
            self.store_unit(&ad.h, &un, bits)?;
        }
        Ok(())
    }

    /// `RawBufferVectorStore(handle, index, offset, value, alignment)` (SM 6.9).
    fn raw_vector_store(&mut self, a: Args<'_>, only: Option<u32>) -> Result<(), Error> {
        let ad = self.raw_addr(a, 2, 3)?;
        let vty = self.arg_ty(a, 4)?;
        let n = self.lanes(vty);
        let et = self.m.types.scalar_of(vty);
        let es = self.esize(et);
        let v = self.arg_id(a, 4)?;
        let ett = self.ty(et)?;
        if let (Some((chunk, 0)), 4, 4, true) = (ad.vec, es, n, only.is_none_or(|o| o == 0)) {
            let mut w = [chunk; 4];
            for (k, slot) in w.iter_mut().enumerate() {
                let c = self.opn(Op::CompositeExtract, ett, &words![v, k as u32]);
                *slot = self.bits_of(c, et)?;
            }
            return self.store_vec4(&ad.h, chunk, w);
        }
        for k in 0..n {
            if only.is_some_and(|o| o != k) && !ad.structured {
                continue;
            }
            if ad.structured && only.is_some_and(|o| o != 0) {
                continue;
            }
            let c = if n > 1 {
                self.opn(Op::CompositeExtract, ett, &words![v, k])
            } else {
                v
            };
            let bits = self.bits_of(c, et)?;
            let un = self.unit_of(&ad, es, k);
            self.store_unit(&ad.h, &un, bits)?;
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------------------------
    // Typed buffers

    /// Texel count of a typed buffer, and `coord < count`.
    fn texel_in_bounds(&mut self, h: &HandleInfo, coord: Id) -> Result<Id, Error> {
        if let Some((_, count)) = self.texel_window(h)? {
            let bt = self.b.bool();
            return Ok(self.op2(Op::ULessThan, bt, coord, count));
        }
        let (img, _) = self.load_object(h, View::Image)?;
        self.b.capability(Capability::ImageQuery);
        let u = self.b.u32();
        let size = self.op1(Op::ImageQuerySize, u, img);
        let bt = self.b.bool();
        Ok(self.op2(Op::ULessThan, bt, coord, size))
    }

    /// The window `(start, count)` of a typed buffer view inside its texel-buffer descriptor, in elements, where the
    /// binding model reads it from the offset buffer.
    pub(super) fn texel_window(&mut self, h: &HandleInfo) -> Result<Option<(Id, Id)>, Error> {
        if self.decl(h).kind != ResourceKind::TypedBuffer {
            return Ok(None);
        }
        Ok(self.desc(h, View::Image)?.window)
    }

    /// A typed-buffer coordinate moved into the view's window (see [`Ctx::windowed`]).
    pub(super) fn texel_coord(&mut self, h: &HandleInfo, coord: Id) -> Result<Id, Error> {
        Ok(match self.texel_window(h)? {
            Some((start, count)) => self.windowed(coord, start, count, u32::MAX),
            None => coord,
        })
    }

    /// Reads a texel (typed buffer or texture) and spreads it over a `ResRet` aggregate.
    /// `coord` is a scalar or vector coordinate; `lod`/`sample` are image operands for textures.
    pub(super) fn typed_load(
        &mut self,
        i: u32,
        ty: TypeId,
        h: &HandleInfo,
        coord: Id,
        lod: Option<Id>,
        sample: Option<Id>,
    ) -> Result<Val, Error> {
        let decl = self.decl(h).clone();
        let (img, _) = self.load_object(h, View::Image)?;
        let (st, _) = self.sampled_type(&decl);
        let v4 = self.b.vec(st, 4);
        let uav = decl.class == ResourceClass::Uav;
        let buffer = decl.kind == ResourceKind::TypedBuffer;
        let checks = self.opts.bounds_checks && buffer;
        let mut c = coord;
        let mut inb = None;
        if checks {
            let cond = self.texel_in_bounds(h, coord)?;
            let u = self.b.u32();
            let z = self.b.const_u32(0);
            c = self.select(u, cond, coord, z);
            inb = Some(cond);
        }
        if buffer {
            c = self.texel_coord(h, c)?;
        }
        let mut args = [img.word(), c.word(), 0, 0, 0];
        let mut n = 2;
        let mut mask = spirv::ImageOperands::NONE;
        if lod.is_some() {
            mask |= spirv::ImageOperands::LOD;
        }
        if sample.is_some() {
            mask |= spirv::ImageOperands::SAMPLE;
        }
        if !mask.is_empty() {
            // The mask word, then its operands in bit order (Lod before Sample).
            args[n] = mask.bits();
            n += 1;
            for x in [lod, sample].into_iter().flatten() {
                args[n] = x.word();
                n += 1;
            }
        }
        let args = &args[..n];
        let texel = self.opn(if uav { Op::ImageRead } else { Op::ImageFetch }, v4, args);
        let texel = match inb {
            Some(cond) => {
                // Before SPIR-V 1.4 a vector select needs a vector condition.
                let zero = self.b.const_null(v4);
                let bt = self.b.bool();
                let bv = self.b.vec(bt, 4);
                let c4 = self.opn(Op::CompositeConstruct, bv, &words![cond; 4]);
                self.select(v4, c4, texel, zero)
            }
            None => texel,
        };
        self.texel_to_resret(i, ty, st, texel)
    }

    /// Splits a 4-component texel of sampled type `st` into the components of `ResRet.T`.
    pub(super) fn texel_to_resret(
        &mut self,
        i: u32,
        ty: TypeId,
        st: Id,
        texel: Id,
    ) -> Result<Val, Error> {
        let et = self.elem0(ty);
        let t = self.ty(et)?;
        let used = self.f.used.get(i as usize).copied().unwrap_or(0xFF);
        let mut parts = [None; 5];
        let es = self
            .scalar_of(et)
            .ok_or_else(|| self.invalid(Invalid::ty("texel of a non-numeric type")))?;
        for k in 0..4u32 {
            if used & (1 << k) == 0 {
                continue;
            }
            let c = self.opn(Op::CompositeExtract, st, &words![texel, k]);
            parts[k as usize] = Some(self.convert_texel(c, st, es, t));
        }
        if used & 0x10 != 0 {
            parts[4] = Some(self.b.const_u32(1));
        }
        Ok(self.make_partial_agg(&parts))
    }

    /// Sampled-type component → the overload type (f16 from f32, u32 from i32, u32 from u64, ...).
    pub(super) fn convert_texel(&mut self, c: Id, st: Id, es: Scalar, t: Id) -> Id {
        if st == t {
            return c;
        }
        let from = self.kind_of_type(st);
        let to = match es {
            Scalar::Float(w) => (Num::F, w),
            Scalar::Int(w) => (Num::U, w),
            Scalar::Bool => return c,
        };
        self.convert_num(c, from, to)
    }

    /// Overload value → the image's sampled type.
    pub(super) fn texel_value(&mut self, v: Id, vt: TypeId, st: Id) -> Result<Id, Error> {
        let s = self
            .scalar_of(vt)
            .ok_or_else(|| self.invalid(Invalid::ty("texel of a non-numeric type")))?;
        let t = self.ty(vt)?;
        if t == st {
            return Ok(v);
        }
        let from = match s {
            Scalar::Float(w) => (Num::F, w),
            Scalar::Int(w) => (Num::U, w),
            Scalar::Bool => return Err(self.invalid(Invalid::ty("bool texel"))),
        };
        let to = self.kind_of_type(st);
        Ok(self.convert_num(v, from, to))
    }

    /// Scalar class and width of one of the translator's scalar types.
    fn kind_of_type(&mut self, t: Id) -> (Num, u8) {
        use crate::spv::TypeKey;
        for w in [8u8, 16, 32, 64] {
            if self.b.lookup(TypeKey::Float(w)) == Some(t) {
                return (Num::F, w);
            }
            if self.b.lookup(TypeKey::SInt(w)) == Some(t) {
                return (Num::S, w);
            }
            if self.b.lookup(TypeKey::Int(w)) == Some(t) {
                return (Num::U, w);
            }
        }
        (Num::U, 32)
    }

    fn num_ty(&mut self, k: Num, w: u8) -> Id {
        match k {
            Num::F => self.b.float(w),
            Num::S => self.b.ty(crate::spv::TypeKey::SInt(w)),
            Num::U => self.b.uint(w),
        }
    }

    /// Converts between scalar kinds and widths: floats convert numerically, integers extend or truncate
    /// (sign-extending from signed types), and a change between float and integer reinterprets the bits.
    fn convert_num(&mut self, v: Id, from: (Num, u8), to: (Num, u8)) -> Id {
        if from == to {
            return v;
        }
        match (from.0, to.0) {
            (Num::F, Num::F) => {
                let t = self.num_ty(Num::F, to.1);
                self.op1(Op::FConvert, t, v)
            }
            (Num::F, _) => {
                let u = self.num_ty(Num::U, from.1);
                let x = self.op1(Op::Bitcast, u, v);
                self.convert_num(x, (Num::U, from.1), to)
            }
            (_, Num::F) => {
                let x = self.convert_num(v, from, (Num::U, to.1));
                let t = self.num_ty(Num::F, to.1);
                self.op1(Op::Bitcast, t, x)
            }
            _ => {
                let x = if from.1 == to.1 {
                    v
                } else {
                    let t = self.num_ty(from.0, to.1);
                    self.op1(
                        if from.0 == Num::S {
                            Op::SConvert
                        } else {
                            Op::UConvert
                        },
                        t,
                        v,
                    )
                };
                if from.0 == to.0 {
                    x
                } else {
                    let t = self.num_ty(to.0, to.1);
                    self.op1(Op::Bitcast, t, x)
                }
            }
        }
    }

    /// Four overload values → a texel vector of the sampled type.
    pub(super) fn texel_of(&mut self, a: Args<'_>, first: usize, st: Id) -> Result<Id, Error> {
        let vt = self.arg_ty(a, first)?;
        let c = try_ids::<4, Error>(|k| {
            let v = self.arg_id(a, first + k)?;
            self.texel_value(v, vt, st)
        })?;
        let v4 = self.b.vec(st, 4);
        Ok(self.op_ids(Op::CompositeConstruct, v4, &c))
    }

    /// `BufferStore(handle, coord0, coord1, v0..v3, mask)` on a typed buffer.
    fn typed_store(&mut self, a: Args<'_>) -> Result<(), Error> {
        let h = self.handle_of_arg(a, 1)?;
        let decl = self.decl(&h).clone();
        let (img, _) = self.load_object(&h, View::Image)?;
        let (st, _) = self.sampled_type(&decl);
        let coord = self.arg_id(a, 2)?;
        let coord = self.texel_coord(&h, coord)?;
        let texel = self.texel_of(a, 4, st)?;
        self.emit(Op::ImageWrite, &words![img, coord, texel]);
        Ok(())
    }

    // -----------------------------------------------------------------------------------------------------------
    // Atomics

    /// Bounds of an atomic: raw/structured word, typed-buffer texel or texture coordinate.
    fn atomic_in_bounds(&mut self, op: OpCode, a: Args<'_>, h: &HandleInfo) -> Result<Id, Error> {
        let kind = self.decl(h).kind;
        let off = if op == OpCode::AtomicBinOp { 3 } else { 2 };
        if kind.is_raw_like() {
            let t = self.atomic_value_ty(op, a)?;
            let ad = self.raw_addr(a, off, off + 1)?;
            let (un, _) = self.atomic_unit(&ad, t);
            return self.in_bounds(&ad, &un);
        }
        let coord = self.texture_coord(h, a, off)?;
        self.coord_in_bounds(h, coord, None)
    }

    fn atomic_value_ty(&self, op: OpCode, a: Args<'_>) -> Result<TypeId, Error> {
        self.arg_ty(a, if op == OpCode::AtomicBinOp { 6 } else { 5 })
    }

    fn atomic_unit(&mut self, ad: &RawAddr, t: TypeId) -> (Unit, u32) {
        let w = self.bits(t);
        if w == 64 {
            let u = self.b.u32();
            let s = self.b.const_u32(3);
            let byte = self.byte_of(ad);
            let unit = self.op2(Op::ShiftRightLogical, u, byte, s);
            (
                Unit {
                    view: View::Ssbo64,
                    unit,
                    per: 1,
                    lane: None,
                },
                64,
            )
        } else {
            (self.unit_of(ad, 4, 0), 32)
        }
    }

    /// `AtomicBinOp(handle, op, o0, o1, o2, value)` / `AtomicCompareExchange(handle, o0, o1, o2, cmp, value)`.
    fn atomic(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
        h: &HandleInfo,
    ) -> Result<Option<Id>, Error> {
        let decl = self.decl(h).clone();
        let off = if op == OpCode::AtomicBinOp { 3 } else { 2 };
        let vt = self.atomic_value_ty(op, a)?;
        let w = self.bits(vt);
        if self.m.types.int_width(vt).is_none() || !matches!(w, 32 | 64) {
            return Err(self.invalid(Invalid::ty(
                "atomic on a value that is not a 32- or 64-bit integer",
            )));
        }
        if decl.class != ResourceClass::Uav {
            return Err(self.invalid(Invalid::resource("atomic on a resource that is not a UAV")));
        }
        if w == 64 {
            self.b.capability(Capability::Int64Atomics);
        }
        let t = self.ty(vt)?;
        let (ptr, elem_t) = if decl.kind.is_raw_like() {
            let ad = self.raw_addr(a, off, off + 1)?;
            let (un, _) = self.atomic_unit(&ad, vt);
            let d = self.desc(h, un.view)?;
            let lane = un.lane.map(|l| self.b.const_u32(l));
            (self.ssbo_lane_ptr(&d, t, Some(un.unit), lane), t)
        } else {
            let coord = self.texture_coord(h, a, off)?;
            let coord = self.texel_coord(h, coord)?;
            let (iptr, _, nonuniform) = self.image_ptr(h)?;
            let (st, _) = self.sampled_type(&decl);
            let pt = self.b.ptr(StorageClass::Image, st);
            let zero = self.b.const_u32(0);
            let p = self.op3(Op::ImageTexelPointer, pt, iptr, coord, zero);
            if nonuniform {
                self.nonuniform(p);
            }
            (p, st)
        };
        let scope = self.b.const_u32(Scope::Device as u32);
        let sem = self.b.const_u32(0);
        let result = if op == OpCode::AtomicBinOp {
            let aop = self.arg_const(a, 2)?;
            let v = self.arg_id(a, 6)?;
            let v = self.texel_value_or_same(v, vt, elem_t)?;
            let o = match aop {
                0 => Op::AtomicIAdd,
                1 => Op::AtomicAnd,
                2 => Op::AtomicOr,
                3 => Op::AtomicXor,
                4 => Op::AtomicSMin,
                5 => Op::AtomicSMax,
                6 => Op::AtomicUMin,
                7 => Op::AtomicUMax,
                8 => Op::AtomicExchange,
                _ => {
                    return Err(self.invalid(Invalid::Enum {
                        what: "atomic operation",
                        value: aop,
                    }));
                }
            };
            self.opn(o, elem_t, &words![ptr, scope, sem, v])
        } else {
            let c = self.arg_id(a, 5)?;
            let v = self.arg_id(a, 6)?;
            let c = self.texel_value_or_same(c, vt, elem_t)?;
            let v = self.texel_value_or_same(v, vt, elem_t)?;
            self.opn(
                Op::AtomicCompareExchange,
                elem_t,
                &words![ptr, scope, sem, sem, v, c],
            )
        };
        let result = if elem_t == t {
            result
        } else {
            let from = self.kind_of_type(elem_t);
            let to = self.kind_of_type(t);
            self.convert_num(result, from, to)
        };
        Ok(if self.m.types.is_void(ty) {
            None
        } else {
            Some(result)
        })
    }

    fn texel_value_or_same(&mut self, v: Id, vt: TypeId, elem_t: Id) -> Result<Id, Error> {
        let t = self.ty(vt)?;
        if t == elem_t {
            Ok(v)
        } else {
            self.texel_value(v, vt, elem_t)
        }
    }

    // -----------------------------------------------------------------------------------------------------------
    // CBuffers

    /// One 16-byte row of a cbuffer as `uvec4`.
    /// The words of a cbuffer row that `mask` selects (bit k: word k; the others are 0). One
    /// selected word is one scalar load, several one vector load with only those extracted.
    fn cbuffer_row(
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
    pub(super) fn cbuffer_load_legacy(
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
    pub(super) fn cbuffer_load(&mut self, ty: TypeId, a: Args<'_>) -> Result<Id, Error> {
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

    // -----------------------------------------------------------------------------------------------------------
    // Counters and sizes

    /// `BufferUpdateCounter(handle, direction)`: increment returns the old value, decrement the new one.
    pub(super) fn update_counter(&mut self, a: Args<'_>) -> Result<Id, Error> {
        let h = self.handle_of_arg(a, 1)?;
        if self.decl(&h).class != ResourceClass::Uav {
            return Err(self.invalid(Invalid::resource("counter of a resource that is not a UAV")));
        }
        if self.counter_by_address(&h)? {
            return Err(self.invalid(Invalid::internal(
                "a counter read through an address outside its guard",
            )));
        }
        let inc = self.arg_const(a, 2)? as i8;
        let d = self.desc(&h, View::Counter)?;
        let u = self.b.u32();
        let p = self.ssbo_ptr(&d, u, None);
        Ok(self.counter_atomic(p, inc))
    }

    /// The atomic of `BufferUpdateCounter` on the counter at pointer `p` (storage buffer or physical address):
    /// increment returns the old value, decrement the new one.
    fn counter_atomic(&mut self, p: Id, inc: i8) -> Id {
        let u = self.b.u32();
        let scope = self.b.const_u32(Scope::Device as u32);
        let sem = self.b.const_u32(0);
        let one = self.b.const_u32(1);
        if inc >= 0 {
            self.opn(Op::AtomicIAdd, u, &words![p, scope, sem, one])
        } else {
            let old = self.opn(Op::AtomicISub, u, &words![p, scope, sem, one]);
            self.op2(Op::ISub, u, old, one)
        }
    }

    /// Whether the counter of `h` is reached through an address table (then `BufferUpdateCounter` is guarded: no
    /// atomic where the address is 0).
    pub(super) fn counter_by_address(&mut self, h: &HandleInfo) -> Result<bool, Error> {
        Ok(matches!(
            self.placement_of(h.res, View::Counter)?,
            crate::binding::Placement::AddressTable { .. }
        ))
    }

    /// Guard condition of a counter through an address table: the counter's address is not 0.
    fn counter_guard_cond(&mut self, h: &HandleInfo) -> Result<Id, Error> {
        let va = self.table_address(h, View::Counter)?;
        let u = self.b.u32();
        let lo = self.opn(Op::CompositeExtract, u, &words![va, 0]);
        let hi = self.opn(Op::CompositeExtract, u, &words![va, 1]);
        let any = self.op2(Op::BitwiseOr, u, lo, hi);
        let zero = self.b.const_u32(0);
        let bt = self.b.bool();
        Ok(self.op2(Op::INotEqual, bt, any, zero))
    }

    /// The counter operation through its address (under the guard of [`Ctx::counter_guard_cond`]).
    fn counter_by_address_op(&mut self, h: &HandleInfo, a: Args<'_>) -> Result<Id, Error> {
        let inc = self.arg_const(a, 2)? as i8;
        let va = self.table_address(h, View::Counter)?;
        self.physical_addressing();
        let u = self.b.u32();
        let pt = self.b.ptr(StorageClass::PhysicalStorageBuffer, u);
        let p = self.op1(Op::Bitcast, pt, va);
        Ok(self.counter_atomic(p, inc))
    }

    /// `GetDimensions(handle, mip)` → `{width, height, depth/elements, mips/samples}`.
    pub(super) fn get_dimensions(&mut self, i: u32, a: Args<'_>) -> Result<Val, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let decl = self.decl(&h).clone();
        let u = self.b.u32();
        let zero = self.b.const_u32(0);
        match decl.kind {
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer => {
                let d = self.desc(&h, View::Ssbo32)?;
                let len = self.ssbo_len(&h, &d, View::Ssbo32);
                let four = self.b.const_u32(4);
                let bytes = self.op2(Op::IMul, u, len, four);
                let x = if decl.kind == ResourceKind::StructuredBuffer {
                    if decl.stride == 0 {
                        return Err(
                            self.invalid(Invalid::resource("structured buffer without a stride"))
                        );
                    }
                    if decl.stride.is_multiple_of(4) {
                        let s = self.b.const_u32(decl.stride / 4);
                        self.op2(Op::UDiv, u, len, s)
                    } else {
                        let s = self.b.const_u32(decl.stride);
                        self.op2(Op::UDiv, u, bytes, s)
                    }
                } else {
                    bytes
                };
                let stride = self.b.const_u32(decl.stride);
                Ok(self.make_agg(&[x, stride, zero, zero]))
            }
            ResourceKind::TypedBuffer => {
                if let Some((_, count)) = self.texel_window(&h)? {
                    return Ok(self.make_agg(&[count, zero, zero, zero]));
                }
                let (img, _) = self.load_object(&h, View::Image)?;
                self.b.capability(Capability::ImageQuery);
                let n = self.op1(Op::ImageQuerySize, u, img);
                Ok(self.make_agg(&[n, zero, zero, zero]))
            }
            k if k.is_texture() => self.texture_dimensions(i, &h, a),
            k => Err(self.unsupported(Unsupported::resource(format!("GetDimensions of a {k:?}")))),
        }
    }
}

/// Scalar kinds of `convert_num`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Num {
    F,
    S,
    U,
}

fn kind_structured(k: ResourceKind) -> bool {
    k == ResourceKind::StructuredBuffer
}
