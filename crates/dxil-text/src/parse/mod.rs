//! LLVM 3.7 assembly → [`Module`]: the parser behind `dxil as`.
//!
//! It reads the listing that [`print_module`](crate::print_module) and DXC's disassembler print
//! and fills the model the way the bitcode reader fills it from DXC's bitcode: zero integers and
//! `+0.0` are `Null` constants, arrays of plain numbers are `Data`, `c"..."` strings are
//! `String`/`CString`, allocas carry LLVM's explicit-type bit, global records their short or long
//! form, `fast` sets every fast-math bit, and metadata kinds get the ids DXC registers. What the
//! listing does not say (the order of tables, value and metadata numbers) is left to the bitcode
//! writer, which recomputes it. Two things the listing cannot carry: DXC's table of metadata
//! kinds (it lists every kind the compiler registered, used or not; the parser rebuilds it from
//! what the module implies, see `md_finish`), and fast-math flag sets that include
//! unsafe-algebra but not every other flag (LLVM prints them all as `fast`).
//!
//! Quoted strings are decoded (`\XX`, `\\`) except where LLVM's writer prints them verbatim
//! (target strings, string attributes, GC names), so that print ∘ parse is a fixed point.
//!
//! One pass, one token of lookahead. Forward references (values used before their definition,
//! as in phis and calls to functions declared later; metadata nodes; attribute groups; named
//! types) get placeholders that are checked and patched when the definition arrives or at the
//! end of the function or module. Nesting (types, constants, metadata) is bounded by
//! [`MAX_DEPTH`]; no count read from the text sizes an allocation.

mod attrs;
mod error;
pub mod fuzz;
mod inst;
mod lexer;
mod md;
mod number;
mod types;
mod values;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use dxil_module::{FuncId, GlobalId, GlobalVar, Module, TypeId, Value};

pub use error::ParseError;
use lexer::{Lexer, Tok, Token};

type Result<T> = std::result::Result<T, ParseError>;

/// Start of the comment line that carries the module's metadata kind table:
/// `; dxil-metadata-kinds: !dbg !tbaa ...`, the kinds in id order, spelled like `!name`
/// attachments. The printer writes it first; the parser looks for it among the comment lines
/// before the first line of code and, when it is there, gives the module exactly that table
/// (kinds the code uses but the line lacks are appended). Without it the table is inferred.
pub const KINDS_COMMENT: &str = "; dxil-metadata-kinds:";

/// Deepest nesting of types, constants and metadata the parser follows.
pub const MAX_DEPTH: u32 = 64;

/// Name and id tables hash with FxHash: keys are short names and ids, and the inputs are listings, not
/// adversarial hash-flooding traffic (the maps are bounded by the input size either way).
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Parses a module from LLVM 3.7 assembly (DXC's `-dumpbin` listing or
/// [`print_module`](crate::print_module)'s output). Comment lines are ignored.
///
/// ```
/// let m = dxil_text::parse_module(
///     "target triple = \"dxil-ms-dx\"\n\
///      define void @main() {\n  ret void\n}\n",
/// )
/// .unwrap();
/// assert_eq!(m.functions[0].name, "main");
/// let e = dxil_text::parse_module("define void @main() {\n  ret i32 0\n}\n").unwrap_err();
/// assert_eq!((e.line, e.column), (2, 7));
/// assert_eq!(e.to_string(), "line 2, column 7: value doesn't match function result type 'void'");
/// ```
pub fn parse_module(text: &str) -> Result<Module> {
    if text.len() >= (u32::MAX as usize) {
        return Err(ParseError {
            line: 1,
            column: 1,
            offset: 0,
            message: "the text is larger than 4 GiB".into(),
        });
    }
    let mut p = Parser::new(text)?;
    p.module()?;
    p.finish()
}

/// A name as the text spells it, unescaped: borrowed from the input when it has no escapes.
type Name<'a> = Cow<'a, str>;

/// Key of a module-level or local value: `@name` / `%name` or `@N` / `%N`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Key<'a> {
    Name(Name<'a>),
    Id(u32),
}

impl Key<'_> {
    fn show(&self, sigil: char) -> String {
        match self {
            Key::Name(n) => format!("{sigil}{n}"),
            Key::Id(i) => format!("{sigil}{i}"),
        }
    }
}

/// A module-level value used before its definition.
struct GlobalFwd<'a> {
    key: Key<'a>,
    /// The pointer type the use expects.
    ty: TypeId,
    at: u32,
    resolved: Option<Value>,
}

/// Bit that marks module-level forward references among unresolved values (local ones have it
/// clear).
const MODULE_FWD: u32 = 1 << 28;

pub(crate) struct Parser<'a> {
    src: &'a str,
    lx: Lexer<'a>,
    /// The lookahead token.
    tok: Token,
    m: Module,
    scratch: Vec<u8>,
    depth: u32,

    types: types::TypeState<'a>,

    /// Globals and functions by name, and the unnamed ones by number.
    globals: FxMap<Name<'a>, Value>,
    numbered_globals: Vec<Value>,
    gfwd: Vec<GlobalFwd<'a>>,
    gfwd_index: FxMap<Key<'a>, u32>,

    consts: values::ConstState,
    md: md::MdState<'a>,
    attrs: attrs::AttrState,
    fs: inst::FnState<'a>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Result<Parser<'a>> {
        let mut lx = Lexer::new(src);
        let tok = lx.next_token()?;
        let mut m = Module {
            version: 1,
            ..Module::default()
        };
        // Sized from the text (so bounded by it): growing these from empty was a tenth of the
        // time on typical listings.
        let n = src.len();
        m.constants.reserve(n / 64);
        m.constants.values.reserve(n / 128);
        m.metadata.items.reserve(n / 64);
        m.metadata.operands.reserve(n / 32);
        m.metadata.bytes.reserve(n / 32);
        let types = types::TypeState::new(&mut m);
        Ok(Parser {
            src,
            lx,
            tok,
            m,
            scratch: Vec::new(),
            depth: 0,
            types,
            globals: FxMap::default(),
            numbered_globals: Vec::new(),
            gfwd: Vec::new(),
            gfwd_index: FxMap::default(),
            consts: values::ConstState::default(),
            md: md::MdState::default(),
            attrs: attrs::AttrState::default(),
            fs: inst::FnState::default(),
        })
    }

    // ------------------------------------------------------------------ tokens and errors

    /// Moves to the next token and returns the one that was current.
    #[inline]
    fn bump(&mut self) -> Result<Token> {
        let t = self.tok;
        self.tok = self.lx.next_token()?;
        Ok(t)
    }

    #[cold]
    fn err_at(&self, offset: u32, msg: impl Into<String>) -> ParseError {
        ParseError::at(self.src.as_bytes(), offset, msg)
    }

    /// An error at the current token.
    #[cold]
    fn err(&self, msg: impl Into<String>) -> ParseError {
        self.err_at(self.tok.start, msg)
    }

    /// "expected X, found Y" at the current token.
    #[cold]
    fn expected(&self, what: &str) -> ParseError {
        self.err(format!(
            "expected {what}, found {}",
            self.describe(&self.tok)
        ))
    }

    fn describe(&self, t: &Token) -> String {
        if t.tok == Tok::Eof {
            return "end of input".into();
        }
        let text = self
            .src
            .get(t.start as usize..t.end as usize)
            .unwrap_or("?");
        let mut s: String = text.chars().take(40).collect();
        if s.len() < text.len() {
            s.push_str("...");
        }
        format!("'{s}'")
    }

    /// The current token's payload as text (words, numbers).
    #[inline]
    fn text(&self) -> &'a str {
        self.src
            .get(self.tok.payload.0 as usize..self.tok.payload.1 as usize)
            .unwrap_or("")
    }

    #[inline]
    fn is_word(&self, w: &str) -> bool {
        self.tok.tok == Tok::Word && self.text() == w
    }

    #[inline]
    fn eat_word(&mut self, w: &str) -> Result<bool> {
        if self.is_word(w) {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<()> {
        if self.eat_word(w)? {
            Ok(())
        } else {
            Err(self.expected(&format!("'{w}'")))
        }
    }

    #[inline]
    fn eat(&mut self, t: Tok) -> Result<bool> {
        if self.tok.tok == t {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect(&mut self, t: Tok, what: &str) -> Result<Token> {
        if self.tok.tok == t {
            self.bump()
        } else {
            Err(self.expected(what))
        }
    }

    /// Enters one level of nesting, failing past [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The unescaped text of a name or string token.
    fn name_of(&mut self, t: &Token) -> Name<'a> {
        let raw = self.lx.slice(t.payload);
        if !t.escaped {
            // Spans start and end next to ASCII delimiters, so they are valid UTF-8.
            if let Some(s) = self.src.get(t.payload.0 as usize..t.payload.1 as usize) {
                return Cow::Borrowed(s);
            }
        }
        lexer::unescape(raw, &mut self.scratch);
        Cow::Owned(String::from_utf8_lossy(&self.scratch).into_owned())
    }

    /// The unescaped bytes of a string token, appended to `out`.
    fn bytes_of(&mut self, t: &Token, out: &mut Vec<u8>) {
        let raw = self.lx.slice(t.payload);
        if t.escaped {
            lexer::unescape(raw, &mut self.scratch);
            out.extend_from_slice(&self.scratch);
        } else {
            out.extend_from_slice(raw);
        }
    }

    /// A quoted string (`"..."`) as text.
    fn string(&mut self, what: &str) -> Result<String> {
        let t = self.expect(Tok::Str, what)?;
        Ok(self.name_of(&t).into_owned())
    }

    /// A quoted string taken verbatim, for the strings LLVM's writer prints without escaping
    /// (target strings, string attributes, GC names): decoding escapes there would make
    /// print ∘ parse drift on every round.
    fn raw_string(&mut self, what: &str) -> Result<String> {
        let t = self.expect(Tok::Str, what)?;
        Ok(self
            .src
            .get(t.payload.0 as usize..t.payload.1 as usize)
            .unwrap_or("")
            .to_string())
    }

    /// A decimal integer that fits in `u32` (alignments, address spaces, indices).
    fn u32_literal(&mut self, what: &str) -> Result<u32> {
        if self.tok.tok != Tok::Int {
            return Err(self.expected(what));
        }
        let v = self
            .text()
            .parse::<u32>()
            .map_err(|_| self.err(format!("{what} must be an unsigned 32-bit integer")))?;
        self.bump()?;
        Ok(v)
    }

    /// `N` of `align N` as the log2(N) + 1 field; `N` must be a power of two up to 2^29.
    fn alignment_value(&mut self) -> Result<u32> {
        let at = self.tok.start;
        let a = self.u32_literal("an alignment")?;
        if !a.is_power_of_two() || a > 1 << 29 {
            return Err(self.err_at(at, "alignment must be a power of two of at most 2^29"));
        }
        Ok(a.trailing_zeros() + 1)
    }

    // ------------------------------------------------------------------ top level

    fn module(&mut self) -> Result<()> {
        loop {
            match self.tok.tok {
                Tok::Eof => return Ok(()),
                Tok::Word => {
                    let w = self.text();
                    match w {
                        "target" => self.target()?,
                        "define" => self.function(true)?,
                        "declare" => self.function(false)?,
                        "attributes" => self.attribute_group()?,
                        "source_filename" | "module" | "deplibs" | "uselistorder"
                        | "uselistorder_bb" => {
                            return Err(self.err(format!("'{w}' is not supported")));
                        }
                        _ => return Err(self.expected("a top-level entity")),
                    }
                }
                Tok::LocalVar | Tok::LocalId(_) => self.type_definition()?,
                Tok::GlobalVar | Tok::GlobalId(_) => self.global_var()?,
                Tok::MetadataVar => self.named_metadata()?,
                Tok::MetadataId(_) => self.metadata_definition()?,
                _ => return Err(self.expected("a top-level entity")),
            }
        }
    }

    fn target(&mut self) -> Result<()> {
        self.bump()?;
        let triple = if self.eat_word("triple")? {
            true
        } else if self.eat_word("datalayout")? {
            false
        } else {
            return Err(self.expected("'triple' or 'datalayout'"));
        };
        self.expect(Tok::Equal, "'='")?;
        let s = self.raw_string("a quoted string")?;
        if triple {
            self.m.triple = s.into();
        } else {
            self.m.datalayout = s.into();
        }
        Ok(())
    }

    /// The name of a global or function being defined: `@name` / `@N` (which must be the next
    /// unnamed number).
    fn define_global_name(&mut self) -> Result<Key<'a>> {
        let t = self.bump()?;
        let key = match t.tok {
            Tok::GlobalVar => Key::Name(self.name_of(&t)),
            Tok::GlobalId(n) => {
                if n as usize != self.numbered_globals.len() {
                    return Err(self.err_at(
                        t.start,
                        format!(
                            "variable expected to be numbered '@{}'",
                            self.numbered_globals.len()
                        ),
                    ));
                }
                Key::Id(n)
            }
            _ => return Err(self.err_at(t.start, "expected a global name")),
        };
        if let Key::Name(n) = &key
            && self.globals.contains_key(n)
        {
            return Err(self.err_at(t.start, format!("redefinition of global '@{n}'")));
        }
        Ok(key)
    }

    /// Registers a defined global or function and resolves forward uses of it.
    fn bind_global(&mut self, key: Key<'a>, v: Value, ptr_ty: TypeId) -> Result<()> {
        if let Some(i) = self.gfwd_index.remove(&key)
            && let Some(f) = self.gfwd.get_mut(i as usize)
        {
            if f.ty != ptr_ty {
                let (want, got) = (f.ty, ptr_ty);
                let fat = f.at;
                return Err(self.err_at(
                    fat,
                    format!(
                        "'{}' is defined with type '{}' but used here as '{}'",
                        key.show('@'),
                        self.type_text(got),
                        self.type_text(want)
                    ),
                ));
            }
            f.resolved = Some(v);
        }
        match key {
            Key::Name(n) => {
                self.globals.insert(n, v);
            }
            Key::Id(_) => self.numbered_globals.push(v),
        }
        Ok(())
    }

    fn linkage(&mut self) -> Result<Option<u32>> {
        if self.tok.tok != Tok::Word {
            return Ok(None);
        }
        let l = match self.text() {
            "private" => 9,
            "internal" => 3,
            "available_externally" => 12,
            "linkonce" => 18,
            "weak" => 16,
            "common" => 8,
            "appending" => 2,
            "extern_weak" => 7,
            "linkonce_odr" => 19,
            "weak_odr" => 17,
            "external" => 0,
            _ => return Ok(None),
        };
        self.bump()?;
        Ok(Some(l))
    }

    fn visibility(&mut self) -> Result<u32> {
        let v = match self.text() {
            "default" if self.tok.tok == Tok::Word => 0,
            "hidden" if self.tok.tok == Tok::Word => 1,
            "protected" if self.tok.tok == Tok::Word => 2,
            _ => return Ok(0),
        };
        self.bump()?;
        Ok(v)
    }

    fn dll_storage(&mut self) -> Result<u32> {
        if self.eat_word("dllimport")? {
            Ok(1)
        } else if self.eat_word("dllexport")? {
            Ok(2)
        } else {
            Ok(0)
        }
    }

    fn section_index(&mut self, name: String) -> u32 {
        match self.m.section_names.iter().position(|s| *s == name) {
            Some(i) => i as u32 + 1,
            None => {
                self.m.section_names.push(name);
                self.m.section_names.len() as u32
            }
        }
    }

    /// `@g = [linkage] [visibility] [dll] [thread_local] [unnamed_addr] [addrspace(N)]
    /// [externally_initialized] global|constant <type> [<init>] [, section "s"] [, align N]`.
    fn global_var(&mut self) -> Result<()> {
        let key = self.define_global_name()?;
        self.expect(Tok::Equal, "'='")?;
        let linkage = self.linkage()?;
        let visibility = self.visibility()?;
        let dll_storage = self.dll_storage()?;
        let mut thread_local = 0;
        if self.eat_word("thread_local")? {
            thread_local = 1;
            if self.eat(Tok::LParen)? {
                thread_local = match self.text() {
                    "localdynamic" => 2,
                    "initialexec" => 3,
                    "localexec" => 4,
                    _ => return Err(self.expected("a thread-local model")),
                };
                self.bump()?;
                self.expect(Tok::RParen, "')'")?;
            }
        }
        let unnamed_addr = u32::from(self.eat_word("unnamed_addr")?);
        let address_space = self.opt_addrspace()?;
        let externally_initialized = self.eat_word("externally_initialized")?;
        let is_constant = if self.eat_word("constant")? {
            true
        } else if self.eat_word("global")? {
            false
        } else if self.is_word("alias") {
            return Err(self.err("aliases are not supported"));
        } else {
            return Err(self.expected("'global' or 'constant'"));
        };
        let ty_at = self.tok.start;
        let value_ty = self.parse_type(false)?;
        if !self.types.is_first_class_or_aggregate(&self.m, value_ty) {
            return Err(self.err_at(ty_at, "invalid type for a global variable"));
        }
        let ptr_ty = self.types.pointer(&mut self.m, value_ty, address_space);
        let gid = GlobalId(self.m.globals.len() as u32);
        // The global exists before its initializer is parsed: initializers may name it.
        let name = match &key {
            Key::Name(n) => n.to_string(),
            Key::Id(_) => String::new(),
        };
        self.bind_global(key, Value::global(gid), ptr_ty)?;
        let needs_init = !matches!(linkage, Some(0 | 7));
        let init = if needs_init {
            Some(self.const_value(value_ty)?)
        } else {
            None
        };
        let mut g = GlobalVar {
            name,
            value_ty,
            ptr_ty,
            address_space,
            is_constant,
            init,
            linkage: linkage.unwrap_or(0),
            align: 0,
            section: 0,
            visibility,
            thread_local,
            unnamed_addr,
            externally_initialized,
            dll_storage,
            comdat: 0,
            record_len: 6,
        };
        while self.eat(Tok::Comma)? {
            if self.eat_word("align")? {
                g.align = self.alignment_value()?;
            } else if self.eat_word("section")? {
                let s = self.string("a section name")?;
                g.section = self.section_index(s);
            } else if self.is_word("comdat") {
                return Err(self.err("comdats are not supported"));
            } else {
                return Err(self.expected("'align' or 'section'"));
            }
        }
        // LLVM 3.7 writes the six mandatory fields, and all twelve when any optional one is set.
        if g.visibility != 0
            || g.thread_local != 0
            || g.unnamed_addr != 0
            || g.externally_initialized
            || g.dll_storage != 0
        {
            g.record_len = 12;
        }
        self.m.globals.push(g);
        Ok(())
    }

    /// `addrspace(N)`, or 0.
    fn opt_addrspace(&mut self) -> Result<u32> {
        if !self.eat_word("addrspace")? {
            return Ok(0);
        }
        self.expect(Tok::LParen, "'('")?;
        let a = self.u32_literal("an address space")?;
        if a >= 1 << 24 {
            return Err(self.err("address space must be below 2^24"));
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(a)
    }

    /// A `@name` or `@N` use with the pointer type `ptr_ty`: the value if defined, else a
    /// forward reference.
    fn global_ref(&mut self, ptr_ty: TypeId) -> Result<Value> {
        let t = self.bump()?;
        let key = match t.tok {
            Tok::GlobalVar => Key::Name(self.name_of(&t)),
            Tok::GlobalId(n) => Key::Id(n),
            _ => return Err(self.err_at(t.start, "expected a global name")),
        };
        let found = match &key {
            Key::Name(n) => self.globals.get(n).copied(),
            Key::Id(n) => self.numbered_globals.get(*n as usize).copied(),
        };
        if let Some(v) = found {
            let vt = self.value_type(v);
            if vt != Some(ptr_ty) {
                return Err(self.err_at(
                    t.start,
                    format!(
                        "'{}' has type '{}', expected '{}'",
                        key.show('@'),
                        vt.map_or_else(|| "?".into(), |x| self.type_text(x)),
                        self.type_text(ptr_ty)
                    ),
                ));
            }
            return Ok(v);
        }
        if !matches!(
            self.m.types.data(ptr_ty),
            dxil_module::TypeData::Pointer { .. }
        ) {
            return Err(self.err_at(t.start, "global values are pointers"));
        }
        if let Some(&i) = self.gfwd_index.get(&key) {
            let f = &self.gfwd[i as usize];
            if f.ty != ptr_ty {
                return Err(self.err_at(
                    t.start,
                    format!(
                        "'{}' was used with type '{}' before, here with '{}'",
                        key.show('@'),
                        self.type_text(f.ty),
                        self.type_text(ptr_ty)
                    ),
                ));
            }
            return Ok(Value::unresolved(MODULE_FWD | i));
        }
        let i = self.gfwd.len() as u32;
        if i >= MODULE_FWD {
            return Err(self.err_at(t.start, "too many forward references"));
        }
        self.gfwd.push(GlobalFwd {
            key: key.clone(),
            ty: ptr_ty,
            at: t.start,
            resolved: None,
        });
        self.gfwd_index.insert(key, i);
        Ok(Value::unresolved(MODULE_FWD | i))
    }

    /// Checks every forward reference was defined and patches the module with the definitions.
    fn resolve_globals(&mut self) -> Result<()> {
        if let Some(f) = self.gfwd.iter().find(|f| f.resolved.is_none()) {
            return Err(self.err_at(
                f.at,
                format!("use of undefined value '{}'", f.key.show('@')),
            ));
        }
        if self.gfwd.is_empty() {
            return Ok(());
        }
        let table: Vec<Value> = self
            .gfwd
            .iter()
            .map(|f| f.resolved.unwrap_or(Value(0)))
            .collect();
        let map = |v: Value| -> Value {
            match v.get() {
                dxil_module::ValueRef::Unresolved(k) if k & MODULE_FWD != 0 => {
                    table.get((k & !MODULE_FWD) as usize).copied().unwrap_or(v)
                }
                _ => v,
            }
        };
        self.consts.patch(&mut self.m, &map);
        for g in &mut self.m.globals {
            if let Some(i) = &mut g.init {
                *i = map(*i);
            }
        }
        for f in &mut self.m.functions {
            if let Some(b) = &mut f.body {
                let pool = &mut b.pool;
                for inst in &mut b.insts {
                    inst.kind.map_values(pool, &mut |v| map(v));
                }
            }
        }
        for item in &mut self.m.metadata.items {
            if let dxil_module::MdData::Value { value, .. } = item {
                *value = map(*value);
            }
        }
        Ok(())
    }

    /// The type of a value in the current context.
    fn value_type(&self, v: Value) -> Option<TypeId> {
        use dxil_module::ValueRef;
        match v.get() {
            ValueRef::Const(c) => self.m.constants.get(c).map(|k| k.ty),
            ValueRef::Global(g) => self.m.globals.get(g.index()).map(|g| g.ptr_ty),
            ValueRef::Function(f) => self.m.functions.get(f.index()).map(|f| f.ptr_ty),
            ValueRef::Inst(i) => self.fs.body.insts.get(i.index()).map(|d| d.ty),
            ValueRef::Arg(a) => self.fs.params.get(a as usize).copied(),
            ValueRef::Metadata(_) => Some(self.types.metadata),
            ValueRef::Unresolved(k) if k & MODULE_FWD != 0 => {
                self.gfwd.get((k & !MODULE_FWD) as usize).map(|f| f.ty)
            }
            ValueRef::Unresolved(k) => self.fs.fwd_type(k),
        }
    }

    fn finish(mut self) -> Result<Module> {
        self.types
            .check_defined()
            .map_err(|(at, msg)| self.err_at(at, msg))?;
        self.resolve_globals()?;
        // Attributes first: the kind table looks at them.
        self.attrs_finish()?;
        self.md_finish()?;
        Ok(self.m)
    }

    /// The function being defined or declared is `FuncId(len)`.
    fn next_func_id(&self) -> FuncId {
        FuncId(self.m.functions.len() as u32)
    }
}
