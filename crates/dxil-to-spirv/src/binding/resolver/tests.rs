use super::*;

/// A resolver laid out like a D3D12 layer's: SRV/UAV tables in heaps (typed set 1 binding 2, raw set 2 binding 0),
/// table word 3, slot = register + 10; `b0` root constants at word 1; `u9` a root descriptor; counters through the
/// address table at set 1 binding 0; the offset buffer at set 1 binding 1; `t7` only as a single register;
/// acceleration structures as addresses in the storage buffer at set 3 binding 0.
#[derive(Debug, Default)]
struct Layer;

fn heap(q: &ResourceQuery, set: u32, binding: u32) -> VkBinding {
    let (table, offset) = match q.registers {
        Registers::Range { register, .. } => (Some(3), register + 10),
        Registers::DescriptorHeap => (None, 0),
    };
    VkBinding {
        location: Location::Heap {
            set,
            binding,
            table,
            offset,
        },
        kind: DescriptorKind::Default,
    }
}

fn register(q: &ResourceQuery) -> Option<(u32, Option<u32>)> {
    match q.registers {
        Registers::Range {
            register, count, ..
        } => Some((register, count)),
        Registers::DescriptorHeap => None,
    }
}

impl BindingResolver for Layer {
    fn srv(&self, q: &ResourceQuery) -> Option<SrvMap> {
        if let Some((7, None)) = register(q) {
            return None;
        }
        if q.kind == ResourceKind::RTAccelerationStructure {
            // Acceleration structures as a storage buffer of addresses per heap slot.
            return Some(SrvMap {
                buffer: VkBinding {
                    kind: DescriptorKind::StorageBuffer,
                    ..heap(q, 3, 0)
                },
                offsets: None,
            });
        }
        let mut buffer = if q.kind.is_raw_like() {
            heap(q, 2, 0)
        } else {
            heap(q, 1, 2)
        };
        if q.kind.is_raw_like() {
            buffer.kind = DescriptorKind::StorageBuffer;
        }
        Some(SrvMap {
            buffer,
            offsets: Some(OffsetBuffer { set: 1, binding: 1 }),
        })
    }

    fn uav(&self, q: &ResourceQuery) -> Option<UavMap> {
        if let Some((9, _)) = register(q) {
            return Some(UavMap {
                buffer: VkBinding {
                    location: Location::RootDescriptor { ordinal: 1 },
                    kind: DescriptorKind::Default,
                },
                counter: None,
                offsets: None,
            });
        }
        let mut buffer = heap(q, 2, 0);
        buffer.kind = DescriptorKind::StorageBuffer;
        Some(UavMap {
            buffer,
            counter: q.has_counter.then(|| VkBinding {
                kind: DescriptorKind::AddressTable,
                ..heap(q, 1, 0)
            }),
            offsets: Some(OffsetBuffer { set: 1, binding: 1 }),
        })
    }

    fn cbv(&self, q: &ResourceQuery) -> Option<CbvMap> {
        match register(q) {
            Some((0, _)) => Some(CbvMap::RootConstants { word: 1 }),
            _ => Some(CbvMap::Buffer(heap(q, 2, 0))),
        }
    }

    fn sampler(&self, q: &ResourceQuery) -> Option<VkBinding> {
        Some(heap(q, 0, 0))
    }
}

fn model(conventions: HeapConventions) -> ResolverBindings {
    ResolverBindings::new(
        Arc::new(Layer),
        Stage::Compute,
        RootBlock {
            root_descriptors: 2,
            constant_words: 6,
            uniform_buffer: None,
        },
        conventions,
        vec![
            RangeInfo {
                class: ResourceClass::Srv,
                range_id: 0,
                stride: 12,
                has_counter: false,
            },
            RangeInfo {
                class: ResourceClass::Uav,
                range_id: 0,
                stride: 16,
                has_counter: true,
            },
        ],
    )
}

fn lavapipe() -> HeapConventions {
    HeapConventions {
        ssbo_alignment: 16,
        typed_offsets: true,
        ..HeapConventions::default()
    }
}

fn d3d(class: ResourceClass, kind: ResourceKind, register: u32, count: u32) -> D3dBinding {
    D3dBinding {
        class,
        kind,
        space: 0,
        register,
        count,
        range_id: 0,
    }
}

#[test]
fn root_block_is_addresses_then_constant_words() {
    let m = model(lavapipe());
    assert_eq!(m.push_constant_bytes(), (2 * 2 + 6) * 4);
    assert_eq!(
        m.place(
            &d3d(ResourceClass::Cbv, ResourceKind::CBuffer, 0, 1),
            DescriptorType::UniformBuffer
        ),
        Ok(Placement::PushConstants {
            first_word: 5,
            words: 5
        })
    );
    assert_eq!(
        m.place(
            &d3d(ResourceClass::Uav, ResourceKind::RawBuffer, 9, 1),
            DescriptorType::StorageBuffer
        ),
        Ok(Placement::DeviceAddress { offset: 8 })
    );
}

#[test]
fn table_views_index_the_heap_from_the_table_word() {
    let m = model(lavapipe());
    // A structured SRV of stride 12 (alignment 4) under 16-byte storage-buffer alignment reads its window.
    assert_eq!(
        m.place(
            &d3d(ResourceClass::Srv, ResourceKind::StructuredBuffer, 2, 1),
            DescriptorType::StorageBuffer
        ),
        Ok(Placement::Heap {
            set: 2,
            binding: 0,
            table_word: Some(4 + 3),
            offset: 12,
            descriptor_type: DescriptorType::StorageBuffer,
            offsets: Some(OffsetEntry {
                set: 1,
                binding: 1,
                kind: OffsetKind::Bytes
            }),
        })
    );
    // A texture: no window; a typed buffer: the element window.
    let tex = m
        .place(
            &d3d(ResourceClass::Srv, ResourceKind::Texture2D, 0, 4),
            DescriptorType::SampledImage,
        )
        .unwrap();
    assert!(matches!(tex, Placement::Heap { offsets: None, .. }));
    let typed = m
        .place(
            &d3d(ResourceClass::Srv, ResourceKind::TypedBuffer, 0, 1),
            DescriptorType::UniformTexelBuffer,
        )
        .unwrap();
    assert!(matches!(
        typed,
        Placement::Heap {
            offsets: Some(OffsetEntry {
                kind: OffsetKind::Elements,
                ..
            }),
            ..
        }
    ));
    // 16-byte aligned structured UAV (stride 16): no window.
    let uav = m
        .place(
            &d3d(ResourceClass::Uav, ResourceKind::StructuredBuffer, 1, 1),
            DescriptorType::StorageBuffer,
        )
        .unwrap();
    assert!(matches!(uav, Placement::Heap { offsets: None, .. }));
}

#[test]
fn counters_use_the_address_table() {
    let m = model(lavapipe());
    assert_eq!(
        m.counter(&d3d(
            ResourceClass::Uav,
            ResourceKind::StructuredBuffer,
            1,
            1
        )),
        Ok(Placement::AddressTable {
            set: 1,
            binding: 0,
            table_word: Some(7),
            offset: 11
        })
    );
    assert_eq!(
        m.heap_counter(),
        Ok(Placement::AddressTable {
            set: 1,
            binding: 0,
            table_word: None,
            offset: 0
        })
    );
    let off = model(HeapConventions {
        device_addresses: false,
        ..lavapipe()
    });
    assert!(
        off.counter(&d3d(
            ResourceClass::Uav,
            ResourceKind::StructuredBuffer,
            1,
            1
        ))
        .is_err()
    );
    assert!(
        off.place(
            &d3d(ResourceClass::Uav, ResourceKind::RawBuffer, 9, 1),
            DescriptorType::StorageBuffer
        )
        .is_err()
    );
}

#[test]
fn descriptor_heap_views_have_no_table_word() {
    let m = model(lavapipe());
    assert_eq!(
        m.heap(
            &d3d(ResourceClass::Sampler, ResourceKind::Sampler, 0, 1),
            DescriptorType::Sampler
        ),
        Ok(Placement::Heap {
            set: 0,
            binding: 0,
            table_word: None,
            offset: 0,
            descriptor_type: DescriptorType::Sampler,
            offsets: None,
        })
    );
}

#[test]
fn an_unbounded_range_is_asked_again_as_one_register() {
    let m = model(lavapipe());
    // The layer refuses t7 unbounded but places it as a single register.
    let p = m
        .place(
            &d3d(ResourceClass::Srv, ResourceKind::Texture2D, 7, u32::MAX),
            DescriptorType::SampledImage,
        )
        .unwrap();
    assert!(matches!(p, Placement::Heap { offset: 17, .. }));
}

/// A layer whose only sampler is a static one at set 3 binding 0 (`s0` as a single register).
#[derive(Debug)]
struct StaticSampler;

impl BindingResolver for StaticSampler {
    fn srv(&self, _: &ResourceQuery) -> Option<SrvMap> {
        None
    }
    fn uav(&self, _: &ResourceQuery) -> Option<UavMap> {
        None
    }
    fn cbv(&self, _: &ResourceQuery) -> Option<CbvMap> {
        None
    }
    fn sampler(&self, q: &ResourceQuery) -> Option<VkBinding> {
        matches!(
            q.registers,
            Registers::Range {
                register: 0,
                count: Some(1),
                ..
            }
        )
        .then_some(VkBinding {
            location: Location::Fixed { set: 3, binding: 0 },
            kind: DescriptorKind::Default,
        })
    }
}

#[test]
fn an_unbounded_array_on_one_static_sampler_reads_that_sampler() {
    let m = ResolverBindings::new(
        Arc::new(StaticSampler),
        Stage::Compute,
        RootBlock::default(),
        HeapConventions::default(),
        Vec::new(),
    );
    let s = |count| d3d(ResourceClass::Sampler, ResourceKind::Sampler, 0, count);
    assert_eq!(
        m.place(&s(u32::MAX), DescriptorType::Sampler),
        Ok(Placement::Descriptor {
            set: 3,
            binding: 0,
            array: ArraySize::One
        })
    );
    // A sized array of four never binds it (D3D12 refuses the pipeline).
    assert!(m.place(&s(4), DescriptorType::Sampler).is_err());
}

#[test]
fn what_the_translator_cannot_read_is_an_error() {
    let m = model(HeapConventions {
        offset_layout: (0, 0, 1),
        ..lavapipe()
    });
    let e = m
        .place(
            &d3d(ResourceClass::Srv, ResourceKind::StructuredBuffer, 2, 1),
            DescriptorType::StorageBuffer,
        )
        .unwrap_err();
    assert!(e.contains("offset buffer"), "{e}");
    // Raw views read as texel buffers are refused by name.
    #[derive(Debug)]
    struct Texel;
    impl BindingResolver for Texel {
        fn srv(&self, q: &ResourceQuery) -> Option<SrvMap> {
            Some(SrvMap {
                buffer: VkBinding {
                    kind: DescriptorKind::TexelBuffer,
                    ..heap(q, 1, 2)
                },
                offsets: None,
            })
        }
        fn uav(&self, _: &ResourceQuery) -> Option<UavMap> {
            None
        }
        fn cbv(&self, _: &ResourceQuery) -> Option<CbvMap> {
            None
        }
        fn sampler(&self, _: &ResourceQuery) -> Option<VkBinding> {
            None
        }
    }
    let t = ResolverBindings::new(
        Arc::new(Texel),
        Stage::Pixel,
        RootBlock {
            root_descriptors: 0,
            constant_words: 4,
            uniform_buffer: Some((5, 0)),
        },
        HeapConventions::default(),
        Vec::new(),
    );
    let e = t
        .place(
            &d3d(ResourceClass::Srv, ResourceKind::RawBuffer, 0, 1),
            DescriptorType::StorageBuffer,
        )
        .unwrap_err();
    assert!(e.contains("texel buffers"), "{e}");
    let e = t
        .place(
            &d3d(ResourceClass::Uav, ResourceKind::RawBuffer, 0, 1),
            DescriptorType::StorageBuffer,
        )
        .unwrap_err();
    assert!(e.contains("no binding"), "{e}");
    assert_eq!(t.push_constant_bytes(), 0);
    assert_eq!(
        t.root_block(),
        RootBlockPlacement::UniformBuffer {
            set: 5,
            binding: 0,
            bytes: 16
        }
    );
}

#[test]
fn acceleration_structures_in_address_buffers_are_address_tables() {
    let m = model(lavapipe());
    let accel = d3d(
        ResourceClass::Srv,
        ResourceKind::RTAccelerationStructure,
        2,
        1,
    );
    assert_eq!(
        m.place(&accel, DescriptorType::AccelerationStructure),
        Ok(Placement::AddressTable {
            set: 3,
            binding: 0,
            table_word: Some(4 + 3),
            offset: 12,
        })
    );
}

#[test]
fn shader_record_tables_take_only_the_heap_array() {
    let m = model(lavapipe());
    // The record gives the table's slot: the answer's table word and offset do not count.
    assert_eq!(
        m.local_heap(
            &d3d(ResourceClass::Srv, ResourceKind::Texture2D, 4, 1),
            DescriptorType::SampledImage
        ),
        Ok(Placement::Heap {
            set: 1,
            binding: 2,
            table_word: None,
            offset: 0,
            descriptor_type: DescriptorType::SampledImage,
            offsets: None,
        })
    );
    assert_eq!(
        m.local_heap(
            &d3d(
                ResourceClass::Srv,
                ResourceKind::RTAccelerationStructure,
                1,
                1
            ),
            DescriptorType::AccelerationStructure
        ),
        Ok(Placement::AddressTable {
            set: 3,
            binding: 0,
            table_word: None,
            offset: 0,
        })
    );
    assert_eq!(
        m.local_heap_counter(&d3d(
            ResourceClass::Uav,
            ResourceKind::StructuredBuffer,
            1,
            1
        )),
        Ok(Placement::AddressTable {
            set: 1,
            binding: 0,
            table_word: None,
            offset: 0,
        })
    );
    // Root constants cannot be a table's heap array.
    assert!(
        m.local_heap(
            &d3d(ResourceClass::Cbv, ResourceKind::CBuffer, 0, 1),
            DescriptorType::UniformBuffer
        )
        .is_err()
    );
}
