//! Fragment built-ins that D3D12 has as other system values: `FragSizeEXT` decoded from
//! SV_ShadingRate, `SamplePosition` from the render target's sample positions at
//! SV_SampleIndex (moved from the pixel's centre to its corner), each sharing the element of
//! the built-in it comes from; DXC's validator accepts the result.

const FRAG_SIZE: &[u8] = include_bytes!("data/frag_size.spv");

mod support;
use support::listing;

#[test]
fn frag_size_and_sample_position() {
    let out = dxil_from_spirv::translate_bytes(FRAG_SIZE, &Default::default()).unwrap();
    assert_eq!(out.profile, "ps_6_4");
    let text = listing(&out.container);
    for needle in [
        // Width from bits 2-3, height from bits 0-1.
        "lshr i32",
        "shl i32 1,",
        "@dx.op.renderTargetGetSamplePosition(i32 76,",
        "fadd float",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    assert_eq!(text.matches("!\"SV_ShadingRate\"").count(), 1, "{text}");
    assert_eq!(text.matches("!\"SV_SampleIndex\"").count(), 1, "{text}");
    support::dxv("builtins", "frag_size", &out.container);
}

#[test]
fn fragment_invocation_count_is_inexpressible() {
    let words = invocation_count_words();
    let e = dxil_from_spirv::translate(&words, &Default::default()).unwrap_err();
    assert_eq!(e.kind, dxil_from_spirv::ErrorKind::Inexpressible, "{e}");
    assert!(e.to_string().contains("FragInvocationCountEXT"), "{e}");
}

/// A fragment shader writing gl_FragInvocationCountEXT to its output.
fn invocation_count_words() -> Vec<u32> {
    let bytes = include_bytes!("data/frag_invocations.spv");
    dxil_from_spirv::words_from_bytes(bytes).unwrap()
}
