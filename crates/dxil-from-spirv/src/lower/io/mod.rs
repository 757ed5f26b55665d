//! Stage inputs and outputs. Every scalar of a stage variable maps to a signature element's
//! row and column (`loadInput`/`storeOutput`), to an operation (`threadId`, `coverage`, ...),
//! or is dropped (`PointSize`, which D3D12 does not have). Outputs live in a local copy that
//! is written to the signature when the entry point returns (or a vertex is emitted).

use dxil_module::{BinOp, CastOp, Value};
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

mod access;

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

/// One family of built-ins: how one maps, `None` when it is not in the family.
type BuiltinFamily<'a> = fn(&Tr<'a>, BuiltIn, bool, u8) -> Result<Option<Mapped>>;

impl Tr<'_> {
    fn is_input(&self, class: StorageClass) -> bool {
        class == StorageClass::Input
    }

    /// How a built-in maps in this stage and direction, or why it cannot.
    fn map_builtin(&self, b: BuiltIn, input: bool, comp: u8) -> Result<Mapped> {
        // Every built-in belongs to one family, so the order of the families does not matter.
        let families: [BuiltinFamily<'_>; 3] = [
            Self::compute_builtin,
            Self::raster_builtin,
            Self::primitive_builtin,
        ];
        for family in families {
            if let Some(mapped) = family(self, b, input, comp)? {
                return Ok(mapped);
            }
        }
        Err(unsupported(format!(
            "built-in {b:?} as an {} of a {:?} shader",
            if input { "input" } else { "output" },
            self.model
        )))
    }

    /// Compute and subgroup built-ins; `None` for one outside the family.
    fn compute_builtin(&self, b: BuiltIn, input: bool, comp: u8) -> Result<Option<Mapped>> {
        use BuiltIn as B;
        let m = self.model;
        Ok(Some(match (b, input) {
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
            _ => return Ok(None),
        }))
    }

    /// Positions, clip and cull distances, sample, depth and shading-rate built-ins of the rasterizer stages; `None` for one outside the family.
    fn raster_builtin(&self, b: BuiltIn, input: bool, comp: u8) -> Result<Option<Mapped>> {
        use BuiltIn as B;
        let m = self.model;
        let u32c = ComponentType::U32;
        let f32c = ComponentType::F32;
        Ok(Some(match (b, input) {
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
            _ => return Ok(None),
        }))
    }

    /// Primitive, tessellation, instancing and mesh built-ins; `None` for one outside the family.
    fn primitive_builtin(&self, b: BuiltIn, input: bool, comp: u8) -> Result<Option<Mapped>> {
        use BuiltIn as B;
        let m = self.model;
        let u32c = ComponentType::U32;
        let f32c = ComponentType::F32;
        Ok(Some(match (b, input) {
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
            _ => return Ok(None),
        }))
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
                // ShadingRateKHR and FragSizeEXT the one SV_ShadingRate, and FragCoord the
                // SV_Position that subpass inputs declare (`declare_frag_position`).
                let frag_position =
                    kind == SemanticKind::Position && input && self.model == EM::Fragment;
                if (frag_position
                    || matches!(kind, SemanticKind::SampleIndex | SemanticKind::ShadingRate))
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
    /// The fragment's SV_Position input element, declared if the shader has none yet:
    /// subpass inputs are read at the fragment's own pixel.
    pub(in crate::lower) fn declare_frag_position(&mut self) -> Result<u32> {
        if self.model != EM::Fragment {
            return Err(malformed("a subpass input outside a fragment shader"));
        }
        if let Some(e) = self
            .io
            .inputs
            .elems
            .iter()
            .position(|e| e.kind == SemanticKind::Position)
        {
            return Ok(e as u32);
        }
        self.io.inputs.add(SigElement {
            name: "SV_Position",
            kind: SemanticKind::Position,
            first_index: 0,
            comp: ComponentType::F32,
            interp: InterpolationMode::LinearNoperspective,
            rows: 1,
            cols: 4,
            col: 0,
            fixed_row: Some(0),
            packing: Packing::Packed,
            usage: 0,
            stream: 0,
            start_row: 0,
            block_row: None,
        })
    }

    /// The fragment's pixel as integers: `(int)SV_Position.xy`.
    pub(in crate::lower) fn frag_pixel(&mut self) -> Result<[Value; 2]> {
        let elem = self.declare_frag_position()?;
        // The pointer only carries "no dynamic offset, no vertex" to `read_leaf`.
        let p = Ptr::new(Base::Input(0), 0);
        let i32t = self.b.t.i32;
        let pixel = |tr: &mut Self, col: u8| -> Result<Value> {
            let leaf = Leaf::Sig {
                sig: SigKind::Input,
                elem,
                row: 0,
                col,
            };
            let f = tr.read_leaf(leaf, &p, Scalar::F32)?;
            tr.b.cast(CastOp::FPToSI, f, i32t)
        };
        Ok([pixel(self, 0)?, pixel(self, 1)?])
    }

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
}
