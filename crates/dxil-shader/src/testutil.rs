//! Hand-built modules for unit tests: metadata items, `dx.op` declarations and bodies.

use dxil_module::{
    BlockData, Body, ConstData, ConstKey, FuncId, Function, GlobalId, GlobalVar, InstData, InstId,
    InstKind, MdData, MdId, Module, PoolRange, TypeData, TypeId, Value,
};

pub(crate) struct Builder {
    pub m: Module,
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            m: Module::default(),
        }
    }

    pub fn int_ty(&mut self, bits: u32) -> TypeId {
        self.m.types.int(bits)
    }

    pub fn ty(&mut self, t: TypeData) -> TypeId {
        self.m.types.intern(t)
    }

    pub fn void(&mut self) -> TypeId {
        self.ty(TypeData::Void)
    }

    pub fn const_int(&mut self, bits: u32, v: i64) -> Value {
        let t = self.int_ty(bits);
        Value::constant(self.m.constants.int(t, v))
    }

    pub fn constant(&mut self, ty: TypeId, key: ConstKey) -> Value {
        Value::constant(self.m.constants.intern(ty, key))
    }

    pub fn undef(&mut self, ty: TypeId) -> Value {
        Value::constant(self.m.constants.undef(ty))
    }

    /// A metadata integer `iN v`.
    pub fn int(&mut self, bits: u32, v: i64) -> MdId {
        let ty = self.int_ty(bits);
        let value = self.const_int(bits, v);
        self.m.metadata.push(MdData::Value { ty, value })
    }

    pub fn i32(&mut self, v: i64) -> MdId {
        self.int(32, v)
    }

    pub fn float(&mut self, v: f32) -> MdId {
        let ty = self.ty(TypeData::Float);
        let value = self.constant(
            ty,
            ConstKey::Plain(ConstData::Float(u64::from(v.to_bits()))),
        );
        self.m.metadata.push(MdData::Value { ty, value })
    }

    pub fn value(&mut self, ty: TypeId, value: Value) -> MdId {
        self.m.metadata.push(MdData::Value { ty, value })
    }

    pub fn str(&mut self, s: &str) -> MdId {
        self.m.metadata.push_string(s.as_bytes())
    }

    pub fn node(&mut self, ops: &[Option<MdId>]) -> MdId {
        self.m.metadata.push_node(false, ops)
    }

    /// A node of integers: `!{i32 a, i32 b, ...}`.
    pub fn ints(&mut self, vals: &[i64]) -> MdId {
        let ops: Vec<Option<MdId>> = vals.iter().map(|&v| Some(self.i32(v))).collect();
        self.node(&ops)
    }

    pub fn named(&mut self, name: &str, ops: &[MdId]) {
        self.m.metadata.push_named(name.to_string(), ops);
    }

    /// `!dx.version`, `!dx.valver` and `!dx.shaderModel` for `stage_major_minor`.
    pub fn shader_model(&mut self, stage: &str, major: i64, minor: i64) {
        let v = self.ints(&[1, minor]);
        self.named("dx.version", &[v]);
        let vv = self.ints(&[1, 8]);
        self.named("dx.valver", &[vv]);
        let s = self.str(stage);
        let ma = self.i32(major);
        let mi = self.i32(minor);
        let sm = self.node(&[Some(s), Some(ma), Some(mi)]);
        self.named("dx.shaderModel", &[sm]);
    }

    pub fn function(&mut self, name: &str, ret: TypeId, params: &[TypeId]) -> FuncId {
        let ty = self.ty(TypeData::Function {
            vararg: false,
            ret,
            params: params.to_vec(),
        });
        let ptr_ty = self.m.types.pointer_to(ty, 0);
        self.m
            .functions
            .push(Function::new(name, ty, ptr_ty, None, None));
        FuncId((self.m.functions.len() - 1) as u32)
    }

    pub fn function_md(&mut self, f: FuncId) -> MdId {
        let ty = self.m.functions[f.index()].ptr_ty;
        self.value(ty, Value::function(f))
    }

    pub fn global(&mut self, name: &str, value_ty: TypeId) -> GlobalId {
        let ptr_ty = self.m.types.pointer_to(value_ty, 0);
        self.m.globals.push(GlobalVar {
            name: name.to_string(),
            value_ty,
            ptr_ty,
            address_space: 0,
            is_constant: false,
            init: None,
            linkage: 0,
            align: 0,
            section: 0,
            visibility: 0,
            thread_local: 0,
            unnamed_addr: 0,
            externally_initialized: false,
            dll_storage: 0,
            comdat: 0,
            record_len: 0,
        });
        GlobalId((self.m.globals.len() - 1) as u32)
    }

    pub fn handle_ty(&mut self) -> TypeId {
        if let Some(t) = self.m.types.find_struct("dx.types.Handle") {
            return t;
        }
        let i8t = self.int_ty(8);
        let p = self.m.types.pointer_to(i8t, 0);
        self.m.types.push(TypeData::Struct {
            name: Some("dx.types.Handle".into()),
            packed: false,
            opaque: false,
            elems: vec![p],
        })
    }
}

/// Builds one function body instruction by instruction (a single block).
pub(crate) struct BodyBuilder {
    pub body: Body,
}

impl BodyBuilder {
    pub fn new() -> BodyBuilder {
        BodyBuilder {
            body: Body::default(),
        }
    }

    pub fn push(&mut self, kind: InstKind, ty: TypeId) -> Value {
        self.body.insts.push(InstData { kind, ty });
        Value::inst(InstId((self.body.insts.len() - 1) as u32))
    }

    /// `call ty @f(args...)`.
    pub fn call(&mut self, m: &Module, f: FuncId, args: &[Value]) -> Value {
        let func = &m.functions[f.index()];
        let ret = match m.types.data(func.ty) {
            TypeData::Function { ret, .. } => *ret,
            _ => func.ty,
        };
        let raw: Vec<u32> = args.iter().map(|v| v.0).collect();
        let args = PoolRange::push(&mut self.body.pool, &raw);
        self.push(
            InstKind::Call {
                callee: Value::function(f),
                fn_ty: func.ty,
                attrs: None,
                cc_flags: 0,
                args,
            },
            ret,
        )
    }

    pub fn phi(&mut self, ty: TypeId, incoming: &[Value]) -> Value {
        let mut raw = Vec::new();
        for v in incoming {
            raw.push(v.0);
            raw.push(0);
        }
        let incoming = PoolRange::push(&mut self.body.pool, &raw);
        self.push(InstKind::Phi { incoming }, ty)
    }

    pub fn finish(mut self, m: &mut Module, f: FuncId) {
        let n = self.body.insts.len() as u32;
        self.body.blocks.push(BlockData { start: 0, end: n });
        let func = &mut m.functions[f.index()];
        func.body = Some(self.body);
        func.is_proto = false;
    }
}

/// Ids of the [`compute_fixture`] module.
pub(crate) struct Fixture {
    pub main: FuncId,
    pub srv: MdId,
    pub uav: MdId,
    pub entry: MdId,
    pub props: MdId,
}

/// A `cs_6_6` module shaped like DXC's output: one `Texture2D<float4>` t0 (unbounded), one
/// `RWStructuredBuffer` u1 space2 with a counter and stride 16, one cbuffer b0 of 16 bytes,
/// one comparison sampler s3; entry `main` with shader flags and `numthreads(8, 4, 1)`.
pub(crate) fn compute_fixture() -> (Builder, Fixture) {
    let mut b = Builder::new();
    b.shader_model("cs", 6, 6);
    let void = b.void();
    let main = b.function("main", void, &[]);

    let f32t = b.ty(TypeData::Float);
    let v4 = b.ty(TypeData::Vector { len: 4, elem: f32t });
    let i32t = b.int_ty(32);
    let mips = b.m.types.push(TypeData::Struct {
        name: Some("class.Texture2D<vector<float, 4> >::mips_type".into()),
        packed: false,
        opaque: false,
        elems: vec![i32t],
    });
    let tex = b.m.types.push(TypeData::Struct {
        name: Some("class.Texture2D<vector<float, 4> >".into()),
        packed: false,
        opaque: false,
        elems: vec![v4, mips],
    });
    let tex_arr = b.ty(TypeData::Array { len: 0, elem: tex });
    let tex_ptr = b.m.types.pointer_to(tex_arr, 0);
    let tex_undef = b.undef(tex_ptr);
    let tex_sym = b.value(tex_ptr, tex_undef);

    let (id, name, space, lower, size) = (b.i32(0), b.str(""), b.i32(0), b.i32(0), b.i32(-1));
    let (shape, samples) = (b.i32(2), b.i32(0));
    let srv_tags = b.ints(&[0, 9]);
    let srv = b.node(&[
        Some(id),
        Some(tex_sym),
        Some(name),
        Some(space),
        Some(lower),
        Some(size),
        Some(shape),
        Some(samples),
        Some(srv_tags),
    ]);

    let sb = b.m.types.push(TypeData::Struct {
        name: Some("class.RWStructuredBuffer<vector<float, 4> >".into()),
        packed: false,
        opaque: false,
        elems: vec![v4],
    });
    let sb_ptr = b.m.types.pointer_to(sb, 0);
    let sb_undef = b.undef(sb_ptr);
    let sb_sym = b.value(sb_ptr, sb_undef);
    let (uid, uname, uspace, ulower, usize) =
        (b.i32(0), b.str("Out"), b.i32(2), b.i32(1), b.i32(1));
    let (ushape, gc, counter, rov) = (b.i32(12), b.int(1, 0), b.int(1, -1), b.int(1, 0));
    let uav_tags = b.ints(&[1, 16]);
    let uav = b.node(&[
        Some(uid),
        Some(sb_sym),
        Some(uname),
        Some(uspace),
        Some(ulower),
        Some(usize),
        Some(ushape),
        Some(gc),
        Some(counter),
        Some(rov),
        Some(uav_tags),
    ]);

    let (cid, cname, cspace, clower, csize, cbytes) = (
        b.i32(0),
        b.str("C"),
        b.i32(0),
        b.i32(0),
        b.i32(1),
        b.i32(16),
    );
    let cbv = b.node(&[
        Some(cid),
        None,
        Some(cname),
        Some(cspace),
        Some(clower),
        Some(csize),
        Some(cbytes),
        None,
    ]);
    let (sid, sname, sspace, slower, ssize, skind) =
        (b.i32(0), b.str("S"), b.i32(0), b.i32(3), b.i32(1), b.i32(1));
    let sampler = b.node(&[
        Some(sid),
        None,
        Some(sname),
        Some(sspace),
        Some(slower),
        Some(ssize),
        Some(skind),
        None,
    ]);
    let srvs = b.node(&[Some(srv)]);
    let uavs = b.node(&[Some(uav)]);
    let cbvs = b.node(&[Some(cbv)]);
    let samplers = b.node(&[Some(sampler)]);
    let resources = b.node(&[Some(srvs), Some(uavs), Some(cbvs), Some(samplers)]);
    b.named("dx.resources", &[resources]);

    let flags_tag = b.i32(0);
    let flags = b.int(64, 0x10 | 1 << 30);
    let threads_tag = b.i32(4);
    let threads = b.ints(&[8, 4, 1]);
    let props = b.node(&[
        Some(flags_tag),
        Some(flags),
        Some(threads_tag),
        Some(threads),
    ]);
    let fmd = b.function_md(main);
    let ename = b.str("main");
    let entry = b.node(&[Some(fmd), Some(ename), None, Some(resources), Some(props)]);
    b.named("dx.entryPoints", &[entry]);
    (
        b,
        Fixture {
            main,
            srv,
            uav,
            entry,
            props,
        },
    )
}
