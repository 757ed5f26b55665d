//! Sampler feedback: `WriteSamplerFeedback`, `WriteSamplerFeedbackBias`, `WriteSamplerFeedbackLevel` and
//! `WriteSamplerFeedbackGrad`, emulated with 64-bit atomics on a storage image (the contract is in the crate docs,
//! "Sampler feedback").
//!
//! Each operation becomes two guarded atomic ORs (a guard of two, see `func`): one into the map texel of
//! the finer mip level the sample would read, one into that of the coarser level where trilinear filtering would
//! read a second level. Everything both need is computed in the block that tests the first guard, which dominates
//! the rest, and kept in [`FeedbackWrites`] until the bodies run.

use dxil_shader::ops::OpCode;
use spirv::{Capability, GLOp, Op, Scope, StorageClass};

use super::res::{HandleInfo, View};
use super::{Args, Ctx};
use crate::dxil::{ResourceClass, ResourceKind, Stage};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, TypeKey, words};

/// The two atomic writes of one feedback operation: for the finer level (0) and the coarser level (1), whether this
/// invocation writes, the map texel and the bits it ORs in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FeedbackWrites {
    pub inst: u32,
    pub cond: [Id; 2],
    pub coord: [Id; 2],
    pub bits: [Id; 2],
}

/// Is `op` one of the four sampler feedback writes?
pub(super) fn is_feedback(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::WriteSamplerFeedback
            | OpCode::WriteSamplerFeedbackBias
            | OpCode::WriteSamplerFeedbackLevel
            | OpCode::WriteSamplerFeedbackGrad
    )
}

/// Bits per mip level in a map texel: level `l` owns bits `4l..4l+4`.
const BITS_PER_LEVEL: u32 = 4;
/// The low bits of each dimension of the feedback image that hold log2 of the mip region's size along it.
const REGION_LOG2_MASK: u32 = 15;
/// Added to the level before truncating to find the coarser level: trilinear filtering reads the next level once
/// the fraction is about 1/256 (and not yet at 1/512); the threshold sits between the two.
const COARSER_LEVEL_BIAS: f32 = 1.0 - 0.75 / 256.0;
/// The highest level a map texel has bits for (64 bits, 4 per level; D3D reserves level 15).
const MAX_MAP_LEVEL: f32 = 14.0;
/// Subtracted from the footprint (in texels) before rounding it up to a power of two, so that a footprint one
/// derivative rounding error above an integer does not count as twice as large.
const FOOTPRINT_SLACK: f32 = 1.0 / 256.0;
/// Largest power-of-two exponent of the footprint in texels (16x anisotropy).
const MAX_FOOTPRINT_LOG2: u32 = 4;

/// Operand positions of the feedback calls (operand 0 is the opcode).
mod operand {
    pub const FEEDBACK: usize = 1;
    pub const TEXTURE: usize = 2;
    pub const SAMPLER: usize = 3;
    pub const U: usize = 4;
    pub const LAYER: usize = 6;
    /// Bias, level or the first x gradient.
    pub const EXTRA: usize = 8;
    pub const DDY: usize = 11;
}

impl<'a> Ctx<'a> {
    /// Marks the feedback resource of a feedback call: declared with a 64-bit unsigned sampled type and the
    /// `R64ui` format its atomics need.
    pub(super) fn note_feedback(&mut self, a: Args<'_>) -> Result<(), Error> {
        let h = self.handle_of_arg(a, operand::FEEDBACK)?;
        if matches!(
            self.decl(&h).kind,
            ResourceKind::FeedbackTexture2D | ResourceKind::FeedbackTexture2DArray
        ) {
            self.note_typed_use(&h, false, true);
            self.note_atomic64(&h);
        }
        Ok(())
    }

    /// Condition `k` of the guarded feedback call `i` (0: the finer level, 1: the coarser).
    pub(super) fn feedback_cond(
        &mut self,
        op: OpCode,
        a: Args<'_>,
        i: u32,
        k: u8,
    ) -> Result<Id, Error> {
        if k == 0 {
            let w = self.feedback_writes(op, a, i)?;
            self.f.feedback = Some(w);
        }
        Ok(self.planned_feedback(i)?.cond[k.min(1) as usize])
    }

    /// Body `k` of the guarded feedback call `i`: the atomic OR into the feedback map.
    pub(super) fn feedback_body(&mut self, a: Args<'_>, i: u32, k: u8) -> Result<(), Error> {
        let w = self.planned_feedback(i)?;
        let k = k.min(1) as usize;
        let h = self.handle_of_arg(a, operand::FEEDBACK)?;
        let decl = self.decl(&h).clone();
        let (st, _) = self.sampled_type(&decl);
        let (iptr, _, nonuniform) = self.image_ptr(&h)?;
        let pt = self.b.ptr(StorageClass::Image, st);
        let zero = self.b.const_u32(0);
        let p = self.op3(Op::ImageTexelPointer, pt, iptr, w.coord[k], zero);
        if nonuniform {
            self.nonuniform(p);
        }
        self.b.capability(Capability::Int64Atomics);
        let scope = self.b.const_u32(Scope::Device as u32);
        let sem = self.b.const_u32(0);
        let u64t = self.b.uint(64);
        self.opn(Op::AtomicOr, u64t, &words![p, scope, sem, w.bits[k]]);
        Ok(())
    }

    fn planned_feedback(&self, i: u32) -> Result<FeedbackWrites, Error> {
        self.f
            .feedback
            .filter(|w| w.inst == i)
            .ok_or_else(|| self.invalid(Invalid::internal("feedback write before its first guard")))
    }

    /// Checks the three resources of a feedback call: a feedback UAV, an SRV texture of the same arrayedness and a
    /// sampler. Returns whether they are arrays.
    fn feedback_resources(
        &self,
        fb: &HandleInfo,
        tex: &HandleInfo,
        smp: &HandleInfo,
    ) -> Result<bool, Error> {
        let f = self.decl(fb);
        let arrayed = match (f.class, f.kind) {
            (ResourceClass::Uav, ResourceKind::FeedbackTexture2D) => false,
            (ResourceClass::Uav, ResourceKind::FeedbackTexture2DArray) => true,
            (c, k) => {
                return Err(self.invalid(Invalid::resource(format!(
                    "sampler feedback written to a {k:?} ({c:?}), not a feedback texture UAV"
                ))));
            }
        };
        let t = self.decl(tex);
        let want = if arrayed {
            ResourceKind::Texture2DArray
        } else {
            ResourceKind::Texture2D
        };
        if t.class != ResourceClass::Srv || t.kind != want {
            return Err(self.invalid(Invalid::resource(format!(
                "sampler feedback of a {:?} ({:?}) into a {:?}",
                t.kind, t.class, f.kind
            ))));
        }
        if self.decl(smp).class != ResourceClass::Sampler {
            return Err(self.invalid(Invalid::resource(
                "sampler feedback's sampler operand is not a sampler",
            )));
        }
        Ok(arrayed)
    }

    /// Everything the two writes of feedback call `i` need (see the crate docs for the arithmetic).
    fn feedback_writes(
        &mut self,
        op: OpCode,
        a: Args<'_>,
        i: u32,
    ) -> Result<FeedbackWrites, Error> {
        let fb = self.handle_of_arg(a, operand::FEEDBACK)?;
        let tex = self.handle_of_arg(a, operand::TEXTURE)?;
        let smp = self.handle_of_arg(a, operand::SAMPLER)?;
        let arrayed = self.feedback_resources(&fb, &tex, &smp)?;
        self.b.capability(Capability::ImageQuery);
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let it = self.b.ty(TypeKey::SInt(32));
        let iv2 = self.b.vec(it, 2);
        let bt = self.b.bool();

        let u = self.arg_id(a, operand::U)?;
        let v = self.arg_id(a, operand::U + 1)?;
        let uv = self.op2(Op::CompositeConstruct, v2, u, v);
        let layer = if arrayed {
            let c = self.arg_id(a, operand::LAYER)?;
            // Vulkan rounds array layers to nearest even (or floor(x + 0.5)); the first is the usual one.
            let r = self.glsl(f, GLOp::RoundEven, &[c]);
            Some(self.op1(Op::ConvertFToS, it, r))
        } else {
            None
        };

        // The region size is hidden in the feedback image's size (see the crate docs).
        let (fb_img, _) = self.load_object(&fb, View::Image)?;
        let fb_size = self.image_size_xy(fb_img, arrayed, None);
        let mask = self.splat_i32(REGION_LOG2_MASK);
        let region_log2 = self.op2(Op::BitwiseAnd, iv2, fb_size, mask);
        let to_regions = self.op1(Op::SNegate, iv2, region_log2);

        let (img, _) = self.load_object(&tex, View::Image)?;
        let levels = self.op1(Op::ImageQueryLevels, it, img);
        let one = self.b.const_bits(it, 32, 1);
        let max_level = self.op2(Op::ISub, it, levels, one);

        let implicit = matches!(
            op,
            OpCode::WriteSamplerFeedback | OpCode::WriteSamplerFeedbackBias
        ) && self.quad_mode().is_some();
        if implicit && matches!(self.entry.stage, Stage::Mesh | Stage::Amplification) {
            return Err(self.unsupported(Unsupported::OperationNeeds {
                op,
                why: "an implicit level of detail in a mesh or amplification shader",
            }));
        }
        let (lod, footprint) =
            self.feedback_lod(op, a, implicit, &tex, &smp, img, uv, max_level)?;
        let (fine, coarse) = self.feedback_levels(lod, max_level);
        let trilinear = self.op2(Op::INotEqual, bt, fine, coarse);

        // Coordinates past 1 wrap; within the texture, filtering is taken as clamped.
        let wrapped = self.glsl(v2, GLOp::Fract, &[uv]);
        let writes = if self.entry.stage == Stage::Pixel {
            // Helper lanes make derivatives, not feedback.
            self.demote_caps();
            let helper = self.b.id();
            self.emit(Op::IsHelperInvocationEXT, &words![bt, helper]);
            self.op1(Op::LogicalNot, bt, helper)
        } else {
            self.b.const_bool(true)
        };
        let mut w = FeedbackWrites {
            inst: i,
            cond: [writes, self.op2(Op::LogicalAnd, bt, writes, trilinear)],
            coord: [writes; 2],
            bits: [writes; 2],
        };
        for (k, level) in [fine, coarse].into_iter().enumerate() {
            let (coord, bits) =
                self.feedback_texel(img, arrayed, level, wrapped, to_regions, footprint)?;
            w.coord[k] = match layer {
                Some(l) => {
                    let iv3 = self.b.vec(it, 3);
                    self.op2(Op::CompositeConstruct, iv3, coord, l)
                }
                None => coord,
            };
            w.bits[k] = bits;
        }
        Ok(w)
    }

    /// The level of detail the sample reads (a float), and for implicit levels the per-axis extent of the
    /// coordinate's derivatives (scaled by the bias), which the footprint is made of.
    #[allow(clippy::too_many_arguments)]
    fn feedback_lod(
        &mut self,
        op: OpCode,
        a: Args<'_>,
        implicit: bool,
        tex: &HandleInfo,
        smp: &HandleInfo,
        img: Id,
        uv: Id,
        max_level: Id,
    ) -> Result<(Id, Option<Id>), Error> {
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let zero = self.b.const_f32(0.0);
        let max_f = self.op1(Op::ConvertSToF, f, max_level);
        let (mut lod, footprint) = match op {
            OpCode::WriteSamplerFeedback | OpCode::WriteSamplerFeedbackBias if implicit => {
                self.uses_derivatives = true;
                let scale = if op == OpCode::WriteSamplerFeedbackBias {
                    let bias = self.arg_id(a, operand::EXTRA)?;
                    Some(self.glsl(f, GLOp::Exp2, &[bias]))
                } else {
                    None
                };
                // A bias scales the gradients. One level is computed per quad, so the bias is taken from its
                // first lane (biases that vary within a quad are rare).
                let at = match scale {
                    Some(s) => {
                        self.b.capability(Capability::GroupNonUniform);
                        self.b.capability(Capability::GroupNonUniformQuad);
                        let sg = self.b.const_u32(Scope::Subgroup as u32);
                        let lane0 = self.b.const_u32(0);
                        let s0 = self.op3(Op::GroupNonUniformQuadBroadcast, f, sg, s, lane0);
                        self.op2(Op::VectorTimesScalar, v2, uv, s0)
                    }
                    None => uv,
                };
                let (image, img_ty) = self.load_object(tex, View::Image)?;
                let (sampler, _) = self.load_object(smp, View::Sampler)?;
                let sit = self.b.ty(TypeKey::SampledImage(img_ty));
                let si = self.op2(Op::SampledImage, sit, image, sampler);
                if tex.nonuniform || smp.nonuniform {
                    self.nonuniform(si);
                }
                let q = self.op2(Op::ImageQueryLod, v2, si, at);
                let lod = self.opn(Op::CompositeExtract, f, &words![q, 0u32]);
                let dx = self.op1(Op::DPdx, v2, uv);
                let dy = self.op1(Op::DPdy, v2, uv);
                let dx = self.glsl(v2, GLOp::FAbs, &[dx]);
                let dy = self.glsl(v2, GLOp::FAbs, &[dy]);
                let mut extent = self.glsl(v2, GLOp::FMax, &[dx, dy]);
                if let Some(s) = scale {
                    extent = self.op2(Op::VectorTimesScalar, v2, extent, s);
                }
                (lod, Some(extent))
            }
            // Without quads there are no derivatives: level 0, the footprint of a bilinear sample.
            OpCode::WriteSamplerFeedback | OpCode::WriteSamplerFeedbackBias => (zero, None),
            OpCode::WriteSamplerFeedbackLevel => {
                let l = self.arg_id(a, operand::EXTRA)?;
                (self.glsl(f, GLOp::NClamp, &[l, zero, max_f]), None)
            }
            OpCode::WriteSamplerFeedbackGrad => {
                // D3D's level from explicit gradients: log2 of the longer gradient in texels of level 0.
                let size0 = {
                    let z = self.b.const_u32(0);
                    let s = self.image_size_xy(img, self.arrayed_texture(tex), Some(z));
                    self.op1(Op::ConvertSToF, v2, s)
                };
                let mut g = [size0; 2];
                for (k, first) in [operand::EXTRA, operand::DDY].into_iter().enumerate() {
                    let x = self.arg_id(a, first)?;
                    let y = self.arg_id(a, first + 1)?;
                    let d = self.op2(Op::CompositeConstruct, v2, x, y);
                    g[k] = self.op2(Op::FMul, v2, size0, d);
                }
                let gx = self.op2(Op::Dot, f, g[0], g[0]);
                let gy = self.op2(Op::Dot, f, g[1], g[1]);
                let m = self.glsl(f, GLOp::FMax, &[gx, gy]);
                let l2 = self.glsl(f, GLOp::Log2, &[m]);
                let half = self.b.const_f32(0.5);
                let l = self.op2(Op::FMul, f, l2, half);
                // NClamp: a zero gradient's log is -inf, a NaN gradient's is NaN; both read level 0.
                (self.glsl(f, GLOp::NClamp, &[l, zero, max_f]), None)
            }
            _ => return Err(self.invalid(Invalid::internal("not a sampler feedback operation"))),
        };
        // The optional last operand clamps the level from below (a MinMip clamp); `...Level` has none.
        let clamp = match op {
            OpCode::WriteSamplerFeedback => Some(operand::EXTRA),
            OpCode::WriteSamplerFeedbackBias => Some(operand::EXTRA + 1),
            OpCode::WriteSamplerFeedbackGrad => Some(operand::DDY + 3),
            _ => None,
        };
        if let Some(k) = clamp
            && !self.arg_undef(a, k)
        {
            let c = self.arg_id(a, k)?;
            let top = self.b.const_f32(MAX_MAP_LEVEL);
            let l = self.glsl(f, GLOp::FMax, &[lod, c]);
            lod = self.glsl(f, GLOp::FMin, &[l, top]);
        }
        Ok((lod, footprint))
    }

    /// The finer and the coarser integer level of `lod`, each at most `max_level`.
    fn feedback_levels(&mut self, lod: Id, max_level: Id) -> (Id, Id) {
        let f = self.b.f32();
        let it = self.b.ty(TypeKey::SInt(32));
        let fine = self.op1(Op::ConvertFToS, it, lod);
        let bias = self.b.const_f32(COARSER_LEVEL_BIAS);
        let up = self.op2(Op::FAdd, f, lod, bias);
        let coarse = self.op1(Op::ConvertFToS, it, up);
        // A level past the texture's last (from the clamp operand) reads the last.
        let fine = self.glsl(it, GLOp::SMin, &[fine, max_level]);
        let coarse = self.glsl(it, GLOp::SMin, &[coarse, max_level]);
        (fine, coarse)
    }

    /// The map texel (its lower-left region) and the bits of one level's write: the sample's footprint in mip
    /// regions of `level`, and which neighbouring regions it reaches.
    fn feedback_texel(
        &mut self,
        img: Id,
        arrayed: bool,
        level: Id,
        wrapped: Id,
        to_regions: Id,
        footprint: Option<Id>,
    ) -> Result<(Id, Id), Error> {
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let it = self.b.ty(TypeKey::SInt(32));
        let iv2 = self.b.vec(it, 2);
        let bt = self.b.bool();
        let bv2 = self.b.vec(bt, 2);
        let u = self.b.u32();
        let u64t = self.b.uint(64);
        self.b.capability(Capability::Int64);

        let size_i = self.image_size_xy(img, arrayed, Some(level));
        let size = self.op1(Op::ConvertSToF, v2, size_i);
        let scale = self.glsl(v2, GLOp::Ldexp, &[size, to_regions]);
        let at = self.op2(Op::FMul, v2, wrapped, scale);
        let half = self.splat_f32(0.5);
        let extent = match footprint {
            Some(d) => {
                // Half the footprint, rounded up to a power of two texels between 1 and 16 (anisotropic filters
                // may round their factor up so), in regions, and at most half a region: a write touches 2x2
                // regions at most.
                let texels = self.op2(Op::FMul, v2, d, size);
                let slack = self.splat_f32(FOOTPRINT_SLACK);
                let texels = self.op2(Op::FSub, v2, texels, slack);
                let e = self.frexp_exponent_clamped(texels);
                let e = self.op2(Op::IAdd, iv2, e, to_regions);
                let r = self.glsl(v2, GLOp::Ldexp, &[half, e]);
                self.glsl(v2, GLOp::FMin, &[r, half])
            }
            // Explicit levels: a bilinear footprint (half a texel each way).
            None => self.glsl(v2, GLOp::Ldexp, &[half, to_regions]),
        };
        let lo = self.op2(Op::FSub, v2, at, extent);
        let zero = self.splat_f32(0.0);
        let lo = self.glsl(v2, GLOp::FMax, &[lo, zero]);
        let hi = self.op2(Op::FAdd, v2, at, extent);
        let lo = self.op1(Op::ConvertFToS, iv2, lo);
        let hi = self.op1(Op::ConvertFToS, iv2, hi);
        let reach = self.op2(Op::INotEqual, bv2, lo, hi);
        let right = self.opn(Op::CompositeExtract, bt, &words![reach, 0u32]);
        let up = self.opn(Op::CompositeExtract, bt, &words![reach, 1u32]);
        let diagonal = self.op2(Op::LogicalAnd, bt, right, up);
        // Bit 0: the region itself; 1: the next along x; 2: along y; 3: diagonally.
        let mut bits = self.b.const_u32(1);
        for (flag, bit) in [(right, 2u32), (up, 4), (diagonal, 8)] {
            let on = self.b.const_u32(bit);
            let off = self.b.const_u32(0);
            let b = self.op3(Op::Select, u, flag, on, off);
            bits = self.op2(Op::BitwiseOr, u, bits, b);
        }
        let bits = self.op1(Op::UConvert, u64t, bits);
        let per = self.b.const_bits(it, 32, BITS_PER_LEVEL as u64);
        let shift = self.op2(Op::IMul, it, level, per);
        let bits = self.op2(Op::ShiftLeftLogical, u64t, bits, shift);
        Ok((lo, bits))
    }

    /// frexp's exponent of each component, clamped to `0..=MAX_FOOTPRINT_LOG2`: read from the float's exponent
    /// field (`field - 126`), which agrees with frexp wherever the clamp does not decide (negative inputs here are
    /// tiny, denormals and zero clamp to 0, infinities and NaN to the maximum).
    fn frexp_exponent_clamped(&mut self, x: Id) -> Id {
        let u = self.b.u32();
        let uv2 = self.b.vec(u, 2);
        let it = self.b.ty(TypeKey::SInt(32));
        let iv2 = self.b.vec(it, 2);
        let bits = self.op1(Op::Bitcast, uv2, x);
        let s = self.splat_u32(23);
        let field = self.op2(Op::ShiftRightLogical, uv2, bits, s);
        let m = self.splat_u32(0xFF);
        let field = self.op2(Op::BitwiseAnd, uv2, field, m);
        let field = self.op1(Op::Bitcast, iv2, field);
        let bias = self.splat_i32(126);
        let e = self.op2(Op::ISub, iv2, field, bias);
        let lo = self.splat_i32(0);
        let hi = self.splat_i32(MAX_FOOTPRINT_LOG2);
        self.glsl(iv2, GLOp::SClamp, &[e, lo, hi])
    }

    /// Width and height (signed) of an image, of level `lod` or (storage images) of the image.
    fn image_size_xy(&mut self, img: Id, arrayed: bool, lod: Option<Id>) -> Id {
        let it = self.b.ty(TypeKey::SInt(32));
        let iv2 = self.b.vec(it, 2);
        let t = if arrayed { self.b.vec(it, 3) } else { iv2 };
        let s = match lod {
            Some(l) => self.op2(Op::ImageQuerySizeLod, t, img, l),
            None => self.op1(Op::ImageQuerySize, t, img),
        };
        if arrayed {
            self.opn(Op::VectorShuffle, iv2, &words![s, s, 0u32, 1u32])
        } else {
            s
        }
    }

    fn arrayed_texture(&self, h: &HandleInfo) -> bool {
        self.decl(h).kind == ResourceKind::Texture2DArray
    }

    fn splat_i32(&mut self, v: u32) -> Id {
        let it = self.b.ty(TypeKey::SInt(32));
        let c = self.b.const_bits(it, 32, v as u64);
        let t = self.b.vec(it, 2);
        self.b.const_composite(t, &[c, c])
    }

    fn splat_u32(&mut self, v: u32) -> Id {
        let c = self.b.const_u32(v);
        let u = self.b.u32();
        let t = self.b.vec(u, 2);
        self.b.const_composite(t, &[c, c])
    }

    fn splat_f32(&mut self, v: f32) -> Id {
        let c = self.b.const_f32(v);
        let f = self.b.f32();
        let t = self.b.vec(f, 2);
        self.b.const_composite(t, &[c, c])
    }
}
