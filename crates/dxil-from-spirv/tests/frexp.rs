//! `frexp` of every float width (`tests/data/frexp.comp`, compiled by glslang when the test
//! runs): doubles (zeros, denormals, normals) from their bits, halves through floats with
//! 16-bit exponents, floats from their bits. DXC's validator accepts the translation, and run
//! through `to-spirv` on the Vulkan device every mantissa and exponent equals the one computed
//! here by halving or doubling until the magnitude is in [0.5, 1).

#[path = "support/glsl.rs"]
mod glsl;
mod support;

const LANES: usize = 64;
/// Two input blocks and seven result blocks of 64 words.
const WORDS: usize = LANES * 9;

/// frexp by repeated halving or doubling (exact for binary floats, denormals included).
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (x, 0);
    }
    let (mut m, mut e) = (x, 0);
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (field, frac) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    sign * match field {
        0 => frac * 2f64.powi(-24),
        _ => (1024.0 + frac) * 2f64.powi(field - 25),
    }
}

/// A mantissa in [0.5, 1) as half bits.
fn half_mantissa(m: f64) -> u16 {
    let sign = if m < 0.0 { 0x8000 } else { 0 };
    let frac = (m.abs() * 2048.0 - 1024.0) as u16;
    if m == 0.0 {
        0
    } else {
        sign | (14 << 10) | frac
    }
}

/// The input words, as the shader adjusts them: (lo, hi) of the double, half bits, float bits.
fn inputs(data: &[u32], lane: usize) -> (u32, u32, u16, u32) {
    let finite = |bits: u32, shift: u32, top: u32| {
        let field = (bits >> shift) & top;
        (bits & !(top << shift)) | (field.min(top - 1) << shift)
    };
    let (mut lo, mut hi) = (data[lane], finite(data[LANES + lane], 20, 0x7ff));
    if lane.is_multiple_of(8) {
        hi &= 0x8000_0000;
        lo = 0;
    } else if lane % 8 == 1 {
        hi &= 0x800f_ffff;
    }
    let half = finite(lo & 0xffff, 10, 0x1f) as u16;
    let mut fb = finite(data[LANES + lane], 23, 0xff);
    if fb & 0x7f80_0000 == 0 {
        fb |= 0x0080_0000;
    }
    (lo, hi, half, fb)
}

#[test]
fn frexp_of_every_width() {
    let Some(words) = glsl::compile("frexp.comp", "frexp") else {
        return;
    };
    let container = glsl::translate(&words);
    // Halves through floats, doubles from their words (with denormals scaled first).
    let text = support::listing(&container);
    assert!(text.contains("fpext half"), "{text}");
    assert!(text.contains("fptrunc float"), "{text}");
    assert!(text.contains("fmul double"), "{text}");
    support::dxv("frexp", "frexp", &container);
    let ours = glsl::to_spirv(&container);
    let Some(rt) = glsl::device() else { return };
    let out = glsl::run_u0(&rt, &ours, WORDS, "random-u32:5");
    let block = |k: usize, lane: usize| out[2 * LANES + k * LANES + lane];
    let mut wrong = Vec::new();
    let (mut denormals, mut zeros) = (0, 0);
    for lane in 0..LANES {
        let (lo, hi, half, fb) = inputs(&out, lane);
        let d = f64::from_bits(u64::from(hi) << 32 | u64::from(lo));
        denormals += usize::from(d != 0.0 && (hi >> 20) & 0x7ff == 0);
        zeros += usize::from(d == 0.0);
        let (m, e) = frexp(d);
        let got = f64::from_bits(u64::from(block(1, lane)) << 32 | u64::from(block(0, lane)));
        if got.to_bits() != m.to_bits() || block(2, lane) as i32 != e {
            wrong.push(format!(
                "double {d:e}: expected ({m}, {e}), got ({got}, {})",
                block(2, lane) as i32
            ));
        }
        for (k, h) in [half_to_f64(half), -6.5].into_iter().enumerate() {
            let (m, e) = frexp(h);
            let shift = 16 * k;
            let gm = (block(3, lane) >> shift) as u16;
            let ge = (block(4, lane) >> shift) as u16 as i16;
            if gm != half_mantissa(m) || i32::from(ge) != e {
                wrong.push(format!(
                    "half {h:e}: expected ({:#x}, {e}), got ({gm:#x}, {ge})",
                    half_mantissa(m)
                ));
            }
        }
        let f = f32::from_bits(fb);
        let (m, e) = frexp(f64::from(f));
        if f32::from_bits(block(5, lane)) != m as f32 || block(6, lane) as i32 != e {
            wrong.push(format!("float {f:e}: expected ({m}, {e})"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The input covers the double cases the shader makes.
    assert_eq!((zeros, denormals), (8, 8));
}
