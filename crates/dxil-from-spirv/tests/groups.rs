//! Group operations outside SPV_KHR's subgroup set: SPV_AMD_shader_ballot's
//! `OpGroup*NonUniformAMD` and the `Groups` capability's `OpGroupIAdd`, ... at subgroup scope
//! (`tests/data/amd_ballot.comp`, compiled by glslang when the test runs). Lavapipe runs
//! neither extension, so the reference is the KHR operation computing the same value in the
//! same shader: DXC's validator accepts the translation, and run through `to-spirv` on the
//! Vulkan device each AMD result equals its KHR counterpart in every lane.

#[path = "support/glsl.rs"]
mod glsl;
mod support;

const LANES: usize = 64;
/// Nine pairs of results.
const PAIRS: usize = 9;

#[test]
fn amd_ballot_group_operations() {
    let Some(words) = glsl::compile("amd_ballot.comp", "amd-ballot") else {
        return;
    };
    let container = glsl::translate(&words);
    let text = support::listing(&container);
    assert!(text.contains("@dx.op.waveActiveOp.i32"), "{text}");
    assert!(text.contains("@dx.op.wavePrefixOp.f32"), "{text}");
    support::dxv("groups", "amd_ballot", &container);
    let Some(rt) = glsl::device() else {
        return;
    };
    let out = glsl::run_u0(
        &rt,
        &glsl::to_spirv(&container),
        2 * LANES + 2 * PAIRS * LANES,
        "random-u32:3",
    );
    let block = |k: usize| &out[2 * LANES + k * LANES..][..LANES];
    let mut wrong = Vec::new();
    for k in 0..PAIRS {
        for (lane, (amd, khr)) in block(k).iter().zip(block(k + PAIRS)).enumerate() {
            if amd != khr {
                wrong.push(format!(
                    "result {k} lane {lane}: AMD {amd:#x}, KHR {khr:#x}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Not all lanes equal: the inputs reached the results.
    assert!(block(0).iter().any(|&w| w != 0), "{:?}", block(0));
}
