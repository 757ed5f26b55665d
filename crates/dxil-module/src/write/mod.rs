//! [`Module`] → LLVM 3.7 bitcode, laid out exactly as DXC's `BitcodeWriter` lays it out.
//!
//! Nothing is taken from the order in which the model happens to store its tables: types,
//! constants, metadata and attribute lists are re-uniqued the way an LLVM context uniques them
//! and numbered the way LLVM 3.7's `ValueEnumerator` numbers them (module `enumerate`), so a
//! module built from text gives the same bytes as one read from DXC's bitcode. The record layer
//! then follows `BitcodeWriter.cpp`: block order, BLOCKINFO and local abbreviations, which
//! record uses which abbreviation, relative operand ids wrapping at 32 bits, sign-rotated phi
//! operands and integers, and DXC's change of sorting symbol tables by name.
//!
//! What the text listing does not carry is taken from the model where present: the metadata
//! kind table (DXC registers kinds in the order its passes first ask for them, which varies
//! between compilations) comes from [`Metadata::kinds`](crate::Metadata::kinds), and a module
//! without one gets [`DXC_DEFAULT_KINDS`].
//!
//! The module is validated while it is enumerated: every id must be in range and every operand
//! must have a type that can be encoded; problems come back as [`WriteError`]s naming the
//! function and instruction. The writer never panics on a malformed module.

mod consts;
mod enumerate;
mod error;
mod fixed;
mod insts;
mod mds;
mod types;

use std::hash::BuildHasherDefault;

use dxil_bitstream::{AbbrevOp, BitstreamWriter, builtin_abbrev::UNABBREV_RECORD};

use crate::codes::function::*;
use crate::codes::{self, block};
use crate::entity::{ConstId, FuncId, PoolRange};
use crate::module::{Function, LocalName, Module};
use crate::value::{Value, ValueRef};

use consts::NConst;
use enumerate::{Enumerator, NONE};
use mds::NMd;
use types::Node;

pub use enumerate::DXC_DEFAULT_KINDS;
pub use error::{Result, WriteError, WriteErrorKind, WriteLocation};

/// Options of [`write_module`].
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// Integer constants to write as patchable specialization constants: each keeps its own
    /// slot (never merged with an equal constant), module-level unless
    /// [`WriteOptions::patchable_in_functions`] is set, and is written with the
    /// CONSTANTS `INTEGER` abbreviation in exactly [`PATCH_CHUNKS`] VBR8 chunks, whatever its
    /// value, so that it can later be rewritten in place with [`patch_constant`].
    pub patchable_constants: Vec<ConstId>,
    /// Writes each patchable constant where LLVM puts a constant that only instructions use:
    /// in the constants block of every function that uses it (one site per such function),
    /// instead of the module's. A patch then changes no byte before the first function body,
    /// so a patcher that keeps hash states of the unchanged bytes rehashes less (the module's
    /// metadata lies between the two places).
    pub patchable_in_functions: bool,
    /// With [`WriteOptions::patchable_in_functions`]: writes a function's patchable constants
    /// in a second constants block of their own, as late in the function block as LLVM 3.7's
    /// reader allows: before the instruction that first uses one, or earlier where a forward
    /// reference (a phi operand) is pending there. The bytes before that point then stay as
    /// they are when a patch changes a value, so a patcher rehashes only the rest.
    pub patchable_late: bool,
    /// Writes function bodies with abbreviations of our own for the records that dominate DXIL
    /// (`call` with a plain calling-convention word, `extractvalue`, `cmp2`, `store`, `select`,
    /// `br`), which LLVM 3.7's writer leaves unabbreviated: bodies about a third smaller, so
    /// containers hash faster and a patcher rehashes fewer bytes after its first site. Any LLVM
    /// reader reads them (abbreviations are declared in the stream), but the bytes are no
    /// longer DXC's, so this is off by default (round trips of DXC's bitcode stay byte-exact).
    pub compact_bodies: bool,
}

/// Chunk width of a patchable constant's VBR field (the `INTEGER` abbreviation's VBR8).
pub const PATCH_CHUNK_WIDTH: u32 = 8;
/// Number of VBR chunks of a patchable constant: 35 payload bits, enough for any sign-rotated
/// 32-bit value.
pub const PATCH_CHUNKS: u32 = 5;

/// Where a patchable constant's value lies in the written bitcode.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PatchSite {
    /// The constant, as given in [`WriteOptions::patchable_constants`].
    pub constant: ConstId,
    /// Bit offset of the first VBR chunk, counted from the start of the bitcode (the `BC`
    /// magic); add `8 ×` the bitcode's byte offset for a position in a container.
    pub bit_offset: u64,
}

/// The bitcode and the positions of its patchable constants.
#[derive(Clone, Debug, Default)]
pub struct WriteOutput {
    pub bitcode: Vec<u8>,
    pub patch_sites: Vec<PatchSite>,
}

/// Writes `m` as LLVM 3.7 bitcode (starting with `BC 0xC0DE`), as DXC would.
pub fn write_module(m: &Module, opts: &WriteOptions) -> Result<Vec<u8>> {
    write_module_with_sites(m, opts).map(|o| o.bitcode)
}

/// Like [`write_module`], also returning where the patchable constants were written.
pub fn write_module_with_sites(m: &Module, opts: &WriteOptions) -> Result<WriteOutput> {
    let mut e = Enumerator::new(m, &opts.patchable_constants, !opts.patchable_in_functions)?;
    e.late_patchable = opts.patchable_in_functions && opts.patchable_late;
    let typebits = log2_ceil(e.types.len() as u64 + 1);
    let mut w = Writer {
        e,
        bs: BitstreamWriter::with_capacity(output_estimate(m)),
        vals: Vec::with_capacity(64),
        typebits,
        compact: opts.compact_bodies,
        valbits: 0,
        sites: Vec::new(),
        patchable: &opts.patchable_constants,
    };
    w.write()?;
    let bitcode = w.bs.finish()?;
    Ok(WriteOutput {
        bitcode,
        patch_sites: w.sites,
    })
}

/// A generous guess of the bitcode's size, so that its buffer rarely grows (each growth copies
/// what was written): a fixed part for the BLOCKINFO, type and kind tables, then a few bytes per
/// instruction, metadata node and string byte.
fn output_estimate(m: &Module) -> usize {
    let insts: usize = m
        .functions
        .iter()
        .filter_map(|f| f.body.as_ref())
        .map(|b| b.insts.len() + b.pool.len())
        .sum();
    2048 + 8 * insts + 8 * m.metadata.items.len() + m.metadata.bytes.len() + 16 * m.types.len()
}

/// Rewrites a patchable constant in place: `value` is sign-rotated as LLVM stores integers and
/// written into the site's [`PATCH_CHUNKS`] chunks. Values whose rotation needs more than 35
/// bits are refused.
pub fn patch_constant(bitcode: &mut [u8], site: &PatchSite, value: i64) -> Result<()> {
    dxil_bitstream::patch_vbr(
        bitcode,
        site.bit_offset,
        PATCH_CHUNK_WIDTH,
        PATCH_CHUNKS,
        sign_rotate(value as u64),
    )
    .map_err(|e| WriteError::new(WriteErrorKind::Limit, format!("patching: {e}")))
}

// ---------------------------------------------------------------------- helpers

/// The interning tables hash with FxHash (keys are ids and short slices; SipHash's DoS resistance buys nothing
/// here and costs a lot).
pub(crate) use rustc_hash::FxHasher;
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

/// LLVM's `Log2_32_Ceil` (0 → 32 is never asked for here).
fn log2_ceil(v: u64) -> u32 {
    if v <= 1 {
        0
    } else {
        64 - (v - 1).leading_zeros()
    }
}

/// `emitSignedInt64`.
fn sign_rotate(v: u64) -> u64 {
    if (v as i64) >= 0 {
        v << 1
    } else {
        (v.wrapping_neg() << 1) | 1
    }
}

fn is_char6(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'_'
}

/// An abbreviation's literal record code.
fn code(c: u32) -> AbbrevOp {
    AbbrevOp::Literal(u64::from(c))
}

// Abbreviation ids registered by BLOCKINFO (in the order DXC defines them).
const VST_ENTRY_8: u32 = 4;
const VST_ENTRY_7: u32 = 5;
const VST_ENTRY_6: u32 = 6;
const VST_BBENTRY_6: u32 = 7;
const CST_SETTYPE: u32 = 4;
const CST_INTEGER: u32 = 5;
const CST_CE_CAST: u32 = 6;
const FN_LOAD: u32 = 4;
const FN_BINOP: u32 = 5;
const FN_BINOP_FLAGS: u32 = 6;
const FN_CAST: u32 = 7;
const FN_RET_VOID: u32 = 8;
const FN_RET_VAL: u32 = 9;
const FN_UNREACHABLE: u32 = 10;
const FN_GEP: u32 = 11;
// With `WriteOptions::compact_bodies`, after DXC's: ids 12 and up need a 5-bit abbreviation
// width in function blocks.
const FN_CALL: u32 = 12;
const FN_EXTRACTVAL: u32 = 13;
const FN_CMP: u32 = 14;
const FN_STORE: u32 = 15;
const FN_SELECT: u32 = 16;
const FN_BR: u32 = 17;
const FN_CONDBR: u32 = 18;
/// Defined in each function block (after the 15 BLOCKINFO ones): its width depends on the
/// function.
const FN_GEP3: u32 = 19;
/// The calling-convention word of a call record with no flags but the explicit function type
/// (bit 15), as every DXIL call has it: a literal in [`FN_CALL`].
const CALL_EXPLICIT_TYPE: u64 = 1 << 15;
/// Abbreviation-id widths of function blocks: DXC's 4 bits, or 5 for the compact ids above.
const FN_WIDTH: u32 = 4;
const FN_WIDTH_COMPACT: u32 = 5;

/// The abbreviations of the module-level constants block (0 where not defined: function
/// constants blocks have none).
#[derive(Default)]
struct CstAbbrevs {
    aggregate: u32,
    string8: u32,
    cstring7: u32,
    cstring6: u32,
}

struct Writer<'m, 'o> {
    e: Enumerator<'m>,
    bs: BitstreamWriter,
    vals: Vec<u64>,
    typebits: u32,
    /// [`WriteOptions::compact_bodies`].
    compact: bool,
    /// Width of the relative value ids of [`FN_GEP3`] in the current function: enough for any
    /// value of its numbering.
    valbits: u32,
    sites: Vec<PatchSite>,
    patchable: &'o [ConstId],
}

impl<'m> Writer<'m, '_> {
    fn record(&mut self, code: u32, abbrev: u32) -> Result<()> {
        self.bs.emit_record(abbrev, code, &self.vals)?;
        self.vals.clear();
        Ok(())
    }

    fn write(&mut self) -> Result<()> {
        let m = self.e.m;
        self.bs.enter_subblock(block::MODULE, 3)?;
        self.bs.emit_record_unabbrev(codes::module::VERSION, &[1])?;
        self.write_blockinfo()?;
        self.write_attributes()?;
        self.write_types()?;
        self.write_module_info()?;
        let first = self.e.first_module_const as usize;
        let last = self.e.num_module_values as usize;
        self.write_constants(first, last, true, None)?;
        self.write_module_metadata()?;
        self.write_kinds()?;
        self.write_module_vst()?;
        for (i, f) in m.functions.iter().enumerate() {
            if f.body.is_some() {
                self.write_function(f)
                    .map_err(|e| e.with_function(i as u32, &f.name))?;
            }
        }
        self.bs.exit_block()?;
        Ok(())
    }

    /// [`FN_GEP3`], local to the function block: inbounds, source type, base and two indices,
    /// DXIL's array and struct element addresses. Their operands (allocas, globals, constants)
    /// lie far back, where a fixed width of the function's value count beats VBR6's 12 or 18
    /// bits; that count is known only once the function is numbered.
    fn define_gep3(&mut self) -> Result<()> {
        use AbbrevOp::*;
        let vb = log2_ceil(self.e.values.len() as u64 + 1).clamp(1, 32);
        self.valbits = vb;
        let tb = self.typebits;
        let ops = [
            code(INST_GEP),
            Literal(1),
            Fixed(tb),
            Fixed(vb),
            Fixed(vb),
            Fixed(vb),
        ];
        let id = self.bs.define_abbrev(&ops)?;
        if id != FN_GEP3 {
            return Err(WriteError::new(
                WriteErrorKind::Internal,
                format!("function GEP abbreviation got id {id}"),
            ));
        }
        Ok(())
    }

    fn write_attributes(&mut self) -> Result<()> {
        use crate::module::Attribute;
        if !self.e.groups_order.is_empty() {
            self.bs.enter_subblock(block::PARAMATTR_GROUP, 3)?;
            for k in 0..self.e.groups_order.len() {
                let g = self.e.groups_order[k];
                let group = &self.e.groups[g as usize];
                self.vals.push(u64::from(self.e.group_id(g)));
                self.vals.push(u64::from(group.slot));
                for a in &group.attrs {
                    match a {
                        Attribute::Enum(k) => self.vals.extend([0, u64::from(*k)]),
                        Attribute::Int(k, v) => self.vals.extend([1, u64::from(*k), *v]),
                        Attribute::Str(k) => {
                            self.vals.push(3);
                            self.vals.extend(k.bytes().map(u64::from));
                            self.vals.push(0);
                        }
                        Attribute::StrValue(k, v) => {
                            self.vals.push(if v.is_empty() { 3 } else { 4 });
                            self.vals.extend(k.bytes().map(u64::from));
                            self.vals.push(0);
                            if !v.is_empty() {
                                self.vals.extend(v.bytes().map(u64::from));
                                self.vals.push(0);
                            }
                        }
                    }
                }
                self.record(codes::paramattr_group::ENTRY, UNABBREV_RECORD)?;
            }
            self.bs.exit_block()?;
        }
        if !self.e.lists_order.is_empty() {
            self.bs.enter_subblock(block::PARAMATTR, 3)?;
            for k in 0..self.e.lists_order.len() {
                let c = self.e.lists_order[k];
                for &g in self.e.list_groups(c) {
                    self.vals.push(u64::from(self.e.group_id(g)));
                }
                self.record(codes::paramattr::ENTRY, UNABBREV_RECORD)?;
            }
            self.bs.exit_block()?;
        }
        Ok(())
    }

    fn write_types(&mut self) -> Result<()> {
        use AbbrevOp::*;
        let tb = self.typebits;
        self.bs.enter_subblock(block::TYPE_NEW, 4)?;
        let ptr = self
            .bs
            .define_abbrev(&[code(codes::types::POINTER), Fixed(tb), Literal(0)])?;
        let func =
            self.bs
                .define_abbrev(&[code(codes::types::FUNCTION), Fixed(1), Array, Fixed(tb)])?;
        let anon = self.bs.define_abbrev(&[
            code(codes::types::STRUCT_ANON),
            Fixed(1),
            Array,
            Fixed(tb),
        ])?;
        let sname = self
            .bs
            .define_abbrev(&[code(codes::types::STRUCT_NAME), Array, Char6])?;
        let named = self.bs.define_abbrev(&[
            code(codes::types::STRUCT_NAMED),
            Fixed(1),
            Array,
            Fixed(tb),
        ])?;
        let array = self
            .bs
            .define_abbrev(&[code(codes::types::ARRAY), Vbr(8), Fixed(tb)])?;
        self.bs
            .emit_record_unabbrev(codes::types::NUMENTRY, &[self.e.types.order.len() as u64])?;
        // Borrowed out of the table while records are written (ids come from `out_id`).
        let nodes = std::mem::take(&mut self.e.types.nodes);
        let r = self.write_type_records(&nodes, [ptr, func, anon, sname, named, array]);
        self.e.types.nodes = nodes;
        r?;
        self.bs.exit_block()?;
        Ok(())
    }

    fn write_type_records(&mut self, nodes: &[Node], abbrevs: [u32; 6]) -> Result<()> {
        let [ptr, func, anon, sname, named, array] = abbrevs;
        for k in 0..self.e.types.order.len() {
            let n = self.e.types.order[k];
            let Some(node) = nodes.get(n as usize) else {
                return Err(error::invalid(format!("type node {n} missing")));
            };
            let id = |w: &Self, x: u32| -> Result<u64> { w.e.type_id(x).map(u64::from) };
            let (code, abbrev) = match node {
                Node::Void => (codes::types::VOID, UNABBREV_RECORD),
                Node::Half => (codes::types::HALF, UNABBREV_RECORD),
                Node::Float => (codes::types::FLOAT, UNABBREV_RECORD),
                Node::Double => (codes::types::DOUBLE, UNABBREV_RECORD),
                Node::Label => (codes::types::LABEL, UNABBREV_RECORD),
                Node::Metadata => (codes::types::METADATA, UNABBREV_RECORD),
                Node::Other(k) => {
                    use crate::types::OtherFloatKind::*;
                    let c = match k {
                        X86Fp80 => codes::types::X86_FP80,
                        Fp128 => codes::types::FP128,
                        PpcFp128 => codes::types::PPC_FP128,
                        X86Mmx => codes::types::X86_MMX,
                    };
                    (c, UNABBREV_RECORD)
                }
                Node::Int(w) => {
                    self.vals.push(u64::from(*w));
                    (codes::types::INTEGER, UNABBREV_RECORD)
                }
                Node::Pointer(p, a) => {
                    self.vals.push(id(self, *p)?);
                    self.vals.push(u64::from(*a));
                    (
                        codes::types::POINTER,
                        if *a == 0 { ptr } else { UNABBREV_RECORD },
                    )
                }
                Node::Function {
                    vararg,
                    ret,
                    params,
                } => {
                    self.vals.push(u64::from(*vararg));
                    self.vals.push(id(self, *ret)?);
                    for &p in params {
                        self.vals.push(id(self, p)?);
                    }
                    (codes::types::FUNCTION, func)
                }
                Node::Literal { packed, elems } => {
                    self.vals.push(u64::from(*packed));
                    for &x in elems {
                        self.vals.push(id(self, x)?);
                    }
                    (codes::types::STRUCT_ANON, anon)
                }
                Node::Named { name, packed, body } => {
                    if !name.is_empty() {
                        let abbrev = if name.bytes().all(is_char6) {
                            sname
                        } else {
                            UNABBREV_RECORD
                        };
                        self.vals.extend(name.bytes().map(u64::from));
                        self.record(codes::types::STRUCT_NAME, abbrev)?;
                    }
                    self.vals.push(u64::from(*packed));
                    match body {
                        Some(elems) => {
                            for &x in elems {
                                self.vals.push(id(self, x)?);
                            }
                            (codes::types::STRUCT_NAMED, named)
                        }
                        None => (codes::types::OPAQUE, UNABBREV_RECORD),
                    }
                }
                Node::Array(len, elem) => {
                    self.vals.push(*len);
                    self.vals.push(id(self, *elem)?);
                    (codes::types::ARRAY, array)
                }
                Node::Vector(len, elem) => {
                    self.vals.push(u64::from(*len));
                    self.vals.push(id(self, *elem)?);
                    (codes::types::VECTOR, UNABBREV_RECORD)
                }
            };
            self.record(code, abbrev)?;
        }
        Ok(())
    }

    fn write_module_info(&mut self) -> Result<()> {
        let m = self.e.m;
        for (code, s) in [
            (codes::module::TRIPLE, &m.triple),
            (codes::module::DATALAYOUT, &m.datalayout),
        ] {
            if !s.is_empty() {
                self.vals.extend(s.bytes().map(u64::from));
                self.record(code, UNABBREV_RECORD)?;
            }
        }
        // Sections and GC names get ids in order of first use; their records come then.
        let mut sections: Vec<&str> = Vec::new();
        let mut section_of = |w: &mut Self, s: u32| -> Result<u64> {
            if s == 0 {
                return Ok(0);
            }
            let name = m
                .section_names
                .get(s as usize - 1)
                .ok_or_else(|| error::invalid(format!("section {s} does not exist")))?;
            if let Some(p) = sections.iter().position(|x| *x == name.as_str()) {
                return Ok(p as u64 + 1);
            }
            sections.push(name);
            w.vals.extend(name.bytes().map(u64::from));
            w.record(codes::module::SECTIONNAME, UNABBREV_RECORD)?;
            Ok(sections.len() as u64)
        };
        let mut g_sections = Vec::with_capacity(m.globals.len());
        let mut max_type = 0u32;
        let mut max_align = 0u32;
        for g in &m.globals {
            g_sections.push(section_of(self, g.section)?);
            max_type = max_type.max(self.e.type_id_of(g.value_ty)?);
            max_align = max_align.max(g.align);
        }
        let mut f_sections = Vec::with_capacity(m.functions.len());
        let mut gcs: Vec<&str> = Vec::new();
        let mut f_gcs = Vec::with_capacity(m.functions.len());
        for f in &m.functions {
            max_align = max_align.max(f.align);
            f_sections.push(section_of(self, f.section)?);
            if f.gc == 0 {
                f_gcs.push(0);
                continue;
            }
            let name = m
                .gc_names
                .get(f.gc as usize - 1)
                .ok_or_else(|| error::invalid(format!("gc name {} does not exist", f.gc)))?;
            match gcs.iter().position(|x| *x == name.as_str()) {
                Some(p) => f_gcs.push(p as u64 + 1),
                None => {
                    gcs.push(name);
                    self.vals.extend(name.bytes().map(u64::from));
                    self.record(codes::module::GCNAME, UNABBREV_RECORD)?;
                    f_gcs.push(gcs.len() as u64);
                }
            }
        }
        let mut simple = 0;
        if !m.globals.is_empty() {
            use AbbrevOp::*;
            let align_op = if max_align == 0 {
                Literal(0)
            } else {
                Fixed(log2_ceil(u64::from(max_align) + 1))
            };
            let section_op = if sections.is_empty() {
                Literal(0)
            } else {
                Fixed(log2_ceil(sections.len() as u64 + 1))
            };
            simple = self.bs.define_abbrev(&[
                Literal(7),
                Fixed(log2_ceil(u64::from(max_type) + 1)),
                Vbr(6),
                Vbr(6),
                Fixed(5),
                align_op,
                section_op,
            ])?;
        }
        for (g, &section) in m.globals.iter().zip(&g_sections) {
            if g.comdat != 0 {
                return Err(error::unsupported("comdats"));
            }
            self.vals.push(u64::from(self.e.type_id_of(g.value_ty)?));
            self.vals
                .push(u64::from(g.address_space) << 2 | 2 | u64::from(g.is_constant));
            self.vals.push(match g.init {
                Some(v) => u64::from(self.e.value_id(v)?) + 1,
                None => 0,
            });
            self.vals.push(u64::from(g.linkage));
            self.vals.push(u64::from(g.align));
            self.vals.push(section);
            let abbrev = if g.thread_local != 0
                || g.visibility != 0
                || g.unnamed_addr != 0
                || g.externally_initialized
                || g.dll_storage != 0
            {
                self.vals.extend([
                    u64::from(g.visibility),
                    u64::from(g.thread_local),
                    u64::from(g.unnamed_addr),
                    u64::from(g.externally_initialized),
                    u64::from(g.dll_storage),
                    0,
                ]);
                UNABBREV_RECORD
            } else {
                simple
            };
            self.record(codes::module::GLOBALVAR, abbrev)?;
        }
        for (i, f) in m.functions.iter().enumerate() {
            if f.prologue_data != 0 || f.prefix_data != 0 || f.personality != 0 || f.comdat != 0 {
                return Err(error::unsupported(
                    "prologue data, prefix data, personality functions or comdats",
                )
                .with_function(i as u32, &f.name));
            }
            let fields = [
                u64::from(self.e.type_id_of(f.ty)?),
                u64::from(f.calling_conv),
                u64::from(f.body.is_none()),
                u64::from(f.linkage),
                u64::from(self.e.attr_list_id(f.attrs)),
                u64::from(f.align),
                f_sections[i],
                u64::from(f.visibility),
                f_gcs[i],
                u64::from(f.unnamed_addr),
                0,
                u64::from(f.dll_storage),
                0,
                0,
                0,
            ];
            self.vals.extend(fields);
            self.record(codes::module::FUNCTION, UNABBREV_RECORD)?;
        }
        Ok(())
    }

    /// `WriteConstants` for values `first..last` of the current numbering.
    fn write_constants(
        &mut self,
        first: usize,
        last: usize,
        global: bool,
        func: Option<&Function>,
    ) -> Result<()> {
        if first >= last {
            return Ok(());
        }
        self.bs.enter_subblock(block::CONSTANTS, 4)?;
        let mut ab = CstAbbrevs::default();
        if global {
            use AbbrevOp::*;
            ab.aggregate = self.bs.define_abbrev(&[
                code(codes::constants::AGGREGATE),
                Array,
                Fixed(log2_ceil(last as u64 + 1)),
            ])?;
            ab.string8 =
                self.bs
                    .define_abbrev(&[code(codes::constants::STRING), Array, Fixed(8)])?;
            ab.cstring7 =
                self.bs
                    .define_abbrev(&[code(codes::constants::CSTRING), Array, Fixed(7)])?;
            ab.cstring6 =
                self.bs
                    .define_abbrev(&[code(codes::constants::CSTRING), Array, Char6])?;
        }
        let mut last_ty = NONE;
        for i in first..last {
            let Some(&(v, _)) = self.e.values.get(i) else {
                break;
            };
            let ValueRef::Const(c) = v.get() else {
                return Err(error::invalid(format!("value {i} is not a constant")));
            };
            let rep = c.0;
            let ty = self.e.consts.ty[rep as usize];
            if ty != last_ty {
                last_ty = ty;
                self.vals.push(u64::from(self.e.type_id(ty)?));
                self.record(codes::constants::SETTYPE, CST_SETTYPE)?;
            }
            let norm = self.e.consts.norm[rep as usize];
            // Patchable constants are module-level unless the options put them in functions.
            if self.e.consts.unique[rep as usize] && self.patchable.contains(&c) {
                let value = match norm {
                    NConst::Int(v) => v,
                    NConst::Null => 0,
                    _ => return Err(error::mismatch("patchable constant is not an integer")),
                };
                let at = self.bs.emit_record_min_chunks(
                    CST_INTEGER,
                    codes::constants::INTEGER,
                    &[sign_rotate(value as u64)],
                    0,
                    PATCH_CHUNKS,
                )?;
                self.sites.push(PatchSite {
                    constant: c,
                    bit_offset: at,
                });
                continue;
            }
            let (code, abbrev) = self.constant_record(norm, ty, func, &ab)?;
            self.record(code, abbrev)?;
        }
        self.bs.exit_block()?;
        Ok(())
    }

    /// One constant's record other than a patchable one: `(code, abbreviation)` with the
    /// operands in `vals`.
    fn constant_record(
        &mut self,
        norm: NConst,
        ty: u32,
        func: Option<&Function>,
        ab: &CstAbbrevs,
    ) -> Result<(u32, u32)> {
        Ok(match norm {
            NConst::Null => (codes::constants::NULL, UNABBREV_RECORD),
            NConst::Undef => (codes::constants::UNDEF, UNABBREV_RECORD),
            NConst::Int(x) => {
                self.vals.push(sign_rotate(x as u64));
                (codes::constants::INTEGER, CST_INTEGER)
            }
            NConst::Wide(r) => {
                for &w in r.get(&self.e.consts.words) {
                    self.vals.push(sign_rotate(w));
                }
                (codes::constants::WIDE_INTEGER, UNABBREV_RECORD)
            }
            NConst::Float(b) => {
                self.vals.push(b);
                (codes::constants::FLOAT, UNABBREV_RECORD)
            }
            NConst::Agg(r) => {
                for k in 0..r.len as usize {
                    let x = self.e.consts.vals[r.start as usize + k];
                    self.vals.push(u64::from(self.e.value_id(x)?));
                }
                (
                    codes::constants::AGGREGATE,
                    if ab.aggregate == 0 {
                        UNABBREV_RECORD
                    } else {
                        ab.aggregate
                    },
                )
            }
            NConst::Data(r) => self.data_record(r, ty, ab),
            _ => self.expr_record(norm, ty, func)?,
        })
    }

    /// A `CST_CODE_DATA` payload: an `i8` array as a (C) string, anything else as data.
    fn data_record(&mut self, r: PoolRange, ty: u32, ab: &CstAbbrevs) -> (u32, u32) {
        let words = r.get(&self.e.consts.words);
        let is_string = matches!(self.e.types.node(ty), Node::Array(_, e)
            if matches!(self.e.types.node(*e), Node::Int(8)));
        if !is_string {
            self.vals.extend_from_slice(words);
            return (codes::constants::DATA, UNABBREV_RECORD);
        }
        let cstr = words.last() == Some(&0) && !words[..words.len() - 1].contains(&0);
        let body = if cstr {
            &words[..words.len() - 1]
        } else {
            words
        };
        self.vals.extend_from_slice(body);
        let abbrev = if !cstr {
            ab.string8
        } else if body.iter().all(|&b| is_char6(b as u8)) {
            ab.cstring6
        } else if body.iter().all(|&b| b < 128) {
            ab.cstring7
        } else {
            0
        };
        let code = if cstr {
            codes::constants::CSTRING
        } else {
            codes::constants::STRING
        };
        (code, if abbrev == 0 { UNABBREV_RECORD } else { abbrev })
    }

    /// A constant expression's record.
    fn expr_record(
        &mut self,
        norm: NConst,
        ty: u32,
        func: Option<&Function>,
    ) -> Result<(u32, u32)> {
        Ok(match norm {
            NConst::Cast { op, v } => {
                let t = self.e.value_type(func, v)?;
                self.vals.push(op.code());
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.vals.push(u64::from(self.e.value_id(v)?));
                (codes::constants::CE_CAST, CST_CE_CAST)
            }
            NConst::Bin { op, flags, l, r } => {
                self.vals.push(op.code());
                self.vals.push(u64::from(self.e.value_id(l)?));
                self.vals.push(u64::from(self.e.value_id(r)?));
                if flags != 0 {
                    self.vals.push(u64::from(flags));
                }
                (codes::constants::CE_BINOP, UNABBREV_RECORD)
            }
            NConst::Gep { inbounds, src, ops } => {
                self.vals.push(u64::from(self.e.type_id(src)?));
                for k in 0..ops.len as usize {
                    let x = self.e.consts.vals[ops.start as usize + k];
                    let t = self.e.value_type(func, x)?;
                    self.vals.push(u64::from(self.e.type_id(t)?));
                    self.vals.push(u64::from(self.e.value_id(x)?));
                }
                (
                    if inbounds {
                        codes::constants::CE_INBOUNDS_GEP
                    } else {
                        codes::constants::CE_GEP
                    },
                    UNABBREV_RECORD,
                )
            }
            NConst::Select { c, t, f } => {
                for x in [c, t, f] {
                    self.vals.push(u64::from(self.e.value_id(x)?));
                }
                (codes::constants::CE_SELECT, UNABBREV_RECORD)
            }
            NConst::ExtractElt { v, i } => {
                for x in [v, i] {
                    let t = self.e.value_type(func, x)?;
                    self.vals.push(u64::from(self.e.type_id(t)?));
                    self.vals.push(u64::from(self.e.value_id(x)?));
                }
                (codes::constants::CE_EXTRACTELT, UNABBREV_RECORD)
            }
            NConst::InsertElt { v, e, i } => {
                self.vals.push(u64::from(self.e.value_id(v)?));
                self.vals.push(u64::from(self.e.value_id(e)?));
                let t = self.e.value_type(func, i)?;
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.vals.push(u64::from(self.e.value_id(i)?));
                (codes::constants::CE_INSERTELT, UNABBREV_RECORD)
            }
            NConst::Shuffle { a, b, m } => {
                let ta = self.e.value_type(func, a)?;
                let code = if ta == ty {
                    codes::constants::CE_SHUFFLEVEC
                } else {
                    self.vals.push(u64::from(self.e.type_id(ta)?));
                    codes::constants::CE_SHUFVEC_EX
                };
                for x in [a, b, m] {
                    self.vals.push(u64::from(self.e.value_id(x)?));
                }
                (code, UNABBREV_RECORD)
            }
            NConst::Cmp { pred, l, r } => {
                let t = self.e.value_type(func, l)?;
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.vals.push(u64::from(self.e.value_id(l)?));
                self.vals.push(u64::from(self.e.value_id(r)?));
                self.vals.push(u64::from(pred.0));
                (codes::constants::CE_CMP, UNABBREV_RECORD)
            }
            NConst::BlockAddr { f, bb } => {
                let fv = Value::function(f);
                let t = self.e.value_type(func, fv)?;
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.vals.push(u64::from(self.e.value_id(fv)?));
                self.vals.push(u64::from(bb));
                (codes::constants::BLOCKADDRESS, UNABBREV_RECORD)
            }

            _ => return Err(error::invalid("constant of another kind")),
        })
    }

    fn write_module_metadata(&mut self) -> Result<()> {
        let m = self.e.m;
        if self.e.md_list.is_empty() && m.metadata.named.is_empty() {
            return Ok(());
        }
        use AbbrevOp::*;
        self.bs.enter_subblock(block::METADATA, 3)?;
        let mut string = UNABBREV_RECORD;
        if self.e.has_md_string {
            string = self
                .bs
                .define_abbrev(&[code(codes::metadata::STRING), Array, Fixed(8)])?;
        }
        let mut name = UNABBREV_RECORD;
        if !m.metadata.named.is_empty() {
            name = self
                .bs
                .define_abbrev(&[code(codes::metadata::NAME), Array, Fixed(8)])?;
        }
        for k in 0..self.e.md_list.len() {
            let x = self.e.md_list[k];
            match self.e.mds.norm(x) {
                NMd::Node { distinct, ops } => {
                    for j in 0..ops.len as usize {
                        let o = self.e.mds.ops[ops.start as usize + j];
                        let enc = if o == 0 {
                            0
                        } else {
                            u64::from(self.e.md_id(o - 1)?) + 1
                        };
                        self.vals.push(enc);
                    }
                    self.record(
                        if distinct {
                            codes::metadata::DISTINCT_NODE
                        } else {
                            codes::metadata::NODE
                        },
                        UNABBREV_RECORD,
                    )?;
                }
                NMd::Value(v) => {
                    let t = self.e.value_type(None, v)?;
                    self.vals.push(u64::from(self.e.type_id(t)?));
                    self.vals.push(u64::from(self.e.value_id(v)?));
                    self.record(codes::metadata::VALUE, UNABBREV_RECORD)?;
                }
                NMd::String(r) => {
                    self.vals
                        .extend(r.get(&m.metadata.bytes).iter().map(|&b| u64::from(b)));
                    self.record(codes::metadata::STRING, string)?;
                }
                NMd::Local(_) | NMd::Other(_) => {
                    return Err(error::unsupported(format!(
                        "metadata {x} cannot be written"
                    )));
                }
            }
        }
        for nm in &m.metadata.named {
            self.vals.extend(nm.name.bytes().map(u64::from));
            self.record(codes::metadata::NAME, name)?;
            for &op in m.metadata.named_operands(nm) {
                let r = self.e.mds.rep_of(op)?;
                self.vals.push(u64::from(self.e.md_id(r)?));
            }
            self.record(codes::metadata::NAMED_NODE, UNABBREV_RECORD)?;
        }
        self.bs.exit_block()?;
        Ok(())
    }

    /// A symbol table block: `(name, id, is_block)` entries, sorted by name as DXC does.
    fn write_vst(&mut self, mut entries: Vec<(&str, u32, bool)>) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        self.bs.enter_subblock(block::VALUE_SYMTAB, 4)?;
        for (name, id, is_block) in entries {
            let char6 = name.bytes().all(is_char6);
            let seven = name.bytes().all(|b| b < 128);
            let (code, abbrev) = if is_block {
                (
                    codes::value_symtab::BBENTRY,
                    if char6 { VST_BBENTRY_6 } else { VST_ENTRY_8 },
                )
            } else if char6 {
                (codes::value_symtab::ENTRY, VST_ENTRY_6)
            } else if seven {
                (codes::value_symtab::ENTRY, VST_ENTRY_7)
            } else {
                (codes::value_symtab::ENTRY, VST_ENTRY_8)
            };
            self.vals.push(u64::from(id));
            self.vals.extend(name.bytes().map(u64::from));
            self.record(code, abbrev)?;
        }
        self.bs.exit_block()?;
        Ok(())
    }

    fn write_module_vst(&mut self) -> Result<()> {
        let m = self.e.m;
        let mut entries = Vec::new();
        for (i, g) in m.globals.iter().enumerate() {
            if !g.name.is_empty() {
                let id = self
                    .e
                    .value_id(Value::global(crate::entity::GlobalId(i as u32)))?;
                entries.push((g.name.as_str(), id, false));
            }
        }
        for (i, f) in m.functions.iter().enumerate() {
            if !f.name.is_empty() {
                let id = self.e.value_id(Value::function(FuncId(i as u32)))?;
                entries.push((f.name.as_str(), id, false));
            }
        }
        self.write_vst(entries)
    }

    fn write_function(&mut self, f: &'m Function) -> Result<()> {
        let Some(body) = &f.body else { return Ok(()) };
        let width = if self.compact {
            FN_WIDTH_COMPACT
        } else {
            FN_WIDTH
        };
        self.bs.enter_subblock(block::FUNCTION, width)?;
        self.e.incorporate(f)?;
        if self.compact {
            self.define_gep3()?;
        }
        if body.blocks.is_empty() {
            return Err(error::invalid("function body without blocks"));
        }
        self.vals.push(body.blocks.len() as u64);
        self.record(codes::function::DECLAREBLOCKS, UNABBREV_RECORD)?;
        let cst_start = self.e.first_func_const as usize;
        let cst_end = self.e.first_inst as usize;
        self.write_constants(cst_start, cst_end, false, Some(f))?;
        if !self.e.local_mds.is_empty() {
            self.bs.enter_subblock(block::METADATA, 3)?;
            for k in 0..self.e.local_mds.len() {
                let v = self.e.local_mds[k];
                let t = self.e.value_type(Some(f), v)?;
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.vals.push(u64::from(self.e.value_id(v)?));
                self.record(codes::metadata::VALUE, UNABBREV_RECORD)?;
            }
            self.bs.exit_block()?;
        }
        self.check_blocks(body)?;
        let mut inst_id = cst_end as u32;
        let mut last_loc = None;
        let mut loc_at = 0usize;
        let mut locs: Vec<(crate::entity::InstId, crate::inst::DebugLoc)> = body.debug_locs.clone();
        locs.sort_by_key(|l| l.0);
        for (i, inst) in body.insts.iter().enumerate() {
            if i == self.e.late_at {
                let (first, end) = (self.e.late_first as usize, self.e.late_end as usize);
                self.write_constants(first, end, false, Some(f))?;
                inst_id = end as u32;
            }
            self.write_inst(f, body, inst, inst_id)
                .map_err(|e| e.with_instruction(i as u32))?;
            if !self.e.types.is_void(self.e.types.node_of(inst.ty)?) {
                inst_id = inst_id.wrapping_add(1);
            }
            while let Some(&(li, loc)) = locs.get(loc_at) {
                if li.index() > i {
                    break;
                }
                loc_at += 1;
                if li.index() < i {
                    continue;
                }
                if last_loc == Some(loc) {
                    self.record(codes::function::DEBUG_LOC_AGAIN, UNABBREV_RECORD)?;
                    continue;
                }
                let md = |w: &Self, x: u64| -> Result<u64> {
                    if x == 0 {
                        return Ok(0);
                    }
                    let id = u32::try_from(x - 1)
                        .map_err(|_| error::invalid("debug location metadata out of range"))?;
                    let r = w.e.mds.rep_of(crate::entity::MdId(id))?;
                    Ok(u64::from(w.e.md_id(r)?) + 1)
                };
                let scope = md(self, loc.scope)?;
                let ia = md(self, loc.inlined_at)?;
                self.vals.extend([loc.line, loc.col, scope, ia]);
                self.record(codes::function::DEBUG_LOC, UNABBREV_RECORD)?;
                last_loc = Some(loc);
            }
        }
        // Symbol table.
        let mut entries = Vec::with_capacity(body.names.len());
        for n in &body.names {
            match n {
                LocalName::Arg(a, s) => {
                    entries.push((s.as_str(), self.e.value_id(Value::arg(*a))?, false))
                }
                LocalName::Inst(i, s) => {
                    entries.push((s.as_str(), self.e.value_id(Value::inst(*i))?, false))
                }
                LocalName::Block(b, s) => {
                    if b.index() >= body.blocks.len() {
                        return Err(error::invalid(format!("name for missing block {}", b.0)));
                    }
                    entries.push((s.as_str(), b.0, true))
                }
            }
        }
        self.write_vst(entries)?;
        // Attachments.
        if !body.fn_attachments.is_empty() || !body.attachments.is_empty() {
            self.bs.enter_subblock(block::METADATA_ATTACHMENT, 3)?;
            if !body.fn_attachments.is_empty() {
                let mut list = Vec::with_capacity(body.fn_attachments.len());
                for &(k, n) in &body.fn_attachments {
                    list.push((self.e.kind_id(k)?, self.e.md_id(self.e.mds.rep_of(n)?)?));
                }
                list.sort_by_key(|x| x.0);
                for (k, n) in list {
                    self.vals.extend([u64::from(k), u64::from(n)]);
                }
                self.record(codes::metadata::ATTACHMENT, UNABBREV_RECORD)?;
            }
            let mut by_inst: Vec<(u32, u32, u32)> = Vec::with_capacity(body.attachments.len());
            for a in &body.attachments {
                if a.inst.index() >= body.insts.len() {
                    return Err(error::invalid(format!(
                        "attachment on instruction {} which does not exist",
                        a.inst.0
                    )));
                }
                let n = self.e.md_id(self.e.mds.rep_of(a.node)?)?;
                by_inst.push((a.inst.0, self.e.kind_id(a.kind)?, n));
            }
            by_inst.sort_by_key(|x| (x.0, x.1));
            let mut k = 0;
            while k < by_inst.len() {
                let inst = by_inst[k].0;
                self.vals.push(u64::from(inst));
                while k < by_inst.len() && by_inst[k].0 == inst {
                    self.vals
                        .extend([u64::from(by_inst[k].1), u64::from(by_inst[k].2)]);
                    k += 1;
                }
                self.record(codes::metadata::ATTACHMENT, UNABBREV_RECORD)?;
            }
            self.bs.exit_block()?;
        }
        self.e.purge();
        self.bs.exit_block()?;
        Ok(())
    }

    /// Blocks must tile the instruction list, each ending in its (only) terminator.
    fn check_blocks(&self, body: &crate::module::Body) -> Result<()> {
        let mut at = 0u32;
        for (b, d) in body.blocks.iter().enumerate() {
            if d.start != at || d.end <= d.start {
                return Err(error::invalid(format!(
                    "block {b} does not start where the previous one ends or is empty"
                )));
            }
            for i in d.start..d.end {
                let Some(inst) = body.insts.get(i as usize) else {
                    return Err(error::invalid(format!(
                        "block {b} runs past the instructions"
                    )));
                };
                if inst.kind.is_terminator() != (i + 1 == d.end) {
                    return Err(error::invalid(format!(
                        "block {b}: instruction {i} is {} terminator",
                        if inst.kind.is_terminator() {
                            "an early"
                        } else {
                            "not a"
                        }
                    )));
                }
            }
            at = d.end;
        }
        if at as usize != body.insts.len() {
            return Err(error::invalid("instructions after the last block"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_match_llvm() {
        assert_eq!(log2_ceil(1), 0);
        assert_eq!(log2_ceil(2), 1);
        assert_eq!(log2_ceil(3), 2);
        assert_eq!(log2_ceil(60), 6);
        assert_eq!(log2_ceil(64), 6);
        assert_eq!(log2_ceil(65), 7);
        assert_eq!(sign_rotate(0), 0);
        assert_eq!(sign_rotate(1), 2);
        assert_eq!(sign_rotate(-1i64 as u64), 3);
        assert_eq!(sign_rotate(i64::MIN as u64), 1);
        assert_eq!(sign_rotate(0x4567_8900), 0x8ACF_1200);
    }
}
