//! 8-bit integers in registers (`tests/data/int8_math.comp`, compiled by glslang when the test
//! runs): DXC's validator accepts the translation, and run through `to-spirv` on the Vulkan
//! device it writes what the original module writes there. One result is checked against
//! SPIR-V's definition instead: lavapipe's `OpSMod` on 8-bit values gives the remainder the
//! dividend's sign (as `OpSRem` does), where SPIR-V gives it the divisor's.

#[path = "support/glsl.rs"]
mod glsl;
mod support;

const LANES: usize = 64;
/// Three input blocks and 14 result blocks of 64 words.
const WORDS: usize = LANES * 17;
/// The block of `b % c` (`OpSMod`).
const SMOD: usize = 3 + 3;

#[test]
fn int8_math() {
    let Some(words) = glsl::compile("int8_math.comp", "int8-math") else {
        return;
    };
    let container = glsl::translate(&words);
    // No instruction computes an `i8` (`%x = add i8 ...`): bytes live in `i32`.
    let text = support::listing(&container);
    let computes_i8 = |l: &str| {
        l.split_once(" = ")
            .is_some_and(|(_, r)| r.split_whitespace().nth(1) == Some("i8"))
    };
    assert!(!text.lines().any(computes_i8), "{text}");
    support::dxv("int8", "int8_math", &container);
    let ours = glsl::to_spirv(&container);
    let original = dxil_runtime::ShaderModule {
        words,
        entry: "main".into(),
    };
    let Some(rt) = glsl::device() else { return };
    let init = "random-u32:11";
    let a = glsl::run_u0(&rt, &original, WORDS, init);
    let b = glsl::run_u0(&rt, &ours, WORDS, init);
    let mut wrong = Vec::new();
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let (block, lane) = (i / LANES, i % LANES);
        if block == SMOD {
            let bytes = |w: u32| w.to_le_bytes().map(|v| v as i8);
            let dividend = bytes(a[LANES + lane]);
            let divisor = bytes(a[2 * LANES + lane]).map(|c| (c & 63) | 1);
            let want: Vec<u8> = (0..4)
                .map(|k| dividend[k].rem_euclid(divisor[k]) as u8)
                .collect();
            if y.to_le_bytes().as_slice() != want {
                wrong.push(format!("smod lane {lane}: expected {want:?}, got {y:#x}"));
            }
        } else if x != y {
            wrong.push(format!(
                "block {block} lane {lane}: original {x:#x}, ours {y:#x}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
