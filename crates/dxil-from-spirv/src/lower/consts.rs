//! Constants and specialization constants.
//!
//! Plain constants become DXIL constants on first use. Specialization constants either fold
//! to their value (the default, or one given in the options), or, in patchable mode, each
//! becomes its own `i32` constant that the bitcode writer encodes with a fixed width so that
//! its bits can be rewritten in place; uses that need another type go through one conversion
//! in the first block (`icmp ne` for booleans, `bitcast` for floats, `trunc` for 16-bit
//! types), and `OpSpecConstantOp` is emitted there as ordinary instructions, so nothing is
//! folded across a patchable value. Constants that size arrays or the workgroup (or feed such
//! a size through `OpSpecConstantOp`) cannot change after translation: they fold, and the
//! table says so.

use rustc_hash::FxHashMap as HashMap;

use dxil_module::{CastOp, ConstId, Predicate, Value};
use spirv::{BuiltIn, Op};

use super::{Slot, Tr, patchable};
use crate::builder::Scalar;
use crate::error::{Result, limit, malformed, unsupported};
use crate::spv::{Inst, Type};

/// Deepest `OpSpecConstantOp` chain folded.
const MAX_FOLD_DEPTH: u32 = 64;

/// The type of a specialization constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecType {
    Bool,
    Int { bits: u8, signed: bool },
    Float { bits: u8 },
}

/// One specialization constant of the module, as the translation left it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SpecRecord {
    /// The `SpecId` decoration.
    pub spec_id: u32,
    /// The SPIR-V result id.
    pub result_id: u32,
    pub ty: SpecType,
    /// The value translated with (the default unless the options gave one), as bits.
    pub value: u64,
    /// Why the constant was folded into the code instead of staying patchable (`None` when
    /// patchable).
    pub folded: Option<String>,
    /// The constant patched in the bitcode (patchable constants only).
    #[serde(skip)]
    pub constant: Option<ConstId>,
}

#[derive(Default)]
pub struct SpecState {
    /// Spec constant id → why it must fold.
    structural: HashMap<u32, &'static str>,
    pub records: Vec<SpecRecord>,
}

impl SpecState {
    /// Finds the constants that must fold (array lengths, workgroup size).
    pub fn prepare(&mut self, tr: &Tr<'_>) -> Result<()> {
        let m = tr.spv;
        let mut roots: Vec<(u32, &'static str)> = Vec::new();
        for (id, t) in m.types.iter().enumerate() {
            if let Type::Array { len, .. } = t {
                let _ = id;
                roots.push((*len, "it sizes an array type"));
            }
        }
        for em in &m.exec_modes {
            if em.by_id && em.function == tr.entry.function {
                for &op in &em.operands {
                    roots.push((op, "it sizes the workgroup (LocalSizeId)"));
                }
            }
        }
        for (id, d) in m.defs.iter().enumerate() {
            if d.offset != 0
                && matches!(
                    d.op(),
                    Some(Op::SpecConstantComposite | Op::ConstantComposite)
                )
                && m.decor.get(id as u32).builtin == Some(BuiltIn::WorkgroupSize)
            {
                roots.push((id as u32, "it sizes the workgroup (WorkgroupSize)"));
            }
        }
        let mut stack: Vec<(u32, &'static str, u32)> =
            roots.into_iter().map(|(id, why)| (id, why, 0)).collect();
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some((id, why, depth)) = stack.pop() {
            if depth > MAX_FOLD_DEPTH || !seen.insert(id) {
                continue;
            }
            let Ok(def) = m.def(id) else { continue };
            match def.op() {
                Some(Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse) => {
                    self.structural.entry(id).or_insert(why);
                }
                Some(Op::SpecConstantComposite | Op::ConstantComposite) => {
                    let inst = m.inst_at(def.offset)?;
                    for &c in inst.rest(2) {
                        stack.push((c, why, depth + 1));
                    }
                }
                Some(Op::SpecConstantOp) => {
                    let inst = m.inst_at(def.offset)?;
                    for &c in inst.rest(3) {
                        stack.push((c, why, depth + 1));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Emits the patchable constants' conversions and every `OpSpecConstantOp` into the
    /// first block, in definition order.
    pub fn emit(tr: &mut Tr<'_>) -> Result<()> {
        let m = tr.spv;
        let mut ids: Vec<(u32, u32)> = m
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                d.offset != 0
                    && matches!(
                        d.op(),
                        Some(
                            Op::SpecConstant
                                | Op::SpecConstantTrue
                                | Op::SpecConstantFalse
                                | Op::SpecConstantOp
                        )
                    )
            })
            .map(|(id, d)| (d.offset, id as u32))
            .collect();
        ids.sort_unstable();
        for (offset, id) in ids {
            let inst = m.inst_at(offset)?;
            let at = inst.location();
            match inst.op() {
                Some(Op::SpecConstantOp) => tr.spec_op(&inst).map_err(|e| e.or_at(at))?,
                _ => tr.spec_scalar(&inst, id).map_err(|e| e.or_at(at))?,
            }
        }
        Ok(())
    }
}

impl Tr<'_> {
    /// The value a specialization constant is translated with: the options' value for its
    /// `SpecId`, else its default.
    fn spec_value(&self, inst: &Inst<'_>, id: u32) -> Result<u64> {
        if let Some(sid) = self.spv.decor.get(id).spec_id
            && let Some(&(_, v)) = self.opts.spec_values.iter().find(|(s, _)| *s == sid)
        {
            return Ok(v);
        }
        Ok(match inst.op() {
            Some(Op::SpecConstantTrue) => 1,
            Some(Op::SpecConstantFalse) => 0,
            _ => {
                let lo = u64::from(inst.word(2)?);
                let hi = inst.rest(3).first().map_or(0, |&h| u64::from(h));
                lo | (hi << 32)
            }
        })
    }

    fn spec_scalar(&mut self, inst: &Inst<'_>, id: u32) -> Result<()> {
        let ty = inst.word(0)?;
        let s = self.value_kind(ty)?;
        let int8 = self.is_int8(ty);
        let value = self.spec_value(inst, id)?;
        let value = if int8 { value & 0xff } else { value };
        let spec_ty = match self.spv.ty(ty)? {
            Type::Bool => SpecType::Bool,
            Type::Int { width, signed } => SpecType::Int {
                bits: width,
                signed,
            },
            Type::Float { width } => SpecType::Float { bits: width },
            _ => return Err(malformed("specialization constant of a non-scalar type")),
        };
        let spec_id = self.spv.decor.get(id).spec_id;
        let structural = self.spec.structural.get(&id).copied();
        let folded = if !patchable(self.opts) {
            Some(
                "specialization constants are folded (pass --spec-constants patchable to keep them)",
            )
        } else if spec_id.is_none() {
            Some("it has no SpecId")
        } else if let Some(why) = structural {
            Some(why)
        } else if s.bits() == 64 {
            Some("64-bit constants cannot be patched as one 32-bit value")
        } else if int8 {
            Some(
                "8-bit constants are kept as their byte in a 32-bit register, which a patch would not cut",
            )
        } else {
            None
        };
        let mut record = SpecRecord {
            spec_id: spec_id.unwrap_or(u32::MAX),
            result_id: id,
            ty: spec_ty,
            value,
            folded: folded.map(str::to_string),
            constant: None,
        };
        // A hull shader's second function uses the constant its first one made.
        let earlier = self
            .spec
            .records
            .iter()
            .find(|r| r.result_id == id)
            .and_then(|r| r.constant);
        let v = if folded.is_some() {
            self.b.const_bits(s, value)
        } else {
            let c = match earlier {
                Some(c) => c,
                None => self.b.unique_i32(value as u32 as i32),
            };
            record.constant = Some(c);
            let raw = Value::constant(c);
            match s {
                Scalar::I1 => {
                    let zero = self.b.i32c(0);
                    self.b.cmp(Predicate::ICMP_NE, raw, zero)?
                }
                Scalar::I32 => raw,
                Scalar::F32 => {
                    let f = self.b.t.f32;
                    self.b.cast(CastOp::BitCast, raw, f)?
                }
                Scalar::I16 | Scalar::F16 => {
                    self.features.native16 = true;
                    let i16 = self.b.t.i16;
                    let t = self.b.cast(CastOp::Trunc, raw, i16)?;
                    if s == Scalar::F16 {
                        let f16 = self.b.t.f16;
                        self.b.cast(CastOp::BitCast, t, f16)?
                    } else {
                        t
                    }
                }
                _ => return Err(crate::error::internal("64-bit patchable constant")),
            }
        };
        if spec_id.is_some() && !self.spec.records.iter().any(|r| r.result_id == id) {
            self.spec.records.push(record);
        }
        self.set_scalar(id, v)
    }

    /// `OpSpecConstantOp` as the instruction it names.
    fn spec_op(&mut self, inst: &Inst<'_>) -> Result<()> {
        let opcode = inst.word(2)?;
        let op = Op::from_u32(opcode)
            .ok_or_else(|| malformed(format!("OpSpecConstantOp with unknown opcode {opcode}")))?;
        // Rebuild it as `<op> %type %id operands...`.
        let mut words = Vec::with_capacity(inst.words.len() - 1);
        words.push(((inst.words.len() as u32 - 1) << 16) | opcode);
        words.push(inst.word(0)?);
        words.push(inst.word(1)?);
        words.extend_from_slice(inst.rest(3));
        let synthetic = Inst {
            opcode: opcode as u16,
            offset: inst.offset,
            words: &words,
        };
        match op {
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain => {
                Err(unsupported("OpSpecConstantOp computing a pointer"))
            }
            _ => self.value_op(&synthetic, op),
        }
    }

    /// Gives a constant id its DXIL value.
    pub(super) fn materialize_constant(&mut self, id: u32) -> Result<()> {
        let def = self.spv.def(id)?;
        let inst = self.spv.inst_at(def.offset)?;
        let ty = def.ty;
        let op = inst.op();
        match op {
            Some(Op::Constant) => {
                let s = self.value_kind(ty)?;
                let lo = u64::from(inst.word(2)?);
                let hi = inst.rest(3).first().map_or(0, |&h| u64::from(h));
                // A signed 8-bit literal comes sign-extended; registers hold the byte alone.
                let bits = if self.is_int8(ty) {
                    lo & 0xff
                } else {
                    lo | (hi << 32)
                };
                let v = self.b.const_bits(s, bits);
                self.set_scalar(id, v)
            }
            Some(Op::ConstantTrue | Op::ConstantFalse) => {
                let v = self.b.i1c(op == Some(Op::ConstantTrue));
                self.set_scalar(id, v)
            }
            Some(Op::ConstantNull) => {
                let kinds = self.leaf_kinds(ty)?;
                let vals: Vec<Value> = kinds.into_iter().map(|k| self.b.zero(k)).collect();
                self.set_vals(id, &vals)
            }
            Some(Op::Undef) => {
                if let Type::Pointer { .. }
                | Type::Image(_)
                | Type::Sampler
                | Type::SampledImage { .. } = self.spv.ty(ty)?
                {
                    return Err(unsupported("undefined pointers or handles"));
                }
                // DXIL's validator refuses arithmetic on `undef`; zero is one of the values an
                // undefined value may take.
                let kinds = self.leaf_kinds(ty)?;
                let vals: Vec<Value> = kinds.into_iter().map(|k| self.b.zero(k)).collect();
                self.set_vals(id, &vals)
            }
            Some(Op::ConstantComposite | Op::SpecConstantComposite) => {
                let mut vals = Vec::new();
                for &c in inst.rest(2) {
                    let (s, n) = self.get(c)?;
                    vals.extend_from_slice(&self.pool[s as usize..(s + n) as usize]);
                }
                if vals.len() as u32 != self.leaves(ty)?.1 {
                    return Err(malformed(format!(
                        "constant composite %{id} has the wrong size"
                    )));
                }
                self.set_vals(id, &vals)
            }
            Some(Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse) => {
                // Reached only when used before the first block (e.g. by another constant).
                let s = self.value_kind(ty)?;
                let v = self.spec_value(&inst, id)?;
                let v = if self.is_int8(ty) { v & 0xff } else { v };
                let c = self.b.const_bits(s, v);
                self.set_scalar(id, c)
            }
            Some(Op::SpecConstantOp) => {
                let s = self.value_kind(ty)?;
                let v = self.const_u64(id)?;
                let c = self.b.const_bits(s, v);
                self.set_scalar(id, c)
            }
            _ => Err(malformed(format!("%{id} is not a constant"))),
        }
    }

    /// The integer value of a constant (specialization constants fold to their value).
    pub fn const_u64(&self, id: u32) -> Result<u64> {
        self.fold(id, 0)
    }

    fn fold(&self, id: u32, depth: u32) -> Result<u64> {
        if depth > MAX_FOLD_DEPTH {
            return Err(limit(
                "specialization constant expression nested too deeply",
            ));
        }
        let def = self.spv.def(id)?;
        let inst = self.spv.inst_at(def.offset)?;
        let width = match self.spv.ty(def.ty) {
            Ok(Type::Int { width, .. }) => u32::from(width),
            Ok(Type::Bool) => 1,
            _ => 64,
        };
        let mask = |v: u64| {
            if width >= 64 {
                v
            } else {
                v & ((1u64 << width) - 1)
            }
        };
        let sext = |v: u64| -> i64 {
            if width >= 64 {
                v as i64
            } else {
                let sh = 64 - width;
                ((v << sh) as i64) >> sh
            }
        };
        Ok(match inst.op() {
            Some(Op::Constant) => {
                let lo = u64::from(inst.word(2)?);
                let hi = inst.rest(3).first().map_or(0, |&h| u64::from(h));
                mask(lo | (hi << 32))
            }
            Some(Op::ConstantTrue) => 1,
            Some(Op::ConstantFalse | Op::ConstantNull) => 0,
            Some(Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse) => {
                mask(self.spec_value(&inst, id)?)
            }
            Some(Op::SpecConstantOp) => {
                let opcode = Op::from_u32(inst.word(2)?);
                let a = |i: usize| -> Result<u64> { self.fold(inst.word(3 + i)?, depth + 1) };
                let sa = |i: usize| -> Result<i64> {
                    let id = inst.word(3 + i)?;
                    let v = self.fold(id, depth + 1)?;
                    let w = match self.spv.ty(self.spv.type_of(id)?) {
                        Ok(Type::Int { width, .. }) => u32::from(width),
                        _ => 64,
                    };
                    Ok(if w >= 64 {
                        v as i64
                    } else {
                        ((v << (64 - w)) as i64) >> (64 - w)
                    })
                };
                let b = |x: bool| u64::from(x);
                let r = match opcode {
                    Some(Op::IAdd) => a(0)?.wrapping_add(a(1)?),
                    Some(Op::ISub) => a(0)?.wrapping_sub(a(1)?),
                    Some(Op::IMul) => a(0)?.wrapping_mul(a(1)?),
                    Some(Op::UDiv) => a(0)?.checked_div(a(1)?).unwrap_or(0),
                    Some(Op::SDiv) => sa(0)?.checked_div(sa(1)?).unwrap_or(0) as u64,
                    Some(Op::UMod) => a(0)?.checked_rem(a(1)?).unwrap_or(0),
                    Some(Op::SRem) => sa(0)?.checked_rem(sa(1)?).unwrap_or(0) as u64,
                    Some(Op::SMod) => {
                        let (x, y) = (sa(0)?, sa(1)?);
                        if y == 0 {
                            0
                        } else {
                            x.rem_euclid(y)
                                .wrapping_add(if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 })
                                as u64
                        }
                    }
                    Some(Op::ShiftLeftLogical) => a(0)?.wrapping_shl(a(1)? as u32),
                    Some(Op::ShiftRightLogical) => a(0)?.wrapping_shr(a(1)? as u32),
                    Some(Op::ShiftRightArithmetic) => sa(0)?.wrapping_shr(a(1)? as u32) as u64,
                    Some(Op::BitwiseOr | Op::LogicalOr) => a(0)? | a(1)?,
                    Some(Op::BitwiseAnd | Op::LogicalAnd) => a(0)? & a(1)?,
                    Some(Op::BitwiseXor | Op::LogicalNotEqual | Op::INotEqual)
                        if opcode == Some(Op::BitwiseXor) =>
                    {
                        a(0)? ^ a(1)?
                    }
                    Some(Op::LogicalNotEqual | Op::INotEqual) => b(a(0)? != a(1)?),
                    Some(Op::LogicalEqual | Op::IEqual) => b(a(0)? == a(1)?),
                    Some(Op::Not) => !a(0)?,
                    Some(Op::LogicalNot) => b(a(0)? == 0),
                    Some(Op::SNegate) => (sa(0)?.wrapping_neg()) as u64,
                    Some(Op::ULessThan) => b(a(0)? < a(1)?),
                    Some(Op::ULessThanEqual) => b(a(0)? <= a(1)?),
                    Some(Op::UGreaterThan) => b(a(0)? > a(1)?),
                    Some(Op::UGreaterThanEqual) => b(a(0)? >= a(1)?),
                    Some(Op::SLessThan) => b(sa(0)? < sa(1)?),
                    Some(Op::SLessThanEqual) => b(sa(0)? <= sa(1)?),
                    Some(Op::SGreaterThan) => b(sa(0)? > sa(1)?),
                    Some(Op::SGreaterThanEqual) => b(sa(0)? >= sa(1)?),
                    Some(Op::Select) => {
                        if a(0)? != 0 {
                            a(1)?
                        } else {
                            a(2)?
                        }
                    }
                    Some(Op::UConvert) => a(0)?,
                    Some(Op::SConvert) => sa(0)? as u64,
                    Some(Op::CompositeExtract) => {
                        let comp = inst.word(3)?;
                        let idx = inst.word(4)?;
                        let cd = self.spv.def(comp)?;
                        let ci = self.spv.inst_at(cd.offset)?;
                        match ci.op() {
                            Some(Op::ConstantComposite | Op::SpecConstantComposite) => {
                                let part =
                                    ci.rest(2).get(idx as usize).copied().ok_or_else(|| {
                                        malformed("OpCompositeExtract index out of range")
                                    })?;
                                self.fold(part, depth + 1)?
                            }
                            _ => return Err(unsupported("folding an extract from this constant")),
                        }
                    }
                    other => {
                        return Err(unsupported(format!(
                            "folding OpSpecConstantOp {other:?} into a constant"
                        )));
                    }
                };
                let _ = sext;
                mask(r)
            }
            _ => return Err(malformed(format!("%{id} is not an integer constant"))),
        })
    }

    /// The slot a constant or value id has, materializing constants.
    pub fn slot_of(&mut self, id: u32) -> Result<Slot> {
        match self.slot(id) {
            Slot::None => {
                self.get(id)?;
                Ok(self.slot(id))
            }
            s => Ok(s),
        }
    }
}
