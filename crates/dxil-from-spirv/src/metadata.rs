//! The `dx.*` metadata of the translated module and its shader flags.

use dxil_module::{InstKind, MdData, MdId, Module, TypeData, TypeId, Value, ValueRef};
use dxil_shader::ops::{OpCode, OpFlags};
use dxil_shader::{ResourceClass, ResourceKind, ShaderFlags};

use crate::builder::Builder;
use crate::lower::{Features, ResKind, Resource};

/// `(major, minor)` of the validator rules the container follows.
pub const VALIDATOR_VERSION: (u32, u32) = (1, 8);

/// Helpers for metadata nodes over the builder's module.
pub struct Md<'b> {
    pub b: &'b mut Builder,
}

impl Md<'_> {
    pub fn value(&mut self, ty: TypeId, v: Value) -> MdId {
        self.b.m.metadata.push(MdData::Value { ty, value: v })
    }

    pub fn i32(&mut self, v: i64) -> MdId {
        let c = self.b.i32c(v);
        let t = self.b.t.i32;
        self.value(t, c)
    }

    pub fn i64(&mut self, v: i64) -> MdId {
        let c = self.b.const_int(crate::builder::Scalar::I64, v);
        let t = self.b.t.i64;
        self.value(t, c)
    }

    pub fn i8(&mut self, v: i64) -> MdId {
        let c = self.b.i8c(v);
        let t = self.b.t.i8;
        self.value(t, c)
    }

    pub fn i1(&mut self, v: bool) -> MdId {
        let c = self.b.i1c(v);
        let t = self.b.t.i1;
        self.value(t, c)
    }

    pub fn string(&mut self, s: &str) -> MdId {
        self.b.m.metadata.push_string(s.as_bytes())
    }

    pub fn node(&mut self, ops: &[Option<MdId>]) -> MdId {
        self.b.m.metadata.push_node(false, ops)
    }

    pub fn named(&mut self, name: &str, ops: Vec<MdId>) {
        self.b.m.metadata.push_named(name.to_owned(), &ops);
    }
}

/// The resource symbol type DXC would declare for a resource (the validator reads the
/// element type of typed resources from it).
fn resource_symbol_type(b: &mut Builder, r: &Resource) -> TypeId {
    let i32t = b.t.i32;
    match (r.class, r.kind) {
        (ResourceClass::SRV, ResKind::Raw) => b.named_struct("struct.ByteAddressBuffer", &[i32t]),
        (_, ResKind::Raw) => b.named_struct("struct.RWByteAddressBuffer", &[i32t]),
        (_, ResKind::CBuffer { size } | ResKind::PushConstants { size }) => {
            let words = u64::from(size.div_ceil(4).max(1));
            let arr = b.array_of(i32t, words);
            b.named_struct_owned(format!("dx.cbuffer.{words}"), &[arr])
        }
        (_, ResKind::AccelStruct) => {
            b.named_struct("struct.RaytracingAccelerationStructure", &[i32t])
        }
        (_, ResKind::Sampler { comparison }) => {
            if comparison {
                b.named_struct("struct.SamplerComparisonState", &[i32t])
            } else {
                b.named_struct("struct.SamplerState", &[i32t])
            }
        }
        (
            class,
            ResKind::Typed {
                kind, comp, count, ..
            },
        ) => {
            let (et, ename) = match comp {
                dxil_shader::ComponentType::F32 => (b.t.f32, "float"),
                dxil_shader::ComponentType::F16 => (b.t.f16, "half"),
                dxil_shader::ComponentType::I32 => (b.t.i32, "int"),
                dxil_shader::ComponentType::U64 | dxil_shader::ComponentType::I64 => {
                    (b.t.i64, "unsigned long long")
                }
                _ => (b.t.i32, "unsigned int"),
            };
            let base = dxil_shader::hlsl_type_name(class, kind, r.rov, false);
            let (elem, name) = if count == 1 {
                (et, format!("class.{base}<{ename}>"))
            } else {
                let v = b.vector_of(et, u32::from(count));
                (v, format!("class.{base}<vector<{ename}, {count}> >"))
            };
            b.named_struct_owned(name, &[elem])
        }
    }
}

/// The component type a resource record states: 64-bit texels are described as 32-bit
/// words (DXC does the same; the symbol type still says 64-bit).
pub fn metadata_comp(c: dxil_shader::ComponentType) -> dxil_shader::ComponentType {
    use dxil_shader::ComponentType as C;
    match c {
        C::U64 | C::I64 => C::U32,
        c => c,
    }
}

/// `!dx.resources`: the four lists, or `None` when there are no resources.
pub fn resources(md: &mut Md<'_>, res: &[Resource]) -> Option<MdId> {
    if res.is_empty() {
        return None;
    }
    let mut lists: [Vec<Option<MdId>>; 4] = Default::default();
    let mut order: Vec<&Resource> = res.iter().collect();
    order.sort_by_key(|r| r.range_id);
    for r in order {
        let mut ty = resource_symbol_type(md.b, r);
        // The validator allows a dynamic index only into a range whose symbol is an array.
        if r.count != 1 {
            let n = if r.count == u32::MAX {
                0
            } else {
                u64::from(r.count)
            };
            ty = md.b.array_of(ty, n);
        }
        let pty = md.b.pointer_to(ty, 0);
        let undef = md.b.undef(pty);
        let mut ops = vec![
            Some(md.i32(i64::from(r.range_id))),
            Some(md.value(pty, undef)),
            Some(md.string("")),
            Some(md.i32(i64::from(r.space))),
            Some(md.i32(i64::from(r.lower))),
            Some(md.i32(i64::from(r.count as i32))),
        ];
        let typed_tags = |md: &mut Md<'_>, r: &Resource| match r.kind {
            ResKind::Typed { comp, .. } => {
                let t = md.i32(0);
                let c = md.i32(i64::from(metadata_comp(comp).raw()));
                let mut ops = vec![Some(t), Some(c)];
                if r.atomic64 {
                    ops.push(Some(md.i32(3)));
                    ops.push(Some(md.i32(1)));
                }
                Some(md.node(&ops))
            }
            // DXC states the element type of an acceleration structure as `i32`.
            ResKind::AccelStruct => {
                let t = md.i32(0);
                let c = md.i32(i64::from(dxil_shader::ComponentType::I32.raw()));
                Some(md.node(&[Some(t), Some(c)]))
            }
            _ if r.atomic64 => {
                let t = md.i32(3);
                let one = md.i32(1);
                Some(md.node(&[Some(t), Some(one)]))
            }
            _ => None,
        };
        let list = match r.class {
            ResourceClass::SRV => {
                let (shape, samples) = match r.kind {
                    ResKind::Raw => (ResourceKind::RawBuffer, 0),
                    ResKind::Typed {
                        kind, sample_count, ..
                    } => (kind, sample_count),
                    ResKind::AccelStruct => (ResourceKind::RTAccelerationStructure, 0),
                    _ => (ResourceKind::RawBuffer, 0),
                };
                ops.push(Some(md.i32(i64::from(shape.raw()))));
                ops.push(Some(md.i32(i64::from(samples))));
                ops.push(typed_tags(md, r));
                0
            }
            ResourceClass::UAV => {
                let shape = match r.kind {
                    ResKind::Typed { kind, .. } => kind,
                    _ => ResourceKind::RawBuffer,
                };
                ops.push(Some(md.i32(i64::from(shape.raw()))));
                ops.push(Some(md.i1(r.globally_coherent)));
                ops.push(Some(md.i1(false)));
                ops.push(Some(md.i1(r.rov)));
                ops.push(typed_tags(md, r));
                1
            }
            ResourceClass::CBuffer => {
                let size = match r.kind {
                    ResKind::CBuffer { size } | ResKind::PushConstants { size } => size,
                    _ => 0,
                };
                ops.push(Some(md.i32(i64::from(size.div_ceil(16) * 16))));
                ops.push(None);
                2
            }
            _ => {
                let cmp = matches!(r.kind, ResKind::Sampler { comparison: true });
                ops.push(Some(md.i32(i64::from(cmp))));
                ops.push(None);
                3
            }
        };
        let n = md.node(&ops);
        lists[list].push(Some(n));
    }
    let mut outer = Vec::with_capacity(4);
    for l in &lists {
        outer.push(if l.is_empty() { None } else { Some(md.node(l)) });
    }
    Some(md.node(&outer))
}

/// The shader flags the validator computes from the module (`CollectShaderFlags`).
pub fn shader_flags(
    m: &Module,
    b: &Builder,
    res: &[Resource],
    features: &Features,
    stage: dxil_shader::ShaderKind,
) -> ShaderFlags {
    use dxil_shader::ShaderKind as K;
    let mut f = 0u64;
    let set = |f: &mut u64, flag: ShaderFlags| *f |= flag.0;
    let mut has_double = false;
    let mut has_i64 = false;
    let mut has_16 = false;
    let mut double_ext = false;
    let mut wave = false;
    let t = b.t;
    let is16 = |ty: TypeId| ty == t.f16 || ty == t.i16;
    let mut advanced_texture_ops = false;
    let mut cmp_grad_bias = false;
    let mut extended_command_info = false;
    let mut lod_clamp = false;
    let mut raytracing_1_1 = false;
    for body in m.functions.iter().filter_map(|f| f.body.as_ref()) {
        // The validator sets SampleCmpGradientOrBias from the last sampling operation of a
        // function only (it assigns instead of accumulating): do as it does.
        let mut last_sample_cmp_grad_bias = false;
        for inst in &body.insts {
            let mut check = |ty: TypeId| {
                let ty = match m.types.data(ty) {
                    TypeData::Vector { elem, .. } => *elem,
                    _ => ty,
                };
                has_double |= ty == t.f64;
                has_i64 |= ty == t.i64;
                has_16 |= is16(ty);
            };
            check(inst.ty);
            inst.kind.for_each_value(&body.pool, |v| {
                if let Some(ty) = value_type(m, body, v) {
                    check(ty);
                }
            });
            match &inst.kind {
                InstKind::Binary { op, lhs, .. }
                    if value_type(m, body, *lhs) == Some(t.f64)
                        && *op == dxil_module::BinOp::FDiv =>
                {
                    double_ext = true;
                }
                InstKind::Cast { op, value } => {
                    use dxil_module::CastOp as C;
                    let from = value_type(m, body, *value);
                    if matches!(op, C::FPToUI | C::FPToSI) && from == Some(t.f64)
                        || matches!(op, C::UIToFP | C::SIToFP) && inst.ty == t.f64
                    {
                        double_ext = true;
                    }
                }
                InstKind::Call { args, .. } => {
                    let code = body
                        .values(*args)
                        .next()
                        .and_then(|v| m.const_int(v))
                        .and_then(|c| OpCode::from_u32(c as u32));
                    if let Some(code) = code {
                        let info = code.info();
                        if info.flags.contains(OpFlags::WAVE)
                            && code != OpCode::QuadOp
                            && code != OpCode::QuadReadLaneAt
                        {
                            wave = true;
                        }
                        if matches!(code, OpCode::QuadOp | OpCode::QuadReadLaneAt) {
                            wave = true;
                        }
                        if code == OpCode::Fma {
                            double_ext = true;
                        }
                        let args = *args;
                        let computed = |range: std::ops::Range<usize>| {
                            body.values(args)
                                .skip(range.start)
                                .take(range.len())
                                .any(|v| !matches!(v.get(), ValueRef::Const(_)))
                        };
                        match code {
                            OpCode::Sample
                            | OpCode::SampleBias
                            | OpCode::SampleCmp
                            | OpCode::SampleCmpBias
                            | OpCode::SampleGrad
                            | OpCode::SampleCmpGrad => {
                                advanced_texture_ops |= computed(7..10);
                                lod_clamp |= body.values(args).last().is_some_and(|v| clamps(m, v));
                                last_sample_cmp_grad_bias =
                                    matches!(code, OpCode::SampleCmpBias | OpCode::SampleCmpGrad);
                            }
                            OpCode::SampleLevel | OpCode::SampleCmpLevelZero => {
                                advanced_texture_ops |= computed(7..10);
                            }
                            OpCode::TextureLoad => advanced_texture_ops |= computed(6..9),
                            OpCode::SampleCmpLevel
                            | OpCode::TextureGatherRaw
                            | OpCode::TextureStoreSample => advanced_texture_ops = true,
                            OpCode::StartVertexLocation | OpCode::StartInstanceLocation => {
                                extended_command_info = true;
                            }
                            OpCode::AllocateRayQuery => raytracing_1_1 = true,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        cmp_grad_bias |= last_sample_cmp_grad_bias;
    }
    if has_double || features.doubles {
        set(&mut f, ShaderFlags::ENABLE_DOUBLE_PRECISION);
    }
    if double_ext {
        set(&mut f, ShaderFlags::ENABLE_DOUBLE_EXTENSIONS);
    }
    if has_i64 {
        set(&mut f, ShaderFlags::INT64_OPS);
    }
    if has_16 || features.native16 {
        set(&mut f, ShaderFlags::LOW_PRECISION_PRESENT);
        set(&mut f, ShaderFlags::USE_NATIVE_LOW_PRECISION);
    }
    if wave {
        set(&mut f, ShaderFlags::WAVE_OPS);
    }
    if res.iter().any(|r| matches!(r.kind, ResKind::Raw)) {
        set(&mut f, ShaderFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS);
    }
    let uav_slots: u64 = res
        .iter()
        .filter(|r| r.class == ResourceClass::UAV)
        .map(|r| {
            if r.count == u32::MAX {
                9
            } else {
                u64::from(r.count)
            }
        })
        .sum();
    if uav_slots > 8 {
        set(&mut f, ShaderFlags::UAVS_64);
    }
    // Mesh and amplification shaders count as compute-like stages here (as the validator
    // computes the flag).
    if uav_slots > 0 && !matches!(stage, K::Compute | K::Pixel | K::Mesh | K::Amplification) {
        set(&mut f, ShaderFlags::UAVS_AT_EVERY_STAGE);
    }
    if features.typed_uav_multi_load {
        set(&mut f, ShaderFlags::UAV_LOAD_ADDITIONAL_FORMATS);
    }
    if features.atomic64_typed {
        set(&mut f, ShaderFlags::ATOMIC_INT64_ON_TYPED_RESOURCE);
    }
    if features.atomic64_groupshared {
        set(&mut f, ShaderFlags::ATOMIC_INT64_ON_GROUP_SHARED);
    }
    if features.shading_rate {
        set(&mut f, ShaderFlags::SHADING_RATE);
    }
    if features.stencil_ref {
        set(&mut f, ShaderFlags::STENCIL_REF);
    }
    if features.view_id {
        set(&mut f, ShaderFlags::VIEW_ID);
    }
    if features.barycentrics {
        set(&mut f, ShaderFlags::BARYCENTRICS);
    }
    if features.viewport_rt_index {
        set(&mut f, ShaderFlags::VIEWPORT_AND_RT_ARRAY_INDEX);
    }
    if features.inner_coverage {
        set(&mut f, ShaderFlags::INNER_COVERAGE);
    }
    if features.tiled_resources || lod_clamp {
        set(&mut f, ShaderFlags::TILED_RESOURCES);
    }
    if advanced_texture_ops {
        set(&mut f, ShaderFlags::ADVANCED_TEXTURE_OPS);
    }
    if cmp_grad_bias {
        set(&mut f, ShaderFlags::SAMPLE_CMP_GRADIENT_OR_BIAS);
    }
    if extended_command_info {
        set(&mut f, ShaderFlags::EXTENDED_COMMAND_INFO);
    }
    if raytracing_1_1 {
        set(&mut f, ShaderFlags::RAYTRACING_TIER_1_1);
    }
    if res.iter().any(|r| r.rov) {
        set(&mut f, ShaderFlags::ROVS);
    }
    ShaderFlags(f)
}

/// Whether a sampling operation's LOD clamp operand clamps (is neither undef nor ±0.0): the
/// validator then wants the tiled-resources flag.
fn clamps(m: &Module, v: Value) -> bool {
    let Some(c) = v.as_const().and_then(|c| m.constants.get(c)) else {
        return true;
    };
    match c.data {
        dxil_module::ConstData::Null | dxil_module::ConstData::Undef => false,
        // ±0.0 as a half, float or double.
        dxil_module::ConstData::Float(bits) => {
            !matches!(bits, 0 | 0x8000 | 0x8000_0000 | 0x8000_0000_0000_0000)
        }
        _ => true,
    }
}

fn value_type(m: &Module, body: &dxil_module::Body, v: Value) -> Option<TypeId> {
    match v.get() {
        ValueRef::Const(c) => m.constants.get(c).map(|c| c.ty),
        ValueRef::Inst(i) => body.inst(i).map(|d| d.ty),
        _ => None,
    }
}
