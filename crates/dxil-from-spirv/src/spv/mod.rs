//! The SPIR-V reader: one pass over the words that indexes every id's definition, decodes
//! types, decorations, entry points and execution modes, and records where each function and
//! block lies. Instruction operands are read from the words on demand.
//!
//! Hand-written rather than rspirv's data representation: the translator's budget is tens of
//! microseconds per module, and building rspirv's owned instruction tree (one heap object per
//! instruction and operand) costs more than the whole translation; here the only allocations
//! are a few per-module tables sized by the id bound.

mod decor;
mod types;

use spirv::Op;

use crate::error::{Location, Result, malformed};
pub use decor::{Decor, DecorFlags, MemberDecor};
pub use types::{ImageType, Type};

/// SPIR-V's magic number.
pub const MAGIC: u32 = 0x0723_0203;
/// Largest id bound accepted; a module declaring more ids than this is refused before any
/// table is sized from the bound.
pub const MAX_BOUND: u32 = 1 << 22;

/// One instruction: its opcode, where it starts and all its words (the first word included).
#[derive(Clone, Copy, Debug)]
pub struct Inst<'a> {
    pub opcode: u16,
    pub offset: u32,
    pub words: &'a [u32],
}

impl<'a> Inst<'a> {
    pub fn op(&self) -> Option<Op> {
        decode_op(self.opcode)
    }

    /// Operand `i` (0 = the first word after the opcode word).
    #[inline]
    pub fn word(&self, i: usize) -> Result<u32> {
        self.words
            .get(i + 1)
            .copied()
            .ok_or_else(|| malformed(format!("operand {i} missing")).or_at(self.location()))
    }

    /// Operands from `i` on.
    #[inline]
    pub fn rest(&self, i: usize) -> &'a [u32] {
        self.words.get(i + 1..).unwrap_or(&[])
    }

    /// Number of operand words.
    pub fn operand_count(&self) -> usize {
        self.words.len().saturating_sub(1)
    }

    /// The result id of an instruction with a result type (operand 1).
    pub fn result_id(&self) -> Option<u32> {
        let (has_type, has_result) = result_shape(self.opcode);
        if !has_result {
            return None;
        }
        self.words.get(if has_type { 2 } else { 1 }).copied()
    }

    pub fn location(&self) -> Location {
        Location {
            word: self.offset,
            result_id: self.result_id(),
            opcode: self.opcode,
        }
    }

    /// A literal string starting at operand `i`, and the operand index after it.
    pub fn string(&self, i: usize) -> Result<(String, usize)> {
        let rest = self.rest(i);
        let mut bytes = Vec::new();
        for (n, w) in rest.iter().enumerate() {
            for b in w.to_le_bytes() {
                if b == 0 {
                    return Ok((String::from_utf8_lossy(&bytes).into_owned(), i + n + 1));
                }
                bytes.push(b);
            }
        }
        Err(malformed("unterminated literal string").or_at(self.location()))
    }
}

/// Whether an opcode has a result type and a result id (SPIR-V grammar's `IdResultType` and
/// `IdResult` operands), for the opcodes a shader module uses.
pub fn result_shape(opcode: u16) -> (bool, bool) {
    // The match below is a long search too, run for every instruction the reader sees: the
    // core range comes from a table built once per process (bit 0: result type, bit 1: id).
    static TABLE: std::sync::OnceLock<[u8; OP_TABLE_LEN]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            let (ty, id) = shape_of(i as u16);
            u8::from(ty) | (u8::from(id) << 1)
        })
    });
    match table.get(usize::from(opcode)) {
        Some(&bits) => (bits & 1 != 0, bits & 2 != 0),
        None => shape_of(opcode),
    }
}

fn shape_of(opcode: u16) -> (bool, bool) {
    let Some(op) = decode_op(opcode) else {
        return (false, false);
    };
    spirv_result_shape(op).unwrap_or_default()
}

/// Core opcodes below this are decoded from a table; extension opcodes (4000 on) are rare.
const OP_TABLE_LEN: usize = 1024;

/// `Op::from_u32`, which compiles to a long search over the grammar's sparse opcode values and
/// showed in translation profiles (every pass decodes every instruction): the core range comes
/// from a table built once per process.
pub(crate) fn decode_op(opcode: u16) -> Option<Op> {
    static TABLE: std::sync::OnceLock<[Option<Op>; OP_TABLE_LEN]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| std::array::from_fn(|i| Op::from_u32(i as u32)));
    match table.get(usize::from(opcode)) {
        Some(op) => *op,
        None => Op::from_u32(u32::from(opcode)),
    }
}

fn spirv_result_shape(op: Op) -> Option<(bool, bool)> {
    use Op::*;
    Some(match op {
        Nop
        | SourceContinued
        | Source
        | SourceExtension
        | Name
        | MemberName
        | Line
        | NoLine
        | ModuleProcessed
        | Extension
        | Capability
        | MemoryModel
        | EntryPoint
        | ExecutionMode
        | ExecutionModeId
        | Decorate
        | MemberDecorate
        | GroupDecorate
        | GroupMemberDecorate
        | DecorateId
        | DecorateString
        | MemberDecorateString
        | Store
        | CopyMemory
        | CopyMemorySized
        | FunctionEnd
        | Branch
        | BranchConditional
        | Switch
        | Kill
        | Return
        | ReturnValue
        | Unreachable
        | LoopMerge
        | SelectionMerge
        | ControlBarrier
        | MemoryBarrier
        | AtomicStore
        | EmitVertex
        | EndPrimitive
        | EmitStreamVertex
        | EndStreamPrimitive
        | ImageWrite
        | TypeForwardPointer
        | TerminateInvocation
        | DemoteToHelperInvocation
        | BeginInvocationInterlockEXT
        | EndInvocationInterlockEXT
        | SetMeshOutputsEXT
        | EmitMeshTasksEXT
        | IgnoreIntersectionKHR
        | TerminateRayKHR
        | RayQueryInitializeKHR
        | RayQueryTerminateKHR
        | RayQueryGenerateIntersectionKHR
        | RayQueryConfirmIntersectionKHR
        | CooperativeMatrixStoreNV
        | LifetimeStart
        | LifetimeStop
        | MemoryNamedBarrier
        | GroupWaitEvents
        | CaptureEventProfilingInfo
        | SetUserEventStatus
        | RetainEvent
        | ReleaseEvent
        | CommitReadPipe
        | CommitWritePipe
        | GroupCommitReadPipe
        | GroupCommitWritePipe
        | ExecuteCallableKHR
        | TraceRayKHR
        | WritePackedPrimitiveIndices4x8NV => (false, false),
        ExtInstImport
        | String
        | TypeVoid
        | TypeBool
        | TypeInt
        | TypeFloat
        | TypeVector
        | TypeMatrix
        | TypeImage
        | TypeSampler
        | TypeSampledImage
        | TypeArray
        | TypeRuntimeArray
        | TypeStruct
        | TypeOpaque
        | TypePointer
        | TypeFunction
        | TypeEvent
        | TypeDeviceEvent
        | TypeReserveId
        | TypeQueue
        | TypePipe
        | TypeAccelerationStructureKHR
        | TypeRayQueryKHR
        | TypeCooperativeMatrixNV
        | TypeCooperativeMatrixKHR
        | Label
        | DecorationGroup => (false, true),
        _ => (true, true),
    })
}

/// Everything known about one id: the instruction that defines it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Def {
    /// Word offset of the defining instruction; 0 = never defined (words 0..5 are the header).
    pub offset: u32,
    pub opcode: u16,
    /// The result type id, 0 when the instruction has none.
    pub ty: u32,
}

impl Def {
    /// The defining instruction's opcode.
    #[inline]
    pub fn op(&self) -> Option<Op> {
        decode_op(self.opcode)
    }
}

/// One function: its parameters and blocks, as word offsets.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub id: u32,
    pub ty: u32,
    pub result_ty: u32,
    pub offset: u32,
    pub params: Vec<u32>,
    pub blocks: Vec<Block>,
}

/// One block: its label and the word range of its instructions (after the label, through
/// the terminator).
#[derive(Clone, Copy, Debug, Default)]
pub struct Block {
    pub label: u32,
    pub start: u32,
    pub end: u32,
}

/// `OpEntryPoint`.
#[derive(Clone, Debug)]
pub struct EntryPoint {
    pub model: spirv::ExecutionModel,
    pub function: u32,
    pub name: String,
    pub interface: Vec<u32>,
    pub offset: u32,
}

/// `OpExecutionMode` / `OpExecutionModeId`: the mode and its literal (or id) operands.
#[derive(Clone, Debug)]
pub struct ExecMode {
    pub function: u32,
    pub mode: spirv::ExecutionMode,
    pub operands: Vec<u32>,
    pub by_id: bool,
    pub offset: u32,
}

/// A parsed module.
#[derive(Debug, Default)]
pub struct Module<'a> {
    pub words: &'a [u32],
    pub version: (u8, u8),
    pub bound: u32,
    pub defs: Vec<Def>,
    pub types: Vec<Type>,
    /// Struct member type ids, function parameter type ids: ranges from [`Type`]s.
    pub type_lists: Vec<u32>,
    pub capabilities: Vec<spirv::Capability>,
    pub extensions: Vec<String>,
    /// The id of the `GLSL.std.450` import, if any.
    pub glsl_std: Option<u32>,
    /// Other extended-instruction imports (debug info and such), ignored when used by
    /// `OpExtInst` whose result is unused.
    pub other_imports: Vec<(u32, String)>,
    pub entry_points: Vec<EntryPoint>,
    pub exec_modes: Vec<ExecMode>,
    pub decor: decor::Decorations,
    /// Global `OpVariable` ids in declaration order.
    pub globals: Vec<u32>,
    pub functions: Vec<Function>,
    /// Word offset of the `OpName` of an id (looked up for reflection and messages only).
    pub names: Vec<(u32, u32)>,
    pub addressing_physical: bool,
}

/// Reinterprets bytes as SPIR-V words, in either byte order (the magic number decides).
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(malformed(format!(
            "{} bytes is not a whole number of 32-bit words",
            bytes.len()
        )));
    }
    let first = bytes
        .get(..4)
        .ok_or_else(|| malformed("empty input"))?
        .try_into()
        .map_err(|_| malformed("empty input"))?;
    let swap = u32::from_le_bytes(first) != MAGIC;
    if swap && u32::from_be_bytes(first) != MAGIC {
        return Err(malformed("not SPIR-V (bad magic number)"));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if swap {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        })
        .collect())
}

/// Iterates the instructions of `words[start..end]`.
pub struct Insts<'a> {
    words: &'a [u32],
    pos: usize,
    end: usize,
}

impl<'a> Iterator for Insts<'a> {
    type Item = Result<Inst<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.end {
            return None;
        }
        let first = self.words[self.pos];
        let count = (first >> 16) as usize;
        let opcode = (first & 0xffff) as u16;
        if count == 0 || self.pos + count > self.end {
            let at = Location {
                word: self.pos as u32,
                result_id: None,
                opcode,
            };
            self.pos = self.end;
            return Some(Err(malformed(format!(
                "instruction word count {count} runs past the end of the module"
            ))
            .or_at(at)));
        }
        let inst = Inst {
            opcode,
            offset: self.pos as u32,
            words: &self.words[self.pos..self.pos + count],
        };
        self.pos += count;
        Some(Ok(inst))
    }
}

impl<'a> Module<'a> {
    /// Parses a module.
    pub fn parse(words: &'a [u32]) -> Result<Module<'a>> {
        let header = words
            .get(..5)
            .ok_or_else(|| malformed("shorter than the 5-word header"))?;
        if header[0] != MAGIC {
            return Err(malformed("not SPIR-V (bad magic number)"));
        }
        let version = (
            ((header[1] >> 16) & 0xff) as u8,
            ((header[1] >> 8) & 0xff) as u8,
        );
        let bound = header[3];
        if bound > MAX_BOUND || bound as usize > words.len().saturating_mul(2) + 64 {
            return Err(malformed(format!(
                "id bound {bound} is larger than a module of {} words can use",
                words.len()
            )));
        }
        let mut m = Module {
            words,
            version,
            bound,
            defs: vec![Def::default(); bound as usize],
            types: vec![Type::None; bound as usize],
            ..Default::default()
        };
        m.read_all()?;
        Ok(m)
    }

    /// Instructions in `words[start..end]`.
    pub fn insts(&self, start: u32, end: u32) -> Insts<'a> {
        Insts {
            words: self.words,
            pos: start as usize,
            end: (end as usize).min(self.words.len()),
        }
    }

    /// The instruction at a word offset.
    pub fn inst_at(&self, offset: u32) -> Result<Inst<'a>> {
        self.insts(offset, self.words.len() as u32)
            .next()
            .unwrap_or_else(|| Err(malformed(format!("no instruction at word {offset}"))))
    }

    /// The definition of an id (an error for an id out of range or never defined).
    #[inline]
    pub fn def(&self, id: u32) -> Result<Def> {
        match self.defs.get(id as usize) {
            Some(d) if d.offset != 0 => Ok(*d),
            _ => Err(malformed(format!("%{id} is not defined"))),
        }
    }

    /// The type an id declares (`OpType*`), or an error naming the id.
    #[inline]
    pub fn ty(&self, id: u32) -> Result<Type> {
        match self.types.get(id as usize) {
            Some(Type::None) | None => Err(malformed(format!("%{id} is not a type"))),
            Some(t) => Ok(*t),
        }
    }

    /// The result type of a value id.
    #[inline]
    pub fn type_of(&self, id: u32) -> Result<u32> {
        let d = self.def(id)?;
        if d.ty == 0 {
            return Err(malformed(format!("%{id} has no type")));
        }
        Ok(d.ty)
    }

    pub fn list(&self, range: (u32, u32)) -> &[u32] {
        self.type_lists
            .get(range.0 as usize..(range.0 + range.1) as usize)
            .unwrap_or(&[])
    }

    /// The name `OpName` gives an id, if any.
    pub fn name(&self, id: u32) -> Option<String> {
        let i = self.names.binary_search_by_key(&id, |(n, _)| *n).ok()?;
        let inst = self.inst_at(self.names[i].1).ok()?;
        inst.string(1).ok().map(|(s, _)| s)
    }

    pub fn function(&self, id: u32) -> Option<&Function> {
        self.functions.iter().find(|f| f.id == id)
    }

    fn read_all(&mut self) -> Result<()> {
        let mut current: Option<Function> = None;
        let mut block: Option<Block> = None;
        let words = self.words;
        for inst in self.insts(5, words.len() as u32) {
            let inst = inst?;
            let at = inst.location();
            let op = inst.op();
            // Record the definition of every result id.
            let (has_type, has_result) = result_shape(inst.opcode);
            if has_result {
                let (ty, id) = if has_type {
                    (inst.word(0)?, inst.word(1)?)
                } else {
                    (0, inst.word(0)?)
                };
                let slot = self.defs.get_mut(id as usize).ok_or_else(|| {
                    malformed(format!("%{id} is not below the id bound {}", self.bound)).or_at(at)
                })?;
                if slot.offset != 0 {
                    return Err(malformed(format!("%{id} is defined twice")).or_at(at));
                }
                *slot = Def {
                    offset: inst.offset,
                    opcode: inst.opcode,
                    ty,
                };
            }
            let Some(op) = op else {
                if current.is_some() {
                    // Unknown opcodes inside functions are reported when translated.
                    continue;
                }
                continue;
            };
            match op {
                Op::Capability => {
                    if let Some(c) = spirv::Capability::from_u32(inst.word(0)?) {
                        self.capabilities.push(c);
                    }
                }
                Op::Extension => self.extensions.push(inst.string(0)?.0),
                Op::ExtInstImport => {
                    let id = inst.word(0)?;
                    let (name, _) = inst.string(1)?;
                    if name == "GLSL.std.450" {
                        self.glsl_std = Some(id);
                    } else {
                        self.other_imports.push((id, name));
                    }
                }
                Op::MemoryModel => {
                    self.addressing_physical =
                        inst.word(0)? != spirv::AddressingModel::Logical as u32;
                }
                Op::EntryPoint => {
                    let model = spirv::ExecutionModel::from_u32(inst.word(0)?)
                        .ok_or_else(|| malformed("unknown execution model").or_at(at))?;
                    let function = inst.word(1)?;
                    let (name, next) = inst.string(2)?;
                    self.entry_points.push(EntryPoint {
                        model,
                        function,
                        name,
                        interface: inst.rest(next).to_vec(),
                        offset: inst.offset,
                    });
                }
                Op::ExecutionMode | Op::ExecutionModeId => {
                    let function = inst.word(0)?;
                    if let Some(mode) = spirv::ExecutionMode::from_u32(inst.word(1)?) {
                        self.exec_modes.push(ExecMode {
                            function,
                            mode,
                            operands: inst.rest(2).to_vec(),
                            by_id: op == Op::ExecutionModeId,
                            offset: inst.offset,
                        });
                    }
                }
                Op::Name => {
                    self.names.push((inst.word(0)?, inst.offset));
                }
                Op::Decorate | Op::DecorateId | Op::DecorateString => {
                    self.decor
                        .decorate(&inst, self.bound as usize)
                        .map_err(|e| e.or_at(at))?;
                }
                Op::MemberDecorate | Op::MemberDecorateString => {
                    self.decor.decorate_member(&inst).map_err(|e| e.or_at(at))?;
                }
                Op::DecorationGroup | Op::GroupDecorate | Op::GroupMemberDecorate => {
                    return Err(crate::error::unsupported(
                        "decoration groups (deprecated in SPIR-V 1.5)",
                    )
                    .or_at(at));
                }
                Op::Function => {
                    if current.is_some() {
                        return Err(malformed("OpFunction inside a function").or_at(at));
                    }
                    current = Some(Function {
                        id: inst.word(1)?,
                        result_ty: inst.word(0)?,
                        ty: inst.word(3)?,
                        offset: inst.offset,
                        params: Vec::new(),
                        blocks: Vec::new(),
                    });
                }
                Op::FunctionParameter => match &mut current {
                    Some(f) if f.blocks.is_empty() => f.params.push(inst.word(1)?),
                    _ => {
                        return Err(
                            malformed("OpFunctionParameter outside a function header").or_at(at)
                        );
                    }
                },
                Op::Label => {
                    let Some(f) = &mut current else {
                        return Err(malformed("OpLabel outside a function").or_at(at));
                    };
                    if block.is_some() {
                        return Err(malformed("block without a terminator").or_at(at));
                    }
                    let _ = f;
                    block = Some(Block {
                        label: inst.word(0)?,
                        start: inst.offset + inst.words.len() as u32,
                        end: 0,
                    });
                }
                Op::FunctionEnd => {
                    let Some(f) = current.take() else {
                        return Err(malformed("OpFunctionEnd outside a function").or_at(at));
                    };
                    if block.is_some() {
                        return Err(malformed("block without a terminator").or_at(at));
                    }
                    self.functions.push(f);
                }
                Op::Variable if current.is_none() => {
                    self.globals.push(inst.word(1)?);
                }
                Op::Variable => {}
                _ if is_type_op(op) => {
                    let t = types::decode(self, &inst).map_err(|e| e.or_at(at))?;
                    let id = inst.word(0)?;
                    if let Some(slot) = self.types.get_mut(id as usize) {
                        *slot = t;
                    }
                }
                _ => {}
            }
            if is_block_terminator(op) {
                let (Some(f), Some(mut b)) = (&mut current, block.take()) else {
                    return Err(malformed("terminator outside a block").or_at(at));
                };
                b.end = inst.offset + inst.words.len() as u32;
                f.blocks.push(b);
            } else if block.is_none()
                && current.as_ref().is_some_and(|f| !f.blocks.is_empty())
                && !matches!(op, Op::Label | Op::FunctionEnd | Op::Line | Op::NoLine)
                && !(op == Op::ExtInst && self.is_non_semantic(inst.word(2)?))
            {
                return Err(malformed("instruction between blocks").or_at(at));
            }
        }
        if current.is_some() {
            return Err(malformed("function without OpFunctionEnd"));
        }
        self.names.sort_unstable_by_key(|(id, _)| *id);
        self.decor.finish();
        Ok(())
    }
}

impl Module<'_> {
    /// Whether `set` is an imported set of debug or non-semantic instructions, which carry
    /// nothing for the translation (glslang's `-gV` even puts its line records between a
    /// block's terminator and the next label).
    pub fn is_non_semantic(&self, set: u32) -> bool {
        self.other_imports.iter().any(|(id, name)| {
            *id == set && (name.starts_with("NonSemantic.") || name.starts_with("DebugInfo"))
        })
    }
}

/// Terminators end a block.
pub fn is_block_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Kill
            | Op::Unreachable
            | Op::TerminateInvocation
            | Op::IgnoreIntersectionKHR
            | Op::TerminateRayKHR
            | Op::EmitMeshTasksEXT
    )
}

/// Whether an opcode declares a type.
fn is_type_op(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        TypeVoid
            | TypeBool
            | TypeInt
            | TypeFloat
            | TypeVector
            | TypeMatrix
            | TypeImage
            | TypeSampler
            | TypeSampledImage
            | TypeArray
            | TypeRuntimeArray
            | TypeStruct
            | TypePointer
            | TypeFunction
            | TypeAccelerationStructureKHR
            | TypeRayQueryKHR
            | TypeOpaque
            | TypeEvent
            | TypeDeviceEvent
            | TypeReserveId
            | TypeQueue
            | TypePipe
            | TypeCooperativeMatrixNV
            | TypeCooperativeMatrixKHR
    )
}
