//! Loop nesting forest of a reducible CFG.
//!
//! A loop header is the target of a back edge (an edge whose target dominates its source). Loops are discovered
//! innermost first (headers in decreasing reverse-postorder position) by walking predecessors backwards from the
//! back-edge sources; blocks and inner loops already claimed are skipped through a union-find that maps them to
//! their outermost known header, which keeps the whole pass near-linear (Havlak-style).

use super::domtree::{Csr, DomTree, NONE};

#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    /// Node → innermost loop header containing it (a header maps to itself), `NONE` outside every loop.
    pub innermost: Vec<u32>,
    /// Header → header of the enclosing loop, `NONE` for outermost loops and non-headers.
    pub parent: Vec<u32>,
    /// Header → true.
    pub is_header: Vec<bool>,
    /// Loop-tree preorder interval of each header, for O(1) nesting queries.
    lpre: Vec<u32>,
    lend: Vec<u32>,
    // Scratch.
    rep: Vec<u32>,
    stamp: Vec<u32>,
    work: Vec<u32>,
    kids: Csr,
    counts: Vec<u32>,
    stack: Vec<(u32, u32)>,
}

impl LoopForest {
    pub fn new() -> Self {
        Self::default()
    }

    /// `is_header` must already mark the targets of back edges; `preds` lists predecessors (reachable sources).
    pub fn compute(&mut self, dt: &DomTree, preds: &Csr, is_header: &[bool]) {
        let n = dt.pre.len();
        self.is_header.clear();
        self.is_header.extend_from_slice(is_header);
        self.innermost.clear();
        self.innermost.resize(n, NONE);
        self.parent.clear();
        self.parent.resize(n, NONE);
        self.rep.clear();
        self.rep.extend(0..n as u32);
        self.stamp.clear();
        self.stamp.resize(n, NONE);
        for &h in dt.rpo.iter().rev() {
            if !is_header.get(h as usize).copied().unwrap_or(false) {
                continue;
            }
            self.innermost[h as usize] = h;
            self.stamp[h as usize] = h;
            self.work.clear();
            for &p in preds.succ(h) {
                if p != h && dt.dominates(h, p) {
                    let r = find(&mut self.rep, p);
                    self.work.push(r);
                }
            }
            while let Some(r) = self.work.pop() {
                if r == h || self.stamp[r as usize] == h {
                    continue;
                }
                self.stamp[r as usize] = h;
                if is_header[r as usize] {
                    // An inner loop already built: hang it under `h`.
                    self.parent[r as usize] = h;
                } else {
                    self.innermost[r as usize] = h;
                }
                self.rep[r as usize] = h;
                for &q in preds.succ(r) {
                    if !dt.is_reachable(q) {
                        continue;
                    }
                    let rq = find(&mut self.rep, q);
                    if rq != h && self.stamp[rq as usize] != h {
                        self.work.push(rq);
                    }
                }
            }
        }
        self.number(dt);
    }

    fn number(&mut self, dt: &DomTree) {
        let n = dt.pre.len();
        self.counts.clear();
        self.counts.resize(n + 2, 0);
        // Children of the virtual root (index n) are the outermost headers.
        for &h in &dt.rpo {
            if self.is_header[h as usize] {
                let p = self.parent[h as usize];
                let p = if p == NONE { n } else { p as usize };
                self.counts[p + 1] += 1;
            }
        }
        for i in 0..n + 1 {
            self.counts[i + 1] += self.counts[i];
        }
        self.kids.clear();
        self.kids.offsets.extend_from_slice(&self.counts);
        self.kids.targets.resize(self.counts[n + 1] as usize, 0);
        for &h in &dt.rpo {
            if self.is_header[h as usize] {
                let p = self.parent[h as usize];
                let p = if p == NONE { n } else { p as usize };
                let slot = &mut self.counts[p];
                self.kids.targets[*slot as usize] = h;
                *slot += 1;
            }
        }
        self.lpre.clear();
        self.lpre.resize(n + 1, NONE);
        self.lend.clear();
        self.lend.resize(n + 1, NONE);
        let mut counter = 0;
        self.stack.clear();
        self.stack.push((n as u32, 0));
        while let Some(&mut (v, ref mut next)) = self.stack.last_mut() {
            if let Some(&c) = self.kids.succ(v).get(*next as usize) {
                *next += 1;
                self.lpre[c as usize] = counter;
                counter += 1;
                self.stack.push((c, 0));
            } else {
                self.lend[v as usize] = counter;
                self.stack.pop();
            }
        }
    }

    /// Is `v` inside the loop headed by `header` (at any depth)?
    #[inline]
    pub fn in_loop(&self, v: u32, header: u32) -> bool {
        let inner = match self.innermost.get(v as usize) {
            Some(&i) if i != NONE => i,
            _ => return false,
        };
        match (
            self.lpre.get(header as usize),
            self.lend.get(header as usize),
            self.lpre.get(inner as usize),
        ) {
            (Some(&a), Some(&e), Some(&p)) => a != NONE && a <= p && p < e,
            _ => false,
        }
    }
}

fn find(rep: &mut [u32], mut v: u32) -> u32 {
    // Path halving.
    while rep[v as usize] != v {
        let p = rep[v as usize];
        rep[v as usize] = rep[p as usize];
        v = rep[v as usize];
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 → 1 (outer header) → 2 (inner header) → 3 (inner latch: 2 or 4) → 4 (outer latch: 1 or 5) → 5.
    #[test]
    fn nested_loops() {
        let edges: &[&[u32]] = &[&[1], &[2], &[3], &[2, 4], &[1, 5], &[]];
        let mut succ = Csr::default();
        succ.begin(edges.len());
        for row in edges {
            succ.targets.extend_from_slice(row);
            succ.push_row_end();
        }
        let mut preds = Csr::default();
        preds.reverse_of(&succ, |_| true);
        let mut dt = DomTree::new();
        dt.compute(&succ, &preds);
        let is_header = [false, true, true, false, false, false];
        let mut lf = LoopForest::new();
        lf.compute(&dt, &preds, &is_header);
        assert_eq!(lf.innermost, vec![NONE, 1, 2, 2, 1, NONE]);
        assert_eq!(lf.parent[2], 1);
        assert_eq!(lf.parent[1], NONE);
        assert!(lf.in_loop(3, 1) && lf.in_loop(3, 2) && lf.in_loop(4, 1));
        assert!(!lf.in_loop(4, 2) && !lf.in_loop(5, 1) && !lf.in_loop(0, 1));
    }
}
