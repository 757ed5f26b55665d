use super::*;
use dxil_rootsig::{BindPoint, ParseOptions, RootCbvPolicy, ShaderStages, parse_hlsl};

/// binding-model.md §2.4's example: `[0] table(SRVs), [1] RootConstants(b0, 4), [2] UAV(u0),
/// [3] table(samplers), [4] CBV(b1)`.
const EXAMPLE: &str = "DescriptorTable(SRV(t0, numDescriptors=8)), RootConstants(num32BitConstants=4, b0), \
                       UAV(u0), DescriptorTable(Sampler(s0, numDescriptors=4)), CBV(b1), StaticSampler(s9)";

fn rs(text: &str) -> RootSignature {
    parse_hlsl(text, &ParseOptions::default()).expect("parses")
}

fn options() -> LayoutOptions {
    LayoutOptions {
        typed_offset_buffer: true,
        ..LayoutOptions::default()
    }
}

fn derived(text: &str, limits: DeviceLimits, options: LayoutOptions) -> DerivedLayout {
    DerivedLayout::new(rs(text), limits, options).expect("layout")
}

fn array(c: &BindingContract, view: HeapView) -> HeapArray {
    *c.heap_array(view).expect("array")
}

#[test]
fn contract_of_the_worked_example() {
    let d = derived(EXAMPLE, DeviceLimits::default(), options());
    let c = &d.contract;
    assert_eq!(c.descriptor_set_count, 4);
    assert_eq!(
        c.root_block,
        RootBlockContract {
            size_in_bytes: 40,
            location: RootBlockLocation::PushConstants {
                stages: ShaderStages::COMPUTE
            }
        }
    );
    assert_eq!(
        c.parameters,
        vec![
            ParameterContract::Table {
                offset_in_block: 32,
                heap: HeapType::CbvSrvUav,
                ranges: match &d.layout.parameters[0] {
                    ParameterLayout::DescriptorTable { ranges, .. } => ranges.clone(),
                    other => panic!("{other:?}"),
                },
                compute_visible: true,
            },
            ParameterContract::Constants {
                offset_in_block: 16,
                count: 4,
                compute_visible: true
            },
            ParameterContract::Address {
                offset_in_block: 0,
                class: RangeType::Uav,
                compute_visible: true
            },
            ParameterContract::Table {
                offset_in_block: 36,
                heap: HeapType::Sampler,
                ranges: match &d.layout.parameters[3] {
                    ParameterLayout::DescriptorTable { ranges, .. } => ranges.clone(),
                    other => panic!("{other:?}"),
                },
                compute_visible: true,
            },
            ParameterContract::Address {
                offset_in_block: 8,
                class: RangeType::Cbv,
                compute_visible: true
            },
        ]
    );
    // Split mutable heap: samplers in set 0, typed views in set 1 (after the counter and offset
    // buffers), raw views and CBVs in set 2.
    assert_eq!(
        array(c, HeapView::Sampler),
        HeapArray {
            view: HeapView::Sampler,
            heap: HeapType::Sampler,
            set: 0,
            binding: 0,
            descriptor_type: DescriptorType::Sampler,
            offsets: OffsetUse::None
        }
    );
    let raw = array(c, HeapView::SrvRawBuffer);
    assert_eq!(
        (raw.set, raw.binding, raw.descriptor_type, raw.offsets),
        (2, 0, DescriptorType::StorageBuffer, OffsetUse::Bytes)
    );
    let typed = array(c, HeapView::UavTexelBuffer);
    assert_eq!(
        (
            typed.set,
            typed.binding,
            typed.descriptor_type,
            typed.offsets
        ),
        (
            1,
            2,
            DescriptorType::StorageTexelBuffer,
            OffsetUse::Elements
        )
    );
    let cbv = array(c, HeapView::Cbv);
    assert_eq!(
        (cbv.set, cbv.binding, cbv.descriptor_type, cbv.offsets),
        (2, 0, DescriptorType::UniformBuffer, OffsetUse::None)
    );
    assert_eq!(array(c, HeapView::SrvImage).offsets, OffsetUse::None);
    assert_eq!(c.heap_arrays.len(), HEAP_VIEWS.len());
    assert_eq!(c.uav_counters, Some(SetBinding { set: 1, binding: 0 }));
    assert_eq!(
        c.offset_buffer,
        Some(OffsetBuffer {
            set: 1,
            binding: 1,
            storage_buffer_offsets: true,
            texel_buffer_offsets: true
        })
    );
    assert_eq!(c.static_samplers, vec![SetBinding { set: 3, binding: 0 }]);
    assert!(!c.resource_heap_directly_indexed);
}

#[test]
fn locate_answers_what_a_translator_asks() {
    let d = derived(EXAMPLE, DeviceLimits::default(), options());
    let (c, l) = (&d.contract, &d.layout);
    assert_eq!(
        c.locate(l, HeapView::SrvRawBuffer, 0, 5, Some(1)),
        Some(Location::Heap {
            array: array(c, HeapView::SrvRawBuffer),
            base: HeapIndexBase::TableWord {
                offset_in_block: 32
            },
            offset_in_table: 5
        })
    );
    // An array must fit its range.
    assert_eq!(c.locate(l, HeapView::SrvTexelBuffer, 0, 2, Some(7)), None);
    assert!(
        c.locate(l, HeapView::SrvTexelBuffer, 0, 2, Some(6))
            .is_some()
    );
    assert_eq!(
        c.locate(l, HeapView::Cbv, 0, 0, Some(1)),
        Some(Location::RootConstants {
            offset_in_block: 16,
            count: 4
        })
    );
    assert_eq!(
        c.locate(l, HeapView::UavRawBuffer, 0, 0, Some(1)),
        Some(Location::RootAddress { offset_in_block: 0 })
    );
    // Typed views cannot come from root descriptors, root constants only serve CBVs.
    assert_eq!(c.locate(l, HeapView::UavTexelBuffer, 0, 0, Some(1)), None);
    assert_eq!(
        c.locate(l, HeapView::Cbv, 0, 1, Some(1)),
        Some(Location::RootAddress { offset_in_block: 8 })
    );
    assert!(matches!(
        c.locate(l, HeapView::Sampler, 0, 3, Some(1)),
        Some(Location::Heap {
            offset_in_table: 3,
            base: HeapIndexBase::TableWord {
                offset_in_block: 36
            },
            ..
        })
    ));
    assert_eq!(
        c.locate(l, HeapView::Sampler, 0, 9, Some(1)),
        Some(Location::StaticSampler { set: 3, binding: 0 })
    );
    assert_eq!(c.locate(l, HeapView::Sampler, 0, 9, Some(2)), None);
    assert_eq!(c.locate(l, HeapView::SrvRawBuffer, 1, 0, Some(1)), None);
    assert_eq!(c.direct_heap(HeapView::SrvRawBuffer), None);

    let d = derived(
        "RootFlags(CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED)",
        DeviceLimits::default(),
        options(),
    );
    assert_eq!(
        d.contract.direct_heap(HeapView::UavRawBuffer),
        Some(Location::Heap {
            array: array(&d.contract, HeapView::UavRawBuffer),
            base: HeapIndexBase::Direct,
            offset_in_table: 0
        })
    );
    assert_eq!(d.contract.direct_heap(HeapView::Sampler), None);
    assert_eq!(d.contract.root_block.location, RootBlockLocation::Empty);
}

#[test]
fn layout_variants_change_the_contract() {
    // Spilled root block.
    let limits = DeviceLimits {
        max_push_constants_size: 32,
        ..DeviceLimits::default()
    };
    let d = derived(EXAMPLE, limits, options());
    assert_eq!(
        d.contract.root_block.location,
        RootBlockLocation::UniformBuffer { set: 4, binding: 0 }
    );
    // One heap set per type, 4-byte SSBO alignment: no byte offsets; the raw set is set 6.
    let limits = DeviceLimits {
        mutable_descriptors: false,
        min_storage_buffer_offset_alignment: 4,
        ..DeviceLimits::default()
    };
    let d = derived(EXAMPLE, limits, options());
    let raw = array(&d.contract, HeapView::UavRawBuffer);
    assert_eq!((raw.set, raw.binding, raw.offsets), (6, 0, OffsetUse::None));
    assert_eq!(
        array(&d.contract, HeapView::SrvTexelBuffer).offsets,
        OffsetUse::Elements
    );
    // Storage-buffer alignment above 16: raw views are R32 texel buffers in the texel arrays.
    let limits = DeviceLimits {
        min_storage_buffer_offset_alignment: 64,
        ..DeviceLimits::default()
    };
    let d = derived(EXAMPLE, limits, options());
    let raw = array(&d.contract, HeapView::SrvRawBuffer);
    let typed = array(&d.contract, HeapView::SrvTexelBuffer);
    assert_eq!(
        (raw.set, raw.binding, raw.descriptor_type, raw.offsets),
        (
            typed.set,
            typed.binding,
            DescriptorType::UniformTexelBuffer,
            OffsetUse::Elements
        )
    );
    // Push-descriptor root CBVs.
    let d = derived(
        EXAMPLE,
        DeviceLimits::default(),
        LayoutOptions {
            root_cbv: RootCbvPolicy::PushDescriptor,
            ..options()
        },
    );
    assert_eq!(
        d.contract.parameters[4],
        ParameterContract::Descriptor {
            set: 4,
            binding: 0,
            descriptor_type: DescriptorType::UniformBuffer,
            class: RangeType::Cbv,
            compute_visible: true
        }
    );
    assert_eq!(
        d.contract.locate(&d.layout, HeapView::Cbv, 0, 1, Some(1)),
        Some(Location::RootDescriptor {
            set: 4,
            binding: 0,
            descriptor_type: DescriptorType::UniformBuffer
        })
    );
}

#[test]
fn visibility_reaches_the_contract() {
    let d = derived(
        "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_PIXEL), RootConstants(num32BitConstants=1, b0)",
        DeviceLimits::default(),
        options(),
    );
    assert!(matches!(
        d.contract.parameters[0],
        ParameterContract::Table {
            compute_visible: false,
            ..
        }
    ));
    assert!(matches!(
        d.contract.parameters[1],
        ParameterContract::Constants {
            compute_visible: true,
            ..
        }
    ));
    assert_eq!(
        d.contract
            .locate(&d.layout, HeapView::SrvRawBuffer, 0, 0, Some(1)),
        None
    );
    // Only pixel-visible: compute has no push range.
    let d = derived(
        "RootConstants(num32BitConstants=1, b0, visibility=SHADER_VISIBILITY_PIXEL)",
        DeviceLimits::default(),
        options(),
    );
    assert_eq!(d.contract.root_block.location, RootBlockLocation::Empty);
    assert!(d.layout.push_constant_range(BindPoint::Graphics).is_some());
}

#[test]
fn explain_names_every_set_parameter_and_array() {
    let d = derived(EXAMPLE, DeviceLimits::default(), options());
    let text = d.explain();
    for fragment in [
        "root signature 1.1: 5 parameter(s), 1 static sampler(s), flags NONE",
        "device: 256 B push constants",
        "set 0: sampler heap (update-after-bind pool)",
        "binding 0: SAMPLER[2048] [update-after-bind, partially-bound, variable-count, update-unused-while-pending]",
        "binding 0: STORAGE_BUFFER[1] UAV counter addresses",
        "binding 1: STORAGE_BUFFER[1] offset buffer",
        "MUTABLE{SAMPLED_IMAGE, UNIFORM_TEXEL_BUFFER, STORAGE_IMAGE, STORAGE_TEXEL_BUFFER}",
        "set 3: static samplers",
        "immutable: static sampler [0] s9 space0 D3D12_FILTER_ANISOTROPIC",
        "root block: 40 bytes, push constants (VK_SHADER_STAGE_COMPUTE_BIT)",
        "[0] table: slot word at byte 32 (CBV/SRV/UAV heap)",
        "t0 space0 x8 at table offset 0",
        "[1] root constants b0 space0: 4 word(s) at bytes 16..32",
        "[2] root UAV u0 space0: 64-bit address at bytes 0..8",
        "[3] table: slot word at byte 36 (sampler heap)",
        "[4] root CBV b1 space0: 64-bit address at bytes 8..16",
        "SRV raw/struct   set 2 binding 0: STORAGE_BUFFER, offset buffer e[2i] (bytes)",
        "UAV typed buffer set 1 binding 2: STORAGE_TEXEL_BUFFER, offset buffer e[2i+1] (elements)",
        "UAV counters     set 1 binding 0",
    ] {
        assert!(
            text.contains(fragment),
            "`{fragment}` missing from:\n{text}"
        );
    }
    let spilled = derived(
        EXAMPLE,
        DeviceLimits {
            max_push_constants_size: 32,
            ..DeviceLimits::default()
        },
        options(),
    )
    .explain();
    assert!(
        spilled.contains("uniform buffer at set 4, binding 0 (spilled)"),
        "{spilled}"
    );
    assert!(
        spilled.contains("UNIFORM_BUFFER[1] spilled root block"),
        "{spilled}"
    );
    let pushed = derived(
        EXAMPLE,
        DeviceLimits::default(),
        LayoutOptions {
            root_cbv: RootCbvPolicy::PushDescriptor,
            ..options()
        },
    )
    .explain();
    assert!(
        pushed.contains("set 4: root descriptors (push descriptors)"),
        "{pushed}"
    );
    assert!(
        pushed.contains("UNIFORM_BUFFER[1] root parameter [4]"),
        "{pushed}"
    );
    assert!(
        pushed.contains("[4] root CBV b1 space0: UNIFORM_BUFFER at set 4, binding 0"),
        "{pushed}"
    );
}

#[test]
fn json_holds_layout_and_contract() {
    let d = derived(EXAMPLE, DeviceLimits::default(), options());
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).expect("json");
    assert_eq!(json["contract"]["root_block"]["size_in_bytes"], 40);
    assert_eq!(
        json["contract"]["root_block"]["location"]["kind"],
        "PushConstants"
    );
    assert_eq!(json["contract"]["parameters"][2]["kind"], "Address");
    assert_eq!(json["contract"]["heap_arrays"][2]["offsets"], "Bytes");
    assert_eq!(json["layout"]["root_block"]["size_in_bytes"], 40);
    assert_eq!(json["limits"]["max_push_constants_size"], 256);
}

#[test]
fn invalid_root_signatures_have_no_layout() {
    let e = DerivedLayout::new(rs("UAV(u0), UAV(u0)"), DeviceLimits::default(), options())
        .expect_err("overlap");
    assert!(e.starts_with("invalid root signature"), "{e}");
    let limits = DeviceLimits {
        mutable_descriptors: false,
        buffer_device_address: false,
        ..DeviceLimits::default()
    };
    let e = DerivedLayout::new(rs("StaticSampler(s0), CBV(b0)"), limits, options())
        .expect_err("too many sets");
    assert!(e.contains("descriptor sets"), "{e}");
}
