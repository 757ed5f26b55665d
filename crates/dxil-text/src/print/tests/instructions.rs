//! The instruction listing: every instruction kind with its flags and operand layout, built by
//! one function per family over one set of types and operands.

use super::*;

/// The types and operands `instructions_flags_and_operand_layout` builds on.
#[derive(Clone, Copy)]
struct Ops {
    void: TypeId,
    i1: TypeId,
    i32: TypeId,
    i64: TypeId,
    float: TypeId,
    v4f: TypeId,
    v2i: TypeId,
    i32p: TypeId,
    arr: TypeId,
    st: TypeId,
    fty: TypeId,
    a0: Value,
    x: Value,
    vec: Value,
    p3: Value,
    one: Value,
    two: Value,
    c0: Value,
    f1: Value,
    fpoint1: Value,
    h1: Value,
}

fn inst_ops(b: &mut B) -> Ops {
    let void = b.ty(TypeData::Void);
    let i1 = b.int(1);
    let i32 = b.int(32);
    let i64 = b.int(64);
    let float = b.ty(TypeData::Float);
    let half = b.ty(TypeData::Half);
    let v4f = b.ty(TypeData::Vector {
        len: 4,
        elem: float,
    });
    let v2i = b.ty(TypeData::Vector { len: 2, elem: i32 });
    let i32p = b.ptr(i32, 0);
    let i32p3 = b.ptr(i32, 3);
    let arr = b.ty(TypeData::Array { len: 4, elem: i32 });
    let st = b.ty(TypeData::Struct {
        name: None,
        packed: false,
        opaque: false,
        elems: vec![i32, float],
    });
    let fty = b.fn_ty(float, vec![i32, float, v4f, i32p3], false);
    let a0 = Value::arg(0);
    let x = Value::arg(1);
    let vec = Value::arg(2);
    let p3 = Value::arg(3);
    let one = b.ci(i32, 1);
    let two = b.ci(i32, 2);
    let c0 = b.c(i32, ConstData::Null);
    let f1 = b.c(float, ConstData::Float(1.0f32.to_bits() as u64));
    let fpoint1 = b.c(float, ConstData::Float(0.1f32.to_bits() as u64));
    let h1 = b.c(half, ConstData::Float(0x3C00));
    Ops {
        void,
        i1,
        i32,
        i64,
        float,
        v4f,
        v2i,
        i32p,
        arr,
        st,
        fty,
        a0,
        x,
        vec,
        p3,
        one,
        two,
        c0,
        f1,
        fpoint1,
        h1,
    }
}

/// Entry-block arithmetic, comparisons, select and casts: `(add, fmul, cmp)`.
fn scalar_insts(f: &mut F, o: Ops) -> (Value, Value, Value) {
    let Ops {
        i1,
        i32,
        i64,
        float,
        a0,
        x,
        one,
        two,
        c0,
        f1,
        fpoint1,
        h1,
        ..
    } = o;
    let add = f.inst(
        InstKind::Binary {
            op: BinOp::Add,
            lhs: a0,
            rhs: one,
            flags: 3,
        },
        i32,
    );
    let shl = f.inst(
        InstKind::Binary {
            op: BinOp::Shl,
            lhs: add,
            rhs: two,
            flags: 1,
        },
        i32,
    );
    f.inst(
        InstKind::Binary {
            op: BinOp::LShr,
            lhs: shl,
            rhs: two,
            flags: 1,
        },
        i32,
    );
    let fadd = f.inst(
        InstKind::Binary {
            op: BinOp::FAdd,
            lhs: x,
            rhs: f1,
            flags: fast_math::UNSAFE_ALGEBRA | fast_math::NO_NANS,
        },
        float,
    );
    let fmul = f.inst(
        InstKind::Binary {
            op: BinOp::FMul,
            lhs: fadd,
            rhs: fpoint1,
            flags: fast_math::NO_NANS | fast_math::NO_SIGNED_ZEROS | fast_math::ALLOW_RECIPROCAL,
        },
        float,
    );
    let cmp = f.inst(
        InstKind::Cmp {
            pred: Predicate::FCMP_OLT,
            lhs: fmul,
            rhs: f1,
            flags: fast_math::UNSAFE_ALGEBRA,
        },
        i1,
    );
    let icmp = f.inst(
        InstKind::Cmp {
            pred: Predicate::ICMP_SGT,
            lhs: add,
            rhs: c0,
            flags: 0,
        },
        i1,
    );
    let sel = f.inst(
        InstKind::Select {
            cond: icmp,
            if_true: add,
            if_false: one,
        },
        i32,
    );
    f.inst(
        InstKind::Cast {
            op: CastOp::ZExt,
            value: sel,
        },
        i64,
    );
    f.inst(
        InstKind::Cast {
            op: CastOp::FPExt,
            value: h1,
        },
        float,
    );
    (add, fmul, cmp)
}

/// Element, shuffle and aggregate instructions.
fn vector_and_aggregate_insts(b: &mut B, f: &mut F, o: Ops, add: Value) {
    let Ops {
        float,
        v4f,
        v2i,
        st,
        vec,
        one,
        two,
        c0,
        ..
    } = o;
    let elt = f.inst(
        InstKind::ExtractElement {
            vector: vec,
            index: c0,
        },
        float,
    );
    let ins = f.inst(
        InstKind::InsertElement {
            vector: vec,
            element: elt,
            index: one,
        },
        v4f,
    );
    let mask_vals = b.values(&[c0, two]);
    let mask = b.c(v2i, ConstData::Aggregate(mask_vals));
    f.inst(
        InstKind::ShuffleVector {
            v1: ins,
            v2: vec,
            mask,
        },
        b.m.types.intern(TypeData::Vector {
            len: 2,
            elem: float,
        }),
    );
    let sundef = b.c(st, ConstData::Undef);
    let idx0 = f.pool(&[0]);
    let iv = f.inst(
        InstKind::InsertValue {
            aggregate: sundef,
            element: add,
            indices: idx0,
        },
        st,
    );
    let idx1 = f.pool(&[1]);
    f.inst(
        InstKind::ExtractValue {
            aggregate: iv,
            indices: idx1,
        },
        float,
    );
}

/// Allocas, addresses, loads, stores, atomics and fences.
fn memory_insts(b: &mut B, f: &mut F, o: Ops, add: Value) {
    let Ops {
        void,
        i1,
        i32,
        i64,
        i32p,
        arr,
        p3,
        one,
        c0,
        ..
    } = o;
    let arr_p = b.ptr(arr, 0);
    let alloca = f.inst(
        InstKind::Alloca {
            allocated: arr,
            size: one,
            align_field: 3 | (1 << 6),
        },
        arr_p,
    );
    let i64_one = b.ci(i64, 1);
    f.inst(
        InstKind::Alloca {
            allocated: i32,
            size: i64_one,
            align_field: 0,
        },
        b.m.types.intern(TypeData::Pointer {
            pointee: i32,
            address_space: 0,
        }),
    );
    let gep_ops = f.vals(&[alloca, c0, add]);
    let gep = f.inst(
        InstKind::Gep {
            inbounds: true,
            source_ty: arr,
            operands: gep_ops,
        },
        i32p,
    );
    let ld = f.inst(
        InstKind::Load {
            ptr: gep,
            align: 3,
            volatile: true,
            atomic: None,
        },
        i32,
    );
    f.inst(
        InstKind::Store {
            ptr: gep,
            value: ld,
            align: 3,
            volatile: false,
            atomic: Some((Ordering(6), SyncScope(1))),
        },
        void,
    );
    f.inst(
        InstKind::Load {
            ptr: p3,
            align: 3,
            volatile: false,
            atomic: Some((Ordering(2), SyncScope(0))),
        },
        i32,
    );
    f.inst(
        InstKind::AtomicRmw {
            op: RmwOp::Add,
            ptr: p3,
            value: one,
            volatile: false,
            ordering: Ordering(6),
            scope: SyncScope(1),
        },
        i32,
    );
    let pair = b.ty(TypeData::Struct {
        name: None,
        packed: false,
        opaque: false,
        elems: vec![i32, i1],
    });
    f.inst(
        InstKind::CmpXchg {
            ptr: p3,
            cmp: c0,
            new: ld,
            volatile: true,
            success: Ordering(6),
            scope: SyncScope(0),
            failure: Ordering(3),
            weak: true,
        },
        pair,
    );
    f.inst(
        InstKind::Fence {
            ordering: Ordering(5),
            scope: SyncScope(1),
        },
        void,
    );
}

/// The entry block's branch, and the blocks after it: switch, phi, return, unreachable.
fn control_insts(f: &mut F, o: Ops, cmp: Value, fmul: Value) {
    let Ops {
        void,
        i32,
        a0,
        one,
        two,
        c0,
        ..
    } = o;
    let (bb_then, bb_else, bb_join) = (BlockId(1), BlockId(2), BlockId(3));
    f.inst(
        InstKind::CondBr {
            cond: cmp,
            if_true: bb_then,
            if_false: bb_else,
        },
        void,
    );
    f.block(); // then (named)
    let sub = f.inst(
        InstKind::Binary {
            op: BinOp::Sub,
            lhs: c0,
            rhs: a0,
            flags: 2,
        },
        i32,
    );
    let cases = f.pool(&[two.0, bb_join.0, one.0, bb_else.0]);
    f.inst(
        InstKind::Switch {
            cond: sub,
            default: bb_join,
            cases,
        },
        void,
    );
    f.block(); // else (unnamed)
    f.inst(InstKind::Br { dest: bb_join }, void);
    f.block(); // join (unnamed)
    let inc = f.pool(&[sub.0, bb_then.0, c0.0, bb_else.0, sub.0, bb_then.0]);
    f.inst(InstKind::Phi { incoming: inc }, i32);
    f.inst(InstKind::Ret { value: Some(fmul) }, void);
    f.block(); // dead (unnamed, no predecessors)
    f.inst(InstKind::Unreachable, void);
}

#[test]
fn instructions_flags_and_operand_layout() {
    let mut b = B::new();
    let o = inst_ops(&mut b);
    let (fty, bb_then) = (o.fty, BlockId(1));
    let mut f = F::default();
    f.block(); // entry
    let (add, fmul, cmp) = scalar_insts(&mut f, o);
    vector_and_aggregate_insts(&mut b, &mut f, o, add);
    memory_insts(&mut b, &mut f, o, add);
    control_insts(&mut f, o, cmp, fmul);
    let mut body = f.finish();
    body.names.push(LocalName::Arg(1, "x".into()));
    body.names.push(LocalName::Block(bb_then, "then".into()));
    body.names.push(LocalName::Inst(InstId(0), "sum.0".into()));
    b.func("f", fty, None, Some(body));

    let expected = "
define float @f(i32, float %x, <4 x float>, i32 addrspace(3)*) {
  %sum.0 = add nuw nsw i32 %0, 1
  %4 = shl nuw i32 %sum.0, 2
  %5 = lshr exact i32 %4, 2
  %6 = fadd fast float %x, 1.000000e+00
  %7 = fmul nnan nsz arcp float %6, 0x3FB99999A0000000
  %8 = fcmp fast olt float %7, 1.000000e+00
  %9 = icmp sgt i32 %sum.0, 0
  %10 = select i1 %9, i32 %sum.0, i32 1
  %11 = zext i32 %10 to i64
  %12 = fpext half 0xH3C00 to float
  %13 = extractelement <4 x float> %1, i32 0
  %14 = insertelement <4 x float> %1, float %13, i32 1
  %15 = shufflevector <4 x float> %14, <4 x float> %1, <2 x i32> <i32 0, i32 2>
  %16 = insertvalue { i32, float } undef, i32 %sum.0, 0
  %17 = extractvalue { i32, float } %16, 1
  %18 = alloca [4 x i32], align 4
  %19 = alloca i32, i64 1
  %20 = getelementptr inbounds [4 x i32], [4 x i32]* %18, i32 0, i32 %sum.0
  %21 = load volatile i32, i32* %20, align 4
  store atomic i32 %21, i32* %20 seq_cst, align 4
  %22 = load atomic i32, i32 addrspace(3)* %2 singlethread monotonic, align 4
  %23 = atomicrmw add i32 addrspace(3)* %2, i32 1 seq_cst
  %24 = cmpxchg weak volatile i32 addrspace(3)* %2, i32 0, i32 %21 singlethread seq_cst acquire
  fence acq_rel
  br i1 %8, label %then, label %26

then:                                             ; preds = %3
  %25 = sub nsw i32 0, %0
  switch i32 %25, label %27 [
    i32 2, label %27
    i32 1, label %26
  ]

; <label>:26                                      ; preds = %then, %3
  br label %27

; <label>:27                                      ; preds = %26, %then, %then
  %28 = phi i32 [ %25, %then ], [ 0, %26 ], [ %25, %then ]
  ret float %7
                                                  ; No predecessors!
  unreachable
}
";
    assert_text(&b.text(), expected);

    // Without comments: labels of unnamed blocks are blank lines, named labels stay.
    let quiet = b.print(PrintOptions {
        comments: false,
        dxc_annotations: true,
    });
    assert!(quiet.contains("  br i1 %8, label %then, label %26\n\nthen:\n  %25 = sub"));
    assert!(quiet.contains("  ]\n\n  br label %27\n\n  %28 = phi"));
    assert!(quiet.contains("  ret float %7\n\n  unreachable\n}\n"));
}
