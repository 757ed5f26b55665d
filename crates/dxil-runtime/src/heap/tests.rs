use super::*;
use crate::case::Binding;
use dxil_rootsig::{DeviceLimits, LayoutOptions};

const LIMITS: PlanLimits = PlanLimits {
    storage_alignment: 16,
    texel_alignment: 16,
    uniform_alignment: 16,
    max_uniform_range: 65536,
    max_storage_range: 1 << 27,
    max_texel_elements: 1 << 27,
    null_descriptor: true,
    max_anisotropy: Some(16.0),
    max_lod_bias: 15.0,
    filter_minmax: true,
    mirror_clamp_to_edge: true,
};

fn case(rs: &str, body: &str) -> Case {
    let text = format!(
        "shader = \"a.dxil\"\ndispatch = [1, 1, 1]\nroot_signature = {{ hlsl = \"{rs}\" }}\nheap_size = 64\nsampler_heap_size = 8\n\
         [[memory]]\nname = \"m\"\nsize = 4096\ninit = \"zero\"\n[[memory]]\nname = \"c\"\nsize = 300\ninit = \"zero\"\n{body}"
    );
    Case::parse(&text, "/cases/c.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn heap_of(case: &Case) -> &HeapLayout {
    match &case.binding {
        Binding::RootSignature(h) => h,
        Binding::Registers(_) => panic!("not version 2"),
    }
}

fn derive(case: &Case, limits: DeviceLimits) -> DerivedLayout {
    let rs = root_signature_of(case, heap_of(case)).expect("root signature");
    DerivedLayout::new(
        rs,
        limits,
        LayoutOptions {
            typed_offset_buffer: true,
            ..LayoutOptions::default()
        },
    )
    .expect("layout")
}

fn plan_with(
    case: &Case,
    limits: DeviceLimits,
    plan_limits: &PlanLimits,
) -> Result<HeapPlan, RunError> {
    let derived = derive(case, limits);
    plan_heap(case, heap_of(case), &derived, plan_limits)
}

fn plan(case: &Case) -> HeapPlan {
    plan_with(case, DeviceLimits::default(), &LIMITS).unwrap_or_else(|e| panic!("{e}"))
}

fn error(case: &Case) -> String {
    match plan_with(case, DeviceLimits::default(), &LIMITS) {
        Ok(p) => panic!("expected an error, got {p:?}"),
        Err(e) => {
            assert_eq!(e.exit_code(), 2);
            e.to_string()
        }
    }
}

fn offsets(plan: &HeapPlan, slot: usize) -> [u32; 4] {
    let (_, words) = plan.offsets.as_ref().expect("offset buffer");
    words[slot * 4..slot * 4 + 4].try_into().unwrap()
}

const TABLE: &str = "DescriptorTable(SRV(t0, numDescriptors=unbounded)), DescriptorTable(UAV(u0, numDescriptors=unbounded)), DescriptorTable(CBV(b0, numDescriptors=4))";

#[test]
fn buffer_views_get_storage_and_texel_descriptors_with_their_windows() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 3\ntype = \"srv\"\nmemory = \"m\"\nstride = 4\nfirst_element = 3\nnum_elements = 32\n\
         [[view]]\nslot = 5\ntype = \"uav\"\nmemory = \"m\"\nformat = \"r32g32b32_uint\"\nfirst_element = 3\nnum_elements = 2\n\
         [[view]]\nslot = 6\ntype = \"uav\"\nmemory = \"m\"\nraw = true\nfirst_element = 8\nnum_elements = 4\n",
    );
    let p = plan(&c);
    // Structured SRV: an SSBO from byte 0 (12 aligned down to 16), window (12, 128), and an
    // R32_UINT texel view from element 0, window (3, 32).
    let srv: Vec<&HeapWrite> = p.writes.iter().filter(|w| w.element == 3).collect();
    assert_eq!(
        srv.iter().map(|w| (w.set, w.binding)).collect::<Vec<_>>(),
        [(2, 0), (1, 2)]
    );
    assert_eq!(
        srv[0].descriptor,
        Descriptor::Buffer {
            ty: DescriptorType::StorageBuffer,
            span: Some(Span {
                memory: 0,
                offset: 0,
                range: 140
            })
        }
    );
    assert_eq!(
        srv[1].descriptor,
        Descriptor::Texel {
            ty: DescriptorType::UniformTexelBuffer,
            span: Some(Span {
                memory: 0,
                offset: 0,
                range: 140
            }),
            format: Format::R32Uint
        }
    );
    assert_eq!(offsets(&p, 3), [12, 128, 3, 32]);
    // A 12-byte format at element 3 (byte 36): texel views start at multiples of 48 (16 and 12),
    // so element 3 is element 3 of a view from byte 0; the storage-buffer window starts at 32.
    let uav: Vec<&HeapWrite> = p.writes.iter().filter(|w| w.element == 5).collect();
    assert_eq!(uav.len(), 2);
    assert_eq!(offsets(&p, 5), [4, 24, 3, 2]);
    assert_eq!(
        uav[1].descriptor,
        Descriptor::Texel {
            ty: DescriptorType::StorageTexelBuffer,
            span: Some(Span {
                memory: 0,
                offset: 0,
                range: 60
            }),
            format: Format::R32G32B32Uint
        }
    );
    // Raw view at byte 32: exact.
    assert_eq!(offsets(&p, 6), [0, 16, 0, 4]);
    assert_eq!(offsets(&p, 0), [0; 4]);
    assert_eq!(p.offsets.as_ref().map(|o| o.1.len()), Some(64 * 4));
}

#[test]
fn a_single_mutable_set_holds_one_descriptor_per_view() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 1\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nnum_elements = 4\n\
         [[view]]\nslot = 2\ntype = \"srv\"\nmemory = \"m\"\nformat = \"r32_uint\"\nnum_elements = 4\n",
    );
    let derived = DerivedLayout::new(
        root_signature_of(&c, heap_of(&c)).unwrap(),
        DeviceLimits::default(),
        LayoutOptions {
            typed_offset_buffer: true,
            mutable_single_set: true,
            ..LayoutOptions::default()
        },
    )
    .unwrap();
    let p = plan_heap(&c, heap_of(&c), &derived, &LIMITS).unwrap();
    let kinds: Vec<(u32, bool)> = p
        .writes
        .iter()
        .map(|w| (w.element, matches!(w.descriptor, Descriptor::Buffer { .. })))
        .collect();
    assert_eq!(kinds, [(1, true), (2, false)]);
    assert!(p.writes.iter().all(|w| (w.set, w.binding) == (1, 2)));
}

#[test]
fn raw_views_become_texel_buffers_with_large_storage_alignment() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 1\ntype = \"uav\"\nmemory = \"m\"\nraw = true\nfirst_element = 4\nnum_elements = 4\n\
         [[view]]\nslot = 2\ntype = \"uav\"\nmemory = \"m\"\nstride = 2\nnum_elements = 4\n",
    );
    let limits = DeviceLimits {
        min_storage_buffer_offset_alignment: 64,
        ..DeviceLimits::default()
    };
    let derived = derive(&c, limits);
    let heap = heap_of(&c);
    let views = HeapLayout {
        views: heap.views[..1].to_vec(),
        ..heap.clone()
    };
    let p = plan_heap(&c, &views, &derived, &LIMITS).unwrap();
    assert_eq!(p.writes.len(), 1);
    assert!(matches!(
        p.writes[0].descriptor,
        Descriptor::Texel {
            ty: DescriptorType::StorageTexelBuffer,
            format: Format::R32Uint,
            ..
        }
    ));
    assert_eq!(offsets(&p, 1), [0, 0, 0, 4]);
    // A 2-byte stride has no 32-bit texel form.
    let e = plan_heap(&c, heap, &derived, &LIMITS).unwrap_err();
    assert!(e.to_string().contains("view[1] (slot 2)"), "{e}");
}

#[test]
fn cbvs_are_clipped_to_their_memory() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 7\ntype = \"cbv\"\nmemory = \"c\"\nfirst_element = 256\nnum_elements = 256\n\
         [[view]]\nslot = 8\ntype = \"null-cbv\"\n",
    );
    let p = plan(&c);
    assert_eq!(
        p.writes,
        [
            HeapWrite {
                set: 2,
                binding: 0,
                element: 7,
                descriptor: Descriptor::Buffer {
                    ty: DescriptorType::UniformBuffer,
                    span: Some(Span {
                        memory: 1,
                        offset: 256,
                        range: 44
                    })
                }
            },
            HeapWrite {
                set: 2,
                binding: 0,
                element: 8,
                descriptor: Descriptor::Buffer {
                    ty: DescriptorType::UniformBuffer,
                    span: None
                }
            }
        ]
    );
    // Without a uniform-buffer heap CBVs are storage buffers.
    let limits = DeviceLimits {
        uniform_buffer_heap: false,
        ..DeviceLimits::default()
    };
    let p = plan_with(&c, limits, &LIMITS).unwrap();
    assert!(matches!(
        p.writes[0].descriptor,
        Descriptor::Buffer {
            ty: DescriptorType::StorageBuffer,
            ..
        }
    ));
}

#[test]
fn null_views_and_their_requirement() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 1\ntype = \"null-uav\"\nstride = 8\n\
         [[view]]\nslot = 2\ntype = \"null-srv\"\nformat = \"r32_float\"\n",
    );
    let p = plan(&c);
    assert_eq!(p.writes.len(), 4);
    assert!(p.writes.iter().all(|w| match w.descriptor {
        Descriptor::Buffer { span, .. } | Descriptor::Texel { span, .. } => span.is_none(),
        Descriptor::Sampler(_) => false,
    }));
    assert_eq!(offsets(&p, 1), [0; 4]);
    let limits = PlanLimits {
        null_descriptor: false,
        ..LIMITS
    };
    let e = plan_with(&c, DeviceLimits::default(), &limits).unwrap_err();
    assert!(e.to_string().contains("nullDescriptor"), "{e}");
}

#[test]
fn counters_and_raw_alignment() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 9\ntype = \"uav\"\nmemory = \"m\"\nstride = 4\nnum_elements = 4\ncounter = \"c\"\ncounter_offset = 8\n",
    );
    let p = plan(&c);
    assert_eq!(
        p.counters,
        Some((
            dxil_rootsig::SetBinding { set: 1, binding: 0 },
            vec![CounterEntry {
                slot: 9,
                memory: 1,
                offset: 8
            }]
        ))
    );
    assert!(p.uses_addresses);
    let limits = DeviceLimits {
        buffer_device_address: false,
        ..DeviceLimits::default()
    };
    let e = plan_with(&c, limits, &LIMITS).unwrap_err();
    assert!(e.to_string().contains("UAV counters need"), "{e}");

    let c = case(
        TABLE,
        "[[view]]\nslot = 1\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nfirst_element = 2\nnum_elements = 4\n",
    );
    assert!(error(&c).contains("multiple of 16 bytes"));
}

#[test]
fn without_offset_buffers_views_must_be_aligned() {
    let c = case(
        TABLE,
        "[[view]]\nslot = 1\ntype = \"srv\"\nmemory = \"m\"\nformat = \"r32_uint\"\nfirst_element = 1\nnum_elements = 4\n",
    );
    let rs = root_signature_of(&c, heap_of(&c)).unwrap();
    let derived =
        DerivedLayout::new(rs, DeviceLimits::default(), LayoutOptions::default()).unwrap();
    let e = plan_heap(&c, heap_of(&c), &derived, &LIMITS).unwrap_err();
    assert!(e.to_string().contains("texel-buffer alignment"), "{e}");
}

const ROOT: &str = "DescriptorTable(UAV(u0)), RootConstants(num32BitConstants=3, b0), UAV(u1), CBV(b1), DescriptorTable(Sampler(s0))";

#[test]
fn root_blocks_per_pass() {
    let c = case(
        ROOT,
        "[[root]]\nindex = 0\ntable = 5\n[[root]]\nindex = 1\nconstants = [7, 8]\n[[root]]\nindex = 2\nva = { memory = \"m\", offset = 12 }\n\
         [[pass]]\ngroups = [1, 1, 1]\n\
         [[pass]]\ngroups = [2, 3, 4]\n[[pass.root]]\nindex = 1\nconstants = [9]\n[[pass.root]]\nindex = 4\ntable = 7\n",
    );
    let p = plan(&c);
    // Block: u1 address @0, b1 address @8, constants @16..28, tables @28 and @32.
    let word =
        |pass: &PassPlan, at: usize| u32::from_le_bytes(pass.block[at..at + 4].try_into().unwrap());
    assert_eq!(p.passes.len(), 2);
    let (p0, p1) = (&p.passes[0], &p.passes[1]);
    assert_eq!(p0.block.len(), 36);
    assert_eq!(
        [
            word(p0, 16),
            word(p0, 20),
            word(p0, 24),
            word(p0, 28),
            word(p0, 32)
        ],
        [7, 8, 0, 5, 0]
    );
    assert_eq!(
        p0.addresses,
        [AddressPatch {
            offset_in_block: 0,
            memory: 0,
            offset: 12
        }]
    );
    assert_eq!(p1.groups, [2, 3, 4]);
    assert_eq!(
        [word(p1, 16), word(p1, 20), word(p1, 28), word(p1, 32)],
        [9, 0, 5, 7]
    );
    assert_eq!(p1.addresses.len(), 1);
    assert!(p0.root_descriptors.is_empty());
}

#[test]
fn root_descriptors_as_descriptors() {
    let c = case(
        ROOT,
        "[[root]]\nindex = 3\nva = { memory = \"m\", offset = 512 }\n",
    );
    let limits = DeviceLimits {
        buffer_device_address: false,
        ..DeviceLimits::default()
    };
    let p = plan_with(&c, limits, &LIMITS).unwrap();
    assert_eq!(
        p.passes[0].root_descriptors,
        [
            RootDescriptorWrite {
                set: 3,
                binding: 0,
                ty: DescriptorType::StorageBuffer,
                span: None
            },
            RootDescriptorWrite {
                set: 3,
                binding: 1,
                ty: DescriptorType::UniformBuffer,
                span: Some(Span {
                    memory: 0,
                    offset: 512,
                    range: 4096 - 512
                })
            },
        ]
    );
    assert!(!p.uses_addresses);
    let c = case(
        ROOT,
        "[[root]]\nindex = 3\nva = { memory = \"m\", offset = 16 }\n",
    );
    let e = plan_with(&c, limits, &LIMITS).unwrap_err();
    assert!(e.to_string().contains("not a multiple of 256"), "{e}");
}

#[test]
fn root_argument_errors() {
    // The reader only knows both heaps' sizes; which heap a table indexes is checked here.
    let small_heap = case(ROOT, "[[root]]\nindex = 0\ntable = 20\n");
    let mut small = small_heap.clone();
    if let Binding::RootSignature(h) = &mut small.binding {
        h.heap_size = 16;
        h.sampler_heap_size = 32;
    }
    let e = plan_with(&small, DeviceLimits::default(), &LIMITS).unwrap_err();
    assert!(
        e.to_string()
            .contains("table slot 20 is outside the CBV/SRV/UAV heap of 16 slots"),
        "{e}"
    );
    for (body, fragment) in [
        (
            "[[root]]\nindex = 4\ntable = 8\n",
            "outside the sampler heap of 8 slots",
        ),
        (
            "[[root]]\nindex = 5\ntable = 0\n",
            "names no parameter (the root signature has 5)",
        ),
        (
            "[[root]]\nindex = 1\nconstants = [1, 2, 3, 4]\n",
            "4 constants, but the parameter holds 3",
        ),
        (
            "[[root]]\nindex = 2\nconstants = [1]\n",
            "a constants argument for a root descriptor parameter",
        ),
        (
            "[[root]]\nindex = 1\nva = { memory = \"m\" }\n",
            "a va argument for a root constants parameter",
        ),
    ] {
        let e = error(&case(ROOT, body));
        assert!(e.contains(fragment), "`{e}` lacks `{fragment}`");
    }
}

#[test]
fn samplers() {
    let c = case(
        "DescriptorTable(Sampler(s0, numDescriptors=8)), \
         StaticSampler(s8, filter=FILTER_MIN_LINEAR_MAG_MIP_POINT, addressW=TEXTURE_ADDRESS_MIRROR_ONCE, borderColor=STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT), \
         StaticSampler(s9, filter=FILTER_COMPARISON_MIN_MAG_MIP_LINEAR, comparisonFunc=COMPARISON_GREATER_EQUAL, mipLODBias=15.5, minLOD=3, maxLOD=1), \
         StaticSampler(s10, filter=FILTER_MINIMUM_ANISOTROPIC, maxAnisotropy=4)",
        "[[sampler]]\nslot = 2\nfilter = \"anisotropic\"\naddress = \"mirror-once\"\n",
    );
    let p = plan(&c);
    let [s1, s2, s3] = p.static_samplers[..] else {
        panic!("{:?}", p.static_samplers)
    };
    assert_eq!(
        (s1.min, s1.mag, s1.mipmap),
        (
            vk::Filter::LINEAR,
            vk::Filter::NEAREST,
            vk::SamplerMipmapMode::NEAREST
        )
    );
    assert_eq!(s1.address[2], vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE);
    assert_eq!(s1.border, vk::BorderColor::INT_OPAQUE_WHITE);
    assert_eq!(
        (s1.compare, s1.anisotropy, s1.reduction),
        (None, None, None)
    );
    assert_eq!(s2.compare, Some(vk::CompareOp::GREATER_OR_EQUAL));
    assert_eq!(s2.mipmap, vk::SamplerMipmapMode::LINEAR);
    // Bias clamped to the device's range; maxLOD below minLOD raised to it.
    assert_eq!((s2.mip_lod_bias, s2.min_lod, s2.max_lod), (15.0, 3.0, 3.0));
    assert_eq!(s3.reduction, Some(vk::SamplerReductionMode::MIN));
    assert_eq!(s3.anisotropy, Some(4.0));
    let Descriptor::Sampler(heap) = p.writes[0].descriptor else {
        panic!()
    };
    assert_eq!(p.writes[0].element, 2);
    assert_eq!(heap.anisotropy, Some(16.0));
    assert_eq!(
        heap.address,
        [vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE; 3]
    );

    // What the device lacks is an error, not a silently different sampler.
    let limits = PlanLimits {
        filter_minmax: false,
        ..LIMITS
    };
    let e = plan_with(&c, DeviceLimits::default(), &limits).unwrap_err();
    assert!(e.to_string().contains("static sampler [2]"), "{e}");
    let limits = PlanLimits {
        mirror_clamp_to_edge: false,
        ..LIMITS
    };
    let e = plan_with(&c, DeviceLimits::default(), &limits).unwrap_err();
    assert!(e.to_string().contains("samplerMirrorClampToEdge"), "{e}");
}

#[test]
fn static_sampler_floats_and_unnormalized_coordinates() {
    let mut s = StaticSampler::hlsl_default(0);
    s.min_lod = f32::NAN;
    s.max_lod = f32::NAN;
    s.mip_lod_bias = f32::NAN;
    s.flags = SamplerFlags::NON_NORMALIZED_COORDINATES;
    s.address_u = TextureAddressMode::Border;
    let spec = static_sampler(&s, &LIMITS).unwrap();
    assert_eq!(spec.mip_lod_bias, 0.0);
    assert!(spec.unnormalized);
    assert_eq!(
        (spec.min_lod, spec.max_lod, spec.anisotropy),
        (0.0, 0.0, None)
    );
    assert_eq!(spec.min, spec.mag);
    assert_eq!(
        spec.address,
        [
            vk::SamplerAddressMode::CLAMP_TO_BORDER,
            vk::SamplerAddressMode::CLAMP_TO_EDGE,
            vk::SamplerAddressMode::CLAMP_TO_EDGE
        ]
    );
    let s = StaticSampler::hlsl_default(0);
    let spec = static_sampler(
        &s,
        &PlanLimits {
            max_anisotropy: None,
            ..LIMITS
        },
    )
    .unwrap();
    assert_eq!(spec.anisotropy, None);
    assert_eq!(spec.max_lod, f32::MAX);
}

#[test]
fn hlsl_sources_compile_as_global_version_1_1() {
    let c = case("RootFlags(LOCAL_ROOT_SIGNATURE)", "");
    let e = root_signature_of(&c, heap_of(&c)).unwrap_err();
    assert!(matches!(e, RunError::RootSignature(_)), "{e}");
    let c = case(TABLE, "");
    assert_eq!(
        root_signature_of(&c, heap_of(&c)).unwrap().version,
        Version::V1_1
    );
}
