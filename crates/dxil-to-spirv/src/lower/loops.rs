//! One-block loops, a peephole on a function's emitted words.
//!
//! The structurizer gives every loop a continue block; for a loop whose body is its header
//! alone, that block holds nothing but the branch back, and the exit often goes through a block
//! that holds nothing but the branch to the merge. Drivers compile such a loop less well than the
//! same loop with the header as its own continue target (on an NVIDIA H100 a 5x5 blur's tile
//! loop ran 13% slower, an n-body loop 5%): so where the header branches to an empty continue
//! block, the header becomes the continue target and the back edge, the empty exit block is
//! skipped, and both blocks go.
//!
//! Counted loop exits, a second peephole: LLVM rotates `for (k = s; k < n; k++)` into a guard
//! `s < n` (for s = 0: `n != 0`) in front of a bottom-tested loop whose exit test it rewrites from
//! `k + 1 < n` to `k + 1 == n`. The two are equal only because of the guard, and the driver does
//! not see that: on an NVIDIA H100 a loop with a data-dependent trip count ran 3.4% slower with
//! `==` than with `>=` (its compiler makes a different, larger loop of it). Where the guard is
//! there, the counter starts at `s` and steps by one, and the compare decides the back edge, the
//! compare becomes the unsigned order test again: on every evaluation `k + 1 <= n` holds (it starts
//! at `s + 1 <= n` and the loop leaves as soon as it reaches `n`), so both tests agree.

use spirv::Op;

/// One instruction: first word and word count.
#[derive(Clone, Copy)]
pub(super) struct Inst {
    pub(super) at: usize,
    pub(super) len: usize,
    pub(super) op: u32,
}

/// Whether `body` holds an `OpLoopMerge`: both peepholes only rewrite loops, and most functions have none, so
/// one walk over the instruction heads spares them the decoded list and the block maps (before this check they
/// took about a sixth of the translator's instructions through the C API, sampled over a tenth of the corpus).
pub(super) fn has_loop(body: &[u32]) -> bool {
    let mut at = 0;
    while let Some(&w) = body.get(at) {
        if w & 0xFFFF == LOOP_MERGE {
            return true;
        }
        let len = (w >> 16) as usize;
        if len == 0 {
            return false;
        }
        at += len;
    }
    false
}

pub(super) fn decode(body: &[u32]) -> Option<Vec<Inst>> {
    // Instructions take two words or more but for a few (OpReturn, OpKill): sized once
    // instead of grown step by step.
    let mut out = Vec::with_capacity(body.len() / 2 + 1);
    let mut at = 0;
    while let Some(&w) = body.get(at) {
        let len = (w >> 16) as usize;
        if len == 0 || at + len > body.len() {
            return None;
        }
        out.push(Inst {
            at,
            len,
            op: w & 0xFFFF,
        });
        at += len;
    }
    Some(out)
}

pub(super) const LABEL: u32 = Op::Label as u32;
pub(super) const BRANCH: u32 = Op::Branch as u32;
pub(super) const BRANCH_COND: u32 = Op::BranchConditional as u32;
pub(super) const LOOP_MERGE: u32 = Op::LoopMerge as u32;
pub(super) const SELECTION_MERGE: u32 = Op::SelectionMerge as u32;
pub(super) const SWITCH: u32 = Op::Switch as u32;
pub(super) const PHI: u32 = Op::Phi as u32;
const IEQUAL: u32 = Op::IEqual as u32;
const INOT_EQUAL: u32 = Op::INotEqual as u32;
const IADD: u32 = Op::IAdd as u32;
const ULESS: u32 = Op::ULessThan as u32;
const ULESS_EQ: u32 = Op::ULessThanEqual as u32;
const UGREATER: u32 = Op::UGreaterThan as u32;
const UGREATER_EQ: u32 = Op::UGreaterThanEqual as u32;

/// The word positions where instruction `x` names a block (a stepped range, so that scanning
/// every instruction of a body allocates nothing).
pub(super) fn label_operands(x: Inst) -> std::iter::StepBy<std::ops::Range<usize>> {
    let (words, step) = match x.op {
        BRANCH | SELECTION_MERGE => (x.at + 1..x.at + 2, 1),
        LOOP_MERGE => (x.at + 1..x.at + 3, 1),
        BRANCH_COND => (x.at + 2..x.at + 4, 1),
        // Case literals may look like labels: count every word, which can only over-count.
        SWITCH => (x.at + 2..x.at + x.len, 1),
        PHI => (x.at + 4..x.at + x.len, 2),
        _ => (0..0, 1),
    };
    words.step_by(step)
}

/// Rewrites the one-block loops of a function body (the words after its entry label and
/// variables) in place.
pub(super) fn one_block_loops(body: &mut Vec<u32>) {
    let Some(insts) = decode(body) else { return };
    // Block of each instruction (by index of its label instruction), and the label ids.
    let mut block_start = vec![usize::MAX; insts.len()];
    let mut cur = usize::MAX;
    for (k, x) in insts.iter().enumerate() {
        if x.op == LABEL {
            cur = k;
        }
        block_start[k] = cur;
    }
    let label_of = |k: usize| insts.get(k).and_then(|x| body.get(x.at + 1)).copied();
    let block_by_label = |id: u32| {
        insts
            .iter()
            .position(|x| x.op == LABEL && body.get(x.at + 1) == Some(&id))
    };
    // (instruction index, word position) of every mention of a block.
    let mut mentions: Vec<(usize, usize)> = Vec::new();
    for (k, &x) in insts.iter().enumerate() {
        mentions.extend(label_operands(x).map(|p| (k, p)));
    }
    let mut drop = vec![false; insts.len()];
    let mut edits: Vec<(usize, u32)> = Vec::new();
    for (m, x) in insts.iter().enumerate() {
        if x.op != LOOP_MERGE || x.len != 4 {
            continue;
        }
        let (Some(hb), Some(term)) = (block_start.get(m).copied(), insts.get(m + 1)) else {
            continue;
        };
        let Some(h) = label_of(hb) else { continue };
        let (merge, cont) = (body[x.at + 1], body[x.at + 2]);
        if term.op != BRANCH_COND || term.len != 4 || cont == h {
            continue;
        }
        let (a, b) = (body[term.at + 2], body[term.at + 3]);
        let exit = match (a == cont, b == cont) {
            (true, false) => b,
            (false, true) => a,
            _ => continue,
        };
        // The continue block: a label and a branch back, named only by this loop.
        let Some(cb) = block_by_label(cont) else {
            continue;
        };
        let only_back = insts
            .get(cb + 1)
            .is_some_and(|y| y.op == BRANCH && y.len == 2 && body[y.at + 1] == h)
            && insts.get(cb + 2).is_none_or(|y| y.op == LABEL);
        let cont_named_elsewhere = mentions.iter().any(|&(k, p)| {
            body[p] == cont
                && !(k == m || k == m + 1 || (insts[k].op == PHI && block_start[k] == hb))
        });
        if !only_back || cont_named_elsewhere {
            continue;
        }
        // The exit: the merge itself, or a block that only branches there and only this header
        // enters.
        let mut exit_block = None;
        if exit != merge {
            let Some(eb) = block_by_label(exit) else {
                continue;
            };
            let only_on = insts
                .get(eb + 1)
                .is_some_and(|y| y.op == BRANCH && y.len == 2 && body[y.at + 1] == merge)
                && insts.get(eb + 2).is_none_or(|y| y.op == LABEL);
            let Some(mb) = block_by_label(merge) else {
                continue;
            };
            let exit_named_elsewhere = mentions.iter().any(|&(k, p)| {
                body[p] == exit && !(k == m + 1 || (insts[k].op == PHI && block_start[k] == mb))
            });
            if !only_on || exit_named_elsewhere {
                continue;
            }
            exit_block = Some((eb, mb));
        }
        // Rewrite.
        edits.push((x.at + 2, h));
        edits.push((term.at + if a == cont { 2 } else { 3 }, h));
        edits.push((term.at + if a == cont { 3 } else { 2 }, merge));
        for &(k, p) in &mentions {
            if insts[k].op == PHI && block_start[k] == hb && body[p] == cont {
                edits.push((p, h));
            }
        }
        drop[cb] = true;
        drop[cb + 1] = true;
        if let Some((eb, mb)) = exit_block {
            for &(k, p) in &mentions {
                if insts[k].op == PHI && block_start[k] == mb && body[p] == exit {
                    edits.push((p, h));
                }
            }
            drop[eb] = true;
            drop[eb + 1] = true;
        }
    }
    if edits.is_empty() {
        return;
    }
    for (p, v) in edits {
        body[p] = v;
    }
    let mut out = Vec::with_capacity(body.len());
    for (k, x) in insts.iter().enumerate() {
        if !drop[k] {
            out.extend_from_slice(&body[x.at..x.at + x.len]);
        }
    }
    *body = out;
}

/// A function body decoded for the counted-loop peephole: instructions, the block (index of its
/// label instruction) of each, and the instruction that defines each result id.
struct Blocks<'a> {
    body: &'a [u32],
    insts: Vec<Inst>,
    block_start: Vec<usize>,
    defs: rustc_hash::FxHashMap<u32, usize>,
    labels: rustc_hash::FxHashMap<u32, usize>,
    /// Instruction indices that name each block.
    mentions: rustc_hash::FxHashMap<u32, Vec<usize>>,
}

/// Opcodes (of the ones this peephole reads) whose word 2 is a result id.
fn has_result(op: u32) -> bool {
    matches!(
        op,
        PHI | IEQUAL | INOT_EQUAL | IADD | ULESS | ULESS_EQ | UGREATER | UGREATER_EQ
    )
}

impl<'a> Blocks<'a> {
    fn new(body: &'a [u32]) -> Option<Self> {
        let insts = decode(body)?;
        let mut block_start = vec![usize::MAX; insts.len()];
        let mut defs = rustc_hash::FxHashMap::default();
        let mut labels = rustc_hash::FxHashMap::default();
        let mut mentions: rustc_hash::FxHashMap<u32, Vec<usize>> = Default::default();
        let mut cur = usize::MAX;
        for (k, &x) in insts.iter().enumerate() {
            if x.op == LABEL {
                cur = k;
                labels.insert(*body.get(x.at + 1)?, k);
            } else if has_result(x.op) && x.len > 2 {
                defs.insert(body[x.at + 2], k);
            }
            block_start[k] = cur;
            for p in label_operands(x) {
                mentions.entry(body[p]).or_default().push(k);
            }
        }
        Some(Self {
            body,
            insts,
            block_start,
            defs,
            labels,
            mentions,
        })
    }

    /// The terminator of the block whose label instruction is `b`.
    fn terminator(&self, b: usize) -> Option<usize> {
        let mut k = b + 1;
        while self.insts.get(k + 1).is_some_and(|y| y.op != LABEL) {
            k += 1;
        }
        self.insts.get(k).map(|_| k)
    }

    /// `(opcode, a, b)` of the two-operand instruction defining `id`.
    fn binop(&self, id: u32) -> Option<(u32, u32, u32)> {
        let x = *self.insts.get(*self.defs.get(&id)?)?;
        (x.len == 5).then(|| (x.op, self.body[x.at + 3], self.body[x.at + 4]))
    }

    /// Whether taking the edge of `branch` (an `OpBranchConditional`) to its `true_side` target
    /// proves `s < n` (unsigned), with `zero` the id of the u32 constant 0.
    fn edge_proves_less(&self, branch: Inst, true_side: bool, s: u32, n: u32, zero: u32) -> bool {
        let Some((op, a, b)) = self.binop(self.body[branch.at + 1]) else {
            return false;
        };
        let lt = match (op, true_side) {
            (ULESS, true) | (UGREATER_EQ, false) => (a, b) == (s, n),
            (UGREATER, true) | (ULESS_EQ, false) => (a, b) == (n, s),
            _ => false,
        };
        // For s = 0, `n != 0` is `0 < n`.
        let nonzero = s == zero
            && matches!((op, true_side), (INOT_EQUAL, true) | (IEQUAL, false))
            && ((a, b) == (n, zero) || (a, b) == (zero, n));
        lt || nonzero
    }
}

/// Rewrites the exit tests of guarded counted loops (see the module docs) in place. `zero` and
/// `one` are the ids of the u32 constants 0 and 1.
pub(super) fn counted_loop_exits(body: &mut [u32], zero: u32, one: u32) {
    let Some(bl) = Blocks::new(body) else { return };
    let mut edits: Vec<(usize, u32)> = Vec::new();
    for (m, x) in bl.insts.iter().enumerate() {
        if x.op != LOOP_MERGE || x.len != 4 {
            continue;
        }
        if let Some(edit) = counted_exit(&bl, m, *x, zero, one) {
            edits.push(edit);
        }
    }
    for (p, w) in edits {
        body[p] = w;
    }
}

/// The new opcode word (and its position) of the exit compare of the loop whose `OpLoopMerge`
/// is instruction `m`, where the rewrite applies.
fn counted_exit(bl: &Blocks, m: usize, x: Inst, zero: u32, one: u32) -> Option<(usize, u32)> {
    let body = bl.body;
    let hb = *bl.block_start.get(m)?;
    let h = body[bl.insts.get(hb)?.at + 1];
    let cont = body[x.at + 2];
    // The back-edge block: the continue target, branching on the compare to the header or out.
    let cb = *bl.labels.get(&cont)?;
    let t = *bl.insts.get(bl.terminator(cb)?)?;
    if t.op != BRANCH_COND || t.len < 4 {
        return None;
    }
    let (c, tt, tf) = (body[t.at + 1], body[t.at + 2], body[t.at + 3]);
    let exit_on_true = match (tt == h, tf == h) {
        (false, true) => true,
        (true, false) => false,
        _ => return None,
    };
    let ci = *bl.defs.get(&c)?;
    let cmp = *bl.insts.get(ci)?;
    let want = if exit_on_true { IEQUAL } else { INOT_EQUAL };
    if cmp.op != want || cmp.len != 5 || bl.block_start[ci] != cb {
        return None;
    }
    let (p, q) = (body[cmp.at + 3], body[cmp.at + 4]);
    // One side is `iv + 1` with `iv` a header phi, the other the bound.
    let (next, n, next_first) = if counter_step(bl, p, hb, one).is_some() {
        (p, q, true)
    } else {
        (q, p, false)
    };
    let iv = counter_step(bl, next, hb, one)?;
    // The phi: (next, back-edge block) and (start, entry block), nothing else.
    let phi = *bl.insts.get(*bl.defs.get(&iv)?)?;
    if phi.op != PHI || phi.len != 7 {
        return None;
    }
    let pairs = [
        (body[phi.at + 3], body[phi.at + 4]),
        (body[phi.at + 5], body[phi.at + 6]),
    ];
    let back = (next, cont);
    let (s, entry) = match pairs {
        [b, other] if b == back => other,
        [other, b] if b == back => other,
        _ => return None,
    };
    if !guarded(bl, entry, h, hb, s, n, zero) {
        return None;
    }
    let op = match (exit_on_true, next_first) {
        (true, true) => UGREATER_EQ,
        (true, false) => ULESS_EQ,
        (false, true) => ULESS,
        (false, false) => UGREATER,
    };
    Some((cmp.at, (cmp.len as u32) << 16 | op))
}

/// `iv` where `next` is `OpIAdd iv one` (either order) and `iv` a phi of block `hb`.
fn counter_step(bl: &Blocks, next: u32, hb: usize, one: u32) -> Option<u32> {
    let (op, a, b) = bl.binop(next)?;
    if op != IADD {
        return None;
    }
    let iv = if b == one {
        a
    } else if a == one {
        b
    } else {
        return None;
    };
    let d = *bl.defs.get(&iv)?;
    (bl.insts.get(d)?.op == PHI && bl.block_start[d] == hb).then_some(iv)
}

/// Whether every entry into header `h` (block `hb`) from block `entry` passes a test proving
/// `s < n`: `entry` itself branches to `h` on such a test, or `entry` is entered only by such an
/// edge.
fn guarded(bl: &Blocks, entry: u32, h: u32, hb: usize, s: u32, n: u32, zero: u32) -> bool {
    let body = bl.body;
    let Some(&eb) = bl.labels.get(&entry) else {
        return false;
    };
    let Some(t) = bl.terminator(eb).and_then(|k| bl.insts.get(k).copied()) else {
        return false;
    };
    let edge = |br: Inst, target: u32| -> Option<bool> {
        let (tt, tf) = (body[br.at + 2], body[br.at + 3]);
        match (tt == target, tf == target) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        }
    };
    if t.op == BRANCH_COND && t.len >= 4 {
        return edge(t, h).is_some_and(|side| bl.edge_proves_less(t, side, s, n, zero));
    }
    if t.op != BRANCH || t.len != 2 || body[t.at + 1] != h {
        return false;
    }
    // `entry` only branches to the header: its one predecessor edge must be the test.
    let Some(names) = bl.mentions.get(&entry) else {
        return false;
    };
    let outside: Vec<usize> = names
        .iter()
        .copied()
        .filter(|&k| !(bl.insts[k].op == PHI && bl.block_start[k] == hb))
        .collect();
    let [k] = outside[..] else { return false };
    let br = bl.insts[k];
    br.op == BRANCH_COND
        && br.len >= 4
        && edge(br, entry).is_some_and(|side| bl.edge_proves_less(br, side, s, n, zero))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
        out.push(((operands.len() as u32 + 1) << 16) | op as u32);
        out.extend_from_slice(operands);
    }

    /// `for (k = start; k < n; k++)` as LLVM rotates it: a guard `n == guard_const` skipping the
    /// loop, then a one-block loop leaving on `k + 1 == n`. Ids: 1 = 0u, 2 = 1u, 3 = uint,
    /// 4 = bool, 20 = n; the exit compare is the 5-word instruction that defines 24.
    fn rotated(start: u32, guard_const: u32) -> Vec<u32> {
        let mut b = Vec::new();
        inst(&mut b, Op::Label, &[10]);
        inst(&mut b, Op::IEqual, &[4, 21, 20, guard_const]);
        inst(&mut b, Op::SelectionMerge, &[14, 0]);
        inst(&mut b, Op::BranchConditional, &[21, 14, 11]);
        inst(&mut b, Op::Label, &[11]);
        inst(&mut b, Op::Branch, &[12]);
        inst(&mut b, Op::Label, &[12]);
        inst(&mut b, Op::Phi, &[3, 22, start, 11, 23, 12]);
        inst(&mut b, Op::IAdd, &[3, 23, 22, 2]);
        inst(&mut b, Op::IEqual, &[4, 24, 23, 20]);
        inst(&mut b, Op::LoopMerge, &[13, 12, 0]);
        inst(&mut b, Op::BranchConditional, &[24, 13, 12]);
        inst(&mut b, Op::Label, &[13]);
        inst(&mut b, Op::Branch, &[14]);
        inst(&mut b, Op::Label, &[14]);
        inst(&mut b, Op::Return, &[]);
        b
    }

    fn exit_op(body: &[u32]) -> u32 {
        let at = body
            .windows(3)
            .position(|w| w[0] >> 16 == 5 && w[2] == 24)
            .expect("exit compare");
        body[at] & 0xFFFF
    }

    #[test]
    fn guarded_counted_exit_becomes_an_order_test() {
        let mut body = rotated(1, 1);
        counted_loop_exits(&mut body, 1, 2);
        assert_eq!(exit_op(&body), Op::UGreaterThanEqual as u32);
    }

    #[test]
    fn exit_without_the_guard_stays() {
        // The guard tests n == 1, which proves nothing about 0 < n.
        let mut body = rotated(1, 2);
        counted_loop_exits(&mut body, 1, 2);
        assert_eq!(exit_op(&body), Op::IEqual as u32);
        // Counting from 1 with only n != 0 known: n = 1 would wrap around with `==`.
        let mut body = rotated(2, 1);
        counted_loop_exits(&mut body, 1, 2);
        assert_eq!(exit_op(&body), Op::IEqual as u32);
    }
}
