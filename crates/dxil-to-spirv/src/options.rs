//! What a caller may ask of a translation beyond the binding model: the device features the generated code may use
//! ([`Features`]) and the requests that change the generated code ([`Requests`]). They mirror the option kinds of the
//! dxil-spirv C API (which `dxil-spirv-c` exposes over this crate), so that every one of them has a typed home here.
//!
//! A request the translator cannot honour fails the translation with [`Error::Option`] before anything is
//! translated; a feature the device lacks but the translation needs fails it afterwards (the generated code names
//! the capability). Requests that only allow something (hints, optimisations, debug information) are recorded and
//! reported back by [`Requests::notes`] when not acted on, never silently mis-handled.

use crate::Error;
use crate::dxil::Stage;

/// Device features the generated code may rely on. [`Features::default`] allows everything the translator uses
/// (Vulkan 1.3 with the features vkd3d-proton requires); [`Features::baseline`] allows only Vulkan 1.1 core, the
/// starting point of dxil-spirv's C API, where callers then announce each feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Features {
    /// `OpDemoteToHelperInvocation` (`discard`).
    pub demote_to_helper: bool,
    /// Typed UAV loads from images and texel buffers without a declared format.
    pub typed_uav_read_without_format: bool,
    pub int8_dot_product: bool,
    /// `SPV_KHR_fragment_shader_barycentric`.
    pub barycentrics: bool,
    pub scalar_block_layout: bool,
    pub per_component_robustness: bool,
    pub storage_input_output_16bit: bool,
    pub subgroup_partitioned: bool,
    /// `SPV_NV_compute_shader_derivatives`.
    pub compute_derivatives_nv: bool,
    /// `SPV_KHR_compute_shader_derivatives`.
    pub compute_derivatives_khr: bool,
    pub compute_derivatives_quad: bool,
    pub quad_control: bool,
    pub maximal_reconvergence: bool,
    pub raw_access_chains: bool,
    pub float8_wmma: bool,
    pub float8_coopmat2_conversions: bool,
    pub mixed_float_dot_product: bool,
    pub denorm_preserve_f16: bool,
    pub denorm_preserve_f64: bool,
    pub ray_tracing_primitive_culling: bool,
    pub opacity_micromap: bool,
    /// The device's subgroup size range (min, max); `None` = unknown.
    pub subgroup_sizes: Option<(u32, u32)>,
    /// Vulkan driver id and version; `None` = unknown.
    pub driver: Option<(u32, u32)>,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            demote_to_helper: true,
            typed_uav_read_without_format: true,
            int8_dot_product: true,
            barycentrics: true,
            scalar_block_layout: true,
            per_component_robustness: false,
            storage_input_output_16bit: true,
            subgroup_partitioned: false,
            compute_derivatives_nv: true,
            compute_derivatives_khr: true,
            compute_derivatives_quad: true,
            quad_control: false,
            maximal_reconvergence: false,
            raw_access_chains: false,
            float8_wmma: false,
            float8_coopmat2_conversions: false,
            mixed_float_dot_product: false,
            denorm_preserve_f16: false,
            denorm_preserve_f64: false,
            ray_tracing_primitive_culling: false,
            opacity_micromap: false,
            subgroup_sizes: None,
            driver: None,
        }
    }
}

impl Features {
    /// Vulkan 1.1 core only (compute derivatives through the NV extension count as present, as in dxil-spirv).
    pub fn baseline() -> Features {
        Features {
            demote_to_helper: false,
            typed_uav_read_without_format: false,
            int8_dot_product: false,
            barycentrics: false,
            scalar_block_layout: false,
            storage_input_output_16bit: false,
            compute_derivatives_khr: false,
            compute_derivatives_quad: false,
            ..Features::default()
        }
    }

    /// The feature a capability of the generated code needs, when the device may lack it.
    fn missing_for(&self, cap: spirv::Capability) -> Option<&'static str> {
        use spirv::Capability as C;
        let (ok, name) = match cap {
            C::DemoteToHelperInvocation => (self.demote_to_helper, "demote to helper invocation"),
            C::StorageImageReadWithoutFormat => (
                self.typed_uav_read_without_format,
                "typed UAV reads without format",
            ),
            C::FragmentBarycentricKHR => (self.barycentrics, "fragment shader barycentrics"),
            C::ComputeDerivativeGroupQuadsNV | C::ComputeDerivativeGroupLinearNV => (
                self.compute_derivatives_nv || self.compute_derivatives_khr,
                "compute shader derivatives",
            ),
            C::StorageInputOutput16 => (
                self.storage_input_output_16bit,
                "16-bit stage inputs and outputs",
            ),
            C::GroupNonUniformPartitionedNV => {
                (self.subgroup_partitioned, "partitioned subgroup operations")
            }
            C::DotProductInput4x8BitPacked | C::DotProductInput4x8Bit | C::DotProduct => {
                (self.int8_dot_product, "integer dot products")
            }
            _ => return None,
        };
        (!ok).then_some(name)
    }

    /// Fails when the translation uses a capability this device lacks.
    pub fn check(&self, capabilities: &[spirv::Capability]) -> Result<(), Error> {
        match capabilities.iter().find_map(|&c| self.missing_for(c)) {
            Some(feature) => Err(Error::Option {
                option: "device features",
                why: format!("the shader needs {feature}, which the device does not offer"),
            }),
            None => Ok(()),
        }
    }
}

/// A rasterizer sample count for `GetRenderTargetSampleCount`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleCount {
    Fixed(u32),
    /// A specialization constant with this id.
    SpecConstant(u32),
}

/// Shader quirks: per-application workarounds (dxil-spirv's `dxil_spv_shader_quirk`, by number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quirk(pub u32);

/// Loop and branch hints to force, or to take from the shader's metadata.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BranchControl {
    pub use_shader_metadata: bool,
    pub force_unroll: bool,
    pub force_loop: bool,
    pub force_flatten: bool,
    pub force_branch: bool,
}

/// Descriptor QA or instruction instrumentation: where its buffers are, and the shader hash it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instrumentation {
    pub version: u32,
    /// (set, binding) of the global payload / control buffer.
    pub global: (u32, u32),
    /// (set, binding) of the per-heap / payload buffer.
    pub heap: (u32, u32),
    pub shader_hash: u64,
    /// Instruction instrumentation: the kind (dxil-spirv's numbering); descriptor QA: `None`.
    pub kind: Option<u32>,
}

/// One output element captured by stream output (transform feedback): the element (semantic name, compared without
/// case, and index) goes to `buffer` at byte `offset` of each vertex record of `stride` bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StreamOutput {
    pub semantic: String,
    pub index: u32,
    pub buffer: u32,
    pub offset: u32,
    pub stride: u32,
}

/// View instancing (multiview) lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewInstancing {
    pub last_pre_rasterization_stage: bool,
    /// Specialization constant ids (`u32::MAX`: none).
    pub view_index_to_view_instance_spec_id: u32,
    pub view_instance_to_viewport_spec_id: u32,
}

/// A system descriptor the caller places explicitly (dxil-spirv's meta descriptors, by number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetaDescriptor {
    pub meta: u32,
    pub kind: u32,
    pub set: u32,
    pub binding_or_push_index: u32,
}

/// Requests that change the generated code. The default asks for nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Requests {
    /// `SV_Target0`/`1` are the two sources of attachment 0 (`Index` 0 and 1).
    pub dual_source_blending: bool,
    /// Per render target: bits `[2k+1:2k]` pick the source component of output component k.
    pub output_swizzles: Vec<u32>,
    /// Where `GetRenderTargetSampleCount()` and `GetRenderTargetSamplePosition()` take the rasterizer's sample
    /// count from (pipeline state in D3D12 and Vulkan alike); `None`: the `u32` specialization constant with
    /// `SpecId` 0, 1 unless the pipeline sets it (as dxil-spirv does).
    pub rasterizer_sample_count: Option<SampleCount>,
    /// Stream output (transform feedback) of vertex, geometry and domain shaders: the captured elements. Supported
    /// for `SV_Position` and single-row user elements of stream 0.
    pub stream_output: Vec<StreamOutput>,
    /// The vertex position output is decorated `Invariant`.
    pub invariant_position: bool,
    /// Min-precision arithmetic (`min16float` and friends in modules without native 16-bit types) is 32-bit: for
    /// devices without 16-bit arithmetic. `half` and `i16` of such a module are lowered as `f32` and `u32` (D3D lets
    /// min precision compute at higher precision); conversions to and from them keep floats as they are and
    /// integers' low 16 bits. Without the request they are 16-bit types.
    pub min_precision_32bit: bool,
    /// `RelaxedPrecision` hints on min-precision arithmetic.
    pub relaxed_precision: bool,
    /// Every float operation as if `precise`.
    pub force_precise: bool,
    /// Propagate `precise` to the values feeding a precise result.
    pub propagate_precise: bool,
    pub branch_control: BranchControl,
    pub quirks: Vec<Quirk>,
    /// `WaveGetLaneCount()` forced to this value (0: not forced); with the flag, `[WaveSize]` follows it too.
    pub forced_subgroup_size: (u32, bool),
    /// Gradient sampling may become biased sampling (the flag: assume a uniform scale).
    pub grad_to_bias: Option<bool>,
    pub descriptor_qa: Option<Instrumentation>,
    pub instruction_instrumentation: Option<Instrumentation>,
    /// Clamp dynamic descriptor heap indices to the heap.
    pub descriptor_heap_robustness: bool,
    /// Keep dynamic indices of groupshared arrays, local arrays and constant tables inside them.
    pub robust_group_shared: bool,
    pub robust_alloca: bool,
    pub robust_constant_lut: bool,
    /// Root constant-buffer loads through addresses are bounds-checked.
    pub robust_physical_cbv_load: bool,
    pub max_tess_factor: Option<u32>,
    pub view_instancing: Option<ViewInstancing>,
    /// NVAPI's magic UAV (register, space).
    pub nvapi: Option<(u32, u32)>,
    /// Helper lanes stay out of wave operations unless the shader says otherwise (recorded; the translator leaves
    /// it to the device).
    pub strict_helper_lane_wave_ops: bool,
    /// Every loop and branch made maximally reconvergent.
    pub force_maximal_reconvergence: bool,
    pub dead_code_eliminate: bool,
    pub vulkan_memory_model: bool,
    /// Emit non-semantic debug information (root signature layout, mappings).
    pub extended_non_semantic: bool,
    /// (root parameter, push offset) for the non-semantic debug information.
    pub root_parameter_mappings: Vec<(u32, u32)>,
    /// (root parameter, set, binding).
    pub root_descriptor_mappings: Vec<(u32, u32, u32)>,
    /// (tag, bytes) blocks of non-semantic debug information.
    pub non_semantic_debug_info: Vec<(String, Vec<u8>)>,
    /// The shader's source file name, for debug information.
    pub source_file: Option<String>,
    /// Raw-address descriptor indexing (stride, offset in 8-byte units) for descriptor-buffer layouts.
    pub physical_address_descriptor_indexing: Option<(u32, u32)>,
    pub meta_descriptors: Vec<MetaDescriptor>,
}

/// `0b11_10_01_00`: every component from itself.
const IDENTITY_SWIZZLE: u32 = 0xE4;

impl Requests {
    /// [`Requests::rasterizer_sample_count`], or its default: specialization constant 0.
    pub fn rasterizer_sample_count(&self) -> SampleCount {
        self.rasterizer_sample_count
            .unwrap_or(SampleCount::SpecConstant(0))
    }

    /// The first request the translator cannot honour for a `stage` shader.
    pub fn check(&self, stage: Stage) -> Result<(), Error> {
        let refuse = |option: &'static str, why: &str| {
            Err(Error::Option {
                option,
                why: why.to_string(),
            })
        };
        if self
            .output_swizzles
            .iter()
            .any(|&s| s & 0xFF != IDENTITY_SWIZZLE)
            && stage == Stage::Pixel
        {
            return refuse("output swizzle", "render target outputs are not swizzled");
        }
        if self.force_precise {
            return refuse(
                "forced precise",
                "only `precise` operations get NoContraction",
            );
        }
        if let Some(q) = self.quirks.first() {
            return Err(Error::Option {
                option: "shader quirk",
                why: format!("quirk {} has no implementation", q.0),
            });
        }
        if self.forced_subgroup_size.0 != 0 {
            return refuse("forced subgroup size", "the lane count is the device's");
        }
        if self.descriptor_qa.is_some() {
            return refuse("descriptor QA", "no instrumentation is generated");
        }
        if self.instruction_instrumentation.is_some() {
            return refuse(
                "instruction instrumentation",
                "no instrumentation is generated",
            );
        }
        if self.descriptor_heap_robustness {
            return refuse("descriptor heap robustness", "heap indices are not clamped");
        }
        if self.robust_physical_cbv_load {
            return refuse(
                "robust root CBV loads",
                "root descriptors are read without bounds checks",
            );
        }
        if self.view_instancing.is_some() {
            return refuse("view instancing", "no multiview lowering");
        }
        if self.nvapi.is_some() {
            return refuse("NVAPI", "the NVAPI UAV is not recognised");
        }
        if self.force_maximal_reconvergence {
            return refuse(
                "forced maximal reconvergence",
                "MaximallyReconvergesKHR is not emitted",
            );
        }
        if self.vulkan_memory_model {
            return refuse("Vulkan memory model", "the GLSL450 memory model is used");
        }
        if self.physical_address_descriptor_indexing.is_some() {
            return refuse(
                "physical address descriptor indexing",
                "counter addresses come from the address table only",
            );
        }
        Ok(())
    }

    /// Requests recorded but not acted on (each allows, never requires, what it names).
    pub fn notes(&self) -> Vec<&'static str> {
        let mut n = Vec::new();
        let mut note = |on: bool, what: &'static str| {
            if on {
                n.push(what);
            }
        };
        note(self.relaxed_precision, "no RelaxedPrecision hints");
        note(self.propagate_precise, "precise not propagated");
        note(
            self.branch_control != BranchControl::default(),
            "branch and loop hints not applied",
        );
        note(
            self.grad_to_bias.is_some(),
            "gradients not rewritten to bias",
        );
        note(self.dead_code_eliminate, "no extra dead-code elimination");
        note(
            self.extended_non_semantic
                || !self.non_semantic_debug_info.is_empty()
                || !self.root_parameter_mappings.is_empty()
                || !self.root_descriptor_mappings.is_empty(),
            "no non-semantic debug information",
        );
        note(
            self.source_file.is_some(),
            "no source file debug information",
        );
        n
    }
}
