//! Atomics (buffers, typed images, workgroup memory) and barriers.

use dxil_module::{BinOp, Value};
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::Tr;
use super::buffer::ResKind;
use super::memory::{Base, Ptr};
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};
use crate::spv::Inst;

pub fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}

/// DXIL `AtomicBinOpCode`.
#[derive(Clone, Copy)]
pub(super) enum AtomicOp {
    Add = 0,
    And = 1,
    Or = 2,
    Xor = 3,
    IMin = 4,
    IMax = 5,
    UMin = 6,
    UMax = 7,
    Exchange = 8,
}

impl Tr<'_> {
    /// Atomics on buffers and local (workgroup) memory.
    pub fn atomic(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let (ptr_id, result) = match op {
            Op::AtomicStore => (inst.word(0)?, None),
            _ => (inst.word(2)?, Some((inst.word(0)?, inst.word(1)?))),
        };
        let p = self.ptr(ptr_id)?;
        let value_at = match op {
            Op::AtomicStore => Some(3),
            Op::AtomicCompareExchange => Some(6),
            Op::AtomicLoad | Op::AtomicIIncrement | Op::AtomicIDecrement => None,
            _ => Some(5),
        };
        let value = match value_at {
            Some(i) => Some(self.scalar(inst.word(i)?)?),
            None => None,
        };
        let k = self.scalar_kind(p.ty)?;
        if k.is_float() {
            return Err(unsupported("floating-point atomics"));
        }
        if k.bits() != 32 && k.bits() != 64 {
            return Err(unsupported("atomics on 16-bit integers"));
        }
        let one = self.b.const_int(k, 1);
        let (aop, operand) = match op {
            Op::AtomicLoad => (AtomicOp::Or, self.b.zero(k)),
            Op::AtomicStore | Op::AtomicExchange => (AtomicOp::Exchange, value.unwrap_or(one)),
            Op::AtomicIIncrement => (AtomicOp::Add, one),
            Op::AtomicIDecrement => {
                let m = self.b.const_int(k, -1);
                (AtomicOp::Add, m)
            }
            Op::AtomicIAdd => (AtomicOp::Add, value.unwrap_or(one)),
            Op::AtomicISub => {
                let z = self.b.zero(k);
                let v = value.unwrap_or(one);
                (AtomicOp::Add, self.b.binary(BinOp::Sub, z, v)?)
            }
            Op::AtomicSMin => (AtomicOp::IMin, value.unwrap_or(one)),
            Op::AtomicUMin => (AtomicOp::UMin, value.unwrap_or(one)),
            Op::AtomicSMax => (AtomicOp::IMax, value.unwrap_or(one)),
            Op::AtomicUMax => (AtomicOp::UMax, value.unwrap_or(one)),
            Op::AtomicAnd => (AtomicOp::And, value.unwrap_or(one)),
            Op::AtomicOr => (AtomicOp::Or, value.unwrap_or(one)),
            Op::AtomicXor => (AtomicOp::Xor, value.unwrap_or(one)),
            Op::AtomicCompareExchange => (AtomicOp::Exchange, value.unwrap_or(one)),
            _ => return Err(unsupported(format!("{op:?}"))),
        };
        let cmp = if op == Op::AtomicCompareExchange {
            Some(self.scalar(inst.word(7)?)?)
        } else {
            None
        };
        let r = match p.base {
            Base::Local(_) => self.atomic_local(&p, aop, operand, cmp, k)?,
            Base::Buffer { res, handle } => {
                self.resources[res as usize].written = true;
                let off = self.byte_offset(&p, p.off)?;
                let undef = self.b.undef_scalar(Scalar::I32);
                self.atomic_resource(res, handle, &[off, undef, undef], aop, operand, cmp, k)?
            }
            Base::Texel {
                res,
                handle,
                coords,
            } => {
                self.resources[res as usize].written = true;
                let mut c: Vec<Value> =
                    self.pool[coords.0 as usize..(coords.0 + coords.1) as usize].to_vec();
                let undef = self.b.undef_scalar(Scalar::I32);
                c.resize(3, undef);
                self.atomic_resource(res, handle, &c, aop, operand, cmp, k)?
            }
            _ => return Err(malformed("atomic on a pointer that is not to memory")),
        };
        if let Some((_, id)) = result {
            self.set_scalar(id, r)?;
        }
        Ok(())
    }

    fn atomic_resource(
        &mut self,
        res: u32,
        handle: Value,
        coords: &[Value],
        aop: AtomicOp,
        value: Value,
        cmp: Option<Value>,
        k: Scalar,
    ) -> Result<Value> {
        if k.bits() == 64 {
            if matches!(self.resources[res as usize].kind, ResKind::Typed { .. }) {
                self.features.atomic64_typed = true;
            }
            self.resources[res as usize].atomic64 = true;
            self.features.need_sm(6, 6);
        }
        let kt = self.b.scalar(k);
        match cmp {
            Some(c) => self.b.dxop(
                OpCode::AtomicCompareExchange,
                Some(kt),
                kt,
                &[handle, coords[0], coords[1], coords[2], c, value],
            ),
            None => {
                let code = self.b.i32c(aop as i64);
                self.b.dxop(
                    OpCode::AtomicBinOp,
                    Some(kt),
                    kt,
                    &[handle, code, coords[0], coords[1], coords[2], value],
                )
            }
        }
    }

    fn atomic_local(
        &mut self,
        p: &Ptr,
        aop: AtomicOp,
        value: Value,
        cmp: Option<Value>,
        k: Scalar,
    ) -> Result<Value> {
        let (ptr, _) = self.local_scalar_ptr(p)?;
        if k.bits() == 64 {
            self.features.atomic64_groupshared = true;
            self.features.need_sm(6, 6);
        }
        if let Some(c) = cmp {
            return self.b.cmpxchg(ptr, c, value);
        }
        use dxil_module::RmwOp;
        let rmw = match aop {
            AtomicOp::Add => RmwOp::Add,
            AtomicOp::And => RmwOp::And,
            AtomicOp::Or => RmwOp::Or,
            AtomicOp::Xor => RmwOp::Xor,
            AtomicOp::IMin => RmwOp::Min,
            AtomicOp::IMax => RmwOp::Max,
            AtomicOp::UMin => RmwOp::UMin,
            AtomicOp::UMax => RmwOp::UMax,
            AtomicOp::Exchange => RmwOp::Xchg,
        };
        self.b.atomic_rmw(rmw, ptr, value)
    }

    /// `OpControlBarrier` / `OpMemoryBarrier` → `dx.op.barrier`.
    pub fn barrier(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let (exec, sem_id) = if op == Op::ControlBarrier {
            (Some(inst.word(0)?), inst.word(2)?)
        } else {
            (None, inst.word(1)?)
        };
        let sem = self.const_u64(sem_id)? as u32;
        let exec_scope = match exec {
            Some(e) => Some(self.const_u64(e)? as u32),
            None => None,
        };
        let group_stage = matches!(
            self.model,
            spirv::ExecutionModel::GLCompute
                | spirv::ExecutionModel::MeshEXT
                | spirv::ExecutionModel::TaskEXT
                | spirv::ExecutionModel::MeshNV
                | spirv::ExecutionModel::TaskNV
        );
        let mem_scope =
            self.const_u64(inst.word(if op == Op::ControlBarrier { 1 } else { 0 })?)? as u32;
        // Semantics bits: UniformMemory 0x40, WorkgroupMemory 0x100, ImageMemory 0x800.
        let mut mode = 0i64;
        let sync = group_stage && exec_scope == Some(spirv::Scope::Workgroup as u32);
        if sync {
            mode |= 1;
        }
        if sem & 0x100 != 0 && group_stage {
            mode |= 8;
        }
        if sem & (0x40 | 0x800 | 0x200) != 0 {
            mode |= if mem_scope == spirv::Scope::Workgroup as u32 && group_stage {
                4
            } else {
                2
            };
        }
        if mode == 1 {
            mode |= 8;
        }
        if mode == 0 {
            // Nothing to order in this stage (e.g. a workgroup barrier outside compute).
            return Ok(());
        }
        if !group_stage {
            // A tessellation control shader's barrier orders its output writes before the
            // reads of other invocations: the hull shader's patch-constant function runs after
            // every control point is written, so only the memory part remains.
            mode &= 2;
            if mode == 0 {
                return Ok(());
            }
        }
        let k = self.b.i32c(mode);
        let void = self.b.t.void;
        self.b.dxop(OpCode::Barrier, None, void, &[k])?;
        Ok(())
    }
}
