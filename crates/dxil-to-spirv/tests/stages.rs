//! The interface of vertex, pixel and geometry shaders: corpus containers (vkd3d-proton's tests) translated with
//! the default binding model, their `Input`/`Output` variables, execution modes and stage instructions compared
//! with what their signatures (DXC's listing beside each container) ask for.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use std::collections::BTreeSet;

use rspirv::dr::{Module, Operand};
use spirv::Op;
use support::*;

/// The translated module of a corpus container, validated.
fn translate(name: &str) -> Option<(Module, Vec<u32>)> {
    let corpus = corpus_dir()?;
    let path = corpus.join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = dxil_to_spirv::translate_container(&bytes, &dxil_to_spirv::Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    if have_spirv_val() {
        // Tests run in parallel: one file per container.
        let tag = name.replace(['/', '.'], "_");
        spirv_val(&t.words, t.vulkan_version, &tag).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(&t.words, &mut loader).unwrap();
    Some((loader.module(), t.words))
}

fn type_name(m: &Module, id: u32) -> String {
    let Some(t) = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
    else {
        return format!("%{id}");
    };
    let id_op = |k: usize| match &t.operands[k] {
        Operand::IdRef(r) => *r,
        _ => 0,
    };
    let lit = |k: usize| match &t.operands[k] {
        Operand::LiteralBit32(v) => *v,
        _ => 0,
    };
    match t.class.opcode {
        Op::TypeFloat => format!("f{}", lit(0)),
        Op::TypeInt => format!("{}{}", if lit(1) == 1 { "i" } else { "u" }, lit(0)),
        Op::TypeBool => "bool".into(),
        Op::TypeVector => format!("{}x{}", type_name(m, id_op(0)), lit(1)),
        Op::TypeArray => {
            let len = m
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(id_op(1)))
                .and_then(|c| match c.operands.first() {
                    Some(Operand::LiteralBit32(v)) => Some(*v),
                    _ => None,
                })
                .unwrap_or(0);
            format!("{}[{len}]", type_name(m, id_op(0)))
        }
        Op::TypePointer => type_name(m, id_op(1)),
        other => format!("{other:?}"),
    }
}

/// Every `Input`/`Output` variable as `"Input Location=1 Component=2 Flat: u32"`, decorations sorted.
fn interface(m: &Module) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for v in &m.types_global_values {
        if v.class.opcode != Op::Variable {
            continue;
        }
        let sc = match v.operands.first() {
            Some(Operand::StorageClass(sc)) => *sc,
            _ => continue,
        };
        if !matches!(sc, spirv::StorageClass::Input | spirv::StorageClass::Output) {
            continue;
        }
        let id = v.result_id.unwrap();
        let mut decos: Vec<String> = m
            .annotations
            .iter()
            .filter(|a| a.class.opcode == Op::Decorate && a.operands[0] == Operand::IdRef(id))
            .map(|a| {
                let d = match &a.operands[1] {
                    Operand::Decoration(d) => format!("{d:?}"),
                    o => format!("{o:?}"),
                };
                match a.operands.get(2) {
                    Some(Operand::LiteralBit32(x)) => format!("{d}={x}"),
                    Some(Operand::BuiltIn(b)) => format!("{b:?}"),
                    _ => d,
                }
            })
            .collect();
        decos.sort();
        out.insert(format!(
            "{sc:?} {}: {}",
            decos.join(" "),
            type_name(m, v.result_type.unwrap())
        ));
    }
    out
}

fn modes(m: &Module) -> BTreeSet<String> {
    m.execution_modes
        .iter()
        .map(|i| {
            let mut s = match &i.operands[1] {
                Operand::ExecutionMode(e) => format!("{e:?}"),
                o => format!("{o:?}"),
            };
            for o in &i.operands[2..] {
                if let Operand::LiteralBit32(v) = o {
                    s += &format!(" {v}");
                }
            }
            s
        })
        .collect()
}

fn uses(m: &Module, op: Op) -> bool {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .any(|i| i.class.opcode == op)
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn pixel_inputs_keep_their_registers_and_interpolation() {
    // Signature (DXC's listing): SV_Position row 0; TEXCOORD0 float2 row 1 .xy; TEXCOORD1 float row 2 .x
    // nointerpolation; TEXCOORD2 uint row 2 .y; TEXCOORD3 uint row 2 .z; TEXCOORD4 float row 1 .z; SV_Target row 0.
    let Some((m, _)) = translate("vkd3d-proton/pso/ps_interstage.ps_6_0.dxil") else {
        return;
    };
    assert_eq!(
        m.entry_points[0].operands[0],
        Operand::ExecutionModel(spirv::ExecutionModel::Fragment)
    );
    assert_eq!(
        interface(&m),
        set(&[
            "Input FragCoord: f32x4",
            "Input Location=1: f32x2",
            "Input Flat Location=2: f32",
            "Input Component=1 Flat Location=2: u32",
            "Input Component=2 Flat Location=2: u32",
            "Input Component=2 Location=1: f32",
            "Output Location=0: f32x4",
        ])
    );
    assert_eq!(modes(&m), set(&["OriginUpperLeft"]));
}

#[test]
fn vertex_id_excludes_the_base_vertex() {
    // VIn { uint i : I (row 0); uint vid : SV_VertexID (row 1) }, VOut { float4 c : C (row 0); SV_Position }.
    let Some((m, _)) = translate("vkd3d-proton/command/indirect_state_vbo_offsets_vs.vs_6_0.dxil")
    else {
        return;
    };
    assert_eq!(
        m.entry_points[0].operands[0],
        Operand::ExecutionModel(spirv::ExecutionModel::Vertex)
    );
    assert_eq!(
        interface(&m),
        set(&[
            "Input Location=0: u32",
            "Input VertexIndex: u32",
            "Input BaseVertex: u32",
            "Output Location=0: f32x4",
            "Output Position: f32x4",
        ])
    );
    assert!(uses(&m, Op::ISub), "VertexIndex - BaseVertex");
    assert!(
        m.capabilities
            .iter()
            .any(|c| c.operands[0] == Operand::Capability(spirv::Capability::DrawParameters))
    );
}

#[test]
fn depth_output_replaces_depth() {
    let Some((m, _)) = translate("vkd3d-proton/depth_stencil/ps_depth_clip.ps_6_0.dxil") else {
        return;
    };
    let iface = interface(&m);
    assert!(iface.contains("Output FragDepth: f32"), "{iface:?}");
    assert!(iface.contains("Output Location=0: f32x4"), "{iface:?}");
    assert_eq!(modes(&m), set(&["OriginUpperLeft", "DepthReplacing"]));
}

#[test]
fn discard_demotes_to_a_helper() {
    // `if (ic == 0) discard;` with ic : SV_InnerCoverage.
    let Some((m, _)) =
        translate("vkd3d-proton/command/conservative_rasterization_ps_underestimate.ps_6_0.dxil")
    else {
        return;
    };
    assert!(uses(&m, Op::DemoteToHelperInvocation));
    assert!(!uses(&m, Op::Kill));
    assert!(
        uses(&m, Op::BranchConditional),
        "the demote runs under the condition"
    );
    assert!(interface(&m).contains("Input FullyCoveredEXT: bool"));
}

#[test]
fn geometry_inputs_are_arrays_over_the_primitive() {
    // triangle VsOut[3] { SV_POSITION; float3 ARG0 (row 1); float ARG1 (row 1 .w) } → PointStream<GsOut>
    // { SV_POSITION; float3 ARG0 (row 1); float2 ARG1 (row 2); uint4 ARG2 (row 3) }, maxvertexcount(3).
    let Some((m, _)) = translate("vkd3d-proton/pso/gs_mismatch_1.gs_6_0.dxil") else {
        return;
    };
    assert_eq!(
        m.entry_points[0].operands[0],
        Operand::ExecutionModel(spirv::ExecutionModel::Geometry)
    );
    assert_eq!(
        interface(&m),
        set(&[
            "Input Position: f32x4[3]",
            "Input Location=1: f32x3[3]",
            "Input Component=3 Location=1: f32[3]",
            "Output Position: f32x4",
            "Output Location=1: f32x3",
            "Output Location=2: f32x2",
            "Output Location=3: u32x4",
        ])
    );
    assert_eq!(
        modes(&m),
        set(&[
            "Triangles",
            "OutputPoints",
            "OutputVertices 3",
            "Invocations 1"
        ])
    );
    assert!(uses(&m, Op::EmitVertex));
}
