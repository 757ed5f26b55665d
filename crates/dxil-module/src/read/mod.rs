//! Bitcode → [`Module`]: the LLVM 3.7 record layer.
//!
//! One pass over the stream with [`dxil_bitstream::BitstreamReader`]. Value numbers follow LLVM's
//! `ValueEnumerator`: module values (globals, functions, module constants), then per function the
//! arguments, the function's constants and every value-producing instruction. Operands that name a
//! value not yet defined (phis, and the occasional forward reference) are kept as
//! [`ValueRef::Unresolved`] and patched when their block ends; a finished module never contains one.
//!
//! Every error carries the absolute bit offset of the record being read, the block, and inside a
//! function body the function and instruction index.

mod constants;
mod error;
mod function;
mod inst;
mod metadata;
mod names;
mod recycle;
mod types;

use crate::codes;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use dxil_bitstream::{BitstreamReader, Entry, Step};

pub use error::{ReadError, ReadErrorKind, ReadLocation, Result};
pub use names::LlvmNames;
pub use recycle::recycle;
pub(crate) use recycle::reset as reset_arena;

use crate::entity::{AttrListId, FuncId, GlobalId, MdId, TypeId};
use crate::inst::DebugLoc;
use crate::metadata::MdKind;
use crate::module::{
    AttrGroup, Attribute, Body, DXIL_DATALAYOUTS, DXIL_TRIPLE, Function, GlobalVar, Module,
};
use crate::types::TypeData;
use crate::value::{MAX_VALUE_INDEX, Value, ValueRef};

pub(crate) use crate::codes::block;

/// Reads a module from LLVM 3.7 bitcode (starting with `BC 0xC0DE`). `base_offset` is the byte
/// offset of the bitcode in its enclosing file, so that error positions are absolute.
pub fn read_module(bitcode: &[u8], base_offset: u64) -> Result<Module> {
    let bs = BitstreamReader::new(bitcode, base_offset)?;
    let mut s = SCRATCH.try_with(Cell::take).unwrap_or_default();
    let (m, spares) = recycle::take();
    let mut r = Reader {
        bs,
        ops: std::mem::take(&mut s.ops),
        m,
        spares,
        values: std::mem::take(&mut s.values),
        value_types: std::mem::take(&mut s.value_types),
        bodies: std::mem::take(&mut s.bodies),
        next_body: 0,
        global_inits: std::mem::take(&mut s.global_inits),
        struct_name: None,
        at_code: None,
        ptr_types: std::mem::take(&mut s.ptr_types),
        vec_types: std::mem::take(&mut s.vec_types),
        fn_values: std::mem::take(&mut s.fn_values),
        fn_types: std::mem::take(&mut s.fn_types),
        local_md: std::mem::take(&mut s.local_md),
        md_module_count: 0,
        void_ty: None,
        i1_ty: None,
        block_words: 0,
        block_width: 0,
        fn_words: 0,
        bits_total: bitcode.len() as u64 * 8,
    };
    let result = r.read_top();
    let Reader {
        bs,
        ops,
        m,
        values,
        value_types,
        bodies,
        global_inits,
        ptr_types,
        vec_types,
        fn_values,
        fn_types,
        local_md,
        spares,
        ..
    } = r;
    recycle::put_back(spares);
    let s = Scratch {
        ops,
        values,
        value_types,
        bodies,
        global_inits,
        ptr_types,
        vec_types,
        fn_values,
        fn_types,
        local_md,
    };
    let _ = SCRATCH.try_with(|c| c.set(s.recycled()));
    bs.recycle();
    result.map(|()| m)
}

/// Buffers the reader needs only while it runs, kept per thread between calls: callers read
/// many modules, and these would otherwise be allocated (and regrown) for each.
#[derive(Default)]
struct Scratch {
    ops: Vec<u64>,
    values: Vec<Value>,
    value_types: Vec<TypeId>,
    bodies: Vec<FuncId>,
    global_inits: Vec<(GlobalId, u32)>,
    ptr_types: Vec<(TypeId, u32, TypeId)>,
    vec_types: Vec<(u32, TypeId, TypeId)>,
    fn_values: Vec<Value>,
    fn_types: Vec<TypeId>,
    local_md: Vec<MdId>,
}

impl Scratch {
    /// Buffers that grew beyond this many elements are dropped, not kept: one large module
    /// must not pin its memory for the rest of the thread's life.
    const KEEP: usize = 1 << 16;

    /// Empties every buffer, keeping its allocation unless it is large.
    fn recycled(mut self) -> Scratch {
        fn reset<T>(v: &mut Vec<T>) {
            v.clear();
            if v.capacity() > Scratch::KEEP {
                *v = Vec::new();
            }
        }
        reset(&mut self.ops);
        reset(&mut self.values);
        reset(&mut self.value_types);
        reset(&mut self.bodies);
        reset(&mut self.global_inits);
        reset(&mut self.ptr_types);
        reset(&mut self.vec_types);
        reset(&mut self.fn_values);
        reset(&mut self.fn_types);
        reset(&mut self.local_md);
        self
    }
}

thread_local! {
    static SCRATCH: Cell<Scratch> = Cell::new(Scratch::default());
    static KINDS_MEMO: RefCell<Vec<KindsMemo>> = const { RefCell::new(Vec::new()) };
}

/// The last few distinct module-level METADATA blocks on this thread that held nothing but
/// kind records (their bytes and abbreviation width) and the kinds they registered (DXC
/// versions differ in the kinds they register). What such a block
/// registers depends only on those, when BLOCKINFO defines no abbreviations for METADATA
/// blocks, which is checked before the memo is used.
struct KindsMemo {
    width: u32,
    bytes: Vec<u8>,
    kinds: Vec<MdKind>,
}

impl KindsMemo {
    /// Larger blocks are not kept (DXC's is under 1 KiB).
    const MAX_BYTES: usize = 4096;
    /// Blocks remembered, most recently used first.
    const ENTRIES: usize = 4;
}

struct Reader<'a> {
    bs: BitstreamReader<'a>,
    ops: Vec<u64>,
    m: Module,
    /// Module value number → value.
    values: Vec<Value>,
    value_types: Vec<TypeId>,
    /// Functions with bodies, in the order their FUNCTION_BLOCKs appear.
    bodies: Vec<FuncId>,
    next_body: usize,
    global_inits: Vec<(GlobalId, u32)>,
    struct_name: Option<String>,
    /// Storage of a recycled module to build this one's items from.
    spares: recycle::Spares,
    at_code: Option<u32>,
    /// (pointee, address space) → pointer type; small, so a linear scan beats hashing.
    ptr_types: Vec<(TypeId, u32, TypeId)>,
    /// (length, element) → vector type.
    vec_types: Vec<(u32, TypeId, TypeId)>,
    /// Buffers of [`FnState`], kept between functions.
    fn_values: Vec<Value>,
    fn_types: Vec<TypeId>,
    local_md: Vec<MdId>,
    md_module_count: usize,
    void_ty: Option<TypeId>,
    i1_ty: Option<TypeId>,
    /// Length in words of the sub-block last announced by `next`.
    block_words: u32,
    /// Abbreviation width of that sub-block.
    block_width: u32,
    fn_words: u32,
    bits_total: u64,
}

/// One entry of the current block, as the block readers see it.
#[derive(Clone, Copy)]
enum Next {
    /// A record with this code; its operands are in `Reader::ops`.
    Record(u32),
    /// A sub-block with this id (its length is in `Reader::block_words`): enter or skip it.
    Block(u32),
    /// An abbreviation definition (the bitstream reader has registered it).
    Abbrev,
    /// The end of the current block.
    End,
    /// The end of the data or trailing bytes: inside a block, the block is cut short.
    Stop,
}

/// Per-function reading state.
struct FnState {
    /// Local value number (minus the module value count) → value.
    values: Vec<Value>,
    types: Vec<TypeId>,
    body: Body,
    cur_block: usize,
    declared_blocks: usize,
    unresolved: bool,
    /// Function-local metadata ids (beyond the module's) → module metadata items.
    local_md: Vec<MdId>,
    last_loc: Option<DebugLoc>,
}

fn decode_signed(v: u64) -> i64 {
    if v & 1 == 0 {
        (v >> 1) as i64
    } else if v != 1 {
        -((v >> 1) as i64)
    } else {
        i64::MIN
    }
}

/// Constants may refer to other constants, globals and functions, never to function-local values.
fn is_constant_operand(v: Value) -> bool {
    matches!(
        v.get(),
        ValueRef::Const(_) | ValueRef::Global(_) | ValueRef::Function(_)
    )
}

/// Room made for function declarations at the first one (a fixed number, not a length field).
const FUNCTIONS_RESERVED: usize = 16;

/// One of `known` when the characters spell it (every DXC module has the same triple and one of
/// two data layouts: sharing them saves an allocation and a free each), else a new string.
fn known_or_owned(ops: &[u64], known: &[&'static str]) -> Cow<'static, str> {
    let same =
        |k: &str| k.len() == ops.len() && k.bytes().zip(ops).all(|(b, &c)| u64::from(b) == c);
    match known.iter().find(|k| same(k)) {
        Some(k) => Cow::Borrowed(*k),
        None => Cow::Owned(chars_to_string(ops)),
    }
}

fn chars_to_string(ops: &[u64]) -> String {
    let bytes: Vec<u8> = ops.iter().map(|&c| c as u8).collect();
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

impl<'a> Reader<'a> {
    // ---------------------------------------------------------------- errors

    #[cold]
    fn err(&self, kind: ReadErrorKind, msg: impl Into<String>) -> ReadError {
        ReadError::new(
            kind,
            msg,
            ReadLocation {
                bit_offset: self.bs.entry_bit_offset(),
                block: self.bs.block_id(),
                record_code: self.at_code,
                function: None,
                instruction: None,
            },
        )
    }

    #[cold]
    fn malformed(&self, msg: impl Into<String>) -> ReadError {
        self.err(ReadErrorKind::Malformed, msg)
    }

    #[cold]
    fn unsupported(&self, msg: impl Into<String>) -> ReadError {
        self.err(ReadErrorKind::Unsupported, msg)
    }

    #[inline]
    fn op(&self, i: usize) -> Result<u64> {
        match self.ops.get(i) {
            Some(v) => Ok(*v),
            None => Err(self.malformed(format!(
                "record has {} operands, expected at least {}",
                self.ops.len(),
                i + 1
            ))),
        }
    }

    fn op_u32(&self, i: usize) -> Result<u32> {
        let v = self.op(i)?;
        u32::try_from(v).map_err(|_| self.malformed(format!("operand {i} ({v}) exceeds 32 bits")))
    }

    #[inline]
    fn type_id(&self, v: u64) -> Result<TypeId> {
        if v < self.m.types.len() as u64 {
            Ok(TypeId(v as u32))
        } else {
            Err(self.malformed(format!(
                "type id {v} out of range ({} types)",
                self.m.types.len()
            )))
        }
    }

    #[inline]
    fn op_type(&self, i: usize) -> Result<TypeId> {
        let v = self.op(i)?;
        self.type_id(v)
    }

    /// The next entry of the current block, a record decoded into `self.ops`. Inlined into each
    /// block loop: one call into the bitstream reader per record.
    #[inline(always)]
    fn step(&mut self) -> Result<Next> {
        match self.bs.advance(&mut self.ops)? {
            Step::Record(rec) => {
                self.at_code = Some(rec.code);
                if rec.blob.is_some() {
                    return Err(
                        self.unsupported("blob operands do not occur in LLVM 3.7 IR records")
                    );
                }
                Ok(Next::Record(rec.code))
            }
            Step::Entry(e) => {
                self.at_code = None;
                Ok(match e {
                    Entry::SubBlock {
                        block_id,
                        length_words,
                        abbrev_width,
                        ..
                    } => {
                        self.block_words = length_words;
                        self.block_width = abbrev_width;
                        Next::Block(block_id)
                    }
                    Entry::DefineAbbrev { .. } => Next::Abbrev,
                    Entry::EndBlock { .. } => Next::End,
                    Entry::Record { .. } | Entry::TrailingData { .. } | Entry::EndOfStream => {
                        Next::Stop
                    }
                })
            }
        }
    }

    // ---------------------------------------------------------------- top level

    fn read_top(&mut self) -> Result<()> {
        let mut seen_module = false;
        loop {
            let entry = self.bs.next()?;
            self.at_code = None;
            match entry {
                Entry::SubBlock { block_id, .. } => {
                    if block_id == block::MODULE && !seen_module {
                        self.bs.enter_block()?;
                        self.read_module_block()?;
                        seen_module = true;
                    } else if block_id == block::BLOCKINFO {
                        self.bs.skip_block()?;
                    } else if block_id == block::MODULE {
                        return Err(self.malformed("a second MODULE block"));
                    } else {
                        return Err(self.unsupported(format!(
                            "top-level block {block_id} (LLVM 3.7 bitcode has only a MODULE block)"
                        )));
                    }
                }
                Entry::TrailingData {
                    byte_len, all_zero, ..
                } => {
                    return Err(self.malformed(format!(
                        "{byte_len} bytes of {} data after the module block",
                        if all_zero { "zero" } else { "non-zero" }
                    )));
                }
                Entry::EndOfStream => break,
                Entry::Record { .. } => return Err(self.malformed("record at the top level")),
                Entry::DefineAbbrev { .. } => {
                    return Err(self.malformed("abbreviation definition at the top level"));
                }
                Entry::EndBlock { .. } => return Err(self.malformed("END_BLOCK at the top level")),
            }
        }
        if !seen_module {
            return Err(self.malformed("no MODULE block"));
        }
        Ok(())
    }

    fn read_module_block(&mut self) -> Result<()> {
        loop {
            match self.step()? {
                Next::Block(block_id) => match block_id {
                    block::BLOCKINFO => self.bs.skip_block()?,
                    block::PARAMATTR_GROUP => {
                        self.bs.enter_block()?;
                        self.read_attr_groups()?;
                    }
                    block::PARAMATTR => {
                        self.bs.enter_block()?;
                        self.read_attr_lists()?;
                    }
                    block::TYPE_NEW => {
                        let words = self.block_words as u64;
                        self.bs.enter_block()?;
                        self.read_types(words)?;
                    }
                    block::CONSTANTS => {
                        let words = self.block_words as usize;
                        self.m.constants.reserve(words / 2);
                        self.values.reserve(words / 2);
                        self.value_types.reserve(words / 2);
                        self.bs.enter_block()?;
                        self.read_constants(None)?;
                        self.resolve_global_inits()?;
                    }
                    block::METADATA => self.read_module_metadata()?,
                    block::VALUE_SYMTAB => {
                        self.bs.enter_block()?;
                        self.read_module_vst()?;
                    }
                    block::FUNCTION => {
                        self.fn_words = self.block_words;
                        self.resolve_global_inits()?;
                        self.bs.enter_block()?;
                        self.read_function()?;
                    }
                    block::USELIST => self.bs.skip_block()?,
                    other => {
                        return Err(self.unsupported(format!(
                            "block id {other} inside the module (not an LLVM 3.7 block)"
                        )));
                    }
                },
                Next::Record(code) => {
                    self.module_record(code)?;
                }
                Next::Abbrev => {}
                Next::End => break,
                Next::Stop => {
                    return Err(self.err(ReadErrorKind::Truncated, "module block not terminated"));
                }
            }
        }
        self.resolve_global_inits()?;
        if self.next_body != self.bodies.len() {
            return Err(self.malformed(format!(
                "{} functions are defined but only {} function blocks were found",
                self.bodies.len(),
                self.next_body
            )));
        }
        self.check_metadata()?;
        Ok(())
    }

    fn module_record(&mut self, code: u32) -> Result<()> {
        match code {
            codes::module::VERSION => {
                let v = self.op(0)?;
                if v > 1 {
                    return Err(
                        self.unsupported(format!("module version {v} (LLVM 3.7 writes 0 or 1)"))
                    );
                }
                self.m.version = v;
            }
            codes::module::TRIPLE => self.m.triple = known_or_owned(&self.ops, &[DXIL_TRIPLE]),
            codes::module::DATALAYOUT => {
                self.m.datalayout = known_or_owned(&self.ops, &DXIL_DATALAYOUTS)
            }
            codes::module::ASM => return Err(self.unsupported("module-level inline asm")),
            codes::module::SECTIONNAME => {
                let s = self.spares.string(&self.ops);
                self.m.section_names.push(s);
            }
            codes::module::DEPLIB => {} // Obsolete, ignored by LLVM too.
            codes::module::GLOBALVAR => self.global_var_record()?,
            codes::module::FUNCTION => self.function_record()?,
            codes::module::ALIAS_OLD | codes::module::ALIAS => {
                return Err(self.unsupported("aliases"));
            }
            codes::module::PURGEVALS => {} // Obsolete.
            codes::module::GCNAME => {
                let s = self.spares.string(&self.ops);
                self.m.gc_names.push(s);
            }
            codes::module::COMDAT => return Err(self.unsupported("comdats")),
            codes::module::VSTOFFSET => {} // 3.8+: positions only.
            _ => {} // Unknown records in known blocks are ignored, as LLVM does.
        }
        Ok(())
    }

    fn push_module_value(&mut self, v: Value, ty: TypeId) -> Result<()> {
        if self.values.len() as u32 >= MAX_VALUE_INDEX {
            return Err(self.err(ReadErrorKind::Limit, "too many module values"));
        }
        self.values.push(v);
        self.value_types.push(ty);
        Ok(())
    }

    fn pointer_type(&mut self, pointee: TypeId, address_space: u32) -> TypeId {
        if let Some(&(_, _, t)) = self
            .ptr_types
            .iter()
            .find(|(p, a, _)| *p == pointee && *a == address_space)
        {
            return t;
        }
        let t = self.m.types.push(TypeData::Pointer {
            pointee,
            address_space,
        });
        self.ptr_types.push((pointee, address_space, t));
        t
    }

    fn vector_type(&mut self, len: u32, elem: TypeId) -> TypeId {
        if let Some(&(_, _, t)) = self
            .vec_types
            .iter()
            .find(|(l, e, _)| *l == len && *e == elem)
        {
            return t;
        }
        let t = self.m.types.push(TypeData::Vector { len, elem });
        self.vec_types.push((len, elem, t));
        t
    }

    fn global_var_record(&mut self) -> Result<()> {
        if self.ops.len() < 6 {
            return Err(self.malformed("GLOBALVAR record needs at least 6 operands"));
        }
        let ty = self.op_type(0)?;
        let flags = self.op(1)?;
        let explicit = flags & 2 != 0;
        let (value_ty, address_space) = if explicit {
            let a = u32::try_from(flags >> 2)
                .map_err(|_| self.malformed("address space exceeds 32 bits"))?;
            (ty, a)
        } else {
            match self.m.types.data(ty) {
                TypeData::Pointer {
                    pointee,
                    address_space,
                } => (*pointee, *address_space),
                _ => return Err(self.malformed("global variable type is not a pointer")),
            }
        };
        let ptr_ty = self.pointer_type(value_ty, address_space);
        let init = self.op(2)?;
        let g = GlobalVar {
            name: String::new(),
            value_ty,
            ptr_ty,
            address_space,
            is_constant: flags & 1 != 0,
            init: None,
            linkage: self.op_u32(3)?,
            align: self.op_u32(4)?,
            section: self.op_u32(5)?,
            visibility: self.ops.get(6).map_or(0, |v| *v as u32),
            thread_local: self.ops.get(7).map_or(0, |v| *v as u32),
            unnamed_addr: self.ops.get(8).map_or(0, |v| *v as u32),
            externally_initialized: self.ops.get(9).is_some_and(|v| *v != 0),
            dll_storage: self.ops.get(10).map_or(0, |v| *v as u32),
            comdat: self.ops.get(11).map_or(0, |v| *v as u32),
            record_len: self.ops.len().min(255) as u8,
        };
        if g.align > 32 {
            return Err(self.malformed(format!("alignment field {} too large", g.align)));
        }
        let id = GlobalId(self.m.globals.len() as u32);
        if init != 0 {
            let n = u32::try_from(init - 1)
                .map_err(|_| self.malformed("initializer id exceeds 32 bits"))?;
            self.global_inits.push((id, n));
        }
        self.m.globals.push(g);
        self.push_module_value(Value::global(id), ptr_ty)
    }

    fn function_record(&mut self) -> Result<()> {
        if self.ops.len() < 8 {
            return Err(self.malformed("FUNCTION record needs at least 8 operands"));
        }
        let mut ty = self.op_type(0)?;
        if let TypeData::Pointer { pointee, .. } = self.m.types.data(ty) {
            ty = *pointee;
        }
        if !matches!(self.m.types.data(ty), TypeData::Function { .. }) {
            return Err(self.malformed("function record type is not a function type"));
        }
        let ptr_ty = self.pointer_type(ty, 0);
        let is_proto = self.op(2)? != 0;
        let attr = self.op(4)?;
        let attrs = if attr == 0 {
            None
        } else {
            let idx = attr - 1;
            if idx >= self.m.attr_lists.len() as u64 {
                return Err(self.malformed(format!("attribute list {attr} not defined")));
            }
            Some(AttrListId(idx as u32))
        };
        let get = |i: usize| self.ops.get(i).map_or(0, |v| *v as u32);
        let f = Function {
            name: String::new(),
            ty,
            ptr_ty,
            calling_conv: self.op_u32(1)?,
            linkage: self.op_u32(3)?,
            attrs,
            align: self.op_u32(5)?,
            section: self.op_u32(6)?,
            visibility: self.op_u32(7)?,
            gc: get(8),
            unnamed_addr: get(9),
            prologue_data: get(10),
            dll_storage: get(11),
            comdat: get(12),
            prefix_data: get(13),
            personality: get(14),
            body: None,
            is_proto,
        };
        if f.prologue_data != 0 || f.prefix_data != 0 || f.personality != 0 {
            return Err(self.unsupported("prologue, prefix data or personality functions"));
        }
        if self.m.functions.capacity() == 0 {
            // DXC modules declare one function per dx.op overload used, typically 5 to 30;
            // growing from 4 would copy these large records several times.
            self.m.functions.reserve(FUNCTIONS_RESERVED);
        }
        let id = FuncId(self.m.functions.len() as u32);
        self.m.functions.push(f);
        if !is_proto {
            self.bodies.push(id);
        }
        self.push_module_value(Value::function(id), ptr_ty)
    }

    // ---------------------------------------------------------------- attributes

    fn read_attr_groups(&mut self) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if code != codes::paramattr_group::ENTRY {
                        continue;
                    }
                    let id = self.op_u32(0)?;
                    let slot = self.op_u32(1)?;
                    // Each attribute takes at least two operands past the id and slot; string
                    // attributes take many, hence the cap.
                    let n = (self.ops.len().saturating_sub(2) / 2).min(8);
                    let mut attrs = self.spares.attrs(n);
                    let mut i = 2;
                    while i < self.ops.len() {
                        let kind = self.op(i)?;
                        i += 1;
                        match kind {
                            0 => {
                                attrs.push(Attribute::Enum(self.op_u32(i)?));
                                i += 1;
                            }
                            1 => {
                                attrs.push(Attribute::Int(self.op_u32(i)?, self.op(i + 1)?));
                                i += 2;
                            }
                            3 | 4 => {
                                let key = self.c_string(&mut i)?;
                                if kind == 4 {
                                    let val = self.c_string(&mut i)?;
                                    attrs.push(Attribute::StrValue(key, val));
                                } else {
                                    attrs.push(Attribute::Str(key));
                                }
                            }
                            k => {
                                return Err(self.malformed(format!("attribute encoding {k}")));
                            }
                        }
                    }
                    self.m.attr_groups.push(AttrGroup { id, slot, attrs });
                }
                Next::End => return Ok(()),
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
    }

    fn c_string(&mut self, i: &mut usize) -> Result<String> {
        let start = *i;
        while self.op(*i)? != 0 {
            *i += 1;
        }
        let s = self.spares.string(&self.ops[start..*i]);
        *i += 1;
        Ok(s)
    }

    fn read_attr_lists(&mut self) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => match code {
                    codes::paramattr::ENTRY => {
                        let mut list = self.spares.attr_list(self.ops.len());
                        for &g in &self.ops {
                            let g = u32::try_from(g)
                                .map_err(|_| self.malformed("group id exceeds 32 bits"))?;
                            if !self.m.attr_groups.iter().any(|x| x.id == g) {
                                return Err(
                                    self.malformed(format!("attribute group {g} not defined"))
                                );
                            }
                            list.push(g);
                        }
                        self.m.attr_lists.push(list);
                    }
                    codes::paramattr::ENTRY_OLD => {
                        return Err(self.unsupported("pre-3.3 attribute lists"));
                    }
                    _ => {}
                },
                Next::End => return Ok(()),
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
    }

    // ---------------------------------------------------------------- value symbol table

    fn read_module_vst(&mut self) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => {
                    let (n, name_at) = match code {
                        codes::value_symtab::ENTRY => (self.op(0)?, 1),
                        codes::value_symtab::FNENTRY => (self.op(0)?, 2),
                        _ => continue,
                    };
                    let name = self.spares.string(self.ops.get(name_at..).unwrap_or(&[]));
                    let v = u32::try_from(n)
                        .ok()
                        .and_then(|n| self.values.get(n as usize).copied())
                        .ok_or_else(|| self.malformed(format!("symbol for undefined value {n}")))?;
                    match v.get() {
                        ValueRef::Global(g) => {
                            if let Some(x) = self.m.globals.get_mut(g.index()) {
                                x.name = name;
                            }
                        }
                        ValueRef::Function(fi) => {
                            if let Some(x) = self.m.functions.get_mut(fi.index()) {
                                x.name = name;
                            }
                        }
                        _ => return Err(self.malformed("module symbol names a constant")),
                    }
                }
                Next::End => return Ok(()),
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_rotation_decodes_like_llvm() {
        assert_eq!(decode_signed(0), 0);
        assert_eq!(decode_signed(2), 1);
        assert_eq!(decode_signed(3), -1);
        assert_eq!(decode_signed(1), i64::MIN);
        assert_eq!(decode_signed(u64::MAX), -(i64::MAX));
    }

    #[test]
    fn empty_and_garbage_inputs_are_errors() {
        assert!(read_module(&[], 0).is_err());
        assert!(read_module(b"BC\xc0\xde", 0).is_err());
        assert!(read_module(b"BC\xc0\xde\xff\xff\xff\xff", 0).is_err());
    }
}
