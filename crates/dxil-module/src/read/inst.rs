//! Instruction records of a function body.

use super::{FnState, Reader, Result, decode_signed};
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
            2 | 3 | 5 | 29 | 9 | 28 => self.arith_record(code, st),
            4 | 30 | 43 => self.gep_record(code, st),
            6..=8 => self.vector_record(code, st),
            10..=12 | 15 => self.terminator_record(code, st, void),
            16 => self.phi_record(st),
            19 | 20 | 41 | 44 | 45 | 24 | 42 | 23 => self.memory_record(code, st, void),
            26 | 27 => self.aggregate_record(code, st),
            34 => self.call_record(st),
            36 | 38 | 37 | 46 => self.atomic_record(code, st, void),
            13 | 31 | 39 | 40 | 47 => Err(self.unsupported(format!(
                "instruction record {code} (exception handling / indirect branches)"
            ))),
            _ => Err(self.unsupported(format!("instruction record code {code}"))),
        }
    }

    /// Binary operators, casts, selects and compares.
    fn arith_record(&mut self, code: u32, st: &mut FnState) -> Result<(InstKind, TypeId)> {
        let mut s = 0usize;
        Ok(match code {
            2 => {
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
            3 => {
                let (value, _) = self.value_type_pair(st, &mut s)?;
                let to = self.op_type(s)?;
                let op = CastOp::from_code(self.op(s + 1)?)
                    .ok_or_else(|| self.malformed("invalid cast operator"))?;
                (InstKind::Cast { op, value }, to)
            }
            5 => {
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
            29 => {
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
            9 | 28 => {
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
            4 | 30 | 43 => {
                let (inbounds, explicit) = match code {
                    43 => {
                        let ib = self.op(0)? != 0;
                        let t = self.op_type(1)?;
                        s = 2;
                        (ib, Some(t))
                    }
                    30 => (true, None),
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
            6 => {
                let (vector, vty) = self.value_type_pair(st, &mut s)?;
                let (index, _) = self.value_type_pair(st, &mut s)?;
                let ty = match self.m.types.data(vty) {
                    TypeData::Vector { elem, .. } => *elem,
                    _ => return Err(self.malformed("extractelement of a non-vector")),
                };
                (InstKind::ExtractElement { vector, index }, ty)
            }
            7 => {
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
            8 => {
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
            10 => {
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
            11 => {
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
            12 => {
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
            15 => (InstKind::Unreachable, void),
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
            19 => {
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
            20 | 41 => {
                let (ptr, pty) = self.value_type_pair(st, &mut s)?;
                let tail = if code == 20 { 2 } else { 4 };
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
                let atomic = if code == 41 {
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
            44 | 45 | 24 | 42 => {
                let (ptr, _) = self.value_type_pair(st, &mut s)?;
                let value = if code == 44 || code == 45 {
                    self.value_type_pair(st, &mut s)?.0
                } else {
                    self.value_plain(st, &mut s)?
                };
                let align = self.align_field(self.op(s)?)?;
                let volatile = self.op(s + 1)? != 0;
                let atomic = if code == 45 || code == 42 {
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
            23 => {
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
            26 | 27 => {
                let (aggregate, aty) = self.value_type_pair(st, &mut s)?;
                let element = if code == 27 {
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
            36 => (
                InstKind::Fence {
                    ordering: self.ordering(self.op(0)?)?,
                    scope: self.scope(self.op(1)?)?,
                },
                void,
            ),
            38 => {
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
            37 | 46 => {
                let (ptr, pty) = self.value_type_pair(st, &mut s)?;
                let (cmp, cty) = if code == 46 {
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
