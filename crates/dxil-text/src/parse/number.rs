//! Numeric literals: integers of any width, decimal and LLVM hex floating-point constants.

/// Widest integer constant accepted. LLVM allows 2^23-bit integers, but a negative constant of
/// that width is a megabyte of words from a dozen characters of text; DXIL never goes past 64.
pub(crate) const MAX_WIDE_BITS: u32 = 4096;

/// An integer constant reduced to its type's width.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum IntValue {
    /// Up to 64 bits, sign-extended from the width (so `i1 true` and `i8 255` are -1).
    Small(i64),
    /// Wider: little-endian words, the bits above the width cleared, high zero words dropped.
    Wide(Vec<u64>),
}

/// Sign-extends the low `bits` bits of `v`.
pub(crate) fn sext(v: u64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// A decimal literal (`-?[0-9]+`) as an integer of `width` bits. Like LLVM, out-of-range values
/// are truncated to the width.
pub(crate) fn int_value(text: &str, width: u32) -> Result<IntValue, String> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{text}' is not an integer"));
    }
    if width <= 64 {
        // Arithmetic modulo 2^64 keeps exactly the low bits of any long literal.
        let mut v: u64 = 0;
        for d in digits.bytes() {
            v = v.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
        }
        if neg {
            v = v.wrapping_neg();
        }
        return Ok(IntValue::Small(sext(v, width)));
    }
    if width > MAX_WIDE_BITS {
        return Err(format!(
            "integer constants wider than {MAX_WIDE_BITS} bits are not supported"
        ));
    }
    let nwords = width.div_ceil(64) as usize;
    let mut words: Vec<u64> = vec![0; nwords];
    for d in digits.bytes() {
        let mut carry = u128::from(d - b'0');
        for w in words.iter_mut() {
            let cur = u128::from(*w) * 10 + carry;
            *w = cur as u64;
            carry = cur >> 64;
        }
    }
    if neg {
        let mut carry = true;
        for w in words.iter_mut() {
            let (v, c) = (!*w).overflowing_add(u64::from(carry));
            *w = v;
            carry = c;
        }
    }
    if !width.is_multiple_of(64)
        && let Some(top) = words.last_mut()
    {
        *top &= (1u64 << (width % 64)) - 1;
    }
    while words.len() > 1 && words.last() == Some(&0) {
        words.pop();
    }
    Ok(IntValue::Wide(words))
}

/// The floating-point types a literal can be converted to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum FloatKind {
    Half,
    Float,
    Double,
}

/// Bits of a floating-point literal for a constant of kind `kind`: `hex` is the `0x...` form
/// (16 hex digits of a double, or `0xH` and 4 digits of a half), otherwise a decimal. The value
/// must be exactly representable in the type, as LLVM requires.
pub(crate) fn float_bits(text: &str, hex: bool, kind: FloatKind) -> Result<u64, String> {
    let double = if hex {
        let body = text.get(2..).unwrap_or("");
        if let Some(h) = body.strip_prefix('H') {
            if h.len() > 4 {
                return Err("a half constant has at most 4 hex digits".into());
            }
            let bits =
                u16::from_str_radix(h, 16).map_err(|_| format!("'{text}' is not a hex half"))?;
            return match kind {
                FloatKind::Half => Ok(u64::from(bits)),
                FloatKind::Float => Ok(u64::from(half_to_f32(bits).to_bits())),
                FloatKind::Double => Ok(f64::from(half_to_f32(bits)).to_bits()),
            };
        }
        if body.starts_with(['K', 'L', 'M']) {
            return Err("x86_fp80, fp128 and ppc_fp128 constants are not supported".into());
        }
        if body.len() > 16 {
            return Err("a hex floating-point constant has at most 16 digits".into());
        }
        let bits =
            u64::from_str_radix(body, 16).map_err(|_| format!("'{text}' is not a hex double"))?;
        f64::from_bits(bits)
    } else {
        text.parse::<f64>()
            .map_err(|_| format!("'{text}' is not a floating-point number"))?
    };
    match kind {
        FloatKind::Double => Ok(double.to_bits()),
        FloatKind::Float => f64_to_f32_bits(double)
            .map(u64::from)
            .ok_or_else(|| "floating-point constant invalid for type 'float'".into()),
        FloatKind::Half => f64_to_half_bits(double)
            .map(u64::from)
            .ok_or_else(|| "floating-point constant invalid for type 'half'".into()),
    }
}

/// Converts exactly; NaNs keep the top of their payload (LLVM prints a float NaN as the double
/// whose mantissa is the float's shifted up by 29 bits).
fn f64_to_f32_bits(d: f64) -> Option<u32> {
    let bits = d.to_bits();
    if d.is_nan() {
        let sign = ((bits >> 63) as u32) << 31;
        let mant = ((bits >> 29) & 0x7F_FFFF) as u32;
        // A payload that lives only in the low bits would turn into infinity; keep it a NaN.
        let mant = if mant == 0 { 0x40_0000 } else { mant };
        return Some(sign | 0x7F80_0000 | mant);
    }
    let f = d as f32;
    (f64::from(f) == d || d.is_infinite()).then_some(f.to_bits())
}

/// Converts exactly to IEEE half; `None` when the value is not representable.
fn f64_to_half_bits(d: f64) -> Option<u16> {
    let bits = d.to_bits();
    let sign = ((bits >> 63) as u16) << 15;
    if d.is_nan() {
        let mant = ((bits >> 42) & 0x3FF) as u16;
        return Some(sign | 0x7C00 | if mant == 0 { 0x200 } else { mant });
    }
    if d.is_infinite() {
        return Some(sign | 0x7C00);
    }
    if d == 0.0 {
        return Some(sign);
    }
    let a = d.abs();
    // Normal halves: 2^-14 <= a < 65520 with 11 significant bits; subnormals: multiples of 2^-24.
    let h = if a >= 6.103_515_625e-5 {
        // Halves are far inside the double's normal range, so the exponent field is exact.
        let exp = ((a.to_bits() >> 52) & 0x7FF) as i32 - 1023;
        if exp > 15 {
            return None;
        }
        let scaled = a / 2f64.powi(exp) * 1024.0; // in [1024, 2048)
        if scaled.fract() != 0.0 {
            return None;
        }
        let mant = scaled as u32 - 1024;
        (((exp + 15) as u32) << 10 | mant) as u16
    } else {
        let units = a * 16_777_216.0; // a / 2^-24
        if units.fract() != 0.0 || units >= 1024.0 {
            return None;
        }
        units as u16
    };
    let back = f64::from(half_to_f32(h));
    (back == a).then_some(sign | h)
}

/// IEEE half → single (exact).
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1F);
    let mant = u32::from(h & 0x3FF);
    let bits = match exp {
        0 if mant == 0 => sign,
        0 => {
            // Subnormal: value = mant * 2^-24.
            let v = mant as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        31 => sign | 0x7F80_0000 | (mant << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (mant << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_truncate_to_their_width() {
        assert_eq!(int_value("-1", 32), Ok(IntValue::Small(-1)));
        assert_eq!(int_value("4294967295", 32), Ok(IntValue::Small(-1)));
        assert_eq!(int_value("255", 8), Ok(IntValue::Small(-1)));
        assert_eq!(int_value("1", 1), Ok(IntValue::Small(-1)));
        assert_eq!(int_value("128", 16), Ok(IntValue::Small(128)));
        assert_eq!(
            int_value("-9223372036854775808", 64),
            Ok(IntValue::Small(i64::MIN))
        );
        assert_eq!(
            int_value("18446744073709551615", 64),
            Ok(IntValue::Small(-1))
        );
        assert_eq!(
            int_value("18446744073709551616", 128),
            Ok(IntValue::Wide(vec![0, 1]))
        );
        assert_eq!(
            int_value("-1", 96),
            Ok(IntValue::Wide(vec![u64::MAX, 0xFFFF_FFFF]))
        );
        assert!(int_value("1", 100_000).is_err());
        assert!(int_value("1x", 8).is_err());
    }

    #[test]
    fn floats_in_every_spelling() {
        assert_eq!(
            float_bits("1.000000e+00", false, FloatKind::Float),
            Ok(0x3F80_0000)
        );
        assert_eq!(
            float_bits("0x3FF0000000000000", true, FloatKind::Double),
            Ok(0x3FF0_0000_0000_0000)
        );
        assert_eq!(
            float_bits("0x3FB99999A0000000", true, FloatKind::Float),
            Ok(0x3DCC_CCCD)
        );
        assert!(float_bits("1.000000e-01", false, FloatKind::Float).is_err());
        assert_eq!(float_bits("0xH3C00", true, FloatKind::Half), Ok(0x3C00));
        assert_eq!(float_bits("1.0", false, FloatKind::Half), Ok(0x3C00));
        assert_eq!(float_bits("-2.5", false, FloatKind::Half), Ok(0xC100));
        assert_eq!(
            float_bits("5.960464477539063e-08", false, FloatKind::Half),
            Ok(1)
        );
        assert!(float_bits("0.1", false, FloatKind::Half).is_err());
        assert!(float_bits("70000.0", false, FloatKind::Half).is_err());
        // A float NaN with payload, printed as a double.
        assert_eq!(
            float_bits("0x7FF8000020000000", true, FloatKind::Float),
            Ok(0x7FC0_0001)
        );
        assert_eq!(
            float_bits("0xFFF0000000000000", true, FloatKind::Float),
            Ok(0xFF80_0000)
        );
        assert!(float_bits("0x12345678901234567", true, FloatKind::Double).is_err());
        assert!(float_bits("0xK00", true, FloatKind::Double).is_err());
    }

    #[test]
    fn every_half_converts_back() {
        for h in 0..=u16::MAX {
            let f = half_to_f32(h);
            if f.is_nan() {
                continue;
            }
            assert_eq!(f64_to_half_bits(f64::from(f)), Some(h), "{h:04X}");
        }
    }
}
