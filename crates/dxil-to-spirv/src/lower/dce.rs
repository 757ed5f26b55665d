//! Dead code removal on a function's emitted words, before they join the module.
//!
//! Lowering computes some values that no instruction ends up reading: a 64-bit load's bitcast that a store
//! converts straight back, a guard's pieces that a proof made unnecessary, a `Function` variable for a value
//! that was only ever written. Each costs module size and the driver's compile time (the corpus's total size
//! against DXC's is one of the acceptance figures), so they go here, where every use is visible: the body is
//! one function's, and its ids mean nothing outside it.
//!
//! Uses are counted over every operand word, literals included: a literal equal to an id only keeps that id
//! alive, never removes a used one. Decorated ids (`NoContraction`) count as used, so no decoration names a
//! removed id.

use spirv::Op;

use super::pure_opcode;
use crate::spv::FxMap;

/// One instruction: first word and word count.
#[derive(Clone, Copy)]
struct Inst {
    at: usize,
    len: usize,
}

fn decode(words: &[u32]) -> Option<Vec<Inst>> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(&w) = words.get(at) {
        let len = (w >> 16) as usize;
        if len == 0 || at + len > words.len() {
            return None;
        }
        out.push(Inst { at, len });
        at += len;
    }
    Some(out)
}

/// Adds `d` to the use count of `w` where `w` can be an id (below the module's id bound).
fn count(uses: &mut [u32], w: u32, d: i32) {
    if let Some(e) = uses.get_mut(w as usize) {
        *e = e.saturating_add_signed(d);
    }
}

fn uses_of(uses: &[u32], id: u32) -> u32 {
    uses.get(id as usize).copied().unwrap_or(0)
}

fn opcode(w: u32) -> u32 {
    w & 0xFFFF
}

/// Whether the instruction at `x` is one this pass may remove when its result is unused: a pure value (word 2
/// is its result id).
fn removable(words: &[u32], x: Inst) -> bool {
    let op = opcode(words[x.at]);
    x.len >= 3 && (pure_opcode(op) || op == Op::ExtInst as u32 && glsl_pure(words, x))
}

/// `OpExtInst` of the GLSL.std.450 set (`glsl`) other than the two with an output pointer.
fn glsl_pure(words: &[u32], x: Inst) -> bool {
    x.len >= 5
        && !matches!(
            spirv::GLOp::from_u32(words[x.at + 4]),
            Some(spirv::GLOp::Modf | spirv::GLOp::Frexp) | None
        )
}

/// Removes, from one function's `vars` (its `OpVariable`s) and `body`, variables that are only stored to (with
/// their stores) and pure instructions whose results nothing reads. `glsl` is the GLSL.std.450 import, if any;
/// `annotations` the module's decorations so far; `bound` the module's id bound.
pub(super) fn remove_dead(
    vars: &mut Vec<u32>,
    body: &mut Vec<u32>,
    annotations: &[u32],
    glsl: Option<u32>,
    bound: u32,
) {
    let (Some(var_insts), Some(insts)) = (decode(vars), decode(body)) else {
        return;
    };
    // Indexed by id: a hash map here cost a third of the translation time.
    let mut uses = vec![0u32; bound as usize];
    for &w in annotations {
        count(&mut uses, w, 1);
    }
    let is_removable = |words: &[u32], x: Inst| {
        removable(words, x)
            && (opcode(words[x.at]) != Op::ExtInst as u32 || Some(words[x.at + 3]) == glsl)
    };
    let rem: Vec<bool> = insts.iter().map(|&x| is_removable(body, x)).collect();
    for (&x, &r) in insts.iter().zip(&rem) {
        let skip = if r { 2 } else { usize::MAX };
        for k in 1..x.len {
            if k != skip {
                count(&mut uses, body[x.at + k], 1);
            }
        }
    }
    let mut dead = vec![false; insts.len()];
    // Variables whose every use is the pointer of an `OpStore`: the stores go with them.
    let mut store_ptr: FxMap<u32, u32> = FxMap::default();
    for &x in &insts {
        if opcode(body[x.at]) == Op::Store as u32 && x.len >= 3 {
            *store_ptr.entry(body[x.at + 1]).or_insert(0) += 1;
        }
    }
    let mut dead_vars = vec![false; var_insts.len()];
    for (v, &x) in var_insts.iter().enumerate() {
        if opcode(vars[x.at]) != Op::Variable as u32 || x.len < 4 {
            continue;
        }
        let id = vars[x.at + 2];
        let n = uses_of(&uses, id);
        if n == store_ptr.get(&id).copied().unwrap_or(0) {
            dead_vars[v] = true;
        }
    }
    let dead_var_ids: Vec<u32> = var_insts
        .iter()
        .zip(&dead_vars)
        .filter(|(_, d)| **d)
        .map(|(x, _)| vars[x.at + 2])
        .collect();
    if !dead_var_ids.is_empty() {
        for (k, &x) in insts.iter().enumerate() {
            if opcode(body[x.at]) == Op::Store as u32
                && x.len >= 3
                && dead_var_ids.contains(&body[x.at + 1])
            {
                dead[k] = true;
                for j in 1..x.len {
                    count(&mut uses, body[x.at + j], -1);
                }
            }
        }
    }
    // Backwards: a value's operands are defined before it (blocks come in dominance order), so one sweep
    // removes whole chains. Phis are never removed, so values used around a back edge stay.
    for k in (0..insts.len()).rev() {
        let x = insts[k];
        if dead[k] || !rem[k] {
            continue;
        }
        if uses_of(&uses, body[x.at + 2]) == 0 {
            dead[k] = true;
            for j in 3..x.len {
                count(&mut uses, body[x.at + j], -1);
            }
        }
    }
    if dead.iter().any(|&d| d) {
        let mut out = Vec::with_capacity(body.len());
        for (x, _) in insts.iter().zip(&dead).filter(|(_, d)| !**d) {
            out.extend_from_slice(&body[x.at..x.at + x.len]);
        }
        *body = out;
    }
    if dead_vars.iter().any(|&d| d) {
        let mut out = Vec::with_capacity(vars.len());
        for (x, _) in var_insts.iter().zip(&dead_vars).filter(|(_, d)| !**d) {
            out.extend_from_slice(&vars[x.at..x.at + x.len]);
        }
        *vars = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
        out.push(((operands.len() as u32 + 1) << 16) | op as u32);
        out.extend_from_slice(operands);
    }

    #[test]
    fn removes_unread_values_and_store_only_variables() {
        // %10, %11: Function variables; %11 is only stored to. %20 = %5 + %6 feeds only the store to %11;
        // %21 = %20 << %6 is read by nothing; %22 is loaded from %10 and stored back.
        let mut vars = Vec::new();
        inst(&mut vars, Op::Variable, &[3, 10, 7]);
        inst(&mut vars, Op::Variable, &[3, 11, 7]);
        let mut body = Vec::new();
        inst(&mut body, Op::IAdd, &[2, 20, 5, 6]);
        inst(&mut body, Op::ShiftLeftLogical, &[2, 21, 20, 6]);
        inst(&mut body, Op::Store, &[11, 20]);
        inst(&mut body, Op::Load, &[2, 22, 10]);
        inst(&mut body, Op::Store, &[10, 22]);
        inst(&mut body, Op::Return, &[]);
        remove_dead(&mut vars, &mut body, &[], None, 64);
        let mut want_vars = Vec::new();
        inst(&mut want_vars, Op::Variable, &[3, 10, 7]);
        let mut want_body = Vec::new();
        inst(&mut want_body, Op::Load, &[2, 22, 10]);
        inst(&mut want_body, Op::Store, &[10, 22]);
        inst(&mut want_body, Op::Return, &[]);
        assert_eq!(vars, want_vars);
        assert_eq!(body, want_body);
    }

    #[test]
    fn keeps_decorated_and_phi_read_values() {
        // %20 is decorated (NoContraction), %21 is read only by a phi that comes before it (a back edge).
        let mut vars = Vec::new();
        let mut body = Vec::new();
        inst(&mut body, Op::Label, &[30]);
        inst(&mut body, Op::Phi, &[2, 23, 5, 31, 21, 30]);
        inst(&mut body, Op::FAdd, &[2, 20, 5, 6]);
        inst(&mut body, Op::IAdd, &[2, 21, 23, 6]);
        inst(&mut body, Op::Return, &[]);
        let before = body.clone();
        let mut annotations = Vec::new();
        inst(
            &mut annotations,
            Op::Decorate,
            &[20, spirv::Decoration::NoContraction as u32],
        );
        remove_dead(&mut vars, &mut body, &annotations, None, 64);
        assert_eq!(body, before);
    }
}
