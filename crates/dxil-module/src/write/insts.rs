//! Instruction records (`FUNC_CODE_INST_*`), one function per record family, laid out as
//! `BitcodeWriter.cpp`'s `WriteInstruction`, with the compact abbreviations of
//! [`WriteOptions::compact_bodies`](super::WriteOptions::compact_bodies) where they fit.

use dxil_bitstream::builtin_abbrev::UNABBREV_RECORD;

use super::{
    FN_BINOP, FN_BINOP_FLAGS, FN_BR, FN_CALL, FN_CAST, FN_CMP, FN_CONDBR, FN_EXTRACTVAL, FN_GEP,
    FN_GEP3, FN_LOAD, FN_RET_VAL, FN_RET_VOID, FN_SELECT, FN_STORE, FN_UNREACHABLE, Result, Writer,
    error, sign_rotate,
};
use crate::codes::function::*;
use crate::entity::BlockId;
use crate::inst::InstKind;
use crate::module::Function;
use crate::value::Value;

impl<'m> Writer<'m, '_> {
    /// `PushValueAndType`: relative id, plus the type for a forward reference.
    fn push_vt(&mut self, f: &Function, v: Value, inst_id: u32) -> Result<bool> {
        let id = self.e.value_id(v)?;
        self.vals.push(u64::from(inst_id.wrapping_sub(id)));
        if id >= inst_id {
            let t = self.e.operand_type(Some(f), v)?;
            self.vals.push(u64::from(self.e.type_id(t)?));
            return Ok(true);
        }
        Ok(false)
    }

    /// `pushValue`: relative id, wrapping at 32 bits.
    fn push_v(&mut self, v: Value, inst_id: u32) -> Result<()> {
        let id = self.e.value_id(v)?;
        self.vals.push(u64::from(inst_id.wrapping_sub(id)));
        Ok(())
    }

    fn block(&self, body: &crate::module::Body, b: BlockId) -> Result<u64> {
        if b.index() < body.blocks.len() {
            Ok(u64::from(b.0))
        } else {
            Err(error::invalid(format!("block {} does not exist", b.0)))
        }
    }

    fn ty(&self, t: crate::entity::TypeId) -> Result<u64> {
        Ok(u64::from(self.e.type_id_of(t)?))
    }

    pub(super) fn write_inst(
        &mut self,
        f: &'m Function,
        body: &'m crate::module::Body,
        inst: &crate::inst::InstData,
        id: u32,
    ) -> Result<()> {
        use InstKind::*;
        let (code, abbrev) = match &inst.kind {
            Cast { .. }
            | Binary { .. }
            | Gep { .. }
            | ExtractValue { .. }
            | InsertValue { .. }
            | Select { .. }
            | ExtractElement { .. }
            | InsertElement { .. }
            | ShuffleVector { .. }
            | Cmp { .. } => self.write_operator(f, body, inst, id)?,
            Ret { .. } | Br { .. } | CondBr { .. } | Switch { .. } | Unreachable | Phi { .. } => {
                self.write_control(f, body, inst, id)?
            }
            Alloca { .. }
            | Load { .. }
            | Store { .. }
            | CmpXchg { .. }
            | AtomicRmw { .. }
            | Fence { .. } => self.write_memory(f, inst, id)?,
            Call { .. } | VaArg { .. } => self.write_call(f, body, inst, id)?,
        };
        self.record(code, abbrev)
    }

    /// Casts, arithmetic, comparisons, selects and aggregate/vector element records: `(code, abbreviation)` with the operands in `vals`.
    fn write_operator(
        &mut self,
        f: &'m Function,
        body: &'m crate::module::Body,
        inst: &crate::inst::InstData,
        id: u32,
    ) -> Result<(u32, u32)> {
        use InstKind::*;
        let pool = &body.pool;
        Ok(match &inst.kind {
            Cast { op, value } => {
                let fwd = self.push_vt(f, *value, id)?;
                self.vals.push(self.ty(inst.ty)?);
                self.vals.push(op.code());
                (INST_CAST, if fwd { UNABBREV_RECORD } else { FN_CAST })
            }
            Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let fwd = self.push_vt(f, *lhs, id)?;
                self.push_v(*rhs, id)?;
                self.vals.push(op.code());
                let mut abbrev = if fwd { UNABBREV_RECORD } else { FN_BINOP };
                if *flags != 0 {
                    if abbrev == FN_BINOP {
                        abbrev = FN_BINOP_FLAGS;
                    }
                    self.vals.push(u64::from(*flags));
                }
                (INST_BINOP, abbrev)
            }
            Gep {
                inbounds,
                source_ty,
                operands,
            } => {
                if operands.len == 0 {
                    return Err(error::mismatch("getelementptr without a base"));
                }
                self.vals.push(u64::from(*inbounds));
                self.vals.push(self.ty(*source_ty)?);
                let mut fwd = false;
                for &x in operands.get(pool) {
                    fwd |= self.push_vt(f, Value(x), id)?;
                }
                // Base and two indices, all backward references that fit the width.
                let fits = self.compact
                    && *inbounds
                    && !fwd
                    && self.vals.len() == 5
                    && self.vals[2..].iter().all(|&v| v >> self.valbits == 0);
                (INST_GEP, if fits { FN_GEP3 } else { FN_GEP })
            }
            ExtractValue { aggregate, indices } => {
                let fwd = self.push_vt(f, *aggregate, id)?;
                let indices = indices.get(pool);
                self.vals.extend(indices.iter().map(|&x| u64::from(x)));
                let fits = self.compact && !fwd && indices.len() == 1;
                (
                    INST_EXTRACTVAL,
                    if fits { FN_EXTRACTVAL } else { UNABBREV_RECORD },
                )
            }
            InsertValue {
                aggregate,
                element,
                indices,
            } => {
                self.push_vt(f, *aggregate, id)?;
                self.push_vt(f, *element, id)?;
                self.vals
                    .extend(indices.get(pool).iter().map(|&x| u64::from(x)));
                (INST_INSERTVAL, UNABBREV_RECORD)
            }
            Select {
                cond,
                if_true,
                if_false,
            } => {
                let fwd = self.push_vt(f, *if_true, id)?;
                self.push_v(*if_false, id)?;
                let fwd = self.push_vt(f, *cond, id)? || fwd;
                (
                    29,
                    if self.compact && !fwd {
                        FN_SELECT
                    } else {
                        UNABBREV_RECORD
                    },
                )
            }
            ExtractElement { vector, index } => {
                self.push_vt(f, *vector, id)?;
                self.push_vt(f, *index, id)?;
                (INST_EXTRACTELT, UNABBREV_RECORD)
            }
            InsertElement {
                vector,
                element,
                index,
            } => {
                self.push_vt(f, *vector, id)?;
                self.push_v(*element, id)?;
                self.push_vt(f, *index, id)?;
                (INST_INSERTELT, UNABBREV_RECORD)
            }
            ShuffleVector { v1, v2, mask } => {
                self.push_vt(f, *v1, id)?;
                self.push_v(*v2, id)?;
                self.push_v(*mask, id)?;
                (INST_SHUFFLEVEC, UNABBREV_RECORD)
            }
            Cmp {
                pred,
                lhs,
                rhs,
                flags,
            } => {
                let fwd = self.push_vt(f, *lhs, id)?;
                self.push_v(*rhs, id)?;
                self.vals.push(u64::from(pred.0));
                if *flags != 0 {
                    self.vals.push(u64::from(*flags));
                }
                let fits = self.compact && !fwd && *flags == 0 && pred.0 < 64;
                (INST_CMP2, if fits { FN_CMP } else { UNABBREV_RECORD })
            }
            _ => return Err(error::invalid("instruction of another family")),
        })
    }

    /// Terminators and phis.
    fn write_control(
        &mut self,
        f: &'m Function,
        body: &'m crate::module::Body,
        inst: &crate::inst::InstData,
        id: u32,
    ) -> Result<(u32, u32)> {
        use InstKind::*;
        let pool = &body.pool;
        Ok(match &inst.kind {
            Ret { value: None } => (INST_RET, FN_RET_VOID),
            Ret { value: Some(v) } => {
                let fwd = self.push_vt(f, *v, id)?;
                (INST_RET, if fwd { UNABBREV_RECORD } else { FN_RET_VAL })
            }
            Br { dest } => {
                self.vals.push(self.block(body, *dest)?);
                (INST_BR, if self.compact { FN_BR } else { UNABBREV_RECORD })
            }
            CondBr {
                cond,
                if_true,
                if_false,
            } => {
                self.vals.push(self.block(body, *if_true)?);
                self.vals.push(self.block(body, *if_false)?);
                self.push_v(*cond, id)?;
                (
                    11,
                    if self.compact {
                        FN_CONDBR
                    } else {
                        UNABBREV_RECORD
                    },
                )
            }
            Switch {
                cond,
                default,
                cases,
            } => {
                let t = self.e.operand_type(Some(f), *cond)?;
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.push_v(*cond, id)?;
                self.vals.push(self.block(body, *default)?);
                for p in cases.get(pool).chunks_exact(2) {
                    let cv = Value(p[0]);
                    if cv.as_const().is_none() {
                        return Err(error::invalid("switch case value is not a constant"));
                    }
                    self.vals.push(u64::from(self.e.value_id(cv)?));
                    self.vals.push(self.block(body, BlockId(p[1]))?);
                }
                (INST_SWITCH, UNABBREV_RECORD)
            }
            Unreachable => (INST_UNREACHABLE, FN_UNREACHABLE),
            Phi { incoming } => {
                self.vals.push(self.ty(inst.ty)?);
                for p in incoming.get(pool).chunks_exact(2) {
                    let vid = self.e.value_id(Value(p[0]))?;
                    let diff = i64::from((id as i32).wrapping_sub(vid as i32));
                    self.vals.push(sign_rotate(diff as u64));
                    self.vals.push(self.block(body, BlockId(p[1]))?);
                }
                (INST_PHI, UNABBREV_RECORD)
            }
            _ => return Err(error::invalid("instruction of another family")),
        })
    }

    /// Allocas, loads, stores, atomics and fences.
    fn write_memory(
        &mut self,
        f: &'m Function,
        inst: &crate::inst::InstData,
        id: u32,
    ) -> Result<(u32, u32)> {
        use InstKind::*;
        Ok(match &inst.kind {
            Alloca {
                allocated,
                size,
                align_field,
            } => {
                self.vals.push(self.ty(*allocated)?);
                let t = self.e.operand_type(Some(f), *size)?;
                self.vals.push(u64::from(self.e.type_id(t)?));
                self.vals.push(u64::from(self.e.value_id(*size)?));
                self.vals.push(u64::from(*align_field | 1 << 6));
                (INST_ALLOCA, UNABBREV_RECORD)
            }
            Load {
                ptr,
                align,
                volatile,
                atomic,
            } => {
                let fwd = self.push_vt(f, *ptr, id)?;
                self.vals.push(self.ty(inst.ty)?);
                self.vals.push(u64::from(*align));
                self.vals.push(u64::from(*volatile));
                match atomic {
                    None => (INST_LOAD, if fwd { UNABBREV_RECORD } else { FN_LOAD }),
                    Some((o, s)) => {
                        self.vals.extend([u64::from(o.0), u64::from(s.0)]);
                        (INST_LOADATOMIC, UNABBREV_RECORD)
                    }
                }
            }
            Store {
                ptr,
                value,
                align,
                volatile,
                atomic,
            } => {
                let fwd = self.push_vt(f, *ptr, id)?;
                let fwd = self.push_vt(f, *value, id)? || fwd;
                self.vals.push(u64::from(*align));
                self.vals.push(u64::from(*volatile));
                match atomic {
                    None => (
                        44,
                        if self.compact && !fwd {
                            FN_STORE
                        } else {
                            UNABBREV_RECORD
                        },
                    ),
                    Some((o, s)) => {
                        self.vals.extend([u64::from(o.0), u64::from(s.0)]);
                        (INST_STOREATOMIC, UNABBREV_RECORD)
                    }
                }
            }
            CmpXchg {
                ptr,
                cmp,
                new,
                volatile,
                success,
                scope,
                failure,
                weak,
            } => {
                self.push_vt(f, *ptr, id)?;
                self.push_vt(f, *cmp, id)?;
                self.push_v(*new, id)?;
                self.vals.extend([
                    u64::from(*volatile),
                    u64::from(success.0),
                    u64::from(scope.0),
                    u64::from(failure.0),
                    u64::from(*weak),
                ]);
                (INST_CMPXCHG, UNABBREV_RECORD)
            }
            AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                ordering,
                scope,
            } => {
                self.push_vt(f, *ptr, id)?;
                self.push_v(*value, id)?;
                self.vals.extend([
                    op.code(),
                    u64::from(*volatile),
                    u64::from(ordering.0),
                    u64::from(scope.0),
                ]);
                (INST_ATOMICRMW, UNABBREV_RECORD)
            }
            Fence { ordering, scope } => {
                self.vals
                    .extend([u64::from(ordering.0), u64::from(scope.0)]);
                (INST_FENCE, UNABBREV_RECORD)
            }
            _ => return Err(error::invalid("instruction of another family")),
        })
    }

    /// Calls and `va_arg`.
    fn write_call(
        &mut self,
        f: &'m Function,
        body: &'m crate::module::Body,
        inst: &crate::inst::InstData,
        id: u32,
    ) -> Result<(u32, u32)> {
        use InstKind::*;
        let pool = &body.pool;
        Ok(match &inst.kind {
            Call {
                callee,
                fn_ty,
                attrs,
                cc_flags,
                args,
            } => {
                let m = self.e.m;
                let Some((_, params, vararg)) = m.types.function_signature(*fn_ty) else {
                    return Err(error::mismatch("call through a non-function type"));
                };
                let args = args.get(pool);
                if args.len() < params.len() || (!vararg && args.len() != params.len()) {
                    return Err(error::mismatch(format!(
                        "call passes {} arguments to a function of {} parameters",
                        args.len(),
                        params.len()
                    )));
                }
                self.vals.push(u64::from(self.e.attr_list_id(*attrs)));
                self.vals.push(u64::from(*cc_flags | 1 << 15));
                self.vals.push(self.ty(*fn_ty)?);
                self.push_vt(f, *callee, id)?;
                for (k, &a) in args.iter().enumerate() {
                    match params.get(k) {
                        Some(p)
                            if matches!(m.types.get(*p), Some(crate::types::TypeData::Label)) =>
                        {
                            self.vals.push(u64::from(self.e.value_id(Value(a))?));
                        }
                        Some(_) => self.push_v(Value(a), id)?,
                        None => {
                            self.push_vt(f, Value(a), id)?;
                        }
                    }
                }
                let fits = self.compact && *cc_flags == 0;
                (INST_CALL, if fits { FN_CALL } else { UNABBREV_RECORD })
            }
            VaArg { list_ty, list } => {
                self.vals.push(self.ty(*list_ty)?);
                self.push_v(*list, id)?;
                self.vals.push(self.ty(inst.ty)?);
                (INST_VAARG, UNABBREV_RECORD)
            }

            _ => return Err(error::invalid("instruction of another family")),
        })
    }
}
