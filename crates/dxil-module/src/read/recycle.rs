//! Storage of dropped modules, kept per thread for the next [`read_module`](super::read_module).
//!
//! A caller that reads, translates and drops module after module (a D3D12 layer compiling
//! shaders on its worker threads) would otherwise allocate, regrow and free the same large
//! arenas (instructions, operand pools, constants, metadata, types) for every module. A module
//! handed to [`recycle`] is emptied, keeping the allocations of its arenas, and the next module
//! read on the thread starts from them. Only storage carries over, never contents: the emptied
//! module is equal to [`Module::default`] but for capacities (see the tests).

use std::cell::Cell;
use std::mem::size_of;

use crate::module::{Body, Module};

/// Arenas above this many bytes are freed, not kept: one large module must not pin its memory
/// for the rest of the thread's life.
const KEEP_BYTES: usize = 1 << 18;

/// Function bodies kept (DXIL modules define one function, libraries a few).
const KEEP_BODIES: usize = 4;

#[derive(Default)]
struct Stash {
    module: Option<Module>,
    bodies: Vec<Body>,
}

thread_local! {
    static STASH: Cell<Stash> = Cell::new(Stash::default());
}

/// Empties a vector, keeping its allocation unless it is large.
pub(crate) fn reset<T>(v: &mut Vec<T>) {
    v.clear();
    if v.capacity().saturating_mul(size_of::<T>().max(1)) > KEEP_BYTES {
        *v = Vec::new();
    }
}

/// Hands a module that is no longer needed to this thread's stash, so that the next module read
/// on the thread reuses its storage. Dropping the module instead is always correct; this only
/// saves allocations.
pub fn recycle(mut m: Module) {
    let mut bodies = Vec::new();
    for f in &mut m.functions {
        if bodies.len() == KEEP_BODIES {
            break;
        }
        if let Some(mut b) = f.body.take() {
            clear_body(&mut b);
            bodies.push(b);
        }
    }
    clear_module(&mut m);
    let stash = Stash {
        module: Some(m),
        bodies,
    };
    // During thread teardown the stash may be gone: the module is then simply dropped.
    let _ = STASH.try_with(|s| s.set(stash));
}

/// A module to read into: the stash's, else a new one.
pub(super) fn take_module() -> Module {
    STASH
        .try_with(|s| {
            let mut st = s.take();
            let m = st.module.take();
            s.set(st);
            m
        })
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// A body to read a function into: the stash's, else a new one.
pub(super) fn take_body() -> Body {
    STASH
        .try_with(|s| {
            let mut st = s.take();
            let b = st.bodies.pop();
            s.set(st);
            b
        })
        .ok()
        .flatten()
        .unwrap_or_default()
}

fn clear_body(b: &mut Body) {
    let Body {
        blocks,
        insts,
        pool,
        names,
        attachments,
        fn_attachments,
        debug_locs,
    } = b;
    reset(blocks);
    reset(insts);
    reset(pool);
    reset(names);
    reset(attachments);
    reset(fn_attachments);
    reset(debug_locs);
}

/// Brings a module back to [`Module::default`]'s contents. The destructuring names every field,
/// so that a field added to the model cannot be forgotten here.
fn clear_module(m: &mut Module) {
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
    reset(section_names);
    reset(gc_names);
    types.clear_keeping_storage();
    reset(attr_groups);
    reset(attr_lists);
    reset(globals);
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
