//! Pass 1 (step 3 and 4 of the algorithm in the parent module): the scope tree becomes constructs, proto blocks
//! and the traffic each merge point has to forward.

use super::*;

impl Structurizer {
    pub(super) fn open(&mut self, kind: Kind, parent: u32, natural: u32) -> u32 {
        let p = self.constructs[parent as usize];
        let id = self.constructs.len() as u32;
        let up_switch = match (kind, p.kind) {
            (Kind::If, Kind::Switch) => parent,
            (Kind::If, Kind::If) => p.up_switch,
            _ => NONE,
        };
        let up_loop = if kind == Kind::Loop { id } else { p.up_loop };
        let mp = self.mps.len() as u32;
        self.mps.push(MergePoint {
            natural,
            head: NONE,
            shape: MpShape::Unreachable,
            tests_start: 0,
            tests_len: 0,
            else_tgt: Tgt::Proto(NONE),
            first_block: NONE,
        });
        if natural != NONE {
            self.follow_construct[natural as usize] = id;
        }
        self.constructs.push(Construct {
            kind,
            parent,
            depth: p.depth + 1,
            up_switch,
            up_loop,
            mp,
            lc_proto: NONE,
            header_proto: NONE,
        });
        self.ctx.push(id);
        id
    }

    pub(super) fn push_proto(&mut self, origin: u32, merge: PMerge, term: PTerm) -> u32 {
        let id = self.protos.len() as u32;
        self.protos.push(Proto {
            origin,
            merge,
            term,
        });
        id
    }

    pub(super) fn push_arm(&mut self, target: Tgt, dest: u32) -> u32 {
        let id = self.arms.len() as u32;
        self.arms.push(Arm { target, dest });
        id
    }

    pub(super) fn pass1(&mut self, cfg: &Cfg) -> Result<(), StructurizeError> {
        let n = cfg.len();
        for v in [
            &mut self.region_entry,
            &mut self.orig_proto,
            &mut self.follow_construct,
            &mut self.loop_construct,
        ] {
            v.clear();
            v.resize(n, NONE);
        }
        self.arm_of_target.clear();
        self.arm_of_target.resize(n, NONE);
        self.stamp.clear();
        self.stamp.resize(n, NONE);
        self.edge_arm.clear();
        self.edge_arm
            .resize(self.edge_base.last().copied().unwrap_or(0) as usize, NONE);
        self.constructs.push(Construct {
            kind: Kind::Root,
            parent: NONE,
            depth: 0,
            up_switch: NONE,
            up_loop: NONE,
            mp: NONE,
            lc_proto: NONE,
            header_proto: NONE,
        });
        self.ctx.push(0);
        if self.is_header[0] {
            // The entry block cannot be a branch target; give the loop a synthetic entry.
            let a = self.push_arm(Tgt::Proto(1), NONE);
            self.push_proto(NONE, PMerge::None, PTerm::Branch(a));
        }
        self.work.push(Work::Tree(0));
        while let Some(w) = self.work.pop() {
            match w {
                Work::Tree(x) => self.tree(cfg, x)?,
                Work::Close(k) => {
                    if self.ctx.pop() != Some(k) {
                        return Err(StructurizeError::Internal("construct closed out of order"));
                    }
                    let mp = self.constructs[k as usize].mp;
                    self.push_proto(NONE, PMerge::None, PTerm::Mp(mp));
                }
                Work::Lc(l) => {
                    let hp = self.constructs[l as usize].header_proto;
                    let a = self.push_arm(Tgt::Proto(hp), NONE);
                    let p = self.push_proto(NONE, PMerge::None, PTerm::Branch(a));
                    self.constructs[l as usize].lc_proto = p;
                }
            }
        }
        Ok(())
    }

    pub(super) fn tree(&mut self, cfg: &Cfg, x: u32) -> Result<(), StructurizeError> {
        let xs = x as usize;
        self.region_entry[xs] = self.protos.len() as u32;
        let is_loop = self.is_header[xs];
        self.ins.clear();
        self.outs.clear();
        for &c in self.tchildren.succ(x) {
            if self.is_follow[c as usize] {
                if is_loop && !self.loops.in_loop(c, x) {
                    self.outs.push(c);
                } else {
                    self.ins.push(c);
                }
            }
        }
        let mut cur = self.ctx.last().copied().unwrap_or(0);
        self.acts.clear();
        // Headers of the scopes around the loop (outermost first); the innermost out-follow is the loop's merge.
        let mut loop_c = NONE;
        self.bs.clear();
        if is_loop {
            loop_c = self.open_loop_scopes(xs, cur);
            cur = loop_c;
        }
        let outs_bs_len = self.bs.len();

        // The terminator's distinct targets with their arm class.
        let term = cfg
            .terminator(BlockId(x))
            .unwrap_or(Terminator::Unreachable);
        let (is_cond, is_switch) = match term {
            Terminator::CondBranch { t, f } => (t != f, false),
            Terminator::Switch { .. } => (false, true),
            _ => (false, false),
        };
        let mut inline_count = 0;
        let mut distinct = 0;
        for &t in self.succ.succ(x) {
            distinct += 1;
            if !self.dt.dominates(t, x) && !self.is_follow[t as usize] {
                inline_count += 1;
            }
        }
        let m = self.ins.len();
        let needs_sel = m >= 1 || is_switch || (is_cond && distinct == 2 && inline_count == 2);

        // x's own block.
        let px = self.protos.len() as u32;
        self.orig_proto[xs] = px;
        self.push_proto(x, PMerge::None, PTerm::Unreachable);
        if is_loop {
            self.protos[px as usize].merge = PMerge::Loop(loop_c);
            self.constructs[loop_c as usize].header_proto = px;
        }
        // Scopes for in-loop/ordinary merge children y2..ym (outermost first), then the selection for y1.
        let in_bs_start = self.bs.len();
        let (mut tp, mut sel) = (px, NONE);
        if needs_sel {
            (tp, sel) = self.open_selection_scopes(px, is_loop, is_switch, cur);
            cur = sel;
        }
        let cc = cur;

        // Arms.
        let tstart = self.tsucc.len();
        let pterm = self.terminator_arms(cfg, x, cc, sel, term)?;
        self.protos[tp as usize].term = pterm;

        // Schedule: inline arms, close the selection, follows with their scope closes, then the loop's tail.
        for i in tstart..self.tsucc.len() {
            let t = self.tsucc[i];
            self.acts.push(Work::Tree(t));
        }
        self.tsucc.truncate(tstart);
        if sel != NONE {
            self.acts.push(Work::Close(sel));
        }
        if m >= 1 {
            self.acts.push(Work::Tree(self.ins[0]));
            // bs[in_bs_start..] holds B(ins[m-1]) … B(ins[1]).
            for j in 1..m {
                let k = self.bs[in_bs_start + (m - 1 - j)];
                self.acts.push(Work::Close(k));
                self.acts.push(Work::Tree(self.ins[j]));
            }
        }
        if is_loop {
            self.acts.push(Work::Lc(loop_c));
            self.acts.push(Work::Close(loop_c));
            let k_out = self.outs.len();
            if k_out >= 1 {
                self.acts.push(Work::Tree(self.outs[0]));
                for j in 1..k_out {
                    let k = self.bs[outs_bs_len - j];
                    self.acts.push(Work::Close(k));
                    self.acts.push(Work::Tree(self.outs[j]));
                }
            }
        }
        while let Some(a) = self.acts.pop() {
            self.work.push(a);
        }
        Ok(())
    }

    /// Opens the scopes around loop `x`: one switch scope per out-follow but the first
    /// (outermost first), then the loop construct, whose merge is the first out-follow. Returns
    /// the loop construct (now the innermost).
    fn open_loop_scopes(&mut self, xs: usize, mut cur: u32) -> u32 {
        for j in (1..self.outs.len()).rev() {
            let y = self.outs[j];
            let k = self.open(Kind::Switch, cur, y);
            let next = self.protos.len() as u32 + 1;
            let a = self.push_arm(Tgt::Proto(next), NONE);
            let mp = self.constructs[k as usize].mp;
            self.push_proto(NONE, PMerge::Sel(mp), PTerm::Zero(a));
            self.bs.push(k);
            cur = k;
        }
        let natural = self.outs.first().copied().unwrap_or(NONE);
        let loop_c = self.open(Kind::Loop, cur, natural);
        self.loop_construct[xs] = loop_c;
        loop_c
    }

    /// Opens the scopes of `x`'s in-follows: one switch scope per in-follow but the first
    /// (outermost first), each headed by a proto (`x`'s own, `px`, for the first unless `x` is a
    /// loop header), then the selection itself, merging at the first in-follow. Returns the
    /// selection's header proto and the selection (now the innermost construct).
    fn open_selection_scopes(
        &mut self,
        px: u32,
        is_loop: bool,
        is_switch: bool,
        mut cur: u32,
    ) -> (u32, u32) {
        let m = self.ins.len();
        let mut first_header_is_x = !is_loop;
        if is_loop {
            let a = self.push_arm(Tgt::Proto(px + 1), NONE);
            self.protos[px as usize].term = PTerm::Branch(a);
        }
        for j in (1..m).rev() {
            let y = self.ins[j];
            let k = self.open(Kind::Switch, cur, y);
            let mp = self.constructs[k as usize].mp;
            let hp = if first_header_is_x {
                first_header_is_x = false;
                px
            } else {
                self.push_proto(NONE, PMerge::None, PTerm::Unreachable)
            };
            let a = self.push_arm(Tgt::Proto(hp + 1), NONE);
            self.protos[hp as usize].merge = PMerge::Sel(mp);
            self.protos[hp as usize].term = PTerm::Zero(a);
            self.bs.push(k);
            cur = k;
        }
        let natural = self.ins.first().copied().unwrap_or(NONE);
        let sel = self.open(
            if is_switch { Kind::Switch } else { Kind::If },
            cur,
            natural,
        );
        let tp = if first_header_is_x {
            px
        } else {
            self.push_proto(NONE, PMerge::None, PTerm::Unreachable)
        };
        let mp = self.constructs[sel as usize].mp;
        self.protos[tp as usize].merge = PMerge::Sel(mp);
        (tp, sel)
    }

    /// The arms of `x`'s terminator, from construct `cc` (`sel` is the selection a switch
    /// merges through): the edges' arms are recorded in `edge_arm`, inline targets queued in
    /// `tsucc`; a switch case that leaves with its own flag value gets a synthetic case block.
    fn terminator_arms(
        &mut self,
        cfg: &Cfg,
        x: u32,
        cc: u32,
        sel: u32,
        term: Terminator,
    ) -> Result<PTerm, StructurizeError> {
        let xs = x as usize;
        let base = self.edge_base[xs] as usize;
        let pterm = match term {
            Terminator::Return => PTerm::Return,
            Terminator::Unreachable => PTerm::Unreachable,
            Terminator::Branch(t) => {
                let a = self.make_arm(cc, x, t.0)?;
                self.edge_arm[base] = a;
                PTerm::Branch(a)
            }
            Terminator::CondBranch { t, f } if t == f => {
                let a = self.make_arm(cc, x, t.0)?;
                self.edge_arm[base] = a;
                self.edge_arm[base + 1] = a;
                PTerm::Branch(a)
            }
            Terminator::CondBranch { t, f } => {
                let at = self.make_arm(cc, x, t.0)?;
                let af = self.make_arm(cc, x, f.0)?;
                self.edge_arm[base] = at;
                self.edge_arm[base + 1] = af;
                PTerm::Cond {
                    of: x,
                    t: at,
                    f: af,
                }
            }
            Terminator::Switch { default, cases } => {
                let own = Tgt::Mp(self.constructs[sel as usize].mp);
                let own_natural = self.mps[self.constructs[sel as usize].mp as usize].natural;
                let own_dest = if own_natural == NONE {
                    NONE
                } else {
                    2 * own_natural
                };
                let pstart = self.pcases.len() as u32;
                let mut default_arm = NONE;
                for (i, t) in std::iter::once(default.0)
                    .chain(cfg.cases(cases).iter().map(|c| c.1.0))
                    .enumerate()
                {
                    let a = if self.stamp[t as usize] == x {
                        self.arm_of_target[t as usize]
                    } else {
                        let mut a = self.make_arm(cc, x, t)?;
                        let arm = self.arms[a as usize];
                        if arm.dest != NONE && (arm.target != own || arm.dest != own_dest) {
                            // Cases may branch straight to the merge only when they all store the same flag value
                            // (the natural destination); any other exit gets its own synthetic case block.
                            let e = self.push_proto(NONE, PMerge::None, PTerm::Branch(a));
                            a = self.push_arm(Tgt::Proto(e), NONE);
                        }
                        self.stamp[t as usize] = x;
                        self.arm_of_target[t as usize] = a;
                        a
                    };
                    self.edge_arm[base + i] = a;
                    if i == 0 {
                        default_arm = a;
                    } else {
                        let lit = cfg.cases(cases).get(i - 1).map(|c| c.0).unwrap_or(0);
                        self.pcases.push((lit, a));
                    }
                }
                PTerm::Switch {
                    of: x,
                    default: default_arm,
                    start: pstart,
                    len: self.pcases.len() as u32 - pstart,
                }
            }
        };
        Ok(pterm)
    }

    /// Arm for the edge `x → t` from construct `cc`; an inline target is queued in `tsucc`.
    pub(super) fn make_arm(&mut self, cc: u32, x: u32, t: u32) -> Result<u32, StructurizeError> {
        if self.dt.dominates(t, x) {
            let dest = 2 * t + 1;
            let tgt = self.resolve(cc, dest)?;
            Ok(self.push_arm(tgt, dest))
        } else if self.is_follow[t as usize] {
            let dest = 2 * t;
            let tgt = self.resolve(cc, dest)?;
            Ok(self.push_arm(tgt, dest))
        } else {
            if self.tparent[t as usize] != x {
                return Err(StructurizeError::Internal(
                    "inline successor is not a placement-tree child",
                ));
            }
            self.tsucc.push(t);
            Ok(self.push_arm(Tgt::Entry(t), NONE))
        }
    }

    pub(super) fn direct(&self, c: u32, dest: u32, goal: u32) -> Option<Tgt> {
        let cs = self.constructs[c as usize];
        if dest & 1 == 0 {
            if goal == c || cs.up_loop == goal || (cs.kind == Kind::If && cs.up_switch == goal) {
                return Some(Tgt::Mp(self.constructs[goal as usize].mp));
            }
        } else if cs.up_loop == goal {
            return Some(Tgt::Lc(goal));
        }
        None
    }

    pub(super) fn hop(&self, c: u32, goal: u32) -> Result<u32, StructurizeError> {
        let gd = self.constructs[goal as usize].depth;
        let cs = self.constructs[c as usize];
        if cs.depth <= gd {
            return Err(StructurizeError::Internal(
                "exit from outside its target scope",
            ));
        }
        if cs.up_loop != NONE && self.constructs[cs.up_loop as usize].depth > gd {
            return Ok(cs.up_loop);
        }
        if cs.kind == Kind::If
            && cs.up_switch != NONE
            && self.constructs[cs.up_switch as usize].depth > gd
        {
            return Ok(cs.up_switch);
        }
        Ok(c)
    }

    /// Record `dest` arriving at merge point `mp`; returns (entry, newly inserted).
    pub(super) fn add_traffic(&mut self, mp: u32, dest: u32, next: Tgt) -> (u32, bool) {
        let key = traffic_key(mp, dest);
        if let Some(&e) = self.traffic_map.get(&key) {
            return (e, false);
        }
        let e = self.traffic.len() as u32;
        let head = self.mps[mp as usize].head;
        self.traffic.push(Traffic {
            dest,
            next,
            link: head,
            needs_flag: false,
        });
        self.mps[mp as usize].head = e;
        self.traffic_map.insert(key, e);
        (e, true)
    }

    /// Target for a branch from construct `c` to destination `dest`, recording the forwarding chain.
    pub(super) fn resolve(&mut self, c: u32, dest: u32) -> Result<Tgt, StructurizeError> {
        let block = (dest >> 1) as usize;
        let goal = if dest & 1 == 0 {
            self.follow_construct[block]
        } else {
            self.loop_construct[block]
        };
        if goal == NONE {
            return Err(StructurizeError::Internal("branch target scope not open"));
        }
        let natural_entry = Tgt::Entry(dest >> 1);
        if let Some(t) = self.direct(c, dest, goal) {
            if let Tgt::Mp(m) = t {
                self.add_traffic(m, dest, natural_entry);
            }
            return Ok(t);
        }
        let first = self.hop(c, goal)?;
        let mut k = first;
        loop {
            let mp = self.constructs[k as usize].mp;
            let (e, inserted) = self.add_traffic(mp, dest, Tgt::Proto(NONE));
            if !inserted {
                break;
            }
            let p = self.constructs[k as usize].parent;
            if let Some(t) = self.direct(p, dest, goal) {
                self.traffic[e as usize].next = t;
                if let Tgt::Mp(m2) = t {
                    self.add_traffic(m2, dest, natural_entry);
                }
                break;
            }
            let k2 = self.hop(p, goal)?;
            self.traffic[e as usize].next = Tgt::Mp(self.constructs[k2 as usize].mp);
            k = k2;
        }
        Ok(Tgt::Mp(self.constructs[first as usize].mp))
    }
}
