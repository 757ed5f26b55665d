//! Untrusted input: the translator returns errors, never panics, on modules that read fine but break DXIL's rules.
//!
//! Every corpus compute module is mutated in memory (operand words, result types, constants — including the
//! opcode of `dx.op` calls — and entry metadata) many times with a fixed-seed generator, and each mutant is
//! translated. A mutant may translate or fail; it must not panic, and what it produces must still be a module
//! (a header with the magic number and a bound).

mod support;

use dxil_module::{ConstData, Constant, Module, TypeId};
use dxil_to_spirv::{Options, Translator};
use support::*;

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One random change to the module; returns what it did.
fn mutate(m: &mut Module, rng: &mut XorShift) -> String {
    let nfuncs = m.functions.len();
    let fi = m
        .functions
        .iter()
        .position(|f| f.body.is_some())
        .unwrap_or(0);
    match rng.below(6) {
        // An operand word (value, block index or raw index) replaced by a nearby or wild value.
        0 | 1 => {
            let Some(body) = m.functions.get_mut(fi).and_then(|f| f.body.as_mut()) else {
                return "nothing".into();
            };
            if body.pool.is_empty() {
                return "nothing".into();
            }
            let at = rng.below(body.pool.len());
            let old = body.pool[at];
            let new = match rng.below(4) {
                0 => old ^ (1 << rng.below(32)),
                1 => old.wrapping_add(1 + rng.below(8) as u32),
                2 => rng.next() as u32,
                _ => old & 0xE000_0000 | rng.below(4096) as u32,
            };
            body.pool[at] = new;
            format!("pool[{at}] {old:#x} → {new:#x}")
        }
        // An instruction's result type.
        2 => {
            let ntypes = m.types.len();
            let Some(body) = m.functions.get_mut(fi).and_then(|f| f.body.as_mut()) else {
                return "nothing".into();
            };
            if body.insts.is_empty() {
                return "nothing".into();
            }
            let at = rng.below(body.insts.len());
            let t = TypeId(rng.below(ntypes + 2) as u32);
            body.insts[at].ty = t;
            format!("inst {at} type → {}", t.0)
        }
        // An integer constant (the opcode of dx.op calls, masks, components, ...).
        3 | 4 => {
            let ints: Vec<(usize, TypeId, i64)> = m
                .constants
                .iter()
                .filter_map(|(id, c)| match c.data {
                    ConstData::Int(v) => Some((id.index(), c.ty, v)),
                    _ => None,
                })
                .collect();
            if ints.is_empty() {
                return "nothing".into();
            }
            let (id, ty, old) = ints[rng.below(ints.len())];
            let new = match rng.below(3) {
                0 => rng.below(320) as i64,
                1 => old + rng.below(5) as i64 - 2,
                _ => rng.next() as i64,
            };
            m.constants.set(
                dxil_module::ConstId(id as u32),
                Constant {
                    ty,
                    data: ConstData::Int(new),
                },
            );
            format!("constant {id} {old} → {new}")
        }
        // Metadata operands (entry properties, resource records).
        _ => {
            if m.metadata.operands.is_empty() {
                return "nothing".into();
            }
            let at = rng.below(m.metadata.operands.len());
            let n = m.metadata.items.len() as u32;
            let new = rng.below(n as usize + 3) as u32;
            m.metadata.operands[at] = new;
            let _ = nfuncs;
            format!("metadata operand {at} → {new}")
        }
    }
}

#[test]
fn mutated_corpus_modules_never_panic() {
    let Some(corpus) = corpus_dir() else { return };
    let shaders = compute_shaders(&corpus);
    let mutants_per_module: usize = std::env::var("MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 6 } else { 40 });
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut tr = Translator::new();
    let (mut total, mut ok) = (0, 0);
    // Translations of mutants must still be valid SPIR-V (or errors): checked on a sample, as spirv-val is a
    // process per module.
    let validate_limit: usize = if have_spirv_val() {
        std::env::var("VALIDATE_MUTANTS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(if cfg!(debug_assertions) { 0 } else { 150 })
    } else {
        0
    };
    let mut validated = 0;
    let mut invalid = Vec::new();
    let mut panics = Vec::new();
    // The panic hook would print every caught panic; keep the output to the summary.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{at}: {info}"));
    }));
    for sh in &shaders {
        let bytes = std::fs::read(sh.file("dxil")).unwrap();
        let Ok(module) = dxil_to_spirv::read_container(&bytes) else {
            continue;
        };
        let options = Options {
            entry_point: sh.entry.clone(),
            ..Options::default()
        };
        for _ in 0..mutants_per_module {
            let mut m = module.clone();
            // One to three changes at once.
            let what = (0..1 + rng.below(3))
                .map(|_| mutate(&mut m, &mut rng))
                .collect::<Vec<_>>()
                .join(", ");
            total += 1;
            if std::env::var_os("MUTANT_TRACE").is_some() {
                eprintln!("MUTANT {}: {what}", sh.name);
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tr.translate(&m, &options)
            }));
            match r {
                Ok(Ok(t)) => {
                    ok += 1;
                    assert_eq!(t.words.first(), Some(&0x0723_0203), "{}: {what}", sh.name);
                    if validated < validate_limit {
                        validated += 1;
                        if let Err(e) = spirv_val(&t.words, t.vulkan_version, "mutant") {
                            invalid.push(format!(
                                "{}: {what}: {}",
                                sh.name,
                                e.lines().take(3).collect::<Vec<_>>().join(" | ")
                            ));
                        }
                    }
                }
                Ok(Err(_)) => {}
                Err(_) => {
                    let why = LAST_PANIC.with(|p| p.borrow().clone());
                    panics.push(format!("{}: {what}: {why}", sh.name));
                    // A panic may leave the reused buffers half-updated: start over with fresh ones.
                    tr = Translator::new();
                }
            }
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "robustness: {total} mutants of {} modules: {ok} translate, {} errors, {} panics",
        shaders.len(),
        total - ok - panics.len(),
        panics.len()
    );
    for p in panics.iter().take(3000) {
        eprintln!("PANIC {p}");
    }
    eprintln!(
        "{validated} translated mutants validated, {} invalid",
        invalid.len()
    );
    for i in invalid.iter().take(40) {
        eprintln!("INVALID {i}");
    }
    assert!(panics.is_empty(), "{} mutants panic", panics.len());
    assert!(
        invalid.is_empty(),
        "{} translated mutants fail spirv-val",
        invalid.len()
    );
}
