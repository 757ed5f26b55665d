//! Instruction records of a function body.

use super::{FnState, Reader, Result, decode_signed};
use crate::codes::function::*;
use crate::entity::{AttrListId, PoolRange, TypeId};
use crate::inst::{BinOp, CastOp, InstKind, Predicate, RmwOp};
use crate::types::TypeData;
use crate::value::{MAX_VALUE_INDEX, Value, ValueRef};

impl Reader<'_> {
    pub(super) fn instruction(
        &mut self,
        code: u32,
        st: &mut FnState,
    ) -> Result<(InstKind, TypeId)> {
        // Looked up (and added when missing) before any record's own types, as it always was:
        // the order of types the reader adds shows in the type table.
        let void = self.void_type();
        match code {
            INST_BINOP | INST_CAST | INST_SELECT | INST_VSELECT | INST_CMP | INST_CMP2 => {
                self.arith_record(code, st)
            }
            INST_GEP_OLD | INST_INBOUNDS_GEP_OLD | INST_GEP => self.gep_record(code, st),
            INST_EXTRACTELT..=INST_SHUFFLEVEC => self.vector_record(code, st),
            INST_RET..=INST_SWITCH | INST_UNREACHABLE => self.terminator_record(code, st, void),
            INST_PHI => self.phi_record(st),
            INST_ALLOCA | INST_LOAD | INST_LOADATOMIC | INST_STORE | INST_STOREATOMIC
            | INST_STORE_OLD | INST_STOREATOMIC_OLD | INST_VAARG => {
                self.memory_record(code, st, void)
            }
            INST_EXTRACTVAL | INST_INSERTVAL => self.aggregate_record(code, st),
            INST_CALL => self.call_record(st),
            INST_FENCE | INST_ATOMICRMW | INST_CMPXCHG_OLD | INST_CMPXCHG => {
                self.atomic_record(code, st, void)
            }
            INST_INVOKE | INST_INDIRECTBR | INST_RESUME | INST_LANDINGPAD_OLD | INST_LANDINGPAD => {
                Err(self.unsupported(format!(
                    "instruction record {code} (exception handling / indirect branches)"
                )))
            }
            _ => Err(self.unsupported(format!("instruction record code {code}"))),
        }
    }

    /// Binary operators, casts, selects and compares.
    fn arith_record(&mut self, code: u32, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_BINOP => {
                let (lhs, ty) = self.value_type_pair(st, &mut s)?;
                let rhs = self.value_plain(st, &mut s)?;
                let float = self.m.types.is_float(self.m.types.scalar_of(ty));
                let op = BinOp::from_code(self.op(s)?, float)
                    .ok_or_else(|| self.malformed("invalid binary operator"))?;
                let flags = self.ops.get(s + 1).map_or(0, |v| *v as u8);
                (
                    InstKind::Binary {
                        op,
                        lhs,
                        rhs,
                        flags,
                    },
                    ty,
                )
            }
            INST_CAST => {
                let (value, _) = self.value_type_pair(st, &mut s)?;
                let to = self.op_type(s)?;
                let op = CastOp::from_code(self.op(s + 1)?)
                    .ok_or_else(|| self.malformed("invalid cast operator"))?;
                (InstKind::Cast { op, value }, to)
            }
            INST_SELECT => {
                let (if_true, ty) = self.value_type_pair(st, &mut s)?;
                let if_false = self.value_plain(st, &mut s)?;
                let cond = self.value_plain(st, &mut s)?;
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                )
            }
            INST_VSELECT => {
                let (if_true, ty) = self.value_type_pair(st, &mut s)?;
                let if_false = self.value_plain(st, &mut s)?;
                let (cond, _) = self.value_type_pair(st, &mut s)?;
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                )
            }
            INST_CMP | INST_CMP2 => {
                let (lhs, ty) = self.value_type_pair(st, &mut s)?;
                let rhs = self.value_plain(st, &mut s)?;
                let pred = Predicate::from_code(self.op(s)?)
                    .ok_or_else(|| self.malformed("invalid comparison predicate"))?;
                let flags = self.ops.get(s + 1).map_or(0, |v| *v as u8);
                let rty = self.i1_like(ty)?;
                (
                    InstKind::Cmp {
                        pred,
                        lhs,
                        rhs,
                        flags,
                    },
                    rty,
                )
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// `getelementptr` in its three record forms (old, old inbounds, with an explicit source type).
    fn gep_record(&mut self, code: u32, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_GEP_OLD | INST_INBOUNDS_GEP_OLD | INST_GEP => {
                let (inbounds, explicit) = match code {
                    INST_GEP => {
                        let ib = self.op(0)? != 0;
                        let t = self.op_type(1)?;
                        s = 2;
                        (ib, Some(t))
                    }
                    INST_INBOUNDS_GEP_OLD => (true, None),
                    _ => (false, None),
                };
                let start = st.body.pool.len();
                let mut base_ty = None;
                while s < self.ops.len() {
                    let (v, t) = self.value_type_pair(st, &mut s)?;
                    if base_ty.is_none() {
                        base_ty = Some(t);
                    }
                    st.body.pool.push(v.0);
                }
                let base_ty =
                    base_ty.ok_or_else(|| self.malformed("getelementptr without a base"))?;
                let source_ty = match explicit {
                    Some(t) => t,
                    None => self
                        .m
                        .types
                        .pointee(base_ty)
                        .ok_or_else(|| self.malformed("getelementptr base is not a pointer"))?,
                };
                let ty = self.gep_result(source_ty, base_ty, st.body.pool.get(start..))?;
                let operands = PoolRange {
                    start: start as u32,
                    len: (st.body.pool.len() - start) as u32,
                };
                (
                    InstKind::Gep {
                        inbounds,
                        source_ty,
                        operands,
                    },
                    ty,
                )
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// Vector element access and shuffles.
    fn vector_record(&mut self, code: u32, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_EXTRACTELT => {
                let (vector, vty) = self.value_type_pair(st, &mut s)?;
                let (index, _) = self.value_type_pair(st, &mut s)?;
                let ty = match self.m.types.data(vty) {
                    TypeData::Vector { elem, .. } => *elem,
                    _ => return Err(self.malformed("extractelement of a non-vector")),
                };
                (InstKind::ExtractElement { vector, index }, ty)
            }
            INST_INSERTELT => {
                let (vector, vty) = self.value_type_pair(st, &mut s)?;
                let element = self.value_plain(st, &mut s)?;
                let (index, _) = self.value_type_pair(st, &mut s)?;
                (
                    InstKind::InsertElement {
                        vector,
                        element,
                        index,
                    },
                    vty,
                )
            }
            INST_SHUFFLEVEC => {
                let (v1, vty) = self.value_type_pair(st, &mut s)?;
                let v2 = self.value_plain(st, &mut s)?;
                let (mask, mty) = self.value_type_pair(st, &mut s)?;
                let (elem, len) = match (self.m.types.data(vty), self.m.types.data(mty)) {
                    (TypeData::Vector { elem, .. }, TypeData::Vector { len, .. }) => (*elem, *len),
                    _ => return Err(self.malformed("shufflevector of non-vectors")),
                };
                let ty = self.vector_type(len, elem);
                (InstKind::ShuffleVector { v1, v2, mask }, ty)
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// Returns, branches, switches and `unreachable`.
    fn terminator_record(
        &mut self,
        code: u32,
        st: &mut FnState,
        void: TypeId,
    ) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_RET => {
                if self.ops.is_empty() {
                    (InstKind::Ret { value: None }, void)
                } else {
                    let (v, _) = self.value_type_pair(st, &mut s)?;
                    if s != self.ops.len() {
                        return Err(self.unsupported("returning several values"));
                    }
                    (InstKind::Ret { value: Some(v) }, void)
                }
            }
            INST_BR => {
                if self.ops.len() == 1 {
                    let dest = self.block_id(st, self.op(0)?)?;
                    (InstKind::Br { dest }, void)
                } else {
                    let if_true = self.block_id(st, self.op(0)?)?;
                    let if_false = self.block_id(st, self.op(1)?)?;
                    s = 2;
                    let cond = self.value_plain(st, &mut s)?;
                    (
                        InstKind::CondBr {
                            cond,
                            if_true,
                            if_false,
                        },
                        void,
                    )
                }
            }
            INST_SWITCH => {
                if self.op(0)? >> 16 == 0x4B5 {
                    return Err(self.unsupported("the wide-integer switch record format"));
                }
                self.op_type(0)?;
                s = 1;
                let cond = self.value_plain(st, &mut s)?;
                let default = self.block_id(st, self.op(2)?)?;
                let n = (self.ops.len().saturating_sub(3)) / 2;
                let start = st.body.pool.len() as u32;
                for i in 0..n {
                    let cv = self.op(3 + 2 * i)?;
                    let cv = u32::try_from(cv).map_err(|_| self.malformed("case value id"))?;
                    let v = self
                        .lookup_value(cv, Some(st))
                        .filter(|v| v.as_const().is_some())
                        .ok_or_else(|| self.malformed("switch case value is not a constant"))?;
                    let b = self.block_id(st, self.op(4 + 2 * i)?)?;
                    st.body.pool.push(v.0);
                    st.body.pool.push(b.0);
                }
                (
                    InstKind::Switch {
                        cond,
                        default,
                        cases: PoolRange {
                            start,
                            len: (n * 2) as u32,
                        },
                    },
                    void,
                )
            }
            INST_UNREACHABLE => (InstKind::Unreachable, void),
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// `alloca`, loads, stores (plain and atomic) and `va_arg`.
    fn memory_record(
        &mut self,
        code: u32,
        st: &mut FnState,
        void: TypeId,
    ) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_ALLOCA => {
                let t0 = self.op_type(0)?;
                self.op_type(1)?;
                let size_n = self.op_u32(2)?;
                let size = self
                    .lookup_value(size_n, Some(st))
                    .ok_or_else(|| self.malformed("alloca size is not defined"))?;
                let align_field = self.op_u32(3)?;
                let allocated = if align_field & (1 << 6) != 0 {
                    t0
                } else {
                    self.m
                        .types
                        .pointee(t0)
                        .ok_or_else(|| self.malformed("alloca type is not a pointer"))?
                };
                if align_field & 31 > 30 {
                    return Err(self.malformed("alloca alignment too large"));
                }
                let ty = self.pointer_type(allocated, 0);
                (
                    InstKind::Alloca {
                        allocated,
                        size,
                        align_field,
                    },
                    ty,
                )
            }
            INST_LOAD | INST_LOADATOMIC => {
                let (ptr, pty) = self.value_type_pair(st, &mut s)?;
                let tail = if code == INST_LOAD { 2 } else { 4 };
                let ty = if s + tail + 1 == self.ops.len() {
                    let t = self.op_type(s)?;
                    s += 1;
                    t
                } else {
                    self.m
                        .types
                        .pointee(pty)
                        .ok_or_else(|| self.malformed("load from a non-pointer"))?
                };
                let align = self.align_field(self.op(s)?)?;
                let volatile = self.op(s + 1)? != 0;
                let atomic = if code == INST_LOADATOMIC {
                    Some((
                        self.ordering(self.op(s + 2)?)?,
                        self.scope(self.op(s + 3)?)?,
                    ))
                } else {
                    None
                };
                (
                    InstKind::Load {
                        ptr,
                        align,
                        volatile,
                        atomic,
                    },
                    ty,
                )
            }
            INST_STORE | INST_STOREATOMIC | INST_STORE_OLD | INST_STOREATOMIC_OLD => {
                let (ptr, _) = self.value_type_pair(st, &mut s)?;
                let value = if code == INST_STORE || code == INST_STOREATOMIC {
                    self.value_type_pair(st, &mut s)?.0
                } else {
                    self.value_plain(st, &mut s)?
                };
                let align = self.align_field(self.op(s)?)?;
                let volatile = self.op(s + 1)? != 0;
                let atomic = if code == INST_STOREATOMIC || code == INST_STOREATOMIC_OLD {
                    Some((
                        self.ordering(self.op(s + 2)?)?,
                        self.scope(self.op(s + 3)?)?,
                    ))
                } else {
                    None
                };
                (
                    InstKind::Store {
                        ptr,
                        value,
                        align,
                        volatile,
                        atomic,
                    },
                    void,
                )
            }
            INST_VAARG => {
                let list_ty = self.op_type(0)?;
                s = 1;
                let list = self.value_plain(st, &mut s)?;
                let ty = self.op_type(s)?;
                (InstKind::VaArg { list_ty, list }, ty)
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// `extractvalue` and `insertvalue`.
    fn aggregate_record(&mut self, code: u32, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_EXTRACTVAL | INST_INSERTVAL => {
                let (aggregate, aty) = self.value_type_pair(st, &mut s)?;
                let element = if code == INST_INSERTVAL {
                    Some(self.value_type_pair(st, &mut s)?.0)
                } else {
                    None
                };
                if s >= self.ops.len() {
                    return Err(self.malformed("extractvalue/insertvalue without indices"));
                }
                let mut t = aty;
                let start = st.body.pool.len() as u32;
                for i in s..self.ops.len() {
                    let idx = self.op_u32(i)?;
                    t = match self.m.types.data(t) {
                        TypeData::Struct { elems, .. } => *elems
                            .get(idx as usize)
                            .ok_or_else(|| self.malformed("aggregate index out of range"))?,
                        TypeData::Array { len, elem } if (idx as u64) < *len => *elem,
                        _ => return Err(self.malformed("invalid aggregate index")),
                    };
                    st.body.pool.push(idx);
                }
                let indices = PoolRange {
                    start,
                    len: (self.ops.len() - s) as u32,
                };
                match element {
                    None => (InstKind::ExtractValue { aggregate, indices }, t),
                    Some(element) => (
                        InstKind::InsertValue {
                            aggregate,
                            element,
                            indices,
                        },
                        aty,
                    ),
                }
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// Fences, `atomicrmw` and `cmpxchg`.
    fn atomic_record(
        &mut self,
        code: u32,
        st: &mut FnState,
        void: TypeId,
    ) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            INST_FENCE => (
                InstKind::Fence {
                    ordering: self.ordering(self.op(0)?)?,
                    scope: self.scope(self.op(1)?)?,
                },
                void,
            ),
            INST_ATOMICRMW => {
                let (ptr, _) = self.value_type_pair(st, &mut s)?;
                let value = self.value_plain(st, &mut s)?;
                let op = RmwOp::from_code(self.op(s)?)
                    .ok_or_else(|| self.malformed("invalid atomicrmw operation"))?;
                let ty = match value.get() {
                    ValueRef::Unresolved(_) => {
                        let pty = self.ptr_type_of(ptr, st)?;
                        self.m
                            .types
                            .pointee(pty)
                            .ok_or_else(|| self.malformed("atomicrmw on a non-pointer"))?
                    }
                    _ => self.type_of_value(value, st)?,
                };
                (
                    InstKind::AtomicRmw {
                        op,
                        ptr,
                        value,
                        volatile: self.op(s + 1)? != 0,
                        ordering: self.ordering(self.op(s + 2)?)?,
                        scope: self.scope(self.op(s + 3)?)?,
                    },
                    ty,
                )
            }
            INST_CMPXCHG_OLD | INST_CMPXCHG => {
                let (ptr, pty) = self.value_type_pair(st, &mut s)?;
                let (cmp, cty) = if code == INST_CMPXCHG {
                    self.value_type_pair(st, &mut s)?
                } else {
                    let v = self.value_plain(st, &mut s)?;
                    let t = self
                        .m
                        .types
                        .pointee(pty)
                        .ok_or_else(|| self.malformed("cmpxchg on a non-pointer"))?;
                    (v, t)
                };
                let new = self.value_plain(st, &mut s)?;
                let volatile = self.op(s)? != 0;
                let success = self.ordering(self.op(s + 1)?)?;
                let scope = self.scope(self.op(s + 2)?)?;
                let failure = match self.ops.get(s + 3) {
                    Some(&v) => self.ordering(v)?,
                    None => success,
                };
                let weak = self.ops.get(s + 4).is_some_and(|v| *v != 0);
                let ty = self.cmpxchg_result(cty);
                (
                    InstKind::CmpXchg {
                        ptr,
                        cmp,
                        new,
                        volatile,
                        success,
                        scope,
                        failure,
                        weak,
                    },
                    ty,
                )
            }
            _ => return Err(self.unsupported(format!("instruction record code {code}"))),
        })
    }

    /// A phi's incoming (value, block) pairs; values are signed relative numbers, as forward
    /// references are the rule here.
    fn phi_record(&mut self, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let ty = self.op_type(0)?;
        if self.ops.len() % 2 != 1 {
            return Err(self.malformed("phi record has an odd number of incoming fields"));
        }
        let next = self.next_value_number(st) as i64;
        let start = st.body.pool.len() as u32;
        let mut i = 1;
        while i + 1 < self.ops.len() {
            let rel = decode_signed(self.ops[i]);
            let n = next
                .checked_sub(rel)
                .filter(|n| (0..=MAX_VALUE_INDEX as i64).contains(n));
            let n = n.ok_or_else(|| self.malformed("phi operand out of range"))? as u32;
            let v = self.resolve_number(st, n)?;
            let b = self.block_id(st, self.ops[i + 1])?;
            st.body.pool.push(v.0);
            st.body.pool.push(b.0);
            i += 2;
        }
        Ok((
            InstKind::Phi {
                incoming: PoolRange {
                    start,
                    len: (self.ops.len() - 1) as u32,
                },
            },
            ty,
        ))
    }

    pub(super) fn cmpxchg_result(&mut self, t: TypeId) -> TypeId {
        let i1 = self.i1_type();
        let want = TypeData::Struct {
            name: None,
            packed: false,
            opaque: false,
            elems: vec![t, i1],
        };
        self.find_or_push_type(want)
    }

    pub(super) fn type_of_value(&self, v: Value, st: &FnState) -> Result<TypeId> {
        let ty = match v.get() {
            ValueRef::Arg(_) | ValueRef::Inst(_) => {
                // Local values are found by scanning the local table; only the rare atomicrmw
                // path gets here, so the linear search is acceptable.
                st.values
                    .iter()
                    .position(|x| *x == v)
                    .and_then(|i| st.types.get(i).copied())
            }
            ValueRef::Const(c) => self.m.constants.get(c).map(|c| c.ty),
            ValueRef::Global(g) => self.m.global(g).map(|g| g.ptr_ty),
            ValueRef::Function(f) => self.m.function(f).map(|f| f.ptr_ty),
            _ => None,
        };
        ty.ok_or_else(|| self.malformed("operand type unknown"))
    }

    pub(super) fn ptr_type_of(&self, v: Value, st: &FnState) -> Result<TypeId> {
        self.type_of_value(v, st)
    }

    pub(super) fn call_record(&mut self, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let attr = self.op(0)?;
        let attrs = if attr == 0 {
            None
        } else if attr - 1 < self.m.attr_lists.len() as u64 {
            Some(AttrListId((attr - 1) as u32))
        } else {
            return Err(self.malformed(format!("call attribute list {attr} not defined")));
        };
        let cc = self.op(1)?;
        let mut s = 2;
        let explicit = if cc & (1 << 15) != 0 {
            let t = self.op_type(2)?;
            s = 3;
            Some(t)
        } else {
            None
        };
        let (callee, cty) = self.value_type_pair(st, &mut s)?;
        let fn_ty = match explicit {
            Some(t) => t,
            None => self
                .m
                .types
                .pointee(cty)
                .ok_or_else(|| self.malformed("callee is not a pointer"))?,
        };
        let (ret, params, vararg) = match self.m.types.function_signature(fn_ty) {
            Some(sig) => sig,
            None => return Err(self.malformed("call through a non-function type")),
        };
        // Arguments go straight into the pool (on an error the whole module is dropped).
        let start = st.body.pool.len() as u32;
        for &p in params {
            let v = match self.m.types.data(p) {
                TypeData::Label => {
                    return Err(self.unsupported("label arguments"));
                }
                TypeData::Metadata => {
                    let rel = self.op(s)? as u32;
                    s += 1;
                    let n = self.next_value_number(st).wrapping_sub(rel);
                    Value::metadata(self.md_ref(n as u64, Some(st))?)
                }
                _ => self.value_plain(st, &mut s)?,
            };
            st.body.pool.push(v.0);
        }
        if vararg {
            while s < self.ops.len() {
                let v = self.value_type_pair(st, &mut s)?.0;
                st.body.pool.push(v.0);
            }
        } else if s != self.ops.len() {
            return Err(self.malformed(format!(
                "call passes {} operand fields for {} parameters",
                self.ops.len() - s + params.len(),
                params.len()
            )));
        }
        let args = PoolRange {
            start,
            len: st.body.pool.len() as u32 - start,
        };
        Ok((
            InstKind::Call {
                callee,
                fn_ty,
                attrs,
                cc_flags: (cc & !(1 << 15)) as u32,
                args,
            },
            ret,
        ))
    }
}
