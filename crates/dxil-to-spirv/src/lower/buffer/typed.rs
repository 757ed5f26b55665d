//! Typed buffers (texel buffers): loads, stores and the texel conversions between DXIL's and the view's types.

use super::*;

impl<'a> Ctx<'a> {
    /// Texel count of a typed buffer, and `coord < count`.
    pub(super) fn texel_in_bounds(&mut self, h: &HandleInfo, coord: Id) -> Result<Id, Error> {
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
    pub(in crate::lower) fn texel_window(
        &mut self,
        h: &HandleInfo,
    ) -> Result<Option<(Id, Id)>, Error> {
        if self.decl(h).kind != ResourceKind::TypedBuffer {
            return Ok(None);
        }
        Ok(self.desc(h, View::Image)?.window)
    }

    /// A typed-buffer coordinate moved into the view's window (see [`Ctx::windowed`]).
    pub(in crate::lower) fn texel_coord(&mut self, h: &HandleInfo, coord: Id) -> Result<Id, Error> {
        Ok(match self.texel_window(h)? {
            Some((start, count)) => self.windowed(coord, start, count, u32::MAX),
            None => coord,
        })
    }

    /// Reads a texel (typed buffer or texture) and spreads it over a `ResRet` aggregate.
    /// `coord` is a scalar or vector coordinate; `lod`/`sample` are image operands for textures.
    pub(in crate::lower) fn typed_load(
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
    pub(in crate::lower) fn texel_to_resret(
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
    pub(in crate::lower) fn convert_texel(&mut self, c: Id, st: Id, es: Scalar, t: Id) -> Id {
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
    pub(in crate::lower) fn texel_value(&mut self, v: Id, vt: TypeId, st: Id) -> Result<Id, Error> {
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
    pub(super) fn kind_of_type(&mut self, t: Id) -> (Num, u8) {
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

    pub(super) fn num_ty(&mut self, k: Num, w: u8) -> Id {
        match k {
            Num::F => self.b.float(w),
            Num::S => self.b.ty(crate::spv::TypeKey::SInt(w)),
            Num::U => self.b.uint(w),
        }
    }

    /// Converts between scalar kinds and widths: floats convert numerically, integers extend or truncate
    /// (sign-extending from signed types), and a change between float and integer reinterprets the bits.
    pub(super) fn convert_num(&mut self, v: Id, from: (Num, u8), to: (Num, u8)) -> Id {
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
    pub(in crate::lower) fn texel_of(
        &mut self,
        a: Args<'_>,
        first: usize,
        st: Id,
    ) -> Result<Id, Error> {
        let vt = self.arg_ty(a, first)?;
        let c = try_ids::<4, Error>(|k| {
            let v = self.arg_id(a, first + k)?;
            self.texel_value(v, vt, st)
        })?;
        let v4 = self.b.vec(st, 4);
        Ok(self.op_ids(Op::CompositeConstruct, v4, &c))
    }

    /// `BufferStore(handle, coord0, coord1, v0..v3, mask)` on a typed buffer.
    pub(super) fn typed_store(&mut self, a: Args<'_>) -> Result<(), Error> {
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
}
