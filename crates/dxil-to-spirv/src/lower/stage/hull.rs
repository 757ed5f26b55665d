//! Hull shaders (`TessellationControl`): the control-point phase and the patch constant function in one
//! invocation set, tessellation factors with D3D's partitioning and `[maxtessfactor]`, and the tessellator modes.
//!
//! Vulkan runs one invocation per output control point; D3D runs the control-point function once per output
//! control point and the patch constant function once per patch, after every control point is written (it reads
//! them with `LoadOutputControlPoint`). The entry point calls the control-point function, waits at a barrier, and
//! invocation 0 then calls the patch constant function (what DXC's own SPIR-V does).
//!
//! The domain is `Triangles` / `Quads` / `Isolines`; partitioning `integer` and `pow2` are `SpacingEqual`,
//! `fractional_odd` / `fractional_even` the fractional spacings; `triangle_cw` / `triangle_ccw` are `VertexOrderCw`
//! / `VertexOrderCcw` (D3D's domain has its origin at the top left, as Vulkan's default does: `u = 0` is the left
//! edge, `v = 0` the top), `point` is `PointMode`. Written tessellation factors follow D3D where Vulkan differs:
//! `pow2` rounds each factor up to a power of two (Vulkan has no such spacing), and factors above a
//! `[maxtessfactor]` under 64 are clamped to it. Factors that cull the patch (zero, negative, NaN) are kept.
//! The line density of isolines (the number of lines) is integer-partitioned in D3D whatever the partitioning,
//! as Vulkan's first outer level is.

use dxil_module::TypeId;
use dxil_shader::ops::OpCode;
use dxil_shader::{
    TessellatorDomain as Domain, TessellatorOutputPrimitive, TessellatorPartitioning,
};
use spirv::{BuiltIn, ExecutionMode, Op, Scope, SelectionControl};

use crate::dxil::Stage;
use crate::error::{Error, MetadataError};
use crate::lower::{Args, Ctx, Val};
use crate::spv::{self, Id, TypeKey, words};

/// The tessellator domain's execution mode.
pub(super) fn domain_mode(d: Domain) -> Option<ExecutionMode> {
    Some(match d {
        Domain::IsoLine => ExecutionMode::Isolines,
        Domain::Tri => ExecutionMode::Triangles,
        Domain::Quad => ExecutionMode::Quads,
        _ => return None,
    })
}

/// The spacing of a partitioning (`pow2` is rounded in the shader, then equal).
fn spacing(p: TessellatorPartitioning) -> Option<ExecutionMode> {
    Some(match p {
        TessellatorPartitioning::Integer | TessellatorPartitioning::Pow2 => {
            ExecutionMode::SpacingEqual
        }
        TessellatorPartitioning::FractionalOdd => ExecutionMode::SpacingFractionalOdd,
        TessellatorPartitioning::FractionalEven => ExecutionMode::SpacingFractionalEven,
        _ => return None,
    })
}

/// The mode of an output primitive: `Ok(None)` for lines (isolines need none).
fn output_mode(p: TessellatorOutputPrimitive) -> Result<Option<ExecutionMode>, ()> {
    Ok(Some(match p {
        TessellatorOutputPrimitive::TriangleCW => ExecutionMode::VertexOrderCw,
        TessellatorOutputPrimitive::TriangleCCW => ExecutionMode::VertexOrderCcw,
        TessellatorOutputPrimitive::Point => ExecutionMode::PointMode,
        TessellatorOutputPrimitive::Line => return Ok(None),
        _ => return Err(()),
    }))
}

/// D3D's largest tessellation factor: a `[maxtessfactor]` at or above it clamps nothing.
const MAX_TESS_FACTOR: f32 = 64.0;

impl<'a> Ctx<'a> {
    /// Lowers the control-point function and the patch constant function, and the entry point `main` that runs
    /// them.
    pub(in crate::lower) fn lower_hull(&mut self, main: Id) -> Result<(), Error> {
        let hs = self.hs_state()?;
        let patch_fn = hs
            .patch_constant_function
            .ok_or_else(|| MetadataError::entry("hull shader without a patch constant function"))?;
        let control_point = self.b.id();
        self.lower_function(self.entry.function, control_point)?;
        // The lowering reads the function it lowers from `entry.function`.
        let patch = self.b.id();
        let entry_fn = std::mem::replace(&mut self.entry.function, patch_fn);
        let r = self.lower_function(patch_fn, patch);
        self.entry.function = entry_fn;
        r?;

        let invocation = self.stage_builtin(BuiltIn::InvocationId)?;
        let void = self.b.void();
        let fnty = self.b.ty(TypeKey::VoidFn);
        let u = self.b.u32();
        let bt = self.b.bool();
        let zero = self.b.const_u32(0);
        let workgroup = self.b.const_u32(Scope::Workgroup as u32);
        let own = self.b.const_u32(Scope::Invocation as u32);
        let (start, then, end) = (self.b.id(), self.b.id(), self.b.id());
        let (call0, call1, id, first) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        let out = &mut self.b.functions;
        spv::emit(
            out,
            Op::Function,
            &words![void, main, spirv::FunctionControl::NONE.bits(), fnty],
        );
        spv::emit(out, Op::Label, &words![start]);
        spv::emit(out, Op::FunctionCall, &words![void, call0, control_point]);
        // What glslang emits for `barrier()` in a tessellation control shader: the outputs written before it are
        // visible to every invocation after it.
        spv::emit(out, Op::ControlBarrier, &words![workgroup, own, zero]);
        spv::emit(out, Op::Load, &words![u, id, invocation]);
        spv::emit(out, Op::IEqual, &words![bt, first, id, zero]);
        spv::emit(
            out,
            Op::SelectionMerge,
            &words![end, SelectionControl::NONE.bits()],
        );
        spv::emit(out, Op::BranchConditional, &words![first, then, end]);
        spv::emit(out, Op::Label, &words![then]);
        spv::emit(out, Op::FunctionCall, &words![void, call1, patch]);
        spv::emit(out, Op::Branch, &words![end]);
        spv::emit(out, Op::Label, &words![end]);
        spv::emit(out, Op::Return, &words![]);
        spv::emit(out, Op::FunctionEnd, &words![]);
        Ok(())
    }

    /// Hull shader operations: `Some` when `op` is one.
    pub(super) fn hull_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        Some(match op {
            OpCode::OutputControlPointID => self.load_stage_builtin(BuiltIn::InvocationId, ty),
            OpCode::PrimitiveID => self.load_stage_builtin(BuiltIn::PrimitiveId, ty),
            OpCode::StorePatchConstant => self.store_patch_constant(a),
            OpCode::LoadOutputControlPoint => self.load_output_control_point(ty, a),
            OpCode::LoadPatchConstant => self.load_patch_constant(ty, a),
            _ => return None,
        })
    }

    /// The output control point this invocation writes (`InvocationId`).
    pub(super) fn output_control_point_id(&mut self) -> Result<Id, Error> {
        let v = self.stage_builtin(BuiltIn::InvocationId)?;
        let u = self.b.u32();
        Ok(self.load(u, v))
    }

    /// `storePatchConstant(outputSigID, row, col, value)`.
    fn store_patch_constant(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.patch_slot(id)?;
        self.store_slot(&s, None, a)
    }

    /// `loadOutputControlPoint(outputSigId, row, col, index)`: an output control point, read by the patch constant
    /// function.
    fn load_output_control_point(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(true, id)?;
        self.load_slot(&s, ty, a)
    }

    /// A tessellation factor `x` about to be written to `TessLevelOuter` / `TessLevelInner` (`outer`) at index
    /// `offset + row`: rounded for `pow2`, clamped to `[maxtessfactor]`.
    pub(super) fn tess_factor_written(
        &mut self,
        x: Id,
        offset: u32,
        outer: bool,
        row: Id,
        row_const: Option<i64>,
    ) -> Result<Id, Error> {
        if self.entry.stage != Stage::Hull {
            return Ok(x);
        }
        let hs = self.hs_state()?;
        let pow2 = hs.partitioning == TessellatorPartitioning::Pow2;
        let max = hs.max_tess_factor;
        let clamp = max.is_finite() && (1.0..MAX_TESS_FACTOR).contains(&max);
        if !pow2 && !clamp {
            return Ok(x);
        }
        let density = outer && hs.domain == Domain::IsoLine;
        if density && row_const.is_some_and(|r| i64::from(offset) + r == 0) {
            return Ok(x);
        }
        let f = self.b.f32();
        let bt = self.b.bool();
        let mut y = x;
        if clamp {
            // Compared so that NaN stays NaN (it culls the patch).
            let m = self.b.const_f32(max);
            let above = self.op2(Op::FOrdGreaterThan, bt, y, m);
            y = self.select(f, above, m, y);
        }
        if pow2 {
            y = self.round_up_pow2(y);
        }
        if density && row_const.is_none() {
            // A dynamic row: the line density (index 0) keeps its value.
            let u = self.b.u32();
            let o = self.b.const_u32(offset);
            let index = self.op2(Op::IAdd, u, row, o);
            let zero = self.b.const_u32(0);
            let is_density = self.op2(Op::IEqual, bt, index, zero);
            y = self.select(f, is_density, x, y);
        }
        Ok(y)
    }

    /// The power of two at or above `x` (at least 1), from the float's bits (exact, unlike `exp2(ceil(log2))`);
    /// `x ≤ 0` and NaN stay (they cull the patch).
    fn round_up_pow2(&mut self, x: Id) -> Id {
        let f = self.b.f32();
        let u = self.b.u32();
        let bt = self.b.bool();
        let one = self.b.const_f32(1.0);
        let below = self.op2(Op::FOrdLessThan, bt, x, one);
        let y = self.select(f, below, one, x);
        let bits = self.op1(Op::Bitcast, u, y);
        let mantissa_mask = self.b.const_u32(0x007F_FFFF);
        let exponent_mask = self.b.const_u32(0x7F80_0000);
        let mantissa = self.op2(Op::BitwiseAnd, u, bits, mantissa_mask);
        let exponent = self.op2(Op::BitwiseAnd, u, bits, exponent_mask);
        let zero = self.b.const_u32(0);
        let fraction = self.op2(Op::INotEqual, bt, mantissa, zero);
        let step = self.b.const_u32(0x0080_0000);
        let inc = self.select(u, fraction, step, zero);
        let up = self.op2(Op::IAdd, u, exponent, inc);
        let r = self.op1(Op::Bitcast, f, up);
        let fz = self.b.const_f32(0.0);
        let positive = self.op2(Op::FOrdGreaterThan, bt, x, fz);
        self.select(f, positive, r, x)
    }

    /// Domain, spacing, vertex order or point mode, and `OutputVertices`.
    pub(super) fn hull_modes(&mut self, main: Id) -> Result<(), Error> {
        let hs = self.hs_state()?;
        let domain = domain_mode(hs.domain)
            .ok_or_else(|| MetadataError::entry(format!("hull shader domain {:?}", hs.domain)))?;
        let spacing = spacing(hs.partitioning).ok_or_else(|| {
            MetadataError::entry(format!("hull shader partitioning {:?}", hs.partitioning))
        })?;
        let order = output_mode(hs.output_primitive).map_err(|()| {
            MetadataError::entry(format!(
                "hull shader output primitive {:?}",
                hs.output_primitive
            ))
        })?;
        self.exec_mode(main, domain, &[]);
        self.exec_mode(main, spacing, &[]);
        if let Some(m) = order {
            self.exec_mode(main, m, &[]);
        }
        let n = self.io.output_vertices;
        self.exec_mode(main, ExecutionMode::OutputVertices, &[n]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d3d_tessellator_state_maps_to_vulkan_modes() {
        assert_eq!(domain_mode(Domain::Tri), Some(ExecutionMode::Triangles));
        assert_eq!(domain_mode(Domain::Quad), Some(ExecutionMode::Quads));
        assert_eq!(domain_mode(Domain::IsoLine), Some(ExecutionMode::Isolines));
        assert_eq!(domain_mode(Domain::Undefined), None);
        assert_eq!(
            spacing(TessellatorPartitioning::Pow2),
            Some(ExecutionMode::SpacingEqual)
        );
        assert_eq!(
            spacing(TessellatorPartitioning::FractionalOdd),
            Some(ExecutionMode::SpacingFractionalOdd)
        );
        assert_eq!(
            spacing(TessellatorPartitioning::FractionalEven),
            Some(ExecutionMode::SpacingFractionalEven)
        );
        assert_eq!(spacing(TessellatorPartitioning::Undefined), None);
        assert_eq!(
            output_mode(TessellatorOutputPrimitive::TriangleCW),
            Ok(Some(ExecutionMode::VertexOrderCw))
        );
        assert_eq!(
            output_mode(TessellatorOutputPrimitive::TriangleCCW),
            Ok(Some(ExecutionMode::VertexOrderCcw))
        );
        assert_eq!(
            output_mode(TessellatorOutputPrimitive::Point),
            Ok(Some(ExecutionMode::PointMode))
        );
        assert_eq!(output_mode(TessellatorOutputPrimitive::Line), Ok(None));
        assert_eq!(output_mode(TessellatorOutputPrimitive::Undefined), Err(()));
    }
}
