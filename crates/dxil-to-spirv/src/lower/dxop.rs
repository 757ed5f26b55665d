//! `dx.op` calls: dispatch by opcode, shapes (which calls need control flow), and the small operations
//! (system values, barriers, conversions, packing).

use dxil_module::{Body, InstKind, TypeData, TypeId, Value};
use dxil_shader::ops::OpCode;
use spirv::{BuiltIn, Capability, GLOp, MemorySemantics, Op, Scope};

use super::func::Shape;
use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::dxil::{ResourceClass, ResourceKind};
use crate::error::Error;

impl<'a> Ctx<'a> {
    /// Operand `k` of a call.
    pub fn arg(&self, a: Args<'_>, k: usize) -> Result<Value, Error> {
        a.get(k)
            .ok_or_else(|| self.invalid(format!("dx.op call has no operand {k}")))
    }

    /// Operand `k` as a constant integer.
    pub fn arg_const(&self, a: Args<'_>, k: usize) -> Result<i64, Error> {
        let v = self.arg(a, k)?;
        self.const_int(v)
            .ok_or_else(|| self.invalid(format!("operand {k} must be a constant")))
    }

    /// Operand `k` as an SSA id.
    pub fn arg_id(&mut self, a: Args<'_>, k: usize) -> Result<u32, Error> {
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
            .ok_or_else(|| self.invalid(format!("operand {k} has no type")))
    }

    pub fn op_name(op: u32) -> String {
        match OpCode::from_u32(op) {
            Some(o) => o.name().to_string(),
            None => format!("dx.op {op}"),
        }
    }

    /// Makes an aggregate value from component ids.
    pub fn make_agg(&mut self, parts: &[u32]) -> Val {
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
        let Some(op) = self.dx_opcode(*callee, a) else {
            return Ok(Shape::Plain);
        };
        let checks = self.opts.bounds_checks;
        Ok(match op {
            // RawBufferStore, BufferStore, RawBufferVectorStore
            140 | 69 | 304 => {
                let h = self.handle_of_arg(a, 1)?;
                let kind = self.decl(&h).kind;
                if !checks {
                    Shape::Plain
                } else if kind == ResourceKind::RawBuffer && op != 304 {
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
            78 | 79 => {
                let h = self.handle_of_arg(a, 1)?;
                let kind = self.decl(&h).kind;
                if !kind.is_raw_like() {
                    self.note_typed_use(&h, false, true);
                    let vt = self.arg_ty(a, if op == 78 { 6 } else { 5 })?;
                    if self.m.types.scalar_bits(vt) == 64 {
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
            67 | 225 => {
                if checks {
                    Shape::Guard(1)
                } else {
                    Shape::Plain
                }
            }
            // TextureLoad, BufferLoad: typed UAV reads need the format-less read capability.
            66 | 68 => {
                let h = self.handle_of_arg(a, 1)?;
                let k = self.decl(&h).kind;
                if !k.is_raw_like() {
                    self.note_typed_use(&h, true, false);
                }
                Shape::Plain
            }
            // BufferUpdateCounter through an address table: no atomic where the address is 0.
            70 => {
                let h = self.handle_of_arg(a, 1)?;
                if self.decl(&h).class == ResourceClass::Uav && self.counter_by_address(&h)? {
                    Shape::Guard(1)
                } else {
                    Shape::Plain
                }
            }
            // WaveMatch, WaveMultiPrefixOp, WaveMultiPrefixBitCount
            165..=167 => Shape::Loop,
            // Discard(cond): the demote runs in a branch unless the condition is constant.
            82 if self.const_int(self.arg(a, 1)?).is_none() => Shape::Guard(1),
            _ => Shape::Plain,
        })
    }

    pub(super) fn dx_op(
        &mut self,
        body: &Body,
        i: u32,
        op: u32,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let id = |x: u32| Ok(Val::Id(x));
        if let Some(r) = self.stage_op(op, ty, a) {
            return r;
        }
        match op {
            // Discard with a constant condition (otherwise it is guarded).
            82 => {
                if self.f.shape[i as usize] != Shape::Plain {
                    return Err(self.invalid("guarded discard lowered outside its blocks"));
                }
                if self.arg_const(a, 1)? != 0 {
                    self.demote_invocation();
                }
                Ok(Val::None)
            }
            // Handles are resolved up front (see `collect_handles`).
            57 | 216..=218 => Ok(self.f.vals[i as usize]),
            160 => Err(self.unsupported("createHandleForLib (library shaders)")),

            // System values.
            93 => self.sysval(BuiltIn::GlobalInvocationId, a),
            94 => self.sysval(BuiltIn::WorkgroupId, a),
            95 => self.sysval(BuiltIn::LocalInvocationId, a),
            96 => id(self.load_builtin(BuiltIn::LocalInvocationIndex, None)),

            80 => {
                let flags = self.arg_const(a, 1)? as u32;
                self.barrier(flags);
                Ok(Val::None)
            }
            244 => {
                let mem = self.arg_const(a, 1)? as u32;
                let sem = self.arg_const(a, 2)? as u32;
                self.barrier_by_type(mem, sem);
                Ok(Val::None)
            }
            // BarrierByMemoryHandle(object, semantics): a barrier on one UAV is a UAV-memory barrier.
            245 => {
                let sem = self.arg_const(a, 2)? as u32;
                self.barrier_by_type(1, sem);
                Ok(Val::None)
            }

            // Math.
            6..=34 | 83..=86 => self.unary_op(op, ty, a).map(Val::Id),
            35..=40 => self.binary_op(op, ty, a).map(Val::Id),
            41..=45 => self.binary_pair_op(op, ty, a),
            46..=53 => self.tertiary_op(op, ty, a).map(Val::Id),
            54..=56 => self.dot_op(op, a).map(Val::Id),
            162..=164 => self.dot_add_op(op, a).map(Val::Id),
            101 => self.make_double(a).map(Val::Id),
            102 => self.split_double(a),
            124..=129 => {
                let t = self.ty(ty)?;
                let at = self.arg_ty(a, 1)?;
                if self.m.types.scalar_bits(at) != self.m.types.scalar_bits(ty)
                    || self.lanes(at) != self.lanes(ty)
                {
                    return Err(self.invalid("bitcast between types of different widths"));
                }
                let x = self.arg_id(a, 1)?;
                id(self.op1(Op::Bitcast, t, x))
            }
            130 => self.legacy_f32_to_f16(a).map(Val::Id),
            131 => self.legacy_f16_to_f32(a).map(Val::Id),
            132 => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                id(self.op1(Op::FConvert, t, x))
            }
            133 | 134 => {
                let x = self.arg_id(a, 1)?;
                id(self.float_to_int(op == 133, x, 64, 32, 1))
            }
            219 => self.unpack4x8(ty, a),
            220 => self.pack4x8(a).map(Val::Id),

            // Resources.
            58 => self.cbuffer_load(ty, a).map(Val::Id),
            59 => self.cbuffer_load_legacy(i, ty, a),
            68 => self.buffer_load(i, ty, a),
            139 => self.raw_buffer_load(i, ty, a),
            303 => self.raw_buffer_vector_load(ty, a),
            69 | 140 | 304 | 78 | 79 | 67 | 225 => {
                // Guarded forms run in their own blocks; without bounds checks they run here.
                if self.f.shape[i as usize] == Shape::Plain {
                    self.guard_body_plain(body, i)
                } else {
                    Err(self.invalid("guarded operation lowered outside its blocks"))
                }
            }
            70 => self.update_counter(a).map(Val::Id),
            71 => {
                // Non-tiled resources are always fully mapped; loads report status 1.
                let x = self.arg_id(a, 1)?;
                let u = self.b.u32();
                let zero = self.b.const_u32(0);
                let bt = self.b.bool();
                let _ = u;
                id(self.op2(Op::INotEqual, bt, x, zero))
            }
            72 => self.get_dimensions(i, a),

            // Textures.
            60..=65 | 224 | 254 | 255 => self.sample(i, op, ty, a),
            66 => self.texture_load(i, ty, a),
            73 | 74 | 223 => self.gather(i, op, ty, a),
            81 => self.calculate_lod(a).map(Val::Id),
            75 => self.sample_position(a),

            // Waves and quads.
            110..=123 | 135 | 136 | 222 | 221 => self.wave_op(i, op, ty, a),
            165..=167 => Err(self.invalid("partitioned wave operation lowered outside its blocks")),

            // Inline ray tracing.
            178 | 258 => self.allocate_ray_query(i),
            179..=212 | 214 | 215 => self.ray_query_op(op, ty, a),

            // SM 6.9 vector reductions.
            309 | 310 => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                id(self.op1(if op == 309 { Op::All } else { Op::Any }, t, x))
            }
            311 => {
                let t = self.ty(ty)?;
                let x = self.arg_id(a, 1)?;
                let y = self.arg_id(a, 2)?;
                id(self.op2(Op::Dot, t, x, y))
            }

            _ => Err(self.unsupported(format!("{} (opcode {op})", Self::op_name(op)))),
        }
    }

    fn sysval(&mut self, bi: BuiltIn, a: Args<'_>) -> Result<Val, Error> {
        let c = self.arg(a, 1)?;
        match self.const_int(c) {
            Some(c) if (0..3).contains(&c) => Ok(Val::Id(self.load_builtin(bi, Some(c as u32)))),
            Some(_) => Err(self.invalid("system value component out of range")),
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
            self.emit(Op::ControlBarrier, &[es, ms, semc]);
        } else if !sem.is_empty() {
            self.emit(Op::MemoryBarrier, &[ms, semc]);
        }
    }

    fn make_double(&mut self, a: Args<'_>) -> Result<u32, Error> {
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
        let lo = self.opn(Op::CompositeExtract, u, &[v, 0]);
        let hi = self.opn(Op::CompositeExtract, u, &[v, 1]);
        Ok(self.make_agg(&[lo, hi]))
    }

    /// `f32tof16`: the half bits in the low 16 bits of a u32.
    fn legacy_f32_to_f16(&mut self, a: Args<'_>) -> Result<u32, Error> {
        let x = self.arg_id(a, 1)?;
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let zero = self.b.const_f32(0.0);
        let v = self.op2(Op::CompositeConstruct, v2, x, zero);
        let u = self.b.u32();
        Ok(self.glsl(u, GLOp::PackHalf2x16, &[v]))
    }

    /// `f16tof32`: the half in the low 16 bits of a u32, as f32.
    fn legacy_f16_to_f32(&mut self, a: Args<'_>) -> Result<u32, Error> {
        let x = self.arg_id(a, 1)?;
        let f = self.b.f32();
        let v2 = self.b.vec(f, 2);
        let v = self.glsl(v2, GLOp::UnpackHalf2x16, &[x]);
        Ok(self.opn(Op::CompositeExtract, f, &[v, 0]))
    }

    /// `Unpack4x8(mode, packed)`: mode 0 zero-extends the bytes, 1 sign-extends; result `{T, T, T, T}` (i16 or
    /// i32).
    fn unpack4x8(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let signed = self.arg_const(a, 1)? != 0;
        let x = self.arg_id(a, 2)?;
        let et = self.elem0(ty);
        let w = self.m.types.scalar_bits(et) as u8;
        let t = self.scalar_ty(Scalar::Int(w), 1);
        let u = self.b.u32();
        let eight = self.b.const_u32(8);
        let mut parts = [0u32; 4];
        for (k, slot) in parts.iter_mut().enumerate() {
            let off = self.b.const_u32(8 * k as u32);
            let o = if signed {
                Op::BitFieldSExtract
            } else {
                Op::BitFieldUExtract
            };
            let b = self.op3(o, u, x, off, eight);
            *slot = if w == 32 {
                b
            } else {
                self.op1(Op::UConvert, t, b)
            };
        }
        Ok(self.make_agg(&parts))
    }

    /// `Pack4x8(mode, x, y, z, w)`: mode 0 truncates, 1 clamps to u8 range (from signed), 2 clamps to s8 range.
    fn pack4x8(&mut self, a: Args<'_>) -> Result<u32, Error> {
        let mode = self.arg_const(a, 1)?;
        let src_ty = self.arg_ty(a, 2)?;
        let w = self.m.types.scalar_bits(src_ty) as u8;
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
            acc = self.opn(Op::BitFieldInsert, u, &[acc, x, off, eight]);
        }
        let _ = Capability::Shader;
        Ok(acc)
    }
}
