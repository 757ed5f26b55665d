//! Entry points (`!dx.entryPoints`) and their tagged properties.

use dxil_module::{ConstData, FuncId, MdId, Module, TypeData, ValueRef};
use serde::Serialize;

use crate::enums::{
    ComponentType, InputPrimitive, MeshOutputTopology, NodeLaunchType, PrimitiveTopology,
    ShaderKind, TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning,
};
use crate::error::{ErrorKind, Result};
use crate::flags::ShaderFlags;
use crate::md::{Md, Node};
use crate::module::RawProperty;
use crate::ser;
use crate::signature::{Signatures, read_signatures};

/// Entry property tags (`kDxil*Tag` in `DxilMetadataHelper.h`).
pub mod tag {
    pub const SHADER_FLAGS: u32 = 0;
    pub const GS_STATE: u32 = 1;
    pub const DS_STATE: u32 = 2;
    pub const HS_STATE: u32 = 3;
    pub const NUM_THREADS: u32 = 4;
    pub const AUTO_BINDING_SPACE: u32 = 5;
    pub const RAY_PAYLOAD_SIZE: u32 = 6;
    pub const RAY_ATTRIB_SIZE: u32 = 7;
    pub const SHADER_KIND: u32 = 8;
    pub const MS_STATE: u32 = 9;
    pub const AS_STATE: u32 = 10;
    pub const WAVE_SIZE: u32 = 11;
    pub const ENTRY_ROOT_SIG: u32 = 12;
    pub const NODE_LAUNCH_TYPE: u32 = 13;
    pub const NODE_IS_PROGRAM_ENTRY: u32 = 14;
    pub const NODE_ID: u32 = 15;
    pub const NODE_LOCAL_ROOT_ARGUMENTS_TABLE_INDEX: u32 = 16;
    pub const SHARE_INPUT_OF: u32 = 17;
    pub const NODE_DISPATCH_GRID: u32 = 18;
    pub const NODE_MAX_RECURSION_DEPTH: u32 = 19;
    pub const NODE_INPUTS: u32 = 20;
    pub const NODE_OUTPUTS: u32 = 21;
    pub const NODE_MAX_DISPATCH_GRID: u32 = 22;
    pub const RANGED_WAVE_SIZE: u32 = 23;
    pub const GROUP_SHARED_LIMIT: u32 = 24;
}

/// Upper bound on an embedded root signature; RTS0 blobs are a few KiB at most.
const MAX_ROOT_SIGNATURE_BYTES: u64 = 1 << 20;

/// One entry of `!dx.entryPoints`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntryPoint {
    /// Field 0: the function; `None` for a library's module-level entry.
    #[serde(serialize_with = "ser::opt_func")]
    pub function: Option<FuncId>,
    /// Field 1: the name (mangled for library functions, `""` for the module-level entry).
    pub name: String,
    /// The stage: the shader model's for non-libraries; the shader-kind property (tag 8) in a
    /// library, `Library` when absent.
    pub shader_kind: ShaderKind,
    /// Field 2.
    pub signatures: Signatures,
    /// Field 3: the resources tuple (normally the one `!dx.resources` names).
    #[serde(serialize_with = "ser::opt_md")]
    pub resources: Option<MdId>,
    /// Field 4.
    pub properties: EntryProperties,
    #[serde(serialize_with = "ser::md")]
    pub node: MdId,
}

/// Geometry shader state (tag 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GsState {
    pub input_primitive: InputPrimitive,
    pub max_vertex_count: u32,
    pub active_stream_mask: u32,
    pub output_topology: PrimitiveTopology,
    pub instance_count: u32,
}

/// Domain shader state (tag 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DsState {
    pub domain: TessellatorDomain,
    pub input_control_points: u32,
}

/// Hull shader state (tag 3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HsState {
    #[serde(serialize_with = "ser::opt_func")]
    pub patch_constant_function: Option<FuncId>,
    pub input_control_points: u32,
    pub output_control_points: u32,
    pub domain: TessellatorDomain,
    pub partitioning: TessellatorPartitioning,
    pub output_primitive: TessellatorOutputPrimitive,
    pub max_tess_factor: f32,
}

/// Mesh shader state (tag 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MsState {
    pub num_threads: [u32; 3],
    pub max_vertex_count: u32,
    pub max_primitive_count: u32,
    pub output_topology: MeshOutputTopology,
    pub payload_size_in_bytes: u32,
}

/// Amplification shader state (tag 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AsState {
    pub num_threads: [u32; 3],
    pub payload_size_in_bytes: u32,
}

/// `[WaveSize(...)]`: tag 11 gives one size (`min` only); tag 23 a range and an optional
/// preferred size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WaveSize {
    pub min: u32,
    /// 0 when no range was given.
    pub max: u32,
    /// 0 when no preference was given.
    pub preferred: u32,
}

/// A node name and array index (`NodeID`, `ShareInputOf`, node output IDs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeId {
    pub name: String,
    pub index: u32,
}

/// One node input or output of a work-graph node shader (tags 20 and 21).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct NodeIo {
    /// Tag 1: `DXIL::NodeIOFlags` (kind, read-write, record granularity, ...).
    pub flags: u32,
    /// Tag 0 (outputs).
    pub output_id: Option<NodeId>,
    /// Record type tag 0.
    pub record_size: Option<u32>,
    /// Record type tag 1: `SV_DispatchGrid` (byte offset, component type, component count).
    pub sv_dispatch_grid: Option<(u32, ComponentType, u32)>,
    /// Record type tag 2.
    pub record_alignment: Option<u32>,
    /// Tag 3.
    pub max_records: Option<u32>,
    /// Tag 4: the output whose record budget this one shares.
    pub max_records_shared_with: Option<u32>,
    /// Tag 5.
    pub output_array_size: Option<u32>,
    /// Tag 6.
    pub allow_sparse_nodes: Option<bool>,
    /// Tags this crate does not know, in order.
    pub unknown: Vec<RawProperty>,
    /// Record-type tags this crate does not know, in order.
    pub unknown_record_tags: Vec<RawProperty>,
}

/// Work-graph node shader properties (tags 13–22).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct NodeProperties {
    pub launch_type: Option<NodeLaunchType>,
    pub is_program_entry: Option<bool>,
    pub node_id: Option<NodeId>,
    /// -1 when unused.
    pub local_root_arguments_table_index: Option<i32>,
    pub share_input_of: Option<NodeId>,
    pub dispatch_grid: Option<[u32; 3]>,
    pub max_dispatch_grid: Option<[u32; 3]>,
    pub max_recursion_depth: Option<u32>,
    pub inputs: Vec<NodeIo>,
    pub outputs: Vec<NodeIo>,
}

impl NodeProperties {
    fn is_empty(&self) -> bool {
        *self == NodeProperties::default()
    }
}

/// The tagged property list of an entry point. Every property is optional; DXC writes
/// `null` for the whole list when none applies.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct EntryProperties {
    pub shader_flags: Option<ShaderFlags>,
    pub gs_state: Option<GsState>,
    pub ds_state: Option<DsState>,
    pub hs_state: Option<HsState>,
    pub num_threads: Option<[u32; 3]>,
    pub auto_binding_space: Option<u32>,
    pub ray_payload_size: Option<u32>,
    pub ray_attribute_size: Option<u32>,
    /// Tag 8: the stage of a library function.
    pub shader_kind: Option<ShaderKind>,
    pub ms_state: Option<MsState>,
    pub as_state: Option<AsState>,
    pub wave_size: Option<WaveSize>,
    /// Tag 12: a serialized root signature (`RTS0` bytes).
    pub root_signature: Option<Vec<u8>>,
    pub node: Option<NodeProperties>,
    /// Tag 24: `[GroupSharedLimit(bytes)]`.
    pub group_shared_limit: Option<u32>,
    /// Tags this crate does not know, in order.
    pub unknown: Vec<RawProperty>,
    #[serde(serialize_with = "ser::opt_md")]
    pub list: Option<MdId>,
}

impl EntryProperties {
    /// The thread-group size from whichever property carries it (compute and node shaders:
    /// tag 4; mesh and amplification shaders: their state).
    pub fn thread_group_size(&self) -> Option<[u32; 3]> {
        self.num_threads
            .or(self.ms_state.map(|m| m.num_threads))
            .or(self.as_state.map(|a| a.num_threads))
    }
}

pub(crate) fn read_entry(md: Md<'_>, id: MdId, module_kind: ShaderKind) -> Result<EntryPoint> {
    let n = md.node(id, "dx.entryPoints entry")?;
    n.expect_len(5)?;
    let function = match n.op(0) {
        None => None,
        Some(f) => Some(function_of(md, f).ok_or_else(|| {
            n.error(
                ErrorKind::Malformed,
                "function",
                "expected a function or null",
            )
        })?),
    };
    let name = n.string_at(1, "name")?;
    let signatures = match n.node_at(2, "signatures", "signature tuple")? {
        Some(s) => read_signatures(md, s)?,
        None => Signatures::default(),
    };
    let resources = n.op(3);
    let properties = match n.node_at(4, "properties", "entry properties")? {
        Some(p) => read_properties(md, p)?,
        None => EntryProperties::default(),
    };
    let shader_kind = if module_kind == ShaderKind::Library {
        properties.shader_kind.unwrap_or(ShaderKind::Library)
    } else {
        module_kind
    };
    Ok(EntryPoint {
        function,
        name,
        shader_kind,
        signatures,
        resources,
        properties,
        node: id,
    })
}

fn function_of(md: Md<'_>, id: MdId) -> Option<FuncId> {
    let (_, v) = md.value(id)?;
    match v.get() {
        ValueRef::Function(f) if md.module.function(f).is_some() => Some(f),
        _ => None,
    }
}

fn read_properties(md: Md<'_>, n: Node<'_>) -> Result<EntryProperties> {
    if !n.len().is_multiple_of(2) {
        return Err(n.node_error(
            ErrorKind::Malformed,
            format!("{} operands: tags and values must pair up", n.len()),
        ));
    }
    let mut p = EntryProperties {
        list: Some(n.id),
        ..EntryProperties::default()
    };
    let mut node = NodeProperties::default();
    for i in (0..n.len()).step_by(2) {
        let t = n.u32_at(i, "tag")?;
        let v = i + 1;
        if n.op(v).is_none() {
            return Err(n.error(
                ErrorKind::Invalid,
                format!("value of tag {t}"),
                "null value",
            ));
        }
        match t {
            tag::SHADER_FLAGS => p.shader_flags = Some(ShaderFlags(n.u64_at(v, "shader flags")?)),
            tag::GS_STATE => {
                let s = sub(&n, v, "GS state")?;
                s.expect_len(5)?;
                p.gs_state = Some(GsState {
                    input_primitive: InputPrimitive::from_raw(s.u32_at(0, "input primitive")?),
                    max_vertex_count: s.u32_at(1, "max vertex count")?,
                    active_stream_mask: s.u32_at(2, "active stream mask")?,
                    output_topology: PrimitiveTopology::from_raw(s.u32_at(3, "output topology")?),
                    instance_count: s.u32_at(4, "instance count")?,
                });
            }
            tag::DS_STATE => {
                let s = sub(&n, v, "DS state")?;
                s.expect_len(2)?;
                p.ds_state = Some(DsState {
                    domain: TessellatorDomain::from_raw(s.u32_at(0, "domain")?),
                    input_control_points: s.u32_at(1, "input control points")?,
                });
            }
            tag::HS_STATE => {
                let s = sub(&n, v, "HS state")?;
                s.expect_len(7)?;
                let patch_constant_function = match s.op(0) {
                    None => None,
                    Some(f) => Some(function_of(md, f).ok_or_else(|| {
                        s.error(
                            ErrorKind::Malformed,
                            "patch constant function",
                            "expected a function",
                        )
                    })?),
                };
                p.hs_state = Some(HsState {
                    patch_constant_function,
                    input_control_points: s.u32_at(1, "input control points")?,
                    output_control_points: s.u32_at(2, "output control points")?,
                    domain: TessellatorDomain::from_raw(s.u32_at(3, "domain")?),
                    partitioning: TessellatorPartitioning::from_raw(s.u32_at(4, "partitioning")?),
                    output_primitive: TessellatorOutputPrimitive::from_raw(
                        s.u32_at(5, "output primitive")?,
                    ),
                    max_tess_factor: s.f64_at(6, "max tess factor")? as f32,
                });
            }
            tag::NUM_THREADS => p.num_threads = Some(n.xyz_at(v, "num threads")?),
            tag::AUTO_BINDING_SPACE => {
                p.auto_binding_space = Some(n.scalar_u32(v, "auto binding space")?)
            }
            tag::RAY_PAYLOAD_SIZE => {
                p.ray_payload_size = Some(n.scalar_u32(v, "ray payload size")?)
            }
            tag::RAY_ATTRIB_SIZE => {
                p.ray_attribute_size = Some(n.scalar_u32(v, "ray attribute size")?)
            }
            tag::SHADER_KIND => {
                p.shader_kind = Some(ShaderKind::from_raw(n.scalar_u32(v, "shader kind")?))
            }
            tag::MS_STATE => {
                let s = sub(&n, v, "MS state")?;
                s.expect_len(5)?;
                p.ms_state = Some(MsState {
                    num_threads: s.xyz_at(0, "num threads")?,
                    max_vertex_count: s.u32_at(1, "max vertex count")?,
                    max_primitive_count: s.u32_at(2, "max primitive count")?,
                    output_topology: MeshOutputTopology::from_raw(s.u32_at(3, "output topology")?),
                    payload_size_in_bytes: s.u32_at(4, "payload size")?,
                });
            }
            tag::AS_STATE => {
                let s = sub(&n, v, "AS state")?;
                s.expect_len(2)?;
                p.as_state = Some(AsState {
                    num_threads: s.xyz_at(0, "num threads")?,
                    payload_size_in_bytes: s.u32_at(1, "payload size")?,
                });
            }
            tag::WAVE_SIZE => {
                p.wave_size = Some(WaveSize {
                    min: n.scalar_u32(v, "wave size")?,
                    max: 0,
                    preferred: 0,
                })
            }
            tag::RANGED_WAVE_SIZE => {
                let s = sub(&n, v, "ranged wave size")?;
                s.expect_len(3)?;
                p.wave_size = Some(WaveSize {
                    min: s.u32_at(0, "min")?,
                    max: s.u32_at(1, "max")?,
                    preferred: s.u32_at(2, "preferred")?,
                });
            }
            tag::ENTRY_ROOT_SIG => {
                let s = sub(&n, v, "root signature")?;
                let bytes = s.required(0, "bytes")?;
                let rs = byte_array(md, bytes).ok_or_else(|| {
                    s.error(
                        ErrorKind::Malformed,
                        "bytes",
                        "expected an i8 array constant of at most 1 MiB",
                    )
                })?;
                // Many entries may share one root signature node; each copy is charged.
                md.charge(rs.len(), "root signature", bytes)?;
                p.root_signature = Some(rs);
            }
            tag::NODE_LAUNCH_TYPE => {
                node.launch_type = Some(NodeLaunchType::from_raw(n.scalar_u32(v, "launch type")?))
            }
            tag::NODE_IS_PROGRAM_ENTRY => {
                node.is_program_entry = Some(n.scalar_u32(v, "is program entry")? != 0)
            }
            tag::NODE_ID => node.node_id = Some(node_id(&sub(&n, v, "node id")?)?),
            tag::NODE_LOCAL_ROOT_ARGUMENTS_TABLE_INDEX => {
                let id = n.scalar_item(v, "local root arguments table index")?;
                let x = md
                    .sint(id)
                    .and_then(|x| i32::try_from(x).ok())
                    .ok_or_else(|| {
                        n.error(
                            ErrorKind::Malformed,
                            "local root arguments table index",
                            "expected an i32 constant",
                        )
                    })?;
                node.local_root_arguments_table_index = Some(x);
            }
            tag::SHARE_INPUT_OF => {
                node.share_input_of = Some(node_id(&sub(&n, v, "share input of")?)?)
            }
            tag::NODE_DISPATCH_GRID => node.dispatch_grid = Some(n.xyz_at(v, "dispatch grid")?),
            tag::NODE_MAX_DISPATCH_GRID => {
                node.max_dispatch_grid = Some(n.xyz_at(v, "max dispatch grid")?)
            }
            tag::NODE_MAX_RECURSION_DEPTH => {
                node.max_recursion_depth = Some(n.scalar_u32(v, "max recursion depth")?)
            }
            tag::NODE_INPUTS | tag::NODE_OUTPUTS => {
                let list = sub(&n, v, "node I/O list")?;
                let mut ios = Vec::with_capacity(list.len());
                for j in 0..list.len() {
                    let io = list
                        .node_at(j, "node I/O", "node I/O record")?
                        .ok_or_else(|| {
                            list.error(ErrorKind::Malformed, "node I/O", "null record")
                        })?;
                    ios.push(read_node_io(md, &io)?);
                }
                if t == tag::NODE_INPUTS {
                    node.inputs = ios;
                } else {
                    node.outputs = ios;
                }
            }
            tag::GROUP_SHARED_LIMIT => {
                p.group_shared_limit = Some(n.scalar_u32(v, "group shared limit")?)
            }
            _ => p.unknown.push(RawProperty::new(md, t, n.op(v))),
        }
    }
    if !node.is_empty() {
        p.node = Some(node);
    }
    Ok(p)
}

/// The node operand `i` of `n`, required.
fn sub<'m>(n: &Node<'m>, i: usize, context: &'static str) -> Result<Node<'m>> {
    n.node_at(i, context, context)?
        .ok_or_else(|| n.error(ErrorKind::Missing, context, "null node"))
}

fn node_id(n: &Node<'_>) -> Result<NodeId> {
    n.expect_len(2)?;
    Ok(NodeId {
        name: n.string_at(0, "name")?,
        index: n.u32_at(1, "index")?,
    })
}

fn read_node_io(md: Md<'_>, n: &Node<'_>) -> Result<NodeIo> {
    if !n.len().is_multiple_of(2) {
        return Err(n.node_error(
            ErrorKind::Malformed,
            format!("{} operands: tags and values must pair up", n.len()),
        ));
    }
    let mut io = NodeIo::default();
    for i in (0..n.len()).step_by(2) {
        let t = n.u32_at(i, "tag")?;
        let v = i + 1;
        match t {
            0 => io.output_id = Some(node_id(&sub(n, v, "output id")?)?),
            1 => io.flags = n.scalar_u32(v, "flags")?,
            2 => {
                let r = sub(n, v, "record type")?;
                if !r.len().is_multiple_of(2) {
                    return Err(r.node_error(
                        ErrorKind::Malformed,
                        format!("{} operands: tags and values must pair up", r.len()),
                    ));
                }
                for k in (0..r.len()).step_by(2) {
                    match r.u32_at(k, "tag")? {
                        0 => io.record_size = Some(r.scalar_u32(k + 1, "record size")?),
                        1 => {
                            let g = sub(&r, k + 1, "SV_DispatchGrid")?;
                            g.expect_len(3)?;
                            io.sv_dispatch_grid = Some((
                                g.u32_at(0, "byte offset")?,
                                ComponentType::from_raw(g.u32_at(1, "component type")?),
                                g.u32_at(2, "component count")?,
                            ));
                        }
                        2 => io.record_alignment = Some(r.scalar_u32(k + 1, "record alignment")?),
                        other => {
                            io.unknown_record_tags
                                .push(RawProperty::new(md, other, r.op(k + 1)))
                        }
                    }
                }
            }
            3 => io.max_records = Some(n.scalar_u32(v, "max records")?),
            4 => io.max_records_shared_with = Some(n.scalar_u32(v, "max records shared with")?),
            5 => io.output_array_size = Some(n.scalar_u32(v, "output array size")?),
            6 => io.allow_sparse_nodes = Some(n.scalar_u32(v, "allow sparse nodes")? != 0),
            _ => io.unknown.push(RawProperty::new(md, t, n.op(v))),
        }
    }
    Ok(io)
}

/// The bytes of an `[N x i8]` constant (`c"..."`, data array, aggregate or
/// `zeroinitializer`), bounded to [`MAX_ROOT_SIGNATURE_BYTES`]. An array of wider integers is
/// accepted only while every element fits a byte (none is truncated).
fn byte_array(md: Md<'_>, id: MdId) -> Option<Vec<u8>> {
    let (ty, value) = md.value(id)?;
    int_array(md.module, ty, value, MAX_ROOT_SIGNATURE_BYTES)?
        .into_iter()
        .map(|w| u8::try_from(w).ok())
        .collect()
}

/// The elements of an integer array constant, zero-extended. `limit` bounds the element
/// count, so a `zeroinitializer` of a huge array type cannot allocate without bound.
pub(crate) fn int_array(
    m: &Module,
    ty: dxil_module::TypeId,
    value: dxil_module::Value,
    limit: u64,
) -> Option<Vec<u64>> {
    let (len, elem) = match m.types.data(ty) {
        TypeData::Array { len, elem } => (*len, *elem),
        TypeData::Vector { len, elem } => (u64::from(*len), *elem),
        _ => return None,
    };
    let width = m.types.int_width(elem)?;
    if len > limit {
        return None;
    }
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let c = m.constants.get(value.as_const()?)?;
    let words: Vec<u64> = match &c.data {
        ConstData::Null => vec![0; len as usize],
        ConstData::Data(r) => m.constants.words_of(*r).iter().map(|w| w & mask).collect(),
        ConstData::String(r) => m
            .constants
            .bytes_of(*r)
            .iter()
            .map(|&b| u64::from(b))
            .collect(),
        ConstData::CString(r) => {
            let mut v: Vec<u64> = m
                .constants
                .bytes_of(*r)
                .iter()
                .map(|&b| u64::from(b))
                .collect();
            v.push(0);
            v
        }
        ConstData::Aggregate(r) => m
            .constants
            .values_of(*r)
            .iter()
            .map(|e| m.const_int(*e).map(|x| (x as u64) & mask))
            .collect::<Option<Vec<u64>>>()?,
        _ => return None,
    };
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::DxilModule;
    use crate::testutil::Builder;
    use dxil_module::{ConstKey, TypeData};

    /// A library whose function entry's root signature is an `[1 x i32]` array holding `v`.
    fn wide_root_signature(v: u64) -> Builder {
        let mut b = Builder::new();
        b.shader_model("lib", 6, 8);
        let void = b.void();
        let f = b.function("f", void, &[]);
        let i32t = b.int_ty(32);
        let arr = b.ty(TypeData::Array { len: 1, elem: i32t });
        let data = b.constant(arr, ConstKey::Words(1, vec![v]));
        let item = b.value(arr, data);
        let rs = b.node(&[Some(item)]);
        let t = b.i32(12);
        let list = b.node(&[Some(t), Some(rs)]);
        let fmd = b.function_md(f);
        let name = b.str("f");
        let entry = b.node(&[Some(fmd), Some(name), None, None, Some(list)]);
        b.named("dx.entryPoints", &[entry]);
        b
    }

    /// A library with one function entry whose property list holds `props`.
    fn library_with(build: impl FnOnce(&mut Builder) -> Vec<Option<MdId>>) -> DxilModule {
        let mut b = Builder::new();
        b.shader_model("lib", 6, 8);
        let void = b.void();
        let f = b.function("f", void, &[]);
        let props = build(&mut b);
        let list = b.node(&props);
        let fmd = b.function_md(f);
        let name = b.str("f");
        let entry = b.node(&[Some(fmd), Some(name), None, None, Some(list)]);
        b.named("dx.entryPoints", &[entry]);
        DxilModule::from_module(&b.m).unwrap()
    }

    #[test]
    fn stage_states_decode() {
        let d = library_with(|b| {
            let mut p = Vec::new();
            let mut tag = |b: &mut Builder, t: i64, v: MdId| {
                p.push(Some(b.i32(t)));
                p.push(Some(v));
            };
            let gs = b.ints(&[3, 12, 1, 5, 2]);
            tag(b, 1, gs);
            let ds = b.ints(&[2, 3]);
            tag(b, 2, ds);
            let void = b.void();
            let pc = b.function("pc", void, &[]);
            let pcmd = b.function_md(pc);
            let (i, o, dom, part, prim, max) = (
                b.i32(3),
                b.i32(4),
                b.i32(3),
                b.i32(4),
                b.i32(3),
                b.float(64.0),
            );
            let hs = b.node(&[
                Some(pcmd),
                Some(i),
                Some(o),
                Some(dom),
                Some(part),
                Some(prim),
                Some(max),
            ]);
            tag(b, 3, hs);
            let xyz = b.ints(&[32, 1, 1]);
            let (mv, mp, mt, mpl) = (b.i32(64), b.i32(126), b.i32(2), b.i32(16));
            let ms = b.node(&[Some(xyz), Some(mv), Some(mp), Some(mt), Some(mpl)]);
            tag(b, 9, ms);
            let xyz = b.ints(&[8, 8, 1]);
            let apl = b.i32(32);
            let as_ = b.node(&[Some(xyz), Some(apl)]);
            tag(b, 10, as_);
            let space = b.ints(&[7]);
            tag(b, 5, space);
            let payload = b.i32(20);
            tag(b, 6, payload);
            let attr = b.i32(8);
            tag(b, 7, attr);
            let kind = b.i32(10);
            tag(b, 8, kind);
            let wave = b.ints(&[16, 64, 32]);
            tag(b, 23, wave);
            let limit = b.i32(4096);
            tag(b, 24, limit);
            let unknown = b.i32(5);
            tag(b, 99, unknown);
            p
        });
        let e = &d.entry_points[0];
        let p = &e.properties;
        assert_eq!(e.shader_kind, ShaderKind::ClosestHit);
        assert_eq!(
            p.gs_state,
            Some(GsState {
                input_primitive: InputPrimitive::Triangle,
                max_vertex_count: 12,
                active_stream_mask: 1,
                output_topology: PrimitiveTopology::TriangleStrip,
                instance_count: 2,
            })
        );
        assert_eq!(
            p.ds_state,
            Some(DsState {
                domain: TessellatorDomain::Tri,
                input_control_points: 3
            })
        );
        let hs = p.hs_state.unwrap();
        assert_eq!(hs.patch_constant_function, Some(FuncId(1)));
        assert_eq!((hs.input_control_points, hs.output_control_points), (3, 4));
        assert_eq!(hs.domain, TessellatorDomain::Quad);
        assert_eq!(hs.partitioning, TessellatorPartitioning::FractionalEven);
        assert_eq!(hs.output_primitive, TessellatorOutputPrimitive::TriangleCW);
        assert_eq!(hs.max_tess_factor, 64.0);
        let ms = p.ms_state.unwrap();
        assert_eq!(ms.num_threads, [32, 1, 1]);
        assert_eq!(ms.output_topology, MeshOutputTopology::Triangle);
        assert_eq!(
            (
                ms.max_vertex_count,
                ms.max_primitive_count,
                ms.payload_size_in_bytes
            ),
            (64, 126, 16)
        );
        assert_eq!(
            p.as_state,
            Some(AsState {
                num_threads: [8, 8, 1],
                payload_size_in_bytes: 32
            })
        );
        assert_eq!(p.thread_group_size(), Some([32, 1, 1]));
        assert_eq!(p.auto_binding_space, Some(7));
        assert_eq!(
            (p.ray_payload_size, p.ray_attribute_size),
            (Some(20), Some(8))
        );
        assert_eq!(
            p.wave_size,
            Some(WaveSize {
                min: 16,
                max: 64,
                preferred: 32
            })
        );
        assert_eq!(p.group_shared_limit, Some(4096));
        assert_eq!(p.unknown.len(), 1);
        assert_eq!((p.unknown[0].tag, p.unknown[0].int), (99, Some(5)));
        assert_eq!(p.node, None);
    }

    #[test]
    fn node_shader_properties_and_root_signature_decode() {
        let d = library_with(|b| {
            let mut p = Vec::new();
            let mut tag = |b: &mut Builder, t: i64, v: MdId| {
                p.push(Some(b.i32(t)));
                p.push(Some(v));
            };
            let k = b.i32(15);
            tag(b, 8, k);
            let launch = b.i32(1);
            tag(b, 13, launch);
            let entry = b.int(1, -1);
            tag(b, 14, entry);
            let (n, i) = (b.str("Node"), b.i32(2));
            let id = b.node(&[Some(n), Some(i)]);
            tag(b, 15, id);
            let lra = b.i32(-1);
            tag(b, 16, lra);
            let grid = b.ints(&[4, 2, 1]);
            tag(b, 18, grid);
            let depth = b.i32(3);
            tag(b, 19, depth);
            // One input: flags 0x61 (dispatch record input), record {size 16, grid at 4 u32 x2, align 4}.
            let sv = b.ints(&[4, 5, 2]);
            let (t0, sz, t1, t2, al) = (b.i32(0), b.i32(16), b.i32(1), b.i32(2), b.i32(4));
            let rec = b.node(&[Some(t0), Some(sz), Some(t1), Some(sv), Some(t2), Some(al)]);
            let (f_tag, flags, r_tag) = (b.i32(1), b.i32(0x61), b.i32(2));
            let input = b.node(&[Some(f_tag), Some(flags), Some(r_tag), Some(rec)]);
            let inputs = b.node(&[Some(input)]);
            tag(b, 20, inputs);
            let (o_tag, on, oi) = (b.i32(0), b.str("Out"), b.i32(0));
            let oid = b.node(&[Some(on), Some(oi)]);
            let (f_tag, flags, m_tag, max, s_tag, sparse) = (
                b.i32(1),
                b.i32(6),
                b.i32(3),
                b.i32(8),
                b.i32(6),
                b.int(1, -1),
            );
            let output = b.node(&[
                Some(o_tag),
                Some(oid),
                Some(f_tag),
                Some(flags),
                Some(m_tag),
                Some(max),
                Some(s_tag),
                Some(sparse),
            ]);
            let outputs = b.node(&[Some(output)]);
            tag(b, 21, outputs);
            let i8t = b.int_ty(8);
            let arr = b.ty(TypeData::Array { len: 4, elem: i8t });
            let bytes = b.constant(arr, ConstKey::Bytes(0, vec![2, 0, 0, 0]));
            let item = b.value(arr, bytes);
            let rs = b.node(&[Some(item)]);
            tag(b, 12, rs);
            p
        });
        let e = &d.entry_points[0];
        assert_eq!(e.shader_kind, ShaderKind::Node);
        let p = &e.properties;
        assert_eq!(p.root_signature.as_deref(), Some(&[2u8, 0, 0, 0][..]));
        // Elements that do not fit a byte are an error, not truncated.
        let e = DxilModule::from_module(&wide_root_signature(256).m).unwrap_err();
        assert!(e.to_string().contains("i8 array"), "{e}");
        let wide = DxilModule::from_module(&wide_root_signature(255).m).unwrap();
        assert_eq!(
            wide.entry_points[0].properties.root_signature.as_deref(),
            Some(&[255u8][..])
        );
        let n = p.node.as_ref().unwrap();
        assert_eq!(n.launch_type, Some(NodeLaunchType::Broadcasting));
        assert_eq!(n.is_program_entry, Some(true));
        assert_eq!(
            n.node_id,
            Some(NodeId {
                name: "Node".into(),
                index: 2
            })
        );
        assert_eq!(n.local_root_arguments_table_index, Some(-1));
        assert_eq!(n.dispatch_grid, Some([4, 2, 1]));
        assert_eq!(n.max_recursion_depth, Some(3));
        let input = &n.inputs[0];
        assert_eq!(input.flags, 0x61);
        assert_eq!(input.record_size, Some(16));
        assert_eq!(input.record_alignment, Some(4));
        assert_eq!(input.sv_dispatch_grid, Some((4, ComponentType::U32, 2)));
        let output = &n.outputs[0];
        assert_eq!(
            output.output_id.as_ref().map(|o| o.name.as_str()),
            Some("Out")
        );
        assert_eq!(output.max_records, Some(8));
        assert_eq!(output.allow_sparse_nodes, Some(true));
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(
            json["entry_points"][0]["properties"]["node"]["launch_type"],
            "Broadcasting"
        );
    }

    #[test]
    fn bad_property_values_name_the_tag() {
        let mut b = Builder::new();
        b.shader_model("cs", 6, 0);
        let void = b.void();
        let f = b.function("main", void, &[]);
        let t = b.i32(4);
        let s = b.str("eight");
        let list = b.node(&[Some(t), Some(s)]);
        let fmd = b.function_md(f);
        let name = b.str("main");
        let entry = b.node(&[Some(fmd), Some(name), None, None, Some(list)]);
        b.named("dx.entryPoints", &[entry]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.node(), Some(list));
        assert_eq!(e.field(), Some("num threads"));

        // A tag with a null value.
        let mut b = Builder::new();
        b.shader_model("cs", 6, 0);
        let f = b.function("main", void, &[]);
        let t = b.i32(4);
        let list = b.node(&[Some(t), None]);
        let fmd = b.function_md(f);
        let name = b.str("main");
        let entry = b.node(&[Some(fmd), Some(name), None, None, Some(list)]);
        b.named("dx.entryPoints", &[entry]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.field(), Some("value of tag 4"));
    }

    #[test]
    fn int_arrays_are_bounded() {
        let mut b = Builder::new();
        let i8t = b.int_ty(8);
        let huge = b.ty(TypeData::Array {
            len: u64::MAX,
            elem: i8t,
        });
        let z = b.constant(huge, ConstKey::Plain(ConstData::Null));
        assert_eq!(int_array(&b.m, huge, z, 1 << 20), None);
        let small = b.ty(TypeData::Array { len: 3, elem: i8t });
        let z = b.constant(small, ConstKey::Plain(ConstData::Null));
        assert_eq!(int_array(&b.m, small, z, 1 << 20), Some(vec![0, 0, 0]));
        let s = b.constant(small, ConstKey::Bytes(1, vec![7, 8]));
        assert_eq!(int_array(&b.m, small, s, 1 << 20), Some(vec![7, 8, 0]));
        let v1 = b.const_int(8, -1);
        let v2 = b.const_int(8, 2);
        let agg = b.constant(small, ConstKey::Values(0, vec![v1, v2, v2], None));
        assert_eq!(int_array(&b.m, small, agg, 1 << 20), Some(vec![255, 2, 2]));
    }
}
