//! Un-rotating ray query loops, a peephole on a function's emitted words.
//!
//! HLSL's `while (q.Proceed()) { ... }` reaches DXIL rotated by LLVM: a guard
//! `if (q.Proceed())` in front of a bottom-tested loop whose latch calls `q.Proceed()` again.
//! Lavapipe expands every `OpRayQueryProceedKHR` into a whole acceleration structure traversal,
//! so the two call sites cost it two traversals' worth of code: the corpus's three shaders of
//! this shape took 1.5-3.6x as long as DXC's modules (which keep the loop top-tested, one call) to
//! create a pipeline for, about half of the whole corpus's extra pipeline creation time.
//!
//! Where the shape is exact, the loop becomes top-tested again: the header calls `Proceed` and
//! leaves the loop when it returns false, the guard and the latch's call go, and the values the
//! loop hands out (the latch's loads of the loop's variables, repeated on the exit path) are the
//! header's phis, which hold the same values on both ways out. The calls happen in the same order
//! with the same operands, and every other instruction of the loop runs after the same call as
//! before (the header's own instructions move to a block after the new test). A loop whose latch
//! is its header (one of the three corpus shaders) does not have this shape and keeps both calls.
//!
//! The shape (block names as in the code):
//!
//! ```text
//! G:  ...  c = Proceed q; SelectionMerge M; BranchConditional c P M
//! P:  Branch H
//! H:  phis [init, P] [next, C]; ...; LoopMerge LM C; Branch X
//! L:  ...  p = Proceed q; BranchConditional p C E
//! C:  Branch H
//! E:  loads of variables the latch loaded last; Branch LM
//! LM: Branch M
//! M:  phis [init, G] [exit load, LM]; ...
//! ```

use spirv::Op;

use super::loops::{
    BRANCH, BRANCH_COND, Inst, LABEL, LOOP_MERGE, PHI, SELECTION_MERGE, decode, label_operands,
};
use crate::spv::Builder;

const LOAD: u32 = Op::Load as u32;
const EXT_INST: u32 = Op::ExtInst as u32;
const PROCEED: u32 = Op::RayQueryProceedKHR as u32;

/// How many loops one function may have un-rotated (each rewrite re-reads the body).
const MAX_LOOPS: usize = 4;

/// Un-rotates every ray query loop of the shape in the module docs. `entry` is the label of the
/// function's first block, which the body leaves out (it is emitted with the variables).
pub(super) fn unrotate_ray_query_loops(body: &mut Vec<u32>, entry: u32, b: &mut Builder) {
    // Cheap first: a rotated loop has two calls, and most functions have none.
    if count_op(body, PROCEED) < 2 {
        return;
    }
    // The entry block may hold the guard: with its label in front, every block looks alike.
    let mut words = Vec::with_capacity(body.len() + 2);
    words.extend_from_slice(&[(2 << 16) | LABEL, entry]);
    words.extend_from_slice(body);
    let mut changed = false;
    for _ in 0..MAX_LOOPS {
        if count_op(&words, PROCEED) < 2 {
            break;
        }
        let Some(insts) = decode(&words) else { break };
        let blocks = Blocks::new(&words, &insts);
        let Some(plan) = (0..blocks.starts.len()).find_map(|g| find(&words, &insts, &blocks, g))
        else {
            break;
        };
        let h2 = b.id().word();
        words = rewrite(&words, &insts, &blocks, &plan, h2);
        changed = true;
    }
    if changed {
        body.clear();
        body.extend_from_slice(&words[2..]);
    }
}

fn count_op(body: &[u32], op: u32) -> usize {
    let mut n = 0;
    let mut at = 0;
    while let Some(&w) = body.get(at) {
        n += usize::from(w & 0xFFFF == op);
        let len = (w >> 16) as usize;
        if len == 0 {
            break;
        }
        at += len;
    }
    n
}

/// The blocks of a body: each block's instruction range, by label id.
struct Blocks {
    /// Index of each block's label instruction; a block ends where the next starts.
    starts: Vec<usize>,
    by_label: rustc_hash::FxHashMap<u32, usize>,
    /// How many instructions name each label (branches, merges, phis).
    mentions: rustc_hash::FxHashMap<u32, usize>,
    /// The same without phis: the edges and merges into a block.
    into: rustc_hash::FxHashMap<u32, usize>,
    end: usize,
}

impl Blocks {
    fn new(body: &[u32], insts: &[Inst]) -> Blocks {
        let mut starts = Vec::new();
        let mut by_label = rustc_hash::FxHashMap::default();
        let mut mentions: rustc_hash::FxHashMap<u32, usize> = Default::default();
        let mut into: rustc_hash::FxHashMap<u32, usize> = Default::default();
        for (k, &x) in insts.iter().enumerate() {
            if x.op == LABEL
                && let Some(&id) = body.get(x.at + 1)
            {
                by_label.insert(id, starts.len());
                starts.push(k);
            }
            for p in label_operands(x) {
                *mentions.entry(body[p]).or_default() += 1;
                if x.op != PHI {
                    *into.entry(body[p]).or_default() += 1;
                }
            }
        }
        Blocks {
            starts,
            by_label,
            mentions,
            into,
            end: insts.len(),
        }
    }

    /// Instruction range of block `i` (its label first).
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        let end = self.starts.get(i + 1).copied().unwrap_or(self.end);
        self.starts[i]..end
    }

    fn mentions(&self, label: u32) -> usize {
        self.mentions.get(&label).copied().unwrap_or(0)
    }

    /// How many branches and merges name `label`.
    fn into(&self, label: u32) -> usize {
        self.into.get(&label).copied().unwrap_or(0)
    }
}

/// One loop to un-rotate: block indices, and the ids the rewrite needs.
struct Plan {
    g: usize,
    /// The guard's way out to M, when it is not M itself.
    f: Option<usize>,
    /// Instructions of H that move in front of its test (indices into the instructions).
    hoist: Vec<usize>,
    h: usize,
    l: usize,
    e: usize,
    m: usize,
    /// Label ids of H and LM.
    h_label: u32,
    lm_label: u32,
    /// M's phis, each with its one value from LM now (result id, type, value).
    m_phis: Vec<(u32, u32, u32)>,
}

/// Words of instruction `x`.
fn words(body: &[u32], x: Inst) -> &[u32] {
    &body[x.at..x.at + x.len]
}

/// The single target of a block that holds nothing but `OpBranch`.
fn only_branch(body: &[u32], insts: &[Inst], bl: &Blocks, i: usize) -> Option<u32> {
    let r = bl.range(i);
    let x = (r.len() == 2).then(|| insts[r.start + 1])?;
    (x.op == BRANCH && x.len == 2).then(|| body[x.at + 1])
}

/// `(true, false)` targets and condition of a block ending in a plain `OpBranchConditional`,
/// with the call to `OpRayQueryProceedKHR` right before the terminator (or before its selection
/// merge): `(cond, t, f, query, index of the call, selection merge target)`.
fn proceed_branch(
    body: &[u32],
    insts: &[Inst],
    bl: &Blocks,
    i: usize,
) -> Option<(u32, u32, u32, u32, usize, Option<u32>)> {
    let r = bl.range(i);
    let term = insts[r.end - 1];
    if term.op != BRANCH_COND || term.len != 4 {
        return None;
    }
    let w = words(body, term);
    let (cond, t, f) = (w[1], w[2], w[3]);
    let mut k = r.end - 2;
    let mut merge = None;
    if insts[k].op == SELECTION_MERGE {
        merge = Some(body[insts[k].at + 1]);
        k -= 1;
    }
    let call = insts[k];
    if k <= r.start || call.op != PROCEED || call.len != 4 || body[call.at + 2] != cond {
        return None;
    }
    Some((cond, t, f, body[call.at + 3], k, merge))
}

/// How often `id` appears among the body's words (ids and literals alike: over-counts only).
fn occurrences(body: &[u32], id: u32) -> usize {
    body.iter().filter(|&&w| w == id).count()
}

/// The loop whose guard ends block `g`, where it has the shape of the module docs.
fn find(body: &[u32], insts: &[Inst], bl: &Blocks, g: usize) -> Option<Plan> {
    let (c, p_label, f_label, q, _, merge) = proceed_branch(body, insts, bl, g)?;
    let m_label = merge?;
    // The guard's way out: straight to M, or through a block F of pure instructions.
    let f = if f_label == m_label {
        None
    } else {
        let f = *bl.by_label.get(&f_label)?;
        let fr = bl.range(f);
        let t = insts[fr.end - 1];
        let pure = insts[fr.start + 1..fr.end - 1]
            .iter()
            .all(|x| super::pure_opcode(x.op) && x.len >= 3);
        if !pure || t.op != BRANCH || t.len != 2 || body[t.at + 1] != m_label {
            return None;
        }
        if bl.into(f_label) != 1 {
            return None;
        }
        Some(f)
    };
    let p = *bl.by_label.get(&p_label)?;
    let h_label = only_branch(body, insts, bl, p)?;
    let h = *bl.by_label.get(&h_label)?;
    let hr = bl.range(h);
    let lm_inst = insts[hr.end - 2];
    let h_term = insts[hr.end - 1];
    if lm_inst.op != LOOP_MERGE || lm_inst.len != 4 || h_term.op != BRANCH || h_term.len != 2 {
        return None;
    }
    let (lm_label, c_label) = (body[lm_inst.at + 1], body[lm_inst.at + 2]);
    let cb = *bl.by_label.get(&c_label)?;
    if only_branch(body, insts, bl, cb)? != h_label {
        return None;
    }
    // H is entered from P and C only, P from the guard, C from the latch (and named by the
    // header's merge).
    let phis: Vec<Inst> = insts[hr.start + 1..hr.end]
        .iter()
        .copied()
        .take_while(|x| x.op == PHI)
        .collect();
    if bl.into(h_label) != 2 || bl.into(c_label) != 2 || bl.into(p_label) != 1 {
        return None;
    }
    let l = (0..bl.starts.len()).find(|&i| {
        let t = insts[bl.range(i).end - 1];
        t.op == BRANCH_COND && t.len == 4 && body[t.at + 2] == c_label
    })?;
    let (p1, _, e_label, q1, call, None) = proceed_branch(body, insts, bl, l)? else {
        return None;
    };
    if q1 != q || [g, p, h, cb].contains(&l) {
        return None;
    }
    let e = *bl.by_label.get(&e_label)?;
    let lm = *bl.by_label.get(&lm_label)?;
    let m = *bl.by_label.get(&m_label)?;
    if bl.mentions(e_label) != 1 || bl.into(lm_label) != 2 {
        return None;
    }
    if only_branch(body, insts, bl, lm)? != m_label {
        return None;
    }
    // Header phi by its value from C, and its value from P.
    let mut by_next = rustc_hash::FxHashMap::default();
    for x in &phis {
        let w = words(body, *x);
        if x.len != 7 {
            return None;
        }
        let (init, next) = match (w[4], w[6]) {
            (a, b) if a == p_label && b == c_label => (w[3], w[5]),
            (a, b) if a == c_label && b == p_label => (w[5], w[3]),
            _ => return None,
        };
        by_next.insert(next, (w[2], init));
    }
    // E: loads that repeat the latch's, with nothing that writes memory after them there.
    let latch = &insts[bl.range(l).start + 1..call];
    let after_stores = latch
        .iter()
        .rposition(|&x| !reads_only(body, x))
        .map_or(0, |k| k + 1);
    let mut exit_value = rustc_hash::FxHashMap::default();
    let er = bl.range(e);
    for x in &insts[er.start + 1..er.end - 1] {
        let w = words(body, *x);
        if x.op != LOAD || x.len != 4 {
            return None;
        }
        let same = latch[after_stores..]
            .iter()
            .find(|y| y.len == 4 && body[y.at + 1] == w[1] && body[y.at + 3] == w[3])?;
        let &(hphi, init) = by_next.get(&body[same.at + 2])?;
        exit_value.insert(w[2], (hphi, init));
    }
    if insts[er.end - 1].op != BRANCH || insts[er.end - 1].len != 2 {
        return None;
    }
    // M: reached from the guard's way out and the loop's merge only; what its phis take from LM
    // must be at hand where the loop now leaves, its header.
    let mr = bl.range(m);
    let out_label = match f {
        Some(_) => f_label,
        None => bl_label(body, insts, bl, g),
    };
    let f_defs: Vec<Inst> = f.map_or(Vec::new(), |f| {
        let fr = bl.range(f);
        insts[fr.start + 1..fr.end - 1].to_vec()
    });
    let h_defs = &insts[hr.start + 1 + phis.len()..hr.end - 2];
    let mut m_phis = Vec::new();
    let mut hoist = Vec::new();
    let mut uses = rustc_hash::FxHashMap::<u32, usize>::default();
    for x in insts[mr.start + 1..mr.end]
        .iter()
        .take_while(|x| x.op == PHI)
    {
        let w = words(body, *x);
        if x.len != 7 {
            return None;
        }
        let (from_out, from_lm) = match (w[4], w[6]) {
            (a, b) if a == out_label && b == lm_label => (w[3], w[5]),
            (a, b) if a == lm_label && b == out_label => (w[5], w[3]),
            _ => return None,
        };
        *uses.entry(from_lm).or_default() += 1;
        *uses.entry(from_out).or_default() += 1;
        let value = if let Some(&(hphi, init)) = exit_value.get(&from_lm).or(by_next.get(&from_lm))
        {
            // The loop's last value: the header phi's on the way out.
            (init == from_out).then_some(hphi)?
        } else if from_lm == from_out && !f_defs.iter().any(|y| body[y.at + 2] == from_out) {
            // Defined before the guard.
            from_lm
        } else {
            // The same pure instruction of values from before the guard in the header and in F:
            // computed in the header before its test, it serves both ways out.
            let k = h_defs
                .iter()
                .position(|y| y.len >= 3 && body[y.at + 2] == from_lm)?;
            let y = h_defs[k];
            let z = f_defs.iter().find(|z| body[z.at + 2] == from_out)?;
            let same = z.len == y.len
                && body[z.at] == body[y.at]
                && body[z.at + 1] == body[y.at + 1]
                && body[z.at + 3..z.at + z.len] == body[y.at + 3..y.at + y.len];
            if !same || !super::pure_opcode(y.op) {
                return None;
            }
            hoist.push(hr.start + 1 + phis.len() + k);
            from_lm
        };
        m_phis.push((w[2], w[1], value));
    }
    // M is entered from the guard's way out and LM only (and named by the guard's merge).
    if bl.into(m_label) != 3 {
        return None;
    }
    // The calls' results feed their branches only; the exit loads and F's values, M's phis only.
    if occurrences(body, c) != 2 || occurrences(body, p1) != 2 {
        return None;
    }
    let f_ids = f_defs.iter().map(|y| body[y.at + 2]);
    for id in exit_value.keys().copied().chain(f_ids) {
        if occurrences(body, id) != 1 + uses.get(&id).copied().unwrap_or(0) {
            return None;
        }
    }
    hoist.sort_unstable();
    hoist.dedup();
    Some(Plan {
        g,
        f,
        hoist,
        h,
        l,
        e,
        m,
        h_label,
        lm_label,
        m_phis,
    })
}

/// Whether `x` leaves memory as it is: a load, a pure instruction, or a GLSL.std.450 instruction
/// other than the two that store through a pointer operand (`Modf`, `Frexp`).
fn reads_only(body: &[u32], x: Inst) -> bool {
    const MODF: u32 = 35;
    const FREXP: u32 = 51;
    x.op == LOAD
        || super::pure_opcode(x.op)
        || (x.op == EXT_INST && x.len >= 5 && !matches!(body[x.at + 4], MODF | FREXP))
}

fn bl_label(body: &[u32], insts: &[Inst], bl: &Blocks, i: usize) -> u32 {
    body[insts[bl.starts[i]].at + 1]
}

/// The body with the loop of `plan` top-tested; `h2` the new block after the header's test.
fn rewrite(body: &[u32], insts: &[Inst], bl: &Blocks, plan: &Plan, h2: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(body.len() + 8);
    let push = |out: &mut Vec<u32>, x: Inst| out.extend_from_slice(words(body, x));
    let branch =
        |out: &mut Vec<u32>, target: u32| out.extend_from_slice(&[(2 << 16) | BRANCH, target]);
    // The guard's call, kept for the header: `[head, bool type, result, query]`.
    let gr = bl.range(plan.g);
    let call = words(body, insts[gr.end - 3]).to_vec();
    let c = call[2];
    for i in 0..bl.starts.len() {
        let r = bl.range(i);
        if i == plan.g {
            insts[r.start..r.end - 3]
                .iter()
                .for_each(|&x| push(&mut out, x));
            let p = body[insts[r.end - 1].at + 2];
            branch(&mut out, p);
        } else if i == plan.h {
            let phis = insts[r.start + 1..r.end]
                .iter()
                .take_while(|x| x.op == PHI)
                .count();
            insts[r.start..=r.start + phis]
                .iter()
                .for_each(|&x| push(&mut out, x));
            plan.hoist.iter().for_each(|&k| push(&mut out, insts[k]));
            out.extend_from_slice(&call);
            push(&mut out, insts[r.end - 2]);
            out.extend_from_slice(&[(4 << 16) | BRANCH_COND, c, h2, plan.lm_label]);
            out.extend_from_slice(&[(2 << 16) | LABEL, h2]);
            (r.start + 1 + phis..r.end - 2)
                .filter(|k| !plan.hoist.contains(k))
                .for_each(|k| push(&mut out, insts[k]));
            push(&mut out, insts[r.end - 1]);
        } else if i == plan.l {
            // Drop the call and the conditional branch: the latch always continues.
            insts[r.start..r.end - 2]
                .iter()
                .for_each(|&x| push(&mut out, x));
            let to_c = body[insts[r.end - 1].at + 2];
            branch(&mut out, to_c);
        } else if i == plan.e || Some(i) == plan.f {
            // Unreachable now: its loads are the header's phis.
        } else if i == plan.m {
            push(&mut out, insts[r.start]);
            for &(res, ty, value) in &plan.m_phis {
                out.extend_from_slice(&[(5 << 16) | PHI, ty, res, value, plan.lm_label]);
            }
            insts[r.start + 1 + plan.m_phis.len()..r.end]
                .iter()
                .for_each(|&x| push(&mut out, x));
        } else {
            insts[r].iter().for_each(|&x| push(&mut out, x));
        }
    }
    // The header's successors now follow from its second half (no phi names the header
    // itself otherwise: its own name P and C, M's the guard and LM).
    if let Some(new) = decode(&out) {
        for x in new.into_iter().filter(|x| x.op == PHI) {
            for w in out[x.at + 4..x.at + x.len].iter_mut().step_by(2) {
                if *w == plan.h_label {
                    *w = h2;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ins(out: &mut Vec<u32>, op: Op, args: &[u32]) {
        crate::spv::emit(out, op, args);
    }

    /// A rotated loop over one variable (ids from 100 up; the entry label is 100), with `store_late`
    /// putting a store between the latch's load and its call.
    fn rotated(store_late: bool) -> Vec<u32> {
        let (bool_ty, q, float, var, init) = (101, 102, 103, 104, 105);
        let mut b = Vec::new();
        ins(&mut b, Op::RayQueryProceedKHR, &[bool_ty, 110, q]);
        ins(&mut b, Op::SelectionMerge, &[120, 0]);
        ins(&mut b, Op::BranchConditional, &[110, 111, 120]);
        ins(&mut b, Op::Label, &[111]);
        ins(&mut b, Op::Branch, &[112]);
        ins(&mut b, Op::Label, &[112]);
        ins(&mut b, Op::Phi, &[float, 130, init, 111, 131, 113]);
        ins(&mut b, Op::LoopMerge, &[115, 113, 0]);
        ins(&mut b, Op::Branch, &[114]);
        ins(&mut b, Op::Label, &[114]);
        ins(&mut b, Op::Store, &[var, 130]);
        ins(&mut b, Op::Load, &[float, 131, var]);
        if store_late {
            ins(&mut b, Op::Store, &[var, init]);
        }
        ins(&mut b, Op::RayQueryProceedKHR, &[bool_ty, 132, q]);
        ins(&mut b, Op::BranchConditional, &[132, 113, 116]);
        ins(&mut b, Op::Label, &[113]);
        ins(&mut b, Op::Branch, &[112]);
        ins(&mut b, Op::Label, &[116]);
        ins(&mut b, Op::Load, &[float, 133, var]);
        ins(&mut b, Op::Branch, &[115]);
        ins(&mut b, Op::Label, &[115]);
        ins(&mut b, Op::Branch, &[120]);
        ins(&mut b, Op::Label, &[120]);
        ins(&mut b, Op::Phi, &[float, 134, init, 100, 133, 115]);
        ins(&mut b, Op::Return, &[]);
        b
    }

    #[test]
    fn rotated_loop_becomes_top_tested() {
        let mut body = rotated(false);
        let mut b = Builder::new();
        unrotate_ray_query_loops(&mut body, 100, &mut b);
        // The new block after the header's test takes the builder's first id.
        let h2 = 1;
        let (bool_ty, q, float, var, init) = (101, 102, 103, 104, 105);
        let mut want = Vec::new();
        ins(&mut want, Op::Branch, &[111]);
        ins(&mut want, Op::Label, &[111]);
        ins(&mut want, Op::Branch, &[112]);
        ins(&mut want, Op::Label, &[112]);
        ins(&mut want, Op::Phi, &[float, 130, init, 111, 131, 113]);
        ins(&mut want, Op::RayQueryProceedKHR, &[bool_ty, 110, q]);
        ins(&mut want, Op::LoopMerge, &[115, 113, 0]);
        ins(&mut want, Op::BranchConditional, &[110, h2, 115]);
        ins(&mut want, Op::Label, &[h2]);
        ins(&mut want, Op::Branch, &[114]);
        ins(&mut want, Op::Label, &[114]);
        ins(&mut want, Op::Store, &[var, 130]);
        ins(&mut want, Op::Load, &[float, 131, var]);
        ins(&mut want, Op::Branch, &[113]);
        ins(&mut want, Op::Label, &[113]);
        ins(&mut want, Op::Branch, &[112]);
        ins(&mut want, Op::Label, &[115]);
        ins(&mut want, Op::Branch, &[120]);
        ins(&mut want, Op::Label, &[120]);
        ins(&mut want, Op::Phi, &[float, 134, 130, 115]);
        ins(&mut want, Op::Return, &[]);
        assert_eq!(body, want);
    }

    #[test]
    fn store_after_the_latch_load_keeps_the_loop() {
        // The exit's load would see the later store, which the header's phi does not hold.
        let before = rotated(true);
        let mut body = before.clone();
        unrotate_ray_query_loops(&mut body, 100, &mut Builder::new());
        assert_eq!(body, before);
    }
}
