//! Identifier and string spellings: `%name`, `@"\01?foo@@3PAMA"`, `!dx.entryPoints`, `c"..."`.

use std::fmt::{self, Write};

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// C's `isprint` in the "C" locale.
#[inline]
fn is_print(c: u8) -> bool {
    (0x20..0x7F).contains(&c)
}

/// Writes `bytes` with every byte that is not printable ASCII, and `\` and `"`, as `\XX`.
pub(crate) fn write_escaped<W: Write + ?Sized>(out: &mut W, bytes: &[u8]) -> fmt::Result {
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        if is_print(c) && c != b'\\' && c != b'"' {
            continue;
        }
        write_ascii(out, &bytes[start..i])?;
        out.write_char('\\')?;
        out.write_char(HEX_UPPER[(c >> 4) as usize] as char)?;
        out.write_char(HEX_UPPER[(c & 15) as usize] as char)?;
        start = i + 1;
    }
    write_ascii(out, &bytes[start..])
}

/// Writes bytes already known to be printable ASCII.
#[inline]
fn write_ascii<W: Write + ?Sized>(out: &mut W, bytes: &[u8]) -> fmt::Result {
    if bytes.is_empty() {
        return Ok(());
    }
    out.write_str(std::str::from_utf8(bytes).map_err(|_| fmt::Error)?)
}

/// Whether a value or type name can be written without quotes: it does not start with a digit
/// and consists of ASCII letters, digits, `-`, `.` and `_`.
pub(crate) fn is_simple_name(name: &str) -> bool {
    let name = name.as_bytes();
    match name.first() {
        None => false,
        Some(c) if c.is_ascii_digit() => false,
        Some(_) => name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || c == b'_'),
    }
}

/// Writes a name with its sigil (`%`, `@`, or none for labels), quoted and escaped when needed.
pub(crate) fn write_name<W: Write + ?Sized>(out: &mut W, sigil: &str, name: &str) -> fmt::Result {
    out.write_str(sigil)?;
    if is_simple_name(name) {
        return out.write_str(name);
    }
    out.write_char('"')?;
    write_escaped_str(out, name)?;
    out.write_char('"')
}

/// [`write_escaped`] for text already known to be UTF-8: printable runs are written as slices
/// of it, without checking them again.
fn write_escaped_str<W: Write + ?Sized>(out: &mut W, text: &str) -> fmt::Result {
    let mut start = 0;
    for (i, &c) in text.as_bytes().iter().enumerate() {
        if is_print(c) && c != b'\\' && c != b'"' {
            continue;
        }
        // `i` is at an ASCII byte or inside a multi-byte character, whose bytes are all
        // escaped; either way `start..i` ends at a character boundary or is empty.
        out.write_str(text.get(start..i).unwrap_or(""))?;
        out.write_char('\\')?;
        out.write_char(HEX_UPPER[(c >> 4) as usize] as char)?;
        out.write_char(HEX_UPPER[(c & 15) as usize] as char)?;
        start = i + 1;
    }
    out.write_str(text.get(start..).unwrap_or(""))
}

/// A character of a metadata name after the first: a letter, a digit or one of `-$._`.
#[inline]
fn is_md_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_')
}

/// Writes a metadata name (named metadata, attachment kinds) without its `!`: the first character
/// may be a letter or one of `-$._`, the others may also be digits; anything else is `\XX`.
pub(crate) fn write_metadata_identifier<W: Write + ?Sized>(out: &mut W, name: &str) -> fmt::Result {
    let bytes = name.as_bytes();
    // Almost every name needs no escape: one check, one write.
    if bytes
        .first()
        .is_some_and(|&c| !c.is_ascii_digit() && is_md_char(c))
        && bytes.iter().all(|&c| is_md_char(c))
    {
        return out.write_str(name);
    }
    let Some((&first, rest)) = bytes.split_first() else {
        return out.write_str("<empty name> ");
    };
    let ok_first = |c: u8| c.is_ascii_alphabetic() || matches!(c, b'-' | b'$' | b'.' | b'_');
    let escape = |out: &mut W, c: u8| -> fmt::Result {
        out.write_char('\\')?;
        out.write_char(HEX_UPPER[(c >> 4) as usize] as char)?;
        out.write_char(HEX_UPPER[(c & 15) as usize] as char)
    };
    if ok_first(first) {
        out.write_char(first as char)?;
    } else {
        escape(out, first)?;
    }
    let mut start = 0;
    for (i, &c) in rest.iter().enumerate() {
        if ok_first(c) || c.is_ascii_digit() {
            continue;
        }
        write_ascii(out, &rest[start..i])?;
        escape(out, c)?;
        start = i + 1;
    }
    write_ascii(out, &rest[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(sigil: &str, n: &str) -> String {
        let mut s = String::new();
        write_name(&mut s, sigil, n).unwrap();
        s
    }

    fn md(n: &str) -> String {
        let mut s = String::new();
        write_metadata_identifier(&mut s, n).unwrap();
        s
    }

    fn esc(b: &[u8]) -> String {
        let mut s = String::new();
        write_escaped(&mut s, b).unwrap();
        s
    }

    #[test]
    fn simple_names_are_bare() {
        assert_eq!(name("@", "main"), "@main");
        assert_eq!(name("%", "dx.types.Handle"), "%dx.types.Handle");
        assert_eq!(name("%", "a-b_c.1"), "%a-b_c.1");
        assert_eq!(name("", "entry"), "entry");
    }

    #[test]
    fn other_names_are_quoted_and_escaped() {
        assert_eq!(name("@", "\u{1}?foo@@3PAMA"), "@\"\\01?foo@@3PAMA\"");
        assert_eq!(
            name("%", "class.RWStructuredBuffer<unsigned int>"),
            "%\"class.RWStructuredBuffer<unsigned int>\""
        );
        assert_eq!(name("%", "0abc"), "%\"0abc\"");
        assert_eq!(name("%", "a$b"), "%\"a$b\"");
        assert_eq!(name("%", "q\"\\"), "%\"q\\22\\5C\"");
        assert_eq!(name("@", "é"), "@\"\\C3\\A9\"");
    }

    #[test]
    fn string_escapes() {
        assert_eq!(esc(b"abc\0"), "abc\\00");
        assert_eq!(esc(b"\n\t\x7f~ "), "\\0A\\09\\7F~ ");
        assert_eq!(esc(b""), "");
    }

    #[test]
    fn metadata_identifiers() {
        assert_eq!(md("dx.entryPoints"), "dx.entryPoints");
        assert_eq!(md("llvm.ident"), "llvm.ident");
        assert_eq!(md("$x-1"), "$x-1");
        assert_eq!(md("1abc"), "\\31abc");
        assert_eq!(md("a b"), "a\\20b");
        assert_eq!(md(""), "<empty name> ");
    }
}
