//! Checked access to metadata nodes and their constant operands, with errors that name the
//! node and field.

use std::borrow::Cow;
use std::cell::Cell;

use dxil_module::{ConstData, MdData, MdId, Module, TypeData, TypeId, Value};

use crate::error::{Error, ErrorKind, Result};

/// Work allowed per unit of metadata (node, operand, string byte), and a floor for small
/// modules. Metadata is a DAG: a list may name one node thousands of times, and decoding copies
/// (strings, root signature bytes) per reference, so without a budget a small module could
/// decode into a view quadratically larger than itself. Real modules decode each node about once.
const BUDGET_PER_UNIT: u64 = 16;
const BUDGET_FLOOR: u64 = 1 << 22;

/// Read-only helpers over a module's metadata and constants.
#[derive(Clone, Copy)]
pub(crate) struct Md<'m> {
    pub(crate) module: &'m Module,
    /// What decoding may still cost (see [`Md::budget_for`]); `None` is unlimited.
    budget: Option<&'m Cell<u64>>,
}

impl<'m> Md<'m> {
    /// Unbudgeted access, for tests of single decoders.
    #[cfg(test)]
    pub(crate) fn new(module: &'m Module) -> Md<'m> {
        Md {
            module,
            budget: None,
        }
    }

    /// Access whose node visits and copies are charged to `budget`.
    pub(crate) fn budgeted(module: &'m Module, budget: &'m Cell<u64>) -> Md<'m> {
        Md {
            module,
            budget: Some(budget),
        }
    }

    /// The budget for decoding `module`: proportional to the size of its metadata.
    pub(crate) fn budget_for(module: &Module) -> u64 {
        let m = &module.metadata;
        let units = [m.items.len(), m.bytes.len(), m.operands.len(), m.raw.len()]
            .iter()
            .fold(0u64, |a, &n| a.saturating_add(n as u64));
        units
            .saturating_mul(BUDGET_PER_UNIT)
            .saturating_add(BUDGET_FLOOR)
    }

    /// Charges `units` of work done for `node`; fails once the budget is spent.
    pub(crate) fn charge(self, units: usize, context: &'static str, node: MdId) -> Result<()> {
        let Some(budget) = self.budget else {
            return Ok(());
        };
        match budget.get().checked_sub(units as u64 + 1) {
            Some(left) => {
                budget.set(left);
                Ok(())
            }
            None => Err(Error::new(
                ErrorKind::Limit,
                context,
                Some(node),
                None,
                "decoding the metadata costs far more than its size (nodes shared by too many \
                 references)",
            )),
        }
    }

    /// Raw operands of a node (0 = null, else id + 1), `None` if `id` is not a node.
    pub(crate) fn node_ops(self, id: MdId) -> Option<&'m [u32]> {
        match self.module.metadata.get(id)? {
            MdData::Node { operands, .. } => Some(operands.get(&self.module.metadata.operands)),
            _ => None,
        }
    }

    /// A node, or an error naming `context` when `id` is something else.
    pub(crate) fn node(self, id: MdId, context: &'static str) -> Result<Node<'m>> {
        match self.node_ops(id) {
            Some(ops) => {
                self.charge(ops.len(), context, id)?;
                Ok(Node {
                    md: self,
                    id,
                    ops,
                    context,
                })
            }
            None => Err(Error::new(
                ErrorKind::Malformed,
                context,
                Some(id),
                None,
                "expected a metadata node",
            )),
        }
    }

    /// The `(type, value)` of a value item.
    pub(crate) fn value(self, id: MdId) -> Option<(TypeId, Value)> {
        match self.module.metadata.get(id)? {
            MdData::Value { ty, value } => Some((*ty, *value)),
            _ => None,
        }
    }

    /// An integer constant, zero-extended from its type's width.
    pub(crate) fn uint(self, id: MdId) -> Option<u64> {
        let (ty, value) = self.value(id)?;
        let v = self.module.const_int(value)?;
        Some(zext(v, self.module.types.int_width(ty)?))
    }

    /// An integer constant, sign-extended from its type's width.
    pub(crate) fn sint(self, id: MdId) -> Option<i64> {
        let (ty, value) = self.value(id)?;
        let v = self.module.const_int(value)?;
        let width = self.module.types.int_width(ty)?;
        Some(sext(v, width))
    }

    /// A floating-point constant of any width.
    pub(crate) fn float(self, id: MdId) -> Option<f64> {
        let (ty, value) = self.value(id)?;
        let c = self.module.constants.get(value.as_const()?)?;
        let bits = match c.data {
            ConstData::Float(bits) => bits,
            ConstData::Null => 0,
            _ => return None,
        };
        match self.module.types.data(ty) {
            TypeData::Float => Some(f64::from(f32::from_bits(bits as u32))),
            TypeData::Double => Some(f64::from_bits(bits)),
            TypeData::Half => Some(half_to_f64(bits as u16)),
            _ => None,
        }
    }

    pub(crate) fn string(self, id: MdId) -> Option<&'m [u8]> {
        self.module.metadata.string(id)
    }
}

fn zext(v: i64, width: u32) -> u64 {
    if width >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << width) - 1)
    }
}

fn sext(v: i64, width: u32) -> i64 {
    if width >= 64 || width == 0 {
        v
    } else {
        let shift = 64 - width;
        (v << shift) >> shift
    }
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// A metadata node being decoded: its operands, and what it is for error messages.
#[derive(Clone, Copy)]
pub(crate) struct Node<'m> {
    pub(crate) md: Md<'m>,
    pub(crate) id: MdId,
    pub(crate) ops: &'m [u32],
    pub(crate) context: &'static str,
}

impl<'m> Node<'m> {
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    /// Operand `i`: `None` when it is null or past the end.
    pub(crate) fn op(&self, i: usize) -> Option<MdId> {
        match self.ops.get(i) {
            Some(&o) if o != 0 => Some(MdId(o - 1)),
            _ => None,
        }
    }

    pub(crate) fn ops(&self) -> impl ExactSizeIterator<Item = Option<MdId>> + 'm {
        self.ops
            .iter()
            .map(|&o| if o == 0 { None } else { Some(MdId(o - 1)) })
    }

    #[cold]
    pub(crate) fn error(
        &self,
        kind: ErrorKind,
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Error {
        Error::new(
            kind,
            self.context,
            Some(self.id),
            Some(field.into()),
            message,
        )
    }

    #[cold]
    pub(crate) fn node_error(
        &self,
        kind: ErrorKind,
        message: impl Into<Cow<'static, str>>,
    ) -> Error {
        Error::new(kind, self.context, Some(self.id), None, message)
    }

    /// Fails unless the node has at least `n` operands.
    pub(crate) fn expect_len(&self, n: usize) -> Result<()> {
        if self.ops.len() < n {
            return Err(self.node_error(
                ErrorKind::Malformed,
                format!("{} operands, expected {n}", self.ops.len()),
            ));
        }
        Ok(())
    }

    /// A required operand.
    pub(crate) fn required(&self, i: usize, field: &'static str) -> Result<MdId> {
        self.op(i).ok_or_else(|| {
            self.error(
                ErrorKind::Missing,
                field,
                format!("operand {i} is null or absent"),
            )
        })
    }

    /// Operand `i` as an integer constant and its width; `None` when it is null, absent or anything else. The
    /// view reads some forty integer fields per module (signature elements, resources, properties), so this is
    /// one straight path, and the errors are built apart ([`Node::int_error`]).
    #[inline]
    fn int_operand(&self, i: usize) -> Option<(i64, u32)> {
        let id = MdId(self.ops.get(i)?.checked_sub(1)?);
        let module = self.md.module;
        let MdData::Value { ty, value } = module.metadata.get(id)? else {
            return None;
        };
        let v = module.const_int(*value)?;
        match module.types.data(*ty) {
            TypeData::Int(w) => Some((v, *w)),
            _ => None,
        }
    }

    /// Why operand `i` is not an integer constant: absent or null, or something else.
    #[cold]
    #[inline(never)]
    fn int_error(&self, i: usize, field: &'static str) -> Error {
        match self.required(i, field) {
            Err(e) => e,
            Ok(_) => self.error(ErrorKind::Malformed, field, "expected an integer constant"),
        }
    }

    #[inline]
    pub(crate) fn u64_at(&self, i: usize, field: &'static str) -> Result<u64> {
        match self.int_operand(i) {
            Some((v, width)) => Ok(zext(v, width)),
            None => Err(self.int_error(i, field)),
        }
    }

    #[inline]
    pub(crate) fn u32_at(&self, i: usize, field: &'static str) -> Result<u32> {
        let v = self.u64_at(i, field)?;
        u32::try_from(v).map_err(|_| self.wide_error(field, i128::from(v)))
    }

    /// A 32-bit field's value that does not fit; apart from the readers so that they stay small.
    #[cold]
    #[inline(never)]
    fn wide_error(&self, field: &'static str, v: i128) -> Error {
        self.error(
            ErrorKind::Invalid,
            field,
            format!("value {v} does not fit in 32 bits"),
        )
    }

    #[inline]
    pub(crate) fn i64_at(&self, i: usize, field: &'static str) -> Result<i64> {
        match self.int_operand(i) {
            Some((v, width)) => Ok(sext(v, width)),
            None => Err(self.int_error(i, field)),
        }
    }

    /// A signed 32-bit field (`-1` marks unallocated signature rows and columns).
    #[inline]
    pub(crate) fn i32_at(&self, i: usize, field: &'static str) -> Result<i32> {
        let v = self.i64_at(i, field)?;
        i32::try_from(v).map_err(|_| self.wide_error(field, i128::from(v)))
    }

    pub(crate) fn bool_at(&self, i: usize, field: &'static str) -> Result<bool> {
        Ok(self.u64_at(i, field)? != 0)
    }

    pub(crate) fn f64_at(&self, i: usize, field: &'static str) -> Result<f64> {
        let id = self.required(i, field)?;
        self.md.float(id).ok_or_else(|| {
            self.error(
                ErrorKind::Malformed,
                field,
                "expected a floating-point constant",
            )
        })
    }

    pub(crate) fn string_at(&self, i: usize, field: &'static str) -> Result<String> {
        let id = self.required(i, field)?;
        let bytes = self
            .md
            .string(id)
            .ok_or_else(|| self.error(ErrorKind::Malformed, field, "expected a string"))?;
        self.md.charge(bytes.len(), self.context, id)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    /// A node operand; `Ok(None)` when the operand is null or absent.
    pub(crate) fn node_at(
        &self,
        i: usize,
        field: &'static str,
        context: &'static str,
    ) -> Result<Option<Node<'m>>> {
        match self.op(i) {
            None => Ok(None),
            Some(id) => match self.md.node_ops(id) {
                Some(ops) => {
                    self.md.charge(ops.len(), context, id)?;
                    Ok(Some(Node {
                        md: self.md,
                        id,
                        ops,
                        context,
                    }))
                }
                None => Err(self.error(ErrorKind::Malformed, field, "expected a metadata node")),
            },
        }
    }

    /// A scalar field that DXC writes either as a constant or wrapped in a one-element node
    /// (`i32 5` or `!{i32 5}`): returns the id of the constant.
    pub(crate) fn scalar_item(&self, i: usize, field: &'static str) -> Result<MdId> {
        let id = self.required(i, field)?;
        if self.md.value(id).is_some() {
            return Ok(id);
        }
        match self.md.node_ops(id) {
            Some([o]) if *o != 0 => Ok(MdId(o - 1)),
            _ => Err(self.error(
                ErrorKind::Malformed,
                field,
                "expected a constant or a one-element node",
            )),
        }
    }

    /// An unsigned scalar written as `i32 N` or `!{i32 N}`.
    pub(crate) fn scalar_u32(&self, i: usize, field: &'static str) -> Result<u32> {
        let id = self.scalar_item(i, field)?;
        let v = self.md.uint(id).ok_or_else(|| {
            self.error(ErrorKind::Malformed, field, "expected an integer constant")
        })?;
        u32::try_from(v).map_err(|_| {
            self.error(
                ErrorKind::Invalid,
                field,
                format!("value {v} does not fit in 32 bits"),
            )
        })
    }

    /// A node of exactly three integers (`!{i32 x, i32 y, i32 z}`).
    pub(crate) fn xyz_at(&self, i: usize, field: &'static str) -> Result<[u32; 3]> {
        let n = self
            .node_at(i, field, "three-integer node")?
            .ok_or_else(|| self.error(ErrorKind::Missing, field, "null node"))?;
        n.expect_len(3)?;
        Ok([n.u32_at(0, "x")?, n.u32_at(1, "y")?, n.u32_at(2, "z")?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_and_half() {
        assert_eq!(zext(-1, 32), 0xffff_ffff);
        assert_eq!(zext(-1, 1), 1);
        assert_eq!(zext(-1, 64), u64::MAX);
        assert_eq!(sext(0xff, 8), -1);
        assert_eq!(sext(5, 32), 5);
        assert_eq!(half_to_f64(0x3c00), 1.0);
        assert_eq!(half_to_f64(0x5400), 64.0);
        assert_eq!(half_to_f64(0xc000), -2.0);
        assert_eq!(half_to_f64(0x0001), 2f64.powi(-24));
        assert!(half_to_f64(0x7c01).is_nan());
    }
}
