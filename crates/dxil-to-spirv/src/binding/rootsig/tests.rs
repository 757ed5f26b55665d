use super::*;
use dxil_rootsig::{ParseOptions, RootCbvPolicy, parse_hlsl};

/// binding-model.md §2.4: `[0] table(SRVs), [1] RootConstants(b0, 4), [2] UAV(u0), [3] table(samplers), [4] CBV(b1)`.
const EXAMPLE: &str = "DescriptorTable(SRV(t0, numDescriptors=8)), RootConstants(num32BitConstants=4, b0), \
                       UAV(u0), DescriptorTable(Sampler(s0, numDescriptors=4)), CBV(b1)";

fn model(text: &str, limits: DeviceLimits, options: LayoutOptions) -> RootSignatureBindings {
    let rs = parse_hlsl(text, &ParseOptions::default()).expect("parses");
    RootSignatureBindings::from_root_signature(&rs, &limits, &options).expect("layout")
}

fn binding(
    class: ResourceClass,
    kind: ResourceKind,
    space: u32,
    register: u32,
    count: u32,
) -> D3dBinding {
    D3dBinding {
        class,
        kind,
        space,
        register,
        count,
        range_id: 0,
    }
}

fn cbv(register: u32) -> D3dBinding {
    binding(ResourceClass::Cbv, ResourceKind::CBuffer, 0, register, 1)
}

fn heap_array(m: &RootSignatureBindings, view: HeapView) -> (u32, u32) {
    let a = m.layout().heap.binding_for(view).expect("array");
    (a.set, a.binding)
}

#[test]
fn worked_example_raw_address_cbv() {
    let m = model(EXAMPLE, DeviceLimits::default(), LayoutOptions::default());
    // Root block: VA(p2) @0, VA(p4) @8, constants(p1) @16..31, table(p0) @32, table(p3) @36 → 40 bytes.
    assert_eq!(
        m.root_block(),
        RootBlockPlacement::PushConstants { bytes: 40 }
    );
    assert_eq!(
        m.place(&cbv(0), DescriptorType::UniformBuffer).unwrap(),
        Placement::PushConstants {
            first_word: 4,
            words: 4
        }
    );
    let u0 = binding(ResourceClass::Uav, ResourceKind::RawBuffer, 0, 0, 1);
    assert_eq!(
        m.place(&u0, DescriptorType::StorageBuffer).unwrap(),
        Placement::DeviceAddress { offset: 0 }
    );
    assert_eq!(
        m.place(&cbv(1), DescriptorType::UniformBuffer).unwrap(),
        Placement::DeviceAddress { offset: 8 }
    );
    let (set, b) = heap_array(&m, HeapView::SrvImage);
    let t3 = binding(ResourceClass::Srv, ResourceKind::Texture2D, 0, 3, 2);
    assert_eq!(
        m.place(&t3, DescriptorType::SampledImage).unwrap(),
        Placement::Heap {
            set,
            binding: b,
            table_word: Some(8),
            offset: 3,
            descriptor_type: DescriptorType::SampledImage,
            offsets: None,
        }
    );
    let (set, b) = heap_array(&m, HeapView::Sampler);
    let s2 = binding(ResourceClass::Sampler, ResourceKind::Sampler, 0, 2, 1);
    assert_eq!(
        m.place(&s2, DescriptorType::Sampler).unwrap(),
        Placement::Heap {
            set,
            binding: b,
            table_word: Some(9),
            offset: 2,
            descriptor_type: DescriptorType::Sampler,
            offsets: None,
        }
    );
    // t6..t9 leaves the 8-descriptor range; b2 and u1 are not bound at all.
    let t6 = binding(ResourceClass::Srv, ResourceKind::Texture2D, 0, 6, 4);
    assert!(m.place(&t6, DescriptorType::SampledImage).is_err());
    assert!(m.place(&cbv(2), DescriptorType::UniformBuffer).is_err());
    let u1 = binding(ResourceClass::Uav, ResourceKind::RawBuffer, 0, 1, 1);
    assert!(m.place(&u1, DescriptorType::StorageBuffer).is_err());
}

#[test]
fn worked_example_push_descriptor_cbv() {
    let options = LayoutOptions {
        root_cbv: RootCbvPolicy::PushDescriptor,
        ..LayoutOptions::default()
    };
    let m = model(EXAMPLE, DeviceLimits::default(), options);
    // VA(p2) @0, constants @8..23, tables @24/@28 → 32 bytes; CBV b1 = root descriptor set binding 0.
    assert_eq!(
        m.root_block(),
        RootBlockPlacement::PushConstants { bytes: 32 }
    );
    assert_eq!(
        m.place(&cbv(0), DescriptorType::UniformBuffer).unwrap(),
        Placement::PushConstants {
            first_word: 2,
            words: 4
        }
    );
    let set = m.layout().root_descriptor_set.expect("root descriptor set");
    assert_eq!(
        m.place(&cbv(1), DescriptorType::UniformBuffer).unwrap(),
        Placement::Descriptor {
            set,
            binding: 0,
            array: ArraySize::One
        }
    );
    let t0 = binding(ResourceClass::Srv, ResourceKind::Texture2D, 0, 0, 1);
    assert!(matches!(
        m.place(&t0, DescriptorType::SampledImage).unwrap(),
        Placement::Heap {
            table_word: Some(6),
            offset: 0,
            ..
        }
    ));
    let s0 = binding(ResourceClass::Sampler, ResourceKind::Sampler, 0, 0, 1);
    assert!(matches!(
        m.place(&s0, DescriptorType::Sampler).unwrap(),
        Placement::Heap {
            table_word: Some(7),
            ..
        }
    ));
}

#[test]
fn arrays_bind_tables_only_and_unbounded_declarations_retry_as_one_register() {
    let m = model(
        "UAV(u0), DescriptorTable(UAV(u4, numDescriptors=unbounded, offset=5)), StaticSampler(s0, space=100)",
        DeviceLimits::default(),
        LayoutOptions::default(),
    );
    let sized = binding(ResourceClass::Uav, ResourceKind::RawBuffer, 0, 0, 2);
    assert!(m.place(&sized, DescriptorType::StorageBuffer).is_err());
    let unbounded = binding(ResourceClass::Uav, ResourceKind::RawBuffer, 0, 0, u32::MAX);
    assert_eq!(
        m.place(&unbounded, DescriptorType::StorageBuffer).unwrap(),
        Placement::DeviceAddress { offset: 0 }
    );
    let samplers = binding(
        ResourceClass::Sampler,
        ResourceKind::Sampler,
        100,
        0,
        u32::MAX,
    );
    let s = m.layout().static_samplers[0];
    assert_eq!(
        m.place(&samplers, DescriptorType::Sampler).unwrap(),
        Placement::Descriptor {
            set: s.set,
            binding: s.binding,
            array: ArraySize::One
        }
    );
    let fixed = binding(ResourceClass::Sampler, ResourceKind::Sampler, 100, 0, 4);
    assert!(m.place(&fixed, DescriptorType::Sampler).is_err());
    // u6 of the table: slot word 2 (after the 8-byte address), offset 5 + 2.
    let structured = binding(
        ResourceClass::Uav,
        ResourceKind::StructuredBuffer,
        0,
        6,
        u32::MAX,
    );
    let (set, b) = heap_array(&m, HeapView::UavRawBuffer);
    let offsets = m.contract().offset_buffer.map(|o| OffsetEntry {
        set: o.set,
        binding: o.binding,
        kind: OffsetKind::Bytes,
    });
    assert!(
        offsets.is_some(),
        "16-byte storage alignment needs the offset buffer"
    );
    assert_eq!(
        m.place(&structured, DescriptorType::StorageBuffer).unwrap(),
        Placement::Heap {
            set,
            binding: b,
            table_word: Some(2),
            offset: 7,
            descriptor_type: DescriptorType::StorageBuffer,
            offsets,
        }
    );
    let counters = m.contract().uav_counters.expect("counter table");
    assert_eq!(
        m.counter(&structured).unwrap(),
        Placement::AddressTable {
            set: counters.set,
            binding: counters.binding,
            table_word: Some(2),
            offset: 7
        }
    );
    // A root UAV has no counter; the heap is not directly indexed.
    assert!(m.counter(&unbounded).is_err());
    assert!(m.heap(&structured, DescriptorType::StorageBuffer).is_err());
    assert!(m.heap_counter().is_err());
}

#[test]
fn direct_heap_access_and_typed_offsets() {
    let m = model(
        "RootFlags(CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | SAMPLER_HEAP_DIRECTLY_INDEXED), RootConstants(num32BitConstants=4, b0)",
        DeviceLimits::default(),
        LayoutOptions {
            typed_offset_buffer: true,
            ..LayoutOptions::default()
        },
    );
    let typed = binding(
        ResourceClass::Uav,
        ResourceKind::TypedBuffer,
        0,
        0,
        u32::MAX,
    );
    let (set, b) = heap_array(&m, HeapView::UavTexelBuffer);
    let o = m.contract().offset_buffer.expect("offset buffer");
    assert_eq!(
        m.heap(&typed, DescriptorType::StorageTexelBuffer).unwrap(),
        Placement::Heap {
            set,
            binding: b,
            table_word: None,
            offset: 0,
            descriptor_type: DescriptorType::StorageTexelBuffer,
            offsets: Some(OffsetEntry {
                set: o.set,
                binding: o.binding,
                kind: OffsetKind::Elements
            }),
        }
    );
    let sampler = binding(
        ResourceClass::Sampler,
        ResourceKind::Sampler,
        0,
        0,
        u32::MAX,
    );
    assert!(matches!(
        m.heap(&sampler, DescriptorType::Sampler).unwrap(),
        Placement::Heap {
            table_word: None,
            ..
        }
    ));
    assert!(matches!(
        m.heap_counter().unwrap(),
        Placement::AddressTable {
            table_word: None,
            offset: 0,
            ..
        }
    ));
}

#[test]
fn spilled_root_block_and_storage_buffer_cbvs() {
    let limits = DeviceLimits {
        max_push_constants_size: 8,
        uniform_buffer_heap: false,
        ..DeviceLimits::default()
    };
    let m = model(
        "DescriptorTable(CBV(b0, numDescriptors=4)), RootConstants(num32BitConstants=4, b4)",
        limits,
        LayoutOptions::default(),
    );
    let RootBlockPlacement::UniformBuffer { bytes, .. } = m.root_block() else {
        panic!("spilled root block expected, got {:?}", m.root_block());
    };
    assert_eq!(bytes, 20);
    assert_eq!(m.push_constant_bytes(), 0);
    let b1 = binding(ResourceClass::Cbv, ResourceKind::CBuffer, 0, 1, 1);
    assert!(matches!(
        m.place(&b1, DescriptorType::UniformBuffer).unwrap(),
        Placement::Heap {
            table_word: Some(4),
            offset: 1,
            descriptor_type: DescriptorType::StorageBuffer,
            ..
        }
    ));
}
