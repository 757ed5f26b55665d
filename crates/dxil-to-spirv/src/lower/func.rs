//! One function: virtual blocks, structurization, demotion, emission in structured order.
//!
//! # Virtual blocks
//! An LLVM block is cut into *virtual blocks* around instructions whose lowering needs control flow:
//!
//! * a bounds-checked store or atomic with `n` checks becomes `pre → G0 → M1 → G1 … → post`, where `pre` and each
//!   `Mk` end in `if (in bounds k) goto Gk else goto next`, and `Gk` performs access `k`;
//! * `WaveMatch` / `WaveMultiPrefix*` become `pre → H ⟲ → B → post`: `H` loops until the lanes whose key equals the
//!   first active lane's key leave for `B`, where the operation runs on exactly those lanes.
//!
//! The structurizer then sees these branches like any other, so they nest correctly inside loops and
//! selections. Results of such instructions go through a `Function` variable (stored in `Gk`/`B`, loaded at
//! each use), like any demoted value.
//!
//! # Values across blocks
//! Before emission every cross-block use (including the dynamic indices that handles and pointers carry to
//! their uses, and phi incoming values as uses in the predecessor) is checked against the structured output's
//! dominance; values that lose dominance get a `Function` variable, stored after the definition and loaded in
//! other blocks. Phis stay `OpPhi` when [`Structured::phi_preds`] allows; their incoming ids are patched once
//! the whole function is emitted (back edges come later).

use dxil_module::{Body, InstId, InstKind, TypeData, Value, ValueRef};
use dxil_shader::ops::OpCode;
use spirv::{Op, SelectionControl};

use super::{Ctx, NONE, Val};
use crate::cfg::{self, Condition, Merge, OutTerminator, Selector, Structured};
use crate::error::{Error, Invalid, Limit, MetadataError, Unsupported};
use crate::spv::{self, FxMap, Id, words};

/// What an instruction needs around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Plain,
    /// A bounds check per access.
    Guard(u8),
    /// The per-key loop of partitioned wave operations.
    Loop,
}

/// How a virtual block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tail {
    /// The LLVM block's own terminator.
    Llvm,
    /// Bounds check `k` of instruction `inst`: to the next block if in bounds, else the one after.
    GuardCond { inst: u32, k: u8 },
    /// Access `k` of instruction `inst`, then on.
    GuardBody { inst: u32, k: u8 },
    /// Straight on to the next block.
    Goto,
    /// Loop head of a partitioned wave op: to the body when this lane's key is the first lane's, else to the
    /// latch.
    LoopHead { inst: u32 },
    /// The partitioned wave op itself, then to the latch. It must stay inside the loop: in the loop's merge
    /// block the lanes of every partition have reconverged (NVIDIA does so), so a ballot there sees them all.
    LoopBody { inst: u32 },
    /// The loop's latch: out for the lanes that ran the body (the head's condition), back to the head for the
    /// rest.
    LoopLatch,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct VBlock {
    pub bb: u32,
    /// Instructions run by this block (phis excluded, terminator excluded).
    pub start: u32,
    pub end: u32,
    pub tail: Tail,
}

/// Per-function state, reused between functions and translations.
#[derive(Default)]
pub struct FnState {
    pub body: Vec<u32>,
    pub vars: Vec<u32>,
    pub vals: Vec<Val>,
    pub def_vb: Vec<u32>,
    /// Per instruction: 0 = not demoted, else 1 + index of its first variable in `dvars`.
    pub demoted: Vec<u32>,
    pub dvars: Vec<Id>,
    pub handle_of: Vec<u32>,
    pub shape: Vec<Shape>,
    /// Per instruction: bit k set when component k of its aggregate result is extracted somewhere.
    pub used: Vec<u8>,
    pub alloca_var: Vec<Option<Id>>,
    pub precise: Vec<bool>,
    pub vblocks: Vec<VBlock>,
    pub first_vb: Vec<u32>,
    pub last_vb: Vec<u32>,
    pub uses: Vec<(u32, u32)>,
    phi_uses: Vec<(Value, u32, u32)>,
    pub labels: Vec<Id>,
    /// Per virtual block: the condition or selector of its branch, once computed.
    pub vb_cond: Vec<Option<Id>>,
    phi_fix: Vec<(u32, u32, u32)>,
    phi_res: FxMap<(u32, u32), Id>,
    pub load_cache: FxMap<(u32, u32), Id>,
    /// Per-block cache of loaded descriptors: (handle, view) → id.
    pub desc_cache: FxMap<(u32, u32), Id>,
    /// Pure instructions of the block being emitted: (first word, result type, operands) → result.
    pub cse: FxMap<(u32, u32, [u32; 4]), Id>,
    /// Result type of each value emitted through `Ctx::value_op`, by id (0: not one of those).
    pub ty_of: Vec<u32>,
    /// Each `OpBitcast` of the function: result → (operand, operand's type or 0 when unknown). The operand
    /// dominates the cast, so it may stand in for the cast's uses in any block.
    pub cast_src: FxMap<u32, (Id, u32)>,
    /// Per instruction of the function, the proven upper bound of its value (`range.rs`).
    pub max_cache: FxMap<u32, Option<u64>>,
    /// Buffers of dead code removal, reused.
    pub dce: super::dce::Scratch,
    pub cur_vb: u32,
    pub flag_var: Option<Id>,
    /// `AllocateRayQuery` calls (instruction, constant flags) in program order: the i32 handle of the k-th is
    /// `k`, an index into one `Function` array of ray query objects.
    pub rq_allocs: Vec<(u32, u32)>,
    pub rq_var: Option<Id>,
    /// The writes of the sampler feedback call being lowered (computed at its first guard).
    pub feedback: Option<super::feedback::FeedbackWrites>,
    work: Vec<Value>,
    succ_buf: Vec<dxil_module::BlockId>,
    pending_buf: Vec<(u32, Id)>,
}

impl<'a> Ctx<'a> {
    pub(super) fn lower_function(
        &mut self,
        fid: dxil_module::FuncId,
        spv_id: Id,
    ) -> Result<(), Error> {
        let m = self.m;
        let func = m
            .function(fid)
            .ok_or_else(|| MetadataError::entry("entry function does not exist"))?;
        let body = func
            .body
            .as_ref()
            .ok_or_else(|| MetadataError::entry(format!("entry @{} has no body", func.name)))?;
        self.fname.clear();
        self.fname.push_str(&func.name);
        let n = body.insts.len();
        let f = &mut self.f;
        f.body.clear();
        f.vars.clear();
        f.vals.clear();
        f.vals.resize(n, Val::None);
        f.def_vb.clear();
        f.def_vb.resize(n, NONE);
        f.demoted.clear();
        f.demoted.resize(n, 0);
        f.dvars.clear();
        f.handle_of.clear();
        f.handle_of.resize(n, NONE);
        f.shape.clear();
        f.shape.resize(n, Shape::Plain);
        f.used.clear();
        f.used.resize(n, 0);
        f.alloca_var.clear();
        f.alloca_var.resize(n, None);
        f.precise.clear();
        f.vblocks.clear();
        f.first_vb.clear();
        f.last_vb.clear();
        f.uses.clear();
        f.phi_uses.clear();
        f.labels.clear();
        f.vb_cond.clear();
        f.phi_fix.clear();
        crate::spv::clear_map(&mut f.phi_res);
        crate::spv::clear_map(&mut f.load_cache);
        crate::spv::clear_map(&mut f.desc_cache);
        crate::spv::clear_map(&mut f.cse);
        crate::spv::clear_map(&mut f.cast_src);
        f.ty_of.clear();
        crate::spv::clear_map(&mut f.max_cache);
        f.flag_var = None;
        f.rq_allocs.clear();
        f.rq_var = None;
        f.feedback = None;
        self.handles.clear();
        self.agg.clear();

        if let Some(kind) = m.metadata.kind_id("dx.precise") {
            self.f.precise.resize(n, false);
            for a in &body.attachments {
                if a.kind == kind
                    && let Some(p) = self.f.precise.get_mut(a.inst.index())
                {
                    *p = true;
                }
            }
        }

        self.verify_types(body)?;
        self.collect_handles(body)?;
        self.ray_tracing_allocas(body)?;
        self.scan(body)?;
        self.build_cfg(body)?;

        let (Some(mut st), Some(cfg)) = (self.st.take(), self.cfg.take()) else {
            return Err(self.invalid(Invalid::internal("structurizer is busy")));
        };
        let result = match st.run(&cfg) {
            Ok(s) => self.emit_structured(body, &s, spv_id),
            Err(source) => Err(Error::ControlFlow {
                function: self.fname.clone(),
                source,
            }),
        };
        self.st = Some(st);
        self.cfg = Some(cfg);
        result
    }

    /// Pass 1: which instructions make handles, and what they refer to.
    fn collect_handles(&mut self, body: &Body) -> Result<(), Error> {
        // `annotateHandle` may refer to a handle made later in program order (blocks need not be in dominance
        // order), so resolve until nothing changes; chains are short.
        for _round in 0..8 {
            let mut pending = false;
            for (i, d) in body.insts.iter().enumerate() {
                if self.f.handle_of[i] != NONE {
                    continue;
                }
                let InstKind::Call { callee, args, .. } = &d.kind else {
                    continue;
                };
                let args: &[u32] = args.get(&body.pool);
                let argv = |k: usize| args.get(k).map(|&v| Value(v));
                if !self.is_dx_op(*callee) {
                    continue;
                }
                self.at_inst = i as u32;
                let op = self.dx_opcode_of(super::Args(args))?;
                match self.make_handle(op, &argv)? {
                    Some(h) => {
                        self.f.handle_of[i] = h;
                        self.f.vals[i] = Val::Handle(h);
                        if op == OpCode::CreateHandleForLib
                            && let Some(load) = self.lib_handle_load(args)
                        {
                            self.f.handle_of[load] = h;
                            self.f.vals[load] = Val::Handle(h);
                        }
                    }
                    None if op == OpCode::AnnotateHandle => pending = true,
                    None => {}
                }
            }
            if !pending {
                return Ok(());
            }
        }
        Err(self.invalid(Invalid::resource(
            "annotateHandle chain does not resolve to a handle",
        )))
    }

    /// Pass 2: shapes, virtual blocks, allocas and the list of cross-block uses.
    fn scan(&mut self, body: &Body) -> Result<(), Error> {
        let nb = body.blocks.len();
        self.f.first_vb.resize(nb, NONE);
        self.f.last_vb.resize(nb, NONE);
        for bb in 0..nb {
            let r = body.block_insts(dxil_module::BlockId(bb as u32));
            self.at_block = bb as u32;
            if r.is_empty() {
                return Err(self.invalid(Invalid::block("empty basic block")));
            }
            let term = r.end - 1;
            if !body
                .insts
                .get(term as usize)
                .is_some_and(|d| d.kind.is_terminator())
            {
                self.at_inst = term;
                return Err(
                    self.invalid(Invalid::block("basic block does not end in a terminator"))
                );
            }
            let mut p0 = r.start;
            while p0 < term && matches!(body.insts[p0 as usize].kind, InstKind::Phi { .. }) {
                p0 += 1;
            }
            let mut cur = self.new_vb(bb as u32, p0, Tail::Llvm);
            self.f.first_vb[bb] = cur;
            for i in r.start..p0 {
                self.f.def_vb[i as usize] = cur;
                if let InstKind::Phi { incoming } = &body.insts[i as usize].kind {
                    for (v, p) in body.phi_incoming(*incoming) {
                        self.f.phi_uses.push((v, p.0, i));
                    }
                }
            }
            for i in p0..term {
                self.at_inst = i;
                let d = &body.insts[i as usize];
                self.note_inst(body, i, d)?;
                let shape = self.shape_of(body, i)?;
                self.f.shape[i as usize] = shape;
                match shape {
                    Shape::Plain => {
                        self.f.def_vb[i as usize] = cur;
                        self.record_uses(body, i, cur);
                    }
                    Shape::Guard(n) => {
                        self.close_vb(cur, i, Tail::GuardCond { inst: i, k: 0 });
                        self.record_uses(body, i, cur);
                        for k in 0..n {
                            let g = self.new_vb(bb as u32, i, Tail::GuardBody { inst: i, k });
                            self.close_vb(g, i, Tail::GuardBody { inst: i, k });
                            self.record_uses(body, i, g);
                            if k + 1 < n {
                                let mk = self.new_vb(bb as u32, i, Tail::Llvm);
                                self.close_vb(mk, i, Tail::GuardCond { inst: i, k: k + 1 });
                                self.record_uses(body, i, mk);
                            }
                        }
                        cur = self.new_vb(bb as u32, i + 1, Tail::Llvm);
                        self.force_var(body, i)?;
                    }
                    Shape::Loop => {
                        self.close_vb(cur, i, Tail::Goto);
                        let h = self.new_vb(bb as u32, i, Tail::Llvm);
                        self.close_vb(h, i, Tail::LoopHead { inst: i });
                        self.record_uses(body, i, h);
                        let b = self.new_vb(bb as u32, i, Tail::Llvm);
                        self.close_vb(b, i, Tail::LoopBody { inst: i });
                        self.record_uses(body, i, b);
                        let l = self.new_vb(bb as u32, i, Tail::Llvm);
                        self.close_vb(l, i, Tail::LoopLatch);
                        cur = self.new_vb(bb as u32, i + 1, Tail::Llvm);
                        self.force_var(body, i)?;
                    }
                }
            }
            self.close_vb(cur, term, Tail::Llvm);
            self.at_inst = term;
            self.record_uses(body, term, cur);
            self.f.last_vb[bb] = cur;
        }
        // Phi incoming values are uses at the end of the predecessor.
        let phi_uses = std::mem::take(&mut self.f.phi_uses);
        for &(v, p, phi) in &phi_uses {
            let Some(&pv) = self.f.last_vb.get(p as usize) else {
                self.at_inst = phi;
                return Err(self.invalid(Invalid::reference(format!(
                    "phi names block {p}, which does not exist"
                ))));
            };
            self.record_use(body, v, pv);
        }
        self.f.phi_uses = phi_uses;
        Ok(())
    }

    fn new_vb(&mut self, bb: u32, start: u32, tail: Tail) -> u32 {
        let id = self.f.vblocks.len() as u32;
        self.f.vblocks.push(VBlock {
            bb,
            start,
            end: start,
            tail,
        });
        id
    }

    fn close_vb(&mut self, vb: u32, end: u32, tail: Tail) {
        if let Some(v) = self.f.vblocks.get_mut(vb as usize) {
            v.end = end;
            v.tail = tail;
        }
    }

    /// Results of guarded and looped instructions always live in a variable (no block defines them as SSA).
    fn force_var(&mut self, body: &Body, i: u32) -> Result<(), Error> {
        let ty = body.insts[i as usize].ty;
        if self.m.types.is_void(ty) {
            return Ok(());
        }
        self.f.def_vb[i as usize] = NONE;
        self.demote(i, ty)
    }

    /// Allocas get their variable up front (the entry block holds all `Function` variables anyway); note
    /// which aggregate components are read.
    fn note_inst(&mut self, body: &Body, i: u32, d: &dxil_module::InstData) -> Result<(), Error> {
        match &d.kind {
            // Payload allocas of ray-tracing stages have their variable already.
            InstKind::Alloca { allocated, .. } if self.f.alloca_var[i as usize].is_none() => {
                let v = if self.payload_alloca(i) {
                    self.payload_var(*allocated)?
                } else {
                    let t = self.ty(*allocated)?;
                    self.local_var(t)
                };
                self.f.alloca_var[i as usize] = Some(v);
            }
            InstKind::Call { callee, args, .. } => {
                let a = super::Args(args.get(&body.pool));
                match self.dx_opcode(*callee, a)? {
                    Some(OpCode::AllocateRayQuery | OpCode::AllocateRayQuery2) => {
                        let flags = a.get(1).and_then(|v| self.const_int(v)).unwrap_or(0) as u32;
                        self.f.rq_allocs.push((i, flags));
                    }
                    // The payload pointer resolves like a local variable's (see `access`).
                    Some(OpCode::GetMeshPayload) => {
                        self.f.alloca_var[i as usize] = Some(self.mesh_payload_of_call(d.ty)?);
                    }
                    _ => {}
                }
            }
            InstKind::ExtractValue { aggregate, indices } => {
                if let (Some(src), Some(&k)) = (aggregate.as_inst(), body.raw(*indices).first())
                    && let Some(u) = self.f.used.get_mut(src.index())
                {
                    *u |= 1u8.checked_shl(k).unwrap_or(0);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Records the uses of instruction `i`'s operands in virtual block `vb`.
    fn record_uses(&mut self, body: &Body, i: u32, vb: u32) {
        let Some(d) = body.insts.get(i as usize) else {
            return;
        };
        let mut work = std::mem::take(&mut self.f.work);
        work.clear();
        // Only instruction results can need a check (constants, globals and functions never do), so only they go
        // on the work list; `dx.op` calls, the commonest instruction, are walked without the generic visitor.
        match &d.kind {
            InstKind::Phi { .. } => {
                self.f.work = work;
                return;
            }
            InstKind::Call { args, .. } => work.extend(
                args.get(&body.pool)
                    .iter()
                    .map(|&v| Value(v))
                    .filter(|v| v.as_inst().is_some()),
            ),
            kind => kind.for_each_value(&body.pool, |v| {
                if v.as_inst().is_some() {
                    work.push(v);
                }
            }),
        }
        if !work.is_empty() {
            self.drain_uses(body, vb, &mut work);
        }
        self.f.work = work;
    }

    fn record_use(&mut self, body: &Body, v: Value, vb: u32) {
        let mut work = std::mem::take(&mut self.f.work);
        work.clear();
        work.push(v);
        self.drain_uses(body, vb, &mut work);
        self.f.work = work;
    }

    /// Records the uses in `work`, following handles and pointers. Valid DXIL has short, acyclic pointer
    /// chains; a bound keeps a malformed cycle (`%p = bitcast %p`) from running forever.
    fn drain_uses(&mut self, body: &Body, vb: u32, work: &mut Vec<Value>) {
        let mut steps = 0u32;
        while let Some(v) = work.pop() {
            steps += 1;
            if steps > 4096 {
                work.clear();
                return;
            }
            self.record_one(body, v, vb, work);
        }
    }

    /// One use; handles and pointers pass the use on to the values they carry.
    fn record_one(&mut self, body: &Body, v: Value, vb: u32, work: &mut Vec<Value>) {
        let Some(i) = v.as_inst() else { return };
        if i.index() >= body.insts.len() {
            // Not an instruction of this body: lowering the use reports it.
            return;
        }
        let h = self.f.handle_of.get(i.index()).copied().unwrap_or(NONE);
        if h != NONE {
            if let Some(v) = self.handles.get(h as usize).and_then(|hi| hi.index.value()) {
                work.push(v);
            }
            return;
        }
        match body.inst(i).map(|d| &d.kind) {
            Some(InstKind::Gep { operands, .. }) => {
                work.extend(body.values(*operands));
            }
            Some(InstKind::Cast {
                op: dxil_module::CastOp::BitCast | dxil_module::CastOp::AddrSpaceCast,
                value,
            }) if self.is_pointer(body, i) => work.push(*value),
            Some(InstKind::Alloca { .. }) => {}
            // A use in the block that defines the value needs no check.
            _ if self.f.def_vb.get(i.index()) == Some(&vb) => {}
            _ => self.f.uses.push((i.0, vb)),
        }
    }

    fn is_pointer(&self, body: &Body, i: InstId) -> bool {
        body.inst(i)
            .is_some_and(|d| matches!(self.m.types.data(d.ty), TypeData::Pointer { .. }))
    }

    /// Builds the virtual-block CFG for the structurizer.
    fn build_cfg(&mut self, body: &Body) -> Result<(), Error> {
        let mut cfg = self.cfg.take().unwrap_or_default();
        cfg.clear();
        let r = self.fill_cfg(body, &mut cfg);
        self.cfg = Some(cfg);
        r
    }

    fn fill_cfg(&mut self, body: &Body, cfg: &mut cfg::Cfg) -> Result<(), Error> {
        let nvb = self.f.vblocks.len();
        for v in 0..nvb {
            let vbk = self.f.vblocks[v];
            let v32 = v as u32;
            let term = match vbk.tail {
                Tail::GuardCond { .. } => cfg::Terminator::CondBranch {
                    t: cfg::BlockId(v32 + 1),
                    f: cfg::BlockId(v32 + 2),
                },
                Tail::GuardBody { .. } | Tail::Goto | Tail::LoopBody { .. } => {
                    cfg::Terminator::Branch(cfg::BlockId(v32 + 1))
                }
                Tail::LoopHead { .. } => cfg::Terminator::CondBranch {
                    t: cfg::BlockId(v32 + 1),
                    f: cfg::BlockId(v32 + 2),
                },
                Tail::LoopLatch => cfg::Terminator::CondBranch {
                    t: cfg::BlockId(v32 + 1),
                    f: cfg::BlockId(v32.wrapping_sub(2)),
                },
                Tail::Llvm => {
                    self.at_block = vbk.bb;
                    self.at_inst = vbk.end;
                    let to = |b: dxil_module::BlockId, s: &Self| -> Result<cfg::BlockId, Error> {
                        s.f.first_vb
                            .get(b.index())
                            .map(|&x| cfg::BlockId(x))
                            .ok_or_else(|| {
                                s.invalid(Invalid::block(format!(
                                    "branch to block {}, which does not exist",
                                    b.0
                                )))
                            })
                    };
                    match body.insts.get(vbk.end as usize).map(|d| &d.kind) {
                        Some(InstKind::Ret { .. }) => cfg::Terminator::Return,
                        Some(InstKind::Unreachable) => cfg::Terminator::Unreachable,
                        Some(InstKind::Br { dest }) => cfg::Terminator::Branch(to(*dest, self)?),
                        Some(InstKind::CondBr {
                            if_true, if_false, ..
                        }) => cfg::Terminator::CondBranch {
                            t: to(*if_true, self)?,
                            f: to(*if_false, self)?,
                        },
                        Some(InstKind::Switch {
                            cond,
                            default,
                            cases,
                        }) => {
                            let width = self
                                .m
                                .value_type(self.func_of(self.entry.function), *cond)
                                .map_or(32, |t| self.bits(t));
                            let mask = if width >= 64 {
                                u64::MAX
                            } else {
                                (1u64 << width) - 1
                            };
                            let d = to(*default, self)?;
                            let mut list = Vec::new();
                            for (val, target) in body.switch_cases(*cases) {
                                let lit = self.const_int(val).ok_or_else(|| {
                                    self.invalid(Invalid::block(
                                        "switch case is not an integer constant",
                                    ))
                                })?;
                                list.push((lit as u64 & mask, to(target, self)?));
                            }
                            cfg.push_switch(d, list);
                            continue;
                        }
                        _ => {
                            return Err(
                                self.invalid(Invalid::block("block ends in an unknown terminator"))
                            );
                        }
                    }
                }
            };
            cfg.push(term);
        }
        Ok(())
    }

    /// Gives `i` a `Function` variable per component of its (LLVM) result type.
    fn demote(&mut self, i: u32, ty: dxil_module::TypeId) -> Result<(), Error> {
        if self.f.demoted[i as usize] != 0 {
            return Ok(());
        }
        let start = self.f.dvars.len() as u32;
        match self.m.types.data(ty) {
            TypeData::Struct { elems, .. } => {
                for &e in elems.clone().iter() {
                    let t = self.ty(e)?;
                    let v = self.local_var(t);
                    self.f.dvars.push(v);
                }
            }
            TypeData::Pointer { .. } | TypeData::Void | TypeData::Label | TypeData::Metadata => {
                return Ok(());
            }
            _ => {
                let t = self.ty(ty)?;
                let v = self.local_var(t);
                self.f.dvars.push(v);
            }
        }
        self.f.demoted[i as usize] = start + 1;
        Ok(())
    }

    /// Is `i`'s value demoted? Returns the variable of component `c`.
    pub fn demoted_var(&self, i: u32, c: u32) -> Option<Id> {
        let d = *self.f.demoted.get(i as usize)?;
        if d == 0 {
            return None;
        }
        self.f.dvars.get((d - 1 + c) as usize).copied()
    }

    /// The lowered value of an instruction as seen from the current block.
    pub fn inst_val(&mut self, i: InstId) -> Result<Val, Error> {
        let idx = i.index();
        let def = self.f.def_vb.get(idx).copied().unwrap_or(NONE);
        if self.f.demoted.get(idx).copied().unwrap_or(0) != 0 && def != self.f.cur_vb {
            let d = self
                .inst_data(i)
                .ok_or_else(|| self.invalid(Invalid::reference("no such instruction")))?;
            let ty = d.ty;
            if let TypeData::Struct { elems, .. } = self.m.types.data(ty) {
                let n = elems.len() as u32;
                let start = self.agg.len() as u32;
                for c in 0..n {
                    let id = self.load_demoted(i.0, c, elems[c as usize])?;
                    self.agg.push(Some(id));
                }
                return Ok(Val::Agg { start, len: n });
            }
            let id = self.load_demoted(i.0, 0, ty)?;
            return Ok(Val::Id(id));
        }
        match self.f.vals.get(idx).copied() {
            Some(Val::None) | None => Err(self.invalid(Invalid::reference(format!(
                "instruction {} is used before it is defined",
                i.0
            )))),
            Some(v) => Ok(v),
        }
    }

    fn load_demoted(&mut self, i: u32, c: u32, ty: dxil_module::TypeId) -> Result<Id, Error> {
        if let Some(&id) = self.f.load_cache.get(&(i, c)) {
            return Ok(id);
        }
        let var = self
            .demoted_var(i, c)
            .ok_or_else(|| self.invalid(Invalid::internal("demoted value has no variable")))?;
        let t = self.ty(ty)?;
        let id = self.load(t, var);
        self.f.load_cache.insert((i, c), id);
        Ok(id)
    }

    /// Stores a just-defined value into its variable when it is demoted.
    pub fn store_if_demoted(&mut self, i: u32) {
        if self.f.demoted.get(i as usize).copied().unwrap_or(0) == 0 {
            return;
        }
        match self.f.vals.get(i as usize).copied() {
            Some(Val::Id(id)) => {
                if let Some(var) = self.demoted_var(i, 0) {
                    self.store(var, id);
                }
            }
            Some(Val::Agg { start, len }) => {
                for c in 0..len {
                    if let (Some(var), Some(&Some(id))) =
                        (self.demoted_var(i, c), self.agg.get((start + c) as usize))
                    {
                        self.store(var, id);
                    }
                }
            }
            _ => {}
        }
    }

    /// Demotion decisions, labels and emission.
    fn emit_structured(
        &mut self,
        body: &Body,
        s: &Structured<'_>,
        spv_id: Id,
    ) -> Result<(), Error> {
        self.demote_across_structure(body, s)?;

        let blocks = s.blocks();
        self.f.labels.clear();
        for _ in 0..blocks.len() {
            let l = self.b.id();
            self.f.labels.push(l);
        }
        self.f.vb_cond.clear();
        self.f.vb_cond.resize(self.f.vblocks.len(), None);
        if s.uses_flag() {
            let u = self.b.u32();
            self.f.flag_var = Some(self.local_var(u));
        }

        for (oi, ob) in blocks.iter().enumerate() {
            let label = self.f.labels[oi];
            if oi > 0 {
                self.emit(Op::Label, &words![label]);
                self.new_block();
            }
            if let Some(v) = ob.original {
                self.emit_vblock(body, s, v.0)?;
            }
            if let Some(k) = ob.flag_write {
                let kid = self.b.const_u32(k);
                let fv = self.flag_var()?;
                self.store(fv, kid);
            }
            self.emit_merge(ob.merge);
            if self.io.mesh.pending_dispatch.is_some() && !matches!(ob.term, OutTerminator::Return)
            {
                return Err(self.dispatch_not_at_end());
            }
            self.emit_out_terminator(body, s, ob)?;
        }

        self.patch_phi_operands()?;

        self.function_passes();

        self.assemble_function(spv_id)
    }

    /// Demotes to variables the values whose definition no longer dominates a use in the
    /// structured output, and the phis the structurizer cannot keep as OpPhi.
    fn demote_across_structure(&mut self, body: &Body, s: &Structured<'_>) -> Result<(), Error> {
        // Values whose definition no longer dominates a use.
        let uses = std::mem::take(&mut self.f.uses);
        for &(i, vb) in &uses {
            let Some(&d) = self.f.def_vb.get(i as usize) else {
                continue;
            };
            if d == vb || d == NONE || s.image(cfg::BlockId(vb)).is_none() {
                continue;
            }
            if !s.def_dominates_use(cfg::BlockId(d), cfg::BlockId(vb)) {
                let ty = body.insts[i as usize].ty;
                self.demote(i, ty)?;
            }
        }
        self.f.uses = uses;
        // Phis the structurizer cannot keep as OpPhi.
        for bb in 0..body.blocks.len() {
            let fv = self.f.first_vb[bb];
            if s.image(cfg::BlockId(fv)).is_some() && s.phi_preds(cfg::BlockId(fv)).is_none() {
                for i in body.block_insts(dxil_module::BlockId(bb as u32)) {
                    let d = &body.insts[i as usize];
                    if !matches!(d.kind, InstKind::Phi { .. }) {
                        break;
                    }
                    self.demote(i, d.ty)?;
                }
            }
        }
        Ok(())
    }

    /// The output block's OpSelectionMerge or OpLoopMerge, if it heads a construct.
    fn emit_merge(&mut self, merge: Merge) {
        match merge {
            Merge::None => {}
            Merge::Selection { merge } => {
                let l = self.f.labels[merge.index()];
                self.emit(
                    Op::SelectionMerge,
                    &words![l, SelectionControl::NONE.bits()],
                );
            }
            Merge::Loop {
                merge,
                continue_target,
            } => {
                let l = self.f.labels[merge.index()];
                let c = self.f.labels[continue_target.index()];
                self.emit(
                    Op::LoopMerge,
                    &words![l, c, spirv::LoopControl::NONE.bits()],
                );
            }
        }
    }

    /// The output block's terminator.
    fn emit_out_terminator(
        &mut self,
        body: &Body,
        s: &Structured<'_>,
        ob: &cfg::OutBlock,
    ) -> Result<(), Error> {
        match ob.term {
            OutTerminator::Return => {
                if !self.emit_mesh_tasks_at_return()? {
                    self.emit(Op::Return, &words![]);
                }
            }
            OutTerminator::Unreachable => {
                let op = self.unreachable_terminator(ob.original.map(|v| v.0));
                self.emit(op, &words![]);
            }
            OutTerminator::Branch(t) => {
                let l = self.f.labels[t.index()];
                self.emit(Op::Branch, &words![l]);
            }
            OutTerminator::CondBranch { cond, t, f } => {
                let c = match cond {
                    Condition::Original(x) => self.f.vb_cond[x.index()],
                    Condition::FlagEquals(k) => {
                        let u = self.b.u32();
                        let fv = self.flag_var()?;
                        let cur = self.load(u, fv);
                        let kid = self.b.const_u32(k);
                        let bt = self.b.bool();
                        Some(self.op2(Op::IEqual, bt, cur, kid))
                    }
                };
                let Some(c) = c else {
                    return Err(
                        self.invalid(Invalid::internal("branch condition was not computed"))
                    );
                };
                let (lt, lf) = (self.f.labels[t.index()], self.f.labels[f.index()]);
                self.emit(Op::BranchConditional, &words![c, lt, lf]);
            }
            OutTerminator::Switch {
                selector,
                default,
                cases,
            } => self.emit_switch(body, s, selector, default, cases)?,
        }
        Ok(())
    }

    /// OpSwitch: on the original selector (64-bit literals when it is 64 bits wide) or on zero
    /// for a structurizer switch whose only case is the default.
    fn emit_switch(
        &mut self,
        body: &Body,
        s: &Structured<'_>,
        selector: Selector,
        default: cfg::OutBlockId,
        cases: cfg::structurize::CaseRange,
    ) -> Result<(), Error> {
        let (sel, width) = match selector {
            Selector::Original(x) => {
                let vb = self.f.vblocks[x.index()];
                let w = match body.insts.get(vb.end as usize).map(|d| &d.kind) {
                    Some(InstKind::Switch { cond, .. }) => self
                        .m
                        .value_type(self.func_of(self.entry.function), *cond)
                        .map_or(32, |t| self.bits(t)),
                    _ => 32,
                };
                let sel = self.f.vb_cond[x.index()].ok_or_else(|| {
                    self.invalid(Invalid::internal("switch selector was not computed"))
                })?;
                (sel, w)
            }
            Selector::Zero => (self.b.const_u32(0), 32),
        };
        let dl = self.f.labels[default.index()];
        let at = self.f.body.len();
        self.f.body.push(0);
        self.f.body.push(sel.word());
        self.f.body.push(dl.word());
        for &(lit, target) in s.cases(cases) {
            self.f.body.push(lit as u32);
            if width > 32 {
                self.f.body.push((lit >> 32) as u32);
            }
            self.f.body.push(self.f.labels[target.index()].word());
        }
        let len = (self.f.body.len() - at) as u32;
        if len > 0xFFFF {
            return Err(Limit::SwitchWords(len).into());
        }
        self.f.body[at] = (len << 16) | Op::Switch as u32;
        Ok(())
    }

    /// Fills in the phi operands recorded in `phi_fix`, now that every predecessor is emitted.
    fn patch_phi_operands(&mut self) -> Result<(), Error> {
        for k in 0..self.f.phi_fix.len() {
            let (pos, phi, pvb) = self.f.phi_fix[k];
            let id = self.f.phi_res.get(&(phi, pvb)).copied().ok_or_else(|| {
                self.invalid(Invalid::block(format!(
                    "phi {phi} has no value for its predecessor"
                )))
            })?;
            if let Some(w) = self.f.body.get_mut(pos as usize) {
                *w = id.word();
            }
        }
        Ok(())
    }

    /// The passes over the finished function body: loop re-rolling, ray-query loop
    /// un-rotation, loop shape clean-ups and dead-code removal.
    fn function_passes(&mut self) {
        super::reroll::reroll(&mut self.f.body, &mut self.b);
        if let Some(&entry) = self.f.labels.first() {
            super::unrotate::unrotate_ray_query_loops(&mut self.f.body, entry.word(), &mut self.b);
        }
        if super::loops::has_loop(&self.f.body) {
            super::loops::one_block_loops(&mut self.f.body);
            if let (Some(zero), Some(one)) = (self.b.find_const_u32(0), self.b.find_const_u32(1)) {
                super::loops::counted_loop_exits(&mut self.f.body, zero.word(), one.word());
            }
        }

        super::dce::remove_dead(
            &mut self.f.vars,
            &mut self.f.body,
            &self.b.annotations,
            self.b.glsl_import().map(|g| g.word()),
            self.b.id_bound(),
            &mut self.f.dce,
        );
    }

    /// Assembles OpFunction, the entry label, the variables and the body into the module.
    fn assemble_function(&mut self, spv_id: Id) -> Result<(), Error> {
        let entry_label = self
            .f
            .labels
            .first()
            .copied()
            .ok_or_else(|| self.invalid(Invalid::internal("function without blocks")))?;
        let void = self.b.void();
        let fnty = self.b.ty(crate::spv::TypeKey::VoidFn);
        let out = &mut self.b.functions;
        spv::emit(
            out,
            Op::Function,
            &words![void, spv_id, spirv::FunctionControl::NONE.bits(), fnty],
        );
        spv::emit(out, Op::Label, &words![entry_label]);
        out.extend_from_slice(&self.f.vars);
        out.extend_from_slice(&self.f.body);
        spv::emit(out, Op::FunctionEnd, &words![]);
        Ok(())
    }

    fn emit_vblock(&mut self, body: &Body, s: &Structured<'_>, v: u32) -> Result<(), Error> {
        let vbk = self.f.vblocks[v as usize];
        self.f.cur_vb = v;
        if !self.f.load_cache.is_empty() {
            self.f.load_cache.clear();
        }
        if !self.f.desc_cache.is_empty() {
            self.f.desc_cache.clear();
        }
        self.at_block = vbk.bb;
        let bb = dxil_module::BlockId(vbk.bb);
        if self.f.first_vb[vbk.bb as usize] == v {
            self.emit_phis(body, s, bb, v)?;
        }
        for i in vbk.start..vbk.end {
            self.at_inst = i;
            self.lower_inst(body, i)?;
            self.store_if_demoted(i);
        }
        self.at_inst = vbk.end;
        match vbk.tail {
            Tail::Llvm => {
                match body.insts.get(vbk.end as usize).map(|d| &d.kind) {
                    Some(InstKind::CondBr { cond, .. }) | Some(InstKind::Switch { cond, .. }) => {
                        let c = self.value(*cond)?;
                        self.f.vb_cond[v as usize] = Some(c);
                    }
                    Some(InstKind::Ret { value: Some(_) }) => {
                        return Err(self.unsupported(Unsupported::instruction(
                            "returning a value from the entry point",
                        )));
                    }
                    _ => {}
                }
                self.emit_phi_sources(body, s, bb, v)?;
            }
            Tail::GuardCond { inst, k } => {
                self.at_inst = inst;
                let c = self.guard_cond(body, inst, k)?;
                self.f.vb_cond[v as usize] = Some(c);
            }
            Tail::GuardBody { inst, k } => {
                self.at_inst = inst;
                self.guard_body(body, inst, k)?;
            }
            Tail::Goto => {}
            Tail::LoopHead { inst } => {
                self.at_inst = inst;
                let c = self.wave_loop_head(body, inst)?;
                self.f.vb_cond[v as usize] = Some(c);
            }
            Tail::LoopBody { inst } => {
                self.at_inst = inst;
                self.wave_loop_body(body, inst)?;
            }
            Tail::LoopLatch => {
                // The head dominates the latch, so it was emitted first and its condition is defined here.
                let c = (v as usize)
                    .checked_sub(2)
                    .and_then(|h| self.f.vb_cond.get(h).copied().flatten())
                    .ok_or_else(|| {
                        self.invalid(Invalid::internal("wave loop latch emitted before its head"))
                    })?;
                self.f.vb_cond[v as usize] = Some(c);
            }
        }
        Ok(())
    }

    fn emit_phis(
        &mut self,
        body: &Body,
        s: &Structured<'_>,
        bb: dxil_module::BlockId,
        v: u32,
    ) -> Result<(), Error> {
        let r = body.block_insts(bb);
        let preds = s.phi_preds(cfg::BlockId(v));
        let mut any_store = false;
        for i in r {
            let d = &body.insts[i as usize];
            if !matches!(d.kind, InstKind::Phi { .. }) {
                break;
            }
            self.at_inst = i;
            match preds {
                Some(list) => {
                    let t = self.ty(d.ty)?;
                    let id = self.b.id();
                    let n = list.len() as u32;
                    if 3 + 2 * n > 0xFFFF {
                        return Err(Limit::PhiPredecessors(n).into());
                    }
                    self.f.body.push(((3 + 2 * n) << 16) | Op::Phi as u32);
                    self.f.body.push(t.word());
                    self.f.body.push(id.word());
                    for pp in list {
                        let pos = self.f.body.len() as u32;
                        // Patched with the incoming value once every predecessor is emitted.
                        self.f.body.push(0);
                        self.f.body.push(self.f.labels[pp.parent.index()].word());
                        self.f.phi_fix.push((pos, i, pp.pred.0));
                    }
                    self.f.vals[i as usize] = Val::Id(id);
                    any_store |= self.f.demoted[i as usize] != 0;
                }
                None => {
                    let t = self.ty(d.ty)?;
                    let var = self.demoted_var(i, 0).ok_or_else(|| {
                        self.invalid(Invalid::internal("demoted phi has no variable"))
                    })?;
                    let id = self.load(t, var);
                    self.f.vals[i as usize] = Val::Id(id);
                }
            }
        }
        if any_store && preds.is_some() {
            for i in body.block_insts(bb) {
                if !matches!(body.insts[i as usize].kind, InstKind::Phi { .. }) {
                    break;
                }
                self.store_if_demoted(i);
            }
        }
        Ok(())
    }

    /// At the end of predecessor block `v` (of LLVM block `bb`): resolve the incoming values of the successors'
    /// phis (OpPhi operands), or store them into the phi variables.
    fn emit_phi_sources(
        &mut self,
        body: &Body,
        s: &Structured<'_>,
        bb: dxil_module::BlockId,
        v: u32,
    ) -> Result<(), Error> {
        // Buffers kept in the function state (this runs once per block).
        let mut succs = std::mem::take(&mut self.f.succ_buf);
        body.successors(bb, &mut succs);
        succs.sort_unstable();
        succs.dedup();
        let mut pending = std::mem::take(&mut self.f.pending_buf);
        pending.clear();
        let r = self.phi_sources_into(body, s, bb, v, &succs, &mut pending);
        if r.is_ok() {
            // Read every incoming value before storing any (phis may read each other).
            for &(i, id) in &pending {
                if let Some(var) = self.demoted_var(i, 0) {
                    self.store(var, id);
                }
            }
        }
        self.f.succ_buf = succs;
        self.f.pending_buf = pending;
        r
    }

    fn phi_sources_into(
        &mut self,
        body: &Body,
        s: &Structured<'_>,
        bb: dxil_module::BlockId,
        v: u32,
        succs: &[dxil_module::BlockId],
        pending: &mut Vec<(u32, Id)>,
    ) -> Result<(), Error> {
        for &sb in succs {
            let Some(&fv) = self.f.first_vb.get(sb.index()) else {
                continue;
            };
            let keep = s.phi_preds(cfg::BlockId(fv)).is_some();
            for i in body.block_insts(sb) {
                let d = &body.insts[i as usize];
                let InstKind::Phi { incoming } = &d.kind else {
                    break;
                };
                let Some((val, _)) = body.phi_incoming(*incoming).find(|&(_, p)| p == bb) else {
                    return Err(self.invalid(Invalid::block(format!(
                        "phi {i} has no incoming value for predecessor block {}",
                        bb.0
                    ))));
                };
                self.at_inst = i;
                let id = self.value(val)?;
                if keep {
                    self.f.phi_res.insert((i, v), id);
                } else {
                    pending.push((i, id));
                }
            }
        }
        Ok(())
    }

    /// A `Function` variable holding `ptr`'s pointee type (for results of guarded instructions).
    pub fn result_var(&self, i: u32) -> Option<Id> {
        self.demoted_var(i, 0)
    }

    /// Is `v` the result of an `alloca`?
    pub fn alloca_of(&self, v: Value) -> Option<Id> {
        match v.get() {
            ValueRef::Inst(i) => self.f.alloca_var.get(i.index()).copied().flatten(),
            _ => None,
        }
    }

    /// The variable of the structurizer's flag (made when the structured output uses one).
    fn flag_var(&self) -> Result<Id, Error> {
        self.f.flag_var.ok_or_else(|| {
            self.invalid(Invalid::internal(
                "structurizer flag used without its variable",
            ))
        })
    }
}
