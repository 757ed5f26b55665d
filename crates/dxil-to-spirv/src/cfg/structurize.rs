//! The structurizer: reducible CFG → SPIR-V structured control flow.
//!
//! # Algorithm
//!
//! 1. **Analysis.** Iterative DFS (preorder, reverse postorder), Semi-NCA dominators, back edges (target dominates
//!    source). A retreating edge that is not a back edge makes the CFG irreducible: that is reported as
//!    [`StructurizeError::Irreducible`]. Loop nesting forest ([`LoopForest`]). A *merge node* is a block with two or
//!    more distinct forward predecessors.
//! 2. **Placement tree.** The dominator tree, adjusted twice. A block that leaves the innermost loop of its
//!    dominator (a loop exit) hangs under the header of the outermost loop it leaves, so its code goes after that
//!    loop, unless it has one predecessor, its code leads on to at most one place (or returns), and another exit
//!    of that loop is the loop's natural continuation: then it stays inline (`if (c) { …; break; }`), and the
//!    loop's merge forwards its one destination without a flag. And when one arm of a two-way branch never comes
//!    back (no merge child), the other arm becomes the continuation (`if (c) { A; return; } B` rather than
//!    `if (c) { A } else { B … rest of the function }`), which keeps nesting flat across early returns.
//! 3. **Scope tree** (Ramsey, "Beyond Relooper", 2022). The code of block `x` is placed with its placement subtree:
//!    its *followers* (`y1 < … < yk` in reverse postorder: children with several forward predecessors, loop exits,
//!    promoted continuations) follow `x`'s code as nested scopes `Block(Block(x …) y1 …) yk`; its other children
//!    are reached only from `x` and are placed inline in the arm of `x`'s terminator that reaches them. A loop
//!    header wraps its code in a loop scope; followers outside the loop go after the loop. A branch is then one
//!    of: inline (next block), `Follow(y)` (to the end of the scope `y` follows), `Continue(h)` (back edge).
//! 4. **Lowering to SPIR-V constructs.** Each scope becomes a construct whose merge is a *merge point*:
//!    * the scope followed by `y1` is the selection of `x`'s conditional branch or switch (`OpSelectionMerge`);
//!    * outer scopes `y2 … yk` get a synthetic header `OpSelectionMerge; OpSwitch %zero %next` (a switch with only a
//!      default: a construct whose merge may be reached by `break` from nested `if`s);
//!    * a loop gets `OpLoopMerge` in the header block, a synthetic continue block (`OpBranch header`) that all
//!      back edges reach, and as merge the point before its first exit block (or a synthetic block).
//!
//!    A conditional branch with no merge children and at least one exit arm stays header-less (a conditional
//!    break/continue); one with two inline arms gets a selection with a synthetic merge.
//! 5. **Exits.** A branch to a destination that SPIR-V does not let it reach directly (only the innermost
//!    construct's merge, the nearest enclosing switch's merge from inside `if`s, and the nearest loop's merge and
//!    continue target are legal) leaves through the outermost legal merge on the way, and that merge point
//!    forwards it. A merge point with more than one outgoing destination becomes a chain of header-less
//!    `OpBranchConditional (flag == k)` blocks; every branch whose path crosses such a chain first stores `k` into
//!    the function's single flag variable. Values are destination codes: `Follow(y)` = `2y`, `Continue(h)` =
//!    `2h + 1`. Merge points with nothing to forward collapse onto the block that follows (no synthetic block).
//!
//! Every pass is linear or near-linear (union-find) in blocks + edges, except two walks bounded by nesting depth:
//! placing a loop exit climbs the loops it leaves, and a destination forwarded through `d` nested constructs
//! costs `d` (once per distinct construct/destination pair; that is also the size of the forwarding chains in the
//! output). Semi-NCA's ancestor walk is quadratic only on contrived graphs. Nothing recurses.
//!
//! The output is checked by [`super::verify`], by an interpreter comparing original and structured executions
//! under the same branch decisions, and by spirv-val on modules built from it (`tests/structurize.rs`).
//!
//! # Contract for the translator
//!
//! * Emit the output blocks in the order given ([`Structured::blocks`]); block 0 is the entry. An
//!   [`OutBlock::original`] block gets the original block's instructions (phis first, see below), then the
//!   [`OutBlock::flag_write`] (`OpStore %flag %k`), then the merge instruction, then the terminator. A synthetic
//!   block has only the flag write, merge and terminator.
//! * `Condition::Original(x)` / `Selector::Original(x)`: branch on original block `x`'s condition / switch on
//!   its selector with the original literals. `x`'s block dominates every block that uses them.
//!   `Condition::FlagEquals(k)`: `OpLoad %flag` then `OpIEqual` with the `u32` constant `k`.
//!   `Selector::Zero`: `OpSwitch` on the `u32` constant 0 with no cases.
//! * The flag: when [`Structured::uses_flag`], declare one `Function`-storage `u32` variable in the entry block. Its
//!   initial value is never read.
//! * Phis of original block `b`: when [`Structured::phi_preds`] is `Some(list)`, emit `OpPhi` in `b`'s output
//!   block with one `(value for original predecessor p, output parent Q)` entry per `(Q, p)` in the list. When it
//!   is `None`, demote each phi to a `Function` variable: store the incoming value at the end of every original
//!   predecessor `p`'s output block (after its instructions, before the terminator; read all incoming values
//!   before storing any) and load it at the top of `b`'s block. Either way an incoming value is a *use in `p`*.
//! * SSA values: restructuring can route paths around a definition (through forwarding chains), so a definition in
//!   `d` may no longer dominate a use in `u` even though it did originally. Check
//!   [`Structured::def_dominates_use`]`(d, u)` for every cross-block use (and phi incoming value, with `u = p`);
//!   when false, demote the value to a `Function` variable stored right after its definition and loaded at the use.
//! * [`Structured::edge_first_hop`] gives, for each original edge slot, the output edge that leaves the original
//!   block's terminator for it.

use super::domtree::{Csr, DomTree, NONE};
use super::loops::LoopForest;
use super::{
    BlockId, Cfg, MAX_BLOCKS, MAX_EDGES, MAX_REPORTED_CYCLE, StructurizeError, Terminator,
};
use crate::spv::FxMap;

/// "Several" in `ext_one`.
const MANY: u32 = u32::MAX - 1;

/// Loop exits totalling at most this many blocks stay inside the loop when they all lead to the same place.
/// Larger ones would nest the code after the loop inside it.
const SMALL_EXITS: u32 = 16;

/// Index of an output block (position in [`Structured::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OutBlockId(pub u32);

impl OutBlockId {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Merge declaration of an output block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    None,
    Selection {
        merge: OutBlockId,
    },
    Loop {
        merge: OutBlockId,
        continue_target: OutBlockId,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The condition value of this original block (its `CondBranch`).
    Original(BlockId),
    /// `flag == k`.
    FlagEquals(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The selector value of this original block (its `Switch`); cases carry the original literals.
    Original(BlockId),
    /// The constant 0, no cases: a switch used only to open a construct.
    Zero,
}

/// Range of [`Structured::cases`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseRange {
    start: u32,
    len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutTerminator {
    Return,
    Unreachable,
    Branch(OutBlockId),
    CondBranch {
        cond: Condition,
        t: OutBlockId,
        f: OutBlockId,
    },
    Switch {
        selector: Selector,
        default: OutBlockId,
        cases: CaseRange,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutBlock {
    /// The original block whose instructions this block carries; `None` for synthetic blocks.
    pub original: Option<BlockId>,
    pub merge: Merge,
    /// Store this value into the flag variable before the terminator.
    pub flag_write: Option<u32>,
    pub term: OutTerminator,
}

/// One `OpPhi` parent: output block `parent` stands for original predecessor `pred`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhiPred {
    pub parent: OutBlockId,
    pub pred: BlockId,
}

// ---------------------------------------------------------------------------------------------------------------
// Internal pass-1 representation.

/// A branch target before output ids exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tgt {
    /// First block of original block's region.
    Entry(u32),
    /// A merge point.
    Mp(u32),
    /// Continue block of a loop construct.
    Lc(u32),
    /// A proto block.
    Proto(u32),
}

#[derive(Clone, Copy, Debug)]
struct Arm {
    target: Tgt,
    /// Destination code (`2y` / `2h + 1`) when the arm is an exit, `NONE` for structural arms.
    dest: u32,
}

#[derive(Clone, Copy, Debug)]
enum PTerm {
    Return,
    Unreachable,
    Branch(u32),
    Cond {
        of: u32,
        t: u32,
        f: u32,
    },
    Switch {
        of: u32,
        default: u32,
        start: u32,
        len: u32,
    },
    Zero(u32),
    /// Placeholder for a merge point's blocks.
    Mp(u32),
}

#[derive(Clone, Copy, Debug)]
enum PMerge {
    None,
    Sel(u32),
    Loop(u32),
}

#[derive(Clone, Copy, Debug)]
struct Proto {
    origin: u32,
    merge: PMerge,
    term: PTerm,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Root,
    If,
    Switch,
    Loop,
}

#[derive(Clone, Copy, Debug)]
struct Construct {
    kind: Kind,
    parent: u32,
    depth: u32,
    up_switch: u32,
    up_loop: u32,
    mp: u32,
    lc_proto: u32,
    header_proto: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MpShape {
    /// Nothing to forward: the merge is the natural successor's first block.
    Collapse,
    /// No traffic and no successor: one `OpUnreachable` block.
    Unreachable,
    /// One block branching to `else_tgt`.
    Single,
    /// `tests` blocks `flag == d ? target : next`, the last one's `next` being `else_tgt`.
    Chain,
}

#[derive(Clone, Copy, Debug)]
struct MergePoint {
    natural: u32,
    head: u32,
    shape: MpShape,
    tests_start: u32,
    tests_len: u32,
    else_tgt: Tgt,
    first_block: u32,
}

#[derive(Clone, Copy, Debug)]
struct Traffic {
    dest: u32,
    next: Tgt,
    link: u32,
    needs_flag: bool,
}

#[derive(Clone, Copy, Debug)]
enum Work {
    Tree(u32),
    Close(u32),
    Lc(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Proto(u32),
    MpBlock(u32),
}

/// The `traffic_map` key of (merge point, destination): the pair packed into 64 bits and put through SplitMix64's
/// finalizer (a bijection, so keys stay distinct). FxHash keeps the low bits of a key in the low bits of its hash,
/// which the table indexes with; packed pairs differ mostly in their high half (the merge point), so they are
/// mixed first.
fn traffic_key(mp: u32, dest: u32) -> u64 {
    let mut z = ((mp as u64) << 32) | dest as u64;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Reusable structurization context: keeps every buffer between functions.
#[derive(Default)]
pub struct Structurizer {
    // Analysis.
    succ: Csr,
    preds: Csr,
    dt: DomTree,
    loops: LoopForest,
    is_header: Vec<bool>,
    is_merge: Vec<bool>,
    /// Placement tree: the dominator tree with loop exits moved up (see `place_loop_exits`).
    tparent: Vec<u32>,
    tchildren: Csr,
    /// Blocks placed after their parent's code as a scope follower rather than inline in an arm.
    is_follow: Vec<bool>,
    fwd_preds: Vec<u32>,
    ext_one: Vec<u32>,
    exit_must: Vec<u32>,
    exit_best: Vec<u32>,
    exit_small: Vec<u32>,
    exit_target: Vec<u32>,
    inline_root: Vec<u32>,
    counts_scratch: Vec<u32>,
    stamp: Vec<u32>,
    literals: Vec<u64>,
    edge_base: Vec<u32>,
    // Pass 1.
    protos: Vec<Proto>,
    arms: Vec<Arm>,
    pcases: Vec<(u64, u32)>,
    constructs: Vec<Construct>,
    mps: Vec<MergePoint>,
    traffic: Vec<Traffic>,
    traffic_map: FxMap<u64, u32>,
    ctx: Vec<u32>,
    work: Vec<Work>,
    acts: Vec<Work>,
    region_entry: Vec<u32>,
    orig_proto: Vec<u32>,
    follow_construct: Vec<u32>,
    loop_construct: Vec<u32>,
    edge_arm: Vec<u32>,
    arm_of_target: Vec<u32>,
    ins: Vec<u32>,
    outs: Vec<u32>,
    bs: Vec<u32>,
    tsucc: Vec<u32>,
    // Pass 2.
    mp_tests: Vec<(u32, Tgt)>,
    groups: Vec<(Tgt, u32)>,
    proto_block: Vec<u32>,
    proto_edge: Vec<u32>,
    proto_write: Vec<u32>,
    arm_from: Vec<u32>,
    arm_to: Vec<u32>,
    // Output.
    blocks: Vec<OutBlock>,
    cases: Vec<(u64, OutBlockId)>,
    image: Vec<u32>,
    out_succ: Csr,
    out_preds: Csr,
    out_dt: DomTree,
    has_forwarding: bool,
    origin: Vec<u32>,
    phi_range: Vec<(u32, u32)>,
    phi_list: Vec<PhiPred>,
    phi_mark: Vec<u32>,
    uses_flag: bool,
}

/// The result of [`Structurizer::run`], borrowed from the context.
#[derive(Clone, Copy)]
pub struct Structured<'a> {
    s: &'a Structurizer,
}

impl Structurizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Drop the last result, keeping the allocations (`run` also does this itself).
    pub fn clear(&mut self) {
        self.protos.clear();
        self.arms.clear();
        self.pcases.clear();
        self.constructs.clear();
        self.mps.clear();
        self.traffic.clear();
        // Clearing a hash table costs its capacity, even when empty: don't let one huge function slow down all
        // later small ones.
        crate::spv::clear_map(&mut self.traffic_map);
        self.ctx.clear();
        self.work.clear();
        self.blocks.clear();
        self.cases.clear();
        self.phi_list.clear();
        self.mp_tests.clear();
        self.uses_flag = false;
    }

    /// Structurize `cfg`. Blocks unreachable from block 0 are dropped.
    pub fn run(&mut self, cfg: &Cfg) -> Result<Structured<'_>, StructurizeError> {
        self.clear();
        self.analyze(cfg)?;
        self.pass1(cfg)?;
        self.pass2();
        self.finish(cfg);
        Ok(Structured { s: self })
    }

    // -----------------------------------------------------------------------------------------------------------
    // Analysis

    fn analyze(&mut self, cfg: &Cfg) -> Result<(), StructurizeError> {
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
    fn promote_continuations(&mut self) {
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
    fn find_exit_targets(&mut self) {
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
    fn exited_loop(&self, c: u32, d: u32, root: u32) -> u32 {
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
    fn place_loop_exits(&mut self) {
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
    fn place_exits_of_loops(&mut self) {
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
    fn tree_children(&mut self) {
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
    fn irreducible(&self, t: u32, x: u32) -> StructurizeError {
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

    // -----------------------------------------------------------------------------------------------------------
    // Pass 1: scope tree → constructs, proto blocks, merge-point traffic.

    fn open(&mut self, kind: Kind, parent: u32, natural: u32) -> u32 {
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

    fn push_proto(&mut self, origin: u32, merge: PMerge, term: PTerm) -> u32 {
        let id = self.protos.len() as u32;
        self.protos.push(Proto {
            origin,
            merge,
            term,
        });
        id
    }

    fn push_arm(&mut self, target: Tgt, dest: u32) -> u32 {
        let id = self.arms.len() as u32;
        self.arms.push(Arm { target, dest });
        id
    }

    fn pass1(&mut self, cfg: &Cfg) -> Result<(), StructurizeError> {
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

    fn tree(&mut self, cfg: &Cfg, x: u32) -> Result<(), StructurizeError> {
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
            loop_c = self.open(Kind::Loop, cur, natural);
            self.loop_construct[xs] = loop_c;
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
        let mut tp = px;
        let mut sel = NONE;
        if needs_sel {
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
            sel = self.open(
                if is_switch { Kind::Switch } else { Kind::If },
                cur,
                natural,
            );
            tp = if first_header_is_x {
                px
            } else {
                self.push_proto(NONE, PMerge::None, PTerm::Unreachable)
            };
            let mp = self.constructs[sel as usize].mp;
            self.protos[tp as usize].merge = PMerge::Sel(mp);
            cur = sel;
        }
        let cc = cur;

        // Arms.
        let base = self.edge_base[xs] as usize;
        let tstart = self.tsucc.len();
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

    /// Arm for the edge `x → t` from construct `cc`; an inline target is queued in `tsucc`.
    fn make_arm(&mut self, cc: u32, x: u32, t: u32) -> Result<u32, StructurizeError> {
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

    fn direct(&self, c: u32, dest: u32, goal: u32) -> Option<Tgt> {
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

    fn hop(&self, c: u32, goal: u32) -> Result<u32, StructurizeError> {
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
    fn add_traffic(&mut self, mp: u32, dest: u32, next: Tgt) -> (u32, bool) {
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
    fn resolve(&mut self, c: u32, dest: u32) -> Result<Tgt, StructurizeError> {
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

    // -----------------------------------------------------------------------------------------------------------
    // Pass 2: merge-point shapes, flags, output ids and blocks.

    fn pass2(&mut self) {
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
    fn arm_write(&self, a: u32) -> u32 {
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

    fn key(&self, mut t: Tgt) -> Key {
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

    fn block_of(&self, t: Tgt) -> OutBlockId {
        OutBlockId(match self.key(t) {
            Key::Proto(i) => self.proto_block.get(i as usize).copied().unwrap_or(NONE),
            Key::MpBlock(m) => self.mps[m as usize].first_block,
        })
    }

    fn finish(&mut self, cfg: &Cfg) {
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

    fn emit_merge_point(&mut self, m: u32) {
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

    fn build_output_graph(&mut self) {
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

    fn compute_phis(&mut self, cfg: &Cfg) {
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

impl<'a> Structured<'a> {
    /// Output blocks in emission order; index = [`OutBlockId`].
    pub fn blocks(&self) -> &'a [OutBlock] {
        &self.s.blocks
    }

    pub fn block(&self, id: OutBlockId) -> Option<&'a OutBlock> {
        self.s.blocks.get(id.index())
    }

    /// Cases of an [`OutTerminator::Switch`].
    pub fn cases(&self, range: CaseRange) -> &'a [(u64, OutBlockId)] {
        let start = range.start as usize;
        self.s
            .cases
            .get(start..start + range.len as usize)
            .unwrap_or(&[])
    }

    /// Sizes of the internal tables, for tests and tuning: (constructs, merge points, forwarded
    /// construct/destination pairs).
    pub fn stats(&self) -> (usize, usize, usize) {
        (
            self.s.constructs.len(),
            self.s.mps.len(),
            self.s.traffic.len(),
        )
    }

    /// Does any block write the flag variable?
    pub fn uses_flag(&self) -> bool {
        self.s.uses_flag
    }

    /// Output block carrying original block `b`'s instructions; `None` when `b` is unreachable (dropped).
    pub fn image(&self, b: BlockId) -> Option<OutBlockId> {
        self.s
            .image
            .get(b.index())
            .copied()
            .filter(|&i| i != NONE)
            .map(OutBlockId)
    }

    /// Output edge `(from, to)` leaving the terminator for original edge slot `slot` of block `b` (slots as in
    /// [`Cfg::successors`]). `None` for unreachable blocks and slots out of range.
    pub fn edge_first_hop(&self, b: BlockId, slot: usize) -> Option<(OutBlockId, OutBlockId)> {
        let s = self.s;
        let base = *s.edge_base.get(b.index())? as usize;
        let end = *s.edge_base.get(b.index() + 1)? as usize;
        if base + slot >= end {
            return None;
        }
        let a = *s.edge_arm.get(base + slot)?;
        if a == NONE {
            return None;
        }
        Some((
            OutBlockId(s.arm_from[a as usize]),
            OutBlockId(s.arm_to[a as usize]),
        ))
    }

    /// `OpPhi` parents for original block `b`, or `None` when its phis must be demoted (see the module docs).
    pub fn phi_preds(&self, b: BlockId) -> Option<&'a [PhiPred]> {
        let &(start, len) = self.s.phi_range.get(b.index())?;
        if start == NONE {
            return None;
        }
        self.s.phi_list.get(start as usize..(start + len) as usize)
    }

    /// Does the output block of original `def` dominate that of original `use_` (reflexive)? False when either
    /// was dropped as unreachable.
    pub fn def_dominates_use(&self, def: BlockId, use_: BlockId) -> bool {
        match (self.image(def), self.image(use_)) {
            (Some(d), Some(u)) if self.s.has_forwarding => self.s.out_dt.dominates(d.0, u.0),
            (Some(_), Some(_)) => self.s.dt.dominates(def.0, use_.0),
            _ => false,
        }
    }

    /// Successors of an output block (deduplicated).
    pub fn out_successors(&self, b: OutBlockId) -> &'a [u32] {
        self.s.out_succ.succ(b.0)
    }

    /// Predecessors of an output block (deduplicated per source).
    pub fn out_predecessors(&self, b: OutBlockId) -> &'a [u32] {
        self.s.out_preds.succ(b.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::verify::verify;
    use super::*;

    fn cfg(terms: &[Terminator]) -> Cfg {
        let mut c = Cfg::new();
        for &t in terms {
            c.push(t);
        }
        c
    }

    fn b(i: u32) -> BlockId {
        BlockId(i)
    }

    #[test]
    fn diamond_is_one_selection() {
        let c = cfg(&[
            Terminator::CondBranch { t: b(1), f: b(2) },
            Terminator::Branch(b(3)),
            Terminator::Branch(b(3)),
            Terminator::Return,
        ]);
        let mut st = Structurizer::new();
        let s = st.run(&c).unwrap();
        verify(&s, &c).unwrap();
        let blocks = s.blocks();
        assert_eq!(blocks.len(), 4);
        assert_eq!(
            blocks[0].merge,
            Merge::Selection {
                merge: OutBlockId(3)
            }
        );
        assert_eq!(
            blocks[0].term,
            OutTerminator::CondBranch {
                cond: Condition::Original(b(0)),
                t: OutBlockId(1),
                f: OutBlockId(2)
            }
        );
        assert!(!s.uses_flag());
        let phis = s.phi_preds(b(3)).unwrap();
        assert_eq!(phis.len(), 2);
        assert!(phis.contains(&PhiPred {
            parent: OutBlockId(1),
            pred: b(1)
        }));
        assert_eq!(
            s.edge_first_hop(b(0), 1),
            Some((OutBlockId(0), OutBlockId(2)))
        );
        assert!(s.def_dominates_use(b(0), b(3)) && !s.def_dominates_use(b(1), b(3)));
    }

    #[test]
    fn break_out_of_the_outer_loop_from_the_inner_exit() {
        // 0 → 1 (outer) → 2 (inner): 2 → {2, 3}; 3 → {5 (break both), 4}; 4 → {1, 5}; 5 return.
        let c = cfg(&[
            Terminator::Branch(b(1)),
            Terminator::Branch(b(2)),
            Terminator::CondBranch { t: b(2), f: b(3) },
            Terminator::CondBranch { t: b(6), f: b(4) },
            Terminator::CondBranch { t: b(1), f: b(5) },
            Terminator::Return,
            Terminator::Branch(b(5)),
        ]);
        let mut st = Structurizer::new();
        let s = st.run(&c).unwrap();
        verify(&s, &c).unwrap();
        let loops = s
            .blocks()
            .iter()
            .filter(|x| matches!(x.merge, Merge::Loop { .. }))
            .count();
        assert_eq!(loops, 2);
        // The inner loop's header keeps its instructions and OpLoopMerge; its phis can stay phis.
        let h = s.image(b(2)).unwrap();
        assert!(matches!(s.block(h).unwrap().merge, Merge::Loop { .. }));
        assert!(s.phi_preds(b(2)).is_some());
        // 3 is the inner loop's only exit, hence its merge; 6 (one predecessor, one destination) stays inline in
        // the outer loop and breaks straight to the outer merge 5: no flag.
        assert!(!s.uses_flag());
        let outer = s.block(s.image(b(1)).unwrap()).unwrap();
        let Merge::Loop { merge, .. } = outer.merge else {
            panic!("outer loop header without OpLoopMerge")
        };
        assert_eq!(Some(merge), s.image(b(5)));
        let inner = s.block(s.image(b(2)).unwrap()).unwrap();
        assert!(matches!(inner.merge, Merge::Loop { merge, .. } if Some(merge) == s.image(b(3))));
        assert_eq!(
            s.block(s.image(b(6)).unwrap()).unwrap().term,
            OutTerminator::Branch(merge)
        );
    }

    #[test]
    fn unreachable_blocks_are_dropped_and_context_is_reused() {
        let mut st = Structurizer::new();
        let c = cfg(&[Terminator::Return, Terminator::Branch(b(0))]);
        let s = st.run(&c).unwrap();
        assert_eq!(s.blocks().len(), 1);
        assert_eq!(s.image(b(1)), None);
        assert_eq!(s.edge_first_hop(b(1), 0), None);
        let c2 = cfg(&[
            Terminator::CondBranch { t: b(1), f: b(1) },
            Terminator::Unreachable,
        ]);
        let s = st.run(&c2).unwrap();
        verify(&s, &c2).unwrap();
        assert_eq!(s.blocks()[0].term, OutTerminator::Branch(OutBlockId(1)));
        assert_eq!(s.edge_first_hop(b(0), 0), s.edge_first_hop(b(0), 1));
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut st = Structurizer::new();
        assert_eq!(st.run(&Cfg::new()).err(), Some(StructurizeError::Empty));
        let c = cfg(&[Terminator::Branch(b(7))]);
        assert!(matches!(
            st.run(&c),
            Err(StructurizeError::InvalidTarget { target: 7, .. })
        ));
        let c = cfg(&[
            Terminator::CondBranch { t: b(1), f: b(2) },
            Terminator::Branch(b(2)),
            Terminator::Branch(b(1)),
        ]);
        let err = st.run(&c).err().unwrap();
        assert!(matches!(err, StructurizeError::Irreducible { .. }), "{err}");
        assert!(err.to_string().contains("irreducible"));
        let mut c = Cfg::new();
        c.push_switch(b(1), [(3, b(1)), (3, b(2))]);
        c.push(Terminator::Return);
        c.push(Terminator::Return);
        assert_eq!(
            st.run(&c).err(),
            Some(StructurizeError::DuplicateCase {
                block: b(0),
                literal: 3
            })
        );
    }
}
