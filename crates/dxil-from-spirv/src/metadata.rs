//! The `dx.*` metadata of the translated module and its shader flags.

use dxil_module::{InstKind, MdData, MdId, Module, PoolRange, TypeData, TypeId, Value, ValueRef};
use dxil_shader::ops::{OpCode, OpFlags};
use dxil_shader::{ResourceClass, ResourceKind, ShaderFlags};

use crate::builder::{Builder, Common};
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
        if r.arrayed {
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

/// What the validator's flag collection (`CollectShaderFlags`) finds in the instructions.
#[derive(Default)]
struct Scan {
    has_double: bool,
    has_i64: bool,
    has_16: bool,
    double_ext: bool,
    wave: bool,
    advanced_texture_ops: bool,
    cmp_grad_bias: bool,
    extended_command_info: bool,
    lod_clamp: bool,
    raytracing_1_1: bool,
}

impl Scan {
    /// Notes a value type (vectors count as their element).
    fn check(&mut self, m: &Module, t: &Common, ty: TypeId) {
        let ty = match m.types.data(ty) {
            TypeData::Vector { elem, .. } => *elem,
            _ => ty,
        };
        self.has_double |= ty == t.f64;
        self.has_i64 |= ty == t.i64;
        self.has_16 |= ty == t.f16 || ty == t.i16;
    }

    /// `consts_count`: whether some constant of the module has a type that sets a flag (else
    /// the operands need no visit).
    fn body(&mut self, m: &Module, t: &Common, body: &dxil_module::Body, consts_count: bool) {
        // The validator sets SampleCmpGradientOrBias from the last sampling operation of a
        // function only (it assigns instead of accumulating): do as it does.
        let mut last_sample_cmp_grad_bias = false;
        for inst in &body.insts {
            self.check(m, t, inst.ty);
            // Every instruction's own type is checked above, so of the operands only the
            // constants can add a type (arguments and globals never counted).
            if consts_count {
                inst.kind.for_each_value(&body.pool, |v| {
                    if let Some(c) = v.as_const().and_then(|c| m.constants.get(c)) {
                        self.check(m, t, c.ty);
                    }
                });
            }
            match &inst.kind {
                InstKind::Binary { op, lhs, .. }
                    if *op == dxil_module::BinOp::FDiv
                        && value_type(m, body, *lhs) == Some(t.f64) =>
                {
                    self.double_ext = true;
                }
                InstKind::Cast { op, value } => {
                    use dxil_module::CastOp as C;
                    if matches!(op, C::FPToUI | C::FPToSI)
                        && value_type(m, body, *value) == Some(t.f64)
                        || matches!(op, C::UIToFP | C::SIToFP) && inst.ty == t.f64
                    {
                        self.double_ext = true;
                    }
                }
                InstKind::Call { args, .. } => {
                    if let Some(cmp_grad_bias) = self.call(m, body, *args) {
                        last_sample_cmp_grad_bias = cmp_grad_bias;
                    }
                }
                _ => {}
            }
        }
        self.cmp_grad_bias |= last_sample_cmp_grad_bias;
    }

    /// A call's flags; for a sampling operation also whether it samples with a comparison
    /// and a gradient or bias.
    fn call(&mut self, m: &Module, body: &dxil_module::Body, args: PoolRange) -> Option<bool> {
        let code = body
            .values(args)
            .next()
            .and_then(|v| m.const_int(v))
            .and_then(|c| OpCode::from_u32(c as u32))?;
        if code.info().flags.contains(OpFlags::WAVE)
            || matches!(code, OpCode::QuadOp | OpCode::QuadReadLaneAt)
        {
            self.wave = true;
        }
        if code == OpCode::Fma {
            self.double_ext = true;
        }
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
                self.advanced_texture_ops |= computed(7..10);
                self.lod_clamp |= body.values(args).last().is_some_and(|v| clamps(m, v));
                return Some(matches!(
                    code,
                    OpCode::SampleCmpBias | OpCode::SampleCmpGrad
                ));
            }
            OpCode::SampleLevel | OpCode::SampleCmpLevelZero => {
                self.advanced_texture_ops |= computed(7..10);
            }
            OpCode::TextureLoad => self.advanced_texture_ops |= computed(6..9),
            OpCode::SampleCmpLevel | OpCode::TextureGatherRaw | OpCode::TextureStoreSample => {
                self.advanced_texture_ops = true;
            }
            OpCode::StartVertexLocation | OpCode::StartInstanceLocation => {
                self.extended_command_info = true;
            }
            OpCode::AllocateRayQuery => self.raytracing_1_1 = true,
            _ => {}
        }
        None
    }
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
    let mut scan = Scan::default();
    let consts_count = m.constants.iter().any(|(_, c)| {
        let mut probe = Scan::default();
        probe.check(m, &b.t, c.ty);
        probe.has_double || probe.has_i64 || probe.has_16
    });
    for body in m.functions.iter().filter_map(|f| f.body.as_ref()) {
        scan.body(m, &b.t, body, consts_count);
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
    let native16 = scan.has_16 || features.native16;
    // Mesh and amplification shaders count as compute-like stages here (as the validator
    // computes the flag).
    let compute_like = matches!(stage, K::Compute | K::Pixel | K::Mesh | K::Amplification);
    let rules = [
        (
            scan.has_double || features.doubles,
            ShaderFlags::ENABLE_DOUBLE_PRECISION,
        ),
        (scan.double_ext, ShaderFlags::ENABLE_DOUBLE_EXTENSIONS),
        (scan.has_i64, ShaderFlags::INT64_OPS),
        (native16, ShaderFlags::LOW_PRECISION_PRESENT),
        (native16, ShaderFlags::USE_NATIVE_LOW_PRECISION),
        (scan.wave, ShaderFlags::WAVE_OPS),
        (
            res.iter().any(|r| matches!(r.kind, ResKind::Raw)),
            ShaderFlags::ENABLE_RAW_AND_STRUCTURED_BUFFERS,
        ),
        (uav_slots > 8, ShaderFlags::UAVS_64),
        (
            uav_slots > 0 && !compute_like,
            ShaderFlags::UAVS_AT_EVERY_STAGE,
        ),
        (
            features.typed_uav_multi_load,
            ShaderFlags::UAV_LOAD_ADDITIONAL_FORMATS,
        ),
        (
            features.atomic64_typed,
            ShaderFlags::ATOMIC_INT64_ON_TYPED_RESOURCE,
        ),
        (
            features.atomic64_groupshared,
            ShaderFlags::ATOMIC_INT64_ON_GROUP_SHARED,
        ),
        (features.shading_rate, ShaderFlags::SHADING_RATE),
        (features.stencil_ref, ShaderFlags::STENCIL_REF),
        (features.view_id, ShaderFlags::VIEW_ID),
        (features.barycentrics, ShaderFlags::BARYCENTRICS),
        (
            features.viewport_rt_index,
            ShaderFlags::VIEWPORT_AND_RT_ARRAY_INDEX,
        ),
        (features.inner_coverage, ShaderFlags::INNER_COVERAGE),
        (
            features.mesh_derivatives,
            ShaderFlags::DERIVATIVES_IN_MESH_AND_AMP_SHADERS,
        ),
        (
            features.tiled_resources || scan.lod_clamp,
            ShaderFlags::TILED_RESOURCES,
        ),
        (scan.advanced_texture_ops, ShaderFlags::ADVANCED_TEXTURE_OPS),
        (scan.cmp_grad_bias, ShaderFlags::SAMPLE_CMP_GRADIENT_OR_BIAS),
        (
            scan.extended_command_info,
            ShaderFlags::EXTENDED_COMMAND_INFO,
        ),
        (scan.raytracing_1_1, ShaderFlags::RAYTRACING_TIER_1_1),
        (res.iter().any(|r| r.rov), ShaderFlags::ROVS),
    ];
    ShaderFlags(
        rules
            .iter()
            .filter(|(on, _)| *on)
            .fold(0, |f, (_, flag)| f | flag.0),
    )
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
