//! Textures and samplers: loads, stores, sampling, gathers, LOD queries and size queries.

use dxil_module::TypeId;
use dxil_shader::ops::OpCode;
use spirv::{Capability, ImageOperands, Op};

use super::res::{HandleInfo, View};
use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::dxil::{ResourceClass, ResourceKind};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, TypeKey, words};

/// Coordinate shape of a texture kind.
#[derive(Clone, Copy)]
struct Shape {
    /// Coordinates for sampling (float), including the array layer.
    sample: u32,
    /// Coordinates for loads/stores (integer), including the array layer.
    load: u32,
    /// Offset components.
    offset: u32,
    arrayed: bool,
    ms: bool,
}

fn shape(k: ResourceKind) -> Option<Shape> {
    use ResourceKind::*;
    let s = |sample, load, offset, arrayed, ms| {
        Some(Shape {
            sample,
            load,
            offset,
            arrayed,
            ms,
        })
    };
    match k {
        Texture1D => s(1, 1, 1, false, false),
        Texture1DArray => s(2, 2, 1, true, false),
        Texture2D | FeedbackTexture2D => s(2, 2, 2, false, false),
        Texture2DArray | FeedbackTexture2DArray => s(3, 3, 2, true, false),
        Texture2DMS => s(2, 2, 2, false, true),
        Texture2DMSArray => s(3, 3, 2, true, true),
        Texture3D => s(3, 3, 3, false, false),
        TextureCube => s(3, 3, 0, false, false),
        TextureCubeArray => s(4, 4, 0, true, false),
        TypedBuffer => s(1, 1, 0, false, false),
        _ => None,
    }
}

/// Texel offsets of an operation.
enum Off {
    None,
    Const(Id),
    Dyn(Id),
}

/// Kinds that can be sampled (and have LODs).
const SAMPLEABLE: &[ResourceKind] = &[
    ResourceKind::Texture1D,
    ResourceKind::Texture1DArray,
    ResourceKind::Texture2D,
    ResourceKind::Texture2DArray,
    ResourceKind::Texture3D,
    ResourceKind::TextureCube,
    ResourceKind::TextureCubeArray,
];

/// Kinds that comparison sampling reads (D3D has no `SampleCmp` on 3D textures; Vulkan has no depth-compare
/// instructions on 3D images).
const COMPARABLE: &[ResourceKind] = &[
    ResourceKind::Texture1D,
    ResourceKind::Texture1DArray,
    ResourceKind::Texture2D,
    ResourceKind::Texture2DArray,
    ResourceKind::TextureCube,
    ResourceKind::TextureCubeArray,
];

/// Kinds that can be gathered from.
const GATHERABLE: &[ResourceKind] = &[
    ResourceKind::Texture2D,
    ResourceKind::Texture2DArray,
    ResourceKind::TextureCube,
    ResourceKind::TextureCubeArray,
];

impl<'a> Ctx<'a> {
    /// The operation needs a resource of one of `kinds` (and an SRV unless `uav`).
    fn require_kind(
        &self,
        h: &HandleInfo,
        kinds: &[ResourceKind],
        uav: bool,
        what: &str,
    ) -> Result<(), Error> {
        let d = self.decl(h);
        if !kinds.contains(&d.kind) || (d.class == ResourceClass::Uav) != uav {
            return Err(self.invalid(Invalid::ty(format!(
                "{what} on a {:?} {}",
                d.kind,
                if d.class == ResourceClass::Uav {
                    "UAV"
                } else {
                    "SRV"
                }
            ))));
        }
        Ok(())
    }

    fn tex_shape(&self, h: &HandleInfo) -> Result<Shape, Error> {
        let k = self.decl(h).kind;
        shape(k)
            .ok_or_else(|| self.invalid(Invalid::resource(format!("texture operation on a {k:?}"))))
    }

    /// Builds a scalar or vector of `n` operands starting at `first` (all of one type).
    fn vec_of(&mut self, a: Args<'_>, first: usize, n: u32, elem: Id) -> Result<Id, Error> {
        // The first `n` slots are written below.
        let mut c = [elem; 4];
        for (k, slot) in c.iter_mut().enumerate().take(n as usize) {
            *slot = if self.arg_undef(a, first + k) {
                self.b.const_null(elem)
            } else {
                self.arg_id(a, first + k)?
            };
        }
        Ok(if n == 1 {
            c[0]
        } else {
            let vt = self.b.vec(elem, n);
            self.op_ids(Op::CompositeConstruct, vt, &c[..n as usize])
        })
    }

    /// The integer coordinate of a texture/typed-buffer access whose coordinates start at operand `first`.
    pub(super) fn texture_coord(
        &mut self,
        h: &HandleInfo,
        a: Args<'_>,
        first: usize,
    ) -> Result<Id, Error> {
        let s = self.tex_shape(h)?;
        let u = self.b.u32();
        self.vec_of(a, first, s.load, u)
    }

    /// `coord < size` for every component (size of mip 0 / the storage image).
    pub(super) fn coord_in_bounds(
        &mut self,
        h: &HandleInfo,
        coord: Id,
        _lod: Option<Id>,
    ) -> Result<Id, Error> {
        if let Some((_, count)) = self.texel_window(h)? {
            // A typed buffer view's size is its window in the offset buffer.
            let bt = self.b.bool();
            return Ok(self.op2(Op::ULessThan, bt, coord, count));
        }
        let s = self.tex_shape(h)?;
        let (img, _) = self.load_object(h, View::Image)?;
        self.b.capability(Capability::ImageQuery);
        let u = self.b.u32();
        let n = s.load;
        let st = if n == 1 { u } else { self.b.vec(u, n) };
        let decl = self.decl(h).clone();
        let size =
            if decl.class == ResourceClass::Uav || s.ms || decl.kind == ResourceKind::TypedBuffer {
                self.op1(Op::ImageQuerySize, st, img)
            } else {
                let z = self.b.const_u32(0);
                self.op2(Op::ImageQuerySizeLod, st, img, z)
            };
        let bt = self.scalar_ty(Scalar::Bool, n);
        let lt = self.op2(Op::ULessThan, bt, coord, size);
        Ok(if n == 1 {
            lt
        } else {
            let b = self.b.bool();
            self.op1(Op::All, b, lt)
        })
    }

    /// Texel offsets at operands `first..first+n`: absent or all zero, constant, or computed at run time (SM 6.7).
    fn offsets(&mut self, a: Args<'_>, first: usize, n: u32) -> Result<Off, Error> {
        if n == 0 {
            return Ok(Off::None);
        }
        let mut vals = [0i64; 3];
        let mut any = false;
        let mut dynamic = false;
        for (k, slot) in vals.iter_mut().enumerate().take(n as usize) {
            if self.arg_undef(a, first + k) || a.get(first + k).is_none() {
                continue;
            }
            match self.const_int(self.arg(a, first + k)?) {
                Some(v) => {
                    *slot = v;
                    any |= v != 0;
                }
                None => dynamic = true,
            }
        }
        let it = self.b.ty(TypeKey::SInt(32));
        if dynamic {
            let u = self.b.u32();
            let v = self.vec_of(a, first, n, u)?;
            let t = if n == 1 { it } else { self.b.vec(it, n) };
            return Ok(Off::Dyn(self.op1(Op::Bitcast, t, v)));
        }
        if !any {
            return Ok(Off::None);
        }
        // The first `n` slots are written below.
        let mut c = [it; 3];
        for k in 0..n as usize {
            c[k] = self.b.const_bits(it, 32, vals[k] as u64);
        }
        Ok(Off::Const(if n == 1 {
            c[0]
        } else {
            let vt = self.b.vec(it, n);
            self.b.const_composite(vt, &c[..n as usize])
        }))
    }

    /// Adds an offset vector of `n` components to the first `n` of a `total`-component coordinate.
    fn add_to_coord(&mut self, coord: Id, off: Id, n: u32, total: u32, float: bool) -> Id {
        let et = if float { self.b.f32() } else { self.b.u32() };
        let t = if total == 1 {
            et
        } else {
            self.b.vec(et, total)
        };
        let padded = if n == total {
            off
        } else {
            let z = self.b.const_null(et);
            let mut parts = [z; 4];
            for (k, slot) in parts.iter_mut().enumerate().take(n as usize) {
                *slot = if n == 1 {
                    off
                } else {
                    self.opn(Op::CompositeExtract, et, &words![off, k as u32])
                };
            }
            self.op_ids(Op::CompositeConstruct, t, &parts[..total as usize])
        };
        self.op2(if float { Op::FAdd } else { Op::IAdd }, t, coord, padded)
    }

    /// `TextureLoad(srv, mipOrSample, c0, c1, c2, o0, o1, o2)`.
    pub(super) fn texture_load(&mut self, i: u32, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let k = self.decl(&h).kind;
        if !(k.is_texture() || k == ResourceKind::TypedBuffer)
            || matches!(
                k,
                ResourceKind::TextureCube | ResourceKind::TextureCubeArray
            )
        {
            return Err(self.invalid(Invalid::resource(format!("TextureLoad from a {k:?}"))));
        }
        let s = self.tex_shape(&h)?;
        let decl = self.decl(&h).clone();
        let coord = self.texture_coord(&h, a, 3)?;
        if decl.kind == ResourceKind::TypedBuffer {
            return self.typed_load(i, ty, &h, coord, None, None);
        }
        let uav = decl.class == ResourceClass::Uav;
        let (img, _) = self.load_object(&h, View::Image)?;
        let (st, _) = self.sampled_type(&decl);
        let v4 = self.b.vec(st, 4);
        let mut ops = ImageOperands::NONE;
        let mut extra = [0u32; 3];
        let mut n = 0;
        if !uav && !s.ms {
            ops |= ImageOperands::LOD;
            extra[n] = if self.arg_undef(a, 2) {
                self.b.const_u32(0)
            } else {
                self.arg_id(a, 2)?
            }
            .word();
            n += 1;
        }
        let mut coord = coord;
        match self.offsets(a, 6, s.offset)? {
            Off::None => {}
            Off::Const(o) => {
                ops |= ImageOperands::CONST_OFFSET;
                extra[n] = o.word();
                n += 1;
            }
            Off::Dyn(o) => {
                let u = self.b.u32();
                let ot = if s.offset == 1 {
                    u
                } else {
                    self.b.vec(u, s.offset)
                };
                let o = self.op1(Op::Bitcast, ot, o);
                coord = self.add_to_coord(coord, o, s.offset, s.load, false);
            }
        }
        if s.ms {
            ops |= ImageOperands::SAMPLE;
            extra[n] = self.arg_id(a, 2)?.word();
            n += 1;
        }
        let mut args = vec![img.word(), coord.word()];
        if !ops.is_empty() {
            args.push(ops.bits());
            args.extend_from_slice(&extra[..n]);
        }
        let texel = self.opn(if uav { Op::ImageRead } else { Op::ImageFetch }, v4, &args);
        self.texel_to_resret(i, ty, st, texel)
    }

    /// Condition of a guarded `TextureStore(srv, c0, c1, c2, v0..v3, mask)` / `TextureStoreSample`.
    pub(super) fn texture_store_cond(&mut self, _op: OpCode, a: Args<'_>) -> Result<Id, Error> {
        let h = self.handle_of_arg(a, 1)?;
        if self.decl(&h).class != ResourceClass::Uav || !self.decl(&h).kind.is_texture() {
            return Err(self.invalid(Invalid::resource(
                "texture store on a resource that is not a UAV texture",
            )));
        }
        let coord = self.texture_coord(&h, a, 2)?;
        self.coord_in_bounds(&h, coord, None)
    }

    pub(super) fn texture_store(&mut self, op: OpCode, a: Args<'_>) -> Result<(), Error> {
        let h = self.handle_of_arg(a, 1)?;
        let kinds: &[ResourceKind] = if op == OpCode::TextureStoreSample {
            &[ResourceKind::Texture2DMS, ResourceKind::Texture2DMSArray]
        } else {
            &[
                ResourceKind::Texture1D,
                ResourceKind::Texture1DArray,
                ResourceKind::Texture2D,
                ResourceKind::Texture2DArray,
                ResourceKind::Texture3D,
            ]
        };
        self.require_kind(&h, kinds, true, "texture store")?;
        let decl = self.decl(&h).clone();
        let (img, _) = self.load_object(&h, View::Image)?;
        let (st, _) = self.sampled_type(&decl);
        let coord = self.texture_coord(&h, a, 2)?;
        let texel = self.texel_of(a, 5, st)?;
        if op == OpCode::TextureStoreSample {
            let sample = self.arg_id(a, 10)?;
            self.emit(
                Op::ImageWrite,
                &words![img, coord, texel, ImageOperands::SAMPLE.bits(), sample],
            );
        } else {
            self.emit(Op::ImageWrite, &words![img, coord, texel]);
        }
        Ok(())
    }

    /// The sampled image of a texture handle (operand 1) and sampler handle (operand 2).
    fn sampled_image(&mut self, a: Args<'_>, depth: bool) -> Result<(Id, HandleInfo), Error> {
        let h = self.handle_of_arg(a, 1)?;
        let sh = self.handle_of_arg(a, 2)?;
        if self.decl(&sh).class != ResourceClass::Sampler {
            return Err(self.invalid(Invalid::resource("sampler operand is not a sampler")));
        }
        if depth {
            self.require_kind(&h, COMPARABLE, false, "comparison sampling")?;
        } else {
            self.require_kind(&h, SAMPLEABLE, false, "sampling")?;
        }
        let (img, img_ty) = self.load_object(&h, View::Image)?;
        let (smp, _) = self.load_object(&sh, View::Sampler)?;
        let sit = self.b.ty(TypeKey::SampledImage(img_ty));
        let si = self.op2(Op::SampledImage, sit, img, smp);
        if h.nonuniform || sh.nonuniform {
            self.nonuniform(si);
        }
        Ok((si, h))
    }

    /// Sample, SampleBias, SampleLevel, SampleGrad, SampleCmp, SampleCmpLevelZero, SampleCmpLevel,
    /// SampleCmpGrad, SampleCmpBias.
    pub(super) fn sample(
        &mut self,
        i: u32,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let cmp = matches!(
            op,
            OpCode::SampleCmp
                | OpCode::SampleCmpLevelZero
                | OpCode::SampleCmpLevel
                | OpCode::SampleCmpGrad
                | OpCode::SampleCmpBias
        );
        let (si, h) = self.sampled_image(a, cmp)?;
        let s = self.tex_shape(&h)?;
        let decl = self.decl(&h).clone();
        let f = self.b.f32();
        let coord = self.vec_of(a, 3, s.sample, f)?;
        let (st, _) = self.sampled_type(&decl);
        let mut ops = ImageOperands::NONE;
        let mut extra: Vec<Id> = Vec::with_capacity(6);
        // Operand positions after the coordinates (c0..c3 at 3..=6, offsets at 7..=9).
        let after = 10;
        let (dref, rest) = if cmp {
            (Some(self.arg_id(a, after)?), after + 1)
        } else {
            (None, after)
        };
        let mut implicit = false;
        let mut clamp_at = None;
        // Without quads (a group that cannot be cut into them) there are no derivatives: implicit-LOD sampling
        // reads level 0 (plus the bias), raised to the clamp.
        let quads = self.quad_mode().is_some();
        match op {
            OpCode::Sample | OpCode::SampleCmp | OpCode::SampleBias | OpCode::SampleCmpBias
                if !quads =>
            {
                ops |= ImageOperands::LOD;
                let bias = matches!(op, OpCode::SampleBias | OpCode::SampleCmpBias);
                let mut lod = if bias {
                    self.arg_id(a, rest)?
                } else {
                    self.b.const_f32(0.0)
                };
                let c = rest + usize::from(bias);
                if a.get(c).is_some() && !self.arg_undef(a, c) {
                    let clamp = self.arg_id(a, c)?;
                    lod = self.glsl(f, spirv::GLOp::NMax, &[lod, clamp]);
                }
                extra.push(lod);
            }
            OpCode::Sample | OpCode::SampleCmp => {
                implicit = true;
                clamp_at = Some(rest);
            }
            OpCode::SampleBias | OpCode::SampleCmpBias => {
                implicit = true;
                ops |= ImageOperands::BIAS;
                extra.push(self.arg_id(a, rest)?);
                clamp_at = Some(rest + 1);
            }
            OpCode::SampleLevel | OpCode::SampleCmpLevel => {
                ops |= ImageOperands::LOD;
                extra.push(self.arg_id(a, rest)?);
            }
            OpCode::SampleCmpLevelZero => {
                ops |= ImageOperands::LOD;
                extra.push(self.b.const_f32(0.0));
            }
            OpCode::SampleGrad | OpCode::SampleCmpGrad => {
                ops |= ImageOperands::GRAD;
                let n = s.sample - u32::from(s.arrayed);
                let dx = self.vec_of(a, rest, n, f)?;
                let dy = self.vec_of(a, rest + 3, n, f)?;
                extra.push(dx);
                extra.push(dy);
                clamp_at = Some(rest + 6);
            }
            _ => return Err(self.unsupported(Unsupported::Operation(op))),
        }
        let mut coord = coord;
        match self.offsets(a, 7, s.offset)? {
            Off::None => {}
            Off::Const(o) => {
                ops |= ImageOperands::CONST_OFFSET;
                extra.push(o);
            }
            Off::Dyn(o) => {
                // Vulkan allows run-time offsets only on gathers: move the coordinate by offset / size of the
                // sampled level instead (exact for point and bilinear sampling of one level).
                let lod = if matches!(op, OpCode::SampleLevel | OpCode::SampleCmpLevel) {
                    let l = self.arg_id(a, rest)?;
                    let it = self.b.ty(TypeKey::SInt(32));
                    self.op1(Op::ConvertFToS, it, l)
                } else {
                    self.b.const_u32(0)
                };
                let (img, _) = self.load_object(&h, View::Image)?;
                self.b.capability(Capability::ImageQuery);
                let u = self.b.u32();
                let n = s.offset;
                let st = if s.load == 1 {
                    u
                } else {
                    self.b.vec(u, s.load)
                };
                let size = self.op2(Op::ImageQuerySizeLod, st, img, lod);
                let size = if s.load == n {
                    size
                } else {
                    let ut = if n == 1 { u } else { self.b.vec(u, n) };
                    let idx: Vec<u32> = (0..n).collect();
                    if n == 1 {
                        self.opn(Op::CompositeExtract, u, &words![size, 0])
                    } else {
                        let mut args = vec![size.word(), size.word()];
                        args.extend(idx);
                        self.opn(Op::VectorShuffle, ut, &args)
                    }
                };
                let ft = if n == 1 { f } else { self.b.vec(f, n) };
                let sf = self.op1(Op::ConvertUToF, ft, size);
                let of = self.op1(Op::ConvertSToF, ft, o);
                let d = self.op2(Op::FDiv, ft, of, sf);
                coord = self.add_to_coord(coord, d, n, s.sample, true);
            }
        }
        if let Some(c) = clamp_at
            && !self.arg_undef(a, c)
            && a.get(c).is_some()
        {
            let v = self.arg_id(a, c)?;
            ops |= ImageOperands::MIN_LOD;
            self.b.capability(Capability::MinLod);
            extra.push(v);
        }
        if implicit {
            self.uses_derivatives = true;
        }
        let mut args = vec![si.word(), coord.word()];
        if let Some(d) = dref {
            args.push(d.word());
        }
        if !ops.is_empty() {
            args.push(ops.bits());
            args.extend(extra.iter().map(|x| x.word()));
        }
        let sop = match (cmp, implicit) {
            (false, true) => Op::ImageSampleImplicitLod,
            (false, false) => Op::ImageSampleExplicitLod,
            (true, true) => Op::ImageSampleDrefImplicitLod,
            (true, false) => Op::ImageSampleDrefExplicitLod,
        };
        if cmp {
            let r = self.opn(sop, f, &args);
            let et = self.elem0(ty);
            let t = self.ty(et)?;
            let es = self.scalar_of(et).unwrap_or(Scalar::Float(32));
            let x = self.convert_texel(r, f, es, t);
            let one = self.b.const_u32(1);
            return Ok(self.make_agg(&[x, x, x, x, one]));
        }
        let v4 = self.b.vec(st, 4);
        let texel = self.opn(sop, v4, &args);
        self.texel_to_resret(i, ty, st, texel)
    }

    /// TextureGather(srv, smp, c0..c3, o0, o1, channel), TextureGatherCmp(…, channel, cmp), TextureGatherRaw.
    pub(super) fn gather(
        &mut self,
        i: u32,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let cmp = op == OpCode::TextureGatherCmp;
        let (si, h) = self.sampled_image(a, cmp)?;
        self.require_kind(&h, GATHERABLE, false, "gather")?;
        let s = self.tex_shape(&h)?;
        let decl = self.decl(&h).clone();
        let f = self.b.f32();
        let coord = self.vec_of(a, 3, s.sample, f)?;
        let (st, _) = self.sampled_type(&decl);
        let v4 = self.b.vec(st, 4);
        let mut args = vec![si.word(), coord.word()];
        if cmp {
            args.push(self.arg_id(a, 10)?.word());
        } else if op == OpCode::TextureGather {
            let ch = self.arg_const(a, 9)? as u32;
            args.push(self.b.const_u32(ch & 3).word());
        } else {
            args.push(self.b.const_u32(0).word());
        }
        let offs = if s.offset >= 2 {
            self.offsets(a, 7, 2)?
        } else {
            Off::None
        };
        match offs {
            Off::None => {}
            Off::Const(o) => {
                args.push(ImageOperands::CONST_OFFSET.bits());
                args.push(o.word());
            }
            Off::Dyn(o) => {
                self.b.capability(Capability::ImageGatherExtended);
                args.push(ImageOperands::OFFSET.bits());
                args.push(o.word());
            }
        }
        let texel = if cmp {
            let fv4 = self.b.vec(f, 4);
            self.opn(Op::ImageDrefGather, fv4, &args)
        } else {
            self.opn(Op::ImageGather, v4, &args)
        };
        if op == OpCode::TextureGatherRaw {
            // Raw gather: the texel bits of the red channel, reinterpreted as the overload type.
            let et = self.elem0(ty);
            let t = self.ty(et)?;
            let w = self.bits(et);
            let u = self.b.u32();
            let used = self.f.used.get(i as usize).copied().unwrap_or(0xFF);
            let mut parts = [None; 5];
            for k in 0..4u32 {
                if used & (1 << k) == 0 {
                    continue;
                }
                let c = self.opn(Op::CompositeExtract, st, &words![texel, k]);
                let bits = self.convert_texel(c, st, Scalar::Int(32), u);
                parts[k as usize] = Some(match w {
                    16 => {
                        let t16 = self.scalar_ty(Scalar::Int(16), 1);
                        let x = self.op1(Op::UConvert, t16, bits);
                        self.bitcast(t, t16, x)
                    }
                    32 => self.bitcast(t, u, bits),
                    _ => {
                        let t64 = self.scalar_ty(Scalar::Int(64), 1);
                        let x = self.op1(Op::UConvert, t64, bits);
                        self.bitcast(t, t64, x)
                    }
                });
            }
            if used & 0x10 != 0 {
                parts[4] = Some(self.b.const_u32(1));
            }
            return Ok(self.make_partial_agg(&parts));
        }
        if cmp {
            return self.texel_to_resret(i, ty, f, texel);
        }
        self.texel_to_resret(i, ty, st, texel)
    }

    /// `CalculateLOD(srv, smp, c0, c1, c2, clamped)`.
    pub(super) fn calculate_lod(&mut self, a: Args<'_>) -> Result<Id, Error> {
        let (si, h) = self.sampled_image(a, false)?;
        let s = self.tex_shape(&h)?;
        let f = self.b.f32();
        let n = s.sample - u32::from(s.arrayed);
        let coord = self.vec_of(a, 3, n, f)?;
        if self.quad_mode().is_none() {
            // No quads, no derivatives: level 0.
            return Ok(self.b.const_f32(0.0));
        }
        self.b.capability(Capability::ImageQuery);
        self.uses_derivatives = true;
        let v2 = self.b.vec(f, 2);
        let q = self.op2(Op::ImageQueryLod, v2, si, coord);
        let clamped = self.arg_const(a, 6)? != 0;
        Ok(self.opn(
            Op::CompositeExtract,
            f,
            &words![q, if clamped { 0 } else { 1 }],
        ))
    }

    /// `Texture2DMSGetSamplePosition(srv, index)`: D3D's standard sample pattern of the texture's sample count
    /// (1, 2, 4, 8 or 16 samples), in pixels from the centre; (0, 0) for another count or an index past it.
    pub(super) fn sample_position(&mut self, a: Args<'_>) -> Result<Val, Error> {
        {
            let h = self.handle_of_arg(a, 1)?;
            self.require_kind(
                &h,
                &[ResourceKind::Texture2DMS, ResourceKind::Texture2DMSArray],
                false,
                "sample position",
            )?;
        }
        let table = self.sample_position_table();
        let h = self.handle_of_arg(a, 1)?;
        let index = self.arg_id(a, 2)?;
        let (img, _) = self.load_object(&h, View::Image)?;
        self.b.capability(Capability::ImageQuery);
        let u = self.b.u32();
        let count = self.op1(Op::ImageQuerySamples, u, img);
        Ok(self.standard_sample_position(table, count, index))
    }

    /// A `Private` table of D3D's standard sample patterns (1, 2, 4, 8 and 16 samples) for
    /// [`Ctx::standard_sample_position`].
    pub(in crate::lower) fn sample_position_table(&mut self) -> Id {
        // The standard patterns in 1/16 pixel, concatenated: the pattern of n samples starts at entry n - 1.
        const PATTERNS: [(i8, i8); 31] = [
            (0, 0),
            (4, 4),
            (-4, -4),
            (-2, -6),
            (6, -2),
            (-6, 2),
            (2, 6),
            (1, -3),
            (-1, 3),
            (5, 1),
            (-3, -5),
            (-5, 5),
            (-7, -1),
            (3, 7),
            (7, -7),
            (1, 1),
            (-1, -3),
            (-3, 2),
            (4, -1),
            (-5, -2),
            (2, 5),
            (5, 3),
            (3, -5),
            (-2, 6),
            (0, -7),
            (-4, -6),
            (-6, 4),
            (-8, 0),
            (7, -4),
            (6, 7),
            (-7, -8),
        ];
        // Interned in this order so that ids stay as they were before the table was shared.
        self.b.u32();
        let f = self.b.f32();
        self.b.bool();
        let v2 = self.b.vec(f, 2);
        let entries: Vec<Id> = PATTERNS
            .iter()
            .map(|&(x, y)| {
                let cx = self.b.const_f32(x as f32 / 16.0);
                let cy = self.b.const_f32(y as f32 / 16.0);
                self.b.const_composite(v2, &[cx, cy])
            })
            .collect();
        let at = self.b.ty(TypeKey::Array(v2, PATTERNS.len() as u32));
        let init = self.b.const_composite(at, &entries);
        let pt = self.b.ptr(spirv::StorageClass::Private, at);
        self.b
            .global_var(pt, spirv::StorageClass::Private, Some(init))
    }

    /// Position `index` of D3D's standard pattern of `count` samples, in pixels from the centre, read from `table`
    /// ([`Ctx::sample_position_table`]); (0, 0) for a count that is not a power of two up to 16 or an index past
    /// it.
    pub(in crate::lower) fn standard_sample_position(
        &mut self,
        table: Id,
        count: Id,
        index: Id,
    ) -> Val {
        let u = self.b.u32();
        let f = self.b.f32();
        let bt = self.b.bool();
        let v2 = self.b.vec(f, 2);
        // Valid counts are powers of two up to 16, and the index must be below the count.
        let one = self.b.const_u32(1);
        let c16 = self.b.const_u32(16);
        let zero = self.b.const_u32(0);
        let cm1 = self.op2(Op::ISub, u, count, one);
        let pow2 = self.op2(Op::BitwiseAnd, u, count, cm1);
        let is_pow2 = self.op2(Op::IEqual, bt, pow2, zero);
        let small = self.op2(Op::ULessThanEqual, bt, count, c16);
        let inside = self.op2(Op::ULessThan, bt, index, count);
        let ok1 = self.op2(Op::LogicalAnd, bt, is_pow2, small);
        let ok = self.op2(Op::LogicalAnd, bt, ok1, inside);
        let slot = self.op2(Op::IAdd, u, cm1, index);
        let slot = self.select(u, ok, slot, zero);
        let pe = self.b.ptr(spirv::StorageClass::Private, v2);
        let p = self.chain(pe, table, &[slot]);
        let pos = self.load(v2, p);
        let x = self.opn(Op::CompositeExtract, f, &words![pos, 0]);
        let y = self.opn(Op::CompositeExtract, f, &words![pos, 1]);
        let zf = self.b.const_f32(0.0);
        let x = self.select(f, ok, x, zf);
        let y = self.select(f, ok, y, zf);
        self.make_agg(&[x, y])
    }

    /// `GetDimensions(handle, mip)` of a texture.
    pub(super) fn texture_dimensions(
        &mut self,
        _i: u32,
        h: &HandleInfo,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let s = self.tex_shape(h)?;
        let decl = self.decl(h).clone();
        let (img, _) = self.load_object(h, View::Image)?;
        self.b.capability(Capability::ImageQuery);
        let u = self.b.u32();
        let zero = self.b.const_u32(0);
        let uav = decl.class == ResourceClass::Uav;
        let n = match decl.kind {
            ResourceKind::TextureCube => 2,
            ResourceKind::TextureCubeArray => 3,
            _ => s.load,
        };
        let st = if n == 1 { u } else { self.b.vec(u, n) };
        let size = if uav || s.ms {
            self.op1(Op::ImageQuerySize, st, img)
        } else {
            let mip = if self.arg_undef(a, 2) {
                zero
            } else {
                self.arg_id(a, 2)?
            };
            self.op2(Op::ImageQuerySizeLod, st, img, mip)
        };
        let mut parts = [zero; 4];
        for k in 0..n {
            parts[k as usize] = if n == 1 {
                size
            } else {
                self.opn(Op::CompositeExtract, u, &words![size, k])
            };
        }
        if s.ms {
            parts[3] = self.op1(Op::ImageQuerySamples, u, img);
        } else if !uav {
            parts[3] = self.op1(Op::ImageQueryLevels, u, img);
        }
        // 1D arrays report (width, layers) in x, y.
        Ok(self.make_agg(&parts))
    }
}
