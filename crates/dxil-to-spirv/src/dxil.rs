//! The parts of DXIL's metadata the translator needs — shader model, entry point, thread-group size, wave size,
//! shader flags, the resource tables (`dx.resources`), the entry function's denormal mode — in the shape the
//! lowering uses. The metadata is decoded by dxil-shader's typed view ([`dxil_shader::DxilModule`]); this module
//! only maps it, and adds the decoding of `annotateHandle` properties and `createHandleFromBinding` bindings.

use dxil_module::{ConstData, FuncId, Module, Value};

use crate::error::{Error, MetadataError};

/// Pipeline stage from `dx.shaderModel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Pixel,
    Vertex,
    Geometry,
    Hull,
    Domain,
    Compute,
    Library,
    Mesh,
    Amplification,
    /// Ray-tracing stages: entry points of a library (`lib_6_x`), by their shader kind.
    RayGeneration,
    Intersection,
    AnyHit,
    ClosestHit,
    Miss,
    Callable,
    /// A work-graph node shader (a library entry point).
    Node,
}

impl Stage {
    pub fn from_name(s: &[u8]) -> Option<Stage> {
        Some(match s {
            b"ps" => Stage::Pixel,
            b"vs" => Stage::Vertex,
            b"gs" => Stage::Geometry,
            b"hs" => Stage::Hull,
            b"ds" => Stage::Domain,
            b"cs" => Stage::Compute,
            b"lib" => Stage::Library,
            b"ms" => Stage::Mesh,
            b"as" => Stage::Amplification,
            _ => return None,
        })
    }

    /// The stage's bit in DXIL's operation table; `None` for a library as a whole (each export has its own stage).
    pub fn op_stages(self) -> Option<dxil_shader::ops::ShaderStages> {
        use dxil_shader::ops::ShaderStages as S;
        Some(match self {
            Stage::Pixel => S::PIXEL,
            Stage::Vertex => S::VERTEX,
            Stage::Geometry => S::GEOMETRY,
            Stage::Hull => S::HULL,
            Stage::Domain => S::DOMAIN,
            Stage::Compute => S::COMPUTE,
            Stage::Library => return None,
            Stage::Mesh => S::MESH,
            Stage::Amplification => S::AMPLIFICATION,
            Stage::RayGeneration => S::RAY_GENERATION,
            Stage::Intersection => S::INTERSECTION,
            Stage::AnyHit => S::ANY_HIT,
            Stage::ClosestHit => S::CLOSEST_HIT,
            Stage::Miss => S::MISS,
            Stage::Callable => S::CALLABLE,
            Stage::Node => S::NODE,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Stage::Pixel => "pixel",
            Stage::Vertex => "vertex",
            Stage::Geometry => "geometry",
            Stage::Hull => "hull",
            Stage::Domain => "domain",
            Stage::Compute => "compute",
            Stage::Library => "library",
            Stage::Mesh => "mesh",
            Stage::Amplification => "amplification",
            Stage::RayGeneration => "ray generation",
            Stage::Intersection => "intersection",
            Stage::AnyHit => "any hit",
            Stage::ClosestHit => "closest hit",
            Stage::Miss => "miss",
            Stage::Callable => "callable",
            Stage::Node => "node",
        }
    }

    /// The stage of a shader kind (a library entry point's shader-kind property); `None` for `Invalid` and
    /// unknown kinds.
    pub fn from_kind(kind: dxil_shader::ShaderKind) -> Option<Stage> {
        use dxil_shader::ShaderKind as K;
        Some(match kind {
            K::Pixel => Stage::Pixel,
            K::Vertex => Stage::Vertex,
            K::Geometry => Stage::Geometry,
            K::Hull => Stage::Hull,
            K::Domain => Stage::Domain,
            K::Compute => Stage::Compute,
            K::Library => Stage::Library,
            K::Mesh => Stage::Mesh,
            K::Amplification => Stage::Amplification,
            K::RayGeneration => Stage::RayGeneration,
            K::Intersection => Stage::Intersection,
            K::AnyHit => Stage::AnyHit,
            K::ClosestHit => Stage::ClosestHit,
            K::Miss => Stage::Miss,
            K::Callable => Stage::Callable,
            K::Node => Stage::Node,
            _ => return None,
        })
    }

    /// A ray-tracing stage (raygeneration, intersection, anyhit, closesthit, miss, callable).
    pub fn is_ray_tracing(self) -> bool {
        matches!(
            self,
            Stage::RayGeneration
                | Stage::Intersection
                | Stage::AnyHit
                | Stage::ClosestHit
                | Stage::Miss
                | Stage::Callable
        )
    }
}

/// The export name of a library function: DXC names functions with MSVC's mangling (`\x01?RayGen@@YAXXZ`), whose
/// identifier sits between the first `?` and the next `@`; other names are their own export name.
pub fn export_name(name: &str) -> &str {
    let Some(start) = name.find('?') else {
        return name;
    };
    let rest = &name[start + 1..];
    match rest.find('@') {
        Some(end) => &rest[..end],
        None => name,
    }
}

/// Resource class, numbered as DXIL numbers it (`createHandle`'s class operand, `dx.resources` list index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceClass {
    Srv = 0,
    Uav = 1,
    Cbv = 2,
    Sampler = 3,
}

impl ResourceClass {
    pub fn from_u32(v: u32) -> Option<ResourceClass> {
        Some(match v {
            0 => ResourceClass::Srv,
            1 => ResourceClass::Uav,
            2 => ResourceClass::Cbv,
            3 => ResourceClass::Sampler,
            _ => return None,
        })
    }

    /// The HLSL register letter.
    pub fn letter(self) -> char {
        match self {
            ResourceClass::Srv => 't',
            ResourceClass::Uav => 'u',
            ResourceClass::Cbv => 'b',
            ResourceClass::Sampler => 's',
        }
    }
}

/// DXIL `ResourceKind` and `ComponentType`: dxil-shader's (open) enums. A [`ResourceDecl`] holds only the kinds
/// and component types DXIL names, never `Invalid` or an unknown value.
pub use dxil_shader::{ComponentType, ResourceKind};

/// A resource kind DXIL names (`None` for `Invalid` and unknown values).
fn known_kind(raw: u32) -> Option<ResourceKind> {
    match ResourceKind::from_raw(raw) {
        ResourceKind::Invalid | ResourceKind::Other(_) => None,
        k => Some(k),
    }
}

/// A component type DXIL names (`None` for `Invalid` and unknown values).
fn known_component(c: ComponentType) -> Option<ComponentType> {
    match c {
        ComponentType::Invalid | ComponentType::Other(_) => None,
        c => Some(c),
    }
}

/// The scalar class of the Vulkan image sampled type of a typed resource's components: float, signed or unsigned
/// integer.
pub fn sampled_class(c: ComponentType) -> SampledClass {
    use ComponentType::*;
    match c {
        I1 | I16 | I32 | I64 | PackedS8x32 => SampledClass::Sint,
        U16 | U32 | U64 | PackedU8x32 => SampledClass::Uint,
        _ => SampledClass::Float,
    }
}

/// 64-bit integer components (SM 6.6 64-bit atomics on R64 views).
pub fn is_64bit_int(c: ComponentType) -> bool {
    matches!(c, ComponentType::I64 | ComponentType::U64)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampledClass {
    Float,
    Sint,
    Uint,
}

/// One `dx.resources` record (or the description of a heap resource from `annotateHandle`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceDecl {
    pub class: ResourceClass,
    /// The range id `createHandle` refers to.
    pub range_id: u32,
    pub space: u32,
    pub lower: u32,
    /// Registers in the range; `u32::MAX` for an unbounded range.
    pub count: u32,
    pub kind: ResourceKind,
    /// Typed resources: the element component type.
    pub component: Option<ComponentType>,
    /// Typed resources: components per element (from the resource's LLVM type; 0 when unknown).
    pub component_count: u32,
    /// Structured buffers: the element stride in bytes.
    pub stride: u32,
    pub sample_count: u32,
    pub globally_coherent: bool,
    pub has_counter: bool,
    pub rov: bool,
    /// CBuffers: size in bytes.
    pub cbuffer_size: u32,
    /// Samplers: 0 default, 1 comparison, 2 mono.
    pub sampler_kind: u32,
    /// The resource's global variable (the handle source of libraries, `createHandleForLib`).
    pub global: Option<dxil_module::GlobalId>,
}

/// What the translator needs to know about the module's entry point.
#[derive(Clone, Debug)]
pub struct EntryInfo {
    pub function: FuncId,
    pub name: String,
    pub stage: Stage,
    pub shader_model: (u32, u32),
    pub num_threads: [u32; 3],
    pub flags: u64,
    pub resources: Vec<ResourceDecl>,
    /// `"fp32-denorm-mode"` of the entry function: `any` (None), `preserve` or `ftz`.
    pub fp32_denorm: Option<DenormMode>,
    /// `[WaveSize(n)]` / `[WaveSize(min, max, preferred)]`: (min, max, preferred; 0 = no preference).
    pub wave_size: Option<(u32, u32, u32)>,
    /// The entry's index in `dxil.entry_points`, where [`EntryInfo::signatures`] reads its signatures: copying the
    /// three element lists (names included) for every translation cost about a fiftieth of a small shader's.
    pub entry_index: usize,
    /// Geometry shaders: input primitive, `maxvertexcount`, streams, output topology, instance count.
    pub gs_state: Option<dxil_shader::GsState>,
    /// Hull shaders: patch constant function, control points, domain, partitioning, output primitive.
    pub hs_state: Option<dxil_shader::HsState>,
    /// Domain shaders: domain and input control points.
    pub ds_state: Option<dxil_shader::DsState>,
    /// Mesh shaders: maximum vertex and primitive counts, output topology, payload size.
    pub ms_state: Option<dxil_shader::MsState>,
    /// Amplification shaders: payload size.
    pub as_state: Option<dxil_shader::AsState>,
    /// The module is a library (`lib_6_x`): resources are global variables (`createHandleForLib`).
    pub library: bool,
    /// The metadata view itself, kept for its `dx.op` callee table ([`dxil_shader::DxilModule::dx_ops`]): building
    /// that table classifies every function name, which costs about a tenth of a small shader's translation, so it
    /// is built once (shared with a caller that read it first, see [`entry_info`]).
    pub dxil: std::sync::Arc<dxil_shader::DxilModule>,
}

impl EntryInfo {
    /// The entry's signatures: inputs and outputs (graphics stages, in `inputSigId` order as DXC writes them), and
    /// the third, patch constants (hull and domain shaders) or per-primitive outputs (mesh shaders).
    pub fn signatures(&self) -> &dxil_shader::Signatures {
        Self::signatures_in(&self.dxil, self.entry_index)
    }

    /// [`EntryInfo::signatures`] from a view the caller holds (a clone of `dxil`), for code that borrows the
    /// signatures while it changes the translator that owns this entry.
    pub fn signatures_in(dm: &dxil_shader::DxilModule, index: usize) -> &dxil_shader::Signatures {
        static NONE: dxil_shader::Signatures = dxil_shader::Signatures {
            inputs: Vec::new(),
            outputs: Vec::new(),
            patch_constant_or_primitive: Vec::new(),
        };
        dm.entry_points.get(index).map_or(&NONE, |e| &e.signatures)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenormMode {
    Preserve,
    FlushToZero,
}

fn bad(what: impl Into<crate::error::Detail>) -> Error {
    MetadataError::entry(what).into()
}

/// Reads the entry point (the first of `dx.entryPoints` with a function, or the one named `want`) and its
/// resources, through dxil-shader's typed view of the metadata. In a library (`lib_6_x`), `want` is a function's
/// name as `dx.entryPoints` spells it (mangled, with or without DXC's leading `\x01`) or its export name
/// ([`export_name`]); the stage is the function's
/// shader kind and the entry point is named by its export name.
pub fn read_entry(m: &Module, want: Option<&str>) -> Result<EntryInfo, Error> {
    let dm = dxil_shader::DxilModule::for_translation(m).map_err(MetadataError::Shader)?;
    entry_info(m, std::sync::Arc::new(dm), want)
}

/// [`read_entry`] with the metadata view already read (`dm` must come from `m`): a caller that reads it for its own
/// needs (entry point names, stages) does not pay for it twice.
pub fn entry_info(
    m: &Module,
    dm: std::sync::Arc<dxil_shader::DxilModule>,
    want: Option<&str>,
) -> Result<EntryInfo, Error> {
    let library = dm.shader_model.is_library();
    let module_stage =
        Stage::from_name(dm.shader_model.stage_name().as_bytes()).ok_or_else(|| {
            bad(format!(
                "dx.shaderModel: unknown stage {}",
                dm.shader_model.stage_name()
            ))
        })?;
    let entry_index = match want {
        Some(w) => dm
            .entry_points
            .iter()
            .position(|e| {
                e.name == w
                    || (library
                        && e.function.is_some()
                        && (export_name(&e.name) == w || e.name.trim_start_matches('\u{1}') == w))
            })
            .ok_or_else(|| bad(format!("no entry point named `{w}` in dx.entryPoints")))?,
        None => dm
            .entry_points
            .iter()
            .position(|e| e.function.is_some())
            .ok_or_else(|| bad("dx.entryPoints has no entry with a function"))?,
    };
    let entry = &dm.entry_points[entry_index];
    let function = entry
        .function
        .ok_or_else(|| bad(format!("entry point `{}` has no function", entry.name)))?;
    let stage = if library {
        Stage::from_kind(entry.shader_kind).ok_or_else(|| {
            bad(format!(
                "library function `{}` has shader kind {:?}",
                entry.name, entry.shader_kind
            ))
        })?
    } else {
        module_stage
    };
    let props = &entry.properties;
    let mut resources = Vec::new();
    for class in [
        dxil_shader::ResourceClass::SRV,
        dxil_shader::ResourceClass::UAV,
        dxil_shader::ResourceClass::CBuffer,
        dxil_shader::ResourceClass::Sampler,
    ] {
        for r in dm.resources.list(class) {
            resources.push(resource_decl(m, r)?);
        }
    }
    // Compute shaders carry `numthreads` in tag 4, mesh and amplification shaders in their state.
    let num_threads = props.thread_group_size().unwrap_or([1, 1, 1]);
    // A library's shader flags are the module's (its first, function-less entry).
    let flags = props
        .shader_flags
        .map_or_else(|| dm.shader_flags().0, |f| f.0);
    // `[WaveSize(n)]` stores max 0 ("no range"): the required range is then n..=n.
    let wave_size = props
        .wave_size
        .map(|w| (w.min, if w.max == 0 { w.min } else { w.max }, w.preferred));
    let name = if library {
        export_name(&entry.name).to_string()
    } else {
        entry.name.clone()
    };
    let gs_state = props.gs_state;
    let shader_model = (dm.shader_model.major, dm.shader_model.minor);
    Ok(EntryInfo {
        function,
        name,
        stage,
        shader_model,
        num_threads,
        flags,
        resources,
        fp32_denorm: denorm_mode(m, function),
        wave_size,
        entry_index,
        gs_state,
        hs_state: props.hs_state,
        ds_state: props.ds_state,
        ms_state: props.ms_state,
        as_state: props.as_state,
        library,
        dxil: dm,
    })
}

/// One entry point of a module: for a library, one of its exported shaders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The function's name as `dx.entryPoints` spells it (mangled in a library).
    pub name: String,
    /// The name a D3D12 state object exports it under ([`export_name`]); the name itself outside libraries.
    pub export: String,
    pub stage: Stage,
    /// Ray-tracing stages: the payload (any hit, closest hit, miss) or callable-data (callable) size in bytes.
    pub payload_size: Option<u32>,
    /// Any-hit and closest-hit shaders: the size of the hit attributes in bytes.
    pub attribute_size: Option<u32>,
}

/// Every entry point of the module that has a function, in `dx.entryPoints` order. Each can be translated by
/// passing its `name` or `export` as [`crate::Options::entry_point`].
pub fn entry_points(m: &Module) -> Result<Vec<EntryPoint>, Error> {
    let dm = dxil_shader::DxilModule::for_translation(m).map_err(MetadataError::Shader)?;
    let library = dm.shader_model.is_library();
    let mut out = Vec::new();
    for e in dm.entry_points.iter().filter(|e| e.function.is_some()) {
        let kind = if library {
            e.shader_kind
        } else {
            dm.shader_model.kind
        };
        let stage = Stage::from_kind(kind)
            .ok_or_else(|| bad(format!("entry point `{}` has shader kind {kind:?}", e.name)))?;
        out.push(EntryPoint {
            name: e.name.clone(),
            export: if library {
                export_name(&e.name).to_string()
            } else {
                e.name.clone()
            },
            stage,
            payload_size: e.properties.ray_payload_size,
            attribute_size: e.properties.ray_attribute_size,
        });
    }
    Ok(out)
}

fn resource_decl(m: &Module, r: &dxil_shader::Resource) -> Result<ResourceDecl, Error> {
    use dxil_shader::ClassFields;
    let class = ResourceClass::from_u32(r.class.raw()).ok_or_else(|| {
        MetadataError::resource(format!(
            "dx.resources: unknown resource class {}",
            r.class.raw()
        ))
    })?;
    let kind = match class {
        ResourceClass::Cbv => ResourceKind::CBuffer,
        ResourceClass::Sampler => ResourceKind::Sampler,
        _ => known_kind(r.kind.raw()).ok_or_else(|| {
            MetadataError::resource(format!(
                "dx.resources: unknown resource kind {}",
                r.kind.raw()
            ))
        })?,
    };
    let mut d = ResourceDecl {
        class,
        range_id: r.id,
        space: r.space,
        lower: r.lower_bound,
        count: r.range_size,
        kind,
        component: r.tags.element_type.and_then(known_component),
        component_count: r.element_ty.map_or(0, |t| match m.types.data(t) {
            dxil_module::TypeData::Vector { len, .. } => *len,
            _ => 1,
        }),
        stride: r.tags.structure_stride.unwrap_or(0),
        sample_count: 0,
        globally_coherent: false,
        has_counter: false,
        rov: false,
        cbuffer_size: 0,
        sampler_kind: 0,
        global: r.symbol.global(),
    };
    match r.fields {
        ClassFields::Srv { sample_count } => d.sample_count = sample_count,
        ClassFields::Uav {
            globally_coherent,
            has_counter,
            rasterizer_ordered,
        } => {
            d.globally_coherent = globally_coherent;
            d.has_counter = has_counter;
            d.rov = rasterizer_ordered;
        }
        ClassFields::CBuffer { size_in_bytes } => d.cbuffer_size = size_in_bytes,
        ClassFields::Sampler { sampler_kind } => d.sampler_kind = sampler_kind.raw(),
    }
    Ok(d)
}

fn denorm_mode(m: &Module, f: FuncId) -> Option<DenormMode> {
    let func = m.function(f)?;
    let list = func.attrs?;
    for g in m.attr_list(list) {
        if g.slot != dxil_module::FUNCTION_SLOT {
            continue;
        }
        for a in &g.attrs {
            if let dxil_module::Attribute::StrValue(k, v) = a
                && k == "fp32-denorm-mode"
            {
                return match v.as_str() {
                    "preserve" => Some(DenormMode::Preserve),
                    "ftz" => Some(DenormMode::FlushToZero),
                    _ => None,
                };
            }
        }
    }
    None
}

/// The properties `annotateHandle` attaches to a handle (`%dx.types.ResourceProperties`), decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceProps {
    pub kind: ResourceKind,
    pub uav: bool,
    pub rov: bool,
    pub globally_coherent: bool,
    /// Samplers: comparison sampler; UAVs: has a counter.
    pub cmp_or_counter: bool,
    pub component: Option<ComponentType>,
    pub component_count: u32,
    pub stride: u32,
    pub cbuffer_size: u32,
}

impl ResourceProps {
    pub fn decode(dw0: u32, dw1: u32) -> Option<ResourceProps> {
        let kind = known_kind(dw0 & 0xFF)?;
        let typed = kind.is_texture() || kind == ResourceKind::TypedBuffer;
        Some(ResourceProps {
            kind,
            uav: dw0 & (1 << 12) != 0,
            rov: dw0 & (1 << 13) != 0,
            globally_coherent: dw0 & (1 << 14) != 0,
            cmp_or_counter: dw0 & (1 << 15) != 0,
            component: if typed {
                known_component(ComponentType::from_raw(dw1 & 0xFF))
            } else {
                None
            },
            component_count: if typed { (dw1 >> 8) & 0xFF } else { 0 },
            stride: if kind == ResourceKind::StructuredBuffer {
                dw1
            } else {
                0
            },
            cbuffer_size: if kind == ResourceKind::CBuffer {
                dw1
            } else {
                0
            },
        })
    }
}

/// The two words of a `%dx.types.ResourceProperties` constant operand.
pub fn props_words(m: &Module, v: Value) -> Option<(u32, u32)> {
    let c = m.constants.get(v.as_const()?)?;
    match &c.data {
        ConstData::Null => Some((0, 0)),
        ConstData::Aggregate(r) => {
            let vals = m.constants.values_of(*r);
            let a = m.const_int(*vals.first()?)?;
            let b = m.const_int(*vals.get(1)?)?;
            Some((a as u32, b as u32))
        }
        _ => None,
    }
}

/// The four fields of a `%dx.types.ResBind` constant: lower, upper, space, class.
pub fn res_bind(m: &Module, v: Value) -> Option<(u32, u32, u32, u32)> {
    let c = m.constants.get(v.as_const()?)?;
    match &c.data {
        ConstData::Null => Some((0, 0, 0, 0)),
        ConstData::Aggregate(r) => {
            let vals = m.constants.values_of(*r);
            let f = |i: usize| vals.get(i).and_then(|&v| m.const_int(v)).map(|x| x as u32);
            Some((f(0)?, f(1)?, f(2)?, f(3)?))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_resource_properties() {
        // RWTexture2D<F32>: kind 2, UAV bit; F32 = 9, one component.
        let p = ResourceProps::decode(4098, 265).unwrap();
        assert_eq!(p.kind, ResourceKind::Texture2D);
        assert!(p.uav);
        assert_eq!(p.component, Some(ComponentType::F32));
        assert_eq!(p.component_count, 1);
        // RWStructuredBuffer<stride=4>.
        let s = ResourceProps::decode(4108, 4).unwrap();
        assert_eq!(
            (s.kind, s.stride, s.uav),
            (ResourceKind::StructuredBuffer, 4, true)
        );
        // CBuffer of 16 bytes.
        let c = ResourceProps::decode(13, 16).unwrap();
        assert_eq!(
            (c.kind, c.cbuffer_size, c.uav),
            (ResourceKind::CBuffer, 16, false)
        );
        assert!(ResourceProps::decode(99, 0).is_none());
    }

    #[test]
    fn stage_names() {
        assert_eq!(Stage::from_name(b"cs"), Some(Stage::Compute));
        assert_eq!(Stage::from_name(b"xx"), None);
        assert_eq!(ResourceClass::from_u32(1), Some(ResourceClass::Uav));
        assert_eq!(ResourceClass::Uav.letter(), 'u');
    }
}
