//! The caller's remap callbacks as a [`BindingResolver`].
//!
//! The C structures carry dxil-spirv's conventions, which this module turns into the resolver contract of
//! dxil-to-spirv: heap views are asked about with space, register and range all `~0u`; a heap answer's
//! `root_constant_index` of `~0u` means "no table word"; `BUFFER_DEVICE_ADDRESS` means a root descriptor numbered
//! `root_constant_index`; a UAV counter stored as `IDENTITY` is an address table when buffer device addresses are
//! allowed and a texel buffer otherwise. Without a callback, a resource sits at set = space, binding = register.

use std::ffi::c_void;

use dxil_to_spirv::binding::{
    BindingResolver, CbvMap, DescriptorKind, Location, OffsetBuffer, Registers, ResourceQuery,
    SrvMap, UavMap, VkBinding,
};
use dxil_to_spirv::{ResourceKind, Stage};

use crate::abi::{self, descriptor_type as dt};

/// A C callback and its user data.
#[derive(Clone, Copy, Debug)]
pub struct Callback<F> {
    pub f: F,
    pub userdata: *mut c_void,
}

/// The remappers a converter was given.
#[derive(Clone, Copy, Debug, Default)]
pub struct Remappers {
    pub srv: Option<Callback<abi::SrvRemapper>>,
    pub sampler: Option<Callback<abi::SamplerRemapper>>,
    pub uav: Option<Callback<abi::UavRemapper>>,
    pub cbv: Option<Callback<abi::CbvRemapper>>,
    pub vertex_input: Option<Callback<abi::VertexInputRemapper>>,
    pub stream_output: Option<Callback<abi::StreamOutputRemapper>>,
    pub stage_input: Option<Callback<abi::StageIoRemapper>>,
    pub stage_output: Option<Callback<abi::StageIoRemapper>>,
}

/// The resource remappers of one run.
#[derive(Debug)]
pub struct CResolver {
    pub remappers: Remappers,
    /// Buffer device addresses are allowed (`PHYSICAL_STORAGE_BUFFER`).
    pub physical_storage_buffer: bool,
}

// SAFETY: a `CResolver` lives inside one `dxil_spv_converter_run` call and is only used on the thread making that
// call (the translation is single-threaded); the callbacks and their user data are the caller's, valid for the
// duration of the run by the API's contract. `Send`/`Sync` are needed only because the binding model is shared
// through an `Arc`.
unsafe impl Send for CResolver {}
// SAFETY: as for `Send`.
unsafe impl Sync for CResolver {}

pub fn stage_number(stage: Stage) -> abi::ShaderStage {
    use abi::stage as s;
    match stage {
        Stage::Vertex => s::VERTEX,
        Stage::Hull => s::HULL,
        Stage::Domain => s::DOMAIN,
        Stage::Geometry => s::GEOMETRY,
        Stage::Pixel => s::PIXEL,
        Stage::Compute => s::COMPUTE,
        Stage::Amplification => s::AMPLIFICATION,
        Stage::Mesh => s::MESH,
        Stage::RayGeneration => s::RAY_GENERATION,
        Stage::Intersection => s::INTERSECTION,
        Stage::AnyHit => s::ANY_HIT,
        Stage::ClosestHit => s::CLOSEST_HIT,
        Stage::Miss => s::MISS,
        Stage::Callable => s::CALLABLE,
        Stage::Library | Stage::Node => s::UNKNOWN,
    }
}

pub fn kind_number(kind: ResourceKind) -> u32 {
    kind.raw()
}

/// The C form of a query.
pub fn d3d_binding(q: &ResourceQuery) -> abi::D3dBinding {
    let (space, register, range) = match q.registers {
        Registers::Range {
            space,
            register,
            count,
        } => (space, register, count.unwrap_or(u32::MAX)),
        Registers::DescriptorHeap => (u32::MAX, u32::MAX, u32::MAX),
    };
    abi::D3dBinding {
        stage: stage_number(q.stage),
        kind: kind_number(q.kind),
        resource_index: q.resource_index,
        register_space: space,
        register_index: register,
        range_size: range,
        alignment: q.alignment,
    }
}

/// A C answer as a binding; `None` for an unknown descriptor type.
fn binding(b: &abi::VulkanBinding) -> Option<VkBinding> {
    let location = if b.descriptor_type == dt::BUFFER_DEVICE_ADDRESS {
        Location::RootDescriptor {
            ordinal: b.root_constant_index,
        }
    } else if b.bindless.use_heap != 0 {
        Location::Heap {
            set: b.set,
            binding: b.binding,
            table: (b.root_constant_index != u32::MAX).then_some(b.root_constant_index),
            offset: b.bindless.heap_root_offset,
        }
    } else {
        Location::Fixed {
            set: b.set,
            binding: b.binding,
        }
    };
    let kind = match b.descriptor_type {
        dt::IDENTITY | dt::BUFFER_DEVICE_ADDRESS => DescriptorKind::Default,
        dt::SSBO => DescriptorKind::StorageBuffer,
        dt::TEXEL_BUFFER => DescriptorKind::TexelBuffer,
        dt::UBO => DescriptorKind::UniformBuffer,
        dt::INPUT_ATTACHMENT => DescriptorKind::InputAttachment {
            index: b.root_constant_index,
        },
        _ => return None,
    };
    Some(VkBinding { location, kind })
}

fn offsets(b: &abi::VulkanBinding) -> Option<OffsetBuffer> {
    Some(OffsetBuffer {
        set: b.set,
        binding: b.binding,
    })
}

/// The default placement without a callback: set = space, binding = register.
fn fixed(q: &ResourceQuery, set_bias: u32) -> VkBinding {
    let (set, binding) = match q.registers {
        Registers::Range {
            space, register, ..
        } => (space.wrapping_add(set_bias), register),
        Registers::DescriptorHeap => (u32::MAX, u32::MAX),
    };
    VkBinding {
        location: Location::Fixed { set, binding },
        kind: DescriptorKind::Default,
    }
}

impl BindingResolver for CResolver {
    fn srv(&self, q: &ResourceQuery) -> Option<SrvMap> {
        let Some(cb) = self.remappers.srv else {
            return Some(SrvMap {
                buffer: fixed(q, 0),
                offsets: None,
            });
        };
        let input = d3d_binding(q);
        let mut out = abi::SrvVulkanBinding::default();
        // SAFETY: the callback and user data were given to `dxil_spv_converter_set_srv_remapper` and stay valid
        // during the run; both pointers passed point at live locals of the right types.
        let ok = unsafe { (cb.f)(cb.userdata, &input, &mut out) };
        if ok == abi::FALSE {
            return None;
        }
        Some(SrvMap {
            buffer: binding(&out.buffer_binding)?,
            offsets: offsets(&out.offset_binding),
        })
    }

    fn uav(&self, q: &ResourceQuery) -> Option<UavMap> {
        let Some(cb) = self.remappers.uav else {
            return Some(UavMap {
                buffer: fixed(q, 0),
                counter: q.has_counter.then(|| VkBinding {
                    kind: DescriptorKind::TexelBuffer,
                    ..fixed(q, 1)
                }),
                offsets: None,
            });
        };
        let input = abi::UavD3dBinding {
            d3d_binding: d3d_binding(q),
            has_counter: u8::from(q.has_counter),
        };
        let mut out = abi::UavVulkanBinding::default();
        // SAFETY: as in `srv`, for the UAV remapper.
        let ok = unsafe { (cb.f)(cb.userdata, &input, &mut out) };
        if ok == abi::FALSE {
            return None;
        }
        let counter = if q.has_counter {
            let mut c = binding(&out.counter_binding)?;
            if c.kind == DescriptorKind::Default {
                c.kind = if self.physical_storage_buffer {
                    DescriptorKind::AddressTable
                } else {
                    DescriptorKind::TexelBuffer
                };
            }
            Some(c)
        } else {
            None
        };
        Some(UavMap {
            buffer: binding(&out.buffer_binding)?,
            counter,
            offsets: offsets(&out.offset_binding),
        })
    }

    fn cbv(&self, q: &ResourceQuery) -> Option<CbvMap> {
        let Some(cb) = self.remappers.cbv else {
            return Some(CbvMap::Buffer(fixed(q, 0)));
        };
        let input = d3d_binding(q);
        let mut out = abi::CbvVulkanBinding::default();
        // SAFETY: as in `srv`, for the CBV remapper.
        let ok = unsafe { (cb.f)(cb.userdata, &input, &mut out) };
        if ok == abi::FALSE {
            return None;
        }
        if out.push_constant != abi::FALSE {
            Some(CbvMap::RootConstants {
                word: out.offset_in_words(),
            })
        } else {
            Some(CbvMap::Buffer(binding(&out.vulkan)?))
        }
    }

    fn sampler(&self, q: &ResourceQuery) -> Option<VkBinding> {
        let Some(cb) = self.remappers.sampler else {
            return Some(fixed(q, 0));
        };
        let input = d3d_binding(q);
        let mut out = abi::VulkanBinding::default();
        // SAFETY: as in `srv`, for the sampler remapper.
        let ok = unsafe { (cb.f)(cb.userdata, &input, &mut out) };
        if ok == abi::FALSE {
            return None;
        }
        binding(&out)
    }
}
