//! DXIL shader semantics on top of the LLVM module: what the `dx.op` operations are, what
//! the `dx.*` metadata says, and where resource handles come from.
//!
//! - [`ops`]: the DXIL operation table (opcodes, classes, overloads, attributes, versions,
//!   DXC's disassembly comments), generated at build time from `data/dxil-ops.txt`.
//! - [`DxilModule::from_module`]: the typed view of a module's metadata — shader model, DXIL
//!   and validator versions, entry points with signatures and tagged properties (shader flags,
//!   thread-group size, GS/HS/DS/MS/AS state, wave size, node shader properties, ...), the
//!   `!dx.resources` records, `!dx.viewIdState` and type annotations. Everything serializes
//!   with serde (`dxil info --json` prints it). Errors name the metadata node and field.
//! - [`DxOpTable`]: classifies the module's `dx.op.*` functions once, so that decoding a call
//!   ([`DxOpTable::decode`], [`DxilModule::dx_op`]) costs a few array lookups.
//! - [`HandleResolver`]: walks a handle back through `annotateHandle`, `phi` and `select` to
//!   the creations it can come from, with their resource records and properties.
//! - [`ShaderFlags`]: the named flag bits and their `SFI0` feature bits.
//!
//! No crates.io crate carries this: the DXC bindings link the C++ compiler and expose neither
//! the per-opcode data nor a metadata model, so the table is kept here as a reviewed data file
//! and the metadata schema is decoded by hand from DXC's documented layout
//! (`DxilMetadataHelper.h`, DXIL.rst).

#![forbid(unsafe_code)]

pub mod annotations;
pub mod dxop;
pub mod entry;
pub mod enums;
mod error;
pub mod flags;
pub mod fuzz;
pub mod handle;
mod md;
pub mod module;
pub mod ops;
pub mod resource;
mod ser;
pub mod signature;
#[cfg(test)]
mod testutil;

pub use annotations::{FieldAnnotation, FunctionAnnotation, StructAnnotation, TypeAnnotations};
pub use dxop::{DxOpCall, DxOpError, DxOpFunction, DxOpTable, dx_op};
pub use entry::{
    AsState, DsState, EntryPoint, EntryProperties, GsState, HsState, MsState, NodeId, NodeIo,
    NodeProperties, WaveSize,
};
pub use enums::{
    ComponentType, InputPrimitive, InterpolationMode, MeshOutputTopology, NodeLaunchType,
    PrimitiveTopology, ResourceClass, ResourceKind, SamplerFeedbackType, SamplerKind, SemanticKind,
    ShaderKind, TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning,
    hlsl_type_name,
};
pub use error::{Error, ErrorKind, Result};
pub use flags::ShaderFlags;
pub use handle::{HandleCandidate, HandleInfo, HandleOrigin, HandleResolver, describe_creation};
pub use module::{DxilModule, RawProperty, ShaderModel, Version};
pub use resource::{
    ClassFields, ResBind, Resource, ResourceProperties, ResourceRef, ResourceSymbol, ResourceTags,
    Resources,
};
pub use signature::{SignatureElement, Signatures};
