//! Images and samplers: sampling, fetches, storage image reads and writes, queries,
//! gathers, texel pointers for atomics.

use dxil_module::{BinOp, CastOp, Predicate, TypeId, Value};
use dxil_shader::ops::OpCode;
use dxil_shader::{ComponentType, ResourceClass, ResourceKind};
use spirv::Op;

use super::buffer::ResKind;
use super::memory::{Base, Ptr};
use super::{Slot, Tr};
use crate::builder::Scalar;
use crate::error::{Result, inexpressible, malformed, unsupported};
use crate::spv::{Inst, Type};

/// Image operand bits (`ImageOperands`).
mod io {
    pub const BIAS: u32 = 0x1;
    pub const LOD: u32 = 0x2;
    pub const GRAD: u32 = 0x4;
    pub const CONST_OFFSET: u32 = 0x8;
    pub const OFFSET: u32 = 0x10;
    pub const CONST_OFFSETS: u32 = 0x20;
    pub const SAMPLE: u32 = 0x40;
    pub const MIN_LOD: u32 = 0x80;
    pub const MAKE_TEXEL_AVAILABLE: u32 = 0x100;
    pub const MAKE_TEXEL_VISIBLE: u32 = 0x200;
    pub const OFFSETS: u32 = 0x10000;
}

/// The optional operands of an image instruction.
#[derive(Default)]
struct Operands {
    bias: Option<u32>,
    lod: Option<u32>,
    grad: Option<(u32, u32)>,
    offset: Option<u32>,
    const_offsets: bool,
    sample: Option<u32>,
    min_lod: Option<u32>,
}

fn operands(inst: &Inst<'_>, at: usize) -> Result<Operands> {
    let mut o = Operands::default();
    let Some(&mask) = inst.rest(at).first() else {
        return Ok(o);
    };
    let mut i = at + 1;
    let mut next = || -> Result<u32> {
        let v = inst.word(i)?;
        i += 1;
        Ok(v)
    };
    if mask & io::BIAS != 0 {
        o.bias = Some(next()?);
    }
    if mask & io::LOD != 0 {
        o.lod = Some(next()?);
    }
    if mask & io::GRAD != 0 {
        o.grad = Some((next()?, next()?));
    }
    if mask & io::CONST_OFFSET != 0 {
        o.offset = Some(next()?);
    }
    if mask & io::OFFSET != 0 {
        o.offset = Some(next()?);
    }
    if mask & io::CONST_OFFSETS != 0 {
        next()?;
        o.const_offsets = true;
    }
    if mask & io::SAMPLE != 0 {
        o.sample = Some(next()?);
    }
    if mask & io::MIN_LOD != 0 {
        o.min_lod = Some(next()?);
    }
    if mask & io::MAKE_TEXEL_AVAILABLE != 0 {
        next()?;
    }
    if mask & io::MAKE_TEXEL_VISIBLE != 0 {
        next()?;
    }
    if mask & io::OFFSETS != 0 {
        next()?;
        o.const_offsets = true;
    }
    Ok(o)
}

/// Coordinates, offsets and gradient components of a resource kind.
fn coord_count(kind: ResourceKind) -> usize {
    use ResourceKind as K;
    match kind {
        K::Texture1D | K::TypedBuffer | K::RawBuffer => 1,
        K::Texture1DArray | K::Texture2D | K::Texture2DMS => 2,
        K::Texture2DArray | K::Texture2DMSArray | K::Texture3D | K::TextureCube => 3,
        K::TextureCubeArray => 4,
        _ => 0,
    }
}

fn offset_count(kind: ResourceKind) -> usize {
    use ResourceKind as K;
    match kind {
        K::Texture1D | K::Texture1DArray => 1,
        K::Texture2D | K::Texture2DArray | K::Texture2DMS | K::Texture2DMSArray => 2,
        K::Texture3D => 3,
        _ => 0,
    }
}

/// Spatial dimensions (gradients, LOD coordinates).
fn spatial_count(kind: ResourceKind) -> usize {
    use ResourceKind as K;
    match kind {
        K::Texture1D | K::Texture1DArray => 1,
        K::Texture2D | K::Texture2DArray | K::Texture2DMS | K::Texture2DMSArray => 2,
        K::Texture3D | K::TextureCube | K::TextureCubeArray => 3,
        _ => 1,
    }
}

impl Tr<'_> {
    fn handle_of(&mut self, id: u32) -> Result<(u32, Value)> {
        match self.slot_of(id)? {
            Slot::Handle { res, handle } => Ok((res, handle)),
            Slot::Sampled { res, handle, .. } => Ok((res, handle)),
            _ => Err(malformed(format!("%{id} is not an image"))),
        }
    }

    fn sampled_of(&mut self, id: u32) -> Result<(u32, Value, u32, Value)> {
        match self.slot_of(id)? {
            Slot::Sampled {
                res,
                handle,
                sampler_res,
                sampler,
            } => Ok((res, handle, sampler_res, sampler)),
            _ => Err(malformed(format!("%{id} is not a sampled image"))),
        }
    }

    fn typed_kind(&self, res: u32) -> Result<(ResourceKind, ComponentType, ResourceClass)> {
        let r = &self.resources[res as usize];
        match r.kind {
            ResKind::Typed { kind, comp, .. } => Ok((kind, comp, r.class)),
            _ => Err(malformed(
                "image operation on a resource that is not an image",
            )),
        }
    }

    /// The overload scalar of a component type.
    fn comp_scalar(&mut self, comp: ComponentType) -> Scalar {
        match comp {
            ComponentType::F16 => {
                self.features.native16 = true;
                Scalar::F16
            }
            // 64-bit texels travel as two 32-bit words.
            ComponentType::I32 | ComponentType::U32 | ComponentType::I64 | ComponentType::U64 => {
                Scalar::I32
            }
            _ => Scalar::F32,
        }
    }

    /// `n` values from a coordinate-like operand, converted to `want`, padded with undef to
    /// `total`.
    fn coords(
        &mut self,
        id: Option<u32>,
        n: usize,
        total: usize,
        want: Scalar,
    ) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(total);
        if let Some(id) = id {
            let v = self.values(id)?;
            if v.len() < n {
                return Err(malformed(format!(
                    "coordinate of {} components where {n} are needed",
                    v.len()
                )));
            }
            for &x in &v[..n] {
                out.push(self.convert_scalar(x, want)?);
            }
        }
        let undef = self.b.undef_scalar(want);
        out.resize(total, undef);
        Ok(out)
    }

    /// Converts a scalar to `want` (integer ↔ float by value, widths by extension).
    pub fn convert_scalar(&mut self, v: Value, want: Scalar) -> Result<Value> {
        let have = self.b.scalar_type_of(v)?;
        if have == want {
            return Ok(v);
        }
        let t = self.b.scalar(want);
        let op = match (have.is_float(), want.is_float()) {
            (true, true) => {
                if have.bits() > want.bits() {
                    CastOp::FPTrunc
                } else {
                    CastOp::FPExt
                }
            }
            (false, false) => {
                if have.bits() > want.bits() {
                    CastOp::Trunc
                } else {
                    CastOp::ZExt
                }
            }
            (true, false) => CastOp::FPToSI,
            (false, true) => CastOp::SIToFP,
        };
        self.b.cast(op, v, t)
    }

    /// Texel offsets (undef when absent). Offsets that are not constants need shader model
    /// 6.7's programmable offsets, except in gathers (`Offsets::Gather`).
    fn offsets(&mut self, o: Option<u32>, n: usize, use_: Offsets) -> Result<Vec<Value>> {
        let undef = self.b.undef_scalar(Scalar::I32);
        let mut out = vec![undef; 3];
        if let Some(id) = o {
            let v = self.values(id)?;
            for (i, &x) in v.iter().take(n).enumerate() {
                let x = self.int_to_i32(x, true)?;
                if use_ == Offsets::Computed && self.b.as_const_int(x).is_none() {
                    self.features.need_sm(6, 7);
                }
                out[i] = x;
            }
        }
        Ok(out)
    }

    fn float_arg(&mut self, id: Option<u32>) -> Result<Value> {
        match id {
            Some(id) => {
                let v = self.scalar(id)?;
                self.convert_scalar(v, Scalar::F32)
            }
            None => Ok(self.b.undef_scalar(Scalar::F32)),
        }
    }

    fn mark_sampler(&mut self, sampler_res: u32, comparison: bool) -> Result<()> {
        let r = &mut self.resources[sampler_res as usize];
        match &mut r.kind {
            ResKind::Sampler { comparison: c } => {
                r.sampler_modes |= if comparison { 2 } else { 1 };
                if r.sampler_modes & 3 == 3 {
                    return Err(unsupported(
                        "a sampler used both for depth comparison and for plain sampling (D3D12 samplers are one or the other)",
                    ));
                }
                *c = comparison;
                Ok(())
            }
            _ => Err(malformed("sampling with something that is not a sampler")),
        }
    }

    /// The components of a `ResRet` result.
    fn unpack_ret(
        &mut self,
        r: Value,
        s: Scalar,
        result_ty: u32,
        status: bool,
    ) -> Result<Vec<Value>> {
        let kinds = self.leaf_kinds(result_ty)?;
        let t = self.b.scalar(s);
        let n = if status { kinds.len() - 1 } else { kinds.len() };
        let mut out = Vec::with_capacity(kinds.len());
        if status {
            // DXC's validator takes CheckAccessFullyMapped only on a status extracted straight
            // from a resource operation, while SPIR-V's residency code may pass through memory
            // (unoptimized SPIR-V stores the whole result struct) before
            // OpImageSparseTexelsResident reads it. The code is opaque to the shader, so the
            // check is made here and the code carries its answer: 1 resident, 0 not.
            let (i1, i32t) = (self.b.t.i1, self.b.t.i32);
            let status = self.b.extract_value(r, 4, i32t)?;
            self.features.tiled_resources = true;
            let mapped = self
                .b
                .dxop(OpCode::CheckAccessFullyMapped, Some(i32t), i1, &[status])?;
            out.push(self.b.cast(CastOp::ZExt, mapped, i32t)?);
        }
        let texel_kinds = if status { &kinds[1..] } else { &kinds[..] };
        if texel_kinds.iter().any(|k| k.bits() == 64) && s == Scalar::I32 {
            // A 64-bit texel: words 0 and 1.
            let lo = self.b.extract_value(r, 0, t)?;
            let hi = self.b.extract_value(r, 1, t)?;
            let k = texel_kinds[0];
            let v = self.join64(lo, hi, k)?;
            let z = self.b.zero(k);
            out.push(v);
            out.extend(std::iter::repeat_n(z, texel_kinds.len().saturating_sub(1)));
            return Ok(out);
        }
        for (i, &k) in texel_kinds.iter().enumerate().take(n.min(4)) {
            let v = self.b.extract_value(r, i as u32, t)?;
            out.push(self.convert_bits(v, s, k)?);
        }
        Ok(out)
    }

    /// Reinterprets a result lane as the SPIR-V result's scalar kind.
    fn convert_bits(&mut self, v: Value, have: Scalar, want: Scalar) -> Result<Value> {
        if have == want {
            return Ok(v);
        }
        let t = self.b.scalar(want);
        if have.bits() == want.bits() {
            return self.b.cast(CastOp::BitCast, v, t);
        }
        self.convert_scalar(v, want)
    }

    pub fn image_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        match op {
            Op::SampledImage => {
                let id = inst.word(1)?;
                let (res, handle) = self.handle_of(inst.word(2)?)?;
                let (sampler_res, sampler) = match self.slot_of(inst.word(3)?)? {
                    Slot::Handle { res, handle } => (res, handle),
                    _ => {
                        return Err(malformed(
                            "OpSampledImage of something that is not a sampler",
                        ));
                    }
                };
                self.set(
                    id,
                    Slot::Sampled {
                        res,
                        handle,
                        sampler_res,
                        sampler,
                    },
                )
            }
            Op::Image => {
                let id = inst.word(1)?;
                let (res, handle) = self.handle_of(inst.word(2)?)?;
                self.set(id, Slot::Handle { res, handle })
            }
            Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageSparseSampleImplicitLod
            | Op::ImageSparseSampleExplicitLod
            | Op::ImageSparseSampleDrefImplicitLod
            | Op::ImageSparseSampleDrefExplicitLod => self.sample(inst, op),
            Op::ImageFetch | Op::ImageRead | Op::ImageSparseFetch | Op::ImageSparseRead => {
                self.image_load(inst, op)
            }
            Op::ImageWrite => self.image_write(inst),
            Op::FragmentMaskFetchAMD | Op::FragmentFetchAMD => Err(inexpressible(
                "AMD fragment-mask fetches (D3D12 exposes no MSAA compression masks)",
            )),
            Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageSparseGather
            | Op::ImageSparseDrefGather => self.gather(inst, op),
            Op::ImageQuerySize
            | Op::ImageQuerySizeLod
            | Op::ImageQueryLevels
            | Op::ImageQuerySamples => self.image_query(inst, op),
            Op::ImageQueryLod => self.query_lod(inst),
            Op::ImageSparseTexelsResident => {
                let id = inst.word(1)?;
                // The code is CheckAccessFullyMapped's answer already (see `unpack_ret`).
                let code = self.scalar(inst.word(2)?)?;
                let z = self.b.i32c(0);
                let r = self.b.cmp(Predicate::ICMP_NE, code, z)?;
                self.set_scalar(id, r)
            }
            Op::ImageTexelPointer => self.texel_pointer(inst),
            _ => Err(unsupported(format!("Op{op:?}"))),
        }
    }

    /// Derivatives outside fragment shaders (compute, mesh and amplification shaders) need
    /// shader model 6.6 and a thread group whose
    /// quads DXC's validator can form: a 1D group of a multiple of 4 threads, or X and Y both
    /// even. Any other shape is refused here rather than written as DXIL dxv rejects.
    pub(super) fn compute_derivatives(&mut self) -> Result<()> {
        use spirv::ExecutionModel as M;
        match self.model {
            M::Fragment => return Ok(()),
            M::GLCompute => {}
            M::MeshEXT | M::TaskEXT | M::MeshNV | M::TaskNV => {
                self.features.mesh_derivatives = true
            }
            _ => {
                return Err(unsupported(
                    "derivatives and implicit-LOD sampling outside fragment, compute, mesh and \
                     task shaders",
                ));
            }
        }
        self.features.need_sm(6, 6);
        let [x, y, z] = self.workgroup_size()?;
        let quads = if y == 1 && z == 1 {
            x % 4 == 0
        } else {
            x % 2 == 0 && y % 2 == 0
        };
        if quads {
            Ok(())
        } else {
            Err(inexpressible(format!(
                "derivatives in a thread group of {x}x{y}x{z} (DXIL forms quads only in a 1D group \
                 of a multiple of 4 threads or with X and Y both even)"
            )))
        }
    }

    fn sample(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let (res, handle, sampler_res, sampler) = self.sampled_of(inst.word(2)?)?;
        let coord_id = inst.word(3)?;
        let dref = matches!(
            op,
            Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
                | Op::ImageSparseSampleDrefImplicitLod
                | Op::ImageSparseSampleDrefExplicitLod
        );
        let proj = matches!(
            op,
            Op::ImageSampleProjImplicitLod
                | Op::ImageSampleProjExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
        );
        let sparse = matches!(
            op,
            Op::ImageSparseSampleImplicitLod
                | Op::ImageSparseSampleExplicitLod
                | Op::ImageSparseSampleDrefImplicitLod
                | Op::ImageSparseSampleDrefExplicitLod
        );
        let implicit = matches!(
            op,
            Op::ImageSampleImplicitLod
                | Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleProjImplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSparseSampleImplicitLod
                | Op::ImageSparseSampleDrefImplicitLod
        );
        let (kind, comp, _) = self.typed_kind(res)?;
        if !matches!(comp, ComponentType::F32 | ComponentType::F16) {
            if dref {
                return Err(unsupported("depth-compare sampling of an integer image"));
            }
            // Integer textures are sampled from shader model 6.7 on.
            self.features.need_sm(6, 7);
        }
        let n = coord_count(kind);
        let dref_id = if dref { Some(inst.word(4)?) } else { None };
        let o = operands(inst, if dref { 5 } else { 4 })?;
        if o.const_offsets {
            return Err(unsupported("sampling with four offsets"));
        }
        let mut coords = self.coords(Some(coord_id), n, 4, Scalar::F32)?;
        let mut cmp = self.float_arg(dref_id)?;
        if proj {
            let all = self.values(coord_id)?;
            let q = *all.last().ok_or_else(|| malformed("empty coordinate"))?;
            let q = self.convert_scalar(q, Scalar::F32)?;
            for c in coords.iter_mut().take(spatial_count(kind)) {
                *c = self.b.binary(BinOp::FDiv, *c, q)?;
            }
            if dref {
                cmp = self.b.binary(BinOp::FDiv, cmp, q)?;
            }
        }
        let offs = self.offsets(o.offset, offset_count(kind), Offsets::Computed)?;
        let clamp = self.float_arg(o.min_lod)?;
        let s = self.comp_scalar(comp);
        let st = self.b.scalar(s);
        let ret = self.b.res_ret(s);
        self.mark_sampler(sampler_res, dref)?;
        let mut args = vec![handle, sampler];
        args.extend_from_slice(&coords);
        args.extend_from_slice(&offs);
        let code = if implicit {
            self.compute_derivatives()?;
            match (dref, o.bias) {
                (false, None) => {
                    args.push(clamp);
                    OpCode::Sample
                }
                (false, Some(b)) => {
                    let b = self.float_arg(Some(b))?;
                    args.push(b);
                    args.push(clamp);
                    OpCode::SampleBias
                }
                (true, None) => {
                    args.push(cmp);
                    args.push(clamp);
                    OpCode::SampleCmp
                }
                (true, Some(b)) => {
                    let b = self.float_arg(Some(b))?;
                    args.extend_from_slice(&[cmp, b, clamp]);
                    self.features.need_sm(6, 8);
                    OpCode::SampleCmpBias
                }
            }
        } else if let Some((dx, dy)) = o.grad {
            if dref {
                args.push(cmp);
                self.features.need_sm(6, 8);
            }
            let m = spatial_count(kind);
            let ddx = self.coords(Some(dx), m, 3, Scalar::F32)?;
            let ddy = self.coords(Some(dy), m, 3, Scalar::F32)?;
            args.extend_from_slice(&ddx);
            args.extend_from_slice(&ddy);
            args.push(clamp);
            if dref {
                OpCode::SampleCmpGrad
            } else {
                OpCode::SampleGrad
            }
        } else {
            let lod = self.float_arg(o.lod)?;
            if dref {
                args.push(cmp);
                if self.b.as_const_float_zero(lod) {
                    OpCode::SampleCmpLevelZero
                } else {
                    args.push(lod);
                    self.features.need_sm(6, 7);
                    OpCode::SampleCmpLevel
                }
            } else {
                args.push(lod);
                OpCode::SampleLevel
            }
        };
        let r = self.b.dxop(code, Some(st), ret, &args)?;
        let vals = if dref {
            let kinds = self.leaf_kinds(ty)?;
            let mut out = Vec::new();
            if sparse {
                let i32t = self.b.t.i32;
                out.push(self.b.extract_value(r, 4, i32t)?);
            }
            let v = self.b.extract_value(r, 0, st)?;
            out.push(self.convert_bits(v, s, *kinds.last().unwrap_or(&Scalar::F32))?);
            out
        } else {
            self.unpack_ret(r, s, ty, sparse)?
        };
        self.set_vals(id, &vals)
    }

    fn image_load(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let (res, handle) = self.handle_of(inst.word(2)?)?;
        let coord_id = inst.word(3)?;
        let o = operands(inst, 4)?;
        let sparse = matches!(op, Op::ImageSparseFetch | Op::ImageSparseRead);
        let (kind, comp, class) = self.typed_kind(res)?;
        if class == ResourceClass::UAV
            && matches!(self.resources[res as usize].kind, ResKind::Typed { count, .. } if count > 1)
        {
            self.features.typed_uav_multi_load = true;
        }
        let s = self.comp_scalar(comp);
        let st = self.b.scalar(s);
        let ret = self.b.res_ret(s);
        let r = if kind == ResourceKind::TypedBuffer {
            let c = self.coords(Some(coord_id), 1, 1, Scalar::I32)?;
            let undef = self.b.undef_scalar(Scalar::I32);
            self.b
                .dxop(OpCode::BufferLoad, Some(st), ret, &[handle, c[0], undef])?
        } else {
            let n = coord_count(kind);
            let mut c = self.coords(Some(coord_id), n, 3, Scalar::I32)?;
            if self.is_subpass_input(inst.word(2)?)? {
                // D3D12 has no input attachments: the attachment is a texture read at the
                // fragment's own pixel, moved by the coordinate (Vulkan's offset).
                let pixel = self.frag_pixel()?;
                for (c, p) in c.iter_mut().zip(pixel) {
                    *c = if self.b.as_const_int(*c) == Some(0) {
                        p
                    } else {
                        self.b.binary(BinOp::Add, p, *c)?
                    };
                }
            }
            let ms = matches!(
                kind,
                ResourceKind::Texture2DMS | ResourceKind::Texture2DMSArray
            );
            let mip = if ms {
                match o.sample {
                    Some(sid) => {
                        let v = self.scalar(sid)?;
                        self.int_to_i32(v, false)?
                    }
                    None => return Err(malformed("multisampled fetch without a sample index")),
                }
            } else if class == ResourceClass::UAV {
                self.b.undef_scalar(Scalar::I32)
            } else {
                match o.lod {
                    Some(l) => {
                        let v = self.scalar(l)?;
                        self.int_to_i32(v, false)?
                    }
                    None => self.b.i32c(0),
                }
            };
            let offs = if class == ResourceClass::UAV {
                let u = self.b.undef_scalar(Scalar::I32);
                vec![u; 3]
            } else {
                self.offsets(o.offset, offset_count(kind), Offsets::Computed)?
            };
            let mut args = vec![handle, mip];
            args.extend_from_slice(&c);
            args.extend_from_slice(&offs);
            self.b.dxop(OpCode::TextureLoad, Some(st), ret, &args)?
        };
        let vals = self.unpack_ret(r, s, ty, sparse)?;
        self.set_vals(id, &vals)
    }

    /// Whether an image operand is a subpass input (its type's dimension is SubpassData).
    fn is_subpass_input(&self, image: u32) -> Result<bool> {
        let ty = self.spv.def(image)?.ty;
        Ok(matches!(self.spv.ty(ty)?, Type::Image(img) if img.dim == spirv::Dim::DimSubpassData))
    }

    fn image_write(&mut self, inst: &Inst<'_>) -> Result<()> {
        let (res, handle) = self.handle_of(inst.word(0)?)?;
        let coord_id = inst.word(1)?;
        let texel = self.values(inst.word(2)?)?;
        let o = operands(inst, 3)?;
        let (kind, comp, _) = self.typed_kind(res)?;
        self.resources[res as usize].written = true;
        let s = self.comp_scalar(comp);
        let st = self.b.scalar(s);
        let mut vals = Vec::with_capacity(4);
        let first = *texel
            .first()
            .ok_or_else(|| malformed("OpImageWrite of an empty texel"))?;
        if self.b.scalar_type_of(first)?.bits() == 64 {
            // A 64-bit texel is written as its two words, twice (all four lanes defined).
            let (lo, hi) = self.split64(first)?;
            vals.extend_from_slice(&[lo, hi, lo, hi]);
        }
        for &v in texel.iter().take(4) {
            if !vals.is_empty() && vals.len() == 4 {
                break;
            }
            let have = self.b.scalar_type_of(v)?;
            vals.push(self.convert_bits(v, have, s)?);
        }
        // Typed stores write all four components.
        let fill = match vals.first() {
            Some(_) => self.b.zero(s),
            None => return Err(malformed("OpImageWrite of an empty texel")),
        };
        vals.resize(4, fill);
        let mask = self.b.i8c(0xf);
        let void = self.b.t.void;
        if kind == ResourceKind::TypedBuffer {
            let c = self.coords(Some(coord_id), 1, 1, Scalar::I32)?;
            let undef = self.b.undef_scalar(Scalar::I32);
            let mut args = vec![handle, c[0], undef];
            args.extend_from_slice(&vals);
            args.push(mask);
            self.b.dxop(OpCode::BufferStore, Some(st), void, &args)?;
        } else {
            let n = coord_count(kind);
            let mut c = self.coords(Some(coord_id), n, 3, Scalar::I32)?;
            if matches!(
                kind,
                ResourceKind::Texture2DMS | ResourceKind::Texture2DMSArray
            ) {
                let _ = o.sample;
                return Err(unsupported(
                    "writes to multisampled storage images (shader model 6.7)",
                ));
            }
            c.truncate(3);
            let mut args = vec![handle];
            args.extend_from_slice(&c);
            args.extend_from_slice(&vals);
            args.push(mask);
            self.b.dxop(OpCode::TextureStore, Some(st), void, &args)?;
        }
        Ok(())
    }

    fn gather(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let (res, handle, sampler_res, sampler) = self.sampled_of(inst.word(2)?)?;
        let coord_id = inst.word(3)?;
        let dref = matches!(op, Op::ImageDrefGather | Op::ImageSparseDrefGather);
        let sparse = matches!(op, Op::ImageSparseGather | Op::ImageSparseDrefGather);
        let third = inst.word(4)?;
        let o = operands(inst, 5)?;
        if o.const_offsets {
            return Err(unsupported("gathers with four offsets (ConstOffsets)"));
        }
        let (kind, comp, _) = self.typed_kind(res)?;
        let coords = self.coords(Some(coord_id), coord_count(kind), 4, Scalar::F32)?;
        let offs = self.offsets(o.offset, offset_count(kind).min(2), Offsets::Gather)?;
        let s = self.comp_scalar(comp);
        let st = self.b.scalar(s);
        let ret = self.b.res_ret(s);
        self.mark_sampler(sampler_res, dref)?;
        let mut args = vec![handle, sampler];
        args.extend_from_slice(&coords);
        args.extend_from_slice(&offs[..2]);
        let r = if dref {
            let zero = self.b.i32c(0);
            args.push(zero);
            let c = self.float_arg(Some(third))?;
            args.push(c);
            self.b
                .dxop(OpCode::TextureGatherCmp, Some(st), ret, &args)?
        } else {
            let ch = self.scalar(third)?;
            let ch = self.int_to_i32(ch, false)?;
            if self.b.as_const_int(ch).is_none() {
                return Err(unsupported("gather of a component that is not a constant"));
            }
            args.push(ch);
            self.b.dxop(OpCode::TextureGather, Some(st), ret, &args)?
        };
        let vals = self.unpack_ret(r, s, ty, sparse)?;
        self.set_vals(id, &vals)
    }

    fn image_query(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let (res, handle) = self.handle_of(inst.word(2)?)?;
        let (kind, _, class) = self.typed_kind(res)?;
        let buffer = kind == ResourceKind::TypedBuffer;
        let mip = match op {
            Op::ImageQuerySizeLod => {
                let v = self.scalar(inst.word(3)?)?;
                self.int_to_i32(v, false)?
            }
            _ if buffer => self.b.undef_scalar(Scalar::I32),
            Op::ImageQueryLevels | Op::ImageQuerySize
                if class == ResourceClass::SRV
                    && !matches!(
                        kind,
                        ResourceKind::Texture2DMS | ResourceKind::Texture2DMSArray
                    ) =>
            {
                self.b.i32c(0)
            }
            _ => self.b.undef_scalar(Scalar::I32),
        };
        let dims = self.b.dimensions_type();
        let d = self
            .b
            .dxop(OpCode::GetDimensions, None, dims, &[handle, mip])?;
        let i32t = self.b.t.i32;
        let kinds = self.leaf_kinds(ty)?;
        let mut out = Vec::with_capacity(kinds.len());
        match op {
            Op::ImageQueryLevels | Op::ImageQuerySamples => {
                out.push(self.b.extract_value(d, 3, i32t)?);
            }
            _ => {
                for i in 0..kinds.len() {
                    out.push(self.b.extract_value(d, i as u32, i32t)?);
                }
            }
        }
        if kind == ResourceKind::Texture2DArray
            && matches!(op, Op::ImageQuerySize)
            && self.is_cube_array(inst.word(2)?)?
            && let Some(layers) = out.get_mut(2)
        {
            // A storage cube array's size counts cubes; its 2D-array view counts faces.
            let six = self.b.i32c(6);
            *layers = self.b.binary(BinOp::UDiv, *layers, six)?;
        }
        for (v, k) in out.iter_mut().zip(kinds) {
            *v = self.convert_bits(*v, Scalar::I32, k)?;
        }
        self.set_vals(id, &out)
    }

    /// Whether an image value's SPIR-V type is an arrayed cube.
    fn is_cube_array(&self, image: u32) -> Result<bool> {
        let ty = self.spv.type_of(image)?;
        Ok(matches!(self.spv.ty(ty)?, Type::Image(img)
            if img.dim == spirv::Dim::DimCube && img.arrayed))
    }

    fn query_lod(&mut self, inst: &Inst<'_>) -> Result<()> {
        let id = inst.word(1)?;
        let (res, handle, sampler_res, sampler) = self.sampled_of(inst.word(2)?)?;
        let (kind, _, _) = self.typed_kind(res)?;
        let c = self.coords(Some(inst.word(3)?), spatial_count(kind), 3, Scalar::F32)?;
        // A LOD query works with either kind of sampler (with a comparison sampler from
        // shader model 6.8 on, see `lod_query_model`).
        match self.resources[sampler_res as usize].kind {
            ResKind::Sampler { .. } => self.resources[sampler_res as usize].sampler_modes |= 4,
            _ => return Err(malformed("LOD query with something that is not a sampler")),
        }
        self.compute_derivatives()?;
        let f32t = self.b.t.f32;
        let mut out = Vec::with_capacity(2);
        for clamped in [true, false] {
            let k = self.b.i1c(clamped);
            out.push(self.b.dxop(
                OpCode::CalculateLOD,
                Some(f32t),
                f32t,
                &[handle, sampler, c[0], c[1], c[2], k],
            )?);
        }
        self.set_vals(id, &out)
    }

    /// Shader model 6.8 for a LOD query through a comparison sampler (once every use of
    /// the samplers is known).
    pub(super) fn lod_query_model(&mut self) {
        let cmp_lod = self.resources.iter().any(|r| {
            r.sampler_modes & 4 != 0 && matches!(r.kind, ResKind::Sampler { comparison: true })
        });
        if cmp_lod {
            self.features.need_sm(6, 8);
        }
    }

    fn texel_pointer(&mut self, inst: &Inst<'_>) -> Result<()> {
        let id = inst.word(1)?;
        let p = self.ptr(inst.word(2)?)?;
        let Base::Resource { res, index } = p.base else {
            return Err(malformed(
                "OpImageTexelPointer of something that is not an image variable",
            ));
        };
        let handle = match index {
            None => self.resources[res as usize]
                .handle
                .ok_or_else(|| malformed("texel pointer into a whole image array"))?,
            Some(i) => self.create_handle(res, Some(i), p.vertex.is_some())?,
        };
        let (kind, _, _) = self.typed_kind(res)?;
        let n = coord_count(kind);
        let c = self.coords(Some(inst.word(3)?), n, n, Scalar::I32)?;
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(&c);
        let (_, pointee) = self.pointee(inst.word(0)?)?;
        self.set_ptr(
            id,
            Ptr::new(
                Base::Texel {
                    res,
                    handle,
                    coords: (start, n as u32),
                },
                pointee,
            ),
        )
    }
}

impl crate::builder::Builder {
    /// Whether a value is the float constant zero.
    pub fn as_const_float_zero(&self, v: Value) -> bool {
        match v.as_const().and_then(|c| self.m.constants.get(c)) {
            Some(c) => matches!(c.data, dxil_module::ConstData::Null),
            None => false,
        }
    }
}

#[allow(dead_code)]
fn _t(_: TypeId) {}

/// What texel offsets are for (which of them may be computed).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Offsets {
    Computed,
    Gather,
}
