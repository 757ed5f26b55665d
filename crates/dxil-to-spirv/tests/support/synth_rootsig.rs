//! Root signatures for corpus shaders that come without one: the layout variants the root-signature tests run on
//! and a root signature made from a shader's own resource declarations. Shared by `rootsig_corpus.rs` and the
//! `corpus_hashes` example.

use dxil_rootsig::{DeviceLimits, LayoutOptions, RootCbvPolicy};
use dxil_to_spirv::dxil::{ResourceClass, ResourceDecl, ResourceKind};

/// The layout variants: (name, device limits, options).
pub fn variants() -> Vec<(&'static str, DeviceLimits, LayoutOptions)> {
    let d = DeviceLimits::default();
    let o = LayoutOptions {
        typed_offset_buffer: true,
        ..LayoutOptions::default()
    };
    vec![
        ("default", d, o),
        (
            "push-descriptor-cbv",
            d,
            LayoutOptions {
                root_cbv: RootCbvPolicy::PushDescriptor,
                ..o
            },
        ),
        (
            "spilled",
            DeviceLimits {
                max_push_constants_size: 8,
                ..d
            },
            o,
        ),
        (
            "no-mutable",
            DeviceLimits {
                mutable_descriptors: false,
                ..d
            },
            LayoutOptions {
                typed_offset_buffer: false,
                ..o
            },
        ),
        (
            "single-set",
            d,
            LayoutOptions {
                mutable_single_set: true,
                ..o
            },
        ),
        (
            "cbv-as-ssbo",
            DeviceLimits {
                uniform_buffer_heap: false,
                ..d
            },
            o,
        ),
        (
            "no-bda",
            DeviceLimits {
                buffer_device_address: false,
                ..d
            },
            o,
        ),
    ]
}

/// How the synthesized root signature places single resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Everything in descriptor tables.
    Tables,
    /// Single buffers as root descriptors, single samplers as static samplers.
    Roots,
    /// Like `Roots`, and small constant buffers as root constants.
    Constants,
}

fn range_text(d: &ResourceDecl, offset: u32) -> String {
    let (kind, letter) = match d.class {
        ResourceClass::Cbv => ("CBV", 'b'),
        ResourceClass::Srv => ("SRV", 't'),
        ResourceClass::Uav => ("UAV", 'u'),
        ResourceClass::Sampler => ("Sampler", 's'),
    };
    let count = if d.count == u32::MAX {
        "unbounded".to_string()
    } else {
        d.count.max(1).to_string()
    };
    format!(
        "{kind}({letter}{}, space={}, numDescriptors={count}, offset={offset})",
        d.lower, d.space
    )
}

/// A root signature binding every declaration of the shader for compute shaders.
pub fn synthesize(decls: &[ResourceDecl], shape: Shape) -> String {
    let mut clauses = vec![
        "RootFlags(CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | SAMPLER_HEAP_DIRECTLY_INDEXED)".to_string(),
    ];
    let (mut views, mut samplers) = (Vec::new(), Vec::new());
    let (mut view_offset, mut sampler_offset) = (0u32, 0u32);
    // Tables cost 1 DWORD each (at most two), root descriptors 2, root constants 1 per value: stay within 64.
    let mut cost = 2u32;
    for d in decls {
        let single = d.count == 1;
        let raw = matches!(
            d.kind,
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer
        );
        let space = d.space;
        if shape != Shape::Tables && single {
            match d.class {
                ResourceClass::Cbv if d.kind == ResourceKind::CBuffer => {
                    let words = d.cbuffer_size.div_ceil(4).max(1);
                    if shape == Shape::Constants && words <= 16 && cost + words <= 64 {
                        cost += words;
                        clauses.push(format!(
                            "RootConstants(num32BitConstants={words}, b{}, space={space})",
                            d.lower
                        ));
                        continue;
                    }
                    if cost + 2 <= 64 {
                        cost += 2;
                        clauses.push(format!("CBV(b{}, space={space})", d.lower));
                        continue;
                    }
                }
                ResourceClass::Srv if raw && cost + 2 <= 64 => {
                    cost += 2;
                    clauses.push(format!("SRV(t{}, space={space})", d.lower));
                    continue;
                }
                ResourceClass::Uav if raw && !d.has_counter && cost + 2 <= 64 => {
                    cost += 2;
                    clauses.push(format!("UAV(u{}, space={space})", d.lower));
                    continue;
                }
                ResourceClass::Sampler => {
                    clauses.push(format!("StaticSampler(s{}, space={space})", d.lower));
                    continue;
                }
                _ => {}
            }
        }
        // Explicit offsets: APPEND may not follow an unbounded range.
        let (list, offset) = if d.class == ResourceClass::Sampler {
            (&mut samplers, &mut sampler_offset)
        } else {
            (&mut views, &mut view_offset)
        };
        list.push(range_text(d, *offset));
        *offset += if d.count == u32::MAX {
            1024
        } else {
            d.count.max(1)
        };
    }
    if !views.is_empty() {
        clauses.push(format!("DescriptorTable({})", views.join(", ")));
    }
    if !samplers.is_empty() {
        clauses.push(format!("DescriptorTable({})", samplers.join(", ")));
    }
    clauses.join(", ")
}
