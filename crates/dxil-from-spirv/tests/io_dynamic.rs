//! Stage inputs read at a dynamic offset that moves within a vector (`tests/data/io_dynamic.comp`,
//! compiled by glslang when the test runs): DXIL reads input components only at constant
//! columns, so every component the offset can reach is read and selects pick one. DXC's
//! validator accepts the translation, and run through `to-spirv` on the Vulkan device it writes
//! what the original module writes.

#[path = "support/glsl.rs"]
mod glsl;
mod support;

/// 64 inputs, 64 results, 64 more results.
const WORDS: usize = 3 * 64;

#[test]
fn dynamic_component_of_builtin_vectors() {
    let Some(words) = glsl::compile("io_dynamic.comp", "io-dynamic") else {
        return;
    };
    let container = glsl::translate(&words);
    let text = support::listing(&container);
    assert!(text.contains("select i1"), "{text}");
    support::dxv("io-dynamic", "io_dynamic", &container);
    let Some((a, b)) = glsl::run_original_and_ours(words, &container, WORDS, "random-u32:9") else {
        return;
    };
    assert_eq!(a, b);
    // The results depend on the component picked.
    assert!(
        a[64..128].iter().any(|&w| w % 100 != 0),
        "{:?}",
        &a[64..128]
    );
}
