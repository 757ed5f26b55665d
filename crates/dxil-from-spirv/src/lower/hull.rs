//! Tessellation control shaders as DXIL hull shaders.
//!
//! A SPIR-V tessellation control shader is one function run once per output control point,
//! writing its control point's outputs and (usually one invocation, after a barrier) the
//! patch's outputs. A DXIL hull shader splits that work in two: `@main`, run once per
//! output control point, writes only control-point outputs; a patch-constant function, run
//! once per patch, writes only patch constants and reads the finished control points
//! (`loadOutputControlPoint`). Both are written from the same SPIR-V function:
//!
//! - `@main` is the function with every patch-output store kept in a local copy that is
//!   never written out, and barriers dropped. A control point's outputs live in a local
//!   copy of that one control point; reads of `gl_out[i]` read it back (GLSL writes
//!   per-vertex outputs only through `gl_InvocationID`; a read of another control point's
//!   output in `@main` sees this control point's value, and only feeds code whose results
//!   are dropped there, unless a control-point output depends on another one).
//! - The patch-constant function runs the whole function once per output control point in
//!   a loop (the invocation id is the loop counter), with control-point stores dropped,
//!   control-point reads through `loadOutputControlPoint`, and patch outputs in a local copy
//!   written with `storePatchConstant` after the loop: the last invocation's write of a
//!   patch output wins, as when each writes the same value.
//!
//! Side effects on memory (storage buffer or image writes, atomics) run once per control
//! point in `@main` and once more per control point in the patch-constant function.

use dxil_module::{BinOp, Predicate, Value};
use dxil_shader::{TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning};
use spirv::ExecutionMode as Mode;

use dxil_shader::{ComponentType, InterpolationMode, SemanticKind};

use super::sig::{Packing, SigElement, SigKind};
use super::{Ret, Slot, Tr};
use crate::error::{Result, malformed, unsupported};
use crate::{TessDomain, TessSpacing};

/// Which of a hull shader's two functions is being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HullPhase {
    /// `@main`, once per output control point.
    ControlPoint,
    /// The patch-constant function: the shader once per control point, `invocation` being
    /// the loop counter.
    PatchConstant { invocation: Value },
}

/// A hull shader's state (`!dx.entryPoints` tag 3).
#[derive(Clone, Copy, Debug)]
pub struct HullState {
    pub input_control_points: u32,
    pub output_control_points: u32,
    pub domain: TessellatorDomain,
    pub partitioning: TessellatorPartitioning,
    pub primitive: TessellatorOutputPrimitive,
}

/// The D3D12 limit on a tessellation factor.
pub const MAX_TESS_FACTOR: f32 = 64.0;

impl Tr<'_> {
    fn any_mode(&self, mode: Mode) -> bool {
        self.spv.exec_modes.iter().any(|e| e.mode == mode)
    }

    /// Output control points (`OutputVertices` of the tessellation control shader).
    pub fn output_control_points(&self) -> Result<u32> {
        let declared = self
            .spv
            .exec_modes
            .iter()
            .find(|e| e.function == self.entry.function && e.mode == Mode::OutputVertices)
            .and_then(|e| e.operands.first().copied());
        let n = declared
            .or(self.opts.tessellation.output_patch_size)
            .ok_or_else(|| malformed("tessellation control shader without OutputVertices"))?;
        if n == 0 || n > 32 {
            return Err(unsupported(format!(
                "{n} output control points (D3D12 has 1..=32)"
            )));
        }
        Ok(n)
    }

    /// The length of the per-vertex input arrays (0 without any).
    fn input_array_length(&self) -> Result<u32> {
        let mut n = 0u32;
        for v in &self.io.vars {
            if v.per_vertex
                && v.class == spirv::StorageClass::Input
                && let Ok(crate::spv::Type::Array { len, .. }) = self.spv.ty(v.ty)
            {
                n = n.max(self.const_u64(len)?.min(u64::from(u32::MAX)) as u32);
            }
        }
        Ok(n)
    }

    /// Input control points of a hull shader (the options', else the input arrays' length
    /// unless that is `gl_MaxPatchVertices`, else the output control points) or a domain
    /// shader (the options' output patch size, else the input arrays' length).
    pub fn input_control_points(&self) -> Result<u32> {
        let t = &self.opts.tessellation;
        let given = if self.model == spirv::ExecutionModel::TessellationControl {
            t.input_patch_size
        } else {
            t.output_patch_size
        };
        let n = match given {
            Some(n) => n,
            None => {
                let len = self.input_array_length()?;
                if self.model == spirv::ExecutionModel::TessellationControl
                    && (len == 0 || len >= 32)
                {
                    self.output_control_points()?
                } else {
                    len
                }
            }
        };
        Ok(n.clamp(1, 32))
    }

    pub fn hull_state(&self) -> Result<HullState> {
        let t = &self.opts.tessellation;
        let domain = self.tess_domain();
        let partitioning = if self.any_mode(Mode::SpacingEqual) {
            TessellatorPartitioning::Integer
        } else if self.any_mode(Mode::SpacingFractionalEven) {
            TessellatorPartitioning::FractionalEven
        } else if self.any_mode(Mode::SpacingFractionalOdd) {
            TessellatorPartitioning::FractionalOdd
        } else {
            match t.spacing {
                Some(TessSpacing::FractionalEven) => TessellatorPartitioning::FractionalEven,
                Some(TessSpacing::FractionalOdd) => TessellatorPartitioning::FractionalOdd,
                _ => TessellatorPartitioning::Integer,
            }
        };
        let clockwise = if self.any_mode(Mode::VertexOrderCw) {
            true
        } else if self.any_mode(Mode::VertexOrderCcw) {
            false
        } else {
            t.clockwise.unwrap_or(false)
        };
        let primitive = if self.any_mode(Mode::PointMode) || t.point_mode {
            TessellatorOutputPrimitive::Point
        } else if domain == TessellatorDomain::IsoLine {
            TessellatorOutputPrimitive::Line
        } else if clockwise {
            TessellatorOutputPrimitive::TriangleCW
        } else {
            TessellatorOutputPrimitive::TriangleCCW
        };
        Ok(HullState {
            input_control_points: self.input_control_points()?,
            output_control_points: self.output_control_points()?,
            domain,
            partitioning,
            primitive,
        })
    }

    /// The domain the options give, for modules that leave it to the other stage.
    pub fn option_domain(&self) -> Option<TessellatorDomain> {
        self.opts.tessellation.domain.map(|d| match d {
            TessDomain::Triangles => TessellatorDomain::Tri,
            TessDomain::Quads => TessellatorDomain::Quad,
            TessDomain::Isolines => TessellatorDomain::IsoLine,
        })
    }

    /// Writes `@main` (control points) and then the patch-constant function.
    pub(super) fn run_hull(&mut self) -> Result<()> {
        let f = self.entry.function;
        let outputs = self.output_control_points()?;
        self.hull = Some(HullPhase::ControlPoint);
        let mut ret = Ret::Main;
        self.emit_function(f, &[], &mut ret, 0)?;

        let missing = self.add_missing_tess_factors()?;
        self.reset_function_state();
        let pc = self.b.begin_function("patch_constant")?;
        self.hull_pc = Some(pc);
        let entry = self.b.new_block();
        let header = self.b.new_block();
        let latch = self.b.new_block();
        let exit = self.b.new_block();
        self.b.start_block(entry)?;
        let undef = self.b.undef_scalar(crate::builder::Scalar::I32);
        self.hull = Some(HullPhase::PatchConstant { invocation: undef });
        self.prologue()?;
        self.b.br(header)?;
        self.b.start_block(header)?;
        let i32t = self.b.t.i32;
        let i = self.b.phi(i32t)?;
        self.hull = Some(HullPhase::PatchConstant { invocation: i });
        let mut ret = Ret::Inline {
            cont: latch,
            incoming: Vec::new(),
        };
        self.emit_function(f, &[], &mut ret, 0)?;
        let Ret::Inline { incoming, .. } = ret else {
            return Err(crate::error::internal("return context changed"));
        };
        if incoming.is_empty() {
            return Err(unsupported(
                "a tessellation control shader that never returns",
            ));
        }
        self.b.start_block(latch)?;
        let one = self.b.i32c(1);
        let next = self.b.binary(BinOp::Add, i, one)?;
        let n = self.b.i32c(i64::from(outputs));
        let more = self.b.cmp(Predicate::ICMP_ULT, next, n)?;
        self.b.cond_br(more, header, exit)?;
        self.b.start_block(exit)?;
        self.write_outputs()?;
        for (elem, rows) in missing {
            for r in 0..rows {
                let zero = self.b.zero(crate::builder::Scalar::F32);
                self.write_leaf(SigKind::Patch, elem, r, 0, zero)?;
            }
        }
        self.b.ret()?;
        let zero = self.b.i32c(0);
        self.b
            .set_phi_incoming(i, &[(zero, entry), (next, latch)])?;
        self.b.finish_main()
    }

    /// D3D12 wants the domain's tess factors in every hull shader: those the shader does not
    /// write are added (and written as 0, which culls the patch, as undefined levels may).
    /// Returns (element, rows) of each added.
    fn add_missing_tess_factors(&mut self) -> Result<Vec<(u32, u32)>> {
        let mut added = Vec::new();
        for (kind, name, row) in [
            (SemanticKind::TessFactor, "SV_TessFactor", 0),
            (SemanticKind::InsideTessFactor, "SV_InsideTessFactor", 4),
        ] {
            let rows = self.tess_rows(kind)?;
            if rows == 0 || self.io.patch.elems.iter().any(|e| e.kind == kind) {
                continue;
            }
            let id = self.io.patch.add(SigElement {
                name,
                kind,
                first_index: 0,
                comp: ComponentType::F32,
                interp: InterpolationMode::Undefined,
                rows,
                cols: 1,
                col: 0,
                fixed_row: Some(row),
                packing: Packing::Packed,
                usage: 0,
                stream: 0,
                start_row: 0,
                block_row: None,
            })?;
            added.push((id, rows));
        }
        Ok(added)
    }

    /// Forgets every value of the function written so far (before writing another).
    fn reset_function_state(&mut self) {
        self.vals.fill(Slot::None);
        self.pool.clear();
        self.ptrs.clear();
        self.locals.clear();
        self.local_of.clear();
        self.label_vb.fill(u32::MAX);
        self.label_end.fill(u32::MAX);
        self.phis.clear();
        self.active.clear();
        self.materializing = 0;
        self.tree_lanes = None;
        for r in &mut self.resources {
            r.handle = None;
        }
        for v in &mut self.io.vars {
            v.shadow = None;
        }
    }
}
