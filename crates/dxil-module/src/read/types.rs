//! The TYPE_BLOCK: the module's type table, and the types the reader adds itself (results of
//! compares and cmpxchg).

use super::{Next, ReadErrorKind, Reader, Result};
use crate::codes;
use crate::entity::TypeId;
use crate::types::{OtherFloatKind, TypeData};

impl Reader<'_> {
    /// Reads the type table; `words` is the block's length, which bounds how many entries it
    /// can hold (each record takes at least 10 bits).
    pub(super) fn read_types(&mut self, words: u64) -> Result<()> {
        let mut declared: Option<u64> = None;
        loop {
            match self.step()? {
                Next::Record(code) => {
                    let had = declared.is_some();
                    self.type_record(code, &mut declared)?;
                    if let (false, Some(n)) = (had, declared) {
                        self.m.types.reserve(n.min(words * 32 / 10) as usize);
                    }
                }
                Next::End => break,
                Next::Block(_) => self.bs.skip_block()?,
                Next::Abbrev => {}
                _ => return Err(self.err(ReadErrorKind::Truncated, "block not terminated")),
            }
        }
        let n = self.m.types.len();
        if let Some(d) = declared
            && d != n as u64
        {
            return Err(self.malformed(format!("type table declares {d} entries but has {n}")));
        }
        // Forward references are allowed inside the table; every id must exist at the end.
        for (id, t) in self.m.types.iter() {
            let ok = |x: &TypeId| x.index() < n;
            let good = match t {
                TypeData::Pointer { pointee, .. } => ok(pointee),
                TypeData::Array { elem, .. } | TypeData::Vector { elem, .. } => ok(elem),
                TypeData::Struct { elems, .. } => elems.iter().all(ok),
                TypeData::Function { ret, params, .. } => ok(ret) && params.iter().all(ok),
                _ => true,
            };
            if !good {
                return Err(self.malformed(format!("type {id} refers to an undefined type")));
            }
        }
        Ok(())
    }

    pub(super) fn forward_type(&self, v: u64) -> Result<TypeId> {
        // Element types may name entries defined later in the table (named structs).
        u32::try_from(v)
            .ok()
            .filter(|&x| (x as u64) < self.bits_total)
            .map(TypeId)
            .ok_or_else(|| self.malformed(format!("type id {v} out of range")))
    }

    /// The type ids from operand `from` on. Sized up front: collecting through `Result` would
    /// grow the vector step by step, and struct and function types are most of a DXIL table.
    pub(super) fn forward_types(&mut self, from: usize) -> Result<Vec<TypeId>> {
        let n = self.ops.len().saturating_sub(from);
        let mut out = self.spares.type_list(n);
        for i in from..self.ops.len() {
            out.push(self.forward_type(self.ops[i])?);
        }
        Ok(out)
    }

    pub(super) fn type_record(&mut self, code: u32, declared: &mut Option<u64>) -> Result<()> {
        let data = match code {
            codes::types::NUMENTRY => {
                let n = self.op(0)?;
                if n > self.bits_total {
                    return Err(self.malformed(format!("type table size {n} is implausible")));
                }
                *declared = Some(n);
                return Ok(());
            }
            codes::types::VOID => TypeData::Void,
            codes::types::FLOAT => TypeData::Float,
            codes::types::DOUBLE => TypeData::Double,
            codes::types::LABEL => TypeData::Label,
            codes::types::OPAQUE => {
                let name = self.struct_name.take();
                TypeData::Struct {
                    name,
                    packed: false,
                    opaque: true,
                    elems: Vec::new(),
                }
            }
            codes::types::INTEGER => {
                let w = self.op(0)?;
                if !(1..=(1 << 23)).contains(&w) {
                    return Err(self.malformed(format!("integer width {w}")));
                }
                TypeData::Int(w as u32)
            }
            codes::types::POINTER => {
                let pointee = self.forward_type(self.op(0)?)?;
                let address_space = self.ops.get(1).map_or(Ok(0), |&a| {
                    u32::try_from(a).map_err(|_| self.malformed("address space exceeds 32 bits"))
                })?;
                let id = TypeId(self.m.types.len() as u32);
                if !self
                    .ptr_types
                    .iter()
                    .any(|(p, a, _)| *p == pointee && *a == address_space)
                {
                    self.ptr_types.push((pointee, address_space, id));
                }
                TypeData::Pointer {
                    pointee,
                    address_space,
                }
            }
            codes::types::FUNCTION_OLD => {
                // FUNCTION_OLD: [vararg, attrid, retty, params...]
                let vararg = self.op(0)? != 0;
                let ret = self.forward_type(self.op(2)?)?;
                let params = self.forward_types(3)?;
                TypeData::Function {
                    vararg,
                    ret,
                    params,
                }
            }
            codes::types::HALF => TypeData::Half,
            codes::types::ARRAY => TypeData::Array {
                len: self.op(0)?,
                elem: self.forward_type(self.op(1)?)?,
            },
            codes::types::VECTOR => {
                let len = self.op_u32(0)?;
                if len == 0 {
                    return Err(self.malformed("vector of length 0"));
                }
                let elem = self.forward_type(self.op(1)?)?;
                let id = TypeId(self.m.types.len() as u32);
                if !self
                    .vec_types
                    .iter()
                    .any(|(l, e, _)| *l == len && *e == elem)
                {
                    self.vec_types.push((len, elem, id));
                }
                TypeData::Vector { len, elem }
            }
            codes::types::X86_FP80 => TypeData::OtherFloat(OtherFloatKind::X86Fp80),
            codes::types::FP128 => TypeData::OtherFloat(OtherFloatKind::Fp128),
            codes::types::PPC_FP128 => TypeData::OtherFloat(OtherFloatKind::PpcFp128),
            codes::types::METADATA => TypeData::Metadata,
            codes::types::X86_MMX => TypeData::OtherFloat(OtherFloatKind::X86Mmx),
            codes::types::STRUCT_ANON | codes::types::STRUCT_NAMED => {
                let packed = self.op(0)? != 0;
                let elems = self.forward_types(1)?;
                let name = if code == codes::types::STRUCT_NAMED {
                    Some(
                        self.struct_name
                            .take()
                            .ok_or_else(|| self.malformed("STRUCT_NAMED without a STRUCT_NAME"))?,
                    )
                } else {
                    None
                };
                TypeData::Struct {
                    name,
                    packed,
                    opaque: false,
                    elems,
                }
            }
            codes::types::STRUCT_NAME => {
                self.struct_name = Some(self.spares.string(&self.ops));
                return Ok(());
            }
            codes::types::FUNCTION => {
                let vararg = self.op(0)? != 0;
                let ret = self.forward_type(self.op(1)?)?;
                let params = self.forward_types(2)?;
                TypeData::Function {
                    vararg,
                    ret,
                    params,
                }
            }
            _ => return Err(self.unsupported(format!("type record code {code}"))),
        };
        if let Some(d) = declared
            && self.m.types.len() as u64 >= *d
        {
            return Err(self.malformed(format!("more types than the {d} declared")));
        }
        self.m.types.push(data);
        Ok(())
    }

    pub(super) fn find_or_push_type(&mut self, want: TypeData) -> TypeId {
        let found = self
            .m
            .types
            .iter()
            .find(|(_, d)| **d == want)
            .map(|(id, _)| id);
        match found {
            Some(id) => id,
            None => self.m.types.push(want),
        }
    }

    pub(super) fn void_type(&mut self) -> TypeId {
        if let Some(t) = self.void_ty {
            return t;
        }
        let t = self.find_or_push_type(TypeData::Void);
        self.void_ty = Some(t);
        t
    }

    pub(super) fn i1_type(&mut self) -> TypeId {
        if let Some(t) = self.i1_ty {
            return t;
        }
        let t = self.find_or_push_type(TypeData::Int(1));
        self.i1_ty = Some(t);
        t
    }
}
