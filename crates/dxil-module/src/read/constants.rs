//! CONSTANTS blocks, module-level and per function, and global initializers.

use super::{FnState, Next, ReadErrorKind, Reader, Result, decode_signed, is_constant_operand};
use crate::codes;
use crate::constants::{ConstData, Constant};
use crate::entity::{BlockId, PoolRange, TypeId};
use crate::inst::{BinOp, CastOp, Predicate};
use crate::types::TypeData;
use crate::value::{MAX_VALUE_INDEX, Value, ValueRef};

impl Reader<'_> {
    /// Reads a CONSTANTS block. With `f`, constants are function-local values.
    pub(super) fn read_constants(&mut self, mut f: Option<&mut FnState>) -> Result<()> {
        let first_item = self.m.constants.len();
        let first_value = self.m.constants.values.len();
        let mut cur_ty = match self.m.types.iter().find(|(_, d)| **d == TypeData::Int(32)) {
            Some((id, _)) => id,
            None => TypeId(u32::MAX),
        };
        loop {
            match self.step()? {
                Next::Record(code) => {
                    if code == codes::constants::SETTYPE {
                        cur_ty = self.op_type(0)?;
                        if self.m.types.is_void(cur_ty)
                            || matches!(self.m.types.data(cur_ty), TypeData::Function { .. })
                        {
                            return Err(self.malformed("constants of void or function type"));
                        }
                        continue;
                    }
                    if cur_ty.0 == u32::MAX {
                        return Err(self.malformed("constant before any SETTYPE"));
                    }
                    let data = self.constant_record(code, cur_ty, f.as_deref())?;
                    let id = self.m.constants.push(Constant { ty: cur_ty, data });
                    match f.as_deref_mut() {
                        Some(st) => Self::push_local(st, Value::constant(id), cur_ty, &*self)?,
                        None => self.push_module_value(Value::constant(id), cur_ty)?,
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        // Patch forward references inside this block's constants.
        let module_values = &self.values;
        let local_values = f.as_deref().map(|s| &s.values);
        let n_module = module_values.len();
        let lookup = |v: Value| -> Option<Value> {
            match v.get() {
                ValueRef::Unresolved(n) => {
                    let n = n as usize;
                    if n < n_module {
                        module_values.get(n).copied()
                    } else {
                        local_values.and_then(|l| l.get(n - n_module).copied())
                    }
                }
                _ => Some(v),
            }
            .filter(|v| is_constant_operand(*v))
        };
        let mut bad = None;
        {
            let (items, values) = self.m.constants.items_and_values_mut();
            let mut fix = |v: &mut Value| match lookup(*v) {
                Some(r) => *v = r,
                None => bad = Some(v.index()),
            };
            for v in values.iter_mut().skip(first_value) {
                fix(v);
            }
            for c in items.iter_mut().skip(first_item) {
                match &mut c.data {
                    ConstData::Cast { value, .. } => fix(value),
                    ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
                        fix(lhs);
                        fix(rhs);
                    }
                    ConstData::Select {
                        cond,
                        if_true,
                        if_false,
                    } => {
                        fix(cond);
                        fix(if_true);
                        fix(if_false);
                    }
                    ConstData::ExtractElement { vector, index } => {
                        fix(vector);
                        fix(index);
                    }
                    ConstData::InsertElement {
                        vector,
                        element,
                        index,
                    } => {
                        fix(vector);
                        fix(element);
                        fix(index);
                    }
                    ConstData::ShuffleVector { v1, v2, mask } => {
                        fix(v1);
                        fix(v2);
                        fix(mask);
                    }
                    _ => {}
                }
            }
        }
        if let Some(n) = bad {
            return Err(self.malformed(format!("constant refers to undefined value {n}")));
        }
        Ok(())
    }

    /// An absolute value number used inside a constant: resolved if already defined.
    pub(super) fn abs_value(&self, n: u64, f: Option<&FnState>) -> Result<Value> {
        let n = u32::try_from(n)
            .ok()
            .filter(|&n| n <= MAX_VALUE_INDEX)
            .ok_or_else(|| self.malformed(format!("value id {n} out of range")))?;
        match self.lookup_value(n, f) {
            Some(v) if is_constant_operand(v) => Ok(v),
            Some(_) => Err(self.malformed(format!(
                "constant refers to value {n}, which is an argument or instruction"
            ))),
            None => Ok(Value::unresolved(n)),
        }
    }

    #[inline]
    pub(super) fn lookup_value(&self, n: u32, f: Option<&FnState>) -> Option<Value> {
        let m = self.values.len();
        let n = n as usize;
        if n < m {
            self.values.get(n).copied()
        } else {
            f.and_then(|s| s.values.get(n - m).copied())
        }
    }

    #[inline]
    pub(super) fn lookup_type(&self, n: u32, f: Option<&FnState>) -> Option<TypeId> {
        let m = self.value_types.len();
        let n = n as usize;
        if n < m {
            self.value_types.get(n).copied()
        } else {
            f.and_then(|s| s.types.get(n - m).copied())
        }
    }

    pub(super) fn constant_record(
        &mut self,
        code: u32,
        ty: TypeId,
        f: Option<&FnState>,
    ) -> Result<ConstData> {
        let is_float = |r: &Self, t: TypeId| r.m.types.is_float(r.m.types.scalar_of(t));
        Ok(match code {
            codes::constants::NULL => ConstData::Null,
            codes::constants::UNDEF => ConstData::Undef,
            codes::constants::INTEGER => {
                if self.m.types.int_width(ty).is_none() {
                    return Err(self.malformed("INTEGER constant of non-integer type"));
                }
                ConstData::Int(decode_signed(self.op(0)?))
            }
            codes::constants::WIDE_INTEGER => {
                if self.ops.is_empty() {
                    return Err(self.malformed("empty WIDE_INTEGER"));
                }
                let words: Vec<u64> = self.ops.iter().map(|&w| decode_signed(w) as u64).collect();
                ConstData::WideInt(PoolRange::push(&mut self.m.constants.words, &words))
            }
            codes::constants::FLOAT => ConstData::Float(self.op(0)?),
            codes::constants::AGGREGATE => {
                let start = self.m.constants.values.len() as u32;
                for i in 0..self.ops.len() {
                    let v = self.abs_value(self.ops[i], f)?;
                    self.m.constants.values.push(v);
                }
                ConstData::Aggregate(PoolRange {
                    start,
                    len: self.ops.len() as u32,
                })
            }
            codes::constants::STRING | codes::constants::CSTRING => {
                let bytes: Vec<u8> = self.ops.iter().map(|&c| c as u8).collect();
                let r = PoolRange::push(&mut self.m.constants.bytes, &bytes);
                if code == codes::constants::STRING {
                    ConstData::String(r)
                } else {
                    ConstData::CString(r)
                }
            }
            codes::constants::CE_BINOP => {
                let lhs = self.abs_value(self.op(1)?, f)?;
                let rhs = self.abs_value(self.op(2)?, f)?;
                let float = is_float(self, ty);
                let op = BinOp::from_code(self.op(0)?, float)
                    .ok_or_else(|| self.malformed("invalid constant binop"))?;
                ConstData::Binary {
                    op,
                    flags: self.ops.get(3).map_or(0, |v| *v as u8),
                    lhs,
                    rhs,
                }
            }
            codes::constants::CE_CAST => {
                let op = CastOp::from_code(self.op(0)?)
                    .ok_or_else(|| self.malformed("invalid constant cast"))?;
                self.op_type(1)?;
                ConstData::Cast {
                    op,
                    value: self.abs_value(self.op(2)?, f)?,
                }
            }
            codes::constants::CE_GEP | codes::constants::CE_INBOUNDS_GEP => {
                let (source_ty, first) = if self.ops.len() % 2 == 1 {
                    (Some(self.op_type(0)?), 1)
                } else {
                    (None, 0)
                };
                let start = self.m.constants.values.len() as u32;
                let mut i = first;
                while i + 1 < self.ops.len() {
                    self.op_type(i)?;
                    let v = self.abs_value(self.ops[i + 1], f)?;
                    self.m.constants.values.push(v);
                    i += 2;
                }
                ConstData::Gep {
                    inbounds: code == codes::constants::CE_INBOUNDS_GEP,
                    source_ty,
                    operands: PoolRange {
                        start,
                        len: (self.m.constants.values.len() as u32) - start,
                    },
                }
            }
            codes::constants::CE_SELECT => ConstData::Select {
                cond: self.abs_value(self.op(0)?, f)?,
                if_true: self.abs_value(self.op(1)?, f)?,
                if_false: self.abs_value(self.op(2)?, f)?,
            },
            codes::constants::CE_EXTRACTELT => {
                self.op_type(0)?;
                let idx_at = if self.ops.len() >= 4 { 3 } else { 2 };
                ConstData::ExtractElement {
                    vector: self.abs_value(self.op(1)?, f)?,
                    index: self.abs_value(self.op(idx_at)?, f)?,
                }
            }
            codes::constants::CE_INSERTELT => {
                let idx_at = if self.ops.len() >= 4 { 3 } else { 2 };
                ConstData::InsertElement {
                    vector: self.abs_value(self.op(0)?, f)?,
                    element: self.abs_value(self.op(1)?, f)?,
                    index: self.abs_value(self.op(idx_at)?, f)?,
                }
            }
            codes::constants::CE_SHUFFLEVEC => ConstData::ShuffleVector {
                v1: self.abs_value(self.op(0)?, f)?,
                v2: self.abs_value(self.op(1)?, f)?,
                mask: self.abs_value(self.op(2)?, f)?,
            },
            codes::constants::CE_SHUFVEC_EX => {
                self.op_type(0)?;
                ConstData::ShuffleVector {
                    v1: self.abs_value(self.op(1)?, f)?,
                    v2: self.abs_value(self.op(2)?, f)?,
                    mask: self.abs_value(self.op(3)?, f)?,
                }
            }
            codes::constants::CE_CMP => {
                self.op_type(0)?;
                let pred = Predicate::from_code(self.op(3)?)
                    .ok_or_else(|| self.malformed("invalid comparison predicate"))?;
                ConstData::Cmp {
                    pred,
                    lhs: self.abs_value(self.op(1)?, f)?,
                    rhs: self.abs_value(self.op(2)?, f)?,
                }
            }
            codes::constants::BLOCKADDRESS => {
                self.op_type(0)?;
                let fv = self.abs_value(self.op(1)?, f)?;
                let function = fv
                    .as_function()
                    .ok_or_else(|| self.malformed("blockaddress of a non-function"))?;
                ConstData::BlockAddress {
                    function,
                    block: BlockId(self.op_u32(2)?),
                }
            }
            codes::constants::DATA => {
                let elem = match self.m.types.data(ty) {
                    TypeData::Array { len, elem } if *len == self.ops.len() as u64 => *elem,
                    TypeData::Vector { len, elem } if *len as usize == self.ops.len() => *elem,
                    _ => {
                        return Err(
                            self.malformed("DATA constant does not match its array/vector type")
                        );
                    }
                };
                if self.m.types.scalar_bits(elem) == 0 {
                    return Err(self.malformed("DATA constant of non-scalar elements"));
                }
                ConstData::Data(PoolRange::push(&mut self.m.constants.words, &self.ops))
            }
            codes::constants::INLINEASM_OLD | codes::constants::INLINEASM => {
                return Err(self.unsupported("inline assembly"));
            }
            _ => return Err(self.unsupported(format!("constant record code {code}"))),
        })
    }

    pub(super) fn resolve_global_inits(&mut self) -> Result<()> {
        let pending = std::mem::take(&mut self.global_inits);
        let mut left = Vec::new();
        for (g, n) in pending {
            match self.values.get(n as usize) {
                Some(v) => {
                    if let Some(gv) = self.m.globals.get_mut(g.index()) {
                        gv.init = Some(*v);
                    }
                }
                None => left.push((g, n)),
            }
        }
        self.global_inits = left;
        Ok(())
    }
}
