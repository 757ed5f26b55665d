//! Listings of hand-built modules, checked line by line against what LLVM 3.7's writer (with
//! DXC's annotations) prints for the same IR.

use dxil_module::inst::fast_math;
use dxil_module::{
    AttrGroup, AttrListId, Attribute, BinOp, BlockData, BlockId, Body, CastOp, ConstData, Constant,
    DebugLoc, FUNCTION_SLOT, FuncId, Function, GlobalId, GlobalVar, InstData, InstId, InstKind,
    LocalName, MdData, MdId, MdKind, Module, Ordering, PoolRange, Predicate, RmwOp, SyncScope,
    TypeData, TypeId, Value,
};

use super::{PrintOptions, print_module_with};

mod instructions;

struct B {
    m: Module,
}

impl B {
    fn new() -> B {
        B {
            m: Module::default(),
        }
    }
    fn ty(&mut self, d: TypeData) -> TypeId {
        self.m.types.intern(d)
    }
    fn int(&mut self, w: u32) -> TypeId {
        self.ty(TypeData::Int(w))
    }
    fn ptr(&mut self, t: TypeId, a: u32) -> TypeId {
        self.m.types.pointer_to(t, a)
    }
    fn named_struct(&mut self, name: &str, elems: Vec<TypeId>) -> TypeId {
        self.m.types.push(TypeData::Struct {
            name: Some(name.into()),
            packed: false,
            opaque: false,
            elems,
        })
    }
    fn fn_ty(&mut self, ret: TypeId, params: Vec<TypeId>, vararg: bool) -> TypeId {
        self.ty(TypeData::Function {
            vararg,
            ret,
            params,
        })
    }
    fn c(&mut self, ty: TypeId, data: ConstData) -> Value {
        Value::constant(self.m.constants.push(Constant { ty, data }))
    }
    fn ci(&mut self, ty: TypeId, v: i64) -> Value {
        self.c(ty, ConstData::Int(v))
    }
    fn values(&mut self, v: &[Value]) -> PoolRange {
        PoolRange::push(&mut self.m.constants.values, v)
    }
    fn attrs(&mut self, groups: Vec<(u32, Vec<Attribute>)>) -> AttrListId {
        let mut ids = Vec::new();
        for (slot, attrs) in groups {
            let id = self.m.attr_groups.len() as u32 + 1;
            self.m.attr_groups.push(AttrGroup { id, slot, attrs });
            ids.push(id);
        }
        self.m.attr_lists.push(ids);
        AttrListId(self.m.attr_lists.len() as u32 - 1)
    }
    fn func(
        &mut self,
        name: &str,
        ty: TypeId,
        attrs: Option<AttrListId>,
        body: Option<Body>,
    ) -> Value {
        let ptr_ty = self.ptr(ty, 0);
        self.m
            .functions
            .push(Function::new(name, ty, ptr_ty, attrs, body));
        Value::function(FuncId(self.m.functions.len() as u32 - 1))
    }
    fn global(&mut self, name: &str, value_ty: TypeId, address_space: u32) -> GlobalVar {
        let ptr_ty = self.ptr(value_ty, address_space);
        GlobalVar {
            name: name.into(),
            value_ty,
            ptr_ty,
            address_space,
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
        }
    }
    fn add_global(&mut self, g: GlobalVar) -> Value {
        self.m.globals.push(g);
        Value::global(GlobalId(self.m.globals.len() as u32 - 1))
    }
    fn node(&mut self, distinct: bool, ops: &[Option<MdId>]) -> MdId {
        self.m.metadata.push_node(distinct, ops)
    }
    fn md_value(&mut self, ty: TypeId, value: Value) -> MdId {
        self.m.metadata.push(MdData::Value { ty, value })
    }
    fn kind(&mut self, id: u32, name: &str) {
        self.m.metadata.kinds.push(MdKind::new(id, name.as_bytes()));
    }
    fn print(&self, opts: PrintOptions) -> String {
        let mut s = String::new();
        print_module_with(&self.m, &opts, &mut s).unwrap();
        s
    }
    fn text(&self) -> String {
        self.print(PrintOptions::default())
    }
}

/// Builds one function body.
#[derive(Default)]
struct F {
    body: Body,
}

impl F {
    fn inst(&mut self, kind: InstKind, ty: TypeId) -> Value {
        let id = InstId(self.body.insts.len() as u32);
        self.body.insts.push(InstData { kind, ty });
        Value::inst(id)
    }
    /// Starts a new block at the current instruction.
    fn block(&mut self) -> BlockId {
        let n = self.body.insts.len() as u32;
        if let Some(last) = self.body.blocks.last_mut() {
            last.end = n;
        }
        self.body.blocks.push(BlockData { start: n, end: n });
        BlockId(self.body.blocks.len() as u32 - 1)
    }
    fn finish(mut self) -> Body {
        let n = self.body.insts.len() as u32;
        if let Some(last) = self.body.blocks.last_mut() {
            last.end = n;
        }
        self.body
    }
    fn pool(&mut self, v: &[u32]) -> PoolRange {
        PoolRange::push(&mut self.body.pool, v)
    }
    fn vals(&mut self, v: &[Value]) -> PoolRange {
        let raw: Vec<u32> = v.iter().map(|x| x.0).collect();
        self.pool(&raw)
    }
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// Compares line by line so that a failure names the first differing line.
fn assert_text(actual: &str, expected: &str) {
    let (a, e) = (lines(actual), lines(expected));
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        assert_eq!(x, y, "line {} differs\nfull output:\n{actual}", i + 1);
    }
    assert_eq!(
        a.len(),
        e.len(),
        "line counts differ\nfull output:\n{actual}"
    );
    assert_eq!(actual.ends_with('\n'), expected.ends_with('\n'));
}

#[test]
fn module_layout_types_globals_declarations_attributes_and_metadata() {
    let mut b = B::new();
    b.m.datalayout = "e-m:e-p:32:32".into();
    b.m.triple = "dxil-ms-dx".into();
    let void = b.ty(TypeData::Void);
    let i1 = b.int(1);
    let i8 = b.int(8);
    let i32 = b.int(32);
    let i8p = b.ptr(i8, 0);
    let handle = b.named_struct("dx.types.Handle", vec![i8p]);
    let foo = b.m.types.push(TypeData::Struct {
        name: Some("struct.Foo".into()),
        packed: false,
        opaque: false,
        elems: vec![i32],
    });
    let cbvs = b.named_struct("CBVs", vec![foo]);
    // A struct nothing refers to is not printed.
    b.named_struct("unused", vec![i32]);
    let g = b.global("\u{1}?g@@3HA", i32, 3);
    let g = GlobalVar { align: 3, ..g };
    b.add_global(g);

    let create_ty = b.fn_ty(handle, vec![i32, i8, i32, i32, i1], false);
    let ro = b.attrs(vec![(
        FUNCTION_SLOT,
        vec![Attribute::Enum(21), Attribute::Enum(18)],
    )]);
    let main_ty = b.fn_ty(void, vec![], false);
    let mut f = F::default();
    f.block();
    let (c57, c1, c0, cf) = (
        b.ci(i32, 57),
        b.ci(i8, 1),
        b.ci(i32, 0),
        b.c(i1, ConstData::Null),
    );
    let args = f.vals(&[c57, c1, c0, c0, cf]);
    // The declaration comes after `main`, as its FuncId says.
    let create = Value::function(FuncId(1));
    f.inst(
        InstKind::Call {
            callee: create,
            fn_ty: create_ty,
            attrs: None,
            cc_flags: 0,
            args,
        },
        handle,
    );
    f.inst(InstKind::Ret { value: None }, void);
    b.func("main", main_ty, None, Some(f.finish()));
    b.func("dx.op.createHandle", create_ty, Some(ro), None);

    let cbvs_ptr = b.ptr(cbvs, 0);
    let undef = b.c(cbvs_ptr, ConstData::Undef);
    let zero = b.md_value(i32, c0);
    let res = b.md_value(cbvs_ptr, undef);
    let empty = b.m.metadata.push_string(b"");
    let quoted = b.m.metadata.push_string(b"a\"b\\c\x01");
    let inner = b.node(true, &[Some(quoted)]);
    let top = b.node(
        false,
        &[Some(zero), Some(res), Some(empty), None, Some(inner)],
    );
    b.m.metadata.push_named("dx.resources", &[top]);
    b.m.metadata.push_named("weird name", &[inner, top]);

    let expected = r#"target datalayout = "e-m:e-p:32:32"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%CBVs = type { %struct.Foo }
%struct.Foo = type { i32 }

@"\01?g@@3HA" = external addrspace(3) global i32, align 4

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)  ; CreateHandle(resourceClass,rangeId,index,nonUniformIndex)
  ret void
}

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #0

attributes #0 = { nounwind readonly }

!dx.resources = !{!0}
!weird\20name = !{!1, !0}

!0 = !{i32 0, %CBVs* undef, !"", null, !1}
!1 = distinct !{!"a\22b\5Cc\01"}
"#;
    assert_text(&b.text(), expected);

    // Without comments the `; Function Attrs:` line goes; the dx.op note is separate.
    let quiet = b.print(PrintOptions {
        comments: false,
        dxc_annotations: false,
    });
    assert!(!quiet.contains("; Function Attrs"));
    assert!(!quiet.contains("; CreateHandle"));
    assert!(
        quiet.contains("declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #0\n")
    );
}

#[test]
fn constants_canonical_forms_and_expressions() {
    let mut b = B::new();
    let i1 = b.int(1);
    let i8 = b.int(8);
    let i16 = b.int(16);
    let i32 = b.int(32);
    let i128 = b.int(128);
    let half = b.ty(TypeData::Half);
    let float = b.ty(TypeData::Float);
    let double = b.ty(TypeData::Double);
    let a3i8 = b.ty(TypeData::Array { len: 3, elem: i8 });
    let a2i32 = b.ty(TypeData::Array { len: 2, elem: i32 });
    let a2f = b.ty(TypeData::Array {
        len: 2,
        elem: float,
    });
    let a2h = b.ty(TypeData::Array { len: 2, elem: half });
    let v2f = b.ty(TypeData::Vector {
        len: 2,
        elem: float,
    });
    let packed = b.ty(TypeData::Struct {
        name: None,
        packed: true,
        opaque: false,
        elems: vec![i16, double],
    });
    let empty = b.ty(TypeData::Struct {
        name: None,
        packed: false,
        opaque: false,
        elems: vec![],
    });
    let i32p = b.ptr(i32, 0);

    let add = |b: &mut B, name: &str, ty: TypeId, init: Value| {
        let mut g = b.global(name, ty, 0);
        g.init = Some(init);
        g.linkage = 3;
        g.is_constant = true;
        b.add_global(g)
    };
    let s = PoolRange::push(&mut b.m.constants.bytes, b"hi\n");
    let c = b.c(a3i8, ConstData::String(s));
    add(&mut b, "str", a3i8, c);
    let s2 = PoolRange::push(&mut b.m.constants.bytes, b"ab");
    let c = b.c(a3i8, ConstData::CString(s2));
    add(&mut b, "cstr", a3i8, c);
    let zs = PoolRange::push(&mut b.m.constants.bytes, b"\0\0");
    let c = b.c(a3i8, ConstData::CString(zs));
    add(&mut b, "zero.cstr", a3i8, c);
    let w = PoolRange::push(&mut b.m.constants.words, &[0x41, 0x22, 0xff]);
    let c = b.c(a3i8, ConstData::Data(w));
    add(&mut b, "data.i8", a3i8, c);
    let (x, y, z) = (b.ci(i8, 120), b.ci(i8, -1), b.c(i8, ConstData::Null));
    let v = b.values(&[x, y, z]);
    let c = b.c(a3i8, ConstData::Aggregate(v));
    add(&mut b, "agg.i8", a3i8, c);
    let w = PoolRange::push(
        &mut b.m.constants.words,
        &[1.5f32.to_bits() as u64, 0x8000_0000],
    );
    let c = b.c(a2f, ConstData::Data(w));
    add(&mut b, "data.f", a2f, c);
    let w = PoolRange::push(&mut b.m.constants.words, &[0x3C00, 0xFC00]);
    let c = b.c(a2h, ConstData::Data(w));
    add(&mut b, "data.h", a2h, c);
    let w = PoolRange::push(&mut b.m.constants.words, &[0, 0]);
    let c = b.c(a2i32, ConstData::Data(w));
    add(&mut b, "data.zero", a2i32, c);
    let (z0, z1) = (b.c(i32, ConstData::Null), b.ci(i32, 0));
    let v = b.values(&[z0, z1]);
    let c = b.c(a2i32, ConstData::Aggregate(v));
    add(&mut b, "agg.zero", a2i32, c);
    let (u0, u1) = (b.c(float, ConstData::Undef), b.c(float, ConstData::Undef));
    let v = b.values(&[u0, u1]);
    let c = b.c(v2f, ConstData::Aggregate(v));
    add(&mut b, "agg.undef", v2f, c);
    let (nz, pz) = (
        b.c(float, ConstData::Float(0x8000_0000)),
        b.c(float, ConstData::Float(0)),
    );
    let v = b.values(&[nz, pz]);
    let c = b.c(v2f, ConstData::Aggregate(v));
    add(&mut b, "negzero", v2f, c);
    let (s16, d) = (
        b.ci(i16, -2),
        b.c(double, ConstData::Float(2.5f64.to_bits())),
    );
    let v = b.values(&[s16, d]);
    let c = b.c(packed, ConstData::Aggregate(v));
    add(&mut b, "packed", packed, c);
    let v = b.values(&[]);
    let c = b.c(empty, ConstData::Aggregate(v));
    add(&mut b, "empty", empty, c);
    let wide = PoolRange::push(&mut b.m.constants.words, &[u64::MAX, u64::MAX]);
    let c = b.c(i128, ConstData::WideInt(wide));
    add(&mut b, "wide", i128, c);
    let c = b.ci(i1, -1);
    add(&mut b, "t", i1, c);
    let c = b.c(i32p, ConstData::Null);
    add(&mut b, "nullp", i32p, c);
    let c = b.c(double, ConstData::Float(1.0e10f64.to_bits()));
    add(&mut b, "big", double, c);

    // Constant expressions on an addrspace(3) array.
    let a4 = b.ty(TypeData::Array { len: 4, elem: i32 });
    let mut shared = b.global("shared", a4, 3);
    shared.linkage = 3;
    let undef_a4 = b.c(a4, ConstData::Undef);
    shared.init = Some(undef_a4);
    shared.align = 3;
    let shared = b.add_global(shared);
    let (c0, c2) = (b.c(i32, ConstData::Null), b.ci(i32, 2));
    let ops = b.values(&[shared, c0, c2]);
    let i32p3 = b.ptr(i32, 3);
    let gep = b.c(
        i32p3,
        ConstData::Gep {
            inbounds: true,
            source_ty: Some(a4),
            operands: ops,
        },
    );
    let mut g = b.global("gep.ref", i32p3, 0);
    g.init = Some(gep);
    g.unnamed_addr = 1;
    g.linkage = 3;
    b.add_global(g);
    let cast = b.c(
        i32p,
        ConstData::Cast {
            op: CastOp::AddrSpaceCast,
            value: gep,
        },
    );
    let to_int = b.c(
        i32,
        ConstData::Cast {
            op: CastOp::PtrToInt,
            value: cast,
        },
    );
    let sum = b.c(
        i32,
        ConstData::Binary {
            op: BinOp::Add,
            flags: 1,
            lhs: to_int,
            rhs: c2,
        },
    );
    let cmp = b.c(
        i1,
        ConstData::Cmp {
            pred: Predicate::ICMP_ULT,
            lhs: sum,
            rhs: c2,
        },
    );
    let mut g = b.global("expr", i1, 0);
    g.init = Some(cmp);
    g.linkage = 9;
    b.add_global(g);

    let expected = r#"
@str = internal constant [3 x i8] c"hi\0A"
@cstr = internal constant [3 x i8] c"ab\00"
@zero.cstr = internal constant [3 x i8] zeroinitializer
@data.i8 = internal constant [3 x i8] c"A\22\FF"
@agg.i8 = internal constant [3 x i8] c"x\FF\00"
@data.f = internal constant [2 x float] [float 1.500000e+00, float -0.000000e+00]
@data.h = internal constant [2 x half] [half 0xH3C00, half 0xHFC00]
@data.zero = internal constant [2 x i32] zeroinitializer
@agg.zero = internal constant [2 x i32] zeroinitializer
@agg.undef = internal constant <2 x float> undef
@negzero = internal constant <2 x float> <float -0.000000e+00, float 0.000000e+00>
@packed = internal constant <{ i16, double }> <{ i16 -2, double 2.500000e+00 }>
@empty = internal constant {} zeroinitializer
@wide = internal constant i128 -1
@t = internal constant i1 true
@nullp = internal constant i32* null
@big = internal constant double 1.000000e+10
@shared = internal addrspace(3) global [4 x i32] undef, align 4
@gep.ref = internal unnamed_addr global i32 addrspace(3)* getelementptr inbounds ([4 x i32], [4 x i32] addrspace(3)* @shared, i32 0, i32 2)
@expr = private global i1 icmp ult (i32 add nuw (i32 ptrtoint (i32* addrspacecast (i32 addrspace(3)* getelementptr inbounds ([4 x i32], [4 x i32] addrspace(3)* @shared, i32 0, i32 2) to i32*) to i32), i32 2), i32 2)
"#;
    assert_text(&b.text(), expected);
}

#[test]
fn deeply_nested_constants_print_without_recursion() {
    let mut b = B::new();
    let i32 = b.int(32);
    let one = b.ci(i32, 1);
    let mut c = b.ci(i32, 7);
    for _ in 0..100_000 {
        c = b.c(
            i32,
            ConstData::Binary {
                op: BinOp::Xor,
                flags: 0,
                lhs: c,
                rhs: one,
            },
        );
    }
    let mut g = b.global("deep", i32, 0);
    g.init = Some(c);
    b.add_global(g);
    let text = b.text();
    assert!(text.starts_with("\n@deep = global i32 xor (i32 xor (i32 xor ("));
    assert_eq!(text.matches("xor").count(), 100_000);
    assert!(text.contains("(i32 xor (i32 7, i32 1), i32 1), i32 1)"));
    assert!(text.ends_with("i32 1), i32 1), i32 1)\n"));
}

#[test]
fn type_finder_order_numbered_structs_and_quoted_names() {
    let mut b = B::new();
    let void = b.ty(TypeData::Void);
    let i32 = b.int(32);
    let float = b.ty(TypeData::Float);
    // Table order differs from first-use order on purpose.
    let late = b.named_struct("struct.OnlyInMetadata", vec![float]);
    let inner = b.named_struct("class.Inner<float>", vec![float]);
    let unnamed = b.m.types.push(TypeData::Struct {
        name: Some(String::new()),
        packed: false,
        opaque: false,
        elems: vec![i32],
    });
    let outer = b.named_struct("Outer", vec![unnamed, inner]);
    let opaque = b.m.types.push(TypeData::Struct {
        name: Some("Opaque".into()),
        packed: false,
        opaque: true,
        elems: vec![],
    });
    let op_ptr = b.ptr(opaque, 0);
    let outer_ptr = b.ptr(outer, 0);
    let g = b.global("g", outer, 0);
    b.add_global(g);
    let fty = b.fn_ty(void, vec![op_ptr], false);
    b.func("ext", fty, None, None);
    let late_ptr = b.ptr(late, 0);
    let u = b.c(late_ptr, ConstData::Undef);
    let mv = b.md_value(late_ptr, u);
    let n = b.node(false, &[Some(mv)]);
    b.m.metadata.push_named("n", &[n]);
    let _ = outer_ptr;
    let expected = r#"
%0 = type { i32 }
%Outer = type { %0, %"class.Inner<float>" }
%"class.Inner<float>" = type { float }
%Opaque = type opaque
%struct.OnlyInMetadata = type { float }

@g = external global %Outer

declare void @ext(%Opaque*)

!n = !{!0}

!0 = !{%struct.OnlyInMetadata* undef}
"#;
    assert_text(&b.text(), expected);
}

#[test]
fn calls_attributes_and_metadata_attachments() {
    let mut b = B::new();
    let void = b.ty(TypeData::Void);
    let i32 = b.int(32);
    let i8 = b.int(8);
    let i64 = b.int(64);
    let float = b.ty(TypeData::Float);
    let meta = b.ty(TypeData::Metadata);
    let i8p = b.ptr(i8, 0);
    b.kind(0, "dbg");
    b.kind(1, "tbaa");
    b.kind(2, "dx.precise");
    b.kind(3, "range");

    let nounwind = Attribute::Enum(18);
    let f_attrs = b.attrs(vec![
        (
            FUNCTION_SLOT,
            vec![
                nounwind.clone(),
                Attribute::StrValue("fp32-denorm-mode".into(), "ftz".into()),
            ],
        ),
        (1, vec![Attribute::Enum(9), Attribute::Enum(11)]),
        (0, vec![Attribute::Enum(34)]),
    ]);
    let call_attrs = b.attrs(vec![
        (FUNCTION_SLOT, vec![nounwind.clone()]),
        (2, vec![Attribute::Int(1, 16)]),
    ]);
    let lifetime_attrs = b.attrs(vec![(FUNCTION_SLOT, vec![nounwind.clone()])]);
    let str_only = b.attrs(vec![(
        FUNCTION_SLOT,
        vec![Attribute::Str("waveops-include-helper-lanes".into())],
    )]);

    let callee_ty = b.fn_ty(i32, vec![i8p, i32], false);
    let vararg_ty = b.fn_ty(void, vec![i32], true);
    let dbg_ty = b.fn_ty(void, vec![meta, meta], false);
    let lifetime_ty = b.fn_ty(void, vec![i64, i8p], false);
    let main_ty = b.fn_ty(i32, vec![i8p], false);

    let callee = Value::function(FuncId(1));
    let vararg = Value::function(FuncId(2));
    let dbg = Value::function(FuncId(3));
    let lifetime = Value::function(FuncId(4));
    let bad_op = Value::function(FuncId(5));

    // Metadata: attached to instructions, and an intrinsic's operand.
    let s = b.m.metadata.push_string(b"tbaa root");
    let tbaa = b.node(false, &[Some(s)]);
    let c0 = b.c(i32, ConstData::Null);
    let v0 = b.md_value(i32, c0);
    let precise = b.node(false, &[Some(v0)]);
    let range = b.node(false, &[Some(v0), Some(v0)]);
    let intrinsic_arg = b.node(true, &[]);
    let fn_md = b.node(false, &[]);

    let mut f = F::default();
    f.block();
    let c7 = b.ci(i32, 7);
    let args = f.vals(&[Value::arg(0), c7]);
    let r = f.inst(
        InstKind::Call {
            callee,
            fn_ty: callee_ty,
            attrs: Some(call_attrs),
            cc_flags: 1,
            args,
        },
        i32,
    );
    let args = f.vals(&[c7, r, c7]);
    f.inst(
        InstKind::Call {
            callee: vararg,
            fn_ty: vararg_ty,
            attrs: None,
            cc_flags: 8 << 1,
            args,
        },
        void,
    );
    let args = f.vals(&[Value::metadata(intrinsic_arg), Value::metadata(v0)]);
    f.inst(
        InstKind::Call {
            callee: dbg,
            fn_ty: dbg_ty,
            attrs: None,
            cc_flags: 0,
            args,
        },
        void,
    );
    let c64 = b.ci(i64, 64);
    let args = f.vals(&[c64, Value::arg(0)]);
    f.inst(
        InstKind::Call {
            callee: lifetime,
            fn_ty: lifetime_ty,
            attrs: Some(lifetime_attrs),
            cc_flags: 0,
            args,
        },
        void,
    );
    // A dx.op call whose opcode is out of range, and one whose opcode is not a constant.
    let big = b.ci(i32, -1);
    let args = f.vals(&[big, c7]);
    f.inst(
        InstKind::Call {
            callee: bad_op,
            fn_ty: callee_ty,
            attrs: None,
            cc_flags: 0,
            args,
        },
        i32,
    );
    let args = f.vals(&[r, c7]);
    f.inst(
        InstKind::Call {
            callee: bad_op,
            fn_ty: callee_ty,
            attrs: None,
            cc_flags: 0,
            args,
        },
        i32,
    );
    let fl = b.c(float, ConstData::Float(2.0f32.to_bits() as u64));
    let fa = f.inst(
        InstKind::Binary {
            op: BinOp::FAdd,
            lhs: fl,
            rhs: fl,
            flags: 0,
        },
        float,
    );
    let _ = fa;
    f.inst(InstKind::Ret { value: Some(r) }, void);
    let mut body = f.finish();
    // Attachments in file-kind order; printed in context-kind order (range before dx.precise).
    body.attachments.push(dxil_module::Attachment {
        inst: InstId(0),
        kind: 2,
        node: precise,
    });
    body.attachments.push(dxil_module::Attachment {
        inst: InstId(0),
        kind: 3,
        node: range,
    });
    body.attachments.push(dxil_module::Attachment {
        inst: InstId(6),
        kind: 1,
        node: tbaa,
    });
    body.fn_attachments.push((2, fn_md));
    body.debug_locs.push((
        InstId(6),
        DebugLoc {
            line: 12,
            col: 3,
            scope: 0,
            inlined_at: 0,
        },
    ));
    body.names.push(LocalName::Arg(0, "p".into()));
    b.func("main", main_ty, Some(str_only), Some(body));
    b.func("callee", callee_ty, Some(f_attrs), None);
    b.func("vararg", vararg_ty, None, None);
    b.func("llvm.dbg.value", dbg_ty, None, None);
    b.func(
        "llvm.lifetime.start",
        lifetime_ty,
        Some(lifetime_attrs),
        None,
    );
    b.func("dx.op.bad", callee_ty, None, None);

    let expected = r#"; dxil-metadata-kinds: !dbg !tbaa !dx.precise !range

define i32 @main(i8* %p) #0 !dx.precise !0 {
  %1 = tail call i32 @callee(i8* %p, i32 align 16 7) #2, !range !1, !dx.precise !2
  call fastcc void (i32, ...) @vararg(i32 7, i32 %1, i32 7)
  call void @llvm.dbg.value(metadata !3, metadata i32 0)
  call void @llvm.lifetime.start(i64 64, i8* %p) #2
  %2 = call i32 @dx.op.bad(i32 -1, i32 7)  ; invalid DXIL opcode #4294967295
  %3 = call i32 @dx.op.bad(i32 %1, i32 7)
  %4 = fadd float 2.000000e+00, 2.000000e+00, !tbaa !4 ; line:12 col:3
  ret i32 %1
}

; Function Attrs: nounwind
declare zeroext i32 @callee(i8* noalias nocapture, i32) #1

declare void @vararg(i32, ...)

declare void @llvm.dbg.value(metadata, metadata)

; Function Attrs: nounwind
declare void @llvm.lifetime.start(i64, i8*) #2

declare i32 @dx.op.bad(i8*, i32)

attributes #0 = { "waveops-include-helper-lanes" }
attributes #1 = { nounwind "fp32-denorm-mode"="ftz" }
attributes #2 = { nounwind }

!0 = !{}
!1 = !{i32 0, i32 0}
!2 = !{i32 0}
!3 = distinct !{}
!4 = !{!"tbaa root"}
"#;
    assert_text(&b.text(), expected);
}

#[test]
fn annotate_handle_notes_describe_constant_properties() {
    let mut b = B::new();
    let void = b.ty(TypeData::Void);
    let i8 = b.int(8);
    let i32 = b.int(32);
    let i8p = b.ptr(i8, 0);
    let handle = b.named_struct("dx.types.Handle", vec![i8p]);
    let props = b.named_struct("dx.types.ResourceProperties", vec![i32, i32]);
    let fty = b.fn_ty(handle, vec![i32, handle, props], false);
    let main_ty = b.fn_ty(void, vec![handle], false);
    let annotate = Value::function(FuncId(1));
    let op = b.ci(i32, 216);
    let (w0, w1) = (b.ci(i32, 4108), b.ci(i32, 4));
    let v = b.values(&[w0, w1]);
    let structured = b.c(props, ConstData::Aggregate(v));
    let zero = b.c(props, ConstData::Null);
    let mut f = F::default();
    f.block();
    let args = f.vals(&[op, Value::arg(0), structured]);
    f.inst(
        InstKind::Call {
            callee: annotate,
            fn_ty: fty,
            attrs: None,
            cc_flags: 0,
            args,
        },
        handle,
    );
    let args = f.vals(&[op, Value::arg(0), zero]);
    f.inst(
        InstKind::Call {
            callee: annotate,
            fn_ty: fty,
            attrs: None,
            cc_flags: 0,
            args,
        },
        handle,
    );
    f.inst(InstKind::Ret { value: None }, void);
    b.func("main", main_ty, None, Some(f.finish()));
    b.func("dx.op.annotateHandle", fty, None, None);
    let text = b.text();
    let mut expect_first = String::from(
        "  %2 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %0, %dx.types.ResourceProperties { i32 4108, i32 4 })",
    );
    expect_first.push_str(dxil_shader::ops::CALL_COMMENT_PREFIX);
    dxil_shader::ops::write_call_comment(&mut expect_first, 216, Some([4108, 4])).unwrap();
    assert!(text.contains(&(expect_first + "\n")), "{text}");
    let mut expect_zero = String::from(
        "  %3 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %0, %dx.types.ResourceProperties zeroinitializer)",
    );
    expect_zero.push_str(dxil_shader::ops::CALL_COMMENT_PREFIX);
    dxil_shader::ops::write_call_comment(&mut expect_zero, 216, Some([0, 0])).unwrap();
    assert!(text.contains(&(expect_zero + "\n")), "{text}");
    assert!(
        text.contains("resource: RWStructuredBuffer<stride=4>"),
        "{text}"
    );
}

#[test]
fn globals_linkage_keywords_and_unnamed_values() {
    let mut b = B::new();
    let i32 = b.int(32);
    let void = b.ty(TypeData::Void);
    let c1 = b.ci(i32, 1);
    let mut g = b.global("", i32, 0);
    g.init = Some(c1);
    g.linkage = 3;
    let unnamed = b.add_global(g);
    let mut g = b.global("weak.tls", i32, 0);
    g.init = Some(c1);
    g.linkage = 16;
    g.visibility = 1;
    g.thread_local = 2;
    g.externally_initialized = true;
    g.section = 1;
    b.m.section_names.push("sec\"1".into());
    b.add_global(g);
    let mut g = b.global("ext.weak", i32, 0);
    g.linkage = 7;
    g.dll_storage = 1;
    b.add_global(g);
    let mut g = b.global("hidden.internal", i32, 0);
    g.linkage = 3;
    g.visibility = 1;
    g.init = Some(c1);
    b.add_global(g);

    let fty = b.fn_ty(void, vec![], false);
    let mut f = F::default();
    f.block();
    let st = f.inst(
        InstKind::Store {
            ptr: unnamed,
            value: c1,
            align: 0,
            volatile: false,
            atomic: None,
        },
        void,
    );
    let _ = st;
    f.inst(InstKind::Ret { value: None }, void);
    let v = b.func("", fty, None, Some(f.finish()));
    let _ = v;
    let idx = b.m.functions.len() - 1;
    b.m.functions[idx].linkage = 3;
    b.m.functions[idx].unnamed_addr = 1;
    b.m.functions[idx].align = 5;
    b.m.functions[idx].calling_conv = 9;
    b.m.functions[idx].section = 1;
    b.m.gc_names.push("shadow".into());
    b.m.functions[idx].gc = 1;

    let expected = r#"
@0 = internal global i32 1
@weak.tls = weak hidden thread_local(localdynamic) externally_initialized global i32 1, section "sec\221"
@ext.weak = extern_weak dllimport global i32
@hidden.internal = internal global i32 1

define internal coldcc void @1() unnamed_addr section "sec\221" align 16 gc "shadow" {
  store i32 1, i32* @0
  ret void
}
"#;
    assert_text(&b.text(), expected);
}

#[test]
fn byte_sinks_get_the_same_text_and_io_errors_come_back() {
    let mut b = B::new();
    let i32 = b.int(32);
    for i in 0..5000 {
        let c = b.ci(i32, i);
        let mut g = b.global(&format!("g{i}"), i32, 0);
        g.init = Some(c);
        b.add_global(g);
    }
    let mut bytes = Vec::new();
    super::write_module(&b.m, &PrintOptions::default(), &mut bytes).unwrap();
    assert!(bytes.len() > super::IO_CHUNK);
    assert_eq!(String::from_utf8(bytes).unwrap(), b.text());

    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "disk full",
            ))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = super::write_module(&b.m, &PrintOptions::default(), &mut Full).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
}

#[test]
fn malformed_models_print_without_panicking() {
    let mut b = B::new();
    let void = b.ty(TypeData::Void);
    let i32 = b.int(32);
    // Types that name missing types or contain themselves (a literal struct and an array).
    let dangling = b.m.types.push(TypeData::Pointer {
        pointee: TypeId(9999),
        address_space: 0,
    });
    let selfref = TypeId(b.m.types.len() as u32);
    b.m.types.push(TypeData::Struct {
        name: None,
        packed: false,
        opaque: false,
        elems: vec![selfref, i32],
    });
    let arr_self = TypeId(b.m.types.len() as u32);
    b.m.types.push(TypeData::Array {
        len: 2,
        elem: arr_self,
    });
    // Constants: a cycle, misplaced payloads, references to nothing.
    let cyc = dxil_module::ConstId(b.m.constants.len() as u32);
    let r = b.values(&[Value::constant(cyc), Value::unresolved(3)]);
    b.c(selfref, ConstData::Aggregate(r));
    let bad_int = b.c(dangling, ConstData::Int(5));
    let bad_float = b.c(selfref, ConstData::Float(1));
    let w = PoolRange {
        start: 1_000_000,
        len: 5,
    };
    let bad_data = b.c(i32, ConstData::Data(w));
    let empty = b.values(&[]);
    let bad_gep = b.c(
        dangling,
        ConstData::Gep {
            inbounds: true,
            source_ty: None,
            operands: empty,
        },
    );
    let bad_cast = b.c(
        arr_self,
        ConstData::Cast {
            op: CastOp::BitCast,
            value: Value::inst(InstId(4)),
        },
    );
    let bad_ba = b.c(
        i32,
        ConstData::BlockAddress {
            function: FuncId(77),
            block: BlockId(3),
        },
    );
    for (i, init) in [
        Value::constant(cyc),
        bad_int,
        bad_float,
        bad_data,
        bad_gep,
        bad_cast,
        bad_ba,
        Value::inst(InstId(0)),
        Value::metadata(MdId(42)),
        Value::constant(dxil_module::ConstId(12345)),
    ]
    .into_iter()
    .enumerate()
    {
        let mut g = b.global(&format!("g{i}"), selfref, 0);
        g.init = Some(init);
        g.value_ty = if i % 2 == 0 { arr_self } else { TypeId(777) };
        g.section = 99;
        g.align = 200;
        b.add_global(g);
    }
    // Metadata naming missing items, a value item wrapping metadata, unknown kinds.
    b.m.metadata.operands.extend([9999, 0, 1]);
    b.m.metadata.push(MdData::Node {
        distinct: false,
        operands: PoolRange { start: 0, len: 3 },
    });
    b.m.metadata.push(MdData::Value {
        ty: TypeId(5000),
        value: Value::metadata(MdId(1)),
    });
    b.m.metadata.push(MdData::Other {
        code: 7,
        operands: PoolRange { start: 0, len: 2 },
    });
    b.m.metadata.push(MdData::Node {
        distinct: true,
        operands: PoolRange { start: 50, len: 50 },
    });
    b.m.metadata.push_named(
        String::new(),
        &[MdId(0), MdId(1), MdId(2), MdId(3), MdId(900)],
    );
    let fty = b.fn_ty(void, vec![i32], false);
    let body = malformed_body(void, i32, dangling, cyc);
    b.func("", fty, Some(AttrListId(3)), Some(body));
    b.func("declared", TypeId(5555), None, None);
    b.m.attr_lists.push(vec![1, 2, 3]);
    b.kind(7, "");
    for opts in [
        PrintOptions::default(),
        PrintOptions {
            comments: false,
            dxc_annotations: false,
        },
    ] {
        let text = b.print(opts);
        assert!(text.contains("<operand too large>"), "{text}");
        assert!(text.contains("<recursive type>"));
        assert!(text.contains("<badref>"));
    }
}

/// A body whose blocks, names, operands and attachments point anywhere.
fn malformed_body(void: TypeId, i32: TypeId, dangling: TypeId, cyc: dxil_module::ConstId) -> Body {
    let mut f = F::default();
    f.block();
    let odd = f.pool(&[1, 2, 3]);
    f.inst(InstKind::Phi { incoming: odd }, i32);
    let cases = f.pool(&[Value::constant(cyc).0, 99]);
    f.inst(
        InstKind::Switch {
            cond: Value::unresolved(1),
            default: BlockId(50),
            cases,
        },
        void,
    );
    let args = f.pool(&[u32::MAX, 7, Value::metadata(MdId(1)).0]);
    f.inst(
        InstKind::Call {
            callee: Value::constant(cyc),
            fn_ty: i32,
            attrs: Some(AttrListId(999)),
            cc_flags: u32::MAX,
            args,
        },
        TypeId(4242),
    );
    f.inst(
        InstKind::Gep {
            inbounds: false,
            source_ty: TypeId(31337),
            operands: PoolRange { start: 7, len: 90 },
        },
        dangling,
    );
    f.inst(
        InstKind::ExtractValue {
            aggregate: Value::arg(9),
            indices: PoolRange {
                start: 0,
                len: 1000,
            },
        },
        i32,
    );
    f.inst(
        InstKind::Alloca {
            allocated: TypeId(1 << 20),
            size: Value::arg(0),
            align_field: u32::MAX,
        },
        dangling,
    );
    f.inst(
        InstKind::Load {
            ptr: Value::global(GlobalId(500)),
            align: 255,
            volatile: false,
            atomic: Some((Ordering(9), SyncScope(7))),
        },
        i32,
    );
    f.inst(
        InstKind::Fence {
            ordering: Ordering(0),
            scope: SyncScope(0),
        },
        void,
    );
    f.inst(InstKind::Br { dest: BlockId(12) }, void);
    let mut body = f.finish();
    body.blocks.push(BlockData {
        start: 5,
        end: u32::MAX,
    });
    body.blocks.push(BlockData { start: 9, end: 2 });
    body.names.push(LocalName::Inst(InstId(4000), "x".into()));
    body.names.push(LocalName::Block(BlockId(4000), "y".into()));
    body.names.push(LocalName::Arg(4000, "z".into()));
    body.attachments.push(dxil_module::Attachment {
        inst: InstId(2),
        kind: 99,
        node: MdId(4000),
    });
    body.fn_attachments.push((98, MdId(3)));
    body.debug_locs.push((
        InstId(1),
        DebugLoc {
            line: 1,
            col: 1,
            scope: 5,
            inlined_at: 5,
        },
    ));
    body
}
