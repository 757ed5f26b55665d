//! Mesh and task shaders: GLSL's output blocks (per-vertex and per-primitive built-ins, only
//! the ones written in the signature), primitive indices as `EmitIndices`, the payload on
//! both sides, points refused, and DXC's validator accepting the results.

use dxil_from_spirv::ErrorKind;

const MESH: &[u8] = include_bytes!("data/mesh_blocks.spv");
const POINTS: &[u8] = include_bytes!("data/mesh_points.spv");
const TASK: &[u8] = include_bytes!("data/task_payload.spv");

mod support;
use support::listing;

fn dxv(name: &str, container: &[u8]) {
    support::dxv("mesh", name, container);
}

#[test]
fn mesh_shader_writes_vertices_primitives_and_indices() {
    let out = dxil_from_spirv::translate_bytes(MESH, &Default::default()).unwrap();
    assert_eq!(out.profile, "ms_6_5");
    let text = listing(&out.container);
    for needle in [
        "@dx.op.setMeshOutputCounts",
        "@dx.op.emitIndices",
        "@dx.op.storeVertexOutput.f32",
        "@dx.op.storePrimitiveOutput.i32",
        "@dx.op.getMeshPayload.struct.Payload",
        "SV_CullPrimitive",
        "SV_PrimitiveID",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    // GLSL declares clip and cull distances in gl_MeshVerticesEXT; unwritten, they stay out
    // of the signature (the validator wants every system value written).
    assert!(!text.contains("SV_ClipDistance"), "{text}");
    assert!(!text.contains("SV_CullDistance"), "{text}");
    dxv("mesh_blocks", &out.container);
}

#[test]
fn mesh_points_are_inexpressible() {
    let e = dxil_from_spirv::translate_bytes(POINTS, &Default::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Inexpressible, "{e}");
    assert!(e.to_string().contains("PrimitivePointIndicesEXT"), "{e}");
}

#[test]
fn task_shader_dispatches_with_its_payload() {
    let out = dxil_from_spirv::translate_bytes(TASK, &Default::default()).unwrap();
    assert_eq!(out.profile, "as_6_5");
    let text = listing(&out.container);
    assert!(
        text.contains("@dx.op.dispatchMesh.struct.Payload"),
        "{text}"
    );
    dxv("task_payload", &out.container);
}
