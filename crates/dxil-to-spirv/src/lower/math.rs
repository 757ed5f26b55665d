//! Unary, binary, tertiary and quaternary math and bit operations, dot products.

use dxil_module::TypeId;
use dxil_shader::ops::OpCode;
use spirv::{Capability, GLOp, Op};

use super::types::Scalar;
use super::{Args, Ctx, Val};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, try_ids, words};

impl<'a> Ctx<'a> {
    pub(super) fn unary_op(&mut self, op: OpCode, ty: TypeId, a: Args<'_>) -> Result<Id, Error> {
        let x = self.arg_id(a, 1)?;
        let in_ty = self.arg_ty(a, 1)?;
        let t = self.ty(ty)?;
        let lanes = self.lanes(in_ty);
        let s = self
            .scalar_of(in_ty)
            .ok_or_else(|| self.invalid(Invalid::ty("unary operation on a non-numeric value")))?;
        let g = |this: &mut Self, o: GLOp| this.glsl(t, o, &[x]);
        Ok(match op {
            OpCode::FAbs => g(self, GLOp::FAbs),
            OpCode::Saturate => {
                let Scalar::Float(w) = s else {
                    return Err(self.invalid(Invalid::ty("saturate of an integer")));
                };
                let zero = self.const_float(w, lanes, 0.0);
                let one = self.const_float(w, lanes, 1.0);
                self.glsl(t, GLOp::NClamp, &[x, zero, one])
            }
            OpCode::IsNaN => self.op1(Op::IsNan, t, x),
            OpCode::IsInf => self.op1(Op::IsInf, t, x),
            OpCode::IsFinite => {
                let n = self.op1(Op::IsNan, t, x);
                let i = self.op1(Op::IsInf, t, x);
                let o = self.op2(Op::LogicalOr, t, n, i);
                self.op1(Op::LogicalNot, t, o)
            }
            OpCode::IsNormal => {
                let Scalar::Float(w) = s else {
                    return Err(self.invalid(Invalid::ty("IsNormal of an integer")));
                };
                let ft = self.scalar_ty(s, lanes);
                let ax = self.glsl(ft, GLOp::FAbs, &[x]);
                let min = match w {
                    16 => 6.103_515_625e-5,
                    32 => f32::MIN_POSITIVE as f64,
                    _ => f64::MIN_POSITIVE,
                };
                let minc = self.const_float(w, lanes, min);
                let inf = self.const_float(w, lanes, f64::INFINITY);
                let ge = self.op2(Op::FOrdGreaterThanEqual, t, ax, minc);
                let lt = self.op2(Op::FOrdLessThan, t, ax, inf);
                self.op2(Op::LogicalAnd, t, ge, lt)
            }
            OpCode::Cos => g(self, GLOp::Cos),
            OpCode::Sin => g(self, GLOp::Sin),
            OpCode::Tan => g(self, GLOp::Tan),
            OpCode::Acos => g(self, GLOp::Acos),
            OpCode::Asin => g(self, GLOp::Asin),
            OpCode::Atan => g(self, GLOp::Atan),
            OpCode::Hcos => g(self, GLOp::Cosh),
            OpCode::Hsin => g(self, GLOp::Sinh),
            OpCode::Htan => g(self, GLOp::Tanh),
            OpCode::Exp => g(self, GLOp::Exp2),
            OpCode::Frc => g(self, GLOp::Fract),
            OpCode::Log => g(self, GLOp::Log2),
            OpCode::Sqrt => g(self, GLOp::Sqrt),
            OpCode::Rsqrt => g(self, GLOp::InverseSqrt),
            OpCode::Round_ne => g(self, GLOp::RoundEven),
            OpCode::Round_ni => g(self, GLOp::Floor),
            OpCode::Round_pi => g(self, GLOp::Ceil),
            OpCode::Round_z => g(self, GLOp::Trunc),
            OpCode::Bfrev => self.bit_reverse(x, s, lanes)?,
            OpCode::Countbits => self.count_bits(x, s, lanes)?,
            OpCode::FirstbitLo => self.first_bit_lo(x, s, lanes)?,
            OpCode::FirstbitHi | OpCode::FirstbitSHi => {
                self.first_bit_hi(op == OpCode::FirstbitSHi, x, s, lanes)?
            }
            OpCode::DerivCoarseX
            | OpCode::DerivCoarseY
            | OpCode::DerivFineX
            | OpCode::DerivFineY
                if self.quad_mode().is_none() =>
            {
                let Scalar::Float(w) = s else {
                    return Err(self.invalid(Invalid::ty("derivative of an integer")));
                };
                self.const_float(w, lanes, 0.0)
            }
            OpCode::DerivCoarseX
            | OpCode::DerivCoarseY
            | OpCode::DerivFineX
            | OpCode::DerivFineY => {
                if matches!(
                    self.entry.stage,
                    crate::dxil::Stage::Mesh | crate::dxil::Stage::Amplification
                ) {
                    return Ok(self.quad_derivative(op, t, x, lanes));
                }
                self.uses_derivatives = true;
                self.b.capability(Capability::DerivativeControl);
                let o = match op {
                    OpCode::DerivCoarseX => Op::DPdxCoarse,
                    OpCode::DerivCoarseY => Op::DPdyCoarse,
                    OpCode::DerivFineX => Op::DPdxFine,
                    _ => Op::DPdyFine,
                };
                if let Scalar::Float(16) = s {
                    // Derivative instructions take 32-bit floats only.
                    let t32 = self.scalar_ty(Scalar::Float(32), lanes);
                    let w = self.op1(Op::FConvert, t32, x);
                    let d = self.op1(o, t32, w);
                    self.op1(Op::FConvert, t, d)
                } else {
                    self.op1(o, t, x)
                }
            }
            _ => return Err(self.unsupported(Unsupported::Operation(op))),
        })
    }

    /// Widens a 16-bit integer to 32 bits (zero- or sign-extending) for the 32-bit-only bit instructions.
    fn widen32(&mut self, x: Id, lanes: u32, signed: bool) -> Id {
        let t = self.scalar_ty(Scalar::Int(32), lanes);
        self.op1(if signed { Op::SConvert } else { Op::UConvert }, t, x)
    }

    /// Splits a 64-bit integer into (lo, hi) 32-bit halves.
    fn halves(&mut self, x: Id, lanes: u32) -> (Id, Id) {
        let t32 = self.scalar_ty(Scalar::Int(32), lanes);
        let t64 = self.scalar_ty(Scalar::Int(64), lanes);
        let lo = self.op1(Op::UConvert, t32, x);
        let sh = self.const_scalar(Scalar::Int(64), lanes, 32);
        let h = self.op2(Op::ShiftRightLogical, t64, x, sh);
        let hi = self.op1(Op::UConvert, t32, h);
        (lo, hi)
    }

    fn bit_reverse(&mut self, x: Id, s: Scalar, lanes: u32) -> Result<Id, Error> {
        let t32 = self.scalar_ty(Scalar::Int(32), lanes);
        Ok(match s {
            Scalar::Int(32) => self.op1(Op::BitReverse, t32, x),
            Scalar::Int(16) => {
                let w = self.widen32(x, lanes, false);
                let r = self.op1(Op::BitReverse, t32, w);
                let sh = self.const_scalar(Scalar::Int(32), lanes, 16);
                let r = self.op2(Op::ShiftRightLogical, t32, r, sh);
                let t16 = self.scalar_ty(Scalar::Int(16), lanes);
                self.op1(Op::UConvert, t16, r)
            }
            Scalar::Int(64) => {
                let (lo, hi) = self.halves(x, lanes);
                let rlo = self.op1(Op::BitReverse, t32, lo);
                let rhi = self.op1(Op::BitReverse, t32, hi);
                self.join64(rhi, rlo, lanes)
            }
            _ => return Err(self.unsupported(Unsupported::value("Bfrev of this type"))),
        })
    }

    /// (lo, hi) → 64-bit integer.
    pub fn join64(&mut self, lo: Id, hi: Id, lanes: u32) -> Id {
        let t64 = self.scalar_ty(Scalar::Int(64), lanes);
        let l = self.op1(Op::UConvert, t64, lo);
        let h = self.op1(Op::UConvert, t64, hi);
        let sh = self.const_scalar(Scalar::Int(64), lanes, 32);
        let hs = self.op2(Op::ShiftLeftLogical, t64, h, sh);
        self.op2(Op::BitwiseOr, t64, l, hs)
    }

    fn count_bits(&mut self, x: Id, s: Scalar, lanes: u32) -> Result<Id, Error> {
        let t32 = self.scalar_ty(Scalar::Int(32), lanes);
        Ok(match s {
            Scalar::Int(32) => self.op1(Op::BitCount, t32, x),
            Scalar::Int(8 | 16) => {
                let w = self.widen32(x, lanes, false);
                self.op1(Op::BitCount, t32, w)
            }
            Scalar::Int(64) => {
                let (lo, hi) = self.halves(x, lanes);
                let a = self.op1(Op::BitCount, t32, lo);
                let b = self.op1(Op::BitCount, t32, hi);
                self.op2(Op::IAdd, t32, a, b)
            }
            _ => return Err(self.unsupported(Unsupported::value("Countbits of this type"))),
        })
    }

    fn first_bit_lo(&mut self, x: Id, s: Scalar, lanes: u32) -> Result<Id, Error> {
        let t32 = self.scalar_ty(Scalar::Int(32), lanes);
        Ok(match s {
            Scalar::Int(32) => self.glsl(t32, GLOp::FindILsb, &[x]),
            Scalar::Int(16) => {
                let w = self.widen32(x, lanes, false);
                self.glsl(t32, GLOp::FindILsb, &[w])
            }
            Scalar::Int(64) => {
                let (lo, hi) = self.halves(x, lanes);
                let l = self.glsl(t32, GLOp::FindILsb, &[lo]);
                let h = self.glsl(t32, GLOp::FindILsb, &[hi]);
                let bt = self.scalar_ty(Scalar::Bool, lanes);
                let none = self.const_scalar(Scalar::Int(32), lanes, u64::MAX);
                let c32 = self.const_scalar(Scalar::Int(32), lanes, 32);
                let h32 = self.op2(Op::IAdd, t32, h, c32);
                let hnone = self.op2(Op::IEqual, bt, h, none);
                let hv = self.select(t32, hnone, none, h32);
                let lnone = self.op2(Op::IEqual, bt, l, none);
                self.select(t32, lnone, hv, l)
            }
            _ => return Err(self.unsupported(Unsupported::value("FirstbitLo of this type"))),
        })
    }

    /// DXIL's FirstbitHi/FirstbitSHi count from the most significant bit: `width − 1 − msb`, -1 when no bit.
    fn first_bit_hi(&mut self, signed: bool, x: Id, s: Scalar, lanes: u32) -> Result<Id, Error> {
        let t32 = self.scalar_ty(Scalar::Int(32), lanes);
        let bt = self.scalar_ty(Scalar::Bool, lanes);
        let none = self.const_scalar(Scalar::Int(32), lanes, u64::MAX);
        let (msb, width) = match s {
            Scalar::Int(32) => (
                self.glsl(
                    t32,
                    if signed {
                        GLOp::FindSMsb
                    } else {
                        GLOp::FindUMsb
                    },
                    &[x],
                ),
                32,
            ),
            Scalar::Int(16) => {
                let w = self.widen32(x, lanes, signed);
                (
                    self.glsl(
                        t32,
                        if signed {
                            GLOp::FindSMsb
                        } else {
                            GLOp::FindUMsb
                        },
                        &[w],
                    ),
                    16,
                )
            }
            Scalar::Int(64) => {
                // Signed: the first bit differing from the sign is the first set bit of x ^ (x >> 63).
                let t64 = self.scalar_ty(Scalar::Int(64), lanes);
                let y = if signed {
                    let sh = self.const_scalar(Scalar::Int(64), lanes, 63);
                    let sgn = self.op2(Op::ShiftRightArithmetic, t64, x, sh);
                    self.op2(Op::BitwiseXor, t64, x, sgn)
                } else {
                    x
                };
                let (lo, hi) = self.halves(y, lanes);
                let l = self.glsl(t32, GLOp::FindUMsb, &[lo]);
                let h = self.glsl(t32, GLOp::FindUMsb, &[hi]);
                let c32 = self.const_scalar(Scalar::Int(32), lanes, 32);
                let h32 = self.op2(Op::IAdd, t32, h, c32);
                let hnone = self.op2(Op::IEqual, bt, h, none);
                (self.select(t32, hnone, l, h32), 64)
            }
            _ => return Err(self.unsupported(Unsupported::value("FirstbitHi of this type"))),
        };
        let wm1 = self.const_scalar(Scalar::Int(32), lanes, width - 1);
        let r = self.op2(Op::ISub, t32, wm1, msb);
        let is_none = self.op2(Op::IEqual, bt, msb, none);
        Ok(self.select(t32, is_none, none, r))
    }

    pub(super) fn binary_op(&mut self, op: OpCode, ty: TypeId, a: Args<'_>) -> Result<Id, Error> {
        let t = self.ty(ty)?;
        let x = self.arg_id(a, 1)?;
        let y = self.arg_id(a, 2)?;
        let o = match op {
            OpCode::FMax => GLOp::NMax,
            OpCode::FMin => GLOp::NMin,
            OpCode::IMax => GLOp::SMax,
            OpCode::IMin => GLOp::SMin,
            OpCode::UMax => GLOp::UMax,
            _ => GLOp::UMin,
        };
        Ok(self.glsl(t, o, &[x, y]))
    }

    /// IMul/UMul ({hi, lo}), UDiv ({quotient, remainder}), UAddc/USubb ({result, carry/borrow}).
    pub(super) fn binary_pair_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Result<Val, Error> {
        let x = self.arg_id(a, 1)?;
        let y = self.arg_id(a, 2)?;
        let u = self.b.u32();
        Ok(match op {
            OpCode::IMul | OpCode::UMul => {
                let st = self.b.struct_type(&[u, u]);
                let r = self.op2(
                    if op == OpCode::IMul {
                        Op::SMulExtended
                    } else {
                        Op::UMulExtended
                    },
                    st,
                    x,
                    y,
                );
                let lo = self.opn(Op::CompositeExtract, u, &words![r, 0]);
                let hi = self.opn(Op::CompositeExtract, u, &words![r, 1]);
                self.make_agg(&[hi, lo])
            }
            OpCode::UDiv => {
                let q = self.udiv(true, u, 32, 1, x, y, self.const_int(self.arg(a, 2)?));
                let r = self.udiv(false, u, 32, 1, x, y, self.const_int(self.arg(a, 2)?));
                self.make_agg(&[q, r])
            }
            OpCode::UAddc | OpCode::USubb => {
                let st = self.b.struct_type(&[u, u]);
                let r = self.op2(
                    if op == OpCode::UAddc {
                        Op::IAddCarry
                    } else {
                        Op::ISubBorrow
                    },
                    st,
                    x,
                    y,
                );
                let v = self.opn(Op::CompositeExtract, u, &words![r, 0]);
                let c = self.opn(Op::CompositeExtract, u, &words![r, 1]);
                let bt = self.b.bool();
                let zero = self.b.const_u32(0);
                let cb = self.op2(Op::INotEqual, bt, c, zero);
                let _ = ty;
                self.make_agg(&[v, cb])
            }
            _ => return Err(self.unsupported(Unsupported::Operation(op))),
        })
    }

    pub(super) fn tertiary_op(&mut self, op: OpCode, ty: TypeId, a: Args<'_>) -> Result<Id, Error> {
        let t = self.ty(ty)?;
        let lanes = self.lanes(ty);
        let x = self.arg_id(a, 1)?;
        let y = self.arg_id(a, 2)?;
        let z = self.arg_id(a, 3)?;
        Ok(match op {
            // FMad may or may not fuse in D3D; keeping it unfused matches the common hardware result.
            OpCode::FMad => {
                let m = self.op2(Op::FMul, t, x, y);
                self.op2(Op::FAdd, t, m, z)
            }
            OpCode::Fma => self.glsl(t, GLOp::Fma, &[x, y, z]),
            OpCode::IMad | OpCode::UMad => {
                let m = self.op2(Op::IMul, t, x, y);
                self.op2(Op::IAdd, t, m, z)
            }
            OpCode::Msad => self.msad(x, y, z),
            OpCode::Ibfe | OpCode::Ubfe => self.bfe(op == OpCode::Ibfe, x, y, z, lanes),
            OpCode::Bfi => {
                let w = self.arg_id(a, 4)?;
                self.bfi(x, y, z, w, lanes)
            }
            _ => return Err(self.unsupported(Unsupported::Operation(op))),
        })
    }

    /// `Ibfe/Ubfe(width, offset, value)` per D3D11.3 §22.10: width and offset masked to 5 bits; width 0 gives 0;
    /// a field running past bit 31 is cut at bit 31 (so the result is `value >> offset`).
    fn bfe(&mut self, signed: bool, width: Id, offset: Id, value: Id, lanes: u32) -> Id {
        let t = self.scalar_ty(Scalar::Int(32), lanes);
        let bt = self.scalar_ty(Scalar::Bool, lanes);
        let m31 = self.const_scalar(Scalar::Int(32), lanes, 31);
        let c32 = self.const_scalar(Scalar::Int(32), lanes, 32);
        let zero = self.const_scalar(Scalar::Int(32), lanes, 0);
        let w = self.op2(Op::BitwiseAnd, t, width, m31);
        let o = self.op2(Op::BitwiseAnd, t, offset, m31);
        let end = self.op2(Op::IAdd, t, w, o);
        let past = self.op2(Op::UGreaterThanEqual, bt, end, c32);
        let room = self.op2(Op::ISub, t, c32, o);
        let w2 = self.select(t, past, room, w);
        let ext = self.op3(
            if signed {
                Op::BitFieldSExtract
            } else {
                Op::BitFieldUExtract
            },
            t,
            value,
            o,
            w2,
        );
        let w0 = self.op2(Op::IEqual, bt, w, zero);
        self.select(t, w0, zero, ext)
    }

    /// `Bfi(width, offset, src, dst)`: D3D masks width and offset to 5 bits and inserts
    /// `(src << offset) & mask` with `mask = ((1 << width) − 1) << offset` (bits past 31 dropped).
    fn bfi(&mut self, width: Id, offset: Id, src: Id, dst: Id, lanes: u32) -> Id {
        let t = self.scalar_ty(Scalar::Int(32), lanes);
        let bt = self.scalar_ty(Scalar::Bool, lanes);
        let m31 = self.const_scalar(Scalar::Int(32), lanes, 31);
        let c32 = self.const_scalar(Scalar::Int(32), lanes, 32);
        let w = self.op2(Op::BitwiseAnd, t, width, m31);
        let o = self.op2(Op::BitwiseAnd, t, offset, m31);
        let end = self.op2(Op::IAdd, t, w, o);
        let past = self.op2(Op::UGreaterThan, bt, end, c32);
        let room = self.op2(Op::ISub, t, c32, o);
        let w2 = self.select(t, past, room, w);
        self.opn(Op::BitFieldInsert, t, &words![dst, src, o, w2])
    }

    /// Masked sum of absolute differences (D3D11.3 `msad4` per byte): bytes of `reference` equal to 0 are
    /// skipped.
    fn msad(&mut self, reference: Id, source: Id, accum: Id) -> Id {
        let u = self.b.u32();
        let bt = self.b.bool();
        let eight = self.b.const_u32(8);
        let zero = self.b.const_u32(0);
        let mut acc = accum;
        for k in 0..4 {
            let off = self.b.const_u32(8 * k);
            let r = self.op3(Op::BitFieldUExtract, u, reference, off, eight);
            let s = self.op3(Op::BitFieldUExtract, u, source, off, eight);
            let d1 = self.op2(Op::ISub, u, r, s);
            let d2 = self.op2(Op::ISub, u, s, r);
            let ge = self.op2(Op::UGreaterThanEqual, bt, r, s);
            let d = self.select(u, ge, d1, d2);
            let skip = self.op2(Op::IEqual, bt, r, zero);
            let d = self.select(u, skip, zero, d);
            acc = self.op2(Op::IAdd, u, acc, d);
        }
        acc
    }

    /// Dot2/3/4 of float scalars.
    pub(super) fn dot_op(&mut self, op: OpCode, a: Args<'_>) -> Result<Id, Error> {
        let n = match op {
            OpCode::Dot2 => 2,
            OpCode::Dot3 => 3,
            _ => 4,
        };
        let et = self.arg_ty(a, 1)?;
        let t = self.ty(et)?;
        let vt = self.b.vec(t, n as u32);
        // The first `n` slots are written below (operands read in their order, x and y alternating).
        let mut xs = [t; 4];
        let mut ys = [t; 4];
        for k in 0..n {
            xs[k] = self.arg_id(a, 1 + k)?;
            ys[k] = self.arg_id(a, 1 + n + k)?;
        }
        let x = self.op_ids(Op::CompositeConstruct, vt, &xs[..n]);
        let y = self.op_ids(Op::CompositeConstruct, vt, &ys[..n]);
        Ok(self.op2(Op::Dot, t, x, y))
    }

    /// Dot2AddHalf(acc, ax, ay, bx, by): f32 accumulate of a half2 dot product. Dot4AddI8Packed /
    /// Dot4AddU8Packed(acc, a, b): acc + the dot product of four packed signed/unsigned bytes.
    pub(super) fn dot_add_op(&mut self, op: OpCode, a: Args<'_>) -> Result<Id, Error> {
        let acc = self.arg_id(a, 1)?;
        if op == OpCode::Dot2AddHalf {
            // acc + (float(ax * bx) + float(ay * by)): the products are half precision (a product past the half
            // range is infinity), their sum and the accumulation are single precision, and the dot product is
            // complete before it is added to the accumulator (AMD's v_dot2_f32_f16, as vkd3d-proton's
            // test_shader_sm64_packed pins down).
            let f = self.b.f32();
            let h = self.scalar_ty(Scalar::Float(16), 1);
            let p = try_ids::<2, Error>(|k| {
                let x = self.arg_id(a, 2 + k)?;
                let y = self.arg_id(a, 4 + k)?;
                let m = self.op2(Op::FMul, h, x, y);
                self.b.decorate(m, spirv::Decoration::NoContraction, &[]);
                Ok(self.op1(Op::FConvert, f, m))
            })?;
            let d = self.op2(Op::FAdd, f, p[0], p[1]);
            self.b.decorate(d, spirv::Decoration::NoContraction, &[]);
            let r = self.op2(Op::FAdd, f, acc, d);
            self.b.decorate(r, spirv::Decoration::NoContraction, &[]);
            return Ok(r);
        }
        let x = self.arg_id(a, 2)?;
        let y = self.arg_id(a, 3)?;
        let u = self.b.u32();
        let eight = self.b.const_u32(8);
        let ext = if op == OpCode::Dot4AddI8Packed {
            Op::BitFieldSExtract
        } else {
            Op::BitFieldUExtract
        };
        let mut sum = acc;
        for k in 0..4 {
            let off = self.b.const_u32(8 * k);
            let xb = self.op3(ext, u, x, off, eight);
            let yb = self.op3(ext, u, y, off, eight);
            let p = self.op2(Op::IMul, u, xb, yb);
            sum = self.op2(Op::IAdd, u, sum, p);
        }
        Ok(sum)
    }
}
