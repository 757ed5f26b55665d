//! Shared by the structurizer test binaries: deterministic random numbers, the equivalence interpreter, the
//! output dump, and the SPIR-V module builder + spirv-val runner.
#![allow(dead_code)] // each test binary uses a different subset

use dxil_to_spirv::cfg::domtree::{Csr, DomTree, NONE, simple};
use dxil_to_spirv::cfg::verify::verify;
use dxil_to_spirv::cfg::{
    BlockId, Cfg, Condition, Merge, OutBlockId, OutTerminator, Selector, Structured, Structurizer,
    Terminator,
};

pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

// ------------------------------------------------------------------------------------------------------------------
// Interpreter.

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum End {
    Return,
    Unreachable,
    Limit,
}

pub fn decide(seed: u64, block: u32, visit: u32) -> u64 {
    let mut r = SplitMix::new(seed ^ ((block as u64) << 32) ^ visit as u64);
    r.next();
    r.next()
}

/// Value a switch in `block` takes on this visit: one of its literals, or one matching no case.
pub fn switch_value(cfg: &Cfg, seed: u64, block: u32, visit: u32) -> u64 {
    let Some(Terminator::Switch { cases, .. }) = cfg.terminator(BlockId(block)) else {
        return u64::MAX;
    };
    let cases = cfg.cases(cases);
    let d = decide(seed, block, visit) as usize % (cases.len() + 1);
    if d == 0 { u64::MAX } else { cases[d - 1].0 }
}

pub fn run_original(cfg: &Cfg, seed: u64, limit: usize) -> (Vec<u32>, End) {
    let mut visits = vec![0u32; cfg.len()];
    let mut trace = Vec::new();
    let mut b = 0u32;
    loop {
        if trace.len() >= limit {
            return (trace, End::Limit);
        }
        trace.push(b);
        visits[b as usize] += 1;
        let v = visits[b as usize];
        b = match cfg.terminator(BlockId(b)).unwrap() {
            Terminator::Return => return (trace, End::Return),
            Terminator::Unreachable => return (trace, End::Unreachable),
            Terminator::Branch(t) => t.0,
            Terminator::CondBranch { t, f } => {
                if decide(seed, b, v) & 1 == 1 {
                    t.0
                } else {
                    f.0
                }
            }
            Terminator::Switch { default, cases } => {
                let val = switch_value(cfg, seed, b, v);
                cfg.cases(cases)
                    .iter()
                    .find(|c| c.0 == val)
                    .map(|c| c.1.0)
                    .unwrap_or(default.0)
            }
        };
    }
}

pub fn run_structured(
    s: &Structured<'_>,
    cfg: &Cfg,
    seed: u64,
    limit: usize,
) -> Result<(Vec<u32>, End), String> {
    let mut visits = vec![0u32; cfg.len()];
    let mut trace = Vec::new();
    let mut flag: Option<u32> = None;
    let mut b = OutBlockId(0);
    let mut steps = 0usize;
    let max_steps = limit * 64 + 10_000;
    loop {
        steps += 1;
        if steps > max_steps {
            return Err(format!(
                "no original block reached in {max_steps} steps (synthetic cycle?)"
            ));
        }
        let blk = s.block(b).ok_or("branch out of range")?;
        if let Some(o) = blk.original {
            if trace.len() >= limit {
                return Ok((trace, End::Limit));
            }
            trace.push(o.0);
            visits[o.index()] += 1;
        }
        if let Some(w) = blk.flag_write {
            flag = Some(w);
        }
        b = match blk.term {
            OutTerminator::Return => return Ok((trace, End::Return)),
            OutTerminator::Unreachable => return Ok((trace, End::Unreachable)),
            OutTerminator::Branch(t) => t,
            OutTerminator::CondBranch { cond, t, f } => {
                let c = match cond {
                    Condition::Original(x) => decide(seed, x.0, visits[x.index()]) & 1 == 1,
                    Condition::FlagEquals(k) => {
                        let Some(v) = flag else {
                            return Err("flag read before any write".into());
                        };
                        v == k
                    }
                };
                if c { t } else { f }
            }
            OutTerminator::Switch {
                selector,
                default,
                cases,
            } => match selector {
                Selector::Zero => default,
                Selector::Original(x) => {
                    let val = switch_value(cfg, seed, x.0, visits[x.index()]);
                    s.cases(cases)
                        .iter()
                        .find(|c| c.0 == val)
                        .map(|c| c.1)
                        .unwrap_or(default)
                }
            },
        };
    }
}

/// Structurize, verify, and compare executions for a few seeds. Returns the number of output blocks.
pub fn check_cfg(st: &mut Structurizer, cfg: &Cfg, seeds: u64) -> Result<usize, String> {
    let s = st.run(cfg).map_err(|e| e.to_string())?;
    verify(&s, cfg).map_err(|e| format!("{e}\n{}", dump(&s, cfg)))?;
    check_phis_and_edges(&s, cfg)?;
    for seed in 0..seeds {
        let (t1, e1) = run_original(cfg, seed, 400);
        let (t2, e2) = run_structured(&s, cfg, seed, 400)
            .map_err(|e| format!("seed {seed}: {e}\n{}", dump(&s, cfg)))?;
        if t1 != t2 || e1 != e2 {
            return Err(format!(
                "seed {seed}: traces differ\noriginal  {t1:?} {e1:?}\nstructured {t2:?} {e2:?}\n{}",
                dump(&s, cfg)
            ));
        }
    }
    Ok(s.blocks().len())
}

/// The phi contract: listed parents are exactly the output predecessors, each standing for an original
/// predecessor; edge first hops leave the block that realizes the original terminator.
/// Dominator tree of the output, computed here independently of the structurizer's own answer.
pub fn out_domtree(s: &Structured<'_>) -> DomTree {
    let mut g = Csr::default();
    g.begin(s.blocks().len());
    for b in 0..s.blocks().len() as u32 {
        g.targets.extend_from_slice(s.out_successors(OutBlockId(b)));
        g.push_row_end();
    }
    let mut preds = Csr::default();
    let mut dt = DomTree::new();
    dt.dfs(&g);
    preds.reverse_of(&g, |v| dt.is_reachable(v));
    dt.finish(&preds);
    dt
}

pub fn check_phis_and_edges(s: &Structured<'_>, cfg: &Cfg) -> Result<(), String> {
    let odt = out_domtree(s);
    // `def_dominates_use` against the output's real dominance (all pairs for small functions, a sample else).
    let n = cfg.len() as u32;
    for u in 0..n {
        let Some(iu) = s.image(BlockId(u)) else {
            continue;
        };
        let ds: Vec<u32> = if n <= 48 {
            (0..n).collect()
        } else {
            (0..8).map(|k| (u * 7919 + k * 104_729) % n).collect()
        };
        for d in ds {
            let Some(id) = s.image(BlockId(d)) else {
                continue;
            };
            let expect = odt.dominates(id.0, iu.0);
            if s.def_dominates_use(BlockId(d), BlockId(u)) != expect {
                return Err(format!(
                    "def_dominates_use({d}, {u}) != output dominance {expect}"
                ));
            }
        }
    }
    for b in 0..cfg.len() as u32 {
        let Some(img) = s.image(BlockId(b)) else {
            continue;
        };
        if let Some(pp) = s.phi_preds(BlockId(b)) {
            let preds = s.out_predecessors(img);
            if pp.len() != preds.len() {
                return Err(format!(
                    "block {b}: phi parents {pp:?} vs output preds {preds:?}"
                ));
            }
            for p in pp {
                if !cfg.successors(p.pred).any(|t| t.0 == b) {
                    return Err(format!(
                        "block {b}: phi parent {:?} maps to non-predecessor {}",
                        p.parent, p.pred
                    ));
                }
                if !odt.dominates(s.image(p.pred).unwrap().0, p.parent.0) {
                    return Err(format!(
                        "block {b}: phi parent {:?} not dominated by its original pred",
                        p.parent
                    ));
                }
            }
        }
        for (slot, _) in cfg.successors(BlockId(b)).enumerate() {
            let (from, to) = s
                .edge_first_hop(BlockId(b), slot)
                .ok_or(format!("no first hop for {b}/{slot}"))?;
            if !odt.dominates(img.0, from.0) || !s.out_successors(from).contains(&to.0) {
                return Err(format!(
                    "block {b} slot {slot}: bad first hop {from:?} → {to:?}"
                ));
            }
        }
    }
    Ok(())
}

pub fn dump(s: &Structured<'_>, cfg: &Cfg) -> String {
    let mut out = String::from("input:\n");
    for b in 0..cfg.len() as u32 {
        out += &format!("  {b}: {:?}", cfg.terminator(BlockId(b)).unwrap());
        if let Some(Terminator::Switch { cases, .. }) = cfg.terminator(BlockId(b)) {
            out += &format!(" {:?}", cfg.cases(cases));
        }
        out.push('\n');
    }
    out += "output:\n";
    for (i, b) in s.blocks().iter().enumerate() {
        out += &format!(
            "  {i}: orig={:?} merge={:?} write={:?} term={:?}",
            b.original, b.merge, b.flag_write, b.term
        );
        if let OutTerminator::Switch { cases, .. } = b.term {
            out += &format!(" {:?}", s.cases(cases));
        }
        out.push('\n');
    }
    out
}

// ------------------------------------------------------------------------------------------------------------------
// SPIR-V module construction and spirv-val.

pub mod spv {
    use super::*;
    use dxil_to_spirv::cfg::Structured;
    use rspirv::binary::Assemble;
    use rspirv::dr::{Builder, Operand};
    use rspirv::spirv::{self, AddressingModel, Capability, Decoration, MemoryModel, StorageClass};

    pub struct Module {
        b: Builder,
        void: u32,
        fn_ty: u32,
        u32_ty: u32,
        bool_ty: u32,
        ptr_sb_u32: u32,
        ptr_fn_u32: u32,
        cond_buf: u32,
        out_buf: u32,
        consts: std::collections::HashMap<u32, u32>,
        functions: usize,
        pub phis: usize,
        pub demoted: usize,
    }

    impl Module {
        pub fn new() -> Self {
            let mut b = Builder::new();
            b.set_version(1, 6);
            b.capability(Capability::Shader);
            b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
            let void = b.type_void();
            let fn_ty = b.type_function(void, vec![]);
            let u32_ty = b.type_int(32, 0);
            let bool_ty = b.type_bool();
            let rta = b.type_runtime_array(u32_ty);
            b.decorate(rta, Decoration::ArrayStride, vec![Operand::LiteralBit32(4)]);
            let st = b.type_struct(vec![rta]);
            b.decorate(st, Decoration::Block, vec![]);
            b.member_decorate(st, 0, Decoration::Offset, vec![Operand::LiteralBit32(0)]);
            let ptr_st = b.type_pointer(None, StorageClass::StorageBuffer, st);
            let ptr_sb_u32 = b.type_pointer(None, StorageClass::StorageBuffer, u32_ty);
            let ptr_fn_u32 = b.type_pointer(None, StorageClass::Function, u32_ty);
            let cond_buf = b.variable(ptr_st, None, StorageClass::StorageBuffer, None);
            let out_buf = b.variable(ptr_st, None, StorageClass::StorageBuffer, None);
            for (v, binding) in [(cond_buf, 0), (out_buf, 1)] {
                b.decorate(v, Decoration::DescriptorSet, vec![Operand::LiteralBit32(0)]);
                b.decorate(v, Decoration::Binding, vec![Operand::LiteralBit32(binding)]);
            }
            let mut m = Module {
                b,
                void,
                fn_ty,
                u32_ty,
                bool_ty,
                ptr_sb_u32,
                ptr_fn_u32,
                cond_buf,
                out_buf,
                consts: Default::default(),
                functions: 0,
                phis: 0,
                demoted: 0,
            };
            // Entry point with an empty body; the test functions are validated on their own.
            let main =
                m.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
                    .unwrap();
            m.b.begin_block(None).unwrap();
            m.b.ret().unwrap();
            m.b.end_function().unwrap();
            m.b.entry_point(
                spirv::ExecutionModel::GLCompute,
                main,
                "main",
                [cond_buf, out_buf],
            );
            m.b.execution_mode(main, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
            m
        }

        fn c(&mut self, v: u32) -> u32 {
            if let Some(&id) = self.consts.get(&v) {
                return id;
            }
            let id = self.b.constant_bit32(self.u32_ty, v);
            self.consts.insert(v, id);
            id
        }

        /// Add one function implementing the structured CFG: each original block appends its id to the output
        /// buffer; conditions and selectors are loaded from the condition buffer in the original block and used
        /// (possibly in a later synthetic block) by its terminator.
        pub fn add(&mut self, s: &Structured<'_>, cfg: &Cfg) {
            self.functions += 1;
            let blocks = s.blocks();
            let labels: Vec<u32> = blocks.iter().map(|_| self.b.id()).collect();
            let zero = self.c(0);
            let one = self.c(1);
            let mut cond_val = vec![0u32; cfg.len()];
            let mut sel_val = vec![0u32; cfg.len()];
            // SSA values crossing blocks: every original block x defines `v[x] = v[idom(x)] + x` (or a phi of its
            // predecessors' values when `phi_preds` allows one). A use whose definition no longer dominates it
            // in the output goes through the demotion variable `spill[idom]`, as the contract says.
            let mut g = Csr::default();
            g.begin(cfg.len());
            for b in 0..cfg.len() as u32 {
                for t in cfg.successors(BlockId(b)) {
                    g.targets.push(t.0);
                }
                g.push_row_end();
            }
            let idom = simple::idoms(&g);
            let val_ids: Vec<u32> = (0..cfg.len()).map(|_| self.b.id()).collect();
            self.b
                .begin_function(self.void, None, spirv::FunctionControl::NONE, self.fn_ty)
                .unwrap();
            let mut flag = 0;
            let mut counter = 0;
            let mut spill = vec![0u32; cfg.len()];
            for (i, blk) in blocks.iter().enumerate() {
                self.b.begin_block(Some(labels[i])).unwrap();
                if i == 0 {
                    flag = self
                        .b
                        .variable(self.ptr_fn_u32, None, StorageClass::Function, None);
                    counter = self
                        .b
                        .variable(self.ptr_fn_u32, None, StorageClass::Function, None);
                    for sp in spill.iter_mut() {
                        *sp = self
                            .b
                            .variable(self.ptr_fn_u32, None, StorageClass::Function, None);
                    }
                    self.b.store(counter, zero, None, vec![]).unwrap();
                }
                if let Some(o) = blk.original {
                    let x = o.index();
                    let phis = s.phi_preds(o).filter(|p| !p.is_empty());
                    let base = if let Some(pp) = phis {
                        // The incoming value of predecessor p is a use at the end of p.
                        if pp.iter().all(|p| s.def_dominates_use(p.pred, p.pred)) {
                            let pairs: Vec<(u32, u32)> = pp
                                .iter()
                                .map(|p| (val_ids[p.pred.index()], labels[p.parent.index()]))
                                .collect();
                            self.phis += 1;
                            Some(self.b.phi(self.u32_ty, None, pairs).unwrap())
                        } else {
                            None
                        }
                    } else {
                        None
                    };
                    let d = idom[x];
                    let base = match (base, d) {
                        (Some(b), _) => b,
                        (None, NONE) => zero,
                        (None, d) if s.def_dominates_use(BlockId(d), o) => val_ids[d as usize],
                        (None, d) => {
                            self.demoted += 1;
                            self.b
                                .load(self.u32_ty, None, spill[d as usize], None, vec![])
                                .unwrap()
                        }
                    };
                    let xc = self.c(o.0);
                    self.b
                        .i_add(self.u32_ty, Some(val_ids[x]), base, xc)
                        .unwrap();
                    self.b.store(spill[x], val_ids[x], None, vec![]).unwrap();
                    let idx = self
                        .b
                        .load(self.u32_ty, None, counter, None, vec![])
                        .unwrap();
                    let slot = self
                        .b
                        .access_chain(self.ptr_sb_u32, None, self.out_buf, vec![zero, idx])
                        .unwrap();
                    let oid = self.c(o.0);
                    self.b.store(slot, oid, None, vec![]).unwrap();
                    let next = self.b.i_add(self.u32_ty, None, idx, one).unwrap();
                    self.b.store(counter, next, None, vec![]).unwrap();
                    match cfg.terminator(o).unwrap() {
                        Terminator::CondBranch { .. } | Terminator::Switch { .. } => {
                            let cp = self
                                .b
                                .access_chain(self.ptr_sb_u32, None, self.cond_buf, vec![zero, oid])
                                .unwrap();
                            let v = self.b.load(self.u32_ty, None, cp, None, vec![]).unwrap();
                            sel_val[o.index()] = v;
                            cond_val[o.index()] =
                                self.b.i_not_equal(self.bool_ty, None, v, zero).unwrap();
                        }
                        _ => {}
                    }
                }
                if let Some(w) = blk.flag_write {
                    let k = self.c(w);
                    self.b.store(flag, k, None, vec![]).unwrap();
                }
                match blk.merge {
                    Merge::None => {}
                    Merge::Selection { merge } => self
                        .b
                        .selection_merge(labels[merge.index()], spirv::SelectionControl::NONE)
                        .unwrap(),
                    Merge::Loop {
                        merge,
                        continue_target,
                    } => self
                        .b
                        .loop_merge(
                            labels[merge.index()],
                            labels[continue_target.index()],
                            spirv::LoopControl::NONE,
                            vec![],
                        )
                        .unwrap(),
                }
                match blk.term {
                    OutTerminator::Return => self.b.ret().unwrap(),
                    OutTerminator::Unreachable => self.b.unreachable().unwrap(),
                    OutTerminator::Branch(t) => self.b.branch(labels[t.index()]).unwrap(),
                    OutTerminator::CondBranch { cond, t, f } => {
                        let c = match cond {
                            Condition::Original(x) => cond_val[x.index()],
                            Condition::FlagEquals(k) => {
                                let kc = self.c(k);
                                let v = self.b.load(self.u32_ty, None, flag, None, vec![]).unwrap();
                                self.b.i_equal(self.bool_ty, None, v, kc).unwrap()
                            }
                        };
                        self.b
                            .branch_conditional(c, labels[t.index()], labels[f.index()], vec![])
                            .unwrap()
                    }
                    OutTerminator::Switch {
                        selector,
                        default,
                        cases,
                    } => {
                        let sel = match selector {
                            Selector::Zero => zero,
                            Selector::Original(x) => sel_val[x.index()],
                        };
                        let targets: Vec<(Operand, u32)> = s
                            .cases(cases)
                            .iter()
                            .map(|&(lit, t)| (Operand::LiteralBit32(lit as u32), labels[t.index()]))
                            .collect();
                        self.b
                            .switch(sel, labels[default.index()], targets)
                            .unwrap()
                    }
                }
            }
            self.b.end_function().unwrap();
        }

        pub fn functions(&self) -> usize {
            self.functions
        }

        pub fn words(self) -> Vec<u32> {
            self.b.module().assemble()
        }
    }

    /// `None` when spirv-val is not installed (the caller decides whether that is fatal).
    pub fn validate(words: &[u32], tag: &str) -> Option<Result<(), String>> {
        let dir = std::env::temp_dir().join(format!("dxil-structurize-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let path = dir.join(format!("{tag}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).ok()?;
        let out = std::process::Command::new("spirv-val")
            .arg("--target-env")
            .arg("vulkan1.3")
            .arg(&path)
            .output();
        let out = match out {
            Ok(o) => o,
            Err(_) => return None,
        };
        let _ = std::fs::remove_file(&path);
        if out.status.success() {
            Some(Ok(()))
        } else {
            Some(Err(format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )))
        }
    }

    pub fn available() -> bool {
        let ok = std::process::Command::new("spirv-val")
            .arg("--version")
            .output()
            .is_ok();
        if !ok {
            if std::env::var_os("CI").is_some() {
                panic!("spirv-val is required in CI (install spirv-tools)");
            }
            eprintln!(
                "SKIPPED: spirv-val not found; install spirv-tools to run the SPIR-V validation tests"
            );
        }
        ok
    }
}

pub fn validate_one(st: &mut Structurizer, cfg: &Cfg, tag: &str) -> Result<(), String> {
    let s = st.run(cfg).map_err(|e| e.to_string())?;
    let mut m = spv::Module::new();
    m.add(&s, cfg);
    match spv::validate(&m.words(), tag) {
        Some(Ok(())) | None => Ok(()),
        Some(Err(e)) => Err(format!("spirv-val: {e}\n{}", dump(&s, cfg))),
    }
}
