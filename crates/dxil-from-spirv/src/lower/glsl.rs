//! `GLSL.std.450` extended instructions.

use dxil_module::{BinOp, CastOp, Predicate, Value};
use dxil_shader::ops::OpCode;
use spirv::GLOp;

use super::Tr;
use crate::builder::Scalar;
use crate::error::{Result, malformed, unsupported};
use crate::spv::Inst;

/// `log2(e)` and `ln(2)`.
const LOG2_E: f64 = std::f64::consts::LOG2_E;
const LN_2: f64 = std::f64::consts::LN_2;

/// One family of `GLSL.std.450` operations: `None` when `op` is not in it.
type GlslFamily<'a> = fn(&mut Tr<'a>, &Inst<'_>, GLOp) -> Result<Option<Vec<Value>>>;

impl Tr<'_> {
    pub fn glsl(&mut self, inst: &Inst<'_>) -> Result<()> {
        let id = inst.word(1)?;
        let code = inst.word(3)?;
        let op = GLOp::from_u32(code)
            .ok_or_else(|| malformed(format!("unknown GLSL.std.450 instruction {code}")))?;
        if self.int8
            && (self.is_int8(inst.word(0)?) || inst.rest(4).iter().any(|&a| self.is_int8_value(a)))
        {
            return Err(unsupported(format!(
                "8-bit integers in GLSL.std.450 {op:?} (they are emulated in 32-bit registers \
                 for conversions, bitcasts and integer arithmetic only)"
            )));
        }
        if let Some(c) = unary_code(op) {
            return self.glsl_unary(inst, id, c);
        }
        if let Some(c) = min_max_code(op) {
            let a = self.values(inst.word(4)?)?;
            let b = self.values(inst.word(5)?)?;
            let out = self.zip2(&a, &b, |tr, x, y| tr.binary_dxop(c, x, y))?;
            return self.set_vals(id, &out);
        }
        // The families below each take a few dozen operations; the first that knows `op`
        // gives its result.
        let families: [GlslFamily<'_>; 4] = [
            Self::glsl_scalar,
            Self::glsl_blend,
            Self::glsl_geometric,
            Self::glsl_bits,
        ];
        for family in families {
            if let Some(out) = family(self, inst, op)? {
                return self.set_vals(id, &out);
            }
        }
        match op {
            GLOp::InterpolateAtCentroid | GLOp::InterpolateAtSample | GLOp::InterpolateAtOffset => {
                self.interpolate_at(inst, op)
            }
            other => Err(unsupported(format!("GLSL.std.450 {other:?}"))),
        }
    }

    /// Component-wise operations that map to one dx.op (with 64-bit rounding done by hand).
    fn glsl_unary(&mut self, inst: &Inst<'_>, id: u32, c: OpCode) -> Result<()> {
        let a = self.values(inst.word(4)?)?;
        let mut out = Vec::with_capacity(a.len());
        for x in a {
            let s = self.b.scalar_type_of(x)?;
            out.push(if s == Scalar::F64 && c == OpCode::Sqrt {
                self.sqrt_f64(x)?
            } else if s == Scalar::F64
                && matches!(
                    c,
                    OpCode::Round_ne
                        | OpCode::Round_z
                        | OpCode::Round_ni
                        | OpCode::Round_pi
                        | OpCode::Frc
                )
            {
                self.round_f64(c, x)?
            } else {
                self.unary_dxop(c, x)?
            });
        }
        self.set_vals(id, &out)
    }

    /// Sign, angle, exponential and inverse hyperbolic operations; `None` for an operation outside the family.
    fn glsl_scalar(&mut self, inst: &Inst<'_>, op: GLOp) -> Result<Option<Vec<Value>>> {
        let arg = |i: usize| inst.word(4 + i);
        Ok(Some(match op {
            GLOp::SAbs => {
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    let z = tr.b.zero(s);
                    let n = tr.b.binary(BinOp::Sub, z, x)?;
                    tr.binary_dxop(OpCode::IMax, x, n)
                })?
            }
            GLOp::FSign => {
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    let z = tr.b.zero(s);
                    let one = tr.fconst(s, 1.0);
                    let m1 = tr.fconst(s, -1.0);
                    let gt = tr.b.cmp(Predicate::FCMP_OGT, x, z)?;
                    let lt = tr.b.cmp(Predicate::FCMP_OLT, x, z)?;
                    let r = tr.b.select(lt, m1, z)?;
                    tr.b.select(gt, one, r)
                })?
            }
            GLOp::SSign => {
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    let z = tr.b.zero(s);
                    let one = tr.b.const_int(s, 1);
                    let m1 = tr.b.const_int(s, -1);
                    let gt = tr.b.cmp(Predicate::ICMP_SGT, x, z)?;
                    let lt = tr.b.cmp(Predicate::ICMP_SLT, x, z)?;
                    let r = tr.b.select(lt, m1, z)?;
                    tr.b.select(gt, one, r)
                })?
            }
            GLOp::Radians | GLOp::Degrees => {
                let k = if op == GLOp::Radians {
                    std::f64::consts::PI / 180.0
                } else {
                    180.0 / std::f64::consts::PI
                };
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    let c = tr.fconst(s, k);
                    tr.b.binary(BinOp::FMul, x, c)
                })?
            }
            GLOp::Exp | GLOp::Log => {
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    if op == GLOp::Exp {
                        let c = tr.fconst(s, LOG2_E);
                        let y = tr.b.binary(BinOp::FMul, x, c)?;
                        tr.unary_dxop(OpCode::Exp, y)
                    } else {
                        let l = tr.unary_dxop(OpCode::Log, x)?;
                        let c = tr.fconst(s, LN_2);
                        tr.b.binary(BinOp::FMul, l, c)
                    }
                })?
            }
            GLOp::Pow => {
                let a = self.values(arg(0)?)?;
                let b = self.values(arg(1)?)?;
                self.zip2(&a, &b, |tr, x, y| {
                    let l = tr.unary_dxop(OpCode::Log, x)?;
                    let m = tr.b.binary(BinOp::FMul, l, y)?;
                    tr.unary_dxop(OpCode::Exp, m)
                })?
            }
            GLOp::Atan2 => {
                let a = self.values(arg(0)?)?;
                let b = self.values(arg(1)?)?;
                self.zip2(&a, &b, |tr, y, x| tr.atan2(y, x))?
            }
            GLOp::Asinh | GLOp::Acosh | GLOp::Atanh => {
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| tr.inverse_hyperbolic(op, x))?
            }
            _ => return Ok(None),
        }))
    }

    /// Clamps, mixes, steps and fused multiply-adds; `None` for an operation outside the family.
    fn glsl_blend(&mut self, inst: &Inst<'_>, op: GLOp) -> Result<Option<Vec<Value>>> {
        let arg = |i: usize| inst.word(4 + i);
        Ok(Some(match op {
            GLOp::FClamp | GLOp::NClamp | GLOp::UClamp | GLOp::SClamp => {
                let (mx, mn) = match op {
                    GLOp::UClamp => (OpCode::UMax, OpCode::UMin),
                    GLOp::SClamp => (OpCode::IMax, OpCode::IMin),
                    _ => (OpCode::FMax, OpCode::FMin),
                };
                let x = self.values(arg(0)?)?;
                let lo = self.values(arg(1)?)?;
                let hi = self.values(arg(2)?)?;
                let m = self.zip2(&x, &lo, |tr, a, b| tr.binary_dxop(mx, a, b))?;
                self.zip2(&m, &hi, |tr, a, b| tr.binary_dxop(mn, a, b))?
            }
            GLOp::FMix => {
                let x = self.values(arg(0)?)?;
                let y = self.values(arg(1)?)?;
                let a = self.values(arg(2)?)?;
                same_len(&[x.len(), y.len()])?;
                if a.len() != 1 {
                    same_len(&[x.len(), a.len()])?;
                }
                let mut out = Vec::with_capacity(x.len());
                for i in 0..x.len() {
                    let d = self.b.binary(BinOp::FSub, y[i], x[i])?;
                    let t = *a.get(i).or(a.first()).ok_or_else(|| malformed("mix"))?;
                    let m = self.b.binary(BinOp::FMul, d, t)?;
                    out.push(self.b.binary(BinOp::FAdd, x[i], m)?);
                }
                out
            }
            GLOp::IMix => {
                let x = self.values(arg(0)?)?;
                let y = self.values(arg(1)?)?;
                let a = self.values(arg(2)?)?;
                same_len(&[x.len(), y.len(), a.len()])?;
                let mut out = Vec::with_capacity(x.len());
                for i in 0..x.len() {
                    out.push(self.b.select(a[i], y[i], x[i])?);
                }
                out
            }
            GLOp::Step => {
                let e = self.values(arg(0)?)?;
                let x = self.values(arg(1)?)?;
                self.zip2(&e, &x, |tr, e, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    let lt = tr.b.cmp(Predicate::FCMP_OLT, x, e)?;
                    let z = tr.b.zero(s);
                    let one = tr.fconst(s, 1.0);
                    tr.b.select(lt, z, one)
                })?
            }
            GLOp::SmoothStep => {
                let e0 = self.values(arg(0)?)?;
                let e1 = self.values(arg(1)?)?;
                let x = self.values(arg(2)?)?;
                same_len(&[e0.len(), e1.len(), x.len()])?;
                let mut out = Vec::with_capacity(x.len());
                for i in 0..x.len() {
                    let s = self.b.scalar_type_of(x[i])?;
                    let num = self.b.binary(BinOp::FSub, x[i], e0[i])?;
                    let den = self.b.binary(BinOp::FSub, e1[i], e0[i])?;
                    let t = self.b.binary(BinOp::FDiv, num, den)?;
                    let t = self.unary_dxop(OpCode::Saturate, t)?;
                    let two = self.fconst(s, 2.0);
                    let three = self.fconst(s, 3.0);
                    let tt = self.b.binary(BinOp::FMul, t, t)?;
                    let t2 = self.b.binary(BinOp::FMul, two, t)?;
                    let k = self.b.binary(BinOp::FSub, three, t2)?;
                    out.push(self.b.binary(BinOp::FMul, tt, k)?);
                }
                out
            }
            GLOp::Fma => {
                let a = self.values(arg(0)?)?;
                let b = self.values(arg(1)?)?;
                let c = self.values(arg(2)?)?;
                same_len(&[a.len(), b.len(), c.len()])?;
                let mut out = Vec::with_capacity(a.len());
                for i in 0..a.len() {
                    let s = self.b.scalar_type_of(a[i])?;
                    let code = if s == Scalar::F64 {
                        self.features.double_ext = true;
                        OpCode::Fma
                    } else {
                        OpCode::FMad
                    };
                    out.push(self.tertiary_dxop(code, a[i], b[i], c[i])?);
                }
                out
            }
            _ => return Ok(None),
        }))
    }

    /// Vector geometry: lengths, normals, cross products, reflection and refraction; `None` for an operation outside the family.
    fn glsl_geometric(&mut self, inst: &Inst<'_>, op: GLOp) -> Result<Option<Vec<Value>>> {
        let arg = |i: usize| inst.word(4 + i);
        Ok(Some(match op {
            GLOp::Length => {
                let a = self.values(arg(0)?)?;
                same_len(&[a.len().min(1), 1])?;
                if a.len() == 1 {
                    vec![self.unary_dxop(OpCode::FAbs, a[0])?]
                } else {
                    let d = self.dot(&a, &a)?;
                    vec![self.unary_dxop(OpCode::Sqrt, d)?]
                }
            }
            GLOp::Distance => {
                let a = self.values(arg(0)?)?;
                let b = self.values(arg(1)?)?;
                let d = self.zip2(&a, &b, |tr, x, y| tr.b.binary(BinOp::FSub, x, y))?;
                if d.len() == 1 {
                    vec![self.unary_dxop(OpCode::FAbs, d[0])?]
                } else {
                    let dd = self.dot(&d, &d)?;
                    vec![self.unary_dxop(OpCode::Sqrt, dd)?]
                }
            }
            GLOp::Normalize => {
                let a = self.values(arg(0)?)?;
                same_len(&[a.len().min(1), 1])?;
                if a.len() == 1 {
                    let s = self.b.scalar_type_of(a[0])?;
                    let z = self.b.zero(s);
                    let one = self.fconst(s, 1.0);
                    let m1 = self.fconst(s, -1.0);
                    let lt = self.b.cmp(Predicate::FCMP_OLT, a[0], z)?;
                    vec![self.b.select(lt, m1, one)?]
                } else {
                    let d = self.dot(&a, &a)?;
                    let r = self.unary_dxop(OpCode::Rsqrt, d)?;
                    self.each(&a, |tr, x| tr.b.binary(BinOp::FMul, x, r))?
                }
            }
            GLOp::Cross => {
                let a = self.values(arg(0)?)?;
                let b = self.values(arg(1)?)?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(malformed("cross of non-3-vectors"));
                }
                let mut out = Vec::with_capacity(3);
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let p = self.b.binary(BinOp::FMul, a[i], b[j])?;
                    let q = self.b.binary(BinOp::FMul, a[j], b[i])?;
                    out.push(self.b.binary(BinOp::FSub, p, q)?);
                }
                out
            }
            GLOp::Reflect => {
                let i = self.values(arg(0)?)?;
                let n = self.values(arg(1)?)?;
                let d = self.dot_any(&n, &i)?;
                let s = self.b.scalar_type_of(d)?;
                let two = self.fconst(s, 2.0);
                let k = self.b.binary(BinOp::FMul, two, d)?;
                self.zip2(&i, &n, |tr, x, y| {
                    let m = tr.b.binary(BinOp::FMul, k, y)?;
                    tr.b.binary(BinOp::FSub, x, m)
                })?
            }
            GLOp::FaceForward => {
                let n = self.values(arg(0)?)?;
                let i = self.values(arg(1)?)?;
                let nref = self.values(arg(2)?)?;
                let d = self.dot_any(&nref, &i)?;
                let s = self.b.scalar_type_of(d)?;
                let z = self.b.zero(s);
                let lt = self.b.cmp(Predicate::FCMP_OLT, d, z)?;
                self.each(&n, |tr, x| {
                    let neg = tr.fneg(x)?;
                    tr.b.select(lt, x, neg)
                })?
            }
            GLOp::Refract => {
                let i = self.values(arg(0)?)?;
                let n = self.values(arg(1)?)?;
                let eta = self.scalar(arg(2)?)?;
                self.refract(&i, &n, eta)?
            }
            _ => return Ok(None),
        }))
    }

    /// Bit scans, splitting and packing of numbers, and matrix determinants and inverses; `None` for an operation outside the family.
    fn glsl_bits(&mut self, inst: &Inst<'_>, op: GLOp) -> Result<Option<Vec<Value>>> {
        let arg = |i: usize| inst.word(4 + i);
        Ok(Some(match op {
            GLOp::FindILsb => {
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    let s = tr.b.scalar_type_of(x)?;
                    let t = tr.b.scalar(s);
                    let i32t = tr.b.t.i32;
                    tr.b.dxop(OpCode::FirstbitLo, Some(t), i32t, &[x])
                })?
            }
            GLOp::FindSMsb | GLOp::FindUMsb => {
                let code = if op == GLOp::FindSMsb {
                    OpCode::FirstbitSHi
                } else {
                    OpCode::FirstbitHi
                };
                let a = self.values(arg(0)?)?;
                self.each(&a, |tr, x| {
                    // DXIL counts from the most significant bit; SPIR-V from the least.
                    let s = tr.b.scalar_type_of(x)?;
                    let t = tr.b.scalar(s);
                    let i32t = tr.b.t.i32;
                    let r = tr.b.dxop(code, Some(t), i32t, &[x])?;
                    let m1 = tr.b.i32c(-1);
                    let top = tr.b.i32c(i64::from(s.bits()) - 1);
                    let flipped = tr.b.binary(BinOp::Sub, top, r)?;
                    let none = tr.b.cmp(Predicate::ICMP_EQ, r, m1)?;
                    tr.b.select(none, m1, flipped)
                })?
            }
            GLOp::Modf | GLOp::ModfStruct => {
                let a = self.values(arg(0)?)?;
                let whole = self.each(&a, |tr, x| tr.unary_dxop(OpCode::Round_z, x))?;
                let frac = self.zip2(&a, &whole, |tr, x, w| tr.b.binary(BinOp::FSub, x, w))?;
                if op == GLOp::Modf {
                    let p = self.ptr(arg(1)?)?;
                    self.store_to(&p, &whole)?;
                    frac
                } else {
                    let mut v = frac;
                    v.extend(whole);
                    v
                }
            }
            GLOp::Ldexp => {
                let x = self.values(arg(0)?)?;
                let e = self.values(arg(1)?)?;
                self.zip2(&x, &e, |tr, x, e| {
                    let s = tr.b.scalar_type_of(x)?;
                    let t = tr.b.scalar(s);
                    let ef = tr.b.cast(CastOp::SIToFP, e, t)?;
                    let p = tr.unary_dxop(OpCode::Exp, ef)?;
                    tr.b.binary(BinOp::FMul, x, p)
                })?
            }
            GLOp::PackHalf2x16 => {
                let a = self.values(arg(0)?)?;
                same_len(&[a.len(), 2])?;
                let i32t = self.b.t.i32;
                let lo = self.b.dxop(OpCode::LegacyF32ToF16, None, i32t, &[a[0]])?;
                let hi = self.b.dxop(OpCode::LegacyF32ToF16, None, i32t, &[a[1]])?;
                let sh = self.b.i32c(16);
                let hi = self.b.binary(BinOp::Shl, hi, sh)?;
                vec![self.b.binary(BinOp::Or, lo, hi)?]
            }
            GLOp::UnpackHalf2x16 => {
                let v = self.scalar(arg(0)?)?;
                let f32t = self.b.t.f32;
                let lo = self.b.dxop(OpCode::LegacyF16ToF32, None, f32t, &[v])?;
                let sh = self.b.i32c(16);
                let hv = self.b.binary(BinOp::LShr, v, sh)?;
                let hi = self.b.dxop(OpCode::LegacyF16ToF32, None, f32t, &[hv])?;
                vec![lo, hi]
            }
            GLOp::PackUnorm4x8 | GLOp::PackSnorm4x8 | GLOp::PackUnorm2x16 | GLOp::PackSnorm2x16 => {
                let a = self.values(arg(0)?)?;
                vec![self.pack_norm(op, &a)?]
            }
            GLOp::UnpackUnorm4x8
            | GLOp::UnpackSnorm4x8
            | GLOp::UnpackUnorm2x16
            | GLOp::UnpackSnorm2x16 => {
                let v = self.scalar(arg(0)?)?;
                self.unpack_norm(op, v)?
            }
            GLOp::PackDouble2x32 => {
                let a = self.values(arg(0)?)?;
                same_len(&[a.len(), 2])?;
                vec![self.join64(a[0], a[1], Scalar::F64)?]
            }
            GLOp::UnpackDouble2x32 => {
                let v = self.scalar(arg(0)?)?;
                let (lo, hi) = self.split64(v)?;
                vec![lo, hi]
            }
            GLOp::Determinant => {
                let m = self.values(arg(0)?)?;
                vec![self.determinant(&m)?]
            }
            GLOp::MatrixInverse => {
                let m = self.values(arg(0)?)?;
                self.inverse(&m)?
            }
            GLOp::Frexp | GLOp::FrexpStruct => {
                let a = self.values(arg(0)?)?;
                let (m, e) = self.frexp(&a)?;
                if op == GLOp::Frexp {
                    let p = self.ptr(arg(1)?)?;
                    let kinds = self.leaf_kinds(p.ty)?;
                    let e = self.exponents_as(&e, &kinds)?;
                    self.store_to(&p, &e)?;
                    m
                } else {
                    let kinds = self.leaf_kinds(inst.word(0)?)?;
                    let e = self.exponents_as(&e, kinds.get(m.len()..).unwrap_or(&[]))?;
                    let mut v = m;
                    v.extend(e);
                    v
                }
            }
            _ => return Ok(None),
        }))
    }

    pub fn each(
        &mut self,
        a: &[Value],
        mut f: impl FnMut(&mut Self, Value) -> Result<Value>,
    ) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(a.len());
        for &x in a {
            out.push(f(self, x)?);
        }
        Ok(out)
    }

    pub fn zip2(
        &mut self,
        a: &[Value],
        b: &[Value],
        mut f: impl FnMut(&mut Self, Value, Value) -> Result<Value>,
    ) -> Result<Vec<Value>> {
        if a.len() != b.len() {
            return Err(malformed("operands with different numbers of components"));
        }
        let mut out = Vec::with_capacity(a.len());
        for (&x, &y) in a.iter().zip(b) {
            out.push(f(self, x, y)?);
        }
        Ok(out)
    }

    /// A float constant of kind `s`.
    pub fn fconst(&mut self, s: Scalar, v: f64) -> Value {
        let bits = match s {
            Scalar::F16 => u64::from(f32_to_f16(v as f32)),
            Scalar::F32 => u64::from((v as f32).to_bits()),
            _ => v.to_bits(),
        };
        self.b.const_float_bits(s, bits)
    }

    /// A dot product of any length (scalars multiply).
    fn dot_any(&mut self, a: &[Value], b: &[Value]) -> Result<Value> {
        same_len(&[a.len(), b.len()])?;
        if a.len() == 1 {
            return self.b.binary(BinOp::FMul, a[0], b[0]);
        }
        self.dot(a, b)
    }

    fn sqrt_f64(&mut self, _x: Value) -> Result<Value> {
        Err(unsupported(
            "sqrt of a double (DXIL has no double square root)",
        ))
    }

    fn round_f64(&mut self, _c: OpCode, _x: Value) -> Result<Value> {
        Err(unsupported(
            "rounding doubles (DXIL has no double rounding operations)",
        ))
    }

    fn atan2(&mut self, y: Value, x: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(x)?;
        let q = self.b.binary(BinOp::FDiv, y, x)?;
        let a = self.unary_dxop(OpCode::Atan, q)?;
        let pi = self.fconst(s, std::f64::consts::PI);
        let z = self.b.zero(s);
        let a_plus = self.b.binary(BinOp::FAdd, a, pi)?;
        let a_minus = self.b.binary(BinOp::FSub, a, pi)?;
        let x_lt = self.b.cmp(Predicate::FCMP_OLT, x, z)?;
        let y_ge = self.b.cmp(Predicate::FCMP_OGE, y, z)?;
        let y_lt = self.b.cmp(Predicate::FCMP_OLT, y, z)?;
        let x_eq = self.b.cmp(Predicate::FCMP_OEQ, x, z)?;
        let y_gt = self.b.cmp(Predicate::FCMP_OGT, y, z)?;
        let c1 = self.b.binary(BinOp::And, x_lt, y_ge)?;
        let c2 = self.b.binary(BinOp::And, x_lt, y_lt)?;
        let c3 = self.b.binary(BinOp::And, x_eq, y_gt)?;
        let c4 = self.b.binary(BinOp::And, x_eq, y_lt)?;
        let half = self.fconst(s, std::f64::consts::FRAC_PI_2);
        let mhalf = self.fconst(s, -std::f64::consts::FRAC_PI_2);
        let r = self.b.select(c1, a_plus, a)?;
        let r = self.b.select(c2, a_minus, r)?;
        let r = self.b.select(c3, half, r)?;
        self.b.select(c4, mhalf, r)
    }

    fn inverse_hyperbolic(&mut self, op: GLOp, x: Value) -> Result<Value> {
        let s = self.b.scalar_type_of(x)?;
        let one = self.fconst(s, 1.0);
        let ln = |tr: &mut Self, v: Value| -> Result<Value> {
            let l = tr.unary_dxop(OpCode::Log, v)?;
            let c = tr.fconst(s, LN_2);
            tr.b.binary(BinOp::FMul, l, c)
        };
        match op {
            GLOp::Asinh | GLOp::Acosh => {
                // ln(x + sqrt(x*x ± 1))
                let xx = self.b.binary(BinOp::FMul, x, x)?;
                let t = if op == GLOp::Asinh {
                    self.b.binary(BinOp::FAdd, xx, one)?
                } else {
                    self.b.binary(BinOp::FSub, xx, one)?
                };
                let r = self.unary_dxop(OpCode::Sqrt, t)?;
                let u = self.b.binary(BinOp::FAdd, x, r)?;
                ln(self, u)
            }
            _ => {
                // 0.5 * ln((1 + x) / (1 - x))
                let a = self.b.binary(BinOp::FAdd, one, x)?;
                let b = self.b.binary(BinOp::FSub, one, x)?;
                let q = self.b.binary(BinOp::FDiv, a, b)?;
                let l = ln(self, q)?;
                let h = self.fconst(s, 0.5);
                self.b.binary(BinOp::FMul, l, h)
            }
        }
    }

    fn refract(&mut self, i: &[Value], n: &[Value], eta: Value) -> Result<Vec<Value>> {
        same_len(&[i.len(), n.len()])?;
        let d = self.dot_any(n, i)?;
        let s = self.b.scalar_type_of(d)?;
        let eta = if self.b.scalar_type_of(eta)? != s {
            let t = self.b.scalar(s);
            self.b.cast(CastOp::FPTrunc, eta, t)?
        } else {
            eta
        };
        let one = self.fconst(s, 1.0);
        let dd = self.b.binary(BinOp::FMul, d, d)?;
        let t = self.b.binary(BinOp::FSub, one, dd)?;
        let ee = self.b.binary(BinOp::FMul, eta, eta)?;
        let t = self.b.binary(BinOp::FMul, ee, t)?;
        let k = self.b.binary(BinOp::FSub, one, t)?;
        let z = self.b.zero(s);
        let neg = self.b.cmp(Predicate::FCMP_OLT, k, z)?;
        let sk = self.unary_dxop(OpCode::Sqrt, k)?;
        let ed = self.b.binary(BinOp::FMul, eta, d)?;
        let f = self.b.binary(BinOp::FAdd, ed, sk)?;
        let mut out = Vec::with_capacity(i.len());
        for (&x, &y) in i.iter().zip(n) {
            let a = self.b.binary(BinOp::FMul, eta, x)?;
            let b = self.b.binary(BinOp::FMul, f, y)?;
            let r = self.b.binary(BinOp::FSub, a, b)?;
            out.push(self.b.select(neg, z, r)?);
        }
        Ok(out)
    }

    fn pack_norm(&mut self, op: GLOp, a: &[Value]) -> Result<Value> {
        let (bits, signed) = match op {
            GLOp::PackUnorm4x8 => (8, false),
            GLOp::PackSnorm4x8 => (8, true),
            GLOp::PackUnorm2x16 => (16, false),
            _ => (16, true),
        };
        let scale = if signed {
            f64::from((1u32 << (bits - 1)) - 1)
        } else {
            f64::from((1u32 << bits) - 1)
        };
        let mask = self.b.i32c((1i64 << bits) - 1);
        let mut acc: Option<Value> = None;
        let i32t = self.b.t.i32;
        for (i, &x) in a.iter().enumerate() {
            let (lo, hi) = if signed { (-1.0, 1.0) } else { (0.0, 1.0) };
            let lo = self.fconst(Scalar::F32, lo);
            let hi = self.fconst(Scalar::F32, hi);
            let c = self.binary_dxop(OpCode::FMax, x, lo)?;
            let c = self.binary_dxop(OpCode::FMin, c, hi)?;
            let k = self.fconst(Scalar::F32, scale);
            let m = self.b.binary(BinOp::FMul, c, k)?;
            let r = self.unary_dxop(OpCode::Round_ne, m)?;
            let v = self.b.cast(
                if signed {
                    CastOp::FPToSI
                } else {
                    CastOp::FPToUI
                },
                r,
                i32t,
            )?;
            let v = self.b.binary(BinOp::And, v, mask)?;
            let v = if i > 0 {
                let sh = self.b.i32c((i * bits) as i64);
                self.b.binary(BinOp::Shl, v, sh)?
            } else {
                v
            };
            acc = Some(match acc {
                Some(p) => self.b.binary(BinOp::Or, p, v)?,
                None => v,
            });
        }
        acc.ok_or_else(|| malformed("pack of an empty vector"))
    }

    fn unpack_norm(&mut self, op: GLOp, v: Value) -> Result<Vec<Value>> {
        let (bits, n, signed) = match op {
            GLOp::UnpackUnorm4x8 => (8, 4, false),
            GLOp::UnpackSnorm4x8 => (8, 4, true),
            GLOp::UnpackUnorm2x16 => (16, 2, false),
            _ => (16, 2, true),
        };
        let f32t = self.b.t.f32;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let x = if signed {
                // Sign-extend the field: shift it to the top, then arithmetic-shift down.
                let l = self.b.i32c((32 - bits * (i + 1)) as i64);
                let t = self.b.binary(BinOp::Shl, v, l)?;
                let r = self.b.i32c((32 - bits) as i64);
                self.b.binary(BinOp::AShr, t, r)?
            } else {
                let sh = self.b.i32c((bits * i) as i64);
                let t = self.b.binary(BinOp::LShr, v, sh)?;
                let m = self.b.i32c((1i64 << bits) - 1);
                self.b.binary(BinOp::And, t, m)?
            };
            let f = self.b.cast(
                if signed {
                    CastOp::SIToFP
                } else {
                    CastOp::UIToFP
                },
                x,
                f32t,
            )?;
            let scale = if signed {
                f64::from((1u32 << (bits - 1)) - 1)
            } else {
                f64::from((1u32 << bits) - 1)
            };
            let k = self.fconst(Scalar::F32, 1.0 / scale);
            let r = self.b.binary(BinOp::FMul, f, k)?;
            out.push(if signed {
                let m1 = self.fconst(Scalar::F32, -1.0);
                self.binary_dxop(OpCode::FMax, r, m1)?
            } else {
                r
            });
        }
        Ok(out)
    }

    /// Mantissas in [0.5, 1) and exponents (i32) of floats of any width.
    fn frexp(&mut self, a: &[Value]) -> Result<(Vec<Value>, Vec<Value>)> {
        let mut m = Vec::with_capacity(a.len());
        let mut e = Vec::with_capacity(a.len());
        for &x in a {
            let (mant, exp) = match self.b.scalar_type_of(x)? {
                Scalar::F32 => self.frexp32(x)?,
                Scalar::F16 => {
                    // A half is a float exactly, and its mantissa is a half again exactly.
                    let f32t = self.b.t.f32;
                    let wide = self.b.cast(CastOp::FPExt, x, f32t)?;
                    let (mant, exp) = self.frexp32(wide)?;
                    let h = self.b.scalar(Scalar::F16);
                    (self.b.cast(CastOp::FPTrunc, mant, h)?, exp)
                }
                Scalar::F64 => self.frexp64(x)?,
                _ => return Err(malformed("frexp of something that is not a float")),
            };
            m.push(mant);
            e.push(exp);
        }
        Ok((m, e))
    }

    /// frexp of a float from its bits (denormals are flushed in DXIL's default float mode).
    fn frexp32(&mut self, x: Value) -> Result<(Value, Value)> {
        let i32t = self.b.t.i32;
        let f32t = self.b.t.f32;
        let bits = self.b.cast(CastOp::BitCast, x, i32t)?;
        let sh = self.b.i32c(23);
        let ex = self.b.binary(BinOp::LShr, bits, sh)?;
        let ff = self.b.i32c(0xff);
        let ex = self.b.binary(BinOp::And, ex, ff)?;
        let bias = self.b.i32c(126);
        let exp = self.b.binary(BinOp::Sub, ex, bias)?;
        let keep = self.b.i32c(0x807f_ffff_u32 as i32 as i64);
        let mb = self.b.binary(BinOp::And, bits, keep)?;
        let half_exp = self.b.i32c(0x3f00_0000);
        let mb = self.b.binary(BinOp::Or, mb, half_exp)?;
        let mant = self.b.cast(CastOp::BitCast, mb, f32t)?;
        let z = self.b.zero(Scalar::F32);
        let is_zero = self.b.cmp(Predicate::FCMP_OEQ, x, z)?;
        let zi = self.b.i32c(0);
        // A zero is its own mantissa, sign included.
        Ok((
            self.b.select(is_zero, x, mant)?,
            self.b.select(is_zero, zi, exp)?,
        ))
    }

    /// frexp of a double from the bits of its high word. Doubles keep their denormals in DXIL:
    /// one is first scaled by 2^54 into the normal range, and the exponent corrected.
    fn frexp64(&mut self, x: Value) -> Result<(Value, Value)> {
        let (_, hi) = self.split64(x)?;
        let field_of = |t: &mut Self, hi: Value| -> Result<Value> {
            let sh = t.b.i32c(20);
            let ex = t.b.binary(BinOp::LShr, hi, sh)?;
            let mask = t.b.i32c(0x7ff);
            t.b.binary(BinOp::And, ex, mask)
        };
        let field = field_of(self, hi)?;
        let zi = self.b.i32c(0);
        let denormal = self.b.cmp(Predicate::ICMP_EQ, field, zi)?;
        let scale = self
            .b
            .const_float_bits(Scalar::F64, 2f64.powi(54).to_bits());
        let scaled = self.b.binary(BinOp::FMul, x, scale)?;
        let x2 = self.b.select(denormal, scaled, x)?;
        let (lo, hi) = self.split64(x2)?;
        let field = field_of(self, hi)?;
        let bias = self.b.i32c(1022);
        let exp = self.b.binary(BinOp::Sub, field, bias)?;
        let shift = self.b.i32c(54);
        let fixed = self.b.binary(BinOp::Sub, exp, shift)?;
        let exp = self.b.select(denormal, fixed, exp)?;
        let keep = self.b.i32c(0x800f_ffff_u32 as i32 as i64);
        let mhi = self.b.binary(BinOp::And, hi, keep)?;
        let half_exp = self.b.i32c(0x3fe0_0000);
        let mhi = self.b.binary(BinOp::Or, mhi, half_exp)?;
        let mant = self.join64(lo, mhi, Scalar::F64)?;
        let z = self.b.zero(Scalar::F64);
        let is_zero = self.b.cmp(Predicate::FCMP_OEQ, x, z)?;
        Ok((
            self.b.select(is_zero, x, mant)?,
            self.b.select(is_zero, zi, exp)?,
        ))
    }

    /// i32 exponents as the integer kinds the result or destination has (16 or 64 bits).
    fn exponents_as(&mut self, e: &[Value], kinds: &[Scalar]) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(e.len());
        for (i, &x) in e.iter().enumerate() {
            let want = kinds.get(i).copied().unwrap_or(Scalar::I32);
            out.push(if want.bits() > 32 {
                let t = self.b.scalar(want);
                self.b.cast(CastOp::SExt, x, t)?
            } else {
                self.convert_scalar(x, want)?
            });
        }
        Ok(out)
    }

    fn determinant(&mut self, m: &[Value]) -> Result<Value> {
        let n = match m.len() {
            4 => 2,
            9 => 3,
            16 => 4,
            _ => return Err(malformed("determinant of a non-square matrix")),
        };
        let at = |c: usize, r: usize| m[c * n + r];
        self.det_rec(
            &(0..n)
                .map(|c| (0..n).map(|r| at(c, r)).collect())
                .collect::<Vec<Vec<Value>>>(),
        )
    }

    /// Determinant by cofactor expansion along the first column (n ≤ 4).
    fn det_rec(&mut self, cols: &[Vec<Value>]) -> Result<Value> {
        let n = cols.len();
        if n == 1 {
            return Ok(cols[0][0]);
        }
        if n == 2 {
            let a = self.b.binary(BinOp::FMul, cols[0][0], cols[1][1])?;
            let b = self.b.binary(BinOp::FMul, cols[1][0], cols[0][1])?;
            return self.b.binary(BinOp::FSub, a, b);
        }
        let mut acc: Option<Value> = None;
        for r in 0..n {
            let minor: Vec<Vec<Value>> = cols[1..]
                .iter()
                .map(|c| {
                    c.iter()
                        .enumerate()
                        .filter(|(i, _)| *i != r)
                        .map(|(_, v)| *v)
                        .collect()
                })
                .collect();
            let d = self.det_rec(&minor)?;
            let t = self.b.binary(BinOp::FMul, cols[0][r], d)?;
            acc = Some(match acc {
                None => t,
                Some(a) if r % 2 == 1 => self.b.binary(BinOp::FSub, a, t)?,
                Some(a) => self.b.binary(BinOp::FAdd, a, t)?,
            });
        }
        acc.ok_or_else(|| malformed("empty matrix"))
    }

    fn inverse(&mut self, m: &[Value]) -> Result<Vec<Value>> {
        let n = match m.len() {
            4 => 2,
            9 => 3,
            16 => 4,
            _ => return Err(malformed("inverse of a non-square matrix")),
        };
        let cols: Vec<Vec<Value>> = (0..n).map(|c| m[c * n..(c + 1) * n].to_vec()).collect();
        let det = self.det_rec(&cols)?;
        let s = self.b.scalar_type_of(det)?;
        let one = self.fconst(s, 1.0);
        let inv_det = self.b.binary(BinOp::FDiv, one, det)?;
        let mut out = vec![inv_det; m.len()];
        // inverse[c][r] = cofactor(r, c) / det (the adjugate is the transposed cofactors).
        for c in 0..n {
            for r in 0..n {
                // Minor of element (column r, row c) of the original.
                let minor: Vec<Vec<Value>> = cols
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != r)
                    .map(|(_, col)| {
                        col.iter()
                            .enumerate()
                            .filter(|(j, _)| *j != c)
                            .map(|(_, v)| *v)
                            .collect()
                    })
                    .collect();
                let d = self.det_rec(&minor)?;
                let d = if (r + c) % 2 == 1 { self.fneg(d)? } else { d };
                out[c * n + r] = self.b.binary(BinOp::FMul, d, inv_det)?;
            }
        }
        Ok(out)
    }
}

/// IEEE half from f32 (round to nearest even), for constants.
pub fn f32_to_f16(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let mant = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Refuses operands of different sizes (a malformed module; indexing them would go past one).
fn same_len(lens: &[usize]) -> Result<()> {
    match lens.first() {
        Some(&n) if n > 0 && lens.iter().all(|&l| l == n) => Ok(()),
        _ => Err(malformed("operands of different sizes")),
    }
}

/// The dx.op of a component-wise operation of one operand.
fn unary_code(op: GLOp) -> Option<OpCode> {
    match op {
        GLOp::RoundEven | GLOp::Round => Some(OpCode::Round_ne),
        GLOp::Trunc => Some(OpCode::Round_z),
        GLOp::FAbs => Some(OpCode::FAbs),
        GLOp::Floor => Some(OpCode::Round_ni),
        GLOp::Ceil => Some(OpCode::Round_pi),
        GLOp::Fract => Some(OpCode::Frc),
        GLOp::Sin => Some(OpCode::Sin),
        GLOp::Cos => Some(OpCode::Cos),
        GLOp::Tan => Some(OpCode::Tan),
        GLOp::Asin => Some(OpCode::Asin),
        GLOp::Acos => Some(OpCode::Acos),
        GLOp::Atan => Some(OpCode::Atan),
        GLOp::Sinh => Some(OpCode::Hsin),
        GLOp::Cosh => Some(OpCode::Hcos),
        GLOp::Tanh => Some(OpCode::Htan),
        GLOp::Exp2 => Some(OpCode::Exp),
        GLOp::Log2 => Some(OpCode::Log),
        GLOp::Sqrt => Some(OpCode::Sqrt),
        GLOp::InverseSqrt => Some(OpCode::Rsqrt),
        _ => None,
    }
}

/// The dx.op of a component-wise minimum or maximum.
fn min_max_code(op: GLOp) -> Option<OpCode> {
    match op {
        GLOp::FMin | GLOp::NMin => Some(OpCode::FMin),
        GLOp::FMax | GLOp::NMax => Some(OpCode::FMax),
        GLOp::UMin => Some(OpCode::UMin),
        GLOp::SMin => Some(OpCode::IMin),
        GLOp::UMax => Some(OpCode::UMax),
        GLOp::SMax => Some(OpCode::IMax),
        _ => None,
    }
}
