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

/// Splits `words` into `out`; false where an instruction's word count is broken.
fn decode(words: &[u32], out: &mut Vec<Inst>) -> bool {
    out.clear();
    let mut at = 0;
    while let Some(&w) = words.get(at) {
        let len = (w >> 16) as usize;
        if len == 0 || at + len > words.len() {
            return false;
        }
        out.push(Inst { at, len });
        at += len;
    }
    true
}

/// Buffers of [`remove_dead`], kept between functions and translations: allocating and growing them for every
/// function (and a fresh body) cost about a fifth of the pass in the corpus bench.
#[derive(Default)]
pub struct Scratch {
    insts: Vec<Inst>,
    var_insts: Vec<Inst>,
    uses: Vec<u32>,
    rem: Vec<bool>,
    dead: Vec<bool>,
    dead_vars: Vec<bool>,
    dead_var_ids: Vec<u32>,
    store_ptr: FxMap<u32, u32>,
    /// The next body or variable list is built here, then swapped with the old one, which stays for the next use.
    out: Vec<u32>,
}

/// Counts a use of `w` where `w` can be an id (below the module's id bound). A count cannot reach `u32::MAX`:
/// it is at most the number of words.
fn inc(uses: &mut [u32], w: u32) {
    if let Some(e) = uses.get_mut(w as usize) {
        *e = e.wrapping_add(1);
    }
}

/// Takes back a use that [`inc`] counted.
fn dec(uses: &mut [u32], w: u32) {
    if let Some(e) = uses.get_mut(w as usize) {
        *e = e.saturating_sub(1);
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
    sc: &mut Scratch,
) {
    let Scratch {
        insts,
        var_insts,
        uses,
        rem,
        dead,
        dead_vars,
        dead_var_ids,
        store_ptr,
        out,
    } = sc;
    if !decode(vars, var_insts) {
        return;
    }
    // Indexed by id: a hash map here cost a third of the translation time.
    uses.clear();
    uses.resize(bound as usize, 0);
    for &w in annotations {
        inc(uses, w);
    }
    // One walk decodes the body, marks what may go and counts uses: every operand word, the result of a
    // removable instruction excepted (its own definition is no use).
    rem.clear();
    insts.clear();
    let mut at = 0;
    while let Some(&w) = body.get(at) {
        let len = (w >> 16) as usize;
        if len == 0 || at + len > body.len() {
            return;
        }
        let x = Inst { at, len };
        let r =
            removable(body, x) && (opcode(w) != Op::ExtInst as u32 || Some(body[at + 3]) == glsl);
        for &u in &body[at + 1..at + len] {
            inc(uses, u);
        }
        if r {
            dec(uses, body[at + 2]);
        }
        insts.push(x);
        rem.push(r);
        at += len;
    }
    dead.clear();
    dead.resize(insts.len(), false);
    // Variables whose every use is the pointer of an `OpStore`: the stores go with them.
    // Without variables there are no stores to count (most entry points keep everything in registers).
    store_ptr.clear();
    if !var_insts.is_empty() {
        for &x in insts.iter() {
            if opcode(body[x.at]) == Op::Store as u32 && x.len >= 3 {
                *store_ptr.entry(body[x.at + 1]).or_insert(0) += 1;
            }
        }
    }
    dead_vars.clear();
    dead_vars.resize(var_insts.len(), false);
    for (v, &x) in var_insts.iter().enumerate() {
        if opcode(vars[x.at]) != Op::Variable as u32 || x.len < 4 {
            continue;
        }
        let id = vars[x.at + 2];
        let n = uses_of(uses, id);
        if n == store_ptr.get(&id).copied().unwrap_or(0) {
            dead_vars[v] = true;
        }
    }
    dead_var_ids.clear();
    dead_var_ids.extend(
        var_insts
            .iter()
            .zip(dead_vars.iter())
            .filter(|(_, d)| **d)
            .map(|(x, _)| vars[x.at + 2]),
    );
    if !dead_var_ids.is_empty() {
        for (k, &x) in insts.iter().enumerate() {
            if opcode(body[x.at]) == Op::Store as u32
                && x.len >= 3
                && dead_var_ids.contains(&body[x.at + 1])
            {
                dead[k] = true;
                for j in 1..x.len {
                    dec(uses, body[x.at + j]);
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
        if uses_of(uses, body[x.at + 2]) == 0 {
            dead[k] = true;
            for j in 3..x.len {
                dec(uses, body[x.at + j]);
            }
        }
    }
    if dead.iter().any(|&d| d) {
        // Kept instructions move down in place, a run of them at a time (a copy per instruction cost more than
        // the rest of the pass on small shaders).
        let mut to = 0;
        let mut run: Option<(usize, usize)> = None;
        for (x, &d) in insts.iter().zip(dead.iter()) {
            match (d, run) {
                (false, Some((from, end))) if end == x.at => run = Some((from, x.at + x.len)),
                (false, _) => {
                    if let Some((from, end)) = run {
                        body.copy_within(from..end, to);
                        to += end - from;
                    }
                    run = Some((x.at, x.at + x.len));
                }
                (true, _) => {}
            }
        }
        if let Some((from, end)) = run {
            body.copy_within(from..end, to);
            to += end - from;
        }
        body.truncate(to);
    }
    if dead_vars.iter().any(|&d| d) {
        out.clear();
        for (x, _) in var_insts.iter().zip(dead_vars.iter()).filter(|(_, d)| !**d) {
            out.extend_from_slice(&vars[x.at..x.at + x.len]);
        }
        std::mem::swap(vars, out);
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
        remove_dead(&mut vars, &mut body, &[], None, 64, &mut Scratch::default());
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
        remove_dead(
            &mut vars,
            &mut body,
            &annotations,
            None,
            64,
            &mut Scratch::default(),
        );
        assert_eq!(body, before);
    }
}
