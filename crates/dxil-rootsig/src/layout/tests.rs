use super::*;
use crate::hlsl::{ParseOptions, parse_hlsl};

/// binding-model.md §2.4: `[0] table(SRVs), [1] RootConstants(b0, 4), [2] UAV(u0),
/// [3] table(samplers), [4] CBV(b1)`.
const EXAMPLE: &str = "DescriptorTable(SRV(t0, numDescriptors=8)), RootConstants(num32BitConstants=4, b0), \
                       UAV(u0), DescriptorTable(Sampler(s0, numDescriptors=4)), CBV(b1)";

fn example() -> RootSignature {
    parse_hlsl(EXAMPLE, &ParseOptions::default()).expect("parses")
}

fn table(index: u32, offset: u32, ranges: Vec<TableRange>) -> ParameterLayout {
    ParameterLayout::DescriptorTable {
        table_index: index,
        offset_in_block: offset,
        ranges,
    }
}

fn range(range_type: RangeType, n: u32) -> TableRange {
    TableRange {
        range_type,
        register_space: 0,
        base_shader_register: 0,
        num_descriptors: n,
        offset_in_table: 0,
    }
}

#[test]
fn worked_example_raw_address_cbv() {
    let l = layout(
        &example(),
        &DeviceLimits::default(),
        &LayoutOptions::default(),
    )
    .expect("layout");
    assert_eq!(
        l.parameters,
        vec![
            table(0, 32, vec![range(RangeType::Srv, 8)]),
            ParameterLayout::RootConstants {
                offset_in_block: 16,
                dword_count: 4
            },
            ParameterLayout::RootAddress {
                offset_in_block: 0,
                root_address_index: 0
            },
            table(1, 36, vec![range(RangeType::Sampler, 4)]),
            ParameterLayout::RootAddress {
                offset_in_block: 8,
                root_address_index: 1
            },
        ]
    );
    assert_eq!(
        l.root_block,
        RootBlock {
            size_in_bytes: 40,
            root_address_count: 2,
            root_constants_offset: 16,
            descriptor_tables_offset: 32,
            descriptor_table_count: 2,
            storage: RootBlockStorage::PushConstants,
            stages: ShaderStages::ALL,
        }
    );
    // Split mutable heap: sampler, typed, raw; nothing else.
    assert_eq!(l.set_layouts.len(), 3);
    assert_eq!((l.static_sampler_set, l.root_descriptor_set), (None, None));
    assert_eq!(
        l.push_constant_range(BindPoint::Compute),
        Some(PushConstantRange {
            stages: ShaderStages::COMPUTE,
            offset: 0,
            size: 40
        })
    );
}

#[test]
fn worked_example_push_descriptor_cbv() {
    let options = LayoutOptions {
        root_cbv: RootCbvPolicy::PushDescriptor,
        ..LayoutOptions::default()
    };
    let l = layout(&example(), &DeviceLimits::default(), &options).expect("layout");
    assert_eq!(
        l.parameters,
        vec![
            table(0, 24, vec![range(RangeType::Srv, 8)]),
            ParameterLayout::RootConstants {
                offset_in_block: 8,
                dword_count: 4
            },
            ParameterLayout::RootAddress {
                offset_in_block: 0,
                root_address_index: 0
            },
            table(1, 28, vec![range(RangeType::Sampler, 4)]),
            ParameterLayout::RootDescriptor {
                set: 3,
                binding: 0,
                descriptor_type: DescriptorType::UniformBuffer
            },
        ]
    );
    assert_eq!(l.root_block.size_in_bytes, 32);
    assert_eq!(l.root_descriptor_set, Some(3));
    let set = &l.set_layouts[3];
    assert!(set.push_descriptor);
    assert_eq!(set.purpose, SetPurpose::RootDescriptors);
    assert_eq!(set.bindings.len(), 1);
    assert_eq!(
        set.bindings[0].descriptor_type,
        DescriptorType::UniformBuffer
    );
    assert_eq!(
        l.resolve(RangeType::Cbv, 0, 1, ShaderStage::Compute),
        Some(Resolved::RootDescriptor {
            parameter: 4,
            set: 3,
            binding: 0,
            descriptor_type: DescriptorType::UniformBuffer
        })
    );
}

#[test]
fn register_lookup() {
    let l = layout(
        &example(),
        &DeviceLimits::default(),
        &LayoutOptions::default(),
    )
    .expect("layout");
    assert_eq!(
        l.resolve(RangeType::Srv, 0, 5, ShaderStage::Pixel),
        Some(Resolved::Table {
            parameter: 0,
            range: 0,
            table_index: 0,
            table_offset_in_block: 32,
            offset_in_table: 5,
            range_base_register: 0,
            range_count: 8
        })
    );
    assert_eq!(l.resolve(RangeType::Srv, 0, 8, ShaderStage::Pixel), None);
    assert_eq!(l.resolve(RangeType::Srv, 1, 0, ShaderStage::Pixel), None);
    assert_eq!(
        l.resolve(RangeType::Cbv, 0, 0, ShaderStage::Compute),
        Some(Resolved::RootConstants {
            parameter: 1,
            offset_in_block: 16,
            dword_count: 4
        })
    );
    assert_eq!(
        l.resolve(RangeType::Cbv, 0, 1, ShaderStage::Vertex),
        Some(Resolved::RootAddress {
            parameter: 4,
            offset_in_block: 8,
            root_address_index: 1
        })
    );
    assert!(matches!(
        l.resolve(RangeType::Sampler, 0, 3, ShaderStage::Compute),
        Some(Resolved::Table {
            parameter: 3,
            offset_in_table: 3,
            ..
        })
    ));
    // Arrays must sit in one table range.
    assert!(
        l.resolve_array(RangeType::Srv, 0, 2, Some(6), ShaderStage::Compute)
            .is_some()
    );
    assert_eq!(
        l.resolve_array(RangeType::Srv, 0, 2, Some(7), ShaderStage::Compute),
        None
    );
    assert_eq!(
        l.resolve_array(RangeType::Uav, 0, 0, Some(2), ShaderStage::Compute),
        None
    );
    assert!(
        l.resolve_array(RangeType::Srv, 0, 0, None, ShaderStage::Compute)
            .is_some()
    );
}

#[test]
fn visibility_filters_lookup_and_push_stages() {
    let rs = parse_hlsl(
        "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_PIXEL), \
         DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_VERTEX), \
         StaticSampler(s0, visibility=SHADER_VISIBILITY_PIXEL)",
        &ParseOptions::default(),
    )
    .expect("parses");
    let l = layout(&rs, &DeviceLimits::default(), &LayoutOptions::default()).expect("layout");
    assert!(matches!(
        l.resolve(RangeType::Srv, 0, 0, ShaderStage::Vertex),
        Some(Resolved::Table { parameter: 1, .. })
    ));
    assert!(matches!(
        l.resolve(RangeType::Srv, 0, 0, ShaderStage::Pixel),
        Some(Resolved::Table { parameter: 0, .. })
    ));
    assert_eq!(l.resolve(RangeType::Srv, 0, 0, ShaderStage::Compute), None);
    assert_eq!(
        l.resolve(RangeType::Sampler, 0, 0, ShaderStage::Pixel),
        Some(Resolved::StaticSampler {
            index: 0,
            set: 3,
            binding: 0
        })
    );
    assert_eq!(l.push_constant_range(BindPoint::Compute), None);
    assert_eq!(
        l.push_constant_range(BindPoint::Graphics).map(|r| r.stages),
        Some(ShaderStages::VERTEX | ShaderStages::FRAGMENT)
    );
    let sampler_set = &l.set_layouts[3];
    assert_eq!(sampler_set.purpose, SetPurpose::StaticSamplers);
    assert_eq!(sampler_set.bindings[0].immutable_sampler, Some(0));
    assert_eq!(sampler_set.bindings[0].stages, ShaderStages::FRAGMENT);
}

#[test]
fn spills_whole_block_into_a_uniform_buffer() {
    let limits = DeviceLimits {
        max_push_constants_size: 32,
        ..DeviceLimits::default()
    };
    let l = layout(&example(), &limits, &LayoutOptions::default()).expect("layout");
    assert_eq!(
        l.root_block.storage,
        RootBlockStorage::UniformBuffer(SetBinding { set: 3, binding: 0 })
    );
    // Offsets do not change when spilled.
    assert_eq!(l.root_block.descriptor_tables_offset, 32);
    assert_eq!(l.push_constant_range(BindPoint::Compute), None);
    let set = &l.set_layouts[3];
    assert_eq!(
        set.bindings[0].descriptor_type,
        DescriptorType::UniformBuffer
    );
    // 62 tables + one root UAV = 64 DWORDs = 256 bytes: spills under Vulkan's minimum.
    let mut text = String::new();
    for space in 0..62 {
        text.push_str(&format!(
            "DescriptorTable(SRV(t0, space={space}, numDescriptors=unbounded)), "
        ));
    }
    text.push_str("UAV(u0, space=62)");
    let rs = parse_hlsl(&text, &ParseOptions::default()).expect("parses");
    let minimum = DeviceLimits {
        max_push_constants_size: 128,
        ..DeviceLimits::default()
    };
    let l = layout(&rs, &minimum, &LayoutOptions::default()).expect("layout");
    assert_eq!(l.root_block.size_in_bytes, 256);
    assert!(matches!(
        l.root_block.storage,
        RootBlockStorage::UniformBuffer(_)
    ));
    let l = layout(&rs, &DeviceLimits::default(), &LayoutOptions::default()).expect("layout");
    assert_eq!(l.root_block.storage, RootBlockStorage::PushConstants);
}

#[test]
fn heap_configurations() {
    let l = layout(
        &example(),
        &DeviceLimits::default(),
        &LayoutOptions::default(),
    )
    .expect("layout");
    let h = &l.heap;
    assert_eq!(h.uav_counters, Some(SetBinding { set: 1, binding: 0 }));
    assert_eq!(h.offset_buffer, Some(SetBinding { set: 1, binding: 1 }));
    assert_eq!(
        h.binding_for(HeapView::SrvImage),
        Some(HeapBinding {
            set: 1,
            binding: 2,
            descriptor_type: DescriptorType::SampledImage
        })
    );
    assert_eq!(
        h.binding_for(HeapView::UavRawBuffer),
        Some(HeapBinding {
            set: 2,
            binding: 0,
            descriptor_type: DescriptorType::StorageBuffer
        })
    );
    assert_eq!(
        h.binding_for(HeapView::Sampler).map(|b| (b.set, b.binding)),
        Some((0, 0))
    );

    // No mutable descriptors: one set per type, 4-byte SSBO alignment (no offset buffer).
    let limits = DeviceLimits {
        mutable_descriptors: false,
        min_storage_buffer_offset_alignment: 4,
        ..DeviceLimits::default()
    };
    let l = layout(&example(), &limits, &LayoutOptions::default()).expect("layout");
    assert_eq!(l.heap.sets.len(), 7);
    assert_eq!(l.heap.offset_buffer, None);
    let sets: Vec<_> = l
        .heap
        .sets
        .iter()
        .map(|s| (s.set, s.descriptor_type))
        .collect();
    assert_eq!(
        sets,
        vec![
            (0, DescriptorType::Sampler),
            (1, DescriptorType::UniformBuffer),
            (2, DescriptorType::UniformTexelBuffer),
            (3, DescriptorType::SampledImage),
            (4, DescriptorType::StorageTexelBuffer),
            (5, DescriptorType::StorageImage),
            (6, DescriptorType::StorageBuffer),
        ]
    );

    // Large SSBO alignment: raw buffers become R32 texel buffers in the texel sets.
    let limits = DeviceLimits {
        mutable_descriptors: false,
        min_storage_buffer_offset_alignment: 64,
        uniform_buffer_heap: false,
        ..DeviceLimits::default()
    };
    let l = layout(&example(), &limits, &LayoutOptions::default()).expect("layout");
    assert_eq!(l.heap.sets.len(), 6);
    assert_eq!(
        l.heap.binding_for(HeapView::SrvRawBuffer),
        Some(HeapBinding {
            set: 2,
            binding: 0,
            descriptor_type: DescriptorType::UniformTexelBuffer
        })
    );
    assert_eq!(
        l.heap.binding_for(HeapView::Cbv).map(|b| b.descriptor_type),
        Some(DescriptorType::StorageBuffer)
    );

    // Single mutable set.
    let options = LayoutOptions {
        mutable_single_set: true,
        ..LayoutOptions::default()
    };
    let l = layout(&example(), &DeviceLimits::default(), &options).expect("layout");
    assert_eq!(l.heap.sets.len(), 2);
    assert_eq!(
        l.heap.sets[1].mutable_types,
        vec![
            DescriptorType::UniformBuffer,
            DescriptorType::StorageBuffer,
            DescriptorType::SampledImage,
            DescriptorType::UniformTexelBuffer,
            DescriptorType::StorageImage,
            DescriptorType::StorageTexelBuffer
        ]
    );
}

#[test]
fn without_buffer_device_address_root_descriptors_are_descriptors() {
    let limits = DeviceLimits {
        buffer_device_address: false,
        ..DeviceLimits::default()
    };
    let l = layout(&example(), &limits, &LayoutOptions::default()).expect("layout");
    assert_eq!(l.root_block.root_address_count, 0);
    assert_eq!(l.heap.uav_counters, None);
    assert_eq!(
        l.parameters[2],
        ParameterLayout::RootDescriptor {
            set: 3,
            binding: 0,
            descriptor_type: DescriptorType::StorageBuffer
        }
    );
    assert_eq!(
        l.parameters[4],
        ParameterLayout::RootDescriptor {
            set: 3,
            binding: 1,
            descriptor_type: DescriptorType::UniformBuffer
        }
    );
    // Without push descriptors the set is an ordinary one.
    let limits = DeviceLimits {
        max_push_descriptors: 0,
        ..limits
    };
    let l = layout(&example(), &limits, &LayoutOptions::default()).expect("layout");
    assert!(!l.set_layouts[3].push_descriptor);
}

#[test]
fn errors() {
    // Without mutable descriptors, 7 heap sets + static samplers + root descriptors do not
    // fit lavapipe's 8 sets (the problem binding-model.md §2.3 notes for vkd3d).
    let limits = DeviceLimits {
        mutable_descriptors: false,
        buffer_device_address: false,
        ..DeviceLimits::default()
    };
    let rs = parse_hlsl("StaticSampler(s0), CBV(b0)", &ParseOptions::default()).expect("parses");
    let err = layout(&rs, &limits, &LayoutOptions::default()).expect_err("too many sets");
    assert_eq!(
        err.to_string(),
        "Vulkan layout: needs 9 descriptor sets, but the device binds at most 8"
    );
    let rs = parse_hlsl("SRV(t0), SRV(t0)", &ParseOptions::default()).expect("parses");
    let err =
        layout(&rs, &DeviceLimits::default(), &LayoutOptions::default()).expect_err("invalid");
    assert!(err.to_string().contains("overlap"), "{err}");
    let rs =
        parse_hlsl("RootFlags(LOCAL_ROOT_SIGNATURE)", &ParseOptions::default()).expect("parses");
    assert!(layout(&rs, &DeviceLimits::default(), &LayoutOptions::default()).is_err());
}

#[test]
fn serializes_to_json() {
    let l = layout(
        &example(),
        &DeviceLimits::default(),
        &LayoutOptions::default(),
    )
    .expect("layout");
    let json = serde_json::to_value(&l).expect("serializes");
    assert_eq!(json["root_block"]["size_in_bytes"], 40);
    assert_eq!(json["parameters"][2]["kind"], "RootAddress");
    assert_eq!(json["root_block"]["stages"][0], "VK_SHADER_STAGE_ALL");
    assert_eq!(
        json["heap"]["sets"][1]["descriptor_type"],
        "VK_DESCRIPTOR_TYPE_MUTABLE_EXT"
    );
}
