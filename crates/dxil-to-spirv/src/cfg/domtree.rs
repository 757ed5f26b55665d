//! Depth-first numbering and dominator trees (Semi-NCA), with O(1) dominance queries.
//!
//! Semi-NCA (Georgiadis' variant of Lengauer–Tarjan, the one LLVM uses) computes semidominators with path
//! compression and then the immediate dominators by a nearest-common-ancestor walk; Cooper–Harvey–Kennedy's
//! iterative algorithm, simpler but with a quadratic worst case (long ladders), lives in [`simple`] as the test
//! baseline. Every traversal uses explicit stacks: the input decides the graph's depth.

pub mod simple;

/// Marker for "no node" in the `u32` tables.
pub const NONE: u32 = u32::MAX;

/// A graph in compressed sparse row form: the successors of node `v` are `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub targets: Vec<u32>,
}

impl Csr {
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.targets.clear();
    }

    pub fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Out-neighbours of `v` (empty for a node out of range).
    #[inline]
    pub fn succ(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => self.targets.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Start a new row-by-row build for `n` nodes; call [`Csr::push_row_end`] once per node in order.
    pub fn begin(&mut self, n: usize) {
        self.clear();
        self.offsets.reserve(n + 1);
        self.offsets.push(0);
    }

    /// Close the row of the next node: the targets pushed since the previous call belong to it.
    #[inline]
    pub fn push_row_end(&mut self) {
        self.offsets.push(self.targets.len() as u32);
    }

    /// Fill `self` with the reverse of `g` restricted to edges whose source satisfies `keep`.
    pub fn reverse_of(&mut self, g: &Csr, keep: impl Fn(u32) -> bool) {
        let n = g.node_count();
        self.clear();
        self.offsets.resize(n + 1, 0);
        for v in 0..n as u32 {
            if !keep(v) {
                continue;
            }
            for &w in g.succ(v) {
                if let Some(c) = self.offsets.get_mut(w as usize + 1) {
                    *c += 1;
                }
            }
        }
        for i in 0..n {
            self.offsets[i + 1] += self.offsets[i];
        }
        self.targets.resize(self.offsets[n] as usize, 0);
        // Scatter with a moving cursor per row; `offsets[w]` is restored afterwards by shifting.
        for v in 0..n as u32 {
            if !keep(v) {
                continue;
            }
            for &w in g.succ(v) {
                let slot = &mut self.offsets[w as usize];
                self.targets[*slot as usize] = v;
                *slot += 1;
            }
        }
        for i in (1..=n).rev() {
            self.offsets[i] = self.offsets[i - 1];
        }
        self.offsets[0] = 0;
    }
}

/// Depth-first numbering from node 0 and the dominator tree of the reachable nodes.
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    /// Node → DFS preorder number, `NONE` when unreachable.
    pub pre: Vec<u32>,
    /// DFS preorder number → node.
    pub order: Vec<u32>,
    /// DFS preorder number → preorder number of its DFS-tree parent (entry: 0).
    pub dfs_parent: Vec<u32>,
    /// Reachable nodes in reverse postorder.
    pub rpo: Vec<u32>,
    /// Node → position in `rpo`, `NONE` when unreachable.
    pub rpo_index: Vec<u32>,
    /// Node → immediate dominator, `NONE` for the entry and unreachable nodes.
    pub idom: Vec<u32>,
    /// Dominator-tree children, each list in reverse postorder.
    pub children: Csr,
    /// Node → preorder number in the dominator tree and one past the last number of its subtree.
    dt_pre: Vec<u32>,
    dt_end: Vec<u32>,
    // Scratch.
    semi: Vec<u32>,
    label: Vec<u32>,
    anc: Vec<u32>,
    stack: Vec<(u32, u32)>,
    path: Vec<u32>,
    counts: Vec<u32>,
}

impl DomTree {
    pub fn new() -> Self {
        Self::default()
    }

    /// Compute everything for the graph `succ` (entry node 0); `preds` must be the reverse of `succ` restricted to
    /// reachable sources or a superset of it (edges from unreachable nodes are ignored).
    pub fn compute(&mut self, succ: &Csr, preds: &Csr) {
        self.dfs(succ);
        self.finish(preds);
    }

    /// The rest of [`DomTree::compute`] after [`DomTree::dfs`] (callers that need the DFS numbering to build
    /// `preds` avoid a second traversal).
    pub fn finish(&mut self, preds: &Csr) {
        self.semi_nca(preds);
        self.build_tree();
    }

    /// Only the DFS part: `pre`, `order`, `dfs_parent`, `rpo`, `rpo_index`.
    pub fn dfs(&mut self, succ: &Csr) {
        let n = succ.node_count();
        self.pre.clear();
        self.pre.resize(n, NONE);
        self.order.clear();
        self.dfs_parent.clear();
        self.rpo.clear();
        self.rpo_index.clear();
        self.rpo_index.resize(n, NONE);
        if n == 0 {
            return;
        }
        // (node, index of the next successor to visit)
        self.stack.clear();
        self.pre[0] = 0;
        self.order.push(0);
        self.dfs_parent.push(0);
        self.stack.push((0, 0));
        while let Some(&mut (v, ref mut next)) = self.stack.last_mut() {
            let s = succ.succ(v);
            if let Some(&w) = s.get(*next as usize) {
                *next += 1;
                if self.pre[w as usize] == NONE {
                    let num = self.order.len() as u32;
                    self.pre[w as usize] = num;
                    self.order.push(w);
                    self.dfs_parent.push(self.pre[v as usize]);
                    self.stack.push((w, 0));
                }
            } else {
                self.rpo.push(v); // postorder for now
                self.stack.pop();
            }
        }
        self.rpo.reverse();
        for (i, &v) in self.rpo.iter().enumerate() {
            self.rpo_index[v as usize] = i as u32;
        }
    }

    fn semi_nca(&mut self, preds: &Csr) {
        let n = self.pre.len();
        let r = self.order.len();
        self.idom.clear();
        self.idom.resize(n, NONE);
        if r == 0 {
            return;
        }
        // All per-vertex scratch below is indexed by preorder number.
        self.semi.clear();
        self.semi.extend(0..r as u32);
        self.label.clear();
        self.label.extend(0..r as u32);
        self.anc.clear();
        self.anc.extend_from_slice(&self.dfs_parent);
        for i in (1..r as u32).rev() {
            let w = self.order[i as usize];
            let mut s = self.semi[i as usize];
            for &p in preds.succ(w) {
                let pp = self.pre.get(p as usize).copied().unwrap_or(NONE);
                if pp == NONE {
                    continue;
                }
                let u = self.eval(pp, i + 1);
                s = s.min(self.semi[u as usize]);
            }
            self.semi[i as usize] = s;
        }
        // NCA pass, over preorder numbers; `anc` is reused to hold the immediate dominator's number.
        self.anc[0] = 0;
        for i in 1..r {
            let mut j = self.dfs_parent[i];
            let s = self.semi[i];
            while j > s {
                j = self.anc[j as usize];
            }
            self.anc[i] = j;
        }
        for i in 1..r {
            self.idom[self.order[i] as usize] = self.order[self.anc[i] as usize];
        }
    }

    /// The vertex of minimum semidominator on the virtual-forest path from `v` up to (excluding) its root, where
    /// vertices numbered `>= linked` are linked to their DFS parents. Path compression, iterative.
    fn eval(&mut self, v: u32, linked: u32) -> u32 {
        if self.anc[v as usize] < linked {
            return self.label[v as usize];
        }
        self.path.clear();
        let mut x = v;
        while self.anc[x as usize] >= linked {
            self.path.push(x);
            x = self.anc[x as usize];
        }
        // `x` hangs directly under the root; compress from the top of the path downward.
        let mut top = x;
        while let Some(y) = self.path.pop() {
            let (yu, tu) = (y as usize, top as usize);
            if self.semi[self.label[tu] as usize] < self.semi[self.label[yu] as usize] {
                self.label[yu] = self.label[tu];
            }
            self.anc[yu] = self.anc[tu];
            top = y;
        }
        self.label[v as usize]
    }

    fn build_tree(&mut self) {
        let n = self.pre.len();
        // Children in reverse postorder: count, prefix-sum, then fill walking the RPO.
        self.counts.clear();
        self.counts.resize(n + 1, 0);
        for &v in &self.rpo {
            let d = self.idom[v as usize];
            if d != NONE {
                self.counts[d as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.counts[i + 1] += self.counts[i];
        }
        self.children.clear();
        self.children.offsets.extend_from_slice(&self.counts);
        self.children.targets.resize(self.counts[n] as usize, 0);
        for &v in &self.rpo {
            let d = self.idom[v as usize];
            if d != NONE {
                let slot = &mut self.counts[d as usize];
                self.children.targets[*slot as usize] = v;
                *slot += 1;
            }
        }
        // Preorder/subtree-end numbering of the dominator tree.
        self.dt_pre.clear();
        self.dt_pre.resize(n, NONE);
        self.dt_end.clear();
        self.dt_end.resize(n, NONE);
        if self.order.is_empty() {
            return;
        }
        let mut counter = 0u32;
        self.stack.clear();
        self.stack.push((0, 0));
        self.dt_pre[0] = counter;
        counter += 1;
        while let Some(&mut (v, ref mut next)) = self.stack.last_mut() {
            if let Some(&c) = self.children.succ(v).get(*next as usize) {
                *next += 1;
                self.dt_pre[c as usize] = counter;
                counter += 1;
                self.stack.push((c, 0));
            } else {
                self.dt_end[v as usize] = counter;
                self.stack.pop();
            }
        }
    }

    #[inline]
    pub fn is_reachable(&self, v: u32) -> bool {
        self.pre.get(v as usize).is_some_and(|&p| p != NONE)
    }

    /// Does `a` dominate `b` (reflexive)? False when either is unreachable.
    #[inline]
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        match (
            self.dt_pre.get(a as usize),
            self.dt_end.get(a as usize),
            self.dt_pre.get(b as usize),
        ) {
            (Some(&pa), Some(&ea), Some(&pb)) => pa != NONE && pb != NONE && pa <= pb && pb < ea,
            _ => false,
        }
    }

    /// Dominator-tree preorder number of `v` and one past the last number of its subtree (`NONE`s when
    /// unreachable): `a` dominates `b` iff `b`'s number lies in `a`'s interval.
    pub fn dom_interval(&self, v: u32) -> (u32, u32) {
        (
            self.dt_pre.get(v as usize).copied().unwrap_or(NONE),
            self.dt_end.get(v as usize).copied().unwrap_or(NONE),
        )
    }

    /// Immediate dominator, `None` for the entry and unreachable nodes.
    pub fn idom_of(&self, v: u32) -> Option<u32> {
        self.idom.get(v as usize).copied().filter(|&d| d != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(n: usize, edges: &[(u32, u32)]) -> Csr {
        let mut g = Csr::default();
        g.begin(n);
        for v in 0..n as u32 {
            for &(a, b) in edges {
                if a == v {
                    g.targets.push(b);
                }
            }
            g.push_row_end();
        }
        g
    }

    fn check_against_simple(n: usize, edges: &[(u32, u32)]) {
        let g = csr(n, edges);
        let mut p = Csr::default();
        p.reverse_of(&g, |_| true);
        let mut dt = DomTree::new();
        dt.compute(&g, &p);
        let base = simple::idoms(&g);
        assert_eq!(dt.idom, base, "edges {edges:?}");
        for a in 0..n as u32 {
            for b in 0..n as u32 {
                let mut expect = dt.is_reachable(a) && dt.is_reachable(b);
                if expect {
                    // walk b's idom chain looking for a
                    let mut x = b;
                    expect = false;
                    loop {
                        if x == a {
                            expect = true;
                            break;
                        }
                        match dt.idom_of(x) {
                            Some(d) => x = d,
                            None => break,
                        }
                    }
                }
                assert_eq!(dt.dominates(a, b), expect, "{a} dom {b}");
            }
        }
    }

    #[test]
    fn diamond_and_loop() {
        check_against_simple(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        check_against_simple(5, &[(0, 1), (1, 2), (2, 1), (2, 3), (1, 4), (3, 4)]);
    }

    #[test]
    fn unreachable_nodes_have_no_idom() {
        check_against_simple(4, &[(0, 1), (2, 3), (3, 1)]);
    }

    #[test]
    fn random_graphs_match_cooper_harvey_kennedy() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..400 {
            let n = 1 + (next() % 24) as usize;
            let m = (next() % (3 * n as u64 + 1)) as usize;
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| ((next() % n as u64) as u32, (next() % n as u64) as u32))
                .collect();
            check_against_simple(n, &edges);
        }
    }

    #[test]
    fn long_chain_does_not_recurse() {
        let n = 200_000;
        let edges: Vec<(u32, u32)> = (0..n as u32 - 1).map(|i| (i, i + 1)).collect();
        let g = csr_chain(n, &edges);
        let mut p = Csr::default();
        p.reverse_of(&g, |_| true);
        let mut dt = DomTree::new();
        dt.compute(&g, &p);
        assert_eq!(dt.idom_of(n as u32 - 1), Some(n as u32 - 2));
        assert!(dt.dominates(0, n as u32 - 1));
    }

    fn csr_chain(n: usize, edges: &[(u32, u32)]) -> Csr {
        let mut g = Csr::default();
        g.begin(n);
        let mut it = edges.iter().peekable();
        for v in 0..n as u32 {
            while let Some(&&(a, b)) = it.peek() {
                if a != v {
                    break;
                }
                g.targets.push(b);
                it.next();
            }
            g.push_row_end();
        }
        g
    }
}
