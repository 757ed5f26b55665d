//! UAV counters and size queries (`GetDimensions` of buffers).

use super::*;

impl<'a> Ctx<'a> {
    /// `BufferUpdateCounter(handle, direction)`: increment returns the old value, decrement the new one.
    pub(in crate::lower) fn update_counter(&mut self, a: Args<'_>) -> Result<Id, Error> {
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
    pub(super) fn counter_atomic(&mut self, p: Id, inc: i8) -> Id {
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
    pub(in crate::lower) fn counter_by_address(&mut self, h: &HandleInfo) -> Result<bool, Error> {
        Ok(matches!(
            self.placement_of(h.res, View::Counter)?,
            crate::binding::Placement::AddressTable { .. }
        ))
    }

    /// Guard condition of a counter through an address table: the counter's address is not 0.
    pub(super) fn counter_guard_cond(&mut self, h: &HandleInfo) -> Result<Id, Error> {
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
    pub(super) fn counter_by_address_op(
        &mut self,
        h: &HandleInfo,
        a: Args<'_>,
    ) -> Result<Id, Error> {
        let inc = self.arg_const(a, 2)? as i8;
        let va = self.table_address(h, View::Counter)?;
        self.physical_addressing();
        let u = self.b.u32();
        let pt = self.b.ptr(StorageClass::PhysicalStorageBuffer, u);
        let p = self.op1(Op::Bitcast, pt, va);
        Ok(self.counter_atomic(p, inc))
    }

    /// `GetDimensions(handle, mip)` → `{width, height, depth/elements, mips/samples}`.
    pub(in crate::lower) fn get_dimensions(&mut self, i: u32, a: Args<'_>) -> Result<Val, Error> {
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
