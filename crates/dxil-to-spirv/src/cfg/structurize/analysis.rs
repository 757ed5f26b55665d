//! Analysis: depth-first orders, dominators, loops, loop-exit placement and the placement tree (step 1 and 2
//! of the algorithm in the parent module).

use super::*;

impl Structurizer {
    pub(super) fn analyze(&mut self, cfg: &Cfg) -> Result<(), StructurizeError> {
        let n = cfg.len();
        if n == 0 {
            return Err(StructurizeError::Empty);
        }
        if n > MAX_BLOCKS {
            return Err(StructurizeError::TooManyBlocks {
                count: n,
                max: MAX_BLOCKS,
            });
        }
        // Deduplicated successors, and each block's first edge slot.
        self.stamp.clear();
        self.stamp.resize(n, NONE);
        self.edge_base.clear();
        self.succ.begin(n);
        let mut slots = 0u32;
        for b in 0..n as u32 {
            self.edge_base.push(slots);
            if let Some(Terminator::Switch { cases, .. }) = cfg.terminator(BlockId(b)) {
                self.literals.clear();
                self.literals.extend(cfg.cases(cases).iter().map(|c| c.0));
                self.literals.sort_unstable();
                if let Some(w) = self.literals.windows(2).find(|w| w[0] == w[1]) {
                    return Err(StructurizeError::DuplicateCase {
                        block: BlockId(b),
                        literal: w[0],
                    });
                }
            }
            for t in cfg.successors(BlockId(b)) {
                slots = slots.checked_add(1).filter(|&s| s <= MAX_EDGES).ok_or(
                    StructurizeError::TooManyEdges {
                        max: MAX_EDGES as usize,
                    },
                )?;
                if t.index() >= n {
                    return Err(StructurizeError::InvalidTarget {
                        block: BlockId(b),
                        target: t.0,
                        count: n,
                    });
                }
                if self.stamp[t.index()] != b {
                    self.stamp[t.index()] = b;
                    self.succ.targets.push(t.0);
                }
            }
            self.succ.push_row_end();
        }
        self.edge_base.push(slots);
        self.dt.dfs(&self.succ);
        {
            let dt = &self.dt;
            self.preds.reverse_of(&self.succ, |v| dt.is_reachable(v));
        }
        self.dt.finish(&self.preds);
        // Classify edges.
        self.is_header.clear();
        self.is_header.resize(n, false);
        self.fwd_preds.clear();
        self.fwd_preds.resize(n, 0);
        for i in 0..self.dt.rpo.len() {
            let x = self.dt.rpo[i];
            let xi = i as u32;
            for &t in self.succ.succ(x) {
                if self.dt.dominates(t, x) {
                    self.is_header[t as usize] = true;
                } else if self.dt.rpo_index[t as usize] <= xi {
                    return Err(self.irreducible(t, x));
                } else {
                    self.fwd_preds[t as usize] += 1;
                }
            }
        }
        self.is_merge.clear();
        self.is_merge.extend(self.fwd_preds.iter().map(|&c| c >= 2));
        self.loops.compute(&self.dt, &self.preds, &self.is_header);
        self.place_loop_exits();
        Ok(())
    }

    /// `if (c) { A } else { B }` where `A` is a dead end (returns, never comes back) and there is no merge child:
    /// without this, `B` and everything after it would nest inside the selection, and nesting depth would grow
    /// with every early return in a function. `B` is made the selection's merge instead (`if (c) { A } B`).
    /// Arms that both lead on elsewhere keep a merge of their own, which forwards without a flag.
    pub(super) fn promote_continuations(&mut self) {
        let n = self.dt.pre.len();
        self.counts_scratch.clear();
        self.counts_scratch.resize(n, 0);
        self.stamp.clear();
        self.stamp.resize(n, 0);
        // stamp[x] = 1 when x has a follow child placed inside its own construct (x's code is followed by a scope).
        for &c in self.dt.rpo.iter().rev() {
            self.counts_scratch[c as usize] += 1;
            let p = self.tparent[c as usize];
            if p != NONE {
                self.counts_scratch[p as usize] += self.counts_scratch[c as usize];
                let placed_inside = !self.is_header[p as usize] || self.loops.in_loop(c, p);
                if self.is_follow[c as usize] && placed_inside {
                    self.stamp[p as usize] = 1;
                }
            }
        }
        for i in 0..self.dt.rpo.len() {
            let x = self.dt.rpo[i];
            let s = self.succ.succ(x);
            if s.len() != 2 || self.stamp[x as usize] != 0 {
                continue;
            }
            let inline = |c: u32| self.tparent[c as usize] == x && !self.is_follow[c as usize];
            if inline(s[0]) && inline(s[1]) {
                let (a, b) = (s[0], s[1]);
                let closed = |v: u32| self.ext_one[v as usize] == NONE;
                let pick = match (closed(a), closed(b)) {
                    (true, true)
                        if self.counts_scratch[a as usize] > self.counts_scratch[b as usize] =>
                    {
                        a
                    }
                    (true, _) => b,
                    (false, true) => a,
                    (false, false) => continue,
                };
                self.is_follow[pick as usize] = true;
            }
        }
    }

    /// For every block, the single target outside its dominator subtree that edges from the subtree reach:
    /// `NONE` when there is none (a dead end: every path returns), `MANY` when there are several.
    pub(super) fn find_exit_targets(&mut self) {
        let n = self.dt.pre.len();
        self.ext_one.clear();
        self.ext_one.resize(n, NONE);
        let join = |cur: u32, t: u32| match (cur, t) {
            (_, NONE) => cur,
            (NONE, t) => t,
            (c, t) if c == t => c,
            _ => MANY,
        };
        for &u in &self.dt.rpo {
            let mut e = NONE;
            for &v in self.succ.succ(u) {
                if !self.dt.dominates(u, v) {
                    e = join(e, v);
                }
            }
            self.ext_one[u as usize] = e;
        }
        // Fold children into parents (reverse RPO visits a block after everything it dominates).
        for &u in self.dt.rpo.iter().rev() {
            let Some(d) = self.dt.idom_of(u) else {
                continue;
            };
            let t = self.ext_one[u as usize];
            let t = if t != MANY && t != NONE && self.dt.dominates(d, t) {
                NONE
            } else {
                t
            };
            self.ext_one[d as usize] = join(self.ext_one[d as usize], t);
        }
    }

    /// The outermost loop that contains `c`'s dominator `d` but not `c`, climbing only loops whose header `root`
    /// dominates (any loop when `root` is `NONE`); `NONE` when `c` is not such a loop exit.
    pub(super) fn exited_loop(&self, c: u32, d: u32, root: u32) -> u32 {
        let allowed = |l: u32| root == NONE || self.dt.dominates(root, l);
        let mut l = self.loops.innermost[d as usize];
        if l == NONE || self.loops.in_loop(c, l) || !allowed(l) {
            return NONE;
        }
        while self.loops.parent[l as usize] != NONE
            && !self.loops.in_loop(c, self.loops.parent[l as usize])
            && allowed(self.loops.parent[l as usize])
        {
            l = self.loops.parent[l as usize];
        }
        l
    }

    /// Build the placement tree. A block outside the innermost loop of its immediate dominator is a loop exit: it
    /// is hung under the header of the outermost loop that contains its dominator but not itself and becomes a
    /// follower of that loop, so its code goes after the loop instead of inside it (natural `while` shape, and
    /// `continue`s from it need no forwarding). Every predecessor of such a block is still inside that header's
    /// region, before it in reverse postorder, which is what the scope nesting needs. Exits with one predecessor
    /// whose code leads to at most one place may instead stay inline (see below).
    pub(super) fn place_loop_exits(&mut self) {
        let n = self.dt.pre.len();
        self.tparent.clear();
        self.tparent.resize(n, NONE);
        self.is_follow.clear();
        self.is_follow.extend_from_slice(&self.is_merge);
        self.find_exit_targets();
        if self.is_header.iter().all(|&h| !h) {
            // No loops, so no loop exits: every block hangs under its immediate dominator and nothing more
            // becomes a follower.
            for &c in &self.dt.rpo {
                if let Some(d) = self.dt.idom_of(c) {
                    self.tparent[c as usize] = d;
                }
            }
        } else {
            self.place_exits_of_loops();
        }
        self.promote_continuations();
        self.tree_children();
    }

    /// The loop-exit part of [`Structurizer::place_loop_exits`].
    pub(super) fn place_exits_of_loops(&mut self) {
        let n = self.dt.pre.len();
        // Which exits of each loop must follow it: the ones with several predecessors, or whose code leads on to
        // several places. If there are none, the exit with the largest code follows it (it is the loop's natural
        // merge); the other exits stay inline, each ending in one branch that the loop's merge forwards without
        // a flag (`if (c) { …; break; }`, `if (c) { …; return; }`).
        self.exit_must.clear();
        self.exit_must.resize(n, 0);
        self.exit_best.clear();
        self.exit_best.resize(n, NONE);
        self.exit_small.clear();
        self.exit_small.resize(n, 0);
        self.exit_target.clear();
        self.exit_target.resize(n, NONE);
        for &c in &self.dt.rpo {
            let Some(d) = self.dt.idom_of(c) else {
                continue;
            };
            let h = self.exited_loop(c, d, NONE);
            if h == NONE {
                continue;
            }
            if self.is_merge[c as usize] || self.ext_one[c as usize] == MANY {
                self.exit_must[h as usize] += 1;
            } else {
                let size = |v: u32| {
                    let (a, e) = self.dt.dom_interval(v);
                    e - a
                };
                let best = self.exit_best[h as usize];
                if best == NONE || size(c) > size(best) {
                    self.exit_best[h as usize] = c;
                }
                // Small exits that all lead to the same place need no natural merge at all: the loop's merge
                // then forwards that one destination without a flag.
                let hs = h as usize;
                self.exit_small[hs] = self.exit_small[hs].saturating_add(size(c));
                let t = self.ext_one[c as usize];
                self.exit_target[hs] = match (self.exit_target[hs], t) {
                    (x, NONE) => x,
                    (NONE, t) => t,
                    (x, t) if x == t => x,
                    _ => MANY,
                };
            }
        }
        for h in 0..n {
            let t = self.exit_target[h];
            if self.exit_must[h] == 0 && t != NONE && t != MANY && self.exit_small[h] <= SMALL_EXITS
            {
                self.exit_best[h] = NONE;
            }
        }
        // An exit kept inline is the root of a region whose own loop exits may only leave loops inside it. Roots
        // have one predecessor (their dominator), so nothing outside a region is placed away from it.
        self.inline_root.clear();
        self.inline_root.resize(n, NONE);
        for &c in &self.dt.rpo {
            let Some(d) = self.dt.idom_of(c) else {
                continue;
            };
            let mut root = self.inline_root[d as usize];
            let mut parent = d;
            let h = self.exited_loop(c, d, root);
            let mut inline = false;
            if h != NONE {
                let eligible = !self.is_merge[c as usize] && self.ext_one[c as usize] != MANY;
                let natural_merge =
                    self.exit_must[h as usize] == 0 && self.exit_best[h as usize] == c;
                if eligible && !natural_merge {
                    root = c;
                    inline = true;
                } else {
                    parent = h;
                }
            }
            self.inline_root[c as usize] = root;
            self.tparent[c as usize] = parent;
            if !inline && self.is_header[parent as usize] && !self.loops.in_loop(c, parent) {
                self.is_follow[c as usize] = true;
            }
        }
    }

    /// Children lists of the placement tree, in reverse postorder.
    pub(super) fn tree_children(&mut self) {
        let n = self.dt.pre.len();
        self.counts_scratch.clear();
        self.counts_scratch.resize(n + 1, 0);
        for &c in &self.dt.rpo {
            let p = self.tparent[c as usize];
            if p != NONE {
                self.counts_scratch[p as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.counts_scratch[i + 1] += self.counts_scratch[i];
        }
        self.tchildren.clear();
        self.tchildren
            .offsets
            .extend_from_slice(&self.counts_scratch);
        self.tchildren
            .targets
            .resize(self.counts_scratch[n] as usize, 0);
        for &c in &self.dt.rpo {
            let p = self.tparent[c as usize];
            if p != NONE {
                let slot = &mut self.counts_scratch[p as usize];
                self.tchildren.targets[*slot as usize] = c;
                *slot += 1;
            }
        }
    }

    /// Error for the retreating edge `x → t` whose target does not dominate its source: `t` is a DFS ancestor of
    /// `x`, so the DFS-tree path `t … x` plus the edge is a cycle, and it is entered somewhere other than `t`.
    #[cold]
    pub(super) fn irreducible(&self, t: u32, x: u32) -> StructurizeError {
        let mut path = Vec::new();
        let mut p = self.dt.pre[x as usize];
        let tp = self.dt.pre[t as usize];
        while p != tp && path.len() <= self.dt.order.len() {
            path.push(self.dt.order[p as usize]);
            p = self.dt.dfs_parent[p as usize];
        }
        path.push(t);
        path.reverse();
        let mut in_cycle = vec![false; self.dt.pre.len()];
        for &v in &path {
            in_cycle[v as usize] = true;
        }
        let mut entries = Vec::new();
        for &v in &path {
            let entered = v == 0 || self.preds.succ(v).iter().any(|&q| !in_cycle[q as usize]);
            if entered && entries.len() < MAX_REPORTED_CYCLE {
                entries.push(BlockId(v));
            }
        }
        let truncated = path.len() > MAX_REPORTED_CYCLE;
        path.truncate(MAX_REPORTED_CYCLE);
        StructurizeError::Irreducible {
            cycle: path.into_iter().map(BlockId).collect(),
            truncated,
            entries,
        }
    }
}
