//! Raw-buffer accesses as one vector access.
//!
//! A `Load4`/`Store4` (or `Load2`, `Load<half4>`, ...) at an address proven aligned to its size is
//! one 8- or 16-byte access through a `uvec2`/`uvec4` view of the buffer ([`View::SsboVec2`],
//! [`View::SsboVec4`]) instead of one access per component; drivers keep it one memory
//! transaction, where separate words of a `uint` array stay separate ones.
//!
//! Only without explicit checks, where robustBufferAccess2 bounds-checks each access against the
//! view: a vector access that is partly out of bounds counts as wholly out of bounds there, while
//! D3D12 checks raw buffers per component. So the vector access runs only when the vector lies
//! wholly inside the view; otherwise (the last vector of a view whose size is not a multiple of
//! it) the per-component accesses run, which the device checks one by one. The two are the
//! guarded blocks of the instruction (`Shape::Guard(2)`): the test costs one length query and a
//! compare per access, and the branch goes the same way for a whole wave except at a view's end.

use dxil_module::{Body, TypeId};
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::res::View;
use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::binding::Placement;
use crate::dxil::ResourceKind;
use crate::error::{Error, Invalid};
use crate::spv::{Id, words};

impl Ctx<'_> {
    /// The size in bytes (8 or 16) of the vector a raw-buffer load or store is done as, when it is
    /// one: no explicit checks, a raw buffer behind a plain descriptor, the components filling
    /// the vector (a 12-byte load reads a 16-byte one) and the address a multiple of the size.
    pub(super) fn raw_vector(
        &mut self,
        op: OpCode,
        a: Args<'_>,
        ty: TypeId,
    ) -> Result<Option<u32>, Error> {
        if self.opts.bounds_checks {
            return Ok(None);
        }
        let load = matches!(op, OpCode::RawBufferLoad | OpCode::BufferLoad);
        if !load && !matches!(op, OpCode::RawBufferStore | OpCode::BufferStore) {
            return Ok(None);
        }
        let h = self.handle_of_arg(a, 1)?;
        if self.decl(&h).kind != ResourceKind::RawBuffer
            || !matches!(
                self.placement_of(h.res, View::SsboVec4)?,
                Placement::Descriptor { .. }
            )
        {
            return Ok(None);
        }
        let (elem, n) = if load {
            let mask = match op {
                OpCode::RawBufferLoad => self.arg_const(a, 4).unwrap_or(15) as u32 & 0xF,
                _ => 0xF,
            };
            (self.elem0(ty), 32 - mask.leading_zeros())
        } else {
            let mask = self.arg_const(a, 8).unwrap_or(15) as u32 & 0xF;
            // Only a store of components 0..n, all of them.
            if mask & (mask + 1) != 0 {
                return Ok(None);
            }
            (self.arg_ty(a, 4)?, mask.count_ones())
        };
        let es = self.elem_size(elem);
        if es == 8 {
            return Ok(None);
        }
        let bytes = match (es * n, load) {
            (b @ (8 | 16), _) => b,
            (12, true) => 16,
            _ => return Ok(None),
        };
        let addr = self.arg(a, 2)?;
        Ok((self.known_zero_bits(addr) >= bytes.trailing_zeros()).then_some(bytes))
    }

    /// Bytes of a buffer component of LLVM type `t` (min-precision 16-bit values take 4).
    fn elem_size(&self, t: TypeId) -> u32 {
        match self.bits(t) {
            16 if self.native16 => 2,
            64 => 8,
            _ => 4,
        }
    }

    fn vec_view(bytes: u32) -> View {
        if bytes == 16 {
            View::SsboVec4
        } else {
            View::SsboVec2
        }
    }

    /// The vector's unit index in its view: `address >> log2(bytes)`, or, for an address
    /// `x << c` (or `x * 2^c`) that provably does not wrap, `x << (c - log2(bytes))`, which
    /// keeps the index a plain multiple of `x` for the driver.
    fn vec_unit(&mut self, a: Args<'_>, bytes: u32) -> Result<Id, Error> {
        let shift = bytes.trailing_zeros();
        let addr_v = self.arg(a, 2)?;
        let u = self.b.u32();
        if let Some((x, c)) = self.scaled_by_power_of_two(addr_v)
            && c >= shift
            && self
                .max_of(x)
                .is_some_and(|m| m.checked_shl(c).is_some_and(|b| b <= u64::from(u32::MAX)))
        {
            let xi = self.value(x)?;
            if c == shift {
                return Ok(xi);
            }
            let k = self.b.const_u32(c - shift);
            return Ok(self.op2(Op::ShiftLeftLogical, u, xi, k));
        }
        let addr = self.value(addr_v)?;
        let s = self.b.const_u32(shift);
        Ok(self.op2(Op::ShiftRightLogical, u, addr, s))
    }

    /// `(x, c)` when `v` is `x << c` or `x * 2^c` for a constant `c`.
    fn scaled_by_power_of_two(&self, v: dxil_module::Value) -> Option<(dxil_module::Value, u32)> {
        let i = v.as_inst()?;
        let body = self.m.function(self.entry.function)?.body.as_ref()?;
        let dxil_module::InstKind::Binary { op, lhs, rhs, .. } = &body.inst(i)?.kind else {
            return None;
        };
        let c = u64::try_from(self.const_int(*rhs)?).ok()?;
        match op {
            dxil_module::BinOp::Shl if c < 32 => Some((*lhs, c as u32)),
            dxil_module::BinOp::Mul if c.is_power_of_two() && c <= 1 << 31 => {
                Some((*lhs, c.trailing_zeros()))
            }
            _ => None,
        }
    }

    /// Guard `k` of a vector access: 0 when the vector lies wholly in the view, 1 otherwise.
    pub(super) fn raw_vector_cond(&mut self, a: Args<'_>, bytes: u32, k: u8) -> Result<Id, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let view = Self::vec_view(bytes);
        let d = self.desc(&h, view)?;
        let len = self.ssbo_len(&h, &d, view);
        let unit = self.vec_unit(a, bytes)?;
        let bt = self.b.bool();
        let inside = self.op2(Op::ULessThan, bt, unit, len);
        Ok(if k == 0 {
            inside
        } else {
            self.op1(Op::LogicalNot, bt, inside)
        })
    }

    /// Guarded block `k` of a vector access: the vector access (0) or the per-component ones (1).
    /// A load's components go to its result variables.
    pub(super) fn raw_vector_body(
        &mut self,
        body: &Body,
        i: u32,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
        bytes: u32,
        k: u8,
    ) -> Result<(), Error> {
        let load = matches!(op, OpCode::RawBufferLoad | OpCode::BufferLoad);
        if !load {
            if k == 0 {
                return self.raw_vec_store(a, bytes);
            }
            return self.guard_body_plain(body, i).map(|_| ());
        }
        let parts: Vec<Option<Id>> = if k == 0 {
            self.raw_vector_load(i, ty, a, bytes)?
        } else {
            let v = match op {
                OpCode::RawBufferLoad => self.raw_buffer_load(i, ty, a)?,
                _ => self.buffer_load(i, ty, a)?,
            };
            let Val::Agg { start, len } = v else {
                return Err(self.invalid(Invalid::internal("raw load without components")));
            };
            (start..start + len)
                .map(|c| self.agg.get(c as usize).copied().flatten())
                .collect()
        };
        for (c, part) in parts.into_iter().enumerate() {
            if let (Some(id), Some(var)) = (part, self.demoted_var(i, c as u32)) {
                self.store(var, id);
            }
        }
        Ok(())
    }

    /// The used components of a vector load, and its status component.
    fn raw_vector_load(
        &mut self,
        i: u32,
        ty: TypeId,
        a: Args<'_>,
        bytes: u32,
    ) -> Result<Vec<Option<Id>>, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let view = Self::vec_view(bytes);
        let d = self.desc(&h, view)?;
        let unit = self.vec_unit(a, bytes)?;
        let u = self.b.u32();
        let vt = self.b.vec(u, bytes / 4);
        let p = self.ssbo_ptr(&d, vt, Some(unit));
        let v = self.load_from(&d, vt, p, bytes);
        let et = self.elem0(ty);
        let es = self.elem_size(et);
        let lanes = bytes / es;
        let (v, lane_t) = if es == 4 {
            (v, u)
        } else {
            let it = self.scalar_ty(Scalar::Int((es * 8) as u8), 1);
            let vt2 = self.b.vec(it, lanes);
            (self.op1(Op::Bitcast, vt2, v), it)
        };
        let used = self.f.used.get(i as usize).copied().unwrap_or(0xFF);
        let mut parts = vec![None; 5];
        for c in 0..lanes.min(4) {
            if used & (1 << c) != 0 {
                let bits = self.opn(Op::CompositeExtract, lane_t, &words![v, c]);
                parts[c as usize] = Some(self.value_of_bits(bits, et)?);
            }
        }
        if used & 0x10 != 0 {
            parts[4] = Some(self.b.const_u32(1));
        }
        Ok(parts)
    }

    /// A vector store of components 0..n of `RawBufferStore`/`BufferStore`.
    fn raw_vec_store(&mut self, a: Args<'_>, bytes: u32) -> Result<(), Error> {
        let h = self.handle_of_arg(a, 1)?;
        let vt = self.arg_ty(a, 4)?;
        let es = self.elem_size(vt);
        let lanes = bytes / es;
        let mut bits = Vec::with_capacity(lanes as usize);
        for c in 0..lanes as usize {
            let v = self.arg_id(a, 4 + c)?;
            bits.push(self.bits_of(v, vt)?);
        }
        let u = self.b.u32();
        let words_t = self.b.vec(u, bytes / 4);
        let v = if es == 4 {
            self.op_ids(Op::CompositeConstruct, words_t, &bits)
        } else {
            let it = self.scalar_ty(Scalar::Int((es * 8) as u8), 1);
            let lanes_t = self.b.vec(it, lanes);
            let x = self.op_ids(Op::CompositeConstruct, lanes_t, &bits);
            self.op1(Op::Bitcast, words_t, x)
        };
        let view = Self::vec_view(bytes);
        let d = self.desc(&h, view)?;
        let unit = self.vec_unit(a, bytes)?;
        let p = self.ssbo_ptr(&d, words_t, Some(unit));
        self.store_to(&d, p, v, bytes);
        Ok(())
    }
}
