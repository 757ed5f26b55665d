//! Reading translated modules in tests: the interface variables, execution modes and instructions of a
//! translation, in short text forms that assertions compare.

use std::collections::BTreeSet;

use dxil_to_spirv::{Options, Translation};
use rspirv::dr::{Module, Operand};
use spirv::Op;

use super::{corpus_dir, have_spirv_val, spirv_val};

/// The translated module of a corpus container (default options), validated.
pub fn translate(name: &str) -> Option<Module> {
    translate_with(name, &Options::default()).map(|(m, _)| m)
}

/// The translation of a corpus container under `options`, validated, and its parsed module.
pub fn translate_with(name: &str, options: &Options) -> Option<(Module, Translation)> {
    let corpus = corpus_dir()?;
    let path = corpus.join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = dxil_to_spirv::translate_container(&bytes, options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    if have_spirv_val() {
        // Tests run in parallel: one file per container.
        let tag = name.replace(['/', '.'], "_");
        spirv_val(&t.words, t.vulkan_version, &tag).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    Some((parse(&t.words), t))
}

/// SPIR-V words as an rspirv module.
pub fn parse(words: &[u32]) -> Module {
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(words, &mut loader).unwrap();
    loader.module()
}

pub fn type_name(m: &Module, id: u32) -> String {
    let Some(t) = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(id))
    else {
        return format!("%{id}");
    };
    let id_op = |k: usize| match &t.operands[k] {
        Operand::IdRef(r) => *r,
        _ => 0,
    };
    let lit = |k: usize| match &t.operands[k] {
        Operand::LiteralBit32(v) => *v,
        _ => 0,
    };
    match t.class.opcode {
        Op::TypeFloat => format!("f{}", lit(0)),
        Op::TypeInt => format!("{}{}", if lit(1) == 1 { "i" } else { "u" }, lit(0)),
        Op::TypeBool => "bool".into(),
        Op::TypeVector => format!("{}x{}", type_name(m, id_op(0)), lit(1)),
        Op::TypeArray => {
            let len = m
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(id_op(1)))
                .and_then(|c| match c.operands.first() {
                    Some(Operand::LiteralBit32(v)) => Some(*v),
                    _ => None,
                })
                .unwrap_or(0);
            format!("{}[{len}]", type_name(m, id_op(0)))
        }
        Op::TypePointer => type_name(m, id_op(1)),
        other => format!("{other:?}"),
    }
}

/// Every `Input`/`Output` variable as `"Input Location=1 Component=2 Flat: u32"`, decorations sorted.
pub fn interface(m: &Module) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for v in &m.types_global_values {
        if v.class.opcode != Op::Variable {
            continue;
        }
        let sc = match v.operands.first() {
            Some(Operand::StorageClass(sc)) => *sc,
            _ => continue,
        };
        if !matches!(sc, spirv::StorageClass::Input | spirv::StorageClass::Output) {
            continue;
        }
        let id = v.result_id.unwrap();
        let mut decos: Vec<String> = m
            .annotations
            .iter()
            .filter(|a| a.class.opcode == Op::Decorate && a.operands[0] == Operand::IdRef(id))
            .map(|a| {
                let d = match &a.operands[1] {
                    Operand::Decoration(d) => format!("{d:?}"),
                    o => format!("{o:?}"),
                };
                match a.operands.get(2) {
                    Some(Operand::LiteralBit32(x)) => format!("{d}={x}"),
                    Some(Operand::BuiltIn(b)) => format!("{b:?}"),
                    _ => d,
                }
            })
            .collect();
        decos.sort();
        out.insert(format!(
            "{sc:?} {}: {}",
            decos.join(" "),
            type_name(m, v.result_type.unwrap())
        ));
    }
    out
}

pub fn modes(m: &Module) -> BTreeSet<String> {
    m.execution_modes
        .iter()
        .map(|i| {
            let mut s = match &i.operands[1] {
                Operand::ExecutionMode(e) => format!("{e:?}"),
                o => format!("{o:?}"),
            };
            for o in &i.operands[2..] {
                if let Operand::LiteralBit32(v) = o {
                    s += &format!(" {v}");
                }
            }
            s
        })
        .collect()
}

pub fn uses(m: &Module, op: Op) -> bool {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .any(|i| i.class.opcode == op)
}

pub fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}
