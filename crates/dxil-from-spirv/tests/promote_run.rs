//! Local variables in registers, run: an unoptimized glslang compute shader full of local
//! vectors, structs and arrays (`tests/data/locals_run.comp`, compiled when the test runs) is
//! translated (its constant-indexed locals become values and phis), taken through `to-spirv`,
//! and run on the Vulkan device: every word equals the original module's.

#[path = "support/glsl.rs"]
mod glsl;
mod support;

const LANES: usize = 64;
/// Two input blocks and six result blocks of 64 words.
const WORDS: usize = LANES * 8;

#[test]
fn promoted_locals_compute_what_the_original_does() {
    let Some(words) = glsl::compile("locals_run.comp", "promote-run") else {
        return;
    };
    let container = glsl::translate(&words);
    // Only the data-indexed `table` stays in memory.
    let text = support::listing(&container);
    assert_eq!(text.matches(" alloca ").count(), 1, "{text}");
    assert!(text.contains("alloca [8 x i32]"), "{text}");
    assert!(text.contains(" = phi "), "{text}");
    support::dxv("promote-run", "locals_run", &container);
    let Some((a, b)) = glsl::run_original_and_ours(words, &container, WORDS, "random-u32:23")
    else {
        return;
    };
    let wrong: Vec<String> = (2 * LANES..WORDS)
        .filter(|&i| a[i] != b[i])
        .map(|i| {
            let (block, lane) = (i / LANES - 2, i % LANES);
            format!(
                "block {block} lane {lane}: original {:#x}, ours {:#x}",
                a[i], b[i]
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
