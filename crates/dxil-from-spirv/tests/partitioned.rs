//! Partitioned subgroup scans (SPV_NV_shader_subgroup_partitioned) as `WaveMultiPrefixOp`
//! over the partition's ballot: inclusive scans add the lane's own value to the exclusive
//! one, booleans go through it as 0 or 1; DXC's validator accepts the result.

const PARTITIONED: &[u8] = include_bytes!("data/partitioned.spv");

mod support;
use support::listing;

#[test]
fn partitioned_scans() {
    let out = dxil_from_spirv::translate_bytes(PARTITIONED, &Default::default()).unwrap();
    assert_eq!(out.profile, "cs_6_5");
    let text = listing(&out.container);
    assert!(text.contains("@dx.op.waveMatch.i32"), "{text}");
    // Six scans: sum (float), product, or, xor, and (boolean), or (boolean).
    assert_eq!(
        text.matches("= call float @dx.op.waveMultiPrefixOp.f32")
            .count(),
        1
    );
    assert_eq!(
        text.matches("= call i32 @dx.op.waveMultiPrefixOp.i32")
            .count(),
        5
    );
    for kind in [
        "i8 0, i8 0)",
        "i8 1, i8 0)",
        "i8 2, i8 0)",
        "i8 3, i8 0)",
        "i8 4, i8 0)",
    ] {
        assert!(text.contains(kind), "operation {kind} missing:\n{text}");
    }
    support::dxv("partitioned", "partitioned", &out.container);
}
