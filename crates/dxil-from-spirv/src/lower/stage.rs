//! Stage properties (geometry and tessellation state), geometry-shader vertex emission,
//! pixel-shader interlock and attribute evaluation, and the signature metadata.

use dxil_module::{BinOp, CastOp, MdId, Value};
use dxil_shader::ops::OpCode;
use dxil_shader::{InputPrimitive, PrimitiveTopology, SemanticKind, TessellatorDomain};
use spirv::{ExecutionMode as Mode, ExecutionModel as EM, Op};

use super::Tr;
use super::io::Leaf;
use super::memory::Base;
use super::sig::{SigKind, Signature};
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};
use crate::metadata::Md;
use crate::spv::Inst;

/// The signature part of an entry point's metadata.
pub struct SigMeta {
    pub inputs: Signature,
    pub outputs: Signature,
    pub patch: Signature,
}

impl SigMeta {
    pub fn build(&self, md: &mut Md<'_>) -> Result<Option<MdId>> {
        let i = self.inputs.metadata(md);
        let o = self.outputs.metadata(md);
        let p = self.patch.metadata(md);
        if i.is_none() && o.is_none() && p.is_none() {
            return Ok(None);
        }
        Ok(Some(md.node(&[i, o, p])))
    }
}

/// Stage-specific entry properties.
#[derive(Default)]
pub struct StageProps {
    /// Geometry shader: input primitive, max vertices, stream mask, output topology,
    /// instances.
    gs: Option<[u32; 5]>,
    /// Domain shader: domain, input control points.
    ds: Option<[u32; 2]>,
    /// Hull shader: the patch-constant function and the state.
    hs: Option<(dxil_module::FuncId, super::hull::HullState)>,
    /// Mesh or task shader state.
    mesh: Option<super::mesh::MeshState>,
}

impl StageProps {
    pub fn build(&self, md: &mut Md<'_>) -> Result<Vec<(u32, MdId)>> {
        let mut out = Vec::new();
        if let Some(g) = self.gs {
            let ops: Vec<Option<MdId>> = g.iter().map(|&v| Some(md.i32(i64::from(v)))).collect();
            out.push((dxil_shader::entry::tag::GS_STATE, md.node(&ops)));
        }
        if let Some(d) = self.ds {
            let ops: Vec<Option<MdId>> = d.iter().map(|&v| Some(md.i32(i64::from(v)))).collect();
            out.push((dxil_shader::entry::tag::DS_STATE, md.node(&ops)));
        }
        if let Some((f, h)) = self.hs {
            let fn_ptr =
                md.b.m
                    .functions
                    .get(f.index())
                    .ok_or_else(|| crate::error::internal("no patch-constant function"))?
                    .ptr_ty;
            let mut ops = vec![Some(md.value(fn_ptr, Value::function(f)))];
            for v in [
                h.input_control_points,
                h.output_control_points,
                h.domain.raw(),
                h.partitioning.raw(),
                h.primitive.raw(),
            ] {
                ops.push(Some(md.i32(i64::from(v))));
            }
            let max = md.b.const_float_bits(
                Scalar::F32,
                u64::from(super::hull::MAX_TESS_FACTOR.to_bits()),
            );
            let f32t = md.b.t.f32;
            ops.push(Some(md.value(f32t, max)));
            out.push((dxil_shader::entry::tag::HS_STATE, md.node(&ops)));
        }
        if let Some(m) = &self.mesh {
            out.push(m.build(md));
        }
        Ok(out)
    }
}

impl Tr<'_> {
    pub(super) fn mode_operand(&self, mode: Mode) -> Option<u32> {
        self.spv
            .exec_modes
            .iter()
            .find(|e| e.function == self.entry.function && e.mode == mode)
            .map(|e| e.operands.first().copied().unwrap_or(0))
    }

    pub(super) fn has_mode(&self, mode: Mode) -> bool {
        self.mode_operand(mode).is_some()
    }

    /// The tessellation domain (declared on either tessellation stage's entry point).
    pub fn tess_domain(&self) -> TessellatorDomain {
        let any = |m: Mode| self.spv.exec_modes.iter().any(|e| e.mode == m);
        if any(Mode::Triangles) && self.model != EM::Geometry {
            TessellatorDomain::Tri
        } else if any(Mode::Quads) {
            TessellatorDomain::Quad
        } else if any(Mode::Isolines) {
            TessellatorDomain::IsoLine
        } else if let Some(d) = self.option_domain() {
            d
        } else if self.model == EM::TessellationControl {
            // Left to the evaluation shader and not given: triangles (see `Tessellation`).
            TessellatorDomain::Tri
        } else {
            TessellatorDomain::Undefined
        }
    }

    /// Rows of `SV_TessFactor` / `SV_InsideTessFactor` in the domain.
    pub fn tess_rows(&self, kind: SemanticKind) -> Result<u32> {
        let outer = kind == SemanticKind::TessFactor;
        Ok(match (self.tess_domain(), outer) {
            (TessellatorDomain::Tri, true) => 3,
            (TessellatorDomain::Tri, false) => 1,
            (TessellatorDomain::Quad, true) => 4,
            (TessellatorDomain::Quad, false) => 2,
            (TessellatorDomain::IsoLine, true) => 2,
            (TessellatorDomain::IsoLine, false) => 0,
            _ => {
                return Err(malformed(
                    "tessellation factors without a tessellation domain",
                ));
            }
        })
    }

    /// The row of tess factor `i` (GLSL order) in the domain, if it has one. Isolines swap:
    /// GLSL's level 0 is the line count (D3D12's density, row 1), level 1 the segments per
    /// line (detail, row 0).
    pub fn tess_row(&self, kind: SemanticKind, i: u32) -> Result<Option<u32>> {
        let rows = self.tess_rows(kind)?;
        if i >= rows {
            return Ok(None);
        }
        Ok(Some(
            if self.tess_domain() == TessellatorDomain::IsoLine && kind == SemanticKind::TessFactor
            {
                1 - i
            } else {
                i
            },
        ))
    }

    pub fn signature_metadata(&mut self) -> Result<SigMeta> {
        let mut io = std::mem::take(&mut self.io);
        io.inputs.place()?;
        io.outputs.place()?;
        io.patch.place()?;
        let m = SigMeta {
            inputs: io.inputs.clone(),
            outputs: io.outputs.clone(),
            patch: io.patch.clone(),
        };
        self.io = io;
        Ok(m)
    }

    pub fn stage_properties(&mut self) -> Result<StageProps> {
        let mut p = StageProps {
            mesh: self.mesh_state()?,
            ..Default::default()
        };
        match self.model {
            EM::Geometry => {
                let input = if self.has_mode(Mode::InputPoints) {
                    InputPrimitive::Point
                } else if self.has_mode(Mode::InputLines) {
                    InputPrimitive::Line
                } else if self.has_mode(Mode::InputLinesAdjacency) {
                    InputPrimitive::LineWithAdjacency
                } else if self.has_mode(Mode::InputTrianglesAdjacency) {
                    InputPrimitive::TriangleWithAdjacency
                } else if self.has_mode(Mode::Triangles) {
                    InputPrimitive::Triangle
                } else {
                    return Err(malformed("geometry shader without an input primitive"));
                };
                let topology = if self.has_mode(Mode::OutputPoints) {
                    PrimitiveTopology::PointList
                } else if self.has_mode(Mode::OutputLineStrip) {
                    PrimitiveTopology::LineStrip
                } else if self.has_mode(Mode::OutputTriangleStrip) {
                    PrimitiveTopology::TriangleStrip
                } else {
                    return Err(malformed("geometry shader without an output primitive"));
                };
                let max = self.mode_operand(Mode::OutputVertices).unwrap_or(1).max(1);
                let instances = self.mode_operand(Mode::Invocations).unwrap_or(1).max(1);
                if max > 1024 || instances > 32 {
                    return Err(unsupported(
                        "geometry shaders emitting more than 1024 vertices or with more than 32 instances",
                    ));
                }
                let scalars: u32 = self
                    .io
                    .outputs
                    .elems
                    .iter()
                    .map(|e| e.rows * u32::from(e.cols))
                    .sum();
                if max.saturating_mul(scalars) > 1024 {
                    return Err(unsupported(format!(
                        "a geometry shader emitting {max} vertices of {scalars} scalars (D3D12 allows 1024 scalars in all)"
                    )));
                }
                let streams = self.gs_streams.max(1);
                p.gs = Some([input.raw(), max, streams, topology.raw(), instances]);
            }
            EM::TessellationEvaluation => {
                let domain = self.tess_domain();
                if domain == TessellatorDomain::Undefined {
                    return Err(malformed(
                        "tessellation evaluation shader without a domain (give the control shader's)",
                    ));
                }
                p.ds = Some([domain.raw(), self.input_control_points()?]);
            }
            EM::TessellationControl => {
                let f = self
                    .hull_pc
                    .ok_or_else(|| crate::error::internal("hull shader without its function"))?;
                p.hs = Some((f, self.hull_state()?));
            }
            _ => {}
        }
        Ok(p)
    }

    pub fn geometry_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        if self.model != EM::Geometry {
            return Err(malformed(format!("Op{op:?} outside a geometry shader")));
        }
        let stream = match op {
            Op::EmitStreamVertex | Op::EndStreamPrimitive => self.const_u64(inst.word(0)?)? as u32,
            _ => 0,
        };
        if stream > 3 {
            return Err(malformed("geometry stream past 3"));
        }
        self.gs_streams |= 1 << stream;
        let k = self.b.i8c(i64::from(stream));
        let void = self.b.t.void;
        match op {
            Op::EmitVertex | Op::EmitStreamVertex => {
                self.write_outputs()?;
                self.b.dxop(OpCode::EmitStream, None, void, &[k])?;
            }
            _ => {
                self.b.dxop(OpCode::CutStream, None, void, &[k])?;
            }
        }
        Ok(())
    }

    /// Fragment shader interlock: every UAV the shader uses becomes a rasterizer-ordered
    /// view, whose accesses D3D12 orders as the interlock would.
    pub fn interlock(&mut self, op: Op) -> Result<()> {
        if self.model != EM::Fragment {
            return Err(malformed(format!("Op{op:?} outside a fragment shader")));
        }
        self.features.rovs = true;
        Ok(())
    }

    /// `InterpolateAtCentroid/Sample/Offset`: evaluate an input at another position.
    pub fn interpolate_at(&mut self, inst: &Inst<'_>, op: spirv::GLOp) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        if self.model != EM::Fragment {
            return Err(malformed(
                "interpolation functions outside a fragment shader",
            ));
        }
        let p = self.ptr(inst.word(4)?)?;
        let Base::Input(i) = p.base else {
            return Err(malformed("interpolation of something that is not an input"));
        };
        let extra = match op {
            spirv::GLOp::InterpolateAtSample => {
                let v = self.scalar(inst.word(5)?)?;
                vec![self.int_to_i32(v, true)?]
            }
            spirv::GLOp::InterpolateAtOffset => {
                // Offsets in 1/16 pixel, -8..=7 (what D3D12 can express).
                let v = self.values(inst.word(5)?)?;
                let mut out = Vec::with_capacity(2);
                for &x in v.iter().take(2) {
                    let x = self.convert_scalar(x, Scalar::F32)?;
                    let k = self.fconst(Scalar::F32, 16.0);
                    let m = self.b.binary(BinOp::FMul, x, k)?;
                    let f = self.unary_dxop(OpCode::Round_ni, m)?;
                    let i32t = self.b.t.i32;
                    let n = self.b.cast(CastOp::FPToSI, f, i32t)?;
                    let lo = self.b.i32c(-8);
                    let hi = self.b.i32c(7);
                    let n = self.binary_dxop(OpCode::IMax, n, lo)?;
                    out.push(self.binary_dxop(OpCode::IMin, n, hi)?);
                }
                out
            }
            _ => Vec::new(),
        };
        let kinds = self.leaf_kinds(ty)?;
        let mut out = Vec::with_capacity(kinds.len());
        for (k, kind) in kinds.iter().enumerate() {
            let leaf = *self.io.vars[i as usize]
                .leaves
                .get(p.off as usize + k)
                .ok_or_else(|| malformed("interpolation past the end of an input"))?;
            let Leaf::Sig {
                sig: SigKind::Input,
                elem,
                row,
                col,
            } = leaf
            else {
                return Err(unsupported("interpolating a built-in"));
            };
            let s = if *kind == Scalar::F16 {
                Scalar::F16
            } else {
                Scalar::F32
            };
            let t = self.b.scalar(s);
            let idv = self.b.i32c(i64::from(elem));
            // The row may be dynamic (an element of an input array); the column may not.
            let (r, col) = self.dynamic_row(SigKind::Input, elem, row, col, &p)?;
            let c = self.b.i8c(i64::from(col));
            let mut args = vec![idv, r, c];
            args.extend_from_slice(&extra);
            let code = match op {
                spirv::GLOp::InterpolateAtCentroid => OpCode::EvalCentroid,
                spirv::GLOp::InterpolateAtSample => OpCode::EvalSampleIndex,
                _ => OpCode::EvalSnapped,
            };
            let v: Value = self.b.dxop(code, Some(t), t, &args)?;
            out.push(v);
        }
        self.set_vals(id, &out)
    }
}
