//! D3D12 root signatures: the RTS0 binary format (versions 1.0, 1.1, 1.2), the HLSL root
//! signature language, D3D12's validation rules, version conversion, and the Vulkan pipeline
//! layout a root signature maps to (vkd3d-proton's binding model), with a register lookup for
//! the DXIL→SPIR-V translator and the Vulkan runtime.
//!
//! * [`RootSignature`] is the model (`D3D12_VERSIONED_ROOT_SIGNATURE_DESC` as plain data;
//!   `serde::Serialize` for JSON output).
//! * [`read_rts0`] / [`RootSignature::from_container`] read, [`RootSignature::to_rts0_bytes`]
//!   writes byte-exactly as DXC does. Standalone blobs need a container around the payload
//!   (one `RTS0` part and the container digest); that is the container crate's job.
//! * [`parse_hlsl`] parses the `[RootSignature("...")]` language as DXC does;
//!   [`RootSignature::to_hlsl`] prints it.
//! * [`RootSignature::convert`] converts between versions without loss (or fails);
//!   [`RootSignature::convert_lossy`] is DXC's dropping conversion.
//! * [`validate`] applies D3D12's rules.
//! * [`layout`] computes the Vulkan pipeline layout; [`PipelineLayout::resolve`] says where a
//!   shader finds a register.
//! * [`contract`] is what a translated shader declares to run under that layout
//!   ([`BindingContract`]), shared by the runtime and the translator.
//!
//! Why hand-written: no crates.io crate reads or writes RTS0 or parses the HLSL root signature
//! language (the `windows` crate only exposes the D3D12 runtime's serializer on Windows), and
//! the Vulkan mapping is specific to this project's translator and runtime.
#![forbid(unsafe_code)]

mod binary;
pub mod contract;
mod convert;
mod error;
pub mod fuzzing;
mod hlsl;
mod layout;
mod model;
mod validate;

pub use binary::{RTS0, find_part, read_rts0, write_rts0};
pub use contract::BindingContract;
pub use error::{Error, Region};
pub use hlsl::{ParseOptions, SignatureKind, parse_hlsl};
pub use layout::{
    BindPoint, BindingFlags, DescriptorSetLayout, DescriptorSetLayoutBinding, DescriptorType,
    DeviceLimits, HeapBinding, HeapLayout, HeapSet, HeapType, HeapView, LayoutOptions,
    ParameterLayout, PipelineLayout, PushConstantRange, RegisterRange, Resolved, RootBlock,
    RootBlockStorage, RootCbvPolicy, SetBinding, SetPurpose, ShaderStage, ShaderStages, TableRange,
    layout,
};
pub use model::*;
pub use validate::{Location, ValidationError, ValidationErrors, ValidationOptions, validate};
