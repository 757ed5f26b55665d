//! The module: globals, functions, bodies, attributes.

use std::borrow::Cow;

use crate::constants::Constants;
use crate::entity::{AttrListId, BlockId, FuncId, GlobalId, InstId, MdId, PoolRange, TypeId};
use crate::inst::{DebugLoc, InstData, InstKind};
use crate::metadata::Metadata;
use crate::types::Types;
use crate::value::{Value, ValueRef};

/// One attribute of an attribute group.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Attribute {
    /// An enum attribute by its 3.7 kind number (18 = nounwind, 20 = readnone, ...).
    Enum(u32),
    /// An integer attribute (`align 4`, `dereferenceable(8)`): kind and value.
    Int(u32, u64),
    /// A string attribute without value (`"foo"`).
    Str(String),
    /// A string attribute with value (`"foo"="bar"`).
    StrValue(String, String),
}

/// `PARAMATTR_GROUP` entry: attributes of one slot (function, return value or a parameter).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AttrGroup {
    /// The group's id in the file (`#N` in assembly).
    pub id: u32,
    /// 0xFFFFFFFF = function, 0 = return value, i = parameter i (1-based).
    pub slot: u32,
    pub attrs: Vec<Attribute>,
}

/// Slot number of function attributes.
pub const FUNCTION_SLOT: u32 = u32::MAX;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GlobalVar {
    pub name: String,
    /// The type of the pointed-to value.
    pub value_ty: TypeId,
    /// The global's own (pointer) type.
    pub ptr_ty: TypeId,
    pub address_space: u32,
    pub is_constant: bool,
    pub init: Option<Value>,
    pub linkage: u32,
    /// log2(align) + 1; 0 = unspecified.
    pub align: u32,
    /// Section index + 1 into [`Module::section_names`]; 0 = none.
    pub section: u32,
    pub visibility: u32,
    pub thread_local: u32,
    pub unnamed_addr: u32,
    pub externally_initialized: bool,
    pub dll_storage: u32,
    pub comdat: u32,
    /// How many optional trailing fields the record carried (writers reproduce the short form).
    pub record_len: u8,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// The function type.
    pub ty: TypeId,
    /// Pointer to the function type: the type of the function used as a value.
    pub ptr_ty: TypeId,
    pub calling_conv: u32,
    pub linkage: u32,
    pub attrs: Option<AttrListId>,
    /// log2(align) + 1; 0 = unspecified.
    pub align: u32,
    pub section: u32,
    pub visibility: u32,
    pub gc: u32,
    pub unnamed_addr: u32,
    pub prologue_data: u32,
    pub dll_storage: u32,
    pub comdat: u32,
    pub prefix_data: u32,
    pub personality: u32,
    /// `None` for a declaration.
    pub body: Option<Body>,
    /// Whether the record says it is a prototype (declaration).
    pub is_proto: bool,
}

impl Function {
    /// A function with external linkage, the C calling convention and every optional field
    /// unset, as the builders and tests make them: a declaration when `body` is `None`.
    pub fn new(
        name: impl Into<String>,
        ty: TypeId,
        ptr_ty: TypeId,
        attrs: Option<AttrListId>,
        body: Option<Body>,
    ) -> Function {
        Function {
            name: name.into(),
            ty,
            ptr_ty,
            calling_conv: 0,
            linkage: 0,
            attrs,
            align: 0,
            section: 0,
            visibility: 0,
            gc: 0,
            unnamed_addr: 0,
            prologue_data: 0,
            dll_storage: 0,
            comdat: 0,
            prefix_data: 0,
            personality: 0,
            is_proto: body.is_none(),
            body,
        }
    }

    pub fn is_declaration(&self) -> bool {
        self.body.is_none()
    }
}

/// A basic block: a contiguous run of the body's instructions.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct BlockData {
    pub start: u32,
    pub end: u32,
}

/// A name from a function's value symbol table.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LocalName {
    Arg(u32, String),
    Inst(InstId, String),
    Block(BlockId, String),
}

/// Metadata attached to one instruction.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Attachment {
    pub inst: InstId,
    pub kind: u32,
    pub node: MdId,
}

#[derive(Clone, Debug, Default)]
pub struct Body {
    pub blocks: Vec<BlockData>,
    /// Every instruction in program order, void ones included.
    pub insts: Vec<InstData>,
    /// Flat operand lists of the instructions (values, block indices, raw indices).
    pub pool: Vec<u32>,
    pub names: Vec<LocalName>,
    /// Instruction attachments, sorted by instruction.
    pub attachments: Vec<Attachment>,
    /// Attachments on the function itself: (kind, node).
    pub fn_attachments: Vec<(u32, MdId)>,
    pub debug_locs: Vec<(InstId, DebugLoc)>,
}

impl Body {
    #[inline]
    pub fn inst(&self, i: InstId) -> Option<&InstData> {
        self.insts.get(i.index())
    }

    pub fn block_insts(&self, b: BlockId) -> std::ops::Range<u32> {
        match self.blocks.get(b.index()) {
            Some(d) => d.start..d.end,
            None => 0..0,
        }
    }

    /// The terminator of a block (its last instruction, if that is a terminator).
    pub fn terminator(&self, b: BlockId) -> Option<&InstKind> {
        let r = self.block_insts(b);
        if r.is_empty() {
            return None;
        }
        let last = self.insts.get(r.end as usize - 1)?;
        last.kind.is_terminator().then_some(&last.kind)
    }

    /// Values of a pooled operand list.
    #[inline]
    pub fn values(&self, r: PoolRange) -> impl ExactSizeIterator<Item = Value> + '_ {
        r.get(&self.pool).iter().map(|&v| Value(v))
    }

    /// Raw u32s of a pooled list (indices, block numbers).
    #[inline]
    pub fn raw(&self, r: PoolRange) -> &[u32] {
        r.get(&self.pool)
    }

    /// `(value, block)` pairs of a phi.
    pub fn phi_incoming(&self, r: PoolRange) -> impl Iterator<Item = (Value, BlockId)> + '_ {
        r.get(&self.pool)
            .chunks_exact(2)
            .map(|p| (Value(p[0]), BlockId(p[1])))
    }

    /// `(case value, block)` pairs of a switch.
    pub fn switch_cases(&self, r: PoolRange) -> impl Iterator<Item = (Value, BlockId)> + '_ {
        self.phi_incoming(r)
    }

    /// Successor blocks of a block, in terminator operand order (duplicates kept).
    pub fn successors(&self, b: BlockId, out: &mut Vec<BlockId>) {
        out.clear();
        match self.terminator(b) {
            Some(InstKind::Br { dest }) => out.push(*dest),
            Some(InstKind::CondBr {
                if_true, if_false, ..
            }) => {
                out.push(*if_true);
                out.push(*if_false);
            }
            Some(InstKind::Switch { default, cases, .. }) => {
                out.push(*default);
                out.extend(self.switch_cases(*cases).map(|(_, b)| b));
            }
            _ => {}
        }
    }

    /// The name the value symbol table gives an instruction, if any.
    pub fn inst_name(&self, i: InstId) -> Option<&str> {
        self.names.iter().find_map(|n| match n {
            LocalName::Inst(x, s) if *x == i => Some(s.as_str()),
            _ => None,
        })
    }
}

/// The target triple of every DXIL module.
pub const DXIL_TRIPLE: &str = "dxil-ms-dx";

/// The data layouts DXC writes: without and with native 16-bit types.
pub const DXIL_DATALAYOUTS: [&str; 2] = [
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64",
    "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64",
];

/// An LLVM 3.7 module as DXIL stores it.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// MODULE_CODE_VERSION (1 = relative value ids).
    pub version: u64,
    /// Borrowed from [`DXIL_TRIPLE`] when it is that (read modules share it).
    pub triple: Cow<'static, str>,
    /// Borrowed from [`DXIL_DATALAYOUTS`] when it is one of them.
    pub datalayout: Cow<'static, str>,
    pub section_names: Vec<String>,
    pub gc_names: Vec<String>,
    pub types: Types,
    pub attr_groups: Vec<AttrGroup>,
    /// PARAMATTR entries: each is a list of group ids.
    pub attr_lists: Vec<Vec<u32>>,
    pub globals: Vec<GlobalVar>,
    pub functions: Vec<Function>,
    pub constants: Constants,
    pub metadata: Metadata,
}

impl Module {
    pub fn function(&self, f: FuncId) -> Option<&Function> {
        self.functions.get(f.index())
    }

    pub fn global(&self, g: GlobalId) -> Option<&GlobalVar> {
        self.globals.get(g.index())
    }

    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The attribute groups of an attribute list.
    pub fn attr_list(&self, l: AttrListId) -> impl Iterator<Item = &AttrGroup> + '_ {
        let ids: &[u32] = self.attr_lists.get(l.index()).map_or(&[], |v| v.as_slice());
        ids.iter()
            .filter_map(|id| self.attr_groups.iter().find(|g| g.id == *id))
    }

    /// The type of a value, evaluated in the context of `func` (for arguments and instructions).
    pub fn value_type(&self, func: Option<&Function>, v: Value) -> Option<TypeId> {
        match v.get() {
            ValueRef::Const(c) => self.constants.get(c).map(|c| c.ty),
            ValueRef::Global(g) => self.global(g).map(|g| g.ptr_ty),
            ValueRef::Function(f) => self.function(f).map(|f| f.ptr_ty),
            ValueRef::Arg(a) => {
                let f = func?;
                let (_, params, _) = self.types.function_signature(f.ty)?;
                params.get(a as usize).copied()
            }
            ValueRef::Inst(i) => func?.body.as_ref()?.inst(i).map(|d| d.ty),
            ValueRef::Metadata(_) => self
                .types
                .iter()
                .find(|(_, d)| matches!(d, crate::types::TypeData::Metadata))
                .map(|(id, _)| id),
            ValueRef::Unresolved(_) => None,
        }
    }

    /// The constant integer value of an operand, if it is one.
    #[inline]
    pub fn const_int(&self, v: Value) -> Option<i64> {
        self.constants.as_int(v.as_const()?)
    }
}
