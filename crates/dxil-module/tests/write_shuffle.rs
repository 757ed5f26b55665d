//! The writer must not depend on the order in which the model stores its tables: a text parser
//! builds types, constants, metadata and attribute lists in whatever order it meets them, and may
//! create duplicates that LLVM would unique. Here every corpus module is rebuilt with its type
//! table, constant pool, metadata list and attribute tables permuted (and partly duplicated),
//! every id remapped, and the writer must still produce DXC's bytes.

mod write_support;

use dxil_module::constants::{ConstData, Constant, Constants};
use dxil_module::metadata::{MdData, Metadata};
use dxil_module::module::{AttrGroup, Body, Module};
use dxil_module::types::{TypeData, Types};
use dxil_module::{
    AttrListId, ConstId, InstKind, MdId, TypeId, Value, ValueRef, WriteOptions, read_module,
    write_module,
};

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// A random permutation: `perm[old] = new`.
    fn permutation(&mut self, n: usize) -> Vec<u32> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = self.below(i + 1);
            order.swap(i, j);
        }
        let mut perm = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            perm[old as usize] = new as u32;
        }
        perm
    }
}

/// Applies `perm` (old → new) to a table, appending `extra` duplicates of random entries at the
/// end. Returns the new table and, for every old entry, the ids that may stand for it.
fn permute<T: Clone>(
    items: &[T],
    perm: &[u32],
    extra: usize,
    rng: &mut Rng,
) -> (Vec<T>, Vec<Vec<u32>>) {
    let n = items.len();
    let mut out: Vec<Option<T>> = vec![None; n];
    let mut ids: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (old, item) in items.iter().enumerate() {
        out[perm[old] as usize] = Some(item.clone());
        ids[old].push(perm[old]);
    }
    let mut out: Vec<T> = out.into_iter().map(|x| x.unwrap()).collect();
    for _ in 0..extra.min(n) {
        let old = rng.below(n);
        ids[old].push(out.len() as u32);
        out.push(items[old].clone());
    }
    (out, ids)
}

struct Shuffler {
    rng: Rng,
    types: Vec<Vec<u32>>,
    consts: Vec<Vec<u32>>,
    mds: Vec<Vec<u32>>,
}

impl Shuffler {
    fn pick(&mut self, choices: &[u32]) -> u32 {
        choices[self.rng.below(choices.len())]
    }
    fn ty(&mut self, t: TypeId) -> TypeId {
        let c = self.types[t.index()].clone();
        TypeId(self.pick(&c))
    }
    fn md(&mut self, m: MdId) -> MdId {
        let c = self.mds[m.index()].clone();
        MdId(self.pick(&c))
    }
    fn value(&mut self, v: Value) -> Value {
        match v.get() {
            ValueRef::Const(c) => {
                let ch = self.consts[c.index()].clone();
                Value::constant(ConstId(self.pick(&ch)))
            }
            ValueRef::Metadata(m) => Value::metadata(self.md(m)),
            _ => v,
        }
    }
}

fn shuffle(m: &Module, seed: u64) -> Module {
    let mut rng = Rng(seed | 1);
    let mut out = m.clone();

    // Types.
    let old_types: Vec<TypeData> = m.types.iter().map(|(_, d)| d.clone()).collect();
    let tperm = rng.permutation(old_types.len());
    // Duplicate only types that are not named structs (those are unique by name in LLVM).
    let (new_types, mut tids) = permute(&old_types, &tperm, 0, &mut rng);
    let mut new_types = new_types;
    for _ in 0..4 {
        let old = rng.below(old_types.len());
        if !matches!(old_types[old], TypeData::Struct { name: Some(_), .. }) {
            tids[old].push(new_types.len() as u32);
            new_types.push(old_types[old].clone());
        }
    }
    // Constants.
    let old_consts: Vec<Constant> = m.constants.iter().map(|(_, c)| c.clone()).collect();
    let cperm = rng.permutation(old_consts.len());
    let (new_consts, cids) = permute(&old_consts, &cperm, old_consts.len() / 4, &mut rng);
    // Metadata.
    let mperm = rng.permutation(m.metadata.items.len());
    let (new_items, mut mids) = permute(
        &m.metadata.items,
        &mperm,
        m.metadata.items.len() / 4,
        &mut rng,
    );
    // A copy of a distinct node is another node: uses must keep pointing at the original.
    for (old, item) in m.metadata.items.iter().enumerate() {
        if matches!(item, MdData::Node { distinct: true, .. }) {
            mids[old].truncate(1);
        }
    }

    let mut s = Shuffler {
        rng,
        types: tids,
        consts: cids,
        mds: mids,
    };

    out.types = remap_types(&mut s, new_types);

    out.constants = remap_constants(&mut s, m, new_consts);

    out.metadata = remap_metadata(&mut s, m, new_items);

    // Attribute groups get new ids; lists are permuted and duplicated.
    let gperm = s.rng.permutation(m.attr_groups.len());
    out.attr_groups = m
        .attr_groups
        .iter()
        .map(|g| {
            let mut attrs = g.attrs.clone();
            attrs.reverse();
            AttrGroup {
                id: 1000 + g.id * 7,
                slot: g.slot,
                attrs,
            }
        })
        .collect();
    let mut groups_in_order = vec![None; out.attr_groups.len()];
    for (old, g) in out.attr_groups.iter().enumerate() {
        groups_in_order[gperm[old] as usize] = Some(g.clone());
    }
    out.attr_groups = groups_in_order.into_iter().flatten().collect();
    let lperm = s.rng.permutation(m.attr_lists.len());
    let remapped: Vec<Vec<u32>> = m
        .attr_lists
        .iter()
        .map(|l| {
            let mut l: Vec<u32> = l.iter().map(|g| 1000 + g * 7).collect();
            l.reverse();
            l
        })
        .collect();
    let (lists, lids) = permute(&remapped, &lperm, 2, &mut s.rng);
    out.attr_lists = lists;
    let mut list =
        |s: &mut Shuffler, l: Option<AttrListId>| l.map(|l| AttrListId(s.pick(&lids[l.index()])));

    for g in &mut out.globals {
        g.value_ty = s.ty(g.value_ty);
        g.ptr_ty = s.ty(g.ptr_ty);
        g.init = g.init.map(|v| s.value(v));
    }
    for f in &mut out.functions {
        f.ty = s.ty(f.ty);
        f.ptr_ty = s.ty(f.ptr_ty);
        f.attrs = list(&mut s, f.attrs);
        if let Some(b) = &mut f.body {
            remap_body(&mut s, b, &mut list);
        }
    }
    out
}

/// The shuffled type table, its members' references remapped.
fn remap_types(s: &mut Shuffler, new_types: Vec<TypeData>) -> Types {
    let mut types = Types::new();
    for d in new_types {
        let d = match d {
            TypeData::Pointer {
                pointee,
                address_space,
            } => TypeData::Pointer {
                pointee: s.ty(pointee),
                address_space,
            },
            TypeData::Array { len, elem } => TypeData::Array {
                len,
                elem: s.ty(elem),
            },
            TypeData::Vector { len, elem } => TypeData::Vector {
                len,
                elem: s.ty(elem),
            },
            TypeData::Struct {
                name,
                packed,
                opaque,
                elems,
            } => TypeData::Struct {
                name,
                packed,
                opaque,
                elems: elems.into_iter().map(|e| s.ty(e)).collect(),
            },
            TypeData::Function {
                vararg,
                ret,
                params,
            } => TypeData::Function {
                vararg,
                ret: s.ty(ret),
                params: params.into_iter().map(|p| s.ty(p)).collect(),
            },
            other => other,
        };
        types.push(d);
    }
    types
}

/// The shuffled constant table, its operands and types remapped (the pools keep their order).
fn remap_constants(s: &mut Shuffler, m: &Module, new_consts: Vec<Constant>) -> Constants {
    let mut consts = Constants::default();
    consts.values = m.constants.values.iter().map(|&v| s.value(v)).collect();
    consts.words = m.constants.words.clone();
    consts.bytes = m.constants.bytes.clone();
    for c in new_consts {
        let data = match c.data {
            ConstData::Cast { op, value } => ConstData::Cast {
                op,
                value: s.value(value),
            },
            ConstData::Binary {
                op,
                flags,
                lhs,
                rhs,
            } => ConstData::Binary {
                op,
                flags,
                lhs: s.value(lhs),
                rhs: s.value(rhs),
            },
            ConstData::Cmp { pred, lhs, rhs } => ConstData::Cmp {
                pred,
                lhs: s.value(lhs),
                rhs: s.value(rhs),
            },
            ConstData::Gep {
                inbounds,
                source_ty,
                operands,
            } => ConstData::Gep {
                inbounds,
                source_ty: source_ty.map(|t| s.ty(t)),
                operands,
            },
            other => other,
        };
        consts.push(Constant {
            ty: s.ty(c.ty),
            data,
        });
    }
    consts
}

/// The shuffled metadata items, their operands, named nodes' operands and values remapped and
/// the kind list reversed.
fn remap_metadata(s: &mut Shuffler, m: &Module, new_items: Vec<MdData>) -> Metadata {
    let mut md = Metadata {
        items: Vec::with_capacity(new_items.len()),
        bytes: m.metadata.bytes.clone(),
        operands: m
            .metadata
            .operands
            .iter()
            .map(|&o| if o == 0 { 0 } else { s.md(MdId(o - 1)).0 + 1 })
            .collect(),
        raw: m.metadata.raw.clone(),
        named: m.metadata.named.clone(),
        named_ops: m.metadata.named_ops.clone(),
        kinds: m.metadata.kinds.clone(),
    };
    for item in new_items {
        md.items.push(match item {
            MdData::Value { ty, value } => MdData::Value {
                ty: s.ty(ty),
                value: s.value(value),
            },
            other => other,
        });
    }
    for o in &mut md.named_ops {
        *o = s.md(*o);
    }
    md.kinds.reverse();
    md
}

fn remap_body(
    s: &mut Shuffler,
    b: &mut Body,
    list: &mut dyn FnMut(&mut Shuffler, Option<AttrListId>) -> Option<AttrListId>,
) {
    for inst in &mut b.insts {
        inst.ty = s.ty(inst.ty);
        inst.kind.map_values(&mut b.pool, &mut |v| s.value(v));
        match &mut inst.kind {
            InstKind::Alloca { allocated, .. } => *allocated = s.ty(*allocated),
            InstKind::Gep { source_ty, .. } => *source_ty = s.ty(*source_ty),
            InstKind::Call { fn_ty, attrs, .. } => {
                *fn_ty = s.ty(*fn_ty);
                *attrs = list(s, *attrs);
            }
            InstKind::VaArg { list_ty, .. } => *list_ty = s.ty(*list_ty),
            _ => {}
        }
    }
    for a in &mut b.attachments {
        a.node = s.md(a.node);
    }
    // The model keeps attachments by instruction, but a builder need not.
    b.attachments.reverse();
    b.fn_attachments.reverse();
    for (_, n) in &mut b.fn_attachments {
        *n = s.md(*n);
    }
    for (_, loc) in &mut b.debug_locs {
        for x in [&mut loc.scope, &mut loc.inlined_at] {
            if *x != 0 {
                *x = u64::from(s.md(MdId(*x as u32 - 1)).0) + 1;
            }
        }
    }
}

#[test]
fn shuffled_tables_give_identical_bytes() {
    let Some(programs) = write_support::corpus_programs() else {
        return;
    };
    let opts = WriteOptions::default();
    let mut failures = Vec::new();
    for (i, (name, bitcode)) in programs.iter().enumerate() {
        let m = read_module(bitcode, 0).unwrap();
        let shuffled = shuffle(
            &m,
            0x9E37_79B9_7F4A_7C15 ^ (i as u64).wrapping_mul(0x1234_5679),
        );
        match write_module(&shuffled, &opts) {
            Ok(out) if &out == bitcode => {}
            Ok(out) => failures.push(format!(
                "{name}: {}",
                write_support::describe_position(bitcode, &out)
            )),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    for f in failures.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} shuffled modules were written differently",
        failures.len(),
        programs.len()
    );
}

#[test]
fn shuffling_really_changes_the_tables() {
    let Some(programs) = write_support::corpus_programs() else {
        return;
    };
    let (name, bitcode) = &programs[0];
    let m = read_module(bitcode, 0).unwrap();
    let s = shuffle(&m, 7);
    assert!(s.types.len() >= m.types.len(), "{name}");
    assert!(s.constants.len() > m.constants.len());
    let order_changed = m
        .types
        .iter()
        .zip(s.types.iter())
        .any(|((_, a), (_, b))| a != b);
    assert!(order_changed, "the type table kept its order");
    // Duplicates make the shuffled module's own dump differ; written and read back, LLVM's
    // uniquing has merged them again.
    let back = read_module(&write_module(&s, &WriteOptions::default()).unwrap(), 0).unwrap();
    assert_eq!(write_support::dump(&m), write_support::dump(&back));
}
