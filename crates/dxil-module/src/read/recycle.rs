//! Storage of dropped modules, kept per thread for the next [`read_module`](super::read_module).
//!
//! A caller that reads, translates and drops module after module (a D3D12 layer compiling
//! shaders on its worker threads) would otherwise allocate, regrow and free the same storage for
//! every module: the large arenas (instructions, operand pools, constants, metadata, types) and
//! the many small per-item ones (function, global and struct names, struct element and parameter
//! lists, attribute groups and lists). A module handed to [`recycle`] is taken apart: its arenas
//! are emptied keeping their allocations, its small vectors and strings are emptied into spare
//! lists, and the next module read on the thread is built from them. Only storage carries over,
//! never contents (see the tests: a module read after a recycled one is the same as one read
//! afresh).

use std::cell::RefCell;
use std::mem::size_of;

use crate::entity::TypeId;
use crate::module::{Attribute, Body, LocalName, Module};
use crate::types::TypeData;

/// Arenas above this many bytes are freed, not kept: one large module must not pin its memory
/// for the rest of the thread's life.
const KEEP_BYTES: usize = 1 << 18;

/// Spare small vectors and strings kept of each kind; larger ones than [`SPARE_BYTES`] are freed.
const SPARES: usize = 256;
const SPARE_BYTES: usize = 512;

/// Function bodies kept (DXIL modules define one function, libraries a few).
const BODIES: usize = 4;

/// Emptied storage that the reader hands out instead of allocating.
#[derive(Default)]
pub(super) struct Spares {
    type_lists: Vec<Vec<TypeId>>,
    strings: Vec<String>,
    attrs: Vec<Vec<Attribute>>,
    attr_lists: Vec<Vec<u32>>,
    bodies: Vec<Body>,
}

#[derive(Default)]
struct Stash {
    module: Option<Module>,
    spares: Spares,
}

thread_local! {
    static STASH: RefCell<Stash> = RefCell::new(Stash::default());
}

/// Empties a vector, keeping its allocation unless it is large.
pub(crate) fn reset<T>(v: &mut Vec<T>) {
    v.clear();
    if v.capacity().saturating_mul(size_of::<T>().max(1)) > KEEP_BYTES {
        *v = Vec::new();
    }
}

/// Keeps an emptied small vector in `spares` if there is room and it is small.
fn keep<T>(spares: &mut Vec<Vec<T>>, mut v: Vec<T>) {
    let bytes = v.capacity().saturating_mul(size_of::<T>().max(1));
    if spares.len() < SPARES && v.capacity() != 0 && bytes <= SPARE_BYTES {
        v.clear();
        spares.push(v);
    }
}

impl Spares {
    fn keep_string(&mut self, s: String) {
        if self.strings.len() < SPARES && s.capacity() != 0 && s.capacity() <= SPARE_BYTES {
            let mut s = s;
            s.clear();
            self.strings.push(s);
        }
    }

    fn keep_type_list(&mut self, v: Vec<TypeId>) {
        keep(&mut self.type_lists, v);
    }

    /// An empty list with room for `n` type ids.
    pub(super) fn type_list(&mut self, n: usize) -> Vec<TypeId> {
        let mut v = self.type_lists.pop().unwrap_or_default();
        v.reserve_exact(n);
        v
    }

    /// The characters of a record (one per operand) as a string; invalid UTF-8 is replaced.
    pub(super) fn string(&mut self, chars: &[u64]) -> String {
        let mut bytes = self.strings.pop().unwrap_or_default().into_bytes();
        bytes.extend(chars.iter().map(|&c| c as u8));
        match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }

    /// An empty attribute list with room for `n` attributes.
    pub(super) fn attrs(&mut self, n: usize) -> Vec<Attribute> {
        let mut v = self.attrs.pop().unwrap_or_default();
        v.reserve_exact(n);
        v
    }

    /// An empty group id list with room for `n` ids.
    pub(super) fn attr_list(&mut self, n: usize) -> Vec<u32> {
        let mut v = self.attr_lists.pop().unwrap_or_default();
        v.reserve_exact(n);
        v
    }

    /// An empty function body.
    pub(super) fn body(&mut self) -> Body {
        self.bodies.pop().unwrap_or_default()
    }

    fn keep_body(&mut self, mut b: Body) {
        if self.bodies.len() == BODIES {
            return;
        }
        for n in b.names.drain(..) {
            match n {
                LocalName::Arg(_, s) | LocalName::Inst(_, s) | LocalName::Block(_, s) => {
                    self.keep_string(s)
                }
            }
        }
        let Body {
            blocks,
            insts,
            pool,
            names,
            attachments,
            fn_attachments,
            debug_locs,
        } = &mut b;
        reset(blocks);
        reset(insts);
        reset(pool);
        reset(names);
        reset(attachments);
        reset(fn_attachments);
        reset(debug_locs);
        self.bodies.push(b);
    }

    fn keep_attrs(&mut self, mut attrs: Vec<Attribute>) {
        for a in attrs.drain(..) {
            match a {
                Attribute::Str(s) => self.keep_string(s),
                Attribute::StrValue(k, v) => {
                    self.keep_string(k);
                    self.keep_string(v);
                }
                Attribute::Enum(_) | Attribute::Int(..) => {}
            }
        }
        keep(&mut self.attrs, attrs);
    }

    fn keep_type(&mut self, t: &mut TypeData) {
        match t {
            TypeData::Struct { name, elems, .. } => {
                if let Some(n) = name.take() {
                    self.keep_string(n);
                }
                self.keep_type_list(std::mem::take(elems));
            }
            TypeData::Function { params, .. } => self.keep_type_list(std::mem::take(params)),
            _ => {}
        }
    }
}

/// Hands a module that is no longer needed to this thread's stash, so that the next module read
/// on the thread reuses its storage. Dropping the module instead is always correct; this only
/// saves allocations.
pub fn recycle(mut m: Module) {
    // During thread teardown the stash may be gone: the module is then simply dropped.
    let _ = STASH.try_with(|s| {
        let Ok(mut stash) = s.try_borrow_mut() else {
            return;
        };
        take_apart(&mut m, &mut stash.spares);
        stash.module = Some(m);
    });
}

/// A module to read into and the spare storage to build its items from: the stash's, else new.
pub(super) fn take() -> (Module, Spares) {
    STASH
        .try_with(|s| {
            let mut stash = s.try_borrow_mut().ok()?;
            Some((
                stash.module.take().unwrap_or_default(),
                std::mem::take(&mut stash.spares),
            ))
        })
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Gives back the spare storage a read did not use.
pub(super) fn put_back(spares: Spares) {
    let _ = STASH.try_with(|s| {
        if let Ok(mut stash) = s.try_borrow_mut() {
            stash.spares = spares;
        }
    });
}

/// Brings a module back to [`Module::default`]'s contents, its small storage into `spares`. The
/// destructuring names every field, so that a field added to the model cannot be forgotten here.
fn take_apart(m: &mut Module, spares: &mut Spares) {
    let Module {
        version,
        triple,
        datalayout,
        section_names,
        gc_names,
        types,
        attr_groups,
        attr_lists,
        globals,
        functions,
        constants,
        metadata,
    } = m;
    *version = 0;
    *triple = Default::default();
    *datalayout = Default::default();
    for s in section_names.drain(..).chain(gc_names.drain(..)) {
        spares.keep_string(s);
    }
    reset(section_names);
    reset(gc_names);
    types.take_apart(|t| spares.keep_type(t));
    for g in attr_groups.iter_mut() {
        spares.keep_attrs(std::mem::take(&mut g.attrs));
    }
    reset(attr_groups);
    for l in attr_lists.drain(..) {
        keep(&mut spares.attr_lists, l);
    }
    reset(attr_lists);
    // In place: moving each (large) record out would copy it.
    for g in globals.iter_mut() {
        spares.keep_string(std::mem::take(&mut g.name));
    }
    reset(globals);
    for f in functions.iter_mut() {
        spares.keep_string(std::mem::take(&mut f.name));
        if let Some(b) = f.body.take() {
            spares.keep_body(b);
        }
    }
    reset(functions);
    constants.clear_keeping_storage();
    let crate::metadata::Metadata {
        items,
        bytes,
        operands,
        raw,
        named,
        named_ops,
        kinds,
    } = metadata;
    reset(items);
    reset(bytes);
    reset(operands);
    reset(raw);
    reset(named);
    reset(named_ops);
    reset(kinds);
}
