//! The heap sets: the descriptor heaps as Vulkan descriptor sets `0..K`, the same for every root
//! signature.

use super::*;

use DescriptorType as D;
use HeapView as V;

/// Builds the heap sets (always sets `0..K`).
pub(super) fn heap_layout(
    limits: &DeviceLimits,
    options: &LayoutOptions,
    sets: &mut Vec<DescriptorSetLayout>,
) -> HeapLayout {
    let raw_ssbo = limits.min_storage_buffer_offset_alignment <= 16;
    let storage_buffer_offsets = raw_ssbo && limits.min_storage_buffer_offset_alignment > 4;
    let texel_buffer_offsets = options.typed_offset_buffer;
    let cbv_as_ssbo = !limits.uniform_buffer_heap;
    let heap = HeapLayout {
        sets: Vec::new(),
        uav_counters: None,
        offset_buffer: None,
        raw_buffers_as_storage_buffers: raw_ssbo,
        storage_buffer_offsets,
        texel_buffer_offsets,
        cbv_as_storage_buffer: cbv_as_ssbo,
        cbv_srv_uav_heap_size: options.cbv_srv_uav_heap_size,
        sampler_heap_size: options.sampler_heap_size,
    };
    let mut b = HeapSets {
        limits,
        options,
        sets,
        heap,
    };
    b.add(
        HeapType::Sampler,
        D::Sampler,
        Vec::new(),
        vec![V::Sampler],
        false,
    );
    if limits.mutable_descriptors {
        b.add_mutable_resource_sets();
    } else {
        b.add_resource_sets_per_type();
    }
    b.heap
}

/// Appends heap sets to the pipeline's sets and records them in the heap layout.
struct HeapSets<'a> {
    limits: &'a DeviceLimits,
    options: &'a LayoutOptions,
    sets: &'a mut Vec<DescriptorSetLayout>,
    heap: HeapLayout,
}

/// The typed views and the descriptor types they take, in the same order.
fn typed_types_and_views() -> (Vec<DescriptorType>, Vec<HeapView>) {
    let typed_types = vec![
        D::SampledImage,
        D::UniformTexelBuffer,
        D::StorageImage,
        D::StorageTexelBuffer,
    ];
    let typed_views = vec![
        V::SrvImage,
        V::SrvTexelBuffer,
        V::UavImage,
        V::UavTexelBuffer,
    ];
    (typed_types, typed_views)
}

impl HeapSets<'_> {
    /// The descriptor type CBVs take: uniform buffers where the device allows them in a heap.
    fn cbv_type(&self) -> DescriptorType {
        if self.heap.cbv_as_storage_buffer {
            DescriptorType::StorageBuffer
        } else {
            DescriptorType::UniformBuffer
        }
    }

    /// One heap set: the heap array of `descriptor_type` for `views`, after the UAV counter and
    /// offset buffers when `with_extras` (the first CBV/SRV/UAV set carries them).
    fn add(
        &mut self,
        kind: HeapType,
        descriptor_type: DescriptorType,
        mutable_types: Vec<DescriptorType>,
        views: Vec<HeapView>,
        with_extras: bool,
    ) {
        let heap_flags = BindingFlags {
            update_after_bind: true,
            partially_bound: true,
            variable_descriptor_count: true,
            update_unused_while_pending: true,
        };
        let extra_flags = BindingFlags {
            update_after_bind: true,
            partially_bound: true,
            ..BindingFlags::default()
        };
        let (limits, options, sets, heap) =
            (self.limits, self.options, &mut *self.sets, &mut self.heap);
        let (storage_buffer_offsets, texel_buffer_offsets) =
            (heap.storage_buffer_offsets, heap.texel_buffer_offsets);
        let set = sets.len() as u32;
        let mut bindings = Vec::new();
        if with_extras {
            if limits.buffer_device_address {
                heap.uav_counters = Some(SetBinding {
                    set,
                    binding: bindings.len() as u32,
                });
                bindings.push(extra_binding(bindings.len() as u32, extra_flags));
            }
            if storage_buffer_offsets || texel_buffer_offsets {
                heap.offset_buffer = Some(SetBinding {
                    set,
                    binding: bindings.len() as u32,
                });
                bindings.push(extra_binding(bindings.len() as u32, extra_flags));
            }
        }
        let array_binding = bindings.len() as u32;
        bindings.push(DescriptorSetLayoutBinding {
            binding: array_binding,
            descriptor_type,
            descriptor_count: match kind {
                HeapType::Sampler => options.sampler_heap_size,
                HeapType::CbvSrvUav => options.cbv_srv_uav_heap_size,
            },
            stages: ShaderStages::ALL,
            mutable_types: mutable_types.clone(),
            immutable_sampler: None,
            flags: heap_flags,
        });
        sets.push(DescriptorSetLayout {
            set,
            purpose: SetPurpose::Heap,
            push_descriptor: false,
            update_after_bind_pool: true,
            bindings,
        });
        heap.sets.push(HeapSet {
            set,
            heap: kind,
            array_binding,
            descriptor_type,
            mutable_types,
            views,
        });
    }

    /// With mutable descriptors: one mutable set for every CBV/SRV/UAV view, or, when raw
    /// buffers are storage buffers and the options allow it, one for typed views and one for
    /// CBVs and raw buffers.
    fn add_mutable_resource_sets(&mut self) {
        let raw_ssbo = self.heap.raw_buffers_as_storage_buffers;
        let cbv_as_ssbo = self.heap.cbv_as_storage_buffer;
        let cbv_type = self.cbv_type();
        let (typed_types, typed_views) = typed_types_and_views();
        let split = raw_ssbo && !self.options.mutable_single_set;
        if split {
            self.add(
                HeapType::CbvSrvUav,
                D::Mutable,
                typed_types,
                typed_views,
                true,
            );
            let raw_views = vec![V::Cbv, V::SrvRawBuffer, V::UavRawBuffer];
            if cbv_as_ssbo {
                self.add(
                    HeapType::CbvSrvUav,
                    D::StorageBuffer,
                    Vec::new(),
                    raw_views,
                    false,
                );
            } else {
                self.add(
                    HeapType::CbvSrvUav,
                    D::Mutable,
                    vec![D::UniformBuffer, D::StorageBuffer],
                    raw_views,
                    false,
                );
            }
        } else {
            let mut types = vec![cbv_type];
            if raw_ssbo && !cbv_as_ssbo {
                types.push(D::StorageBuffer);
            }
            types.extend(typed_types);
            let mut views = vec![V::Cbv];
            if raw_ssbo {
                views.extend([V::SrvRawBuffer, V::UavRawBuffer]);
            }
            views.extend(typed_views);
            self.add(HeapType::CbvSrvUav, D::Mutable, types, views, true);
        }
    }

    /// Without mutable descriptors: one set per descriptor type, CBVs first.
    fn add_resource_sets_per_type(&mut self) {
        let cbv_type = self.cbv_type();
        self.add(
            HeapType::CbvSrvUav,
            cbv_type,
            Vec::new(),
            vec![V::Cbv],
            true,
        );
        for (ty, view) in [
            (D::UniformTexelBuffer, V::SrvTexelBuffer),
            (D::SampledImage, V::SrvImage),
            (D::StorageTexelBuffer, V::UavTexelBuffer),
            (D::StorageImage, V::UavImage),
        ] {
            self.add(HeapType::CbvSrvUav, ty, Vec::new(), vec![view], false);
        }
        if self.heap.raw_buffers_as_storage_buffers {
            self.add(
                HeapType::CbvSrvUav,
                D::StorageBuffer,
                Vec::new(),
                vec![V::SrvRawBuffer, V::UavRawBuffer],
                false,
            );
        }
    }
}

fn extra_binding(binding: u32, flags: BindingFlags) -> DescriptorSetLayoutBinding {
    DescriptorSetLayoutBinding {
        binding,
        descriptor_type: DescriptorType::StorageBuffer,
        descriptor_count: 1,
        stages: ShaderStages::ALL,
        mutable_types: Vec::new(),
        immutable_sampler: None,
        flags,
    }
}
