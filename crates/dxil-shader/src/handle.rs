//! Where a `%dx.types.Handle` comes from.
//!
//! DXIL creates handles with `createHandle` (SM 6.0–6.5), `createHandleFromBinding` and
//! `createHandleFromHeap` (6.6+, followed by `annotateHandle`), or `createHandleForLib`
//! (libraries), and passes them through `phi` and `select`. [`HandleResolver::resolve`] walks
//! back from a handle value to every creation it can come from, with the resource record and
//! the `annotateHandle` properties on the way. The walk is iterative and bounded, so a
//! hostile body cannot make it recurse or run long.

use dxil_module::{ConstData, Function, GlobalId, InstId, InstKind, Module, Value, ValueRef};
use serde::Serialize;

use crate::dxop::DxOpCall;
use crate::enums::ResourceClass;
use crate::module::DxilModule;
use crate::ops::OpCode;
use crate::resource::{ResBind, ResourceProperties, ResourceRef, Resources, strip_to_global};

/// Most values one resolution visits before it gives up (and sets `truncated`).
const MAX_STEPS: usize = 4096;

/// The creation of a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleOrigin {
    /// `createHandle(class, rangeId, index, nonUniform)` (opcode 57).
    CreateHandle {
        inst: InstId,
        /// `None` when the class operand is not a constant.
        class: Option<ResourceClass>,
        /// `None` when the range ID operand is not a constant.
        range_id: Option<u32>,
        /// The absolute register index (may be dynamic).
        index: Value,
        non_uniform: bool,
        resource: Option<ResourceRef>,
    },
    /// `createHandleFromBinding(bind, index, nonUniform)` (opcode 217).
    FromBinding {
        inst: InstId,
        /// `None` when the binding operand is not a `%dx.types.ResBind` constant.
        bind: Option<ResBind>,
        index: Value,
        non_uniform: bool,
        resource: Option<ResourceRef>,
    },
    /// `createHandleFromHeap(index, samplerHeap, nonUniform)` (opcode 218).
    FromHeap {
        inst: InstId,
        index: Value,
        /// `None` when the operand is not a constant.
        sampler_heap: Option<bool>,
        non_uniform: bool,
    },
    /// `createHandleForLib(load ptr)` (opcode 160), with the global the pointer is based on.
    ForLib {
        inst: InstId,
        global: Option<GlobalId>,
        /// The array index when the load goes through a `getelementptr` into a resource array.
        array_index: Option<Value>,
        resource: Option<ResourceRef>,
    },
    /// A value the walk cannot see through: a function argument, `undef`, a load, a call of
    /// some other function.
    Opaque(Value),
}

impl HandleOrigin {
    /// The resource record this creation refers to, when there is one.
    pub fn resource(&self) -> Option<ResourceRef> {
        match *self {
            HandleOrigin::CreateHandle { resource, .. }
            | HandleOrigin::FromBinding { resource, .. }
            | HandleOrigin::ForLib { resource, .. } => resource,
            HandleOrigin::FromHeap { .. } | HandleOrigin::Opaque(_) => None,
        }
    }

    /// Whether the creation marks its index non-uniform.
    pub fn is_non_uniform(&self) -> bool {
        match *self {
            HandleOrigin::CreateHandle { non_uniform, .. }
            | HandleOrigin::FromBinding { non_uniform, .. }
            | HandleOrigin::FromHeap { non_uniform, .. } => non_uniform,
            HandleOrigin::ForLib { .. } | HandleOrigin::Opaque(_) => false,
        }
    }
}

/// One thing a handle can be: a creation and, when the path to it passes an `annotateHandle`,
/// the properties of the annotation nearest to the use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleCandidate {
    pub origin: HandleOrigin,
    pub annotation: Option<(InstId, ResourceProperties)>,
}

impl HandleCandidate {
    /// The resource properties: the annotation's, else those of the resource record.
    pub fn properties(&self, dxil: &DxilModule, module: &Module) -> Option<ResourceProperties> {
        if let Some((_, p)) = self.annotation {
            return Some(p);
        }
        let r = self.origin.resource()?;
        Some(dxil.resource(r)?.properties(module))
    }
}

/// What a handle value can be.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandleInfo {
    /// Every creation reached, in discovery order, without duplicates.
    pub candidates: Vec<HandleCandidate>,
    /// The walk stopped at its step limit; the list may be incomplete.
    pub truncated: bool,
}

impl HandleInfo {
    /// The only candidate, when there is exactly one.
    pub fn unique(&self) -> Option<&HandleCandidate> {
        match self.candidates.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The resource record, when every candidate refers to the same one.
    pub fn resource(&self) -> Option<ResourceRef> {
        let first = self.candidates.first()?.origin.resource()?;
        self.candidates
            .iter()
            .all(|c| c.origin.resource() == Some(first))
            .then_some(first)
    }

    /// The properties, when every candidate has the same ones.
    pub fn properties(&self, dxil: &DxilModule, module: &Module) -> Option<ResourceProperties> {
        let mut it = self.candidates.iter().map(|c| c.properties(dxil, module));
        let first = it.next()??;
        it.all(|p| p == Some(first)).then_some(first)
    }

    /// Whether any creation marks its index non-uniform, or comes from more than one place
    /// (a `phi` or `select` of different handles is itself non-uniform in general).
    pub fn may_be_non_uniform(&self) -> bool {
        self.candidates.len() > 1 || self.candidates.iter().any(|c| c.origin.is_non_uniform())
    }
}

/// Resolves handle values; keeps its work buffers between calls so that resolving allocates
/// nothing once warm (except to grow the result).
#[derive(Clone, Debug, Default)]
pub struct HandleResolver {
    work: Vec<(Value, Option<(InstId, ResourceProperties)>)>,
    /// Visit marks per instruction: `marks[i] == epoch` means visited in this resolution.
    marks: Vec<u32>,
    epoch: u32,
}

impl HandleResolver {
    pub fn new() -> HandleResolver {
        HandleResolver::default()
    }

    /// Describes handle `value` of function `func`, replacing `out`'s contents.
    pub fn resolve_into(
        &mut self,
        dxil: &DxilModule,
        module: &Module,
        func: &Function,
        value: Value,
        out: &mut HandleInfo,
    ) {
        out.candidates.clear();
        out.truncated = false;
        let Some(body) = func.body.as_ref() else {
            push_unique(
                out,
                HandleCandidate {
                    origin: HandleOrigin::Opaque(value),
                    annotation: None,
                },
            );
            return;
        };
        self.next_epoch(body.insts.len());
        self.work.clear();
        self.work.push((value, None));
        let table = dxil.dx_ops();
        let mut steps = 0usize;
        while let Some((v, annotation)) = self.work.pop() {
            steps += 1;
            if steps > MAX_STEPS {
                out.truncated = true;
                break;
            }
            let opaque = HandleCandidate {
                origin: HandleOrigin::Opaque(v),
                annotation,
            };
            let Some(i) = v.as_inst() else {
                push_unique(out, opaque);
                continue;
            };
            match self.marks.get_mut(i.index()) {
                Some(m) if *m == self.epoch => continue,
                Some(m) => *m = self.epoch,
                None => {
                    push_unique(out, opaque);
                    continue;
                }
            }
            let Some(data) = body.inst(i) else {
                push_unique(out, opaque);
                continue;
            };
            match &data.kind {
                InstKind::Phi { incoming } => {
                    // Reversed, so that the stack pops the incoming values in operand order.
                    for pair in body.raw(*incoming).chunks_exact(2).rev() {
                        self.work.push((Value(pair[0]), annotation));
                    }
                }
                InstKind::Select {
                    if_true, if_false, ..
                } => {
                    self.work.push((*if_false, annotation));
                    self.work.push((*if_true, annotation));
                }
                InstKind::Call { .. } => match table.call(module, func, i) {
                    Some(call) if call.opcode() == Some(OpCode::AnnotateHandle) => {
                        let props = call
                            .arg(1)
                            .and_then(|p| ResourceProperties::from_constant(module, p));
                        // The annotation nearest to the use is the one that applies.
                        let annotation = annotation.or(props.map(|p| (i, p)));
                        match call.arg(0) {
                            Some(h) => self.work.push((h, annotation)),
                            None => push_unique(out, opaque),
                        }
                    }
                    Some(call) => {
                        let origin = describe_creation(&dxil.resources, module, func, &call)
                            .unwrap_or(HandleOrigin::Opaque(v));
                        push_unique(out, HandleCandidate { origin, annotation });
                    }
                    None => push_unique(out, opaque),
                },
                _ => push_unique(out, opaque),
            }
        }
    }

    /// Describes handle `value` of function `func`.
    pub fn resolve(
        &mut self,
        dxil: &DxilModule,
        module: &Module,
        func: &Function,
        value: Value,
    ) -> HandleInfo {
        let mut out = HandleInfo::default();
        self.resolve_into(dxil, module, func, value, &mut out);
        out
    }

    fn next_epoch(&mut self, insts: usize) {
        if self.marks.len() < insts {
            self.marks.resize(insts, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
    }
}

fn push_unique(out: &mut HandleInfo, c: HandleCandidate) {
    if !out.candidates.contains(&c) {
        out.candidates.push(c);
    }
}

/// Describes a handle-creating call; `None` when `call` creates no handle.
pub fn describe_creation(
    resources: &Resources,
    module: &Module,
    func: &Function,
    call: &DxOpCall<'_>,
) -> Option<HandleOrigin> {
    let inst = call.inst;
    let const_bool = |v: Option<Value>| -> Option<bool> { Some(module.const_int(v?)? != 0) };
    // A non-constant flag is taken as "may be non-uniform".
    let non_uniform = |v: Option<Value>| const_bool(v).unwrap_or(true);
    let op = call.opcode()?;
    Some(match op {
        OpCode::CreateHandle => {
            let class = call
                .arg(0)
                .and_then(|v| module.const_int(v))
                .map(|c| ResourceClass::from_raw((c & 0xff) as u32));
            let range_id = call
                .arg(1)
                .and_then(|v| module.const_int(v))
                .and_then(|r| u32::try_from(r).ok());
            let resource = match (class, range_id) {
                (Some(c), Some(r)) => resources.find_by_id(c, r),
                _ => None,
            };
            HandleOrigin::CreateHandle {
                inst,
                class,
                range_id,
                index: call.arg(2)?,
                non_uniform: non_uniform(call.arg(3)),
                resource,
            }
        }
        OpCode::CreateHandleFromBinding => {
            let bind = call.arg(0).and_then(|b| ResBind::from_constant(module, b));
            HandleOrigin::FromBinding {
                inst,
                bind,
                index: call.arg(1)?,
                non_uniform: non_uniform(call.arg(2)),
                resource: bind.and_then(|b| resources.find_by_binding(&b)),
            }
        }
        OpCode::CreateHandleFromHeap => HandleOrigin::FromHeap {
            inst,
            index: call.arg(0)?,
            sampler_heap: const_bool(call.arg(1)),
            non_uniform: non_uniform(call.arg(2)),
        },
        OpCode::CreateHandleForLib => {
            let (global, array_index) = lib_resource_global(module, func, call.arg(0)?);
            HandleOrigin::ForLib {
                inst,
                global,
                array_index,
                resource: global.and_then(|g| resources.find_by_global(g)),
            }
        }
        _ => return None,
    })
}

/// For `createHandleForLib`'s operand (`load` of a resource global, possibly through a
/// `getelementptr` into an array of them): the global and the array index.
fn lib_resource_global(
    module: &Module,
    func: &Function,
    v: Value,
) -> (Option<GlobalId>, Option<Value>) {
    let Some(body) = func.body.as_ref() else {
        return (None, None);
    };
    let mut ptr = match v.as_inst().and_then(|i| body.inst(i)).map(|d| &d.kind) {
        Some(InstKind::Load { ptr, .. }) => *ptr,
        _ => return (None, None),
    };
    let mut array_index = None;
    // Pointer chains are short (a GEP, maybe a cast); bound the walk anyway.
    for _ in 0..8 {
        match ptr.get() {
            ValueRef::Global(g) => return (Some(g), array_index),
            ValueRef::Inst(i) => match body.inst(i).map(|d| &d.kind) {
                Some(InstKind::Gep { operands, .. }) => {
                    let mut ops = body.values(*operands);
                    let Some(base) = ops.next() else { break };
                    // `gep [N x T]* @g, 0, idx`: the index selects the array element.
                    if array_index.is_none() {
                        array_index = ops.nth(1);
                    }
                    ptr = base;
                }
                Some(InstKind::Cast { value, .. }) => ptr = *value,
                _ => break,
            },
            ValueRef::Const(c) => {
                if let Some(ConstData::Gep { operands, .. }) =
                    module.constants.get(c).map(|c| &c.data)
                {
                    let ops = module.constants.values_of(*operands);
                    if array_index.is_none() {
                        array_index = ops.get(2).copied();
                    }
                }
                return (strip_to_global(module, ptr), array_index);
            }
            _ => break,
        }
    }
    (None, array_index)
}

/// Serialized form of a candidate for JSON dumps (ids as numbers).
#[derive(Serialize)]
pub struct HandleCandidateView {
    pub origin: &'static str,
    pub resource: Option<ResourceRef>,
    pub non_uniform: bool,
    pub properties: Option<ResourceProperties>,
}

impl HandleCandidate {
    pub fn view(&self, dxil: &DxilModule, module: &Module) -> HandleCandidateView {
        HandleCandidateView {
            origin: match self.origin {
                HandleOrigin::CreateHandle { .. } => "createHandle",
                HandleOrigin::FromBinding { .. } => "createHandleFromBinding",
                HandleOrigin::FromHeap { .. } => "createHandleFromHeap",
                HandleOrigin::ForLib { .. } => "createHandleForLib",
                HandleOrigin::Opaque(_) => "opaque",
            },
            resource: self.origin.resource(),
            non_uniform: self.origin.is_non_uniform(),
            properties: self.properties(dxil, module),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{BodyBuilder, Builder, compute_fixture};
    use dxil_module::{ConstKey, FuncId, TypeData, TypeId};

    fn struct_ty(b: &mut Builder, name: &str, elems: Vec<TypeId>) -> TypeId {
        b.m.types.push(TypeData::Struct {
            name: Some(name.into()),
            packed: false,
            opaque: false,
            elems,
        })
    }

    fn aggregate(b: &mut Builder, ty: TypeId, fields: &[(u32, i64)]) -> Value {
        let vals: Vec<Value> = fields.iter().map(|&(w, v)| b.const_int(w, v)).collect();
        b.constant(ty, ConstKey::Values(0, vals, None))
    }

    struct Setup {
        b: Builder,
        main: FuncId,
        create: Value,
        binding: Value,
        heap: Value,
        select: Value,
        looped: Value,
        load: InstId,
    }

    fn setup() -> Setup {
        let (mut b, fx) = compute_fixture();
        let handle = b.handle_ty();
        let i32t = b.int_ty(32);
        let i8t = b.int_ty(8);
        let i1t = b.int_ty(1);
        let f32t = b.ty(TypeData::Float);
        let resbind = struct_ty(&mut b, "dx.types.ResBind", vec![i32t, i32t, i32t, i8t]);
        let props = struct_ty(&mut b, "dx.types.ResourceProperties", vec![i32t, i32t]);
        let create = b.function("dx.op.createHandle", handle, &[i32t, i8t, i32t, i32t, i1t]);
        let from_binding = b.function(
            "dx.op.createHandleFromBinding",
            handle,
            &[i32t, resbind, i32t, i1t],
        );
        let from_heap = b.function(
            "dx.op.createHandleFromHeap",
            handle,
            &[i32t, i32t, i1t, i1t],
        );
        let annotate = b.function("dx.op.annotateHandle", handle, &[i32t, handle, props]);
        let load = b.function("dx.op.bufferLoad.f32", f32t, &[i32t, handle, i32t, i32t]);

        let op = |b: &mut Builder, o: OpCode| b.const_int(32, o as i64);
        let (c57, c217, c218, c216, c68) = (
            op(&mut b, OpCode::CreateHandle),
            op(&mut b, OpCode::CreateHandleFromBinding),
            op(&mut b, OpCode::CreateHandleFromHeap),
            op(&mut b, OpCode::AnnotateHandle),
            op(&mut b, OpCode::BufferLoad),
        );
        let uav_class = b.const_int(8, 1);
        let zero = b.const_int(32, 0);
        let one = b.const_int(32, 1);
        let five = b.const_int(32, 5);
        let seven = b.const_int(32, 7);
        let f = b.const_int(1, 0);
        let t = b.const_int(1, -1);
        let cond = b.undef(i1t);
        let bind = aggregate(&mut b, resbind, &[(32, 0), (32, -1), (32, 0), (8, 0)]);
        let tex_props = aggregate(&mut b, props, &[(32, 2), (32, 0x409)]);
        let sb_props = aggregate(&mut b, props, &[(32, 0x100c), (32, 16)]);

        let mut body = BodyBuilder::new();
        let h1 = body.call(&b.m, create, &[c57, uav_class, zero, one, f]);
        let h2 = body.call(&b.m, from_binding, &[c217, bind, five, t]);
        let a2 = body.call(&b.m, annotate, &[c216, h2, tex_props]);
        let h3 = body.call(&b.m, from_heap, &[c218, seven, f, f]);
        let a3 = body.call(&b.m, annotate, &[c216, h3, sb_props]);
        let p = body.phi(handle, &[a2, a3]);
        let select = body.push(
            InstKind::Select {
                cond,
                if_true: h1,
                if_false: p,
            },
            handle,
        );
        // A phi that feeds itself (a loop-carried handle).
        let next = Value::inst(InstId(body.body.insts.len() as u32));
        let looped = body.phi(handle, &[a2, next]);
        let l = body.call(&b.m, load, &[c68, select, zero, zero]);
        body.finish(&mut b.m, fx.main);
        Setup {
            b,
            main: fx.main,
            create: h1,
            binding: h2,
            heap: h3,
            select,
            looped,
            load: l.as_inst().unwrap(),
        }
    }

    #[test]
    fn resolves_through_select_phi_and_annotations() {
        let s = setup();
        let m = &s.b.m;
        let dxil = DxilModule::from_module(m).unwrap();
        let f = &m.functions[s.main.index()];
        let mut r = HandleResolver::new();

        // From the handle operand of the buffer load.
        let call = dxil.dx_op(m, f, s.load).unwrap();
        let info = r.resolve(&dxil, m, f, call.arg(0).unwrap());
        assert!(!info.truncated);
        assert_eq!(info.candidates.len(), 3, "{info:?}");
        assert!(info.may_be_non_uniform());
        assert_eq!(info.resource(), None);
        assert_eq!(info.unique(), None);

        let c = &info.candidates[0];
        match c.origin {
            HandleOrigin::CreateHandle {
                inst,
                class,
                range_id,
                index,
                non_uniform,
                resource,
            } => {
                assert_eq!(inst, s.create.as_inst().unwrap());
                assert_eq!(class, Some(ResourceClass::UAV));
                assert_eq!(range_id, Some(0));
                assert_eq!(m.const_int(index), Some(1));
                assert!(!non_uniform);
                assert_eq!(
                    resource,
                    Some(ResourceRef {
                        class: ResourceClass::UAV,
                        index: 0
                    })
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(c.annotation, None);
        // No annotation: the record's properties.
        assert_eq!(
            c.properties(&dxil, m).unwrap().raw,
            [12 | 1 << 12 | 1 << 15, 16]
        );

        let c = &info.candidates[1];
        match c.origin {
            HandleOrigin::FromBinding {
                inst,
                bind: Some(bind),
                non_uniform,
                resource,
                ..
            } => {
                assert_eq!(inst, s.binding.as_inst().unwrap());
                assert_eq!(bind.class, ResourceClass::SRV);
                assert_eq!(bind.upper_bound, u32::MAX);
                assert!(non_uniform);
                assert_eq!(
                    resource,
                    Some(ResourceRef {
                        class: ResourceClass::SRV,
                        index: 0
                    })
                );
            }
            other => panic!("{other:?}"),
        }
        let (_, p) = c.annotation.unwrap();
        assert_eq!(p.hlsl_type_name(), "Texture2D");
        assert_eq!(p.component_count(), Some(4));

        let c = &info.candidates[2];
        assert!(matches!(
            c.origin,
            HandleOrigin::FromHeap {
                sampler_heap: Some(false),
                non_uniform: false,
                ..
            }
        ));
        assert_eq!(c.origin.resource(), None);
        let p = c.properties(&dxil, m).unwrap();
        assert_eq!(p.class(), ResourceClass::UAV);
        assert_eq!(p.structure_stride(), Some(16));
        assert!(!p.has_counter());
        let _ = s.heap;

        // A loop-carried phi terminates and finds the one creation.
        let info = r.resolve(&dxil, m, f, s.looped);
        assert_eq!(info.candidates.len(), 1);
        assert_eq!(info.resource().map(|r| r.class), Some(ResourceClass::SRV));
        assert_eq!(info.properties(&dxil, m).map(|p| p.raw), Some([2, 0x409]));

        // Values that are not handle creations.
        let info = r.resolve(&dxil, m, f, Value::arg(0));
        assert_eq!(
            info.candidates[0].origin,
            HandleOrigin::Opaque(Value::arg(0))
        );
        let info = r.resolve(&dxil, m, f, Value::inst(InstId(10_000)));
        assert!(matches!(info.candidates[0].origin, HandleOrigin::Opaque(_)));
        // The select itself resolves like the operand.
        assert_eq!(r.resolve(&dxil, m, f, s.select).candidates.len(), 3);
    }

    #[test]
    fn library_handles_find_their_global() {
        let mut b = Builder::new();
        b.shader_model("lib", 6, 3);
        let void = b.void();
        let handle = b.handle_ty();
        let i32t = b.int_ty(32);
        let f32t = b.ty(TypeData::Float);
        let rw = struct_ty(&mut b, "class.RWBuffer<float>", vec![f32t]);
        let arr = b.ty(TypeData::Array { len: 4, elem: rw });
        let g = b.global("\u{1}?Bufs@@3PAV?$RWBuffer@M@@A", arr);
        let g_ptr = b.m.globals[g.index()].ptr_ty;
        let rw_ptr = b.m.types.pointer_to(rw, 0);
        // The record names the global through a constant bitcast, as DXC writes it.
        let cast = b.constant(
            rw_ptr,
            ConstKey::Plain(dxil_module::ConstData::Cast {
                op: dxil_module::CastOp::BitCast,
                value: Value::global(g),
            }),
        );
        let sym = b.value(rw_ptr, cast);
        let (id, name, space, lower, size, shape) = (
            b.i32(0),
            b.str("Bufs"),
            b.i32(0),
            b.i32(2),
            b.i32(4),
            b.i32(10),
        );
        let (gc, counter, rov) = (b.int(1, 0), b.int(1, 0), b.int(1, 0));
        let rec = b.node(&[
            Some(id),
            Some(sym),
            Some(name),
            Some(space),
            Some(lower),
            Some(size),
            Some(shape),
            Some(gc),
            Some(counter),
            Some(rov),
            None,
        ]);
        let uavs = b.node(&[Some(rec)]);
        let tuple = b.node(&[None, Some(uavs), None, None]);
        b.named("dx.resources", &[tuple]);
        let func = b.function("\u{1}?main@@YAXXZ", void, &[]);
        let fmd = b.function_md(func);
        let fname = b.str("\u{1}?main@@YAXXZ");
        let entry = b.node(&[Some(fmd), Some(fname), None, None, None]);
        b.named("dx.entryPoints", &[entry]);
        let for_lib = b.function(
            "dx.op.createHandleForLib.class.RWBuffer<float>",
            handle,
            &[i32t, rw],
        );
        let c160 = b.const_int(32, OpCode::CreateHandleForLib as i64);
        let zero = b.const_int(32, 0);
        let two = b.const_int(32, 2);

        let mut body = BodyBuilder::new();
        let gep_ops = [Value::global(g).0, zero.0, two.0];
        let operands = dxil_module::PoolRange::push(&mut body.body.pool, &gep_ops);
        let gep = body.push(
            InstKind::Gep {
                inbounds: true,
                source_ty: arr,
                operands,
            },
            rw_ptr,
        );
        let ld = body.push(
            InstKind::Load {
                ptr: gep,
                align: 3,
                volatile: false,
                atomic: None,
            },
            rw,
        );
        let h = body.call(&b.m, for_lib, &[c160, ld]);
        body.finish(&mut b.m, func);
        let _ = g_ptr;

        let dxil = DxilModule::from_module(&b.m).unwrap();
        assert_eq!(dxil.resources.uavs[0].symbol.global(), Some(g));
        let f = &b.m.functions[func.index()];
        let info = HandleResolver::new().resolve(&dxil, &b.m, f, h);
        let c = info.unique().unwrap();
        assert_eq!(
            c.origin,
            HandleOrigin::ForLib {
                inst: h.as_inst().unwrap(),
                global: Some(g),
                array_index: Some(two),
                resource: Some(ResourceRef {
                    class: ResourceClass::UAV,
                    index: 0
                }),
            }
        );
        let p = c.properties(&dxil, &b.m).unwrap();
        assert_eq!(p.hlsl_type_name(), "RWBuffer");
        assert_eq!(p.component_count(), Some(1));
        let view = serde_json::to_value(c.view(&dxil, &b.m)).unwrap();
        assert_eq!(view["origin"], "createHandleForLib");
        assert_eq!(view["properties"]["kind"], "TypedBuffer");
    }
}
