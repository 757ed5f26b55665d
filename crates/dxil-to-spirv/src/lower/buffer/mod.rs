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

mod atomic;
mod cbuffer;
mod counter;
mod typed;

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

    /// Loads component `k` of an access: with checks, a structured element's bounds test is made
    /// once (`elem_in`) and shared by its components; a raw access tests each unit.
    fn load_component(
        &mut self,
        ad: &RawAddr,
        es: u32,
        k: u32,
        et: TypeId,
        checks: bool,
        elem_in: &mut Option<Id>,
    ) -> Result<Id, Error> {
        let un = self.unit_of(ad, es, k);
        let inb = if !checks {
            None
        } else if ad.structured {
            if elem_in.is_none() {
                *elem_in = Some(self.in_bounds(ad, &un)?);
            }
            *elem_in
        } else {
            Some(self.in_bounds(ad, &un)?)
        };
        let bits = self.load_unit(&ad.h, &un, inb)?;
        self.value_of_bits(bits, et)
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
            parts[k as usize] = Some(self.load_component(&ad, es, k, et, checks, &mut elem_in)?);
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
            comps.push(self.load_component(&ad, es, k, et, checks, &mut elem_in)?);
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
        if super::feedback::is_feedback(op) {
            return self.feedback_cond(op, a, i, k);
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
        if super::feedback::is_feedback(op) {
            return self.feedback_body(a, i, k);
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
