//! `PSV0`: pipeline state validation data, versions 0 to 4.
//!
//! The version is not stored; it follows from the size of the runtime-info struct (24, 36, 48,
//! 52, 56 bytes for v0..v4). After it come the resource bindings, and from v1 on the string table,
//! the semantic index table, the PSV signature elements, the ViewID masks and the input/output
//! dependency tables, whose sizes follow from the stage and the vector counts in the runtime info
//! (DXC's `DxilPipelineStateValidation::ReadOrWrite`).

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::enums::{
    ComponentType, InputPrimitive, InterpolationMode, MeshOutputTopology, PrimitiveTopology,
    ResourceKind, ResourceType, SemanticKind, ShaderKind, TessellatorDomain,
    TessellatorOutputPrimitive, narrow_u8,
};
use crate::read::{Cursor, PutLe, c_str_at, len_u32};
use crate::{Error, ErrorKind, FourCC, Result};

/// Runtime-info size of each PSV version.
pub const RUNTIME_INFO_SIZES: [u32; 5] = [24, 36, 48, 52, 56];
/// Highest PSV version this crate knows the fields of.
pub const MAX_PSV_VERSION: u32 = 4;
/// Size of `PSVResourceBindInfo0`.
pub const BIND_INFO0_SIZE: u32 = 16;
/// Size of `PSVResourceBindInfo1` (v2 and later).
pub const BIND_INFO1_SIZE: u32 = 24;
/// Size of `PSVSignatureElement0`.
pub const SIGNATURE_ELEMENT0_SIZE: u32 = 16;

const PART: FourCC = FourCC::PSV0;

/// `PSVComputeMaskDwordsFromVectors`: dwords of a mask with one bit per component.
pub fn mask_dwords(vectors: u32) -> usize {
    (vectors as usize).div_ceil(8)
}

/// `PSVComputeInputOutputTableDwords`: dwords of an input→output dependency table.
pub fn io_table_dwords(input_vectors: u32, output_vectors: u32) -> usize {
    mask_dwords(output_vectors) * input_vectors as usize * 4
}

/// The stage-specific union at the start of the runtime info (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "stage")]
pub enum StageInfo {
    /// Vertex shader.
    Vertex {
        /// Whether SV_Position is written.
        output_position_present: u8,
    },
    /// Hull shader.
    Hull {
        /// Input control points.
        input_control_point_count: u32,
        /// Output control points.
        output_control_point_count: u32,
        /// Tessellator domain.
        tessellator_domain: TessellatorDomain,
        /// Tessellator output primitive.
        tessellator_output_primitive: TessellatorOutputPrimitive,
    },
    /// Domain shader.
    Domain {
        /// Input control points.
        input_control_point_count: u32,
        /// Whether SV_Position is written.
        output_position_present: u8,
        /// Tessellator domain.
        tessellator_domain: TessellatorDomain,
    },
    /// Geometry shader.
    Geometry {
        /// Input primitive.
        input_primitive: InputPrimitive,
        /// Output topology.
        output_topology: PrimitiveTopology,
        /// Streams written (at least stream 0).
        output_stream_mask: u32,
        /// Whether SV_Position is written.
        output_position_present: u8,
    },
    /// Pixel shader.
    Pixel {
        /// Whether a depth output is written.
        depth_output: u8,
        /// Whether it runs per sample.
        sample_frequency: u8,
    },
    /// Mesh shader.
    Mesh {
        /// Groupshared bytes.
        group_shared_bytes_used: u32,
        /// Groupshared bytes that depend on ViewID.
        group_shared_bytes_dependent_on_view_id: u32,
        /// Payload size.
        payload_size_in_bytes: u32,
        /// Maximum output vertices.
        max_output_vertices: u16,
        /// Maximum output primitives.
        max_output_primitives: u16,
    },
    /// Amplification shader.
    Amplification {
        /// Payload size.
        payload_size_in_bytes: u32,
    },
    /// A stage without a union member (compute, library, ray tracing, node): all zero.
    None,
    /// The stage is unknown (version 0 without a hint), or bytes outside the stage's member are
    /// set; kept as stored.
    Raw {
        /// The 16 stored bytes.
        #[serde(serialize_with = "crate::container::serialize_hex")]
        bytes: [u8; 16],
    },
}

fn le32(b: &[u8; 16], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le16(b: &[u8; 16], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

impl StageInfo {
    /// Decodes the union for `stage`; falls back to [`StageInfo::Raw`] when decoding and
    /// re-encoding would not give the same bytes.
    pub fn decode(stage: Option<ShaderKind>, b: [u8; 16]) -> StageInfo {
        let decoded = match stage {
            Some(ShaderKind::Vertex) => StageInfo::Vertex {
                output_position_present: b[0],
            },
            Some(ShaderKind::Hull) => StageInfo::Hull {
                input_control_point_count: le32(&b, 0),
                output_control_point_count: le32(&b, 4),
                tessellator_domain: le32(&b, 8).into(),
                tessellator_output_primitive: le32(&b, 12).into(),
            },
            Some(ShaderKind::Domain) => StageInfo::Domain {
                input_control_point_count: le32(&b, 0),
                output_position_present: b[4],
                tessellator_domain: le32(&b, 8).into(),
            },
            Some(ShaderKind::Geometry) => StageInfo::Geometry {
                input_primitive: le32(&b, 0).into(),
                output_topology: le32(&b, 4).into(),
                output_stream_mask: le32(&b, 8),
                output_position_present: b[12],
            },
            Some(ShaderKind::Pixel) => StageInfo::Pixel {
                depth_output: b[0],
                sample_frequency: b[1],
            },
            Some(ShaderKind::Mesh) => StageInfo::Mesh {
                group_shared_bytes_used: le32(&b, 0),
                group_shared_bytes_dependent_on_view_id: le32(&b, 4),
                payload_size_in_bytes: le32(&b, 8),
                max_output_vertices: le16(&b, 12),
                max_output_primitives: le16(&b, 14),
            },
            Some(ShaderKind::Amplification) => StageInfo::Amplification {
                payload_size_in_bytes: le32(&b, 0),
            },
            Some(_) => StageInfo::None,
            None => StageInfo::Raw { bytes: b },
        };
        if decoded.encode() == b {
            decoded
        } else {
            StageInfo::Raw { bytes: b }
        }
    }

    /// The 16 stored bytes (unused bytes zero, as DXC writes them).
    pub fn encode(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        let put32 = |b: &mut [u8; 16], at: usize, v: u32| {
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        };
        match *self {
            StageInfo::Vertex {
                output_position_present,
            } => b[0] = output_position_present,
            StageInfo::Hull {
                input_control_point_count,
                output_control_point_count,
                tessellator_domain,
                tessellator_output_primitive,
            } => {
                put32(&mut b, 0, input_control_point_count);
                put32(&mut b, 4, output_control_point_count);
                put32(&mut b, 8, tessellator_domain.raw());
                put32(&mut b, 12, tessellator_output_primitive.raw());
            }
            StageInfo::Domain {
                input_control_point_count,
                output_position_present,
                tessellator_domain,
            } => {
                put32(&mut b, 0, input_control_point_count);
                b[4] = output_position_present;
                put32(&mut b, 8, tessellator_domain.raw());
            }
            StageInfo::Geometry {
                input_primitive,
                output_topology,
                output_stream_mask,
                output_position_present,
            } => {
                put32(&mut b, 0, input_primitive.raw());
                put32(&mut b, 4, output_topology.raw());
                put32(&mut b, 8, output_stream_mask);
                b[12] = output_position_present;
            }
            StageInfo::Pixel {
                depth_output,
                sample_frequency,
            } => {
                b[0] = depth_output;
                b[1] = sample_frequency;
            }
            StageInfo::Mesh {
                group_shared_bytes_used,
                group_shared_bytes_dependent_on_view_id,
                payload_size_in_bytes,
                max_output_vertices,
                max_output_primitives,
            } => {
                put32(&mut b, 0, group_shared_bytes_used);
                put32(&mut b, 4, group_shared_bytes_dependent_on_view_id);
                put32(&mut b, 8, payload_size_in_bytes);
                b[12..14].copy_from_slice(&max_output_vertices.to_le_bytes());
                b[14..16].copy_from_slice(&max_output_primitives.to_le_bytes());
            }
            StageInfo::Amplification {
                payload_size_in_bytes,
            } => put32(&mut b, 0, payload_size_in_bytes),
            StageInfo::None => {}
            StageInfo::Raw { bytes } => b = bytes,
        }
        b
    }
}

/// The 16-bit union of `PSVRuntimeInfo1`, decoded by stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum Info1Union {
    /// Geometry shader: `MaxVertexCount`.
    Geometry {
        /// Maximum vertices emitted.
        max_vertex_count: u16,
    },
    /// Hull (output) or domain (input) shader: `SigPatchConstOrPrimVectors`.
    PatchConstant {
        /// Packed patch-constant vectors.
        sig_patch_const_vectors: u8,
    },
    /// Mesh shader: `MSInfo1`.
    Mesh {
        /// Packed primitive-output vectors.
        sig_prim_vectors: u8,
        /// Output topology.
        mesh_output_topology: MeshOutputTopology,
    },
    /// Other stages (zero in DXC output), or bytes the stage's member does not explain.
    Raw {
        /// The stored value.
        value: u16,
    },
}

impl Info1Union {
    fn decode(stage: ShaderKind, v: u16) -> Info1Union {
        let [lo, hi] = v.to_le_bytes();
        match stage {
            ShaderKind::Geometry => Info1Union::Geometry {
                max_vertex_count: v,
            },
            ShaderKind::Hull | ShaderKind::Domain if hi == 0 => Info1Union::PatchConstant {
                sig_patch_const_vectors: lo,
            },
            ShaderKind::Mesh => Info1Union::Mesh {
                sig_prim_vectors: lo,
                mesh_output_topology: u32::from(hi).into(),
            },
            _ => Info1Union::Raw { value: v },
        }
    }

    fn encode(&self) -> Result<u16> {
        Ok(match *self {
            Info1Union::Geometry { max_vertex_count } => max_vertex_count,
            Info1Union::PatchConstant {
                sig_patch_const_vectors,
            } => u16::from(sig_patch_const_vectors),
            Info1Union::Mesh {
                sig_prim_vectors,
                mesh_output_topology,
            } => {
                let hi = narrow_u8(mesh_output_topology.raw(), PART, "mesh output topology")?;
                u16::from_le_bytes([sig_prim_vectors, hi])
            }
            Info1Union::Raw { value } => value,
        })
    }

    /// The low byte, which DXC reads as `SigPatchConstOrPrimVectors` for hull, domain and mesh
    /// shaders.
    fn low_byte(&self) -> u8 {
        self.encode().map_or(0, |v| v.to_le_bytes()[0])
    }
}

/// `PSVRuntimeInfo1` fields (v1 and later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuntimeInfo1 {
    /// The stage; it decides the sizes of the tables after the signature elements.
    pub shader_stage: ShaderKind,
    /// Non-zero when the shader reads SV_ViewID.
    pub uses_view_id: u8,
    /// The stage-dependent 16-bit union.
    pub stage_union: Info1Union,
    /// Input signature elements.
    pub sig_input_elements: u8,
    /// Output signature elements.
    pub sig_output_elements: u8,
    /// Patch-constant or primitive signature elements.
    pub sig_patch_const_or_prim_elements: u8,
    /// Packed input vectors.
    pub sig_input_vectors: u8,
    /// Packed output vectors per GS stream.
    pub sig_output_vectors: [u8; 4],
}

impl RuntimeInfo1 {
    /// `SigPatchConstOrPrimVectors` for hull, domain and mesh shaders, 0 otherwise.
    pub fn sig_patch_const_or_prim_vectors(&self) -> u8 {
        match self.shader_stage {
            ShaderKind::Hull | ShaderKind::Domain | ShaderKind::Mesh => self.stage_union.low_byte(),
            _ => 0,
        }
    }
}

/// The runtime-info struct, all versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuntimeInfo {
    /// The per-stage union.
    pub stage_info: StageInfo,
    /// Minimum wave size required (0: none).
    pub min_wave_lane_count: u32,
    /// Maximum wave size allowed (0xffffffff: none).
    pub max_wave_lane_count: u32,
    /// v1 fields.
    pub v1: Option<RuntimeInfo1>,
    /// v2: `NumThreadsX/Y/Z`.
    pub num_threads: Option<[u32; 3]>,
    /// v3: entry function name, an offset into the string table.
    pub entry_function_name: Option<u32>,
    /// v4: groupshared bytes.
    pub num_bytes_group_shared_memory: Option<u32>,
}

/// One resource binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ResourceBinding {
    /// Access type.
    pub res_type: ResourceType,
    /// Register space.
    pub space: u32,
    /// First register.
    pub lower_bound: u32,
    /// Last register (0xffffffff: unbounded).
    pub upper_bound: u32,
    /// v2+: resource shape.
    pub res_kind: Option<ResourceKind>,
    /// v2+: flags (bit 0: used by 64-bit atomics).
    pub res_flags: Option<u32>,
}

/// One PSV signature element (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PsvSignatureElement {
    /// Semantic name: offset into the string table (0 = empty, used for system values).
    pub semantic_name: u32,
    /// Offset into the semantic index table; `rows` entries.
    pub semantic_indexes: u32,
    /// Rows.
    pub rows: u8,
    /// First row, when allocated.
    pub start_row: u8,
    /// Columns (bits 0..4 of `ColsAndStart`).
    pub cols: u8,
    /// First column (bits 4..6), when allocated.
    pub start_col: u8,
    /// Bit 6 of `ColsAndStart`.
    pub allocated: bool,
    /// Semantic kind.
    pub semantic_kind: SemanticKind,
    /// Component type.
    pub component_type: ComponentType,
    /// Interpolation mode.
    pub interpolation_mode: InterpolationMode,
    /// Dynamically indexed components (bits 0..4 of `DynamicMaskAndStream`).
    pub dynamic_index_mask: u8,
    /// Output stream (bits 4..6).
    pub output_stream: u8,
    /// The reserved byte.
    pub reserved: u8,
}

impl PsvSignatureElement {
    fn parse(c: &mut Cursor<'_>, stride: u32) -> Result<Self> {
        let start = c.pos();
        let semantic_name = c.u32("semantic name")?;
        let semantic_indexes = c.u32("semantic indexes")?;
        let rows = c.u8("rows")?;
        let start_row = c.u8("start row")?;
        let cols_and_start = c.u8("cols and start")?;
        let semantic_kind = SemanticKind::from_raw(c.u8("semantic kind")?.into());
        let component_type = ComponentType::from_raw(c.u8("component type")?.into());
        let interpolation_mode = InterpolationMode::from_raw(c.u8("interpolation mode")?.into());
        let dynamic_mask_and_stream = c.u8("dynamic mask and stream")?;
        let reserved = c.u8("reserved")?;
        c.seek(start + stride as usize, "next signature element")?;
        Ok(PsvSignatureElement {
            semantic_name,
            semantic_indexes,
            rows,
            start_row,
            cols: cols_and_start & 0xf,
            start_col: (cols_and_start >> 4) & 0x3,
            allocated: cols_and_start & 0x40 != 0,
            semantic_kind,
            component_type,
            interpolation_mode,
            dynamic_index_mask: dynamic_mask_and_stream & 0xf,
            output_stream: (dynamic_mask_and_stream >> 4) & 0x3,
            reserved,
        })
    }

    fn write(&self, out: &mut Vec<u8>, stride: u32) -> Result<()> {
        let start = out.len();
        out.put_u32(self.semantic_name);
        out.put_u32(self.semantic_indexes);
        out.put_u8(self.rows);
        out.put_u8(self.start_row);
        out.put_u8(
            (self.cols & 0xf)
                | ((self.start_col & 0x3) << 4)
                | if self.allocated { 0x40 } else { 0 },
        );
        out.put_u8(narrow_u8(self.semantic_kind.raw(), PART, "semantic kind")?);
        out.put_u8(narrow_u8(
            self.component_type.raw(),
            PART,
            "component type",
        )?);
        out.put_u8(narrow_u8(
            self.interpolation_mode.raw(),
            PART,
            "interpolation mode",
        )?);
        out.put_u8((self.dynamic_index_mask & 0xf) | ((self.output_stream & 0x3) << 4));
        out.put_u8(self.reserved);
        out.resize(start + stride as usize, 0);
        Ok(())
    }
}

/// A decoded `PSV0` part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Psv<'a> {
    /// PSV version (0..=4), from the runtime-info size.
    pub version: u32,
    /// The runtime info.
    pub runtime_info: RuntimeInfo,
    /// Runtime-info bytes past the fields of `version` (a newer version's fields), kept as stored.
    pub runtime_info_extra: &'a [u8],
    /// `PSVResourceBindInfo` record size (16 for v0/v1, 24 from v2); only stored when there are
    /// resources.
    pub resource_stride: u32,
    /// Resource bindings: CBVs, samplers, SRVs, UAVs.
    pub resources: Vec<ResourceBinding>,
    /// v1+: the string table (NUL-separated; DXC starts it with a NUL so offset 0 is "").
    pub string_table: Cow<'a, [u8]>,
    /// v1+: the semantic index table.
    pub semantic_index_table: Vec<u32>,
    /// `PSVSignatureElement` size (16); only stored when there are elements.
    pub signature_element_stride: u32,
    /// v1+: input signature elements.
    pub input_elements: Vec<PsvSignatureElement>,
    /// v1+: output signature elements.
    pub output_elements: Vec<PsvSignatureElement>,
    /// v1+: patch-constant or primitive signature elements.
    pub patch_const_or_prim_elements: Vec<PsvSignatureElement>,
    /// Outputs affected by ViewID, per stream (only GS has more than stream 0).
    pub view_id_output_masks: [Vec<u32>; 4],
    /// Patch-constant (HS) or primitive (MS) outputs affected by ViewID.
    pub view_id_patch_const_or_prim_mask: Vec<u32>,
    /// Outputs affected by inputs, per stream (only GS has more than stream 0).
    pub input_to_output_tables: [Vec<u32>; 4],
    /// HS: patch-constant outputs affected by inputs.
    pub input_to_patch_const_table: Vec<u32>,
    /// DS: outputs affected by patch-constant inputs.
    pub patch_const_input_to_output_table: Vec<u32>,
    /// Bytes after the last section (DXC's reader ignores them), kept as stored.
    pub trailing: &'a [u8],
}

/// What the runtime info says about the sizes of the tables after the signature elements.
struct TableShape {
    stage: ShaderKind,
    uses_view_id: bool,
    input_vectors: u32,
    output_vectors: [u32; 4],
    pc_vectors: u32,
}

impl TableShape {
    fn of(info: &RuntimeInfo1) -> Self {
        TableShape {
            stage: info.shader_stage,
            uses_view_id: info.uses_view_id != 0,
            input_vectors: info.sig_input_vectors.into(),
            output_vectors: info.sig_output_vectors.map(u32::from),
            pc_vectors: info.sig_patch_const_or_prim_vectors().into(),
        }
    }

    fn streams(&self) -> usize {
        if self.stage == ShaderKind::Geometry {
            4
        } else {
            1
        }
    }

    fn view_id_mask_len(&self, stream: usize) -> usize {
        match self.output_vectors.get(stream) {
            Some(&v) if self.uses_view_id && stream < self.streams() && v != 0 => mask_dwords(v),
            _ => 0,
        }
    }

    fn view_id_pc_mask_len(&self) -> usize {
        let has = matches!(self.stage, ShaderKind::Hull | ShaderKind::Mesh);
        if self.uses_view_id && has && self.pc_vectors != 0 {
            mask_dwords(self.pc_vectors)
        } else {
            0
        }
    }

    fn io_table_len(&self, stream: usize) -> usize {
        match self.output_vectors.get(stream) {
            Some(&v)
                if self.stage != ShaderKind::Mesh
                    && stream < self.streams()
                    && v != 0
                    && self.input_vectors != 0 =>
            {
                io_table_dwords(self.input_vectors, v)
            }
            _ => 0,
        }
    }

    fn input_to_pc_len(&self) -> usize {
        if self.stage == ShaderKind::Hull && self.pc_vectors != 0 && self.input_vectors != 0 {
            io_table_dwords(self.input_vectors, self.pc_vectors)
        } else {
            0
        }
    }

    fn pc_to_output_len(&self) -> usize {
        let out0 = self.output_vectors[0];
        if self.stage == ShaderKind::Domain && out0 != 0 && self.pc_vectors != 0 {
            io_table_dwords(self.pc_vectors, out0)
        } else {
            0
        }
    }
}

/// The version whose runtime info fits in `size` bytes.
pub fn version_for_runtime_info_size(size: u32) -> Option<u32> {
    RUNTIME_INFO_SIZES
        .iter()
        .rposition(|&s| size >= s)
        .map(|v| v as u32)
}

impl<'a> Psv<'a> {
    /// Parses a `PSV0` part. `base` is the absolute offset of `data[0]`; `stage` names the stage
    /// for a version-0 part (which does not store it) so that its union can be decoded.
    pub fn parse(data: &'a [u8], base: usize, stage: Option<ShaderKind>) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(PART));
        let info_size = c.u32("runtime info size")?;
        let Some(version) = version_for_runtime_info_size(info_size) else {
            return Err(c.error_at(
                0,
                ErrorKind::Malformed,
                format!("runtime info size {info_size} is below the 24 bytes of version 0"),
            ));
        };
        let info_bytes = c.bytes(info_size as usize, "runtime info")?;
        let mut ic = Cursor::new(info_bytes, c.abs(4), Some(PART));
        let union: [u8; 16] = ic.array("stage union")?;
        let min_wave_lane_count = ic.u32("minimum wave lane count")?;
        let max_wave_lane_count = ic.u32("maximum wave lane count")?;
        let mut v1 = None;
        if version >= 1 {
            let shader_stage = ShaderKind::from_raw(ic.u8("shader stage")?.into());
            let uses_view_id = ic.u8("uses ViewID")?;
            let union16 = ic.u16("max vertex count / patch constant vectors")?;
            v1 = Some(RuntimeInfo1 {
                shader_stage,
                uses_view_id,
                stage_union: Info1Union::decode(shader_stage, union16),
                sig_input_elements: ic.u8("input element count")?,
                sig_output_elements: ic.u8("output element count")?,
                sig_patch_const_or_prim_elements: ic.u8("patch constant element count")?,
                sig_input_vectors: ic.u8("input vectors")?,
                sig_output_vectors: ic.array("output vectors")?,
            });
        }
        let num_threads = if version >= 2 {
            Some([
                ic.u32("num threads x")?,
                ic.u32("num threads y")?,
                ic.u32("num threads z")?,
            ])
        } else {
            None
        };
        let entry_function_name = if version >= 3 {
            Some(ic.u32("entry function name")?)
        } else {
            None
        };
        let num_bytes_group_shared_memory = if version >= 4 {
            Some(ic.u32("groupshared bytes")?)
        } else {
            None
        };
        let runtime_info_extra = info_bytes.get(ic.pos()..).unwrap_or_default();
        let stage_for_union = v1.map(|i| i.shader_stage).or(stage);
        let runtime_info = RuntimeInfo {
            stage_info: StageInfo::decode(stage_for_union, union),
            min_wave_lane_count,
            max_wave_lane_count,
            v1,
            num_threads,
            entry_function_name,
            num_bytes_group_shared_memory,
        };

        let resource_count = c.u32("resource count")? as usize;
        let mut resource_stride = 0;
        let mut resources = Vec::new();
        if resource_count > 0 {
            resource_stride = c.u32("resource record size")?;
            if resource_stride < BIND_INFO0_SIZE {
                return Err(c.error(
                    ErrorKind::Malformed,
                    format!("resource record size {resource_stride} is below 16"),
                ));
            }
            c.check_records(
                resource_count,
                resource_stride as usize,
                "resource bindings",
            )?;
            resources.reserve_exact(resource_count);
            for _ in 0..resource_count {
                let start = c.pos();
                let res_type = ResourceType::from_raw(c.u32("resource type")?);
                let space = c.u32("space")?;
                let lower_bound = c.u32("lower bound")?;
                let upper_bound = c.u32("upper bound")?;
                let (res_kind, res_flags) = if resource_stride >= BIND_INFO1_SIZE {
                    (
                        Some(ResourceKind::from_raw(c.u32("resource kind")?)),
                        Some(c.u32("resource flags")?),
                    )
                } else {
                    (None, None)
                };
                c.seek(start + resource_stride as usize, "next resource binding")?;
                resources.push(ResourceBinding {
                    res_type,
                    space,
                    lower_bound,
                    upper_bound,
                    res_kind,
                    res_flags,
                });
            }
        }

        let mut psv = Psv {
            version,
            runtime_info,
            runtime_info_extra,
            resource_stride,
            resources,
            string_table: Cow::Borrowed(&[]),
            semantic_index_table: Vec::new(),
            signature_element_stride: 0,
            input_elements: Vec::new(),
            output_elements: Vec::new(),
            patch_const_or_prim_elements: Vec::new(),
            view_id_output_masks: Default::default(),
            view_id_patch_const_or_prim_mask: Vec::new(),
            input_to_output_tables: Default::default(),
            input_to_patch_const_table: Vec::new(),
            patch_const_input_to_output_table: Vec::new(),
            trailing: &[],
        };
        if let Some(info1) = v1 {
            let size = c.u32("string table size")?;
            if !size.is_multiple_of(4) {
                return Err(c.error_at(
                    c.pos() - 4,
                    ErrorKind::Malformed,
                    format!("string table size {size} is not a multiple of 4"),
                ));
            }
            psv.string_table = Cow::Borrowed(c.bytes(size as usize, "string table")?);
            let entries = c.u32("semantic index count")? as usize;
            psv.semantic_index_table = c.u32_vec(entries, "semantic index table")?;
            let counts = [
                info1.sig_input_elements,
                info1.sig_output_elements,
                info1.sig_patch_const_or_prim_elements,
            ];
            if counts.iter().any(|&n| n != 0) {
                let stride = c.u32("signature element size")?;
                if stride < SIGNATURE_ELEMENT0_SIZE {
                    return Err(c.error(
                        ErrorKind::Malformed,
                        format!("signature element size {stride} is below 16"),
                    ));
                }
                psv.signature_element_stride = stride;
                let total = counts.iter().map(|&n| usize::from(n)).sum::<usize>();
                c.check_records(total, stride as usize, "PSV signature elements")?;
                for (list, n) in [
                    &mut psv.input_elements,
                    &mut psv.output_elements,
                    &mut psv.patch_const_or_prim_elements,
                ]
                .into_iter()
                .zip(counts)
                {
                    list.reserve_exact(n.into());
                    for _ in 0..n {
                        list.push(PsvSignatureElement::parse(&mut c, stride)?);
                    }
                }
            }
            let shape = TableShape::of(&info1);
            for stream in 0..4 {
                let n = shape.view_id_mask_len(stream);
                psv.view_id_output_masks[stream] = c.u32_vec(n, "ViewID output mask")?;
            }
            psv.view_id_patch_const_or_prim_mask =
                c.u32_vec(shape.view_id_pc_mask_len(), "ViewID patch constant mask")?;
            for stream in 0..4 {
                let n = shape.io_table_len(stream);
                psv.input_to_output_tables[stream] =
                    c.u32_vec(n, "input to output dependency table")?;
            }
            psv.input_to_patch_const_table =
                c.u32_vec(shape.input_to_pc_len(), "input to patch constant table")?;
            psv.patch_const_input_to_output_table =
                c.u32_vec(shape.pc_to_output_len(), "patch constant to output table")?;
        }
        psv.trailing = data.get(c.pos()..).unwrap_or_default();
        Ok(psv)
    }

    /// The NUL-terminated string at `offset` in the string table.
    pub fn string(&self, offset: u32) -> Result<&str> {
        c_str_at(
            &self.string_table,
            offset as usize,
            0,
            Some(PART),
            "PSV string",
        )
    }

    /// An element's semantic name.
    pub fn element_name(&self, element: &PsvSignatureElement) -> Result<&str> {
        self.string(element.semantic_name)
    }

    /// An element's semantic indices (`rows` entries of the semantic index table).
    pub fn semantic_indices(&self, element: &PsvSignatureElement) -> Result<&[u32]> {
        let start = element.semantic_indexes as usize;
        self.semantic_index_table
            .get(start..start + usize::from(element.rows))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Malformed,
                    0,
                    Some(PART),
                    format!(
                        "semantic indexes [{start}, {}) lie outside the {}-entry table",
                        start + usize::from(element.rows),
                        self.semantic_index_table.len()
                    ),
                )
            })
    }

    /// The entry function name (v3+).
    pub fn entry_function_name(&self) -> Option<Result<&str>> {
        self.runtime_info
            .entry_function_name
            .map(|offset| self.string(offset))
    }

    /// Sets the element counts in the v1 runtime info from the element lists.
    pub fn update_element_counts(&mut self) -> Result<()> {
        let counts = [
            len_u32(self.input_elements.len(), PART, "input elements")?,
            len_u32(self.output_elements.len(), PART, "output elements")?,
            len_u32(
                self.patch_const_or_prim_elements.len(),
                PART,
                "patch constant elements",
            )?,
        ];
        if let Some(v1) = &mut self.runtime_info.v1 {
            v1.sig_input_elements = narrow_u8(counts[0], PART, "input element count")?;
            v1.sig_output_elements = narrow_u8(counts[1], PART, "output element count")?;
            v1.sig_patch_const_or_prim_elements =
                narrow_u8(counts[2], PART, "patch constant element count")?;
        }
        Ok(())
    }

    /// Serializes the part (DXC's `ReadOrWrite` in write mode). The runtime info's version fields
    /// must match `version`; element counts and table lengths must match the runtime info.
    pub fn write(&self) -> Result<Vec<u8>> {
        let known = RUNTIME_INFO_SIZES
            .get(self.version as usize)
            .copied()
            .ok_or_else(|| invalid(format!("PSV version {} is not 0..=4", self.version)))?;
        let info = &self.runtime_info;
        let has = |v: u32| self.version >= v;
        if info.v1.is_some() != has(1)
            || info.num_threads.is_some() != has(2)
            || info.entry_function_name.is_some() != has(3)
            || info.num_bytes_group_shared_memory.is_some() != has(4)
        {
            return Err(invalid(format!(
                "runtime info fields do not match PSV version {}",
                self.version
            )));
        }
        let info_size = len_u32(
            known as usize + self.runtime_info_extra.len(),
            PART,
            "runtime info size",
        )?;
        let mut out = Vec::with_capacity(256);
        out.put_u32(info_size);
        out.extend_from_slice(&info.stage_info.encode());
        out.put_u32(info.min_wave_lane_count);
        out.put_u32(info.max_wave_lane_count);
        if let Some(v1) = &info.v1 {
            out.put_u8(narrow_u8(v1.shader_stage.raw(), PART, "shader stage")?);
            out.put_u8(v1.uses_view_id);
            out.put_u16(v1.stage_union.encode()?);
            out.put_u8(v1.sig_input_elements);
            out.put_u8(v1.sig_output_elements);
            out.put_u8(v1.sig_patch_const_or_prim_elements);
            out.put_u8(v1.sig_input_vectors);
            out.extend_from_slice(&v1.sig_output_vectors);
        }
        if let Some([x, y, z]) = info.num_threads {
            out.put_u32(x);
            out.put_u32(y);
            out.put_u32(z);
        }
        if let Some(name) = info.entry_function_name {
            out.put_u32(name);
        }
        if let Some(bytes) = info.num_bytes_group_shared_memory {
            out.put_u32(bytes);
        }
        out.extend_from_slice(self.runtime_info_extra);

        out.put_u32(len_u32(self.resources.len(), PART, "resource count")?);
        if !self.resources.is_empty() {
            let stride = self.resource_stride;
            if stride < BIND_INFO0_SIZE {
                return Err(invalid(format!(
                    "resource record size {stride} is below 16"
                )));
            }
            out.put_u32(stride);
            for r in &self.resources {
                let start = out.len();
                out.put_u32(r.res_type.raw());
                out.put_u32(r.space);
                out.put_u32(r.lower_bound);
                out.put_u32(r.upper_bound);
                if stride >= BIND_INFO1_SIZE {
                    out.put_u32(r.res_kind.unwrap_or(ResourceKind::Invalid).raw());
                    out.put_u32(r.res_flags.unwrap_or(0));
                }
                out.resize(start + stride as usize, 0);
            }
        }

        if let Some(v1) = &info.v1 {
            let padded = self.string_table.len().div_ceil(4) * 4;
            out.put_u32(len_u32(padded, PART, "string table size")?);
            out.extend_from_slice(&self.string_table);
            // Pad the table itself, not the part: a runtime-info size that is not a multiple of
            // 4 (a foreign or damaged part) leaves the table unaligned, and the reader takes
            // exactly the declared size.
            out.resize(out.len() + (padded - self.string_table.len()), 0);
            out.put_u32(len_u32(
                self.semantic_index_table.len(),
                PART,
                "semantic index count",
            )?);
            for &i in &self.semantic_index_table {
                out.put_u32(i);
            }
            let lists = [
                (&self.input_elements, v1.sig_input_elements, "input"),
                (&self.output_elements, v1.sig_output_elements, "output"),
                (
                    &self.patch_const_or_prim_elements,
                    v1.sig_patch_const_or_prim_elements,
                    "patch constant",
                ),
            ];
            for (list, count, what) in &lists {
                if list.len() != usize::from(*count) {
                    return Err(invalid(format!(
                        "{} {what} elements, the runtime info says {count}",
                        list.len()
                    )));
                }
            }
            if lists.iter().any(|(list, _, _)| !list.is_empty()) {
                let stride = self.signature_element_stride;
                if stride < SIGNATURE_ELEMENT0_SIZE {
                    return Err(invalid(format!(
                        "signature element size {stride} is below 16"
                    )));
                }
                out.put_u32(stride);
                for (list, _, _) in &lists {
                    for e in list.iter() {
                        e.write(&mut out, stride)?;
                    }
                }
            }
            let shape = TableShape::of(v1);
            let mut put_table = |table: &[u32], expected: usize, what: &str| -> Result<()> {
                if table.len() != expected {
                    return Err(invalid(format!(
                        "{what} has {} dwords, the runtime info implies {expected}",
                        table.len()
                    )));
                }
                for &w in table {
                    out.put_u32(w);
                }
                Ok(())
            };
            for stream in 0..4 {
                put_table(
                    &self.view_id_output_masks[stream],
                    shape.view_id_mask_len(stream),
                    "ViewID output mask",
                )?;
            }
            put_table(
                &self.view_id_patch_const_or_prim_mask,
                shape.view_id_pc_mask_len(),
                "ViewID patch constant mask",
            )?;
            for stream in 0..4 {
                put_table(
                    &self.input_to_output_tables[stream],
                    shape.io_table_len(stream),
                    "input to output table",
                )?;
            }
            put_table(
                &self.input_to_patch_const_table,
                shape.input_to_pc_len(),
                "input to patch constant table",
            )?;
            put_table(
                &self.patch_const_input_to_output_table,
                shape.pc_to_output_len(),
                "patch constant to output table",
            )?;
        }
        out.extend_from_slice(self.trailing);
        Ok(out)
    }
}

#[cold]
fn invalid(message: String) -> Error {
    Error::new(ErrorKind::Invalid, 0, Some(PART), message)
}

/// Builds a PSV0 string table and semantic index table the way DXC's `DxilPSVWriter` does: the
/// string table starts with a NUL (offset 0 is the empty name of system values), arbitrary
/// semantic names are appended without sharing, and an index sequence reuses any earlier
/// occurrence of the same sequence in the index table.
#[derive(Debug, Clone)]
pub struct PsvTablesBuilder {
    strings: Vec<u8>,
    indices: Vec<u32>,
}

impl Default for PsvTablesBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl PsvTablesBuilder {
    /// A string table holding only the leading NUL.
    pub fn new() -> Self {
        PsvTablesBuilder {
            strings: vec![0],
            indices: Vec::new(),
        }
    }

    /// The name offset for an element: appended for a non-empty arbitrary semantic, 0 otherwise.
    pub fn element_name(&mut self, kind: SemanticKind, name: &str) -> Result<u32> {
        if kind == SemanticKind::Arbitrary && !name.is_empty() {
            self.string(name)
        } else {
            Ok(0)
        }
    }

    /// Appends a string (the v3 entry function name) and returns its offset. A string with a
    /// NUL is refused: it would read back cut at the NUL.
    pub fn string(&mut self, s: &str) -> Result<u32> {
        if s.as_bytes().contains(&0) {
            return Err(invalid(format!("string {s:?} contains NUL")));
        }
        let offset = len_u32(self.strings.len(), PART, "string table")?;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        Ok(offset)
    }

    /// The offset of `indices` in the index table, appending them unless they already occur.
    pub fn semantic_indices(&mut self, indices: &[u32]) -> u32 {
        if !indices.is_empty()
            && let Some(at) = self
                .indices
                .windows(indices.len())
                .position(|w| w == indices)
        {
            return at as u32;
        }
        let at = self.indices.len() as u32;
        self.indices.extend_from_slice(indices);
        at
    }

    /// The string table (unpadded; [`Psv::write`] pads it) and the semantic index table.
    pub fn finish(self) -> (Vec<u8>, Vec<u32>) {
        (self.strings, self.indices)
    }
}

/// `Serialize` with names and semantic indices resolved (for `dxil info --json`).
impl Serialize for Psv<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Element<'b> {
            name: Option<&'b str>,
            semantic_indices: Option<&'b [u32]>,
            #[serde(flatten)]
            element: &'b PsvSignatureElement,
        }
        #[derive(Serialize)]
        struct View<'b> {
            version: u32,
            runtime_info: &'b RuntimeInfo,
            entry_function_name: Option<&'b str>,
            resources: &'b [ResourceBinding],
            input_elements: Vec<Element<'b>>,
            output_elements: Vec<Element<'b>>,
            patch_const_or_prim_elements: Vec<Element<'b>>,
            view_id_output_masks: &'b [Vec<u32>; 4],
            view_id_patch_const_or_prim_mask: &'b [u32],
            input_to_output_tables: &'b [Vec<u32>; 4],
            input_to_patch_const_table: &'b [u32],
            patch_const_input_to_output_table: &'b [u32],
            trailing_bytes: usize,
        }
        fn elements<'b>(psv: &'b Psv<'_>, list: &'b [PsvSignatureElement]) -> Vec<Element<'b>> {
            list.iter()
                .map(|e| Element {
                    name: psv.element_name(e).ok(),
                    semantic_indices: psv.semantic_indices(e).ok(),
                    element: e,
                })
                .collect()
        }
        View {
            version: self.version,
            runtime_info: &self.runtime_info,
            entry_function_name: self.entry_function_name().and_then(|r| r.ok()),
            resources: &self.resources,
            input_elements: elements(self, &self.input_elements),
            output_elements: elements(self, &self.output_elements),
            patch_const_or_prim_elements: elements(self, &self.patch_const_or_prim_elements),
            view_id_output_masks: &self.view_id_output_masks,
            view_id_patch_const_or_prim_mask: &self.view_id_patch_const_or_prim_mask,
            input_to_output_tables: &self.input_to_output_tables,
            input_to_patch_const_table: &self.input_to_patch_const_table,
            patch_const_input_to_output_table: &self.patch_const_input_to_output_table,
            trailing_bytes: self.trailing.len(),
        }
        .serialize(s)
    }
}

impl fmt::Display for Psv<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = &self.runtime_info;
        writeln!(f, "  PSV version {}", self.version)?;
        writeln!(f, "  stage info: {:?}", info.stage_info)?;
        writeln!(
            f,
            "  wave lanes: {}..{}",
            info.min_wave_lane_count, info.max_wave_lane_count
        )?;
        if let Some(v1) = &info.v1 {
            writeln!(
                f,
                "  stage {}, uses ViewID {}, {:?}",
                v1.shader_stage, v1.uses_view_id, v1.stage_union
            )?;
            writeln!(
                f,
                "  elements in/out/pc {}/{}/{}, vectors in {} out {:?}",
                v1.sig_input_elements,
                v1.sig_output_elements,
                v1.sig_patch_const_or_prim_elements,
                v1.sig_input_vectors,
                v1.sig_output_vectors
            )?;
        }
        if let Some([x, y, z]) = info.num_threads {
            writeln!(f, "  numthreads ({x}, {y}, {z})")?;
        }
        if let Some(name) = self.entry_function_name() {
            match name {
                Ok(name) => writeln!(f, "  entry {name}")?,
                Err(e) => writeln!(f, "  entry: {e}")?,
            }
        }
        if let Some(bytes) = info.num_bytes_group_shared_memory {
            writeln!(f, "  groupshared {bytes} bytes")?;
        }
        for r in &self.resources {
            write!(
                f,
                "  resource {} space {} [{}, {}]",
                r.res_type, r.space, r.lower_bound, r.upper_bound
            )?;
            if let Some(kind) = r.res_kind {
                write!(f, " {kind}")?;
            }
            match r.res_flags {
                Some(flags) if flags != 0 => writeln!(f, " flags {flags:#x}")?,
                _ => writeln!(f)?,
            }
        }
        for (what, list) in [
            ("input", &self.input_elements),
            ("output", &self.output_elements),
            (
                "patch constant/primitive",
                &self.patch_const_or_prim_elements,
            ),
        ] {
            for e in list {
                let name = self.element_name(e).unwrap_or("?");
                writeln!(
                    f,
                    "  {what} {name:?} {} rows {} cols {} at row {} col {} {} {}",
                    e.semantic_kind,
                    e.rows,
                    e.cols,
                    e.start_row,
                    e.start_col,
                    e.component_type,
                    e.interpolation_mode
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(tables: &mut PsvTablesBuilder, name: &str, rows: u8) -> PsvSignatureElement {
        let indices: Vec<u32> = (0..u32::from(rows)).collect();
        PsvSignatureElement {
            semantic_name: tables.element_name(SemanticKind::Arbitrary, name).unwrap(),
            semantic_indexes: tables.semantic_indices(&indices),
            rows,
            start_row: 0,
            cols: 4,
            start_col: 0,
            allocated: true,
            semantic_kind: SemanticKind::Arbitrary,
            component_type: ComponentType::Float32,
            interpolation_mode: InterpolationMode::Linear,
            dynamic_index_mask: 0,
            output_stream: 0,
            reserved: 0,
        }
    }

    fn vertex_psv(version: u32) -> Psv<'static> {
        let mut tables = PsvTablesBuilder::new();
        let input = element(&mut tables, "POSITION", 1);
        let output = element(&mut tables, "TEXCOORD", 2);
        let entry = (version >= 3).then(|| tables.string("main").unwrap());
        let (strings, indices) = tables.finish();
        let v1 = (version >= 1).then_some(RuntimeInfo1 {
            shader_stage: ShaderKind::Vertex,
            uses_view_id: 1,
            stage_union: Info1Union::Raw { value: 0 },
            sig_input_elements: 1,
            sig_output_elements: 1,
            sig_patch_const_or_prim_elements: 0,
            sig_input_vectors: 1,
            sig_output_vectors: [2, 0, 0, 0],
        });
        let mut psv = Psv {
            version,
            runtime_info: RuntimeInfo {
                stage_info: StageInfo::Vertex {
                    output_position_present: 1,
                },
                min_wave_lane_count: 0,
                max_wave_lane_count: u32::MAX,
                v1,
                num_threads: (version >= 2).then_some([0, 0, 0]),
                entry_function_name: entry,
                num_bytes_group_shared_memory: (version >= 4).then_some(0),
            },
            runtime_info_extra: &[],
            resource_stride: if version >= 2 { 24 } else { 16 },
            resources: vec![ResourceBinding {
                res_type: ResourceType::CBV,
                space: 0,
                lower_bound: 0,
                upper_bound: 0,
                res_kind: (version >= 2).then_some(ResourceKind::CBuffer),
                res_flags: (version >= 2).then_some(0),
            }],
            string_table: Cow::Owned(if version >= 1 { strings } else { vec![] }),
            semantic_index_table: if version >= 1 { indices } else { vec![] },
            signature_element_stride: 16,
            input_elements: vec![],
            output_elements: vec![],
            patch_const_or_prim_elements: vec![],
            view_id_output_masks: Default::default(),
            view_id_patch_const_or_prim_mask: vec![],
            input_to_output_tables: Default::default(),
            input_to_patch_const_table: vec![],
            patch_const_input_to_output_table: vec![],
            trailing: &[],
        };
        if version >= 1 {
            psv.input_elements = vec![input];
            psv.output_elements = vec![output];
            psv.view_id_output_masks[0] = vec![0x3];
            psv.input_to_output_tables[0] = vec![1, 2, 4, 8];
        }
        psv
    }

    #[test]
    fn every_version_round_trips() {
        for version in 0..=MAX_PSV_VERSION {
            let psv = vertex_psv(version);
            let bytes = psv.write().unwrap();
            let back = Psv::parse(&bytes, 0, Some(ShaderKind::Vertex)).unwrap();
            assert_eq!(back.version, version);
            assert_eq!(back.runtime_info, psv.runtime_info);
            assert_eq!(back.resources, psv.resources);
            assert_eq!(back.input_elements, psv.input_elements);
            assert!(back.trailing.is_empty(), "v{version}");
            assert_eq!(back.write().unwrap(), bytes, "v{version}");
        }
    }

    /// Fuzz finding: a runtime-info size that is not a multiple of 4 left the string table
    /// unaligned, and the writer padded the part instead of the table.
    #[test]
    fn unaligned_runtime_info_extra_round_trips() {
        let mut psv = vertex_psv(1);
        psv.runtime_info_extra = &[0, 1, 0, 0, 0];
        psv.string_table = Cow::Owned(b"\0ab".to_vec());
        let bytes = psv.write().unwrap();
        let back = Psv::parse(&bytes, 0, Some(ShaderKind::Vertex)).unwrap();
        assert_eq!(back.runtime_info_extra, psv.runtime_info_extra);
        assert_eq!(&back.string_table[..3], b"\0ab");
        assert_eq!(back.semantic_index_table, psv.semantic_index_table);
        assert_eq!(back.write().unwrap(), bytes);
    }

    #[test]
    fn names_and_indices_resolve() {
        let psv = vertex_psv(3);
        let bytes = psv.write().unwrap();
        let back = Psv::parse(&bytes, 0, None).unwrap();
        assert_eq!(
            back.element_name(&back.output_elements[0]).unwrap(),
            "TEXCOORD"
        );
        assert_eq!(
            back.semantic_indices(&back.output_elements[0]).unwrap(),
            &[0, 1]
        );
        // POSITION's [0] came first; TEXCOORD's [0, 1] does not occur yet, so it is appended.
        assert_eq!(back.semantic_index_table, vec![0, 0, 1]);
        assert_eq!(back.entry_function_name().unwrap().unwrap(), "main");
        let json = serde_json::to_value(&back).unwrap();
        assert_eq!(json["output_elements"][0]["name"], "TEXCOORD");
        assert_eq!(json["runtime_info"]["stage_info"]["stage"], "Vertex");
    }

    #[test]
    fn semantic_index_sequences_are_shared() {
        let mut t = PsvTablesBuilder::new();
        assert_eq!(t.semantic_indices(&[0, 1, 2]), 0);
        assert_eq!(t.semantic_indices(&[1, 2]), 1);
        assert_eq!(t.semantic_indices(&[2, 3]), 3);
        assert_eq!(t.semantic_indices(&[]), 5);
        assert_eq!(t.element_name(SemanticKind::Position, "SV_Position"), Ok(0));
        assert_eq!(t.element_name(SemanticKind::Arbitrary, "A"), Ok(1));
        assert_eq!(t.element_name(SemanticKind::Arbitrary, "A"), Ok(3));
    }

    #[test]
    fn strings_with_nul_are_refused() {
        // Written as is, "A\0B" would read back as "A".
        let mut t = PsvTablesBuilder::new();
        let e = t.element_name(SemanticKind::Arbitrary, "A\0B").unwrap_err();
        assert_eq!((e.kind(), e.part()), (ErrorKind::Invalid, Some(PART)));
        assert!(t.string("main\0").is_err());
        assert_eq!(t.finish().0, [0]);
    }

    #[test]
    fn table_sizes_follow_the_stage() {
        let mut info = RuntimeInfo1 {
            shader_stage: ShaderKind::Geometry,
            uses_view_id: 1,
            stage_union: Info1Union::Geometry {
                max_vertex_count: 3,
            },
            sig_input_elements: 0,
            sig_output_elements: 0,
            sig_patch_const_or_prim_elements: 0,
            sig_input_vectors: 3,
            sig_output_vectors: [9, 1, 0, 0],
        };
        let shape = TableShape::of(&info);
        assert_eq!(shape.view_id_mask_len(0), 2);
        assert_eq!(shape.view_id_mask_len(1), 1);
        assert_eq!(shape.io_table_len(0), 2 * 3 * 4);
        assert_eq!(shape.io_table_len(1), 3 * 4);
        info.shader_stage = ShaderKind::Vertex;
        let shape = TableShape::of(&info);
        assert_eq!(shape.view_id_mask_len(1), 0);
        assert_eq!(shape.io_table_len(1), 0);
        info.shader_stage = ShaderKind::Hull;
        info.stage_union = Info1Union::PatchConstant {
            sig_patch_const_vectors: 2,
        };
        let shape = TableShape::of(&info);
        assert_eq!(shape.view_id_pc_mask_len(), 1);
        assert_eq!(shape.input_to_pc_len(), 3 * 4);
        assert_eq!(shape.pc_to_output_len(), 0);
        info.shader_stage = ShaderKind::Domain;
        let shape = TableShape::of(&info);
        assert_eq!(shape.view_id_pc_mask_len(), 0);
        assert_eq!(shape.pc_to_output_len(), 2 * 2 * 4);
        info.shader_stage = ShaderKind::Mesh;
        let shape = TableShape::of(&info);
        assert_eq!(shape.io_table_len(0), 0);
        assert_eq!(shape.view_id_pc_mask_len(), 1);
    }

    #[test]
    fn stage_union_falls_back_to_raw() {
        let mut b = [0u8; 16];
        b[0] = 1;
        assert_eq!(
            StageInfo::decode(Some(ShaderKind::Vertex), b),
            StageInfo::Vertex {
                output_position_present: 1
            }
        );
        b[5] = 7;
        assert_eq!(
            StageInfo::decode(Some(ShaderKind::Vertex), b),
            StageInfo::Raw { bytes: b }
        );
        assert_eq!(StageInfo::decode(None, b), StageInfo::Raw { bytes: b });
        assert_eq!(
            StageInfo::decode(Some(ShaderKind::Compute), [0; 16]),
            StageInfo::None
        );
    }

    #[test]
    fn malformed_inputs_are_errors() {
        assert_eq!(
            Psv::parse(&[20, 0, 0, 0], 0, None).unwrap_err().kind(),
            ErrorKind::Malformed
        );
        let bytes = vertex_psv(2).write().unwrap();
        for len in 0..bytes.len() {
            assert!(Psv::parse(&bytes[..len], 0, None).is_err(), "len {len}");
        }
        let mut psv = vertex_psv(2);
        psv.input_elements.clear();
        assert_eq!(psv.write().unwrap_err().kind(), ErrorKind::Invalid);
        psv.update_element_counts().unwrap();
        assert!(psv.write().is_ok());
    }
}
