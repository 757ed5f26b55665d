//! The Vulkan side of a root signature: the pipeline layout a D3D12 root signature becomes,
//! following vkd3d-proton's design (binding-model.md §2), and where a shader finds each
//! register.
//!
//! # The model
//!
//! * **Heap sets** (sets `0..K`, the same for every root signature, so that the runtime binds
//!   the descriptor heaps once): set 0 is the sampler heap; the CBV/SRV/UAV heap follows as one
//!   set per Vulkan descriptor type, or as mutable-descriptor sets (one "typed" set for images and
//!   texel buffers plus one "raw" set for uniform/storage buffers, or a single mutable set). Each
//!   heap set holds one runtime array whose element `i` is heap slot `i`: a shader reads heap
//!   slot `i` at `array[i]`, whatever view type it declares.
//! * **Static sampler set** (if the root signature has static samplers): binding `i` is static
//!   sampler `i`, an immutable sampler.
//! * **Root descriptor set** (if needed): one binding per root descriptor that is not read
//!   through a buffer device address, in root parameter order, then the spilled root block's
//!   uniform buffer. A push-descriptor set when the device has push descriptors.
//! * **Root block**: the root arguments as 32-bit words, in three regions packed in this order:
//!   8-byte GPU addresses of root descriptors read through buffer device addresses (in
//!   parameter order), root constants (in parameter order), then one word per descriptor table
//!   holding the table's start as a heap slot index (in parameter order). It lives in push
//!   constants, or, when larger than `maxPushConstantsSize`, entirely in a uniform buffer of the
//!   root descriptor set ("spilled"; no partial spill).
//!
//! A table range's descriptor for register `r` is heap slot
//! `block_word(table) + offset_in_table + (r - base_shader_register)` (plus any dynamic array
//! index, relative to the declaration's first register).
//!
//! Not modelled: vkd3d's NVIDIA-only hoisting of static table CBVs into push descriptors,
//! descriptor buffers and `VK_EXT_descriptor_heap`, descriptor QA, and local root signatures
//! (shader records), which [`layout`] rejects.

use crate::error::Error;
use crate::model::*;
use crate::validate::{ValidationOptions, validate};
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use std::fmt;

/// Device properties the layout depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceLimits {
    /// `VkPhysicalDeviceLimits::maxPushConstantsSize` in bytes (Vulkan guarantees 128). A root
    /// block larger than this spills into a uniform buffer.
    pub max_push_constants_size: u32,
    /// `VkPhysicalDeviceLimits::minStorageBufferOffsetAlignment`. Up to 16, raw and structured
    /// buffers get storage-buffer descriptors (else R32_UINT texel buffers); above 4, storage
    /// buffer views need the offset buffer to reach their exact start.
    pub min_storage_buffer_offset_alignment: u32,
    /// `VkPhysicalDeviceLimits::maxBoundDescriptorSets`.
    pub max_bound_descriptor_sets: u32,
    /// `VkPhysicalDevicePushDescriptorPropertiesKHR::maxPushDescriptors`; 0 when
    /// `VK_KHR_push_descriptor` is unavailable.
    pub max_push_descriptors: u32,
    /// `VK_EXT_mutable_descriptor_type` can hold the heap's descriptor types in one binding.
    pub mutable_descriptors: bool,
    /// `bufferDeviceAddress`: root descriptors can be raw GPU addresses in the root block, and
    /// UAV counters live in an address table.
    pub buffer_device_address: bool,
    /// Uniform-buffer arrays with update-after-bind and non-uniform indexing can hold a whole
    /// CBV heap; otherwise heap CBVs use storage-buffer descriptors.
    pub uniform_buffer_heap: bool,
}

impl Default for DeviceLimits {
    /// What Mesa 25 lavapipe reports, which current desktop drivers meet or exceed: 256 bytes
    /// of push constants, 16-byte storage buffer alignment, 8 descriptor sets, 32 push
    /// descriptors, mutable descriptors, buffer device addresses, uniform-buffer heaps.
    fn default() -> Self {
        DeviceLimits {
            max_push_constants_size: 256,
            min_storage_buffer_offset_alignment: 16,
            max_bound_descriptor_sets: 8,
            max_push_descriptors: 32,
            mutable_descriptors: true,
            buffer_device_address: true,
            uniform_buffer_heap: true,
        }
    }
}

/// How root CBVs are read when the device has buffer device addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum RootCbvPolicy {
    /// A raw GPU address in the root block (vkd3d's choice except on NVIDIA and Qualcomm).
    #[default]
    Address,
    /// A uniform-buffer push descriptor (vkd3d's choice on NVIDIA: faster there).
    PushDescriptor,
}

/// Choices that are policy rather than device capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LayoutOptions {
    /// How root CBVs are read (root SRVs/UAVs always use addresses when available).
    pub root_cbv: RootCbvPolicy,
    /// Route typed (texel) buffer views through the offset buffer, so that the runtime may
    /// reuse aligned `VkBufferView`s (vkd3d does this without descriptor buffers).
    pub typed_offset_buffer: bool,
    /// With mutable descriptors, put raw buffers into the same set as images and texel buffers
    /// (vkd3d's choice on Intel) instead of a separate raw set.
    pub mutable_single_set: bool,
    /// Descriptor count of the CBV/SRV/UAV heap arrays (vkd3d: 1,000,000, D3D12's tier 1 and 2
    /// minimum).
    pub cbv_srv_uav_heap_size: u32,
    /// Descriptor count of the sampler heap array (D3D12's limit: 2048).
    pub sampler_heap_size: u32,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            root_cbv: RootCbvPolicy::Address,
            typed_offset_buffer: false,
            mutable_single_set: false,
            cbv_srv_uav_heap_size: 1_000_000,
            sampler_heap_size: 2048,
        }
    }
}

d3d_enum! {
    /// `VkDescriptorType` (the values are Vulkan's; "names" are the Vulkan enumerators).
    pub enum DescriptorType {
        Sampler = 0 => "VK_DESCRIPTOR_TYPE_SAMPLER", "";
        SampledImage = 2 => "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE", "";
        StorageImage = 3 => "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE", "";
        UniformTexelBuffer = 4 => "VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER", "";
        StorageTexelBuffer = 5 => "VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER", "";
        UniformBuffer = 6 => "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER", "";
        StorageBuffer = 7 => "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "";
        Mutable = 1000351000 => "VK_DESCRIPTOR_TYPE_MUTABLE_EXT", "";
    }
}

/// `VkShaderStageFlags`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ShaderStages(pub u32);

impl ShaderStages {
    /// `VK_SHADER_STAGE_VERTEX_BIT`.
    pub const VERTEX: Self = Self(0x1);
    /// `VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT` (D3D hull shader).
    pub const TESSELLATION_CONTROL: Self = Self(0x2);
    /// `VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT` (D3D domain shader).
    pub const TESSELLATION_EVALUATION: Self = Self(0x4);
    /// `VK_SHADER_STAGE_GEOMETRY_BIT`.
    pub const GEOMETRY: Self = Self(0x8);
    /// `VK_SHADER_STAGE_FRAGMENT_BIT` (D3D pixel shader).
    pub const FRAGMENT: Self = Self(0x10);
    /// `VK_SHADER_STAGE_COMPUTE_BIT`.
    pub const COMPUTE: Self = Self(0x20);
    /// `VK_SHADER_STAGE_TASK_BIT_EXT` (D3D amplification shader).
    pub const TASK: Self = Self(0x40);
    /// `VK_SHADER_STAGE_MESH_BIT_EXT`.
    pub const MESH: Self = Self(0x80);
    /// The six ray tracing stages (raygen, any hit, closest hit, miss, intersection, callable).
    pub const RAY_TRACING: Self = Self(0x3f00);
    /// `VK_SHADER_STAGE_ALL_GRAPHICS`.
    pub const ALL_GRAPHICS: Self = Self(0x1f);
    /// `VK_SHADER_STAGE_ALL`.
    pub const ALL: Self = Self(0x7fff_ffff);

    const NAMES: &'static [(u32, &'static str)] = &[
        (0x1, "VK_SHADER_STAGE_VERTEX_BIT"),
        (0x2, "VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT"),
        (0x4, "VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT"),
        (0x8, "VK_SHADER_STAGE_GEOMETRY_BIT"),
        (0x10, "VK_SHADER_STAGE_FRAGMENT_BIT"),
        (0x20, "VK_SHADER_STAGE_COMPUTE_BIT"),
        (0x40, "VK_SHADER_STAGE_TASK_BIT_EXT"),
        (0x80, "VK_SHADER_STAGE_MESH_BIT_EXT"),
        (0x100, "VK_SHADER_STAGE_RAYGEN_BIT_KHR"),
        (0x200, "VK_SHADER_STAGE_ANY_HIT_BIT_KHR"),
        (0x400, "VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR"),
        (0x800, "VK_SHADER_STAGE_MISS_BIT_KHR"),
        (0x1000, "VK_SHADER_STAGE_INTERSECTION_BIT_KHR"),
        (0x2000, "VK_SHADER_STAGE_CALLABLE_BIT_KHR"),
    ];

    /// The stages that see a D3D12 shader visibility (`ALL` is every stage, compute included).
    pub const fn from_visibility(visibility: ShaderVisibility) -> Self {
        match visibility {
            ShaderVisibility::All => Self::ALL,
            ShaderVisibility::Vertex => Self::VERTEX,
            ShaderVisibility::Hull => Self::TESSELLATION_CONTROL,
            ShaderVisibility::Domain => Self::TESSELLATION_EVALUATION,
            ShaderVisibility::Geometry => Self::GEOMETRY,
            ShaderVisibility::Pixel => Self::FRAGMENT,
            ShaderVisibility::Amplification => Self::TASK,
            ShaderVisibility::Mesh => Self::MESH,
        }
    }

    /// Whether no stage is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Vulkan names of the set bits (`VK_SHADER_STAGE_ALL` when all are set).
    pub fn names(self) -> Vec<&'static str> {
        if self == Self::ALL {
            return vec!["VK_SHADER_STAGE_ALL"];
        }
        Self::NAMES
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, name)| *name)
            .collect()
    }
}

impl std::ops::BitOr for ShaderStages {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

impl std::ops::BitAnd for ShaderStages {
    type Output = Self;
    fn bitand(self, rhs: Self) -> Self {
        Self(self.0 & rhs.0)
    }
}

impl fmt::Debug for ShaderStages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ShaderStages({})", self.names().join(" | "))
    }
}

impl Serialize for ShaderStages {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let names = self.names();
        let mut seq = serializer.serialize_seq(Some(names.len()))?;
        for name in names {
            seq.serialize_element(name)?;
        }
        seq.end()
    }
}

/// A shader stage asking where its registers are. A stage sees root parameters and static
/// samplers with visibility `ALL` and those with its own visibility; compute (and ray tracing,
/// node and library) shaders see only `ALL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ShaderStage {
    /// Vertex shader.
    Vertex,
    /// Hull shader.
    Hull,
    /// Domain shader.
    Domain,
    /// Geometry shader.
    Geometry,
    /// Pixel shader.
    Pixel,
    /// Amplification shader.
    Amplification,
    /// Mesh shader.
    Mesh,
    /// Compute shader (also ray tracing and work graph shaders).
    Compute,
}

impl ShaderStage {
    /// Whether this stage sees a parameter of the given visibility.
    pub const fn sees(self, visibility: ShaderVisibility) -> bool {
        let own = match self {
            ShaderStage::Vertex => ShaderVisibility::Vertex,
            ShaderStage::Hull => ShaderVisibility::Hull,
            ShaderStage::Domain => ShaderVisibility::Domain,
            ShaderStage::Geometry => ShaderVisibility::Geometry,
            ShaderStage::Pixel => ShaderVisibility::Pixel,
            ShaderStage::Amplification => ShaderVisibility::Amplification,
            ShaderStage::Mesh => ShaderVisibility::Mesh,
            ShaderStage::Compute => return matches!(visibility, ShaderVisibility::All),
        };
        matches!(visibility, ShaderVisibility::All) || visibility as u32 == own as u32
    }
}

/// A pipeline bind point; each gets its own `VkPipelineLayout` with the same set layouts and
/// the root block's push constant stages masked to the bind point's stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BindPoint {
    /// Vertex, hull, domain, geometry, pixel.
    Graphics,
    /// Amplification, mesh, pixel.
    Mesh,
    /// Compute.
    Compute,
    /// Ray tracing stages.
    RayTracing,
}

impl BindPoint {
    /// The Vulkan stages of this bind point.
    pub const fn stages(self) -> ShaderStages {
        match self {
            BindPoint::Graphics => ShaderStages::ALL_GRAPHICS,
            BindPoint::Mesh => {
                ShaderStages(ShaderStages::TASK.0 | ShaderStages::MESH.0 | ShaderStages::FRAGMENT.0)
            }
            BindPoint::Compute => ShaderStages::COMPUTE,
            BindPoint::RayTracing => ShaderStages::RAY_TRACING,
        }
    }
}

/// A descriptor set and binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SetBinding {
    /// Descriptor set index in the pipeline layout.
    pub set: u32,
    /// Binding number in that set.
    pub binding: u32,
}

/// `VkDescriptorBindingFlags` the runtime must give a binding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BindingFlags {
    /// `UPDATE_AFTER_BIND`: heap descriptors change while the set is bound.
    pub update_after_bind: bool,
    /// `PARTIALLY_BOUND`: unused heap slots may hold no valid descriptor.
    pub partially_bound: bool,
    /// `VARIABLE_DESCRIPTOR_COUNT`: the set is allocated with the heap's actual size;
    /// `descriptor_count` is the maximum.
    pub variable_descriptor_count: bool,
    /// `UPDATE_UNUSED_WHILE_PENDING`.
    pub update_unused_while_pending: bool,
}

/// One `VkDescriptorSetLayoutBinding`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DescriptorSetLayoutBinding {
    /// Binding number.
    pub binding: u32,
    /// Descriptor type; `Mutable` bindings list their types in `mutable_types`.
    pub descriptor_type: DescriptorType,
    /// Number of descriptors (the maximum for variable-count bindings).
    pub descriptor_count: u32,
    /// Stages that access the binding.
    pub stages: ShaderStages,
    /// For `Mutable`: the `VkMutableDescriptorTypeListEXT` of the binding; empty otherwise.
    pub mutable_types: Vec<DescriptorType>,
    /// For immutable samplers: the index of the static sampler to create the sampler from.
    pub immutable_sampler: Option<u32>,
    /// `VkDescriptorBindingFlags`.
    pub flags: BindingFlags,
}

/// Why a descriptor set exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SetPurpose {
    /// A descriptor heap set (identical for every root signature).
    Heap,
    /// The static samplers of this root signature.
    StaticSamplers,
    /// Root descriptors that are not buffer device addresses, and the spilled root block.
    RootDescriptors,
}

/// One `VkDescriptorSetLayout`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DescriptorSetLayout {
    /// Set index.
    pub set: u32,
    /// What the set holds.
    pub purpose: SetPurpose,
    /// `VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR`: written with
    /// `vkCmdPushDescriptorSetKHR`. When false for the root descriptor set (no push
    /// descriptors), the runtime writes a fresh set whenever a root descriptor changes.
    pub push_descriptor: bool,
    /// `VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT`.
    pub update_after_bind_pool: bool,
    /// Bindings in binding order.
    pub bindings: Vec<DescriptorSetLayoutBinding>,
}

/// A D3D12 view kind as stored in a descriptor heap, as far as the Vulkan descriptor type
/// goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum HeapView {
    /// Sampler heap entry.
    Sampler,
    /// Constant buffer view.
    Cbv,
    /// SRV of a texture.
    SrvImage,
    /// SRV of a typed buffer (`Buffer<T>`).
    SrvTexelBuffer,
    /// SRV of a raw or structured buffer.
    SrvRawBuffer,
    /// UAV of a texture.
    UavImage,
    /// UAV of a typed buffer (`RWBuffer<T>`).
    UavTexelBuffer,
    /// UAV of a raw or structured buffer.
    UavRawBuffer,
}

/// Which D3D12 descriptor heap a set mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum HeapType {
    /// `D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV`.
    CbvSrvUav,
    /// `D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER`.
    Sampler,
}

/// One heap set: an array binding whose element `i` is heap slot `i`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapSet {
    /// Set index.
    pub set: u32,
    /// The heap it mirrors.
    pub heap: HeapType,
    /// The array's binding number (extra bindings, if any, come first).
    pub array_binding: u32,
    /// The array's descriptor type (`Mutable` for mutable sets).
    pub descriptor_type: DescriptorType,
    /// For mutable sets, the types the array can hold.
    pub mutable_types: Vec<DescriptorType>,
    /// View kinds stored in this set (a buffer view may be stored in two sets, typed and raw).
    pub views: Vec<HeapView>,
}

/// Where a shader finds a heap view of a given kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeapBinding {
    /// Set and binding of the array.
    pub set: u32,
    /// Binding of the array.
    pub binding: u32,
    /// The descriptor type the shader declares for it. Raw and structured buffers are
    /// `UniformTexelBuffer`/`StorageTexelBuffer` (R32_UINT) when storage buffers cannot be used.
    pub descriptor_type: DescriptorType,
}

/// The descriptor heaps' sets and side buffers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapLayout {
    /// Heap sets, sampler heap first.
    pub sets: Vec<HeapSet>,
    /// Storage buffer of one u64 per CBV/SRV/UAV heap slot: the GPU address of the UAV's
    /// counter (0 when none). Present with buffer device addresses.
    pub uav_counters: Option<SetBinding>,
    /// Storage buffer of `uvec2` pairs per heap slot `i`: `[2i] = (byte offset, byte count)` of
    /// a storage-buffer view relative to its aligned descriptor, `[2i+1] = (element offset,
    /// element count)` of a texel-buffer view. Present when either kind needs it.
    pub offset_buffer: Option<SetBinding>,
    /// Raw and structured buffer views use storage-buffer descriptors
    /// (`minStorageBufferOffsetAlignment <= 16`); otherwise R32_UINT texel buffers.
    pub raw_buffers_as_storage_buffers: bool,
    /// Storage-buffer views go through the offset buffer (alignment above 4).
    pub storage_buffer_offsets: bool,
    /// Texel-buffer views go through the offset buffer ([`LayoutOptions::typed_offset_buffer`]).
    pub texel_buffer_offsets: bool,
    /// Heap CBVs use storage-buffer descriptors (no uniform-buffer heap).
    pub cbv_as_storage_buffer: bool,
    /// Descriptor count of the CBV/SRV/UAV arrays.
    pub cbv_srv_uav_heap_size: u32,
    /// Descriptor count of the sampler array.
    pub sampler_heap_size: u32,
}

impl HeapLayout {
    /// Where views of `view`'s kind live and which descriptor type the shader declares.
    pub fn binding_for(&self, view: HeapView) -> Option<HeapBinding> {
        let declared = match view {
            HeapView::Sampler => DescriptorType::Sampler,
            HeapView::Cbv if self.cbv_as_storage_buffer => DescriptorType::StorageBuffer,
            HeapView::Cbv => DescriptorType::UniformBuffer,
            HeapView::SrvImage => DescriptorType::SampledImage,
            HeapView::UavImage => DescriptorType::StorageImage,
            HeapView::SrvTexelBuffer => DescriptorType::UniformTexelBuffer,
            HeapView::UavTexelBuffer => DescriptorType::StorageTexelBuffer,
            HeapView::SrvRawBuffer | HeapView::UavRawBuffer
                if self.raw_buffers_as_storage_buffers =>
            {
                DescriptorType::StorageBuffer
            }
            HeapView::SrvRawBuffer => DescriptorType::UniformTexelBuffer,
            HeapView::UavRawBuffer => DescriptorType::StorageTexelBuffer,
        };
        let stored_as = match view {
            HeapView::SrvRawBuffer if !self.raw_buffers_as_storage_buffers => {
                HeapView::SrvTexelBuffer
            }
            HeapView::UavRawBuffer if !self.raw_buffers_as_storage_buffers => {
                HeapView::UavTexelBuffer
            }
            other => other,
        };
        let set = self.sets.iter().find(|s| s.views.contains(&stored_as))?;
        Some(HeapBinding {
            set: set.set,
            binding: set.array_binding,
            descriptor_type: declared,
        })
    }
}

/// Where the root block lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RootBlockStorage {
    /// Push constants at offset 0 (none at all when the block is empty).
    PushConstants,
    /// A uniform buffer of `size_in_bytes` at this binding of the root descriptor set, because
    /// the block exceeds `maxPushConstantsSize`.
    UniformBuffer(SetBinding),
}

/// The root argument block: byte layout and storage. Offsets are bytes from the block start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RootBlock {
    /// Total size in bytes (at most 256 for a valid root signature).
    pub size_in_bytes: u32,
    /// Number of 8-byte root descriptor addresses at the start (at `8 * i`).
    pub root_address_count: u32,
    /// Start of the root constants region (`8 * root_address_count`).
    pub root_constants_offset: u32,
    /// Start of the descriptor table region (one 32-bit heap slot index per table).
    pub descriptor_tables_offset: u32,
    /// Number of descriptor tables.
    pub descriptor_table_count: u32,
    /// Push constants or spilled uniform buffer.
    pub storage: RootBlockStorage,
    /// Stages that read any part of the block (union of the members' visibilities).
    pub stages: ShaderStages,
}

/// One descriptor range of a table as the shader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TableRange {
    /// Register class.
    pub range_type: RangeType,
    /// Register space.
    pub register_space: u32,
    /// First register.
    pub base_shader_register: u32,
    /// Register count; [`UNBOUNDED`] for unbounded ranges.
    #[serde(serialize_with = "ser_count")]
    pub num_descriptors: u32,
    /// Start of the range in descriptors from the table start (`APPEND` resolved).
    pub offset_in_table: u32,
}

fn ser_count<S: Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    if *value == UNBOUNDED {
        serializer.serialize_str("unbounded")
    } else {
        serializer.serialize_u32(*value)
    }
}

/// Where one root parameter's argument goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum ParameterLayout {
    /// A descriptor table: the 32-bit word at `offset_in_block` holds the table's first heap
    /// slot index.
    DescriptorTable {
        /// Ordinal among the tables.
        table_index: u32,
        /// Byte offset of the table's word in the root block.
        offset_in_block: u32,
        /// The ranges with resolved offsets.
        ranges: Vec<TableRange>,
    },
    /// Root constants: `dword_count` words at `offset_in_block`.
    RootConstants {
        /// Byte offset of the first word in the root block.
        offset_in_block: u32,
        /// Number of 32-bit values.
        dword_count: u32,
    },
    /// A root CBV/SRV/UAV as a 64-bit GPU address (buffer device address) at
    /// `offset_in_block` (`= 8 * root_address_index`).
    RootAddress {
        /// Byte offset of the address in the root block.
        offset_in_block: u32,
        /// Ordinal among the address root descriptors.
        root_address_index: u32,
    },
    /// A root CBV/SRV/UAV as a descriptor in the root descriptor set.
    RootDescriptor {
        /// Set and binding.
        set: u32,
        /// Binding in the root descriptor set.
        binding: u32,
        /// `UniformBuffer` for CBVs, `StorageBuffer` for SRVs/UAVs.
        descriptor_type: DescriptorType,
    },
}

/// What serves a shader register, as returned by [`PipelineLayout::resolve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum Resolved {
    /// A root constants parameter (the register is a `b#`); word `i` of the constant buffer is
    /// at `offset_in_block + 4 * i`.
    RootConstants {
        /// Root parameter index.
        parameter: u32,
        /// Byte offset of the first constant in the root block.
        offset_in_block: u32,
        /// Number of 32-bit constants.
        dword_count: u32,
    },
    /// A root descriptor read through the 64-bit address at `offset_in_block`.
    RootAddress {
        /// Root parameter index.
        parameter: u32,
        /// Byte offset of the address in the root block.
        offset_in_block: u32,
        /// Ordinal among the address root descriptors.
        root_address_index: u32,
    },
    /// A root descriptor bound as a descriptor.
    RootDescriptor {
        /// Root parameter index.
        parameter: u32,
        /// Set of the descriptor.
        set: u32,
        /// Binding of the descriptor.
        binding: u32,
        /// Its descriptor type.
        descriptor_type: DescriptorType,
    },
    /// A descriptor in a table: heap slot = root block word at `table_offset_in_block` +
    /// `offset_in_table`. The set and binding depend on the view kind the shader declares
    /// ([`HeapLayout::binding_for`]).
    Table {
        /// Root parameter index of the table.
        parameter: u32,
        /// Range index in the table.
        range: u32,
        /// Ordinal among the tables.
        table_index: u32,
        /// Byte offset of the table's word in the root block.
        table_offset_in_block: u32,
        /// Descriptors from the table start to this register's descriptor:
        /// range offset + (register - range base).
        offset_in_table: u32,
        /// The range's first register.
        range_base_register: u32,
        /// The range's register count ([`UNBOUNDED`] for unbounded).
        range_count: u32,
    },
    /// A static sampler.
    StaticSampler {
        /// Static sampler index.
        index: u32,
        /// Set of the immutable sampler.
        set: u32,
        /// Binding of the immutable sampler.
        binding: u32,
    },
}

/// The register interval an element binds, for lookups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterRange {
    /// Register class.
    pub class: RegisterClass,
    /// Register space.
    pub space: u32,
    /// First register.
    pub first: u32,
    /// Last register (inclusive; `u32::MAX` for unbounded ranges).
    pub last: u32,
    /// Visibility of the parameter or sampler.
    pub visibility: ShaderVisibility,
    /// What serves `first`; later registers of a table range add `register - first` to its
    /// `offset_in_table`.
    pub target: Resolved,
}

/// The complete Vulkan pipeline layout of a root signature. Plain data; see the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PipelineLayout {
    /// The root argument block.
    pub root_block: RootBlock,
    /// The descriptor heap sets.
    pub heap: HeapLayout,
    /// Set index of the static samplers, if any.
    pub static_sampler_set: Option<u32>,
    /// Set index of the root descriptor set, if any.
    pub root_descriptor_set: Option<u32>,
    /// Every set layout; `set_layouts[i].set == i`.
    pub set_layouts: Vec<DescriptorSetLayout>,
    /// One entry per root parameter, in parameter order.
    pub parameters: Vec<ParameterLayout>,
    /// One entry per static sampler: its immutable sampler binding.
    pub static_samplers: Vec<SetBinding>,
    /// `CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED`: SM 6.6 `ResourceDescriptorHeap[i]` reads heap slot
    /// `i` through [`HeapLayout::binding_for`].
    pub resource_heap_directly_indexed: bool,
    /// `SAMPLER_HEAP_DIRECTLY_INDEXED`: `SamplerDescriptorHeap[i]` reads sampler slot `i`.
    pub sampler_heap_directly_indexed: bool,
    /// Register lookup table, sorted by (class, space, first register).
    pub registers: Vec<RegisterRange>,
}

/// A push constant range of one bind point's pipeline layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PushConstantRange {
    /// `stageFlags`.
    pub stages: ShaderStages,
    /// `offset` (always 0).
    pub offset: u32,
    /// `size` in bytes.
    pub size: u32,
}

impl PipelineLayout {
    /// The push constant range of `bind_point`'s `VkPipelineLayout`: the root block's stages
    /// masked to the bind point, or `None` when the block is empty, spilled, or read by none of
    /// the bind point's stages.
    pub fn push_constant_range(&self, bind_point: BindPoint) -> Option<PushConstantRange> {
        let block = &self.root_block;
        if block.size_in_bytes == 0 || block.storage != RootBlockStorage::PushConstants {
            return None;
        }
        let stages = block.stages & bind_point.stages();
        (!stages.is_empty()).then_some(PushConstantRange {
            stages,
            offset: 0,
            size: block.size_in_bytes,
        })
    }

    /// What serves register `register` of `class` in `space` for a shader of `stage`, or `None`
    /// when the root signature does not bind it for that stage.
    pub fn resolve(
        &self,
        class: RegisterClass,
        space: u32,
        register: u32,
        stage: ShaderStage,
    ) -> Option<Resolved> {
        self.find(class, space, register, stage)
            .map(|entry| offset_target(entry, register))
    }

    /// Like [`resolve`](Self::resolve) for a register array `first..first + count`
    /// (`count == None`: unbounded): the whole array must lie in one range, which for arrays of
    /// more than one register must be a descriptor table range (D3D12 binds no arrays to root
    /// descriptors or to separate static samplers). Returns the target of `first`.
    pub fn resolve_array(
        &self,
        class: RegisterClass,
        space: u32,
        first: u32,
        count: Option<u32>,
        stage: ShaderStage,
    ) -> Option<Resolved> {
        let entry = self.find(class, space, first, stage)?;
        let is_table = matches!(entry.target, Resolved::Table { .. });
        match count {
            Some(0) => None,
            Some(1) => Some(offset_target(entry, first)),
            Some(n) => {
                let last = first.checked_add(n - 1)?;
                (is_table && last <= entry.last).then(|| offset_target(entry, first))
            }
            None => is_table.then(|| offset_target(entry, first)),
        }
    }

    fn find(
        &self,
        class: RegisterClass,
        space: u32,
        register: u32,
        stage: ShaderStage,
    ) -> Option<&RegisterRange> {
        let start = self
            .registers
            .partition_point(|r| (r.class, r.space) < (class, space));
        self.registers
            .get(start..)?
            .iter()
            .take_while(|r| r.class == class && r.space == space && r.first <= register)
            .find(|r| register <= r.last && stage.sees(r.visibility))
    }
}

fn offset_target(entry: &RegisterRange, register: u32) -> Resolved {
    match entry.target {
        Resolved::Table {
            parameter,
            range,
            table_index,
            table_offset_in_block,
            offset_in_table,
            range_base_register,
            range_count,
        } => Resolved::Table {
            parameter,
            range,
            table_index,
            table_offset_in_block,
            offset_in_table: offset_in_table.wrapping_add(register - entry.first),
            range_base_register,
            range_count,
        },
        other => other,
    }
}

fn layout_error(message: impl Into<String>) -> Error {
    Error::Layout(message.into())
}

mod build;
mod heap;

pub use build::layout;

#[cfg(test)]
mod tests;
