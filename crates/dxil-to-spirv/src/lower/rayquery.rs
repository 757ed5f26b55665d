//! Inline ray tracing: `AllocateRayQuery` and `RayQuery_*` through SPV_KHR_ray_query.
//!
//! A DXIL ray query is an `i32` handle from `AllocateRayQuery`, which DXIL lets flow through phis, selects and
//! memory like any integer. The k-th allocation of a function returns `k`, and every `RayQuery_*` operation
//! indexes one `Function` array of `OpTypeRayQueryKHR` with the handle. The allocation's constant ray flags are OR-ed into `TraceRayInline`'s flags, as D3D
//! combines the `RayQuery<FLAGS>` template flags with the call's.

use dxil_module::TypeId;
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::{Args, Ctx, Val};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, TypeKey, words};

/// The template flags of a ray query: known, or loaded from the flag table.
#[derive(Clone, Copy)]
enum Flags {
    Const(u32),
    Dyn(Id),
}

impl<'a> Ctx<'a> {
    /// `AllocateRayQuery(constRayFlags)` / `AllocateRayQuery2(constRayFlags, constRayQueryFlags)`: the handle is
    /// the allocation's index into the function's ray query array.
    pub(super) fn allocate_ray_query(&mut self, i: u32) -> Result<Val, Error> {
        self.ray_query_caps();
        let k = self
            .f
            .rq_allocs
            .iter()
            .position(|&(x, _)| x == i)
            .ok_or_else(|| {
                self.invalid(Invalid::internal(
                    "AllocateRayQuery was not seen by the scan",
                ))
            })?;
        Ok(Val::Id(self.b.const_u32(k as u32)))
    }

    /// Pointer to the ray query object a handle operand names, and the constant flags of its allocation.
    fn ray_query_ptr(&mut self, a: Args<'_>) -> Result<(Id, Flags), Error> {
        self.ray_query_caps();
        let n = self.f.rq_allocs.len() as u32;
        if n == 0 {
            return Err(self.invalid(Invalid::resource(
                "ray query operation without AllocateRayQuery",
            )));
        }
        let rqt = self.b.ty(TypeKey::RayQuery);
        let var = match self.f.rq_var {
            Some(var) => var,
            None => {
                let t = if n == 1 {
                    rqt
                } else {
                    self.b.ty(TypeKey::Array(rqt, n))
                };
                let var = self.local_var(t);
                self.f.rq_var = Some(var);
                var
            }
        };
        let v = self.arg(a, 1)?;
        let u = self.b.u32();
        let (index, flags) = match self.const_int(v) {
            Some(k) => {
                let k = (k as u32).min(n - 1);
                (
                    self.b.const_u32(k),
                    Flags::Const(self.f.rq_allocs[k as usize].1),
                )
            }
            None => {
                let x = self.value(v)?;
                let last = self.b.const_u32(n - 1);
                let x = self.glsl(u, spirv::GLOp::UMin, &[x, last]);
                let f0 = self.f.rq_allocs[0].1;
                if self.f.rq_allocs.iter().all(|&(_, f)| f == f0) {
                    (x, Flags::Const(f0))
                } else {
                    // A handle chosen at run time among allocations with different template flags: look the
                    // flags up in a constant table.
                    let flags: Vec<Id> = self
                        .f
                        .rq_allocs
                        .iter()
                        .map(|&(_, f)| self.b.const_u32(f))
                        .collect();
                    let at = self.b.ty(TypeKey::Array(u, n));
                    let init = self.b.const_composite(at, &flags);
                    let pt = self.b.ptr(spirv::StorageClass::Private, at);
                    let table = self
                        .b
                        .global_var(pt, spirv::StorageClass::Private, Some(init));
                    let pe = self.b.ptr(spirv::StorageClass::Private, u);
                    let p = self.chain(pe, table, &[x]);
                    (x, Flags::Dyn(self.load(u, p)))
                }
            }
        };
        let ptr = if n == 1 {
            var
        } else {
            let pt = self.b.ptr(spirv::StorageClass::Function, rqt);
            self.chain(pt, var, &[index])
        };
        Ok((ptr, flags))
    }

    pub(super) fn ray_query_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let (rq, const_flags) = self.ray_query_ptr(a)?;
        let u = self.b.u32();
        let f = self.b.f32();
        let bt = self.b.bool();
        let v3 = self.b.vec(f, 3);
        let committed = |this: &mut Self, yes: bool| this.b.const_u32(yes as u32);
        let id = |x: Id| Ok(Val::Id(x));
        match op {
            OpCode::RayQuery_TraceRayInline => {
                let h = self.handle_of_arg(a, 2)?;
                let accel = self.load_accel(&h)?;
                let mut flags = self.arg_id(a, 3)?;
                match const_flags {
                    Flags::Const(0) => {}
                    Flags::Const(cf) => {
                        let c = self.b.const_u32(cf);
                        flags = self.op2(Op::BitwiseOr, u, flags, c);
                    }
                    Flags::Dyn(c) => flags = self.op2(Op::BitwiseOr, u, flags, c),
                }
                let mask = self.arg_id(a, 4)?;
                // Every slot is written below (operands read in their order, origin and direction alternating).
                let mut o = [mask; 3];
                let mut d = [mask; 3];
                for k in 0..3 {
                    o[k] = self.arg_id(a, 5 + k)?;
                    d[k] = self.arg_id(a, 9 + k)?;
                }
                let tmin = self.arg_id(a, 8)?;
                let tmax = self.arg_id(a, 12)?;
                let origin = self.op_ids(Op::CompositeConstruct, v3, &o);
                let dir = self.op_ids(Op::CompositeConstruct, v3, &d);
                self.emit(
                    Op::RayQueryInitializeKHR,
                    &words![rq, accel, flags, mask, origin, tmin, dir, tmax],
                );
                Ok(Val::None)
            }
            OpCode::RayQuery_Proceed => id(self.op1(Op::RayQueryProceedKHR, bt, rq)),
            OpCode::RayQuery_Abort => {
                self.emit(Op::RayQueryTerminateKHR, &words![rq]);
                Ok(Val::None)
            }
            OpCode::RayQuery_CommitNonOpaqueTriangleHit => {
                self.emit(Op::RayQueryConfirmIntersectionKHR, &words![rq]);
                Ok(Val::None)
            }
            OpCode::RayQuery_CommitProceduralPrimitiveHit => {
                let t = self.arg_id(a, 2)?;
                self.emit(Op::RayQueryGenerateIntersectionKHR, &words![rq, t]);
                Ok(Val::None)
            }
            OpCode::RayQuery_CommittedStatus | OpCode::RayQuery_CandidateType => {
                let c = committed(self, op == OpCode::RayQuery_CommittedStatus);
                id(self.op2(Op::RayQueryGetIntersectionTypeKHR, u, rq, c))
            }
            OpCode::RayQuery_CandidateObjectToWorld3x4
            | OpCode::RayQuery_CandidateWorldToObject3x4
            | OpCode::RayQuery_CommittedObjectToWorld3x4
            | OpCode::RayQuery_CommittedWorldToObject3x4 => {
                let c = committed(
                    self,
                    matches!(
                        op,
                        OpCode::RayQuery_CommittedObjectToWorld3x4
                            | OpCode::RayQuery_CommittedWorldToObject3x4
                    ),
                );
                let mt = self.b.ty(TypeKey::Matrix(v3, 4));
                let o = if op == OpCode::RayQuery_CandidateObjectToWorld3x4
                    || op == OpCode::RayQuery_CommittedObjectToWorld3x4
                {
                    Op::RayQueryGetIntersectionObjectToWorldKHR
                } else {
                    Op::RayQueryGetIntersectionWorldToObjectKHR
                };
                let m = self.op2(o, mt, rq, c);
                let row = self.arg_const(a, 2)? as u32;
                let col = self.arg_const(a, 3)? as u32;
                if row > 2 || col > 3 {
                    return Err(
                        self.invalid(Invalid::range("ray query matrix element out of range"))
                    );
                }
                // SPIR-V returns 4 columns of 3 rows; DXIL indexes the 3×4 matrix by (row, col).
                id(self.opn(Op::CompositeExtract, f, &words![m, col, row]))
            }
            OpCode::RayQuery_CandidateProceduralPrimitiveNonOpaque => {
                let o = self.op1(Op::RayQueryGetIntersectionCandidateAABBOpaqueKHR, bt, rq);
                id(self.op1(Op::LogicalNot, bt, o))
            }
            OpCode::RayQuery_CandidateTriangleFrontFace
            | OpCode::RayQuery_CommittedTriangleFrontFace => {
                let c = committed(self, op == OpCode::RayQuery_CommittedTriangleFrontFace);
                id(self.op2(Op::RayQueryGetIntersectionFrontFaceKHR, bt, rq, c))
            }
            OpCode::RayQuery_CandidateTriangleBarycentrics
            | OpCode::RayQuery_CommittedTriangleBarycentrics => {
                let c = committed(self, op == OpCode::RayQuery_CommittedTriangleBarycentrics);
                let v2 = self.b.vec(f, 2);
                let b = self.op2(Op::RayQueryGetIntersectionBarycentricsKHR, v2, rq, c);
                let k = self.arg_const(a, 2)? as u32;
                if k > 1 {
                    return Err(self.invalid(Invalid::range("barycentric component out of range")));
                }
                id(self.opn(Op::CompositeExtract, f, &words![b, k]))
            }
            OpCode::RayQuery_RayFlags => id(self.op1(Op::RayQueryGetRayFlagsKHR, u, rq)),
            OpCode::RayQuery_WorldRayOrigin | OpCode::RayQuery_WorldRayDirection => {
                let o = if op == OpCode::RayQuery_WorldRayOrigin {
                    Op::RayQueryGetWorldRayOriginKHR
                } else {
                    Op::RayQueryGetWorldRayDirectionKHR
                };
                let v = self.op1(o, v3, rq);
                let k = self.component3(a)?;
                id(self.opn(Op::CompositeExtract, f, &words![v, k]))
            }
            OpCode::RayQuery_RayTMin => id(self.op1(Op::RayQueryGetRayTMinKHR, f, rq)),
            OpCode::RayQuery_CandidateTriangleRayT | OpCode::RayQuery_CommittedRayT => {
                let c = committed(self, op == OpCode::RayQuery_CommittedRayT);
                id(self.op2(Op::RayQueryGetIntersectionTKHR, f, rq, c))
            }
            OpCode::RayQuery_CandidateInstanceIndex
            | OpCode::RayQuery_CandidateInstanceID
            | OpCode::RayQuery_CandidateGeometryIndex
            | OpCode::RayQuery_CandidatePrimitiveIndex
            | OpCode::RayQuery_CommittedInstanceIndex
            | OpCode::RayQuery_CommittedInstanceID
            | OpCode::RayQuery_CommittedGeometryIndex
            | OpCode::RayQuery_CommittedPrimitiveIndex
            | OpCode::RayQuery_CandidateInstanceContributionToHitGroupIndex
            | OpCode::RayQuery_CommittedInstanceContributionToHitGroupIndex => {
                let yes = matches!(
                    op,
                    OpCode::RayQuery_CommittedInstanceIndex
                        | OpCode::RayQuery_CommittedInstanceID
                        | OpCode::RayQuery_CommittedGeometryIndex
                        | OpCode::RayQuery_CommittedPrimitiveIndex
                        | OpCode::RayQuery_CommittedInstanceContributionToHitGroupIndex
                );
                let c = committed(self, yes);
                let o = match op {
                    OpCode::RayQuery_CandidateInstanceIndex
                    | OpCode::RayQuery_CommittedInstanceIndex => {
                        Op::RayQueryGetIntersectionInstanceIdKHR
                    }
                    OpCode::RayQuery_CandidateInstanceID | OpCode::RayQuery_CommittedInstanceID => {
                        Op::RayQueryGetIntersectionInstanceCustomIndexKHR
                    }
                    OpCode::RayQuery_CandidateGeometryIndex
                    | OpCode::RayQuery_CommittedGeometryIndex => {
                        Op::RayQueryGetIntersectionGeometryIndexKHR
                    }
                    OpCode::RayQuery_CandidatePrimitiveIndex
                    | OpCode::RayQuery_CommittedPrimitiveIndex => {
                        Op::RayQueryGetIntersectionPrimitiveIndexKHR
                    }
                    _ => Op::RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR,
                };
                id(self.op2(o, u, rq, c))
            }
            OpCode::RayQuery_CandidateObjectRayOrigin
            | OpCode::RayQuery_CandidateObjectRayDirection
            | OpCode::RayQuery_CommittedObjectRayOrigin
            | OpCode::RayQuery_CommittedObjectRayDirection => {
                let c = committed(
                    self,
                    matches!(
                        op,
                        OpCode::RayQuery_CommittedObjectRayOrigin
                            | OpCode::RayQuery_CommittedObjectRayDirection
                    ),
                );
                let o = if op == OpCode::RayQuery_CandidateObjectRayOrigin
                    || op == OpCode::RayQuery_CommittedObjectRayOrigin
                {
                    Op::RayQueryGetIntersectionObjectRayOriginKHR
                } else {
                    Op::RayQueryGetIntersectionObjectRayDirectionKHR
                };
                let v = self.op2(o, v3, rq, c);
                let k = self.component3(a)?;
                id(self.opn(Op::CompositeExtract, f, &words![v, k]))
            }
            _ => {
                let _ = ty;
                Err(self.unsupported(Unsupported::Operation(op)))
            }
        }
    }

    fn component3(&self, a: Args<'_>) -> Result<u32, Error> {
        let k = self.arg_const(a, 2)? as u32;
        if k > 2 {
            return Err(self.invalid(Invalid::range("vector component out of range")));
        }
        Ok(k)
    }
}
