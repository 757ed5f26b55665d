//! Number spellings of LLVM 3.7's assembly writer.
//!
//! Integers are printed as signed decimals (`i1` as `true`/`false`). A `float` or `double`
//! constant is printed as C's `%e` (six fractional digits) when that text parses back to exactly
//! the same double, and otherwise as the 16 hex digits of the value converted to `double` (a
//! `float` NaN keeps its payload, shifted into the double's mantissa). `half` is always `0xH`
//! followed by four hex digits.

use std::fmt::{self, Write};

/// A fixed-size text buffer on the stack, so that numbers are formatted without allocating.
pub(crate) struct StackBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> StackBuf<N> {
    pub(crate) fn new() -> Self {
        StackBuf {
            buf: [0; N],
            len: 0,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only `write_str` fills the buffer, with whole `&str`s.
        std::str::from_utf8(self.buf.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }
}

impl<const N: usize> Write for StackBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// "000" to "999", so that decimals are written as slices of a static string.
const TRIPLES: [u8; 3000] = {
    let mut b = [0u8; 3000];
    let mut i = 0;
    while i < 1000 {
        b[3 * i] = b'0' + (i / 100) as u8;
        b[3 * i + 1] = b'0' + (i / 10 % 10) as u8;
        b[3 * i + 2] = b'0' + (i % 10) as u8;
        i += 1;
    }
    b
};
const TRIPLES_STR: &str = match std::str::from_utf8(&TRIPLES) {
    Ok(s) => s,
    Err(_) => "",
};

/// `n` (< 1000) as three digits, or without leading zeros.
#[inline]
fn triple(n: u64, pad: bool) -> &'static str {
    let i = (n as usize % 1000) * 3;
    let skip = if pad || n >= 100 {
        0
    } else if n >= 10 {
        1
    } else {
        2
    };
    TRIPLES_STR.get(i + skip..i + 3).unwrap_or("?")
}

/// Writes an unsigned decimal.
#[inline]
pub(crate) fn write_u64<W: Write + ?Sized>(out: &mut W, v: u64) -> fmt::Result {
    if v < 1000 {
        return out.write_str(triple(v, false));
    }
    // Groups of three digits, least significant first.
    let mut groups = [0u64; 7];
    let mut n = 0;
    let mut rest = v;
    while rest > 0 {
        groups[n] = rest % 1000;
        rest /= 1000;
        n += 1;
    }
    out.write_str(triple(groups[n - 1], false))?;
    for g in groups[..n - 1].iter().rev() {
        out.write_str(triple(*g, true))?;
    }
    Ok(())
}

/// Writes a signed decimal.
pub(crate) fn write_i64<W: Write + ?Sized>(out: &mut W, v: i64) -> fmt::Result {
    if v < 0 {
        out.write_char('-')?;
    }
    write_u64(out, v.unsigned_abs())
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Uppercase hex without leading zeros (`0` for zero), as LLVM's `utohex_buffer`.
pub(crate) fn write_hex<W: Write + ?Sized>(out: &mut W, mut v: u64) -> fmt::Result {
    let mut buf = [0u8; 16];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = HEX_UPPER[(v & 15) as usize];
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    out.write_str(std::str::from_utf8(&buf[i..]).unwrap_or("?"))
}

/// The value of an integer constant of `width` bits given its low 64 bits, as LLVM prints it
/// (sign-extended from the type's width).
pub(crate) fn sign_extend(v: u64, width: u32) -> i64 {
    if width == 0 || width >= 64 {
        v as i64
    } else {
        let shift = 64 - width;
        ((v << shift) as i64) >> shift
    }
}

/// Writes an integer constant of type `iN` whose low 64 bits are `v`.
pub(crate) fn write_int<W: Write + ?Sized>(out: &mut W, v: u64, width: u32) -> fmt::Result {
    if width == 1 {
        return out.write_str(if v & 1 != 0 { "true" } else { "false" });
    }
    write_i64(out, sign_extend(v, width))
}

/// Writes an integer wider than 64 bits (little-endian words) as a signed decimal.
pub(crate) fn write_wide_int<W: Write + ?Sized>(
    out: &mut W,
    words: &[u64],
    width: u32,
) -> fmt::Result {
    if width <= 64 {
        return write_int(out, words.first().copied().unwrap_or(0), width);
    }
    let nwords = width.div_ceil(64) as usize;
    let mut mag: Vec<u64> = (0..nwords)
        .map(|i| words.get(i).copied().unwrap_or(0))
        .collect();
    // Clear the bits above the width, then read the sign bit.
    let top_bits = width - 64 * (nwords as u32 - 1);
    if let Some(top) = mag.last_mut()
        && top_bits < 64
    {
        *top &= (1u64 << top_bits) - 1;
    }
    let negative = mag
        .last()
        .is_some_and(|top| (top >> (top_bits - 1)) & 1 != 0);
    if negative {
        // Two's complement within `width` bits: invert, add one, drop the bits above the width.
        let mut carry = true;
        for w in mag.iter_mut() {
            let (v, c) = (!*w).overflowing_add(carry as u64);
            *w = v;
            carry = c;
        }
        if let Some(top) = mag.last_mut()
            && top_bits < 64
        {
            *top &= (1u64 << top_bits) - 1;
        }
        out.write_char('-')?;
    }
    // Repeated division by 10^19 gives the decimal digits in chunks of 19, least significant first.
    const CHUNK: u64 = 10_000_000_000_000_000_000;
    let mut chunks = Vec::new();
    while mag.iter().any(|&w| w != 0) {
        let mut rem: u128 = 0;
        for w in mag.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*w);
            *w = (cur / u128::from(CHUNK)) as u64;
            rem = cur % u128::from(CHUNK);
        }
        chunks.push(rem as u64);
    }
    match chunks.split_last() {
        None => out.write_char('0'),
        Some((first, rest)) => {
            write_u64(out, *first)?;
            for c in rest.iter().rev() {
                let mut b = StackBuf::<20>::new();
                write_u64(&mut b, *c)?;
                for _ in b.len..19 {
                    out.write_char('0')?;
                }
                out.write_str(b.as_str())?;
            }
            Ok(())
        }
    }
}

/// `half` constants: `0xH` and exactly four uppercase hex digits.
pub(crate) fn write_half<W: Write + ?Sized>(out: &mut W, bits: u16) -> fmt::Result {
    out.write_str("0xH")?;
    for shift in [12, 8, 4, 0] {
        out.write_char(HEX_UPPER[((bits >> shift) & 15) as usize] as char)?;
    }
    Ok(())
}

/// The bits of a `float` converted to `double` the way LLVM's APFloat converts: exactly for
/// numbers and infinities, and for NaNs by moving the payload to the top of the double's
/// mantissa without quieting it.
pub(crate) fn f32_bits_to_f64_bits(bits: u32) -> u64 {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        let mantissa = u64::from(bits & 0x007F_FFFF) << 29;
        sign | (0x7FFu64 << 52) | mantissa
    } else {
        f64::from(f).to_bits()
    }
}

/// A `double` constant (also used for `float`s, after conversion).
pub(crate) fn write_double_bits<W: Write + ?Sized>(out: &mut W, bits: u64) -> fmt::Result {
    let v = f64::from_bits(bits);
    if v.is_finite() {
        // `%e`: six digits after the point. Rust's exact formatting rounds correctly; which way a
        // tie goes never matters, as a tie means the value needs more digits and is printed in hex.
        let mut text = StackBuf::<40>::new();
        if write!(text, "{v:.6e}").is_ok() && text.as_str().parse::<f64>() == Ok(v) {
            return write_c_exponent_form(out, text.as_str());
        }
    }
    out.write_str("0x")?;
    write_hex(out, bits)
}

/// Rewrites Rust's `1.500000e-3` as C's `1.500000e-03` (signed exponent of at least two digits).
fn write_c_exponent_form<W: Write + ?Sized>(out: &mut W, text: &str) -> fmt::Result {
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    out.write_str(mantissa)?;
    out.write_char('e')?;
    let digits = match exp.strip_prefix('-') {
        Some(d) => {
            out.write_char('-')?;
            d
        }
        None => {
            out.write_char('+')?;
            exp
        }
    };
    if digits.len() < 2 {
        out.write_char('0')?;
    }
    out.write_str(digits)
}

/// A `float` constant from its 32 raw bits.
pub(crate) fn write_float_bits<W: Write + ?Sized>(out: &mut W, bits: u32) -> fmt::Result {
    write_double_bits(out, f32_bits_to_f64_bits(bits))
}

/// `x86_fp80` (`0xK`, 20 digits), `fp128` (`0xL`, 32) and `ppc_fp128` (`0xM`, 32) constants.
/// `words` are the value's little-endian 64-bit words as the bitcode stores them.
pub(crate) fn write_long_double<W: Write + ?Sized>(
    out: &mut W,
    letter: char,
    words: &[u64],
) -> fmt::Result {
    out.write_str("0x")?;
    out.write_char(letter)?;
    let w = |i: usize| words.get(i).copied().unwrap_or(0);
    if letter == 'K' {
        // Sign and exponent (16 bits, in the second word) then the 64-bit significand.
        let hi = w(1) & 0xFFFF;
        for shift in (0..4).rev() {
            out.write_char(HEX_UPPER[((hi >> (shift * 4)) & 15) as usize] as char)?;
        }
        for shift in (0..16).rev() {
            out.write_char(HEX_UPPER[((w(0) >> (shift * 4)) & 15) as usize] as char)?;
        }
    } else {
        // 128 bits, the low word first (LLVM prints the words in storage order).
        for word in [w(0), w(1)] {
            for shift in (0..16).rev() {
                out.write_char(HEX_UPPER[((word >> (shift * 4)) & 15) as usize] as char)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl FnOnce(&mut String) -> fmt::Result) -> String {
        let mut out = String::new();
        f(&mut out).unwrap();
        out
    }

    fn float(v: f32) -> String {
        s(|o| write_float_bits(o, v.to_bits()))
    }

    fn double(v: f64) -> String {
        s(|o| write_double_bits(o, v.to_bits()))
    }

    #[test]
    fn integers_are_signed_decimals_and_i1_is_a_keyword() {
        assert_eq!(s(|o| write_int(o, 0, 32)), "0");
        assert_eq!(s(|o| write_int(o, 0xFFFF_FFFF, 32)), "-1");
        assert_eq!(s(|o| write_int(o, 255, 8)), "-1");
        assert_eq!(s(|o| write_int(o, 127, 8)), "127");
        assert_eq!(s(|o| write_int(o, u64::MAX, 64)), "-1");
        assert_eq!(
            s(|o| write_int(o, i64::MIN as u64, 64)),
            "-9223372036854775808"
        );
        assert_eq!(s(|o| write_int(o, 1, 1)), "true");
        assert_eq!(s(|o| write_int(o, u64::MAX, 1)), "true");
        assert_eq!(s(|o| write_int(o, 0, 1)), "false");
        assert_eq!(s(|o| write_int(o, 4294967295, 64)), "4294967295");
        assert_eq!(s(|o| write_u64(o, u64::MAX)), "18446744073709551615");
        for v in [
            0,
            7,
            10,
            99,
            100,
            999,
            1000,
            1001,
            10_010,
            999_999,
            1_000_000,
            4_294_967_295,
        ] {
            assert_eq!(s(|o| write_u64(o, v)), v.to_string());
        }
    }

    #[test]
    fn wide_integers() {
        // 2^64 as i128.
        assert_eq!(
            s(|o| write_wide_int(o, &[0, 1], 128)),
            "18446744073709551616"
        );
        // -1 as i128.
        assert_eq!(s(|o| write_wide_int(o, &[u64::MAX, u64::MAX], 128)), "-1");
        // -2^127.
        assert_eq!(
            s(|o| write_wide_int(o, &[0, 1 << 63], 128)),
            "-170141183460469231731687303715884105728"
        );
        // i65 with only the sign bit set: -2^64.
        assert_eq!(
            s(|o| write_wide_int(o, &[0, 1], 65)),
            "-18446744073709551616"
        );
        assert_eq!(s(|o| write_wide_int(o, &[0, 0], 96)), "0");
        // 10^19 exactly spans a chunk boundary.
        assert_eq!(
            s(|o| write_wide_int(o, &[10_000_000_000_000_000_000, 0], 128)),
            "10000000000000000000"
        );
        assert_eq!(
            s(|o| write_wide_int(o, &[0x4B3B4CA85A86C47A, 0x98A224], 128)),
            "184522417455446033051337850"
        );
    }

    #[test]
    fn exactly_printable_values_use_the_exponent_form() {
        assert_eq!(float(1.0), "1.000000e+00");
        assert_eq!(float(-1.0), "-1.000000e+00");
        assert_eq!(float(0.5), "5.000000e-01");
        assert_eq!(float(0.0), "0.000000e+00");
        assert_eq!(float(-0.0), "-0.000000e+00");
        assert_eq!(float(3.0), "3.000000e+00");
        assert_eq!(float(255.0), "2.550000e+02");
        assert_eq!(float(1.0e10), "1.000000e+10");
        assert_eq!(float(0.25), "2.500000e-01");
        assert_eq!(double(1.0e10), "1.000000e+10");
        assert_eq!(double(1.0e100), "1.000000e+100");
        assert_eq!(double(1.0e-300), "1.000000e-300");
        assert_eq!(double(0.1), "1.000000e-01");
        assert_eq!(double(1234567.0), "1.234567e+06");
        assert_eq!(double(-2.5e-5), "-2.500000e-05");
    }

    #[test]
    fn values_needing_more_digits_use_hex_of_the_double() {
        // 0.1f is not 0.1 as a double.
        assert_eq!(float(0.1), "0x3FB99999A0000000");
        assert_eq!(float(-0.1), "0xBFB99999A0000000");
        assert_eq!(double(1.0 / 3.0), "0x3FD5555555555555");
        // Eight significant digits do not fit in `%e`'s seven.
        assert_eq!(double(12345678.0), "0x41678C29C0000000");
        assert_eq!(float(16777215.0), "0x416FFFFFE0000000");
        assert_eq!(float(std::f32::consts::PI), "0x400921FB60000000");
    }

    #[test]
    fn infinities_and_nans_use_hex_with_payloads_kept() {
        assert_eq!(float(f32::INFINITY), "0x7FF0000000000000");
        assert_eq!(float(f32::NEG_INFINITY), "0xFFF0000000000000");
        assert_eq!(double(f64::INFINITY), "0x7FF0000000000000");
        assert_eq!(
            s(|o| write_float_bits(o, 0x7FC0_0000)),
            "0x7FF8000000000000"
        );
        assert_eq!(
            s(|o| write_float_bits(o, 0xFFC0_0000)),
            "0xFFF8000000000000"
        );
        // A signalling NaN stays signalling: the payload is shifted, not quieted.
        assert_eq!(
            s(|o| write_float_bits(o, 0x7F80_0001)),
            "0x7FF0000020000000"
        );
        assert_eq!(
            s(|o| write_float_bits(o, 0x7FBF_FFFF)),
            "0x7FF7FFFFE0000000"
        );
        assert_eq!(
            s(|o| write_double_bits(o, 0x7FF0_0000_0000_0001)),
            "0x7FF0000000000001"
        );
    }

    #[test]
    fn denormals() {
        // The smallest float denormal is a normal double that needs more than seven digits.
        assert_eq!(s(|o| write_float_bits(o, 1)), "0x36A0000000000000");
        assert_eq!(
            s(|o| write_float_bits(o, 0x8000_0001)),
            "0xB6A0000000000000"
        );
        // Small double denormals are so sparse that seven digits name them exactly.
        assert_eq!(s(|o| write_double_bits(o, 1)), "4.940656e-324");
        assert_eq!(double(1e-310), "1.000000e-310");
        // The largest one is not: hex, without leading zeros as LLVM's utohex writes it.
        assert_eq!(
            s(|o| write_double_bits(o, 0x000F_FFFF_FFFF_FFFF)),
            "0xFFFFFFFFFFFFF"
        );
        assert_eq!(
            s(|o| write_double_bits(o, 0x8000_0000_0000_0001)),
            "-4.940656e-324"
        );
    }

    #[test]
    fn halves_are_always_four_hex_digits() {
        assert_eq!(s(|o| write_half(o, 0x3C00)), "0xH3C00");
        assert_eq!(s(|o| write_half(o, 0)), "0xH0000");
        assert_eq!(s(|o| write_half(o, 0x8000)), "0xH8000");
        assert_eq!(s(|o| write_half(o, 0x7E00)), "0xH7E00");
        assert_eq!(s(|o| write_half(o, 0x00ab)), "0xH00AB");
    }

    #[test]
    fn long_doubles() {
        assert_eq!(
            s(|o| write_long_double(o, 'K', &[0x8000_0000_0000_0000, 0x3FFF])),
            "0xK3FFF8000000000000000"
        );
        assert_eq!(
            s(|o| write_long_double(o, 'L', &[0, 0x3FFF_0000_0000_0000])),
            "0xL00000000000000003FFF000000000000"
        );
    }

    #[test]
    fn c_exponent_form() {
        assert_eq!(
            s(|o| write_c_exponent_form(o, "1.000000e0")),
            "1.000000e+00"
        );
        assert_eq!(
            s(|o| write_c_exponent_form(o, "1.000000e-7")),
            "1.000000e-07"
        );
        assert_eq!(
            s(|o| write_c_exponent_form(o, "1.000000e300")),
            "1.000000e+300"
        );
    }

    #[test]
    fn stack_buffer_overflow_is_an_error() {
        let mut b = StackBuf::<4>::new();
        assert!(b.write_str("abcd").is_ok());
        assert!(b.write_str("e").is_err());
        assert_eq!(b.as_str(), "abcd");
    }
}
