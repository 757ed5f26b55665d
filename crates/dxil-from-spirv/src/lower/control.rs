//! Control flow: which blocks of a function are reachable (DXIL allows no unreachable
//! blocks, and SPIR-V keeps unreachable merge and continue targets).

use rustc_hash::FxHashMap as HashMap;

use spirv::Op;

use crate::error::{Result, malformed};
use crate::spv;

/// Indices of the blocks reachable from the function's first block, in SPIR-V order.
pub fn reachable_blocks(m: &spv::Module<'_>, f: &spv::Function) -> Result<Vec<usize>> {
    let index: HashMap<u32, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label, i))
        .collect();
    let mut seen = vec![false; f.blocks.len()];
    let mut stack = vec![0usize];
    if f.blocks.is_empty() {
        return Ok(Vec::new());
    }
    seen[0] = true;
    let mut targets = Vec::new();
    while let Some(i) = stack.pop() {
        let b = f.blocks[i];
        let term = last_inst(m, b)?;
        targets.clear();
        successors(m, &term, &mut targets)?;
        for t in &targets {
            let &j = index.get(t).ok_or_else(|| {
                malformed(format!(
                    "branch to %{t}, which is not a block of this function"
                ))
            })?;
            if j == 0 {
                return Err(malformed("branch to the entry block of a function"));
            }
            if !seen[j] {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    Ok((0..f.blocks.len()).filter(|&i| seen[i]).collect())
}

/// The terminator of a block.
fn last_inst<'a>(m: &spv::Module<'a>, b: spv::Block) -> Result<spv::Inst<'a>> {
    let mut last = None;
    for inst in m.insts(b.start, b.end) {
        last = Some(inst?);
    }
    last.ok_or_else(|| malformed(format!("block %{} is empty", b.label)))
}

/// Branch targets of a terminator.
pub fn successors(m: &spv::Module<'_>, term: &spv::Inst<'_>, out: &mut Vec<u32>) -> Result<()> {
    match term.op() {
        Some(Op::Branch) => out.push(term.word(0)?),
        Some(Op::BranchConditional) => {
            out.push(term.word(1)?);
            out.push(term.word(2)?);
        }
        Some(Op::Switch) => {
            out.push(term.word(1)?);
            // Each target is a literal of the selector's width (1 or 2 words) and a label.
            let sel_ty = m.type_of(term.word(0)?)?;
            let step = match m.ty(sel_ty)? {
                spv::Type::Int { width: 64, .. } => 3,
                _ => 2,
            };
            let rest = term.rest(2);
            if !rest.len().is_multiple_of(step) {
                return Err(malformed("OpSwitch targets are not (literal, label) pairs"));
            }
            for c in rest.chunks_exact(step) {
                out.push(c[step - 1]);
            }
        }
        _ => {}
    }
    Ok(())
}

/// DXIL requires every loop to have an exit; a SPIR-V loop whose merge block is unreachable
/// never exits (it can only end the invocation by returning or terminating from inside).
/// A loop construct whose continue target is unreachable as well has no back edge: its body
/// runs once, no loop is written, and nothing needs an exit.
pub fn check_loop_exits(m: &spv::Module<'_>, f: &spv::Function, reachable: &[usize]) -> Result<()> {
    let live: std::collections::HashSet<u32> =
        reachable.iter().map(|&i| f.blocks[i].label).collect();
    for &i in reachable {
        let b = f.blocks[i];
        for inst in m.insts(b.start, b.end) {
            let inst = inst?;
            if inst.op() == Some(Op::LoopMerge) {
                let (merge, cont) = (inst.word(0)?, inst.word(1)?);
                if !live.contains(&merge) && live.contains(&cont) {
                    return Err(crate::error::unsupported(
                        "a loop that never exits (DXIL requires every loop to have an exit)",
                    )
                    .or_at(inst.location()));
                }
            }
        }
    }
    Ok(())
}
