//! Local variables in registers: constant-indexed `Function` variables become values and
//! phis (no `alloca`), while a dynamically indexed array and a variable whose undefined value
//! would reach arithmetic stay in memory; the results pass DXC's validator.

mod support;
use support::listing;

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn constant_indexed_locals_become_values() {
    // Two vec4 variables and a loop counter: no memory left, a phi per loop-carried scalar
    // (the counter and the four components of `a`).
    let bytes = include_bytes!("data/spec_big.spv");
    let out = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap();
    let text = listing(&out.container);
    assert_eq!(count(&text, " alloca "), 0, "{text}");
    assert_eq!(count(&text, " = phi "), 5, "{text}");
    assert_eq!(count(&text, "getelementptr"), 0, "{text}");
    support::dxv("promote", "spec_big", &out.container);
}

#[test]
fn dynamic_indices_and_undefined_reads_stay_in_memory() {
    let bytes = include_bytes!("data/locals.spv");
    let out = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap();
    let text = listing(&out.container);
    // `table` (indexed by the loop counter) and `w` (never written, divided by).
    assert_eq!(count(&text, " alloca "), 2, "{text}");
    assert!(text.contains("alloca [8 x float]"), "{text}");
    assert!(text.contains("alloca [1 x i32]"), "{text}");
    // `u`, written on one path only, is a phi with an undefined operand.
    assert_eq!(count(&text, "phi i32 [ undef,"), 1, "{text}");
    support::dxv("promote", "locals", &out.container);
}
