//! Structural mutations of a DXIL module, for the `translate` target's custom mutator.
//!
//! Byte-level mutations of a listing rarely give a module that still reads, and those that do
//! mostly change names or numbers the translator never looks at. These edit the module model the
//! way a wrong or hostile compiler would: another operation of the same `dx.op` class (the
//! function type stays right, the meaning changes), another operation altogether, swapped or
//! replaced operands, another overload of the callee, changed constants, and metadata edits (shader
//! stage, signature and resource records, entry properties). The result is printed again; a
//! mutant that no longer reads is dropped and another one tried.

use dxil_module::{BinOp, ConstData, FuncId, InstKind, MdData, Module, Predicate, TypeId, Value};
use dxil_shader::ops::{OpCode, split_function_name};
use dxil_text::PrintOptions;

/// The mutations tried per call before giving up on a listing.
const TRIES: usize = 6;

/// Strings a metadata string may become: stage names, system values and common semantics.
const STRINGS: &[&[u8]] = &[
    b"ps", b"vs", b"gs", b"cs", b"hs", b"ds", b"ms", b"as", b"lib", b"SV_Position", b"SV_Target",
    b"SV_Depth", b"SV_Coverage", b"SV_ClipDistance", b"SV_CullDistance", b"SV_RenderTargetArrayIndex",
    b"SV_ViewportArrayIndex", b"SV_PrimitiveID", b"SV_SampleIndex", b"SV_IsFrontFace", b"SV_VertexID",
    b"SV_InstanceID", b"SV_GSInstanceID", b"SV_StencilRef", b"SV_InnerCoverage", b"SV_Barycentrics",
    b"SV_ShadingRate", b"SV_ViewID", b"TEXCOORD", b"COLOR",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> Option<T> {
        if v.is_empty() { None } else { Some(v[self.below(v.len())]) }
    }
    /// A small or boundary integer, or `old` nudged.
    fn int_near(&mut self, old: i64) -> i64 {
        match self.below(6) {
            0 => self.below(8) as i64,
            1 => self.below(40) as i64,
            2 => old + 1,
            3 => old - 1,
            4 => [-1, 255, 256, 4096, i32::MAX as i64, i32::MIN as i64][self.below(6)],
            _ => self.next() as i32 as i64,
        }
    }
}

/// A mutant of `text` that still reads, or `None`.
pub fn mutate_listing(text: &str, seed: u32) -> Option<String> {
    let module = dxil_text::parse_module(text).ok()?;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(seed).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let options = PrintOptions {
        comments: true,
        dxc_annotations: false,
    };
    for _ in 0..TRIES {
        let mut m = module.clone();
        let n = 1 + rng.below(3);
        if !(0..n).map(|_| mutate(&mut m, &mut rng)).fold(false, |a, b| a | b) {
            continue;
        }
        let mut out = String::new();
        if dxil_text::print_module_with(&m, &options, &mut out).is_err() {
            continue;
        }
        if dxil_text::parse_module(&out).is_ok() {
            return Some(out);
        }
    }
    None
}

/// One structural change; false when the module has nothing of the kind chosen.
fn mutate(m: &mut Module, rng: &mut Rng) -> bool {
    match rng.below(16) {
        0..=2 => opcode(m, rng, true),
        3 => opcode(m, rng, false),
        4 | 5 => call_operand(m, rng),
        6 => callee_overload(m, rng),
        7 | 8 => int_constant(m, rng),
        9..=11 => metadata_int(m, rng),
        12 => metadata_string(m, rng),
        13 => metadata_operand(m, rng),
        _ => instruction_op(m, rng),
    }
}

/// (function, instruction, pool index of the opcode operand, callee) of every `dx.op` call.
fn dx_calls(m: &Module) -> Vec<(usize, usize, usize, FuncId)> {
    let mut out = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        for (ii, inst) in body.insts.iter().enumerate() {
            if let InstKind::Call { callee, args, .. } = &inst.kind
                && let Some(c) = callee.as_function()
                && m.function(c).is_some_and(|f| f.name.starts_with("dx.op."))
                && args.len > 0
            {
                out.push((fi, ii, args.start as usize, c));
            }
        }
    }
    out
}

fn i32_ty(m: &mut Module) -> TypeId {
    m.types.int(32)
}

/// Another opcode for a `dx.op` call: one of the callee's class (`same_class`) or any.
fn opcode(m: &mut Module, rng: &mut Rng, same_class: bool) -> bool {
    let calls = dx_calls(m);
    let Some((fi, _, at, callee)) = rng.pick(&calls) else {
        return false;
    };
    let new = if same_class {
        let name = m.function(callee).map(|f| f.name.clone()).unwrap_or_default();
        let Some((class, _)) = split_function_name(&name) else {
            return false;
        };
        let ops: Vec<OpCode> = OpCode::ALL.iter().copied().filter(|o| o.class() == class).collect();
        match rng.pick(&ops) {
            Some(o) => o.as_u32() as i64,
            None => return false,
        }
    } else {
        rng.below(OpCode::ALL.len() + 4) as i64
    };
    let ty = i32_ty(m);
    let c = m.constants.int(ty, new);
    if let Some(body) = m.functions[fi].body.as_mut() {
        body.pool[at] = Value::constant(c).0;
    }
    true
}

/// The value type of `v` in function `fi`.
fn type_of(m: &Module, fi: usize, v: Value) -> Option<TypeId> {
    m.value_type(m.functions.get(fi), v)
}

/// A call operand (after the opcode) swapped with another of its type, or replaced by another value
/// of its type: a constant, an argument-free instruction result of the function (anywhere in it:
/// whether the translator notices a use its definition does not dominate is part of the test).
fn call_operand(m: &mut Module, rng: &mut Rng) -> bool {
    let calls = dx_calls(m);
    let Some((fi, ii, _, _)) = rng.pick(&calls) else {
        return false;
    };
    let Some(body) = &m.functions[fi].body else { return false };
    let InstKind::Call { args, .. } = &body.insts[ii].kind else { return false };
    let (start, len) = (args.start as usize, args.len as usize);
    if len < 2 {
        return false;
    }
    let k = start + 1 + rng.below(len - 1);
    let old = Value(body.pool[k]);
    let Some(ty) = type_of(m, fi, old) else { return false };
    if rng.below(2) == 0 {
        // Swap with another operand of the same type.
        let same: Vec<usize> = (start + 1..start + len)
            .filter(|&j| j != k && type_of(m, fi, Value(body.pool[j])) == Some(ty))
            .collect();
        let Some(j) = rng.pick(&same) else { return false };
        let body = m.functions[fi].body.as_mut().unwrap();
        body.pool.swap(k, j);
        return true;
    }
    let mut candidates: Vec<Value> = body
        .insts
        .iter()
        .enumerate()
        .filter(|(_, d)| d.ty == ty)
        .map(|(i, _)| Value::inst(dxil_module::InstId(i as u32)))
        .collect();
    candidates.extend(
        m.constants
            .iter()
            .filter(|(_, c)| c.ty == ty)
            .map(|(id, _)| Value::constant(id))
            .take(64),
    );
    let Some(new) = rng.pick(&candidates) else { return false };
    m.functions[fi].body.as_mut().unwrap().pool[k] = new.0;
    true
}

/// The callee of a `dx.op` call replaced by another declared function of its class (another
/// overload: `unary.f32` → `unary.f64`).
fn callee_overload(m: &mut Module, rng: &mut Rng) -> bool {
    let calls = dx_calls(m);
    let Some((fi, ii, _, callee)) = rng.pick(&calls) else {
        return false;
    };
    let class = |f: &dxil_module::Function| split_function_name(&f.name).map(|(c, _)| c.to_string());
    let Some(mine) = m.function(callee).and_then(class) else { return false };
    let others: Vec<FuncId> = m
        .functions
        .iter()
        .enumerate()
        .filter(|(i, f)| *i != callee.index() && class(f).as_deref() == Some(mine.as_str()))
        .map(|(i, _)| FuncId(i as u32))
        .collect();
    let Some(new) = rng.pick(&others) else { return false };
    let Some(body) = m.functions[fi].body.as_mut() else { return false };
    if let InstKind::Call { callee, .. } = &mut body.insts[ii].kind {
        *callee = Value::function(new);
        // The call's result type follows the new callee's return type.
        if let Some(rt) = m.functions.get(new.index()).and_then(|f| m.types.function_signature(f.ty)).map(|s| s.0) {
            m.functions[fi].body.as_mut().unwrap().insts[ii].ty = rt;
        }
        return true;
    }
    false
}

/// An integer constant changed: every use sees the new value (component indices, masks, rows).
fn int_constant(m: &mut Module, rng: &mut Rng) -> bool {
    let ints: Vec<(dxil_module::ConstId, TypeId, i64)> = m
        .constants
        .iter()
        .filter_map(|(id, c)| match c.data {
            ConstData::Int(v) => Some((id, c.ty, v)),
            _ => None,
        })
        .collect();
    let Some((id, ty, old)) = rng.pick(&ints) else { return false };
    let new = rng.int_near(old);
    m.constants.set(id, dxil_module::Constant { ty, data: ConstData::Int(new) });
    true
}

/// An integer in metadata (a signature element's rows, columns, component type or semantic kind; a
/// resource's kind or register; an entry property) replaced by another of its type.
fn metadata_int(m: &mut Module, rng: &mut Rng) -> bool {
    let ints: Vec<(usize, TypeId, i64)> = m
        .metadata
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match d {
            MdData::Value { ty, value } => {
                let c = value.as_const()?;
                match m.constants.get(c)?.data {
                    ConstData::Int(v) => Some((i, *ty, v)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    let Some((at, ty, old)) = rng.pick(&ints) else { return false };
    let new = rng.int_near(old);
    let c = m.constants.int(ty, new);
    m.metadata.items[at] = MdData::Value { ty, value: Value::constant(c) };
    true
}

/// A metadata string replaced by a stage name, system value or semantic.
fn metadata_string(m: &mut Module, rng: &mut Rng) -> bool {
    let strings: Vec<usize> = m
        .metadata
        .items
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d, MdData::String(_)))
        .map(|(i, _)| i)
        .collect();
    let Some(at) = rng.pick(&strings) else { return false };
    let Some(s) = rng.pick(STRINGS) else { return false };
    let new = m.metadata.push_string(s);
    let Some(d) = m.metadata.get(new).cloned() else { return false };
    m.metadata.items[at] = d;
    true
}

/// A node operand swapped with another of the node, set to null, or pointed at another node.
fn metadata_operand(m: &mut Module, rng: &mut Rng) -> bool {
    let nodes: Vec<(usize, usize)> = m
        .metadata
        .items
        .iter()
        .filter_map(|d| match d {
            MdData::Node { operands, .. } if operands.len > 0 => {
                Some((operands.start as usize, operands.len as usize))
            }
            _ => None,
        })
        .collect();
    let Some((start, len)) = rng.pick(&nodes) else { return false };
    let k = start + rng.below(len);
    let count = m.metadata.items.len();
    let ops = &mut m.metadata.operands;
    match rng.below(3) {
        0 if len > 1 => ops.swap(k, start + rng.below(len)),
        1 => ops[k] = 0,
        _ => ops[k] = 1 + rng.below(count) as u32,
    }
    true
}

/// A binary operation or comparison predicate replaced by another of its kind.
fn instruction_op(m: &mut Module, rng: &mut Rng) -> bool {
    let mut sites = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        for (ii, d) in body.insts.iter().enumerate() {
            if matches!(d.kind, InstKind::Binary { .. } | InstKind::Cmp { .. }) {
                sites.push((fi, ii));
            }
        }
    }
    let Some((fi, ii)) = rng.pick(&sites) else { return false };
    let code = rng.below(16) as u64;
    let Some(body) = m.functions[fi].body.as_mut() else { return false };
    match &mut body.insts[ii].kind {
        InstKind::Binary { op, .. } => {
            if let Some(new) = BinOp::from_code(code % 13, op.is_float()) {
                *op = new;
            }
        }
        InstKind::Cmp { pred, .. } => {
            let float = pred.is_float();
            let raw = if float { code } else { 32 + code % 10 };
            if let Some(new) = Predicate::from_code(raw) {
                *pred = new;
            }
        }
        _ => return false,
    }
    true
}
