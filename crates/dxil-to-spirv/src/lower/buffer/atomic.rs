//! Atomics on raw, structured and typed buffers, in bounds or guarded.

use super::*;

impl<'a> Ctx<'a> {
    /// Bounds of an atomic: raw/structured word, typed-buffer texel or texture coordinate.
    pub(super) fn atomic_in_bounds(
        &mut self,
        op: OpCode,
        a: Args<'_>,
        h: &HandleInfo,
    ) -> Result<Id, Error> {
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

    pub(super) fn atomic_value_ty(&self, op: OpCode, a: Args<'_>) -> Result<TypeId, Error> {
        self.arg_ty(a, if op == OpCode::AtomicBinOp { 6 } else { 5 })
    }

    pub(super) fn atomic_unit(&mut self, ad: &RawAddr, t: TypeId) -> (Unit, u32) {
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
    pub(super) fn atomic(
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

    pub(super) fn texel_value_or_same(
        &mut self,
        v: Id,
        vt: TypeId,
        elem_t: Id,
    ) -> Result<Id, Error> {
        let t = self.ty(vt)?;
        if t == elem_t {
            Ok(v)
        } else {
            self.texel_value(v, vt, elem_t)
        }
    }
}
