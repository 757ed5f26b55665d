//! The HLSL root signature language (`[RootSignature("...")]`, `-rootsig-define`), parsed the
//! way DXC's `HLSLRootSignature.cpp` parses it, and printed back.
//!
//! DXC is the authority; the behaviours worth knowing, all reproduced here:
//! * Keywords are case-insensitive; register tokens are not (`t0` is a register, `T0` is an
//!   unknown token). A register token is a lowercase `b`/`t`/`u`/`s` followed by a digit; its
//!   number is the leading run of digits (so `t0abc` reads as `t0`, like `atoll`).
//! * Only the space character separates tokens; a tab or newline is an unknown token. A byte
//!   that starts no token swallows the rest of the string (up to 127 bytes) as one unknown token.
//! * Tokens are at most 127 bytes; a longer word is split.
//! * Integers: an optional sign and decimal digits. Unsigned values must fit u32; a leading
//!   `-` makes a signed token, accepted only where a float is expected.
//! * Floats: digits with `.`, an exponent or an `f` suffix; parsed as a double (`strtod`) and
//!   rounded to f32; out-of-range values (beyond `FLT_MAX`, or underflowing the double) are
//!   unknown tokens.
//! * Clause arguments come in any order, each at most once; a trailing comma after the last
//!   clause is accepted; an empty string is an empty root signature.
//! * Defaults: visibility ALL, space 0, `numDescriptors=1`, `offset=DESCRIPTOR_RANGE_OFFSET_APPEND`,
//!   flags 0; static samplers as [`StaticSampler::hlsl_default`].
//! * The string is parsed as version 1.1; `flags=` is rejected when compiling for 1.0, and the
//!   result is down-converted with DXC's lossy conversion (1.0 defaults replace the zero flags).
//!   DXC has no syntax for version 1.2 (static sampler flags); parsing "for 1.2" yields the 1.1
//!   result with the version set to 1.2.
//!
//! Errors carry the 1-based byte column of the offending token; messages follow DXC's.

use crate::binary::check_expressible;
use crate::error::Error;
use crate::model::*;
use std::fmt;

/// Whether the string is compiled as a global or local root signature
/// (`DxilRootSignatureCompilationFlags`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignatureKind {
    /// A standalone `-T rootsig_1_x` compile: either kind is fine.
    #[default]
    Any,
    /// `[RootSignature]` on an entry point / `GLOBAL_ROOT_SIGNATURE` subobject:
    /// `LOCAL_ROOT_SIGNATURE` is an error.
    Global,
    /// `LOCAL_ROOT_SIGNATURE` subobject: the flag is added.
    Local,
}

/// Options of [`parse_hlsl`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Version to compile for (`rootsig_1_0` / `rootsig_1_1`; DXC's default is 1.1).
    pub version: Version,
    /// Global, local or either.
    pub kind: SignatureKind,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            version: Version::V1_1,
            kind: SignatureKind::Any,
        }
    }
}

impl ParseOptions {
    /// Defaults with the given version.
    pub fn version(version: Version) -> Self {
        ParseOptions {
            version,
            ..ParseOptions::default()
        }
    }
}

const MAX_TOKEN_LEN: usize = 127;

/// Keywords that structure clauses (values such as flags or filters are [`Value`]s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kw {
    RootFlags,
    RootConstants,
    DescriptorTable,
    StaticSampler,
    Cbv,
    Srv,
    Uav,
    Sampler,
    NumDescriptors,
    Unbounded,
    Space,
    Offset,
    DescriptorRangeOffsetAppend,
    Num32BitConstants,
    Flags,
    Visibility,
    Filter,
    AddressU,
    AddressV,
    AddressW,
    MipLodBias,
    MaxAnisotropy,
    ComparisonFunc,
    BorderColor,
    MinLod,
    MaxLod,
    Value(Value),
}

/// Enumerator keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    RootFlag(RootSignatureFlags),
    RangeFlag(DescriptorRangeFlags),
    Visibility(ShaderVisibility),
    Filter(Filter),
    Address(TextureAddressMode),
    Comparison(ComparisonFunc),
    Border(StaticBorderColor),
}

const STRUCTURAL: &[(&str, Kw)] = &[
    ("RootFlags", Kw::RootFlags),
    ("RootConstants", Kw::RootConstants),
    ("DescriptorTable", Kw::DescriptorTable),
    ("StaticSampler", Kw::StaticSampler),
    ("CBV", Kw::Cbv),
    ("SRV", Kw::Srv),
    ("UAV", Kw::Uav),
    ("Sampler", Kw::Sampler),
    ("numDescriptors", Kw::NumDescriptors),
    ("unbounded", Kw::Unbounded),
    ("space", Kw::Space),
    ("offset", Kw::Offset),
    (
        "DESCRIPTOR_RANGE_OFFSET_APPEND",
        Kw::DescriptorRangeOffsetAppend,
    ),
    ("num32BitConstants", Kw::Num32BitConstants),
    ("flags", Kw::Flags),
    ("visibility", Kw::Visibility),
    ("filter", Kw::Filter),
    ("addressU", Kw::AddressU),
    ("addressV", Kw::AddressV),
    ("addressW", Kw::AddressW),
    ("mipLODBias", Kw::MipLodBias),
    ("maxAnisotropy", Kw::MaxAnisotropy),
    ("comparisonFunc", Kw::ComparisonFunc),
    ("borderColor", Kw::BorderColor),
    ("minLOD", Kw::MinLod),
    ("maxLOD", Kw::MaxLod),
];

fn keyword(word: &[u8]) -> Option<Kw> {
    let eq = |name: &str| name.as_bytes().eq_ignore_ascii_case(word);
    if let Some((_, kw)) = STRUCTURAL.iter().find(|(name, _)| eq(name)) {
        return Some(*kw);
    }
    let value = RootSignatureFlags::NAMED
        .iter()
        .find(|(_, _, hlsl)| !hlsl.is_empty() && eq(hlsl))
        .map(|(f, _, _)| Value::RootFlag(*f))
        .or_else(|| {
            DescriptorRangeFlags::NAMED
                .iter()
                .find(|(_, _, hlsl)| eq(hlsl))
                .map(|(f, _, _)| Value::RangeFlag(*f))
        })
        .or_else(|| find_enum(ShaderVisibility::ALL, eq).map(Value::Visibility))
        .or_else(|| find_enum(Filter::ALL, eq).map(Value::Filter))
        .or_else(|| find_enum(TextureAddressMode::ALL, eq).map(Value::Address))
        .or_else(|| find_enum(ComparisonFunc::ALL, eq).map(Value::Comparison))
        .or_else(|| find_enum(StaticBorderColor::ALL, eq).map(Value::Border))?;
    Some(Kw::Value(value))
}

trait HlslKeyword: Copy {
    fn keyword(self) -> Option<&'static str>;
}

macro_rules! hlsl_keyword_impl {
    ($($t:ty),*) => {$(
        impl HlslKeyword for $t {
            fn keyword(self) -> Option<&'static str> { self.hlsl_keyword() }
        }
    )*};
}
hlsl_keyword_impl!(
    ShaderVisibility,
    Filter,
    TextureAddressMode,
    ComparisonFunc,
    StaticBorderColor
);

fn find_enum<T: HlslKeyword>(all: &[T], eq: impl Fn(&str) -> bool) -> Option<T> {
    all.iter().copied().find(|v| v.keyword().is_some_and(&eq))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Unknown,
    Eol,
    Comma,
    LParen,
    RParen,
    Or,
    Eq,
    /// A number with a leading `-` (DXC's `NumberI32`).
    I32(i32),
    /// A number without a leading `-` (DXC's `NumberU32`).
    U32(u32),
    Float(f32),
    Reg(RegisterClass, u32),
    Kw(Kw),
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok,
    /// Byte offset of the first byte.
    start: usize,
    text: &'a [u8],
}

impl Token<'_> {
    fn display(&self) -> String {
        match self.tok {
            Tok::Eol => "end of string".to_string(),
            _ => format!("'{}'", String::from_utf8_lossy(self.text)),
        }
    }
}

struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn peek_byte(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn next_token(&mut self) -> Token<'a> {
        while self.peek_byte() == Some(b' ') {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(first) = self.peek_byte() else {
            return Token {
                tok: Tok::Eol,
                start,
                text: &[],
            };
        };
        let tok = if matches!(first, b',' | b'=' | b'|' | b'(' | b')' | b'\t' | b'\n') {
            self.pos += 1;
            match first {
                b',' => Tok::Comma,
                b'=' => Tok::Eq,
                b'|' => Tok::Or,
                b'(' => Tok::LParen,
                b')' => Tok::RParen,
                _ => Tok::Unknown,
            }
        } else if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.') {
            self.number()
        } else if first.is_ascii_alphabetic() || first == b'_' {
            while self.pos - start < MAX_TOKEN_LEN
                && self
                    .peek_byte()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
            {
                self.pos += 1;
            }
            word_token(self.bytes.get(start..self.pos).unwrap_or_default())
        } else {
            self.pos = (start + MAX_TOKEN_LEN).min(self.bytes.len());
            Tok::Unknown
        };
        Token {
            tok,
            start,
            text: self.bytes.get(start..self.pos).unwrap_or_default(),
        }
    }

    /// Scans a number the way DXC's tokenizer does; stops (yielding an unknown token) at the
    /// first byte that breaks the shape.
    fn number(&mut self) -> Tok {
        let start = self.pos;
        let mut is_float = false;
        let digits = |lexer: &mut Lexer<'_>| {
            let mut seen = false;
            while lexer.pos - start < MAX_TOKEN_LEN
                && lexer.peek_byte().is_some_and(|c| c.is_ascii_digit())
            {
                lexer.pos += 1;
                seen = true;
            }
            seen
        };
        if matches!(self.peek_byte(), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        let mut seen_digit = digits(self);
        if self.peek_byte() == Some(b'.') {
            is_float = true;
            self.pos += 1;
            if !seen_digit && !self.peek_byte().is_some_and(|c| c.is_ascii_digit()) {
                return Tok::Unknown;
            }
            seen_digit |= digits(self);
        }
        if !seen_digit {
            return Tok::Unknown;
        }
        if matches!(self.peek_byte(), Some(b'e' | b'E')) {
            is_float = true;
            self.pos += 1;
            if matches!(self.peek_byte(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.peek_byte().is_some_and(|c| c.is_ascii_digit()) {
                return Tok::Unknown;
            }
            digits(self);
        }
        // strtod stops before an `f` suffix.
        let text = self.bytes.get(start..self.pos).unwrap_or_default();
        if matches!(self.peek_byte(), Some(b'f' | b'F')) {
            is_float = true;
            self.pos += 1;
        }
        if is_float {
            return parse_float(text).map_or(Tok::Unknown, Tok::Float);
        }
        let value = atoll(text);
        if text.first() == Some(&b'-') {
            i32::try_from(value).map_or(Tok::Unknown, Tok::I32)
        } else {
            u32::try_from(value).map_or(Tok::Unknown, Tok::U32)
        }
    }
}

/// `atoll`: optional sign, then the leading run of digits; saturates like glibc's `strtoll`.
fn atoll(text: &[u8]) -> i64 {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, text.get(1..).unwrap_or_default()),
        Some(b'+') => (false, text.get(1..).unwrap_or_default()),
        _ => (false, text),
    };
    let mut value: i64 = 0;
    for &c in digits.iter().take_while(|c| c.is_ascii_digit()) {
        let d = i64::from(c - b'0');
        value = if negative {
            value.saturating_mul(10).saturating_sub(d)
        } else {
            value.saturating_mul(10).saturating_add(d)
        };
    }
    value
}

/// `strtod` followed by DXC's range check and a cast to float.
fn parse_float(text: &[u8]) -> Option<f32> {
    let text = std::str::from_utf8(text).ok()?;
    let value: f64 = text.parse().ok()?;
    // strtod reports ERANGE for overflow and for results that underflow the double.
    let mantissa_nonzero = text
        .bytes()
        .take_while(|c| *c != b'e' && *c != b'E')
        .any(|c| matches!(c, b'1'..=b'9'));
    if !value.is_finite()
        || (value != 0.0 && !value.is_normal())
        || (value == 0.0 && mantissa_nonzero)
        || value.abs() > f64::from(f32::MAX)
    {
        return None;
    }
    Some(value as f32)
}

fn word_token(word: &[u8]) -> Tok {
    if let [letter @ (b't' | b's' | b'u' | b'b'), b'0'..=b'9', ..] = word {
        let class = match letter {
            b't' => RangeType::Srv,
            b'u' => RangeType::Uav,
            b'b' => RangeType::Cbv,
            _ => RangeType::Sampler,
        };
        if let Ok(n) = u32::try_from(atoll(word.get(1..).unwrap_or_default())) {
            return Tok::Reg(class, n);
        }
    }
    keyword(word).map_or(Tok::Unknown, Tok::Kw)
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    peeked: Token<'a>,
    options: ParseOptions,
}

type Result<T> = std::result::Result<T, Error>;

fn error(token: &Token<'_>, message: impl Into<String>) -> Error {
    Error::Syntax {
        column: token.start + 1,
        message: message.into(),
    }
}

fn unexpected(token: &Token<'_>) -> Error {
    error(token, format!("unexpected token {}", token.display()))
}

/// Tracks which clause arguments were given, to reject repeats.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn mark(&mut self, bit: u32, token: &Token<'_>, name: &str) -> Result<()> {
        if self.0 & (1 << bit) != 0 {
            return Err(error(
                token,
                format!("parameter '{name}' can be specified only once"),
            ));
        }
        self.0 |= 1 << bit;
        Ok(())
    }

    fn has(&self, bit: u32) -> bool {
        self.0 & (1 << bit) != 0
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, options: ParseOptions) -> Self {
        let mut lexer = Lexer {
            bytes: text.as_bytes(),
            pos: 0,
        };
        let peeked = lexer.next_token();
        Parser {
            lexer,
            peeked,
            options,
        }
    }

    fn next(&mut self) -> Token<'a> {
        let token = self.peeked;
        self.peeked = self.lexer.next_token();
        token
    }

    fn expect(&mut self, tok: Tok) -> Result<Token<'a>> {
        let token = self.next();
        if token.tok != tok {
            return Err(unexpected(&token));
        }
        Ok(token)
    }

    fn expect_kw(&mut self, kw: Kw) -> Result<Token<'a>> {
        self.expect(Tok::Kw(kw))
    }

    fn u32_value(&mut self) -> Result<u32> {
        let token = self.next();
        match token.tok {
            Tok::U32(n) => Ok(n),
            _ => Err(unexpected(&token)),
        }
    }

    /// `name = <u32>`.
    fn assigned_u32(&mut self, kw: Kw) -> Result<u32> {
        self.expect_kw(kw)?;
        self.expect(Tok::Eq)?;
        self.u32_value()
    }

    fn root_signature(&mut self) -> Result<RootSignature> {
        let mut rs = RootSignature::new(Version::V1_1);
        let mut seen_flags = false;
        loop {
            let token = self.peeked;
            match token.tok {
                Tok::Eol => break,
                Tok::Kw(Kw::RootFlags) => {
                    if seen_flags {
                        return Err(error(
                            &token,
                            "RootFlags cannot be specified more than once",
                        ));
                    }
                    rs.flags = self.root_flags()?;
                    seen_flags = true;
                }
                Tok::Kw(Kw::RootConstants) => rs.parameters.push(self.root_constants()?),
                Tok::Kw(Kw::Cbv) => rs.parameters.push(self.root_descriptor(RangeType::Cbv)?),
                Tok::Kw(Kw::Srv) => rs.parameters.push(self.root_descriptor(RangeType::Srv)?),
                Tok::Kw(Kw::Uav) => rs.parameters.push(self.root_descriptor(RangeType::Uav)?),
                Tok::Kw(Kw::DescriptorTable) => rs.parameters.push(self.descriptor_table()?),
                Tok::Kw(Kw::StaticSampler) => rs.static_samplers.push(self.static_sampler()?),
                _ => {
                    return Err(error(
                        &token,
                        format!(
                            "unexpected token {} when parsing root signature",
                            token.display()
                        ),
                    ));
                }
            }
            let token = self.next();
            match token.tok {
                Tok::Eol => break,
                Tok::Comma => {}
                _ => {
                    return Err(error(
                        &token,
                        format!("expected ',', found {}", token.display()),
                    ));
                }
            }
        }
        if self.options.kind == SignatureKind::Local {
            rs.flags |= RootSignatureFlags::LOCAL_ROOT_SIGNATURE;
        }
        Ok(match self.options.version {
            Version::V1_0 => rs.convert_lossy(Version::V1_0),
            Version::V1_1 => rs,
            Version::V1_2 => RootSignature {
                version: Version::V1_2,
                ..rs
            },
        })
    }

    fn root_flags(&mut self) -> Result<RootSignatureFlags> {
        self.expect_kw(Kw::RootFlags)?;
        self.expect(Tok::LParen)?;
        let mut flags = RootSignatureFlags::NONE;
        if let Tok::U32(n) = self.peeked.tok {
            let token = self.next();
            if n != 0 {
                return Err(error(
                    &token,
                    format!(
                        "root signature flag values can only be 0 or flag enum values, found {}",
                        token.display()
                    ),
                ));
            }
        } else {
            loop {
                let token = self.next();
                match token.tok {
                    Tok::Kw(Kw::Value(Value::RootFlag(flag))) => {
                        if flag == RootSignatureFlags::LOCAL_ROOT_SIGNATURE
                            && self.options.kind == SignatureKind::Global
                        {
                            return Err(error(
                                &token,
                                "LOCAL_ROOT_SIGNATURE flag used in global root signature",
                            ));
                        }
                        flags |= flag;
                    }
                    _ => {
                        return Err(error(
                            &token,
                            format!(
                                "expected a root signature flag value, found {}",
                                token.display()
                            ),
                        ));
                    }
                }
                if self.peeked.tok == Tok::RParen {
                    break;
                }
                self.expect(Tok::Or)?;
            }
        }
        self.expect(Tok::RParen)?;
        Ok(flags)
    }

    /// Parses `( arg, arg, ... )`, calling `arg` with each argument's first token; the
    /// callback consumes the argument.
    fn arguments(&mut self, mut arg: impl FnMut(&mut Self, Token<'a>) -> Result<()>) -> Result<()> {
        self.expect(Tok::LParen)?;
        loop {
            let token = self.peeked;
            arg(self, token)?;
            let token = self.next();
            match token.tok {
                Tok::RParen => return Ok(()),
                Tok::Comma => {}
                _ => return Err(unexpected(&token)),
            }
        }
    }

    fn register(&mut self, class: RegisterClass, clause: &str) -> Result<u32> {
        let token = self.next();
        match token.tok {
            Tok::Reg(c, n) if c == class => Ok(n),
            Tok::Reg(..) => Err(error(
                &token,
                format!(
                    "incorrect register type {} in {clause} (expected {}#)",
                    token.display(),
                    class.register_letter()
                ),
            )),
            _ => Err(error(
                &token,
                format!(
                    "expected a register (b#, t#, u#, s#), found {}",
                    token.display()
                ),
            )),
        }
    }

    fn visibility(&mut self) -> Result<ShaderVisibility> {
        self.expect_kw(Kw::Visibility)?;
        self.expect(Tok::Eq)?;
        let token = self.next();
        match token.tok {
            Tok::Kw(Kw::Value(Value::Visibility(v))) => Ok(v),
            _ => Err(error(
                &token,
                format!("unexpected visibility value {}", token.display()),
            )),
        }
    }

    fn root_constants(&mut self) -> Result<RootParameter> {
        let clause = self.expect_kw(Kw::RootConstants)?;
        let mut c = RootConstants {
            shader_register: 0,
            register_space: 0,
            num_32bit_values: 0,
        };
        let mut visibility = ShaderVisibility::All;
        let mut seen = Seen::default();
        self.arguments(|p, token| {
            match token.tok {
                Tok::Kw(Kw::Num32BitConstants) => {
                    seen.mark(0, &token, "num32BitConstants")?;
                    c.num_32bit_values = p.assigned_u32(Kw::Num32BitConstants)?;
                }
                Tok::Reg(RangeType::Cbv, _) => {
                    seen.mark(1, &token, "cbuffer register b#")?;
                    c.shader_register = p.register(RangeType::Cbv, "RootConstants")?;
                }
                Tok::Kw(Kw::Space) => {
                    seen.mark(2, &token, "space")?;
                    c.register_space = p.assigned_u32(Kw::Space)?;
                }
                Tok::Kw(Kw::Visibility) => {
                    seen.mark(3, &token, "visibility")?;
                    visibility = p.visibility()?;
                }
                _ => return Err(unexpected(&token)),
            }
            Ok(())
        })?;
        if !seen.has(0) {
            return Err(error(
                &clause,
                "num32BitConstants must be defined for each RootConstants",
            ));
        }
        if !seen.has(1) {
            return Err(error(
                &clause,
                "constant buffer register b# must be defined for each RootConstants",
            ));
        }
        Ok(RootParameter {
            shader_visibility: visibility,
            kind: RootParameterKind::Constants(c),
        })
    }

    fn root_descriptor(&mut self, class: RegisterClass) -> Result<RootParameter> {
        let name = match class {
            RangeType::Cbv => "CBV",
            RangeType::Srv => "SRV",
            _ => "UAV",
        };
        let clause = self.next();
        let mut d = RootDescriptor {
            shader_register: 0,
            register_space: 0,
            flags: RootDescriptorFlags::NONE,
        };
        let mut visibility = ShaderVisibility::All;
        let mut seen = Seen::default();
        self.arguments(|p, token| {
            match token.tok {
                Tok::Reg(RangeType::Cbv | RangeType::Srv | RangeType::Uav, _) => {
                    seen.mark(0, &token, "shader register")?;
                    d.shader_register = p.register(class, name)?;
                }
                Tok::Kw(Kw::Flags) => {
                    seen.mark(1, &token, "flags")?;
                    d.flags = p.root_descriptor_flags(&token)?;
                }
                Tok::Kw(Kw::Space) => {
                    seen.mark(2, &token, "space")?;
                    d.register_space = p.assigned_u32(Kw::Space)?;
                }
                Tok::Kw(Kw::Visibility) => {
                    seen.mark(3, &token, "visibility")?;
                    visibility = p.visibility()?;
                }
                _ => return Err(unexpected(&token)),
            }
            Ok(())
        })?;
        if !seen.has(0) {
            return Err(error(
                &clause,
                "shader register must be defined for each CBV/SRV/UAV",
            ));
        }
        let kind = match class {
            RangeType::Cbv => RootParameterKind::Cbv(d),
            RangeType::Srv => RootParameterKind::Srv(d),
            _ => RootParameterKind::Uav(d),
        };
        Ok(RootParameter {
            shader_visibility: visibility,
            kind,
        })
    }

    fn root_descriptor_flags(&mut self, at: &Token<'_>) -> Result<RootDescriptorFlags> {
        if self.options.version == Version::V1_0 {
            return Err(error(
                at,
                "root descriptor flags cannot be specified for root_sig_1_0",
            ));
        }
        let range = self.flags_value("root descriptor", |f| {
            RootDescriptorFlags::VALID.contains(RootDescriptorFlags(f.bits()))
        })?;
        Ok(RootDescriptorFlags(range.bits()))
    }

    fn range_flags(&mut self, at: &Token<'_>) -> Result<DescriptorRangeFlags> {
        if self.options.version == Version::V1_0 {
            return Err(error(
                at,
                "descriptor range flags cannot be specified for root_sig_1_0",
            ));
        }
        self.flags_value("descriptor range", |_| true)
    }

    /// `flags = 0` or `flags = A | B ...`, with `allowed` filtering the flag keywords.
    fn flags_value(
        &mut self,
        what: &str,
        allowed: impl Fn(DescriptorRangeFlags) -> bool,
    ) -> Result<DescriptorRangeFlags> {
        self.expect_kw(Kw::Flags)?;
        self.expect(Tok::Eq)?;
        let mut flags = DescriptorRangeFlags::NONE;
        if let Tok::U32(n) = self.peeked.tok {
            let token = self.next();
            if n != 0 {
                return Err(error(
                    &token,
                    format!(
                        "{what} flag values can only be 0 or flag enum values, found {}",
                        token.display()
                    ),
                ));
            }
            return Ok(flags);
        }
        loop {
            let token = self.next();
            match token.tok {
                Tok::Kw(Kw::Value(Value::RangeFlag(flag))) if allowed(flag) => flags |= flag,
                _ => {
                    return Err(error(
                        &token,
                        format!("expected a {what} flag value, found {}", token.display()),
                    ));
                }
            }
            if matches!(self.peeked.tok, Tok::RParen | Tok::Comma) {
                return Ok(flags);
            }
            self.expect(Tok::Or)?;
        }
    }

    fn descriptor_table(&mut self) -> Result<RootParameter> {
        self.expect_kw(Kw::DescriptorTable)?;
        let mut table = DescriptorTable::default();
        let mut visibility = ShaderVisibility::All;
        let mut seen = Seen::default();
        self.arguments(|p, token| {
            match token.tok {
                Tok::Kw(Kw::Cbv) => table.ranges.push(p.range(RangeType::Cbv)?),
                Tok::Kw(Kw::Srv) => table.ranges.push(p.range(RangeType::Srv)?),
                Tok::Kw(Kw::Uav) => table.ranges.push(p.range(RangeType::Uav)?),
                Tok::Kw(Kw::Sampler) => table.ranges.push(p.range(RangeType::Sampler)?),
                Tok::Kw(Kw::Visibility) => {
                    seen.mark(0, &token, "visibility")?;
                    visibility = p.visibility()?;
                }
                _ => return Err(unexpected(&token)),
            }
            Ok(())
        })?;
        Ok(RootParameter {
            shader_visibility: visibility,
            kind: RootParameterKind::DescriptorTable(table),
        })
    }

    fn range(&mut self, range_type: RangeType) -> Result<DescriptorRange> {
        let clause = self.next();
        let name = range_type.hlsl_keyword().unwrap_or("range");
        let mut r = DescriptorRange {
            range_type,
            num_descriptors: 1,
            base_shader_register: 0,
            register_space: 0,
            flags: DescriptorRangeFlags::NONE,
            offset_in_descriptors_from_table_start: APPEND,
        };
        let mut seen = Seen::default();
        self.arguments(|p, token| {
            match token.tok {
                Tok::Reg(..) => {
                    seen.mark(0, &token, "shader register")?;
                    r.base_shader_register = p.register(range_type, name)?;
                }
                Tok::Kw(Kw::NumDescriptors) => {
                    seen.mark(1, &token, "numDescriptors")?;
                    p.next();
                    p.expect(Tok::Eq)?;
                    r.num_descriptors = if p.peeked.tok == Tok::Kw(Kw::Unbounded) {
                        p.next();
                        UNBOUNDED
                    } else {
                        p.u32_value()?
                    };
                }
                Tok::Kw(Kw::Space) => {
                    seen.mark(2, &token, "space")?;
                    r.register_space = p.assigned_u32(Kw::Space)?;
                }
                Tok::Kw(Kw::Flags) => {
                    seen.mark(3, &token, "flags")?;
                    r.flags = p.range_flags(&token)?;
                }
                Tok::Kw(Kw::Offset) => {
                    seen.mark(4, &token, "offset")?;
                    p.next();
                    p.expect(Tok::Eq)?;
                    r.offset_in_descriptors_from_table_start =
                        if p.peeked.tok == Tok::Kw(Kw::DescriptorRangeOffsetAppend) {
                            p.next();
                            APPEND
                        } else {
                            p.u32_value()?
                        };
                }
                _ => return Err(unexpected(&token)),
            }
            Ok(())
        })?;
        if !seen.has(0) {
            return Err(error(
                &clause,
                "shader register must be defined for each CBV/SRV/UAV",
            ));
        }
        Ok(r)
    }

    fn float(&mut self) -> Result<f32> {
        let token = self.next();
        match token.tok {
            Tok::U32(n) => Ok(n as f32),
            Tok::I32(n) => Ok(n as f32),
            Tok::Float(f) => Ok(f),
            _ => Err(error(
                &token,
                format!("expected float, found token {}", token.display()),
            )),
        }
    }

    /// `name = <value keyword>` where `pick` accepts the value.
    fn assigned_value<T>(
        &mut self,
        kw: Kw,
        what: &str,
        pick: impl Fn(Value) -> Option<T>,
    ) -> Result<T> {
        self.expect_kw(kw)?;
        self.expect(Tok::Eq)?;
        let token = self.next();
        match token.tok {
            Tok::Kw(Kw::Value(v)) => pick(v),
            _ => None,
        }
        .ok_or_else(|| {
            error(
                &token,
                format!("unexpected {what} value {}", token.display()),
            )
        })
    }

    fn static_sampler(&mut self) -> Result<StaticSampler> {
        let clause = self.expect_kw(Kw::StaticSampler)?;
        let mut s = StaticSampler::hlsl_default(0);
        let mut seen = Seen::default();
        let address = |v| match v {
            Value::Address(a) => Some(a),
            _ => None,
        };
        self.arguments(|p, token| {
            match token.tok {
                Tok::Kw(Kw::Filter) => {
                    seen.mark(0, &token, "filter")?;
                    s.filter = p.assigned_value(Kw::Filter, "filter", |v| match v {
                        Value::Filter(f) => Some(f),
                        _ => None,
                    })?;
                }
                Tok::Kw(Kw::AddressU) => {
                    seen.mark(1, &token, "addressU")?;
                    s.address_u =
                        p.assigned_value(Kw::AddressU, "texture address mode", address)?;
                }
                Tok::Kw(Kw::AddressV) => {
                    seen.mark(2, &token, "addressV")?;
                    s.address_v =
                        p.assigned_value(Kw::AddressV, "texture address mode", address)?;
                }
                Tok::Kw(Kw::AddressW) => {
                    seen.mark(3, &token, "addressW")?;
                    s.address_w =
                        p.assigned_value(Kw::AddressW, "texture address mode", address)?;
                }
                Tok::Kw(Kw::MipLodBias) => {
                    seen.mark(4, &token, "mipLODBias")?;
                    p.next();
                    p.expect(Tok::Eq)?;
                    s.mip_lod_bias = p.float()?;
                }
                Tok::Kw(Kw::MaxAnisotropy) => {
                    seen.mark(5, &token, "maxAnisotropy")?;
                    s.max_anisotropy = p.assigned_u32(Kw::MaxAnisotropy)?;
                }
                Tok::Kw(Kw::ComparisonFunc) => {
                    seen.mark(6, &token, "comparisonFunc")?;
                    s.comparison_func =
                        p.assigned_value(Kw::ComparisonFunc, "comparison function", |v| match v {
                            Value::Comparison(c) => Some(c),
                            _ => None,
                        })?;
                }
                Tok::Kw(Kw::BorderColor) => {
                    seen.mark(7, &token, "borderColor")?;
                    s.border_color =
                        p.assigned_value(Kw::BorderColor, "border color", |v| match v {
                            Value::Border(b) => Some(b),
                            _ => None,
                        })?;
                }
                Tok::Kw(Kw::MinLod) => {
                    seen.mark(8, &token, "minLOD")?;
                    p.next();
                    p.expect(Tok::Eq)?;
                    s.min_lod = p.float()?;
                }
                Tok::Kw(Kw::MaxLod) => {
                    seen.mark(9, &token, "maxLOD")?;
                    p.next();
                    p.expect(Tok::Eq)?;
                    s.max_lod = p.float()?;
                }
                Tok::Reg(RangeType::Sampler, _) => {
                    seen.mark(10, &token, "sampler register s#")?;
                    s.shader_register = p.register(RangeType::Sampler, "StaticSampler")?;
                }
                Tok::Kw(Kw::Space) => {
                    seen.mark(11, &token, "space")?;
                    s.register_space = p.assigned_u32(Kw::Space)?;
                }
                Tok::Kw(Kw::Visibility) => {
                    seen.mark(12, &token, "visibility")?;
                    s.shader_visibility = p.visibility()?;
                }
                _ => return Err(unexpected(&token)),
            }
            Ok(())
        })?;
        if !seen.has(10) {
            return Err(error(
                &clause,
                "sampler register s# must be defined for each static sampler",
            ));
        }
        Ok(s)
    }
}

/// Parses an HLSL root signature string (the macro's expansion, without quotes) the way DXC
/// does for `options.version`. See the module docs for the grammar's details.
pub fn parse_hlsl(text: &str, options: &ParseOptions) -> std::result::Result<RootSignature, Error> {
    Parser::new(text, *options).root_signature()
}

fn lossy_hlsl(reason: String) -> Error {
    Error::Lossy {
        target: "an HLSL root signature string".to_string(),
        reason,
    }
}

fn write_flags(
    out: &mut String,
    named: impl Iterator<Item = (u32, &'static str)>,
    bits: u32,
    what: &str,
) -> Result<()> {
    let mut covered = 0;
    for (flag, keyword) in named {
        if bits & flag == flag && !keyword.is_empty() {
            if covered != 0 {
                out.push_str(" | ");
            }
            out.push_str(keyword);
            covered |= flag;
        }
    }
    if covered != bits {
        return Err(lossy_hlsl(format!(
            "{what} bits {:#x} have no HLSL keyword",
            bits & !covered
        )));
    }
    Ok(())
}

fn float_arg(name: &str, value: f32) -> Result<String> {
    if !value.is_finite() {
        return Err(lossy_hlsl(format!(
            "{name} = {value} is not a finite number"
        )));
    }
    // The f64 shortest form of an f32 value is exact, so strtod + cast restore the same bits.
    Ok(format!("{name}={:?}", f64::from(value)))
}

fn visibility_arg(visibility: ShaderVisibility) -> String {
    format!(
        "visibility={}",
        visibility.hlsl_keyword().unwrap_or("SHADER_VISIBILITY_ALL")
    )
}

fn keyword_arg(
    name: &str,
    keyword: Option<&'static str>,
    value: impl fmt::Display,
) -> Result<String> {
    match keyword {
        Some(k) => Ok(format!("{name}={k}")),
        None => Err(lossy_hlsl(format!("{value} has no HLSL keyword"))),
    }
}

fn range_clause(r: &DescriptorRange, with_flags: bool) -> Result<String> {
    let mut args = vec![format!(
        "{}{}",
        r.range_type.register_letter(),
        r.base_shader_register
    )];
    if r.num_descriptors == UNBOUNDED {
        args.push("numDescriptors=unbounded".to_string());
    } else if r.num_descriptors != 1 {
        args.push(format!("numDescriptors={}", r.num_descriptors));
    }
    if r.register_space != 0 {
        args.push(format!("space={}", r.register_space));
    }
    if r.offset_in_descriptors_from_table_start != APPEND {
        args.push(format!(
            "offset={}",
            r.offset_in_descriptors_from_table_start
        ));
    }
    if with_flags && !r.flags.is_empty() {
        let mut flags = String::from("flags=");
        let named = DescriptorRangeFlags::NAMED
            .iter()
            .map(|(f, _, k)| (f.bits(), *k));
        write_flags(&mut flags, named, r.flags.bits(), "descriptor range flag")?;
        args.push(flags);
    }
    let name = r.range_type.hlsl_keyword().unwrap_or("SRV");
    Ok(format!("{name}({})", args.join(", ")))
}

fn parameter_clause(parameter: &RootParameter, with_flags: bool) -> Result<String> {
    let mut args = Vec::new();
    let name = match &parameter.kind {
        RootParameterKind::DescriptorTable(table) => {
            for range in &table.ranges {
                args.push(range_clause(range, with_flags)?);
            }
            "DescriptorTable"
        }
        RootParameterKind::Constants(c) => {
            args.push(format!("num32BitConstants={}", c.num_32bit_values));
            args.push(format!("b{}", c.shader_register));
            if c.register_space != 0 {
                args.push(format!("space={}", c.register_space));
            }
            "RootConstants"
        }
        RootParameterKind::Cbv(d) | RootParameterKind::Srv(d) | RootParameterKind::Uav(d) => {
            let (name, letter) = match parameter.kind.parameter_type() {
                ParameterType::Cbv => ("CBV", 'b'),
                ParameterType::Srv => ("SRV", 't'),
                _ => ("UAV", 'u'),
            };
            args.push(format!("{letter}{}", d.shader_register));
            if d.register_space != 0 {
                args.push(format!("space={}", d.register_space));
            }
            if with_flags && !d.flags.is_empty() {
                let mut flags = String::from("flags=");
                let named = RootDescriptorFlags::NAMED
                    .iter()
                    .map(|(f, _, k)| (f.bits(), *k));
                write_flags(&mut flags, named, d.flags.bits(), "root descriptor flag")?;
                args.push(flags);
            }
            name
        }
    };
    // `DescriptorTable()` is a syntax error, so an empty table always names its visibility.
    if parameter.shader_visibility != ShaderVisibility::All || args.is_empty() {
        args.push(visibility_arg(parameter.shader_visibility));
    }
    Ok(format!("{name}({})", args.join(", ")))
}

fn sampler_clause(index: usize, s: &StaticSampler) -> Result<String> {
    if !s.flags.is_empty() {
        return Err(lossy_hlsl(format!(
            "static sampler [{index}] has flags, which DXC's grammar cannot express"
        )));
    }
    let d = StaticSampler::hlsl_default(s.shader_register);
    let mut args = vec![format!("s{}", s.shader_register)];
    if s.filter != d.filter {
        args.push(keyword_arg("filter", s.filter.hlsl_keyword(), s.filter)?);
    }
    for (name, value, default) in [
        ("addressU", s.address_u, d.address_u),
        ("addressV", s.address_v, d.address_v),
        ("addressW", s.address_w, d.address_w),
    ] {
        if value != default {
            args.push(keyword_arg(name, value.hlsl_keyword(), value)?);
        }
    }
    if s.mip_lod_bias.to_bits() != d.mip_lod_bias.to_bits() {
        args.push(float_arg("mipLODBias", s.mip_lod_bias)?);
    }
    if s.max_anisotropy != d.max_anisotropy {
        args.push(format!("maxAnisotropy={}", s.max_anisotropy));
    }
    if s.comparison_func != d.comparison_func {
        args.push(keyword_arg(
            "comparisonFunc",
            s.comparison_func.hlsl_keyword(),
            s.comparison_func,
        )?);
    }
    if s.border_color != d.border_color {
        args.push(keyword_arg(
            "borderColor",
            s.border_color.hlsl_keyword(),
            s.border_color,
        )?);
    }
    if s.min_lod.to_bits() != d.min_lod.to_bits() {
        args.push(float_arg("minLOD", s.min_lod)?);
    }
    if s.max_lod.to_bits() != d.max_lod.to_bits() {
        args.push(float_arg("maxLOD", s.max_lod)?);
    }
    if s.register_space != 0 {
        args.push(format!("space={}", s.register_space));
    }
    if s.shader_visibility != ShaderVisibility::All {
        args.push(visibility_arg(s.shader_visibility));
    }
    Ok(format!("StaticSampler({})", args.join(", ")))
}

impl RootSignature {
    /// Prints the root signature in the HLSL root signature language, omitting arguments that
    /// equal their defaults. Parsing the result for `self.version` gives back `self`. Fails for
    /// what the language cannot say: static sampler flags, values without a keyword (newer
    /// filters, `COMPARISON_FUNC_NONE`, unknown flag bits), non-finite floats.
    pub fn to_hlsl(&self) -> std::result::Result<String, Error> {
        check_expressible(self, self.version)?;
        let with_flags = self.version != Version::V1_0;
        let mut clauses = Vec::new();
        if !self.flags.is_empty() {
            let mut out = String::from("RootFlags(");
            let named = RootSignatureFlags::NAMED
                .iter()
                .map(|(f, _, k)| (f.bits(), *k));
            write_flags(&mut out, named, self.flags.bits(), "root signature flag")?;
            out.push(')');
            clauses.push(out);
        }
        for parameter in &self.parameters {
            clauses.push(parameter_clause(parameter, with_flags)?);
        }
        for (index, sampler) in self.static_samplers.iter().enumerate() {
            clauses.push(sampler_clause(index, sampler)?);
        }
        Ok(clauses.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> RootSignature {
        parse_hlsl(text, &ParseOptions::default())
            .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
    }

    fn parse_err(text: &str) -> (usize, String) {
        match parse_hlsl(text, &ParseOptions::default()) {
            Err(Error::Syntax { column, message }) => (column, message),
            other => panic!("{text:?} should fail with a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn empty_string_is_empty_signature() {
        assert_eq!(parse(""), RootSignature::new(Version::V1_1));
        assert_eq!(parse("   "), RootSignature::new(Version::V1_1));
    }

    #[test]
    fn keywords_are_case_insensitive_registers_are_not() {
        let a = parse(
            "cbv(b0), descriptortable(srv(t0, NUMDESCRIPTORS=UNBOUNDED), VISIBILITY=shader_visibility_pixel)",
        );
        let b = parse(
            "CBV(b0), DescriptorTable(SRV(t0, numDescriptors=unbounded), visibility=SHADER_VISIBILITY_PIXEL)",
        );
        assert_eq!(a, b);
        let (column, message) = parse_err("CBV(B0)");
        assert_eq!(column, 5);
        assert_eq!(message, "unexpected token 'B0'");
    }

    #[test]
    fn arguments_in_any_order_and_defaults() {
        let rs = parse("UAV(space=3, visibility=SHADER_VISIBILITY_MESH, u7, flags=DATA_STATIC)");
        assert_eq!(rs.parameters[0].shader_visibility, ShaderVisibility::Mesh);
        assert_eq!(
            rs.parameters[0].kind,
            RootParameterKind::Uav(RootDescriptor {
                shader_register: 7,
                register_space: 3,
                flags: RootDescriptorFlags::DATA_STATIC,
            })
        );
        let rs = parse("DescriptorTable(Sampler(s2))");
        let RootParameterKind::DescriptorTable(t) = &rs.parameters[0].kind else {
            panic!("table expected")
        };
        assert_eq!(
            t.ranges[0],
            DescriptorRange {
                range_type: RangeType::Sampler,
                num_descriptors: 1,
                base_shader_register: 2,
                register_space: 0,
                flags: DescriptorRangeFlags::NONE,
                offset_in_descriptors_from_table_start: APPEND,
            }
        );
        let rs = parse("StaticSampler(s1)");
        assert_eq!(rs.static_samplers[0], StaticSampler::hlsl_default(1));
    }

    #[test]
    fn trailing_comma_and_register_quirks() {
        assert_eq!(parse("CBV(b0),").parameters.len(), 1);
        // DXC reads the register number with atoll: trailing letters are ignored.
        let rs = parse("SRV(t12abc)");
        assert_eq!(
            rs.parameters[0].kind,
            RootParameterKind::Srv(RootDescriptor {
                shader_register: 12,
                register_space: 0,
                flags: RootDescriptorFlags::NONE
            })
        );
        assert_eq!(
            parse_err("SRV(t4294967296)").1,
            "unexpected token 't4294967296'"
        );
    }

    #[test]
    fn flags_combinations() {
        let rs = parse("RootFlags(0)");
        assert!(rs.flags.is_empty());
        let rs = parse(
            "RootFlags(DENY_PIXEL_SHADER_ROOT_ACCESS|allow_stream_output | LOCAL_ROOT_SIGNATURE)",
        );
        assert_eq!(
            rs.flags,
            RootSignatureFlags::DENY_PIXEL_SHADER_ROOT_ACCESS
                | RootSignatureFlags::ALLOW_STREAM_OUTPUT
                | RootSignatureFlags::LOCAL_ROOT_SIGNATURE
        );
        let (column, message) = parse_err("RootFlags(1)");
        assert_eq!(column, 11);
        assert!(message.contains("can only be 0"), "{message}");
        let (_, message) = parse_err("RootFlags()");
        assert_eq!(message, "expected a root signature flag value, found ')'");
        let (column, message) = parse_err("RootFlags(0), RootFlags(0)");
        assert_eq!(
            (column, message.as_str()),
            (15, "RootFlags cannot be specified more than once")
        );
        let (_, message) = parse_err("CBV(b0, flags=DESCRIPTORS_VOLATILE)");
        assert_eq!(
            message,
            "expected a root descriptor flag value, found 'DESCRIPTORS_VOLATILE'"
        );
        let rs = parse("DescriptorTable(CBV(b0, flags = DATA_VOLATILE | DESCRIPTORS_VOLATILE))");
        let RootParameterKind::DescriptorTable(t) = &rs.parameters[0].kind else {
            panic!("table expected")
        };
        assert_eq!(t.ranges[0].flags.bits(), 3);
    }

    #[test]
    fn flags_are_rejected_for_v1_0() {
        let options = ParseOptions::version(Version::V1_0);
        let err = parse_hlsl("CBV(b0, flags=DATA_STATIC)", &options).expect_err("fails");
        assert_eq!(
            err,
            Error::Syntax {
                column: 9,
                message: "root descriptor flags cannot be specified for root_sig_1_0".into()
            }
        );
        let rs = parse_hlsl(
            "DescriptorTable(Sampler(s0), visibility=SHADER_VISIBILITY_PIXEL), CBV(b0)",
            &options,
        )
        .expect("parses");
        assert_eq!(rs.version, Version::V1_0);
        let RootParameterKind::DescriptorTable(t) = &rs.parameters[0].kind else {
            panic!("table expected")
        };
        assert_eq!(
            t.ranges[0].flags,
            DescriptorRangeFlags::DESCRIPTORS_VOLATILE
        );
    }

    #[test]
    fn local_and_global_kinds() {
        let global = ParseOptions {
            kind: SignatureKind::Global,
            ..ParseOptions::default()
        };
        let err = parse_hlsl("RootFlags(LOCAL_ROOT_SIGNATURE)", &global).expect_err("fails");
        assert!(err.to_string().contains("column 11"), "{err}");
        let local = ParseOptions {
            kind: SignatureKind::Local,
            ..ParseOptions::default()
        };
        assert!(parse_hlsl("CBV(b0)", &local).expect("parses").is_local());
    }

    #[test]
    fn numbers() {
        let rs =
            parse("StaticSampler(s0, mipLODBias=-1, minLOD=2, maxLOD=1.5e1f, maxAnisotropy=+4)");
        let s = &rs.static_samplers[0];
        assert_eq!(
            (s.mip_lod_bias, s.min_lod, s.max_lod, s.max_anisotropy),
            (-1.0, 2.0, 15.0, 4)
        );
        let rs = parse("StaticSampler(s0, mipLODBias=.5, maxLOD=3.)");
        assert_eq!(rs.static_samplers[0].mip_lod_bias, 0.5);
        assert_eq!(rs.static_samplers[0].max_lod, 3.0);
        // 0.1 goes through a double, then rounds to float.
        let rs = parse("StaticSampler(s0, minLOD=0.1)");
        assert_eq!(rs.static_samplers[0].min_lod, 0.1f64 as f32);
        assert_eq!(
            parse_err("StaticSampler(s0, maxLOD=1e39)").1,
            "expected float, found token '1e39'"
        );
        assert_eq!(
            parse_err("RootConstants(num32BitConstants=-1, b0)").1,
            "unexpected token '-1'"
        );
        assert_eq!(
            parse_err("CBV(b0, space=4294967296)").1,
            "unexpected token '4294967296'"
        );
        assert_eq!(parse("CBV(b0, space=4294967295)").parameters.len(), 1);
        assert_eq!(parse_err("CBV(b0, space=1.0)").1, "unexpected token '1.0'");
    }

    #[test]
    fn tabs_and_stray_bytes_are_errors() {
        let (column, message) = parse_err("CBV(b0),\tSRV(t0)");
        assert_eq!(
            (column, message.as_str()),
            (9, "unexpected token '\t' when parsing root signature")
        );
        let (column, message) = parse_err("CBV(b0); SRV(t0)");
        assert_eq!(
            (column, message.as_str()),
            (8, "expected ',', found '; SRV(t0)'")
        );
    }

    #[test]
    fn missing_and_repeated_arguments() {
        assert_eq!(
            parse_err("RootConstants(b0)"),
            (
                1,
                "num32BitConstants must be defined for each RootConstants".to_string()
            )
        );
        assert_eq!(
            parse_err("DescriptorTable(SRV(numDescriptors=2))"),
            (
                17,
                "shader register must be defined for each CBV/SRV/UAV".to_string()
            )
        );
        assert_eq!(
            parse_err("CBV(b0, space=1, space=2)"),
            (
                18,
                "parameter 'space' can be specified only once".to_string()
            )
        );
        assert_eq!(
            parse_err("DescriptorTable(SRV(b0))"),
            (
                21,
                "incorrect register type 'b0' in SRV (expected t#)".to_string()
            )
        );
        assert_eq!(parse_err("StaticSampler(filter=FILTER_ANISOTROPIC)").0, 1);
        assert_eq!(parse_err("DescriptorTable()").1, "unexpected token ')'");
        assert_eq!(parse_err("CBV(b0").1, "unexpected token end of string");
    }

    #[test]
    fn hlsl_printer_round_trips() {
        let text = "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED), \
            CBV(b0, space=2, flags=DATA_STATIC, visibility=SHADER_VISIBILITY_PIXEL), \
            RootConstants(num32BitConstants=3, b1, space=1), \
            DescriptorTable(SRV(t0, numDescriptors=unbounded, offset=5, flags=DESCRIPTORS_VOLATILE | DATA_VOLATILE), Sampler(s3, space=9)), \
            DescriptorTable(visibility=SHADER_VISIBILITY_HULL), \
            StaticSampler(s0, filter=FILTER_COMPARISON_MIN_MAG_MIP_POINT, addressU=TEXTURE_ADDRESS_BORDER, mipLODBias=-0.1, \
              maxAnisotropy=3, comparisonFunc=COMPARISON_GREATER, borderColor=STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT, \
              minLOD=-3.4028234663852886e38, maxLOD=7, space=4, visibility=SHADER_VISIBILITY_DOMAIN)";
        let rs = parse(text);
        let printed = rs.to_hlsl().expect("prints");
        assert_eq!(parse(&printed), rs, "{printed}");
        let v10 = parse_hlsl(
            "CBV(b0), DescriptorTable(UAV(u0, numDescriptors=2))",
            &ParseOptions::version(Version::V1_0),
        )
        .expect("parses");
        let printed = v10.to_hlsl().expect("prints");
        assert_eq!(
            printed,
            "CBV(b0), DescriptorTable(UAV(u0, numDescriptors=2))"
        );
        assert_eq!(
            parse_hlsl(&printed, &ParseOptions::version(Version::V1_0)).expect("parses"),
            v10
        );
    }

    #[test]
    fn hlsl_printer_refuses_what_hlsl_cannot_say() {
        let mut rs = parse("StaticSampler(s0)");
        rs.static_samplers[0].filter = Filter::MinMagAnisotropicMipPoint;
        assert!(matches!(rs.to_hlsl(), Err(Error::Lossy { .. })));
        let mut rs = parse("StaticSampler(s0)");
        rs.static_samplers[0].max_lod = f32::INFINITY;
        assert!(matches!(rs.to_hlsl(), Err(Error::Lossy { .. })));
        let mut rs = parse("");
        rs.flags = RootSignatureFlags(0x1000);
        assert!(matches!(rs.to_hlsl(), Err(Error::Lossy { .. })));
    }
}
