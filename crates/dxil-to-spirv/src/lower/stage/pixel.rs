//! Pixel shaders (`Fragment`): their system values, input interpolation, pull-model evaluation, coverage, helper
//! lanes, `discard` as demotion, and `OriginUpperLeft`, depth and stencil modes.

use dxil_module::{InstKind, TypeData, TypeId};
use dxil_shader::ops::OpCode;
use dxil_shader::{InterpolationMode, SemanticKind, SignatureElement};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, GLOp, Op, StorageClass};

use super::{Class, Map};
use crate::error::{Error, Invalid, Unsupported};
use crate::lower::{Args, Ctx, Val};
use crate::spv::{Id, TypeKey, try_ids, words};

/// Pixel shader system values (see `super::system_value`); `None`: one every stage shares.
pub(super) fn system_value(
    output: bool,
    kind: SemanticKind,
) -> Option<Result<Option<BuiltIn>, &'static str>> {
    use SemanticKind as K;
    Some(Ok(Some(match (output, kind) {
        // SV_Target is a location (its semantic index).
        (true, K::Target) => return Some(Ok(None)),
        (false, K::Position) => BuiltIn::FragCoord,
        (false, K::RenderTargetArrayIndex) => BuiltIn::Layer,
        (false, K::ViewPortArrayIndex) => BuiltIn::ViewportIndex,
        (false, K::PrimitiveID) => BuiltIn::PrimitiveId,
        (false, K::IsFrontFace) => BuiltIn::FrontFacing,
        (false, K::SampleIndex) => BuiltIn::SampleId,
        (_, K::Coverage) => BuiltIn::SampleMask,
        (true, K::Depth | K::DepthLessEqual | K::DepthGreaterEqual) => BuiltIn::FragDepth,
        (true, K::StencilRef) => BuiltIn::FragStencilRefEXT,
        (false, K::InnerCoverage) => BuiltIn::FullyCoveredEXT,
        // The perspective-correct built-in; `builtin_element` picks the other for `noperspective`.
        (false, K::Barycentrics) => BuiltIn::BaryCoordKHR,
        // D3D12_SHADING_RATE is (log2 width << 2) | log2 height, which is Vulkan's encoding too.
        (false, K::ShadingRate) => BuiltIn::ShadingRateKHR,
        _ => return None,
    })))
}

/// The interpolation decorations of a pixel shader input.
pub(crate) fn interpolation(mode: InterpolationMode) -> &'static [Decoration] {
    use InterpolationMode as I;
    match mode {
        I::Constant => &[Decoration::Flat],
        I::LinearCentroid => &[Decoration::Centroid],
        I::LinearNoperspective => &[Decoration::NoPerspective],
        I::LinearNoperspectiveCentroid => &[Decoration::NoPerspective, Decoration::Centroid],
        I::LinearSample => &[Decoration::Sample],
        I::LinearNoperspectiveSample => &[Decoration::NoPerspective, Decoration::Sample],
        _ => &[],
    }
}

/// Integer built-in inputs that Vulkan wants `Flat` in a fragment shader.
pub(super) fn flat_builtin_input(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::PrimitiveId
            | BuiltIn::SampleId
            | BuiltIn::Layer
            | BuiltIn::ViewportIndex
            | BuiltIn::ViewIndex
            | BuiltIn::ShadingRateKHR
    )
}

/// The depth execution mode a depth output asks for.
pub(super) fn depth_mode(kind: SemanticKind) -> ExecutionMode {
    match kind {
        SemanticKind::DepthLessEqual => ExecutionMode::DepthLess,
        SemanticKind::DepthGreaterEqual => ExecutionMode::DepthGreater,
        _ => ExecutionMode::DepthReplacing,
    }
}

impl<'a> Ctx<'a> {
    /// The interpolation decorations of a user output of a stage that may feed the rasterizer (vertex, domain,
    /// geometry), as its signature declares them: the pixel shader's inputs carry the same, and a driver packing
    /// varyings may otherwise see one location with a flat and an interpolated component (lavapipe crashes on
    /// `nointerpolation uint a : A; nointerpolation float b : B;` sharing a row when only the inputs are flat).
    pub(super) fn rasterized_output_decorations(&mut self, var: Id, e: &SignatureElement) {
        for &d in interpolation(e.interpolation_mode) {
            if d == Decoration::Sample {
                self.b.capability(Capability::SampleRateShading);
            }
            self.b.decorate(var, d, &[]);
        }
    }

    /// Inputs that `AttributeAtVertex` reads, before the interface is declared. The instructions are only
    /// walked when the module declares the operation's function.
    pub(super) fn pixel_prepare(&mut self) -> Result<(), Error> {
        let m = self.m;
        let class = OpCode::AttributeAtVertex.info().class;
        let ops = self.entry.dxil.dx_ops();
        let declared = (0..m.functions.len()).any(|i| {
            ops.function(dxil_module::FuncId(i as u32))
                .is_some_and(|f| f.class() == Some(class))
        });
        if !declared {
            return Ok(());
        }
        let Some(body) = m
            .function(self.entry.function)
            .and_then(|f| f.body.as_ref())
        else {
            return Ok(());
        };
        let mut found = std::mem::take(&mut self.io.per_vertex_inputs);
        for (i, d) in body.insts.iter().enumerate() {
            let InstKind::Call { callee, args, .. } = &d.kind else {
                continue;
            };
            let a = Args(args.get(&body.pool));
            self.at_inst = i as u32;
            if self.dx_opcode(*callee, a)? == Some(OpCode::AttributeAtVertex) {
                let id = self.arg_const(a, 1)? as u32;
                if !found.contains(&id) {
                    found.push(id);
                }
            }
        }
        self.at_inst = 0;
        self.io.per_vertex_inputs = found;
        Ok(())
    }

    /// The interpolation decorations of a user input. A per-primitive input (written per primitive by a mesh
    /// shader) is not interpolated and only keeps `Flat`; one read per vertex is `PerVertexKHR` (its vertices'
    /// values are not interpolated either).
    pub(super) fn pixel_input_decorations(
        &mut self,
        var: Id,
        e: &SignatureElement,
        class: Class,
        per_primitive: bool,
        per_vertex: bool,
    ) {
        if per_primitive {
            self.per_primitive_input(var);
        }
        if per_vertex {
            self.b.decorate(var, Decoration::PerVertexKHR, &[]);
            self.b.capability(Capability::FragmentBarycentricKHR);
            self.b.extension("SPV_KHR_fragment_shader_barycentric");
            return;
        }
        let decos: &[Decoration] = if class == Class::Float && !per_primitive {
            interpolation(e.interpolation_mode)
        } else if class == Class::Float && e.interpolation_mode != InterpolationMode::Constant {
            &[]
        } else {
            // Vulkan requires integer fragment inputs to be flat (D3D requires `nointerpolation` on them too).
            &[Decoration::Flat]
        };
        for &d in decos {
            if d == Decoration::Sample {
                self.b.capability(Capability::SampleRateShading);
            }
            self.b.decorate(var, d, &[]);
        }
    }

    /// Pixel shader operations: `Some` when `op` is one.
    pub(super) fn pixel_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        Some(match op {
            OpCode::EvalSnapped | OpCode::EvalSampleIndex | OpCode::EvalCentroid => {
                self.eval_input(op, ty, a)
            }
            OpCode::SampleIndex => self.load_stage_builtin(BuiltIn::SampleId, ty),
            OpCode::RenderTargetGetSampleCount => Ok(Val::Id(self.rasterizer_samples())),
            OpCode::RenderTargetGetSamplePosition => self.arg_id(a, 1).map(|index| {
                let table = self.sample_position_table();
                let count = self.rasterizer_samples();
                self.standard_sample_position(table, count, index)
            }),
            OpCode::Coverage => self.coverage_in(),
            OpCode::InnerCoverage => self.stage_builtin(BuiltIn::FullyCoveredEXT).and_then(|v| {
                let bt = self.b.bool();
                let x = self.load(bt, v);
                self.read_converted(x, Class::Bool, ty).map(|x| {
                    // InnerCoverage is 1 when covered, not all ones.
                    let u = self.b.u32();
                    let one = self.b.const_u32(1);
                    Val::Id(self.op2(Op::BitwiseAnd, u, x, one))
                })
            }),
            OpCode::AttributeAtVertex => self.attribute_at_vertex(ty, a),
            OpCode::IsHelperLane => {
                // After a demote the invocation is a helper: only the instruction sees it (the built-in is fixed
                // at the start).
                self.demote_caps();
                let bt = self.b.bool();
                let id = self.b.id();
                self.emit(Op::IsHelperInvocationEXT, &words![bt, id]);
                Ok(Val::Id(id))
            }
            _ => return None,
        })
    }

    /// The rasterizer's sample count ([`crate::SampleCount`]).
    fn rasterizer_samples(&mut self) -> Id {
        match self.opts.requests.rasterizer_sample_count() {
            crate::SampleCount::SpecConstant(id) => self.b.spec_u32(id, 1),
            crate::SampleCount::Fixed(n) => self.b.const_u32(n),
        }
    }

    /// `EvalSnapped`, `EvalSampleIndex`, `EvalCentroid`: the input interpolated elsewhere.
    fn eval_input(&mut self, op: OpCode, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(false, id)?;
        if s.class != Class::Float || s.map != Map::Direct || s.per_vertex {
            return Err(self.unsupported(Unsupported::signature(
                "pull-model evaluation of a non-float or system-value input",
            )));
        }
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        let (p, scalar) = self.slot_ptr(&s, s.var, None, row, row_const, col)?;
        self.b.capability(Capability::InterpolationFunction);
        let x = match op {
            OpCode::EvalCentroid => self.glsl(scalar, GLOp::InterpolateAtCentroid, &[p]),
            OpCode::EvalSampleIndex => {
                let i = self.arg_id(a, 4)?;
                self.glsl(scalar, GLOp::InterpolateAtSample, &[p, i])
            }
            _ => {
                // Offsets in 1/16 pixel: signed 4-bit values (D3D's snapped grid).
                let f = self.b.f32();
                let v2 = self.b.vec(f, 2);
                let parts = try_ids::<2, Error>(|k| {
                    let o = self.arg_id(a, 4 + k)?;
                    let u = self.b.u32();
                    let z = self.b.const_u32(0);
                    let four = self.b.const_u32(4);
                    let e = self.op3(Op::BitFieldSExtract, u, o, z, four);
                    let sf = self.b.ty(TypeKey::SInt(32));
                    let e = self.op1(Op::Bitcast, sf, e);
                    let fl = self.op1(Op::ConvertSToF, f, e);
                    let sixteenth = self.b.const_f32(1.0 / 16.0);
                    Ok(self.op2(Op::FMul, f, fl, sixteenth))
                })?;
                let off = self.op2(Op::CompositeConstruct, v2, parts[0], parts[1]);
                self.glsl(scalar, GLOp::InterpolateAtOffset, &[p, off])
            }
        };
        self.read_converted(x, Class::Float, ty).map(Val::Id)
    }

    /// `AttributeAtVertex(inputSigId, row, col, vertexID)`: the value of one of the triangle's vertices.
    fn attribute_at_vertex(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(false, id)?;
        if !s.per_vertex {
            return Err(self.invalid(Invalid::ty(format!(
                "AttributeAtVertex on input {id}, which is not read per vertex"
            ))));
        }
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        // The vertex is an i8 (0, 1 or 2).
        let vertex = match self.const_int(self.arg(a, 4)?) {
            Some(v) => self.b.const_u32((v as u32).min(2)),
            None => {
                let v = self.arg_id(a, 4)?;
                let vt = self.arg_ty(a, 4)?;
                let u = self.b.u32();
                let v = match self.m.types.data(vt) {
                    TypeData::Int(32) => v,
                    _ => self.op1(Op::UConvert, u, v),
                };
                let two = self.b.const_u32(2);
                self.glsl(u, GLOp::UMin, &[v, two])
            }
        };
        let x = match (s.map, row_const) {
            (Map::Rows(_), None) => self.load_split_row(&s, Some(vertex), row, col)?,
            _ => {
                let (p, scalar) = self.slot_ptr(&s, s.var, Some(vertex), row, row_const, col)?;
                self.load(scalar, p)
            }
        };
        self.read_converted(x, s.class, ty).map(Val::Id)
    }

    /// `Coverage()`: the input sample mask.
    fn coverage_in(&mut self) -> Result<Val, Error> {
        let var = match self
            .io
            .builtins
            .iter()
            .find(|(b, _)| *b == BuiltIn::SampleMask)
        {
            Some(&(_, v)) => v,
            None => {
                let u = self.b.u32();
                let t = self.b.ty(TypeKey::Array(u, 1));
                let v = self.io_var(StorageClass::Input, t, Some(BuiltIn::SampleMask));
                self.b.decorate(v, Decoration::Flat, &[]);
                self.io.builtins.push((BuiltIn::SampleMask, v));
                v
            }
        };
        let u = self.b.u32();
        let pty = self.b.ptr(StorageClass::Input, u);
        let z = self.b.const_u32(0);
        let p = self.chain(pty, var, &[z]);
        Ok(Val::Id(self.load(u, p)))
    }

    /// The demote capability: core from SPIR-V 1.6, an extension before.
    pub(in crate::lower) fn demote_caps(&mut self) {
        self.b.capability(Capability::DemoteToHelperInvocation);
        if self.b.version < 0x0001_0600 {
            self.b.extension("SPV_EXT_demote_to_helper_invocation");
        }
    }

    /// `discard`: D3D's discarded pixel goes on as a helper (its quad's derivatives stay defined), which is
    /// `OpDemoteToHelperInvocation`, not `OpKill`.
    pub(in crate::lower) fn demote_invocation(&mut self) {
        self.demote_caps();
        self.emit(Op::DemoteToHelperInvocation, &words![]);
    }

    /// `OriginUpperLeft`, the depth and stencil modes the outputs ask for, and early tests when the shader flags
    /// force them.
    pub(super) fn pixel_modes(&mut self, main: Id) {
        self.exec_mode(main, ExecutionMode::OriginUpperLeft, &[]);
        if let Some(m) = self.io.depth_mode {
            self.exec_mode(main, ExecutionMode::DepthReplacing, &[]);
            if m != ExecutionMode::DepthReplacing {
                self.exec_mode(main, m, &[]);
            }
        }
        if self.io.stencil_export {
            self.exec_mode(main, ExecutionMode::StencilRefReplacingEXT, &[]);
        }
        if self.entry.flags & dxil_shader::ShaderFlags::FORCE_EARLY_DEPTH_STENCIL.bits() != 0 {
            self.exec_mode(main, ExecutionMode::EarlyFragmentTests, &[]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_modes_become_decorations() {
        use InterpolationMode as I;
        assert_eq!(interpolation(I::Linear), &[] as &[Decoration]);
        assert_eq!(interpolation(I::Undefined), &[] as &[Decoration]);
        assert_eq!(interpolation(I::Constant), &[Decoration::Flat]);
        assert_eq!(interpolation(I::LinearCentroid), &[Decoration::Centroid]);
        assert_eq!(
            interpolation(I::LinearNoperspective),
            &[Decoration::NoPerspective]
        );
        assert_eq!(
            interpolation(I::LinearNoperspectiveCentroid),
            &[Decoration::NoPerspective, Decoration::Centroid]
        );
        assert_eq!(interpolation(I::LinearSample), &[Decoration::Sample]);
        assert_eq!(
            interpolation(I::LinearNoperspectiveSample),
            &[Decoration::NoPerspective, Decoration::Sample]
        );
    }
}
