//! Inline ray tracing (SPV_KHR_ray_query) as DXIL's `AllocateRayQuery` and `RayQuery_*`
//! operations (shader model 6.5, every stage).
//!
//! A SPIR-V ray query is an opaque object in a `Function` or `Private` variable; a DXIL ray
//! query is the `i32` handle `AllocateRayQuery` returns, which may live in memory like any
//! integer (DXC keeps arrays of ray queries in allocas of handles). So a ray query variable
//! is a local array of `i32` slots: the prologue stores one fresh handle in each ray query
//! slot, and every operation loads the handle through the pointer it names (constant or
//! dynamic array indices work as for any local). SPIR-V has no template flags: every
//! allocation passes 0, and the flags of `OpRayQueryInitializeKHR` go to `TraceRayInline`
//! (SPIR-V's ray flag bits are D3D's `RAY_FLAG` bits).

use dxil_module::{BinOp, Value};
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::Tr;
use super::memory::{Base, Ptr};
use crate::builder::Scalar;
use crate::error::{Result, inexpressible, limit, malformed, unsupported};
use crate::spv::{Inst, Type};

/// Most ray queries one variable may hold: each costs an allocation in the prologue.
const MAX_RAY_QUERIES: usize = 1024;

/// Whether `op` works on ray queries (or makes an acceleration structure for one).
pub fn is_ray_query(op: Op) -> bool {
    matches!(
        op,
        Op::RayQueryInitializeKHR
            | Op::RayQueryTerminateKHR
            | Op::RayQueryGenerateIntersectionKHR
            | Op::RayQueryConfirmIntersectionKHR
            | Op::RayQueryProceedKHR
            | Op::RayQueryGetIntersectionTypeKHR
            | Op::RayQueryGetRayTMinKHR
            | Op::RayQueryGetRayFlagsKHR
            | Op::RayQueryGetIntersectionTKHR
            | Op::RayQueryGetIntersectionInstanceCustomIndexKHR
            | Op::RayQueryGetIntersectionInstanceIdKHR
            | Op::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR
            | Op::RayQueryGetIntersectionGeometryIndexKHR
            | Op::RayQueryGetIntersectionPrimitiveIndexKHR
            | Op::RayQueryGetIntersectionBarycentricsKHR
            | Op::RayQueryGetIntersectionFrontFaceKHR
            | Op::RayQueryGetIntersectionCandidateAABBOpaqueKHR
            | Op::RayQueryGetIntersectionObjectRayDirectionKHR
            | Op::RayQueryGetIntersectionObjectRayOriginKHR
            | Op::RayQueryGetWorldRayDirectionKHR
            | Op::RayQueryGetWorldRayOriginKHR
            | Op::RayQueryGetIntersectionObjectToWorldKHR
            | Op::RayQueryGetIntersectionWorldToObjectKHR
            | Op::RayQueryGetIntersectionTriangleVertexPositionsKHR
            | Op::ConvertUToAccelerationStructureKHR
    )
}

/// The `RayQuery_*` state reads of one SPIR-V getter: (candidate, committed).
fn state_ops(op: Op) -> Option<(OpCode, OpCode)> {
    use OpCode as D;
    Some(match op {
        Op::RayQueryGetIntersectionTypeKHR => {
            (D::RayQuery_CandidateType, D::RayQuery_CommittedStatus)
        }
        Op::RayQueryGetIntersectionTKHR => {
            (D::RayQuery_CandidateTriangleRayT, D::RayQuery_CommittedRayT)
        }
        // HLSL's InstanceID is the instance's custom index, its InstanceIndex the instance's
        // position in the acceleration structure (SPIR-V's InstanceId).
        Op::RayQueryGetIntersectionInstanceCustomIndexKHR => (
            D::RayQuery_CandidateInstanceID,
            D::RayQuery_CommittedInstanceID,
        ),
        Op::RayQueryGetIntersectionInstanceIdKHR => (
            D::RayQuery_CandidateInstanceIndex,
            D::RayQuery_CommittedInstanceIndex,
        ),
        Op::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR => (
            D::RayQuery_CandidateInstanceContributionToHitGroupIndex,
            D::RayQuery_CommittedInstanceContributionToHitGroupIndex,
        ),
        Op::RayQueryGetIntersectionGeometryIndexKHR => (
            D::RayQuery_CandidateGeometryIndex,
            D::RayQuery_CommittedGeometryIndex,
        ),
        Op::RayQueryGetIntersectionPrimitiveIndexKHR => (
            D::RayQuery_CandidatePrimitiveIndex,
            D::RayQuery_CommittedPrimitiveIndex,
        ),
        Op::RayQueryGetIntersectionBarycentricsKHR => (
            D::RayQuery_CandidateTriangleBarycentrics,
            D::RayQuery_CommittedTriangleBarycentrics,
        ),
        Op::RayQueryGetIntersectionFrontFaceKHR => (
            D::RayQuery_CandidateTriangleFrontFace,
            D::RayQuery_CommittedTriangleFrontFace,
        ),
        Op::RayQueryGetIntersectionObjectRayDirectionKHR => (
            D::RayQuery_CandidateObjectRayDirection,
            D::RayQuery_CommittedObjectRayDirection,
        ),
        Op::RayQueryGetIntersectionObjectRayOriginKHR => (
            D::RayQuery_CandidateObjectRayOrigin,
            D::RayQuery_CommittedObjectRayOrigin,
        ),
        Op::RayQueryGetIntersectionObjectToWorldKHR => (
            D::RayQuery_CandidateObjectToWorld3x4,
            D::RayQuery_CommittedObjectToWorld3x4,
        ),
        Op::RayQueryGetIntersectionWorldToObjectKHR => (
            D::RayQuery_CandidateWorldToObject3x4,
            D::RayQuery_CommittedWorldToObject3x4,
        ),
        _ => return None,
    })
}

impl Tr<'_> {
    /// Whether a type holds ray queries (a ray query or an array or struct of them).
    pub fn holds_ray_query(&self, ty: u32, depth: u32) -> bool {
        // Every local asks: most modules cannot have ray queries at all.
        if depth == 0
            && !self
                .spv
                .capabilities
                .contains(&spirv::Capability::RayQueryKHR)
        {
            return false;
        }
        if depth > super::types::MAX_TYPE_DEPTH {
            return false;
        }
        match self.spv.ty(ty) {
            Ok(Type::RayQuery) => true,
            Ok(Type::Array { elem, .. } | Type::RuntimeArray { elem }) => {
                self.holds_ray_query(elem, depth + 1)
            }
            Ok(Type::Struct { members }) => (0..members.1).any(|i| {
                self.spv
                    .type_lists
                    .get((members.0 + i) as usize)
                    .is_some_and(|&m| self.holds_ray_query(m, depth + 1))
            }),
            _ => false,
        }
    }

    /// Stores a fresh ray query handle in every ray query slot of local `l` (of type `ty`).
    pub fn init_ray_queries(&mut self, l: u32, ty: u32) -> Result<()> {
        if !self.holds_ray_query(ty, 0) {
            return Ok(());
        }
        let wide = self.locals[l as usize].wide;
        let mut slots = Vec::new();
        self.ray_query_slots(ty, wide, 0, &mut slots, 0)?;
        let i32t = self.b.t.i32;
        for off in slots {
            let flags = self.b.i32c(0);
            let h = self
                .b
                .dxop(OpCode::AllocateRayQuery, None, i32t, &[flags])?;
            let mut p = Ptr::new(Base::Local(l), ty);
            p.off = off;
            self.store_local(&p, &[h])?;
        }
        self.features.need_sm(6, 5);
        Ok(())
    }

    fn ray_query_slots(
        &mut self,
        ty: u32,
        wide: bool,
        base: u64,
        out: &mut Vec<u64>,
        depth: u32,
    ) -> Result<()> {
        if depth > super::types::MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        match self.spv.ty(ty)? {
            Type::RayQuery => {
                if out.len() >= MAX_RAY_QUERIES {
                    return Err(limit(format!(
                        "more than {MAX_RAY_QUERIES} ray queries in one variable"
                    )));
                }
                out.push(base);
            }
            Type::Array { elem, len } if self.holds_ray_query(elem, depth + 1) => {
                let n = self.array_len(len)?;
                let stride = self.slots(elem, wide, 0)?;
                for i in 0..n {
                    let at = base.saturating_add(i.saturating_mul(stride));
                    self.ray_query_slots(elem, wide, at, out, depth + 1)?;
                }
            }
            Type::Struct { members } => {
                let mut at = base;
                for i in 0..members.1 {
                    let m = *self
                        .spv
                        .type_lists
                        .get((members.0 + i) as usize)
                        .ok_or_else(|| {
                            malformed(format!("struct %{ty} member {i} out of range"))
                        })?;
                    self.ray_query_slots(m, wide, at, out, depth + 1)?;
                    at = at.saturating_add(self.slots(m, wide, 0)?);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The handle of the ray query a pointer operand names.
    fn ray_query_handle(&mut self, id: u32) -> Result<Value> {
        let p = self.ptr(id)?;
        if !matches!(p.base, Base::Local(_)) || !matches!(self.spv.ty(p.ty)?, Type::RayQuery) {
            return Err(malformed(format!("%{id} is not a pointer to a ray query")));
        }
        let v = self.load_local(&p, p.ty)?;
        v.first()
            .copied()
            .ok_or_else(|| crate::error::internal("ray query without a slot"))
    }

    pub(super) fn ray_query(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        // Ray query variables get their handles only in modules that declare ray queries.
        if op != Op::ConvertUToAccelerationStructureKHR
            && !self
                .spv
                .capabilities
                .contains(&spirv::Capability::RayQueryKHR)
        {
            return Err(malformed(format!(
                "Op{op:?} without the RayQueryKHR capability"
            )));
        }
        self.features.need_sm(6, 5);
        let void = self.b.t.void;
        match op {
            Op::ConvertUToAccelerationStructureKHR => Err(inexpressible(
                "acceleration structures from 64-bit addresses (DXIL reaches an acceleration \
                 structure only through a descriptor)",
            )),
            Op::RayQueryGetIntersectionTriangleVertexPositionsKHR => Err(unsupported(
                "triangle vertex positions of a ray query (no DXIL operation reads them)",
            )),
            Op::RayQueryInitializeKHR
                if self
                    .spv
                    .capabilities
                    .contains(&spirv::Capability::RayTracingOpacityMicromapEXT) =>
            {
                // D3D considers opacity micromaps only in a query allocated with
                // `AllocateRayQuery2(.., ALLOW_OPACITY_MICROMAPS)` (shader model 6.9).
                Err(unsupported(
                    "ray queries with opacity micromaps (they need shader model 6.9's \
                     AllocateRayQuery2, which this translator does not write)",
                ))
            }
            Op::RayQueryInitializeKHR => self.trace_ray_inline(inst),
            Op::RayQueryTerminateKHR | Op::RayQueryConfirmIntersectionKHR => {
                let h = self.ray_query_handle(inst.word(0)?)?;
                let code = if op == Op::RayQueryTerminateKHR {
                    OpCode::RayQuery_Abort
                } else {
                    OpCode::RayQuery_CommitNonOpaqueTriangleHit
                };
                self.b.dxop(code, None, void, &[h])?;
                Ok(())
            }
            Op::RayQueryGenerateIntersectionKHR => {
                let h = self.ray_query_handle(inst.word(0)?)?;
                let t = self.scalar(inst.word(1)?)?;
                self.b.dxop(
                    OpCode::RayQuery_CommitProceduralPrimitiveHit,
                    None,
                    void,
                    &[h, t],
                )?;
                Ok(())
            }
            Op::RayQueryProceedKHR => {
                let id = inst.word(1)?;
                let h = self.ray_query_handle(inst.word(2)?)?;
                let i1 = self.b.t.i1;
                let v = self.b.dxop(OpCode::RayQuery_Proceed, Some(i1), i1, &[h])?;
                self.set_scalar(id, v)
            }
            _ => self.ray_query_state(inst, op),
        }
    }

    /// `OpRayQueryInitializeKHR` → `RayQuery_TraceRayInline`.
    fn trace_ray_inline(&mut self, inst: &Inst<'_>) -> Result<()> {
        let h = self.ray_query_handle(inst.word(0)?)?;
        let accel = inst.word(1)?;
        let super::Slot::Handle { res, handle } = self.slot(accel) else {
            return Err(malformed(format!(
                "%{accel} is not an acceleration structure descriptor"
            )));
        };
        if self.resources[res as usize].kind != super::ResKind::AccelStruct {
            return Err(malformed(format!(
                "%{accel} is not an acceleration structure"
            )));
        }
        let flags = self.scalar(inst.word(2)?)?;
        let mask = self.scalar(inst.word(3)?)?;
        let origin = self.values(inst.word(4)?)?;
        let tmin = self.scalar(inst.word(5)?)?;
        let dir = self.values(inst.word(6)?)?;
        let tmax = self.scalar(inst.word(7)?)?;
        if origin.len() != 3 || dir.len() != 3 {
            return Err(malformed(
                "ray origin or direction is not a 3-component vector",
            ));
        }
        let mut args = vec![h, handle, flags, mask];
        args.extend_from_slice(&origin);
        args.push(tmin);
        args.extend_from_slice(&dir);
        args.push(tmax);
        let void = self.b.t.void;
        self.b
            .dxop(OpCode::RayQuery_TraceRayInline, None, void, &args)?;
        Ok(())
    }

    /// The state reads: ray properties, and the candidate's or committed intersection's.
    fn ray_query_state(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let h = self.ray_query_handle(inst.word(2)?)?;
        let (f32t, i32t) = (self.b.t.f32, self.b.t.i32);
        let simple = match op {
            Op::RayQueryGetRayTMinKHR => Some((OpCode::RayQuery_RayTMin, f32t)),
            Op::RayQueryGetRayFlagsKHR => Some((OpCode::RayQuery_RayFlags, i32t)),
            _ => None,
        };
        if let Some((code, t)) = simple {
            let v = self.b.dxop(code, Some(t), t, &[h])?;
            return self.set_scalar(id, v);
        }
        let world = match op {
            Op::RayQueryGetWorldRayOriginKHR => Some(OpCode::RayQuery_WorldRayOrigin),
            Op::RayQueryGetWorldRayDirectionKHR => Some(OpCode::RayQuery_WorldRayDirection),
            _ => None,
        };
        if let Some(code) = world {
            let v = self.state_vector(code, h, 3)?;
            return self.set_vals(id, &v);
        }
        if op == Op::RayQueryGetIntersectionCandidateAABBOpaqueKHR {
            // DXIL asks the opposite question.
            let i1 = self.b.t.i1;
            let non_opaque = self.b.dxop(
                OpCode::RayQuery_CandidateProceduralPrimitiveNonOpaque,
                Some(i1),
                i1,
                &[h],
            )?;
            let t = self.b.i1c(true);
            let v = self.b.binary(BinOp::Xor, non_opaque, t)?;
            return self.set_scalar(id, v);
        }
        let committed = self.intersection_operand(inst.word(3).ok())?;
        let (candidate, done) =
            state_ops(op).ok_or_else(|| unsupported(format!("ray query operation {op:?}")))?;
        let code = if committed { done } else { candidate };
        let v = match op {
            Op::RayQueryGetIntersectionBarycentricsKHR => self.state_vector(code, h, 2)?,
            Op::RayQueryGetIntersectionObjectRayDirectionKHR
            | Op::RayQueryGetIntersectionObjectRayOriginKHR => self.state_vector(code, h, 3)?,
            Op::RayQueryGetIntersectionObjectToWorldKHR
            | Op::RayQueryGetIntersectionWorldToObjectKHR => self.state_matrix(code, h)?,
            _ => {
                let k = self.scalar_kind(ty)?;
                let t = match k {
                    Scalar::I1 => self.b.t.i1,
                    Scalar::I32 => i32t,
                    Scalar::F32 => f32t,
                    _ => return Err(malformed("ray query result of another width than 32 bits")),
                };
                vec![self.b.dxop(code, Some(t), t, &[h])?]
            }
        };
        self.set_vals(id, &v)
    }

    /// The `Intersection` operand: candidate (0) or committed (1), a constant.
    fn intersection_operand(&mut self, id: Option<u32>) -> Result<bool> {
        let id = id.ok_or_else(|| malformed("ray query read without its Intersection operand"))?;
        let v = self.scalar(id)?;
        match self.b.as_const_int(v) {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            Some(k) => Err(malformed(format!("ray query Intersection operand {k}"))),
            None => Err(malformed(
                "ray query Intersection operand is not a constant",
            )),
        }
    }

    fn state_vector(&mut self, code: OpCode, h: Value, n: u8) -> Result<Vec<Value>> {
        let f32t = self.b.t.f32;
        let mut out = Vec::with_capacity(usize::from(n));
        for k in 0..n {
            let c = self.b.i8c(i64::from(k));
            out.push(self.b.dxop(code, Some(f32t), f32t, &[h, c])?);
        }
        Ok(out)
    }

    /// SPIR-V's 4×3 matrix (four columns of three rows) from DXIL's 3×4 one read by
    /// (row, column).
    fn state_matrix(&mut self, code: OpCode, h: Value) -> Result<Vec<Value>> {
        let f32t = self.b.t.f32;
        let mut out = Vec::with_capacity(12);
        for col in 0..4 {
            for row in 0..3 {
                let r = self.b.i32c(row);
                let c = self.b.i8c(col);
                out.push(self.b.dxop(code, Some(f32t), f32t, &[h, r, c])?);
            }
        }
        Ok(out)
    }
}
