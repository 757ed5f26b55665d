//! Re-rolling unrolled early-exit loops, a peephole on a function's emitted words.
//!
//! DXC unrolls an `[unroll]` loop whose trip count it cannot know (`for (i = 0; i < n; i++)`
//! with `n` read at run time) up to its bound: a chain of blocks that each do one iteration with
//! the induction variable folded into constants and then branch either to the next block or, all
//! to the same block, out. One corpus shader has 256 such blocks of four groupshared stores
//! each; lavapipe spent about as long compiling that one module (0.33 s) as the other 423
//! compute shaders of the corpus together, where DXC's own SPIR-V for the same HLSL keeps the
//! loop and compiles in 0.01 s. With the stores removed the same chain compiles in 0.01 s too: it
//! is the volume of unrolled code, not the control flow, that the driver pays for.
//!
//! So a chain of at least [`MIN_CHAIN`] blocks that are the same but for constants that follow
//! the block's index (`a + b*k`, that clamped to a bound, or such an integer as a float) becomes
//! one loop over `k` that computes those constants: bit-identical values, the same stores in the
//! same order, and the same exit to the same blocks.

use rustc_hash::{FxHashMap, FxHashSet};
use spirv::Op;

use super::loops::{
    BRANCH, BRANCH_COND, Inst, LABEL, LOOP_MERGE, PHI, SWITCH, decode, label_operands,
};
use crate::spv::{self, Builder, Id, TypeKey};

/// The shortest chain worth a loop; shorter ones stay as DXC left them.
const MIN_CHAIN: usize = 8;

/// GLSL.std.450 `UMin`.
const GLSL_UMIN: u32 = 38;

/// How an instruction of a chain block is laid out: whether word 1 is a result type and word 2
/// a result id, and which words are literals (the rest are ids). `None`: not re-rolled.
fn layout(op: u32, len: usize) -> Option<(bool, &'static [usize])> {
    let o = Op::from_u32(op)?;
    Some(match o {
        Op::Store if len == 3 => (false, &[]),
        Op::Load if len == 4 => (true, &[]),
        Op::AccessChain | Op::InBoundsAccessChain | Op::CompositeConstruct if len >= 4 => {
            (true, &[])
        }
        Op::ExtInst if len >= 5 => (true, &[4]),
        Op::Select if len == 6 => (true, &[]),
        Op::ConvertUToF
        | Op::ConvertSToF
        | Op::ConvertFToU
        | Op::ConvertFToS
        | Op::Bitcast
        | Op::SNegate
        | Op::FNegate
        | Op::Not
        | Op::LogicalNot
            if len == 4 =>
        {
            (true, &[])
        }
        Op::IAdd
        | Op::ISub
        | Op::IMul
        | Op::UDiv
        | Op::UMod
        | Op::FAdd
        | Op::FSub
        | Op::FMul
        | Op::FDiv
        | Op::ShiftLeftLogical
        | Op::ShiftRightLogical
        | Op::ShiftRightArithmetic
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::LogicalAnd
        | Op::LogicalOr
        | Op::IEqual
        | Op::INotEqual
        | Op::ULessThan
        | Op::ULessThanEqual
        | Op::UGreaterThan
        | Op::UGreaterThanEqual
        | Op::SLessThan
        | Op::SLessThanEqual
        | Op::SGreaterThan
        | Op::SGreaterThanEqual
        | Op::FOrdLessThan
        | Op::FOrdLessThanEqual
        | Op::FOrdGreaterThan
        | Op::FOrdGreaterThanEqual
            if len == 5 =>
        {
            (true, &[])
        }
        _ => return None,
    })
}

/// What a constant that changes from block to block is, as a function of the block index `k`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Seq {
    /// `a + b*k` (u32, wrapping).
    Affine { a: u32, b: u32 },
    /// `min(a + b*k, m)` (u32, no wrapping before the clamp).
    Clamped { a: u32, b: u32, m: u32 },
    /// The f32 value of the i32 `a + b*k`.
    Float { a: u32, b: u32 },
}

/// The sequence that `vals` (u32 bits, one per block) follow, if any.
fn int_seq(vals: &[u32]) -> Option<Seq> {
    let (&a, &v1) = (vals.first()?, vals.get(1)?);
    let b = v1.wrapping_sub(a);
    let at = |k: usize| a.wrapping_add(b.wrapping_mul(k as u32));
    let Some(first_off) = vals.iter().enumerate().position(|(k, &v)| v != at(k)) else {
        return Some(Seq::Affine { a, b });
    };
    // Clamped: rising without wrapping up to the bound, then the bound.
    let m = *vals.last()?;
    let rising = |k: usize| u64::from(a) + u64::from(b) * k as u64;
    let ok = first_off >= 2
        && b != 0
        && rising(vals.len() - 1) <= u64::from(u32::MAX)
        && vals
            .iter()
            .enumerate()
            .all(|(k, &v)| u64::from(v) == rising(k).min(u64::from(m)));
    ok.then_some(Seq::Clamped { a, b, m })
}

/// The sequence of f32 constants (bits, one per block): integers `a + b*k` exactly.
fn float_seq(vals: &[u32]) -> Option<Seq> {
    let mut ints = Vec::with_capacity(vals.len());
    for &bits in vals {
        let f = f32::from_bits(bits);
        if !(f.fract() == 0.0 && f.abs() <= 16_777_216.0) {
            return None;
        }
        let i = f as i32;
        // -0.0 converts back to +0.0: its bits would change.
        if (i as f32).to_bits() != bits {
            return None;
        }
        ints.push(i as u32);
    }
    match int_seq(&ints)? {
        Seq::Affine { a, b } => Some(Seq::Float { a, b }),
        _ => None,
    }
}

/// A block of the body: its label id and the instruction indices of its label and terminator.
#[derive(Clone, Copy)]
struct Block {
    label: u32,
    first: usize,
    term: usize,
}

/// A chain found in the body: its blocks (in order), the common exit, the block after the last
/// one, and whether the branches go on when their condition holds.
struct Chain {
    blocks: std::ops::Range<usize>,
    exit: u32,
    tail: u32,
    on_true: bool,
}

/// What the template's words become in the loop.
enum Word {
    Same,
    Local(usize),
    Varying(Seq),
}

/// Re-rolls an unrolled chain in a function body (the words after its entry label and
/// variables), in place. A chain whose ids the module's decorations or names mention is left
/// alone.
pub(super) fn reroll(body: &mut Vec<u32>, b: &mut Builder) {
    // One chain at a time: each rewrite moves the words of the ones after it. DXC's chains come
    // in a few runs of one shape each (the shape changes where a clamp folds an index).
    for _ in 0..MAX_CHAINS {
        if !reroll_one(body, b) {
            return;
        }
    }
}

/// How many chains one function may have re-rolled.
const MAX_CHAINS: usize = 8;

/// Re-rolls the first chain that qualifies; whether there was one.
fn reroll_one(body: &mut Vec<u32>, b: &mut Builder) -> bool {
    // Cheap first: most functions have too few conditional branches for a chain, and need
    // nothing decoded.
    if count_cond_branches(body) < MIN_CHAIN {
        return false;
    }
    let Some(insts) = decode(body) else {
        return false;
    };
    let blocks = blocks_of(body, &insts);
    let candidates = candidate_chains(body, &insts, &blocks);
    if candidates.is_empty() {
        return false;
    }
    let consts = b.scalar_consts_by_id();
    let (Some(u32_ty), Some(f32_ty)) = (
        b.find_type(TypeKey::Int(32)).map(Id::word),
        b.find_type(TypeKey::Float(32)).map(Id::word),
    ) else {
        return false;
    };
    let value_of = |id: u32, want: u32| consts.get(&id).filter(|c| c.0 == want).map(|c| c.1 as u32);
    for chain in candidates {
        let Some(plan) = plan(body, &insts, &blocks, &chain, u32_ty, f32_ty, &value_of) else {
            continue;
        };

        if names_any(&b.annotations, &plan.defined) || names_any(&b.debug, &plan.defined) {
            continue;
        }
        if !only_used_inside(body, &insts, &blocks, &chain, &plan.defined) {
            continue;
        }
        let (words, merge) = emit_loop(body, &insts, &blocks, &chain, &plan, b);
        let start = insts[blocks[chain.blocks.start].first].at;
        let last = insts[blocks[chain.blocks.end - 1].term];
        let end = last.at + last.len;
        body.splice(start..end, words);
        // Phis of the exit and the tail name the chain's blocks as predecessors.
        retarget_phis(body, &chain, &blocks, merge);
        return true;
    }
    false
}

/// How many `OpBranchConditional` a body has (a walk over the instruction heads, no allocation).
fn count_cond_branches(body: &[u32]) -> usize {
    let (mut at, mut n) = (0, 0);
    while let Some(&w) = body.get(at) {
        n += usize::from(w & 0xFFFF == BRANCH_COND);
        at += ((w >> 16) as usize).max(1);
    }
    n
}

fn blocks_of(body: &[u32], insts: &[Inst]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for (k, x) in insts.iter().enumerate() {
        if x.op == LABEL {
            if let Some(prev) = out.last_mut() {
                prev.term = k.saturating_sub(1);
            }
            out.push(Block {
                label: body.get(x.at + 1).copied().unwrap_or(0),
                first: k,
                term: k,
            });
        }
    }
    if let Some(prev) = out.last_mut() {
        prev.term = insts.len().saturating_sub(1);
    }
    out
}

/// Maximal runs of consecutive blocks that each end in `OpBranchConditional` to the next block
/// or one common exit, where every block but the first is entered only from the one before.
fn candidate_chains(body: &[u32], insts: &[Inst], blocks: &[Block]) -> Vec<Chain> {
    let mut entries: FxHashMap<u32, u32> = FxHashMap::default();
    for x in insts {
        let targets = match x.op {
            BRANCH => x.at + 1..x.at + 2,
            BRANCH_COND => x.at + 2..x.at + 4,
            SWITCH => x.at + 2..x.at + x.len,
            _ => continue,
        };
        for p in targets {
            if let Some(&t) = body.get(p) {
                *entries.entry(t).or_default() += 1;
            }
        }
    }
    // (next-block side, exit) of a block's terminator when it has the chain's shape.
    let step = |k: usize| -> Option<(bool, u32, u32)> {
        let (blk, next) = (blocks.get(k)?, blocks.get(k + 1)?);
        let t = insts.get(blk.term)?;
        if t.op != BRANCH_COND || t.len != 4 {
            return None;
        }
        let (tt, tf) = (body[t.at + 2], body[t.at + 3]);
        match (tt == next.label, tf == next.label) {
            (true, false) => Some((true, tf, tt)),
            (false, true) => Some((false, tt, tf)),
            _ => None,
        }
    };
    // The same instructions by opcode and length (word 0 holds both).
    let same_shape = |a: Block, b: Block| {
        a.term - a.first == b.term - b.first
            && (1..=a.term - a.first)
                .all(|j| body[insts[a.first + j].at] == body[insts[b.first + j].at])
    };
    let mut out = Vec::new();
    let mut k = 0;
    while k < blocks.len() {
        let Some((on_true, exit, _)) = step(k) else {
            k += 1;
            continue;
        };
        let mut end = k + 1;
        while let Some((o, e, _)) = step(end) {
            let single = entries.get(&blocks[end].label) == Some(&1);
            if o != on_true || e != exit || !single || !same_shape(blocks[k], blocks[end]) {
                break;
            }
            end += 1;
        }
        // Block `end` is the tail: entered from the chain's last block (and maybe elsewhere).
        let tail_single = blocks
            .get(end)
            .is_some_and(|t| entries.get(&t.label) == Some(&1));
        if end - k >= MIN_CHAIN && tail_single {
            out.push(Chain {
                blocks: k..end,
                exit,
                tail: blocks[end].label,
                on_true,
            });
        }
        k = end.max(k + 1);
    }
    out
}

/// The loop a chain becomes: what each word of the template (the first block) becomes, the
/// ids the chain defines, the template position of the branch condition, and the chain's length.
struct Plan {
    words: Vec<Vec<Word>>,
    defined: FxHashSet<u32>,
    cond: usize,
    n: usize,
}

fn plan(
    body: &[u32],
    insts: &[Inst],
    blocks: &[Block],
    chain: &Chain,
    u32_ty: u32,
    f32_ty: u32,
    value_of: &dyn Fn(u32, u32) -> Option<u32>,
) -> Option<Plan> {
    let chain_blocks = &blocks[chain.blocks.clone()];
    let first = chain_blocks.first()?;
    let len = first.term - first.first;
    // Instruction j of block k, and the local result ids of each block by position.
    let inst = |blk: &Block, j: usize| insts[blk.first + 1 + j];
    let mut locals: Vec<FxHashMap<u32, usize>> = Vec::with_capacity(chain_blocks.len());
    let mut defined = FxHashSet::default();
    for blk in chain_blocks {
        if blk.term - blk.first != len {
            return None;
        }
        defined.insert(blk.label);
        let mut m = FxHashMap::default();
        for j in 0..len - 1 {
            let x = inst(blk, j);
            let (has_result, _) = layout(x.op, x.len)?;
            if has_result {
                m.insert(body[x.at + 2], j);
                defined.insert(body[x.at + 2]);
            }
        }
        locals.push(m);
    }
    let mut words = Vec::with_capacity(len - 1);
    let mut vals = Vec::with_capacity(chain_blocks.len());
    for j in 0..len - 1 {
        let x0 = inst(first, j);
        let (has_result, literals) = layout(x0.op, x0.len)?;
        let mut row = Vec::with_capacity(x0.len);
        for w in 0..x0.len {
            let at = |blk: &Block| {
                let x = inst(blk, j);
                (x.op == x0.op && x.len == x0.len).then(|| body[x.at + w])
            };
            let all: Option<Vec<u32>> = chain_blocks.iter().map(at).collect();
            let all = all?;
            let same = all.iter().all(|&v| v == all[0]);
            if w == 0 || literals.contains(&w) || (has_result && w == 1) {
                if !same {
                    return None;
                }
                row.push(Word::Same);
            } else if has_result && w == 2 {
                row.push(Word::Local(j));
            } else if let Some(&p) = locals[0].get(&all[0]) {
                let positional = all.iter().zip(&locals).all(|(v, l)| l.get(v) == Some(&p));
                if !positional {
                    return None;
                }
                row.push(Word::Local(p));
            } else if same {
                if defined.contains(&all[0]) {
                    return None;
                }
                row.push(Word::Same);
            } else {
                vals.clear();
                let seq = if all.iter().all(|&v| value_of(v, u32_ty).is_some()) {
                    vals.extend(all.iter().filter_map(|&v| value_of(v, u32_ty)));
                    int_seq(&vals)?
                } else {
                    vals.extend(all.iter().filter_map(|&v| value_of(v, f32_ty)));
                    if vals.len() != all.len() {
                        return None;
                    }
                    float_seq(&vals)?
                };
                row.push(Word::Varying(seq));
            }
        }
        words.push(row);
    }
    // The branch condition: a value of the block.
    let t = insts[first.term];
    let cond = *locals[0].get(&body[t.at + 1])?;
    for (blk, l) in chain_blocks.iter().zip(&locals) {
        if l.get(&body[insts[blk.term].at + 1]) != Some(&cond) {
            return None;
        }
    }
    Some(Plan {
        words,
        defined,
        cond,
        n: chain_blocks.len(),
    })
}

/// Whether an instruction of `section` (decorations, names: their target is word 1) targets one
/// of `ids`.
fn names_any(section: &[u32], ids: &FxHashSet<u32>) -> bool {
    let Some(insts) = decode(section) else {
        return true;
    };
    insts
        .iter()
        .any(|x| section.get(x.at + 1).is_some_and(|t| ids.contains(t)))
}

/// Whether the chain's values and labels are named outside the chain only where the rewrite
/// renames them: chain labels as predecessors in the exit's phis, the last one in the tail's.
fn only_used_inside(
    body: &[u32],
    insts: &[Inst],
    blocks: &[Block],
    chain: &Chain,
    defined: &FxHashSet<u32>,
) -> bool {
    let chain_insts = blocks[chain.blocks.start].first..=blocks[chain.blocks.end - 1].term;
    let labels: FxHashSet<u32> = blocks[chain.blocks.clone()]
        .iter()
        .map(|b| b.label)
        .collect();
    let last = blocks[chain.blocks.end - 1].label;
    let first = blocks[chain.blocks.start].label;
    let mut cur_label = 0;
    for (k, &x) in insts.iter().enumerate() {
        if x.op == LABEL {
            cur_label = body[x.at + 1];
        }
        if chain_insts.contains(&k) {
            continue;
        }
        // A loop inside a continue construct would need its own rules: not there.
        if x.op == LOOP_MERGE && body.get(x.at + 2) == Some(&first) {
            return false;
        }
        let phi_here = x.op == PHI && (cur_label == chain.exit || cur_label == chain.tail);
        for p in label_operands(x) {
            let w = body[p];
            // The first block keeps its label (it becomes the loop's preheader) and its entries.
            let renamed = labels.contains(&w) && w != first;
            if renamed && !(phi_here && (cur_label == chain.exit || w == last)) {
                return false;
            }
        }
        if value_words(x).any(|p| !labels.contains(&body[p]) && defined.contains(&body[p])) {
            return false;
        }
    }
    // The exit's phis must take one value, not made in the chain, from every chain block.
    let mut cur_label = 0;
    for x in insts {
        if x.op == LABEL {
            cur_label = body[x.at + 1];
        }
        if x.op != PHI || cur_label != chain.exit {
            continue;
        }
        let pairs = body[x.at + 3..x.at + x.len].chunks_exact(2);
        let mut value = None;
        for pair in pairs {
            if labels.contains(&pair[1]) {
                if value.is_some_and(|v| v != pair[0]) {
                    return false;
                }
                value = Some(pair[0]);
            }
        }
    }
    true
}

/// The loop's words: the first block's label, now a preheader; the header with the counter,
/// the template and the branch; an empty continue block; the merge, which goes on to the tail
/// or leaves to the exit as the last block did.
fn emit_loop(
    body: &[u32],
    insts: &[Inst],
    blocks: &[Block],
    chain: &Chain,
    plan: &Plan,
    b: &mut Builder,
) -> (Vec<u32>, u32) {
    let first = &blocks[chain.blocks.start];
    let (u32_ty, bool_ty) = (b.u32(), b.bool());
    let (header, cont, merge) = (b.id(), b.id(), b.id());
    let (counter, next, more, go) = (b.id(), b.id(), b.id(), b.id());
    let zero = b.const_u32(0);
    let one = b.const_u32(1);
    let n = b.const_u32(plan.n as u32);
    let mut out = Vec::new();
    spv::emit(&mut out, Op::Label, &[first.label]);
    spv::emit(&mut out, Op::Branch, &[header.word()]);
    spv::emit(&mut out, Op::Label, &[header.word()]);
    spv::emit(
        &mut out,
        Op::Phi,
        &[
            u32_ty.word(),
            counter.word(),
            zero.word(),
            first.label,
            next.word(),
            cont.word(),
        ],
    );
    // The varying constants, each computed once.
    let mut seqs: Vec<(Seq, u32)> = Vec::new();
    // The next counter value first: the chain's own `k + 1` constants become it.
    spv::emit(
        &mut out,
        Op::IAdd,
        &[u32_ty.word(), next.word(), counter.word(), one.word()],
    );
    let mut arith = Arith {
        out: &mut out,
        done: vec![(Op::IAdd, counter.word(), one.word(), next.word())],
    };
    for row in &plan.words {
        for w in row {
            if let Word::Varying(s) = w
                && !seqs.iter().any(|(t, _)| t == s)
            {
                let id = arith.seq(b, *s, counter.word());
                seqs.push((*s, id));
            }
        }
    }
    // The template with fresh result ids.
    let fresh: Vec<u32> = (0..plan.words.len()).map(|_| b.id().word()).collect();
    for (j, row) in plan.words.iter().enumerate() {
        let x = insts[first.first + 1 + j];
        for (w, word) in row.iter().enumerate() {
            out.push(match word {
                Word::Same => body[x.at + w],
                Word::Local(p) => fresh[*p],
                Word::Varying(s) => seqs.iter().find(|(t, _)| t == s).map_or(0, |e| e.1),
            });
        }
    }
    let mut cond = fresh[plan.cond];
    if !chain.on_true {
        let not = b.id().word();
        spv::emit(&mut out, Op::LogicalNot, &[bool_ty.word(), not, cond]);
        cond = not;
    }
    let ops = [
        (Op::ULessThan, bool_ty, more, next.word(), n.word()),
        (Op::LogicalAnd, bool_ty, go, cond, more.word()),
    ];
    for (op, ty, res, x, y) in ops {
        spv::emit(&mut out, op, &[ty.word(), res.word(), x, y]);
    }
    spv::emit(
        &mut out,
        Op::LoopMerge,
        &[merge.word(), cont.word(), spirv::LoopControl::NONE.bits()],
    );
    spv::emit(
        &mut out,
        Op::BranchConditional,
        &[go.word(), cont.word(), merge.word()],
    );
    spv::emit(&mut out, Op::Label, &[cont.word()]);
    spv::emit(&mut out, Op::Branch, &[header.word()]);
    spv::emit(&mut out, Op::Label, &[merge.word()]);
    spv::emit(
        &mut out,
        Op::BranchConditional,
        &[cond, chain.tail, chain.exit],
    );
    (out, merge.word())
}

/// Arithmetic on the counter, each distinct `(op, x, y)` emitted once.
struct Arith<'o> {
    out: &'o mut Vec<u32>,
    done: Vec<(Op, u32, u32, u32)>,
}

impl Arith<'_> {
    fn op(&mut self, b: &mut Builder, op: Op, ty: u32, x: u32, y: u32) -> u32 {
        if let Some(&(.., id)) = self.done.iter().find(|d| (d.0, d.1, d.2) == (op, x, y)) {
            return id;
        }
        let id = b.id().word();
        if op == Op::ExtInst {
            let set = b.glsl().word();
            spv::emit(self.out, op, &[ty, id, set, GLSL_UMIN, x, y]);
        } else if op == Op::ConvertSToF {
            spv::emit(self.out, op, &[ty, id, x]);
        } else {
            spv::emit(self.out, op, &[ty, id, x, y]);
        }
        self.done.push((op, x, y, id));
        id
    }

    /// The value of `s` at the counter.
    fn seq(&mut self, b: &mut Builder, s: Seq, counter: u32) -> u32 {
        let u32_ty = b.u32().word();
        let (a, step) = match s {
            Seq::Affine { a, b } | Seq::Clamped { a, b, .. } | Seq::Float { a, b } => (a, b),
        };
        let mut v = counter;
        if step != 1 {
            let c = b.const_u32(step).word();
            v = self.op(b, Op::IMul, u32_ty, v, c);
        }
        if a != 0 {
            let c = b.const_u32(a).word();
            v = self.op(b, Op::IAdd, u32_ty, v, c);
        }
        match s {
            Seq::Affine { .. } => v,
            Seq::Clamped { m, .. } => {
                let c = b.const_u32(m).word();
                self.op(b, Op::ExtInst, u32_ty, v, c)
            }
            Seq::Float { .. } => {
                let f32_ty = b.f32().word();
                self.op(b, Op::ConvertSToF, f32_ty, v, 0)
            }
        }
    }
}

/// After the splice: the exit's phis take the chain's one value from the merge instead of from
/// each chain block, and the tail's phis name the merge instead of the last chain block.
fn retarget_phis(body: &mut Vec<u32>, chain: &Chain, blocks: &[Block], merge: u32) {
    let labels: FxHashSet<u32> = blocks[chain.blocks.clone()]
        .iter()
        .map(|b| b.label)
        .collect();
    let last = blocks[chain.blocks.end - 1].label;
    let Some(insts) = decode(body) else { return };
    let mut out = Vec::with_capacity(body.len());
    let mut cur_label = 0;
    for x in &insts {
        if x.op == LABEL {
            cur_label = body[x.at + 1];
        }
        let words = &body[x.at..x.at + x.len];
        if x.op != PHI || (cur_label != chain.exit && cur_label != chain.tail) {
            out.extend_from_slice(words);
            continue;
        }
        let start = out.len();
        out.extend_from_slice(&words[..3]);
        let mut merged = false;
        for pair in words[3..].chunks_exact(2) {
            if cur_label == chain.exit && labels.contains(&pair[1]) {
                if !merged {
                    out.extend_from_slice(&[pair[0], merge]);
                    merged = true;
                }
            } else if cur_label == chain.tail && pair[1] == last {
                out.extend_from_slice(&[pair[0], merge]);
            } else {
                out.extend_from_slice(pair);
            }
        }
        let len = (out.len() - start) as u32;
        out[start] = (len << 16) | PHI;
    }
    *body = out;
}

/// The words of `x` that may name a value: all but its opcode word and the literals of the
/// instructions that carry some (a word too many can only keep a chain from being re-rolled).
fn value_words(x: Inst) -> impl Iterator<Item = usize> {
    let end = x.at + x.len;
    let op = Op::from_u32(x.op);
    let ids = match op {
        Some(Op::Label | Op::Branch | Op::LoopMerge | Op::SelectionMerge) => end..end,
        Some(Op::CompositeExtract) => x.at + 1..(x.at + 4).min(end),
        Some(Op::VectorShuffle | Op::CompositeInsert) => x.at + 1..(x.at + 5).min(end),
        Some(Op::Load) => x.at + 1..(x.at + 4).min(end),
        Some(Op::Store) => x.at + 1..(x.at + 3).min(end),
        Some(Op::BranchConditional | Op::Switch) => x.at + 1..(x.at + 2).min(end),
        _ => x.at + 1..end,
    };
    // An extended instruction's number.
    let literal = (op == Some(Op::ExtInst)).then_some(x.at + 4);
    ids.filter(move |&p| Some(p) != literal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_sequences() {
        assert_eq!(int_seq(&[0, 4, 8, 12]), Some(Seq::Affine { a: 0, b: 4 }));
        assert_eq!(int_seq(&[7, 6, 5]), Some(Seq::Affine { a: 7, b: u32::MAX }));
        // An index clamped to the last element of a 256-element array.
        assert_eq!(
            int_seq(&[248, 252, 255, 255, 255]),
            Some(Seq::Clamped {
                a: 248,
                b: 4,
                m: 255
            })
        );
        assert_eq!(int_seq(&[0, 4, 9, 12]), None);
        // A clamp must hold from where the sequence leaves the line to the end.
        assert_eq!(int_seq(&[0, 4, 8, 255, 16]), None);
        assert_eq!(
            int_seq(&[0, 4, 5, 5]),
            Some(Seq::Clamped { a: 0, b: 4, m: 5 })
        );
        assert_eq!(int_seq(&[0, 4, 5, 6]), None);
    }

    #[test]
    fn float_sequences() {
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            float_seq(&bits(&[1.0, 5.0, 9.0])),
            Some(Seq::Float { a: 1, b: 4 })
        );
        assert_eq!(
            float_seq(&bits(&[-2.0, -1.0, 0.0])),
            Some(Seq::Float {
                a: (-2i32) as u32,
                b: 1
            })
        );
        // -0.0 would come back as +0.0; halves are not integers.
        assert_eq!(float_seq(&bits(&[-0.0, 1.0, 2.0])), None);
        assert_eq!(float_seq(&bits(&[0.5, 1.5, 2.5])), None);
        assert_eq!(float_seq(&bits(&[0.0, 1.0, 2.5])), None);
    }
}
