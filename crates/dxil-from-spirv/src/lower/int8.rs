//! 8-bit integers (SPV_KHR_8bit_storage's `Int8` values) in registers. DXIL has no 8-bit
//! type, so an 8-bit value lives in an `i32` holding its byte zero-extended (the upper 24 bits
//! are always 0): unsigned operations, equality and bitwise operations work on that form as
//! they are, results that can carry past the byte (sums, products, left shifts, negation) are
//! masked back, and operations that read the sign (signed division, remainder, comparison,
//! arithmetic right shift, sign extension) first sign-extend the byte. Anything else that
//! meets an 8-bit value is refused by name, so a value never silently keeps bits past its
//! byte. In memory, 8-bit members of buffers and stage variables are refused where their
//! layout is computed (a byte store needs atomics on its word).

use dxil_module::{BinOp, Predicate, Value};
use spirv::Op;

use super::Tr;
use crate::error::{Result, unsupported};
use crate::spv::{Inst, Type};

impl Tr<'_> {
    /// Whether `ty` is an 8-bit integer or a vector of them.
    pub(super) fn is_int8(&self, ty: u32) -> bool {
        match self.spv.ty(ty) {
            Ok(Type::Int { width: 8, .. }) => true,
            Ok(Type::Vector { elem, .. }) => self.is_int8(elem),
            _ => false,
        }
    }

    /// Whether value `id` is 8-bit.
    pub(super) fn is_int8_value(&self, id: u32) -> bool {
        self.spv.type_of(id).is_ok_and(|t| self.is_int8(t))
    }

    /// The byte of `v` sign-extended to all 32 bits.
    pub(super) fn sext8(&mut self, v: Value) -> Result<Value> {
        let k = self.b.i32c(24);
        let up = self.b.binary(BinOp::Shl, v, k)?;
        self.b.binary(BinOp::AShr, up, k)
    }

    /// `v` cut back to its low byte.
    pub(super) fn wrap8(&mut self, v: Value) -> Result<Value> {
        let m = self.b.i32c(0xff);
        self.b.binary(BinOp::And, v, m)
    }

    /// Integer arithmetic with an 8-bit result, and signed comparisons of 8-bit values;
    /// `false` for any other instruction.
    pub(super) fn int8_value_op(&mut self, inst: &Inst<'_>, op: Op) -> Result<bool> {
        let signed_compare = match op {
            Op::SLessThan => Some(Predicate::ICMP_SLT),
            Op::SLessThanEqual => Some(Predicate::ICMP_SLE),
            Op::SGreaterThan => Some(Predicate::ICMP_SGT),
            Op::SGreaterThanEqual => Some(Predicate::ICMP_SGE),
            _ => None,
        };
        if let Some(pred) = signed_compare {
            if !self.is_int8_value(inst.word(2)?) {
                return Ok(false);
            }
            self.map2(inst, |tr, a, b| {
                let a = tr.sext8(a)?;
                let b = tr.sext8(b)?;
                tr.b.cmp(pred, a, b)
            })?;
            return Ok(true);
        }
        if !self.is_int8(inst.word(0)?) {
            return Ok(false);
        }
        // (operation, whether it reads the sign of its first operand, of its second).
        let (bin, sign_a, sign_b) = match op {
            Op::Not | Op::SNegate => {
                self.map1(inst, |tr, v| {
                    let r = if op == Op::Not {
                        let m = tr.b.i32c(-1);
                        tr.b.binary(BinOp::Xor, v, m)?
                    } else {
                        let z = tr.b.i32c(0);
                        tr.b.binary(BinOp::Sub, z, v)?
                    };
                    tr.wrap8(r)
                })?;
                return Ok(true);
            }
            Op::SMod => {
                self.map2(inst, |tr, a, b| {
                    // The remainder takes the divisor's sign.
                    let a = tr.sext8(a)?;
                    let b = tr.sext8(b)?;
                    let r = tr.b.binary(BinOp::SRem, a, b)?;
                    let z = tr.b.i32c(0);
                    let nz = tr.b.cmp(Predicate::ICMP_NE, r, z)?;
                    let x = tr.b.binary(BinOp::Xor, r, b)?;
                    let neg = tr.b.cmp(Predicate::ICMP_SLT, x, z)?;
                    let fix = tr.b.binary(BinOp::And, nz, neg)?;
                    let rb = tr.b.binary(BinOp::Add, r, b)?;
                    let r = tr.b.select(fix, rb, r)?;
                    tr.wrap8(r)
                })?;
                return Ok(true);
            }
            Op::IAdd => (BinOp::Add, false, false),
            Op::ISub => (BinOp::Sub, false, false),
            Op::IMul => (BinOp::Mul, false, false),
            Op::UDiv => (BinOp::UDiv, false, false),
            Op::UMod => (BinOp::URem, false, false),
            Op::SDiv => (BinOp::SDiv, true, true),
            Op::SRem => (BinOp::SRem, true, true),
            Op::BitwiseOr => (BinOp::Or, false, false),
            Op::BitwiseXor => (BinOp::Xor, false, false),
            Op::BitwiseAnd => (BinOp::And, false, false),
            Op::ShiftLeftLogical => (BinOp::Shl, false, false),
            Op::ShiftRightLogical => (BinOp::LShr, false, false),
            Op::ShiftRightArithmetic => (BinOp::AShr, true, false),
            _ => return Ok(false),
        };
        self.map2(inst, |tr, a, b| {
            // A shift's count may have another width.
            let b = tr.match_int_width(b, a)?;
            let a = if sign_a { tr.sext8(a)? } else { a };
            let b = if sign_b { tr.sext8(b)? } else { b };
            let r = tr.b.binary(bin, a, b)?;
            tr.wrap8(r)
        })?;
        Ok(true)
    }

    /// Refuses a value instruction that meets an 8-bit value (as its result or an operand)
    /// unless it keeps the zero-extended form (see the module docs).
    pub(super) fn check_int8(&self, inst: &Inst<'_>, op: Op) -> Result<()> {
        if keeps_int8(op) {
            return Ok(());
        }
        let result8 = inst.word(0).is_ok_and(|t| self.is_int8(t));
        // Operands after the result type and id; literals that happen to name an 8-bit value
        // only make this refuse more.
        let operand8 = inst.rest(2).iter().any(|&id| self.is_int8_value(id));
        if result8 || operand8 {
            return Err(unsupported(format!(
                "8-bit integers in Op{op:?} (DXIL has no 8-bit type; they are emulated in \
                 32-bit registers for conversions, bitcasts and integer arithmetic only)"
            )));
        }
        Ok(())
    }
}

/// The instructions that handle 8-bit values in their zero-extended form.
fn keeps_int8(op: Op) -> bool {
    matches!(
        op,
        Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::UDiv
            | Op::SDiv
            | Op::UMod
            | Op::SRem
            | Op::SMod
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::BitwiseAnd
            | Op::Not
            | Op::SNegate
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::ULessThanEqual
            | Op::UGreaterThan
            | Op::UGreaterThanEqual
            | Op::SLessThan
            | Op::SLessThanEqual
            | Op::SGreaterThan
            | Op::SGreaterThanEqual
            | Op::UConvert
            | Op::SConvert
            | Op::ConvertUToF
            | Op::ConvertSToF
            | Op::ConvertFToU
            | Op::ConvertFToS
            | Op::Bitcast
            | Op::Undef
            | Op::CopyObject
            | Op::CopyLogical
            | Op::CompositeConstruct
            | Op::CompositeExtract
            | Op::CompositeInsert
            | Op::VectorShuffle
            | Op::VectorExtractDynamic
            | Op::VectorInsertDynamic
            | Op::Select
    )
}
