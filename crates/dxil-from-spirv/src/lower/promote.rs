//! Local arrays into registers (scalar replacement and SSA construction), run on each
//! finished function body.
//!
//! Every `Function`/`Private` variable is written as an `alloca` of scalars (see `memory`),
//! and most code indexes it with constants only: a vector or a small struct, read and
//! written slot by slot. Each such slot becomes a value of its own: loads take the value
//! the last store left, and `phi`s join them where control flow merges (the classic
//! construction over dominance frontiers, then trivial and dead `phi`s dropped). Arrays
//! indexed with a dynamic value, used by atomics, or too large stay in memory. This keeps
//! the DXIL close to what DXC writes for the same source, and makes the function body (and
//! so what a specialization-constant patch re-hashes) much smaller.
//!
//! A slot read before any store is `undef` where the validator allows that (phi operands,
//! stored values); an array whose undefined value would reach any other operand stays in
//! memory (the validator rejects arithmetic on `undef`, and a zero in its place can make a
//! division by a constant zero, which it rejects too).

use dxil_module::{
    BlockId, ConstId, InstData, InstId, InstKind, Module, PoolRange, TypeData, TypeId, Value,
    ValueRef,
};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;

use crate::error::{Result, internal};

/// Largest array (in slots) promoted: beyond it the phis cost more than the memory.
const MAX_SLOTS: u64 = 256;

/// Most slots promoted in one function (bounds the phi placement work).
const MAX_VARS: usize = 4096;

const NONE: u32 = u32::MAX;

/// Scratch tables larger than this many instructions are not kept for the next body.
const MAX_KEPT: usize = 1 << 16;

/// Tables sized by a body's instruction count, kept per thread from one body (and one
/// translation) to the next: allocating and clearing them afresh for every body cost more
/// than the pass's own work on a median shader.
struct Scratch {
    roles: Vec<Role>,
    slots: Vec<Slot>,
    repl: Vec<Value>,
    new_id: Vec<u32>,
    final_inst: Vec<Value>,
    /// The instruction list a rebuilt body replaced: the next rebuild writes into it.
    spare: Vec<InstData>,
}

impl Scratch {
    const fn new() -> Scratch {
        Scratch {
            roles: Vec::new(),
            slots: Vec::new(),
            repl: Vec::new(),
            new_id: Vec::new(),
            final_inst: Vec::new(),
            spare: Vec::new(),
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch::new()) };
}

/// Promotes the constant-indexed local arrays of every function with a body.
/// `pinned`: patchable constants, which must stay unknown (never an index).
pub fn promote_locals(m: &mut Module, pinned: &[ConstId]) -> Result<()> {
    // Taken out of the thread's slot for the pass (nothing else borrows it meanwhile).
    let mut s = SCRATCH.with_borrow_mut(|s| std::mem::replace(s, Scratch::new()));
    let mut r = Ok(());
    for fi in 0..m.functions.len() {
        let Some(mut body) = m.functions[fi].body.take() else {
            continue;
        };
        r = promote_body(m, &mut body, pinned, &mut s);
        m.functions[fi].body = Some(body);
        if r.is_err() {
            break;
        }
    }
    if s.slots.capacity() <= MAX_KEPT && s.spare.capacity() <= MAX_KEPT {
        s.spare.clear();
        SCRATCH.with_borrow_mut(|t| *t = s);
    }
    r
}

/// What promotion does to one instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Keep,
    /// A promoted alloca or element pointer: dropped.
    Drop,
    /// A load of slot variable `v`: replaced by its value.
    Load(u32),
    /// A store to slot variable `v`: dropped, its value noted.
    Store(u32),
}

/// What `plan` knows of one instruction.
#[derive(Clone, Copy)]
struct Slot {
    /// A candidate alloca's length in slots (0: not a candidate).
    len: u32,
    /// An element pointer of a candidate: the alloca (NONE otherwise) and the slot.
    gep_of: u32,
    gep_slot: u32,
    /// A candidate that must stay in memory.
    bad: bool,
    /// A load through a candidate's element pointer.
    load: bool,
}

const FRESH: Slot = Slot {
    len: 0,
    gep_of: NONE,
    gep_slot: 0,
    bad: false,
    load: false,
};

/// The analysis of one body: which instructions touch which slot variables (the role of
/// each instruction is in `Scratch::roles`).
struct Plan {
    var_ty: Vec<TypeId>,
    /// The alloca each slot variable belongs to.
    var_alloca: Vec<u32>,
    /// The instructions that use a load of a candidate (where promoted values can appear).
    users: Vec<u32>,
}

/// Finds the promotable allocas (all but `excluded`) and numbers their slots; fills
/// `s.roles`.
fn plan(
    m: &Module,
    body: &dxil_module::Body,
    pinned: &[ConstId],
    excluded: &[u32],
    s: &mut Scratch,
) -> Plan {
    let n = body.insts.len();
    let mut plan = Plan {
        var_ty: Vec::new(),
        var_alloca: Vec::new(),
        users: Vec::new(),
    };
    s.roles.clear();
    s.roles.resize(n, Role::Keep);
    // Dense tables by instruction index: a body has tens of thousands of instructions and
    // a few candidates, and hash lookups per operand cost more than the whole walk.
    let slots = &mut s.slots;
    slots.clear();
    slots.resize(n, FRESH);
    let mut any = false;
    for (i, inst) in body.insts.iter().enumerate() {
        if let InstKind::Alloca { allocated, .. } = inst.kind
            && let Some(TypeData::Array { len, elem }) = m.types.get(allocated)
            && (1..=MAX_SLOTS).contains(len)
            && m.types.scalar_bits(*elem) > 0
            && !matches!(m.types.get(*elem), Some(TypeData::Pointer { .. }))
            && !excluded.contains(&(i as u32))
        {
            slots[i].len = *len as u32;
            any = true;
        }
    }
    if !any {
        return plan;
    }
    let const_index = |v: Value| -> Option<i64> {
        let c = v.as_const()?;
        if pinned.contains(&c) {
            return None;
        }
        m.constants.as_int(c)
    };
    // Element pointers of candidates: the alloca and the slot.
    for (i, inst) in body.insts.iter().enumerate() {
        let InstKind::Gep {
            source_ty,
            operands,
            ..
        } = inst.kind
        else {
            continue;
        };
        let ops = operands.get(&body.pool);
        let Some(base) = ops.first().and_then(|&b| Value(b).as_inst()) else {
            continue;
        };
        let len = slots.get(base.index()).map_or(0, |s| u64::from(s.len));
        if len == 0 {
            continue;
        }
        let slot = match ops {
            [_, z, k] if allocated(&body.insts[base.index()]) == Some(source_ty) => {
                match (const_index(Value(*z)), const_index(Value(*k))) {
                    (Some(0), Some(k)) if k >= 0 && (k as u64) < len => Some(k as u32),
                    _ => None,
                }
            }
            _ => None,
        };
        match slot {
            Some(k) => {
                slots[i].gep_of = base.0;
                slots[i].gep_slot = k;
            }
            None => slots[base.index()].bad = true,
        }
    }
    let gep_base = |slots: &[Slot], v: Value| -> u32 {
        v.as_inst()
            .and_then(|p| slots.get(p.index()))
            .map_or(NONE, |s| s.gep_of)
    };
    // Loads of candidates' slots (before the walk below: a phi may use a later load).
    for (i, inst) in body.insts.iter().enumerate() {
        if let InstKind::Load { ptr, .. } = inst.kind {
            slots[i].load = gep_base(slots, ptr) != NONE;
        }
    }
    // Every other use of a candidate or of its element pointers disqualifies it.
    for (i, inst) in body.insts.iter().enumerate() {
        let mut uses_load = false;
        let mut check = |v: Value, allowed_ptr: bool| {
            let Some(d) = v.as_inst() else { return };
            let d = d.index();
            if d >= n {
                return;
            }
            if slots[d].len != 0 {
                if !(allowed_ptr && slots[i].gep_of == d as u32) {
                    slots[d].bad = true;
                }
            } else if slots[d].gep_of != NONE {
                if !allowed_ptr {
                    let a = slots[d].gep_of as usize;
                    slots[a].bad = true;
                }
            } else if slots[d].load {
                uses_load = true;
            }
        };
        match &inst.kind {
            InstKind::Gep { operands, .. } => {
                for (j, &v) in operands.get(&body.pool).iter().enumerate() {
                    check(Value(v), j == 0);
                }
            }
            InstKind::Load {
                ptr,
                volatile,
                atomic,
                ..
            } => {
                check(*ptr, !*volatile && atomic.is_none());
                let a = gep_base(slots, *ptr);
                if a != NONE
                    && let Some(TypeData::Array { elem, .. }) =
                        allocated(&body.insts[a as usize]).and_then(|t| m.types.get(t))
                    && *elem != inst.ty
                {
                    slots[a as usize].bad = true;
                }
            }
            InstKind::Store {
                ptr,
                value,
                volatile,
                atomic,
                ..
            } => {
                check(*ptr, !*volatile && atomic.is_none());
                check(*value, false);
            }
            k => k.for_each_value(&body.pool, |v| check(v, false)),
        }
        if uses_load {
            plan.users.push(i as u32);
        }
    }
    let slots = &s.slots;
    let roles = &mut s.roles;
    let promoted = |a: u32| a != NONE && !slots[a as usize].bad;
    // Slot variables, in order of first appearance (deterministic output).
    let mut var_of: HashMap<(u32, u32), u32> = HashMap::default();
    for (i, inst) in body.insts.iter().enumerate() {
        match inst.kind {
            InstKind::Alloca { .. } if slots[i].len != 0 && !slots[i].bad => roles[i] = Role::Drop,
            InstKind::Gep { .. } if promoted(slots[i].gep_of) => roles[i] = Role::Drop,
            InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => {
                let a = gep_base(slots, ptr);
                if !promoted(a) {
                    continue;
                }
                let Some(p) = ptr.as_inst() else { continue };
                let next = plan.var_ty.len() as u32;
                let v = *var_of.entry((a, slots[p.index()].gep_slot)).or_insert(next);
                if v == next {
                    let Some(TypeData::Array { elem, .. }) =
                        allocated(&body.insts[a as usize]).and_then(|t| m.types.get(t))
                    else {
                        continue;
                    };
                    plan.var_ty.push(*elem);
                    plan.var_alloca.push(a);
                }
                roles[i] = if matches!(inst.kind, InstKind::Load { .. }) {
                    Role::Load(v)
                } else {
                    Role::Store(v)
                };
            }
            _ => {}
        }
    }
    if plan.var_ty.len() > MAX_VARS {
        // Too many to place phis for cheaply: leave the function as it is.
        roles.fill(Role::Keep);
        plan.var_ty.clear();
        plan.var_alloca.clear();
    }
    plan
}

fn allocated(inst: &InstData) -> Option<TypeId> {
    match inst.kind {
        InstKind::Alloca { allocated, .. } => Some(allocated),
        _ => None,
    }
}

/// The control-flow graph with dominators.
struct Cfg {
    /// Predecessors, once per edge (a switch may branch to a block twice).
    preds: Vec<Vec<u32>>,
    /// Successors, once per edge.
    succs: Vec<Vec<u32>>,
    /// Immediate dominator (the entry's is itself); NONE for unreachable blocks.
    idom: Vec<u32>,
    /// Reachable blocks in reverse post-order.
    rpo: Vec<u32>,
}

fn build_cfg(body: &dxil_module::Body) -> Cfg {
    let n = body.blocks.len();
    let mut succs = vec![Vec::new(); n];
    let mut preds = vec![Vec::new(); n];
    for (b, out) in succs.iter_mut().enumerate() {
        if let Some(t) = body.terminator(BlockId(b as u32)) {
            t.for_each_block(&body.pool, |s| {
                if s.index() < n {
                    out.push(s.0);
                    preds[s.index()].push(b as u32);
                }
            });
        }
    }
    // Post-order by an explicit stack (no recursion that input could drive deep).
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(u32, usize)> = Vec::new();
    if n > 0 {
        seen[0] = true;
        stack.push((0, 0));
    }
    while let Some(top) = stack.last_mut() {
        let (b, i) = *top;
        if let Some(&s) = succs[b as usize].get(i) {
            top.1 += 1;
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
            stack.pop();
        }
    }
    order.reverse();
    let mut rpo_index = vec![NONE; n];
    for (i, &b) in order.iter().enumerate() {
        rpo_index[b as usize] = i as u32;
    }
    // Cooper, Harvey and Kennedy's iteration.
    let mut idom = vec![NONE; n];
    if n > 0 {
        idom[0] = 0;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = NONE;
            for &p in &preds[b as usize] {
                if idom[p as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    intersect(&idom, &rpo_index, p, new)
                };
            }
            if new != idom[b as usize] {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    Cfg {
        preds,
        succs,
        idom,
        rpo: order,
    }
}

fn intersect(idom: &[u32], rpo: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while rpo[a as usize] > rpo[b as usize] {
            a = idom[a as usize];
        }
        while rpo[b as usize] > rpo[a as usize] {
            b = idom[b as usize];
        }
    }
    a
}

/// Dominance frontiers of the reachable blocks.
fn frontiers(cfg: &Cfg) -> Vec<Vec<u32>> {
    let n = cfg.idom.len();
    let mut df: Vec<Vec<u32>> = vec![Vec::new(); n];
    for b in 0..n {
        if cfg.idom[b] == NONE {
            continue;
        }
        let reachable: Vec<u32> = cfg.preds[b]
            .iter()
            .copied()
            .filter(|&p| cfg.idom[p as usize] != NONE)
            .collect();
        if reachable.len() < 2 {
            continue;
        }
        for p in reachable {
            let mut r = p;
            while r != cfg.idom[b] {
                if df[r as usize].last() != Some(&(b as u32)) {
                    df[r as usize].push(b as u32);
                }
                r = cfg.idom[r as usize];
            }
        }
    }
    df
}

/// A phi placed for a slot variable.
struct NewPhi {
    block: u32,
    var: u32,
    incoming: Vec<(Value, u32)>,
    /// Replaced by this value (a trivial phi), or dropped (unused).
    repl: Option<Value>,
    live: bool,
}

/// The placeholder value of new phi `i` until the body is rebuilt.
fn phi_value(i: usize) -> Value {
    Value::unresolved(i as u32)
}

fn promote_body(
    m: &mut Module,
    body: &mut dxil_module::Body,
    pinned: &[ConstId],
    s: &mut Scratch,
) -> Result<()> {
    let mut excluded: Vec<u32> = Vec::new();
    let mut cfg: Option<Cfg> = None;
    // Each round keeps at least one more alloca in memory, or finishes.
    loop {
        let Plan {
            var_ty,
            var_alloca,
            users,
        } = plan(m, body, pinned, &excluded, s);
        let roles = &s.roles;
        if var_ty.is_empty() && !roles.contains(&Role::Drop) {
            return Ok(());
        }
        let cfg = cfg.get_or_insert_with(|| build_cfg(body));
        let nb = body.blocks.len();
        let mut phis = place_phis(body, cfg, roles, var_ty.len());
        let mut phis_at: Vec<Vec<u32>> = vec![Vec::new(); nb];
        for (i, p) in phis.iter().enumerate() {
            phis_at[p.block as usize].push(i as u32);
        }
        // Each variable's value before any store: a placeholder after the phis'.
        let undefined: Vec<Value> = (0..var_ty.len())
            .map(|v| phi_value(phis.len() + v))
            .collect();
        let repl = &mut s.repl;
        repl.clear();
        repl.resize(body.insts.len(), Value(NONE));
        rename(body, cfg, roles, &undefined, &phis_at, &mut phis, repl);
        simplify_phis(&mut phis, repl);
        let bad = mark_live(body, roles, &users, &mut phis, repl);
        if !bad.is_empty() {
            for v in bad {
                let a = var_alloca[v as usize];
                if !excluded.contains(&a) {
                    excluded.push(a);
                }
            }
            continue;
        }
        let undefs: Vec<Value> = var_ty
            .iter()
            .map(|&t| Value::constant(m.constants.undef(t)))
            .collect();
        return rebuild(body, s, &phis, &phis_at, &var_ty, &undefs);
    }
}

/// Marks the phis that kept instructions use (only `users` can: promoted values enter the
/// program where a promoted load was used), and the phis those use. Returns the variables
/// whose value before any store reaches an operand where the validator rejects `undef`
/// (anything but a phi, a stored value or the vector an element goes into): those stay in
/// memory, as the program wrote them.
fn mark_live(
    body: &dxil_module::Body,
    roles: &[Role],
    users: &[u32],
    phis: &mut [NewPhi],
    repl: &[Value],
) -> Vec<u32> {
    let np = phis.len();
    let mut bad = Vec::new();
    let mut work: Vec<u32> = Vec::new();
    for &i in users {
        if roles.get(i as usize) != Some(&Role::Keep) {
            continue;
        }
        let inst = &body.insts[i as usize];
        let mut visit = |v: Value, undef_ok: bool| {
            if let ValueRef::Unresolved(p) = resolve(v, repl, phis).get() {
                if (p as usize) < np {
                    work.push(p);
                } else if !undef_ok {
                    bad.push(p - np as u32);
                }
            }
        };
        match &inst.kind {
            InstKind::Phi { .. } => inst.kind.for_each_value(&body.pool, |v| visit(v, true)),
            InstKind::Store { ptr, value, .. } => {
                visit(*ptr, false);
                visit(*value, true);
            }
            InstKind::InsertElement {
                vector,
                element,
                index,
            } => {
                visit(*vector, true);
                visit(*element, false);
                visit(*index, false);
            }
            InstKind::ShuffleVector { v1, v2, mask } => {
                visit(*v1, false);
                visit(*v2, true);
                visit(*mask, false);
            }
            k => k.for_each_value(&body.pool, |v| visit(v, false)),
        }
    }
    while let Some(p) = work.pop() {
        let Some(ph) = phis.get_mut(p as usize) else {
            continue;
        };
        if ph.live || ph.repl.is_some() {
            continue;
        }
        ph.live = true;
        let inc: Vec<Value> = ph.incoming.iter().map(|x| x.0).collect();
        for v in inc {
            if let ValueRef::Unresolved(q) = resolve(v, repl, phis).get()
                && (q as usize) < np
            {
                work.push(q);
            }
        }
    }
    bad
}

/// Places phis where each variable is live on entry and stores merge: the iterated
/// dominance frontiers of its stores, kept only where a load may read the value from a
/// predecessor (pruned SSA: most slots are written and read within one block).
fn place_phis(body: &dxil_module::Body, cfg: &Cfg, roles: &[Role], nv: usize) -> Vec<NewPhi> {
    // Phis go only where reachable edges merge (the dominance frontiers are empty without
    // such a block): none in straight-line code, which most shaders are.
    let merges = cfg.rpo.iter().any(|&b| {
        cfg.preds[b as usize]
            .iter()
            .filter(|&&p| cfg.idom[p as usize] != NONE)
            .nth(1)
            .is_some()
    });
    if !merges {
        return Vec::new();
    }
    let nb = cfg.idom.len();
    // Per variable: blocks that store it, blocks that load it before any store there.
    let mut defs: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut exposed: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut stored_in = vec![NONE; nv];
    for &b in &cfg.rpo {
        for i in body.block_insts(BlockId(b)) {
            let role = roles.get(i as usize).copied();
            if let Some(Role::Store(v)) = role
                && stored_in[v as usize] != b
            {
                stored_in[v as usize] = b;
                defs[v as usize].push(b);
            } else if let Some(Role::Load(v)) = role
                && stored_in[v as usize] != b
                && exposed[v as usize].last() != Some(&b)
            {
                exposed[v as usize].push(b);
            }
        }
    }
    let df = frontiers(cfg);
    // Stamps per block (var + 1) so that nothing is cleared between variables.
    let mut has_phi = vec![0u32; nb];
    let mut queued = vec![0u32; nb];
    let mut is_def = vec![0u32; nb];
    let mut live_in = vec![0u32; nb];
    let mut phis = Vec::new();
    let mut work = Vec::new();
    for v in 0..nv {
        if exposed[v].is_empty() || defs[v].is_empty() {
            // Never read across blocks, or never written: no value to merge.
            continue;
        }
        let stamp = v as u32 + 1;
        // Live-in blocks: backwards from the exposed loads, stopping at stores.
        for &b in &defs[v] {
            is_def[b as usize] = stamp;
        }
        work.clear();
        for &b in &exposed[v] {
            live_in[b as usize] = stamp;
            work.push(b);
        }
        while let Some(b) = work.pop() {
            for &p in &cfg.preds[b as usize] {
                if cfg.idom[p as usize] == NONE
                    || live_in[p as usize] == stamp
                    || is_def[p as usize] == stamp
                {
                    continue;
                }
                live_in[p as usize] = stamp;
                work.push(p);
            }
        }
        work.clear();
        for &b in &defs[v] {
            queued[b as usize] = stamp;
            work.push(b);
        }
        while let Some(b) = work.pop() {
            for &f in &df[b as usize] {
                if has_phi[f as usize] == stamp {
                    continue;
                }
                has_phi[f as usize] = stamp;
                if live_in[f as usize] == stamp {
                    phis.push(NewPhi {
                        block: f,
                        var: v as u32,
                        incoming: Vec::new(),
                        repl: None,
                        live: false,
                    });
                }
                if queued[f as usize] != stamp {
                    queued[f as usize] = stamp;
                    work.push(f);
                }
            }
        }
    }
    // Blocks in layout order, then variables: a deterministic order of the new phis.
    phis.sort_by_key(|p| (p.block, p.var));
    phis
}

/// Follows replacements: a promoted load's value, a trivial phi's value.
fn resolve(mut v: Value, repl: &[Value], phis: &[NewPhi]) -> Value {
    // Each step goes to a value defined earlier in the walk: bounded by the counts.
    for _ in 0..=repl.len() + phis.len() {
        match v.get() {
            ValueRef::Inst(i) => match repl.get(i.index()) {
                Some(&r) if r.0 != NONE => v = r,
                _ => return v,
            },
            ValueRef::Unresolved(p) => match phis.get(p as usize).and_then(|p| p.repl) {
                Some(r) => v = r,
                None => return v,
            },
            _ => return v,
        }
    }
    v
}

/// Walks the dominator tree with each variable's current value.
fn rename(
    body: &dxil_module::Body,
    cfg: &Cfg,
    roles: &[Role],
    undefined: &[Value],
    phis_at: &[Vec<u32>],
    phis: &mut [NewPhi],
    repl: &mut [Value],
) {
    let nb = cfg.idom.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); nb];
    for &b in cfg.rpo.iter().skip(1) {
        let d = cfg.idom[b as usize];
        if d != NONE {
            children[d as usize].push(b);
        }
    }
    let mut cur: Vec<Value> = undefined.to_vec();
    let mut undo: Vec<(u32, Value)> = Vec::new();
    // (block, undo length at entry); NONE block marks the exit of the block below it.
    let mut stack: Vec<(u32, usize, bool)> = Vec::new();
    if nb > 0 {
        stack.push((0, 0, true));
    }
    while let Some((b, mark, enter)) = stack.pop() {
        if !enter {
            while undo.len() > mark {
                if let Some((v, old)) = undo.pop() {
                    cur[v as usize] = old;
                }
            }
            continue;
        }
        let mark = undo.len();
        for &p in &phis_at[b as usize] {
            let v = phis[p as usize].var as usize;
            undo.push((v as u32, cur[v]));
            cur[v] = phi_value(p as usize);
        }
        for i in body.block_insts(BlockId(b)) {
            match roles[i as usize] {
                Role::Load(v) => repl[i as usize] = cur[v as usize],
                Role::Store(v) => {
                    if let InstKind::Store { value, .. } = body.insts[i as usize].kind {
                        let value = match value.as_inst() {
                            Some(d) if repl[d.index()].0 != NONE => repl[d.index()],
                            _ => value,
                        };
                        undo.push((v, cur[v as usize]));
                        cur[v as usize] = value;
                    }
                }
                _ => {}
            }
        }
        for &s in &cfg.succs[b as usize] {
            for &p in &phis_at[s as usize] {
                let ph = &mut phis[p as usize];
                ph.incoming.push((cur[ph.var as usize], b));
            }
        }
        stack.push((b, mark, false));
        for &c in children[b as usize].iter().rev() {
            stack.push((c, 0, true));
        }
    }
    // Edges from blocks never reached still need an operand.
    for (s, at) in phis_at.iter().enumerate() {
        for &p in &cfg.preds[s] {
            if cfg.idom[p as usize] == NONE {
                for &ph in at {
                    let ph = &mut phis[ph as usize];
                    ph.incoming.push((undefined[ph.var as usize], p));
                }
            }
        }
    }
    // Loads in blocks never reached read nothing defined.
    for (i, r) in roles.iter().enumerate() {
        if let Role::Load(v) = *r
            && repl[i].0 == NONE
        {
            repl[i] = undefined[v as usize];
        }
    }
}

/// Replaces phis whose operands are all one value (or the phi itself) by that value.
fn simplify_phis(phis: &mut [NewPhi], repl: &[Value]) {
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..phis.len() {
            if phis[i].repl.is_some() {
                continue;
            }
            let me = phi_value(i);
            let mut same: Option<Value> = None;
            let mut trivial = true;
            for k in 0..phis[i].incoming.len() {
                let v = resolve(phis[i].incoming[k].0, repl, phis);
                if v == me || same == Some(v) {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(v);
            }
            if trivial && let Some(v) = same {
                phis[i].repl = Some(v);
                changed = true;
            }
        }
    }
}

/// Writes the body again: new phis at the top of their blocks, promoted instructions gone,
/// every operand renumbered.
fn rebuild(
    body: &mut dxil_module::Body,
    s: &mut Scratch,
    phis: &[NewPhi],
    phis_at: &[Vec<u32>],
    var_ty: &[TypeId],
    undefs: &[Value],
) -> Result<()> {
    let (roles, repl) = (&s.roles, &s.repl);
    let old = std::mem::take(&mut body.insts);
    let new_id = &mut s.new_id;
    new_id.clear();
    new_id.resize(old.len(), NONE);
    let mut phi_id = vec![NONE; phis.len()];
    let mut insts = std::mem::take(&mut s.spare);
    insts.clear();
    insts.reserve(old.len());
    let mut pending: Vec<usize> = Vec::new();
    for (b, at) in phis_at.iter().enumerate() {
        let d = body.blocks[b];
        let start = insts.len() as u32;
        for &p in at {
            let ph = &phis[p as usize];
            if !ph.live || ph.repl.is_some() {
                continue;
            }
            let mut pairs = Vec::with_capacity(ph.incoming.len() * 2);
            for &(v, from) in &ph.incoming {
                pairs.push(v.0);
                pairs.push(from);
            }
            let incoming = PoolRange::push(&mut body.pool, &pairs);
            phi_id[p as usize] = insts.len() as u32;
            pending.push(insts.len());
            insts.push(InstData {
                kind: InstKind::Phi { incoming },
                ty: var_ty[ph.var as usize],
            });
        }
        for i in d.start..d.end.min(old.len() as u32) {
            if roles[i as usize] != Role::Keep {
                continue;
            }
            new_id[i as usize] = insts.len() as u32;
            pending.push(insts.len());
            insts.push(old[i as usize].clone());
        }
        body.blocks[b] = dxil_module::BlockData {
            start,
            end: insts.len() as u32,
        };
    }
    // Every old instruction's and placeholder's final value, resolved once (not per use).
    let np = phis.len();
    let encode = |r: Value| -> Value {
        let id = match r.get() {
            ValueRef::Inst(i) => new_id.get(i.index()).copied().unwrap_or(NONE),
            ValueRef::Unresolved(p) if p as usize >= np => {
                return undefs.get(p as usize - np).copied().unwrap_or(Value(NONE));
            }
            ValueRef::Unresolved(p) => phi_id.get(p as usize).copied().unwrap_or(NONE),
            _ => return r,
        };
        if id == NONE {
            Value(NONE)
        } else {
            Value::inst(InstId(id))
        }
    };
    let mut final_inst = std::mem::take(&mut s.final_inst);
    final_inst.clear();
    final_inst.extend((0..old.len()).map(|i| match new_id[i] {
        NONE if repl[i].0 != NONE => encode(resolve(repl[i], repl, phis)),
        NONE => Value(NONE),
        k => Value::inst(InstId(k)),
    }));
    let final_phi: Vec<Value> = (0..np + undefs.len())
        .map(|p| encode(resolve(phi_value(p), repl, phis)))
        .collect();
    let mut missing = false;
    let mut map = |v: Value| -> Value {
        let r = match v.get() {
            ValueRef::Inst(i) => final_inst.get(i.index()).copied(),
            ValueRef::Unresolved(p) => final_phi.get(p as usize).copied(),
            _ => return v,
        };
        match r {
            Some(r) if r.0 != NONE => r,
            _ => {
                missing = true;
                v
            }
        }
    };
    for &i in &pending {
        insts[i].kind.map_values(&mut body.pool, &mut map);
    }
    if missing {
        return Err(internal(
            "a promoted local's value is used after its removal",
        ));
    }
    body.insts = insts;
    let keep = |i: InstId| new_id.get(i.index()).copied().unwrap_or(NONE);
    body.names.retain_mut(|n| match n {
        dxil_module::LocalName::Inst(i, _) => {
            let k = keep(*i);
            *i = InstId(k);
            k != NONE
        }
        _ => true,
    });
    body.attachments.retain_mut(|a| {
        let k = keep(a.inst);
        a.inst = InstId(k);
        k != NONE
    });
    body.debug_locs.retain_mut(|(i, _)| {
        let k = keep(*i);
        *i = InstId(k);
        k != NONE
    });
    s.final_inst = final_inst;
    let mut old = old;
    old.clear();
    s.spare = old;
    Ok(())
}
