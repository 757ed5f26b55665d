//! Independent checker for a [`Structured`] output: re-derives dominance and constructs from the output blocks
//! alone and checks the structured-control-flow rules the structurizer relies on (SPIR-V 2.11 / 2.16.2, read the
//! way spirv-val reads them). Meant for tests and debugging: costs O(blocks × nesting depth).
//!
//! Checked: every reachable original block appears exactly once; block 0 is not a branch target; blocks appear
//! after their immediate dominators; merge instructions precede the right terminators and merges/continue targets
//! are unique; headers strictly dominate their (reachable) merges and loop headers their continue targets; each
//! loop header has exactly one back edge, from its continue construct, and every retreating edge is such a back
//! edge; a construct is entered only through its header; every edge leaving a construct is a structured exit of
//! it (its merge; for loops the continue target; for `if`s the nearest enclosing switch's merge and the nearest
//! loop's merge/continue; for switches the nearest loop's merge/continue; for continue constructs the loop's
//! header or merge); a conditional branch without a merge instruction has at least one target that exits its
//! innermost construct; a switch has a merge; case targets are dominated by the switch header.

use super::domtree::{Csr, DomTree, NONE};
use super::{BlockId, Cfg, Condition, Merge, OutTerminator, Selector, Structured};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("structured CFG check failed: {0}")]
pub struct VerifyError(pub String);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CKind {
    If,
    Switch,
    Loop,
    Continue,
}

#[derive(Clone, Copy, Debug)]
struct Con {
    kind: CKind,
    header: u32,
    merge: u32,
    cont: u32,
    /// For a continue construct: its loop header.
    loop_header: u32,
}

macro_rules! bail {
    ($($t:tt)*) => { return Err(VerifyError(format!($($t)*))) };
}

/// Check `s`, the structurization of `cfg`.
pub fn verify(s: &Structured<'_>, cfg: &Cfg) -> Result<(), VerifyError> {
    let blocks = s.blocks();
    let nb = blocks.len();
    if nb == 0 {
        bail!("no output blocks");
    }
    let succ = output_graph(s)?;
    let mut dt = DomTree::new();
    dt.dfs(&succ);
    let mut preds = Csr::default();
    preds.reverse_of(&succ, |v| dt.is_reachable(v));
    dt.finish(&preds);
    check_originals(s, cfg, &dt)?;
    if !preds.succ(0).is_empty() {
        bail!("the entry block is a branch target");
    }
    // Order.
    for b in 1..nb as u32 {
        if let Some(d) = dt.idom_of(b)
            && d >= b
        {
            bail!("block {b} appears before its immediate dominator {d}");
        }
    }

    let nest = Nesting::new(s, &succ, constructs(s, &dt)?);
    nest.check_back_edges(&succ, &dt)?;
    nest.check_edges(s, &succ, &dt)
}

/// The output blocks' successor graph, checking targets and which merge instruction may precede
/// which terminator.
fn output_graph(s: &Structured<'_>) -> Result<Csr, VerifyError> {
    let blocks = s.blocks();
    let nb = blocks.len();
    let mut succ = Csr::default();
    succ.begin(nb);
    for (i, b) in blocks.iter().enumerate() {
        let row = succ.targets.len();
        let push = |t: u32, succ: &mut Csr| -> Result<(), VerifyError> {
            if t as usize >= nb {
                bail!("block {i} targets {t}, out of range");
            }
            if !succ.targets[row..].contains(&t) {
                succ.targets.push(t);
            }
            Ok(())
        };
        match b.term {
            OutTerminator::Return | OutTerminator::Unreachable => {}
            OutTerminator::Branch(t) => push(t.0, &mut succ)?,
            OutTerminator::CondBranch { t, f, cond } => {
                if t == f {
                    bail!("block {i}: conditional branch with equal targets");
                }
                if let Condition::Original(o) = cond
                    && b.original.is_some()
                    && b.original != Some(o)
                {
                    bail!("block {i} branches on the condition of another original block");
                }
                push(t.0, &mut succ)?;
                push(f.0, &mut succ)?;
            }
            OutTerminator::Switch {
                selector,
                default,
                cases,
            } => {
                if selector == Selector::Zero && !s.cases(cases).is_empty() {
                    bail!("block {i}: zero-selector switch with cases");
                }
                push(default.0, &mut succ)?;
                for &(_, c) in s.cases(cases) {
                    push(c.0, &mut succ)?;
                }
            }
        }
        succ.push_row_end();
        match (b.merge, b.term) {
            (
                Merge::Selection { .. },
                OutTerminator::CondBranch { .. } | OutTerminator::Switch { .. },
            ) => {}
            (Merge::Selection { .. }, _) => {
                bail!("block {i}: OpSelectionMerge before a non-conditional terminator")
            }
            (Merge::Loop { .. }, OutTerminator::Branch(_) | OutTerminator::CondBranch { .. }) => {}
            (Merge::Loop { .. }, _) => bail!("block {i}: OpLoopMerge before a switch or return"),
            (Merge::None, OutTerminator::Switch { .. }) => {
                bail!("block {i}: switch without a merge")
            }
            _ => {}
        }
    }
    Ok(succ)
}

/// Every original block reachable in `cfg` appears exactly once, reachable, as its own image.
fn check_originals(s: &Structured<'_>, cfg: &Cfg, dt: &DomTree) -> Result<(), VerifyError> {
    let blocks = s.blocks();
    let mut seen = vec![false; cfg.len()];
    for (i, b) in blocks.iter().enumerate() {
        if let Some(o) = b.original {
            let Some(flag) = seen.get_mut(o.index()) else {
                bail!("block {i}: original {o} out of range")
            };
            if *flag {
                bail!("{o} appears twice");
            }
            *flag = true;
            if !dt.is_reachable(i as u32) {
                bail!("{o} (output block {i}) is unreachable in the output");
            }
            if s.image(o) != Some(super::OutBlockId(i as u32)) {
                bail!("image of {o} is not block {i}");
            }
        }
    }
    {
        let mut g = Csr::default();
        g.begin(cfg.len());
        for b in 0..cfg.len() as u32 {
            for t in cfg.successors(BlockId(b)) {
                g.targets.push(t.0);
            }
            g.push_row_end();
        }
        let mut odt = DomTree::new();
        odt.dfs(&g);
        for (b, &present) in seen.iter().enumerate() {
            if present != odt.is_reachable(b as u32) {
                bail!(
                    "block {b}: reachable originally = {}, present in output = {present}",
                    !present
                );
            }
        }
    }
    Ok(())
}

/// The constructs the merge instructions declare (a loop adds its continue construct), and per
/// block the construct it heads and the continue construct it heads.
fn constructs(s: &Structured<'_>, dt: &DomTree) -> Result<Declared, VerifyError> {
    let blocks = s.blocks();
    let nb = blocks.len();
    let mut cons: Vec<Con> = Vec::new();
    let mut headed = vec![NONE; nb];
    let mut cont_headed = vec![NONE; nb];
    let mut is_merge_of = vec![NONE; nb];
    for (i, b) in blocks.iter().enumerate() {
        let i = i as u32;
        let (merge, cont) = match b.merge {
            Merge::None => continue,
            Merge::Selection { merge } => (merge.0, NONE),
            Merge::Loop {
                merge,
                continue_target,
            } => (merge.0, continue_target.0),
        };
        if merge as usize >= nb || (cont != NONE && cont as usize >= nb) {
            bail!("block {i}: merge/continue out of range");
        }
        if !dt.is_reachable(i) {
            continue;
        }
        if is_merge_of[merge as usize] != NONE {
            bail!(
                "block {merge} is the merge of both {} and {i}",
                is_merge_of[merge as usize]
            );
        }
        is_merge_of[merge as usize] = i;
        if dt.is_reachable(merge) && (merge == i || !dt.dominates(i, merge)) {
            bail!("header {i} does not strictly dominate its merge {merge}");
        }
        let kind = match (b.merge, b.term) {
            (Merge::Loop { .. }, _) => CKind::Loop,
            (_, OutTerminator::Switch { .. }) => CKind::Switch,
            _ => CKind::If,
        };
        headed[i as usize] = cons.len() as u32;
        cons.push(Con {
            kind,
            header: i,
            merge,
            cont,
            loop_header: NONE,
        });
        if kind == CKind::Loop {
            if cont == merge || cont == i {
                bail!("loop {i}: continue target {cont} equals its merge or header");
            }
            if cont_headed[cont as usize] != NONE {
                bail!("block {cont} is the continue target of two loops");
            }
            if dt.is_reachable(cont) && !dt.dominates(i, cont) {
                bail!("loop header {i} does not dominate its continue target {cont}");
            }
            cont_headed[cont as usize] = cons.len() as u32;
            cons.push(Con {
                kind: CKind::Continue,
                header: cont,
                merge,
                cont,
                loop_header: i,
            });
        }
    }
    for (c, &m) in cont_headed.iter().zip(&is_merge_of) {
        if *c != NONE && m != NONE {
            bail!("a continue target is also a merge block");
        }
    }
    Ok(Declared {
        cons,
        headed,
        cont_headed,
    })
}
/// The constructs the merge instructions declare, and per block the index of the construct (and of
/// the continue construct) it heads, or `NONE`.
struct Declared {
    cons: Vec<Con>,
    headed: Vec<u32>,
    cont_headed: Vec<u32>,
}

/// Constructs with their nesting under structural dominance.
struct Nesting {
    cons: Vec<Con>,
    headed: Vec<u32>,
    cont_headed: Vec<u32>,
    /// Dominators of the output graph plus an edge from every header to its merge and from every
    /// loop header to its continue target.
    sdt: DomTree,
    /// Innermost construct of each reachable block.
    inner: Vec<u32>,
    /// Each construct's parent construct.
    parent: Vec<u32>,
}

impl Nesting {
    // Constructs are defined by *structural* dominance: dominance in the CFG plus an edge from every header to its
    // merge and from every loop header to its continue target (SPIR-V 2.11). This keeps merge blocks and continue
    // constructs out of the selections nested inside the construct that declares them.
    fn new(s: &Structured<'_>, succ: &Csr, declared: Declared) -> Self {
        let Declared {
            cons,
            headed,
            cont_headed,
        } = declared;
        let blocks = s.blocks();
        let nb = blocks.len();
        let mut aug = Csr::default();
        aug.begin(nb);
        for (i, b) in blocks.iter().enumerate() {
            aug.targets.extend_from_slice(succ.succ(i as u32));
            match b.merge {
                Merge::None => {}
                Merge::Selection { merge } => aug.targets.push(merge.0),
                Merge::Loop {
                    merge,
                    continue_target,
                } => {
                    aug.targets.push(merge.0);
                    aug.targets.push(continue_target.0);
                }
            }
            aug.push_row_end();
        }
        let mut sdt = DomTree::new();
        sdt.dfs(&aug);
        let mut apreds = Csr::default();
        apreds.reverse_of(&aug, |v| sdt.is_reachable(v));
        sdt.finish(&apreds);
        let mut n = Nesting {
            cons,
            headed,
            cont_headed,
            sdt,
            inner: vec![NONE; nb],
            parent: Vec::new(),
        };
        for b in 0..nb as u32 {
            if n.sdt.is_reachable(b) {
                n.inner[b as usize] = n.innermost_from(b, b, NONE);
            }
        }
        n.parent = (0..n.cons.len() as u32)
            .map(|k| {
                let h = n.cons[k as usize].header;
                n.innermost_from(h, h, k)
            })
            .collect();
        n
    }

    fn contains(&self, k: &Con, b: u32) -> bool {
        let sdt = &self.sdt;
        let out_of_merge = !sdt.dominates(k.merge, b);
        match k.kind {
            CKind::If | CKind::Switch => sdt.dominates(k.header, b) && out_of_merge,
            CKind::Loop => sdt.dominates(k.header, b) && out_of_merge && !sdt.dominates(k.cont, b),
            CKind::Continue => sdt.dominates(k.header, b) && out_of_merge,
        }
    }

    /// The innermost construct containing `b`, other than `skip`, found climbing the structural
    /// dominators from `start`.
    fn innermost_from(&self, start: u32, b: u32, skip: u32) -> u32 {
        let mut a = start;
        loop {
            for id in [self.cont_headed[a as usize], self.headed[a as usize]] {
                if id != NONE && id != skip && self.contains(&self.cons[id as usize], b) {
                    return id;
                }
            }
            match self.sdt.idom_of(a) {
                Some(d) => a = d,
                None => return NONE,
            }
        }
    }

    /// Whether a branch from inside construct `k` may go to `b` (a structured exit of `k`).
    fn is_exit(&self, k: u32, b: u32) -> bool {
        let c = self.cons[k as usize];
        if b == c.merge {
            return true;
        }
        match c.kind {
            CKind::Loop => b == c.cont,
            CKind::Continue => b == c.loop_header,
            CKind::If | CKind::Switch => {
                let mut seen_switch = c.kind == CKind::Switch;
                let mut p = self.parent[k as usize];
                while p != NONE {
                    let pc = self.cons[p as usize];
                    match pc.kind {
                        CKind::Loop => return b == pc.merge || b == pc.cont,
                        CKind::Switch => {
                            if !seen_switch && b == pc.merge {
                                return true;
                            }
                            seen_switch = true;
                        }
                        CKind::If => {}
                        CKind::Continue => return false,
                    }
                    p = self.parent[p as usize];
                }
                false
            }
        }
    }

    /// Every retreating edge is the one back edge of a loop, from its continue construct.
    fn check_back_edges(&self, succ: &Csr, dt: &DomTree) -> Result<(), VerifyError> {
        let nb = self.inner.len();
        let mut back_edges = vec![0u32; nb];
        for a in 0..nb as u32 {
            if !dt.is_reachable(a) {
                continue;
            }
            for &b in succ.succ(a) {
                if b <= a {
                    if !dt.dominates(b, a) {
                        bail!("retreating edge {a} → {b} is not a back edge");
                    }
                    let k = self.headed[b as usize];
                    if k == NONE || self.cons[k as usize].kind != CKind::Loop {
                        bail!("back edge {a} → {b} to a block that is not a loop header");
                    }
                    let ck = self.cont_headed[self.cons[k as usize].cont as usize];
                    if ck == NONE || !self.contains(&self.cons[ck as usize], a) {
                        bail!(
                            "back edge {a} → {b} does not come from the loop's continue construct"
                        );
                    }
                    back_edges[b as usize] += 1;
                }
            }
        }
        for c in &self.cons {
            if c.kind == CKind::Loop
                && dt.is_reachable(c.cont)
                && back_edges[c.header as usize] != 1
            {
                bail!(
                    "loop header {} has {} back edges",
                    c.header,
                    back_edges[c.header as usize]
                );
            }
        }
        Ok(())
    }

    /// Constructs are entered only through their headers and left only through structured exits.
    fn check_edges(&self, s: &Structured<'_>, succ: &Csr, dt: &DomTree) -> Result<(), VerifyError> {
        let blocks = s.blocks();
        let nb = blocks.len();
        for a in 0..nb as u32 {
            if !dt.is_reachable(a) {
                continue;
            }
            let ca = self.inner[a as usize];
            let mut exit_target = false;
            for &b in succ.succ(a) {
                // Entering.
                let mut k = self.inner[b as usize];
                while k != NONE && !self.contains(&self.cons[k as usize], a) {
                    if self.cons[k as usize].header != b {
                        bail!(
                            "edge {a} → {b} enters the construct headed by {} in its middle",
                            self.cons[k as usize].header
                        );
                    }
                    k = self.parent[k as usize];
                }
                // Leaving.
                let back = dt.dominates(b, a);
                let mut k = ca;
                while k != NONE && !self.contains(&self.cons[k as usize], b) {
                    if back
                        && self.cons[k as usize].kind == CKind::Continue
                        && self.cons[k as usize].loop_header == b
                    {
                        break;
                    }
                    if !self.is_exit(k, b) {
                        bail!(
                            "edge {a} → {b} leaves the {:?} construct headed by {} but is not a structured exit",
                            self.cons[k as usize].kind,
                            self.cons[k as usize].header
                        );
                    }
                    if k == ca {
                        exit_target = true;
                    }
                    k = self.parent[k as usize];
                }
            }
            let blk = &blocks[a as usize];
            if let (Merge::None, OutTerminator::CondBranch { .. }) = (blk.merge, blk.term)
                && !exit_target
            {
                bail!(
                    "block {a}: conditional branch without a merge and without a break/continue target"
                );
            }
            if let (Merge::Selection { .. }, OutTerminator::Switch { default, cases, .. }) =
                (blk.merge, blk.term)
            {
                let merge = self.cons[self.headed[a as usize] as usize].merge;
                for t in std::iter::once(default).chain(s.cases(cases).iter().map(|c| c.1)) {
                    if t.0 != merge && !dt.dominates(a, t.0) {
                        bail!(
                            "switch {a}: case target {} is not dominated by the header",
                            t.0
                        );
                    }
                }
            }
        }
        Ok(())
    }
}
