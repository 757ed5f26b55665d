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

mod error;
mod names;

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use dxil_bitstream::{BitstreamReader, Entry, Step};

pub use error::{ReadError, ReadErrorKind, ReadLocation, Result};
pub use names::LlvmNames;

use crate::constants::{ConstData, Constant};
use crate::entity::{AttrListId, BlockId, FuncId, GlobalId, InstId, MdId, PoolRange, TypeId};
use crate::inst::{
    BinOp, CastOp, DebugLoc, InstData, InstKind, Ordering, Predicate, RmwOp, SyncScope,
};
use crate::metadata::{KNOWN_KINDS, MdData, MdKind, NamedMd};
use crate::module::{
    Attachment, AttrGroup, Attribute, BlockData, Body, DXIL_DATALAYOUTS, DXIL_TRIPLE, Function,
    GlobalVar, LocalName, Module,
};
use crate::types::{OtherFloatKind, TypeData};
use crate::value::{MAX_VALUE_INDEX, Value, ValueRef};

/// Block ids of LLVM 3.7.
pub mod block {
    pub const BLOCKINFO: u32 = 0;
    pub const MODULE: u32 = 8;
    pub const PARAMATTR: u32 = 9;
    pub const PARAMATTR_GROUP: u32 = 10;
    pub const CONSTANTS: u32 = 11;
    pub const FUNCTION: u32 = 12;
    pub const VALUE_SYMTAB: u32 = 14;
    pub const METADATA: u32 = 15;
    pub const METADATA_ATTACHMENT: u32 = 16;
    pub const TYPE_NEW: u32 = 17;
    pub const USELIST: u32 = 18;
}

/// Reads a module from LLVM 3.7 bitcode (starting with `BC 0xC0DE`). `base_offset` is the byte
/// offset of the bitcode in its enclosing file, so that error positions are absolute.
pub fn read_module(bitcode: &[u8], base_offset: u64) -> Result<Module> {
    let bs = BitstreamReader::new(bitcode, base_offset)?;
    let mut s = SCRATCH.try_with(Cell::take).unwrap_or_default();
    let mut r = Reader {
        bs,
        ops: std::mem::take(&mut s.ops),
        m: Module::default(),
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
        ..
    } = r;
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
            1 => {
                let v = self.op(0)?;
                if v > 1 {
                    return Err(
                        self.unsupported(format!("module version {v} (LLVM 3.7 writes 0 or 1)"))
                    );
                }
                self.m.version = v;
            }
            2 => self.m.triple = known_or_owned(&self.ops, &[DXIL_TRIPLE]),
            3 => self.m.datalayout = known_or_owned(&self.ops, &DXIL_DATALAYOUTS),
            4 => return Err(self.unsupported("module-level inline asm")),
            5 => {
                let s = chars_to_string(&self.ops);
                self.m.section_names.push(s);
            }
            6 => {} // DEPLIB: obsolete, ignored by LLVM too.
            7 => self.global_var_record()?,
            8 => self.function_record()?,
            9 | 14 => return Err(self.unsupported("aliases")),
            10 => {} // PURGEVALS: obsolete.
            11 => {
                let s = chars_to_string(&self.ops);
                self.m.gc_names.push(s);
            }
            12 => return Err(self.unsupported("comdats")),
            13 => {} // VSTOFFSET (3.8+): positions only.
            _ => {}  // Unknown records in known blocks are ignored, as LLVM does.
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
                    if code != 3 {
                        continue;
                    }
                    let id = self.op_u32(0)?;
                    let slot = self.op_u32(1)?;
                    let mut attrs = Vec::new();
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

    fn c_string(&self, i: &mut usize) -> Result<String> {
        let start = *i;
        while self.op(*i)? != 0 {
            *i += 1;
        }
        let s = chars_to_string(&self.ops[start..*i]);
        *i += 1;
        Ok(s)
    }

    fn read_attr_lists(&mut self) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => match code {
                    2 => {
                        let mut list = Vec::with_capacity(self.ops.len());
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
                    1 => return Err(self.unsupported("pre-3.3 attribute lists")),
                    _ => {}
                },
                Next::End => return Ok(()),
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
    }

    // ---------------------------------------------------------------- types

    /// Reads the type table; `words` is the block's length, which bounds how many entries it
    /// can hold (each record takes at least 10 bits).
    fn read_types(&mut self, words: u64) -> Result<()> {
        let mut declared: Option<u64> = None;
        loop {
            match self.step()? {
                Next::Record(code) => {
                    let had = declared.is_some();
                    self.type_record(code, &mut declared)?;
                    if let (false, Some(n)) = (had, declared) {
                        self.m.types.reserve(n.min(words * 32 / 10) as usize);
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        let n = self.m.types.len();
        if let Some(d) = declared
            && d != n as u64
        {
            return Err(self.malformed(format!("type table declares {d} entries but has {n}")));
        }
        // Forward references are allowed inside the table; every id must exist at the end.
        for (id, t) in self.m.types.iter() {
            let ok = |x: &TypeId| x.index() < n;
            let good = match t {
                TypeData::Pointer { pointee, .. } => ok(pointee),
                TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => ok(elem),
                TypeData::Struct { elems, .. } => elems.iter().all(ok),
                TypeData::Function { ret, params, .. } => ok(ret) && params.iter().all(ok),
                _ => true,
            };
            if !good {
                return Err(self.malformed(format!("type {id} refers to an undefined type")));
            }
        }
        Ok(())
    }

    fn forward_type(&self, v: u64) -> Result<TypeId> {
        // Element types may name entries defined later in the table (named structs).
        u32::try_from(v)
            .ok()
            .filter(|&x| (x as u64) < self.bits_total)
            .map(TypeId)
            .ok_or_else(|| self.malformed(format!("type id {v} out of range")))
    }

    /// The type ids from operand `from` on. Sized up front: collecting through `Result` would
    /// grow the vector step by step, and struct and function types are most of a DXIL table.
    fn forward_types(&self, from: usize) -> Result<Vec<TypeId>> {
        let ops = self.ops.get(from..).unwrap_or(&[]);
        let mut out = Vec::with_capacity(ops.len());
        for &p in ops {
            out.push(self.forward_type(p)?);
        }
        Ok(out)
    }

    fn type_record(&mut self, code: u32, declared: &mut Option<u64>) -> Result<()> {
        let data = match code {
            1 => {
                let n = self.op(0)?;
                if n > self.bits_total {
                    return Err(self.malformed(format!("type table size {n} is implausible")));
                }
                *declared = Some(n);
                return Ok(());
            }
            2 => TypeData::Void,
            3 => TypeData::Float,
            4 => TypeData::Double,
            5 => TypeData::Label,
            6 => {
                let name = self.struct_name.take();
                TypeData::Struct {
                    name,
                    packed: false,
                    opaque: true,
                    elems: Vec::new(),
                }
            }
            7 => {
                let w = self.op(0)?;
                if !(1..=(1 << 23)).contains(&w) {
                    return Err(self.malformed(format!("integer width {w}")));
                }
                TypeData::Int(w as u32)
            }
            8 => {
                let pointee = self.forward_type(self.op(0)?)?;
                let address_space = self.ops.get(1).map_or(Ok(0), |&a| {
                    u32::try_from(a).map_err(|_| self.malformed("address space exceeds 32 bits"))
                })?;
                let id = TypeId(self.m.types.len() as u32);
                if !self
                    .ptr_types
                    .iter()
                    .any(|(p, a, _)| *p == pointee && *a == address_space)
                {
                    self.ptr_types.push((pointee, address_space, id));
                }
                TypeData::Pointer {
                    pointee,
                    address_space,
                }
            }
            9 => {
                // FUNCTION_OLD: [vararg, attrid, retty, params...]
                let vararg = self.op(0)? != 0;
                let ret = self.forward_type(self.op(2)?)?;
                let params = self.forward_types(3)?;
                TypeData::Function {
                    vararg,
                    ret,
                    params,
                }
            }
            10 => TypeData::Half,
            11 => TypeData::Array {
                len: self.op(0)?,
                elem: self.forward_type(self.op(1)?)?,
            },
            12 => {
                let len = self.op_u32(0)?;
                if len == 0 {
                    return Err(self.malformed("vector of length 0"));
                }
                let elem = self.forward_type(self.op(1)?)?;
                let id = TypeId(self.m.types.len() as u32);
                if !self
                    .vec_types
                    .iter()
                    .any(|(l, e, _)| *l == len && *e == elem)
                {
                    self.vec_types.push((len, elem, id));
                }
                TypeData::Vector { len, elem }
            }
            13 => TypeData::OtherFloat(OtherFloatKind::X86Fp80),
            14 => TypeData::OtherFloat(OtherFloatKind::Fp128),
            15 => TypeData::OtherFloat(OtherFloatKind::PpcFp128),
            16 => TypeData::Metadata,
            17 => TypeData::OtherFloat(OtherFloatKind::X86Mmx),
            18 | 20 => {
                let packed = self.op(0)? != 0;
                let elems = self.forward_types(1)?;
                let name = if code == 20 {
                    Some(
                        self.struct_name
                            .take()
                            .ok_or_else(|| self.malformed("STRUCT_NAMED without a STRUCT_NAME"))?,
                    )
                } else {
                    None
                };
                TypeData::Struct {
                    name,
                    packed,
                    opaque: false,
                    elems,
                }
            }
            19 => {
                self.struct_name = Some(chars_to_string(&self.ops));
                return Ok(());
            }
            21 => {
                let vararg = self.op(0)? != 0;
                let ret = self.forward_type(self.op(1)?)?;
                let params = self.forward_types(2)?;
                TypeData::Function {
                    vararg,
                    ret,
                    params,
                }
            }
            _ => return Err(self.unsupported(format!("type record code {code}"))),
        };
        if let Some(d) = declared
            && self.m.types.len() as u64 >= *d
        {
            return Err(self.malformed(format!("more types than the {d} declared")));
        }
        self.m.types.push(data);
        Ok(())
    }

    // ---------------------------------------------------------------- constants

    /// Reads a CONSTANTS block. With `f`, constants are function-local values.
    fn read_constants(&mut self, mut f: Option<&mut FnState>) -> Result<()> {
        let first_item = self.m.constants.len();
        let first_value = self.m.constants.values.len();
        let mut cur_ty = match self.m.types.iter().find(|(_, d)| **d == TypeData::Int(32)) {
            Some((id, _)) => id,
            None => TypeId(u32::MAX),
        };
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if code == 1 {
                        cur_ty = self.op_type(0)?;
                        if self.m.types.is_void(cur_ty)
                            || matches!(self.m.types.data(cur_ty), TypeData::Function { .. })
                        {
                            return Err(self.malformed("constants of void or function type"));
                        }
                        continue;
                    }
                    if cur_ty.0 == u32::MAX {
                        return Err(self.malformed("constant before any SETTYPE"));
                    }
                    let data = self.constant_record(code, cur_ty, f.as_deref())?;
                    let id = self.m.constants.push(Constant { ty: cur_ty, data });
                    match f.as_deref_mut() {
                        Some(st) => Self::push_local(st, Value::constant(id), cur_ty, &*self)?,
                        None => self.push_module_value(Value::constant(id), cur_ty)?,
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        // Patch forward references inside this block's constants.
        let module_values = &self.values;
        let local_values = f.as_deref().map(|s| &s.values);
        let n_module = module_values.len();
        let lookup = |v: Value| -> Option<Value> {
            match v.get() {
                ValueRef::Unresolved(n) => {
                    let n = n as usize;
                    if n < n_module {
                        module_values.get(n).copied()
                    } else {
                        local_values.and_then(|l| l.get(n - n_module).copied())
                    }
                }
                _ => Some(v),
            }
            .filter(|v| is_constant_operand(*v))
        };
        let mut bad = None;
        {
            let (items, values) = self.m.constants.items_and_values_mut();
            let mut fix = |v: &mut Value| match lookup(*v) {
                Some(r) => *v = r,
                None => bad = Some(v.index()),
            };
            for v in values.iter_mut().skip(first_value) {
                fix(v);
            }
            for c in items.iter_mut().skip(first_item) {
                match &mut c.data {
                    ConstData::Cast { value, .. } => fix(value),
                    ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
                        fix(lhs);
                        fix(rhs);
                    }
                    ConstData::Select {
                        cond,
                        if_true,
                        if_false,
                    } => {
                        fix(cond);
                        fix(if_true);
                        fix(if_false);
                    }
                    ConstData::ExtractElement { vector, index } => {
                        fix(vector);
                        fix(index);
                    }
                    ConstData::InsertElement {
                        vector,
                        element,
                        index,
                    } => {
                        fix(vector);
                        fix(element);
                        fix(index);
                    }
                    ConstData::ShuffleVector { v1, v2, mask } => {
                        fix(v1);
                        fix(v2);
                        fix(mask);
                    }
                    _ => {}
                }
            }
        }
        if let Some(n) = bad {
            return Err(self.malformed(format!("constant refers to undefined value {n}")));
        }
        Ok(())
    }

    /// An absolute value number used inside a constant: resolved if already defined.
    fn abs_value(&self, n: u64, f: Option<&FnState>) -> Result<Value> {
        let n = u32::try_from(n)
            .ok()
            .filter(|&n| n <= MAX_VALUE_INDEX)
            .ok_or_else(|| self.malformed(format!("value id {n} out of range")))?;
        match self.lookup_value(n, f) {
            Some(v) if is_constant_operand(v) => Ok(v),
            Some(_) => Err(self.malformed(format!(
                "constant refers to value {n}, which is an argument or instruction"
            ))),
            None => Ok(Value::unresolved(n)),
        }
    }

    #[inline]
    fn lookup_value(&self, n: u32, f: Option<&FnState>) -> Option<Value> {
        let m = self.values.len();
        let n = n as usize;
        if n < m {
            self.values.get(n).copied()
        } else {
            f.and_then(|s| s.values.get(n - m).copied())
        }
    }

    #[inline]
    fn lookup_type(&self, n: u32, f: Option<&FnState>) -> Option<TypeId> {
        let m = self.value_types.len();
        let n = n as usize;
        if n < m {
            self.value_types.get(n).copied()
        } else {
            f.and_then(|s| s.types.get(n - m).copied())
        }
    }

    fn constant_record(&mut self, code: u32, ty: TypeId, f: Option<&FnState>) -> Result<ConstData> {
        let is_float = |r: &Self, t: TypeId| r.m.types.is_float(r.m.types.scalar_of(t));
        Ok(match code {
            2 => ConstData::Null,
            3 => ConstData::Undef,
            4 => {
                if self.m.types.int_width(ty).is_none() {
                    return Err(self.malformed("INTEGER constant of non-integer type"));
                }
                ConstData::Int(decode_signed(self.op(0)?))
            }
            5 => {
                if self.ops.is_empty() {
                    return Err(self.malformed("empty WIDE_INTEGER"));
                }
                let words: Vec<u64> = self.ops.iter().map(|&w| decode_signed(w) as u64).collect();
                ConstData::WideInt(PoolRange::push(&mut self.m.constants.words, &words))
            }
            6 => ConstData::Float(self.op(0)?),
            7 => {
                let start = self.m.constants.values.len() as u32;
                for i in 0..self.ops.len() {
                    let v = self.abs_value(self.ops[i], f)?;
                    self.m.constants.values.push(v);
                }
                ConstData::Aggregate(PoolRange {
                    start,
                    len: self.ops.len() as u32,
                })
            }
            8 | 9 => {
                let bytes: Vec<u8> = self.ops.iter().map(|&c| c as u8).collect();
                let r = PoolRange::push(&mut self.m.constants.bytes, &bytes);
                if code == 8 {
                    ConstData::String(r)
                } else {
                    ConstData::CString(r)
                }
            }
            10 => {
                let lhs = self.abs_value(self.op(1)?, f)?;
                let rhs = self.abs_value(self.op(2)?, f)?;
                let float = is_float(self, ty);
                let op = BinOp::from_code(self.op(0)?, float)
                    .ok_or_else(|| self.malformed("invalid constant binop"))?;
                ConstData::Binary {
                    op,
                    flags: self.ops.get(3).map_or(0, |v| *v as u8),
                    lhs,
                    rhs,
                }
            }
            11 => {
                let op = CastOp::from_code(self.op(0)?)
                    .ok_or_else(|| self.malformed("invalid constant cast"))?;
                self.op_type(1)?;
                ConstData::Cast {
                    op,
                    value: self.abs_value(self.op(2)?, f)?,
                }
            }
            12 | 20 => {
                let (source_ty, first) = if self.ops.len() % 2 == 1 {
                    (Some(self.op_type(0)?), 1)
                } else {
                    (None, 0)
                };
                let start = self.m.constants.values.len() as u32;
                let mut i = first;
                while i + 1 < self.ops.len() {
                    self.op_type(i)?;
                    let v = self.abs_value(self.ops[i + 1], f)?;
                    self.m.constants.values.push(v);
                    i += 2;
                }
                ConstData::Gep {
                    inbounds: code == 20,
                    source_ty,
                    operands: PoolRange {
                        start,
                        len: (self.m.constants.values.len() as u32) - start,
                    },
                }
            }
            13 => ConstData::Select {
                cond: self.abs_value(self.op(0)?, f)?,
                if_true: self.abs_value(self.op(1)?, f)?,
                if_false: self.abs_value(self.op(2)?, f)?,
            },
            14 => {
                self.op_type(0)?;
                let idx_at = if self.ops.len() >= 4 { 3 } else { 2 };
                ConstData::ExtractElement {
                    vector: self.abs_value(self.op(1)?, f)?,
                    index: self.abs_value(self.op(idx_at)?, f)?,
                }
            }
            15 => {
                let idx_at = if self.ops.len() >= 4 { 3 } else { 2 };
                ConstData::InsertElement {
                    vector: self.abs_value(self.op(0)?, f)?,
                    element: self.abs_value(self.op(1)?, f)?,
                    index: self.abs_value(self.op(idx_at)?, f)?,
                }
            }
            16 => ConstData::ShuffleVector {
                v1: self.abs_value(self.op(0)?, f)?,
                v2: self.abs_value(self.op(1)?, f)?,
                mask: self.abs_value(self.op(2)?, f)?,
            },
            19 => {
                self.op_type(0)?;
                ConstData::ShuffleVector {
                    v1: self.abs_value(self.op(1)?, f)?,
                    v2: self.abs_value(self.op(2)?, f)?,
                    mask: self.abs_value(self.op(3)?, f)?,
                }
            }
            17 => {
                self.op_type(0)?;
                let pred = Predicate::from_code(self.op(3)?)
                    .ok_or_else(|| self.malformed("invalid comparison predicate"))?;
                ConstData::Cmp {
                    pred,
                    lhs: self.abs_value(self.op(1)?, f)?,
                    rhs: self.abs_value(self.op(2)?, f)?,
                }
            }
            21 => {
                self.op_type(0)?;
                let fv = self.abs_value(self.op(1)?, f)?;
                let function = fv
                    .as_function()
                    .ok_or_else(|| self.malformed("blockaddress of a non-function"))?;
                ConstData::BlockAddress {
                    function,
                    block: BlockId(self.op_u32(2)?),
                }
            }
            22 => {
                let elem = match self.m.types.data(ty) {
                    TypeData::Array { len, elem } if *len == self.ops.len() as u64 => *elem,
                    TypeData::Vector { len, elem } if *len as usize == self.ops.len() => *elem,
                    _ => {
                        return Err(
                            self.malformed("DATA constant does not match its array/vector type")
                        );
                    }
                };
                if self.m.types.scalar_bits(elem) == 0 {
                    return Err(self.malformed("DATA constant of non-scalar elements"));
                }
                ConstData::Data(PoolRange::push(&mut self.m.constants.words, &self.ops))
            }
            18 | 23 => return Err(self.unsupported("inline assembly")),
            _ => return Err(self.unsupported(format!("constant record code {code}"))),
        })
    }

    fn resolve_global_inits(&mut self) -> Result<()> {
        let pending = std::mem::take(&mut self.global_inits);
        let mut left = Vec::new();
        for (g, n) in pending {
            match self.values.get(n as usize) {
                Some(v) => {
                    if let Some(gv) = self.m.globals.get_mut(g.index()) {
                        gv.init = Some(*v);
                    }
                }
                None => left.push((g, n)),
            }
        }
        self.global_inits = left;
        Ok(())
    }

    // ---------------------------------------------------------------- metadata

    fn md_ref(&self, n: u64, f: Option<&FnState>) -> Result<MdId> {
        let n = usize::try_from(n).map_err(|_| self.malformed("metadata id too large"))?;
        if let Some(st) = f
            && n >= self.md_module_count
        {
            return st
                .local_md
                .get(n - self.md_module_count)
                .copied()
                .ok_or_else(|| self.malformed(format!("function metadata id {n} not defined")));
        }
        if f.is_some() && n >= self.md_module_count {
            return Err(self.malformed(format!("metadata id {n} not defined")));
        }
        if n > MAX_VALUE_INDEX as usize || n as u64 > self.bits_total {
            return Err(self.malformed(format!("metadata id {n} out of range")));
        }
        Ok(MdId(n as u32))
    }

    fn read_metadata(&mut self, mut f: Option<&mut FnState>) -> Result<()> {
        let mut pending_name: Option<Cow<'static, str>> = None;
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if pending_name.is_some() && code != 10 {
                        return Err(self.malformed("METADATA_NAME not followed by NAMED_NODE"));
                    }
                    match code {
                        1 => {
                            let start = self.m.metadata.bytes.len() as u32;
                            self.m
                                .metadata
                                .bytes
                                .extend(self.ops.iter().map(|&c| c as u8));
                            let id = self.m.metadata.push(MdData::String(PoolRange {
                                start,
                                len: self.ops.len() as u32,
                            }));
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                        2 => {
                            let ty = self.op_type(0)?;
                            let n = self.op(1)?;
                            let n32 = u32::try_from(n)
                                .map_err(|_| self.malformed("value id exceeds 32 bits"))?;
                            let value = self
                                .lookup_value(n32, f.as_deref())
                                .ok_or_else(|| self.malformed(format!("value {n} not defined")))?;
                            let id = self.m.metadata.push(MdData::Value { ty, value });
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                        3 | 5 => {
                            // Operands are stored as read (0 = null, else id + 1) once every
                            // id is known to be in range, as `md_ref` would check it.
                            let limit = u64::from(MAX_VALUE_INDEX).min(self.bits_total);
                            if let Some(&o) = self.ops.iter().find(|&&o| o != 0 && o - 1 > limit) {
                                return Err(
                                    self.malformed(format!("metadata id {} out of range", o - 1))
                                );
                            }
                            let start = self.m.metadata.operands.len() as u32;
                            self.m
                                .metadata
                                .operands
                                .extend(self.ops.iter().map(|&o| o as u32));
                            let id = self.m.metadata.push(MdData::Node {
                                distinct: code == 5,
                                operands: PoolRange {
                                    start,
                                    len: self.ops.len() as u32,
                                },
                            });
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                        4 => pending_name = Some(self.named_md_name()),
                        10 => {
                            let name = pending_name
                                .take()
                                .ok_or_else(|| self.malformed("NAMED_NODE without a NAME"))?;
                            let operands = self
                                .ops
                                .iter()
                                .map(|&o| self.md_ref(o, None))
                                .collect::<Result<Vec<_>>>()?;
                            self.m.metadata.named.push(NamedMd { name, operands });
                        }
                        6 => {
                            let id = self.op_u32(0)?;
                            if self.m.metadata.kinds.capacity() == 0 {
                                // Every DXC module registers the known kinds and a few more.
                                self.m.metadata.kinds.reserve(KNOWN_KINDS.len() + 8);
                            }
                            let mut buf = [0u8; 64];
                            let chars = &self.ops[1..];
                            let kind = if chars.len() <= buf.len() {
                                for (b, c) in buf.iter_mut().zip(chars) {
                                    *b = *c as u8;
                                }
                                MdKind::new(id, &buf[..chars.len()])
                            } else {
                                let bytes: Vec<u8> = chars.iter().map(|&c| c as u8).collect();
                                MdKind::new(id, &bytes)
                            };
                            self.m.metadata.kinds.push(kind);
                        }
                        8 | 9 => return Err(self.unsupported("pre-3.6 metadata nodes")),
                        _ => {
                            let start = self.m.metadata.raw.len() as u32;
                            self.m.metadata.raw.extend_from_slice(&self.ops);
                            let id = self.m.metadata.push(MdData::Other {
                                code,
                                operands: PoolRange {
                                    start,
                                    len: self.ops.len() as u32,
                                },
                            });
                            self.note_local_md(f.as_deref_mut(), id);
                        }
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        if pending_name.is_some() {
            return Err(self.malformed("METADATA_NAME at the end of the block"));
        }
        Ok(())
    }

    /// A module-level METADATA block. DXC writes the same block of kind records into every
    /// module: one identical to the last such block on this thread takes its kinds instead of
    /// decoding them again (see [`KindsMemo`]).
    fn read_module_metadata(&mut self) -> Result<()> {
        let bytes = self.bs.pending_block_bytes().unwrap_or(&[]);
        let width = self.block_width;
        // Abbreviations registered by BLOCKINFO would take part in the decoding: no memo then.
        let memo_ok = self.m.metadata.kinds.is_empty()
            && self.bs.blockinfo_abbrev(block::METADATA, 4).is_none();
        if memo_ok {
            let known = KINDS_MEMO
                .try_with(|m| {
                    let mut m = m.borrow_mut();
                    let i = m
                        .iter()
                        .position(|m| m.width == width && m.bytes == bytes)?;
                    // Most recently used first.
                    m.get_mut(..=i)?.rotate_right(1);
                    m.first().map(|m| m.kinds.clone())
                })
                .ok()
                .flatten();
            if let Some(kinds) = known {
                self.m.metadata.kinds = kinds;
                return Ok(self.bs.skip_block()?);
            }
        }
        // Sized from the block length: bounded by the input, and it saves the repeated growth
        // that dominated reading small modules.
        let words = self.block_words as usize;
        let md = &mut self.m.metadata;
        let before = (md.items.len(), md.named.len());
        md.items.reserve(words / 3);
        md.operands.reserve(words);
        md.bytes.reserve(words * 2);
        self.bs.enter_block()?;
        self.read_metadata(None)?;
        self.md_module_count = self.m.metadata.items.len();
        let md = &self.m.metadata;
        if memo_ok
            && (md.items.len(), md.named.len()) == before
            && !md.kinds.is_empty()
            && bytes.len() <= KindsMemo::MAX_BYTES
        {
            let memo = KindsMemo {
                width,
                bytes: bytes.to_vec(),
                kinds: md.kinds.clone(),
            };
            let _ = KINDS_MEMO.try_with(|m| {
                let mut m = m.borrow_mut();
                m.truncate(KindsMemo::ENTRIES - 1);
                m.insert(0, memo);
            });
        }
        Ok(())
    }

    /// The name of a METADATA_NAME record: the known names of DXC modules without allocating.
    fn named_md_name(&self) -> Cow<'static, str> {
        let mut buf = [0u8; 32];
        if self.ops.len() <= buf.len() {
            for (b, c) in buf.iter_mut().zip(&self.ops) {
                *b = *c as u8;
            }
            NamedMd::name_from_bytes(&buf[..self.ops.len()])
        } else {
            Cow::Owned(chars_to_string(&self.ops))
        }
    }

    fn note_local_md(&self, f: Option<&mut FnState>, id: MdId) {
        if let Some(st) = f {
            st.local_md.push(id);
        }
    }

    fn check_metadata(&self) -> Result<()> {
        let n = self.m.metadata.items.len() as u32;
        if self.m.metadata.operands.iter().any(|&o| o > n)
            || self
                .m
                .metadata
                .named
                .iter()
                .any(|nm| nm.operands.iter().any(|o| o.0 >= n))
        {
            return Err(self.malformed("metadata node refers to an undefined metadata id"));
        }
        Ok(())
    }

    // ---------------------------------------------------------------- value symbol table

    fn read_module_vst(&mut self) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => {
                    let (n, name_at) = match code {
                        1 => (self.op(0)?, 1),
                        3 => (self.op(0)?, 2),
                        _ => continue,
                    };
                    let name = chars_to_string(self.ops.get(name_at..).unwrap_or(&[]));
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

    // ---------------------------------------------------------------- functions

    fn push_local(st: &mut FnState, v: Value, ty: TypeId, r: &Reader<'_>) -> Result<()> {
        if (r.values.len() + st.values.len()) as u32 >= MAX_VALUE_INDEX {
            return Err(r.err(ReadErrorKind::Limit, "too many values in one function"));
        }
        st.values.push(v);
        st.types.push(ty);
        Ok(())
    }

    fn read_function(&mut self) -> Result<()> {
        let Some(&func) = self.bodies.get(self.next_body) else {
            return Err(self.malformed("function block without a matching function definition"));
        };
        self.next_body += 1;
        self.read_function_inner(func).map_err(|e| {
            let name = self.m.functions.get(func.index()).map_or("", |f| &f.name);
            e.with_function(func.0, name)
        })
    }

    fn read_function_inner(&mut self, func: FuncId) -> Result<()> {
        let mut st = FnState {
            values: std::mem::take(&mut self.fn_values),
            types: std::mem::take(&mut self.fn_types),
            body: Body::default(),
            cur_block: 0,
            declared_blocks: 0,
            unresolved: false,
            local_md: std::mem::take(&mut self.local_md),
            last_loc: None,
        };
        st.values.clear();
        st.types.clear();
        st.local_md.clear();
        let r = self.read_function_body(func, &mut st);
        // The buffers go back for the next function, whatever happened.
        self.fn_values = std::mem::take(&mut st.values);
        self.fn_types = std::mem::take(&mut st.types);
        self.local_md = std::mem::take(&mut st.local_md);
        r
    }

    fn read_function_body(&mut self, func: FuncId, st: &mut FnState) -> Result<()> {
        let fty = self.m.functions[func.index()].ty;
        let params = match self.m.types.function_signature(fty) {
            Some((_, p, _)) => p,
            None => return Err(self.malformed("function without a function type")),
        };
        st.values.reserve(params.len() + 64);
        st.types.reserve(params.len() + 64);
        for (i, &p) in params.iter().enumerate() {
            Self::push_local(st, Value::arg(i as u32), p, self)?;
        }
        loop {
            match self.step()? {
                Next::Block(block_id) => match block_id {
                    block::CONSTANTS => {
                        self.bs.enter_block()?;
                        self.read_constants(Some(st))?;
                    }
                    block::METADATA => {
                        self.bs.enter_block()?;
                        self.read_metadata(Some(st))?;
                    }
                    block::METADATA_ATTACHMENT => {
                        self.bs.enter_block()?;
                        self.read_attachments(st)?;
                    }
                    block::VALUE_SYMTAB => {
                        self.bs.enter_block()?;
                        self.read_function_vst(st)?;
                    }
                    block::USELIST => self.bs.skip_block()?,
                    other => {
                        return Err(self.unsupported(format!("block id {other} inside a function")));
                    }
                },
                Next::Record(code) => {
                    let n = st.body.insts.len() as u32;
                    self.function_record_dispatch(code, st)
                        .map_err(|e| e.with_instruction(n))?;
                }
                Next::Abbrev => {}
                Next::End => break,
                _ => {
                    return Err(self.err(ReadErrorKind::Truncated, "function block not terminated"));
                }
            }
        }
        if st.declared_blocks == 0 {
            return Err(self.malformed("function body without DECLAREBLOCKS"));
        }
        if st.cur_block != st.declared_blocks {
            return Err(self.malformed(format!(
                "function declares {} blocks but {} end with a terminator",
                st.declared_blocks, st.cur_block
            )));
        }
        self.finish_function(st)?;
        let body = std::mem::take(&mut st.body);
        self.m.functions[func.index()].body = Some(body);
        Ok(())
    }

    fn finish_function(&self, st: &mut FnState) -> Result<()> {
        let nblocks = st.body.blocks.len() as u32;
        if st.unresolved {
            let n_module = self.values.len();
            let locals = &st.values;
            let mut bad = None;
            let body = &mut st.body;
            for (i, inst) in body.insts.iter_mut().enumerate() {
                inst.kind
                    .map_values(&mut body.pool, &mut |v| match v.get() {
                        ValueRef::Unresolved(n) => {
                            let n = n as usize;
                            let r = if n < n_module {
                                None
                            } else {
                                locals.get(n - n_module).copied()
                            };
                            r.unwrap_or_else(|| {
                                bad = Some((i, n));
                                v
                            })
                        }
                        _ => v,
                    });
            }
            if let Some((i, n)) = bad {
                return Err(self
                    .malformed(format!("operand refers to undefined value {n}"))
                    .with_instruction(i as u32));
            }
        }
        for (i, inst) in st.body.insts.iter().enumerate() {
            let mut bad = false;
            inst.kind
                .for_each_block(&st.body.pool, |b| bad |= b.0 >= nblocks);
            if bad {
                return Err(self
                    .malformed("branch or phi names a block that does not exist")
                    .with_instruction(i as u32));
            }
        }
        Ok(())
    }

    fn read_attachments(&mut self, st: &mut FnState) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if code != 11 {
                        continue;
                    }
                    if self.ops.len() % 2 == 1 {
                        let inst = self.op_u32(0)?;
                        if inst as usize >= st.body.insts.len() {
                            return Err(self.malformed(format!(
                                "attachment on instruction {inst} which does not exist"
                            )));
                        }
                        let mut i = 1;
                        while i + 1 < self.ops.len() {
                            let kind = self.op_u32(i)?;
                            let node = self.md_ref(self.ops[i + 1], Some(st))?;
                            st.body.attachments.push(Attachment {
                                inst: InstId(inst),
                                kind,
                                node,
                            });
                            i += 2;
                        }
                    } else {
                        let mut i = 0;
                        while i + 1 < self.ops.len() {
                            let kind = self.op_u32(i)?;
                            let node = self.md_ref(self.ops[i + 1], Some(st))?;
                            st.body.fn_attachments.push((kind, node));
                            i += 2;
                        }
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        st.body.attachments.sort_by_key(|a| a.inst);
        Ok(())
    }

    fn read_function_vst(&mut self, st: &mut FnState) -> Result<()> {
        loop {
            match self.step()? {
                Next::Record(code) => match code {
                    1 => {
                        let n = self.op(0)?;
                        let name = chars_to_string(&self.ops[1..]);
                        let v = u32::try_from(n)
                            .ok()
                            .and_then(|n| self.lookup_value(n, Some(st)))
                            .ok_or_else(|| {
                                self.malformed(format!("symbol for undefined value {n}"))
                            })?;
                        match v.get() {
                            ValueRef::Arg(a) => st.body.names.push(LocalName::Arg(a, name)),
                            ValueRef::Inst(i) => st.body.names.push(LocalName::Inst(i, name)),
                            _ => {
                                return Err(
                                    self.malformed("function symbol names a non-local value")
                                );
                            }
                        }
                    }
                    2 => {
                        let b = self.op_u32(0)?;
                        if b as usize >= st.body.blocks.len() {
                            return Err(self.malformed(format!("name for missing block {b}")));
                        }
                        let name = chars_to_string(&self.ops[1..]);
                        st.body.names.push(LocalName::Block(BlockId(b), name));
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

    // ---------------------------------------------------------------- instructions

    #[inline]
    fn next_value_number(&self, st: &FnState) -> u32 {
        (self.values.len() + st.values.len()) as u32
    }

    /// A relative operand with its type appended when it is a forward reference.
    fn value_type_pair(&self, st: &mut FnState, slot: &mut usize) -> Result<(Value, TypeId)> {
        let rel = self.op(*slot)? as u32;
        *slot += 1;
        let next = self.next_value_number(st);
        let n = next.wrapping_sub(rel);
        if n < next {
            let v = self
                .lookup_value(n, Some(st))
                .ok_or_else(|| self.malformed("operand refers to an undefined value"))?;
            let t = self
                .lookup_type(n, Some(st))
                .ok_or_else(|| self.malformed("operand refers to an undefined value"))?;
            Ok((v, t))
        } else {
            if n > MAX_VALUE_INDEX {
                return Err(self.malformed(format!("value id {n} out of range")));
            }
            let t = self.op_type(*slot)?;
            *slot += 1;
            st.unresolved = true;
            Ok((Value::unresolved(n), t))
        }
    }

    /// A relative operand whose type comes from context.
    #[inline]
    fn value_plain(&self, st: &mut FnState, slot: &mut usize) -> Result<Value> {
        let rel = self.op(*slot)? as u32;
        *slot += 1;
        let next = self.next_value_number(st);
        let n = next.wrapping_sub(rel);
        self.resolve_number(st, n)
    }

    #[inline]
    fn resolve_number(&self, st: &mut FnState, n: u32) -> Result<Value> {
        if n > MAX_VALUE_INDEX {
            return Err(self.malformed(format!("value id {n} out of range")));
        }
        match self.lookup_value(n, Some(st)) {
            Some(v) => Ok(v),
            None => {
                st.unresolved = true;
                Ok(Value::unresolved(n))
            }
        }
    }

    fn block_id(&self, st: &FnState, v: u64) -> Result<BlockId> {
        if v < st.declared_blocks as u64 {
            Ok(BlockId(v as u32))
        } else {
            Err(self.malformed(format!(
                "block {v} out of range ({} blocks)",
                st.declared_blocks
            )))
        }
    }

    fn function_record_dispatch(&mut self, code: u32, st: &mut FnState) -> Result<()> {
        match code {
            1 => {
                let n = self.op(0)?;
                if n == 0 || n > self.bits_total / 4 {
                    return Err(self.malformed(format!("implausible block count {n}")));
                }
                if st.declared_blocks != 0 {
                    return Err(self.malformed("DECLAREBLOCKS twice"));
                }
                st.declared_blocks = n as usize;
                st.body.blocks.reserve(n as usize);
                // Roughly one instruction per 1.5 words of function block.
                let words = self.fn_words as usize;
                st.body.insts.reserve(words * 2 / 3);
                st.body.pool.reserve(words);
                st.values.reserve(words / 2);
                st.types.reserve(words / 2);
                st.body.blocks.push(BlockData { start: 0, end: 0 });
                Ok(())
            }
            33 => {
                let last = st.body.insts.len();
                match (st.last_loc, last) {
                    (Some(loc), n) if n > 0 => {
                        st.body.debug_locs.push((InstId(n as u32 - 1), loc));
                        Ok(())
                    }
                    _ => Err(self.malformed("DEBUG_LOC_AGAIN without a previous location")),
                }
            }
            35 => {
                let loc = DebugLoc {
                    line: self.op(0)?,
                    col: self.op(1)?,
                    scope: self.op(2)?,
                    inlined_at: self.op(3)?,
                };
                let n = st.body.insts.len();
                if n == 0 {
                    return Err(self.malformed("DEBUG_LOC before any instruction"));
                }
                st.last_loc = Some(loc);
                st.body.debug_locs.push((InstId(n as u32 - 1), loc));
                Ok(())
            }
            _ => {
                if st.declared_blocks == 0 {
                    return Err(self.malformed("instruction before DECLAREBLOCKS"));
                }
                if st.cur_block >= st.declared_blocks {
                    return Err(self.malformed("instruction after the last block's terminator"));
                }
                let (kind, ty) = self.instruction(code, st)?;
                let terminator = kind.is_terminator();
                let idx = InstId(st.body.insts.len() as u32);
                if idx.0 >= MAX_VALUE_INDEX {
                    return Err(self.err(ReadErrorKind::Limit, "too many instructions"));
                }
                st.body.insts.push(InstData { kind, ty });
                if !self.m.types.is_void(ty) {
                    Self::push_local(st, Value::inst(idx), ty, self)?;
                }
                if terminator {
                    let end = st.body.insts.len() as u32;
                    if let Some(b) = st.body.blocks.last_mut() {
                        b.end = end;
                    }
                    st.cur_block += 1;
                    if st.cur_block < st.declared_blocks {
                        st.body.blocks.push(BlockData { start: end, end });
                    }
                }
                Ok(())
            }
        }
    }

    fn align_field(&self, v: u64) -> Result<u8> {
        if v > 32 {
            return Err(self.malformed(format!("alignment field {v} too large")));
        }
        Ok(v as u8)
    }

    fn ordering(&self, v: u64) -> Result<Ordering> {
        if v > 6 {
            return Err(self.malformed(format!("atomic ordering {v}")));
        }
        Ok(Ordering(v as u8))
    }

    fn scope(&self, v: u64) -> Result<SyncScope> {
        if v > 1 {
            return Err(self.malformed(format!("synchronization scope {v}")));
        }
        Ok(SyncScope(v as u8))
    }

    /// The type reached by a GEP's indices from `source` (all indices but the first step in).
    fn gep_result(
        &mut self,
        source: TypeId,
        base_ty: TypeId,
        ops: Option<&[u32]>,
    ) -> Result<TypeId> {
        let address_space = match self.m.types.data(base_ty) {
            TypeData::Pointer { address_space, .. } => *address_space,
            TypeData::Vector { .. } => return Err(self.unsupported("vector getelementptr")),
            _ => return Err(self.malformed("getelementptr base is not a pointer")),
        };
        let mut t = source;
        for &v in ops.unwrap_or_default().iter().skip(2) {
            let v = Value(v);
            t = match self.m.types.data(t) {
                TypeData::Struct { elems, .. } => {
                    let idx = v
                        .as_const()
                        .and_then(|c| self.m.constants.as_int(c))
                        .ok_or_else(|| self.malformed("struct index is not a constant integer"))?;
                    *usize::try_from(idx)
                        .ok()
                        .and_then(|i| elems.get(i))
                        .ok_or_else(|| self.malformed("struct index out of range"))?
                }
                TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => *elem,
                _ => return Err(self.malformed("getelementptr indexes into a scalar")),
            };
        }
        Ok(self.pointer_type(t, address_space))
    }

    fn i1_like(&mut self, operand_ty: TypeId) -> Result<TypeId> {
        let i1 = self.i1_type();
        Ok(match self.m.types.data(operand_ty) {
            TypeData::Vector { len, .. } => {
                let len = *len;
                self.vector_type(len, i1)
            }
            _ => i1,
        })
    }

    fn instruction(&mut self, code: u32, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let void = self.void_type();
        let mut s = 0usize;
        Ok(match code {
            2 => {
                let (lhs, ty) = self.value_type_pair(st, &mut s)?;
                let rhs = self.value_plain(st, &mut s)?;
                let float = self.m.types.is_float(self.m.types.scalar_of(ty));
                let op = BinOp::from_code(self.op(s)?, float)
                    .ok_or_else(|| self.malformed("invalid binary operator"))?;
                let flags = self.ops.get(s + 1).map_or(0, |v| *v as u8);
                (
                    InstKind::Binary {
                        op,
                        lhs,
                        rhs,
                        flags,
                    },
                    ty,
                )
            }
            3 => {
                let (value, _) = self.value_type_pair(st, &mut s)?;
                let to = self.op_type(s)?;
                let op = CastOp::from_code(self.op(s + 1)?)
                    .ok_or_else(|| self.malformed("invalid cast operator"))?;
                (InstKind::Cast { op, value }, to)
            }
            4 | 30 | 43 => {
                let (inbounds, explicit) = match code {
                    43 => {
                        let ib = self.op(0)? != 0;
                        let t = self.op_type(1)?;
                        s = 2;
                        (ib, Some(t))
                    }
                    30 => (true, None),
                    _ => (false, None),
                };
                let start = st.body.pool.len();
                let mut base_ty = None;
                while s < self.ops.len() {
                    let (v, t) = self.value_type_pair(st, &mut s)?;
                    if base_ty.is_none() {
                        base_ty = Some(t);
                    }
                    st.body.pool.push(v.0);
                }
                let base_ty =
                    base_ty.ok_or_else(|| self.malformed("getelementptr without a base"))?;
                let source_ty = match explicit {
                    Some(t) => t,
                    None => self
                        .m
                        .types
                        .pointee(base_ty)
                        .ok_or_else(|| self.malformed("getelementptr base is not a pointer"))?,
                };
                let ty = self.gep_result(source_ty, base_ty, st.body.pool.get(start..))?;
                let operands = PoolRange {
                    start: start as u32,
                    len: (st.body.pool.len() - start) as u32,
                };
                (
                    InstKind::Gep {
                        inbounds,
                        source_ty,
                        operands,
                    },
                    ty,
                )
            }
            5 => {
                let (if_true, ty) = self.value_type_pair(st, &mut s)?;
                let if_false = self.value_plain(st, &mut s)?;
                let cond = self.value_plain(st, &mut s)?;
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                )
            }
            29 => {
                let (if_true, ty) = self.value_type_pair(st, &mut s)?;
                let if_false = self.value_plain(st, &mut s)?;
                let (cond, _) = self.value_type_pair(st, &mut s)?;
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                )
            }
            6 => {
                let (vector, vty) = self.value_type_pair(st, &mut s)?;
                let (index, _) = self.value_type_pair(st, &mut s)?;
                let ty = match self.m.types.data(vty) {
                    TypeData::Vector { elem, .. } => *elem,
                    _ => return Err(self.malformed("extractelement of a non-vector")),
                };
                (InstKind::ExtractElement { vector, index }, ty)
            }
            7 => {
                let (vector, vty) = self.value_type_pair(st, &mut s)?;
                let element = self.value_plain(st, &mut s)?;
                let (index, _) = self.value_type_pair(st, &mut s)?;
                (
                    InstKind::InsertElement {
                        vector,
                        element,
                        index,
                    },
                    vty,
                )
            }
            8 => {
                let (v1, vty) = self.value_type_pair(st, &mut s)?;
                let v2 = self.value_plain(st, &mut s)?;
                let (mask, mty) = self.value_type_pair(st, &mut s)?;
                let (elem, len) = match (self.m.types.data(vty), self.m.types.data(mty)) {
                    (TypeData::Vector { elem, .. }, TypeData::Vector { len, .. }) => (*elem, *len),
                    _ => return Err(self.malformed("shufflevector of non-vectors")),
                };
                let ty = self.vector_type(len, elem);
                (InstKind::ShuffleVector { v1, v2, mask }, ty)
            }
            9 | 28 => {
                let (lhs, ty) = self.value_type_pair(st, &mut s)?;
                let rhs = self.value_plain(st, &mut s)?;
                let pred = Predicate::from_code(self.op(s)?)
                    .ok_or_else(|| self.malformed("invalid comparison predicate"))?;
                let flags = self.ops.get(s + 1).map_or(0, |v| *v as u8);
                let rty = self.i1_like(ty)?;
                (
                    InstKind::Cmp {
                        pred,
                        lhs,
                        rhs,
                        flags,
                    },
                    rty,
                )
            }
            10 => {
                if self.ops.is_empty() {
                    (InstKind::Ret { value: None }, void)
                } else {
                    let (v, _) = self.value_type_pair(st, &mut s)?;
                    if s != self.ops.len() {
                        return Err(self.unsupported("returning several values"));
                    }
                    (InstKind::Ret { value: Some(v) }, void)
                }
            }
            11 => {
                if self.ops.len() == 1 {
                    let dest = self.block_id(st, self.op(0)?)?;
                    (InstKind::Br { dest }, void)
                } else {
                    let if_true = self.block_id(st, self.op(0)?)?;
                    let if_false = self.block_id(st, self.op(1)?)?;
                    s = 2;
                    let cond = self.value_plain(st, &mut s)?;
                    (
                        InstKind::CondBr {
                            cond,
                            if_true,
                            if_false,
                        },
                        void,
                    )
                }
            }
            12 => {
                if self.op(0)? >> 16 == 0x4B5 {
                    return Err(self.unsupported("the wide-integer switch record format"));
                }
                self.op_type(0)?;
                s = 1;
                let cond = self.value_plain(st, &mut s)?;
                let default = self.block_id(st, self.op(2)?)?;
                let n = (self.ops.len().saturating_sub(3)) / 2;
                let start = st.body.pool.len() as u32;
                for i in 0..n {
                    let cv = self.op(3 + 2 * i)?;
                    let cv = u32::try_from(cv).map_err(|_| self.malformed("case value id"))?;
                    let v = self
                        .lookup_value(cv, Some(st))
                        .filter(|v| v.as_const().is_some())
                        .ok_or_else(|| self.malformed("switch case value is not a constant"))?;
                    let b = self.block_id(st, self.op(4 + 2 * i)?)?;
                    st.body.pool.push(v.0);
                    st.body.pool.push(b.0);
                }
                (
                    InstKind::Switch {
                        cond,
                        default,
                        cases: PoolRange {
                            start,
                            len: (n * 2) as u32,
                        },
                    },
                    void,
                )
            }
            15 => (InstKind::Unreachable, void),
            16 => {
                let ty = self.op_type(0)?;
                if self.ops.len() % 2 != 1 {
                    return Err(self.malformed("phi record has an odd number of incoming fields"));
                }
                let next = self.next_value_number(st) as i64;
                let start = st.body.pool.len() as u32;
                let mut i = 1;
                while i + 1 < self.ops.len() {
                    let rel = decode_signed(self.ops[i]);
                    let n = next
                        .checked_sub(rel)
                        .filter(|n| (0..=MAX_VALUE_INDEX as i64).contains(n));
                    let n = n.ok_or_else(|| self.malformed("phi operand out of range"))? as u32;
                    let v = self.resolve_number(st, n)?;
                    let b = self.block_id(st, self.ops[i + 1])?;
                    st.body.pool.push(v.0);
                    st.body.pool.push(b.0);
                    i += 2;
                }
                (
                    InstKind::Phi {
                        incoming: PoolRange {
                            start,
                            len: (self.ops.len() - 1) as u32,
                        },
                    },
                    ty,
                )
            }
            19 => {
                let t0 = self.op_type(0)?;
                self.op_type(1)?;
                let size_n = self.op_u32(2)?;
                let size = self
                    .lookup_value(size_n, Some(st))
                    .ok_or_else(|| self.malformed("alloca size is not defined"))?;
                let align_field = self.op_u32(3)?;
                let allocated = if align_field & (1 << 6) != 0 {
                    t0
                } else {
                    self.m
                        .types
                        .pointee(t0)
                        .ok_or_else(|| self.malformed("alloca type is not a pointer"))?
                };
                if align_field & 31 > 30 {
                    return Err(self.malformed("alloca alignment too large"));
                }
                let ty = self.pointer_type(allocated, 0);
                (
                    InstKind::Alloca {
                        allocated,
                        size,
                        align_field,
                    },
                    ty,
                )
            }
            20 | 41 => {
                let (ptr, pty) = self.value_type_pair(st, &mut s)?;
                let tail = if code == 20 { 2 } else { 4 };
                let ty = if s + tail + 1 == self.ops.len() {
                    let t = self.op_type(s)?;
                    s += 1;
                    t
                } else {
                    self.m
                        .types
                        .pointee(pty)
                        .ok_or_else(|| self.malformed("load from a non-pointer"))?
                };
                let align = self.align_field(self.op(s)?)?;
                let volatile = self.op(s + 1)? != 0;
                let atomic = if code == 41 {
                    Some((
                        self.ordering(self.op(s + 2)?)?,
                        self.scope(self.op(s + 3)?)?,
                    ))
                } else {
                    None
                };
                (
                    InstKind::Load {
                        ptr,
                        align,
                        volatile,
                        atomic,
                    },
                    ty,
                )
            }
            44 | 45 | 24 | 42 => {
                let (ptr, _) = self.value_type_pair(st, &mut s)?;
                let value = if code == 44 || code == 45 {
                    self.value_type_pair(st, &mut s)?.0
                } else {
                    self.value_plain(st, &mut s)?
                };
                let align = self.align_field(self.op(s)?)?;
                let volatile = self.op(s + 1)? != 0;
                let atomic = if code == 45 || code == 42 {
                    Some((
                        self.ordering(self.op(s + 2)?)?,
                        self.scope(self.op(s + 3)?)?,
                    ))
                } else {
                    None
                };
                (
                    InstKind::Store {
                        ptr,
                        value,
                        align,
                        volatile,
                        atomic,
                    },
                    void,
                )
            }
            26 | 27 => {
                let (aggregate, aty) = self.value_type_pair(st, &mut s)?;
                let element = if code == 27 {
                    Some(self.value_type_pair(st, &mut s)?.0)
                } else {
                    None
                };
                if s >= self.ops.len() {
                    return Err(self.malformed("extractvalue/insertvalue without indices"));
                }
                let mut t = aty;
                let start = st.body.pool.len() as u32;
                for i in s..self.ops.len() {
                    let idx = self.op_u32(i)?;
                    t = match self.m.types.data(t) {
                        TypeData::Struct { elems, .. } => *elems
                            .get(idx as usize)
                            .ok_or_else(|| self.malformed("aggregate index out of range"))?,
                        TypeData::Array { len, elem } if (idx as u64) < *len => *elem,
                        _ => return Err(self.malformed("invalid aggregate index")),
                    };
                    st.body.pool.push(idx);
                }
                let indices = PoolRange {
                    start,
                    len: (self.ops.len() - s) as u32,
                };
                match element {
                    None => (InstKind::ExtractValue { aggregate, indices }, t),
                    Some(element) => (
                        InstKind::InsertValue {
                            aggregate,
                            element,
                            indices,
                        },
                        aty,
                    ),
                }
            }
            34 => self.call_record(st)?,
            36 => (
                InstKind::Fence {
                    ordering: self.ordering(self.op(0)?)?,
                    scope: self.scope(self.op(1)?)?,
                },
                void,
            ),
            38 => {
                let (ptr, _) = self.value_type_pair(st, &mut s)?;
                let value = self.value_plain(st, &mut s)?;
                let op = RmwOp::from_code(self.op(s)?)
                    .ok_or_else(|| self.malformed("invalid atomicrmw operation"))?;
                let ty = match value.get() {
                    ValueRef::Unresolved(_) => {
                        let pty = self.ptr_type_of(ptr, st)?;
                        self.m
                            .types
                            .pointee(pty)
                            .ok_or_else(|| self.malformed("atomicrmw on a non-pointer"))?
                    }
                    _ => self.type_of_value(value, st)?,
                };
                (
                    InstKind::AtomicRmw {
                        op,
                        ptr,
                        value,
                        volatile: self.op(s + 1)? != 0,
                        ordering: self.ordering(self.op(s + 2)?)?,
                        scope: self.scope(self.op(s + 3)?)?,
                    },
                    ty,
                )
            }
            37 | 46 => {
                let (ptr, pty) = self.value_type_pair(st, &mut s)?;
                let (cmp, cty) = if code == 46 {
                    self.value_type_pair(st, &mut s)?
                } else {
                    let v = self.value_plain(st, &mut s)?;
                    let t = self
                        .m
                        .types
                        .pointee(pty)
                        .ok_or_else(|| self.malformed("cmpxchg on a non-pointer"))?;
                    (v, t)
                };
                let new = self.value_plain(st, &mut s)?;
                let volatile = self.op(s)? != 0;
                let success = self.ordering(self.op(s + 1)?)?;
                let scope = self.scope(self.op(s + 2)?)?;
                let failure = match self.ops.get(s + 3) {
                    Some(&v) => self.ordering(v)?,
                    None => success,
                };
                let weak = self.ops.get(s + 4).is_some_and(|v| *v != 0);
                let ty = self.cmpxchg_result(cty);
                (
                    InstKind::CmpXchg {
                        ptr,
                        cmp,
                        new,
                        volatile,
                        success,
                        scope,
                        failure,
                        weak,
                    },
                    ty,
                )
            }
            23 => {
                let list_ty = self.op_type(0)?;
                s = 1;
                let list = self.value_plain(st, &mut s)?;
                let ty = self.op_type(s)?;
                (InstKind::VaArg { list_ty, list }, ty)
            }
            13 | 31 | 39 | 40 | 47 => {
                return Err(self.unsupported(format!(
                    "instruction record {code} (exception handling / indirect branches)"
                )));
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    fn find_or_push_type(&mut self, want: TypeData) -> TypeId {
        let found = self
            .m
            .types
            .iter()
            .find(|(_, d)| **d == want)
            .map(|(id, _)| id);
        match found {
            Some(id) => id,
            None => self.m.types.push(want),
        }
    }

    fn void_type(&mut self) -> TypeId {
        if let Some(t) = self.void_ty {
            return t;
        }
        let t = self.find_or_push_type(TypeData::Void);
        self.void_ty = Some(t);
        t
    }

    fn i1_type(&mut self) -> TypeId {
        if let Some(t) = self.i1_ty {
            return t;
        }
        let t = self.find_or_push_type(TypeData::Int(1));
        self.i1_ty = Some(t);
        t
    }

    fn cmpxchg_result(&mut self, t: TypeId) -> TypeId {
        let i1 = self.i1_type();
        let want = TypeData::Struct {
            name: None,
            packed: false,
            opaque: false,
            elems: vec![t, i1],
        };
        self.find_or_push_type(want)
    }

    fn type_of_value(&self, v: Value, st: &FnState) -> Result<TypeId> {
        let ty = match v.get() {
            ValueRef::Arg(_) | ValueRef::Inst(_) => {
                // Local values are found by scanning the local table; only the rare atomicrmw
                // path gets here, so the linear search is acceptable.
                st.values
                    .iter()
                    .position(|x| *x == v)
                    .and_then(|i| st.types.get(i).copied())
            }
            ValueRef::Const(c) => self.m.constants.get(c).map(|c| c.ty),
            ValueRef::Global(g) => self.m.global(g).map(|g| g.ptr_ty),
            ValueRef::Function(f) => self.m.function(f).map(|f| f.ptr_ty),
            _ => None,
        };
        ty.ok_or_else(|| self.malformed("operand type unknown"))
    }

    fn ptr_type_of(&self, v: Value, st: &FnState) -> Result<TypeId> {
        self.type_of_value(v, st)
    }

    fn call_record(&mut self, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let attr = self.op(0)?;
        let attrs = if attr == 0 {
            None
        } else if attr - 1 < self.m.attr_lists.len() as u64 {
            Some(AttrListId((attr - 1) as u32))
        } else {
            return Err(self.malformed(format!("call attribute list {attr} not defined")));
        };
        let cc = self.op(1)?;
        let mut s = 2;
        let explicit = if cc & (1 << 15) != 0 {
            let t = self.op_type(2)?;
            s = 3;
            Some(t)
        } else {
            None
        };
        let (callee, cty) = self.value_type_pair(st, &mut s)?;
        let fn_ty = match explicit {
            Some(t) => t,
            None => self
                .m
                .types
                .pointee(cty)
                .ok_or_else(|| self.malformed("callee is not a pointer"))?,
        };
        let (ret, params, vararg) = match self.m.types.function_signature(fn_ty) {
            Some(sig) => sig,
            None => return Err(self.malformed("call through a non-function type")),
        };
        // Arguments go straight into the pool (on an error the whole module is dropped).
        let start = st.body.pool.len() as u32;
        for &p in params {
            let v = match self.m.types.data(p) {
                TypeData::Label => {
                    return Err(self.unsupported("label arguments"));
                }
                TypeData::Metadata => {
                    let rel = self.op(s)? as u32;
                    s += 1;
                    let n = self.next_value_number(st).wrapping_sub(rel);
                    Value::metadata(self.md_ref(n as u64, Some(st))?)
                }
                _ => self.value_plain(st, &mut s)?,
            };
            st.body.pool.push(v.0);
        }
        if vararg {
            while s < self.ops.len() {
                let v = self.value_type_pair(st, &mut s)?.0;
                st.body.pool.push(v.0);
            }
        } else if s != self.ops.len() {
            return Err(self.malformed(format!(
                "call passes {} operand fields for {} parameters",
                self.ops.len() - s + params.len(),
                params.len()
            )));
        }
        let args = PoolRange {
            start,
            len: st.body.pool.len() as u32 - start,
        };
        Ok((
            InstKind::Call {
                callee,
                fn_ty,
                attrs,
                cc_flags: (cc & !(1 << 15)) as u32,
                args,
            },
            ret,
        ))
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
