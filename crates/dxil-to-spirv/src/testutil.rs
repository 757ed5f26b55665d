//! Test support: DXIL modules built in memory, and running their translation on the Vulkan device.
//!
//! [`TestModule`] makes a compute entry point `main` with raw/structured buffer resources, a single function body
//! built instruction by instruction, and the metadata DXC would write for it. Inputs come from buffers (never
//! from constants) so that the device compiler cannot fold the operations under test with its own semantics.

use dxil_module::{
    BlockData, BlockId, Body, FuncId, Function, InstData, InstId, InstKind, MdData, MdId, Module,
    PoolRange, TypeData, TypeId, Value,
};
use dxil_shader::ops::OpCode;

/// A buffer resource of the test module.
#[derive(Clone, Copy, Debug)]
pub struct Res {
    /// `createHandle` result in the entry block.
    pub handle: Value,
}

pub struct TestModule {
    pub m: Module,
    pub body: Body,
    pub void: TypeId,
    pub i1: TypeId,
    pub i8: TypeId,
    pub i16: TypeId,
    pub i32: TypeId,
    pub f32: TypeId,
    handle_ty: TypeId,
    block_start: u32,
    funcs: Vec<(String, FuncId)>,
    resources: [Vec<MdId>; 4],
    range_ids: [u32; 4],
    threads: [u32; 3],
}

impl TestModule {
    /// An empty compute shader with `threads` per group; `native16` selects the `-enable-16bit-types` layout.
    pub fn new(threads: [u32; 3], native16: bool) -> TestModule {
        let mut m = Module {
            version: 1,
            triple: "dxil-ms-dx".into(),
            datalayout: if native16 {
                "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
                    .into()
            } else {
                "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
                    .into()
            },
            ..Module::default()
        };
        let t = &mut m.types;
        let void = t.push(TypeData::Void);
        let i1 = t.push(TypeData::Int(1));
        let i8 = t.push(TypeData::Int(8));
        let i16 = t.push(TypeData::Int(16));
        let i32 = t.push(TypeData::Int(32));
        let f32 = t.push(TypeData::Float);
        let i8p = t.push(TypeData::Pointer {
            pointee: i8,
            address_space: 0,
        });
        let handle_ty = t.push(TypeData::Struct {
            name: Some("dx.types.Handle".into()),
            packed: false,
            opaque: false,
            elems: vec![i8p],
        });
        let mut tm = TestModule {
            m,
            body: Body::default(),
            void,
            i1,
            i8,
            i16,
            i32,
            f32,
            handle_ty,
            block_start: 0,
            funcs: Vec::new(),
            resources: [Vec::new(), Vec::new(), Vec::new(), Vec::new()],
            range_ids: [0; 4],
            threads,
        };
        // The entry function itself is function 0.
        let main_ty = tm.m.types.push(TypeData::Function {
            vararg: false,
            ret: void,
            params: Vec::new(),
        });
        let main_ptr = tm.m.types.push(TypeData::Pointer {
            pointee: main_ty,
            address_space: 0,
        });
        tm.m.functions.push(function("main", main_ty, main_ptr));
        tm
    }

    pub fn int(&mut self, ty: TypeId, v: i64) -> Value {
        Value::constant(self.m.constants.int(ty, v))
    }

    pub fn i32c(&mut self, v: i64) -> Value {
        let t = self.i32;
        self.int(t, v)
    }

    pub fn i8c(&mut self, v: i64) -> Value {
        let t = self.i8;
        self.int(t, v)
    }

    pub fn undef(&mut self, ty: TypeId) -> Value {
        Value::constant(self.m.constants.undef(ty))
    }

    /// A `%dx.types.<name>` struct of two `elem` fields (`SamplePos`).
    pub fn dx_struct2(&mut self, name: &str, elem: TypeId) -> TypeId {
        let full = format!("dx.types.{name}");
        if let Some(t) = self.m.types.find_struct(&full) {
            return t;
        }
        self.m.types.push(TypeData::Struct {
            name: Some(full),
            packed: false,
            opaque: false,
            elems: vec![elem, elem],
        })
    }

    /// `ResRet.T`: four T and an i32 status.
    pub fn resret(&mut self, elem: TypeId) -> TypeId {
        let name = match self.m.types.data(elem) {
            TypeData::Half => "ResRet.f16",
            TypeData::Float => "ResRet.f32",
            TypeData::Double => "ResRet.f64",
            TypeData::Int(16) => "ResRet.i16",
            TypeData::Int(64) => "ResRet.i64",
            _ => "ResRet.i32",
        };
        let full = format!("dx.types.{name}");
        if let Some(t) = self.m.types.find_struct(&full) {
            return t;
        }
        let i32 = self.i32;
        self.m.types.push(TypeData::Struct {
            name: Some(full),
            packed: false,
            opaque: false,
            elems: vec![elem, elem, elem, elem, i32],
        })
    }

    /// Declares (once) and returns the `dx.op.<name>` function with this signature.
    fn dx_func(&mut self, name: &str, ret: TypeId, params: &[TypeId]) -> FuncId {
        if let Some(&(_, f)) = self.funcs.iter().find(|(n, _)| n == name) {
            return f;
        }
        let ty = self.m.types.push(TypeData::Function {
            vararg: false,
            ret,
            params: params.to_vec(),
        });
        let ptr = self.m.types.push(TypeData::Pointer {
            pointee: ty,
            address_space: 0,
        });
        let id = FuncId(self.m.functions.len() as u32);
        self.m
            .functions
            .push(function(&format!("dx.op.{name}"), ty, ptr));
        self.funcs.push((name.to_string(), id));
        id
    }

    /// Appends an instruction to the current block.
    pub fn inst(&mut self, kind: InstKind, ty: TypeId) -> Value {
        let id = InstId(self.body.insts.len() as u32);
        self.body.insts.push(InstData { kind, ty });
        Value::inst(id)
    }

    /// `call <ret> @dx.op.<name>(i32 opcode, args...)`.
    pub fn dx_op(&mut self, name: &str, opcode: OpCode, ret: TypeId, args: &[Value]) -> Value {
        let op = self.i32c(opcode.as_u32() as i64);
        let mut params = vec![self.i32];
        for &a in args {
            // Instructions of the body under construction are not in the module yet.
            let t = match a.as_inst() {
                Some(i) => self.body.inst(i).map(|d| d.ty),
                None => self.m.value_type(None, a),
            }
            .unwrap_or(self.i32);
            params.push(t);
        }
        let f = self.dx_func(name, ret, &params);
        let fn_ty = self.m.function(f).map(|f| f.ty).unwrap_or_default();
        let mut words = vec![op.0];
        words.extend(args.iter().map(|a| a.0));
        let args = PoolRange::push(&mut self.body.pool, &words);
        self.inst(
            InstKind::Call {
                callee: Value::function(f),
                fn_ty,
                attrs: None,
                cc_flags: 0,
                args,
            },
            ret,
        )
    }

    pub fn binary(&mut self, op: dxil_module::BinOp, ty: TypeId, a: Value, b: Value) -> Value {
        self.inst(
            InstKind::Binary {
                op,
                lhs: a,
                rhs: b,
                flags: 0,
            },
            ty,
        )
    }

    pub fn cast(&mut self, op: dxil_module::CastOp, to: TypeId, v: Value) -> Value {
        self.inst(InstKind::Cast { op, value: v }, to)
    }

    /// Declares a buffer resource (`class` 0 SRV, 1 UAV) of `kind` (11 raw, 12 structured with `stride`) at
    /// register `reg`, and makes its handle at the start of the body.
    pub fn buffer(&mut self, class: u8, reg: u32, kind: u32, stride: u32) -> Res {
        self.resource(class, reg, kind, stride, 0)
    }

    /// Declares a resource of any kind; `component` (DXIL `ComponentType`, 0 = none) tags typed resources.
    pub fn resource(&mut self, class: u8, reg: u32, kind: u32, stride: u32, component: u32) -> Res {
        let id = self.range_ids[class as usize];
        self.range_ids[class as usize] += 1;
        let i32 = self.i32;
        let md = &mut self.m.metadata;
        let ints =
            |md: &mut dxil_module::Metadata, consts: &mut dxil_module::Constants, v: i64, ty| {
                let c = consts.int(ty, v);
                md.push(MdData::Value {
                    ty,
                    value: Value::constant(c),
                })
            };
        let c = &mut self.m.constants;
        let f_id = ints(md, c, id as i64, i32);
        let f_space = ints(md, c, 0, i32);
        let f_lower = ints(md, c, reg as i64, i32);
        let f_count = ints(md, c, 1, i32);
        let f_kind = ints(md, c, kind as i64, i32);
        let i1 = self.i1;
        let f_false = ints(md, c, 0, i1);
        let name = md.push_string(b"");
        let tags = if kind == 12 {
            let tag = ints(md, c, 1, i32);
            let st = ints(md, c, stride as i64, i32);
            Some(md.push_node(false, &[Some(tag), Some(st)]))
        } else if component != 0 {
            let tag = ints(md, c, 0, i32);
            let ct = ints(md, c, component as i64, i32);
            Some(md.push_node(false, &[Some(tag), Some(ct)]))
        } else {
            None
        };
        let undef_ptr = {
            let pt = self.m.types.pointer_to(i32, 0);
            let u = self.m.constants.undef(pt);
            self.m.metadata.push(MdData::Value {
                ty: pt,
                value: Value::constant(u),
            })
        };
        let md = &mut self.m.metadata;
        let rec = if class == 1 {
            md.push_node(
                false,
                &[
                    Some(f_id),
                    Some(undef_ptr),
                    Some(name),
                    Some(f_space),
                    Some(f_lower),
                    Some(f_count),
                    Some(f_kind),
                    Some(f_false),
                    Some(f_false),
                    Some(f_false),
                    tags,
                ],
            )
        } else {
            md.push_node(
                false,
                &[
                    Some(f_id),
                    Some(undef_ptr),
                    Some(name),
                    Some(f_space),
                    Some(f_lower),
                    Some(f_count),
                    Some(f_kind),
                    Some(f_space),
                    tags,
                ],
            )
        };
        self.resources[class as usize].push(rec);
        let cls = self.i8c(class as i64);
        let rid = self.i32c(id as i64);
        let idx = self.i32c(reg as i64);
        let f = self.int(i1, 0);
        let ht = self.handle_ty;
        Res {
            handle: self.dx_op(
                "createHandle",
                OpCode::CreateHandle,
                ht,
                &[cls, rid, idx, f],
            ),
        }
    }

    /// `ThreadId(component)`.
    pub fn thread_id(&mut self, c: u32) -> Value {
        let i32 = self.i32;
        let cv = self.i32c(c as i64);
        self.dx_op("threadId.i32", OpCode::ThreadId, i32, &[cv])
    }

    /// Component `k` of an aggregate.
    pub fn extract(&mut self, agg: Value, ty: TypeId, k: u32) -> Value {
        let indices = PoolRange::push(&mut self.body.pool, &[k]);
        self.inst(
            InstKind::ExtractValue {
                aggregate: agg,
                indices,
            },
            ty,
        )
    }

    /// Loads component 0..n of `RawBufferLoad.T(res, index, offset, mask)`; returns the ResRet value.
    pub fn raw_load(
        &mut self,
        r: Res,
        elem: TypeId,
        index: Value,
        offset: Value,
        mask: u8,
        align: u32,
    ) -> Value {
        let rt = self.resret(elem);
        let m = self.i8c(mask as i64);
        let al = self.i32c(align as i64);
        let suffix = type_suffix(&self.m, elem);
        self.dx_op(
            &format!("rawBufferLoad.{suffix}"),
            OpCode::RawBufferLoad,
            rt,
            &[r.handle, index, offset, m, al],
        )
    }

    /// `RawBufferStore.T(res, index, offset, v0..v3, mask, align)`.
    pub fn raw_store(
        &mut self,
        r: Res,
        elem: TypeId,
        index: Value,
        offset: Value,
        vals: [Value; 4],
        mask: u8,
        align: u32,
    ) {
        let m = self.i8c(mask as i64);
        let al = self.i32c(align as i64);
        let void = self.void;
        let suffix = type_suffix(&self.m, elem);
        self.dx_op(
            &format!("rawBufferStore.{suffix}"),
            OpCode::RawBufferStore,
            void,
            &[
                r.handle, index, offset, vals[0], vals[1], vals[2], vals[3], m, al,
            ],
        );
    }

    /// Loads the 32-bit word `i` of a raw buffer.
    pub fn load_word(&mut self, r: Res, i: u32) -> Value {
        let i32 = self.i32;
        let at = self.i32c(4 * i as i64);
        let u = self.undef(i32);
        let rr = self.raw_load(r, i32, at, u, 1, 4);
        self.extract(rr, i32, 0)
    }

    /// Stores `v` (i32) as word `i` of a raw buffer.
    pub fn store_word(&mut self, r: Res, i: u32, v: Value) {
        let i32 = self.i32;
        let at = self.i32c(4 * i as i64);
        let u = self.undef(i32);
        self.raw_store(r, i32, at, u, [v, u, u, u], 1, 4);
    }

    /// Ends the current block with `term` and starts a new one.
    pub fn end_block(&mut self, term: InstKind) -> BlockId {
        let void = self.void;
        self.inst(term, void);
        let end = self.body.insts.len() as u32;
        self.body.blocks.push(BlockData {
            start: self.block_start,
            end,
        });
        self.block_start = end;
        BlockId(self.body.blocks.len() as u32)
    }

    /// Ends the body with `ret void` and writes the metadata.
    pub fn finish(mut self) -> Module {
        self.end_block(InstKind::Ret { value: None });
        let i32 = self.i32;
        let mut body = std::mem::take(&mut self.body);
        body.blocks.retain(|b| b.start < b.end);
        if let Some(f) = self.m.functions.get_mut(0) {
            f.body = Some(body);
            f.is_proto = false;
        }
        let md = &mut self.m.metadata;
        let cs = md.push_string(b"cs");
        let six = md.push(MdData::Value {
            ty: i32,
            value: Value::constant(self.m.constants.int(i32, 6)),
        });
        let zero = md.push(MdData::Value {
            ty: i32,
            value: Value::constant(self.m.constants.int(i32, 0)),
        });
        let sm = md.push_node(false, &[Some(cs), Some(six), Some(zero)]);
        md.push_named("dx.shaderModel", &[sm]);
        let lists: Vec<Option<MdId>> = self
            .resources
            .iter()
            .map(|l| {
                if l.is_empty() {
                    None
                } else {
                    let ops: Vec<Option<MdId>> = l.iter().map(|&x| Some(x)).collect();
                    Some(self.m.metadata.push_node(false, &ops))
                }
            })
            .collect();
        let md = &mut self.m.metadata;
        let res = md.push_node(false, &lists);
        let mut dims = Vec::new();
        for d in self.threads {
            let c = self.m.constants.int(i32, d as i64);
            dims.push(Some(self.m.metadata.push(MdData::Value {
                ty: i32,
                value: Value::constant(c),
            })));
        }
        let md = &mut self.m.metadata;
        let nt = md.push_node(false, &dims);
        let tag4 = md.push(MdData::Value {
            ty: i32,
            value: Value::constant(self.m.constants.int(i32, 4)),
        });
        let props = self.m.metadata.push_node(false, &[Some(tag4), Some(nt)]);
        let fptr = self.m.functions[0].ptr_ty;
        let fval = self.m.metadata.push(MdData::Value {
            ty: fptr,
            value: Value::function(FuncId(0)),
        });
        let name = self.m.metadata.push_string(b"main");
        let entry = self.m.metadata.push_node(
            false,
            &[Some(fval), Some(name), None, Some(res), Some(props)],
        );
        self.m.metadata.push_named("dx.entryPoints", &[entry]);
        self.m
    }
}

fn function(name: &str, ty: TypeId, ptr_ty: TypeId) -> Function {
    Function::new(name, ty, ptr_ty, None, None)
}

fn type_suffix(m: &Module, t: TypeId) -> &'static str {
    match m.types.data(t) {
        TypeData::Half => "f16",
        TypeData::Float => "f32",
        TypeData::Double => "f64",
        TypeData::Int(1) => "i1",
        TypeData::Int(8) => "i8",
        TypeData::Int(16) => "i16",
        TypeData::Int(64) => "i64",
        _ => "i32",
    }
}

/// The result of running a test module: the final words of each buffer, by register name (`t0`, `u1`, ...).
pub struct Outputs(pub Vec<(String, Vec<u32>)>);

impl Outputs {
    pub fn words(&self, name: &str) -> &[u32] {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&[][..], |(_, w)| &w[..])
    }
}

/// One buffer of a run: register class (`'t'`/`'u'`), number, raw or structured (stride), bytes, initial words.
pub struct Buf {
    pub class: char,
    pub reg: u32,
    pub stride: Option<u32>,
    pub size: u64,
    pub init: Vec<u32>,
}

/// Translates `m`, validates it with `spirv-val` when installed, and runs it on the Vulkan device.
/// `None` (with a message) when no device is available and `CI` is not set.
pub fn run(m: &Module, groups: [u32; 3], bufs: &[Buf]) -> Option<Outputs> {
    use dxil_runtime::case::{Binding, Register, RegisterClass, Resource, ResourceKind};
    let t = crate::translate(m, &crate::Options::default())
        .unwrap_or_else(|e| panic!("translate: {e}"));
    validate(&t.words, t.vulkan_version);
    // One Vulkan instance at a time: tests creating instances and devices on several threads at once hung in
    // NVIDIA's driver (4 runs of 5 with four test threads; none with one).
    static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _device = DEVICE.lock().unwrap_or_else(|p| p.into_inner());
    let rt = match dxil_runtime::Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            if std::env::var_os("CI").is_some() {
                panic!("no Vulkan device: {e}");
            }
            eprintln!("SKIPPED: no Vulkan device: {e}");
            return None;
        }
    };
    let resources = bufs
        .iter()
        .map(|b| Resource {
            register: Register {
                class: if b.class == 'u' {
                    RegisterClass::Uav
                } else {
                    RegisterClass::Srv
                },
                number: b.reg,
                space: 0,
            },
            kind: match b.stride {
                Some(stride) => ResourceKind::Structured { stride },
                None => ResourceKind::Raw,
            },
            size: b.size,
            init: dxil_runtime::init::Init::Words(b.init.clone()),
        })
        .collect();
    let case = dxil_runtime::Case {
        source: "test.toml".into(),
        shader: "test.dxil".into(),
        entry: None,
        dispatch: Some(groups),
        binding: Binding::Registers(resources),
        expects: Vec::new(),
    };
    let module = dxil_runtime::ShaderModule {
        words: t.words,
        entry: t.entry_point,
    };
    let report = rt
        .run(&case, &module, &dxil_runtime::RunOptions::default())
        .unwrap_or_else(|e| panic!("run: {e}"));
    Some(Outputs(
        report
            .outputs
            .iter()
            .map(|o| {
                (
                    o.name.clone(),
                    o.bytes
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                )
            })
            .collect(),
    ))
}

/// Runs `spirv-val` for the module's Vulkan version when the tool is installed; panics with its message.
pub fn validate(words: &[u32], vulkan: (u8, u8)) {
    let path = std::env::temp_dir().join(format!(
        "dxil-to-spirv-unit-{}-{:?}.spv",
        std::process::id(),
        std::thread::current().id()
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::write(&path, bytes) {
        panic!("{}: {e}", path.display());
    }
    let out = std::process::Command::new("spirv-val")
        .arg("--target-env")
        .arg(format!("vulkan{}.{}", vulkan.0, vulkan.1))
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(o) => assert!(
            o.status.success(),
            "spirv-val: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        // Under CI every check must run; elsewhere a missing tool only loses this check.
        Err(e) if std::env::var_os("CI").is_some() => panic!("cannot run spirv-val: {e}"),
        Err(e) => eprintln!("SKIPPED: spirv-val: {e}"),
    }
}
