//! Tokens of LLVM 3.7 assembly.
//!
//! The grammar is free-form: newlines mean nothing and `;` starts a comment that runs to the end
//! of the line, so DXC's `; <label>:N`, `; preds = ...`, `; Function Attrs:` lines and the notes
//! after `dx.op` calls all vanish here. Tokens are byte spans of the input; names and strings are
//! unescaped only when they are used.

use super::error::ParseError;

/// What a token is. Spans of names and strings are in [`Token::payload`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Tok {
    Eof,
    Equal,
    Comma,
    Star,
    LParen,
    RParen,
    LSquare,
    RSquare,
    LBrace,
    RBrace,
    Less,
    Greater,
    /// `!` not followed by a name, a number or a string (as in `!{`).
    Exclaim,
    DotDotDot,
    /// `%name` or `%"name"`.
    LocalVar,
    /// `%N`.
    LocalId(u32),
    /// `@name` or `@"name"`.
    GlobalVar,
    /// `@N`.
    GlobalId(u32),
    /// `!name` (named metadata, attachment kinds).
    MetadataVar,
    /// `!N`.
    MetadataId(u32),
    /// `!"..."`.
    MetadataString,
    /// `#N`.
    AttrGroupId(u32),
    /// `name:` or `"name":`.
    Label,
    /// `N:`.
    LabelId(u32),
    /// `"..."`.
    Str,
    /// `c"..."`.
    CStr,
    /// A decimal integer, possibly negative.
    Int,
    /// A decimal floating-point number (`1.000000e+00`, `-0.5`).
    Float,
    /// `0x` followed by 16 hex digits of a double, or `0xH`/`0xK`/`0xL`/`0xM` forms.
    HexFloat,
    /// `iN`.
    IntType(u32),
    /// Any other bare word: keywords and instruction names.
    Word,
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    /// Byte offset of the token's first character.
    pub start: u32,
    /// Byte span of the token's content: the name without sigil and quotes, the string without
    /// quotes, the word or number itself.
    pub payload: (u32, u32),
    /// Whether the payload contains a backslash (an escape to decode).
    pub escaped: bool,
    /// Byte offset just past the token.
    pub end: u32,
}

pub(crate) struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

/// Byte classes: bit 0 = identifier character (`[A-Za-z0-9$._-]`), bit 1 = blank.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'$' || b == b'.' || b == b'_' || b == b'-' {
            t[c] |= 1;
        }
        if b == b' ' || b == b'\t' || b == b'\n' || b == b'\r' {
            t[c] |= 2;
        }
        c += 1;
    }
    t
};

/// Characters of a bare identifier after its first one (`[A-Za-z0-9$._-]`).
#[inline]
fn is_ident_char(c: u8) -> bool {
    CLASS[c as usize] & 1 != 0
}

/// Length of the run of identifier characters at the start of `s`.
#[inline]
fn ident_len(s: &[u8]) -> usize {
    s.iter().position(|&c| !is_ident_char(c)).unwrap_or(s.len())
}

/// First characters of a bare name after `%`, `@` or `!` (`[A-Za-z$._-]`).
#[inline]
fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'$' | b'.' | b'_' | b'-')
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
        }
    }

    /// Where the next token will be read from (just past the lookahead token).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Rewinds or advances to a position previously returned by [`Lexer::pos`].
    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos.min(self.src.len());
    }

    #[inline]
    fn at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    /// The text of a span (always on character boundaries: spans start and end at ASCII bytes).
    #[inline]
    pub fn slice(&self, span: (u32, u32)) -> &'a [u8] {
        self.src
            .get(span.0 as usize..span.1 as usize)
            .unwrap_or(&[])
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> ParseError {
        ParseError::at(self.src, at as u32, msg)
    }

    /// Skips blanks and comments.
    #[inline]
    fn skip_trivia(&mut self) {
        loop {
            let c = self.at(self.pos);
            if CLASS[c as usize] & 2 != 0 {
                self.pos += 1;
            } else if c == b';' {
                // Comments run to the end of the line.
                match memchr::memchr(b'\n', &self.src[self.pos..]) {
                    Some(n) => self.pos += n + 1,
                    None => self.pos = self.src.len(),
                }
            } else {
                return;
            }
        }
    }

    pub fn next_token(&mut self) -> Result<Token, ParseError> {
        self.skip_trivia();
        let start = self.pos;
        let mut t = Token {
            tok: Tok::Eof,
            start: start as u32,
            payload: (start as u32, start as u32),
            escaped: false,
            end: start as u32,
        };
        let Some(&c) = self.src.get(start) else {
            return Ok(t);
        };
        self.pos += 1;
        t.tok = match c {
            b'=' => Tok::Equal,
            b',' => Tok::Comma,
            b'*' => Tok::Star,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LSquare,
            b']' => Tok::RSquare,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'<' => Tok::Less,
            b'>' => Tok::Greater,
            b'.' if self.at(start + 1) == b'.' && self.at(start + 2) == b'.' => {
                self.pos += 2;
                Tok::DotDotDot
            }
            b'%' => self.sigil_name(&mut t, Tok::LocalVar, Tok::LocalId, "%")?,
            b'@' => self.sigil_name(&mut t, Tok::GlobalVar, Tok::GlobalId, "@")?,
            b'#' => {
                let n = self.digits(start + 1);
                if n == 0 {
                    return Err(self.err(start, "expected an attribute group number after '#'"));
                }
                Tok::AttrGroupId(self.number(start + 1, n, "attribute group")?)
            }
            b'!' => self.exclaim(&mut t)?,
            b'"' => {
                self.string_body(&mut t, start + 1)?;
                if self.at(self.pos) == b':' {
                    self.pos += 1;
                    Tok::Label
                } else {
                    Tok::Str
                }
            }
            b'0'..=b'9' | b'-' | b'+' => self.number_token(&mut t)?,
            c if is_name_start(c) => self.word(&mut t)?,
            c => {
                let shown = if c.is_ascii_graphic() {
                    format!("'{}'", c as char)
                } else {
                    format!("byte 0x{c:02X}")
                };
                return Err(self.err(start, format!("unexpected character {shown}")));
            }
        };
        t.end = self.pos as u32;
        Ok(t)
    }

    /// Number of ASCII digits starting at `i`.
    fn digits(&self, i: usize) -> usize {
        self.src
            .get(i..)
            .map_or(0, |s| s.iter().take_while(|c| c.is_ascii_digit()).count())
    }

    /// A decimal id of `n` digits at `i`, which must fit in `u32`; advances past it.
    fn number(&mut self, i: usize, n: usize, what: &str) -> Result<u32, ParseError> {
        let mut v: u64 = 0;
        for &d in &self.src[i..i + n] {
            v = v * 10 + u64::from(d - b'0');
            if v > u64::from(u32::MAX) {
                return Err(self.err(i, format!("{what} number is too large")));
            }
        }
        self.pos = i + n;
        Ok(v as u32)
    }

    /// `%` / `@` names: quoted, bare or numbered.
    fn sigil_name(
        &mut self,
        t: &mut Token,
        named: Tok,
        numbered: fn(u32) -> Tok,
        sigil: &str,
    ) -> Result<Tok, ParseError> {
        let i = t.start as usize + 1;
        match self.at(i) {
            b'"' => {
                self.string_body(t, i + 1)?;
                Ok(named)
            }
            c if c.is_ascii_digit() => {
                let n = self.digits(i);
                Ok(numbered(self.number(i, n, "value")?))
            }
            c if is_name_start(c) => {
                let n = ident_len(&self.src[i..]);
                self.pos = i + n;
                t.payload = (i as u32, (i + n) as u32);
                Ok(named)
            }
            _ => Err(self.err(
                t.start as usize,
                format!("expected a name or number after '{sigil}'"),
            )),
        }
    }

    /// The body of a quoted string whose first character is at `i`; sets the payload span.
    fn string_body(&mut self, t: &mut Token, i: usize) -> Result<(), ParseError> {
        let rest = self.src.get(i..).unwrap_or(&[]);
        let Some(n) = memchr::memchr(b'"', rest) else {
            return Err(self.err(t.start as usize, "unterminated string"));
        };
        t.payload = (i as u32, (i + n) as u32);
        t.escaped = memchr::memchr(b'\\', &rest[..n]).is_some();
        self.pos = i + n + 1;
        Ok(())
    }

    fn exclaim(&mut self, t: &mut Token) -> Result<Tok, ParseError> {
        let i = t.start as usize + 1;
        match self.at(i) {
            b'"' => {
                self.string_body(t, i + 1)?;
                Ok(Tok::MetadataString)
            }
            c if c.is_ascii_digit() => {
                let n = self.digits(i);
                Ok(Tok::MetadataId(self.number(i, n, "metadata")?))
            }
            c if is_name_start(c) || c == b'\\' => {
                let n = self.src[i..]
                    .iter()
                    .take_while(|&&c| is_ident_char(c) || c == b'\\')
                    .count();
                self.pos = i + n;
                t.payload = (i as u32, (i + n) as u32);
                t.escaped = self.src[i..i + n].contains(&b'\\');
                Ok(Tok::MetadataVar)
            }
            _ => Ok(Tok::Exclaim),
        }
    }

    /// Integers, decimal and hex floating-point numbers, and numbered labels.
    fn number_token(&mut self, t: &mut Token) -> Result<Tok, ParseError> {
        let s = t.start as usize;
        let c = self.at(s);
        if c == b'0' && self.at(s + 1) == b'x' {
            let mut i = s + 2;
            if matches!(self.at(i), b'H' | b'K' | b'L' | b'M') {
                i += 1;
            }
            let n = self.src[i..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
            if n == 0 {
                return Err(self.err(s, "expected hex digits after '0x'"));
            }
            self.pos = i + n;
            t.payload = (s as u32, self.pos as u32);
            return Ok(Tok::HexFloat);
        }
        let sign = usize::from(c == b'-' || c == b'+');
        let int_digits = self.digits(s + sign);
        if int_digits == 0 {
            return Err(self.err(s, format!("expected digits after '{}'", c as char)));
        }
        let mut i = s + sign + int_digits;
        if sign == 0 && self.at(i) == b':' {
            let n = self.number(s, int_digits, "label")?;
            self.pos = i + 1;
            return Ok(Tok::LabelId(n));
        }
        let mut tok = Tok::Int;
        if self.at(i) == b'.' {
            tok = Tok::Float;
            i += 1;
            i += self.digits(i);
            if matches!(self.at(i), b'e' | b'E') {
                let mut j = i + 1;
                if matches!(self.at(j), b'+' | b'-') {
                    j += 1;
                }
                let n = self.digits(j);
                if n > 0 {
                    i = j + n;
                }
            }
        } else if c == b'+' {
            return Err(self.err(s, "expected a floating-point number after '+'"));
        }
        self.pos = i;
        t.payload = (s as u32, i as u32);
        Ok(tok)
    }

    /// Keywords, `iN`, `c"..."` and `name:` labels.
    fn word(&mut self, t: &mut Token) -> Result<Tok, ParseError> {
        let s = t.start as usize;
        if self.at(s) == b'c' && self.at(s + 1) == b'"' {
            self.string_body(t, s + 2)?;
            return Ok(Tok::CStr);
        }
        let n = ident_len(&self.src[s..]);
        self.pos = s + n;
        t.payload = (s as u32, (s + n) as u32);
        if self.at(self.pos) == b':' {
            self.pos += 1;
            return Ok(Tok::Label);
        }
        let w = &self.src[s..s + n];
        if w.len() >= 2 && w[0] == b'i' && w[1..].iter().all(u8::is_ascii_digit) {
            let mut v: u64 = 0;
            for &d in &w[1..] {
                v = v * 10 + u64::from(d - b'0');
                if v > 1 << 23 {
                    return Err(self.err(s, "integer type width must be at most 2^23 bits"));
                }
            }
            if v == 0 {
                return Err(self.err(s, "integer type width must be at least 1"));
            }
            return Ok(Tok::IntType(v as u32));
        }
        Ok(Tok::Word)
    }
}

/// Decodes LLVM's escapes in a quoted string or name: `\\` and `\XX` (two hex digits); any other
/// backslash stands for itself.
pub(crate) fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while let Some(&c) = raw.get(i) {
        if c == b'\\' {
            if raw.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let (Some(h), Some(l)) = (
                raw.get(i + 1).and_then(|&h| hex_val(h)),
                raw.get(i + 2).and_then(|&l| hex_val(l)),
            ) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
}

pub(crate) fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s);
        let mut v = Vec::new();
        loop {
            let t = l.next_token().unwrap();
            if t.tok == Tok::Eof {
                break;
            }
            v.push(t.tok);
        }
        v
    }

    #[test]
    fn punctuation_names_and_comments() {
        assert_eq!(
            toks("%1 = call %dx.types.Handle @dx.op.createHandle(i32 57) ; note\n!0 = !{!\"x\"}"),
            vec![
                Tok::LocalId(1),
                Tok::Equal,
                Tok::Word,
                Tok::LocalVar,
                Tok::GlobalVar,
                Tok::LParen,
                Tok::IntType(32),
                Tok::Int,
                Tok::RParen,
                Tok::MetadataId(0),
                Tok::Equal,
                Tok::Exclaim,
                Tok::LBrace,
                Tok::MetadataString,
                Tok::RBrace,
            ]
        );
    }

    #[test]
    fn numbers_labels_and_strings() {
        assert_eq!(
            toks("-5 1.000000e+00 0x3FF0000000000000 0xH3C00 12: entry: \"a b\": c\"x\\00\" ..."),
            vec![
                Tok::Int,
                Tok::Float,
                Tok::HexFloat,
                Tok::HexFloat,
                Tok::LabelId(12),
                Tok::Label,
                Tok::Label,
                Tok::CStr,
                Tok::DotDotDot,
            ]
        );
        assert_eq!(
            toks("!dx.precise #3 !\\31x"),
            vec![Tok::MetadataVar, Tok::AttrGroupId(3), Tok::MetadataVar]
        );
    }

    #[test]
    fn bad_input_is_an_error_with_a_position() {
        for bad in [
            "\"open",
            "%",
            "@ x",
            "#x",
            "%99999999999",
            "i0",
            "i99999999",
            "\u{1}",
            "+1",
        ] {
            let mut l = Lexer::new(bad);
            let mut r = Ok(());
            for _ in 0..4 {
                match l.next_token() {
                    Ok(t) if t.tok == Tok::Eof => break,
                    Ok(_) => {}
                    Err(e) => {
                        r = Err(e);
                        break;
                    }
                }
            }
            let e = r.expect_err(bad);
            assert_eq!(e.line, 1, "{bad}");
            assert!(e.column >= 1, "{bad}");
        }
    }

    #[test]
    fn escapes() {
        let mut v = Vec::new();
        unescape(b"\\01?x\\5C\\\\y\\z", &mut v);
        assert_eq!(v, b"\x01?x\\\\y\\z");
    }
}
