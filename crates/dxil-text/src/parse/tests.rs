//! Unit tests: each construct parses into the model the bitcode reader would build, prints back
//! as written, and malformed text fails with the right position.

use dxil_module::{
    Attribute, BlockId, CastOp, ConstData, FUNCTION_SLOT, InstKind, LocalName, MdData, Module,
    Ordering, TypeData, Value, ValueRef,
};

use super::{MAX_DEPTH, parse_module};

const HEADER: &str = "target datalayout = \"e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64\"\ntarget triple = \"dxil-ms-dx\"\n";

fn parse(text: &str) -> Module {
    match parse_module(text) {
        Ok(m) => {
            dxil_module::check::check_ids(&m).unwrap();
            m
        }
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Parses, prints without comments, and compares with the input (which must be written the
/// way the printer writes it).
fn round_trip(text: &str) -> Module {
    let m = parse(text);
    let opts = crate::PrintOptions {
        comments: false,
        dxc_annotations: false,
    };
    let mut out = String::new();
    crate::print_module_with(&m, &opts, &mut out).unwrap();
    assert_eq!(out, text, "printed text differs");
    m
}

fn err(text: &str) -> super::ParseError {
    match parse_module(text) {
        Ok(_) => panic!("parsed but should not:\n{text}"),
        Err(e) => e,
    }
}

/// The error's position is that of `needle`'s first occurrence on line `line`.
fn err_at(text: &str, line: u32, needle: &str, msg_part: &str) {
    let e = err(text);
    let l = text.lines().nth(line as usize - 1).unwrap_or("");
    let col = l[..l.find(needle).unwrap()].chars().count() as u32 + 1;
    assert_eq!(
        (e.line, e.column),
        (line, col),
        "error '{}' at the wrong place",
        e.message
    );
    assert!(
        e.message.contains(msg_part),
        "'{}' does not mention '{msg_part}'",
        e.message
    );
}

fn body(m: &Module, f: usize) -> &dxil_module::Body {
    m.functions[f].body.as_ref().unwrap()
}

#[test]
fn a_small_shader_round_trips() {
    let text = format!(
        "{HEADER}
%dx.types.Handle = type {{ i8* }}
%dx.types.CBufRet.f32 = type {{ float, float, float, float }}

define void @main() {{
  %1 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 2, i32 0, i32 0, i1 false)
  %2 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %1, i32 0)
  %3 = extractvalue %dx.types.CBufRet.f32 %2, 0
  %4 = fadd fast float %3, 1.000000e+00
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %4)
  ret void
}}

declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #0

declare %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32, %dx.types.Handle, i32) #0

declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

attributes #0 = {{ nounwind readonly }}
attributes #1 = {{ nounwind }}

!llvm.ident = !{{!0}}
!dx.entryPoints = !{{!1}}

!0 = !{{!\"dxc 1.9\"}}
!1 = !{{void ()* @main, !\"main\", null, null, !2}}
!2 = !{{i32 0, i64 16}}
"
    );
    let m = round_trip(&text);
    assert_eq!(m.version, 1);
    assert_eq!(m.triple, "dxil-ms-dx");
    assert_eq!(m.functions.len(), 4);
    let main = &m.functions[0];
    assert!(!main.is_proto && main.body.is_some() && main.attrs.is_none());
    let decl = &m.functions[1];
    assert!(decl.is_proto && decl.body.is_none());
    // The calls name functions declared after them.
    let b = body(&m, 0);
    let InstKind::Call { callee, args, .. } = &b.insts[0].kind else {
        panic!("not a call")
    };
    assert_eq!(callee.get(), ValueRef::Function(dxil_module::FuncId(1)));
    assert_eq!(m.const_int(b.values(*args).next().unwrap()), Some(57));
    // Zero is a null constant, as bitcode stores it; i1 false too.
    let last = b.values(*args).last().unwrap();
    assert_eq!(
        m.constants.get(last.as_const().unwrap()).unwrap().data,
        ConstData::Null
    );
    let InstKind::Binary { flags, .. } = &b.insts[3].kind else {
        panic!()
    };
    assert_eq!(*flags, 31, "fast sets every fast-math bit");
    // Groups: one per slot and content, with LLVM 3.7's kind codes.
    let fn_groups: Vec<_> = m
        .attr_groups
        .iter()
        .filter(|g| g.slot == FUNCTION_SLOT)
        .map(|g| g.attrs.clone())
        .collect();
    assert!(fn_groups.contains(&vec![Attribute::Enum(18), Attribute::Enum(21)]));
    assert!(fn_groups.contains(&vec![Attribute::Enum(18)]));
    assert_eq!(m.functions[1].attrs, m.functions[2].attrs);
    assert_ne!(m.functions[1].attrs, m.functions[3].attrs);
    // Metadata: the string is shared, the value wraps the function.
    assert!(m.metadata.items.iter().any(|i| matches!(
        i,
        MdData::Value { value, .. } if *value == Value::function(dxil_module::FuncId(0))
    )));
    assert_eq!(m.metadata.named.len(), 2);
}

#[test]
fn globals_constants_and_strings() {
    let text = format!(
        "{HEADER}
%struct.S = type {{ i32, [2 x float], <2 x half> }}

@\"\\01?x@@3PAMA\" = external addrspace(3) global [4 x float], align 4
@g = internal unnamed_addr constant [3 x i32] [i32 1, i32 -2, i32 2147483647], align 4
@z = internal global [4294967295 x %struct.S] zeroinitializer
@s = internal constant %struct.S {{ i32 7, [2 x float] [float 0x36A0000000000000, float -0.000000e+00], <2 x half> <half 0xH3C00, half 0xH0000> }}
@c = private constant [4 x i8] c\"ab\\0A\\00\"
@d = private constant [3 x i8] c\"a\\00b\"
@u = internal global [2 x i64] [i64 -9223372036854775808, i64 9223372036854775807]
@e = internal global [2 x double] [double 0x7FF8000000000000, double 1.500000e+00]
@p = internal global i32* getelementptr inbounds ([3 x i32], [3 x i32]* @g, i32 0, i32 1)
@q = internal global i8* bitcast ([4 x i8]* @c to i8*)
@r = internal global i8 addrspace(3)* addrspacecast (i8* bitcast ([3 x i8]* @d to i8*) to i8 addrspace(3)*)
@v = internal global <4 x i1> <i1 true, i1 false, i1 true, i1 true>
@w = internal global {{ i32, i32 }} undef
"
    );
    let m = round_trip(&text);
    let g = &m.globals[0];
    assert_eq!(g.name, "\u{1}?x@@3PAMA");
    assert_eq!((g.address_space, g.align, g.linkage), (3, 3, 0));
    assert!(g.init.is_none() && g.record_len == 6);
    let g = &m.globals[1];
    assert_eq!((g.linkage, g.unnamed_addr, g.record_len), (3, 1, 12));
    assert!(g.is_constant);
    let data = |i: usize| {
        &m.constants
            .get(m.globals[i].init.unwrap().as_const().unwrap())
            .unwrap()
            .data
    };
    let ConstData::Data(r) = data(1) else {
        panic!("plain integers form a data array")
    };
    assert_eq!(m.constants.words_of(*r), &[1, 0xFFFF_FFFE, 0x7FFF_FFFF]);
    assert_eq!(data(2), &ConstData::Null);
    assert!(matches!(data(3), ConstData::Aggregate(_)));
    let ConstData::CString(r) = data(4) else {
        panic!("a string ending in its only NUL is a C string")
    };
    assert_eq!(m.constants.bytes_of(*r), b"ab\n");
    let ConstData::String(r) = data(5) else {
        panic!()
    };
    assert_eq!(m.constants.bytes_of(*r), b"a\0b");
    let ConstData::Data(r) = data(6) else {
        panic!()
    };
    assert_eq!(m.constants.words_of(*r), &[1 << 63, i64::MAX as u64]);
    let ConstData::Gep {
        inbounds,
        source_ty,
        operands,
    } = data(8)
    else {
        panic!()
    };
    assert!(*inbounds && source_ty.is_some() && operands.len == 3);
    assert!(matches!(
        data(9),
        ConstData::Cast {
            op: CastOp::BitCast,
            ..
        }
    ));
    assert!(matches!(data(12), ConstData::Undef));
    // The float element of the struct: a denormal double-spelled float and -0.0.
    let ConstData::Aggregate(r) = data(3) else {
        panic!()
    };
    let arr = m.constants.values_of(*r)[1];
    let ConstData::Data(w) = &m.constants.get(arr.as_const().unwrap()).unwrap().data else {
        panic!()
    };
    assert_eq!(m.constants.words_of(*w), &[1, 0x8000_0000]);
}

#[test]
fn instructions_of_every_kind() {
    let text = format!(
        "{HEADER}
%pair = type {{ i32, float }}

@lds = addrspace(3) global [4 x i32] undef, align 4

define float @f(i32 %n, float) #0 {{
entry:
  %1 = alloca [4 x float], align 4
  %2 = alloca i32, i32 %n, align 8
  %3 = getelementptr inbounds [4 x float], [4 x float]* %1, i32 0, i32 %n
  store volatile float %0, float* %3, align 4
  %4 = load float, float* %3, align 4
  %5 = add nuw nsw i32 %n, 1
  %6 = shl nsw i32 %5, 2
  %7 = udiv exact i32 %6, 4
  %8 = icmp ult i32 %7, 10
  %9 = fcmp fast olt float %4, 0.000000e+00
  %10 = and i1 %8, %9
  %11 = select i1 %10, float %4, float 1.000000e+00
  %12 = insertelement <2 x float> undef, float %11, i32 0
  %13 = shufflevector <2 x float> %12, <2 x float> undef, <2 x i32> zeroinitializer
  %14 = extractelement <2 x float> %13, i32 1
  %15 = insertvalue %pair undef, float %14, 1
  %16 = extractvalue %pair %15, 1
  %17 = fptoui float %16 to i32
  %18 = sitofp i32 %17 to double
  %19 = fptrunc double %18 to half
  %20 = fpext half %19 to float
  %21 = atomicrmw add i32 addrspace(3)* getelementptr inbounds ([4 x i32], [4 x i32] addrspace(3)* @lds, i32 0, i32 1), i32 1 seq_cst
  %22 = cmpxchg i32 addrspace(3)* getelementptr inbounds ([4 x i32], [4 x i32] addrspace(3)* @lds, i32 0, i32 2), i32 %21, i32 0 seq_cst seq_cst
  %23 = load atomic i32, i32* %2 singlethread acquire, align 4
  fence release
  switch i32 %23, label %loop [
    i32 0, label %exit
    i32 7, label %5
  ]

loop:
  %24 = phi i32 [ 0, %entry ], [ %26, %loop ], [ %25, %5 ]
  %25 = add i32 %24, 1
  %26 = mul i32 %25, 3
  %27 = icmp eq i32 %26, 9
  br i1 %27, label %exit, label %loop, !llvm.loop !0

; <label>:28
  br label %loop

exit:
  ret float %20
}}

attributes #0 = {{ nounwind \"fp32-denorm-mode\"=\"ftz\" }}

!0 = distinct !{{!0, !1}}
!1 = !{{!\"llvm.loop.unroll.disable\"}}
"
    );
    // The numbered block `%5` is a forward reference to the block after `loop`: its number is
    // 28 in the text above, so use the right one.
    let text = text
        .replace("label %5", "label %28")
        .replace("%25, %5 ]", "%25, %28 ]");
    let m = parse(&text);
    let f = &m.functions[0];
    let b = f.body.as_ref().unwrap();
    assert_eq!(b.blocks.len(), 4);
    assert!(b.names.contains(&LocalName::Arg(0, "n".into())));
    assert!(
        b.names
            .contains(&LocalName::Block(BlockId(1), "loop".into()))
    );
    assert!(
        b.names
            .contains(&LocalName::Block(BlockId(3), "exit".into()))
    );
    let kinds: Vec<&InstKind> = b.insts.iter().map(|i| &i.kind).collect();
    let InstKind::Alloca {
        align_field, size, ..
    } = kinds[0]
    else {
        panic!()
    };
    assert_eq!(*align_field, 64 | 3, "explicit-type bit and align 4");
    assert_eq!(m.const_int(*size), Some(1));
    let InstKind::Alloca {
        align_field, size, ..
    } = kinds[1]
    else {
        panic!()
    };
    assert_eq!((*align_field, *size), (64 | 4, Value::arg(0)));
    assert!(matches!(
        kinds[3],
        InstKind::Store {
            volatile: true,
            align: 3,
            atomic: None,
            ..
        }
    ));
    assert!(matches!(kinds[5], InstKind::Binary { flags: 3, .. }));
    assert!(matches!(kinds[7], InstKind::Binary { flags: 1, .. }));
    let InstKind::Cmp { flags, pred, .. } = kinds[9] else {
        panic!()
    };
    assert_eq!((*flags, pred.0), (31, 4));
    assert!(matches!(
        kinds[23],
        InstKind::Load {
            atomic: Some((Ordering(3), dxil_module::SyncScope(0))),
            ..
        }
    ));
    let rt = b.insts[22].ty;
    assert!(
        matches!(m.types.data(rt), TypeData::Struct { name: None, elems, .. } if elems.len() == 2)
    );
    let InstKind::Switch { default, cases, .. } = kinds[25] else {
        panic!()
    };
    assert_eq!(*default, BlockId(1));
    let cases: Vec<_> = b.switch_cases(*cases).map(|(_, blk)| blk).collect();
    assert_eq!(cases, vec![BlockId(3), BlockId(2)]);
    let InstKind::Phi { incoming } = kinds[26] else {
        panic!()
    };
    let inc: Vec<_> = b.phi_incoming(*incoming).collect();
    assert_eq!(inc[1], (Value::inst(dxil_module::InstId(28)), BlockId(1)));
    assert_eq!(inc[2].1, BlockId(2));
    assert_eq!(b.attachments.len(), 1);
    assert_eq!(
        m.metadata.kind_name(b.attachments[0].kind),
        Some("llvm.loop")
    );
    // A distinct node that names itself.
    let node = b.attachments[0].node;
    assert!(matches!(
        m.metadata.get(node),
        Some(MdData::Node { distinct: true, .. })
    ));
    assert_eq!(m.metadata.node_operands(node).next(), Some(Some(node)));
    // The printer's text of the module parses to the same text again.
    let printed = crate::module_to_string(&m);
    assert_eq!(crate::module_to_string(&parse(&printed)), printed);
}

#[test]
fn call_forms_attributes_and_metadata_arguments() {
    let text = format!(
        "{HEADER}
define void @main() {{
  %1 = call float (i32, ...) @v(i32 1, float 2.000000e+00)
  %2 = tail call zeroext i1 @z(i8* nocapture null) #1
  call void @llvm.dbg.value(metadata float %1, i64 0, metadata !0, metadata !{{}})
  ret void
}}

declare float @v(i32, ...)

declare zeroext i1 @z(i8* nocapture) #0

declare void @llvm.dbg.value(metadata, i64, metadata, metadata) #0

attributes #0 = {{ nounwind readnone }}
attributes #1 = {{ nounwind }}

!0 = !{{!\"x\"}}
"
    );
    let m = parse(&text);
    let b = body(&m, 0);
    let InstKind::Call {
        fn_ty, cc_flags, ..
    } = &b.insts[0].kind
    else {
        panic!()
    };
    assert!(matches!(
        m.types.data(*fn_ty),
        TypeData::Function { vararg: true, .. }
    ));
    assert_eq!(*cc_flags, 0);
    let InstKind::Call {
        cc_flags, attrs, ..
    } = &b.insts[1].kind
    else {
        panic!()
    };
    assert_eq!(*cc_flags, 1);
    let groups: Vec<_> = m.attr_list(attrs.unwrap()).collect();
    assert!(
        groups
            .iter()
            .any(|g| g.slot == 0 && g.attrs == [Attribute::Enum(34)])
    );
    assert!(
        groups
            .iter()
            .any(|g| g.slot == 1 && g.attrs == [Attribute::Enum(11)])
    );
    assert!(
        groups
            .iter()
            .any(|g| g.slot == FUNCTION_SLOT && g.attrs == [Attribute::Enum(18)])
    );
    let InstKind::Call { args, .. } = &b.insts[2].kind else {
        panic!()
    };
    let a: Vec<Value> = b.values(*args).collect();
    let ValueRef::Metadata(md) = a[0].get() else {
        panic!()
    };
    assert!(matches!(
        m.metadata.get(md),
        Some(MdData::Value { value, .. }) if *value == Value::inst(dxil_module::InstId(0))
    ));
    assert!(matches!(a[3].get(), ValueRef::Metadata(_)));
    let printed = crate::module_to_string(&m);
    assert!(printed.contains("tail call zeroext i1 @z(i8* nocapture null) #1"));
    assert_eq!(crate::module_to_string(&parse(&printed)), printed);
}

#[test]
fn kind_table_follows_dxc() {
    let text = format!(
        "{HEADER}
define void @main() {{
  %1 = fadd fast float 1.000000e+00, 2.000000e+00, !dx.precise !0
  ret void
}}

!0 = !{{i32 1}}
"
    );
    let m = parse(&text);
    let names: Vec<&str> = m.metadata.kinds.iter().map(|k| k.name.as_ref()).collect();
    assert_eq!(names[..2], ["dbg", "tbaa"]);
    assert_eq!(
        names[14..],
        ["dx.precise", "dx.dbg.varlayout", "dx.temp"],
        "without readnone functions DXC registers dx.dbg.varlayout first"
    );
    let b = body(&m, 0);
    assert_eq!(b.attachments[0].kind, 14);
    let ids: Vec<u32> = m.metadata.kinds.iter().map(|k| k.id).collect();
    assert_eq!(ids, (0..17).collect::<Vec<u32>>());
}

#[test]
fn kind_table_comment_gives_the_table() {
    // Ids follow the line; `dx.precise` keeps its place, the unlisted `llvm.loop` is appended,
    // and escapes in names are decoded.
    let text = format!(
        "; a summary comment\n\n; dxil-metadata-kinds: !dbg !dx.temp !dx.precise !a\\20b\n{HEADER}
define void @main() {{
  %1 = fadd fast float 1.000000e+00, 2.000000e+00, !dx.precise !0, !llvm.loop !0
  ret void
}}

!0 = !{{i32 1}}
"
    );
    let m = parse(&text);
    let names: Vec<&str> = m.metadata.kinds.iter().map(|k| k.name.as_ref()).collect();
    assert_eq!(names, ["dbg", "dx.temp", "dx.precise", "a b", "llvm.loop"]);
    let kinds: Vec<u32> = body(&m, 0).attachments.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [2, 4]);
    // The printer writes the line back, first, and a second parse keeps the table.
    let printed = crate::module_to_string(&m);
    assert!(
        printed
            .starts_with("; dxil-metadata-kinds: !dbg !dx.temp !dx.precise !a\\20b !llvm.loop\n")
    );
    let again = parse(&printed);
    assert_eq!(again.metadata.kinds, m.metadata.kinds);
    assert_eq!(crate::module_to_string(&again), printed);
    // The line counts only before the first line of code.
    let late = format!("{HEADER}; dxil-metadata-kinds: !dbg\n");
    assert_ne!(parse(&late).metadata.kinds.len(), 1);
}

#[test]
fn malformed_kind_table_comments_fail_where_they_go_wrong() {
    err_at(
        "; dxil-metadata-kinds: !dbg tbaa\n",
        1,
        "tbaa",
        "expected '!name'",
    );
    err_at(
        "\n  ; dxil-metadata-kinds: !dbg ! !x\n",
        2,
        "! !x",
        "kind name",
    );
    let e = err("; dxil-metadata-kinds: !dbg !tbaa !dbg\n");
    assert_eq!((e.line, e.column), (1, 35));
    assert!(e.message.contains("listed twice"), "{}", e.message);
}

#[test]
fn named_types_may_be_used_before_their_definition() {
    let text = "%a = type { %b*, i32 }\n%b = type { %a, <{ i8, i16 }> }\n%o = type opaque\n@x = external global %b\n@y = external global %o\n";
    let m = parse(text);
    let b = m.types.find_struct("b").unwrap();
    let TypeData::Struct { elems, opaque, .. } = m.types.data(b) else {
        panic!()
    };
    assert!(!opaque);
    assert_eq!(elems[0], m.types.find_struct("a").unwrap());
    assert!(matches!(
        m.types.data(m.types.find_struct("o").unwrap()),
        TypeData::Struct { opaque: true, .. }
    ));
}

#[test]
fn numbered_globals_and_quoted_labels() {
    let text = "@0 = internal global i32 0\n@1 = internal global i32* @0\n\ndefine void @f() {\n\"a b\":\n  br label %\"a b\"\n}\n";
    let m = parse(text);
    assert_eq!(m.globals[0].name, "");
    assert_eq!(
        m.globals[1].init,
        Some(Value::global(dxil_module::GlobalId(0)))
    );
    assert!(
        body(&m, 0)
            .names
            .contains(&LocalName::Block(BlockId(0), "a b".into()))
    );
    err_at("@1 = global i32 0\n", 1, "@1", "numbered '@0'");
}

#[test]
fn errors_name_line_column_and_expectation() {
    err_at(
        "define void @main() {\n  ret i32 0\n}\n",
        2,
        "i32",
        "result type",
    );
    err_at(
        "define void @main() {\n  %1 = add i32 %x, 1\n  ret void\n}\n",
        2,
        "%x",
        "undefined value '%x'",
    );
    err_at(
        "define void @main() {\n  call void @nowhere()\n  ret void\n}\n",
        2,
        "@nowhere",
        "undefined value '@nowhere'",
    );
    err_at("!0 = !{!1}\n", 1, "!1", "undefined metadata '!1'");
    err_at("@g = external global %T\n", 1, "%T", "undefined type '%T'");
    err_at(
        "define void @main() #3 {\n  ret void\n}\n",
        1,
        "#3",
        "undefined attribute group #3",
    );
    err_at(
        "define void @main() {\n  %1 = add i32 1, 2\n  %1 = add i32 1, 2\n  ret void\n}\n",
        3,
        "%1",
        "numbered '%2'",
    );
    err_at(
        "define void @main() {\n  %x = call void @f()\n  ret void\n}\ndeclare void @f()\n",
        2,
        "%x",
        "void",
    );
    err_at(
        "define void @main() {\n  %1 = fadd float 1.0, 2\n  ret void\n}\n",
        2,
        "2",
        "integer constant",
    );
    err_at("@g = global i32 0.5\n", 1, "0.5", "floating-point");
    err_at(
        "@g = global float 1.000000e-01\n",
        1,
        "1.0",
        "invalid for type 'float'",
    );
    err_at("@g = global i8 c\"ab\"\n", 1, "c\"", "2 bytes");
    err_at("@g = global [2 x i32] [i32 1]\n", 1, "[i32", "1 elements");
    err_at(
        "@g = global [1 x i32] [i32 1, i32 2]\n",
        1,
        "i32 2",
        "more than 1",
    );
    err_at(
        "@g = global i32* @g2\n@g2 = global i8 0\n",
        1,
        "@g2",
        "'@g2' is defined with type",
    );
    err_at(
        "define void @main() {\n  br label %nowhere\n}\n",
        2,
        "%nowhere",
        "undefined label",
    );
    err_at(
        "define void @main() {\n  %1 = add i32 1, 2\n}\n",
        3,
        "}",
        "terminator",
    );
    err_at("define void @main() {\n  ret void\n", 3, "", "'}'");
    err_at("target triple = \"x\nfoo", 1, "\"x", "unterminated string");
    err_at("@g = global i32 0, align 6\n", 1, "6", "power of two");
    let e = err("\n\n  @g = global i32 0, section");
    assert_eq!((e.line, e.column), (3, 29));
    assert!(e.message.contains("section name"), "{}", e.message);
    // Columns count characters.
    let e = err("@\"é\" = global i32 zz\n");
    assert_eq!((e.line, e.column), (1, 19));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let ty = format!(
        "@g = external global {}i32{}\n",
        "[1 x ".repeat(depth),
        "]".repeat(depth)
    );
    assert!(err(&ty).message.contains("nesting"));
    let ptrs = format!("@g = external global i32{}\n", "*".repeat(depth));
    assert!(
        parse_module(&ptrs).is_ok(),
        "pointer depth is a loop, not recursion"
    );
    let st = format!(
        "@g = external global {}i32{}\n",
        "{ ".repeat(depth),
        " }".repeat(depth)
    );
    assert!(err(&st).message.contains("nesting"));
    let ce = format!(
        "@g = global i32 0\n@h = global i32* {}@g{}\n",
        "bitcast (i32* ".repeat(depth),
        " to i32*)".repeat(depth)
    );
    assert!(err(&ce).message.contains("nesting"));
    let md = format!("!0 = !{{{}}}\n", "!{".repeat(depth) + &"}".repeat(depth));
    assert!(err(&md).message.contains("nested"));
    let fnty = format!("@g = external global i32{}\n", " (i32".repeat(depth));
    assert!(err(&fnty).message.contains("nesting"));
    // Just under the limit is fine.
    let ok = format!(
        "@g = external global {}i32{}\n",
        "[1 x ".repeat(MAX_DEPTH as usize - 1),
        "]".repeat(MAX_DEPTH as usize - 1)
    );
    parse(&ok);
    // The deepest accepted nesting fits comfortably in a small thread stack, even unoptimized.
    let deepest = format!(
        "@g = global i32 0\n@h = global i32* {}@g{}\n",
        "bitcast (i32* ".repeat(MAX_DEPTH as usize - 2),
        " to i32*)".repeat(MAX_DEPTH as usize - 2)
    );
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || parse(&deepest))
        .unwrap()
        .join()
        .unwrap();
    let md_ok = format!(
        "!n = !{{!0}}\n!0 = !{{{}}}\n",
        "!{".repeat(50) + &"}".repeat(50)
    );
    let m = round_trip_md(&md_ok);
    assert_eq!(m.metadata.len(), 51);
}

fn round_trip_md(text: &str) -> Module {
    let m = parse(text);
    let printed = crate::module_to_string(&m);
    assert_eq!(crate::module_to_string(&parse(&printed)), printed);
    m
}

#[test]
fn numbers_from_the_text_size_nothing() {
    // Huge counts are fine as types and refused as element lists, without allocating.
    parse("@g = internal global [4294967295 x [4294967295 x i32]] zeroinitializer\n");
    assert!(
        err("@g = global <4294967296 x i32> zeroinitializer\n")
            .message
            .contains("vector length")
    );
    assert!(err("!4294967295 = !{}\n").message.contains("too large"));
    assert!(err("!n = !{!99999}\n").message.contains("too large"));
    // Large numbers that fit the text are kept sparsely.
    let far = format!("!n = !{{!70000}}\n!70000 = !{{}}\n{}", " ".repeat(70_000));
    assert_eq!(parse(&far).metadata.named[0].operands.len, 1);
    let e = err(&format!("!n = !{{!70001}}\n{}", " ".repeat(70_000)));
    assert!(
        e.message.contains("undefined metadata '!70001'"),
        "{}",
        e.message
    );
    assert!(
        err("%1 = type { i32 }\n@g = global i8388608 -1\n")
            .message
            .contains("not supported")
    );
    assert!(
        err("@g = global i32 0, align 4294967296\n")
            .message
            .contains("alignment")
    );
    parse("@g = internal global i128 -170141183460469231731687303715884105728\n");
}

#[test]
fn wide_integers_and_truncation() {
    let m = parse(
        "@a = internal global i128 18446744073709551616\n@b = internal global i8 255\n@c = internal global i1 true\n@d = internal global i96 -1\n",
    );
    let data = |i: usize| {
        m.constants
            .get(m.globals[i].init.unwrap().as_const().unwrap())
            .unwrap()
            .data
            .clone()
    };
    let ConstData::WideInt(r) = data(0) else {
        panic!()
    };
    assert_eq!(m.constants.words_of(r), &[0, 1]);
    assert_eq!(data(1), ConstData::Int(-1));
    assert_eq!(data(2), ConstData::Int(-1));
    let printed = crate::module_to_string(&m);
    assert!(printed.contains("i128 18446744073709551616"), "{printed}");
    assert!(printed.contains("i8 -1") && printed.contains("i1 true") && printed.contains("i96 -1"));
}

#[test]
fn comments_and_blank_lines_are_ignored() {
    let text = format!(
        "; header comment\n{HEADER}\n; Function Attrs: nounwind\ndefine void @main() {{ ; trailing\n  br label %1\n\n; <label>:1                                       ; preds = %0\n  ret void ; done\n}}\n"
    );
    let m = parse(&text);
    assert_eq!(body(&m, 0).blocks.len(), 2);
}

#[test]
fn fuzz_body_handles_odd_inputs() {
    for input in [
        &b""[..],
        b"\xff\xfe",
        b"define",
        b"@g = global i32 0\n",
        b"define void @f() {\n  ret void\n}\n",
        b"!0 = distinct !{!0}\n!n = !{!0}\n",
        // Strings the printer writes verbatim stay verbatim (found by fuzzing).
        b"target datalayout = \"a\\\\b\\22\"\ndefine void @f() #0 {\n  ret void\n}\nattributes #0 = { \"k\\22\"=\"v\\\\\" }\n",
        // An empty kind table line means "no table" (found by fuzzing).
        b"; dxil-metadata-kinds:",
        b"\r; dxil-metadata-kinds:\n@g = global i32 0\n",
    ] {
        super::fuzz::fuzz_text(input);
    }
}
