//! Inline ray tracing: SPIR-V ray queries become `AllocateRayQuery` handles and
//! `RayQuery_*` operations (shader model 6.5, in any stage), acceleration structures SRVs of
//! kind `RTAccelerationStructure`, and the module asks for raytracing tier 1.1 as DXC's
//! validator computes it; DXC's validator accepts the results.

const COMPUTE: &[u8] = include_bytes!("data/ray_query_comp.spv");
const PIXEL: &[u8] = include_bytes!("data/ray_query_frag.spv");
const HULL: &[u8] = include_bytes!("data/ray_query_tesc.spv");
const PRIVATE: &[u8] = include_bytes!("data/ray_query_private.spv");

mod support;
use support::listing;

/// The `SFI0` feature bits of a container.
fn features(container: &[u8]) -> u64 {
    let c = dxil_container::Container::parse(container).unwrap();
    c.feature_info().unwrap().unwrap().flags
}

#[test]
fn compute_ray_queries_in_an_array() {
    let out = dxil_from_spirv::translate_bytes(COMPUTE, &Default::default()).unwrap();
    assert_eq!(out.profile, "cs_6_5");
    let text = listing(&out.container);
    for needle in [
        // One allocation per query of the array, no template flags (SPIR-V has none).
        "@dx.op.allocateRayQuery(i32 178, i32 0)",
        "@dx.op.rayQuery_TraceRayInline(i32 179,",
        "@dx.op.rayQuery_Proceed.i1(i32 180,",
        "@dx.op.rayQuery_Abort(i32 181,",
        "@dx.op.rayQuery_CommitNonOpaqueTriangleHit(i32 182,",
        "@dx.op.rayQuery_CommitProceduralPrimitiveHit(i32 183,",
        "@dx.op.rayQuery_StateScalar.i32(i32 184,",
        "@dx.op.rayQuery_StateScalar.i32(i32 185,",
        "@dx.op.rayQuery_StateMatrix.f32(i32 188,",
        "@dx.op.rayQuery_StateScalar.i1(i32 190,",
        "@dx.op.rayQuery_StateVector.f32(i32 194,",
        "@dx.op.rayQuery_StateScalar.f32(i32 199,",
        // Custom index is HLSL's InstanceID, the instance's index its InstanceIndex.
        "@dx.op.rayQuery_StateScalar.i32(i32 207,",
        "@dx.op.rayQuery_StateScalar.i32(i32 208,",
        "%struct.RaytracingAccelerationStructure",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    assert_eq!(text.matches("@dx.op.allocateRayQuery(i32 178").count(), 2);
    // The acceleration structure (the only SRV) is indexed non-uniformly.
    assert!(
        text.lines().any(
            |l| l.contains("@dx.op.createHandle(i32 57, i8 0, i32 0, i32 %")
                && l.contains("i1 true)")
        ),
        "{text}"
    );
    // The ray flags pass unchanged (SPIR-V's bits are D3D's): CullBackFacingTriangles.
    assert!(text.contains("i32 16, i32 255, float"), "{text}");
    let f = features(&out.container);
    assert_ne!(
        f & dxil_shader::flags::feature::RAYTRACING_TIER_1_1,
        0,
        "{f:#x}"
    );
    support::dxv("rayquery", "ray_query_comp", &out.container);
}

#[test]
fn pixel_shader_ray_query() {
    let out = dxil_from_spirv::translate_bytes(PIXEL, &Default::default()).unwrap();
    assert_eq!(out.profile, "ps_6_5");
    let text = listing(&out.container);
    assert!(text.contains("@dx.op.rayQuery_TraceRayInline"), "{text}");
    // TerminateOnFirstHit | Opaque.
    assert!(text.contains("i32 5, i32 255, float"), "{text}");
    let acc = out
        .bindings
        .iter()
        .find(|b| b.kind == dxil_from_spirv::DescriptorKind::AccelerationStructure)
        .expect("the acceleration structure's binding");
    assert_eq!(acc.class, dxil_from_spirv::RegisterClass::Srv);
    support::dxv("rayquery", "ray_query_frag", &out.container);
}

#[test]
fn hull_shader_ray_query() {
    let out = dxil_from_spirv::translate_bytes(HULL, &Default::default()).unwrap();
    assert_eq!(out.profile, "hs_6_5");
    let text = listing(&out.container);
    // The control-point function and the patch-constant function each run the shader.
    assert_eq!(
        text.matches("call i32 @dx.op.allocateRayQuery(i32 178")
            .count(),
        2,
        "{text}"
    );
    support::dxv("rayquery", "ray_query_tesc", &out.container);
}

#[test]
fn private_ray_query_and_unsized_acceleration_structures() {
    let out = dxil_from_spirv::translate_bytes(PRIVATE, &Default::default()).unwrap();
    assert_eq!(out.profile, "cs_6_5");
    let acc = out
        .bindings
        .iter()
        .find(|b| b.kind == dxil_from_spirv::DescriptorKind::AccelerationStructure)
        .expect("the acceleration structures' binding");
    assert_eq!(acc.count, u32::MAX);
    support::dxv("rayquery", "ray_query_private", &out.container);
}
