//! The interface of vertex, pixel, geometry, hull and domain shaders: corpus containers (vkd3d-proton's tests) translated with
//! the default binding model, their `Input`/`Output` variables, execution modes and stage instructions compared
//! with what their signatures (DXC's listing beside each container) ask for.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use rspirv::dr::{Module, Operand};
use spirv::Op;
use support::inspect::*;
use support::*;

#[test]
fn pixel_inputs_keep_their_registers_and_interpolation() {
    // Signature (DXC's listing): SV_Position row 0; TEXCOORD0 float2 row 1 .xy; TEXCOORD1 float row 2 .x
    // nointerpolation; TEXCOORD2 uint row 2 .y; TEXCOORD3 uint row 2 .z; TEXCOORD4 float row 1 .z; SV_Target row 0.
    let Some(m) = translate("vkd3d-proton/pso/ps_interstage.ps_6_0.dxil") else {
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
    let Some(m) = translate("vkd3d-proton/command/indirect_state_vbo_offsets_vs.vs_6_0.dxil")
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
    let Some(m) = translate("vkd3d-proton/depth_stencil/ps_depth_clip.ps_6_0.dxil") else {
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
    let Some(m) =
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
    let Some(m) = translate("vkd3d-proton/pso/gs_mismatch_1.gs_6_0.dxil") else {
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
            // Integer outputs are `nointerpolation` in the signature, and outputs carry their interpolation.
            "Output Flat Location=3: u32x4",
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

fn count(m: &Module, op: Op) -> usize {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == op)
        .count()
}

#[test]
fn hull_shaders_run_the_patch_constant_function_once_after_the_control_points() {
    // InputPatch<{float4 SV_Position}, 1> → 4 control points of SV_Position (row 0); patch constants: edges[4] :
    // SV_TessFactor, inside[2] : SV_InsideTessFactor, float3 center : CENTER (row 0, after the factors' rows in
    // D3D's numbering, its own register space); quad, integer, triangle_cw.
    let Some((m, t)) = translate_with(
        "vkd3d-proton/tessellation/fork_phase_hs.hs_6_0.dxil",
        &dxil_to_spirv::Options::default(),
    ) else {
        return;
    };
    assert_eq!(
        m.entry_points[0].operands[0],
        Operand::ExecutionModel(spirv::ExecutionModel::TessellationControl)
    );
    assert_eq!(
        interface(&m),
        set(&[
            // From the vertex shader: built-ins, 32 control points (a draw may use other patch sizes).
            "Input Position: f32x4[32]",
            // To the domain shader: locations, system values included.
            "Output Location=0: f32x4[4]",
            "Output Patch TessLevelOuter: f32[4]",
            "Output Patch TessLevelInner: f32[2]",
            // One row of control points: patch constants start at location 1.
            "Output Location=1 Patch: f32x3",
            "Input InvocationId: u32",
        ])
    );
    assert_eq!(
        modes(&m),
        set(&["Quads", "SpacingEqual", "VertexOrderCw", "OutputVertices 4"])
    );
    // main: call the control-point function, barrier, call the patch constant function under a branch.
    assert_eq!(count(&m, Op::FunctionCall), 2);
    assert_eq!(count(&m, Op::ControlBarrier), 1);
    assert_eq!(m.functions.len(), 3);
    let tess = t.tessellation.expect("tessellation state");
    assert_eq!(
        tess,
        dxil_to_spirv::Tessellation {
            input_control_points: 1,
            output_control_points: 4,
            domain: dxil_to_spirv::TessellatorDomain::Quad,
            partitioning: dxil_to_spirv::TessellatorPartitioning::Integer,
            output_primitive: dxil_to_spirv::TessellatorOutputPrimitive::TriangleCW,
            max_tess_factor: 64.0,
            patch_location_offset: 1,
        }
    );
}

#[test]
fn domain_shaders_read_control_points_and_patch_constants_where_the_hull_shader_wrote_them() {
    let Some((m, t)) = translate_with(
        "vkd3d-proton/tessellation/fork_phase_ds.ds_6_0.dxil",
        &dxil_to_spirv::Options::default(),
    ) else {
        return;
    };
    assert_eq!(
        m.entry_points[0].operands[0],
        Operand::ExecutionModel(spirv::ExecutionModel::TessellationEvaluation)
    );
    let iface = interface(&m);
    for v in [
        "Input Location=0: f32x4[4]",
        "Input Location=1 Patch: f32x3",
        "Input TessCoord: f32x3",
        "Output Position: f32x4",
    ] {
        assert!(iface.contains(v), "{v} not in {iface:?}");
    }
    assert_eq!(modes(&m), set(&["Quads"]));
    let tess = t.tessellation.expect("tessellation state");
    assert_eq!(
        (tess.input_control_points, tess.patch_location_offset),
        (4, 1)
    );

    // Translated after a hull shader whose control points take more rows, the patch constants move with them.
    let options = dxil_to_spirv::Options {
        patch_location_offset: Some(5),
        ..dxil_to_spirv::Options::default()
    };
    let Some((m, t)) = translate_with(
        "vkd3d-proton/tessellation/fork_phase_ds.ds_6_0.dxil",
        &options,
    ) else {
        return;
    };
    assert!(interface(&m).contains("Input Location=5 Patch: f32x3"));
    assert_eq!(t.tessellation.map(|t| t.patch_location_offset), Some(5));
}

#[test]
fn isoline_hull_shaders_read_the_primitive_id() {
    // domain("isoline"), outputcontrolpoints(1), partitioning("integer"), outputtopology("line");
    // tess_factor[0] = line density, [1] = line detail: TessLevelOuter[0] (lines) and [1] (segments).
    let Some(m) = translate("vkd3d-proton/tessellation/line_tessellation_hs.hs_6_0.dxil") else {
        return;
    };
    assert_eq!(
        modes(&m),
        set(&["Isolines", "SpacingEqual", "OutputVertices 1"])
    );
    let iface = interface(&m);
    assert!(iface.contains("Input PrimitiveId: u32"), "{iface:?}");
    assert!(
        iface.contains("Output Patch TessLevelOuter: f32[4]"),
        "{iface:?}"
    );
    assert!(
        !m.capabilities
            .iter()
            .any(|c| c.operands[0] == Operand::Capability(spirv::Capability::Geometry)),
        "PrimitiveId in a tessellation stage needs Tessellation, not Geometry"
    );
}

#[test]
fn control_point_rows_at_a_column_split_into_variables() {
    // Output signature: HSValue float2 row 0; SV_ClipDistance float2 row 1 .xy; SV_CullDistance 0 and 1, one
    // float each at .z of rows 1 and 2 (one element of two rows).
    let Some(m) = translate("dxil-spirv/stages/hull-clip-cull.tesc.dxil") else {
        return;
    };
    let iface = interface(&m);
    for v in [
        "Input ClipDistance: f32[2][32]",
        "Input CullDistance: f32[2][32]",
        "Output Location=0: f32x2[4]",
        "Output Location=1: f32x2[4]",
        "Output Component=2 Location=1: f32[4]",
        "Output Component=2 Location=2: f32[4]",
    ] {
        assert!(iface.contains(v), "{v} not in {iface:?}");
    }
}

/// A corpus listing (DXC's `.ll`) with `from` replaced by `to`, parsed and translated, validated.
fn translate_edited_listing(name: &str, from: &str, to: &str) -> Option<Module> {
    let corpus = corpus_dir()?;
    let path = corpus.join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text.matches(from).count(), 1, "{name}: `{from}`");
    let module =
        dxil_text::parse_module(&text.replace(from, to)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let t = dxil_to_spirv::translate(&module, &dxil_to_spirv::Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    if have_spirv_val() {
        let tag = format!("{}_edited", name.replace(['/', '.'], "_"));
        spirv_val(&t.words, t.vulkan_version, &tag).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(&t.words, &mut loader).unwrap();
    Some(loader.module())
}

/// The instruction defining `id`, in the functions or among the globals.
fn def(m: &Module, id: u32) -> Option<&rspirv::dr::Instruction> {
    m.types_global_values
        .iter()
        .chain(
            m.functions
                .iter()
                .flat_map(|f| f.blocks.iter())
                .flat_map(|b| b.instructions.iter()),
        )
        .find(|i| i.result_id == Some(id))
}

/// For each store into the tessellation level built-in `b`: the constant index it writes and the opcode that
/// made the stored value.
fn tess_level_stores(m: &Module, b: spirv::BuiltIn) -> Vec<(u32, Op)> {
    let var = m
        .annotations
        .iter()
        .find(|a| a.operands.get(2) == Some(&Operand::BuiltIn(b)))
        .and_then(|a| match a.operands[0] {
            Operand::IdRef(v) => Some(v),
            _ => None,
        })
        .expect("tessellation level variable");
    let id_of = |o: &Operand| match o {
        Operand::IdRef(r) => *r,
        _ => 0,
    };
    let mut out = Vec::new();
    for i in m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::Store)
    {
        let Some(chain) = def(m, id_of(&i.operands[0])) else {
            continue;
        };
        if chain.class.opcode != Op::AccessChain || id_of(&chain.operands[0]) != var {
            continue;
        }
        let index = match def(m, id_of(&chain.operands[1])).map(|c| &c.operands[0]) {
            Some(Operand::LiteralBit32(k)) => *k,
            _ => u32::MAX,
        };
        let value = def(m, id_of(&i.operands[1])).map_or(Op::Nop, |v| v.class.opcode);
        out.push((index, value));
    }
    out.sort_by_key(|&(k, _)| k);
    out
}

#[test]
fn pow2_partitioning_and_max_tess_factor_rewrite_the_written_factors() {
    // fork_phase_hs writes constant factors (edges 1.0 × 4, inside 1.0 × 2); its HS state says integer
    // partitioning and [maxtessfactor(64)]. As written, the constants go straight to the built-ins.
    const STATE: &str = "i32 1, i32 4, i32 3, i32 1, i32 3, float 6.400000e+01}";
    let Some(m) = translate_edited_listing(
        "vkd3d-proton/tessellation/fork_phase_hs.hs_6_0.ll",
        STATE,
        STATE,
    ) else {
        return;
    };
    let outer = tess_level_stores(&m, spirv::BuiltIn::TessLevelOuter);
    assert_eq!(
        outer,
        (0..4).map(|k| (k, Op::Constant)).collect::<Vec<_>>(),
        "integer partitioning under the default maximum: stored as written"
    );
    // pow2 partitioning with [maxtessfactor(2.0)]: every factor clamped, then rounded (the last select keeps
    // factors that cull the patch).
    let Some(m) = translate_edited_listing(
        "vkd3d-proton/tessellation/fork_phase_hs.hs_6_0.ll",
        STATE,
        "i32 1, i32 4, i32 3, i32 2, i32 3, float 2.000000e+00}",
    ) else {
        return;
    };
    for b in [
        spirv::BuiltIn::TessLevelOuter,
        spirv::BuiltIn::TessLevelInner,
    ] {
        let stores = tess_level_stores(&m, b);
        assert_eq!(
            stores.len(),
            if b == spirv::BuiltIn::TessLevelOuter {
                4
            } else {
                2
            }
        );
        assert!(
            stores.iter().all(|&(_, op)| op == Op::Select),
            "{b:?}: {stores:?}"
        );
    }
    assert_eq!(
        modes(&m),
        set(&["Quads", "SpacingEqual", "VertexOrderCw", "OutputVertices 4"])
    );
    let two = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Constant
                && i.operands.first() == Some(&Operand::LiteralBit32(2.0f32.to_bits()))
        })
        .and_then(|i| i.result_id)
        .expect("the constant 2.0");
    assert!(
        m.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
            .any(|i| i.class.opcode == Op::FOrdGreaterThan && i.operands[1] == Operand::IdRef(two)),
        "factors compared against [maxtessfactor]"
    );
    assert!(
        uses(&m, Op::BitwiseAnd),
        "pow2 rounding from the float's bits"
    );
}

#[test]
fn pow2_partitioning_keeps_the_isoline_density() {
    // line_tessellation_hs: tess_factor[0] (line density) and [1] (line detail) from control point 0. With pow2
    // partitioning the detail is rounded; the density is integer-partitioned in D3D whatever the partitioning.
    let Some(m) = translate_edited_listing(
        "vkd3d-proton/tessellation/line_tessellation_hs.hs_6_0.ll",
        "i32 1, i32 1, i32 1, i32 1, i32 2, float 6.400000e+01}",
        "i32 1, i32 1, i32 1, i32 2, i32 2, float 6.400000e+01}",
    ) else {
        return;
    };
    assert_eq!(
        tess_level_stores(&m, spirv::BuiltIn::TessLevelOuter),
        vec![(0, Op::Load), (1, Op::Select)]
    );
}

#[test]
fn attributes_read_per_vertex_are_per_vertex_arrays() {
    // nointerpolation float ATTR0 (row 0), read through GetAttributeAtVertex(attr0, 0..2) and plainly; ATTR1
    // (linear), ATTR2 (noperspective); SV_Barycentrics and noperspective SV_Barycentrics1.
    let Some(m) = translate("vkd3d-proton/sm_advanced/ps_barycentrics.ps_6_1.dxil") else {
        return;
    };
    assert_eq!(
        interface(&m),
        set(&[
            "Input Location=0 PerVertexKHR: f32[3]",
            "Input Location=1: f32",
            "Input Location=2 NoPerspective: f32",
            "Input FragCoord: f32x4",
            "Input BaryCoordKHR: f32x3",
            "Input BaryCoordNoPerspKHR: f32x3",
            "Output Location=0: f32x4",
        ])
    );
    // The three vertices read through AttributeAtVertex (DXC reads each once); the plain read of vertex 0 shares
    // vertex 0's access chain (same block, same operands).
    let per_vertex = m
        .annotations
        .iter()
        .find(|a| a.operands.get(1) == Some(&Operand::Decoration(spirv::Decoration::PerVertexKHR)))
        .map(|a| a.operands[0].clone())
        .unwrap();
    let chains = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::AccessChain && i.operands[0] == per_vertex)
        .count();
    assert_eq!(chains, 3);
}
