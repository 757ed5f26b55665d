//! A small SPIR-V module emitter: words, ids, logical sections, interned types and constants.
//!
//! Instructions are written straight into per-section `Vec<u32>`s (no instruction objects), so emitting one
//! costs a bounds check and a few word pushes. Types and scalar constants are interned through hash maps keyed by
//! small `Copy` keys; nothing here allocates per instruction beyond the growth of the section buffers.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::BuildHasher;
use std::num::NonZeroU32;

use spirv::{Capability, Decoration, Op, StorageClass};

/// The SPIR-V magic number.
pub const MAGIC: u32 = 0x0723_0203;
/// Generator word: tool id 0 ("unregistered") with our version 1.
pub const GENERATOR: u32 = 0x0000_0001;

/// A SPIR-V result id. Ids start at 1, so "no id" is `Option<Id>` (no bigger than the id itself), never 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(transparent)]
pub struct Id(NonZeroU32);

impl Id {
    /// The id as an instruction word.
    #[inline]
    pub const fn word(self) -> u32 {
        self.0.get()
    }

    /// The id an instruction word names, `None` for 0.
    #[inline]
    pub fn from_word(w: u32) -> Option<Id> {
        NonZeroU32::new(w).map(Id)
    }
}

impl From<Id> for u32 {
    #[inline]
    fn from(id: Id) -> u32 {
        id.word()
    }
}

/// An operand word: a literal (`u32`) or an id. Lets one operand list mix both ([`words!`]).
pub trait Word: Copy {
    fn word(self) -> u32;
}

impl Word for u32 {
    #[inline]
    fn word(self) -> u32 {
        self
    }
}

impl Word for Id {
    #[inline]
    fn word(self) -> u32 {
        Id::word(self)
    }
}

/// The words of a list of operands that mixes ids and literals: `&words![ty, id, 0]`.
macro_rules! words {
    ($x:expr; $n:expr) => {
        [$crate::spv::Word::word($x); $n]
    };
    ($($x:expr),* $(,)?) => {
        [$($crate::spv::Word::word($x)),*]
    };
}
pub(crate) use words;

/// `[f(0), …, f(N - 1)]`, or the first error.
pub fn try_ids<const N: usize, E>(mut f: impl FnMut(usize) -> Result<Id, E>) -> Result<[Id; N], E> {
    let mut err = None;
    let out = std::array::from_fn(|k| {
        if err.is_none() {
            match f(k) {
                Ok(id) => return id,
                Err(e) => err = Some(e),
            }
        }
        // Never seen: the array is dropped when an error stopped the calls.
        Id(NonZeroU32::MAX)
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Appends the words of `ids`.
#[inline]
pub fn push_ids(buf: &mut Vec<u32>, ids: &[Id]) {
    buf.extend(ids.iter().map(|i| i.word()));
}

/// Hash map of the interning tables: FxHash (`rustc-hash`), as keys are small integers and ids.
pub type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Empties a map in time proportional to its contents, not its capacity: clearing a hash table rewrites all of
/// its control bytes, and one huge shader must not slow down every later small one.
pub fn clear_map<K: Eq + std::hash::Hash, V, S: BuildHasher>(m: &mut HashMap<K, V, S>) {
    if !m.is_empty() {
        m.clear();
    }
    if m.capacity() > 1 << 12 {
        m.shrink_to(1 << 8);
    }
}

/// Interning key of a type. Structs are never interned (each block struct carries its own decorations).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TypeKey {
    Void,
    Bool,
    /// Unsigned integer of the given width: the translator keeps every integer unsigned and picks signed
    /// operations explicitly.
    Int(u8),
    /// Signed integer (only for image sampled types, where Vulkan wants the signedness of the format).
    SInt(u8),
    Float(u8),
    Vector(Id, u32),
    /// `OpTypeMatrix` of `n` columns.
    Matrix(Id, u32),
    /// `OpTypeArray` without layout decorations (Function, Private, Workgroup storage).
    Array(Id, u32),
    /// `OpTypeArray` / `OpTypeRuntimeArray` (len 0) with an `ArrayStride` decoration (buffer blocks).
    LaidOutArray {
        elem: Id,
        len: u32,
        stride: u32,
    },
    /// `OpTypeRuntimeArray` of descriptors (no stride).
    DescriptorRuntimeArray(Id),
    /// Storage class, pointee.
    Pointer(u32, Id),
    /// `void()` — the only function type the translator makes.
    VoidFn,
    Image {
        sampled: Id,
        dim: u32,
        depth: u8,
        arrayed: bool,
        ms: bool,
        sampled_kind: u8,
        format: u32,
    },
    Sampler,
    SampledImage(Id),
    AccelerationStructure,
    RayQuery,
}

/// Index of a scalar type in `Builder::scalars`.
#[inline]
fn scalar_slot(key: TypeKey) -> Option<usize> {
    Some(match key {
        TypeKey::Void => 0,
        TypeKey::Bool => 1,
        TypeKey::Int(8) => 2,
        TypeKey::Int(16) => 3,
        TypeKey::Int(32) => 4,
        TypeKey::Int(64) => 5,
        TypeKey::SInt(32) => 6,
        TypeKey::SInt(64) => 7,
        TypeKey::Float(16) => 8,
        TypeKey::Float(32) => 9,
        TypeKey::Float(64) => 10,
        _ => return None,
    })
}

/// The module under construction.
pub struct Builder {
    next_id: NonZeroU32,
    pub version: u32,
    capabilities: Vec<Capability>,
    extensions: Vec<&'static str>,
    glsl: Option<Id>,
    pub entry_points: Vec<u32>,
    pub exec_modes: Vec<u32>,
    pub debug: Vec<u32>,
    pub annotations: Vec<u32>,
    /// Types, constants and global variables, in dependency order.
    pub globals: Vec<u32>,
    /// Use marks of [`Builder::emit_used_globals`], kept between translations.
    const_used: Vec<bool>,
    pub functions: Vec<u32>,
    types: FxMap<TypeKey, Id>,
    scalar_consts: FxMap<(Id, u64), Id>,
    null_consts: FxMap<Id, Id>,
    composite_consts: FxMap<(Id, Vec<Id>), Id>,
    /// `u32` specialization constants: (SpecId, id).
    spec_u32: Vec<(u32, Id)>,
    /// Global variables (for the entry point's interface list from SPIR-V 1.4 on).
    pub interface: Vec<Id>,
    /// Ids of the scalar types, which every instruction asks for: void, bool, u8..u64, s32, s64, f16..f64.
    scalars: [Option<Id>; 11],
    /// `u32` constants 0..256.
    small_u32: [Option<Id>; 256],
    /// Direct-mapped cache of pointer types, (storage class, pointee, id) by a hash of the first two: every access
    /// chain asks for one, and a compare here is several times cheaper than a hash-map probe.
    ptr_cache: [Option<(u32, Id, Id)>; PTR_CACHE],
    /// Emit `OpName`s.
    pub names: bool,
    /// `PhysicalStorageBuffer64` addressing (buffer device addresses) instead of `Logical`.
    pub physical_addressing: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            next_id: NonZeroU32::MIN,
            version: 0x0001_0300,
            capabilities: Vec::new(),
            extensions: Vec::new(),
            glsl: None,
            entry_points: Vec::new(),
            exec_modes: Vec::new(),
            debug: Vec::new(),
            annotations: Vec::new(),
            globals: Vec::new(),
            const_used: Vec::new(),
            functions: Vec::new(),
            types: FxMap::default(),
            scalar_consts: FxMap::default(),
            null_consts: FxMap::default(),
            composite_consts: FxMap::default(),
            spec_u32: Vec::new(),
            interface: Vec::new(),
            names: false,
            physical_addressing: false,
            scalars: [None; 11],
            small_u32: [None; 256],
            ptr_cache: [None; PTR_CACHE],
        }
    }
}

/// Slots of `Builder::ptr_cache` (a power of two).
const PTR_CACHE: usize = 64;

/// Appends one instruction to `buf`.
#[inline]
pub fn emit(buf: &mut Vec<u32>, op: Op, args: &[u32]) {
    buf.push(((args.len() as u32 + 1) << 16) | op as u32);
    buf.extend_from_slice(args);
}

/// Appends a nul-terminated, word-padded string operand.
pub fn push_string(buf: &mut Vec<u32>, s: &str) {
    let bytes = s.as_bytes();
    if !bytes.contains(&0) {
        // The usual case, four bytes at a time (every extension and entry point name goes through here).
        let mut chunks = bytes.chunks_exact(4);
        for c in &mut chunks {
            buf.push(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        let mut last = [0u8; 4];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        buf.push(u32::from_le_bytes(last));
        return;
    }
    let mut word = 0u32;
    let mut i = 0;
    for &b in bytes {
        // SPIR-V strings are nul-terminated: an embedded nul would end the name early, so drop it.
        if b == 0 {
            continue;
        }
        word |= (b as u32) << (8 * (i % 4));
        i += 1;
        if i % 4 == 0 {
            buf.push(word);
            word = 0;
        }
    }
    buf.push(word);
}

/// Emits an instruction whose operands end with a string (the word count is patched afterwards).
pub fn emit_with_string(buf: &mut Vec<u32>, op: Op, pre: &[u32], s: &str, post: &[u32]) {
    let at = buf.len();
    buf.push(0);
    buf.extend_from_slice(pre);
    push_string(buf, s);
    buf.extend_from_slice(post);
    let len = (buf.len() - at) as u32;
    if let Some(w) = buf.get_mut(at) {
        *w = (len << 16) | op as u32;
    }
}

impl Builder {
    #[cfg(test)]
    pub fn new() -> Builder {
        let mut b = Builder::default();
        b.reset();
        b
    }

    /// Forget the module, keeping allocations.
    pub fn reset(&mut self) {
        self.next_id = NonZeroU32::MIN;
        self.version = 0x0001_0300;
        self.capabilities.clear();
        self.extensions.clear();
        self.glsl = None;
        self.entry_points.clear();
        self.exec_modes.clear();
        self.debug.clear();
        self.annotations.clear();
        self.globals.clear();
        self.functions.clear();
        clear_map(&mut self.types);
        clear_map(&mut self.scalar_consts);
        clear_map(&mut self.null_consts);
        clear_map(&mut self.composite_consts);
        self.spec_u32.clear();
        self.interface.clear();
        self.physical_addressing = false;
        self.scalars = [None; 11];
        self.small_u32 = [None; 256];
        self.spec_u32.clear();
        self.ptr_cache = [None; PTR_CACHE];
    }

    #[inline]
    pub fn id(&mut self) -> Id {
        let id = Id(self.next_id);
        self.next_id = self.next_id.saturating_add(1);
        id
    }

    pub fn capability(&mut self, cap: Capability) {
        if !self.capabilities.contains(&cap) {
            self.capabilities.push(cap);
        }
    }

    pub fn capabilities(&self) -> &[Capability] {
        &self.capabilities
    }

    pub fn extension(&mut self, name: &'static str) {
        if !self.extensions.contains(&name) {
            self.extensions.push(name);
        }
    }

    pub fn extensions(&self) -> &[&'static str] {
        &self.extensions
    }

    /// Raise the module's SPIR-V version to at least `v` (0x00MMmm00).
    pub fn require_version(&mut self, v: u32) {
        self.version = self.version.max(v);
    }

    /// The GLSL.std.450 extended instruction set id.
    pub fn glsl(&mut self) -> Id {
        match self.glsl {
            Some(id) => id,
            None => {
                let id = self.id();
                self.glsl = Some(id);
                id
            }
        }
    }

    /// One past the largest id handed out so far.
    pub fn id_bound(&self) -> u32 {
        self.next_id.get()
    }

    /// The GLSL.std.450 import, if an instruction asked for it.
    pub fn glsl_import(&self) -> Option<Id> {
        self.glsl
    }

    pub fn decorate(&mut self, target: Id, d: Decoration, args: &[u32]) {
        let buf = &mut self.annotations;
        buf.push(((args.len() as u32 + 3) << 16) | Op::Decorate as u32);
        buf.push(target.word());
        buf.push(d as u32);
        buf.extend_from_slice(args);
    }

    pub fn member_decorate(&mut self, target: Id, member: u32, d: Decoration, args: &[u32]) {
        let buf = &mut self.annotations;
        buf.push(((args.len() as u32 + 4) << 16) | Op::MemberDecorate as u32);
        buf.push(target.word());
        buf.push(member);
        buf.push(d as u32);
        buf.extend_from_slice(args);
    }

    pub fn name(&mut self, target: Id, name: &str) {
        if self.names && !name.is_empty() {
            emit_with_string(&mut self.debug, Op::Name, &[target.word()], name, &[]);
        }
    }

    // -----------------------------------------------------------------------------------------------------------
    // Types

    pub fn ty(&mut self, key: TypeKey) -> Id {
        let slot = scalar_slot(key);
        if let Some(i) = slot
            && let Some(&Some(id)) = self.scalars.get(i)
        {
            return id;
        }
        let id = self.ty_slow(key);
        if let Some(i) = slot
            && let Some(s) = self.scalars.get_mut(i)
        {
            *s = Some(id);
        }
        id
    }

    fn ty_slow(&mut self, key: TypeKey) -> Id {
        // One hash and probe for both the lookup and the insertion. The id is recorded before the instruction is
        // written: making a type never asks for itself.
        let fresh = Id(self.next_id);
        let id = match self.types.entry(key) {
            Entry::Occupied(e) => return *e.get(),
            Entry::Vacant(e) => {
                self.next_id = self.next_id.saturating_add(1);
                *e.insert(fresh)
            }
        };
        let g = &mut self.globals;
        match key {
            TypeKey::Void => emit(g, Op::TypeVoid, &words![id]),
            TypeKey::Bool => emit(g, Op::TypeBool, &words![id]),
            TypeKey::Int(w) => emit(g, Op::TypeInt, &words![id, w as u32, 0]),
            TypeKey::SInt(w) => emit(g, Op::TypeInt, &words![id, w as u32, 1]),
            TypeKey::Float(w) => emit(g, Op::TypeFloat, &words![id, w as u32]),
            TypeKey::Vector(e, n) => emit(g, Op::TypeVector, &words![id, e, n]),
            TypeKey::Matrix(c, n) => emit(g, Op::TypeMatrix, &words![id, c, n]),
            TypeKey::Array(e, len) => {
                let len_id = self.const_u32(len);
                emit(&mut self.globals, Op::TypeArray, &words![id, e, len_id]);
            }
            TypeKey::LaidOutArray { elem, len, stride } => {
                if len == 0 {
                    emit(g, Op::TypeRuntimeArray, &words![id, elem]);
                } else {
                    let len_id = self.const_u32(len);
                    emit(&mut self.globals, Op::TypeArray, &words![id, elem, len_id]);
                }
                self.decorate(id, Decoration::ArrayStride, &[stride]);
            }
            TypeKey::DescriptorRuntimeArray(e) => emit(g, Op::TypeRuntimeArray, &words![id, e]),
            TypeKey::Pointer(sc, p) => emit(g, Op::TypePointer, &words![id, sc, p]),
            TypeKey::VoidFn => {
                let v = self.ty(TypeKey::Void);
                emit(&mut self.globals, Op::TypeFunction, &words![id, v]);
            }
            TypeKey::Image {
                sampled,
                dim,
                depth,
                arrayed,
                ms,
                sampled_kind,
                format,
            } => emit(
                g,
                Op::TypeImage,
                &words![
                    id,
                    sampled,
                    dim,
                    depth as u32,
                    arrayed as u32,
                    ms as u32,
                    sampled_kind as u32,
                    format,
                ],
            ),
            TypeKey::Sampler => emit(g, Op::TypeSampler, &words![id]),
            TypeKey::SampledImage(i) => emit(g, Op::TypeSampledImage, &words![id, i]),
            TypeKey::AccelerationStructure => {
                emit(g, Op::TypeAccelerationStructureKHR, &words![id]);
            }
            TypeKey::RayQuery => emit(g, Op::TypeRayQueryKHR, &words![id]),
        }
        id
    }

    /// The id of an already made type, without making it.
    pub fn lookup(&self, key: TypeKey) -> Option<Id> {
        self.types.get(&key).copied()
    }

    pub fn void(&mut self) -> Id {
        self.ty(TypeKey::Void)
    }
    pub fn bool(&mut self) -> Id {
        self.ty(TypeKey::Bool)
    }
    pub fn u32(&mut self) -> Id {
        self.ty(TypeKey::Int(32))
    }
    pub fn uint(&mut self, bits: u8) -> Id {
        self.ty(TypeKey::Int(bits))
    }
    pub fn f32(&mut self) -> Id {
        self.ty(TypeKey::Float(32))
    }
    pub fn float(&mut self, bits: u8) -> Id {
        self.ty(TypeKey::Float(bits))
    }
    pub fn vec(&mut self, elem: Id, n: u32) -> Id {
        self.ty(TypeKey::Vector(elem, n))
    }
    pub fn ptr(&mut self, sc: StorageClass, pointee: Id) -> Id {
        let sc = sc as u32;
        let slot = (pointee.word().wrapping_mul(8).wrapping_add(sc) as usize) & (PTR_CACHE - 1);
        if let Some((csc, cp, cid)) = self.ptr_cache[slot]
            && csc == sc
            && cp == pointee
        {
            return cid;
        }
        let id = self.ty(TypeKey::Pointer(sc, pointee));
        self.ptr_cache[slot] = Some((sc, pointee, id));
        id
    }

    /// A new struct type (never interned), with optional `Block` and member offsets.
    pub fn struct_type(&mut self, members: &[Id]) -> Id {
        let id = self.id();
        let g = &mut self.globals;
        g.push(((members.len() as u32 + 2) << 16) | Op::TypeStruct as u32);
        g.push(id.word());
        push_ids(g, members);
        id
    }

    // -----------------------------------------------------------------------------------------------------------
    // Constants

    /// A scalar constant of type `ty` with the given bits (`width` decides whether one or two words).
    pub fn const_bits(&mut self, ty: Id, width: u32, bits: u64) -> Id {
        // Narrow types are sign- or zero-extended to a word by the spec; our integers are unsigned, so the high
        // bits must be zero. Normalizing first also keeps the interning key canonical.
        let bits = if width >= 64 {
            bits
        } else {
            bits & ((1u64 << width) - 1)
        };
        let fresh = Id(self.next_id);
        let id = match self.scalar_consts.entry((ty, bits)) {
            Entry::Occupied(e) => return *e.get(),
            Entry::Vacant(e) => {
                self.next_id = self.next_id.saturating_add(1);
                *e.insert(fresh)
            }
        };
        if width > 32 {
            emit(
                &mut self.globals,
                Op::Constant,
                &words![ty, id, bits as u32, (bits >> 32) as u32],
            );
        } else {
            emit(
                &mut self.globals,
                Op::Constant,
                &words![ty, id, bits as u32],
            );
        }
        id
    }

    pub fn const_u32(&mut self, v: u32) -> Id {
        if let Some(&Some(id)) = self.small_u32.get(v as usize) {
            return id;
        }
        let t = self.u32();
        let id = self.const_bits(t, 32, v as u64);
        if let Some(slot) = self.small_u32.get_mut(v as usize) {
            *slot = Some(id);
        }
        id
    }

    /// The `u32` specialization constant `spec_id`, `default` unless the pipeline sets it.
    pub fn spec_u32(&mut self, spec_id: u32, default: u32) -> Id {
        if let Some(&(_, id)) = self.spec_u32.iter().find(|&&(s, _)| s == spec_id) {
            return id;
        }
        let t = self.u32();
        let id = self.id();
        emit(&mut self.globals, Op::SpecConstant, &words![t, id, default]);
        self.decorate(id, Decoration::SpecId, &[spec_id]);
        self.spec_u32.push((spec_id, id));
        id
    }

    /// Whether the module has the specialization constant `spec_id`.
    pub fn has_spec_u32(&self, spec_id: u32) -> bool {
        self.spec_u32.iter().any(|&(s, _)| s == spec_id)
    }

    /// The `u32` constant `v` if the module has it already (creates nothing).
    pub fn find_const_u32(&self, v: u32) -> Option<Id> {
        let t = self.find_type(TypeKey::Int(32))?;
        self.scalar_consts.get(&(t, v as u64)).copied()
    }

    /// The type `key` if the module has it already (creates nothing).
    pub fn find_type(&self, key: TypeKey) -> Option<Id> {
        scalar_slot(key)
            .and_then(|i| self.scalars.get(i).copied().flatten())
            .or_else(|| self.types.get(&key).copied())
    }

    /// Every scalar constant by id: (type id, bits). Built on demand, for the rare peephole that
    /// reads constants' values back.
    pub fn scalar_consts_by_id(&self) -> FxMap<u32, (u32, u64)> {
        self.scalar_consts
            .iter()
            .map(|(&(ty, bits), &id)| (id.word(), (ty.word(), bits)))
            .collect()
    }

    pub fn const_f32(&mut self, v: f32) -> Id {
        let t = self.f32();
        self.const_bits(t, 32, v.to_bits() as u64)
    }

    pub fn const_bool(&mut self, v: bool) -> Id {
        let t = self.bool();
        // Bools are keyed by (type, 0/1) like scalars; OpConstantTrue/False have no value word.
        if let Some(&id) = self.scalar_consts.get(&(t, v as u64)) {
            return id;
        }
        let id = self.id();
        emit(
            &mut self.globals,
            if v {
                Op::ConstantTrue
            } else {
                Op::ConstantFalse
            },
            &words![t, id],
        );
        self.scalar_consts.insert((t, v as u64), id);
        id
    }

    pub fn const_null(&mut self, ty: Id) -> Id {
        if let Some(&id) = self.null_consts.get(&ty) {
            return id;
        }
        let id = self.id();
        emit(&mut self.globals, Op::ConstantNull, &words![ty, id]);
        self.null_consts.insert(ty, id);
        id
    }

    pub fn const_composite(&mut self, ty: Id, parts: &[Id]) -> Id {
        // The key needs an owned vector; composites are rare (initializers, vector constants).
        let key = (ty, parts.to_vec());
        if let Some(&id) = self.composite_consts.get(&key) {
            return id;
        }
        let id = self.id();
        let g = &mut self.globals;
        g.push(((parts.len() as u32 + 3) << 16) | Op::ConstantComposite as u32);
        g.push(ty.word());
        g.push(id.word());
        push_ids(g, parts);
        self.composite_consts.insert(key, id);
        id
    }

    /// A module-scope variable.
    pub fn global_var(&mut self, ptr_ty: Id, sc: StorageClass, init: Option<Id>) -> Id {
        let id = self.id();
        match init {
            Some(i) => emit(
                &mut self.globals,
                Op::Variable,
                &words![ptr_ty, id, sc as u32, i],
            ),
            None => emit(
                &mut self.globals,
                Op::Variable,
                &words![ptr_ty, id, sc as u32],
            ),
        }
        self.interface.push(id);
        id
    }

    /// Assembles the module: header, sections in the order the spec requires.
    pub fn finish(&mut self, out: &mut Vec<u32>) {
        out.clear();
        out.reserve(
            64 + self.entry_points.len()
                + self.exec_modes.len()
                + self.debug.len()
                + self.annotations.len()
                + self.globals.len()
                + self.functions.len(),
        );
        out.extend_from_slice(&[MAGIC, self.version, GENERATOR, self.next_id.get(), 0]);
        for &c in &self.capabilities {
            emit(out, Op::Capability, &[c as u32]);
        }
        for e in &self.extensions {
            emit_with_string(out, Op::Extension, &[], e, &[]);
        }
        if let Some(glsl) = self.glsl {
            emit_with_string(out, Op::ExtInstImport, &[glsl.word()], "GLSL.std.450", &[]);
        }
        emit(
            out,
            Op::MemoryModel,
            &[
                if self.physical_addressing {
                    spirv::AddressingModel::PhysicalStorageBuffer64 as u32
                } else {
                    spirv::AddressingModel::Logical as u32
                },
                spirv::MemoryModel::GLSL450 as u32,
            ],
        );
        out.extend_from_slice(&self.entry_points);
        out.extend_from_slice(&self.exec_modes);
        out.extend_from_slice(&self.debug);
        out.extend_from_slice(&self.annotations);
        self.emit_used_globals(out);
        out.extend_from_slice(&self.functions);
    }

    /// Appends the global section to `out` without the scalar constants that no instruction names. Lowering asks
    /// for constants before it knows whether the code using them survives (value numbering and dead code removal
    /// drop some), and over the corpus the leftovers were about 3% of the module bytes. Every word of every other
    /// instruction counts as a use, literals included, so a literal can only keep a constant, never lose a used
    /// one. The kept words go straight to `out` (the builder's own section stays as it was) and the use marks live
    /// in a buffer kept between translations: a filtered copy of the section and a fresh mark vector per module
    /// were most of this step's cost on small shaders.
    fn emit_used_globals(&mut self, out: &mut Vec<u32>) {
        let bound = self.next_id.get() as usize;
        let used = &mut self.const_used;
        used.clear();
        used.resize(bound, false);
        let mut mark = |words: &[u32]| {
            for &w in words {
                if let Some(u) = used.get_mut(w as usize) {
                    *u = true;
                }
            }
        };
        mark(&self.entry_points);
        mark(&self.exec_modes);
        mark(&self.debug);
        mark(&self.annotations);
        mark(&self.functions);
        let scalar = |op: u32| {
            op == Op::Constant as u32
                || op == Op::ConstantTrue as u32
                || op == Op::ConstantFalse as u32
        };
        let g = &self.globals;
        let mut at = 0;
        let mut any = false;
        while let Some(&w) = g.get(at) {
            let len = (w >> 16) as usize;
            if len == 0 || at + len > g.len() {
                any = false;
                break;
            }
            if scalar(w & 0xFFFF) && len >= 3 {
                any = true;
                mark(&g[at + 1..at + 2]);
                mark(&g[at + 3..at + len]);
            } else {
                mark(&g[at + 1..at + len]);
            }
            at += len;
        }
        if !any {
            out.extend_from_slice(g);
            return;
        }
        let mut at = 0;
        while let Some(&w) = g.get(at) {
            let len = (w >> 16) as usize;
            let keep = !(scalar(w & 0xFFFF) && len >= 3)
                || used.get(g[at + 2] as usize).is_none_or(|&u| u);
            if keep {
                out.extend_from_slice(&g[at..at + len]);
            }
            at += len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_padded() {
        let mut b = Vec::new();
        push_string(&mut b, "main");
        assert_eq!(b, vec![u32::from_le_bytes(*b"main"), 0]);
        b.clear();
        push_string(&mut b, "abc");
        assert_eq!(b, vec![u32::from_le_bytes(*b"abc\0")]);
    }

    #[test]
    fn types_and_constants_are_interned() {
        let mut m = Builder::new();
        let a = m.u32();
        let b = m.ty(TypeKey::Int(32));
        assert_eq!(a, b);
        let c1 = m.const_u32(7);
        let c2 = m.const_u32(7);
        assert_eq!(c1, c2);
        assert_ne!(m.const_u32(8), c1);
        let t = m.const_bool(true);
        assert_ne!(t, m.const_bool(false));
        assert_eq!(t, m.const_bool(true));
        let mut out = Vec::new();
        m.finish(&mut out);
        assert_eq!(out[0], MAGIC);
        assert_eq!(out[3], m.next_id.get());
    }

    #[test]
    fn narrow_constants_have_zero_high_bits() {
        let mut m = Builder::new();
        let t16 = m.uint(16);
        let c = m.const_bits(t16, 16, 0xFFFF_FFFF_FFFF_8000);
        let pos = m
            .globals
            .windows(3)
            .position(|w| w[1] == t16.word() && w[2] == c.word())
            .unwrap();
        assert_eq!(m.globals[pos + 3], 0x8000);
    }
}
