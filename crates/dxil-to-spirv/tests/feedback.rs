//! Sampler feedback (see the crate docs, "Sampler feedback"): a small pixel shader per operation, written here as a
//! listing, translated; the module must pass `spirv-val` and have the emulation's shape: the feedback UAV an
//! `R64ui` storage image of 64-bit texels, two guarded `OpAtomicOr`s into it (the finer level's under "not a helper
//! lane", the coarser level's under that and "trilinear") at an integer texel (with the layer for arrays) and with
//! 4-bit level groups shifted into place, and the level computed the way the operation asks.

mod support;

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Dim, GLOp, ImageFormat, Op};
use support::inspect::{parse, type_name};
use support::validate;

/// The four operations.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Sample,
    Bias,
    Level,
    Grad,
}

/// A pixel shader writing feedback for texture `t0` through sampler `s0` into `u0` with one call of `kind`, the
/// coordinates from `SV_Position`; `clamped`: with the optional clamp operand (all but `Level`).
fn listing(kind: Kind, arrayed: bool, clamped: bool) -> String {
    let layer = if arrayed { "float %z" } else { "float undef" };
    let clamp = if clamped { "float %w" } else { "float undef" };
    // The operands after the layer: the unused fourth coordinate, then the operation's own.
    let (name, op, tail, params) = match kind {
        Kind::Sample => (
            "writeSamplerFeedback",
            174,
            format!("float undef, {clamp}"),
            5,
        ),
        Kind::Bias => (
            "writeSamplerFeedbackBias",
            175,
            format!("float undef, float %w, {clamp}"),
            6,
        ),
        Kind::Level => (
            "writeSamplerFeedbackLevel",
            176,
            "float undef, float %w".into(),
            5,
        ),
        Kind::Grad => (
            "writeSamplerFeedbackGrad",
            177,
            format!(
                "float undef, float %z, float %w, float undef, float %w, float %z, float undef, {clamp}"
            ),
            11,
        ),
    };
    let floats = vec!["float"; params].join(", ");
    let (tex_kind, fb_kind) = if arrayed { (7, 18) } else { (2, 17) };
    format!(
        r#"target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type {{ i8* }}
%Texture = type {{ <4 x float> }}
%Feedback = type {{ i32 }}
%Sampler = type {{ i32 }}

define void @main() {{
  %x = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %y = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 undef)
  %z = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 2, i32 undef)
  %w = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 3, i32 undef)
  %fb = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %t = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %s = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 3, i32 0, i32 0, i1 false)
  call void @dx.op.{name}(i32 {op}, %dx.types.Handle %fb, %dx.types.Handle %t, %dx.types.Handle %s, float %x, float %y, {layer}, {tail})
  ret void
}}

declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #1
declare void @dx.op.{name}(i32, %dx.types.Handle, %dx.types.Handle, %dx.types.Handle, {floats}) #2

attributes #0 = {{ nounwind readnone }}
attributes #1 = {{ nounwind readonly }}
attributes #2 = {{ nounwind }}

!dx.version = !{{!0}}
!dx.valver = !{{!1}}
!dx.shaderModel = !{{!2}}
!dx.resources = !{{!3}}
!dx.entryPoints = !{{!12}}

!0 = !{{i32 1, i32 5}}
!1 = !{{i32 1, i32 8}}
!2 = !{{!"ps", i32 6, i32 5}}
!3 = !{{!4, !7, null, !10}}
!4 = !{{!5}}
!5 = !{{i32 0, %Texture* undef, !"", i32 0, i32 0, i32 1, i32 {tex_kind}, i32 0, !6}}
!6 = !{{i32 0, i32 9}}
!7 = !{{!8}}
!8 = !{{i32 0, %Feedback* undef, !"", i32 0, i32 0, i32 1, i32 {fb_kind}, i1 false, i1 false, i1 false, !9}}
!9 = !{{i32 2, i32 1}}
!10 = !{{!11}}
!11 = !{{i32 0, %Sampler* undef, !"", i32 0, i32 0, i32 1, i32 0, null}}
!12 = !{{void ()* @main, !"main", !13, !3, null}}
!13 = !{{!14, null, null}}
!14 = !{{!15}}
!15 = !{{i32 0, !"SV_Position", i8 9, i8 3, !16, i8 4, i32 1, i8 4, i32 0, i8 0, null}}
!16 = !{{i32 0}}
"#
    )
}

/// Translates and validates the listing of `kind`.
fn translate(kind: Kind, arrayed: bool) -> Module {
    translate_clamped(kind, arrayed, false)
}

fn translate_clamped(kind: Kind, arrayed: bool, clamped: bool) -> Module {
    parse(&translation(kind, arrayed, clamped).words)
}

fn translation(kind: Kind, arrayed: bool, clamped: bool) -> dxil_to_spirv::Translation {
    let text = listing(kind, arrayed, clamped);
    let module = dxil_text::parse_module(&text).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    let t = dxil_to_spirv::translate(&module, &dxil_to_spirv::Options::default())
        .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    validate(&t).unwrap_or_else(|e| panic!("{kind:?} (arrayed {arrayed}): spirv-val: {e}"));
    t
}

fn insts(m: &Module) -> impl Iterator<Item = &Instruction> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.label.iter().chain(b.instructions.iter()))
}

fn def(m: &Module, id: u32) -> &Instruction {
    insts(m)
        .chain(m.types_global_values.iter())
        .find(|i| i.result_id == Some(id))
        .unwrap_or_else(|| panic!("%{id} is not defined"))
}

fn id(i: &Instruction, k: usize) -> u32 {
    match &i.operands[k] {
        Operand::IdRef(r) | Operand::IdScope(r) | Operand::IdMemorySemantics(r) => *r,
        other => panic!("operand {k} of {:?} is {other:?}", i.class.opcode),
    }
}

fn count(m: &Module, op: Op) -> usize {
    insts(m).filter(|i| i.class.opcode == op).count()
}

fn glsl_count(m: &Module, op: GLOp) -> usize {
    insts(m)
        .filter(|i| {
            i.class.opcode == Op::ExtInst
                && i.operands.get(1) == Some(&Operand::LiteralExtInstInteger(op as u32))
        })
        .count()
}

/// The condition of the branch into the block holding `inst`.
fn guard_of(m: &Module, inst: &Instruction) -> u32 {
    let blocks: Vec<_> = m.functions.iter().flat_map(|f| f.blocks.iter()).collect();
    let at = blocks
        .iter()
        .find(|b| b.instructions.iter().any(|i| std::ptr::eq(i, inst)))
        .expect("the atomic's block");
    let label = at.label.as_ref().and_then(|l| l.result_id).unwrap();
    let branch = blocks
        .iter()
        .filter_map(|b| b.instructions.last())
        .find(|t| t.class.opcode == Op::BranchConditional && id(t, 1) == label)
        .expect("a conditional branch into the atomic's block");
    id(branch, 0)
}

/// The shape every feedback write has; `arrayed` for a `FeedbackTexture2DArray`.
fn check_writes(m: &Module, arrayed: bool) {
    let atomics: Vec<&Instruction> = insts(m)
        .filter(|i| i.class.opcode == Op::AtomicOr)
        .collect();
    assert_eq!(atomics.len(), 2, "one atomic per level");
    let mut conds = Vec::new();
    for a in &atomics {
        assert_eq!(type_name(m, a.result_type.unwrap()), "u64");
        // Device scope, relaxed.
        assert_eq!(def(m, id(a, 1)).operands[0], Operand::LiteralBit32(1));
        assert_eq!(def(m, id(a, 2)).operands[0], Operand::LiteralBit32(0));
        let ptr = def(m, id(a, 0));
        assert_eq!(ptr.class.opcode, Op::ImageTexelPointer);
        let var = def(m, id(ptr, 0));
        assert_eq!(var.class.opcode, Op::Variable);
        let ptr_ty = def(m, var.result_type.unwrap());
        let img = def(m, id(ptr_ty, 1));
        assert_eq!(img.class.opcode, Op::TypeImage);
        assert_eq!(type_name(m, id(img, 0)), "u64", "64-bit texels");
        assert_eq!(img.operands[1], Operand::Dim(Dim::Dim2D));
        assert_eq!(img.operands[3], Operand::LiteralBit32(u32::from(arrayed)));
        assert_eq!(img.operands[5], Operand::LiteralBit32(2), "a storage image");
        assert_eq!(img.operands[6], Operand::ImageFormat(ImageFormat::R64ui));
        let coord = def(m, id(ptr, 1));
        let want = if arrayed { "i32x3" } else { "i32x2" };
        assert_eq!(type_name(m, coord.result_type.unwrap()), want);
        if arrayed {
            // (texel, layer rounded to even).
            assert_eq!(coord.class.opcode, Op::CompositeConstruct);
            let layer = def(m, id(coord, 1));
            assert_eq!(layer.class.opcode, Op::ConvertFToS);
            let rounded = def(m, id(layer, 0));
            assert_eq!(
                rounded.operands[1],
                Operand::LiteralExtInstInteger(GLOp::RoundEven as u32)
            );
        }
        // The level's 4 bits: (flags as u64) << (level * 4).
        let value = def(m, id(a, 3));
        assert_eq!(value.class.opcode, Op::ShiftLeftLogical);
        assert_eq!(def(m, id(value, 0)).class.opcode, Op::UConvert);
        let shift = def(m, id(value, 1));
        assert_eq!(shift.class.opcode, Op::IMul);
        assert_eq!(def(m, id(shift, 1)).operands[0], Operand::LiteralBit32(4));
        conds.push(guard_of(m, a));
    }
    // The finer level: not a helper lane; the coarser: that and a second level read.
    let first = def(m, conds[0]);
    assert_eq!(first.class.opcode, Op::LogicalNot);
    assert_eq!(def(m, id(first, 0)).class.opcode, Op::IsHelperInvocationEXT);
    let second = def(m, conds[1]);
    assert_eq!(second.class.opcode, Op::LogicalAnd);
    assert_eq!(id(second, 0), conds[0]);
    assert_eq!(def(m, id(second, 1)).class.opcode, Op::INotEqual);
    // The region size comes from the low 4 bits of the feedback image's size.
    let masks = insts(m).filter(|i| {
        if i.class.opcode != Op::BitwiseAnd {
            return false;
        }
        let mut size = def(m, id(i, 0));
        if size.class.opcode == Op::VectorShuffle {
            // Width and height of an arrayed image's (width, height, layers).
            size = def(m, id(size, 0));
        }
        size.class.opcode == Op::ImageQuerySize
    });
    assert_eq!(masks.count(), 1);
}

#[test]
fn write_sampler_feedback_queries_the_level_and_the_derivatives() {
    for arrayed in [false, true] {
        let m = translate(Kind::Sample, arrayed);
        check_writes(&m, arrayed);
        assert_eq!(count(&m, Op::ImageQueryLod), 1);
        assert_eq!(count(&m, Op::DPdx), 1);
        assert_eq!(count(&m, Op::DPdy), 1);
        assert_eq!(count(&m, Op::GroupNonUniformQuadBroadcast), 0);
        // No clamp operand: no level raised to it.
        assert_eq!(glsl_count(&m, GLOp::FMin), 2, "one footprint cap per level");
    }
}

#[test]
fn the_clamp_operand_raises_the_level() {
    for kind in [Kind::Sample, Kind::Bias, Kind::Grad] {
        let m = translate_clamped(kind, false, true);
        check_writes(&m, false);
        // max(level, clamp), then min(.., 14), besides the two footprint caps of implicit levels.
        let caps = if kind == Kind::Grad { 0 } else { 2 };
        assert_eq!(glsl_count(&m, GLOp::FMin), caps + 1, "{kind:?}");
        let top = insts(&m)
            .filter(|i| {
                i.operands.get(1) == Some(&Operand::LiteralExtInstInteger(GLOp::FMin as u32))
            })
            .filter_map(|i| {
                m.types_global_values
                    .iter()
                    .find(|c| c.result_id == Some(id(i, 3)))
            })
            .any(|c| c.operands[0] == Operand::LiteralBit32(14f32.to_bits()));
        assert!(top, "{kind:?}: the raised level is capped at 14");
    }
}

#[test]
fn write_sampler_feedback_bias_scales_by_the_quads_first_bias() {
    let m = translate(Kind::Bias, false);
    check_writes(&m, false);
    assert_eq!(glsl_count(&m, GLOp::Exp2), 1);
    assert_eq!(count(&m, Op::GroupNonUniformQuadBroadcast), 1);
    let lod = insts(&m)
        .find(|i| i.class.opcode == Op::ImageQueryLod)
        .unwrap();
    assert_eq!(def(&m, id(lod, 1)).class.opcode, Op::VectorTimesScalar);
}

#[test]
fn write_sampler_feedback_level_clamps_the_given_level() {
    for arrayed in [false, true] {
        let m = translate(Kind::Level, arrayed);
        check_writes(&m, arrayed);
        assert_eq!(count(&m, Op::ImageQueryLod), 0);
        assert_eq!(count(&m, Op::DPdx), 0);
        assert_eq!(glsl_count(&m, GLOp::NClamp), 1);
        assert_eq!(count(&m, Op::ImageQueryLevels), 1);
    }
}

#[test]
fn write_sampler_feedback_grad_takes_the_level_from_the_gradients() {
    let m = translate(Kind::Grad, false);
    check_writes(&m, false);
    assert_eq!(count(&m, Op::ImageQueryLod), 0);
    assert_eq!(count(&m, Op::Dot), 2);
    assert_eq!(glsl_count(&m, GLOp::Log2), 1);
    assert_eq!(glsl_count(&m, GLOp::NClamp), 1);
}

#[test]
fn the_feedback_uav_binds_as_an_r64ui_storage_image_of_its_kind() {
    use dxil_to_spirv::{BoundResource, DescriptorType, ResourceClass, ResourceKind};
    for (arrayed, kind) in [
        (false, ResourceKind::FeedbackTexture2D),
        (true, ResourceKind::FeedbackTexture2DArray),
    ] {
        let t = translation(Kind::Level, arrayed, false);
        let uavs: Vec<_> = t
            .bindings
            .iter()
            .filter(
                |b| matches!(b.resource, BoundResource::Range(r) if r.class == ResourceClass::Uav),
            )
            .collect();
        assert_eq!(uavs.len(), 1);
        let b = uavs[0];
        let BoundResource::Range(r) = b.resource else {
            unreachable!()
        };
        // The binding model (and through it the C API's remap callback) sees the feedback kind at u0.
        assert_eq!((r.kind, r.space, r.register, r.count), (kind, 0, 0, 1));
        assert_eq!(b.descriptor_type, DescriptorType::StorageImage);
        assert_eq!(b.format, Some(ImageFormat::R64ui));
        assert!(b.writable);
    }
}

/// The listing of `kind` as a compute shader of one thread: constant coordinates, no quads.
fn compute_listing(kind: Kind) -> String {
    let mut text = listing(kind, false, false);
    for (k, v) in [
        "2.500000e-01",
        "7.500000e-01",
        "0.000000e+00",
        "1.000000e+00",
    ]
    .iter()
    .enumerate()
    {
        let load =
            format!("call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {k}, i32 undef)");
        text = text.replace(&load, &format!("fadd float {v}, 0.000000e+00"));
    }
    text.replace(r#"!{!"ps", i32 6, i32 5}"#, r#"!{!"cs", i32 6, i32 5}"#)
        .replace(
            r#"!{void ()* @main, !"main", !13, !3, null}"#,
            r#"!{void ()* @main, !"main", null, !3, !17}
!17 = !{i32 4, !18}
!18 = !{i32 1, i32 1, i32 1}"#,
        )
}

#[test]
fn outside_pixel_shaders_every_lane_writes() {
    for kind in [Kind::Level, Kind::Grad] {
        let module = dxil_text::parse_module(&compute_listing(kind))
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let t = dxil_to_spirv::translate(&module, &dxil_to_spirv::Options::default())
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        validate(&t).unwrap_or_else(|e| panic!("{kind:?}: spirv-val: {e}"));
        let m = parse(&t.words);
        assert_eq!(count(&m, Op::AtomicOr), 2, "{kind:?}");
        assert_eq!(count(&m, Op::IsHelperInvocationEXT), 0, "{kind:?}");
    }
    // Implicit levels are pixel-shader operations (DXIL's operation table: ps and lib).
    for kind in [Kind::Sample, Kind::Bias] {
        let module = dxil_text::parse_module(&compute_listing(kind))
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let e = dxil_to_spirv::translate(&module, &dxil_to_spirv::Options::default())
            .expect_err("an implicit level in a compute shader");
        assert!(
            matches!(
                e,
                dxil_to_spirv::Error::Invalid {
                    what: dxil_to_spirv::Invalid::OpStage { .. },
                    ..
                }
            ),
            "{kind:?}: {e}"
        );
    }
}
