//! Value instructions: composites, arithmetic, bit operations, conversions, comparisons,
//! derivatives. Vectors and matrices are runs of scalars, so most operations apply
//! component by component.

use dxil_module::{BinOp, CastOp, Predicate, Value};
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::Tr;
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};
use crate::spv::{Inst, Type};

/// One family of value instructions: whether it handled `op` (operands `inst`, result type
/// and id).
type ValueFamily<'a> = fn(&mut Tr<'a>, &Inst<'_>, Op, u32, u32) -> Result<bool>;

impl Tr<'_> {
    /// Instructions that compute a value from values.
    pub fn value_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        if self.int8 {
            self.check_int8(inst, op)?;
            if self.int8_value_op(inst, op)? {
                return Ok(());
            }
        }
        if let Some((bin, float)) = binop(op) {
            return self.binary_op(inst, bin, float);
        }
        if let Some(pred) = compare(op) {
            return self.compare_op(inst, pred);
        }
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        // Each family handles a few dozen instructions and says whether `op` was one of them.
        let families: [ValueFamily<'_>; 3] = [
            Self::composite_op,
            Self::numeric_op,
            Self::derivative_bit_op,
        ];
        for family in families {
            if family(self, inst, op, ty, id)? {
                return Ok(());
            }
        }
        match op {
            Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageFetch
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageRead
            | Op::ImageWrite
            | Op::ImageQuerySize
            | Op::ImageQuerySizeLod
            | Op::ImageQueryLevels
            | Op::ImageQuerySamples
            | Op::ImageQueryLod
            | Op::SampledImage
            | Op::Image
            | Op::ImageTexelPointer
            | Op::ImageSparseSampleImplicitLod
            | Op::ImageSparseSampleExplicitLod
            | Op::ImageSparseSampleDrefImplicitLod
            | Op::ImageSparseSampleDrefExplicitLod
            | Op::ImageSparseFetch
            | Op::ImageSparseGather
            | Op::ImageSparseDrefGather
            | Op::ImageSparseTexelsResident
            | Op::ImageSparseRead
            | Op::FragmentMaskFetchAMD
            | Op::FragmentFetchAMD => self.image_op(inst, op),
            _ if is_group_op(op) => self.group_op(inst, op),
            Op::IsHelperInvocationEXT | Op::DemoteToHelperInvocation => self.helper_op(inst, op),
            Op::EmitVertex | Op::EndPrimitive | Op::EmitStreamVertex | Op::EndStreamPrimitive => {
                self.geometry_op(inst, op)
            }
            _ => Err(unsupported(format!("Op{op:?}"))),
        }
    }

    /// Copies, composites, vector shuffles and selects; `false` for an instruction outside the family.
    fn composite_op(&mut self, inst: &Inst<'_>, op: Op, ty: u32, id: u32) -> Result<bool> {
        match op {
            Op::Undef => self.materialize_constant(id),
            Op::CopyObject | Op::CopyLogical => {
                let s = self.slot_of(inst.word(2)?)?;
                self.set(id, s)
            }
            Op::CompositeConstruct => {
                let mut vals = Vec::new();
                for &c in inst.rest(2) {
                    let (s, n) = self.get(c)?;
                    vals.extend_from_slice(&self.pool[s as usize..(s + n) as usize]);
                }
                if vals.len() as u32 != self.leaves(ty)?.1 {
                    return Err(malformed(
                        "OpCompositeConstruct with the wrong number of scalars",
                    ));
                }
                self.set_vals(id, &vals)
            }
            Op::CompositeExtract => {
                let src = inst.word(2)?;
                let (mut start, _) = self.get(src)?;
                let mut t = self.spv.type_of(src)?;
                for &i in inst.rest(3) {
                    let (off, mt) = self.leaf_offset(t, i)?;
                    start += off;
                    t = mt;
                }
                let n = self.leaves(t)?.1;
                self.set(id, super::Slot::Vals { start, len: n })
            }
            Op::CompositeInsert => {
                let obj = self.values(inst.word(2)?)?;
                let comp = inst.word(3)?;
                let mut vals = self.values(comp)?;
                let mut t = ty;
                let mut start = 0;
                for &i in inst.rest(4) {
                    let (off, mt) = self.leaf_offset(t, i)?;
                    start += off;
                    t = mt;
                }
                let end = start as usize + obj.len();
                let slot = vals
                    .get_mut(start as usize..end)
                    .ok_or_else(|| malformed("OpCompositeInsert out of range"))?;
                slot.copy_from_slice(&obj);
                self.set_vals(id, &vals)
            }
            Op::VectorShuffle => {
                let a = self.values(inst.word(2)?)?;
                let b = self.values(inst.word(3)?)?;
                let mut out = Vec::new();
                for &c in inst.rest(4) {
                    let v = if c == u32::MAX {
                        let k = self.leaf_kinds(ty)?[0];
                        self.b.zero(k)
                    } else if (c as usize) < a.len() {
                        a[c as usize]
                    } else {
                        *b.get(c as usize - a.len())
                            .ok_or_else(|| malformed("OpVectorShuffle component out of range"))?
                    };
                    out.push(v);
                }
                self.set_vals(id, &out)
            }
            Op::VectorExtractDynamic => {
                let v = self.values(inst.word(2)?)?;
                let idx = self.scalar(inst.word(3)?)?;
                let r = self.select_dynamic(&v, idx)?;
                self.set_scalar(id, r)
            }
            Op::VectorInsertDynamic => {
                let v = self.values(inst.word(2)?)?;
                let x = self.scalar(inst.word(3)?)?;
                let idx = self.scalar(inst.word(4)?)?;
                let s = self.b.scalar_type_of(idx)?;
                let mut out = Vec::with_capacity(v.len());
                for (i, &e) in v.iter().enumerate() {
                    let k = self.b.const_int(s, i as i64);
                    let is = self.b.cmp(Predicate::ICMP_EQ, idx, k)?;
                    out.push(self.b.select(is, x, e)?);
                }
                self.set_vals(id, &out)
            }
            Op::Select => {
                let c = self.values(inst.word(2)?)?;
                let a = self.values(inst.word(3)?)?;
                let b = self.values(inst.word(4)?)?;
                if a.len() != b.len() {
                    return Err(malformed("OpSelect operands of different types"));
                }
                if c.len() != 1 && c.len() != a.len() {
                    return Err(malformed("OpSelect condition of another size"));
                }
                let mut out = Vec::with_capacity(a.len());
                for i in 0..a.len() {
                    let ci = if c.len() == 1 { c[0] } else { c[i] };
                    out.push(self.b.select(ci, a[i], b[i])?);
                }
                self.set_vals(id, &out)
            }
            _ => return Ok(false),
        }?;
        Ok(true)
    }

    /// Negation, shifts, modulo, products, conversions, tests of floats and logic; `false` for an instruction outside the family.
    fn numeric_op(&mut self, inst: &Inst<'_>, op: Op, _ty: u32, id: u32) -> Result<bool> {
        match op {
            Op::SNegate => self.map1(inst, |tr, v| {
                let s = tr.b.scalar_type_of(v)?;
                let z = tr.b.zero(s);
                tr.b.binary(BinOp::Sub, z, v)
            }),
            Op::FNegate => self.map1(inst, |tr, v| tr.fneg(v)),
            Op::Not => self.map1(inst, |tr, v| {
                let s = tr.b.scalar_type_of(v)?;
                let m = tr.b.const_int(s, -1);
                tr.b.binary(BinOp::Xor, v, m)
            }),
            Op::LogicalNot => self.map1(inst, |tr, v| {
                let t = tr.b.i1c(true);
                tr.b.binary(BinOp::Xor, v, t)
            }),
            Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                let bin = match op {
                    Op::ShiftLeftLogical => BinOp::Shl,
                    Op::ShiftRightLogical => BinOp::LShr,
                    _ => BinOp::AShr,
                };
                self.map2(inst, |tr, a, b| {
                    let b = tr.match_int_width(b, a)?;
                    tr.b.binary(bin, a, b)
                })
            }
            Op::SMod => self.map2(inst, |tr, a, b| {
                let r = tr.b.binary(BinOp::SRem, a, b)?;
                let s = tr.b.scalar_type_of(a)?;
                let z = tr.b.zero(s);
                let nz = tr.b.cmp(Predicate::ICMP_NE, r, z)?;
                let x = tr.b.binary(BinOp::Xor, r, b)?;
                let neg = tr.b.cmp(Predicate::ICMP_SLT, x, z)?;
                let fix = tr.b.binary(BinOp::And, nz, neg)?;
                let rb = tr.b.binary(BinOp::Add, r, b)?;
                tr.b.select(fix, rb, r)
            }),
            Op::FMod => self.map2(inst, |tr, a, b| {
                // x - y * floor(x / y)
                let q = tr.b.binary(BinOp::FDiv, a, b)?;
                let f = tr.unary_dxop(OpCode::Round_ni, q)?;
                let m = tr.b.binary(BinOp::FMul, b, f)?;
                tr.b.binary(BinOp::FSub, a, m)
            }),
            Op::VectorTimesScalar | Op::MatrixTimesScalar => {
                let v = self.values(inst.word(2)?)?;
                let s = self.scalar(inst.word(3)?)?;
                let mut out = Vec::with_capacity(v.len());
                for x in v {
                    out.push(self.b.binary(BinOp::FMul, x, s)?);
                }
                self.set_vals(id, &out)
            }
            Op::Dot => {
                let a = self.values(inst.word(2)?)?;
                let b = self.values(inst.word(3)?)?;
                let r = self.dot(&a, &b)?;
                self.set_scalar(id, r)
            }
            Op::SDot | Op::UDot => {
                let r = self.int_dot(inst, op == Op::SDot)?;
                self.set_scalar(id, r)
            }
            Op::MatrixTimesVector
            | Op::VectorTimesMatrix
            | Op::MatrixTimesMatrix
            | Op::OuterProduct
            | Op::Transpose => self.matrix_op(inst, op),
            Op::ConvertFToU
            | Op::ConvertFToS
            | Op::ConvertUToF
            | Op::ConvertSToF
            | Op::UConvert
            | Op::SConvert
            | Op::FConvert => self.convert(inst, op),
            Op::QuantizeToF16 => self.map1(inst, |tr, v| {
                let i32t = tr.b.t.i32;
                let f32t = tr.b.t.f32;
                let h = tr.b.dxop(OpCode::LegacyF32ToF16, None, i32t, &[v])?;
                tr.b.dxop(OpCode::LegacyF16ToF32, None, f32t, &[h])
            }),
            Op::Bitcast => self.bitcast(inst),
            Op::Any | Op::All => {
                let v = self.values(inst.word(2)?)?;
                let bin = if op == Op::Any { BinOp::Or } else { BinOp::And };
                let mut acc = v[0];
                for &x in &v[1..] {
                    acc = self.b.binary(bin, acc, x)?;
                }
                self.set_scalar(id, acc)
            }
            Op::IsNan | Op::IsInf => self.map1(inst, |tr, v| {
                let s = tr.b.scalar_type_of(v)?;
                if s == Scalar::F64 {
                    if op == Op::IsNan {
                        return tr.b.cmp(Predicate::FCMP_UNO, v, v);
                    }
                    let a = tr.unary_dxop(OpCode::FAbs, v)?;
                    let inf = tr.b.const_float_bits(Scalar::F64, 0x7ff0_0000_0000_0000);
                    return tr.b.cmp(Predicate::FCMP_OEQ, a, inf);
                }
                let code = if op == Op::IsNan {
                    OpCode::IsNaN
                } else {
                    OpCode::IsInf
                };
                let t = tr.b.scalar(s);
                let i1 = tr.b.t.i1;
                tr.b.dxop(code, Some(t), i1, &[v])
            }),
            Op::LogicalEqual | Op::LogicalNotEqual => {
                let pred = if op == Op::LogicalEqual {
                    Predicate::ICMP_EQ
                } else {
                    Predicate::ICMP_NE
                };
                self.map2(inst, |tr, a, b| tr.b.cmp(pred, a, b))
            }
            Op::LogicalAnd | Op::LogicalOr => {
                let bin = if op == Op::LogicalAnd {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                self.map2(inst, |tr, a, b| tr.b.binary(bin, a, b))
            }
            _ => return Ok(false),
        }?;
        Ok(true)
    }

    /// Derivatives, bit-field operations and extended-width additions and multiplications; `false` for an instruction outside the family.
    fn derivative_bit_op(&mut self, inst: &Inst<'_>, op: Op, _ty: u32, id: u32) -> Result<bool> {
        match op {
            Op::DPdx | Op::DPdy | Op::DPdxCoarse | Op::DPdyCoarse | Op::DPdxFine | Op::DPdyFine => {
                let code = match op {
                    Op::DPdx | Op::DPdxCoarse => OpCode::DerivCoarseX,
                    Op::DPdy | Op::DPdyCoarse => OpCode::DerivCoarseY,
                    Op::DPdxFine => OpCode::DerivFineX,
                    _ => OpCode::DerivFineY,
                };
                self.map1(inst, |tr, v| tr.derivative(code, v))
            }
            Op::Fwidth | Op::FwidthCoarse | Op::FwidthFine => {
                let (x, y) = if op == Op::FwidthFine {
                    (OpCode::DerivFineX, OpCode::DerivFineY)
                } else {
                    (OpCode::DerivCoarseX, OpCode::DerivCoarseY)
                };
                self.map1(inst, |tr, v| {
                    let dx = tr.derivative(x, v)?;
                    let dy = tr.derivative(y, v)?;
                    let ax = tr.unary_dxop(OpCode::FAbs, dx)?;
                    let ay = tr.unary_dxop(OpCode::FAbs, dy)?;
                    tr.b.binary(BinOp::FAdd, ax, ay)
                })
            }
            Op::BitReverse => self.map1(inst, |tr, v| tr.unary_dxop(OpCode::Bfrev, v)),
            Op::BitCount => self.map1(inst, |tr, v| {
                let s = tr.b.scalar_type_of(v)?;
                let t = tr.b.scalar(s);
                let i32t = tr.b.t.i32;
                tr.b.dxop(OpCode::Countbits, Some(t), i32t, &[v])
            }),
            Op::BitFieldInsert => {
                let base = self.values(inst.word(2)?)?;
                let insert = self.values(inst.word(3)?)?;
                let off = self.scalar(inst.word(4)?)?;
                let count = self.scalar(inst.word(5)?)?;
                let off = self.int_to_i32(off, false)?;
                let count = self.int_to_i32(count, false)?;
                let mut out = Vec::with_capacity(base.len());
                for (b, i) in base.into_iter().zip(insert) {
                    out.push(self.bitfield_insert(b, i, off, count)?);
                }
                self.set_vals(id, &out)
            }
            Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let base = self.values(inst.word(2)?)?;
                let off = self.scalar(inst.word(3)?)?;
                let count = self.scalar(inst.word(4)?)?;
                let off = self.int_to_i32(off, false)?;
                let count = self.int_to_i32(count, false)?;
                let signed = op == Op::BitFieldSExtract;
                let mut out = Vec::with_capacity(base.len());
                for b in base {
                    out.push(self.bitfield_extract(b, off, count, signed)?);
                }
                self.set_vals(id, &out)
            }
            Op::IAddCarry | Op::ISubBorrow => {
                let a = self.values(inst.word(2)?)?;
                let b = self.values(inst.word(3)?)?;
                let mut res = Vec::new();
                let mut carry = Vec::new();
                for (x, y) in a.into_iter().zip(b) {
                    let s = self.b.scalar_type_of(x)?;
                    let t = self.b.scalar(s);
                    if op == Op::IAddCarry {
                        let r = self.b.binary(BinOp::Add, x, y)?;
                        let c = self.b.cmp(Predicate::ICMP_ULT, r, x)?;
                        res.push(r);
                        carry.push(self.b.cast(CastOp::ZExt, c, t)?);
                    } else {
                        let r = self.b.binary(BinOp::Sub, x, y)?;
                        let c = self.b.cmp(Predicate::ICMP_ULT, x, y)?;
                        res.push(r);
                        carry.push(self.b.cast(CastOp::ZExt, c, t)?);
                    }
                }
                res.extend(carry);
                self.set_vals(id, &res)
            }
            Op::UMulExtended | Op::SMulExtended => {
                let a = self.values(inst.word(2)?)?;
                let b = self.values(inst.word(3)?)?;
                let mut lo = Vec::new();
                let mut hi = Vec::new();
                for (x, y) in a.into_iter().zip(b) {
                    let s = self.b.scalar_type_of(x)?;
                    if s != Scalar::I32 {
                        return Err(unsupported(
                            "extended multiplication of non-32-bit integers",
                        ));
                    }
                    let code = if op == Op::UMulExtended {
                        OpCode::UMul
                    } else {
                        OpCode::IMul
                    };
                    let i32t = self.b.t.i32;
                    let two = self.b.named_struct("dx.types.twoi32", &[i32t, i32t]);
                    let r = self.b.dxop(code, Some(i32t), two, &[x, y])?;
                    hi.push(self.b.extract_value(r, 0, i32t)?);
                    lo.push(self.b.extract_value(r, 1, i32t)?);
                }
                lo.extend(hi);
                self.set_vals(id, &lo)
            }
            _ => return Ok(false),
        }?;
        Ok(true)
    }

    /// Applies `f` to each scalar of operand 2.
    pub fn map1(
        &mut self,
        inst: &Inst<'_>,
        mut f: impl FnMut(&mut Self, Value) -> Result<Value>,
    ) -> Result<()> {
        let id = inst.word(1)?;
        let (a, n) = self.get(inst.word(2)?)?;
        self.set_mapped(id, n, |tr, i| {
            let x = tr.pooled(a + i)?;
            f(tr, x)
        })
    }

    /// Applies `f` to each pair of scalars of operands 2 and 3.
    pub fn map2(
        &mut self,
        inst: &Inst<'_>,
        mut f: impl FnMut(&mut Self, Value, Value) -> Result<Value>,
    ) -> Result<()> {
        let id = inst.word(1)?;
        let (a, n) = self.get(inst.word(2)?)?;
        let (b, nb) = self.get(inst.word(3)?)?;
        if n != nb {
            return Err(malformed("operands with different numbers of components"));
        }
        self.set_mapped(id, n, |tr, i| {
            let (x, y) = (tr.pooled(a + i)?, tr.pooled(b + i)?);
            f(tr, x, y)
        })
    }

    fn binary_op(&mut self, inst: &Inst<'_>, bin: BinOp, float: bool) -> Result<()> {
        let _ = float;
        self.map2(inst, |tr, a, b| {
            let s = tr.b.scalar_type_of(a)?;
            if s.bits() == 64 {
                if s.is_float() {
                    tr.features.doubles = true;
                    if bin == BinOp::FDiv {
                        tr.features.double_ext = true;
                    }
                } else {
                    tr.features.int64 = true;
                }
            }
            tr.b.binary(bin, a, b)
        })
    }

    fn compare_op(&mut self, inst: &Inst<'_>, pred: Predicate) -> Result<()> {
        self.map2(inst, |tr, a, b| tr.b.cmp(pred, a, b))
    }

    /// `fsub -0.0, x` (LLVM 3.7 has no `fneg`).
    pub fn fneg(&mut self, v: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(v)?;
        let bits = match s {
            Scalar::F16 => 0x8000,
            Scalar::F32 => 0x8000_0000,
            _ => 0x8000_0000_0000_0000,
        };
        let nz = self.b.const_float_bits(s, bits);
        self.b.binary(BinOp::FSub, nz, v)
    }

    /// A unary `dx.op` overloaded on its operand's type.
    pub fn unary_dxop(&mut self, code: OpCode, v: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(v)?;
        self.check_overload(code, s)?;
        let t = self.b.scalar(s);
        self.b.dxop(code, Some(t), t, &[v])
    }

    /// A binary `dx.op` overloaded on its operands' type.
    pub fn binary_dxop(&mut self, code: OpCode, a: Value, b: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(a)?;
        self.check_overload(code, s)?;
        let t = self.b.scalar(s);
        self.b.dxop(code, Some(t), t, &[a, b])
    }

    pub fn tertiary_dxop(&mut self, code: OpCode, a: Value, b: Value, c: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(a)?;
        self.check_overload(code, s)?;
        let t = self.b.scalar(s);
        self.b.dxop(code, Some(t), t, &[a, b, c])
    }

    /// Refuses a `dx.op` overload the operation does not have.
    pub fn check_overload(&mut self, code: OpCode, s: Scalar) -> Result<()> {
        use dxil_shader::ops::ScalarType;
        let st = match s {
            Scalar::I1 => ScalarType::I1,
            Scalar::I16 => ScalarType::I16,
            Scalar::I32 => ScalarType::I32,
            Scalar::I64 => ScalarType::I64,
            Scalar::F16 => ScalarType::F16,
            Scalar::F32 => ScalarType::F32,
            Scalar::F64 => ScalarType::F64,
        };
        let info = code.info();
        if info.is_overloaded() && !info.overloads[0].scalar.contains(st.mask()) {
            return Err(unsupported(format!(
                "{} on {}-bit {} (DXIL has no such overload)",
                info.name,
                s.bits(),
                if s.is_float() { "floats" } else { "integers" }
            )));
        }
        match s {
            Scalar::F64 => self.features.doubles = true,
            Scalar::I64 => self.features.int64 = true,
            Scalar::F16 | Scalar::I16 => self.features.native16 = true,
            _ => {}
        }
        Ok(())
    }

    fn derivative(&mut self, code: OpCode, v: Value) -> Result<Value> {
        self.compute_derivatives()?;
        self.unary_dxop(code, v)
    }

    /// Converts an integer to the width of `like` (shift amounts may have another width).
    pub(super) fn match_int_width(&mut self, v: Value, like: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(v)?;
        let t = self.b.scalar_type_of(like)?;
        if s == t {
            return Ok(v);
        }
        let tt = self.b.scalar(t);
        if s.bits() > t.bits() {
            self.b.cast(CastOp::Trunc, v, tt)
        } else {
            self.b.cast(CastOp::ZExt, v, tt)
        }
    }

    /// `v[idx]` for a dynamic index: a chain of selects.
    pub fn select_dynamic(&mut self, v: &[Value], idx: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(idx)?;
        let mut acc = *v.last().ok_or_else(|| malformed("empty vector"))?;
        for i in (0..v.len() - 1).rev() {
            let k = self.b.const_int(s, i as i64);
            let is = self.b.cmp(Predicate::ICMP_EQ, idx, k)?;
            acc = self.b.select(is, v[i], acc)?;
        }
        Ok(acc)
    }

    pub fn dot(&mut self, a: &[Value], b: &[Value]) -> Result<Value> {
        if a.len() != b.len() || a.is_empty() {
            return Err(malformed("OpDot of vectors of different sizes"));
        }
        let s = self.b.scalar_type_of(a[0])?;
        if matches!(s, Scalar::F32 | Scalar::F16) && (2..=4).contains(&a.len()) {
            let code = match a.len() {
                2 => OpCode::Dot2,
                3 => OpCode::Dot3,
                _ => OpCode::Dot4,
            };
            let mut args = a.to_vec();
            args.extend_from_slice(b);
            let t = self.b.scalar(s);
            if s == Scalar::F16 {
                self.features.native16 = true;
            }
            return self.b.dxop(code, Some(t), t, &args);
        }
        let (mul, add) = if s.is_float() {
            (BinOp::FMul, BinOp::FAdd)
        } else {
            (BinOp::Mul, BinOp::Add)
        };
        let mut acc = self.b.binary(mul, a[0], b[0])?;
        for i in 1..a.len() {
            let p = self.b.binary(mul, a[i], b[i])?;
            acc = self.b.binary(add, acc, p)?;
        }
        Ok(acc)
    }

    fn matrix_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let lhs = inst.word(2)?;
        let a = self.values(lhs)?;
        let lt = self.spv.type_of(lhs)?;
        // (columns, rows) of a matrix type.
        let dims = |tr: &Self, t: u32| -> Result<(usize, usize)> {
            match tr.spv.ty(t)? {
                Type::Matrix { col, n } => match tr.spv.ty(col)? {
                    Type::Vector { n: r, .. } => Ok((usize::from(n), usize::from(r))),
                    _ => Err(malformed("matrix column is not a vector")),
                },
                _ => Err(malformed("not a matrix")),
            }
        };
        if let Ok((c, r)) = dims(self, lt)
            && a.len() != c * r
        {
            return Err(malformed("matrix value of the wrong size"));
        }
        let out = match op {
            Op::Transpose => {
                let (c, r) = dims(self, lt)?;
                let mut out = Vec::with_capacity(a.len());
                for i in 0..r {
                    for j in 0..c {
                        out.push(a[j * r + i]);
                    }
                }
                out
            }
            Op::MatrixTimesVector => {
                let v = self.values(inst.word(3)?)?;
                let (c, r) = dims(self, lt)?;
                if v.len() != c {
                    return Err(malformed("OpMatrixTimesVector of mismatched sizes"));
                }
                let mut out = Vec::with_capacity(r);
                for i in 0..r {
                    let row: Vec<Value> = (0..c).map(|j| a[j * r + i]).collect();
                    out.push(self.dot_plain(&row, &v)?);
                }
                out
            }
            Op::VectorTimesMatrix => {
                let rhs = inst.word(3)?;
                let m = self.values(rhs)?;
                let (c, r) = dims(self, self.spv.type_of(rhs)?)?;
                if m.len() != c * r || a.len() != r {
                    return Err(malformed("OpVectorTimesMatrix of mismatched sizes"));
                }
                let mut out = Vec::with_capacity(c);
                for j in 0..c {
                    let col = m[j * r..(j + 1) * r].to_vec();
                    out.push(self.dot_plain(&a, &col)?);
                }
                out
            }
            Op::MatrixTimesMatrix => {
                let rhs = inst.word(3)?;
                let m = self.values(rhs)?;
                let (c, r) = dims(self, lt)?;
                let (c2, r2) = dims(self, self.spv.type_of(rhs)?)?;
                if r2 != c || m.len() != c2 * r2 {
                    return Err(malformed("OpMatrixTimesMatrix of mismatched sizes"));
                }
                let mut out = Vec::with_capacity(c2 * r);
                for j in 0..c2 {
                    for i in 0..r {
                        let row: Vec<Value> = (0..c).map(|k| a[k * r + i]).collect();
                        out.push(self.dot_plain(&row, &m[j * r2..(j + 1) * r2])?);
                    }
                }
                out
            }
            _ => {
                // OuterProduct: column j = a * b[j].
                let b = self.values(inst.word(3)?)?;
                let mut out = Vec::with_capacity(a.len() * b.len());
                for &y in &b {
                    for &x in &a {
                        out.push(self.b.binary(BinOp::FMul, x, y)?);
                    }
                }
                out
            }
        };
        if out.len() as u32 != self.leaves(ty)?.1 {
            return Err(malformed("matrix operation result of the wrong size"));
        }
        self.set_vals(id, &out)
    }

    /// `OpSDot` / `OpUDot`: on 4×8-bit packed words DXIL's `dot4add` (shader model 6.4) with
    /// a zero accumulator; on vectors, multiplies and adds in the result's width (operands
    /// extended by their signedness).
    fn int_dot(&mut self, inst: &Inst<'_>, signed: bool) -> Result<Value> {
        let a = self.values(inst.word(2)?)?;
        let b = self.values(inst.word(3)?)?;
        let ty = inst.word(0)?;
        let want = *self
            .leaf_kinds(ty)?
            .first()
            .ok_or_else(|| malformed("dot product without a result type"))?;
        if inst.operand_count() > 4 {
            // PackedVectorFormat4x8Bit is the only format.
            let (&[x], &[y]) = (a.as_slice(), b.as_slice()) else {
                return Err(malformed("packed dot product of vectors"));
            };
            if self.b.scalar_type_of(x)? != Scalar::I32
                || self.b.scalar_type_of(y)? != Scalar::I32
                || want != Scalar::I32
            {
                return Err(unsupported(
                    "packed dot products other than 32-bit words into a 32-bit result",
                ));
            }
            self.features.need_sm(6, 4);
            let code = if signed {
                OpCode::Dot4AddI8Packed
            } else {
                OpCode::Dot4AddU8Packed
            };
            let zero = self.b.i32c(0);
            let i32t = self.b.t.i32;
            return self.b.dxop(code, Some(i32t), i32t, &[zero, x, y]);
        }
        if a.len() != b.len() || a.is_empty() || want.is_float() || want == Scalar::I1 {
            return Err(malformed("dot product of mismatched vectors"));
        }
        let wt = self.b.scalar(want);
        let mut acc = None;
        for (&x, &y) in a.iter().zip(&b) {
            let ext = |tr: &mut Self, v: Value| -> Result<Value> {
                let have = tr.b.scalar_type_of(v)?;
                if have == want {
                    return Ok(v);
                }
                if have.is_float() || have.bits() > want.bits() {
                    return Err(malformed("dot product operand wider than its result"));
                }
                let op = if signed { CastOp::SExt } else { CastOp::ZExt };
                tr.b.cast(op, v, wt)
            };
            let x = ext(self, x)?;
            let y = ext(self, y)?;
            let p = self.b.binary(BinOp::Mul, x, y)?;
            acc = Some(match acc {
                None => p,
                Some(s) => self.b.binary(BinOp::Add, s, p)?,
            });
        }
        acc.ok_or_else(|| malformed("empty dot product"))
    }

    /// A float dot product as multiplies and adds (matrix products, as DXC expands them).
    fn dot_plain(&mut self, a: &[Value], b: &[Value]) -> Result<Value> {
        if a.len() != b.len() || a.is_empty() {
            return Err(malformed("matrix product of mismatched sizes"));
        }
        let mut acc = self.b.binary(BinOp::FMul, a[0], b[0])?;
        for i in 1..a.len() {
            let p = self.b.binary(BinOp::FMul, a[i], b[i])?;
            acc = self.b.binary(BinOp::FAdd, acc, p)?;
        }
        Ok(acc)
    }

    fn convert(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        let ty = inst.word(0)?;
        let kinds = self.leaf_kinds(ty)?;
        let to = *kinds
            .first()
            .ok_or_else(|| malformed("conversion to an empty type"))?;
        // 8-bit sources are their byte zero-extended in an `i32`: the signed conversions
        // sign-extend it first; 8-bit results are cut back to their byte.
        let from8 = self.int8 && self.is_int8_value(inst.word(2)?);
        let sign8 = from8 && matches!(op, Op::SConvert | Op::ConvertSToF);
        let to8 = self.int8 && self.is_int8(ty);
        match to {
            Scalar::F64 => self.features.doubles = true,
            Scalar::I64 => self.features.int64 = true,
            Scalar::F16 | Scalar::I16 => self.features.native16 = true,
            _ => {}
        }
        self.map1(inst, |tr, v| {
            let v = if sign8 { tr.sext8(v)? } else { v };
            let r = tr.convert_one(op, v, to)?;
            if to8 { tr.wrap8(r) } else { Ok(r) }
        })
    }

    /// One component of [`Tr::convert`]: `v` converted to `to`.
    fn convert_one(&mut self, op: Op, v: Value, to: Scalar) -> Result<Value> {
        let tt = self.b.scalar(to);
        let from = self.b.scalar_type_of(v)?;
        if from == Scalar::F64 || to == Scalar::F64 {
            self.features.doubles = true;
            if matches!(
                op,
                Op::ConvertFToU | Op::ConvertFToS | Op::ConvertUToF | Op::ConvertSToF
            ) {
                self.features.double_ext = true;
            }
        }
        if from.bits() == 64 && !from.is_float() {
            self.features.int64 = true;
        }
        let cast = match op {
            Op::ConvertFToU => CastOp::FPToUI,
            Op::ConvertFToS => CastOp::FPToSI,
            Op::ConvertUToF => CastOp::UIToFP,
            Op::ConvertSToF => CastOp::SIToFP,
            Op::UConvert | Op::SConvert => {
                if from == to {
                    return Ok(v);
                }
                if from.bits() > to.bits() {
                    CastOp::Trunc
                } else if op == Op::SConvert {
                    CastOp::SExt
                } else {
                    CastOp::ZExt
                }
            }
            _ => {
                if from == to {
                    return Ok(v);
                }
                if from.bits() > to.bits() {
                    CastOp::FPTrunc
                } else {
                    CastOp::FPExt
                }
            }
        };
        if from == Scalar::I1 {
            // Booleans converted as integers (not valid SPIR-V, but cheap to accept).
            let one = self
                .b
                .const_bits(to, if to.is_float() { float_one(to) } else { 1 });
            let zero = self.b.zero(to);
            return self.b.select(v, one, zero);
        }
        self.b.cast(cast, v, tt)
    }

    fn bitcast(&mut self, inst: &Inst<'_>) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        let src = self.values(inst.word(2)?)?;
        let kinds = self.leaf_kinds(ty)?;
        if matches!(self.spv.ty(ty)?, Type::Pointer { .. }) {
            return Err(crate::error::inexpressible("bitcasts of pointers"));
        }
        if src.len() == kinds.len() {
            let mut out = Vec::with_capacity(src.len());
            for (v, k) in src.into_iter().zip(kinds) {
                let from = self.b.scalar_type_of(v)?;
                if from == k {
                    out.push(v);
                } else {
                    let t = self.b.scalar(k);
                    out.push(self.b.cast(CastOp::BitCast, v, t)?);
                }
            }
            return self.set_vals(id, &out);
        }
        // Different component counts: go through integer bits. 8-bit components are the low
        // byte of their `i32` (the rest is zero).
        let from8 = self.int8 && self.is_int8_value(inst.word(2)?);
        let to8 = self.int8 && self.is_int8(ty);
        let mut bits: Vec<(Value, u32)> = Vec::new();
        for v in src {
            let from = self.b.scalar_type_of(v)?;
            let it = self.b.scalar(from.as_int());
            let iv = if from.is_float() {
                self.b.cast(CastOp::BitCast, v, it)?
            } else {
                v
            };
            bits.push((iv, if from8 { 8 } else { from.bits() }));
        }
        let total: u32 = bits.iter().map(|b| b.1).sum();
        let to_bits = if to8 { 8 } else { kinds[0].bits() };
        if total != to_bits * kinds.len() as u32 {
            return Err(malformed("OpBitcast between types of different sizes"));
        }
        // Build one integer of `total` bits is impossible past 64; work per output element.
        let mut out = Vec::with_capacity(kinds.len());
        let mut pos = 0u32;
        let mut src_i = 0;
        let mut src_off = 0u32;
        for k in kinds {
            let it = self.b.scalar(k.as_int());
            let mut acc: Option<Value> = None;
            let mut filled = 0u32;
            while filled < to_bits {
                let (v, w) = bits[src_i];
                let take = (w - src_off).min(to_bits - filled);
                // Extract `take` bits of v starting at src_off, place at `filled`.
                let vs = self.b.scalar_type_of(v)?;
                let mut part = v;
                if src_off > 0 {
                    let sh = self.b.const_int(vs, i64::from(src_off));
                    part = self.b.binary(BinOp::LShr, part, sh)?;
                }
                let part = if vs.bits() > k.bits() {
                    self.b.cast(CastOp::Trunc, part, it)?
                } else if vs.bits() < k.bits() {
                    self.b.cast(CastOp::ZExt, part, it)?
                } else {
                    part
                };
                let part = if take < to_bits && vs.bits() > take {
                    let m = self.b.const_int(k.as_int(), ((1u64 << take) - 1) as i64);
                    self.b.binary(BinOp::And, part, m)?
                } else {
                    part
                };
                let part = if filled > 0 {
                    let sh = self.b.const_int(k.as_int(), i64::from(filled));
                    self.b.binary(BinOp::Shl, part, sh)?
                } else {
                    part
                };
                acc = Some(match acc {
                    Some(a) => self.b.binary(BinOp::Or, a, part)?,
                    None => part,
                });
                filled += take;
                src_off += take;
                if src_off == w {
                    src_i += 1;
                    src_off = 0;
                }
            }
            pos += to_bits;
            let v = acc.ok_or_else(|| crate::error::internal("empty bitcast"))?;
            let v = if to8 { self.wrap8(v)? } else { v };
            if k.bits() == 64 {
                self.features.int64 = true;
            }
            out.push(if k.is_float() {
                let t = self.b.scalar(k);
                self.b.cast(CastOp::BitCast, v, t)?
            } else {
                v
            });
        }
        let _ = pos;
        self.set_vals(id, &out)
    }

    fn bitfield_insert(
        &mut self,
        base: Value,
        ins: Value,
        off: Value,
        count: Value,
    ) -> Result<Value> {
        let s = self.b.scalar_type_of(base)?;
        if s == Scalar::I32 {
            // Bfi's width and offset are taken modulo 32; count == 32 means the whole word.
            let r = self.b.dxop(
                OpCode::Bfi,
                Some(self.b.t.i32),
                self.b.t.i32,
                &[count, off, ins, base],
            )?;
            let k32 = self.b.i32c(32);
            let full = self.b.cmp(Predicate::ICMP_EQ, count, k32)?;
            return self.b.select(full, ins, r);
        }
        // General form: mask = ((1 << count) - 1) << off.
        let one = self.b.const_int(s, 1);
        let c = self.cast_to_width(count, s)?;
        let o = self.cast_to_width(off, s)?;
        let m = self.b.binary(BinOp::Shl, one, c)?;
        let m = self.b.binary(BinOp::Sub, m, one)?;
        let m = self.b.binary(BinOp::Shl, m, o)?;
        let ins = self.b.binary(BinOp::Shl, ins, o)?;
        let ins = self.b.binary(BinOp::And, ins, m)?;
        let all = self.b.const_int(s, -1);
        let nm = self.b.binary(BinOp::Xor, m, all)?;
        let keep = self.b.binary(BinOp::And, base, nm)?;
        self.b.binary(BinOp::Or, keep, ins)
    }

    /// SPIR-V's bit-field offset and count may have any integer width; DXIL's shifts take the base's.
    fn cast_to_width(&mut self, v: Value, s: Scalar) -> Result<Value> {
        let t = self.b.scalar(s);
        let op = if s.bits() > 32 {
            CastOp::ZExt
        } else {
            CastOp::Trunc
        };
        self.b.cast(op, v, t)
    }

    fn bitfield_extract(
        &mut self,
        base: Value,
        off: Value,
        count: Value,
        signed: bool,
    ) -> Result<Value> {
        let s = self.b.scalar_type_of(base)?;
        if s == Scalar::I32 {
            let code = if signed { OpCode::Ibfe } else { OpCode::Ubfe };
            let i32t = self.b.t.i32;
            let r = self.b.dxop(code, Some(i32t), i32t, &[count, off, base])?;
            // Width 0 (taken modulo 32) yields 0 in SPIR-V; 32 yields the whole word.
            let k32 = self.b.i32c(32);
            let full = self.b.cmp(Predicate::ICMP_EQ, count, k32)?;
            return self.b.select(full, base, r);
        }
        let c = self.cast_to_width(count, s)?;
        let o = self.cast_to_width(off, s)?;
        let w = self.b.const_int(s, i64::from(s.bits()));
        let left = self.b.binary(BinOp::Sub, w, c)?;
        let left = self.b.binary(BinOp::Sub, left, o)?;
        let x = self.b.binary(BinOp::Shl, base, left)?;
        let right = self.b.binary(BinOp::Sub, w, c)?;
        self.b
            .binary(if signed { BinOp::AShr } else { BinOp::LShr }, x, right)
    }
}

fn float_one(s: Scalar) -> u64 {
    match s {
        Scalar::F16 => 0x3c00,
        Scalar::F32 => 0x3f80_0000,
        _ => 0x3ff0_0000_0000_0000,
    }
}

/// Binary operators that map onto an LLVM instruction, and whether they are float ops.
fn binop(op: Op) -> Option<(BinOp, bool)> {
    Some(match op {
        Op::IAdd => (BinOp::Add, false),
        Op::FAdd => (BinOp::FAdd, true),
        Op::ISub => (BinOp::Sub, false),
        Op::FSub => (BinOp::FSub, true),
        Op::IMul => (BinOp::Mul, false),
        Op::FMul => (BinOp::FMul, true),
        Op::UDiv => (BinOp::UDiv, false),
        Op::SDiv => (BinOp::SDiv, false),
        Op::FDiv => (BinOp::FDiv, true),
        Op::UMod => (BinOp::URem, false),
        Op::SRem => (BinOp::SRem, false),
        Op::FRem => (BinOp::FRem, true),
        Op::BitwiseOr => (BinOp::Or, false),
        Op::BitwiseXor => (BinOp::Xor, false),
        Op::BitwiseAnd => (BinOp::And, false),
        _ => return None,
    })
}

fn compare(op: Op) -> Option<Predicate> {
    Some(match op {
        Op::IEqual => Predicate::ICMP_EQ,
        Op::INotEqual => Predicate::ICMP_NE,
        Op::UGreaterThan => Predicate::ICMP_UGT,
        Op::SGreaterThan => Predicate::ICMP_SGT,
        Op::UGreaterThanEqual => Predicate::ICMP_UGE,
        Op::SGreaterThanEqual => Predicate::ICMP_SGE,
        Op::ULessThan => Predicate::ICMP_ULT,
        Op::SLessThan => Predicate::ICMP_SLT,
        Op::ULessThanEqual => Predicate::ICMP_ULE,
        Op::SLessThanEqual => Predicate::ICMP_SLE,
        Op::FOrdEqual => Predicate::FCMP_OEQ,
        Op::FUnordEqual => Predicate::FCMP_UEQ,
        Op::FOrdNotEqual => Predicate::FCMP_ONE,
        Op::FUnordNotEqual => Predicate::FCMP_UNE,
        Op::FOrdLessThan => Predicate::FCMP_OLT,
        Op::FUnordLessThan => Predicate::FCMP_ULT,
        Op::FOrdGreaterThan => Predicate::FCMP_OGT,
        Op::FUnordGreaterThan => Predicate::FCMP_UGT,
        Op::FOrdLessThanEqual => Predicate::FCMP_OLE,
        Op::FUnordLessThanEqual => Predicate::FCMP_ULE,
        Op::FOrdGreaterThanEqual => Predicate::FCMP_OGE,
        Op::FUnordGreaterThanEqual => Predicate::FCMP_UGE,
        Op::Ordered => Predicate::FCMP_ORD,
        Op::Unordered => Predicate::FCMP_UNO,
        _ => return None,
    })
}

pub fn is_group_op(op: Op) -> bool {
    let n = op as u32;
    // OpGroupNonUniform* (333..=366), the KHR/NV subgroup forms and the quad ops.
    (333..=366).contains(&n)
        || matches!(
            op,
            Op::SubgroupBallotKHR
                | Op::SubgroupFirstInvocationKHR
                | Op::SubgroupAllKHR
                | Op::SubgroupAnyKHR
                | Op::SubgroupAllEqualKHR
                | Op::SubgroupReadInvocationKHR
                | Op::GroupNonUniformRotateKHR
                | Op::GroupNonUniformPartitionNV
        )
        || super::wave::non_uniform_form(op).is_some()
}
