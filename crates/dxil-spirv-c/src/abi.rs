//! The C types of `include/dxil_spirv_c.h`, laid out as C lays them out. Enumerations cross the boundary as
//! plain integers (a C caller may pass any value; a Rust enum would make an unknown one undefined behaviour), and
//! named constants give their values.

use std::ffi::{c_char, c_uint, c_ulonglong, c_void};

pub type Bool = u8;
pub const TRUE: Bool = 1;
pub const FALSE: Bool = 0;

pub type DxilResult = i32;
pub const SUCCESS: DxilResult = 0;
pub const ERROR_OUT_OF_MEMORY: DxilResult = -1;
pub const ERROR_GENERIC: DxilResult = -2;
pub const ERROR_UNSUPPORTED_FEATURE: DxilResult = -3;
pub const ERROR_PARSER: DxilResult = -4;
pub const ERROR_FAILED_VALIDATION: DxilResult = -5;
pub const ERROR_INVALID_ARGUMENT: DxilResult = -6;
pub const ERROR_NO_DATA: DxilResult = -7;

pub type ShaderStage = u32;
pub mod stage {
    pub const UNKNOWN: u32 = 0;
    pub const VERTEX: u32 = 1;
    pub const HULL: u32 = 2;
    pub const DOMAIN: u32 = 3;
    pub const GEOMETRY: u32 = 4;
    pub const PIXEL: u32 = 5;
    pub const COMPUTE: u32 = 6;
    pub const INTERSECTION: u32 = 7;
    pub const CLOSEST_HIT: u32 = 8;
    pub const MISS: u32 = 9;
    pub const ANY_HIT: u32 = 10;
    pub const RAY_GENERATION: u32 = 11;
    pub const CALLABLE: u32 = 12;
    pub const AMPLIFICATION: u32 = 13;
    pub const MESH: u32 = 14;
}

pub mod descriptor_type {
    pub const IDENTITY: u32 = 0;
    pub const SSBO: u32 = 1;
    pub const TEXEL_BUFFER: u32 = 2;
    pub const BUFFER_DEVICE_ADDRESS: u32 = 3;
    pub const UBO: u32 = 4;
    pub const INPUT_ATTACHMENT: u32 = 5;
}

pub mod resource_class {
    pub const SRV: u32 = 0;
    pub const UAV: u32 = 1;
    pub const CBV: u32 = 2;
    pub const SAMPLER: u32 = 3;
}

pub mod log_level {
    pub const WARN: u32 = 1;
    pub const ERROR: u32 = 2;
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct D3dVertexInput {
    pub semantic: *const c_char,
    pub semantic_index: c_uint,
    pub start_row: c_uint,
    pub rows: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VulkanVertexInput {
    pub location: c_uint,
}

pub type VertexInputRemapper =
    unsafe extern "C" fn(*mut c_void, *const D3dVertexInput, *mut VulkanVertexInput) -> Bool;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct D3dStreamOutput {
    pub semantic: *const c_char,
    pub semantic_index: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VulkanStreamOutput {
    pub offset: c_uint,
    pub stride: c_uint,
    pub buffer_index: c_uint,
    pub enable: Bool,
}

pub type StreamOutputRemapper =
    unsafe extern "C" fn(*mut c_void, *const D3dStreamOutput, *mut VulkanStreamOutput) -> Bool;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct D3dShaderStageIo {
    pub semantic: *const c_char,
    pub semantic_index: c_uint,
    pub start_row: c_uint,
    pub rows: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VulkanShaderStageIo {
    pub location: c_uint,
    pub component: c_uint,
    pub flags: c_uint,
}

pub type StageIoRemapper =
    unsafe extern "C" fn(*mut c_void, *const D3dShaderStageIo, *mut VulkanShaderStageIo) -> Bool;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D3dBinding {
    pub stage: ShaderStage,
    pub kind: u32,
    pub resource_index: c_uint,
    pub register_space: c_uint,
    pub register_index: c_uint,
    pub range_size: c_uint,
    pub alignment: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bindless {
    pub heap_root_offset: c_uint,
    pub use_heap: Bool,
}

/// `root_constant_index` shares its storage with `input_attachment_index` (an anonymous union of two `unsigned`s:
/// one field holds both).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VulkanBinding {
    pub set: c_uint,
    pub binding: c_uint,
    pub root_constant_index: c_uint,
    pub bindless: Bindless,
    pub descriptor_type: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct UavD3dBinding {
    pub d3d_binding: D3dBinding,
    pub has_counter: Bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SrvVulkanBinding {
    pub buffer_binding: VulkanBinding,
    pub offset_binding: VulkanBinding,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct UavVulkanBinding {
    pub buffer_binding: VulkanBinding,
    pub counter_binding: VulkanBinding,
    pub offset_binding: VulkanBinding,
}

/// `union { dxil_spv_vulkan_binding uniform_binding; dxil_spv_push_constant_mapping push_constant; }`: the push
/// constant mapping is one `unsigned` at offset 0, the binding's `set`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CbvVulkanBinding {
    pub vulkan: VulkanBinding,
    pub push_constant: Bool,
}

impl CbvVulkanBinding {
    pub fn offset_in_words(&self) -> u32 {
        self.vulkan.set
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CompiledSpirv {
    pub data: *const c_void,
    pub size: usize,
}

pub type SrvRemapper =
    unsafe extern "C" fn(*mut c_void, *const D3dBinding, *mut SrvVulkanBinding) -> Bool;
pub type SamplerRemapper =
    unsafe extern "C" fn(*mut c_void, *const D3dBinding, *mut VulkanBinding) -> Bool;
pub type UavRemapper =
    unsafe extern "C" fn(*mut c_void, *const UavD3dBinding, *mut UavVulkanBinding) -> Bool;
pub type CbvRemapper =
    unsafe extern "C" fn(*mut c_void, *const D3dBinding, *mut CbvVulkanBinding) -> Bool;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RdatSubobject {
    pub kind: u32,
    pub subobject_name: *const c_char,
    pub hit_group_type: u32,
    pub exports: *const *const c_char,
    pub num_exports: c_uint,
    pub args: [c_uint; 2],
    pub payload: *const c_void,
    pub payload_size: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NodeInputData {
    pub node_id: *const c_char,
    pub payload_stride: c_uint,
    pub launch_type: u32,
    pub node_array_index: c_uint,
    pub dispatch_grid_offset: c_uint,
    pub dispatch_grid_type_bits: c_uint,
    pub dispatch_grid_components: c_uint,
    pub broadcast_grid: [c_uint; 3],
    pub thread_group_size_spec_id: [c_uint; 3],
    pub max_broadcast_grid_spec_id: [c_uint; 3],
    pub recursion_factor: c_uint,
    pub coalesce_factor: c_uint,
    pub node_share_input_id: *const c_char,
    pub node_share_input_array_index: c_uint,
    pub local_root_arguments_table_index: c_uint,
    pub is_indirect_bda_stride_program_entry_spec_id: c_uint,
    pub is_entry_point_spec_id: c_uint,
    pub dispatch_grid_is_upper_bound_spec_id: c_uint,
    pub is_static_broadcast_node_spec_id: c_uint,
    pub dispatch_grid_is_upper_bound: Bool,
    pub node_track_rw_input_sharing: Bool,
    pub is_program_entry: Bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NodeOutputData {
    pub node_id: *const c_char,
    pub node_array_index: c_uint,
    pub node_array_size: c_uint,
    pub node_index_spec_constant_id: c_uint,
    pub max_records: c_uint,
    pub sparse_array: Bool,
}

pub type LogCallback = unsafe extern "C" fn(*mut c_void, u32, *const c_char);

/// Option kinds (`dxil_spv_option`).
pub mod option {
    pub const SHADER_DEMOTE_TO_HELPER: u32 = 1;
    pub const DUAL_SOURCE_BLENDING: u32 = 2;
    pub const OUTPUT_SWIZZLE: u32 = 3;
    pub const RASTERIZER_SAMPLE_COUNT: u32 = 4;
    pub const ROOT_CONSTANT_INLINE_UNIFORM_BLOCK: u32 = 5;
    pub const BINDLESS_CBV_SSBO_EMULATION: u32 = 6;
    pub const PHYSICAL_STORAGE_BUFFER: u32 = 7;
    pub const SBT_DESCRIPTOR_SIZE_LOG2: u32 = 8;
    pub const SSBO_ALIGNMENT: u32 = 9;
    pub const TYPED_UAV_READ_WITHOUT_FORMAT: u32 = 10;
    pub const SHADER_SOURCE_FILE: u32 = 11;
    pub const BINDLESS_TYPED_BUFFER_OFFSETS: u32 = 12;
    pub const BINDLESS_OFFSET_BUFFER_LAYOUT: u32 = 13;
    pub const STORAGE_INPUT_OUTPUT_16BIT: u32 = 14;
    pub const DESCRIPTOR_QA: u32 = 15;
    pub const MIN_PRECISION_NATIVE_16BIT: u32 = 16;
    pub const SHADER_I8_DOT: u32 = 17;
    pub const SHADER_RAY_TRACING_PRIMITIVE_CULLING: u32 = 18;
    pub const INVARIANT_POSITION: u32 = 19;
    pub const SCALAR_BLOCK_LAYOUT: u32 = 20;
    pub const BARYCENTRIC_KHR: u32 = 21;
    pub const ROBUST_PHYSICAL_CBV_LOAD: u32 = 22;
    pub const ARITHMETIC_RELAXED_PRECISION: u32 = 23;
    pub const PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING: u32 = 24;
    pub const FORCE_SUBGROUP_SIZE: u32 = 25;
    pub const DENORM_PRESERVE_SUPPORT: u32 = 26;
    pub const STRICT_HELPER_LANE_WAVE_OPS: u32 = 27;
    pub const SUBGROUP_PARTITIONED_NV: u32 = 28;
    pub const DEAD_CODE_ELIMINATE: u32 = 29;
    pub const PRECISE_CONTROL: u32 = 30;
    pub const SAMPLE_GRAD_OPTIMIZATION_CONTROL: u32 = 31;
    pub const OPACITY_MICROMAP: u32 = 32;
    pub const BRANCH_CONTROL: u32 = 33;
    pub const SUBGROUP_PROPERTIES: u32 = 34;
    pub const DESCRIPTOR_HEAP_ROBUSTNESS: u32 = 35;
    pub const COMPUTE_SHADER_DERIVATIVES_NV: u32 = 36;
    pub const QUAD_CONTROL_RECONVERGENCE: u32 = 37;
    pub const RAW_ACCESS_CHAINS_NV: u32 = 38;
    pub const DRIVER_VERSION: u32 = 39;
    pub const COMPUTE_SHADER_DERIVATIVES: u32 = 40;
    pub const INSTRUCTION_INSTRUMENTATION: u32 = 41;
    pub const SHADER_QUIRK: u32 = 42;
    pub const EXTENDED_ROBUSTNESS: u32 = 43;
    pub const MAX_TESS_FACTOR: u32 = 44;
    pub const VULKAN_MEMORY_MODEL: u32 = 45;
    pub const FLOAT8_SUPPORT: u32 = 46;
    pub const NVAPI: u32 = 47;
    pub const EXTENDED_NON_SEMANTIC: u32 = 48;
    pub const VIEW_INSTANCING: u32 = 49;
    pub const MIXED_FLOAT_DOT_PRODUCT: u32 = 50;
    pub const COMPUTE_SHADER_DERIVATIVES_QUAD: u32 = 51;
    /// The highest kind this version knows.
    pub const LAST: u32 = COMPUTE_SHADER_DERIVATIVES_QUAD;
}

/// Option structures: each begins with the kind. Flags are one byte, so most structures are a `u32` and bytes.
pub mod opt {
    use super::Bool;
    use std::ffi::{c_char, c_uint, c_ulonglong};

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Flag {
        pub kind: u32,
        pub value: Bool,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Flags2 {
        pub kind: u32,
        pub a: Bool,
        pub b: Bool,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Flags3 {
        pub kind: u32,
        pub a: Bool,
        pub b: Bool,
        pub c: Bool,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Flags5 {
        pub kind: u32,
        pub v: [Bool; 5],
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Word {
        pub kind: u32,
        pub value: c_uint,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Words2 {
        pub kind: u32,
        pub a: c_uint,
        pub b: c_uint,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Words3 {
        pub kind: u32,
        pub a: c_uint,
        pub b: c_uint,
        pub c: c_uint,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct OutputSwizzle {
        pub kind: u32,
        pub swizzles: *const c_uint,
        pub swizzle_count: c_uint,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct SampleCount {
        pub kind: u32,
        pub sample_count: c_uint,
        pub spec_constant: Bool,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct InlineUniformBlock {
        pub kind: u32,
        pub desc_set: c_uint,
        pub binding: c_uint,
        pub enable: Bool,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct SourceFile {
        pub kind: u32,
        pub name: *const c_char,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct DescriptorQa {
        pub kind: u32,
        pub enabled: Bool,
        pub version: c_uint,
        pub global_desc_set: c_uint,
        pub global_binding: c_uint,
        pub heap_desc_set: c_uint,
        pub heap_binding: c_uint,
        pub shader_hash: c_ulonglong,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct ForceSubgroupSize {
        pub kind: u32,
        pub forced_value: c_uint,
        pub wave_size_enable: Bool,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Instrumentation {
        pub kind: u32,
        pub enabled: Bool,
        pub version: c_uint,
        pub control_desc_set: c_uint,
        pub control_binding: c_uint,
        pub payload_desc_set: c_uint,
        pub payload_binding: c_uint,
        pub shader_hash: c_ulonglong,
        pub instrumentation_type: u32,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct Nvapi {
        pub kind: u32,
        pub enabled: Bool,
        pub register_index: c_uint,
        pub register_space: c_uint,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct ViewInstancing {
        pub kind: u32,
        pub enabled: Bool,
        pub last_pre_rasterization_stage: Bool,
        pub view_index_to_view_instance_spec_id: c_uint,
        pub view_instance_to_viewport_spec_id: c_uint,
    }
}

// The layouts the header promises, checked where the compiler can see both.
const _: () = {
    assert!(std::mem::size_of::<D3dBinding>() == 28);
    assert!(std::mem::size_of::<VulkanBinding>() == 24);
    assert!(std::mem::size_of::<UavD3dBinding>() == 32);
    assert!(std::mem::size_of::<CbvVulkanBinding>() == 28);
    assert!(std::mem::size_of::<RdatSubobject>() == 64);
    assert!(std::mem::size_of::<opt::DescriptorQa>() == 40);
    assert!(std::mem::size_of::<opt::Instrumentation>() == 48);
    let _ = std::mem::size_of::<c_ulonglong>();
    let _ = std::mem::size_of::<*mut c_void>();
};
