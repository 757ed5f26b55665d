//! Values a shader reads that D3D12 keeps in the pipeline rather than the shader: the rasterizer's sample count
//! (`GetRenderTargetSampleCount()`, `GetRenderTargetSamplePosition()`) and a geometry shader's
//! `SV_RenderTargetArrayIndex` / `SV_ViewportArrayIndex` inputs, which Vulkan geometry shaders cannot read as
//! built-ins; and inputs read at one vertex of the primitive (`GetAttributeAtVertex`). Corpus containers, translated
//! and validated.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use dxil_to_spirv::{Options, SampleCount, Translation};
use rspirv::dr::{Module, Operand};
use spirv::{BuiltIn, Decoration, Op};
use support::*;

fn translate(name: &str, options: &Options) -> Option<(Translation, Module)> {
    let Some(corpus) = corpus_dir() else {
        skip_or_fail("no corpus");
        return None;
    };
    let path = corpus.join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = dxil_to_spirv::translate_container(&bytes, options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    if have_spirv_val() {
        let tag = format!("pv-{}", name.replace(['/', '.'], "_"));
        spirv_val(&t.words, t.vulkan_version, &tag).unwrap_or_else(|e| panic!("{name}: {e}"));
    } else {
        skip_or_fail("spirv-val is not installed");
    }
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(&t.words, &mut loader).unwrap();
    Some((t, loader.module()))
}

/// The literal operands of every `OpDecorate target D ...`.
fn decorations(m: &Module, target: u32, d: Decoration) -> Vec<Vec<u32>> {
    m.annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter(|i| i.operands.first() == Some(&Operand::IdRef(target)))
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(d)))
        .map(|i| {
            i.operands[2..]
                .iter()
                .filter_map(|o| match o {
                    Operand::LiteralBit32(v) => Some(*v),
                    Operand::BuiltIn(b) => Some(*b as u32),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// The `Input` or `Output` variables as (Location, Component) pairs, and their built-ins.
fn interface(m: &Module, storage: spirv::StorageClass) -> (Vec<(u32, u32)>, Vec<u32>) {
    let (mut locations, mut builtins) = (Vec::new(), Vec::new());
    for v in &m.types_global_values {
        if v.class.opcode != Op::Variable
            || v.operands.first() != Some(&Operand::StorageClass(storage))
        {
            continue;
        }
        let id = v.result_id.unwrap();
        if let Some(l) = decorations(m, id, Decoration::Location).first() {
            let c = decorations(m, id, Decoration::Component)
                .first()
                .map_or(0, |c| c[0]);
            locations.push((l[0], c));
        }
        builtins.extend(decorations(m, id, Decoration::BuiltIn).iter().map(|b| b[0]));
    }
    locations.sort();
    (locations, builtins)
}

#[test]
fn render_target_sample_count_is_a_specialization_constant() {
    for name in [
        "dxil-spirv/dxil-builtin/render-target-sample-count.frag.dxil",
        "dxil-spirv/dxil-builtin/render-target-sample-position.frag.dxil",
    ] {
        let Some((t, m)) = translate(name, &Options::default()) else {
            return;
        };
        assert_eq!(t.sample_count_spec_id, Some(0), "{name}");
        let spec: Vec<_> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::SpecConstant)
            .collect();
        assert_eq!(spec.len(), 1, "{name}");
        assert_eq!(
            spec[0].operands,
            [Operand::LiteralBit32(1)],
            "{name}: default 1"
        );
        let id = spec[0].result_id.unwrap();
        assert_eq!(decorations(&m, id, Decoration::SpecId), [vec![0]], "{name}");

        let fixed = Options {
            requests: dxil_to_spirv::Requests {
                rasterizer_sample_count: Some(SampleCount::Fixed(4)),
                ..Default::default()
            },
            ..Options::default()
        };
        let (t, m) = translate(name, &fixed).unwrap();
        assert_eq!(t.sample_count_spec_id, None, "{name}");
        assert!(
            !m.types_global_values
                .iter()
                .any(|i| i.class.opcode == Op::SpecConstant),
            "{name}"
        );
    }
}

#[test]
fn geometry_shaders_read_layer_and_viewport_from_the_locations_vertex_shaders_also_write() {
    // Both signatures put SV_RenderTargetArrayIndex at register 1 .y and SV_ViewportArrayIndex at 1 .z.
    let Some((_, vs)) = translate(
        "vkd3d-proton/pso/vs_multiview_export_layer_viewport.vs_6_1.dxil",
        &Options::default(),
    ) else {
        return;
    };
    let (locations, builtins) = interface(&vs, spirv::StorageClass::Output);
    assert!(
        locations.contains(&(1, 1)) && locations.contains(&(1, 2)),
        "{locations:?}"
    );
    assert!(builtins.contains(&(BuiltIn::Layer as u32)));
    assert!(builtins.contains(&(BuiltIn::ViewportIndex as u32)));

    let (_, gs) = translate(
        "vkd3d-proton/pso/gs_multiview_export_layer_viewport.gs_6_1.dxil",
        &Options::default(),
    )
    .unwrap();
    let (locations, builtins) = interface(&gs, spirv::StorageClass::Input);
    assert!(
        locations.contains(&(1, 1)) && locations.contains(&(1, 2)),
        "{locations:?}"
    );
    assert!(!builtins.contains(&(BuiltIn::Layer as u32)));
    assert!(!builtins.contains(&(BuiltIn::ViewportIndex as u32)));
    let (_, builtins) = interface(&gs, spirv::StorageClass::Output);
    assert!(builtins.contains(&(BuiltIn::Layer as u32)));
}

#[test]
fn inputs_read_at_a_vertex_are_per_vertex_arrays() {
    // Inputs 0 and 1 are read by GetAttributeAtVertex (and loadInput); input 4 (an index) only by loadInput.
    let Some((t, m)) = translate(
        "dxil-spirv/dxil-builtin/barycentrics.frag.dxil",
        &Options::default(),
    ) else {
        return;
    };
    assert!(
        t.extensions
            .contains(&"SPV_KHR_fragment_shader_barycentric")
    );
    let per_vertex: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate)
        .filter(|i| i.operands.get(1) == Some(&Operand::Decoration(Decoration::PerVertexKHR)))
        .filter_map(|i| match i.operands[0] {
            Operand::IdRef(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(per_vertex.len(), 2, "{per_vertex:?}");
    for v in per_vertex {
        assert!(
            decorations(&m, v, Decoration::Flat).is_empty(),
            "%{v} is Flat"
        );
        // Its pointer type points at an array of 3.
        let var = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(v))
            .unwrap();
        let ptr = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == var.result_type)
            .unwrap();
        let Operand::IdRef(pointee) = ptr.operands[1] else {
            panic!()
        };
        let arr = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(pointee))
            .unwrap();
        assert_eq!(arr.class.opcode, Op::TypeArray, "%{v}");
        let Operand::IdRef(len) = arr.operands[1] else {
            panic!()
        };
        let len = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(len))
            .unwrap();
        assert_eq!(len.operands, [Operand::LiteralBit32(3)], "%{v}");
    }
}
