//! The parts of DXIL's metadata the translator needs: shader model, entry point, thread-group size, shader
//! flags, the resource tables (`dx.resources`) and the entry function's denormal mode.
//!
//! Kept small and local on purpose: it reads exactly the fields the lowering uses, and reports a malformed record
//! with the path of the node it came from.

use dxil_module::{ConstData, FuncId, MdData, MdId, Module, Value, ValueRef};

use crate::error::Error;

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
        }
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

/// DXIL `ResourceKind` (the shape of a resource).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    Texture1D,
    Texture2D,
    Texture2DMS,
    Texture3D,
    TextureCube,
    Texture1DArray,
    Texture2DArray,
    Texture2DMSArray,
    TextureCubeArray,
    TypedBuffer,
    RawBuffer,
    StructuredBuffer,
    CBuffer,
    Sampler,
    TBuffer,
    RtAccelerationStructure,
    FeedbackTexture2D,
    FeedbackTexture2DArray,
}

impl ResourceKind {
    pub fn from_u32(v: u32) -> Option<ResourceKind> {
        use ResourceKind::*;
        Some(match v {
            1 => Texture1D,
            2 => Texture2D,
            3 => Texture2DMS,
            4 => Texture3D,
            5 => TextureCube,
            6 => Texture1DArray,
            7 => Texture2DArray,
            8 => Texture2DMSArray,
            9 => TextureCubeArray,
            10 => TypedBuffer,
            11 => RawBuffer,
            12 => StructuredBuffer,
            13 => CBuffer,
            14 => Sampler,
            15 => TBuffer,
            16 => RtAccelerationStructure,
            17 => FeedbackTexture2D,
            18 => FeedbackTexture2DArray,
            _ => return None,
        })
    }

    pub fn is_texture(self) -> bool {
        use ResourceKind::*;
        matches!(
            self,
            Texture1D
                | Texture2D
                | Texture2DMS
                | Texture3D
                | TextureCube
                | Texture1DArray
                | Texture2DArray
                | Texture2DMSArray
                | TextureCubeArray
                | FeedbackTexture2D
                | FeedbackTexture2DArray
        )
    }

    /// Raw or structured buffer: lowered to a storage buffer of words.
    pub fn is_raw_like(self) -> bool {
        matches!(
            self,
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer
        )
    }
}

/// DXIL `ComponentType` of typed resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComponentType {
    I1,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
    SNormF16,
    UNormF16,
    SNormF32,
    UNormF32,
    SNormF64,
    UNormF64,
    PackedS8x32,
    PackedU8x32,
}

impl ComponentType {
    pub fn from_u32(v: u32) -> Option<ComponentType> {
        use ComponentType::*;
        Some(match v {
            1 => I1,
            2 => I16,
            3 => U16,
            4 => I32,
            5 => U32,
            6 => I64,
            7 => U64,
            8 => F16,
            9 => F32,
            10 => F64,
            11 => SNormF16,
            12 => UNormF16,
            13 => SNormF32,
            14 => UNormF32,
            15 => SNormF64,
            16 => UNormF64,
            17 => PackedS8x32,
            18 => PackedU8x32,
            _ => return None,
        })
    }

    /// The scalar class of the Vulkan image sampled type: float, signed or unsigned integer.
    pub fn sampled_class(self) -> SampledClass {
        use ComponentType::*;
        match self {
            I1 | I16 | I32 | I64 | PackedS8x32 => SampledClass::Sint,
            U16 | U32 | U64 | PackedU8x32 => SampledClass::Uint,
            _ => SampledClass::Float,
        }
    }

    pub fn is_64bit(self) -> bool {
        matches!(self, ComponentType::I64 | ComponentType::U64)
    }
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenormMode {
    Preserve,
    FlushToZero,
}

fn bad(what: impl Into<String>) -> Error {
    Error::Metadata(what.into())
}

/// Metadata helpers over a module.
pub struct Md<'a> {
    pub m: &'a Module,
}

impl<'a> Md<'a> {
    pub fn ops(&self, n: MdId) -> impl Iterator<Item = Option<MdId>> + 'a {
        self.m.metadata.node_operands(n)
    }

    pub fn op(&self, n: MdId, i: usize) -> Option<MdId> {
        self.m.metadata.node_operands(n).nth(i).flatten()
    }

    pub fn value(&self, n: MdId) -> Option<Value> {
        match self.m.metadata.get(n)? {
            MdData::Value { value, .. } => Some(*value),
            _ => None,
        }
    }

    pub fn int(&self, n: Option<MdId>) -> Option<i64> {
        let v = self.value(n?)?;
        self.m.const_int(v)
    }

    pub fn u32(&self, n: Option<MdId>) -> Option<u32> {
        self.int(n).map(|v| v as u32)
    }

    pub fn string(&self, n: Option<MdId>) -> Option<&'a [u8]> {
        self.m.metadata.string(n?)
    }
}

/// Reads the entry point (the first of `dx.entryPoints`, or the one named `want`) and its resources.
pub fn read_entry(m: &Module, want: Option<&str>) -> Result<EntryInfo, Error> {
    let md = Md { m };
    let sm = m
        .metadata
        .named("dx.shaderModel")
        .and_then(|n| n.operands.first().copied())
        .ok_or_else(|| bad("no dx.shaderModel"))?;
    let stage_name = md
        .string(md.op(sm, 0))
        .ok_or_else(|| bad("dx.shaderModel: no stage name"))?;
    let stage = Stage::from_name(stage_name).ok_or_else(|| {
        bad(format!(
            "dx.shaderModel: unknown stage {:?}",
            String::from_utf8_lossy(stage_name)
        ))
    })?;
    let major = md.u32(md.op(sm, 1)).unwrap_or(6);
    let minor = md.u32(md.op(sm, 2)).unwrap_or(0);

    let entries = m
        .metadata
        .named("dx.entryPoints")
        .ok_or_else(|| bad("no dx.entryPoints"))?;
    let mut chosen = None;
    for &e in &entries.operands {
        let name = md.string(md.op(e, 1)).unwrap_or(b"");
        let func = md
            .op(e, 0)
            .and_then(|f| md.value(f))
            .and_then(|v| match v.get() {
                ValueRef::Function(f) => Some(f),
                _ => None,
            });
        match (want, func) {
            (Some(w), Some(f)) if w.as_bytes() == name => {
                chosen = Some((e, f, name));
                break;
            }
            (None, Some(f)) => {
                chosen = Some((e, f, name));
                break;
            }
            _ => {}
        }
    }
    let (entry, function, name) = chosen.ok_or_else(|| match want {
        Some(w) => bad(format!("no entry point named `{w}` in dx.entryPoints")),
        None => bad("dx.entryPoints has no entry with a function"),
    })?;

    // Resources: the entry's own tuple, else the module's dx.resources.
    let res_node = md.op(entry, 3).or_else(|| {
        m.metadata
            .named("dx.resources")
            .and_then(|n| n.operands.first().copied())
    });
    let mut resources = Vec::new();
    if let Some(r) = res_node {
        for (class_index, list) in md.ops(r).enumerate() {
            let Some(list) = list else { continue };
            let class = ResourceClass::from_u32(class_index as u32)
                .ok_or_else(|| bad("dx.resources has more than four lists"))?;
            for rec in md.ops(list) {
                let Some(rec) = rec else { continue };
                resources.push(read_resource(&md, class, rec)?);
            }
        }
    }

    let mut num_threads = [1, 1, 1];
    let mut flags = 0;
    let mut wave_size = None;
    if let Some(props) = md.op(entry, 4) {
        let ops: Vec<Option<MdId>> = md.ops(props).collect();
        for pair in ops.chunks(2) {
            let [tag, val] = pair else { break };
            match md.u32(*tag) {
                Some(0) => flags = md.int(*val).unwrap_or(0) as u64,
                // `i32 n` (SM 6.6 form in older DXC) or `!{i32 n}`.
                Some(11) => {
                    wave_size = md
                        .u32(*val)
                        .or_else(|| val.and_then(|v| md.u32(md.op(v, 0))))
                        .map(|n| (n, n, 0))
                }
                Some(23) => {
                    if let Some(v) = val {
                        let f = |i: usize| md.u32(md.op(*v, i)).unwrap_or(0);
                        let (min, max, pref) = (f(0), f(1), f(2));
                        wave_size = Some((min, if max == 0 { min } else { max }, pref));
                    }
                }
                Some(4) => {
                    if let Some(v) = val {
                        for (i, slot) in num_threads.iter_mut().enumerate() {
                            *slot = md
                                .u32(md.op(*v, i))
                                .ok_or_else(|| bad("entry properties: malformed NumThreads"))?;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    let fp32_denorm = denorm_mode(m, function);
    Ok(EntryInfo {
        function,
        name: String::from_utf8_lossy(name).into_owned(),
        stage,
        shader_model: (major, minor),
        num_threads,
        flags,
        resources,
        fp32_denorm,
        wave_size,
    })
}

fn read_resource(md: &Md<'_>, class: ResourceClass, rec: MdId) -> Result<ResourceDecl, Error> {
    let field = |i: usize| md.u32(md.op(rec, i));
    let need = |i: usize, what: &str| {
        field(i).ok_or_else(|| {
            bad(format!(
                "dx.resources: {} record !{} has no {what}",
                class.letter(),
                rec.0
            ))
        })
    };
    let range_id = need(0, "range id")?;
    let space = need(3, "space")?;
    let lower = need(4, "lower bound")?;
    let count = need(5, "range size")?;
    let mut d = ResourceDecl {
        class,
        range_id,
        space,
        lower,
        count,
        kind: ResourceKind::CBuffer,
        component: None,
        component_count: element_components(md, rec),
        stride: 0,
        sample_count: 0,
        globally_coherent: false,
        has_counter: false,
        rov: false,
        cbuffer_size: 0,
        sampler_kind: 0,
    };
    let tags_at = match class {
        ResourceClass::Srv => {
            d.kind = kind_field(need(6, "shape")?)?;
            d.sample_count = field(7).unwrap_or(0);
            8
        }
        ResourceClass::Uav => {
            d.kind = kind_field(need(6, "shape")?)?;
            d.globally_coherent = md.int(md.op(rec, 7)).unwrap_or(0) != 0;
            d.has_counter = md.int(md.op(rec, 8)).unwrap_or(0) != 0;
            d.rov = md.int(md.op(rec, 9)).unwrap_or(0) != 0;
            10
        }
        ResourceClass::Cbv => {
            d.kind = ResourceKind::CBuffer;
            d.cbuffer_size = field(6).unwrap_or(0);
            7
        }
        ResourceClass::Sampler => {
            d.kind = ResourceKind::Sampler;
            d.sampler_kind = field(6).unwrap_or(0);
            7
        }
    };
    if let Some(tags) = md.op(rec, tags_at) {
        let ops: Vec<Option<MdId>> = md.ops(tags).collect();
        for pair in ops.chunks(2) {
            let [tag, val] = pair else { break };
            match md.u32(*tag) {
                Some(0) => d.component = md.u32(*val).and_then(ComponentType::from_u32),
                Some(1) => d.stride = md.u32(*val).unwrap_or(0),
                _ => {}
            }
        }
    }
    Ok(d)
}

/// Components of a resource's element from its LLVM type (`%T* undef`, T = `{ <4 x float> }` → 4).
fn element_components(md: &Md<'_>, rec: MdId) -> u32 {
    let Some(MdData::Value { ty, .. }) = md.op(rec, 1).and_then(|n| md.m.metadata.get(n)) else {
        return 0;
    };
    let types = &md.m.types;
    let Some(pointee) = types.pointee(*ty) else {
        return 0;
    };
    let elem = match types.data(pointee) {
        dxil_module::TypeData::Struct { elems, .. } => match elems.first() {
            Some(&e) => e,
            None => return 0,
        },
        _ => pointee,
    };
    match types.data(elem) {
        dxil_module::TypeData::Vector { len, .. } => *len,
        dxil_module::TypeData::Int(_)
        | dxil_module::TypeData::Half
        | dxil_module::TypeData::Float
        | dxil_module::TypeData::Double => 1,
        _ => 0,
    }
}

fn kind_field(v: u32) -> Result<ResourceKind, Error> {
    ResourceKind::from_u32(v).ok_or_else(|| bad(format!("dx.resources: unknown resource kind {v}")))
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
        let kind = ResourceKind::from_u32(dw0 & 0xFF)?;
        let typed = kind.is_texture() || kind == ResourceKind::TypedBuffer;
        Some(ResourceProps {
            kind,
            uav: dw0 & (1 << 12) != 0,
            rov: dw0 & (1 << 13) != 0,
            globally_coherent: dw0 & (1 << 14) != 0,
            cmp_or_counter: dw0 & (1 << 15) != 0,
            component: if typed {
                ComponentType::from_u32(dw1 & 0xFF)
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
