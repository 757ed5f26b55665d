//! Cooper–Harvey–Kennedy iterative dominators ("A Simple, Fast Dominance Algorithm"): the reference the Semi-NCA
//! implementation is tested against. Iterates to a fixed point over reverse postorder; fine for tests, quadratic in
//! the worst case, so the structurizer does not use it.

use super::{Csr, DomTree, NONE};

/// Immediate dominator of every node of `succ` (entry 0); `NONE` for the entry and unreachable nodes.
pub fn idoms(succ: &Csr) -> Vec<u32> {
    let n = succ.node_count();
    let mut dt = DomTree::new();
    dt.dfs(succ);
    let mut preds = Csr::default();
    preds.reverse_of(succ, |v| dt.is_reachable(v));
    // Work in RPO numbers: the entry is 0 and "intersect" walks toward smaller numbers.
    let mut doms = vec![NONE; dt.rpo.len()];
    if doms.is_empty() {
        return vec![NONE; n];
    }
    doms[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for i in 1..dt.rpo.len() {
            let v = dt.rpo[i];
            let mut new = NONE;
            for &p in preds.succ(v) {
                let pi = dt.rpo_index[p as usize];
                if pi == NONE || doms[pi as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    pi
                } else {
                    intersect(&doms, pi, new)
                };
            }
            if new != doms[i] {
                doms[i] = new;
                changed = true;
            }
        }
    }
    let mut out = vec![NONE; n];
    for i in 1..dt.rpo.len() {
        out[dt.rpo[i] as usize] = dt.rpo[doms[i] as usize];
    }
    out
}

fn intersect(doms: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = doms[a as usize];
        }
        while b > a {
            b = doms[b as usize];
        }
    }
    a
}
