//! Canonical constants: LLVM uniques constants by type and content, and folds some forms while
//! building them (an all-zero aggregate is `zeroinitializer`, an array of plain numbers is a
//! `ConstantDataArray`, ...). The model's pool may hold several ids for one LLVM constant and
//! either spelling of a folded form, so every constant is reduced to its LLVM form and interned;
//! the enumerator then numbers representatives only.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::constants::ConstData;
use crate::entity::{ConstId, FuncId, PoolRange};
use crate::inst::{BinOp, CastOp, Predicate};
use crate::module::Module;
use crate::value::{Value, ValueRef};

use super::error::{Result, invalid, mismatch, unsupported};
use super::types::{Node, TypeTable};
use super::{FxBuild, FxHasher};

/// A constant in LLVM's form. Operands are canonical values (constants by representative).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum NConst {
    Null,
    Undef,
    Int(i64),
    /// Active 64-bit words of an integer wider than 64 bits, in `words`.
    Wide(PoolRange),
    Float(u64),
    /// Element bits of a `ConstantDataArray/Vector`, in `words`.
    Data(PoolRange),
    /// Operands of a struct, array or vector, in `vals`.
    Agg(PoolRange),
    Cast {
        op: CastOp,
        v: Value,
    },
    Bin {
        op: BinOp,
        flags: u8,
        l: Value,
        r: Value,
    },
    Cmp {
        pred: Predicate,
        l: Value,
        r: Value,
    },
    Select {
        c: Value,
        t: Value,
        f: Value,
    },
    ExtractElt {
        v: Value,
        i: Value,
    },
    InsertElt {
        v: Value,
        e: Value,
        i: Value,
    },
    Shuffle {
        a: Value,
        b: Value,
        m: Value,
    },
    /// `getelementptr`: source element type node, operands in `vals`.
    Gep {
        inbounds: bool,
        src: u32,
        ops: PoolRange,
    },
    BlockAddr {
        f: FuncId,
        bb: u32,
    },
}

impl NConst {
    /// Calls `f` on every operand value (aggregate elements and expression operands).
    pub fn for_each_operand(&self, vals: &[Value], mut f: impl FnMut(Value)) {
        match *self {
            NConst::Agg(r) | NConst::Gep { ops: r, .. } => r.get(vals).iter().for_each(|&v| f(v)),
            NConst::Cast { v, .. } => f(v),
            NConst::Bin { l, r, .. } | NConst::Cmp { l, r, .. } => {
                f(l);
                f(r);
            }
            NConst::Select { c, t, f: e } => {
                f(c);
                f(t);
                f(e);
            }
            NConst::ExtractElt { v, i } => {
                f(v);
                f(i);
            }
            NConst::InsertElt { v, e, i } => {
                f(v);
                f(e);
                f(i);
            }
            NConst::Shuffle { a, b, m } => {
                f(a);
                f(b);
                f(m);
            }
            NConst::BlockAddr { f: func, .. } => f(Value::function(func)),
            _ => {}
        }
    }
}

const NONE: u32 = u32::MAX;

pub(crate) struct ConstTable {
    /// Model constant → representative model constant.
    pub rep: Vec<u32>,
    /// Model constant → type node (meaningful for representatives).
    pub ty: Vec<u32>,
    pub norm: Vec<NConst>,
    pub vals: Vec<Value>,
    pub words: Vec<u64>,
    /// Constants that must keep their own slot (patchable specialization constants).
    pub unique: Vec<bool>,
}

impl ConstTable {
    pub fn new(m: &Module, types: &mut TypeTable, unique: &[ConstId]) -> Result<ConstTable> {
        let n = m.constants.len();
        let mut t = ConstTable {
            rep: vec![NONE; n],
            ty: vec![NONE; n],
            norm: vec![NConst::Undef; n],
            vals: Vec::new(),
            words: Vec::new(),
            unique: vec![false; n],
        };
        for &c in unique {
            match t.unique.get_mut(c.index()) {
                Some(u) => *u = true,
                None => {
                    return Err(invalid(format!(
                        "patchable constant {} does not exist",
                        c.0
                    )));
                }
            }
        }
        let mut index: HashMap<u64, u32, FxBuild> =
            HashMap::with_capacity_and_hasher(n, FxBuild::default());
        let mut chain = vec![NONE; n];
        let mut state = vec![0u8; n];
        let mut stack: Vec<u32> = Vec::with_capacity(16);
        for root in 0..n as u32 {
            if state[root as usize] == 2 {
                continue;
            }
            stack.push(root);
            while let Some(&c) = stack.last() {
                let ci = c as usize;
                let Some(k) = m.constants.get(ConstId(c)) else {
                    return Err(invalid(format!("constant {c} out of range")));
                };
                if state[ci] == 0 {
                    state[ci] = 1;
                    let mut pending = false;
                    let mut cycle = false;
                    for_each_model_operand(m, &k.data, |v| {
                        if let ValueRef::Const(o) = v.get() {
                            match state.get(o.index()) {
                                Some(0) => {
                                    stack.push(o.0);
                                    pending = true;
                                }
                                Some(1) => cycle = true,
                                _ => {}
                            }
                        }
                    });
                    if cycle {
                        return Err(invalid(format!("constant {c} refers to itself")));
                    }
                    if pending {
                        continue;
                    }
                }
                stack.pop();
                if state[ci] == 2 {
                    continue;
                }
                let ty = types.node_of(k.ty)?;
                let norm = t.lower(m, types, ty, &k.data).map_err(|e| {
                    super::error::WriteError::new(
                        e.kind(),
                        format!("constant {c}: {}", e.message()),
                    )
                })?;
                t.ty[ci] = ty;
                t.norm[ci] = norm;
                state[ci] = 2;
                if t.unique[ci] {
                    t.rep[ci] = c;
                    continue;
                }
                let h = t.hash_of(ty, &norm);
                let mut found = NONE;
                let mut at = index.get(&h).copied().unwrap_or(NONE);
                while at != NONE {
                    if t.same(at, ty, &norm) {
                        found = at;
                        break;
                    }
                    at = chain[at as usize];
                }
                if found != NONE {
                    t.rep[ci] = found;
                } else {
                    t.rep[ci] = c;
                    if let Some(head) = index.insert(h, c) {
                        chain[ci] = head;
                    }
                }
            }
        }
        Ok(t)
    }

    /// The canonical form of an operand value.
    #[inline]
    pub fn canon(&self, v: Value) -> Value {
        match v.get() {
            ValueRef::Const(c) => match self.rep.get(c.index()) {
                Some(&r) if r != NONE => Value::constant(ConstId(r)),
                _ => v,
            },
            _ => v,
        }
    }

    /// The representative of a model constant.
    #[inline]
    pub fn rep_of(&self, c: ConstId) -> Result<u32> {
        match self.rep.get(c.index()) {
            Some(&r) if r != NONE => Ok(r),
            _ => Err(invalid(format!("constant {} out of range", c.0))),
        }
    }

    fn hash_of(&self, ty: u32, n: &NConst) -> u64 {
        let mut h = FxHasher::default();
        ty.hash(&mut h);
        std::mem::discriminant(n).hash(&mut h);
        match *n {
            NConst::Wide(r) | NConst::Data(r) => r.get(&self.words).hash(&mut h),
            NConst::Agg(r) => r.get(&self.vals).hash(&mut h),
            NConst::Gep { inbounds, src, ops } => {
                inbounds.hash(&mut h);
                src.hash(&mut h);
                ops.get(&self.vals).hash(&mut h);
            }
            other => other.hash(&mut h),
        }
        h.finish()
    }

    fn same(&self, rep: u32, ty: u32, n: &NConst) -> bool {
        let r = rep as usize;
        if self.ty[r] != ty {
            return false;
        }
        match (&self.norm[r], n) {
            (NConst::Wide(a), NConst::Wide(b)) | (NConst::Data(a), NConst::Data(b)) => {
                a.get(&self.words) == b.get(&self.words)
            }
            (NConst::Agg(a), NConst::Agg(b)) => a.get(&self.vals) == b.get(&self.vals),
            (
                NConst::Gep {
                    inbounds: i1,
                    src: s1,
                    ops: a,
                },
                NConst::Gep {
                    inbounds: i2,
                    src: s2,
                    ops: b,
                },
            ) => i1 == i2 && s1 == s2 && a.get(&self.vals) == b.get(&self.vals),
            (a, b) => a == b,
        }
    }

    fn operand(&self, m: &Module, v: Value) -> Result<Value> {
        match v.get() {
            ValueRef::Const(_) => Ok(self.canon(v)),
            ValueRef::Global(g) if m.global(g).is_some() => Ok(v),
            ValueRef::Function(f) if m.function(f).is_some() => Ok(v),
            ValueRef::Global(_) | ValueRef::Function(_) => {
                Err(invalid(format!("operand {v:?} does not exist")))
            }
            _ => Err(invalid(format!(
                "operand {v:?} is not a constant, global or function"
            ))),
        }
    }

    /// The type node of a canonical constant operand.
    pub fn operand_type(&self, m: &Module, types: &TypeTable, v: Value) -> Result<u32> {
        match v.get() {
            ValueRef::Const(c) => match self.ty.get(c.index()) {
                Some(&t) if t != NONE => Ok(t),
                _ => Err(invalid(format!("constant {} out of range", c.0))),
            },
            ValueRef::Global(g) => match m.global(g) {
                Some(g) => types.node_of(g.ptr_ty),
                None => Err(invalid(format!("global {} does not exist", g.0))),
            },
            ValueRef::Function(f) => match m.function(f) {
                Some(f) => types.node_of(f.ptr_ty),
                None => Err(invalid(format!("function {} does not exist", f.0))),
            },
            _ => Err(invalid(format!("{v:?} is not a constant operand"))),
        }
    }

    fn push_vals(&mut self, m: &Module, src: &[Value]) -> Result<PoolRange> {
        let start = self.vals.len() as u32;
        for &v in src {
            let c = self.operand(m, v)?;
            self.vals.push(c);
        }
        Ok(PoolRange {
            start,
            len: src.len() as u32,
        })
    }

    fn push_words(&mut self, w: impl Iterator<Item = u64>) -> PoolRange {
        let start = self.words.len() as u32;
        self.words.extend(w);
        PoolRange {
            start,
            len: self.words.len() as u32 - start,
        }
    }

    fn lower(
        &mut self,
        m: &Module,
        types: &mut TypeTable,
        ty: u32,
        d: &ConstData,
    ) -> Result<NConst> {
        let node = types.node(ty);
        Ok(match d {
            ConstData::Null => NConst::Null,
            ConstData::Undef => NConst::Undef,
            ConstData::Int(v) => {
                let &Node::Int(w) = node else {
                    return Err(mismatch("integer constant of a non-integer type"));
                };
                if w > 64 {
                    let words = wide_words(*v, w);
                    if words.iter().all(|&x| x == 0) {
                        return Ok(NConst::Null);
                    }
                    NConst::Wide(self.push_words(words.into_iter()))
                } else {
                    match sext(*v as u64, w) {
                        0 => NConst::Null,
                        v => NConst::Int(v),
                    }
                }
            }
            ConstData::WideInt(r) => {
                let &Node::Int(w) = node else {
                    return Err(mismatch("integer constant of a non-integer type"));
                };
                let src = m.constants.words_of(*r);
                if w <= 64 {
                    let v = src.first().copied().unwrap_or(0);
                    match sext(v, w) {
                        0 => NConst::Null,
                        v => NConst::Int(v),
                    }
                } else {
                    let mut words: Vec<u64> = src.to_vec();
                    let nwords = w.div_ceil(64) as usize;
                    words.resize(nwords, 0);
                    if !w.is_multiple_of(64)
                        && let Some(top) = words.last_mut()
                    {
                        *top &= (1u64 << (w % 64)) - 1;
                    }
                    while words.len() > 1 && words.last() == Some(&0) {
                        words.pop();
                    }
                    if words.iter().all(|&x| x == 0) {
                        NConst::Null
                    } else {
                        NConst::Wide(self.push_words(words.into_iter()))
                    }
                }
            }
            ConstData::Float(bits) => {
                let b = match *node {
                    Node::Half => bits & 0xFFFF,
                    Node::Float => bits & 0xFFFF_FFFF,
                    Node::Double => *bits,
                    Node::Other(_) => {
                        return Err(unsupported("x86_fp80 / fp128 / ppc_fp128 constants"));
                    }
                    _ => return Err(mismatch("floating-point constant of a non-float type")),
                };
                if b == 0 {
                    NConst::Null
                } else {
                    NConst::Float(b)
                }
            }
            ConstData::Aggregate(r) => {
                let src = m.constants.values_of(*r);
                let (len, elem) = aggregate_shape(types, node)?;
                if len != src.len() as u64 {
                    return Err(mismatch(format!(
                        "aggregate has {} elements, its type {}",
                        src.len(),
                        len
                    )));
                }
                let range = self.push_vals(m, src)?;
                self.fold_aggregate(types, range, elem)
            }
            ConstData::Data(r) => {
                let src = m.constants.words_of(*r);
                self.data_of(types, node, src.iter().copied(), src.len())?
            }
            ConstData::String(r) | ConstData::CString(r) => {
                let bytes = m.constants.bytes_of(*r);
                let nul = matches!(d, ConstData::CString(_));
                let n = bytes.len() + usize::from(nul);
                let it = bytes.iter().map(|&b| u64::from(b)).chain(nul.then_some(0));
                self.data_of(types, node, it, n)?
            }
            ConstData::Cast { op, value } => NConst::Cast {
                op: *op,
                v: self.operand(m, *value)?,
            },
            ConstData::Binary {
                op,
                flags,
                lhs,
                rhs,
            } => NConst::Bin {
                op: *op,
                flags: *flags,
                l: self.operand(m, *lhs)?,
                r: self.operand(m, *rhs)?,
            },
            ConstData::Cmp { pred, lhs, rhs } => NConst::Cmp {
                pred: *pred,
                l: self.operand(m, *lhs)?,
                r: self.operand(m, *rhs)?,
            },
            ConstData::Select {
                cond,
                if_true,
                if_false,
            } => NConst::Select {
                c: self.operand(m, *cond)?,
                t: self.operand(m, *if_true)?,
                f: self.operand(m, *if_false)?,
            },
            ConstData::ExtractElement { vector, index } => NConst::ExtractElt {
                v: self.operand(m, *vector)?,
                i: self.operand(m, *index)?,
            },
            ConstData::InsertElement {
                vector,
                element,
                index,
            } => NConst::InsertElt {
                v: self.operand(m, *vector)?,
                e: self.operand(m, *element)?,
                i: self.operand(m, *index)?,
            },
            ConstData::ShuffleVector { v1, v2, mask } => NConst::Shuffle {
                a: self.operand(m, *v1)?,
                b: self.operand(m, *v2)?,
                m: self.operand(m, *mask)?,
            },
            ConstData::Gep {
                inbounds,
                source_ty,
                operands,
            } => {
                let src_vals = m.constants.values_of(*operands);
                let Some(&base) = src_vals.first() else {
                    return Err(mismatch("getelementptr without a base"));
                };
                let ops = self.push_vals(m, src_vals)?;
                let src = match source_ty {
                    Some(t) => types.node_of(*t)?,
                    None => {
                        let base = self.canon(base);
                        let bt = self.operand_type(m, types, base)?;
                        types
                            .pointee(bt)
                            .ok_or_else(|| mismatch("getelementptr base is not a pointer"))?
                    }
                };
                NConst::Gep {
                    inbounds: *inbounds,
                    src,
                    ops,
                }
            }
            ConstData::BlockAddress { function, block } => {
                if m.function(*function).is_none() {
                    return Err(invalid(format!("function {} does not exist", function.0)));
                }
                NConst::BlockAddr {
                    f: *function,
                    bb: block.0,
                }
            }
        })
    }

    /// `ConstantArray/Struct/Vector::get`: all-zero → zeroinitializer, all-undef → undef, plain
    /// numbers of a data-compatible element type → `ConstantData*`.
    fn fold_aggregate(&mut self, types: &TypeTable, r: PoolRange, elem: Option<u32>) -> NConst {
        let elems = r.get(&self.vals);
        let norm_of = |v: &Value| -> Option<NConst> {
            v.as_const().and_then(|c| self.norm.get(c.index()).copied())
        };
        if !elems.is_empty() && elems.iter().all(|v| norm_of(v) == Some(NConst::Null)) {
            self.vals.truncate(r.start as usize);
            return NConst::Null;
        }
        if !elems.is_empty() && elems.iter().all(|v| norm_of(v) == Some(NConst::Undef)) {
            self.vals.truncate(r.start as usize);
            return NConst::Undef;
        }
        let Some(elem) = elem.filter(|&e| data_compatible(types.node(e))) else {
            return NConst::Agg(r);
        };
        let _ = elem;
        let mut words = Vec::with_capacity(elems.len());
        for v in elems {
            let w = match norm_of(v) {
                Some(NConst::Null) => 0,
                Some(NConst::Int(i)) => i as u64,
                Some(NConst::Float(b)) => b,
                _ => return NConst::Agg(r),
            };
            words.push(w);
        }
        let bits = element_bits(types.node(elem));
        self.vals.truncate(r.start as usize);
        NConst::Data(self.push_words(words.into_iter().map(|w| mask(w, bits))))
    }

    fn data_of(
        &mut self,
        types: &TypeTable,
        node: &Node,
        src: impl Iterator<Item = u64>,
        n: usize,
    ) -> Result<NConst> {
        let (len, elem) = aggregate_shape(types, node)?;
        let Some(elem) = elem else {
            return Err(mismatch("data constant of a struct type"));
        };
        if len != n as u64 {
            return Err(mismatch(format!(
                "data constant has {n} elements, its type {len}"
            )));
        }
        let bits = element_bits(types.node(elem));
        if bits == 0 {
            return Err(mismatch("data constant of non-scalar elements"));
        }
        let r = self.push_words(src.map(|w| mask(w, bits)));
        if r.get(&self.words).iter().all(|&w| w == 0) {
            self.words.truncate(r.start as usize);
            return Ok(NConst::Null);
        }
        Ok(NConst::Data(r))
    }
}

fn data_compatible(n: &Node) -> bool {
    matches!(n, Node::Float | Node::Double | Node::Int(8 | 16 | 32 | 64))
}

fn element_bits(n: &Node) -> u32 {
    match n {
        Node::Int(w) => *w,
        Node::Half => 16,
        Node::Float => 32,
        Node::Double => 64,
        _ => 0,
    }
}

fn mask(w: u64, bits: u32) -> u64 {
    if bits >= 64 {
        w
    } else {
        w & ((1u64 << bits) - 1)
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub(crate) fn sext(v: u64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// An `i64` value as the active words of an integer of `bits` > 64 bits.
fn wide_words(v: i64, bits: u32) -> Vec<u64> {
    let n = bits.div_ceil(64) as usize;
    let fill = if v < 0 { u64::MAX } else { 0 };
    let mut words = vec![fill; n];
    if let Some(w) = words.first_mut() {
        *w = v as u64;
    }
    if !bits.is_multiple_of(64)
        && let Some(top) = words.last_mut()
    {
        *top &= (1u64 << (bits % 64)) - 1;
    }
    while words.len() > 1 && words.last() == Some(&0) {
        words.pop();
    }
    words
}

/// Element count and element node of an aggregate type (`None` element for structs).
fn aggregate_shape(types: &TypeTable, node: &Node) -> Result<(u64, Option<u32>)> {
    match node {
        Node::Array(n, e) => Ok((*n, Some(*e))),
        Node::Vector(n, e) => Ok((u64::from(*n), Some(*e))),
        Node::Literal { elems, .. }
        | Node::Named {
            body: Some(elems), ..
        } => Ok((elems.len() as u64, None)),
        _ => {
            let _ = types;
            Err(mismatch("aggregate constant of a non-aggregate type"))
        }
    }
}

fn for_each_model_operand(m: &Module, d: &ConstData, mut f: impl FnMut(Value)) {
    match d {
        ConstData::Aggregate(r) | ConstData::Gep { operands: r, .. } => {
            m.constants.values_of(*r).iter().for_each(|&v| f(v))
        }
        ConstData::Cast { value, .. } => f(*value),
        ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
            f(*lhs);
            f(*rhs);
        }
        ConstData::Select {
            cond,
            if_true,
            if_false,
        } => {
            f(*cond);
            f(*if_true);
            f(*if_false);
        }
        ConstData::ExtractElement { vector, index } => {
            f(*vector);
            f(*index);
        }
        ConstData::InsertElement {
            vector,
            element,
            index,
        } => {
            f(*vector);
            f(*element);
            f(*index);
        }
        ConstData::ShuffleVector { v1, v2, mask } => {
            f(*v1);
            f(*v2);
            f(*mask);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::{ConstKey, Constant};
    use crate::types::TypeData;

    #[test]
    fn folds_like_llvm_and_merges_duplicates() {
        let mut m = Module::default();
        let i32t = m.types.push(TypeData::Int(32));
        let i1 = m.types.push(TypeData::Int(1));
        let arr = m.types.push(TypeData::Array { len: 2, elem: i32t });
        let a = m.constants.push(Constant {
            ty: i32t,
            data: ConstData::Int(5),
        });
        let b = m.constants.push(Constant {
            ty: i32t,
            data: ConstData::Int(5),
        });
        let z = m.constants.push(Constant {
            ty: i32t,
            data: ConstData::Int(0),
        });
        let t = m.constants.push(Constant {
            ty: i1,
            data: ConstData::Int(1),
        });
        let agg = m.constants.intern(
            arr,
            ConstKey::Values(0, vec![Value::constant(a), Value::constant(z)], None),
        );
        let zagg = m.constants.intern(
            arr,
            ConstKey::Values(0, vec![Value::constant(z), Value::constant(z)], None),
        );
        let data = m.constants.intern(arr, ConstKey::Words(1, vec![5, 0]));
        let mut types = TypeTable::new(&m.types).unwrap();
        let t2 = ConstTable::new(&m, &mut types, &[]).unwrap();
        assert_eq!(t2.rep[b.index()], a.0);
        assert_eq!(t2.norm[z.index()], NConst::Null);
        assert_eq!(t2.norm[t.index()], NConst::Int(-1), "i1 true is -1");
        assert!(matches!(t2.norm[agg.index()], NConst::Data(_)));
        assert_eq!(
            t2.rep[data.index()],
            agg.0,
            "aggregate and data spellings merge"
        );
        assert_eq!(t2.norm[zagg.index()], NConst::Null);
        let t3 = ConstTable::new(&m, &mut types, &[b]).unwrap();
        assert_eq!(
            t3.rep[b.index()],
            b.0,
            "patchable constants keep their slot"
        );
    }
}
