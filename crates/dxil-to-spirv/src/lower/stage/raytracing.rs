//! Ray-tracing stages (SPV_KHR_ray_tracing): ray generation, intersection, any hit, closest hit, miss and callable
//! shaders of a library.
//!
//! * The entry function's pointer parameters are the stage's incoming data: the payload of hit and miss shaders
//!   (`IncomingRayPayloadKHR`), the hit attributes of hit shaders (`HitAttributeKHR`), the callable data of callable
//!   shaders (`IncomingCallableDataKHR`). Accesses through them address those variables directly.
//! * `TraceRay` / `CallShader` take a pointer to the payload / callable data. An `alloca` used as such becomes the
//!   `RayPayloadKHR` / `CallableDataKHR` variable itself (every access to it goes there); any other pointer (an
//!   incoming payload passed on, a field of a local) is copied into a variable of that class before the call and
//!   back after it.
//! * `ReportHit` stores its attributes into the intersection shader's one `HitAttributeKHR` variable, then reports.
//! * `IgnoreHit` / `AcceptHitAndEndSearch` end the any-hit shader, as in D3D: they are `OpIgnoreIntersectionKHR` /
//!   `OpTerminateRayKHR`, the terminator of their block in place of the `unreachable` DXC puts after them. Where
//!   other instructions follow the call, the terminator sits in a helper function the call site calls, so the code
//!   after it is never reached.
//! * System values are the matching built-ins (`InstanceIndex()` is `InstanceId`, `InstanceID()` is
//!   `InstanceCustomIndexKHR`; `RayTCurrent()` is `RayTmaxKHR`, `Volatile` in intersection shaders where
//!   `ReportHit` changes it). `ObjectToWorld(row, col)` / `WorldToObject(row, col)` index D3D's 3×4 matrix: column
//!   `col`, row `row` of the 4-column built-in matrix.
//!
//! An operation of another stage (DXIL's operation table gives the stages of each) is refused.

use dxil_module::{Body, InstKind, TypeData, TypeId, Value};
use dxil_shader::ops::{OpCode, ShaderStages};
use spirv::{BuiltIn, Capability, Decoration, ExecutionModel, Op, StorageClass};

use super::super::{Args, Ctx, Val};
use crate::dxil::Stage;
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{self, Id, TypeKey, words};

/// The execution model of a ray-tracing stage.
pub(super) fn execution_model(stage: Stage) -> Option<ExecutionModel> {
    Some(match stage {
        Stage::RayGeneration => ExecutionModel::RayGenerationKHR,
        Stage::Intersection => ExecutionModel::IntersectionKHR,
        Stage::AnyHit => ExecutionModel::AnyHitKHR,
        Stage::ClosestHit => ExecutionModel::ClosestHitKHR,
        Stage::Miss => ExecutionModel::MissKHR,
        Stage::Callable => ExecutionModel::CallableKHR,
        _ => return None,
    })
}

/// The DXIL operation table's stage bit of a ray-tracing stage.
fn stage_bit(stage: Stage) -> ShaderStages {
    match stage {
        Stage::RayGeneration => ShaderStages::RAY_GENERATION,
        Stage::Intersection => ShaderStages::INTERSECTION,
        Stage::AnyHit => ShaderStages::ANY_HIT,
        Stage::ClosestHit => ShaderStages::CLOSEST_HIT,
        Stage::Miss => ShaderStages::MISS,
        _ => ShaderStages::CALLABLE,
    }
}

/// The ray-tracing state of a translation.
#[derive(Default)]
pub(crate) struct RayState {
    /// The variables of the entry function's pointer parameters: (variable, storage class, LLVM pointee type).
    incoming: [Option<(Id, StorageClass, TypeId)>; 2],
    /// The intersection shader's `HitAttributeKHR` variable and the LLVM type it holds.
    hit_attributes: Option<(Id, TypeId)>,
    /// Allocas that are payloads or callable data: (instruction, storage class).
    allocas: Vec<(u32, StorageClass)>,
    /// Variables holding copies of payloads and callable data: (storage class, LLVM type, variable).
    copies: Vec<(StorageClass, TypeId, Id)>,
    /// The terminator that replaces `unreachable` at the end of a virtual block: (block, opcode).
    terminator: Option<(u32, Op)>,
    /// Helper functions holding only `OpIgnoreIntersectionKHR` / `OpTerminateRayKHR`.
    helpers: [Option<Id>; 2],
    /// The `ShaderRecordBufferKHR` block (local root signature arguments).
    pub record: Option<Id>,
}

/// The payload operand of `TraceRay` and the callable-data operand of `CallShader`, and their storage class.
fn data_operand(op: OpCode) -> Option<(usize, StorageClass)> {
    match op {
        OpCode::TraceRay => Some((15, StorageClass::RayPayloadKHR)),
        OpCode::CallShader => Some((2, StorageClass::CallableDataKHR)),
        _ => None,
    }
}

impl<'a> Ctx<'a> {
    /// Capabilities every ray-tracing module needs (before anything is lowered: SPIR-V 1.4 changes the interface).
    pub(super) fn ray_tracing_prepare(&mut self) {
        self.b.capability(Capability::RayTracingKHR);
        self.b.extension("SPV_KHR_ray_tracing");
        self.b.require_version(0x0001_0400);
    }

    /// Before the function is scanned: allocas passed as the payload of `TraceRay` or the callable data of
    /// `CallShader` (and to nothing of the other kind) become variables of that storage class.
    pub(in crate::lower) fn ray_tracing_allocas(&mut self, body: &Body) -> Result<(), Error> {
        if !self.entry.stage.is_ray_tracing() {
            return Ok(());
        }
        let mut found: Vec<(u32, StorageClass, bool)> = Vec::new();
        for d in &body.insts {
            let InstKind::Call { callee, args, .. } = &d.kind else {
                continue;
            };
            if !self.is_dx_op(*callee) {
                continue;
            }
            let a = Args(args.get(&body.pool));
            let Some((k, sc)) = self.dx_opcode_of(a).ok().and_then(data_operand) else {
                continue;
            };
            let Some(i) = a.get(k).and_then(|v| v.as_inst()) else {
                continue;
            };
            if !matches!(body.inst(i).map(|d| &d.kind), Some(InstKind::Alloca { .. })) {
                continue;
            }
            match found.iter_mut().find(|f| f.0 == i.0) {
                Some(f) => f.2 &= f.1 == sc,
                None => found.push((i.0, sc, true)),
            }
        }
        for (i, sc, ok) in found {
            let Some(InstKind::Alloca { allocated, .. }) =
                body.insts.get(i as usize).map(|d| &d.kind)
            else {
                continue;
            };
            if !ok {
                continue;
            }
            let t = self.ty(*allocated)?;
            let pt = self.b.ptr(sc, t);
            let var = self.b.global_var(pt, sc, None);
            if let Some(slot) = self.f.alloca_var.get_mut(i as usize) {
                *slot = Some(var);
            }
            self.rt.allocas.push((i, sc));
        }
        Ok(())
    }

    /// The storage class of an alloca's variable: `Function`, or the payload class it was given.
    pub(in crate::lower) fn alloca_storage(&self, i: u32) -> StorageClass {
        self.rt
            .allocas
            .iter()
            .find(|a| a.0 == i)
            .map_or(StorageClass::Function, |a| a.1)
    }

    /// The variable behind parameter `k` of the entry function: (variable, storage class, LLVM pointee type).
    pub(in crate::lower) fn incoming_param(
        &mut self,
        k: u32,
    ) -> Result<(Id, StorageClass, TypeId), Error> {
        if let Some(Some(v)) = self.rt.incoming.get(k as usize) {
            return Ok(*v);
        }
        let stage = self.entry.stage;
        let sc = match (stage, k) {
            (Stage::AnyHit | Stage::ClosestHit | Stage::Miss, 0) => {
                StorageClass::IncomingRayPayloadKHR
            }
            (Stage::AnyHit | Stage::ClosestHit, 1) => StorageClass::HitAttributeKHR,
            (Stage::Callable, 0) => StorageClass::IncomingCallableDataKHR,
            _ => {
                return Err(self.invalid(Invalid::reference(format!(
                    "parameter {k} of a {} shader",
                    stage.name()
                ))));
            }
        };
        let pointee = self
            .func_of(self.entry.function)
            .and_then(|f| match self.m.types.data(f.ty) {
                TypeData::Function { params, .. } => params.get(k as usize).copied(),
                _ => None,
            })
            .and_then(|p| match self.m.types.data(p) {
                TypeData::Pointer { pointee, .. } => Some(*pointee),
                _ => None,
            })
            .ok_or_else(|| {
                self.invalid(Invalid::ty(format!(
                    "parameter {k} of the entry function is not a pointer"
                )))
            })?;
        let t = self.ty(pointee)?;
        let pt = self.b.ptr(sc, t);
        let var = self.b.global_var(pt, sc, None);
        let v = (var, sc, pointee);
        self.rt.incoming[k as usize] = Some(v);
        Ok(v)
    }

    /// Ray-tracing operations of the current stage: `None` when `op` is none.
    pub(super) fn ray_tracing_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        let r = match op {
            OpCode::DispatchRaysIndex => self.ray_vector(BuiltIn::LaunchIdKHR, false, a),
            OpCode::DispatchRaysDimensions => self.ray_vector(BuiltIn::LaunchSizeKHR, false, a),
            OpCode::WorldRayOrigin => self.ray_vector(BuiltIn::WorldRayOriginKHR, true, a),
            OpCode::WorldRayDirection => self.ray_vector(BuiltIn::WorldRayDirectionKHR, true, a),
            OpCode::ObjectRayOrigin => self.ray_vector(BuiltIn::ObjectRayOriginKHR, true, a),
            OpCode::ObjectRayDirection => self.ray_vector(BuiltIn::ObjectRayDirectionKHR, true, a),
            OpCode::ObjectToWorld => self.ray_matrix(BuiltIn::ObjectToWorldKHR, a),
            OpCode::WorldToObject => self.ray_matrix(BuiltIn::WorldToObjectKHR, a),
            OpCode::RayTMin => self.ray_scalar(BuiltIn::RayTminKHR, true),
            OpCode::RayTCurrent => self.ray_scalar(BuiltIn::RayTmaxKHR, true),
            OpCode::InstanceID => self.ray_scalar(BuiltIn::InstanceCustomIndexKHR, false),
            OpCode::InstanceIndex => self.ray_scalar(BuiltIn::InstanceId, false),
            OpCode::PrimitiveIndex => self.ray_scalar(BuiltIn::PrimitiveId, false),
            OpCode::GeometryIndex => self.ray_scalar(BuiltIn::RayGeometryIndexKHR, false),
            OpCode::HitKind => self.ray_scalar(BuiltIn::HitKindKHR, false),
            OpCode::RayFlags => self.ray_scalar(BuiltIn::IncomingRayFlagsKHR, false),
            OpCode::TraceRay => self.trace_ray(a),
            OpCode::CallShader => self.call_shader(a),
            OpCode::ReportHit => self.report_hit(a),
            OpCode::IgnoreHit | OpCode::AcceptHitAndEndSearch => self.end_hit(op),
            _ => return None,
        };
        let _ = ty;
        if !op.info().stages.contains(stage_bit(self.entry.stage)) {
            return Some(Err(self.unsupported(Unsupported::OperationNeeds {
                op,
                why: "not available in this ray-tracing stage",
            })));
        }
        Some(r)
    }

    /// The variable of a ray-tracing built-in, declared on first use.
    fn ray_builtin(&mut self, bi: BuiltIn) -> Id {
        if let Some(&(_, v)) = self.builtins.iter().find(|&&(b, _)| b == bi) {
            return v;
        }
        let f = self.b.f32();
        let u = self.b.u32();
        let ty = match bi {
            BuiltIn::LaunchIdKHR | BuiltIn::LaunchSizeKHR => self.b.vec(u, 3),
            BuiltIn::WorldRayOriginKHR
            | BuiltIn::WorldRayDirectionKHR
            | BuiltIn::ObjectRayOriginKHR
            | BuiltIn::ObjectRayDirectionKHR => self.b.vec(f, 3),
            BuiltIn::ObjectToWorldKHR | BuiltIn::WorldToObjectKHR => {
                let v3 = self.b.vec(f, 3);
                self.b.ty(TypeKey::Matrix(v3, 4))
            }
            BuiltIn::RayTminKHR | BuiltIn::RayTmaxKHR => f,
            _ => u,
        };
        let pty = self.b.ptr(StorageClass::Input, ty);
        let var = self.b.global_var(pty, StorageClass::Input, None);
        self.b.decorate(var, Decoration::BuiltIn, &[bi as u32]);
        if bi == BuiltIn::RayTmaxKHR && self.entry.stage == Stage::Intersection {
            // ReportHit moves it: every read must load it anew.
            self.b.decorate(var, Decoration::Volatile, &[]);
        }
        self.builtins.push((bi, var));
        var
    }

    /// A scalar built-in (`u32`, or `f32` when `float`).
    fn ray_scalar(&mut self, bi: BuiltIn, float: bool) -> Result<Val, Error> {
        let var = self.ray_builtin(bi);
        let t = if float { self.b.f32() } else { self.b.u32() };
        Ok(Val::Id(self.load(t, var)))
    }

    /// Component `col` (operand 1) of a 3-vector built-in.
    fn ray_vector(&mut self, bi: BuiltIn, float: bool, a: Args<'_>) -> Result<Val, Error> {
        let var = self.ray_builtin(bi);
        let t = if float { self.b.f32() } else { self.b.u32() };
        let v = self.arg(a, 1)?;
        let c = match self.const_int(v) {
            Some(c) if (0..3).contains(&c) => self.b.const_u32(c as u32),
            Some(_) => return Err(self.invalid(Invalid::range("vector component out of range"))),
            None => self.value(v)?,
        };
        let pt = self.b.ptr(StorageClass::Input, t);
        let p = self.chain(pt, var, &[c]);
        Ok(Val::Id(self.load(t, p)))
    }

    /// Element (`row`, `col`) (operands 1, 2) of D3D's 3×4 transform: column `col`, row `row` of the built-in.
    fn ray_matrix(&mut self, bi: BuiltIn, a: Args<'_>) -> Result<Val, Error> {
        let row = self.arg_const(a, 1)?;
        let col = self.arg_const(a, 2)?;
        if !(0..3).contains(&row) || !(0..4).contains(&col) {
            return Err(self.invalid(Invalid::range("transform element out of range")));
        }
        let var = self.ray_builtin(bi);
        let f = self.b.f32();
        let pt = self.b.ptr(StorageClass::Input, f);
        let c = self.b.const_u32(col as u32);
        let r = self.b.const_u32(row as u32);
        let p = self.chain(pt, var, &[c, r]);
        Ok(Val::Id(self.load(f, p)))
    }

    /// The variable a payload or callable-data operand passes: the promoted alloca itself, or a variable of `sc`
    /// the pointee is copied into (then also returned: the pointer and the SPIR-V type to copy back).
    fn data_var(&mut self, ptr: Value, sc: StorageClass) -> Result<(Id, Option<(Id, Id)>), Error> {
        if let Some(i) = ptr.as_inst()
            && self.alloca_storage(i.0) == sc
            && let Some(var) = self.alloca_of(ptr)
        {
            return Ok((var, None));
        }
        let body = self
            .func_of(self.entry.function)
            .and_then(|f| f.body.as_ref())
            .ok_or_else(|| self.invalid(Invalid::reference("no function body")))?;
        let (p, pointee, _) = self.access(body, ptr)?;
        let t = self.ty(pointee)?;
        let var = match self.rt.copies.iter().find(|c| c.0 == sc && c.1 == pointee) {
            Some(c) => c.2,
            None => {
                let pt = self.b.ptr(sc, t);
                let var = self.b.global_var(pt, sc, None);
                self.rt.copies.push((sc, pointee, var));
                var
            }
        };
        let v = self.load(t, p);
        self.store(var, v);
        Ok((var, Some((p, t))))
    }

    /// Copies a payload back to where the call's operand points (after the call).
    fn copy_back(&mut self, var: Id, back: Option<(Id, Id)>) {
        if let Some((p, t)) = back {
            let v = self.load(t, var);
            self.store(p, v);
        }
    }

    /// `TraceRay(accelerationStructure, rayFlags, instanceInclusionMask, rayContributionToHitGroupIndex,
    /// multiplierForGeometryContributionToShaderIndex, missShaderIndex, origin xyz, tMin, direction xyz, tMax,
    /// payload)`.
    fn trace_ray(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let h = self.handle_of_arg(a, 1)?;
        let accel = self.load_accel(&h)?;
        let mut ops = [accel; 6];
        for (k, slot) in ops.iter_mut().enumerate().skip(1) {
            *slot = self.arg_id(a, k + 1)?;
        }
        let f = self.b.f32();
        let v3 = self.b.vec(f, 3);
        let mut o = [accel; 3];
        let mut d = [accel; 3];
        for k in 0..3 {
            o[k] = self.arg_id(a, 7 + k)?;
            d[k] = self.arg_id(a, 11 + k)?;
        }
        let tmin = self.arg_id(a, 10)?;
        let tmax = self.arg_id(a, 14)?;
        let origin = self.op_ids(Op::CompositeConstruct, v3, &o);
        let dir = self.op_ids(Op::CompositeConstruct, v3, &d);
        let payload = self.arg(a, 15)?;
        let (var, back) = self.data_var(payload, StorageClass::RayPayloadKHR)?;
        let [accel, flags, mask, offset, stride, miss] = ops;
        self.emit(
            Op::TraceRayKHR,
            &words![
                accel, flags, mask, offset, stride, miss, origin, tmin, dir, tmax, var
            ],
        );
        self.copy_back(var, back);
        Ok(Val::None)
    }

    /// `CallShader(shaderIndex, parameter)`.
    fn call_shader(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let index = self.arg_id(a, 1)?;
        let param = self.arg(a, 2)?;
        let (var, back) = self.data_var(param, StorageClass::CallableDataKHR)?;
        self.emit(Op::ExecuteCallableKHR, &words![index, var]);
        self.copy_back(var, back);
        Ok(Val::None)
    }

    /// `ReportHit(tHit, hitKind, attributes)`: the attributes go to the `HitAttributeKHR` variable first.
    fn report_hit(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let t = self.arg_id(a, 1)?;
        let kind = self.arg_id(a, 2)?;
        let attr = self.arg(a, 3)?;
        let body = self
            .func_of(self.entry.function)
            .and_then(|f| f.body.as_ref())
            .ok_or_else(|| self.invalid(Invalid::reference("no function body")))?;
        let (p, pointee, _) = self.access(body, attr)?;
        let at = self.ty(pointee)?;
        let var = match self.rt.hit_attributes {
            Some((var, ty)) if ty == pointee => var,
            Some(_) => {
                return Err(self.unsupported(Unsupported::value(
                    "ReportHit with attributes of two types (one shader has one HitAttributeKHR variable)",
                )));
            }
            None => {
                let pt = self.b.ptr(StorageClass::HitAttributeKHR, at);
                let var = self.b.global_var(pt, StorageClass::HitAttributeKHR, None);
                self.rt.hit_attributes = Some((var, pointee));
                var
            }
        };
        let v = self.load(at, p);
        self.store(var, v);
        let bt = self.b.bool();
        Ok(Val::Id(self.op2(Op::ReportIntersectionKHR, bt, t, kind)))
    }

    /// `IgnoreHit` / `AcceptHitAndEndSearch`: the block's terminator when `unreachable` follows the call, else a
    /// call of a helper function that ends the invocation.
    fn end_hit(&mut self, op: OpCode) -> Result<Val, Error> {
        let term = if op == OpCode::IgnoreHit {
            Op::IgnoreIntersectionKHR
        } else {
            Op::TerminateRayKHR
        };
        let vb = self.f.cur_vb;
        let next = dxil_module::InstId(self.at_inst + 1);
        let ends_block = self
            .f
            .vblocks
            .get(vb as usize)
            .is_some_and(|v| v.tail == super::super::func::Tail::Llvm && v.end == next.0)
            && matches!(
                self.inst_data(next).map(|d| &d.kind),
                Some(InstKind::Unreachable)
            );
        if ends_block && self.rt.terminator.is_none() {
            self.rt.terminator = Some((vb, term));
            return Ok(Val::None);
        }
        let k = usize::from(term == Op::TerminateRayKHR);
        let helper = match self.rt.helpers[k] {
            Some(h) => h,
            None => {
                let h = self.b.id();
                let label = self.b.id();
                let void = self.b.void();
                let fnty = self.b.ty(TypeKey::VoidFn);
                let out = &mut self.b.functions;
                spv::emit(
                    out,
                    Op::Function,
                    &words![void, h, spirv::FunctionControl::NONE.bits(), fnty],
                );
                spv::emit(out, Op::Label, &words![label]);
                spv::emit(out, term, &words![]);
                spv::emit(out, Op::FunctionEnd, &words![]);
                self.rt.helpers[k] = Some(h);
                h
            }
        };
        let void = self.b.void();
        self.opn(Op::FunctionCall, void, &words![helper]);
        Ok(Val::None)
    }

    /// The terminator of virtual block `vb` where the LLVM block ends in `unreachable`.
    pub(in crate::lower) fn unreachable_terminator(&mut self, vb: Option<u32>) -> Op {
        match self.rt.terminator {
            Some((b, op)) if Some(b) == vb => {
                self.rt.terminator = None;
                op
            }
            _ => Op::Unreachable,
        }
    }
}
