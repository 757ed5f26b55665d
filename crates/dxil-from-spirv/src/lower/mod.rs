//! SPIR-V → DXIL lowering. Every function is inlined into `@main`; SPIR-V blocks become
//! DXIL blocks (structured control flow is already a reducible CFG, and `OpPhi` maps onto
//! `phi`); composite values become runs of scalars; memory is lowered per storage class
//! (local arrays, raw buffers, constant buffers, signature elements).

mod arith;
mod atomic;
mod buffer;
pub mod consts;
mod control;
mod glsl;
mod hull;
mod image;
mod int8;
mod io;
mod memory;
mod mesh;
mod promote;
mod rayquery;
mod sig;
mod stage;
mod types;
mod wave;
mod wave_tree;

pub use types::type_name;

use rustc_hash::FxHashMap as HashMap;

use dxil_module::Value;
use spirv::{ExecutionModel, Op};

use crate::builder::{Builder, Scalar};
use crate::error::{Error, ErrorKind, Result, malformed, unsupported};
use crate::spv::{self, Inst, Type};
use crate::{Options, SpecMode};

pub use buffer::{CreateSite, ResKind, Resource};
pub(crate) use memory::{Local, Ptr};
pub(crate) use promote::promote_locals;

/// What a SPIR-V id stands for in the DXIL being written.
#[derive(Clone, Copy, Debug, Default)]
pub enum Slot {
    #[default]
    None,
    /// A value: `len` scalars from `start` in the value pool.
    Vals { start: u32, len: u32 },
    /// A pointer (index into the pointer table).
    Ptr(u32),
    /// A resource handle: the resource and the handle value.
    Handle { res: u32, handle: Value },
    /// A sampled image: image and sampler handles.
    Sampled {
        res: u32,
        handle: Value,
        sampler_res: u32,
        sampler: Value,
    },
}

/// Features the module uses, for the shader flags and the shader model.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    pub doubles: bool,
    pub double_ext: bool,
    pub int64: bool,
    pub native16: bool,
    pub wave_ops: bool,
    pub typed_uav_multi_load: bool,
    pub min_sm: (u8, u8),
    pub barycentrics: bool,
    pub view_id: bool,
    pub stencil_ref: bool,
    pub viewport_rt_index: bool,
    pub inner_coverage: bool,
    pub atomic64_typed: bool,
    pub atomic64_groupshared: bool,
    pub tiled_resources: bool,
    pub rovs: bool,
    pub shading_rate: bool,
    /// Derivatives or implicit-LOD sampling in a mesh or amplification shader.
    pub mesh_derivatives: bool,
}

impl Features {
    pub fn need_sm(&mut self, major: u8, minor: u8) {
        if (major, minor) > self.min_sm {
            self.min_sm = (major, minor);
        }
    }
}

/// Where an inlined function returns to.
enum Ret {
    /// The entry point: return from `@main` (after writing the outputs).
    Main,
    /// An inlined call: branch to `cont` and hand over the value.
    Inline {
        cont: u32,
        incoming: Vec<(Slot, u32)>,
    },
}

/// A phi whose incoming values are resolved when its function is done.
struct PendingPhi {
    /// The phi instructions, one per scalar: (start, count) in the value pool.
    vals: (u32, u32),
    block: u32,
    inst_offset: u32,
}

/// Deepest chain of inlined calls.
const MAX_INLINE_DEPTH: u32 = 32;

/// The translation state.
pub struct Tr<'a> {
    pub spv: &'a spv::Module<'a>,
    pub opts: &'a Options,
    pub b: Builder,
    pub model: ExecutionModel,
    pub entry: &'a spv::EntryPoint,
    pub vals: Vec<Slot>,
    pub pool: Vec<Value>,
    /// A buffer for scalars copied out of `pool` while more are emitted (reused, not
    /// reallocated per instruction).
    scratch: Vec<Value>,
    pub ptrs: Vec<Ptr>,
    pub locals: Vec<Local>,
    /// Global variable id → local index (Private, Workgroup) for the variables used.
    pub local_of: HashMap<u32, u32>,
    pub resources: Vec<Resource>,
    pub features: Features,
    pub types: types::TypeCache,
    /// Label id → virtual block of the current instance, and the block its code ends in.
    label_vb: Vec<u32>,
    label_end: Vec<u32>,
    phis: Vec<PendingPhi>,
    /// Functions being inlined (recursion guard).
    active: Vec<u32>,
    pub spec: consts::SpecState,
    pub io: io::Io,
    /// Global variables the entry point uses.
    pub used_globals: Vec<u32>,
    /// Whether `OpKill`-style termination or `discard` was used.
    pub uses_discard: bool,
    /// Handles come from `createHandleFromBinding` + `annotateHandle` (shader model 6.6+).
    pub handles66: bool,
    /// Geometry streams emitted to (bit mask).
    pub gs_streams: u32,
    /// Nesting of constants being materialized (composites of composites).
    materializing: u32,
    /// The hull shader function being written (tessellation control shaders).
    pub hull: Option<hull::HullPhase>,
    /// A hull shader's patch-constant function.
    pub hull_pc: Option<dxil_module::FuncId>,
    /// Bytes of the mesh payload a task shader sends or a mesh shader receives.
    pub payload_bytes: Option<u32>,
    /// The module may hold 8-bit integers: value instructions check them (`int8`).
    pub int8: bool,
    /// The lane tree's sibling lanes for the last lane mask, while they are in scope.
    pub tree_lanes: Option<wave_tree::LaneTable>,
}

impl<'a> Tr<'a> {
    pub fn new(
        spv: &'a spv::Module<'a>,
        opts: &'a Options,
        entry: &'a spv::EntryPoint,
        handles66: bool,
    ) -> Result<Tr<'a>> {
        let bound = spv.bound as usize;
        Ok(Tr {
            spv,
            opts,
            b: Builder::new(false),
            model: entry.model,
            entry,
            vals: vec![Slot::None; bound],
            pool: Vec::with_capacity(256),
            scratch: Vec::new(),
            ptrs: Vec::new(),
            locals: Vec::new(),
            local_of: HashMap::default(),
            resources: Vec::new(),
            features: Features {
                min_sm: (6, 0),
                ..Default::default()
            },
            types: types::TypeCache::new(bound),
            label_vb: vec![u32::MAX; bound],
            label_end: vec![u32::MAX; bound],
            phis: Vec::new(),
            active: Vec::new(),
            spec: consts::SpecState::default(),
            io: io::Io::default(),
            used_globals: Vec::new(),
            uses_discard: false,
            handles66,
            gs_streams: 0,
            materializing: 0,
            hull: None,
            hull_pc: None,
            payload_bytes: None,
            tree_lanes: None,
            int8: spv.capabilities.iter().any(|&c| {
                matches!(
                    c,
                    spirv::Capability::Int8
                        | spirv::Capability::StorageBuffer8BitAccess
                        | spirv::Capability::UniformAndStorageBuffer8BitAccess
                        | spirv::Capability::StoragePushConstant8
                        | spirv::Capability::WorkgroupMemoryExplicitLayout8BitAccessKHR
                )
            }),
        })
    }

    /// Translates the entry point's function into `@main`.
    pub fn run(&mut self) -> Result<()> {
        let mut spec = std::mem::take(&mut self.spec);
        spec.prepare(self)?;
        self.spec = spec;
        self.collect_globals()?;
        let f = self.entry.function;
        let func = self
            .spv
            .function(f)
            .ok_or_else(|| malformed(format!("entry point function %{f} is not defined")))?;
        if func.blocks.is_empty() {
            return Err(malformed("the entry point function has no body"));
        }
        if self.model == ExecutionModel::TessellationControl {
            self.run_hull()?;
        } else {
            let mut ret = Ret::Main;
            self.emit_function(f, &[], &mut ret, 0)?;
        }
        self.lod_query_model();
        Ok(())
    }

    // ------------------------------------------------------------------ values

    /// A value's scalars; constants are materialized on first use.
    pub fn get(&mut self, id: u32) -> Result<(u32, u32)> {
        match self.vals.get(id as usize) {
            Some(Slot::Vals { start, len }) => Ok((*start, *len)),
            Some(Slot::None) => {
                self.materialize(id)?;
                match self.vals.get(id as usize) {
                    Some(Slot::Vals { start, len }) => Ok((*start, *len)),
                    _ => Err(malformed(format!("%{id} is not a value"))),
                }
            }
            Some(_) => Err(malformed(format!(
                "%{id} is not a value (pointer or handle)"
            ))),
            None => Err(malformed(format!("%{id} is out of range"))),
        }
    }

    /// The single scalar of a scalar value.
    pub fn scalar(&mut self, id: u32) -> Result<Value> {
        let (s, n) = self.get(id)?;
        if n != 1 {
            return Err(malformed(format!("%{id} is not a scalar")));
        }
        Ok(self.pool[s as usize])
    }

    /// Copies a value's scalars out (for operations that emit while reading them).
    pub fn values(&mut self, id: u32) -> Result<Vec<Value>> {
        let (s, n) = self.get(id)?;
        Ok(self.pool[s as usize..(s + n) as usize].to_vec())
    }

    pub fn slot(&self, id: u32) -> Slot {
        self.vals.get(id as usize).copied().unwrap_or_default()
    }

    pub fn set(&mut self, id: u32, slot: Slot) -> Result<()> {
        match self.vals.get_mut(id as usize) {
            Some(s) => {
                *s = slot;
                Ok(())
            }
            None => Err(malformed(format!("%{id} is out of range"))),
        }
    }

    /// Binds `id` to the given scalars.
    pub fn set_vals(&mut self, id: u32, vals: &[Value]) -> Result<()> {
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(vals);
        self.set(
            id,
            Slot::Vals {
                start,
                len: vals.len() as u32,
            },
        )
    }

    /// The scalar at `index` of the value pool.
    pub fn pooled(&self, index: u32) -> Result<Value> {
        self.pool
            .get(index as usize)
            .copied()
            .ok_or_else(|| crate::error::internal("value pool index out of range"))
    }

    /// Binds `id` to the `n` scalars `g` makes (component by component; `g` may emit and
    /// extend the pool, which only grows while an instruction is lowered). Vectors fit a
    /// stack buffer, so that elementwise operations allocate nothing.
    pub fn set_mapped(
        &mut self,
        id: u32,
        n: u32,
        mut g: impl FnMut(&mut Self, u32) -> Result<Value>,
    ) -> Result<()> {
        let mut buf = [Value(0); 16];
        if let Some(out) = buf.get_mut(..n as usize) {
            for (i, slot) in out.iter_mut().enumerate() {
                *slot = g(self, i as u32)?;
            }
            return self.set_vals(id, out);
        }
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            out.push(g(self, i)?);
        }
        self.set_vals(id, &out)
    }

    pub fn set_scalar(&mut self, id: u32, v: Value) -> Result<()> {
        self.set_vals(id, &[v])
    }

    fn materialize(&mut self, id: u32) -> Result<()> {
        // Constants name only earlier constants, but a hostile module can chain (or loop)
        // them: bound the nesting instead of recursing without end.
        if self.materializing >= 64 {
            return Err(crate::error::limit("constants nested more than 64 deep"));
        }
        self.materializing += 1;
        let r = self.materialize_inner(id);
        self.materializing -= 1;
        r
    }

    fn materialize_inner(&mut self, id: u32) -> Result<()> {
        let def = self.spv.def(id)?;
        let op = def.op();
        match op {
            Some(
                Op::Constant
                | Op::ConstantTrue
                | Op::ConstantFalse
                | Op::ConstantNull
                | Op::ConstantComposite
                | Op::Undef
                | Op::SpecConstant
                | Op::SpecConstantTrue
                | Op::SpecConstantFalse
                | Op::SpecConstantComposite
                | Op::SpecConstantOp,
            ) => self.materialize_constant(id),
            Some(Op::Variable) => self.materialize_global(id),
            _ => Err(malformed(format!(
                "%{id} is used before it is defined (or is not a value)"
            ))),
        }
    }

    // ------------------------------------------------------------------ functions

    fn emit_function(&mut self, fid: u32, args: &[Slot], ret: &mut Ret, depth: u32) -> Result<()> {
        if depth > MAX_INLINE_DEPTH {
            return Err(crate::error::limit(format!(
                "calls nested more than {MAX_INLINE_DEPTH} deep"
            )));
        }
        if self.active.contains(&fid) {
            return Err(unsupported(format!("recursive call of %{fid}")));
        }
        let spv = self.spv;
        let func = spv
            .function(fid)
            .ok_or_else(|| malformed(format!("call of %{fid}, which is not a defined function")))?;
        if func.params.len() != args.len() {
            return Err(malformed(format!(
                "%{fid} takes {} arguments, called with {}",
                func.params.len(),
                args.len()
            )));
        }
        for (&p, &a) in func.params.iter().zip(args) {
            self.set(p, a)?;
        }
        self.active.push(fid);
        let reachable = control::reachable_blocks(spv, func)?;
        control::check_loop_exits(spv, func, &reachable)?;
        for &bi in &reachable {
            let label = func.blocks[bi].label;
            let vb = self.b.new_block();
            self.set_label(label, vb)?;
        }
        let phis_start = self.phis.len();
        for (n, &bi) in reachable.iter().enumerate() {
            let blk = func.blocks[bi];
            let vb = self.label_vb[blk.label as usize];
            if n == 0 {
                if let Ret::Inline { .. } = ret {
                    self.b.br(vb)?;
                }
                self.b.start_block(vb)?;
                if matches!(ret, Ret::Main) {
                    self.prologue()?;
                }
            } else {
                self.b.start_block(vb)?;
            }
            self.emit_block(func, blk, ret, depth)?;
        }
        self.resolve_phis(phis_start)?;
        self.active.pop();
        Ok(())
    }

    fn set_label(&mut self, label: u32, vb: u32) -> Result<()> {
        match self.label_vb.get_mut(label as usize) {
            Some(s) => {
                *s = vb;
                Ok(())
            }
            None => Err(malformed(format!("label %{label} out of range"))),
        }
    }

    /// The virtual block of a label of the current function instance.
    pub fn block_of(&self, label: u32) -> Result<u32> {
        match self.label_vb.get(label as usize) {
            Some(&vb) if vb != u32::MAX => Ok(vb),
            _ => Err(malformed(format!(
                "branch to %{label}, which is not a block here"
            ))),
        }
    }

    fn emit_block(
        &mut self,
        func: &spv::Function,
        blk: spv::Block,
        ret: &mut Ret,
        depth: u32,
    ) -> Result<()> {
        let spv = self.spv;
        for inst in spv.insts(blk.start, blk.end) {
            let inst = inst?;
            let at = inst.location();
            let Some(op) = inst.op() else {
                // Opcodes newer than the `spirv` crate's grammar.
                let r = match inst.opcode {
                    wave::OP_QUAD_ALL_KHR | wave::OP_QUAD_ANY_KHR => self.quad_vote(&inst),
                    _ => Err(Error::at(
                        ErrorKind::Unsupported,
                        at,
                        "unknown opcode".to_string(),
                    )),
                };
                r.map_err(|e| e.or_at(at))?;
                continue;
            };
            let r = match op {
                Op::Phi => self.phi(&inst),
                Op::FunctionCall => self.call(&inst, depth),
                Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Kill
                | Op::TerminateInvocation
                | Op::Unreachable => self.terminator(&inst, op, ret),
                Op::EmitMeshTasksEXT => self.emit_mesh_tasks(&inst),
                _ => self.instruction(&inst, op),
            };
            r.map_err(|e| e.or_at(at))?;
            if spv::is_block_terminator(op) {
                break;
            }
        }
        let _ = func;
        Ok(())
    }

    fn phi(&mut self, inst: &Inst<'_>) -> Result<()> {
        let ty = inst.word(0)?;
        let id = inst.word(1)?;
        if matches!(self.spv.ty(ty)?, Type::Pointer { .. }) {
            return Err(unsupported("phi of pointers (variable pointers)"));
        }
        let kinds = self.leaf_kinds(ty)?;
        let start = self.pool.len() as u32;
        let mut phis = Vec::with_capacity(kinds.len());
        for k in kinds {
            let t = self.b.scalar(k);
            phis.push(self.b.phi(t)?);
        }
        self.set_vals(id, &phis)?;
        let block = self.b.current_block().unwrap_or(u32::MAX);
        self.phis.push(PendingPhi {
            vals: (start, phis.len() as u32),
            block,
            inst_offset: inst.offset,
        });
        Ok(())
    }

    fn resolve_phis(&mut self, from: usize) -> Result<()> {
        let pending: Vec<PendingPhi> = self.phis.drain(from..).collect();
        for p in pending {
            let inst = self.spv.inst_at(p.inst_offset)?;
            let at = inst.location();
            let pairs = inst.rest(2);
            if pairs.len() % 2 != 0 {
                return Err(malformed("OpPhi operands are not pairs").or_at(at));
            }
            let mut incoming: Vec<Vec<(Value, u32)>> = vec![Vec::new(); p.vals.1 as usize];
            for pair in pairs.chunks_exact(2) {
                let (value, pred) = (pair[0], pair[1]);
                let pred_end = match self.label_end.get(pred as usize) {
                    Some(&e) if e != u32::MAX && self.label_vb[pred as usize] != u32::MAX => e,
                    _ => continue,
                };
                let edges = self.b.edges(pred_end, p.block);
                if edges == 0 {
                    continue;
                }
                let (s, n) = self.get(value).map_err(|e| e.or_at(at))?;
                if n != p.vals.1 {
                    return Err(malformed("OpPhi operand of another type").or_at(at));
                }
                for (i, list) in incoming.iter_mut().enumerate() {
                    let v = self.pool[(s + i as u32) as usize];
                    for _ in 0..edges {
                        list.push((v, pred_end));
                    }
                }
            }
            for (i, list) in incoming.iter().enumerate() {
                let phi = self.pool[(p.vals.0 + i as u32) as usize];
                self.b.set_phi_incoming(phi, list)?;
            }
        }
        Ok(())
    }

    fn call(&mut self, inst: &Inst<'_>, depth: u32) -> Result<()> {
        let ret_ty = inst.word(0)?;
        let id = inst.word(1)?;
        let callee = inst.word(2)?;
        let mut args = Vec::new();
        for &a in inst.rest(3) {
            let s = match self.slot(a) {
                // Constants, and global variables passed by pointer (resources included).
                Slot::None => {
                    self.materialize(a)?;
                    self.slot(a)
                }
                s => s,
            };
            args.push(s);
        }
        let cont = self.b.new_block();
        let mut ret = Ret::Inline {
            cont,
            incoming: Vec::new(),
        };
        self.emit_function(callee, &args, &mut ret, depth + 1)?;
        let Ret::Inline { incoming, .. } = ret else {
            return Err(crate::error::internal("return context changed"));
        };
        if incoming.is_empty() {
            return Err(unsupported(format!(
                "call of %{callee}, which never returns (every path terminates the invocation)"
            )));
        }
        self.b.start_block(cont)?;
        if matches!(self.spv.ty(ret_ty)?, Type::Void) {
            return Ok(());
        }
        if incoming.len() == 1 {
            return self.set(id, incoming[0].0);
        }
        let kinds = self.leaf_kinds(ret_ty)?;
        let mut out = Vec::with_capacity(kinds.len());
        for (i, k) in kinds.iter().enumerate() {
            let t = self.b.scalar(*k);
            let phi = self.b.phi(t)?;
            let mut pairs = Vec::with_capacity(incoming.len());
            for (slot, vb) in &incoming {
                let Slot::Vals { start, .. } = slot else {
                    return Err(unsupported("functions returning pointers or handles"));
                };
                pairs.push((self.pool[*start as usize + i], *vb));
            }
            self.b.set_phi_incoming(phi, &pairs)?;
            out.push(phi);
        }
        self.set_vals(id, &out)
    }

    fn terminator(&mut self, inst: &Inst<'_>, op: Op, ret: &mut Ret) -> Result<()> {
        // The label whose code ends here (the terminator's block).
        let cur = self.b.current_block().unwrap_or(u32::MAX);
        self.record_block_end(inst.offset, cur)?;
        match op {
            Op::Branch => {
                let t = self.block_of(inst.word(0)?)?;
                self.b.br(t)
            }
            Op::BranchConditional => {
                let c = self.scalar(inst.word(0)?)?;
                let t = self.block_of(inst.word(1)?)?;
                let f = self.block_of(inst.word(2)?)?;
                self.b.cond_br(c, t, f)
            }
            Op::Switch => self.switch(inst),
            Op::Return | Op::ReturnValue => {
                let value = if op == Op::ReturnValue {
                    let v = inst.word(0)?;
                    match self.slot(v) {
                        Slot::None => {
                            self.get(v)?;
                            self.slot(v)
                        }
                        s => s,
                    }
                } else {
                    Slot::None
                };
                match ret {
                    Ret::Main => {
                        self.write_outputs()?;
                        self.b.ret()
                    }
                    Ret::Inline { cont, incoming } => {
                        incoming.push((value, cur));
                        let cont = *cont;
                        self.b.br(cont)
                    }
                }
            }
            Op::Kill | Op::TerminateInvocation => {
                if self.model != ExecutionModel::Fragment {
                    return Err(malformed("OpKill outside a fragment shader"));
                }
                let t = self.b.i1c(true);
                self.discard(t)?;
                self.b.ret()
            }
            Op::Unreachable => self.b.unreachable(),
            _ => Err(crate::error::internal("not a terminator")),
        }
    }

    /// Records that the SPIR-V block whose terminator is at `offset` ends in virtual block
    /// `vb` (phis name that block as the predecessor).
    fn record_block_end(&mut self, offset: u32, vb: u32) -> Result<()> {
        let label = self.current_label(offset)?;
        if let Some(s) = self.label_end.get_mut(label as usize) {
            *s = vb;
        }
        Ok(())
    }

    fn current_label(&self, terminator_offset: u32) -> Result<u32> {
        // The active function's block containing this terminator.
        let fid = *self
            .active
            .last()
            .ok_or_else(|| crate::error::internal("no function"))?;
        let f = self
            .spv
            .function(fid)
            .ok_or_else(|| crate::error::internal("no function"))?;
        let i = f.blocks.partition_point(|b| b.end <= terminator_offset);
        f.blocks
            .get(i)
            .map(|b| b.label)
            .ok_or_else(|| crate::error::internal("terminator outside every block"))
    }

    fn switch(&mut self, inst: &Inst<'_>) -> Result<()> {
        let sel = inst.word(0)?;
        let v = self.scalar(sel)?;
        let s = self.b.scalar_type_of(v)?;
        let default = self.block_of(inst.word(1)?)?;
        let wide = s == Scalar::I64;
        let step = if wide { 3 } else { 2 };
        let rest = inst.rest(2);
        if !rest.len().is_multiple_of(step) {
            return Err(malformed("OpSwitch targets are not (literal, label) pairs"));
        }
        let mut cases = Vec::with_capacity(rest.len() / step);
        for c in rest.chunks_exact(step) {
            let lit = if wide {
                (u64::from(c[0]) | (u64::from(c[1]) << 32)) as i64
            } else {
                i64::from(c[0] as i32)
            };
            let k = self.b.const_int(s, lit);
            let t = self.block_of(c[step - 1])?;
            cases.push((k, t));
        }
        self.b.switch(v, default, &cases)
    }

    /// The first block of `@main`: local storage, handles, specialization constants.
    fn prologue(&mut self) -> Result<()> {
        self.create_function_locals()?;
        self.create_handles()?;
        consts::SpecState::emit(self)?;
        self.io_prologue()
    }

    /// `dx.op.discard`.
    pub fn discard(&mut self, cond: Value) -> Result<()> {
        self.uses_discard = true;
        let void = self.b.t.void;
        self.b
            .dxop(dxil_shader::ops::OpCode::Discard, None, void, &[cond])?;
        Ok(())
    }

    // ------------------------------------------------------------------ instructions

    fn instruction(&mut self, inst: &Inst<'_>, op: Op) -> Result<()> {
        match op {
            Op::Nop | Op::Line | Op::NoLine | Op::SelectionMerge | Op::LoopMerge => Ok(()),
            Op::Variable => self.function_variable(inst),
            Op::Load => self.load(inst),
            Op::Store => self.store(inst),
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(inst),
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain => Err(inexpressible_ptr()),
            Op::CopyMemory => self.copy_memory(inst),
            Op::ArrayLength => self.array_length(inst),
            Op::ControlBarrier | Op::MemoryBarrier => self.barrier(inst, op),
            Op::ExtInst => self.ext_inst(inst),
            Op::ImageWrite => self.image_op(inst, op),
            Op::DemoteToHelperInvocation => self.helper_op(inst, op),
            Op::EmitVertex | Op::EndPrimitive | Op::EmitStreamVertex | Op::EndStreamPrimitive => {
                self.geometry_op(inst, op)
            }
            Op::BeginInvocationInterlockEXT | Op::EndInvocationInterlockEXT => self.interlock(op),
            Op::SetMeshOutputsEXT => self.set_mesh_outputs(inst),
            _ if atomic::is_atomic(op) => self.atomic(inst, op),
            _ if rayquery::is_ray_query(op) => self.ray_query(inst, op),
            _ => self.value_op(inst, op),
        }
    }

    fn ext_inst(&mut self, inst: &Inst<'_>) -> Result<()> {
        let set = inst.word(2)?;
        if Some(set) == self.spv.glsl_std {
            return self.glsl(inst);
        }
        if self.spv.is_non_semantic(set) {
            return Ok(());
        }
        Err(unsupported(
            "extended instruction set other than GLSL.std.450",
        ))
    }
}

fn inexpressible_ptr() -> Error {
    crate::error::inexpressible(
        "pointer arithmetic (OpPtrAccessChain): DXIL has no pointers into buffers",
    )
}

/// Whether the options keep specialization constants patchable.
pub fn patchable(opts: &Options) -> bool {
    opts.spec_constants == SpecMode::Patchable
}
