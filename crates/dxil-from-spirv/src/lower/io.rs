//! Stage inputs and outputs. Every scalar of a stage variable maps to a signature element's
//! row and column (`loadInput`/`storeOutput`), to an operation (`threadId`, `coverage`, ...),
//! or is dropped (`PointSize`, which D3D12 does not have). Outputs live in a local copy that
//! is written to the signature when the entry point returns (or a vertex is emitted).

use dxil_module::{BinOp, Value};
use dxil_shader::ops::OpCode;
use dxil_shader::{ComponentType, InterpolationMode, SemanticKind};
use spirv::{BuiltIn, ExecutionModel as EM, StorageClass};

use super::hull::HullPhase;
use super::memory::{Base, Ptr};
use super::sig::{Packing, SigElement, SigKind, Signature};
use super::{Tr, types::type_name};
use crate::builder::Scalar;
use crate::error::{Result, inexpressible, malformed, unsupported};
use crate::spv::{DecorFlags, Type};

/// Where one scalar of a stage variable goes.
#[derive(Clone, Copy, Debug)]
pub enum Leaf {
    /// Row and column relative to the element's start.
    Sig {
        sig: SigKind,
        elem: u32,
        row: u32,
        col: u8,
    },
    /// Read through an operation (compute ids, coverage, ...).
    Op(BuiltinOp),
    /// Written and never read back by D3D12 (point size).
    Dropped,
}

/// Built-ins that DXIL reads through an operation rather than a signature element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinOp {
    ThreadId(u8),
    GroupId(u8),
    ThreadIdInGroup(u8),
    FlattenedThreadIdInGroup,
    LaneIndex,
    LaneCount,
    WorkgroupSize(u8),
    SubgroupMask(BuiltIn, u8),
    NumSubgroups,
    SubgroupId,
    SampleIndex,
    /// A component of the sample's position in the pixel (0 to 1, Vulkan's convention).
    SamplePosition(u8),
    /// A component of the fragment's size in pixels, decoded from the SV_ShadingRate input
    /// element (its index).
    FragSize {
        comp: u8,
        elem: u32,
    },
    Coverage,
    InnerCoverage,
    Helper,
    ViewId,
    PrimitiveId,
    GsInstanceId,
    OutputControlPointId,
    /// Control points per input patch (a constant).
    PatchVertices,
    /// SV_StartVertexLocation (shader model 6.8).
    StartVertex,
    /// SV_StartInstanceLocation (shader model 6.8).
    StartInstance,
    DomainLocation(u8),
    /// A component of a mesh shader primitive's vertex indices (written only).
    PrimitiveIndex(u8),
}

/// One stage variable.
#[derive(Clone, Debug)]
pub struct IoVar {
    pub var: u32,
    pub class: StorageClass,
    /// The variable's type (with the per-vertex array, if any).
    pub ty: u32,
    /// Whether the outermost array indexes vertices (geometry, tessellation inputs).
    pub per_vertex: bool,
    /// The type of one vertex's value.
    pub elem_ty: u32,
    pub leaves: Vec<Leaf>,
    /// The local copy of an output.
    pub shadow: Option<u32>,
}

#[derive(Default)]
pub struct Io {
    pub vars: Vec<IoVar>,
    pub inputs: Signature,
    pub outputs: Signature,
    pub patch: Signature,
}

/// What a built-in becomes in a stage.
enum Mapped {
    Elem {
        name: &'static str,
        kind: SemanticKind,
        comp: ComponentType,
        packing: Packing,
        /// Read through this operation although it is in the signature (shadow elements).
        op: Option<BuiltinOp>,
    },
    Op(BuiltinOp),
    Dropped,
}

fn elem(name: &'static str, kind: SemanticKind, comp: ComponentType) -> Mapped {
    Mapped::Elem {
        name,
        kind,
        comp,
        packing: Packing::Packed,
        op: None,
    }
}

impl Tr<'_> {
    fn is_input(&self, class: StorageClass) -> bool {
        class == StorageClass::Input
    }

    /// How a built-in maps in this stage and direction, or why it cannot.
    fn map_builtin(&self, b: BuiltIn, input: bool, comp: u8) -> Result<Mapped> {
        use BuiltIn as B;
        let m = self.model;
        let u32c = ComponentType::U32;
        let f32c = ComponentType::F32;
        Ok(match (b, input) {
            (B::GlobalInvocationId, true) => Mapped::Op(BuiltinOp::ThreadId(comp)),
            (B::WorkgroupId, true) => Mapped::Op(BuiltinOp::GroupId(comp)),
            (B::LocalInvocationId, true) => Mapped::Op(BuiltinOp::ThreadIdInGroup(comp)),
            (B::LocalInvocationIndex, true) => Mapped::Op(BuiltinOp::FlattenedThreadIdInGroup),
            (B::WorkgroupSize, true) => Mapped::Op(BuiltinOp::WorkgroupSize(comp)),
            (B::SubgroupLocalInvocationId, true) => Mapped::Op(BuiltinOp::LaneIndex),
            (B::SubgroupSize, true) => Mapped::Op(BuiltinOp::LaneCount),
            (
                B::SubgroupEqMask
                | B::SubgroupGeMask
                | B::SubgroupGtMask
                | B::SubgroupLeMask
                | B::SubgroupLtMask,
                true,
            ) => Mapped::Op(BuiltinOp::SubgroupMask(b, comp)),
            (B::NumSubgroups, true) if m == EM::GLCompute => Mapped::Op(BuiltinOp::NumSubgroups),
            (B::SubgroupId, true) if m == EM::GLCompute => Mapped::Op(BuiltinOp::SubgroupId),
            (B::NumWorkgroups, _) => {
                return Err(inexpressible(
                    "NumWorkgroups (D3D12 shaders cannot read the dispatch size)",
                ));
            }
            (B::Position, false) => elem("SV_Position", SemanticKind::Position, f32c),
            (B::Position, true) if m != EM::Vertex => {
                elem("SV_Position", SemanticKind::Position, f32c)
            }
            (B::FragCoord, true) => elem("SV_Position", SemanticKind::Position, f32c),
            (B::PointSize, false) => Mapped::Dropped,
            (B::PointSize, true) => Mapped::Dropped,
            (B::ClipDistance, _) => elem("SV_ClipDistance", SemanticKind::ClipDistance, f32c),
            (B::CullDistance, _) => elem("SV_CullDistance", SemanticKind::CullDistance, f32c),
            (B::VertexIndex, true) if m == EM::Vertex => {
                elem("SV_VertexID", SemanticKind::VertexID, u32c)
            }
            (B::InstanceIndex, true) if m == EM::Vertex => {
                elem("SV_InstanceID", SemanticKind::InstanceID, u32c)
            }
            (B::Layer, _) => elem(
                "SV_RenderTargetArrayIndex",
                SemanticKind::RenderTargetArrayIndex,
                u32c,
            ),
            (B::ViewportIndex, _) => elem(
                "SV_ViewportArrayIndex",
                SemanticKind::ViewPortArrayIndex,
                u32c,
            ),
            (B::FrontFacing, true) => elem("SV_IsFrontFace", SemanticKind::IsFrontFace, u32c),
            (B::SampleId, true) => Mapped::Elem {
                name: "SV_SampleIndex",
                kind: SemanticKind::SampleIndex,
                comp: u32c,
                packing: Packing::NotPacked,
                op: Some(BuiltinOp::SampleIndex),
            },
            // Reading SV_SampleIndex makes the shader run per sample, as reading
            // SamplePosition does in Vulkan; D3D gives the position relative to the pixel's
            // centre, which `builtin_value` moves by half a pixel.
            (B::SamplePosition, true) if m == EM::Fragment => Mapped::Elem {
                name: "SV_SampleIndex",
                kind: SemanticKind::SampleIndex,
                comp: u32c,
                packing: Packing::NotPacked,
                op: Some(BuiltinOp::SamplePosition(comp)),
            },
            // The pixels one invocation shades: D3D12's coarse pixel, whose size
            // SV_ShadingRate encodes (log2 width in bits 2-3, log2 height in bits 0-1).
            (B::FragSizeEXT, true) if m == EM::Fragment => Mapped::Elem {
                name: "SV_ShadingRate",
                kind: SemanticKind::ShadingRate,
                comp: u32c,
                packing: Packing::Packed,
                op: Some(BuiltinOp::FragSize { comp, elem: 0 }),
            },
            (B::FragInvocationCountEXT, _) => {
                return Err(inexpressible(
                    "built-in FragInvocationCountEXT (how many invocations shade a fragment \
                     follows the Vulkan pipeline's sample shading state, which neither the \
                     SPIR-V module nor a D3D12 shader can read)",
                ));
            }
            (B::SampleMask, true) => Mapped::Op(BuiltinOp::Coverage),
            (B::SampleMask, false) => Mapped::Elem {
                name: "SV_Coverage",
                kind: SemanticKind::Coverage,
                comp: u32c,
                packing: Packing::NotPacked,
                op: None,
            },
            (B::FragDepth, false) => {
                let (name, kind) = if self.exec_mode(spirv::ExecutionMode::DepthGreater) {
                    ("SV_DepthGreaterEqual", SemanticKind::DepthGreaterEqual)
                } else if self.exec_mode(spirv::ExecutionMode::DepthLess) {
                    ("SV_DepthLessEqual", SemanticKind::DepthLessEqual)
                } else {
                    ("SV_Depth", SemanticKind::Depth)
                };
                Mapped::Elem {
                    name,
                    kind,
                    comp: f32c,
                    packing: Packing::NotPacked,
                    op: None,
                }
            }
            (B::FragStencilRefEXT, false) => Mapped::Elem {
                name: "SV_StencilRef",
                kind: SemanticKind::StencilRef,
                comp: u32c,
                packing: Packing::NotPacked,
                op: None,
            },
            // Vulkan's shading-rate bits (log2 width in bits 2-3, log2 height in bits 0-1) are
            // D3D12_SHADING_RATE's encoding.
            (B::ShadingRateKHR, true) if m == EM::Fragment => {
                elem("SV_ShadingRate", SemanticKind::ShadingRate, u32c)
            }
            (B::PrimitiveShadingRateKHR, false)
                if matches!(m, EM::Vertex | EM::Geometry | EM::MeshEXT) =>
            {
                elem("SV_ShadingRate", SemanticKind::ShadingRate, u32c)
            }
            (B::HelperInvocation, true) => Mapped::Op(BuiltinOp::Helper),
            (B::FullyCoveredEXT, true) => Mapped::Op(BuiltinOp::InnerCoverage),
            (B::BaryCoordKHR | B::BaryCoordNoPerspKHR, true) if m == EM::Fragment => Mapped::Elem {
                name: "SV_Barycentrics",
                kind: SemanticKind::Barycentrics,
                comp: f32c,
                packing: Packing::NotPacked,
                op: None,
            },
            (B::ViewIndex, true) => Mapped::Op(BuiltinOp::ViewId),
            (B::PrimitiveId, true) if m == EM::Fragment => {
                elem("SV_PrimitiveID", SemanticKind::PrimitiveID, u32c)
            }
            (B::PrimitiveId, true) if m == EM::Geometry => Mapped::Elem {
                name: "SV_PrimitiveID",
                kind: SemanticKind::PrimitiveID,
                comp: u32c,
                packing: Packing::NotPacked,
                op: Some(BuiltinOp::PrimitiveId),
            },
            (B::PrimitiveId, true) => Mapped::Op(BuiltinOp::PrimitiveId),
            (B::PrimitiveId, false) => elem("SV_PrimitiveID", SemanticKind::PrimitiveID, u32c),
            (B::InvocationId, true) if m == EM::Geometry => Mapped::Op(BuiltinOp::GsInstanceId),
            (B::InvocationId, true) if m == EM::TessellationControl => {
                Mapped::Op(BuiltinOp::OutputControlPointId)
            }
            (B::TessCoord, true) => Mapped::Op(BuiltinOp::DomainLocation(comp)),
            (B::PatchVertices, true)
                if matches!(m, EM::TessellationControl | EM::TessellationEvaluation) =>
            {
                Mapped::Op(BuiltinOp::PatchVertices)
            }
            (B::TessLevelOuter, _) => Mapped::Elem {
                name: "SV_TessFactor",
                kind: SemanticKind::TessFactor,
                comp: f32c,
                packing: Packing::Packed,
                op: None,
            },
            (B::TessLevelInner, _) => Mapped::Elem {
                name: "SV_InsideTessFactor",
                kind: SemanticKind::InsideTessFactor,
                comp: f32c,
                packing: Packing::Packed,
                op: None,
            },
            // SV_StartVertexLocation is the index draw's base vertex or the first vertex, as
            // BaseVertex is.
            (B::BaseVertex, true) if m == EM::Vertex => Mapped::Op(BuiltinOp::StartVertex),
            (B::BaseInstance, true) if m == EM::Vertex => Mapped::Op(BuiltinOp::StartInstance),
            (B::PrimitiveTriangleIndicesEXT | B::PrimitiveLineIndicesEXT, false)
                if m == EM::MeshEXT =>
            {
                Mapped::Op(BuiltinOp::PrimitiveIndex(comp))
            }
            (B::PrimitivePointIndicesEXT, false) if m == EM::MeshEXT => {
                return Err(inexpressible(
                    "built-in PrimitivePointIndicesEXT (D3D12 mesh shaders output lines or triangles)",
                ));
            }
            (B::CullPrimitiveEXT, false) if m == EM::MeshEXT => Mapped::Elem {
                name: "SV_CullPrimitive",
                kind: SemanticKind::CullPrimitive,
                comp: ComponentType::I1,
                packing: Packing::NotPacked,
                op: None,
            },
            (B::DrawIndex, _) => {
                return Err(unsupported(
                    "built-in DrawIndex (D3D12 shaders cannot see which draw of an indirect multi-draw runs)",
                ));
            }
            _ => {
                return Err(unsupported(format!(
                    "built-in {b:?} as an {} of a {m:?} shader",
                    if input { "input" } else { "output" }
                )));
            }
        })
    }

    fn exec_mode(&self, mode: spirv::ExecutionMode) -> bool {
        self.spv
            .exec_modes
            .iter()
            .any(|e| e.function == self.entry.function && e.mode == mode)
    }

    /// Whether the outer array of a stage variable indexes vertices.
    fn per_vertex(&self, class: StorageClass, var: u32, pointee: u32) -> bool {
        let patch = self.spv.decor.get(var).flags.contains(DecorFlags::PATCH);
        if !matches!(
            self.spv.ty(pointee),
            Ok(Type::Array { .. } | Type::RuntimeArray { .. })
        ) {
            return false;
        }
        match (self.model, class) {
            (EM::Geometry, StorageClass::Input) => true,
            (EM::TessellationControl, _) => !patch,
            (EM::TessellationEvaluation, StorageClass::Input) => !patch,
            (EM::MeshEXT | EM::MeshNV, StorageClass::Output) => !patch,
            // Per-vertex fragment inputs (fragment shader barycentrics): read with
            // AttributeAtVertex.
            (EM::Fragment, StorageClass::Input) => self
                .spv
                .decor
                .get(var)
                .flags
                .contains(DecorFlags::PER_VERTEX),
            _ => false,
        }
    }

    pub fn add_io(&mut self, var: u32, class: StorageClass, pointee: u32) -> Result<()> {
        let per_vertex = self.per_vertex(class, var, pointee);
        let elem_ty = if per_vertex {
            match self.spv.ty(pointee)? {
                Type::Array { elem, .. } | Type::RuntimeArray { elem } => elem,
                _ => {
                    return Err(malformed(
                        "a per-vertex stage variable that is not an array",
                    ));
                }
            }
        } else {
            pointee
        };
        let input = self.is_input(class);
        // A mesh shader's per-primitive outputs are the primitive signature, which DXIL keeps
        // where the patch constants of tessellation are.
        let flags = self.spv.decor.get(var).flags;
        let per_primitive = flags.contains(DecorFlags::PER_PRIMITIVE) && self.model == EM::MeshEXT;
        let sig = match (input, flags.contains(DecorFlags::PATCH) || per_primitive) {
            (_, true) => SigKind::Patch,
            (true, false) => SigKind::Input,
            (false, false) => SigKind::Output,
        };
        let mut leaves = Vec::new();
        let d = *self.spv.decor.get(var);
        if let Some(b) = d.builtin {
            self.builtin_leaves(b, elem_ty, input, sig, var, &mut leaves)?;
        } else if let Type::Struct { members } = self.spv.ty(elem_ty)? {
            let mut loc = d.location;
            for i in 0..members.1 {
                let m = self.spv.type_lists[(members.0 + i) as usize];
                let md = self.spv.decor.member(elem_ty, i);
                let sig =
                    if md.flags.contains(DecorFlags::PER_PRIMITIVE) && self.model == EM::MeshEXT {
                        SigKind::Patch
                    } else {
                        sig
                    };
                if let Some(b) = md.builtin {
                    if self.model == EM::MeshEXT && !input && !self.mesh_member_used(var, i)? {
                        let n = self.leaf_count(m, 0)?;
                        leaves.extend((0..n).map(|_| Leaf::Dropped));
                        continue;
                    }
                    self.builtin_leaves(b, m, input, sig, var, &mut leaves)?;
                    continue;
                }
                let l = md.location.or(loc).ok_or_else(|| {
                    malformed(format!(
                        "member {i} of stage variable %{var} has no Location"
                    ))
                })?;
                let flags = DecorFlags(md.flags.0 | d.flags.0);
                self.user_leaves(m, l, md.component.unwrap_or(0), flags, sig, 0, &mut leaves)?;
                loc = Some(l.saturating_add(self.location_count(m, 0)?));
            }
        } else {
            let l = d.location.ok_or_else(|| {
                malformed(format!("stage variable %{var} has no Location or BuiltIn"))
            })?;
            let index = d.index.unwrap_or(0);
            self.user_leaves(
                elem_ty,
                l,
                d.component.unwrap_or(0),
                d.flags,
                sig,
                index,
                &mut leaves,
            )?;
        }
        self.io.vars.push(IoVar {
            var,
            class,
            ty: pointee,
            per_vertex,
            elem_ty,
            leaves,
            shadow: None,
        });
        Ok(())
    }

    fn signature_mut(&mut self, sig: SigKind) -> &mut Signature {
        match sig {
            SigKind::Input => &mut self.io.inputs,
            SigKind::Output => &mut self.io.outputs,
            SigKind::Patch => &mut self.io.patch,
        }
    }

    /// Locations a value of `ty` occupies.
    fn location_count(&self, ty: u32, depth: u32) -> Result<u32> {
        if depth > super::types::MAX_TYPE_DEPTH {
            return Err(crate::error::limit("types nested too deeply"));
        }
        Ok(match self.spv.ty(ty)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => 1,
            Type::Matrix { n, .. } => u32::from(n),
            Type::Array { elem, len } => {
                (self.array_len(len)? as u32).saturating_mul(self.location_count(elem, depth + 1)?)
            }
            Type::Struct { members } => {
                let mut n = 0u32;
                for i in 0..members.1 {
                    n = n.saturating_add(self.location_count(
                        self.spv.type_lists[(members.0 + i) as usize],
                        depth + 1,
                    )?);
                }
                n
            }
            t => {
                return Err(unsupported(format!(
                    "stage variables of type {}",
                    type_name(&t)
                )));
            }
        })
    }

    /// The row type (scalar or vector), rows and columns of a user varying type.
    fn row_shape(&self, ty: u32) -> Result<(u32, u32, u8)> {
        Ok(match self.spv.ty(ty)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => (ty, 1, 1),
            Type::Vector { elem, n } => (elem, 1, n),
            Type::Matrix { col, n } => {
                let (e, _, c) = self.row_shape(col)?;
                (e, u32::from(n), c)
            }
            Type::Array { elem, len } => {
                let (e, r, c) = self.row_shape(elem)?;
                let n = self.array_len(len)? as u32;
                (e, r.saturating_mul(n), c)
            }
            t => {
                return Err(unsupported(format!(
                    "stage variables of type {} (structs inside arrays)",
                    type_name(&t)
                )));
            }
        })
    }

    fn user_leaves(
        &mut self,
        ty: u32,
        location: u32,
        component: u32,
        flags: DecorFlags,
        sig: SigKind,
        index: u32,
        leaves: &mut Vec<Leaf>,
    ) -> Result<()> {
        if let Type::Struct { members } = self.spv.ty(ty)? {
            let mut l = location;
            for i in 0..members.1 {
                let m = self.spv.type_lists[(members.0 + i) as usize];
                self.user_leaves(m, l, 0, flags, sig, 0, leaves)?;
                l = l.saturating_add(self.location_count(m, 0)?);
            }
            return Ok(());
        }
        let (scalar, rows, cols) = self.row_shape(ty)?;
        let s = self.scalar_kind(scalar)?;
        if s.bits() == 64 {
            return Err(unsupported("64-bit stage inputs and outputs"));
        }
        if s.bits() == 16 {
            self.features.native16 = true;
        }
        let comp = match (s, self.is_signed(scalar)) {
            (Scalar::F32, _) => ComponentType::F32,
            (Scalar::F16, _) => ComponentType::F16,
            (Scalar::I16, true) => ComponentType::I16,
            (Scalar::I16, false) => ComponentType::U16,
            (_, true) => ComponentType::I32,
            _ => ComponentType::U32,
        };
        if component > 3 || component + u32::from(cols) > 4 {
            return Err(malformed(format!(
                "a {cols}-component stage variable at component {component}"
            )));
        }
        let pixel_target = self.model == EM::Fragment && sig == SigKind::Output;
        if pixel_target && location.saturating_add(index).saturating_add(rows) > 8 {
            return Err(unsupported(format!(
                "fragment output at location {} (D3D12 has render targets 0..=7)",
                location + index
            )));
        }
        let (name, kind, first_index, fixed_row) = if pixel_target {
            // Dual-source blending: `Location 0, Index 1` is the second target.
            let target = location + index;
            ("SV_Target", SemanticKind::Target, target, target)
        } else {
            let base = if self.model == EM::Vertex && sig == SigKind::Input {
                0
            } else if sig == SigKind::Patch && self.model != EM::MeshEXT {
                // After the tess factors (rows 0..=3) and inside factors (4..=5).
                6
            } else {
                1
            };
            // Variables sharing a location (different components) need semantics of their
            // own: D3D12 names an element by semantic and index only.
            let name = match component {
                0 => "TEXCOORD",
                1 => "TEXCOORD_C1_",
                2 => "TEXCOORD_C2_",
                _ => "TEXCOORD_C3_",
            };
            (
                name,
                SemanticKind::Arbitrary,
                location,
                location.saturating_add(base),
            )
        };
        let interp = self.interpolation(sig, comp, flags);
        let e = SigElement {
            name,
            kind,
            first_index,
            comp,
            interp,
            rows,
            cols,
            col: component as u8,
            fixed_row: Some(fixed_row),
            packing: Packing::Packed,
            usage: 0,
            stream: 0,
            start_row: 0,
            block_row: None,
        };
        let id = self.signature_mut(sig).add(e)?;
        for r in 0..rows {
            for c in 0..cols {
                leaves.push(Leaf::Sig {
                    sig,
                    elem: id,
                    row: r,
                    col: c,
                });
            }
        }
        Ok(())
    }

    fn interpolation(
        &self,
        sig: SigKind,
        comp: ComponentType,
        flags: DecorFlags,
    ) -> InterpolationMode {
        let relevant = !matches!(
            (self.model, sig),
            (EM::Vertex, SigKind::Input) | (EM::Fragment, SigKind::Output) | (_, SigKind::Patch)
        );
        if self.model == EM::MeshEXT && sig == SigKind::Patch {
            // Per-primitive values are constant over the primitive.
            return InterpolationMode::Constant;
        }
        if !relevant {
            return InterpolationMode::Undefined;
        }
        // A mesh shader's per-primitive values reach the fragment shader unchanged.
        if flags.contains(DecorFlags::FLAT)
            || flags.contains(DecorFlags::PER_VERTEX)
            || flags.contains(DecorFlags::PER_PRIMITIVE)
            || !comp.is_float()
        {
            return InterpolationMode::Constant;
        }
        let np = flags.contains(DecorFlags::NO_PERSPECTIVE);
        match (
            np,
            flags.contains(DecorFlags::CENTROID),
            flags.contains(DecorFlags::SAMPLE),
        ) {
            (false, false, false) => InterpolationMode::Linear,
            (false, true, _) => InterpolationMode::LinearCentroid,
            (false, false, true) => InterpolationMode::LinearSample,
            (true, false, false) => InterpolationMode::LinearNoperspective,
            (true, true, _) => InterpolationMode::LinearNoperspectiveCentroid,
            (true, false, true) => InterpolationMode::LinearNoperspectiveSample,
        }
    }

    fn builtin_leaves(
        &mut self,
        b: BuiltIn,
        ty: u32,
        input: bool,
        sig: SigKind,
        var: u32,
        leaves: &mut Vec<Leaf>,
    ) -> Result<()> {
        let n = self.leaf_count(ty, 0)? as u32;
        let first = self.map_builtin(b, input, 0)?;
        match first {
            Mapped::Op(_) => {
                for c in 0..n {
                    let Mapped::Op(op) = self.map_builtin(b, input, c as u8)? else {
                        return Err(crate::error::internal("built-in mapping changed"));
                    };
                    leaves.push(Leaf::Op(op));
                }
            }
            Mapped::Dropped => leaves.extend((0..n).map(|_| Leaf::Dropped)),
            Mapped::Elem {
                name,
                kind,
                comp,
                packing,
                op,
            } => {
                // SampleId and SamplePosition share the one SV_SampleIndex element,
                // ShadingRateKHR and FragSizeEXT the one SV_ShadingRate.
                if matches!(kind, SemanticKind::SampleIndex | SemanticKind::ShadingRate)
                    && let Some(e) = self
                        .signature_mut(sig)
                        .elems
                        .iter()
                        .position(|e| e.kind == kind)
                {
                    Self::shared_leaves(op, n, e as u32, sig, leaves);
                    return Ok(());
                }
                let flags = self.spv.decor.get(var).flags;
                let is_clip = matches!(
                    kind,
                    SemanticKind::ClipDistance | SemanticKind::CullDistance
                );
                let is_tess = matches!(
                    kind,
                    SemanticKind::TessFactor | SemanticKind::InsideTessFactor
                );
                // Clip and cull distances pack four to a row (two rows at most); tess factors
                // are one per row.
                let groups: Vec<(u32, u32, u8)> = if is_clip {
                    return self.clip_cull_leaves(b, kind, comp, n, input, sig, leaves);
                } else if is_tess {
                    let rows = self.tess_rows(kind)?;
                    if rows == 0 {
                        leaves.extend((0..n).map(|_| Leaf::Dropped));
                        return Ok(());
                    }
                    vec![(0, rows, 1)]
                } else if kind == SemanticKind::Coverage {
                    // gl_SampleMask is an array; D3D12 has 32 samples at most, one word.
                    vec![(0, 1, 1)]
                } else if matches!(kind, SemanticKind::SampleIndex | SemanticKind::ShadingRate) {
                    // One scalar behind gl_SamplePosition's or gl_FragSizeEXT's two components.
                    vec![(0, 1, 1)]
                } else {
                    vec![(0, 1, n.min(4) as u8)]
                };
                let interp = if matches!(kind, SemanticKind::Position)
                    && matches!(self.model, EM::Fragment | EM::MeshEXT)
                {
                    InterpolationMode::LinearNoperspective
                } else if b == BuiltIn::BaryCoordNoPerspKHR {
                    let f = DecorFlags(flags.0 | DecorFlags::NO_PERSPECTIVE.0);
                    self.interpolation(sig, comp, f)
                } else if comp.is_float() {
                    self.interpolation(sig, comp, flags)
                } else {
                    self.interpolation(sig, ComponentType::U32, flags)
                };
                let fixed_row = match kind {
                    SemanticKind::Position => Some(0),
                    SemanticKind::TessFactor => Some(0),
                    SemanticKind::InsideTessFactor => Some(4),
                    _ => None,
                };
                let mut ids = Vec::new();
                // The two barycentric elements are told apart by their index.
                let index_base = u32::from(b == BuiltIn::BaryCoordNoPerspKHR);
                for (g, rows, cols) in &groups {
                    let e = SigElement {
                        name,
                        kind,
                        first_index: *g + index_base,
                        comp,
                        interp,
                        rows: *rows,
                        cols: *cols,
                        col: 0,
                        fixed_row,
                        packing,
                        usage: 0,
                        stream: 0,
                        start_row: 0,
                        block_row: None,
                    };
                    ids.push(self.signature_mut(sig).add(e)?);
                }
                if op.is_some() {
                    Self::shared_leaves(op, n, ids[0], sig, leaves);
                } else {
                    for i in 0..n {
                        let (elem, row, col) = if is_clip {
                            (ids[(i / 4) as usize], 0, (i % 4) as u8)
                        } else if is_tess {
                            match self.tess_row(kind, i)? {
                                Some(r) => (ids[0], r, 0),
                                None => {
                                    leaves.push(Leaf::Dropped);
                                    continue;
                                }
                            }
                        } else if kind == SemanticKind::Coverage && i > 0 {
                            leaves.push(Leaf::Dropped);
                            continue;
                        } else {
                            (ids[0], 0, i as u8)
                        };
                        leaves.push(Leaf::Sig {
                            sig,
                            elem,
                            row,
                            col,
                        });
                    }
                }
                match kind {
                    SemanticKind::StencilRef => self.features.stencil_ref = true,
                    SemanticKind::ShadingRate => {
                        self.features.shading_rate = true;
                        self.features.need_sm(6, 4);
                    }
                    SemanticKind::Barycentrics => {
                        self.features.barycentrics = true;
                        self.features.need_sm(6, 1);
                    }
                    SemanticKind::RenderTargetArrayIndex | SemanticKind::ViewPortArrayIndex
                        if !input
                            && matches!(self.model, EM::Vertex | EM::TessellationEvaluation) =>
                    {
                        self.features.viewport_rt_index = true
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The leaves of a built-in read from element `elem` (which another built-in may have
    /// made): through `op` per component, or directly.
    fn shared_leaves(
        op: Option<BuiltinOp>,
        n: u32,
        elem: u32,
        sig: SigKind,
        leaves: &mut Vec<Leaf>,
    ) {
        for c in 0..n {
            let c8 = c as u8;
            leaves.push(match op {
                Some(BuiltinOp::SamplePosition(_)) => Leaf::Op(BuiltinOp::SamplePosition(c8)),
                Some(BuiltinOp::FragSize { .. }) => {
                    Leaf::Op(BuiltinOp::FragSize { comp: c8, elem })
                }
                Some(op) => Leaf::Op(op),
                None => Leaf::Sig {
                    sig,
                    elem,
                    row: 0,
                    col: c8,
                },
            });
        }
    }

    /// Clip and cull distances share a block of at most two rows: clip distances first, cull
    /// distances after them, four to a row. Each row segment of one kind is an element.
    fn clip_cull_leaves(
        &mut self,
        b: BuiltIn,
        kind: SemanticKind,
        comp: ComponentType,
        n: u32,
        input: bool,
        sig: SigKind,
        leaves: &mut Vec<Leaf>,
    ) -> Result<()> {
        // Components of the other kind in the same signature come first when this is the
        // cull kind: find the clip count.
        let other = if kind == SemanticKind::CullDistance {
            BuiltIn::ClipDistance
        } else {
            BuiltIn::CullDistance
        };
        let other_n = self.builtin_count(other, input)?;
        let (start, total) = if kind == SemanticKind::CullDistance {
            (other_n, other_n + n)
        } else {
            (0, n + other_n)
        };
        if total > 8 {
            return Err(unsupported(
                "more than 8 clip and cull distances together (D3D12's limit)",
            ));
        }
        let _ = b;
        let name = if kind == SemanticKind::ClipDistance {
            "SV_ClipDistance"
        } else {
            "SV_CullDistance"
        };
        let mut ids: Vec<(u32, u32, u32)> = Vec::new(); // (first component, elem id, row)
        let mut k = start;
        let mut index = 0;
        while k < start + n {
            let row = k / 4;
            let col = k % 4;
            let cols = (4 - col).min(start + n - k);
            let e = SigElement {
                name,
                kind,
                first_index: index,
                comp,
                interp: self.interpolation(sig, comp, DecorFlags::default()),
                rows: 1,
                cols: cols as u8,
                col: col as u8,
                fixed_row: None,
                packing: Packing::Packed,
                usage: 0,
                stream: 0,
                start_row: 0,
                block_row: Some(row),
            };
            let id = self.signature_mut(sig).add(e)?;
            ids.push((k, id, row));
            k += cols;
            index += 1;
        }
        for i in 0..n {
            let c = start + i;
            let &(first, elem, _) = ids
                .iter()
                .rev()
                .find(|(f, _, _)| *f <= c)
                .ok_or_else(|| crate::error::internal("clip element"))?;
            leaves.push(Leaf::Sig {
                sig,
                elem,
                row: 0,
                col: (c - first) as u8,
            });
        }
        Ok(())
    }

    /// The array length of a built-in declared by some stage variable of this direction.
    fn builtin_count(&self, b: BuiltIn, input: bool) -> Result<u32> {
        let class = if input {
            StorageClass::Input
        } else {
            StorageClass::Output
        };
        for &g in &self.used_globals {
            let Ok(d) = self.spv.def(g) else { continue };
            let Ok((c, pointee)) = self.pointee(d.ty) else {
                continue;
            };
            if c != class {
                continue;
            }
            let inner = if self.per_vertex(class, g, pointee) {
                self.element_type(pointee)?
            } else {
                pointee
            };
            if self.spv.decor.get(g).builtin == Some(b) {
                return Ok(self.leaf_count(inner, 0)? as u32);
            }
            if let Type::Struct { members } = self.spv.ty(inner)? {
                for i in 0..members.1 {
                    if self.spv.decor.member(inner, i).builtin == Some(b) {
                        let m = self.spv.type_lists[(members.0 + i) as usize];
                        return Ok(self.leaf_count(m, 0)? as u32);
                    }
                }
            }
        }
        Ok(0)
    }

    pub fn io_pointer(&mut self, var: u32, class: StorageClass, pointee: u32) -> Result<Ptr> {
        let i = self
            .io
            .vars
            .iter()
            .position(|v| v.var == var)
            .ok_or_else(|| crate::error::internal(format!("stage variable %{var} not collected")))?
            as u32;
        Ok(Ptr::new(
            if class == StorageClass::Input {
                Base::Input(i)
            } else {
                Base::Output(i)
            },
            pointee,
        ))
    }

    pub fn io_step(&mut self, p: &mut Ptr, idx: u32) -> Result<()> {
        let (Base::Input(i) | Base::Output(i)) = p.base else {
            return Err(crate::error::internal("not a stage variable"));
        };
        let v = &self.io.vars[i as usize];
        if v.per_vertex && p.vertex.is_none() && p.ty == v.ty {
            let x = self.scalar(idx)?;
            p.vertex = Some(self.int_to_i32(x, false)?);
            p.ty = self.element_type(p.ty)?;
            return Ok(());
        }
        let ix = self.index_operand(idx)?;
        match self.spv.ty(p.ty)? {
            Type::Struct { members } => {
                let Err(k) = ix else {
                    return Err(malformed("struct member index is not a constant"));
                };
                if k as u32 >= members.1 {
                    return Err(malformed("member index out of range"));
                }
                let mut off = 0;
                for j in 0..k as u32 {
                    off += self.leaf_count(self.spv.type_lists[(members.0 + j) as usize], 0)?;
                }
                p.off += off;
                p.ty = self.spv.type_lists[(members.0 + k as u32) as usize];
            }
            _ => {
                let elem = self.element_type(p.ty)?;
                let per = self.leaf_count(elem, 0)?;
                match ix {
                    Err(k) => p.off += k * per,
                    Ok(v) => self.add_dynamic(p, v, per)?,
                }
                p.ty = elem;
            }
        }
        Ok(())
    }

    /// The leaves a pointer reaches: (first leaf, count).
    fn io_leaf_range(&mut self, p: &Ptr, ty: u32) -> Result<(usize, usize)> {
        let n = self.leaf_count(ty, 0)? as usize;
        Ok((p.off as usize, n))
    }

    pub fn load_io(&mut self, p: &Ptr, ty: u32) -> Result<Vec<Value>> {
        let (Base::Input(i) | Base::Output(i)) = p.base else {
            return Err(crate::error::internal("not a stage variable"));
        };
        if matches!(p.base, Base::Output(_)) && self.model == EM::MeshEXT {
            return Err(unsupported(
                "reading a mesh shader output back (DXIL mesh outputs are written only)",
            ));
        }
        let other_control_point = matches!(self.hull, Some(HullPhase::PatchConstant { .. }))
            && self.io.vars[i as usize].per_vertex;
        if let (Base::Output(_), Some(shadow), false) =
            (p.base, self.io.vars[i as usize].shadow, other_control_point)
        {
            let sp = self.shadow_ptr(i, shadow, p)?;
            return self.load_local(&sp, ty);
        }
        let (start, n) = self.io_leaf_range(p, ty)?;
        let kinds = self.leaf_kinds(ty)?;
        let mut out = Vec::with_capacity(n);
        for (k, kind) in kinds.iter().enumerate().take(n) {
            let leaf = *self.io.vars[i as usize]
                .leaves
                .get(start + k)
                .ok_or_else(|| malformed("access past the end of a stage variable"))?;
            let v = self.read_leaf(leaf, p, *kind)?;
            out.push(v);
        }
        Ok(out)
    }

    fn read_leaf(&mut self, leaf: Leaf, p: &Ptr, kind: Scalar) -> Result<Value> {
        let raw = match leaf {
            Leaf::Op(op) => {
                if p.dyn_off.is_some() {
                    return Err(unsupported("dynamic indexing into a built-in vector"));
                }
                self.builtin_value(op)?
            }
            Leaf::Dropped => return Ok(self.b.zero(kind)),
            Leaf::Sig {
                sig,
                elem,
                row,
                col,
            } => {
                let (row, col) = self.dynamic_row(sig, elem, row, col, p)?;
                let s = self.sig_scalar(sig, elem)?;
                let t = self.b.scalar(s);
                let id = self.b.i32c(i64::from(elem));
                let colv = self.b.i8c(i64::from(col));
                let vertex = match p.vertex {
                    Some(v) => v,
                    None => self.b.undef_scalar(Scalar::I32),
                };
                // A constant control point past the patch reads nothing (the arrays of GLSL
                // are sized gl_MaxPatchVertices).
                if let Some(k) = p.vertex.and_then(|v| self.b.as_const_int(v)) {
                    let limit = match (self.model, sig) {
                        (EM::TessellationControl, SigKind::Output) => {
                            Some(self.output_control_points()?)
                        }
                        (EM::TessellationControl | EM::TessellationEvaluation, SigKind::Input) => {
                            Some(self.input_control_points()?)
                        }
                        _ => None,
                    };
                    if limit.is_some_and(|n| k < 0 || k >= i64::from(n)) {
                        return Ok(self.b.zero(kind));
                    }
                }
                self.mark_usage(sig, elem, col);
                if let (EM::Fragment, Some(v)) = (self.model, p.vertex) {
                    let v = match self.b.as_const_int(v) {
                        Some(k) => self.b.i8c(k),
                        None => self.b.trunc_to_i8(v)?,
                    };
                    self.features.barycentrics = true;
                    self.features.need_sm(6, 1);
                    let raw =
                        self.b
                            .dxop(OpCode::AttributeAtVertex, Some(t), t, &[id, row, colv, v])?;
                    let have = self.b.scalar_type_of(raw)?;
                    return if have == kind {
                        Ok(raw)
                    } else {
                        self.slot_to_scalar(raw, have, kind)
                    };
                }
                let code = match sig {
                    SigKind::Patch if self.model == EM::TessellationEvaluation => {
                        OpCode::LoadPatchConstant
                    }
                    SigKind::Output if self.model == EM::TessellationControl => {
                        OpCode::LoadOutputControlPoint
                    }
                    _ => OpCode::LoadInput,
                };
                if code == OpCode::LoadPatchConstant {
                    self.b.dxop(code, Some(t), t, &[id, row, colv])?
                } else {
                    self.b.dxop(code, Some(t), t, &[id, row, colv, vertex])?
                }
            }
        };
        let have = self.b.scalar_type_of(raw)?;
        if have == kind {
            Ok(raw)
        } else {
            self.slot_to_scalar(raw, have, kind)
        }
    }

    /// Row (possibly dynamic) and column of a leaf reached through a pointer with a dynamic
    /// offset: the offset must move whole rows.
    pub(super) fn dynamic_row(
        &mut self,
        sig: SigKind,
        elem: u32,
        row: u32,
        col: u8,
        p: &Ptr,
    ) -> Result<(Value, u8)> {
        let base = self.b.i32c(i64::from(row));
        let Some(d) = p.dyn_off else {
            return Ok((base, col));
        };
        let cols = u32::from(self.signature_mut(sig).elems[elem as usize].cols);
        if !p.dyn_align.is_multiple_of(cols.max(1)) && cols != 1 {
            return Err(unsupported(
                "dynamic indexing that moves within a row of a stage variable",
            ));
        }
        let r = if cols == 1 {
            d
        } else {
            let k = self.b.i32c(i64::from(cols));
            self.b.binary(BinOp::UDiv, d, k)?
        };
        Ok((self.b.binary(BinOp::Add, r, base)?, col))
    }

    pub(super) fn sig_scalar(&mut self, sig: SigKind, elem: u32) -> Result<Scalar> {
        let comp = self.signature_mut(sig).elems[elem as usize].comp;
        Ok(match comp {
            ComponentType::F32 => Scalar::F32,
            ComponentType::F16 => Scalar::F16,
            ComponentType::I16 | ComponentType::U16 => Scalar::I16,
            _ => Scalar::I32,
        })
    }

    pub(super) fn mark_usage(&mut self, sig: SigKind, elem: u32, col: u8) {
        if let Some(e) = self.signature_mut(sig).elems.get_mut(elem as usize) {
            e.usage |= 1 << (e.col + col);
        }
    }

    fn builtin_value(&mut self, op: BuiltinOp) -> Result<Value> {
        let i32t = self.b.t.i32;
        let i1 = self.b.t.i1;
        let f32t = self.b.t.f32;
        let comp = |tr: &mut Self, c: u8| tr.b.i32c(i64::from(c));
        Ok(match op {
            BuiltinOp::ThreadId(c) => {
                let k = comp(self, c);
                self.b.dxop(OpCode::ThreadId, Some(i32t), i32t, &[k])?
            }
            BuiltinOp::GroupId(c) => {
                let k = comp(self, c);
                self.b.dxop(OpCode::GroupId, Some(i32t), i32t, &[k])?
            }
            BuiltinOp::ThreadIdInGroup(c) => {
                let k = comp(self, c);
                self.b
                    .dxop(OpCode::ThreadIdInGroup, Some(i32t), i32t, &[k])?
            }
            BuiltinOp::FlattenedThreadIdInGroup => {
                self.b
                    .dxop(OpCode::FlattenedThreadIdInGroup, Some(i32t), i32t, &[])?
            }
            BuiltinOp::LaneIndex => {
                self.features.wave_ops = true;
                self.b.dxop(OpCode::WaveGetLaneIndex, None, i32t, &[])?
            }
            BuiltinOp::LaneCount => {
                self.features.wave_ops = true;
                self.b.dxop(OpCode::WaveGetLaneCount, None, i32t, &[])?
            }
            BuiltinOp::WorkgroupSize(c) => {
                let size = self.workgroup_size()?;
                self.b.i32c(i64::from(size[usize::from(c) % 3]))
            }
            BuiltinOp::SubgroupMask(b, c) => self.subgroup_mask(b, c)?,
            BuiltinOp::NumSubgroups | BuiltinOp::SubgroupId => {
                self.features.wave_ops = true;
                let lanes = self.b.dxop(OpCode::WaveGetLaneCount, None, i32t, &[])?;
                let x = if op == BuiltinOp::SubgroupId {
                    self.b
                        .dxop(OpCode::FlattenedThreadIdInGroup, Some(i32t), i32t, &[])?
                } else {
                    let [x, y, z] = self.workgroup_size()?;
                    let total = x.saturating_mul(y).saturating_mul(z);
                    let t = self.b.i32c(i64::from(total));
                    let one = self.b.i32c(1);
                    let l1 = self.b.binary(BinOp::Sub, lanes, one)?;
                    self.b.binary(BinOp::Add, t, l1)?
                };
                self.b.binary(BinOp::UDiv, x, lanes)?
            }
            BuiltinOp::SampleIndex => self.b.dxop(OpCode::SampleIndex, Some(i32t), i32t, &[])?,
            BuiltinOp::FragSize { comp, elem } => {
                self.mark_usage(SigKind::Input, elem, 0);
                let id = self.b.i32c(i64::from(elem));
                let row = self.b.i32c(0);
                let col = self.b.i8c(0);
                let vertex = self.b.undef_scalar(Scalar::I32);
                let rate =
                    self.b
                        .dxop(OpCode::LoadInput, Some(i32t), i32t, &[id, row, col, vertex])?;
                // Width: 1 << bits 2-3; height: 1 << bits 0-1.
                let shift = if comp == 0 {
                    let two = self.b.i32c(2);
                    self.b.binary(BinOp::LShr, rate, two)?
                } else {
                    rate
                };
                let three = self.b.i32c(3);
                let log2 = self.b.binary(BinOp::And, shift, three)?;
                let one = self.b.i32c(1);
                self.b.binary(BinOp::Shl, one, log2)?
            }
            BuiltinOp::SamplePosition(c) => {
                let index = self.b.dxop(OpCode::SampleIndex, Some(i32t), i32t, &[])?;
                let pos_ty = self.b.named_struct("dx.types.SamplePos", &[f32t, f32t]);
                let pos = self.b.dxop(
                    OpCode::RenderTargetGetSamplePosition,
                    None,
                    pos_ty,
                    &[index],
                )?;
                let v = self.b.extract_value(pos, u32::from(c.min(1)), f32t)?;
                let half = self
                    .b
                    .const_float_bits(Scalar::F32, 0.5f32.to_bits().into());
                self.b.binary(BinOp::FAdd, v, half)?
            }
            BuiltinOp::Coverage => self.b.dxop(OpCode::Coverage, Some(i32t), i32t, &[])?,
            BuiltinOp::InnerCoverage => {
                self.features.inner_coverage = true;
                self.b.dxop(OpCode::InnerCoverage, Some(i32t), i32t, &[])?
            }
            BuiltinOp::Helper => {
                self.features.need_sm(6, 6);
                self.b.dxop(OpCode::IsHelperLane, Some(i1), i1, &[])?
            }
            BuiltinOp::ViewId => {
                self.features.need_sm(6, 1);
                self.features.view_id = true;
                self.b.dxop(OpCode::ViewID, Some(i32t), i32t, &[])?
            }
            BuiltinOp::PrimitiveId => self.b.dxop(OpCode::PrimitiveID, Some(i32t), i32t, &[])?,
            BuiltinOp::GsInstanceId => self.b.dxop(OpCode::GSInstanceID, Some(i32t), i32t, &[])?,
            BuiltinOp::OutputControlPointId => match self.hull {
                Some(HullPhase::PatchConstant { invocation }) => invocation,
                _ => self
                    .b
                    .dxop(OpCode::OutputControlPointID, Some(i32t), i32t, &[])?,
            },
            BuiltinOp::StartVertex => {
                self.features.need_sm(6, 8);
                self.b
                    .dxop(OpCode::StartVertexLocation, Some(i32t), i32t, &[])?
            }
            BuiltinOp::StartInstance => {
                self.features.need_sm(6, 8);
                self.b
                    .dxop(OpCode::StartInstanceLocation, Some(i32t), i32t, &[])?
            }
            BuiltinOp::PatchVertices => {
                let n = self.input_control_points()?;
                self.b.i32c(i64::from(n))
            }
            BuiltinOp::PrimitiveIndex(_) => {
                return Err(unsupported(
                    "reading mesh primitive indices back (DXIL's EmitIndices writes only)",
                ));
            }
            BuiltinOp::DomainLocation(c) => {
                let comps = if self.tess_domain() == dxil_shader::TessellatorDomain::Tri {
                    3
                } else {
                    2
                };
                if c >= comps {
                    return Ok(self.b.zero(Scalar::F32));
                }
                let k = self.b.i8c(i64::from(c));
                self.b
                    .dxop(OpCode::DomainLocation, Some(f32t), f32t, &[k])?
            }
        })
    }

    /// Word `c` of a subgroup lane mask (eq, ge, gt, le, lt).
    fn subgroup_mask(&mut self, b: BuiltIn, c: u8) -> Result<Value> {
        let lane = self.builtin_value(BuiltinOp::LaneIndex)?;
        let base = self.b.i32c(i64::from(c) * 32);
        // Bits of this word at or above / below the lane: shift = lane - 32c.
        let rel = self.b.binary(BinOp::Sub, lane, base)?;
        let zero = self.b.i32c(0);
        let k32 = self.b.i32c(32);
        let all = self.b.i32c(-1);
        let one = self.b.i32c(1);
        let below = self.b.cmp(dxil_module::Predicate::ICMP_SLT, rel, zero)?;
        let above = self.b.cmp(dxil_module::Predicate::ICMP_SGE, rel, k32)?;
        let sh = self.binary_dxop(OpCode::IMax, rel, zero)?;
        let sh = self.binary_dxop(OpCode::IMin, sh, k32)?;
        let at = self.b.binary(BinOp::Shl, one, sh)?;
        let at_valid = self.b.binary(BinOp::Or, below, above)?;
        let eq = self.b.select(at_valid, zero, at)?;
        // ge mask of this word: all bits from `rel` up.
        let ge = self.b.binary(BinOp::Shl, all, sh)?;
        let ge = self.b.select(below, all, ge)?;
        let ge = self.b.select(above, zero, ge)?;
        Ok(match b {
            BuiltIn::SubgroupEqMask => eq,
            BuiltIn::SubgroupGeMask => ge,
            BuiltIn::SubgroupGtMask => {
                let x = self.b.binary(BinOp::Xor, eq, all)?;
                self.b.binary(BinOp::And, ge, x)?
            }
            BuiltIn::SubgroupLtMask => self.b.binary(BinOp::Xor, ge, all)?,
            _ => {
                let lt = self.b.binary(BinOp::Xor, ge, all)?;
                self.b.binary(BinOp::Or, lt, eq)?
            }
        })
    }

    fn shadow_ptr(&mut self, var: u32, shadow: u32, p: &Ptr) -> Result<Ptr> {
        let v = &self.io.vars[var as usize];
        let mut sp = *p;
        sp.base = Base::Local(shadow);
        if self.hull.is_some() {
            // One control point's copy (see `hull`).
            sp.vertex = None;
            return Ok(sp);
        }
        if let Some(vertex) = p.vertex {
            // The shadow of a per-vertex output holds every vertex.
            let per = self.leaf_count(v.elem_ty, 0)?;
            let ty = v.elem_ty;
            let _ = ty;
            self.add_dynamic(&mut sp, vertex, per)?;
            sp.vertex = None;
        }
        Ok(sp)
    }

    pub fn store_io(&mut self, p: &Ptr, vals: &[Value]) -> Result<()> {
        let Base::Output(i) = p.base else {
            return Err(malformed("store to an input variable"));
        };
        if self.model == EM::MeshEXT {
            return self.store_mesh_output(i, p, vals);
        }
        let shadow = self.io.vars[i as usize]
            .shadow
            .ok_or_else(|| crate::error::internal("output without a local copy"))?;
        let sp = self.shadow_ptr(i, shadow, p)?;
        self.store_local(&sp, vals)
    }

    /// Local copies of the outputs, zeroed (D3D12 wants every system-value output written).
    pub fn io_prologue(&mut self) -> Result<()> {
        self.mesh_prologue()?;
        for i in 0..self.io.vars.len() {
            // A mesh shader's outputs are written where they are stored (see `mesh`).
            if self.io.vars[i].class != StorageClass::Output || self.model == EM::MeshEXT {
                continue;
            }
            // A hull shader function keeps one control point of a per-vertex output.
            let ty = if self.hull.is_some() && self.io.vars[i].per_vertex {
                self.io.vars[i].elem_ty
            } else {
                self.io.vars[i].ty
            };
            let l = self.new_local(ty, 0)?;
            self.io.vars[i].shadow = Some(l);
            let kinds = self.leaf_kinds(ty)?;
            let zeros: Vec<Value> = kinds.iter().map(|&k| self.b.zero(k)).collect();
            let p = Ptr::new(Base::Local(l), ty);
            self.store_local(&p, &zeros)?;
        }
        Ok(())
    }

    /// Writes every output from its local copy (at the return of `@main`, or per emitted
    /// geometry-shader vertex).
    pub fn write_outputs(&mut self) -> Result<()> {
        for i in 0..self.io.vars.len() {
            let (class, shadow, ty) = {
                let v = &self.io.vars[i];
                (v.class, v.shadow, v.ty)
            };
            if class != StorageClass::Output {
                continue;
            }
            let Some(shadow) = shadow else { continue };
            let ty = if self.hull.is_some() && self.io.vars[i].per_vertex {
                self.io.vars[i].elem_ty
            } else {
                ty
            };
            let p = Ptr::new(Base::Local(shadow), ty);
            let vals = self.load_local(&p, ty)?;
            let leaves = self.io.vars[i].leaves.clone();
            for (k, v) in vals.into_iter().enumerate() {
                let Some(&Leaf::Sig {
                    sig,
                    elem,
                    row,
                    col,
                }) = leaves.get(k % leaves.len().max(1))
                else {
                    continue;
                };
                // A hull shader's `@main` writes control points, its patch-constant
                // function the patch.
                match (self.hull, sig) {
                    (Some(HullPhase::ControlPoint), SigKind::Patch) => continue,
                    (Some(HullPhase::PatchConstant { .. }), SigKind::Output) => continue,
                    _ => {}
                }
                self.write_leaf(sig, elem, row, col, v)?;
            }
        }
        Ok(())
    }

    pub(super) fn write_leaf(
        &mut self,
        sig: SigKind,
        elem: u32,
        row: u32,
        col: u8,
        v: Value,
    ) -> Result<()> {
        let s = self.sig_scalar(sig, elem)?;
        let have = self.b.scalar_type_of(v)?;
        let v = if have == s {
            v
        } else {
            self.scalar_to_slot(v, have, s)?
        };
        let t = self.b.scalar(s);
        let id = self.b.i32c(i64::from(elem));
        let r = self.b.i32c(i64::from(row));
        let c = self.b.i8c(i64::from(col));
        self.mark_usage(sig, elem, col);
        let void = self.b.t.void;
        let code = if sig == SigKind::Patch {
            OpCode::StorePatchConstant
        } else {
            OpCode::StoreOutput
        };
        self.b.dxop(code, Some(t), void, &[id, r, c, v])?;
        Ok(())
    }

    /// The workgroup size: `LocalSize`, `LocalSizeId`, or the `WorkgroupSize` built-in.
    pub fn workgroup_size(&self) -> Result<[u32; 3]> {
        for (id, d) in self.spv.defs.iter().enumerate() {
            if d.offset != 0
                && self.spv.decor.get(id as u32).builtin == Some(BuiltIn::WorkgroupSize)
            {
                let inst = self.spv.inst_at(d.offset)?;
                let parts = inst.rest(2);
                if parts.len() == 3 {
                    let mut out = [1u32; 3];
                    for (o, &p) in out.iter_mut().zip(parts) {
                        *o = self.const_u64(p)? as u32;
                    }
                    return Ok(out);
                }
            }
        }
        for em in &self.spv.exec_modes {
            if em.function != self.entry.function {
                continue;
            }
            if matches!(
                em.mode,
                spirv::ExecutionMode::LocalSize | spirv::ExecutionMode::LocalSizeId
            ) && em.operands.len() >= 3
            {
                let mut out = [1u32; 3];
                for (o, &v) in out.iter_mut().zip(&em.operands) {
                    *o = if em.by_id {
                        self.const_u64(v)? as u32
                    } else {
                        v
                    };
                }
                return Ok(out);
            }
        }
        Err(malformed("compute shader without a workgroup size"))
    }
}
