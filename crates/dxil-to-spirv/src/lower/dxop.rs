//! `dx.op` calls: dispatch by opcode, shapes (which calls need control flow), and the small operations
//! (system values, barriers, conversions, packing).

use dxil_module::{Body, InstKind, TypeData, TypeId, Value};
use dxil_shader::ops::OpCode;
use spirv::{BuiltIn, Capability, GLOp, MemorySemantics, Op, Scope};

use super::func::Shape;
use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::dxil::{ResourceClass, ResourceKind};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, words};

impl<'a> Ctx<'a> {
    /// Operand `k` of a call.
    pub fn arg(&self, a: Args<'_>, k: usize) -> Result<Value, Error> {
        a.get(k)
            .ok_or_else(|| self.invalid(Invalid::operand(format!("dx.op call has no operand {k}"))))
    }

    /// Operand `k` as a constant integer.
    pub fn arg_const(&self, a: Args<'_>, k: usize) -> Result<i64, Error> {
        let v = self.arg(a, k)?;
        self.const_int(v).ok_or_else(|| {
            self.invalid(Invalid::operand(format!("operand {k} must be a constant")))
        })
    }

    /// Operand `k` as an SSA id.
    pub fn arg_id(&mut self, a: Args<'_>, k: usize) -> Result<Id, Error> {
        let v = self.arg(a, k)?;
        self.value(v)
    }

    /// Is operand `k` `undef`?
    pub fn arg_undef(&self, a: Args<'_>, k: usize) -> bool {
        a.get(k)
            .and_then(|v| v.as_const())
            .and_then(|c| self.m.constants.get(c))
            .is_some_and(|c| matches!(c.data, dxil_module::ConstData::Undef))
    }

    /// Element type of a struct return type (`ResRet.T` → T), or the type itself.
    pub fn elem0(&self, ty: TypeId) -> TypeId {
        match self.m.types.data(ty) {
            TypeData::Struct { elems, .. } => elems.first().copied().unwrap_or(ty),
            _ => ty,
        }
    }

    /// Type of operand `k`.
    pub fn arg_ty(&self, a: Args<'_>, k: usize) -> Result<TypeId, Error> {
        let v = self.arg(a, k)?;
        self.m
            .value_type(self.func_of(self.entry.function), v)
            .ok_or_else(|| self.invalid(Invalid::operand(format!("operand {k} has no type"))))
    }

    /// Makes an aggregate value from component ids.
    pub fn make_agg(&mut self, parts: &[Id]) -> Val {
        let start = self.agg.len() as u32;
        self.agg.extend(parts.iter().map(|&p| Some(p)));
        Val::Agg {
            start,
            len: parts.len() as u32,
        }
    }

    /// Makes an aggregate value from component ids, some of them not computed (components nothing reads).
    pub fn make_partial_agg(&mut self, parts: &[Option<Id>]) -> Val {
        let start = self.agg.len() as u32;
        self.agg.extend_from_slice(parts);
        Val::Agg {
            start,
            len: parts.len() as u32,
        }
    }

    /// The control flow a call needs (decided before structurization).
    pub(super) fn shape_of(&mut self, body: &Body, i: u32) -> Result<Shape, Error> {
        let d = &body.insts[i as usize];
        let InstKind::Call { callee, args, .. } = &d.kind else {
            return Ok(Shape::Plain);
        };
        let a = Args(args.get(&body.pool));
        let Some(op) = self.dx_opcode(*callee, a)? else {
            return Ok(Shape::Plain);
        };
        let checks = self.opts.bounds_checks;
        if self.raw_vector(op, a, d.ty)?.is_some() {
            return Ok(Shape::Guard(2));
        }
        Ok(match op {
            // RawBufferStore, BufferStore, RawBufferVectorStore
            OpCode::RawBufferStore | OpCode::BufferStore | OpCode::RawBufferVectorStore => {
                let h = self.handle_of_arg(a, 1)?;
                let kind = self.decl(&h).kind;
                if !checks {
                    Shape::Plain
                } else if kind == ResourceKind::RawBuffer && op != OpCode::RawBufferVectorStore {
                    // The mask is operand 8 of RawBufferStore and of BufferStore.
                    let mask = self.arg_const(a, 8).unwrap_or(15) as u32 & 0xF;
                    let n = 32 - mask.leading_zeros();
                    if n == 0 {
                        Shape::Plain
                    } else {
                        Shape::Guard(n as u8)
                    }
                } else {
                    Shape::Guard(1)
                }
            }
            // AtomicBinOp, AtomicCompareExchange
            OpCode::AtomicBinOp | OpCode::AtomicCompareExchange => {
                let h = self.handle_of_arg(a, 1)?;
                let kind = self.decl(&h).kind;
                if !kind.is_raw_like() {
                    self.note_typed_use(&h, false, true);
                    let vt = self.arg_ty(a, if op == OpCode::AtomicBinOp { 6 } else { 5 })?;
                    if self.bits(vt) == 64 {
                        self.note_atomic64(&h);
                    }
                }
                if checks {
                    Shape::Guard(1)
                } else {
                    Shape::Plain
                }
            }
            // TextureStore, TextureStoreSample
            OpCode::TextureStore | OpCode::TextureStoreSample => {
                if checks {
                    Shape::Guard(1)
                } else {
                    Shape::Plain
                }
            }
            // TextureLoad, BufferLoad: typed UAV reads need the format-less read capability.
            OpCode::TextureLoad | OpCode::BufferLoad => {
                let h = self.handle_of_arg(a, 1)?;
                let k = self.decl(&h).kind;
                if !k.is_raw_like() {
                    self.note_typed_use(&h, true, false);
                }
                Shape::Plain
            }
            // BufferUpdateCounter through an address table: no atomic where the address is 0.
            OpCode::BufferUpdateCounter => {
                let h = self.handle_of_arg(a, 1)?;
                if self.decl(&h).class == ResourceClass::Uav && self.counter_by_address(&h)? {
                    Shape::Guard(1)
                } else {
                    Shape::Plain
                }
            }
            // WaveMatch, WaveMultiPrefixOp, WaveMultiPrefixBitCount
            OpCode::WaveMatch | OpCode::WaveMultiPrefixOp | OpCode::WaveMultiPrefixBitCount => {
                Shape::Loop
            }
            // The finer level's write, then the coarser level's where trilinear filtering reads it.
            OpCode::WriteSamplerFeedback
            | OpCode::WriteSamplerFeedbackBias
            | OpCode::WriteSamplerFeedbackLevel
            | OpCode::WriteSamplerFeedbackGrad => {
                self.note_feedback(a)?;
                Shape::Guard(2)
            }
            // Discard(cond): the demote runs in a branch unless the condition is constant.
            OpCode::Discard if self.const_int(self.arg(a, 1)?).is_none() => Shape::Guard(1),
            _ => Shape::Plain,
        })
    }

    /// The DXIL rules a call keeps before it is lowered: its opcode is one of the callee's class, the callee's
    /// overload is one the operation has, and the entry's stage may use the operation (DXIL.rst's operation
    /// table). Lowerings rely on them: outside its stages or overloads an operation may have no valid SPIR-V form
    /// (`OpDemoteToHelperInvocation` outside fragment shaders, derivatives of doubles). Library entries are left to
    /// the stage of each export.
    pub(in crate::lower) fn check_dx_op(&self, callee: Value, op: OpCode) -> Result<(), Error> {
        let memo = callee
            .as_function()
            .and_then(|f| self.dx_checked.get(f.index()));
        if memo.is_some_and(|m| m.get() == op.as_u32() + 1) {
            return Ok(());
        }
        self.check_dx_op_names(callee, op)?;
        if let Some(m) = memo {
            m.set(op.as_u32() + 1);
        }
        Ok(())
    }

    fn check_dx_op_names(&self, callee: Value, op: OpCode) -> Result<(), Error> {
        let info = op.info();
        let name = self.callee_name(callee);
        let (class, suffix) = dxil_shader::ops::split_function_name(name).unwrap_or(("", ""));
        if class != info.class {
            return Err(self.invalid(Invalid::Class {
                op,
                function: name.to_string(),
            }));
        }
        if !info.allows_overload_suffix(suffix) {
            return Err(self.invalid(Invalid::Overload {
                op,
                function: name.to_string(),
            }));
        }
        match self.entry.stage.op_stages() {
            Some(s) if !info.stages.contains(s) => Err(self.invalid(Invalid::OpStage {
                op,
                stage: self.entry.stage.name(),
            })),
            _ => Ok(()),
        }
    }

    pub(super) fn dx_op(
        &mut self,
        body: &Body,
        i: u32,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let id = |x: Id| Ok(Val::Id(x));
        if let Some(r) = self.stage_op(op, ty, a) {
            return r;
        }
        match op {
            // Discard with a constant condition (otherwise it is guarded).
            OpCode::Discard => {
                if self.f.shape[i as usize] != Shape::Plain {
                    return Err(self.invalid(Invalid::internal(
                        "guarded discard lowered outside its blocks",
                    )));
                }
                if self.arg_const(a, 1)? != 0 {
                    self.demote_invocation();
                }
                Ok(Val::None)
            }
            // Handles are resolved up front (see `collect_handles`).
            OpCode::CreateHandle
            | OpCode::AnnotateHandle
            | OpCode::CreateHandleFromBinding
            | OpCode::CreateHandleFromHeap
            | OpCode::CreateHandleForLib => Ok(self.f.vals[i as usize]),

            // System values.
            OpCode::ThreadId => self.sysval(BuiltIn::GlobalInvocationId, a),
            OpCode::GroupId => self.sysval(BuiltIn::WorkgroupId, a),
            OpCode::ThreadIdInGroup => self.sysval(BuiltIn::LocalInvocationId, a),
            OpCode::FlattenedThreadIdInGroup => {
                id(self.load_builtin(BuiltIn::LocalInvocationIndex, None))
            }

            OpCode::Barrier => {
                let flags = self.arg_const(a, 1)? as u32;
                self.barrier(flags);
                Ok(Val::None)
            }
            OpCode::BarrierByMemoryType => {
                let mem = self.arg_const(a, 1)? as u32;
                let sem = self.arg_const(a, 2)? as u32;
                self.barrier_by_type(mem, sem);
                Ok(Val::None)
            }
            // BarrierByMemoryHandle(object, semantics): a barrier on one UAV is a UAV-memory barrier.
            OpCode::BarrierByMemoryHandle => {
                let sem = self.arg_const(a, 2)? as u32;
                self.barrier_by_type(1, sem);
                Ok(Val::None)
            }

            _ => {
                if let Some(v) = self.math_op(op, ty, a)? {
                    return Ok(v);
                }
                match self.resource_op(body, i, op, ty, a)? {
                    Some(v) => Ok(v),
                    None => Err(self.unsupported(Unsupported::Operation(op))),
                }
            }
        }
    }

    /// Math, conversions and packing: `None` when `op` is not one of them.
    fn math_op(&mut self, op: OpCode, ty: TypeId, a: Args<'_>) -> Result<Option<Val>, Error> {
        let id = |x: Id| Ok(Val::Id(x));
        let r: Result<Val, Error> = match op {
            // Math.
            OpCode::FAbs
            | OpCode::Saturate
            | OpCode::IsNaN
            | OpCode::IsInf
            | OpCode::IsFinite
            | OpCode::IsNormal
            | OpCode::Cos
            | OpCode::Sin
            | OpCode::Tan
            | OpCode::Acos
            | OpCode::Asin
            | OpCode::Atan
            | OpCode::Hcos
            | OpCode::Hsin
            | OpCode::Htan
            | OpCode::Exp
            | OpCode::Frc
            | OpCode::Log
            | OpCode::Sqrt
            | OpCode::Rsqrt
            | OpCode::Round_ne
            | OpCode::Round_ni
            | OpCode::Round_pi
            | OpCode::Round_z
            | OpCode::Bfrev
            | OpCode::Countbits
            | OpCode::FirstbitLo
            | OpCode::FirstbitHi
            | OpCode::FirstbitSHi
            | OpCode::DerivCoarseX
            | OpCode::DerivCoarseY
            | OpCode::DerivFineX
            | OpCode::DerivFineY => self.unary_op(op, ty, a).map(Val::Id),
            OpCode::FMax
            | OpCode::FMin
            | OpCode::IMax
            | OpCode::IMin
            | OpCode::UMax
            | OpCode::UMin => self.binary_op(op, ty, a).map(Val::Id),
            OpCode::IMul | OpCode::UMul | OpCode::UDiv | OpCode::UAddc | OpCode::USubb => {
                self.binary_pair_op(op, ty, a)
            }
            OpCode::FMad
            | OpCode::Fma
            | OpCode::IMad
            | OpCode::UMad
            | OpCode::Msad
            | OpCode::Ibfe
            | OpCode::Ubfe
            | OpCode::Bfi => self.tertiary_op(op, ty, a).map(Val::Id),
            OpCode::Dot2 | OpCode::Dot3 | OpCode::Dot4 => self.dot_op(op, a).map(Val::Id),
            OpCode::Dot2AddHalf | OpCode::Dot4AddI8Packed | OpCode::Dot4AddU8Packed => {
                self.dot_add_op(op, a).map(Val::Id)
            }
            OpCode::MakeDouble => self.make_double(a).map(Val::Id),
            OpCode::SplitDouble => self.split_double(a),
            OpCode::BitcastI16toF16
            | OpCode::BitcastF16toI16
            | OpCode::BitcastI32toF32
            | OpCode::BitcastF32toI32
            | OpCode::BitcastI64toF64
            | OpCode::BitcastF64toI64 => {
                let t = self.ty(ty)?;
                let at = self.arg_ty(a, 1)?;
                if self.bits(at) != self.bits(ty) || self.lanes(at) != self.lanes(ty) {
                    return Err(
                        self.invalid(Invalid::ty("bitcast between types of different widths"))
                    );
                }
                let x = self.arg_id(a, 1)?;
                id(self.op1(Op::Bitcast, t, x))
            }
            OpCode::LegacyF32ToF16 => self.legacy_f32_to_f16(a).map(Val::Id),
            OpCode::LegacyF16ToF32 => self.legacy_f16_to_f32(a).map(Val::Id),
            OpCode::LegacyDoubleToFloat => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                id(self.op1(Op::FConvert, t, x))
            }
            OpCode::LegacyDoubleToSInt32 | OpCode::LegacyDoubleToUInt32 => {
                let x = self.arg_id(a, 1)?;
                id(self.float_to_int(op == OpCode::LegacyDoubleToSInt32, x, 64, 32, 1))
            }
            OpCode::Unpack4x8 => self.unpack4x8(ty, a),
            OpCode::Pack4x8 => self.pack4x8(a).map(Val::Id),
            // SM 6.9 vector reductions.
            OpCode::VectorReduceAnd | OpCode::VectorReduceOr => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                id(self.op1(
                    if op == OpCode::VectorReduceAnd {
                        Op::All
                    } else {
                        Op::Any
                    },
                    t,
                    x,
                ))
            }
            OpCode::FDot => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let y = self.arg_id(a, 2)?;
                id(self.op2(Op::Dot, t, x, y))
            }
            _ => return Ok(None),
        };
        r.map(Some)
    }

    /// Resources, textures, waves and ray queries: `None` when `op` is not one of them.
    fn resource_op(
        &mut self,
        body: &Body,
        i: u32,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Option<Val>, Error> {
        let id = |x: Id| Ok(Val::Id(x));
        let r: Result<Val, Error> = match op {
            // Resources.
            OpCode::CBufferLoad => self.cbuffer_load(ty, a).map(Val::Id),
            OpCode::CBufferLoadLegacy => self.cbuffer_load_legacy(i, ty, a),
            OpCode::BufferLoad | OpCode::RawBufferLoad
                if self.f.shape[i as usize] != Shape::Plain =>
            {
                Err(self.invalid(Invalid::internal("guarded load lowered outside its blocks")))
            }
            OpCode::BufferLoad => self.buffer_load(i, ty, a),
            OpCode::RawBufferLoad => self.raw_buffer_load(i, ty, a),
            OpCode::RawBufferVectorLoad => self.raw_buffer_vector_load(ty, a),
            OpCode::BufferStore
            | OpCode::RawBufferStore
            | OpCode::RawBufferVectorStore
            | OpCode::AtomicBinOp
            | OpCode::AtomicCompareExchange
            | OpCode::TextureStore
            | OpCode::TextureStoreSample => {
                // Guarded forms run in their own blocks; without bounds checks they run here.
                if self.f.shape[i as usize] == Shape::Plain {
                    self.guard_body_plain(body, i)
                } else {
                    Err(self.invalid(Invalid::internal(
                        "guarded operation lowered outside its blocks",
                    )))
                }
            }
            OpCode::BufferUpdateCounter => self.update_counter(a).map(Val::Id),
            OpCode::CheckAccessFullyMapped => {
                // Non-tiled resources are always fully mapped; loads report status 1.
                let x = self.arg_id(a, 1)?;
                let u = self.b.u32();
                let zero = self.b.const_u32(0);
                let bt = self.b.bool();
                let _ = u;
                id(self.op2(Op::INotEqual, bt, x, zero))
            }
            OpCode::GetDimensions => self.get_dimensions(i, a),

            // Textures.
            OpCode::Sample
            | OpCode::SampleBias
            | OpCode::SampleLevel
            | OpCode::SampleGrad
            | OpCode::SampleCmp
            | OpCode::SampleCmpLevelZero
            | OpCode::SampleCmpLevel
            | OpCode::SampleCmpGrad
            | OpCode::SampleCmpBias => self.sample(i, op, ty, a),
            OpCode::TextureLoad => self.texture_load(i, ty, a),
            OpCode::TextureGather | OpCode::TextureGatherCmp | OpCode::TextureGatherRaw => {
                self.gather(i, op, ty, a)
            }
            OpCode::CalculateLOD => self.calculate_lod(a).map(Val::Id),
            OpCode::Texture2DMSGetSamplePosition => self.sample_position(a),

            // Waves and quads.
            OpCode::WaveIsFirstLane
            | OpCode::WaveGetLaneIndex
            | OpCode::WaveGetLaneCount
            | OpCode::WaveAnyTrue
            | OpCode::WaveAllTrue
            | OpCode::WaveActiveAllEqual
            | OpCode::WaveActiveBallot
            | OpCode::WaveReadLaneAt
            | OpCode::WaveReadLaneFirst
            | OpCode::WaveActiveOp
            | OpCode::WaveActiveBit
            | OpCode::WavePrefixOp
            | OpCode::QuadReadLaneAt
            | OpCode::QuadOp
            | OpCode::WaveAllBitCount
            | OpCode::WavePrefixBitCount
            | OpCode::QuadVote
            | OpCode::IsHelperLane => self.wave_op(i, op, ty, a),
            OpCode::WaveMatch | OpCode::WaveMultiPrefixOp | OpCode::WaveMultiPrefixBitCount => {
                Err(self.invalid(Invalid::internal(
                    "partitioned wave operation lowered outside its blocks",
                )))
            }

            // Inline ray tracing.
            OpCode::AllocateRayQuery | OpCode::AllocateRayQuery2 => self.allocate_ray_query(i),
            OpCode::RayQuery_TraceRayInline
            | OpCode::RayQuery_Proceed
            | OpCode::RayQuery_Abort
            | OpCode::RayQuery_CommitNonOpaqueTriangleHit
            | OpCode::RayQuery_CommitProceduralPrimitiveHit
            | OpCode::RayQuery_CommittedStatus
            | OpCode::RayQuery_CandidateType
            | OpCode::RayQuery_CandidateObjectToWorld3x4
            | OpCode::RayQuery_CandidateWorldToObject3x4
            | OpCode::RayQuery_CommittedObjectToWorld3x4
            | OpCode::RayQuery_CommittedWorldToObject3x4
            | OpCode::RayQuery_CandidateProceduralPrimitiveNonOpaque
            | OpCode::RayQuery_CandidateTriangleFrontFace
            | OpCode::RayQuery_CommittedTriangleFrontFace
            | OpCode::RayQuery_CandidateTriangleBarycentrics
            | OpCode::RayQuery_CommittedTriangleBarycentrics
            | OpCode::RayQuery_RayFlags
            | OpCode::RayQuery_WorldRayOrigin
            | OpCode::RayQuery_WorldRayDirection
            | OpCode::RayQuery_RayTMin
            | OpCode::RayQuery_CandidateTriangleRayT
            | OpCode::RayQuery_CommittedRayT
            | OpCode::RayQuery_CandidateInstanceIndex
            | OpCode::RayQuery_CandidateInstanceID
            | OpCode::RayQuery_CandidateGeometryIndex
            | OpCode::RayQuery_CandidatePrimitiveIndex
            | OpCode::RayQuery_CandidateObjectRayOrigin
            | OpCode::RayQuery_CandidateObjectRayDirection
            | OpCode::RayQuery_CommittedInstanceIndex
            | OpCode::RayQuery_CommittedInstanceID
            | OpCode::RayQuery_CommittedGeometryIndex
            | OpCode::RayQuery_CommittedPrimitiveIndex
            | OpCode::RayQuery_CommittedObjectRayOrigin
            | OpCode::RayQuery_CommittedObjectRayDirection
            | OpCode::RayQuery_CandidateInstanceContributionToHitGroupIndex
            | OpCode::RayQuery_CommittedInstanceContributionToHitGroupIndex => {
                self.ray_query_op(op, ty, a)
            }
            _ => return Ok(None),
        };
        r.map(Some)
    }

    fn sysval(&mut self, bi: BuiltIn, a: Args<'_>) -> Result<Val, Error> {
        let c = self.arg(a, 1)?;
        match self.const_int(c) {
            Some(c) if (0..3).contains(&c) => Ok(Val::Id(self.load_builtin(bi, Some(c as u32)))),
            Some(_) => Err(self.invalid(Invalid::range("system value component out of range"))),
            None => {
                let var = self.builtin(bi);
                let u = self.b.u32();
                let v3 = self.b.vec(u, 3);
                let v = self.load(v3, var);
                let x = self.value(c)?;
                Ok(Val::Id(self.op2(Op::VectorExtractDynamic, u, v, x)))
            }
        }
    }

    /// DXIL `Barrier(mode)`: bit 0 sync the group, bit 1 UAV fence (device), bit 2 UAV fence (group), bit 3
    /// groupshared fence.
    pub fn barrier(&mut self, flags: u32) {
        let sync = flags & 1 != 0;
        let uav_global = flags & 2 != 0;
        let uav_group = flags & 4 != 0;
        let tgsm = flags & 8 != 0;
        let mut sem = MemorySemantics::empty();
        if uav_global || uav_group {
            sem |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
        }
        if tgsm {
            sem |= MemorySemantics::WORKGROUP_MEMORY;
        }
        let mem_scope = if uav_global {
            Scope::Device
        } else {
            Scope::Workgroup
        };
        self.emit_barrier(sync, mem_scope, sem);
    }

    /// SM 6.8 `BarrierByMemoryType(memory, semantics)`.
    fn barrier_by_type(&mut self, mem: u32, semf: u32) {
        let sync = semf & 1 != 0;
        let mut sem = MemorySemantics::empty();
        if mem & 1 != 0 {
            sem |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
        }
        if mem & 2 != 0 {
            sem |= MemorySemantics::WORKGROUP_MEMORY;
        }
        let scope = if semf & 4 != 0 {
            Scope::Device
        } else {
            Scope::Workgroup
        };
        self.emit_barrier(sync, scope, sem);
    }

    fn emit_barrier(&mut self, sync: bool, mem_scope: Scope, sem: MemorySemantics) {
        let sem = if sem.is_empty() {
            sem
        } else {
            sem | MemorySemantics::ACQUIRE_RELEASE
        };
        let semc = self.b.const_u32(sem.bits());
        let ms = self.b.const_u32(mem_scope as u32);
        if sync {
            let es = self.b.const_u32(Scope::Workgroup as u32);
            self.emit(Op::ControlBarrier, &words![es, ms, semc]);
        } else if !sem.is_empty() {
            self.emit(Op::MemoryBarrier, &words![ms, semc]);
        }
    }

    fn make_double(&mut self, a: Args<'_>) -> Result<Id, Error> {
        let lo = self.arg_id(a, 1)?;
        let hi = self.arg_id(a, 2)?;
        let u = self.b.u32();
        let v2 = self.b.vec(u, 2);
        let v = self.op2(Op::CompositeConstruct, v2, lo, hi);
        let d = self.scalar_ty(Scalar::Float(64), 1);
        Ok(self.op1(Op::Bitcast, d, v))
    }

    fn split_double(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let x = self.arg_id(a, 1)?;
        let u = self.b.u32();
        let v2 = self.b.vec(u, 2);
        let v = self.op1(Op::Bitcast, v2, x);
        let lo = self.opn(Op::CompositeExtract, u, &words![v, 0]);
        let hi = self.opn(Op::CompositeExtract, u, &words![v, 1]);
        Ok(self.make_agg(&[lo, hi]))
    }

    /// `f32tof16`: the half bits in the low 16 bits of a u32.
    fn legacy_f32_to_f16(&mut self, a: Args<'_>) -> Result<Id, Error> {
        let x = self.arg_id(a, 1)?;
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let zero = self.b.const_f32(0.0);
        let v = self.op2(Op::CompositeConstruct, v2, x, zero);
        let u = self.b.u32();
        Ok(self.glsl(u, GLOp::PackHalf2x16, &[v]))
    }

    /// `f16tof32`: the half in the low 16 bits of a u32, as f32.
    fn legacy_f16_to_f32(&mut self, a: Args<'_>) -> Result<Id, Error> {
        let x = self.arg_id(a, 1)?;
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let v = self.glsl(v2, GLOp::UnpackHalf2x16, &[x]);
        Ok(self.opn(Op::CompositeExtract, f, &words![v, 0]))
    }

    /// `Unpack4x8(mode, packed)`: mode 0 zero-extends the bytes, 1 sign-extends; result `{T, T, T, T}` (i16 or
    /// i32).
    fn unpack4x8(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let signed = self.arg_const(a, 1)? != 0;
        let x = self.arg_id(a, 2)?;
        let et = self.elem0(ty);
        let w = self.bits(et) as u8;
        let t = self.scalar_ty(Scalar::Int(w), 1);
        let u = self.b.u32();
        let eight = self.b.const_u32(8);
        let parts: [Id; 4] = std::array::from_fn(|k| {
            let off = self.b.const_u32(8 * k as u32);
            let o = if signed {
                Op::BitFieldSExtract
            } else {
                Op::BitFieldUExtract
            };
            let b = self.op3(o, u, x, off, eight);
            if w == 32 {
                b
            } else {
                self.op1(Op::UConvert, t, b)
            }
        });
        Ok(self.make_agg(&parts))
    }

    /// `Pack4x8(mode, x, y, z, w)`: mode 0 truncates, 1 clamps to u8 range (from signed), 2 clamps to s8 range.
    fn pack4x8(&mut self, a: Args<'_>) -> Result<Id, Error> {
        let mode = self.arg_const(a, 1)?;
        let src_ty = self.arg_ty(a, 2)?;
        let w = self.bits(src_ty) as u8;
        let u = self.b.u32();
        let mut acc = self.b.const_u32(0);
        for k in 0..4u32 {
            let mut x = self.arg_id(a, 2 + k as usize)?;
            if w != 32 {
                x = self.op1(Op::SConvert, u, x);
            }
            match mode {
                1 => {
                    let lo = self.b.const_u32(0);
                    let hi = self.b.const_u32(255);
                    x = self.glsl(u, GLOp::SClamp, &[x, lo, hi]);
                }
                2 => {
                    let lo = self.b.const_u32((-128i32) as u32);
                    let hi = self.b.const_u32(127);
                    x = self.glsl(u, GLOp::SClamp, &[x, lo, hi]);
                }
                _ => {}
            }
            let off = self.b.const_u32(8 * k);
            let eight = self.b.const_u32(8);
            acc = self.opn(Op::BitFieldInsert, u, &words![acc, x, off, eight]);
        }
        let _ = Capability::Shader;
        Ok(acc)
    }
}
