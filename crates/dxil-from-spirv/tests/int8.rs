//! 8-bit integers in registers (`tests/data/int8_math.comp`, compiled by glslang when the test
//! runs): DXC's validator accepts the translation, and run through `to-spirv` on the Vulkan
//! device it writes what the original module writes there. One result is checked against
//! SPIR-V's definition instead: lavapipe's `OpSMod` on 8-bit values gives the remainder the
//! dividend's sign (as `OpSRem` does), where SPIR-V gives it the divisor's.
//!
//! 8-bit integers in a storage buffer (`tests/data/int8_buffer.comp`): the same checks, and
//! the bytes that neighbouring invocations write into one word are checked against their
//! definition too.
//!
//! 8-bit integers in subgroup operations (`tests/data/int8_wave.comp`): the same checks.

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
    let Some((a, b)) = glsl::run_original_and_ours(words, &container, WORDS, "random-u32:11")
    else {
        return;
    };
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

/// The buffer of `int8_buffer.comp`: 2256 words (see the block there).
const BUFFER_WORDS: usize = 9024 / 4;
/// Byte offsets of `out_b` and `quads` in it.
const OUT_B: usize = 1088 + 4 * 1024;
const QUADS: usize = OUT_B + 256;

#[test]
fn int8_buffer() {
    let Some(words) = glsl::compile("int8_buffer.comp", "int8-buffer") else {
        return;
    };
    let container = glsl::translate(&words);
    let text = support::listing(&container);
    // Bytes are stored with atomics on their words, whole words of bytes by plain stores.
    assert!(text.contains("@dx.op.atomicBinOp.i32"), "{text}");
    assert!(text.contains("@dx.op.bufferStore.i32"), "{text}");
    support::dxv("int8", "int8_buffer", &container);
    let Some((a, b)) =
        glsl::run_original_and_ours(words, &container, BUFFER_WORDS, "random-u32:23")
    else {
        return;
    };
    let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|w| w.to_le_bytes()).collect() };
    let (a, b) = (bytes(&a), bytes(&b));
    let mut wrong = Vec::new();
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            wrong.push(format!("byte {i}: original {x:#x}, ours {y:#x}"));
        }
    }
    // Four invocations write the bytes of each word of `out_b` and `quads`.
    let (in_s, in_u) = (&b[..256], &b[256..512]);
    for i in 0..256 {
        let want_b = in_u[255 - i].wrapping_mul(3);
        let want_q = in_s[i].wrapping_add(i as u8);
        for (at, want) in [(OUT_B + i, want_b), (QUADS + i, want_q)] {
            if b[at] != want {
                wrong.push(format!("byte {at}: expected {want:#x}, got {:#x}", b[at]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Two input blocks and 19 result blocks of 64 words.
const WAVE_WORDS: usize = LANES * 21;

#[test]
fn int8_wave() {
    let Some(words) = glsl::compile("int8_wave.comp", "int8-wave") else {
        return;
    };
    let container = glsl::translate(&words);
    let text = support::listing(&container);
    // Wave operations see the bytes in i32 registers.
    assert!(text.contains("@dx.op.waveActiveOp.i32"), "{text}");
    assert!(!text.contains(".i8("), "{text}");
    support::dxv("int8", "int8_wave", &container);
    let Some((a, b)) = glsl::run_original_and_ours(words, &container, WAVE_WORDS, "random-u32:5")
    else {
        return;
    };
    let wrong: Vec<String> = a
        .iter()
        .zip(&b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| {
            let (block, lane) = (i / LANES, i % LANES);
            format!("block {block} lane {lane}: original {x:#x}, ours {y:#x}")
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
