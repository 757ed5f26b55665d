//! 8-bit integers (SPV_KHR_8bit_storage's `Int8` values) in registers. DXIL has no 8-bit
//! type, so an 8-bit value lives in an `i32` holding its byte zero-extended (the upper 24 bits
//! are always 0): unsigned operations, equality and bitwise operations work on that form as
//! they are, results that can carry past the byte (sums, products, left shifts, negation) are
//! masked back, and operations that read the sign (signed division, remainder, comparison,
//! arithmetic right shift, sign extension) first sign-extend the byte. Anything else that
//! meets an 8-bit value is refused by name, so a value never silently keeps bits past its
//! byte.
//!
//! In buffers and push constants a byte is read from the 32-bit word holding it (DXIL's raw
//! buffer and constant buffer loads have no 8-bit form) and written with two atomics on that
//! word (see [`Tr::raw_store_8`]). 8-bit stage variables and atomics stay refused.

use dxil_module::{BinOp, Predicate, Value};
use dxil_shader::ops::OpCode;
use spirv::Op;

use super::Tr;
use super::atomic::AtomicOp;
use super::buffer::Leaf;
use super::memory::Ptr;
use crate::builder::Scalar;
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

/// Where a byte sits in its 32-bit word: a bit offset known when translating, or computed.
#[derive(Clone, Copy)]
pub(super) enum ByteShift {
    Fixed(u32),
    Dynamic(Value),
}

/// Bytes in buffers and push constants.
impl Tr<'_> {
    /// The leaf of a buffer scalar of type `ty` at byte `off`.
    pub(super) fn buffer_scalar(&self, ty: u32, off: u64) -> Result<Leaf> {
        if let Ok(Type::Int { width: 8, .. }) = self.spv.ty(ty) {
            return Ok(Leaf {
                k: Scalar::I32,
                off,
                byte: true,
            });
        }
        Ok(Leaf {
            k: self.scalar_kind(ty)?,
            off,
            byte: false,
        })
    }

    /// Whether the byte within its word of every leaf of `p` is known when translating:
    /// the dynamic part of the offset, if any, is a multiple of 4.
    fn byte_fixed(p: &Ptr) -> bool {
        p.dyn_off.is_none() || p.dyn_align >= 4
    }

    /// `(at & 3) * 8`: the bit offset of the byte at byte offset `at` in its word.
    pub(super) fn byte_shift(&mut self, at: Value) -> Result<Value> {
        let three = self.b.i32c(3);
        let lo = self.b.binary(BinOp::And, at, three)?;
        self.b.binary(BinOp::Shl, lo, three)
    }

    /// The byte of `word` at `sh`, zero-extended (the register form of 8-bit values).
    pub(super) fn extract_byte(&mut self, word: Value, sh: ByteShift) -> Result<Value> {
        let v = match sh {
            ByteShift::Fixed(0) => word,
            ByteShift::Fixed(s) => {
                let k = self.b.i32c(i64::from(s));
                let v = self.b.binary(BinOp::LShr, word, k)?;
                if s == 24 {
                    return Ok(v);
                }
                v
            }
            ByteShift::Dynamic(s) => self.b.binary(BinOp::LShr, word, s)?,
        };
        self.wrap8(v)
    }

    /// The 32-bit word at byte offset `at` (a multiple of 4) of a raw buffer.
    fn raw_word(&mut self, handle: Value, at: Value) -> Result<Value> {
        let ret = self.b.res_ret(Scalar::I32);
        let i32t = self.b.t.i32;
        let undef = self.b.undef_scalar(Scalar::I32);
        let r = self
            .b
            .dxop(OpCode::BufferLoad, Some(i32t), ret, &[handle, at, undef])?;
        self.b.extract_value(r, 0, i32t)
    }

    /// `at` rounded down to its word.
    fn word_of(&mut self, at: Value) -> Result<Value> {
        let m = self.b.i32c(-4);
        self.b.binary(BinOp::And, at, m)
    }

    /// Loads the byte at `off` of raw buffer pointer `p`. `word` keeps the last word loaded
    /// at a fixed offset, so the bytes of a vector or struct sharing a word load it once.
    pub(super) fn raw_load_8(
        &mut self,
        p: &Ptr,
        handle: Value,
        off: u64,
        word: &mut Option<(u64, Value)>,
    ) -> Result<Value> {
        if !Self::byte_fixed(p) {
            let at = self.byte_offset(p, off)?;
            let wat = self.word_of(at)?;
            let w = self.raw_word(handle, wat)?;
            let sh = self.byte_shift(at)?;
            return self.extract_byte(w, ByteShift::Dynamic(sh));
        }
        let word_off = off & !3;
        let w = match *word {
            Some((o, w)) if o == word_off => w,
            _ => {
                let at = self.byte_offset(p, word_off)?;
                let w = self.raw_word(handle, at)?;
                *word = Some((word_off, w));
                w
            }
        };
        self.extract_byte(w, ByteShift::Fixed((off % 4) as u32 * 8))
    }

    /// Stores the byte `vals[0]` (leaf `leaves[0]`) to raw buffer pointer `p`; returns how
    /// many leaves were stored (4 when they fill one aligned word).
    ///
    /// Other invocations may write the other bytes of the same word at the same time, and
    /// SPIR-V makes those writes independent, so the word is not read, changed and written
    /// back: an atomic `and` clears the byte, then an atomic `or` sets its bits. Each touches
    /// only this byte's bits, so concurrent writers to the neighbouring bytes are never lost.
    pub(super) fn raw_store_8(
        &mut self,
        p: &Ptr,
        handle: Value,
        leaves: &[Leaf],
        vals: &[Value],
    ) -> Result<usize> {
        let (off, v) = match (leaves.first(), vals.first()) {
            (Some(l), Some(&v)) => (l.off, v),
            _ => return Err(crate::error::internal("byte store without a value")),
        };
        let fixed = Self::byte_fixed(p);
        let whole_word = fixed
            && off % 4 == 0
            && leaves.len() >= 4
            && vals.len() >= 4
            && (1..4).all(|i| leaves[i].byte && leaves[i].off == off + i as u64);
        if whole_word {
            // The word holds nothing else: a plain store.
            let mut w = v;
            for (i, &b) in vals[1..4].iter().enumerate() {
                let k = self.b.i32c(8 * (i as i64 + 1));
                let s = self.b.binary(BinOp::Shl, b, k)?;
                w = self.b.binary(BinOp::Or, w, s)?;
            }
            let at = self.byte_offset(p, off)?;
            let undef = self.b.undef_scalar(Scalar::I32);
            let mask = self.b.i8c(1);
            let (void, i32t) = (self.b.t.void, self.b.t.i32);
            self.b.dxop(
                OpCode::BufferStore,
                Some(i32t),
                void,
                &[handle, at, undef, w, undef, undef, undef, mask],
            )?;
            return Ok(4);
        }
        let (wat, clear, set) = if fixed {
            let s = (off % 4) as u32 * 8;
            let wat = self.byte_offset(p, off & !3)?;
            let clear = self.b.i32c(i64::from(!(0xffu32 << s) as i32));
            let set = if s == 0 {
                v
            } else {
                let k = self.b.i32c(i64::from(s));
                self.b.binary(BinOp::Shl, v, k)?
            };
            (wat, clear, set)
        } else {
            let at = self.byte_offset(p, off)?;
            let wat = self.word_of(at)?;
            let s = self.byte_shift(at)?;
            let ff = self.b.i32c(0xff);
            let m = self.b.binary(BinOp::Shl, ff, s)?;
            let ones = self.b.i32c(-1);
            let clear = self.b.binary(BinOp::Xor, m, ones)?;
            let set = self.b.binary(BinOp::Shl, v, s)?;
            (wat, clear, set)
        };
        let i32t = self.b.t.i32;
        let undef = self.b.undef_scalar(Scalar::I32);
        for (op, operand) in [(AtomicOp::And, clear), (AtomicOp::Or, set)] {
            let code = self.b.i32c(op as i64);
            self.b.dxop(
                OpCode::AtomicBinOp,
                Some(i32t),
                i32t,
                &[handle, code, wat, undef, undef, operand],
            )?;
        }
        Ok(1)
    }
}

/// The instructions that handle 8-bit values in their zero-extended form.
fn keeps_int8(op: Op) -> bool {
    group_keeps_int8(op)
        || matches!(
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

/// Subgroup operations on 8-bit values: those that move or compare values keep the
/// zero-extended form as they are; reductions and scans are cut back to the byte, signed
/// minima and maxima computed as unsigned ones of the bytes with their sign bit flipped
/// (`Tr::group_arith`).
fn group_keeps_int8(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformBroadcastFirst
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown
            | Op::GroupNonUniformQuadBroadcast
            | Op::GroupNonUniformQuadSwap
            | Op::GroupNonUniformAllEqual
            | Op::GroupNonUniformPartitionNV
            | Op::GroupNonUniformIAdd
            | Op::GroupNonUniformIMul
            | Op::GroupNonUniformSMin
            | Op::GroupNonUniformSMax
            | Op::GroupNonUniformUMin
            | Op::GroupNonUniformUMax
            | Op::GroupNonUniformBitwiseAnd
            | Op::GroupNonUniformBitwiseOr
            | Op::GroupNonUniformBitwiseXor
            | Op::SubgroupReadInvocationKHR
            | Op::SubgroupFirstInvocationKHR
            | Op::SubgroupAllEqualKHR
    )
}
