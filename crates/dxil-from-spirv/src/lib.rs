//! SPIR-V → DXIL: translates a Vulkan SPIR-V module (1.0–1.6) into a signed DXIL container
//! that DXC's validator accepts: bitcode, signatures, `PSV0`, `SFI0`, a root signature
//! (`RTS0`) describing the bindings, `HASH` and the container digest.
//!
//! ```no_run
//! let bytes = std::fs::read("shader.spv").unwrap();
//! let words = dxil_from_spirv::words_from_bytes(&bytes).unwrap();
//! let out = dxil_from_spirv::translate(&words, &Default::default()).unwrap();
//! std::fs::write("shader.dxil", &out.container).unwrap();
//! ```
//!
//! How it works:
//! - [`spv`] reads the module in one pass (ids, types, decorations, functions, blocks).
//! - `lower` inlines every function into `@main` (a tessellation control shader becomes a
//!   hull shader's two functions: `@main` per control point and a patch-constant function
//!   that runs the shader once per control point in a loop), maps blocks onto DXIL blocks
//!   (SPIR-V's structured control flow is reducible, and `OpPhi` is `phi`), turns composites
//!   into runs of scalars, and lowers memory by storage class: local arrays for `Function`,
//!   `Private` and `Workgroup` variables; raw buffers addressed by byte offsets (from the
//!   `Offset`, `ArrayStride` and `MatrixStride` decorations) for storage buffers; 16-byte rows
//!   of constant buffers for uniform buffers and push constants. The local arrays that are
//!   indexed by constants only then become values and phis (as DXC's scalar replacement
//!   does); arrays indexed dynamically stay in memory. Stage variables are signature elements
//!   read and written by row and column; an input read at a run-time offset that moves within
//!   a row (a vector's component) reads every component it can reach and selects one.
//! - [`bindings`] places every descriptor in a register (Godot's arithmetic by default, or a
//!   map), choosing SRV or UAV from the type, the decorations and whether the shader writes.
//! - The module goes through `dxil-assembler` (signatures, `PSV0`, `SFI0`, `HASH`, digest)
//!   with a root signature from `dxil-rootsig`.
//! - [`spec`]: with [`SpecMode::Patchable`], every specialization constant stays a value the
//!   bitcode writer encodes at a fixed width; [`spec::patch`] rewrites it in place and re-signs
//!   the container without translating again or running a validator.
//!
//! What is refused, with an [`Error`] naming the instruction (`tests/corpus.expected` gives
//! every corpus input's outcome):
//! - not expressible in DXIL: pointers into memory (buffer device addresses, variable
//!   pointers, `OpConvertUToPtr`), acceleration structures from addresses
//!   (`OpConvertUToAccelerationStructureKHR`), the dispatch size (`NumWorkgroups`),
//!   `DrawIndex`, `FragInvocationCountEXT` (it follows the pipeline's sample shading state),
//!   vendor built-ins (NV viewport masks, per-view and secondary positions, warp ids), AMD
//!   fragment-mask fetches (D3D12 exposes no MSAA compression masks), render targets past 7,
//!   more than 8 clip and cull distances, elements that would share a signature row with
//!   different interpolation, loops without an exit, mesh shaders that output points (D3D12 mesh shaders output lines or triangles);
//! - not translated (yet): NV mesh and task shaders (the EXT ones are), mesh outputs read
//!   back, ray queries with opacity micromaps (shader model 6.9's `AllocateRayQuery2`),
//!   8-bit integers in stage variables and atomics (registers, function, private and
//!   workgroup variables, buffers and push constants hold them, see below), 8-bit operands of
//!   extended instructions and the other instructions that `lower::int8` does not list, clustered or partitioned ballot counts, writable multisampled images, 64-bit
//!   stage inputs and outputs, structs inside arrays of stage variables.
//!
//! The `Groups` capability's group operations at subgroup scope (`OpGroupIAdd`, ...) and
//! SPV_AMD_shader_ballot's `OpGroup*NonUniformAMD` are the matching `OpGroupNonUniform*`.
//!
//! Subgroup operations without a DXIL instruction (clustered and partitioned reductions,
//! min/max, bitwise and logical scans, partitioned min/max scans) are a tree of
//! `WaveReadLaneAt` over aligned blocks of lanes, reading only lanes of the active lanes'
//! ballot or of the partition (module `lower::wave_tree`): one DXIL loop over the seven levels
//! per operation, the sibling lanes found once per lane mask and block; partitioned sums,
//! products and bitwise scans are `WaveMultiPrefixOp`.
//!
//! 8-bit integers live in `i32` registers as their byte zero-extended: arithmetic that can
//! carry past the byte is masked back, operations that read the sign sign-extend it first
//! (module `lower::int8`); subgroup operations run on the `i32`, signed minima and maxima as
//! unsigned ones of the byte with its sign bit flipped. In buffers and push constants a byte is read from its 32-bit word
//! and written with an atomic `and` and `or` on that word, so that invocations writing the
//! neighbouring bytes at the same time do not lose their writes.
//!
//! Ray queries (SPV_KHR_ray_query) become `AllocateRayQuery` handles kept in the query
//! variable's local array and `RayQuery_*` operations (shader model 6.5, any stage);
//! acceleration structures are SRVs of kind `RTAccelerationStructure`. `SamplePosition` is
//! `RenderTargetGetSamplePosition` at `SV_SampleIndex` (which, like the Vulkan built-in, makes
//! the shader run per sample), `FragSizeEXT` is decoded from `SV_ShadingRate`.
//!
//! D3D12 has no input attachments: a subpass input is a `Texture2D` (`Texture2DMS`) SRV read
//! with `TextureLoad` at the fragment's pixel, `(int)SV_Position.xy` plus the coordinate
//! operand, at mip 0 or at the sample operand; the shader gets the `SV_Position` input if it
//! has none.
//!
//! A tessellation control shader's memory side effects (storage writes, atomics) run once in
//! each of the hull shader's two functions.
//!
//! Why hand-written: no crate translates SPIR-V to DXIL (Mesa's `spirv_to_dxil` is C inside
//! Mesa, and naga's DXIL back end is a wish); the SPIR-V reader is our own because the
//! translation budget is tens of microseconds per module (see [`spv`]).
#![forbid(unsafe_code)]

pub mod bindings;
mod builder;
mod error;
mod finish;
pub mod fuzz;
mod lower;
mod metadata;
mod rootsig;
pub mod spec;
pub mod spv;

use std::sync::Arc;

pub use bindings::{
    BindingInfo, BindingMap, BindingRequest, BindingTarget, DescriptorKind, MapEntry, RegisterClass,
};
pub use error::{Error, ErrorKind, Location, Result};
pub use spec::{SpecConstant, SpecTable};
pub use spv::words_from_bytes;

/// What to do with specialization constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpecMode {
    /// Fold each to its value (the default, or one from [`Options::spec_values`]).
    #[default]
    Fold,
    /// Keep each patchable: [`spec::patch`] can change its value in the container.
    Patchable,
}

/// Translation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// The entry point to translate (by name); `None` takes the only one.
    pub entry_point: Option<String>,
    pub spec_constants: SpecMode,
    /// Values for specialization constants by `SpecId` (bits of the constant's type).
    pub spec_values: Vec<(u32, u64)>,
    pub bindings: BindingMap,
    /// Embed a root signature (`RTS0`) describing the bindings.
    pub root_signature: bool,
    /// Embed the specialization-constant table in a `PRIV` part (patchable mode only), so
    /// that `dxil spec` can patch the container without a side file.
    pub embed_spec_table: bool,
    /// Tessellation state the module may leave to the other tessellation stage.
    pub tessellation: Tessellation,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            entry_point: None,
            spec_constants: SpecMode::Fold,
            spec_values: Vec::new(),
            bindings: BindingMap::Default,
            root_signature: true,
            embed_spec_table: true,
            tessellation: Tessellation::default(),
        }
    }
}

impl Options {
    /// Sets a binding callback.
    pub fn with_binding_callback(
        mut self,
        f: impl Fn(&BindingRequest) -> Option<BindingTarget> + Send + Sync + 'static,
    ) -> Options {
        self.bindings = BindingMap::Callback(Arc::new(f));
        self
    }
}

/// Tessellation state that one tessellation stage's SPIR-V may leave to the other (Vulkan
/// lets either stage declare the domain, the spacing, the winding and point mode, while a
/// DXIL hull shader and domain shader each carry them), and patch sizes SPIR-V does not fix.
/// What the module declares wins; [`Tessellation::from_spirv`] reads the other stage's.
///
/// Without either, a hull shader gets triangles, equal spacing and counter-clockwise
/// winding, and reads as many input control points as its input arrays hold (when they
/// are sized `gl_MaxPatchVertices`, 32, as GLSL's unsized `gl_in[]` is: as many as it
/// outputs); a domain shader reads as many control points as its input arrays hold (32:
/// as many as [`Tessellation::output_patch_size`] says, when given).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tessellation {
    pub domain: Option<TessDomain>,
    pub spacing: Option<TessSpacing>,
    /// Triangle winding: `true` for clockwise.
    pub clockwise: Option<bool>,
    pub point_mode: bool,
    /// Control points of an input patch (hull shaders: the patch list the pipeline draws).
    pub input_patch_size: Option<u32>,
    /// Control points of the hull shader's output patch (what a domain shader reads).
    pub output_patch_size: Option<u32>,
}

/// A tessellation domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TessDomain {
    Triangles,
    Quads,
    Isolines,
}

/// A tessellation spacing (D3D12's partitioning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TessSpacing {
    /// D3D12's `integer`.
    Equal,
    FractionalEven,
    FractionalOdd,
}

impl Tessellation {
    /// The state that a tessellation shader's execution modes declare (of its first
    /// tessellation entry point): give it the other stage of the pipeline.
    pub fn from_spirv(words: &[u32]) -> Result<Tessellation> {
        use spirv::{ExecutionMode as M, ExecutionModel as EM};
        let m = spv::Module::parse(words)?;
        let entry = m
            .entry_points
            .iter()
            .find(|e| {
                matches!(
                    e.model,
                    EM::TessellationControl | EM::TessellationEvaluation
                )
            })
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::EntryPoint,
                    "no tessellation entry point in the module",
                )
            })?;
        let mut t = Tessellation::default();
        for e in m.exec_modes.iter().filter(|e| e.function == entry.function) {
            match e.mode {
                M::Triangles => t.domain = Some(TessDomain::Triangles),
                M::Quads => t.domain = Some(TessDomain::Quads),
                M::Isolines => t.domain = Some(TessDomain::Isolines),
                M::SpacingEqual => t.spacing = Some(TessSpacing::Equal),
                M::SpacingFractionalEven => t.spacing = Some(TessSpacing::FractionalEven),
                M::SpacingFractionalOdd => t.spacing = Some(TessSpacing::FractionalOdd),
                M::VertexOrderCw => t.clockwise = Some(true),
                M::VertexOrderCcw => t.clockwise = Some(false),
                M::PointMode => t.point_mode = true,
                M::OutputVertices if entry.model == EM::TessellationControl => {
                    t.output_patch_size = e.operands.first().copied();
                }
                _ => {}
            }
        }
        Ok(t)
    }
}

/// A translated shader.
#[derive(Clone, Debug)]
pub struct Output {
    /// The signed DXIL container.
    pub container: Vec<u8>,
    /// The stage (`cs`, `vs`, `ps`, ...), shader model and entry point name.
    pub profile: String,
    pub entry_point: String,
    /// Every binding as placed.
    pub bindings: Vec<BindingInfo>,
    /// The specialization constants and where their values lie in the container.
    pub spec_constants: SpecTable,
}

/// Translates a SPIR-V module (as words).
pub fn translate(words: &[u32], options: &Options) -> Result<Output> {
    let module = spv::Module::parse(words)?;
    finish::translate_module(&module, options)
}

/// Translates a SPIR-V module given as bytes (either byte order).
pub fn translate_bytes(bytes: &[u8], options: &Options) -> Result<Output> {
    let words = words_from_bytes(bytes)?;
    translate(&words, options)
}
