//! A malformed module (as a buggy parser or a fuzzer could build) must give a `WriteError`,
//! never a panic: ids of every kind are corrupted at random in corpus modules.

mod write_support;

use dxil_module::constants::{ConstData, Constant};
use dxil_module::types::TypeData;
use dxil_module::{
    AttrListId, BlockId, ConstId, InstId, MdId, Module, PoolRange, TypeId, Value, WriteOptions,
    read_module, write_module,
};

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
    /// Mostly small ids (near the valid range), sometimes huge ones.
    fn id(&mut self, n: usize) -> u32 {
        match self.below(4) {
            0 => u32::MAX - self.below(4) as u32,
            1 => (n + self.below(3)) as u32,
            _ => self.below(n + 2) as u32,
        }
    }
    fn value(&mut self, n: usize) -> Value {
        let i = self.id(n) & 0x1FFF_FFFF;
        match self.below(7) {
            0 => Value::inst(InstId(i)),
            1 => Value::arg(i),
            2 => Value::constant(ConstId(i)),
            3 => Value::global(dxil_module::GlobalId(i)),
            4 => Value::function(dxil_module::FuncId(i)),
            5 => Value::metadata(MdId(i)),
            _ => Value::unresolved(i),
        }
    }
}

fn mutate(m: &mut Module, rng: &mut Rng) {
    let nt = m.types.len();
    let nc = m.constants.len();
    let nm = m.metadata.items.len();
    match rng.below(12) {
        0 => {
            let t = TypeId(rng.id(nt));
            let k = rng.below(m.functions.len());
            if let Some(f) = m.functions.get_mut(k) {
                match rng.below(3) {
                    0 => f.ty = t,
                    1 => f.ptr_ty = t,
                    _ => f.attrs = Some(AttrListId(rng.id(m.attr_lists.len()))),
                }
            }
        }
        1..=3 => {
            let n = rng.id(64) as usize;
            let v = rng.value(n);
            let bodies: Vec<usize> = (0..m.functions.len())
                .filter(|&i| m.functions[i].body.is_some())
                .collect();
            let Some(&fi) = bodies.get(rng.below(bodies.len())) else {
                return;
            };
            let b = m.functions[fi].body.as_mut().unwrap();
            match rng.below(5) {
                0 if !b.pool.is_empty() => {
                    let k = rng.below(b.pool.len());
                    b.pool[k] = v.0;
                }
                1 if !b.insts.is_empty() => {
                    let k = rng.below(b.insts.len());
                    b.insts[k].ty = TypeId(rng.id(nt));
                }
                2 if !b.insts.is_empty() => {
                    let k = rng.below(b.insts.len());
                    let mut kind = b.insts[k].kind.clone();
                    kind.map_values(&mut b.pool, &mut |_| v);
                    b.insts[k].kind = kind;
                }
                3 if !b.blocks.is_empty() => {
                    let k = rng.below(b.blocks.len());
                    b.blocks[k].end = rng.id(b.insts.len());
                }
                _ => {
                    if let Some(a) = b.attachments.first_mut() {
                        a.node = MdId(rng.id(nm));
                        a.kind = rng.id(20);
                    } else if let Some(n) = b.names.first_mut() {
                        *n = dxil_module::LocalName::Block(BlockId(rng.id(4)), "x".into());
                    }
                }
            }
        }
        4 if !m.metadata.operands.is_empty() => {
            let k = rng.below(m.metadata.operands.len());
            m.metadata.operands[k] = rng.id(nm + 1);
        }
        5 => {
            if let Some(n) = m.metadata.named.first()
                && n.operands.len > 0
                && let Some(o) = m.metadata.named_ops.get_mut(n.operands.start as usize)
            {
                *o = MdId(rng.id(nm));
            }
        }
        6 if nc > 0 => {
            let c = ConstId(rng.below(nc) as u32);
            let ty = TypeId(rng.id(nt));
            let data = match rng.below(6) {
                0 => ConstData::Int(rng.next() as i64),
                1 => ConstData::Float(rng.next()),
                2 => ConstData::Aggregate(PoolRange {
                    start: rng.id(m.constants.values.len()),
                    len: rng.id(8),
                }),
                3 => ConstData::Data(PoolRange {
                    start: rng.id(m.constants.words.len()),
                    len: rng.id(8),
                }),
                4 => ConstData::Cast {
                    op: dxil_module::CastOp::BitCast,
                    value: Value::constant(c),
                },
                _ => ConstData::Gep {
                    inbounds: true,
                    source_ty: None,
                    operands: PoolRange {
                        start: rng.id(m.constants.values.len()),
                        len: rng.id(4),
                    },
                },
            };
            m.constants.set(c, Constant { ty, data });
        }
        7 if !m.constants.values.is_empty() => {
            let k = rng.below(m.constants.values.len());
            m.constants.values[k] = rng.value(nc);
        }
        8 => {
            let w = [0, 1 << 24, u32::MAX, 65, 128][rng.below(5)];
            let t = m.types.push(TypeData::Int(w));
            if let Some(g) = m.functions.first_mut() {
                g.ty = t;
            }
        }
        9 => {
            let t = m.types.push(TypeData::Pointer {
                pointee: TypeId(rng.id(nt + 1)),
                address_space: 0,
            });
            let _ = m.types.push(TypeData::Struct {
                name: None,
                packed: false,
                opaque: true,
                elems: vec![t],
            });
        }
        10 => {
            if let Some(l) = m.attr_lists.first_mut() {
                l.push(rng.id(100));
            }
        }
        _ => {
            if let Some(g) = m.globals.first_mut() {
                g.init = Some(rng.value(nc));
                g.section = rng.id(2);
            }
        }
    }
}

#[test]
fn corrupted_modules_give_errors_not_panics() {
    let Some(programs) = write_support::corpus_programs() else {
        return;
    };
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let (mut ok, mut err) = (0, 0);
    for (_, bitcode) in programs.iter().step_by(61) {
        let base = read_module(bitcode, 0).unwrap();
        for _ in 0..60 {
            let mut m = base.clone();
            for _ in 0..1 + rng.below(3) {
                mutate(&mut m, &mut rng);
            }
            match write_module(&m, &WriteOptions::default()) {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert!(!e.message().is_empty());
                    err += 1;
                }
            }
        }
    }
    eprintln!("corrupted modules: {ok} still writable, {err} rejected");
    assert!(
        err > ok / 4,
        "mutations should mostly be caught ({err} errors, {ok} ok)"
    );
}

#[test]
fn errors_name_the_function_and_instruction() {
    let Some(programs) = write_support::corpus_programs() else {
        return;
    };
    let mut m = read_module(&programs[0].1, 0).unwrap();
    let fi = m.functions.iter().position(|f| f.body.is_some()).unwrap();
    let name = m.functions[fi].name.clone();
    let b = m.functions[fi].body.as_mut().unwrap();
    let k = b.insts.len() - 1;
    b.insts[k].kind = dxil_module::InstKind::Ret {
        value: Some(Value::inst(InstId(100_000))),
    };
    let e = write_module(&m, &WriteOptions::default()).unwrap_err();
    assert_eq!(e.location().function, Some((fi as u32, name)));
    assert_eq!(e.location().instruction, Some(k as u32));
    assert!(e.to_string().contains("instruction"), "{e}");
}
