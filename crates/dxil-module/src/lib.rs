//! The LLVM 3.7 module model that DXIL is made of, and its bitcode reader and writer.
//!
//! Everything lives in flat arenas indexed by typed `u32` ids ([`entity`]); instruction operands
//! are packed 4-byte [`Value`]s, and variable-length operand lists are ranges into per-body pools.
//! There are no pointer graphs: a module is plain data that is cheap to build, walk and drop.
//!
//! The model keeps what the bitcode says (including raw linkage numbers, alignment fields and
//! attribute groups) so that the writer can reproduce DXC's bytes, and so that the text printer can
//! reproduce DXC's listing.
//!
//! Callers that read module after module on a thread can hand each finished one to [`recycle`]:
//! the next read on the thread then reuses its storage (arenas, names, type lists, attribute
//! groups) instead of allocating it again.
#![forbid(unsafe_code)]

pub mod check;
pub mod codes;
pub mod constants;
pub mod entity;
pub mod inst;
pub mod metadata;
pub mod module;
pub mod read;
pub mod types;
pub mod value;
pub mod write;

pub use constants::{ConstData, ConstKey, Constant, Constants};
pub use entity::{AttrListId, BlockId, ConstId, FuncId, GlobalId, InstId, MdId, PoolRange, TypeId};
pub use inst::{
    BinOp, CastOp, DebugLoc, InstData, InstKind, Ordering, Predicate, RmwOp, SyncScope,
};
pub use metadata::{MdData, MdKind, Metadata, NamedMd};
pub use module::{
    Attachment, AttrGroup, Attribute, BlockData, Body, DXIL_DATALAYOUTS, DXIL_TRIPLE,
    FUNCTION_SLOT, Function, GlobalVar, LocalName, Module,
};
pub use read::{ReadError, ReadErrorKind, read_module, recycle};
pub use types::{TypeData, Types};
pub use value::{Value, ValueRef};
pub use write::{
    PatchSite, WriteError, WriteErrorKind, WriteOptions, WriteOutput, patch_constant, write_module,
    write_module_with_sites,
};
