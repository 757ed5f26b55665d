//! Constant buffer reads that depend on run-time offsets below a word: 16-bit elements of a
//! uniform buffer in scalar layout (`tests/data/cbuffer16.comp`, compiled when the test runs),
//! where the index decides which half of the word holds the element.

#[path = "support/glsl.rs"]
mod glsl;
mod support;

#[test]
fn half_words_at_dynamic_offsets() {
    let Some(words) = glsl::compile("cbuffer16.comp", "cbuffer16") else {
        return;
    };
    let container = glsl::translate(&words);
    let text = support::listing(&container);
    // The shift is the offset's low bits times 8, computed, not a constant of the offset's
    // static part.
    let computed_shift = |l: &str| {
        l.split_once(" = lshr i32 ")
            .and_then(|(_, r)| r.split_once(", "))
            .is_some_and(|(_, amount)| amount.starts_with('%'))
    };
    assert_eq!(
        text.lines().filter(|l| computed_shift(l)).count(),
        1,
        "{text}"
    );
    support::dxv("cbuffer", "cbuffer16", &container);
}
