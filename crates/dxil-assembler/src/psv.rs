//! `PSV0`: pipeline state validation data, with DXC's rules (`DxilPSVWriter`,
//! `SetupPSVInitInfo`, `SetShaderProps`, `InitPSVResourceBinding`, `InitPSVSignatureElement`,
//! `StoreViewIDStateToPSV`):
//!
//! - the version follows the validator version (0 below 1.1, ..., 4 from 1.10);
//! - resources in the order CBVs, samplers, SRVs, UAVs;
//! - every signature element of the metadata (also those the signature parts leave out), its
//!   name in the string table only for arbitrary semantics, its semantic indices shared with
//!   any earlier equal run of the index table;
//! - vector counts from the allocated rows of stream 0 (each stream for outputs);
//! - the ViewID masks and input→output tables copied from `!dx.viewIdState` (zero without it).

use dxil_container::parts::psv::{
    Info1Union, PsvSignatureElement, PsvTablesBuilder, ResourceBinding, RuntimeInfo, RuntimeInfo1,
    StageInfo, io_table_dwords, mask_dwords,
};
use dxil_container::{
    FourCC, InputPrimitive, MeshOutputTopology, PrimitiveTopology, Psv, ResourceKind, ResourceType,
    TessellatorDomain, TessellatorOutputPrimitive, ValidatorVersion,
};
use dxil_module::Module;
use dxil_shader::{
    DxilModule, EntryPoint, InterpolationMode, Resource, ResourceClass, SemanticKind, ShaderFlags,
    ShaderKind, SignatureElement,
};

use crate::error::{Error, Result};
use crate::layout::group_shared_bytes;
use crate::signature::sig_component_type;

const PART: FourCC = FourCC::PSV0;

/// `DxilSignature::NumVectorsUsed`: one past the last allocated row of `stream`.
fn vectors_used(elements: &[SignatureElement], stream: u32) -> u32 {
    elements
        .iter()
        .filter(|e| e.is_allocated() && e.output_stream.unwrap_or(0) == stream)
        .map(|e| (e.start_row as u32).saturating_add(e.rows))
        .max()
        .unwrap_or(0)
}

fn byte(value: u32, what: &str) -> Result<u8> {
    u8::try_from(value)
        .map_err(|_| Error::field(PART, format!("{what} is {value}, more than a byte holds")))
}

/// A 16-bit field. DXC casts without a check; its validator bounds these counts (GS 1024,
/// MS 256) far below 65536, so a larger value is an error here rather than truncated bytes.
fn half(value: u32, what: &str) -> Result<u16> {
    u16::try_from(value)
        .map_err(|_| Error::field(PART, format!("{what} is {value}, more than 16 bits hold")))
}

/// `InitPSVResourceBinding`.
fn binding(r: &Resource, version: u32) -> ResourceBinding {
    let uav = r.class == ResourceClass::UAV;
    let res_type = match r.kind {
        ResourceKind::Sampler => ResourceType::Sampler,
        ResourceKind::CBuffer => ResourceType::CBV,
        ResourceKind::StructuredBuffer if uav && r.has_counter() => {
            ResourceType::UAVStructuredWithCounter
        }
        ResourceKind::StructuredBuffer if uav => ResourceType::UAVStructured,
        ResourceKind::StructuredBuffer => ResourceType::SRVStructured,
        ResourceKind::RTAccelerationStructure => ResourceType::SRVRaw,
        ResourceKind::RawBuffer if uav => ResourceType::UAVRaw,
        ResourceKind::RawBuffer => ResourceType::SRVRaw,
        _ if uav => ResourceType::UAVTyped,
        _ => ResourceType::SRVTyped,
    };
    let v2 = version >= 2;
    ResourceBinding {
        res_type,
        space: r.space,
        lower_bound: r.lower_bound,
        upper_bound: r.upper_bound(),
        res_kind: v2.then_some(r.kind),
        res_flags: v2.then(|| u32::from(uav && r.tags.atomic64_use == Some(true))),
    }
}

/// `InitPSVSignatureElement` plus the name and index-table entries.
fn element(
    e: &SignatureElement,
    tables: &mut PsvTablesBuilder,
    i1_unknown: bool,
) -> Result<PsvSignatureElement> {
    let allocated = e.is_allocated();
    Ok(PsvSignatureElement {
        semantic_name: tables.element_name(e.semantic_kind, &e.name)?,
        semantic_indexes: tables.semantic_indices(&e.semantic_indices),
        rows: byte(e.rows, "signature element rows")?,
        start_row: if allocated {
            byte(e.start_row as u32, "signature element start row")?
        } else {
            0
        },
        cols: e.cols & 0xf,
        start_col: if allocated {
            (e.start_col as u8) & 3
        } else {
            0
        },
        allocated,
        semantic_kind: e.semantic_kind,
        component_type: sig_component_type(e.component_type, i1_unknown),
        interpolation_mode: e.interpolation_mode,
        dynamic_index_mask: e.dynamic_index_mask.unwrap_or(0) & 0xf,
        output_stream: (e.output_stream.unwrap_or(0) & 3) as u8,
        reserved: 0,
    })
}

fn has_kind(elements: &[SignatureElement], kinds: &[SemanticKind]) -> bool {
    elements.iter().any(|e| kinds.contains(&e.semantic_kind))
}

/// `SetShaderProps` for `PSVRuntimeInfo0`: the stage union and the wave-size range.
fn stage_info(m: &Module, entry: &EntryPoint, stage: ShaderKind) -> Result<(StageInfo, u32, u32)> {
    let p = &entry.properties;
    let sigs = &entry.signatures;
    let position = u8::from(has_kind(&sigs.outputs, &[SemanticKind::Position]));
    let mut waves = (0, u32::MAX);
    let info = match stage {
        ShaderKind::Vertex => StageInfo::Vertex {
            output_position_present: position,
        },
        ShaderKind::Hull => {
            let hs = p.hs_state;
            StageInfo::Hull {
                input_control_point_count: hs.map_or(0, |h| h.input_control_points),
                output_control_point_count: hs.map_or(0, |h| h.output_control_points),
                tessellator_domain: hs.map_or(TessellatorDomain::Undefined, |h| h.domain),
                tessellator_output_primitive: hs
                    .map_or(TessellatorOutputPrimitive::Undefined, |h| {
                        h.output_primitive
                    }),
            }
        }
        ShaderKind::Domain => StageInfo::Domain {
            input_control_point_count: p.ds_state.map_or(0, |d| d.input_control_points),
            output_position_present: position,
            tessellator_domain: p
                .ds_state
                .map_or(TessellatorDomain::Undefined, |d| d.domain),
        },
        ShaderKind::Geometry => {
            let gs = p.gs_state;
            StageInfo::Geometry {
                input_primitive: gs.map_or(InputPrimitive::Undefined, |g| g.input_primitive),
                output_topology: gs.map_or(PrimitiveTopology::Undefined, |g| g.output_topology),
                // The runtime expects at least stream 0.
                output_stream_mask: gs.map_or(0, |g| g.active_stream_mask).max(1),
                output_position_present: position,
            }
        }
        ShaderKind::Pixel => {
            let sample = sigs.inputs.iter().any(|e| {
                matches!(
                    e.interpolation_mode,
                    InterpolationMode::LinearSample | InterpolationMode::LinearNoperspectiveSample
                ) || e.semantic_kind == SemanticKind::SampleIndex
            });
            let depth = has_kind(
                &sigs.outputs,
                &[
                    SemanticKind::Depth,
                    SemanticKind::DepthLessEqual,
                    SemanticKind::DepthGreaterEqual,
                ],
            );
            StageInfo::Pixel {
                depth_output: u8::from(depth),
                sample_frequency: u8::from(sample),
            }
        }
        ShaderKind::Compute => {
            if let Some(w) = p.wave_size.filter(|w| w.min != 0) {
                waves = (w.min, if w.max != 0 { w.max } else { w.min });
            }
            StageInfo::None
        }
        ShaderKind::Mesh => {
            let ms = p.ms_state;
            StageInfo::Mesh {
                group_shared_bytes_used: group_shared_bytes(m),
                group_shared_bytes_dependent_on_view_id: 0,
                payload_size_in_bytes: ms.map_or(0, |s| s.payload_size_in_bytes),
                max_output_vertices: half(
                    ms.map_or(0, |s| s.max_vertex_count),
                    "mesh shader max vertex count",
                )?,
                max_output_primitives: half(
                    ms.map_or(0, |s| s.max_primitive_count),
                    "mesh shader max primitive count",
                )?,
            }
        }
        ShaderKind::Amplification => StageInfo::Amplification {
            payload_size_in_bytes: p.as_state.map_or(0, |s| s.payload_size_in_bytes),
        },
        _ => StageInfo::None,
    };
    Ok((info, waves.0, waves.1))
}

/// Writes the PSV0 part of a non-library module.
pub(crate) fn write_psv(
    m: &Module,
    dxil: &DxilModule,
    entry: &EntryPoint,
    validator: ValidatorVersion,
) -> Result<Vec<u8>> {
    let version = validator.psv_version();
    let stage = dxil.shader_model.kind;
    let sigs = &entry.signatures;
    let flags = dxil.shader_flags();
    let (stage_info, min_wave, max_wave) = stage_info(m, entry, stage)?;

    let res = &dxil.resources;
    let resources: Vec<ResourceBinding> = [&res.cbuffers, &res.samplers, &res.srvs, &res.uavs]
        .into_iter()
        .flatten()
        .map(|r| binding(r, version))
        .collect();

    let mut psv = Psv {
        version,
        runtime_info: RuntimeInfo {
            stage_info,
            min_wave_lane_count: min_wave,
            max_wave_lane_count: max_wave,
            v1: None,
            num_threads: None,
            entry_function_name: None,
            num_bytes_group_shared_memory: None,
        },
        runtime_info_extra: &[],
        resource_stride: if version >= 2 { 24 } else { 16 },
        resources,
        string_table: Default::default(),
        semantic_index_table: Vec::new(),
        signature_element_stride: 16,
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
    if version == 0 {
        return Ok(psv.write()?);
    }

    let i1_unknown = !validator.has_usage_masks_and_hash();
    let mut tables = PsvTablesBuilder::new();
    let mut elements = |list: &[SignatureElement]| -> Result<Vec<PsvSignatureElement>> {
        list.iter()
            .map(|e| element(e, &mut tables, i1_unknown))
            .collect()
    };
    psv.input_elements = elements(&sigs.inputs)?;
    psv.output_elements = elements(&sigs.outputs)?;
    psv.patch_const_or_prim_elements = elements(&sigs.patch_constant_or_primitive)?;
    if version >= 3 {
        psv.runtime_info.entry_function_name = Some(tables.string(&entry.name)?);
    }
    let (strings, indices) = tables.finish();
    psv.string_table = strings.into();
    psv.semantic_index_table = indices;

    let input_vectors = byte(vectors_used(&sigs.inputs, 0), "input vectors")?;
    let mut output_vectors = [0u8; 4];
    for (stream, v) in output_vectors.iter_mut().enumerate() {
        *v = byte(vectors_used(&sigs.outputs, stream as u32), "output vectors")?;
    }
    let pc_vectors = match stage {
        ShaderKind::Hull | ShaderKind::Domain | ShaderKind::Mesh => byte(
            vectors_used(&sigs.patch_constant_or_primitive, 0),
            "patch constant vectors",
        )?,
        _ => 0,
    };
    let p = &entry.properties;
    let stage_union = match stage {
        ShaderKind::Geometry => Info1Union::Geometry {
            max_vertex_count: half(
                p.gs_state.map_or(0, |g| g.max_vertex_count),
                "geometry shader max vertex count",
            )?,
        },
        ShaderKind::Hull | ShaderKind::Domain => Info1Union::PatchConstant {
            sig_patch_const_vectors: pc_vectors,
        },
        ShaderKind::Mesh => Info1Union::Mesh {
            sig_prim_vectors: pc_vectors,
            mesh_output_topology: p
                .ms_state
                .map_or(MeshOutputTopology::Undefined, |s| s.output_topology),
        },
        _ => Info1Union::Raw { value: 0 },
    };
    let uses_view_id = flags.contains(ShaderFlags::VIEW_ID);
    let v1 = RuntimeInfo1 {
        shader_stage: stage,
        uses_view_id: u8::from(uses_view_id),
        stage_union,
        sig_input_elements: byte(sigs.inputs.len() as u32, "input elements")?,
        sig_output_elements: byte(sigs.outputs.len() as u32, "output elements")?,
        sig_patch_const_or_prim_elements: byte(
            sigs.patch_constant_or_primitive.len() as u32,
            "patch constant elements",
        )?,
        sig_input_vectors: input_vectors,
        sig_output_vectors: output_vectors,
    };
    psv.runtime_info.v1 = Some(v1);
    if version >= 2 {
        let threads = match stage {
            ShaderKind::Compute | ShaderKind::Mesh | ShaderKind::Amplification => {
                p.thread_group_size().unwrap_or([0; 3])
            }
            _ => [0; 3],
        };
        psv.runtime_info.num_threads = Some(threads);
    }
    if version >= 4 {
        psv.runtime_info.num_bytes_group_shared_memory = Some(group_shared_bytes(m));
    }

    let shape = Shape {
        stage,
        uses_view_id,
        inputs: u32::from(input_vectors),
        outputs: output_vectors.map(u32::from),
        pc: u32::from(pc_vectors),
    };
    shape.fill(&mut psv, dxil.view_id_state.as_deref().unwrap_or(&[]));
    Ok(psv.write()?)
}

/// The sizes of the ViewID and dependency tables, from the runtime info.
struct Shape {
    stage: ShaderKind,
    uses_view_id: bool,
    inputs: u32,
    outputs: [u32; 4],
    pc: u32,
}

impl Shape {
    /// Sizes the tables and copies `!dx.viewIdState` into them (`StoreViewIDStateToPSV`). The
    /// serialized state is: input scalars; per stream, output scalars, the ViewID mask (when
    /// ViewID is used) and the input→output table; then for hull and mesh shaders the patch
    /// constant (primitive) scalars, mask and table, and for domain shaders the patch constant
    /// scalars and the patch constant→output table. Missing words read as zero.
    fn fill(&self, psv: &mut Psv<'_>, state: &[u32]) {
        let mut src = Reader {
            words: state,
            at: 0,
        };
        let streams = if self.stage == ShaderKind::Geometry {
            4
        } else {
            1
        };
        let input_scalars = src.next();
        let mut out0_scalars = 0;
        for stream in 0..4 {
            let out = self.outputs[stream];
            let mask_len = if self.uses_view_id && stream < streams && out != 0 {
                mask_dwords(out)
            } else {
                0
            };
            let io_len = if self.stage != ShaderKind::Mesh
                && stream < streams
                && out != 0
                && self.inputs != 0
            {
                io_table_dwords(self.inputs, out)
            } else {
                0
            };
            psv.view_id_output_masks[stream] = vec![0; mask_len];
            psv.input_to_output_tables[stream] = vec![0; io_len];
            if stream < streams {
                let scalars = src.next();
                if stream == 0 {
                    out0_scalars = scalars;
                }
                let mask_words = mask_dwords(scalars.div_ceil(4));
                if mask_len != 0 {
                    src.copy(&mut psv.view_id_output_masks[stream], mask_words);
                }
                if io_len != 0 {
                    src.copy(
                        &mut psv.input_to_output_tables[stream],
                        mask_words.saturating_mul(input_scalars as usize),
                    );
                }
            }
        }
        let has_pc_mask = matches!(self.stage, ShaderKind::Hull | ShaderKind::Mesh);
        let pc_mask_len = if self.uses_view_id && has_pc_mask && self.pc != 0 {
            mask_dwords(self.pc)
        } else {
            0
        };
        let in_pc_len = if self.stage == ShaderKind::Hull && self.pc != 0 && self.inputs != 0 {
            io_table_dwords(self.inputs, self.pc)
        } else {
            0
        };
        let pc_out_len = if self.stage == ShaderKind::Domain && self.outputs[0] != 0 && self.pc != 0
        {
            io_table_dwords(self.pc, self.outputs[0])
        } else {
            0
        };
        psv.view_id_patch_const_or_prim_mask = vec![0; pc_mask_len];
        psv.input_to_patch_const_table = vec![0; in_pc_len];
        psv.patch_const_input_to_output_table = vec![0; pc_out_len];
        if has_pc_mask {
            let scalars = src.next();
            let mask_words = mask_dwords(scalars.div_ceil(4));
            if pc_mask_len != 0 {
                src.copy(&mut psv.view_id_patch_const_or_prim_mask, mask_words);
            }
            if in_pc_len != 0 {
                src.copy(
                    &mut psv.input_to_patch_const_table,
                    mask_words.saturating_mul(input_scalars as usize),
                );
            }
        } else if self.stage == ShaderKind::Domain {
            let pc_scalars = src.next();
            if pc_out_len != 0 {
                src.copy(
                    &mut psv.patch_const_input_to_output_table,
                    mask_dwords(out0_scalars.div_ceil(4)).saturating_mul(pc_scalars as usize),
                );
            }
        }
    }
}

/// Reads the serialized ViewID state word by word; past the end it gives zeros.
struct Reader<'a> {
    words: &'a [u32],
    at: usize,
}

impl Reader<'_> {
    fn next(&mut self) -> u32 {
        let w = self.words.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        w
    }

    /// Copies the next `n` words into the start of `dst` (as many as fit) and moves past them.
    fn copy(&mut self, dst: &mut [u32], n: usize) {
        let avail = self.words.get(self.at..).unwrap_or(&[]);
        for (d, s) in dst.iter_mut().zip(avail.iter().take(n)) {
            *d = *s;
        }
        self.at = self.at.saturating_add(n);
    }
}

#[cfg(test)]
mod tests {
    use crate::{AssembleOptions, Error, assemble};

    #[test]
    fn counts_over_16_bits_are_refused_not_truncated() {
        // `!15` is the GS state {input primitive, max vertex count, active streams, topology,
        // instances}; 65540 used to be written as 4.
        let text = include_str!("../tests/data/gs_streams.ll");
        let from = "!15 = !{i32 1, i32 4, i32 3, i32 5, i32 1}";
        assert!(text.contains(from));
        let text = text.replace(from, "!15 = !{i32 1, i32 65540, i32 3, i32 5, i32 1}");
        let e = assemble(&text, &AssembleOptions::default()).unwrap_err();
        assert!(
            matches!(&e, Error::Field { message, .. } if message.contains("65540")),
            "{e}"
        );
    }
}
