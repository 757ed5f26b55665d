//! SPIR-V as compilers write it without optimization, and shapes only such SPIR-V reaches:
//! a residency code kept in a function variable before `OpImageSparseTexelsResident` reads it
//! (DXC's validator takes `CheckAccessFullyMapped` only on a status straight from a resource
//! operation), and derivatives in a compute thread group that DXIL cannot cut into quads
//! (refused, not written as DXIL the validator rejects) or in a mesh shader (shader model 6.6
//! and its shader flag); and glslang's debug information
//! (`-gV`), whose non-semantic line records can sit between a block's terminator and the end of
//! the function.

mod support;
use support::listing;

#[test]
fn residency_code_through_memory() {
    let bytes = include_bytes!("data/sparse_o0.spv");
    let out = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap();
    let text = listing(&out.container);
    // Both the sample and the fetch are checked where their status is extracted.
    assert_eq!(
        text.matches("@dx.op.checkAccessFullyMapped.i32(i32 71,")
            .count(),
        2,
        "{text}"
    );
    support::dxv("unoptimized", "sparse_o0", &out.container);
}

#[test]
fn derivatives_need_quads_in_compute() {
    let bytes = include_bytes!("data/derivatives_8x9.spv");
    let e = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap_err();
    assert_eq!(e.kind, dxil_from_spirv::ErrorKind::Inexpressible, "{e}");
    assert!(e.to_string().contains("thread group of 8x9x1"), "{e}");
}

#[test]
fn debug_records_between_blocks() {
    let bytes = include_bytes!("data/debug_info.spv");
    let out = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap();
    support::dxv("unoptimized", "debug_info", &out.container);
}

#[test]
fn derivatives_in_a_mesh_shader() {
    let bytes = include_bytes!("data/mesh_derivatives.spv");
    let out = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap();
    assert_eq!(out.profile, "ms_6_6");
    support::dxv("unoptimized", "mesh_derivatives", &out.container);
}
