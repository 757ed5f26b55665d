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

mod analysis;
mod pass1;
mod pass2;

#[cfg(test)]
mod tests;
