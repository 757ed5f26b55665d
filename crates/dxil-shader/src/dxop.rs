//! Decoding `call @dx.op.*` instructions.
//!
//! [`DxOpTable`] classifies every function of a module once (class, overload types), so that
//! decoding a call is a few array lookups: the callee's entry by [`FuncId`], the opcode
//! constant, and a class check. The translator decodes every call through it.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use dxil_module::{ConstData, FuncId, Function, InstId, InstKind, Module, TypeData, TypeId, Value};

use crate::ops::{
    DxOp, ExperimentalOpCode, OpCode, OpInfo, Overload, ScalarType, split_function_name,
};

/// What the table knows about one `dx.op.*` function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DxOpFunction {
    /// Index of the name's class in the class table; `None` when no operation has that class.
    class: Option<u16>,
    /// The type named by the first overload suffix (`f32` in `dx.op.bufferLoad.f32`).
    pub overload: Option<TypeId>,
    /// The type named by the second suffix of two-dimensional overloads.
    pub overload2: Option<TypeId>,
}

impl DxOpFunction {
    /// The class name from the function name, if it is one the operation table knows.
    pub fn class(&self) -> Option<&'static str> {
        self.class
            .and_then(|c| class_table().names.get(usize::from(c)))
            .copied()
    }
}

/// The `dx.op` functions of a module, indexed by [`FuncId`].
#[derive(Clone, Debug, Default)]
pub struct DxOpTable {
    funcs: Vec<Option<DxOpFunction>>,
}

/// Why a call to a `dx.op.*` function cannot be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DxOpError {
    #[error("{inst}: dx.op call without an opcode operand")]
    MissingOpcode { inst: InstId },
    #[error("{inst}: dx.op call whose opcode operand is not an integer constant")]
    NonConstantOpcode { inst: InstId },
    #[error("{inst}: unknown DXIL opcode {opcode}")]
    UnknownOpcode { inst: InstId, opcode: u32 },
    #[error(
        "{inst}: opcode {opcode} ({name}) called through {callee}, a function of another class"
    )]
    ClassMismatch {
        inst: InstId,
        opcode: u32,
        name: &'static str,
        callee: FuncId,
    },
}

/// A decoded `dx.op` call: the operation, its overload and its operands after the opcode.
#[derive(Clone, Copy, Debug)]
pub struct DxOpCall<'a> {
    pub op: DxOp,
    pub inst: InstId,
    pub callee: FuncId,
    pub overload: Option<TypeId>,
    pub overload2: Option<TypeId>,
    /// The call's result type (`void` for operations without one).
    pub result_ty: TypeId,
    args: &'a [u32],
}

impl<'a> DxOpCall<'a> {
    /// The core opcode, `None` for experimental operations.
    pub fn opcode(&self) -> Option<OpCode> {
        match self.op {
            DxOp::Core(op) => Some(op),
            DxOp::Experimental(_) => None,
        }
    }

    pub fn info(&self) -> &'static OpInfo {
        self.op.info()
    }

    /// Operand `i` after the opcode, numbered as [`OpInfo::operand_names`] names them.
    #[inline]
    pub fn arg(&self, i: usize) -> Option<Value> {
        self.args.get(i).map(|&v| Value(v))
    }

    /// Operands after the opcode.
    pub fn args(&self) -> impl ExactSizeIterator<Item = Value> + 'a {
        self.args.iter().map(|&v| Value(v))
    }

    pub fn num_args(&self) -> usize {
        self.args.len()
    }
}

impl DxOpTable {
    /// Classifies every function of `module` whose name starts with `dx.op.`.
    pub fn new(module: &Module) -> DxOpTable {
        let mut types: Option<TypeIndex<'_>> = None;
        let funcs = module
            .functions
            .iter()
            .map(|f| {
                let (class, suffix) = split_function_name(&f.name)?;
                let types = types.get_or_insert_with(|| TypeIndex::new(module));
                Some(classify(class, suffix, types))
            })
            .collect();
        DxOpTable { funcs }
    }

    /// The entry of function `f`, `None` when it is not a `dx.op` function.
    #[inline]
    pub fn function(&self, f: FuncId) -> Option<&DxOpFunction> {
        self.funcs.get(f.index())?.as_ref()
    }

    /// Whether `f` is a `dx.op.*` function.
    pub fn is_dx_op(&self, f: FuncId) -> bool {
        self.function(f).is_some()
    }

    /// Decodes instruction `inst` of `func`: `Ok(None)` when it is not a call of a `dx.op`
    /// function, an error when it is one that cannot be decoded.
    #[inline]
    pub fn decode<'a>(
        &self,
        module: &Module,
        func: &'a Function,
        inst: InstId,
    ) -> Result<Option<DxOpCall<'a>>, DxOpError> {
        let Some(body) = func.body.as_ref() else {
            return Ok(None);
        };
        let Some(data) = body.inst(inst) else {
            return Ok(None);
        };
        let InstKind::Call { callee, args, .. } = &data.kind else {
            return Ok(None);
        };
        let Some(callee) = callee.as_function() else {
            return Ok(None);
        };
        let Some(entry) = self.function(callee) else {
            return Ok(None);
        };
        decode_call(module, *entry, callee, inst, data.ty, args.get(&body.pool))
    }

    /// Like [`DxOpTable::decode`], but `None` for undecodable calls too.
    #[inline]
    pub fn call<'a>(
        &self,
        module: &Module,
        func: &'a Function,
        inst: InstId,
    ) -> Option<DxOpCall<'a>> {
        self.decode(module, func, inst).ok().flatten()
    }
}

/// Decodes instruction `inst` of `func` as a `dx.op` call without a table: classifies the
/// callee on the spot (a scan of the type table when the overload names a type). For many
/// calls, build a [`DxOpTable`] (or use [`crate::DxilModule::dx_op`]).
pub fn dx_op<'a>(module: &Module, func: &'a Function, inst: InstId) -> Option<DxOpCall<'a>> {
    let body = func.body.as_ref()?;
    let data = body.inst(inst)?;
    let InstKind::Call { callee, args, .. } = &data.kind else {
        return None;
    };
    let callee = callee.as_function()?;
    let (class, suffix) = split_function_name(&module.function(callee)?.name)?;
    let entry = classify(class, suffix, &mut TypeIndex::new(module));
    decode_call(module, entry, callee, inst, data.ty, args.get(&body.pool))
        .ok()
        .flatten()
}

#[inline]
fn decode_call<'a>(
    module: &Module,
    entry: DxOpFunction,
    callee: FuncId,
    inst: InstId,
    result_ty: TypeId,
    args: &'a [u32],
) -> Result<Option<DxOpCall<'a>>, DxOpError> {
    let Some((&first, rest)) = args.split_first() else {
        return Err(DxOpError::MissingOpcode { inst });
    };
    let opcode = Value(first)
        .as_const()
        .and_then(|c| module.constants.get(c))
        .and_then(|c| match c.data {
            // The operand is an i32; the sign-extended i64 is cut back to its bits.
            ConstData::Int(v) => Some(v as u32),
            ConstData::Null => Some(0),
            _ => None,
        })
        .ok_or(DxOpError::NonConstantOpcode { inst })?;
    let op = DxOp::from_u32(opcode).ok_or(DxOpError::UnknownOpcode { inst, opcode })?;
    if entry.class.is_none() || entry.class != Some(class_of(op)) {
        return Err(DxOpError::ClassMismatch {
            inst,
            opcode,
            name: op.info().name,
            callee,
        });
    }
    Ok(Some(DxOpCall {
        op,
        inst,
        callee,
        overload: entry.overload,
        overload2: entry.overload2,
        result_ty,
        args: rest,
    }))
}

fn classify(class: &str, suffix: &str, types: &mut TypeIndex<'_>) -> DxOpFunction {
    let table = class_table();
    let class = table.index(class);
    let dims = class
        .and_then(|c| table.info.get(usize::from(c)))
        .map_or(1, |i| i.overload_dims);
    let (first, second) = match (dims, suffix.split_once('.')) {
        (2, Some((a, b))) => (a, b),
        _ => (suffix, ""),
    };
    DxOpFunction {
        class,
        overload: types.resolve(first),
        overload2: types.resolve(second),
    }
}

/// Distinct class names of the operation tables, and each opcode's class index.
struct ClassTable {
    /// Sorted class names.
    names: Vec<&'static str>,
    /// Indices into `names` by [`class_slot`], open-addressed ([`NO_CLASS`]: empty): every module classifies
    /// each of its `dx.op` functions by name, and hashing only a name's length and its first and last eight bytes
    /// costs a fraction of a general string hash map's lookup.
    slots: Vec<u16>,
    /// One operation of each class (for its overload dimensions), parallel to `names`.
    info: Vec<&'static OpInfo>,
    core: Vec<u16>,
    experimental: Vec<u16>,
}

impl ClassTable {
    fn index(&self, class: &str) -> Option<u16> {
        let mask = self.slots.len().checked_sub(1)?;
        let start = class_slot(class.as_bytes());
        for probe in 0..self.slots.len() {
            let c = *self.slots.get((start + probe) & mask)?;
            if c == NO_CLASS {
                return None;
            }
            if self.names.get(usize::from(c)) == Some(&class) {
                return Some(c);
            }
        }
        None
    }
}

/// An empty slot of [`ClassTable::slots`].
const NO_CLASS: u16 = u16::MAX;

/// Slots of [`ClassTable::slots`]: a power of two, several times the number of classes (about 200), so that
/// probe sequences stay short.
const CLASS_SLOTS: usize = 1024;

/// The home slot of a class name: a hash of its length and its first and last eight bytes (the names differ
/// there: `loadInput`, `storeOutput`, `bufferLoad`, `rawBufferLoad`, ...).
fn class_slot(name: &[u8]) -> usize {
    let word = |b: &[u8]| b.iter().rev().fold(0u64, |w, &x| (w << 8) | u64::from(x));
    let (head, tail) = match (name.first_chunk::<8>(), name.last_chunk::<8>()) {
        (Some(h), Some(t)) => (u64::from_le_bytes(*h), u64::from_le_bytes(*t)),
        _ => (word(name), 0),
    };
    let h = (head.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ tail ^ name.len() as u64)
        .wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (h >> 32) as usize & (CLASS_SLOTS - 1)
}

fn class_table() -> &'static ClassTable {
    static TABLE: OnceLock<ClassTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let infos = OpCode::ALL
            .iter()
            .map(|o| o.info())
            .chain(ExperimentalOpCode::ALL.iter().map(|o| o.info()));
        let mut by_name: Vec<(&'static str, &'static OpInfo)> = Vec::new();
        for info in infos {
            if !info.is_reserved() {
                by_name.push((info.class, info));
            }
        }
        by_name.sort_by_key(|(n, _)| *n);
        by_name.dedup_by_key(|(n, _)| *n);
        let names: Vec<&'static str> = by_name.iter().map(|(n, _)| *n).collect();
        let info = by_name.iter().map(|(_, i)| *i).collect();
        let lookup = |class: &str| {
            names
                .binary_search(&class)
                .ok()
                .and_then(|i| u16::try_from(i).ok())
                .unwrap_or(u16::MAX)
        };
        let core = OpCode::ALL.iter().map(|o| lookup(o.info().class)).collect();
        let experimental = ExperimentalOpCode::ALL
            .iter()
            .map(|o| lookup(o.info().class))
            .collect();
        let mut slots = vec![NO_CLASS; CLASS_SLOTS];
        for (i, n) in names.iter().enumerate() {
            let Ok(c) = u16::try_from(i) else { break };
            let start = class_slot(n.as_bytes());
            let free = (0..CLASS_SLOTS)
                .map(|probe| (start + probe) & (CLASS_SLOTS - 1))
                .find(|&s| slots[s] == NO_CLASS);
            if let Some(s) = free {
                slots[s] = c;
            }
        }
        ClassTable {
            names,
            slots,
            info,
            core,
            experimental,
        }
    })
}

/// The class index of an operation; `u16::MAX` for reserved slots, which no function
/// name matches.
fn class_of(op: DxOp) -> u16 {
    let t = class_table();
    let slot = match op {
        DxOp::Core(o) => t.core.get(o as usize),
        DxOp::Experimental(o) => t.experimental.get(o.index() as usize),
    };
    slot.copied().unwrap_or(u16::MAX)
}

/// Finds the types that overload suffixes name, with one pass over the type table.
struct TypeIndex<'m> {
    module: &'m Module,
    scalars: [Option<TypeId>; 8],
    /// Built on first use: vectors by (length, element), named structs by name.
    vectors: Option<HashMap<(u32, TypeId), TypeId>>,
    structs: Option<HashMap<&'m str, TypeId>>,
}

impl<'m> TypeIndex<'m> {
    fn new(module: &'m Module) -> TypeIndex<'m> {
        let mut scalars = [None; 8];
        for (id, data) in module.types.iter() {
            let slot = match data {
                TypeData::Half => ScalarType::F16,
                TypeData::Float => ScalarType::F32,
                TypeData::Double => ScalarType::F64,
                TypeData::Int(1) => ScalarType::I1,
                TypeData::Int(8) => ScalarType::I8,
                TypeData::Int(16) => ScalarType::I16,
                TypeData::Int(32) => ScalarType::I32,
                TypeData::Int(64) => ScalarType::I64,
                _ => continue,
            };
            scalars[slot as usize].get_or_insert(id);
        }
        TypeIndex {
            module,
            scalars,
            vectors: None,
            structs: None,
        }
    }

    fn resolve(&mut self, name: &str) -> Option<TypeId> {
        if name.is_empty() {
            return None;
        }
        match Overload::parse(name) {
            Some(Overload::Scalar(t)) => self.scalars[t as usize],
            Some(Overload::Vector { len, elem }) => {
                let elem = self.scalars[elem as usize]?;
                let module = self.module;
                let vectors = self.vectors.get_or_insert_with(|| {
                    let mut m = HashMap::new();
                    for (id, data) in module.types.iter() {
                        if let TypeData::Vector { len, elem } = data {
                            m.entry((*len, *elem)).or_insert(id);
                        }
                    }
                    m
                });
                vectors.get(&(len, elem)).copied()
            }
            None => {
                let module = self.module;
                let structs = self.structs.get_or_insert_with(|| {
                    let mut m = HashMap::new();
                    for (id, data) in module.types.iter() {
                        if let TypeData::Struct { name: Some(n), .. } = data {
                            m.entry(n.as_str()).or_insert(id);
                        }
                    }
                    m
                });
                structs.get(name).copied()
            }
        }
    }
}

impl fmt::Display for DxOpCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.info().name)?;
        for (i, a) in self.args().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a:?}")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{BodyBuilder, Builder};
    use dxil_module::TypeData;

    #[test]
    fn class_slots_find_every_class_and_nothing_else() {
        let t = class_table();
        assert!(t.names.len() > 100 && t.names.len() < CLASS_SLOTS / 2);
        for (i, n) in t.names.iter().enumerate() {
            assert_eq!(t.index(n), u16::try_from(i).ok(), "{n}");
            // Same length, first and last bytes as a class, but another name.
            let mut other = n.as_bytes().to_vec();
            let mid = other.len() / 2;
            other[mid] ^= 0x20;
            let other = String::from_utf8(other).unwrap_or_default();
            assert_eq!(
                t.index(&other),
                t.names.iter().position(|m| *m == other).map(|p| p as u16)
            );
        }
        for n in [
            "",
            "x",
            "loadinput",
            "bufferLoadX",
            "dx.op.bufferLoad",
            "bufferLoad\0",
        ] {
            assert_eq!(t.index(n), None, "{n}");
        }
        assert_eq!(
            t.index("bufferLoad").map(|c| t.names[usize::from(c)]),
            Some("bufferLoad")
        );
    }

    struct Calls {
        m: Module,
        main: FuncId,
        load: InstId,
        cos: InstId,
        other: InstId,
        dynamic: InstId,
        unknown: InstId,
        mismatch: InstId,
        experimental: InstId,
        trace: InstId,
        matvec: InstId,
        store: InstId,
    }

    fn build() -> Calls {
        let mut b = Builder::new();
        let void = b.void();
        let i32t = b.int_ty(32);
        let f32t = b.ty(TypeData::Float);
        let v4f = b.ty(TypeData::Vector { len: 4, elem: f32t });
        let handle = b.handle_ty();
        // The struct a `udt` overload names.
        b.m.types.push(TypeData::Struct {
            name: Some("struct.Payload".into()),
            packed: false,
            opaque: false,
            elems: vec![f32t],
        });
        let main = b.function("main", void, &[]);
        let buffer_load = b.function("dx.op.bufferLoad.f32", f32t, &[i32t, handle, i32t, i32t]);
        let unary = b.function("dx.op.unary.f32", f32t, &[i32t, f32t]);
        let helper = b.function("helper", void, &[i32t]);
        let nop = b.function("dx.op.nop", void, &[i32t]);
        let trace = b.function("dx.op.traceRay.struct.Payload", void, &[i32t]);
        let matvec = b.function("dx.op.matVecMul.v4f32.v4f32", v4f, &[i32t]);
        let store = b.function("dx.op.bufferStore.i32", void, &[i32t]);

        let c68 = b.const_int(32, OpCode::BufferLoad as i64);
        let c12 = b.const_int(32, OpCode::Cos as i64);
        let c400 = b.const_int(32, 400);
        let c69 = b.const_int(32, OpCode::BufferStore as i64);
        let cexp = b.const_int(32, ExperimentalOpCode::ALL[0].as_u32() as i32 as i64);
        let ctrace = b.const_int(32, OpCode::TraceRay as i64);
        let cmat = b.const_int(32, OpCode::MatVecMul as i64);
        let zero = b.const_int(32, 0);
        let h = b.undef(handle);
        let one = Value::constant(b.m.constants.intern(
            f32t,
            dxil_module::ConstKey::Plain(ConstData::Float(1f32.to_bits().into())),
        ));

        let mut body = BodyBuilder::new();
        let load = body.call(&b.m, buffer_load, &[c68, h, zero, zero]);
        let cos = body.call(&b.m, unary, &[c12, load]);
        let other = body.call(&b.m, helper, &[zero]);
        // An opcode that is an instruction, not a constant.
        let dynamic = body.call(&b.m, unary, &[load, one]);
        let unknown = body.call(&b.m, unary, &[c400, one]);
        let mismatch = body.call(&b.m, unary, &[c69, one]);
        let experimental = body.call(&b.m, nop, &[cexp]);
        let trace = body.call(&b.m, trace, &[ctrace]);
        let matvec = body.call(&b.m, matvec, &[cmat]);
        let store = body.call(&b.m, store, &[]);
        body.finish(&mut b.m, main);
        let id = |v: Value| v.as_inst().unwrap();
        Calls {
            m: b.m,
            main,
            load: id(load),
            cos: id(cos),
            other: id(other),
            dynamic: id(dynamic),
            unknown: id(unknown),
            mismatch: id(mismatch),
            experimental: id(experimental),
            trace: id(trace),
            matvec: id(matvec),
            store: id(store),
        }
    }

    #[test]
    fn decodes_calls_with_overloads_and_operands() {
        let c = build();
        let table = DxOpTable::new(&c.m);
        let f = &c.m.functions[c.main.index()];
        let f32t =
            c.m.types
                .iter()
                .find(|(_, d)| **d == TypeData::Float)
                .unwrap()
                .0;

        let load = table.decode(&c.m, f, c.load).unwrap().unwrap();
        assert_eq!(load.opcode(), Some(OpCode::BufferLoad));
        assert_eq!(load.overload, Some(f32t));
        assert_eq!(load.overload2, None);
        assert_eq!(load.result_ty, f32t);
        assert_eq!(load.num_args(), 3);
        assert_eq!(load.info().operand_names, ["srv", "index", "wot"]);
        assert_eq!(
            load.arg(1),
            c.m.constants.iter().find_map(|(id, k)| {
                (k.data == ConstData::Null && c.m.types.int_width(k.ty) == Some(32))
                    .then_some(Value::constant(id))
            })
        );
        assert_eq!(load.arg(3), None);
        assert_eq!(load.args().count(), 3);
        assert!(load.to_string().starts_with("BufferLoad("));

        let cos = table.call(&c.m, f, c.cos).unwrap();
        assert_eq!(cos.opcode(), Some(OpCode::Cos));
        assert_eq!(cos.arg(0), Some(Value::inst(c.load)));
        assert_eq!(
            table.function(cos.callee).and_then(|f| f.class()),
            Some("unary")
        );

        // Not a dx.op call.
        assert!(matches!(table.decode(&c.m, f, c.other), Ok(None)));
        assert!(matches!(table.decode(&c.m, f, InstId(999)), Ok(None)));
        // Undecodable dx.op calls.
        assert_eq!(
            table.decode(&c.m, f, c.dynamic).unwrap_err(),
            DxOpError::NonConstantOpcode { inst: c.dynamic }
        );
        assert_eq!(
            table.decode(&c.m, f, c.unknown).unwrap_err(),
            DxOpError::UnknownOpcode {
                inst: c.unknown,
                opcode: 400
            }
        );
        let e = table.decode(&c.m, f, c.mismatch).unwrap_err();
        assert!(
            matches!(e, DxOpError::ClassMismatch { opcode: 69, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("BufferStore"), "{e}");
        assert_eq!(
            table.decode(&c.m, f, c.store).unwrap_err(),
            DxOpError::MissingOpcode { inst: c.store }
        );
        assert!(table.call(&c.m, f, c.unknown).is_none());

        let exp = table.call(&c.m, f, c.experimental).unwrap();
        assert_eq!(exp.op, DxOp::Experimental(ExperimentalOpCode::ALL[0]));
        assert_eq!(exp.opcode(), None);

        // A struct overload names its type; a two-dimensional one splits at the dot.
        let trace = table.call(&c.m, f, c.trace).unwrap();
        assert_eq!(trace.overload, c.m.types.find_struct("struct.Payload"));
        let matvec = table.call(&c.m, f, c.matvec).unwrap();
        let v4 =
            c.m.types
                .iter()
                .find(|(_, d)| matches!(d, TypeData::Vector { len: 4, .. }))
                .map(|(id, _)| id);
        assert_eq!((matvec.overload, matvec.overload2), (v4, v4));
    }

    #[test]
    fn uncached_decoder_agrees_with_the_table() {
        let c = build();
        let table = DxOpTable::new(&c.m);
        let f = &c.m.functions[c.main.index()];
        for i in 0..f.body.as_ref().unwrap().insts.len() {
            let inst = InstId(i as u32);
            let a = table.call(&c.m, f, inst);
            let b = dx_op(&c.m, f, inst);
            assert_eq!(
                a.map(|x| (x.op, x.overload, x.overload2)),
                b.map(|x| (x.op, x.overload, x.overload2))
            );
        }
        assert!(table.is_dx_op(FuncId(1)));
        assert!(!table.is_dx_op(c.main));
        assert!(!table.is_dx_op(FuncId(1000)));
    }

    #[test]
    fn every_class_is_found_and_every_opcode_has_its_class() {
        let t = class_table();
        for op in OpCode::ALL {
            let info = op.info();
            if info.is_reserved() {
                assert_eq!(class_of(DxOp::Core(op)), u16::MAX);
                continue;
            }
            let idx = t.index(info.class).unwrap();
            assert_eq!(class_of(DxOp::Core(op)), idx);
            assert_eq!(t.names[usize::from(idx)], info.class);
        }
        assert_eq!(t.index("noSuchClass"), None);
    }
}
