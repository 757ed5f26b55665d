//! Pass 2 (step 5 of the algorithm in the parent module): merge-point shapes, flag values, output ids and
//! blocks, and the phi lists.

use super::*;

impl Structurizer {
    pub(super) fn pass2(&mut self) {
        // Merge points in creation order: a forward hop always goes to an older merge point.
        for m in 0..self.mps.len() {
            let natural = self.mps[m].natural;
            let nat_dest = if natural == NONE { NONE } else { 2 * natural };
            let mut nat_present = false;
            self.groups.clear();
            let mut e = self.mps[m].head;
            while e != NONE {
                let tr = self.traffic[e as usize];
                if tr.dest == nat_dest {
                    nat_present = true;
                } else if let Some(g) = self.groups.iter_mut().find(|g| g.0 == tr.next) {
                    g.1 += 1;
                } else {
                    self.groups.push((tr.next, 1));
                }
                e = tr.link;
            }
            let r = self.groups.len();
            let else_tgt = self
                .groups
                .iter()
                .max_by_key(|g| g.1)
                .map(|g| g.0)
                .unwrap_or(Tgt::Proto(NONE));
            let tests_start = self.mp_tests.len() as u32;
            let shape = if r == 0 {
                if nat_present || natural != NONE {
                    MpShape::Collapse
                } else {
                    MpShape::Unreachable
                }
            } else if r == 1 && !nat_present {
                MpShape::Single
            } else {
                let mut e = self.mps[m].head;
                while e != NONE {
                    let tr = self.traffic[e as usize];
                    if tr.dest != nat_dest && tr.next != else_tgt {
                        self.mp_tests.push((tr.dest, tr.next));
                    }
                    e = tr.link;
                }
                if nat_present {
                    self.mp_tests.push((nat_dest, Tgt::Entry(natural)));
                }
                MpShape::Chain
            };
            let mpr = &mut self.mps[m];
            mpr.shape = shape;
            mpr.else_tgt = else_tgt;
            mpr.tests_start = tests_start;
            mpr.tests_len = self.mp_tests.len() as u32 - tests_start;
            // Flags: every traffic item crossing a chain must carry its destination.
            let tests = shape == MpShape::Chain;
            let mut e = self.mps[m].head;
            while e != NONE {
                let tr = self.traffic[e as usize];
                let mut needs = tests;
                if let (false, Tgt::Mp(m2)) = (needs, tr.next) {
                    let key = traffic_key(m2, tr.dest);
                    if let Some(&e2) = self.traffic_map.get(&key) {
                        needs = self.traffic[e2 as usize].needs_flag;
                    }
                }
                self.traffic[e as usize].needs_flag = needs;
                e = tr.link;
            }
        }
        // Output ids: walk the protos, expanding merge points and edge blocks.
        let np = self.protos.len();
        self.proto_block.clear();
        self.proto_block.resize(np, NONE);
        self.proto_edge.clear();
        self.proto_edge.resize(np, NONE);
        self.proto_write.clear();
        self.proto_write.resize(np, NONE);
        let mut next = 0u32;
        for i in 0..np {
            let p = self.protos[i];
            match p.term {
                PTerm::Mp(m) => {
                    let mp = self.mps[m as usize];
                    let count = match mp.shape {
                        MpShape::Collapse => 0,
                        MpShape::Unreachable | MpShape::Single => 1,
                        MpShape::Chain => mp.tests_len,
                    };
                    if count > 0 {
                        self.mps[m as usize].first_block = next;
                    }
                    next += count;
                }
                PTerm::Cond { t, f, .. } => {
                    self.proto_block[i] = next;
                    next += 1;
                    let (wt, wf) = (self.arm_write(t), self.arm_write(f));
                    let same = self.key(self.arms[t as usize].target)
                        == self.key(self.arms[f as usize].target);
                    if same || (wt != NONE && wf != NONE && wt != wf) {
                        self.proto_edge[i] = next;
                        next += 1;
                        self.proto_write[i] = wt;
                    } else {
                        self.proto_write[i] = if wt != NONE { wt } else { wf };
                    }
                }
                PTerm::Branch(a) => {
                    self.proto_block[i] = next;
                    next += 1;
                    self.proto_write[i] = self.arm_write(a);
                }
                PTerm::Switch {
                    default,
                    start,
                    len,
                    ..
                } => {
                    self.proto_block[i] = next;
                    next += 1;
                    let mut w = self.arm_write(default);
                    for c in start..start + len {
                        let a = self.pcases[c as usize].1;
                        if w == NONE {
                            w = self.arm_write(a);
                        }
                    }
                    self.proto_write[i] = w;
                }
                _ => {
                    self.proto_block[i] = next;
                    next += 1;
                }
            }
        }
    }

    /// Flag value an arm must store, `NONE` when none.
    pub(super) fn arm_write(&self, a: u32) -> u32 {
        let arm = self.arms[a as usize];
        if let Tgt::Mp(m) = arm.target {
            let key = traffic_key(m, arm.dest);
            if let Some(&e) = self.traffic_map.get(&key)
                && self.traffic[e as usize].needs_flag
            {
                return arm.dest;
            }
        }
        NONE
    }

    pub(super) fn key(&self, mut t: Tgt) -> Key {
        loop {
            match t {
                Tgt::Entry(x) => return Key::Proto(self.region_entry[x as usize]),
                Tgt::Proto(i) => return Key::Proto(i),
                Tgt::Lc(l) => return Key::Proto(self.constructs[l as usize].lc_proto),
                Tgt::Mp(m) => {
                    let mp = self.mps[m as usize];
                    if mp.shape == MpShape::Collapse {
                        t = Tgt::Entry(mp.natural);
                    } else {
                        return Key::MpBlock(m);
                    }
                }
            }
        }
    }

    pub(super) fn block_of(&self, t: Tgt) -> OutBlockId {
        OutBlockId(match self.key(t) {
            Key::Proto(i) => self.proto_block.get(i as usize).copied().unwrap_or(NONE),
            Key::MpBlock(m) => self.mps[m as usize].first_block,
        })
    }

    pub(super) fn finish(&mut self, cfg: &Cfg) {
        let np = self.protos.len();
        self.arm_from.clear();
        self.arm_from.resize(self.arms.len(), NONE);
        self.arm_to.clear();
        self.arm_to.resize(self.arms.len(), NONE);
        let write = |w: u32| if w == NONE { None } else { Some(w) };
        for i in 0..np {
            let p = self.protos[i];
            let origin = if p.origin == NONE {
                None
            } else {
                Some(BlockId(p.origin))
            };
            let merge = match p.merge {
                PMerge::None => Merge::None,
                PMerge::Sel(m) => Merge::Selection {
                    merge: self.block_of(Tgt::Mp(m)),
                },
                PMerge::Loop(l) => {
                    let c = self.constructs[l as usize];
                    Merge::Loop {
                        merge: self.block_of(Tgt::Mp(c.mp)),
                        continue_target: OutBlockId(self.proto_block[c.lc_proto as usize]),
                    }
                }
            };
            let me = OutBlockId(self.proto_block[i]);
            let tgt = |s: &mut Self, a: u32| {
                let b = s.block_of(s.arms[a as usize].target);
                s.arm_from[a as usize] = me.0;
                s.arm_to[a as usize] = b.0;
                b
            };
            let term = match p.term {
                PTerm::Mp(m) => {
                    self.emit_merge_point(m);
                    continue;
                }
                PTerm::Return => OutTerminator::Return,
                PTerm::Unreachable => OutTerminator::Unreachable,
                PTerm::Branch(a) => OutTerminator::Branch(tgt(self, a)),
                PTerm::Zero(a) => OutTerminator::Switch {
                    selector: Selector::Zero,
                    default: tgt(self, a),
                    cases: CaseRange {
                        start: self.cases.len() as u32,
                        len: 0,
                    },
                },
                PTerm::Cond { of, t, f } => {
                    let tb = tgt(self, t);
                    let fb = tgt(self, f);
                    let edge = self.proto_edge[i];
                    if edge != NONE {
                        self.arm_to[f as usize] = edge;
                    }
                    OutTerminator::CondBranch {
                        cond: Condition::Original(BlockId(of)),
                        t: tb,
                        f: if edge != NONE { OutBlockId(edge) } else { fb },
                    }
                }
                PTerm::Switch {
                    of,
                    default,
                    start,
                    len,
                } => {
                    let d = tgt(self, default);
                    let cstart = self.cases.len() as u32;
                    for c in start..start + len {
                        let (lit, a) = self.pcases[c as usize];
                        let b = tgt(self, a);
                        self.cases.push((lit, b));
                    }
                    OutTerminator::Switch {
                        selector: Selector::Original(BlockId(of)),
                        default: d,
                        cases: CaseRange { start: cstart, len },
                    }
                }
            };
            self.blocks.push(OutBlock {
                original: origin,
                merge,
                flag_write: write(self.proto_write[i]),
                term,
            });
            if let PTerm::Cond { f, .. } = p.term {
                let edge = self.proto_edge[i];
                if edge != NONE {
                    let target = self.block_of(self.arms[f as usize].target);
                    let w = self.arm_write(f);
                    self.blocks.push(OutBlock {
                        original: None,
                        merge: Merge::None,
                        flag_write: write(w),
                        term: OutTerminator::Branch(target),
                    });
                }
            }
        }
        self.uses_flag = self.blocks.iter().any(|b| b.flag_write.is_some());
        // Images of original blocks.
        let n = cfg.len();
        self.image.clear();
        self.image.resize(n, NONE);
        for x in 0..n {
            let p = self.orig_proto[x];
            if p != NONE {
                self.image[x] = self.proto_block[p as usize];
            }
        }
        self.build_output_graph();
        self.compute_phis(cfg);
    }

    pub(super) fn emit_merge_point(&mut self, m: u32) {
        let mp = self.mps[m as usize];
        match mp.shape {
            MpShape::Collapse => {}
            MpShape::Unreachable => self.blocks.push(OutBlock {
                original: None,
                merge: Merge::None,
                flag_write: None,
                term: OutTerminator::Unreachable,
            }),
            MpShape::Single => {
                let t = self.block_of(mp.else_tgt);
                self.blocks.push(OutBlock {
                    original: None,
                    merge: Merge::None,
                    flag_write: None,
                    term: OutTerminator::Branch(t),
                });
            }
            MpShape::Chain => {
                for i in 0..mp.tests_len {
                    let (d, t) = self.mp_tests[(mp.tests_start + i) as usize];
                    let tb = self.block_of(t);
                    let fb = if i + 1 < mp.tests_len {
                        OutBlockId(self.blocks.len() as u32 + 1)
                    } else {
                        self.block_of(mp.else_tgt)
                    };
                    self.blocks.push(OutBlock {
                        original: None,
                        merge: Merge::None,
                        flag_write: None,
                        term: OutTerminator::CondBranch {
                            cond: Condition::FlagEquals(d),
                            t: tb,
                            f: fb,
                        },
                    });
                }
            }
        }
    }

    pub(super) fn build_output_graph(&mut self) {
        let nb = self.blocks.len();
        self.out_succ.begin(nb);
        for b in 0..nb {
            let blk = self.blocks[b];
            match blk.term {
                OutTerminator::Return | OutTerminator::Unreachable => {}
                OutTerminator::Branch(t) => self.out_succ.targets.push(t.0),
                OutTerminator::CondBranch { t, f, .. } => {
                    self.out_succ.targets.push(t.0);
                    if f != t {
                        self.out_succ.targets.push(f.0);
                    }
                }
                OutTerminator::Switch { default, cases, .. } => {
                    let row = self.out_succ.targets.len();
                    self.out_succ.targets.push(default.0);
                    for &(_, c) in self
                        .cases
                        .get(cases.start as usize..(cases.start + cases.len) as usize)
                        .unwrap_or(&[])
                    {
                        if !self.out_succ.targets[row..].contains(&c.0) {
                            self.out_succ.targets.push(c.0);
                        }
                    }
                }
            }
            self.out_succ.push_row_end();
        }
        // Without forwarding blocks, every output path is an original path with synthetic blocks that each belong
        // to one original edge (or to all back edges of one loop) spliced in, so dominance among original blocks
        // is unchanged and the input's dominator tree answers `def_dominates_use`. Forwarding chains merge paths
        // of different original edges; only then is the output's own tree needed. (Blocks unreachable in the
        // output are then only `OpUnreachable` merges, which have no successors to filter out.)
        self.has_forwarding = self
            .mps
            .iter()
            .any(|m| matches!(m.shape, MpShape::Single | MpShape::Chain));
        if self.has_forwarding {
            self.out_dt.dfs(&self.out_succ);
            let dt = &self.out_dt;
            self.out_preds
                .reverse_of(&self.out_succ, |v| dt.is_reachable(v));
            self.out_dt.finish(&self.out_preds);
        } else {
            self.out_preds.reverse_of(&self.out_succ, |_| true);
        }
    }

    pub(super) fn compute_phis(&mut self, cfg: &Cfg) {
        // Origin: the original block whose terminator an output block (partly) realizes.
        let nb = self.blocks.len();
        self.origin.clear();
        self.origin.resize(nb, NONE);
        for b in 0..nb {
            if let Some(o) = self.blocks[b].original {
                self.origin[b] = o.0;
            } else {
                let p = self.out_preds.succ(b as u32);
                if p.len() == 1 && (p[0] as usize) < b {
                    self.origin[b] = self.origin[p[0] as usize];
                }
            }
        }
        let n = cfg.len();
        self.phi_range.clear();
        self.phi_range.resize(n, (NONE, 0));
        self.phi_mark.clear();
        self.phi_mark.resize(n, NONE);
        for x in 0..n as u32 {
            if !self.dt.is_reachable(x) {
                continue;
            }
            for &p in self.preds.succ(x) {
                self.phi_mark[p as usize] = x;
            }
            let img = self.image[x as usize];
            let start = self.phi_list.len();
            let mut ok = true;
            for &q in self.out_preds.succ(img) {
                let o = self.origin[q as usize];
                if o == NONE || self.phi_mark[o as usize] != x {
                    ok = false;
                    break;
                }
                self.phi_list.push(PhiPred {
                    parent: OutBlockId(q),
                    pred: BlockId(o),
                });
            }
            if ok {
                self.phi_range[x as usize] = (start as u32, (self.phi_list.len() - start) as u32);
            } else {
                self.phi_list.truncate(start);
            }
        }
    }
}
