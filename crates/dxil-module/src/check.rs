//! Structural invariants of a module: every id in range, every value resolved.
//!
//! Readers guarantee these for modules they return; builders (the text parser, the SPIR-V →
//! DXIL writer) can call [`check_ids`] before handing a module to code that indexes freely.

use crate::constants::ConstData;
use crate::module::Module;
use crate::value::{Value, ValueRef};

/// Returns a description of the first dangling id or unresolved value, if any.
pub fn check_ids(m: &Module) -> Result<(), String> {
    let nt = m.types.len();
    let nc = m.constants.len();
    let ng = m.globals.len();
    let nf = m.functions.len();
    let nm = m.metadata.len();
    let global_value_ok = |v: Value| match v.get() {
        ValueRef::Const(c) => c.index() < nc,
        ValueRef::Global(g) => g.index() < ng,
        ValueRef::Function(f) => f.index() < nf,
        _ => false,
    };
    for (id, c) in m.constants.iter() {
        if c.ty.index() >= nt {
            return Err(format!("{id} has an undefined type"));
        }
        let bad = match &c.data {
            ConstData::Aggregate(r) | ConstData::Gep { operands: r, .. } => m
                .constants
                .values_of(*r)
                .iter()
                .any(|v| !global_value_ok(*v)),
            ConstData::Cast { value, .. } => !global_value_ok(*value),
            ConstData::Binary { lhs, rhs, .. } | ConstData::Cmp { lhs, rhs, .. } => {
                !global_value_ok(*lhs) || !global_value_ok(*rhs)
            }
            ConstData::Select {
                cond,
                if_true,
                if_false,
            } => [cond, if_true, if_false]
                .iter()
                .any(|v| !global_value_ok(**v)),
            ConstData::ExtractElement { vector, index } => {
                !global_value_ok(*vector) || !global_value_ok(*index)
            }
            ConstData::InsertElement {
                vector,
                element,
                index,
            } => [vector, element, index]
                .iter()
                .any(|v| !global_value_ok(**v)),
            ConstData::ShuffleVector { v1, v2, mask } => {
                [v1, v2, mask].iter().any(|v| !global_value_ok(**v))
            }
            ConstData::BlockAddress { function, .. } => function.index() >= nf,
            _ => false,
        };
        if bad {
            return Err(format!("{id} refers to an undefined value"));
        }
    }
    for (i, g) in m.globals.iter().enumerate() {
        if g.value_ty.index() >= nt || g.ptr_ty.index() >= nt {
            return Err(format!("global {i} has an undefined type"));
        }
        if let Some(v) = g.init
            && !global_value_ok(v)
        {
            return Err(format!("global {i} has an undefined initializer"));
        }
    }
    for item in &m.metadata.items {
        if let crate::metadata::MdData::Value { ty, .. } = item
            && ty.index() >= nt
        {
            return Err("metadata value with an undefined type".into());
        }
    }
    if m.metadata.operands.iter().any(|&o| o as usize > nm) {
        return Err("metadata node operand out of range".into());
    }
    for (fi, f) in m.functions.iter().enumerate() {
        if f.ty.index() >= nt || f.ptr_ty.index() >= nt {
            return Err(format!("function {fi} has an undefined type"));
        }
        let Some(body) = &f.body else { continue };
        let nargs = m
            .types
            .function_signature(f.ty)
            .map_or(0, |(_, p, _)| p.len());
        let ni = body.insts.len();
        let nb = body.blocks.len();
        for (ii, inst) in body.insts.iter().enumerate() {
            if inst.ty.index() >= nt {
                return Err(format!(
                    "function {fi} instruction {ii} has an undefined type"
                ));
            }
            let mut bad = None;
            inst.kind.for_each_value(&body.pool, |v| {
                let ok = match v.get() {
                    ValueRef::Inst(i) => i.index() < ni,
                    ValueRef::Arg(a) => (a as usize) < nargs,
                    ValueRef::Metadata(md) => md.index() < nm,
                    ValueRef::Unresolved(_) => false,
                    _ => global_value_ok(v),
                };
                if !ok && bad.is_none() {
                    bad = Some(v);
                }
            });
            inst.kind.for_each_block(&body.pool, |b| {
                if b.index() >= nb && bad.is_none() {
                    bad = Some(Value::unresolved(b.0));
                }
            });
            if let Some(v) = bad {
                return Err(format!(
                    "function {fi} instruction {ii}: operand {v:?} is out of range"
                ));
            }
        }
        let mut end = 0;
        for (bi, b) in body.blocks.iter().enumerate() {
            if b.start != end || b.end < b.start || b.end as usize > ni {
                return Err(format!(
                    "function {fi} block {bi} has a bad instruction range"
                ));
            }
            end = b.end;
        }
        if end as usize != ni {
            return Err(format!("function {fi}: instructions outside any block"));
        }
    }
    Ok(())
}

/// The fuzzing body: read arbitrary bitcode; anything that reads must satisfy [`check_ids`].
pub fn fuzz_read(data: &[u8]) {
    if let Ok(m) = crate::read::read_module(data, 0)
        && let Err(e) = check_ids(&m)
    {
        panic!("reader returned an inconsistent module: {e}");
    }
}
