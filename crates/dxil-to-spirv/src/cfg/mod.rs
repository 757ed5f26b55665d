//! Control-flow structurization: arbitrary reducible CFG → SPIR-V structured control flow.
//!
//! DXIL functions carry whatever CFG LLVM's optimizer left behind; SPIR-V (spec sections 2.11 and 2.16) requires
//! every branch to follow properly nested selection/loop constructs with declared merge blocks. This module
//! rebuilds such a structure:
//!
//! * [`Cfg`] is the abstract input: one terminator per block, entry block 0.
//! * [`Structurizer::run`] returns a [`Structured`] view: output blocks in a valid SPIR-V order, each an original
//!   block or a synthetic one, with merge declarations, terminators in output terms, flag writes, the mapping of
//!   original edges (for phis) and an output dominance query (for SSA values that must be demoted).
//! * [`domtree`] and [`loops`] are the analyses it runs on (Semi-NCA dominators with O(1) queries, loop nesting
//!   forest); [`verify`] re-checks an output against the structured-control-flow rules.
//!
//! See [`structurize`] for the algorithm and the exact contract the translator must follow.
//!
//! ```
//! use dxil_to_spirv::cfg::{BlockId, Cfg, Merge, OutTerminator, Structurizer, Terminator};
//!
//! // 0: if (c) goto 1 else goto 2;  1: goto 2;  2: return
//! let mut cfg = Cfg::new();
//! cfg.push(Terminator::CondBranch { t: BlockId(1), f: BlockId(2) });
//! cfg.push(Terminator::Branch(BlockId(2)));
//! cfg.push(Terminator::Return);
//!
//! let mut st = Structurizer::new(); // keep it: buffers are reused for the next function
//! let s = st.run(&cfg).unwrap();
//! let entry = &s.blocks()[0];
//! assert_eq!(entry.original, Some(BlockId(0)));
//! assert_eq!(entry.merge, Merge::Selection { merge: s.image(BlockId(2)).unwrap() });
//! assert!(matches!(entry.term, OutTerminator::CondBranch { .. }));
//! // Block 2's phis can stay OpPhi, with these output parents:
//! assert_eq!(s.phi_preds(BlockId(2)).unwrap().len(), 2);
//! ```

pub mod domtree;
pub mod loops;
pub mod structurize;
pub mod verify;

pub use structurize::{
    Condition, Merge, OutBlock, OutBlockId, OutTerminator, PhiPred, Selector, Structured,
    Structurizer,
};

use thiserror::Error;

/// Index of a block of the input [`Cfg`]; block 0 is the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The index as `usize`, for indexing side tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for BlockId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "block {}", self.0)
    }
}

/// A range of [`Cfg::cases`] belonging to one switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseSpan {
    start: u32,
    len: u32,
}

/// How an input block ends. The condition of `CondBranch` and the selector of `Switch` are the block's own values;
/// the structurizer never looks at them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminator {
    Return,
    Unreachable,
    Branch(BlockId),
    CondBranch {
        t: BlockId,
        f: BlockId,
    },
    /// `cases` indexes [`Cfg::cases`]: `(literal, target)` pairs; literals may share a target, a target may equal
    /// `default`.
    Switch {
        default: BlockId,
        cases: CaseSpan,
    },
}

/// The input control-flow graph: flat storage, reusable across functions through [`Cfg::clear`].
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    terms: Vec<Terminator>,
    cases: Vec<(u64, BlockId)>,
}

/// Upper bound on blocks: keeps every derived index (`2 * block + 1` destinations, edge counts) inside `u32`.
pub const MAX_BLOCKS: usize = 1 << 28;

/// Upper bound on edges (terminator targets, with multiplicity), for the same reason.
pub const MAX_EDGES: u32 = 1 << 30;

impl Cfg {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget all blocks, keeping the allocations.
    pub fn clear(&mut self) {
        self.terms.clear();
        self.cases.clear();
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Append a block ending in a non-switch terminator. Pass `Switch` only with a span from this same `Cfg`;
    /// prefer [`Cfg::push_switch`].
    pub fn push(&mut self, term: Terminator) -> BlockId {
        let id = BlockId(self.terms.len() as u32);
        self.terms.push(term);
        id
    }

    /// Append a block ending in a switch.
    pub fn push_switch(
        &mut self,
        default: BlockId,
        cases: impl IntoIterator<Item = (u64, BlockId)>,
    ) -> BlockId {
        let start = self.cases.len();
        self.cases.extend(cases);
        let span = CaseSpan {
            start: start as u32,
            len: (self.cases.len() - start) as u32,
        };
        self.push(Terminator::Switch {
            default,
            cases: span,
        })
    }

    /// Replace the terminator of an existing block (builders that create blocks before knowing their targets).
    /// Returns false when `block` does not exist.
    pub fn set_terminator(&mut self, block: BlockId, term: Terminator) -> bool {
        match self.terms.get_mut(block.index()) {
            Some(t) => {
                *t = term;
                true
            }
            None => false,
        }
    }

    /// Like [`Cfg::set_terminator`] for a switch.
    pub fn set_switch(
        &mut self,
        block: BlockId,
        default: BlockId,
        cases: impl IntoIterator<Item = (u64, BlockId)>,
    ) -> bool {
        if block.index() >= self.terms.len() {
            return false;
        }
        let start = self.cases.len();
        self.cases.extend(cases);
        let span = CaseSpan {
            start: start as u32,
            len: (self.cases.len() - start) as u32,
        };
        self.set_terminator(
            block,
            Terminator::Switch {
                default,
                cases: span,
            },
        )
    }

    pub fn terminator(&self, block: BlockId) -> Option<Terminator> {
        self.terms.get(block.index()).copied()
    }

    /// The `(literal, target)` pairs of a switch. An out-of-range span (not from this `Cfg`) yields an empty slice.
    pub fn cases(&self, span: CaseSpan) -> &[(u64, BlockId)] {
        let start = span.start as usize;
        self.cases
            .get(start..start + span.len as usize)
            .unwrap_or(&[])
    }

    /// Successors in edge-slot order (`Branch`: target; `CondBranch`: t, f; `Switch`: default, then cases), with
    /// multiplicity. Slot numbers are what [`Structured::edge_first_hop`] takes.
    pub fn successors(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        let (a, b, cases): (Option<BlockId>, Option<BlockId>, &[(u64, BlockId)]) = match self
            .terminator(block)
        {
            None | Some(Terminator::Return) | Some(Terminator::Unreachable) => (None, None, &[]),
            Some(Terminator::Branch(t)) => (Some(t), None, &[]),
            Some(Terminator::CondBranch { t, f }) => (Some(t), Some(f), &[]),
            Some(Terminator::Switch { default, cases }) => (Some(default), None, self.cases(cases)),
        };
        a.into_iter().chain(b).chain(cases.iter().map(|&(_, t)| t))
    }
}

/// Why a CFG could not be structurized.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StructurizeError {
    #[error("function has no blocks")]
    Empty,
    #[error("function has {count} blocks, more than the supported {max}")]
    TooManyBlocks { count: usize, max: usize },
    #[error("function has more than {max} branch targets")]
    TooManyEdges { max: usize },
    #[error("{block} branches to block {target}, which does not exist ({count} blocks)")]
    InvalidTarget {
        block: BlockId,
        target: u32,
        count: usize,
    },
    /// A cycle entered other than through a single dominating header. `cycle` lists the blocks of one such cycle
    /// in path order (the first block is the retreating edge's target; at most [`MAX_REPORTED_CYCLE`] entries),
    /// `entries` the cycle blocks that are entered from outside it.
    #[error("irreducible control flow: cycle {} ({}) is entered at more than one block: {}", fmt_blocks(cycle), if *truncated { "truncated" } else { "complete" }, fmt_blocks(entries))]
    Irreducible {
        cycle: Vec<BlockId>,
        truncated: bool,
        entries: Vec<BlockId>,
    },
    /// SPIR-V (and LLVM) require distinct case literals.
    #[error("{block}: switch lists case literal {literal} more than once")]
    DuplicateCase { block: BlockId, literal: u64 },
    /// A broken invariant of the structurizer itself (a bug): reported instead of panicking.
    #[error("internal structurizer error: {0}")]
    Internal(&'static str),
}

/// Cap on the blocks listed by [`StructurizeError::Irreducible`].
pub const MAX_REPORTED_CYCLE: usize = 32;

fn fmt_blocks(blocks: &[BlockId]) -> String {
    let mut s = String::new();
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 {
            s.push_str(" → ");
        }
        s.push_str(&b.0.to_string());
    }
    s
}
