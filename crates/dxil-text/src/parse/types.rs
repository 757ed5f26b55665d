//! Types: `i32`, `float*`, `[4 x <2 x half>]`, `{ i32, float }`, `%name`, `void (i32, ...)`,
//! and type definitions (`%name = type { ... }` / `opaque`).
//!
//! Types are interned as LLVM uniques them (identified structs by name, the rest by structure),
//! so two spellings of a type are the same `TypeId` and type checks are id comparisons.

use std::fmt::Write;

use dxil_module::types::OtherFloatKind;
use dxil_module::{Module, TypeData, TypeId};

use super::lexer::Tok;
use super::{FxMap, Key, Name, Parser, Result};

/// An identified struct (or a type alias) by name or number.
#[derive(Copy, Clone)]
struct NamedTy {
    id: TypeId,
    defined: bool,
    first_use: u32,
}

const PRIMS: usize = 10;

pub(crate) struct TypeState<'a> {
    pub metadata: TypeId,
    prims: [Option<TypeId>; PRIMS],
    /// `i1` to `i64` directly, wider ones through the map.
    small_ints: [Option<TypeId>; 65],
    ints: FxMap<u32, TypeId>,
    composite: FxMap<TypeData, TypeId>,
    pointers: FxMap<(TypeId, u32), TypeId>,
    named: FxMap<Key<'a>, NamedTy>,
}

fn prim_data(i: usize) -> TypeData {
    match i {
        0 => TypeData::Void,
        1 => TypeData::Half,
        2 => TypeData::Float,
        3 => TypeData::Double,
        4 => TypeData::Label,
        5 => TypeData::Metadata,
        6 => TypeData::OtherFloat(OtherFloatKind::X86Fp80),
        7 => TypeData::OtherFloat(OtherFloatKind::Fp128),
        8 => TypeData::OtherFloat(OtherFloatKind::PpcFp128),
        _ => TypeData::OtherFloat(OtherFloatKind::X86Mmx),
    }
}

fn prim_index(word: &str) -> Option<usize> {
    Some(match word {
        "void" => 0,
        "half" => 1,
        "float" => 2,
        "double" => 3,
        "label" => 4,
        "metadata" => 5,
        "x86_fp80" => 6,
        "fp128" => 7,
        "ppc_fp128" => 8,
        "x86_mmx" => 9,
        _ => return None,
    })
}

pub(crate) const VOID: usize = 0;

impl<'a> TypeState<'a> {
    pub fn new(m: &mut Module) -> TypeState<'a> {
        let metadata = m.types.push(TypeData::Metadata);
        let mut prims = [None; PRIMS];
        prims[5] = Some(metadata);
        TypeState {
            metadata,
            prims,
            small_ints: [None; 65],
            ints: FxMap::default(),
            composite: FxMap::default(),
            pointers: FxMap::default(),
            named: FxMap::default(),
        }
    }

    pub fn prim(&mut self, m: &mut Module, i: usize) -> TypeId {
        match self.prims.get(i).copied().flatten() {
            Some(t) => t,
            None => {
                let t = m.types.push(prim_data(i));
                if let Some(slot) = self.prims.get_mut(i) {
                    *slot = Some(t);
                }
                t
            }
        }
    }

    pub fn int(&mut self, m: &mut Module, w: u32) -> TypeId {
        if let Some(slot) = self.small_ints.get_mut(w as usize) {
            return *slot.get_or_insert_with(|| m.types.push(TypeData::Int(w)));
        }
        *self
            .ints
            .entry(w)
            .or_insert_with(|| m.types.push(TypeData::Int(w)))
    }

    /// Pointers, arrays, vectors, literal structs and function types, by structure.
    pub fn intern(&mut self, m: &mut Module, d: TypeData) -> TypeId {
        if let Some(&t) = self.composite.get(&d) {
            return t;
        }
        let t = m.types.push(d.clone());
        self.composite.insert(d, t);
        t
    }

    pub fn pointer(&mut self, m: &mut Module, pointee: TypeId, address_space: u32) -> TypeId {
        if let Some(&t) = self.pointers.get(&(pointee, address_space)) {
            return t;
        }
        let t = self.intern(
            m,
            TypeData::Pointer {
                pointee,
                address_space,
            },
        );
        self.pointers.insert((pointee, address_space), t);
        t
    }

    /// Types a global variable may hold, and element types of arrays and structs: everything
    /// but void, label, metadata and function types.
    pub fn is_first_class_or_aggregate(&self, m: &Module, t: TypeId) -> bool {
        !matches!(
            m.types.data(t),
            TypeData::Void | TypeData::Label | TypeData::Metadata | TypeData::Function { .. }
        )
    }

    /// Every named type used must have been defined; returns the first use of one that was not.
    pub fn check_defined(&self) -> std::result::Result<(), (u32, String)> {
        let bad = self
            .named
            .iter()
            .filter(|(_, n)| !n.defined)
            .min_by_key(|(_, n)| n.first_use);
        match bad {
            Some((k, n)) => Err((
                n.first_use,
                format!("use of undefined type '{}'", k.show('%')),
            )),
            None => Ok(()),
        }
    }
}

/// The text of a type for error messages, cut short for deep or long types.
pub(crate) fn type_text(m: &Module, t: TypeId) -> String {
    let mut s = String::new();
    spell(m, t, &mut s, 0);
    s
}

fn spell(m: &Module, t: TypeId, s: &mut String, depth: u32) {
    if depth > 6 || s.len() > 200 {
        s.push_str("...");
        return;
    }
    let list = |s: &mut String, items: &[TypeId]| {
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            spell(m, *e, s, depth + 1);
        }
    };
    match m.types.data(t) {
        TypeData::Void => s.push_str("void"),
        TypeData::Half => s.push_str("half"),
        TypeData::Float => s.push_str("float"),
        TypeData::Double => s.push_str("double"),
        TypeData::Label => s.push_str("label"),
        TypeData::Metadata => s.push_str("metadata"),
        TypeData::OtherFloat(k) => s.push_str(match k {
            OtherFloatKind::X86Fp80 => "x86_fp80",
            OtherFloatKind::Fp128 => "fp128",
            OtherFloatKind::PpcFp128 => "ppc_fp128",
            OtherFloatKind::X86Mmx => "x86_mmx",
        }),
        TypeData::Int(w) => {
            let _ = write!(s, "i{w}");
        }
        TypeData::Pointer {
            pointee,
            address_space,
        } => {
            spell(m, *pointee, s, depth + 1);
            if *address_space != 0 {
                let _ = write!(s, " addrspace({address_space})");
            }
            s.push('*');
        }
        TypeData::Array { len, elem } => {
            let _ = write!(s, "[{len} x ");
            spell(m, *elem, s, depth + 1);
            s.push(']');
        }
        TypeData::Vector { len, elem } => {
            let _ = write!(s, "<{len} x ");
            spell(m, *elem, s, depth + 1);
            s.push('>');
        }
        TypeData::Struct { name: Some(n), .. } => {
            let _ = write!(s, "%{n}");
        }
        TypeData::Struct { packed, elems, .. } => {
            s.push_str(if *packed { "<{ " } else { "{ " });
            list(s, elems);
            s.push_str(if *packed { " }>" } else { " }" });
        }
        TypeData::Function {
            vararg,
            ret,
            params,
        } => {
            spell(m, *ret, s, depth + 1);
            s.push_str(" (");
            list(s, params);
            if *vararg {
                s.push_str(if params.is_empty() { "..." } else { ", ..." });
            }
            s.push(')');
        }
    }
}

impl<'a> Parser<'a> {
    pub(crate) fn type_text(&self, t: TypeId) -> String {
        type_text(&self.m, t)
    }

    pub(crate) fn prim(&mut self, i: usize) -> TypeId {
        self.types.prim(&mut self.m, i)
    }

    pub(crate) fn int_type(&mut self, w: u32) -> TypeId {
        self.types.int(&mut self.m, w)
    }

    pub(crate) fn is_void(&self, t: TypeId) -> bool {
        matches!(self.m.types.data(t), TypeData::Void)
    }

    /// Parses a type. `void` is accepted only where `allow_void` says so (function results).
    pub(crate) fn parse_type(&mut self, allow_void: bool) -> Result<TypeId> {
        let at = self.tok.start;
        let mut t = self.base_type()?;
        loop {
            match self.tok.tok {
                Tok::Star => {
                    self.check_pointee(t, self.tok.start)?;
                    self.bump()?;
                    t = self.types.pointer(&mut self.m, t, 0);
                }
                Tok::Word if self.text() == "addrspace" => {
                    let star_at = self.tok.start;
                    let a = self.opt_addrspace()?;
                    self.expect(Tok::Star, "'*' after the address space")?;
                    self.check_pointee(t, star_at)?;
                    t = self.types.pointer(&mut self.m, t, a);
                }
                Tok::LParen => t = self.function_type(t)?,
                _ => break,
            }
        }
        if !allow_void && self.is_void(t) {
            return Err(self.err_at(at, "void type only allowed for function results"));
        }
        Ok(t)
    }

    fn check_pointee(&self, t: TypeId, at: u32) -> Result<()> {
        match self.m.types.data(t) {
            TypeData::Void => Err(self.err_at(at, "pointers to void are invalid; use i8* instead")),
            TypeData::Label => Err(self.err_at(at, "pointers to label are invalid")),
            TypeData::Metadata => Err(self.err_at(at, "pointers to metadata are invalid")),
            _ => Ok(()),
        }
    }

    /// `ret (params...)`, the current token being `(`.
    fn function_type(&mut self, ret: TypeId) -> Result<TypeId> {
        if matches!(
            self.m.types.data(ret),
            TypeData::Label | TypeData::Metadata | TypeData::Function { .. }
        ) {
            return Err(self.err("invalid function return type"));
        }
        self.enter()?;
        self.bump()?;
        let mut params = Vec::new();
        let mut vararg = false;
        if !self.eat(Tok::RParen)? {
            loop {
                if self.eat(Tok::DotDotDot)? {
                    vararg = true;
                    self.expect(Tok::RParen, "')' after '...'")?;
                    break;
                }
                let pat = self.tok.start;
                let p = self.parse_type(false)?;
                if matches!(
                    self.m.types.data(p),
                    TypeData::Function { .. } | TypeData::Label
                ) {
                    return Err(self.err_at(pat, "invalid function parameter type"));
                }
                params.push(p);
                if self.eat(Tok::RParen)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or ')' in a function type")?;
            }
        }
        self.leave();
        Ok(self.types.intern(
            &mut self.m,
            TypeData::Function {
                vararg,
                ret,
                params,
            },
        ))
    }

    fn base_type(&mut self) -> Result<TypeId> {
        match self.tok.tok {
            Tok::IntType(w) => {
                self.bump()?;
                Ok(self.int_type(w))
            }
            Tok::Word => match prim_index(self.text()) {
                Some(i) => {
                    self.bump()?;
                    Ok(self.prim(i))
                }
                None => Err(self.expected("a type")),
            },
            Tok::LocalVar | Tok::LocalId(_) => {
                let t = self.bump()?;
                let key = match t.tok {
                    Tok::LocalId(n) => Key::Id(n),
                    _ => Key::Name(self.name_of(&t)),
                };
                Ok(self.named_type(key, t.start))
            }
            Tok::LSquare => {
                self.bump()?;
                self.enter()?;
                let len = self.array_len()?;
                self.expect_word("x")?;
                let eat = self.tok.start;
                let elem = self.parse_type(false)?;
                if !self.types.is_first_class_or_aggregate(&self.m, elem) {
                    return Err(self.err_at(eat, "invalid array element type"));
                }
                self.expect(Tok::RSquare, "']'")?;
                self.leave();
                Ok(self
                    .types
                    .intern(&mut self.m, TypeData::Array { len, elem }))
            }
            Tok::Less => {
                self.bump()?;
                if self.tok.tok == Tok::LBrace {
                    let t = self.struct_body(true)?;
                    return Ok(t);
                }
                self.enter()?;
                let lat = self.tok.start;
                let len = self.array_len()?;
                let len = u32::try_from(len).ok().filter(|&l| l > 0).ok_or_else(|| {
                    self.err_at(lat, "vector length must be between 1 and 2^32-1")
                })?;
                self.expect_word("x")?;
                let eat = self.tok.start;
                let elem = self.parse_type(false)?;
                if !matches!(
                    self.m.types.data(elem),
                    TypeData::Int(_)
                        | TypeData::Half
                        | TypeData::Float
                        | TypeData::Double
                        | TypeData::OtherFloat(_)
                        | TypeData::Pointer { .. }
                ) {
                    return Err(self.err_at(eat, "invalid vector element type"));
                }
                self.expect(Tok::Greater, "'>'")?;
                self.leave();
                Ok(self
                    .types
                    .intern(&mut self.m, TypeData::Vector { len, elem }))
            }
            Tok::LBrace => self.struct_body(false),
            _ => Err(self.expected("a type")),
        }
    }

    fn array_len(&mut self) -> Result<u64> {
        if self.tok.tok != Tok::Int {
            return Err(self.expected("an element count"));
        }
        let n = self
            .text()
            .parse::<u64>()
            .map_err(|_| self.err("element count must be an unsigned 64-bit integer"))?;
        self.bump()?;
        Ok(n)
    }

    /// `{ T, ... }` or `{}` (the current token), and `}>` for packed structs.
    fn struct_body(&mut self, packed: bool) -> Result<TypeId> {
        let elems = self.struct_elems()?;
        if packed {
            self.expect(Tok::Greater, "'>' after a packed struct")?;
        }
        Ok(self.types.intern(
            &mut self.m,
            TypeData::Struct {
                name: None,
                packed,
                opaque: false,
                elems,
            },
        ))
    }

    fn struct_elems(&mut self) -> Result<Vec<dxil_module::TypeId>> {
        self.expect(Tok::LBrace, "'{'")?;
        self.enter()?;
        let mut elems = Vec::new();
        if !self.eat(Tok::RBrace)? {
            loop {
                let eat = self.tok.start;
                let e = self.parse_type(false)?;
                if !self.types.is_first_class_or_aggregate(&self.m, e) {
                    return Err(self.err_at(eat, "invalid element type for struct"));
                }
                elems.push(e);
                if self.eat(Tok::RBrace)? {
                    break;
                }
                self.expect(Tok::Comma, "',' or '}' in a struct type")?;
            }
        }
        self.leave();
        Ok(elems)
    }

    /// The type a name stands for; a placeholder identified struct when it is not defined yet.
    fn named_type(&mut self, key: Key<'a>, at: u32) -> TypeId {
        if let Some(n) = self.types.named.get(&key) {
            return n.id;
        }
        let name = match &key {
            Key::Name(n) => n.to_string(),
            Key::Id(_) => String::new(),
        };
        let id = self.m.types.push(TypeData::Struct {
            name: Some(name),
            packed: false,
            opaque: true,
            elems: Vec::new(),
        });
        self.types.named.insert(
            key,
            NamedTy {
                id,
                defined: false,
                first_use: at,
            },
        );
        id
    }

    /// `%name = type { ... }`, `%name = type <{ ... }>`, `%name = type opaque`, or a type alias
    /// `%name = type T`.
    pub(crate) fn type_definition(&mut self) -> Result<()> {
        let t = self.bump()?;
        let key: Key<'a> = match t.tok {
            Tok::LocalId(n) => Key::Id(n),
            _ => Key::Name(self.name_of(&t)),
        };
        self.expect(Tok::Equal, "'='")?;
        if !self.is_word("type") {
            return Err(self.expected("'type' (local values are only allowed inside functions)"));
        }
        self.bump()?;
        let existing = self.types.named.get(&key).copied();
        if existing.is_some_and(|n| n.defined) {
            return Err(self.err_at(t.start, format!("redefinition of type '{}'", key.show('%'))));
        }
        let name: Name<'a> = match &key {
            Key::Name(n) => n.clone(),
            Key::Id(_) => Name::Borrowed(""),
        };
        let body = if self.eat_word("opaque")? {
            Some((false, true, Vec::new()))
        } else if self.tok.tok == Tok::LBrace {
            Some((false, false, self.struct_elems()?))
        } else if self.tok.tok == Tok::Less && self.lx_next_is(b'{') {
            self.bump()?;
            let elems = self.struct_elems()?;
            self.expect(Tok::Greater, "'>' after a packed struct")?;
            Some((true, false, elems))
        } else {
            None
        };
        match body {
            Some((packed, opaque, elems)) => {
                let data = TypeData::Struct {
                    name: Some(name.into_owned()),
                    packed,
                    opaque,
                    elems,
                };
                let id = match existing {
                    Some(n) => {
                        self.m.types.set(n.id, data);
                        n.id
                    }
                    None => self.m.types.push(data),
                };
                self.types.named.insert(
                    key,
                    NamedTy {
                        id,
                        defined: true,
                        first_use: t.start,
                    },
                );
            }
            None => {
                if existing.is_some() {
                    return Err(self.err_at(
                        t.start,
                        format!(
                            "'{}' is used as a struct before; it cannot name another type",
                            key.show('%')
                        ),
                    ));
                }
                let at = self.tok.start;
                let id = self.parse_type(false)?;
                if matches!(self.m.types.data(id), TypeData::Label | TypeData::Metadata) {
                    return Err(self.err_at(at, "invalid type for a type alias"));
                }
                self.types.named.insert(
                    key,
                    NamedTy {
                        id,
                        defined: true,
                        first_use: t.start,
                    },
                );
            }
        }
        Ok(())
    }

    /// Whether the next non-blank character after the current token is `c`.
    pub(crate) fn lx_next_is(&self, c: u8) -> bool {
        let rest = self
            .src
            .as_bytes()
            .get(self.tok.end as usize..)
            .unwrap_or(&[]);
        rest.iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == c)
    }
}
