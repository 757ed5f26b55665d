//! The binding contract between the runtime and a translated compute shader: where the shader
//! finds every descriptor, root argument and side buffer the runtime binds, as plain data
//! derived from a [`PipelineLayout`] alone ([`BindingContract::new`]).
//!
//! The root signature's Vulkan layout (sets, bindings, root block byte layout) is computed by
//! [`layout`](crate::layout) (vkd3d-proton's model). This module adds what a shader needs beyond
//! the layout: which array to declare for each D3D12 view kind and how to declare it, what the
//! runtime writes into each heap slot, and the formats of the offset and UAV-counter side
//! buffers. It lives here, next to the layout, so that both sides read one definition: the
//! runtime (`dxil-runtime`, which re-exports it) binds exactly this, and the translator
//! (`dxil-to-spirv`'s root-signature binding model) declares exactly this.
//!
//! # The contract
//!
//! **Sets.** The pipeline layout has [`BindingContract::descriptor_set_count`] sets
//! (`layout.set_layouts`); a shader may use any subset of their bindings. All sets are bound
//! for every dispatch.
//!
//! **Heap arrays** ([`HeapArray`], [`BindingContract::heap_arrays`]). Each D3D12 view kind reads
//! one runtime-sized descriptor array; element `i` is heap slot `i` of the CBV/SRV/UAV heap (or
//! the sampler heap for samplers). Several view kinds may share one binding (mutable
//! descriptors): the shader then declares one variable per kind and element type on the same
//! set and binding (aliasing). Declarations, by [`HeapArray::descriptor_type`]:
//! * `Sampler`: `OpTypeRuntimeArray %OpTypeSampler`, storage class `UniformConstant`.
//! * `UniformBuffer`: runtime array of a `Block` struct in `Uniform`; D3D12 CBVs hold at most
//!   64 KiB, so `struct { uvec4 data[4096]; }` (array stride 16) covers every view.
//! * `StorageBuffer`: runtime array of a `Block` struct in `StorageBuffer` whose last member is a
//!   runtime array of any scalar or vector element (one variable per element type); SRVs may be
//!   declared `NonWritable`.
//! * `UniformTexelBuffer`: runtime array of `OpTypeImage Dim=Buffer Sampled=1`, read with
//!   `OpImageFetch`; `StorageTexelBuffer`: `Sampled=2`, format `Unknown` (needs the
//!   `StorageImage{Read,Write}WithoutFormat` capabilities) or the view's format.
//! * Raw and structured views are `StorageBuffer` arrays unless
//!   [`HeapArray::descriptor_type`] says `UniformTexelBuffer`/`StorageTexelBuffer` (devices
//!   whose storage-buffer offset alignment exceeds 16): then they are R32_UINT texel buffers read
//!   a 32-bit word per element.
//!
//! **Heap index.** A register in a table range is heap slot
//! `root_word(table) + offset_in_table`, where `root_word` is the 32-bit word of the root block
//! at the table's [`ParameterContract::Table::offset_in_block`] and `offset_in_table` is what
//! [`PipelineLayout::resolve`] returns (range offset + register − range base); an array adds its
//! dynamic index relative to its first register. SM 6.6 `ResourceDescriptorHeap[i]` /
//! `SamplerDescriptorHeap[i]` read slot `i` directly ([`HeapIndexBase::Direct`]). Slots are
//! never checked against the heap size (D3D12 makes that undefined behaviour).
//!
//! **What the runtime writes per view** (so that a shader may read a slot through any array
//! that its declaration implies, as D3D12 drivers allow):
//! * a buffer SRV/UAV (raw, structured or typed) gets a storage-buffer descriptor in the raw
//!   array *and* a texel-buffer descriptor in the typed array (the view's format for typed
//!   views, R32_UINT words for raw and structured views whose stride is a multiple of 4), where
//!   those arrays are distinct bindings; where one binding holds both (a single mutable set),
//!   only the descriptor of the view's own kind;
//! * a CBV gets a uniform-buffer descriptor (storage buffer when
//!   [`HeapLayout::cbv_as_storage_buffer`]) of its bytes, clipped to the end of its memory
//!   (reads past the end are out of bounds, as in D3D12);
//! * a null view gets Vulkan null descriptors (`nullDescriptor`) of every type above: reads
//!   return zero, writes are dropped, sizes are zero;
//! * slots no view writes hold no descriptor (`PARTIALLY_BOUND`).
//!
//! Buffers are bound with robust buffer access (robustBufferAccess2 where offered): accesses
//! outside a descriptor's range read zero and drop writes.
//!
//! **Offset buffer** ([`OffsetBuffer`]): a storage buffer `struct { uvec2 e[]; }` at its set and
//! binding. For heap slot `i`, `e[2i] = (byte offset, byte count)` of the view inside its
//! storage-buffer descriptor and `e[2i+1] = (element offset, element count)` of the view inside
//! its texel-buffer descriptor (elements of the view's format, or 32-bit words for raw and
//! structured views). The runtime fills both entries for every buffer SRV/UAV, and `(0, 0)` for
//! null views and unused slots. A shader applies an entry where [`HeapArray::offsets`] says so:
//! with an element index `k` in units of `s` bytes (`s` = 4 for words), `k' = k + e.x / s`, and
//! if `k >= e.y / s` it substitutes an index that is out of bounds of any descriptor (for
//! example `0x3FFF_FFFF` words), which robustness turns into a zero read or a dropped write.
//! `GetDimensions` reports `e.y` (divided by the stride for structured views). A shader may skip
//! the byte entry where the view's offset is known to be aligned: raw views (D3D12 requires
//! 16-byte raw view offsets, and the runtime rejects others) and structured views whose stride is
//! a multiple of 16 (the storage-buffer alignment is at most 16 whenever byte offsets are on).
//! Texel entries cannot be skipped.
//!
//! **UAV counters** ([`BindingContract::uav_counters`]): a storage buffer
//! `struct { uvec2 va[]; }`; `va[i]` is the buffer device address (low word first) of the
//! 32-bit counter of the UAV at heap slot `i`, or 0 when that slot has no counter.
//! `IncrementCounter()` is an atomic add of 1 through a `PhysicalStorageBuffer` pointer (4-byte
//! aligned) returning the old value; `DecrementCounter()` adds `0xFFFF_FFFF` and returns the old
//! value minus 1. With an address of 0 the shader skips the atomic and returns 0.
//! The same table holds the device address of the acceleration structure of an RTAS SRV at heap
//! slot `i` (ray tracing and ray queries read `va[i]` and convert it with
//! `OpConvertUToAccelerationStructureKHR`); a root SRV holding an acceleration structure is its
//! 8-byte address in the root block.
//!
//! **Root block** ([`RootBlockContract`]): `size_in_bytes` bytes in push constants at offset 0,
//! or the same bytes in a uniform buffer at a set and binding when spilled (declare it as
//! `uvec4 words[N]`, word `w` at `[w / 4][w % 4]`). Per root parameter
//! ([`ParameterContract`]): a table is one 32-bit heap slot index; root constants are
//! consecutive 32-bit words (the `b` register's constant buffer, word `j` at
//! `offset_in_block + 4j`); a root CBV/SRV/UAV through an address is 8 bytes, the 64-bit GPU
//! address little-endian (read it as `uvec2` and `OpBitcast` it to a `PhysicalStorageBuffer`
//! pointer; no bounds checks, as in D3D12); a root descriptor not passed by address is a
//! descriptor at its set and binding covering the memory from the address to its end (at most
//! 64 KiB for uniform buffers). Arguments a case does not set are zero: tables start at slot 0,
//! constants are 0, addresses are 0 and root descriptors are null descriptors.
//!
//! **Static samplers**: static sampler `i` is an immutable `OpTypeSampler` (not an array) at
//! [`BindingContract::static_samplers`]`[i]`.

use crate::layout::{
    DescriptorType, HeapLayout, HeapType, HeapView, ParameterLayout, PipelineLayout, Resolved,
    RootBlockStorage, SetBinding, ShaderStage, ShaderStages, TableRange,
};
use crate::model::{RangeType, RegisterClass, ShaderVisibility};
use serde::Serialize;

/// Every view kind, in the order [`BindingContract::heap_arrays`] lists them.
pub const HEAP_VIEWS: [HeapView; 8] = [
    HeapView::Sampler,
    HeapView::Cbv,
    HeapView::SrvRawBuffer,
    HeapView::UavRawBuffer,
    HeapView::SrvTexelBuffer,
    HeapView::UavTexelBuffer,
    HeapView::SrvImage,
    HeapView::UavImage,
];

/// Which entry of the offset buffer a heap access applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OffsetUse {
    /// None: the descriptor starts exactly at the view.
    None,
    /// `e[2i]`: byte offset and byte count inside a storage-buffer descriptor.
    Bytes,
    /// `e[2i + 1]`: element offset and element count inside a texel-buffer descriptor.
    Elements,
}

/// The descriptor array a D3D12 view kind is read through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeapArray {
    /// The view kind.
    pub view: HeapView,
    /// The heap it indexes.
    pub heap: HeapType,
    /// Descriptor set.
    pub set: u32,
    /// Binding of the runtime array in that set.
    pub binding: u32,
    /// The descriptor type the shader declares (the binding itself may be `Mutable`).
    pub descriptor_type: DescriptorType,
    /// Whether accesses go through the offset buffer.
    pub offsets: OffsetUse,
}

/// The offset side buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OffsetBuffer {
    /// Descriptor set of the storage buffer.
    pub set: u32,
    /// Its binding.
    pub binding: u32,
    /// Storage-buffer views apply `e[2i]`.
    pub storage_buffer_offsets: bool,
    /// Texel-buffer views apply `e[2i + 1]`.
    pub texel_buffer_offsets: bool,
}

/// Where the root block lives for a compute shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum RootBlockLocation {
    /// No root argument is visible to compute shaders (or there are none).
    Empty,
    /// Push constants at offset 0, visible to these stages.
    PushConstants {
        /// The push-constant range's stages.
        stages: ShaderStages,
    },
    /// A uniform buffer (the block exceeded `maxPushConstantsSize`).
    UniformBuffer {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
}

/// The root argument block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RootBlockContract {
    /// Size in bytes; every offset below is inside it.
    pub size_in_bytes: u32,
    /// Where it lives.
    pub location: RootBlockLocation,
}

/// How one root parameter reaches the shader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum ParameterContract {
    /// A descriptor table: one 32-bit heap slot index.
    Table {
        /// Byte offset of the word in the root block.
        offset_in_block: u32,
        /// The heap the table indexes (sampler tables hold only sampler ranges).
        heap: HeapType,
        /// The ranges, `APPEND` resolved.
        ranges: Vec<TableRange>,
        /// Whether compute shaders see the parameter (visibility `ALL`).
        compute_visible: bool,
    },
    /// 32-bit root constants.
    Constants {
        /// Byte offset of the first word.
        offset_in_block: u32,
        /// Number of words.
        count: u32,
        /// Whether compute shaders see the parameter.
        compute_visible: bool,
    },
    /// A root CBV/SRV/UAV as a 64-bit GPU address.
    Address {
        /// Byte offset of the address (8-byte aligned).
        offset_in_block: u32,
        /// The register class (`b`, `t` or `u`).
        class: RegisterClass,
        /// Whether compute shaders see the parameter.
        compute_visible: bool,
    },
    /// A root CBV/SRV/UAV as a descriptor.
    Descriptor {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
        /// `UniformBuffer` (CBV) or `StorageBuffer` (SRV/UAV).
        descriptor_type: DescriptorType,
        /// The register class.
        class: RegisterClass,
        /// Whether compute shaders see the parameter.
        compute_visible: bool,
    },
}

/// How a heap index starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum HeapIndexBase {
    /// The root block word at this byte offset (a descriptor table).
    TableWord {
        /// Byte offset in the root block.
        offset_in_block: u32,
    },
    /// The shader's own index (SM 6.6 direct heap access).
    Direct,
}

/// Where a compute shader finds a register, as answered by [`BindingContract::locate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
pub enum Location {
    /// A heap slot: `base + offset_in_table` (+ the dynamic index relative to the declaration's
    /// first register), read through `array`.
    Heap {
        /// The array to read.
        array: HeapArray,
        /// Where the index starts.
        base: HeapIndexBase,
        /// Slots from the base to the declaration's first register.
        offset_in_table: u32,
    },
    /// Root constants: word `j` of the constant buffer at `offset_in_block + 4j`.
    RootConstants {
        /// Byte offset of word 0.
        offset_in_block: u32,
        /// Number of words.
        count: u32,
    },
    /// A root descriptor by address at this byte offset.
    RootAddress {
        /// Byte offset of the 64-bit address.
        offset_in_block: u32,
    },
    /// A root descriptor bound as a descriptor.
    RootDescriptor {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
        /// Its type.
        descriptor_type: DescriptorType,
    },
    /// A static sampler.
    StaticSampler {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
}

/// The whole binding contract of one pipeline layout. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BindingContract {
    /// Number of descriptor sets in the pipeline layout.
    pub descriptor_set_count: u32,
    /// The root block.
    pub root_block: RootBlockContract,
    /// One entry per view kind the heap sets can hold, in [`HEAP_VIEWS`] order.
    pub heap_arrays: Vec<HeapArray>,
    /// The UAV counter address table, when the device has buffer device addresses.
    pub uav_counters: Option<SetBinding>,
    /// The offset buffer, when some view kind needs it.
    pub offset_buffer: Option<OffsetBuffer>,
    /// Static sampler `i`'s immutable sampler.
    pub static_samplers: Vec<SetBinding>,
    /// One entry per root parameter, in parameter order.
    pub parameters: Vec<ParameterContract>,
    /// The root signature allows `ResourceDescriptorHeap[]`.
    pub resource_heap_directly_indexed: bool,
    /// The root signature allows `SamplerDescriptorHeap[]`.
    pub sampler_heap_directly_indexed: bool,
}

fn class_of(view: HeapView) -> RegisterClass {
    match view {
        HeapView::Sampler => RangeType::Sampler,
        HeapView::Cbv => RangeType::Cbv,
        HeapView::SrvImage | HeapView::SrvTexelBuffer | HeapView::SrvRawBuffer => RangeType::Srv,
        HeapView::UavImage | HeapView::UavTexelBuffer | HeapView::UavRawBuffer => RangeType::Uav,
    }
}

fn offset_use(heap: &HeapLayout, view: HeapView, descriptor_type: DescriptorType) -> OffsetUse {
    let buffer_view = matches!(
        view,
        HeapView::SrvRawBuffer
            | HeapView::UavRawBuffer
            | HeapView::SrvTexelBuffer
            | HeapView::UavTexelBuffer
    );
    if !buffer_view || heap.offset_buffer.is_none() {
        return OffsetUse::None;
    }
    match descriptor_type {
        DescriptorType::StorageBuffer if heap.storage_buffer_offsets => OffsetUse::Bytes,
        DescriptorType::UniformTexelBuffer | DescriptorType::StorageTexelBuffer
            if heap.texel_buffer_offsets =>
        {
            OffsetUse::Elements
        }
        _ => OffsetUse::None,
    }
}

impl BindingContract {
    /// The contract of `layout`, for compute shaders.
    pub fn new(layout: &PipelineLayout) -> BindingContract {
        let heap = &layout.heap;
        let heap_arrays = HEAP_VIEWS
            .iter()
            .filter_map(|&view| {
                let b = heap.binding_for(view)?;
                Some(HeapArray {
                    view,
                    heap: if view == HeapView::Sampler {
                        HeapType::Sampler
                    } else {
                        HeapType::CbvSrvUav
                    },
                    set: b.set,
                    binding: b.binding,
                    descriptor_type: b.descriptor_type,
                    offsets: offset_use(heap, view, b.descriptor_type),
                })
            })
            .collect();
        let block = &layout.root_block;
        let location = match block.storage {
            RootBlockStorage::UniformBuffer(sb) => RootBlockLocation::UniformBuffer {
                set: sb.set,
                binding: sb.binding,
            },
            RootBlockStorage::PushConstants => {
                match layout.push_constant_range(crate::layout::BindPoint::Compute) {
                    Some(range) => RootBlockLocation::PushConstants {
                        stages: range.stages,
                    },
                    None => RootBlockLocation::Empty,
                }
            }
        };
        let parameters = layout
            .parameters
            .iter()
            .zip(&layout.registers_by_parameter())
            .map(|(p, &(class, compute_visible))| match p {
                ParameterLayout::DescriptorTable {
                    offset_in_block,
                    ranges,
                    ..
                } => ParameterContract::Table {
                    offset_in_block: *offset_in_block,
                    heap: if ranges.first().map(|r| r.range_type) == Some(RangeType::Sampler) {
                        HeapType::Sampler
                    } else {
                        HeapType::CbvSrvUav
                    },
                    ranges: ranges.clone(),
                    compute_visible,
                },
                ParameterLayout::RootConstants {
                    offset_in_block,
                    dword_count,
                } => ParameterContract::Constants {
                    offset_in_block: *offset_in_block,
                    count: *dword_count,
                    compute_visible,
                },
                ParameterLayout::RootAddress {
                    offset_in_block, ..
                } => ParameterContract::Address {
                    offset_in_block: *offset_in_block,
                    class,
                    compute_visible,
                },
                ParameterLayout::RootDescriptor {
                    set,
                    binding,
                    descriptor_type,
                } => ParameterContract::Descriptor {
                    set: *set,
                    binding: *binding,
                    descriptor_type: *descriptor_type,
                    class,
                    compute_visible,
                },
            })
            .collect();
        BindingContract {
            descriptor_set_count: u32::try_from(layout.set_layouts.len()).unwrap_or(u32::MAX),
            root_block: RootBlockContract {
                size_in_bytes: block.size_in_bytes,
                location,
            },
            heap_arrays,
            uav_counters: heap.uav_counters,
            offset_buffer: heap.offset_buffer.map(|sb| OffsetBuffer {
                set: sb.set,
                binding: sb.binding,
                storage_buffer_offsets: heap.storage_buffer_offsets,
                texel_buffer_offsets: heap.texel_buffer_offsets,
            }),
            static_samplers: layout.static_samplers.clone(),
            parameters,
            resource_heap_directly_indexed: layout.resource_heap_directly_indexed,
            sampler_heap_directly_indexed: layout.sampler_heap_directly_indexed,
        }
    }

    /// The array views of `view`'s kind are read through.
    pub fn heap_array(&self, view: HeapView) -> Option<&HeapArray> {
        self.heap_arrays.iter().find(|a| a.view == view)
    }

    /// Where a compute shader finds the register array `first..first + count` of `space`
    /// (`count == None`: unbounded) that it reads as `view`, or `None` when the root signature
    /// does not bind it for compute or binds it to something `view` cannot be read from (a
    /// typed view through a root descriptor, say).
    pub fn locate(
        &self,
        layout: &PipelineLayout,
        view: HeapView,
        space: u32,
        first: u32,
        count: Option<u32>,
    ) -> Option<Location> {
        let resolved =
            layout.resolve_array(class_of(view), space, first, count, ShaderStage::Compute)?;
        let by_root_descriptor = matches!(
            view,
            HeapView::Cbv | HeapView::SrvRawBuffer | HeapView::UavRawBuffer
        );
        match resolved {
            Resolved::Table {
                table_offset_in_block,
                offset_in_table,
                ..
            } => Some(Location::Heap {
                array: *self.heap_array(view)?,
                base: HeapIndexBase::TableWord {
                    offset_in_block: table_offset_in_block,
                },
                offset_in_table,
            }),
            Resolved::RootConstants {
                offset_in_block,
                dword_count,
                ..
            } => (view == HeapView::Cbv).then_some(Location::RootConstants {
                offset_in_block,
                count: dword_count,
            }),
            Resolved::RootAddress {
                offset_in_block, ..
            } => by_root_descriptor.then_some(Location::RootAddress { offset_in_block }),
            Resolved::RootDescriptor {
                set,
                binding,
                descriptor_type,
                ..
            } => by_root_descriptor.then_some(Location::RootDescriptor {
                set,
                binding,
                descriptor_type,
            }),
            Resolved::StaticSampler { set, binding, .. } => {
                (view == HeapView::Sampler).then_some(Location::StaticSampler { set, binding })
            }
        }
    }

    /// Where SM 6.6 `ResourceDescriptorHeap[i]` (or `SamplerDescriptorHeap[i]` for
    /// [`HeapView::Sampler`]) read as `view` is found, when the root signature allows it.
    pub fn direct_heap(&self, view: HeapView) -> Option<Location> {
        let allowed = if view == HeapView::Sampler {
            self.sampler_heap_directly_indexed
        } else {
            self.resource_heap_directly_indexed
        };
        allowed.then_some(Location::Heap {
            array: *self.heap_array(view)?,
            base: HeapIndexBase::Direct,
            offset_in_table: 0,
        })
    }
}

/// Per parameter: the register class of a root descriptor (CBV for others) and whether compute
/// sees it. The layout keeps visibility only in its register table, so it is read from there.
trait RegistersByParameter {
    fn registers_by_parameter(&self) -> Vec<(RegisterClass, bool)>;
}

impl RegistersByParameter for PipelineLayout {
    fn registers_by_parameter(&self) -> Vec<(RegisterClass, bool)> {
        let mut out = vec![(RangeType::Cbv, false); self.parameters.len()];
        for r in &self.registers {
            let parameter = match r.target {
                Resolved::RootConstants { parameter, .. }
                | Resolved::RootAddress { parameter, .. }
                | Resolved::RootDescriptor { parameter, .. }
                | Resolved::Table { parameter, .. } => parameter,
                Resolved::StaticSampler { .. } => continue,
            };
            if let Some(slot) = usize::try_from(parameter).ok().and_then(|p| out.get_mut(p)) {
                let is_table = matches!(r.target, Resolved::Table { .. });
                *slot = (
                    if is_table { slot.0 } else { r.class },
                    r.visibility == ShaderVisibility::All,
                );
            }
        }
        out
    }
}
