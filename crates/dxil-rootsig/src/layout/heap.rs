//! The heap sets: the descriptor heaps as Vulkan descriptor sets `0..K`, the same for every root
//! signature.

use super::*;

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
    let cbv_type = if cbv_as_ssbo {
        DescriptorType::StorageBuffer
    } else {
        DescriptorType::UniformBuffer
    };
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
    let mut heap = HeapLayout {
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

    let mut add = |heap: &mut HeapLayout,
                   kind: HeapType,
                   descriptor_type: DescriptorType,
                   mutable_types: Vec<DescriptorType>,
                   views: Vec<HeapView>,
                   with_extras: bool| {
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
    };

    use DescriptorType as D;
    use HeapView as V;
    add(
        &mut heap,
        HeapType::Sampler,
        D::Sampler,
        Vec::new(),
        vec![V::Sampler],
        false,
    );
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
    if limits.mutable_descriptors {
        let split = raw_ssbo && !options.mutable_single_set;
        if split {
            add(
                &mut heap,
                HeapType::CbvSrvUav,
                D::Mutable,
                typed_types,
                typed_views,
                true,
            );
            let raw_views = vec![V::Cbv, V::SrvRawBuffer, V::UavRawBuffer];
            if cbv_as_ssbo {
                add(
                    &mut heap,
                    HeapType::CbvSrvUav,
                    D::StorageBuffer,
                    Vec::new(),
                    raw_views,
                    false,
                );
            } else {
                add(
                    &mut heap,
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
            add(
                &mut heap,
                HeapType::CbvSrvUav,
                D::Mutable,
                types,
                views,
                true,
            );
        }
    } else {
        add(
            &mut heap,
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
            add(
                &mut heap,
                HeapType::CbvSrvUav,
                ty,
                Vec::new(),
                vec![view],
                false,
            );
        }
        if raw_ssbo {
            add(
                &mut heap,
                HeapType::CbvSrvUav,
                D::StorageBuffer,
                Vec::new(),
                vec![V::SrvRawBuffer, V::UavRawBuffer],
                false,
            );
        }
    }
    heap
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
