//! Mesh and amplification shaders, and pixel shaders behind a mesh shader: corpus containers translated and
//! validated, their interface, execution modes, mesh instructions and reflection compared with what their
//! signatures and states (DXC's listing beside each container) ask for.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use std::sync::Arc;

use dxil_to_spirv::{MeshInfo, MeshTopology, Options, Varying};
use rspirv::dr::{Instruction, Module, Operand};
use spirv::{ExecutionModel, Op};
use support::inspect::*;

/// Every instruction of opcode `op` in the module's functions.
fn instructions(m: &Module, op: Op) -> Vec<&Instruction> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == op)
        .collect()
}

fn model(m: &Module) -> &Operand {
    &m.entry_points[0].operands[0]
}

fn varying(semantic: &str, location: u32, component: u32, per_primitive: bool) -> Varying {
    Varying {
        semantic: semantic.into(),
        index: 0,
        location,
        component,
        per_primitive,
    }
}

#[test]
fn mesh_outputs_are_arrays_over_vertices_and_primitives() {
    // VOut { SV_Position (row 0); float4 B (row 1) } vout[24]; PrimOut { bool SV_CullPrimitive; uint
    // SV_RenderTargetArrayIndex (row 0 .x); uint SV_PrimitiveID (row 0 .y); float4 C (row 1) } prim[8]; uint3
    // ind[8]; triangles, numthreads(2, 3, 4), a payload of one float.
    let Some((m, t)) = translate_with(
        "dxil-spirv/stages/mesh-basic.mesh.dxil",
        &Options::default(),
    ) else {
        return;
    };
    assert_eq!(model(&m), &Operand::ExecutionModel(ExecutionModel::MeshEXT));
    assert_eq!(
        interface(&m),
        set(&[
            "Input LocalInvocationIndex: u32",
            "Output PrimitiveTriangleIndicesEXT: u32x3[8]",
            "Output Position: f32x4[24]",
            "Output Location=1: f32x4[24]",
            "Output CullPrimitiveEXT PerPrimitiveNV: bool[8]",
            "Output Layer PerPrimitiveNV: u32[8]",
            "Output PerPrimitiveNV PrimitiveId: u32[8]",
            // Primitive rows follow the two rows of the vertex outputs.
            "Output Location=3 PerPrimitiveNV: f32x4[8]",
        ])
    );
    assert_eq!(
        modes(&m),
        set(&[
            "LocalSize 2 3 4",
            "OutputVertices 24",
            "OutputPrimitivesNV 8",
            "OutputTrianglesNV"
        ])
    );
    assert_eq!(instructions(&m, Op::SetMeshOutputsEXT).len(), 1);
    // SV_CullPrimitive is written as an integer: compared with 0 into the bool built-in.
    assert!(uses(&m, Op::INotEqual));
    // The payload is read from the task payload.
    assert!(
        m.types_global_values
            .iter()
            .any(|i| i.class.opcode == Op::Variable
                && i.operands[0]
                    == Operand::StorageClass(spirv::StorageClass::TaskPayloadWorkgroupEXT))
    );
    assert_eq!(t.workgroup_size, [2, 3, 4]);
    assert_eq!(
        t.mesh,
        Some(MeshInfo {
            max_vertices: 24,
            max_primitives: 8,
            topology: Some(MeshTopology::Triangles),
            payload_bytes: 4,
        })
    );
    assert_eq!(
        t.varyings,
        vec![varying("B", 1, 0, false), varying("C", 3, 0, true)]
    );
    assert_eq!(t.spirv_version, (1, 4));
}

#[test]
fn line_meshes_emit_two_indices() {
    let Some(m) = translate("dxil-spirv/stages/mesh-basic-line.mesh.dxil") else {
        return;
    };
    let iface = interface(&m);
    assert!(
        iface.contains("Output PrimitiveLineIndicesEXT: u32x2[8]"),
        "{iface:?}"
    );
    assert!(modes(&m).contains("OutputLinesNV"));
}

#[test]
fn mesh_clip_and_cull_distances_are_per_vertex_arrays() {
    // SV_ClipDistance float4 (row 1), SV_CullDistance float4 (row 2), 24 vertices.
    let Some(m) = translate("dxil-spirv/stages/mesh-clip-cull.mesh.dxil") else {
        return;
    };
    let iface = interface(&m);
    assert!(
        iface.contains("Output ClipDistance: f32[4][24]"),
        "{iface:?}"
    );
    assert!(
        iface.contains("Output CullDistance: f32[4][24]"),
        "{iface:?}"
    );
}

#[test]
fn a_mesh_shader_without_outputs_declares_none() {
    let Some((m, t)) = translate_with(
        "vkd3d-proton/mesh_shader/ms_empty.ms_6_5.dxil",
        &Options::default(),
    ) else {
        return;
    };
    assert!(interface(&m).is_empty());
    assert!(modes(&m).contains("OutputVertices 0"));
    assert_eq!(t.mesh.map(|i| i.max_primitives), Some(0));
}

#[test]
fn dispatch_mesh_ends_the_task_shader_with_its_payload() {
    // groupshared Payload { float4 p[64]; } p; DispatchMesh(2, 3, 4, p).
    let Some((m, t)) = translate_with(
        "dxil-spirv/stages/task-basic.task.dxil",
        &Options::default(),
    ) else {
        return;
    };
    assert_eq!(model(&m), &Operand::ExecutionModel(ExecutionModel::TaskEXT));
    let payload = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Variable
                && i.operands[0]
                    == Operand::StorageClass(spirv::StorageClass::TaskPayloadWorkgroupEXT)
        })
        .and_then(|i| i.result_id)
        .expect("a task payload variable");
    let emits = instructions(&m, Op::EmitMeshTasksEXT);
    assert_eq!(emits.len(), 1);
    assert_eq!(emits[0].operands.get(3), Some(&Operand::IdRef(payload)));
    assert!(!uses(&m, Op::Return), "OpEmitMeshTasksEXT ends the shader");
    assert_eq!(modes(&m), set(&["LocalSize 64 1 1"]));
    assert_eq!(t.workgroup_size, [64, 1, 1]);
    assert_eq!(
        t.mesh,
        Some(MeshInfo {
            max_vertices: 0,
            max_primitives: 0,
            topology: None,
            payload_bytes: 1024,
        })
    );
}

#[test]
fn a_local_payload_becomes_the_task_payload() {
    // Payload p (a local); p.data = float4(0, 1, 0, 1); DispatchMesh(1, 1, 1, p).
    let Some(m) = translate("vkd3d-proton/mesh_shader/as_simple.as_6_5.dxil") else {
        return;
    };
    let stores = instructions(&m, Op::Store);
    assert_eq!(stores.len(), 4);
    assert!(
        !m.functions[0].blocks[0]
            .instructions
            .iter()
            .any(|i| i.class.opcode == Op::Variable),
        "no Function variable for the payload"
    );
    assert_eq!(instructions(&m, Op::EmitMeshTasksEXT)[0].operands.len(), 4);
}

#[test]
fn mesh_derivatives_are_quad_differences() {
    // ddx_fine / ddy_fine in a 16×8 mesh shader (SM 6.6).
    let Some(m) = translate("vkd3d-proton/mesh_shader/ms_derivatives.ms_6_6.dxil") else {
        return;
    };
    assert!(!uses(&m, Op::DPdxFine) && !uses(&m, Op::DPdyFine));
    assert_eq!(instructions(&m, Op::GroupNonUniformQuadSwap).len(), 4);
    assert!(modes(&m).contains("DerivativeGroupQuadsNV"));
}

#[test]
fn pixel_inputs_follow_the_mesh_shader_outputs() {
    // Mesh shader: vertices { SV_POSITION; float2 UV_COORD (row 1); nointerpolation uint UV_VERTEX_ID (row 2) },
    // primitives { float4 UV_COLOR (row 0); uint UV_PRIMITIVE_DATA (row 1) }, placed after the 3 vertex rows. The
    // pixel shader packs its inputs apart: UV_COORD row 0, UV_COLOR row 1, UV_PRIMITIVE_DATA row 2 .x,
    // UV_VERTEX_ID row 2 .y.
    let Some((_, ms)) = translate_with(
        "vkd3d-proton/mesh_shader/ms_interface_matching.ms_6_5.dxil",
        &Options::default(),
    ) else {
        return;
    };
    assert_eq!(
        ms.varyings,
        vec![
            varying("UV_COORD", 1, 0, false),
            varying("UV_VERTEX_ID", 2, 0, false),
            varying("UV_COLOR", 3, 0, true),
            varying("UV_PRIMITIVE_DATA", 4, 0, true),
        ]
    );
    let options = Options {
        input_varyings: Some(Arc::from(ms.varyings.as_slice())),
        ..Options::default()
    };
    let Some((m, ps)) = translate_with(
        "vkd3d-proton/mesh_shader/ps_interface_matching.ps_6_0.dxil",
        &options,
    ) else {
        return;
    };
    assert_eq!(
        interface(&m),
        set(&[
            "Input Location=1: f32x2",
            "Input Flat Location=3 PerPrimitiveNV: f32x4",
            "Input Flat Location=4 PerPrimitiveNV: u32",
            "Input Flat Location=2: u32",
            "Output Location=0: f32x4",
        ])
    );
    assert_eq!(ps.spirv_version, (1, 4));
    assert!(ps.extensions.contains(&"SPV_EXT_mesh_shader"));
    // Without the mesh shader's varyings the inputs keep their own registers.
    let Some(m) = translate("vkd3d-proton/mesh_shader/ps_interface_matching.ps_6_0.dxil") else {
        return;
    };
    assert!(!interface(&m).iter().any(|v| v.contains("PerPrimitive")));
}

#[test]
fn a_pixel_input_the_mesh_shader_does_not_write_is_an_error() {
    let Some(corpus) = support::corpus_dir() else {
        return;
    };
    let bytes =
        std::fs::read(corpus.join("vkd3d-proton/mesh_shader/ps_interface_matching.ps_6_0.dxil"))
            .unwrap();
    let options = Options {
        input_varyings: Some(Arc::from(vec![varying("UV_COORD", 1, 0, false)])),
        ..Options::default()
    };
    let e = dxil_to_spirv::translate_container(&bytes, &options).unwrap_err();
    assert!(e.to_string().contains("UV_COLOR"), "{e}");
}
