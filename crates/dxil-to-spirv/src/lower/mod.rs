//! The lowering: DXIL module → SPIR-V module.
//!
//! [`Ctx`] carries the module-wide state (builder, resources, caches) and the state of the function being
//! lowered. The work is split by topic: `func` (virtual blocks, structurization, emission order, phis and
//! demotion), `inst` (LLVM instructions), `types` (types and constants), `res` (resources, handles and the binding
//! model), `library` (library resource variables), `record` (shader-record arguments of local root signatures),
//! `dxop` (dispatch of `dx.op` calls), `buffer`, `math`, `wave`, `texture`, `feedback` (sampler feedback) and
//! `rayquery`; `stage` holds what differs per shader stage (execution model and modes, the interface, stage
//! operations), one file per stage.
//!
//! Module size: the access helpers recompute word offsets, casts and access chains for every access, and drivers
//! pay for each copy in compile time (and the corpus's size against DXC's modules is an acceptance figure). So
//! [`Ctx::value_op`] numbers pure instructions within a block (a second one with the same operands is the first),
//! folds casts of casts, `dce` drops what no instruction reads once a function is emitted, and the builder drops
//! unused scalar constants at the end.

mod buffer;
mod dce;
mod dxop;
mod feedback;
mod func;
mod inst;
mod library;
mod loops;
mod math;
mod range;
mod rawvec;
mod rayquery;
mod record;
mod reroll;
mod res;
mod stage;
#[cfg(test)]
mod tests;
mod texture;
mod types;
mod unrotate;
mod verify;
mod wave;

use std::cell::Cell;

use dxil_module::{FuncId, InstId, Module, Value, ValueRef};
use dxil_shader::ops::OpCode;
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass};

use crate::cfg::{Cfg, Structurizer};
use crate::dxil::{self, DenormMode, EntryInfo, Stage};
use crate::error::{Error, Invalid, Location, Unsupported};
use crate::spv::{self, Builder, Id, words};
use crate::{Options, Translation};

pub(crate) use func::FnState;
pub(crate) use res::{HandleInfo, ResEntry};

/// "No value" marker of the index tables.
pub(crate) const NONE: u32 = u32::MAX;

/// What an LLVM value lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Val {
    #[default]
    None,
    /// An SSA id.
    Id(Id),
    /// A struct value (`dx.types.ResRet`, `{i32, i1}`, ...) kept as its component ids in `Ctx::agg`.
    Agg { start: u32, len: u32 },
    /// A resource handle: index into `Ctx::handles`.
    Handle(u32),
    /// A pointer: index into `Ctx::ptrs`.
    Ptr(u32),
    /// A value nothing reads (the `i8*` bitcasts that only feed `llvm.lifetime.*`).
    Ignore,
}

/// Call operands as pooled words; `get` wraps one as a [`Value`] (no per-call allocation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Args<'b>(pub &'b [u32]);

impl Args<'_> {
    #[inline]
    pub fn get(&self, i: usize) -> Option<Value> {
        self.0.get(i).map(|&v| Value(v))
    }
}

/// A global variable's SPIR-V variable and storage class (pointers are resolved at their uses).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PtrInfo {
    pub var: Id,
    pub storage: StorageClass,
}

/// Reusable translation context: keeps every buffer between calls. One `Translator` per thread.
#[derive(Default)]
pub struct Translator {
    // Boxed so that lending them to a translation moves a pointer, not kilobytes of struct.
    b: Option<Box<Builder>>,
    st: Option<Box<Structurizer>>,
    cfg: Option<Box<Cfg>>,
    f: Option<Box<FnState>>,
    spare: Spare,
}

/// Module-level buffers kept between translations.
#[derive(Default)]
struct Spare {
    type_ids: Vec<Option<Id>>,
    const_ids: Vec<Option<Id>>,
    global_vals: Vec<Val>,
    handles: Vec<HandleInfo>,
    ptrs: Vec<PtrInfo>,
    agg: Vec<Option<Id>>,
    res: Vec<ResEntry>,
    builtins: Vec<(BuiltIn, Id)>,
    side_buffers: Vec<(u32, u32, Id)>,
    fname: String,
    io: stage::Interface,
    block_structs: Vec<(Id, bool, Id)>,
    dx_checked: Vec<Cell<u32>>,
    /// A finished translation's SPIR-V buffer handed back ([`Translator::recycle_words`]) for the next output.
    words: Vec<u32>,
    /// A finished translation's lists handed back ([`Translator::recycle`]) for the next one's.
    bindings: Vec<crate::Binding>,
    varyings: Vec<crate::Varying>,
    capabilities: Vec<spirv::Capability>,
    extensions: Vec<&'static str>,
}

impl Translator {
    pub fn new() -> Translator {
        Translator::default()
    }

    /// Takes back the SPIR-V buffer of a translation the caller is done with: the next translation writes its
    /// module into it instead of a new buffer (the C API hands back each converter's output when it is freed).
    /// Buffers over 1 MiB are freed instead.
    pub fn recycle_words(&mut self, mut words: Vec<u32>) {
        if words.capacity() <= 1 << 18 && words.capacity() > self.spare.words.capacity() {
            words.clear();
            self.spare.words = words;
        }
    }

    /// Takes back a translation the caller is done with (its SPIR-V as in [`Translator::recycle_words`]): the next
    /// translation's binding, varying, capability and extension lists are made in its lists rather than new ones.
    pub fn recycle(&mut self, t: Translation) {
        fn keep<T>(spare: &mut Vec<T>, mut v: Vec<T>) {
            if v.capacity() <= 1 << 12 && v.capacity() > spare.capacity() {
                v.clear();
                *spare = v;
            }
        }
        self.recycle_words(t.words);
        keep(&mut self.spare.bindings, t.bindings);
        keep(&mut self.spare.varyings, t.varyings);
        keep(&mut self.spare.capabilities, t.capabilities);
        keep(&mut self.spare.extensions, t.extensions);
    }

    /// Translates `module`'s entry point (see [`crate::translate`]).
    pub fn translate(&mut self, module: &Module, options: &Options) -> Result<Translation, Error> {
        let entry = dxil::read_entry(module, options.entry_point.as_deref())?;
        self.translate_entry(module, entry, options)
    }

    /// Translates the entry point `entry` of `module` ([`dxil::read_entry`] or [`dxil::entry_info`]).
    pub fn translate_entry(
        &mut self,
        module: &Module,
        entry: dxil::EntryInfo,
        options: &Options,
    ) -> Result<Translation, Error> {
        if entry.stage == Stage::Node {
            return Err(Error::StageNeeds {
                stage: entry.stage.name(),
                why: "work graphs have no Vulkan form but the provisional VK_AMDX_shader_enqueue extension",
            });
        }
        if stage::execution_model(entry.stage).is_none() {
            return Err(Error::Stage {
                stage: entry.stage.name(),
            });
        }
        // Taken now: the spare is rebuilt below before the translation's description is made.
        let mut spare_words = std::mem::take(&mut self.spare.words);
        let mut capabilities = std::mem::take(&mut self.spare.capabilities);
        let mut extensions = std::mem::take(&mut self.spare.extensions);
        let mut b = self.b.take().unwrap_or_default();
        b.reset();
        b.names = options.debug_names;
        let mut cx = Ctx {
            m: module,
            opts: options,
            entry,
            b,
            st: Some(self.st.take().unwrap_or_default()),
            cfg: Some(self.cfg.take().unwrap_or_default()),
            f: self.f.take().unwrap_or_default(),
            type_ids: std::mem::take(&mut self.spare.type_ids),
            const_ids: std::mem::take(&mut self.spare.const_ids),
            global_vals: std::mem::take(&mut self.spare.global_vals),
            res: std::mem::take(&mut self.spare.res),
            handles: std::mem::take(&mut self.spare.handles),
            ptrs: std::mem::take(&mut self.spare.ptrs),
            agg: std::mem::take(&mut self.spare.agg),
            builtins: std::mem::take(&mut self.spare.builtins),
            io: std::mem::take(&mut self.spare.io).emptied(),
            rt: stage::RayState::default(),
            bindings: std::mem::take(&mut self.spare.bindings),
            varyings: std::mem::take(&mut self.spare.varyings),
            push_block: None,
            block_structs: std::mem::take(&mut self.spare.block_structs),
            side_buffers: std::mem::take(&mut self.spare.side_buffers),
            fname: std::mem::take(&mut self.spare.fname),
            at_block: 0,
            at_inst: 0,
            uses_derivatives: false,
            uses_quads: false,
            native16: module.datalayout.contains("i16:16") || module.datalayout.contains("f16:16"),
            depth: 0,
            dx_checked: std::mem::take(&mut self.spare.dx_checked),
        };
        cx.block_structs.clear();
        cx.bindings.clear();
        cx.varyings.clear();
        cx.dx_checked.clear();
        cx.dx_checked.resize(module.functions.len(), Cell::new(0));
        let result = cx.run();
        // Hand the buffers back whatever happened.
        self.st = cx.st.take();
        self.cfg = cx.cfg.take();
        self.spare = Spare {
            type_ids: std::mem::take(&mut cx.type_ids),
            const_ids: std::mem::take(&mut cx.const_ids),
            global_vals: std::mem::take(&mut cx.global_vals),
            handles: std::mem::take(&mut cx.handles),
            ptrs: std::mem::take(&mut cx.ptrs),
            agg: std::mem::take(&mut cx.agg),
            res: std::mem::take(&mut cx.res),
            builtins: std::mem::take(&mut cx.builtins),
            side_buffers: std::mem::take(&mut cx.side_buffers),
            fname: std::mem::take(&mut cx.fname),
            ..Spare::default()
        };
        let translation = match result {
            Ok(()) => {
                let mut words = std::mem::take(&mut spare_words);
                cx.b.finish(&mut words);
                capabilities.clear();
                capabilities.extend_from_slice(cx.b.capabilities());
                extensions.clear();
                extensions.extend_from_slice(cx.b.extensions());
                Ok(cx.translation(words, capabilities, extensions))
            }
            Err(e) => Err(e),
        };
        self.spare.words = spare_words;
        // Read by the translation's description, so handed back after it.
        self.spare.io = std::mem::take(&mut cx.io);
        self.spare.block_structs = std::mem::take(&mut cx.block_structs);
        self.spare.dx_checked = std::mem::take(&mut cx.dx_checked);
        self.b = Some(cx.b);
        self.f = Some(cx.f);
        translation
    }
}

pub(crate) struct Ctx<'a> {
    pub m: &'a Module,
    pub opts: &'a Options,
    pub entry: EntryInfo,
    pub b: Box<Builder>,
    /// Lent out while a function is structurized (its result borrows it).
    pub st: Option<Box<Structurizer>>,
    pub cfg: Option<Box<Cfg>>,
    pub f: Box<FnState>,
    /// SPIR-V type per LLVM type (`None` = not made yet).
    pub type_ids: Vec<Option<Id>>,
    /// SPIR-V constant per LLVM constant (`None` = not made yet).
    pub const_ids: Vec<Option<Id>>,
    /// Lowered global variables.
    pub global_vals: Vec<Val>,
    pub res: Vec<ResEntry>,
    pub handles: Vec<HandleInfo>,
    pub ptrs: Vec<PtrInfo>,
    /// Component ids of aggregate values (`None`: a component nothing reads, not computed).
    pub agg: Vec<Option<Id>>,
    builtins: Vec<(BuiltIn, Id)>,
    /// The interface of a graphics entry point.
    pub(crate) io: stage::Interface,
    /// Payloads, hit attributes and terminators of ray-tracing stages.
    pub(crate) rt: stage::RayState,
    pub bindings: Vec<crate::Binding>,
    /// User outputs as placed ([`Translation::varyings`]).
    pub varyings: Vec<crate::Varying>,
    /// Root block variable: push constants or the spilled uniform buffer.
    pub push_block: Option<Id>,
    /// Block structs of buffer views, (member type, read-only, struct): views of the same layout share one type,
    /// as DXC's modules do, instead of a struct and its decorations per view.
    pub block_structs: Vec<(Id, bool, Id)>,
    /// Side buffers declared so far (UAV counter address table, offset buffer): (set, binding, variable).
    pub side_buffers: Vec<(u32, u32, Id)>,
    pub fname: String,
    pub at_block: u32,
    pub at_inst: u32,
    pub uses_derivatives: bool,
    /// Quad operations are used: quads follow D3D's compute layout where the group allows it.
    pub uses_quads: bool,
    /// The module uses native 16-bit types (`-enable-16bit-types`). Without them, `half`/`i16` are min-precision
    /// types whose values occupy 32 bits in buffers.
    pub native16: bool,
    /// Recursion depth of type and constant lowering.
    pub depth: u32,
    /// Per function, 1 + the opcode it last passed `check_dx_op` with (0: none yet): each
    /// call is decoded at several places, and a `dx.op` function is nearly always called
    /// with a single opcode, so the name checks run about once per function.
    pub dx_checked: Vec<Cell<u32>>,
}

impl<'a> Ctx<'a> {
    fn run(&mut self) -> Result<(), Error> {
        let m = self.m;
        self.type_ids.clear();
        self.type_ids.resize(m.types.len(), None);
        self.const_ids.clear();
        self.const_ids.resize(m.constants.len(), None);
        self.global_vals.clear();
        self.global_vals.resize(m.globals.len(), Val::None);
        self.handles.clear();
        self.ptrs.clear();
        self.agg.clear();
        self.res.clear();
        self.res.extend(
            self.entry
                .resources
                .iter()
                .map(|d| ResEntry::declared(d.clone())),
        );
        self.builtins.clear();
        self.side_buffers.clear();

        self.b.capability(Capability::Shader);
        let model = stage::execution_model(self.entry.stage).ok_or(Error::Stage {
            stage: self.entry.stage.name(),
        })?;
        self.declare_interface()?;
        let func_id = self.entry.function;
        let main = self.b.id();
        match self.entry.stage {
            Stage::Hull => self.lower_hull(main)?,
            _ => self.lower_function(func_id, main)?,
        }

        // Entry point and execution modes. From SPIR-V 1.4 the interface lists every global the entry point uses;
        // before, only the `Input`/`Output` variables.
        let interface: Vec<Id> = if self.b.version >= 0x0001_0400 {
            std::mem::take(&mut self.b.interface)
        } else {
            let mut v: Vec<Id> = self.builtins.iter().map(|&(_, v)| v).collect();
            v.extend_from_slice(&self.io.vars);
            v
        };
        let interface_words: Vec<u32> = interface.iter().map(|v| v.word()).collect();
        // Taken and put back rather than cloned: both are read while the builder is written.
        if let Some(n) = &self.opts.entry_point_name {
            self.entry.name.clone_from(n);
        }
        let name = std::mem::take(&mut self.entry.name);
        let mut ep = std::mem::take(&mut self.b.entry_points);
        spv::emit_with_string(
            &mut ep,
            Op::EntryPoint,
            &words![model as u32, main],
            &name,
            &interface_words,
        );
        self.b.entry_points = ep;
        self.entry.name = name;
        if self.b.version >= 0x0001_0400 {
            self.b.interface = interface;
        }
        self.entry_modes(main)?;
        if self.opts.denorm_modes
            && let Some(mode) = self.entry.fp32_denorm
        {
            let (cap, em) = match mode {
                DenormMode::Preserve => (Capability::DenormPreserve, ExecutionMode::DenormPreserve),
                DenormMode::FlushToZero => (
                    Capability::DenormFlushToZero,
                    ExecutionMode::DenormFlushToZero,
                ),
            };
            self.b.capability(cap);
            if self.b.version < 0x0001_0400 {
                self.b.extension("SPV_KHR_float_controls");
            }
            spv::emit(
                &mut self.b.exec_modes,
                Op::ExecutionMode,
                &words![main, em as u32, 32],
            );
        }
        self.b.name(main, &self.entry.name);
        Ok(())
    }

    fn translation(
        &mut self,
        words: Vec<u32>,
        capabilities: Vec<spirv::Capability>,
        extensions: Vec<&'static str>,
    ) -> Translation {
        let mut bindings = std::mem::take(&mut self.bindings);
        bindings.sort_by_key(|x| (x.set, x.binding, x.descriptor_type as u32));
        bindings.dedup();
        let v = self.b.version;
        let spirv_version = (((v >> 16) & 0xFF) as u8, ((v >> 8) & 0xFF) as u8);
        let vulkan_version = match spirv_version {
            (1, 0..=3) => (1, 1),
            (1, 4 | 5) => (1, 2),
            _ => (1, 3),
        };
        Translation {
            words,
            entry_point: std::mem::take(&mut self.entry.name),
            stage: self.entry.stage,
            workgroup_size: self.entry.num_threads,
            bindings,
            push_constant_bytes: self.opts.binding.push_constant_bytes(),
            wave_size: self
                .entry
                .wave_size
                .map(|(min, max, preferred)| crate::WaveSize {
                    min,
                    max,
                    preferred,
                }),
            tessellation: self.tessellation(),
            mesh: self.mesh_info(),
            varyings: std::mem::take(&mut self.varyings),
            spirv_version,
            vulkan_version,
            capabilities,
            extensions,
            sample_count_spec_id: match self.opts.requests.rasterizer_sample_count() {
                crate::SampleCount::SpecConstant(id) if self.b.has_spec_u32(id) => Some(id),
                _ => None,
            },
        }
    }

    // -----------------------------------------------------------------------------------------------------------
    // Errors

    pub fn loc(&self) -> Location {
        Location {
            function: self.fname.clone(),
            block: self.at_block,
            inst: self.at_inst,
        }
    }

    pub fn unsupported(&self, what: Unsupported) -> Error {
        Error::Unsupported {
            what,
            at: self.loc(),
        }
    }

    pub fn invalid(&self, what: impl Into<Invalid>) -> Error {
        Error::Invalid {
            what: what.into(),
            at: self.loc(),
        }
    }

    // -----------------------------------------------------------------------------------------------------------
    // Emission helpers (into the current function body)

    #[inline]
    pub fn emit(&mut self, op: Op, args: &[u32]) {
        spv::emit(&mut self.f.body, op, args);
    }

    /// An instruction with a result: reuses the same pure instruction of the current block (value numbering within
    /// a block, see the module docs), else emits it.
    fn value_op(&mut self, op: Op, ty: Id, args: &[u32]) -> Id {
        self.value_op_if(op, ty, args, pure(op))
    }

    /// [`Ctx::value_op`] with the caller's word on whether the instruction is pure.
    fn value_op_if(&mut self, op: Op, ty: Id, args: &[u32], pure: bool) -> Id {
        let mut args = args;
        let folded;
        if op == Op::Bitcast
            && let [a] = *args
        {
            // A cast of a cast: of the first's operand, or nothing where a value has the wanted type already (the
            // 64-bit and float views of raw words cast there and back between a load and a store).
            if self.f.ty_of.get(a as usize) == Some(&ty.word())
                && let Some(same) = Id::from_word(a)
            {
                return same;
            }
            if let Some(&(src, src_ty)) = self.f.cast_src.get(&a) {
                if src_ty == ty.word() {
                    return src;
                }
                if src_ty != 0 {
                    folded = [src.word()];
                    args = &folded;
                }
            }
        }
        let head = ((args.len() as u32 + 3) << 16) | op as u32;
        // One hash and probe for both the lookup and the insertion (value numbering asks for every pure value).
        let id = if args.len() <= 4 && pure {
            let mut k = [0u32; 4];
            k[..args.len()].copy_from_slice(args);
            match self.f.cse.entry((head, ty.word(), k)) {
                std::collections::hash_map::Entry::Occupied(e) => return *e.get(),
                std::collections::hash_map::Entry::Vacant(e) => *e.insert(self.b.id()),
            }
        } else {
            self.b.id()
        };
        let body = &mut self.f.body;
        body.reserve(3 + args.len());
        body.push(head);
        body.push(ty.word());
        body.push(id.word());
        // Operand lists are a few words: a loop beats a `memcpy` call here.
        for &a in args {
            body.push(a);
        }
        let f = &mut self.f;
        let at = id.word() as usize;
        if f.ty_of.len() <= at {
            // Ids grow by one per value: doubling keeps this from resizing for each (0 reads as "no type").
            f.ty_of.resize((at + 1).next_power_of_two(), 0);
        }
        f.ty_of[at] = ty.word();
        if op == Op::Bitcast
            && let [a] = *args
            && let Some(src) = Id::from_word(a)
        {
            let src_ty = f.ty_of.get(a as usize).copied().unwrap_or(0);
            f.cast_src.insert(id.word(), (src, src_ty));
        }
        id
    }

    /// Starts a new block for [`Ctx::value_op`]: values of the previous block need not dominate this one.
    pub fn new_block(&mut self) {
        if !self.f.cse.is_empty() {
            self.f.cse.clear();
        }
    }

    #[inline]
    pub fn op1(&mut self, op: Op, ty: Id, a: Id) -> Id {
        self.value_op(op, ty, &words![a])
    }

    #[inline]
    pub fn op2(&mut self, op: Op, ty: Id, a: Id, b: Id) -> Id {
        self.value_op(op, ty, &words![a, b])
    }

    #[inline]
    pub fn op3(&mut self, op: Op, ty: Id, a: Id, b: Id, c: Id) -> Id {
        self.value_op(op, ty, &words![a, b, c])
    }

    /// An instruction with a result and any operand words (ids and literals: [`words!`]).
    #[inline]
    pub fn opn(&mut self, op: Op, ty: Id, args: &[u32]) -> Id {
        self.value_op(op, ty, args)
    }

    /// An instruction with a result and id operands.
    pub fn op_ids(&mut self, op: Op, ty: Id, args: &[Id]) -> Id {
        if args.len() <= 4 {
            let mut w = [0u32; 4];
            for (w, a) in w.iter_mut().zip(args) {
                *w = a.word();
            }
            return self.value_op(op, ty, &w[..args.len()]);
        }
        let id = self.b.id();
        let body = &mut self.f.body;
        body.push(((args.len() as u32 + 3) << 16) | op as u32);
        body.push(ty.word());
        body.push(id.word());
        spv::push_ids(body, args);
        id
    }

    /// A GLSL.std.450 instruction.
    pub fn glsl(&mut self, ty: Id, inst: spirv::GLOp, args: &[Id]) -> Id {
        let set = self.b.glsl();
        // Every GLSL.std.450 instruction but the two with an output pointer is a pure function of its operands.
        if args.len() <= 2 && !matches!(inst, spirv::GLOp::Modf | spirv::GLOp::Frexp) {
            let mut w = [set.word(), inst as u32, 0, 0];
            for (w, a) in w[2..].iter_mut().zip(args) {
                *w = a.word();
            }
            return self.value_op_if(Op::ExtInst, ty, &w[..2 + args.len()], true);
        }
        let id = self.b.id();
        let body = &mut self.f.body;
        body.push(((args.len() as u32 + 5) << 16) | Op::ExtInst as u32);
        body.push(ty.word());
        body.push(id.word());
        body.push(set.word());
        body.push(inst as u32);
        spv::push_ids(body, args);
        id
    }

    pub fn load(&mut self, ty: Id, ptr: Id) -> Id {
        self.op1(Op::Load, ty, ptr)
    }

    pub fn store(&mut self, ptr: Id, value: Id) {
        self.emit(Op::Store, &words![ptr, value]);
    }

    /// `OpAccessChain` with any number of indices.
    pub fn chain(&mut self, ptr_ty: Id, base: Id, indices: &[Id]) -> Id {
        if indices.len() <= 3 {
            let mut w = [base.word(), 0, 0, 0];
            for (w, a) in w[1..].iter_mut().zip(indices) {
                *w = a.word();
            }
            return self.value_op(Op::AccessChain, ptr_ty, &w[..1 + indices.len()]);
        }
        let id = self.b.id();
        let body = &mut self.f.body;
        body.push(((indices.len() as u32 + 4) << 16) | Op::AccessChain as u32);
        body.push(ptr_ty.word());
        body.push(id.word());
        body.push(base.word());
        spv::push_ids(body, indices);
        id
    }

    pub fn select(&mut self, ty: Id, cond: Id, a: Id, b: Id) -> Id {
        self.op3(Op::Select, ty, cond, a, b)
    }

    /// A `Function` variable in the entry block.
    pub fn local_var(&mut self, pointee: Id) -> Id {
        let pty = self.b.ptr(StorageClass::Function, pointee);
        let id = self.b.id();
        spv::emit(
            &mut self.f.vars,
            Op::Variable,
            &words![pty, id, StorageClass::Function as u32],
        );
        id
    }

    /// The variable of a compute built-in input (`uvec3` or `u32`).
    pub fn builtin(&mut self, bi: BuiltIn) -> Id {
        if let Some(&(_, v)) = self.builtins.iter().find(|&&(b, _)| b == bi) {
            return v;
        }
        let u32t = self.b.u32();
        let ty = match bi {
            BuiltIn::GlobalInvocationId
            | BuiltIn::WorkgroupId
            | BuiltIn::LocalInvocationId
            | BuiltIn::NumWorkgroups => self.b.vec(u32t, 3),
            _ => u32t,
        };
        let pty = self.b.ptr(StorageClass::Input, ty);
        let var = self.b.global_var(pty, StorageClass::Input, None);
        self.b.decorate(var, Decoration::BuiltIn, &[bi as u32]);
        if self.entry.stage == Stage::Pixel {
            // Vulkan wants every integer fragment input flat, built-ins included.
            self.b.decorate(var, Decoration::Flat, &[]);
        }
        if matches!(
            bi,
            BuiltIn::SubgroupSize | BuiltIn::SubgroupLocalInvocationId
        ) {
            self.b.capability(Capability::GroupNonUniform);
        }
        self.builtins.push((bi, var));
        var
    }

    /// Loads component `c` of a vector built-in, or the scalar built-in.
    pub fn load_builtin(&mut self, bi: BuiltIn, c: Option<u32>) -> Id {
        let var = self.builtin(bi);
        let u32t = self.b.u32();
        match c {
            Some(c) => {
                let pty = self.b.ptr(StorageClass::Input, u32t);
                let cid = self.b.const_u32(c);
                let p = self.chain(pty, var, &[cid]);
                self.load(u32t, p)
            }
            None => self.load(u32t, var),
        }
    }

    /// Is `v` an LLVM constant, and which integer?
    pub fn const_int(&self, v: Value) -> Option<i64> {
        self.m.const_int(v)
    }

    /// The opcode of a `dx.op` call: `None` when `callee` is no `dx.op.*` function, an error when its opcode operand
    /// is missing, not a constant or not an operation of dxil-shader's table, or when the call breaks the rules of
    /// `check_dx_op`.
    #[inline]
    pub fn dx_opcode(&self, callee: Value, args: Args<'_>) -> Result<Option<OpCode>, Error> {
        // A callee that passed `check_dx_op` is a `dx.op` function: its memo spares the name comparison, and the
        // check itself where the opcode is the one it passed with (every call of a valid module).
        let memo = callee
            .as_function()
            .and_then(|f| self.dx_checked.get(f.index()))
            .map_or(0, Cell::get);
        if memo == 0 && !self.is_dx_op(callee) {
            return Ok(None);
        }
        let op = self.dx_opcode_of(args)?;
        if memo != op.as_u32() + 1 {
            self.check_dx_op(callee, op)?;
        }
        Ok(Some(op))
    }

    /// Is `callee` a `dx.op.*` function?
    #[inline]
    pub fn is_dx_op(&self, callee: Value) -> bool {
        callee
            .as_function()
            .and_then(|f| self.m.function(f))
            .is_some_and(|f| f.name.starts_with("dx.op."))
    }

    /// The opcode operand of a `dx.op` call.
    #[inline]
    pub fn dx_opcode_of(&self, args: Args<'_>) -> Result<OpCode, Error> {
        let raw = args.get(0).and_then(|v| self.const_int(v));
        match raw
            .and_then(|r| u32::try_from(r).ok())
            .and_then(OpCode::from_u32)
        {
            Some(op) => Ok(op),
            None => Err(self.bad_opcode(raw)),
        }
    }

    #[cold]
    fn bad_opcode(&self, raw: Option<i64>) -> Error {
        match raw {
            Some(opcode) => Error::UnknownOpcode {
                opcode,
                at: self.loc(),
            },
            None => self.invalid(Invalid::operand("dx.op call without a constant opcode")),
        }
    }

    pub fn callee_name(&self, callee: Value) -> &'a str {
        match callee.get() {
            ValueRef::Function(f) => self.m.function(f).map_or("?", |f| f.name.as_str()),
            _ => "?",
        }
    }

    pub fn func_of(&self, f: FuncId) -> Option<&'a dxil_module::Function> {
        self.m.function(f)
    }

    pub fn inst_data(&self, i: InstId) -> Option<&'a dxil_module::InstData> {
        let f = self.m.function(self.entry.function)?;
        f.body.as_ref()?.inst(i)
    }
}

/// Instructions whose result depends only on their operands (no memory, no other lanes, no side effects), so two
/// of them with the same operands in one block compute the same value.
pub(super) fn pure(op: Op) -> bool {
    pure_opcode(op as u32)
}

/// [`pure`] of an opcode word's low half, by table: dead code removal asks it of every instruction.
pub(super) fn pure_opcode(op: u32) -> bool {
    PURE.get(op as usize).copied().unwrap_or(false)
}

const PURE: [bool; 256] = {
    let ops = [
        Op::IAdd,
        Op::ISub,
        Op::IMul,
        Op::UDiv,
        Op::SDiv,
        Op::UMod,
        Op::SRem,
        Op::SMod,
        Op::SNegate,
        Op::ShiftLeftLogical,
        Op::ShiftRightLogical,
        Op::ShiftRightArithmetic,
        Op::BitwiseAnd,
        Op::BitwiseOr,
        Op::BitwiseXor,
        Op::Not,
        Op::BitFieldInsert,
        Op::BitFieldSExtract,
        Op::BitFieldUExtract,
        Op::BitReverse,
        Op::BitCount,
        Op::FAdd,
        Op::FSub,
        Op::FMul,
        Op::FDiv,
        Op::FRem,
        Op::FMod,
        Op::FNegate,
        Op::Dot,
        Op::VectorTimesScalar,
        Op::Bitcast,
        Op::ConvertFToU,
        Op::ConvertFToS,
        Op::ConvertSToF,
        Op::ConvertUToF,
        Op::UConvert,
        Op::SConvert,
        Op::FConvert,
        Op::QuantizeToF16,
        Op::CompositeConstruct,
        Op::CompositeExtract,
        Op::CompositeInsert,
        Op::VectorShuffle,
        Op::VectorExtractDynamic,
        Op::VectorInsertDynamic,
        Op::AccessChain,
        Op::InBoundsAccessChain,
        Op::ArrayLength,
        Op::Select,
        Op::IEqual,
        Op::INotEqual,
        Op::UGreaterThan,
        Op::UGreaterThanEqual,
        Op::ULessThan,
        Op::ULessThanEqual,
        Op::SGreaterThan,
        Op::SGreaterThanEqual,
        Op::SLessThan,
        Op::SLessThanEqual,
        Op::FOrdEqual,
        Op::FOrdNotEqual,
        Op::FOrdLessThan,
        Op::FOrdLessThanEqual,
        Op::FOrdGreaterThan,
        Op::FOrdGreaterThanEqual,
        Op::FUnordEqual,
        Op::FUnordNotEqual,
        Op::FUnordLessThan,
        Op::FUnordLessThanEqual,
        Op::FUnordGreaterThan,
        Op::FUnordGreaterThanEqual,
        Op::IsNan,
        Op::IsInf,
        Op::LogicalAnd,
        Op::LogicalOr,
        Op::LogicalNot,
        Op::LogicalEqual,
        Op::LogicalNotEqual,
    ];
    let mut t = [false; 256];
    let mut i = 0;
    while i < ops.len() {
        t[ops[i] as usize] = true;
        i += 1;
    }
    t
};
