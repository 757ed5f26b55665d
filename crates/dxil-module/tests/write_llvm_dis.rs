//! LLVM's own reader must accept what we write: a sample of corpus modules (plain, with shuffled
//! tables, with patchable constants) and a module built by hand, through `llvm-dis-14`.
//! Skipped with a message when `llvm-dis-14` is missing, except under CI.

mod write_support;

use std::path::PathBuf;
use std::process::Command;

use dxil_module::constants::{ConstData, Constant};
use dxil_module::inst::{InstData, InstKind};
use dxil_module::module::{AttrGroup, Attribute, BlockData, Body, FUNCTION_SLOT, Function};
use dxil_module::types::TypeData;
use dxil_module::{
    AttrListId, ConstId, Module, PoolRange, Value, WriteOptions, read_module, write_module,
    write_module_with_sites,
};

fn llvm_dis() -> Option<&'static str> {
    let ok = Command::new("llvm-dis-14")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some("llvm-dis-14")
    } else if std::env::var_os("CI").is_some() {
        panic!("llvm-dis-14 not found (install llvm-14)");
    } else {
        eprintln!("SKIPPED: llvm-dis-14 not found");
        None
    }
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("dxil-write-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `llvm-dis-14` on `bitcode`; returns the listing or the tool's complaint.
fn disassemble(tool: &str, dir: &TempDir, name: &str, bitcode: &[u8]) -> Result<String, String> {
    let bc = dir.0.join(format!("{name}.bc"));
    let ll = dir.0.join(format!("{name}.ll"));
    std::fs::write(&bc, bitcode).unwrap();
    let out = Command::new(tool)
        .arg(&bc)
        .arg("-o")
        .arg(&ll)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    std::fs::read_to_string(&ll).map_err(|e| e.to_string())
}

#[test]
fn llvm_dis_accepts_written_corpus_modules() {
    let Some(tool) = llvm_dis() else { return };
    let Some(programs) = write_support::corpus_programs() else {
        return;
    };
    let dir = TempDir::new("corpus");
    let mut checked = 0;
    for (i, (name, bitcode)) in programs.iter().enumerate().step_by(47) {
        let m = read_module(bitcode, 0).unwrap();
        // Make one integer constant patchable so the output differs from DXC's.
        let patch: Vec<ConstId> = m
            .constants
            .iter()
            .find(|(_, k)| matches!(k.data, ConstData::Int(_)))
            .map(|(c, _)| c)
            .into_iter()
            .collect();
        let plain = write_module(&m, &WriteOptions::default()).unwrap();
        let mut opts = WriteOptions {
            patchable_constants: patch,
            patchable_in_functions: false,
            patchable_late: false,
            compact_bodies: false,
        };
        let patched = write_module_with_sites(&m, &opts).unwrap().bitcode;
        opts.patchable_in_functions = true;
        let in_functions = write_module_with_sites(&m, &opts).unwrap().bitcode;
        opts.patchable_late = true;
        let late = write_module_with_sites(&m, &opts).unwrap().bitcode;
        opts.compact_bodies = true;
        let compact = write_module_with_sites(&m, &opts).unwrap().bitcode;
        // Our own abbreviations change the bits, never the module.
        assert_eq!(
            write_support::dump(&read_module(&compact, 0).unwrap()),
            write_support::dump(&read_module(&late, 0).unwrap()),
            "{name}: compact bodies read back differently"
        );
        for (tag, bc) in [
            ("plain", &plain),
            ("patch", &patched),
            ("patch-fn", &in_functions),
            ("patch-late", &late),
            ("compact", &compact),
        ] {
            if let Err(e) = disassemble(tool, &dir, &format!("{i}-{tag}"), bc) {
                panic!("{name} ({tag}): llvm-dis-14 rejects our bitcode: {e}");
            }
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} modules sampled");
}

/// A compute shader built through the model API, the way a text parser would build it: no
/// kind table, constants in use order, duplicate constants.
fn hand_built() -> Module {
    let mut m = Module {
        version: 1,
        triple: "dxil-ms-dx".into(),
        datalayout:
            "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64".into(),
        ..Module::default()
    };
    let t = &mut m.types;
    let i32t = t.int(32);
    let void = t.intern(TypeData::Void);
    let main_ty = t.intern(TypeData::Function {
        vararg: false,
        ret: void,
        params: vec![],
    });
    let main_ptr = t.pointer_to(main_ty, 0);
    let tid_ty = t.intern(TypeData::Function {
        vararg: false,
        ret: i32t,
        params: vec![i32t, i32t],
    });
    let tid_ptr = t.pointer_to(tid_ty, 0);
    let i64t = t.int(64);
    m.attr_groups.push(AttrGroup {
        id: 7,
        slot: FUNCTION_SLOT,
        // readnone nounwind: LLVM keeps them sorted (nounwind first).
        attrs: vec![Attribute::Enum(20), Attribute::Enum(18)],
    });
    m.attr_lists.push(vec![7]);

    let c93 = m.constants.int(i32t, 93);
    let c0 = m.constants.int(i32t, 0);
    let c93b = m.constants.push(Constant {
        ty: i32t,
        data: ConstData::Int(93),
    });
    let c1 = m.constants.int(i32t, 1);
    let mut body = Body::default();
    let call = |callee: u32, args: PoolRange| InstKind::Call {
        callee: Value::function(dxil_module::FuncId(callee)),
        fn_ty: tid_ty,
        attrs: Some(AttrListId(0)),
        cc_flags: 0,
        args,
    };
    let a0 = PoolRange::push(
        &mut body.pool,
        &[Value::constant(c93).0, Value::constant(c0).0],
    );
    let a1 = PoolRange::push(
        &mut body.pool,
        &[Value::constant(c93b).0, Value::constant(c1).0],
    );
    body.insts.push(InstData {
        kind: call(1, a0),
        ty: i32t,
    });
    body.insts.push(InstData {
        kind: call(1, a1),
        ty: i32t,
    });
    body.insts.push(InstData {
        kind: InstKind::Binary {
            op: dxil_module::BinOp::Add,
            lhs: Value::inst(dxil_module::InstId(0)),
            rhs: Value::inst(dxil_module::InstId(1)),
            flags: 0,
        },
        ty: i32t,
    });
    body.insts.push(InstData {
        kind: InstKind::Ret { value: None },
        ty: void,
    });
    body.blocks.push(BlockData { start: 0, end: 4 });
    let func = Function::new;
    m.functions
        .push(func("main", main_ty, main_ptr, None, Some(body)));
    m.functions.push(func(
        "dx.op.threadId.i32",
        tid_ty,
        tid_ptr,
        Some(AttrListId(0)),
        None,
    ));

    // !dx.entryPoints = !{!{void ()* @main, !"main", null, null, !{i32 0, i64 16, i32 4, !{i32 8, i32 1, i32 1}}}}
    let md = &mut m.metadata;
    let v = |md: &mut dxil_module::Metadata, ty, value| {
        md.push(dxil_module::MdData::Value { ty, value })
    };
    let f_main = v(md, main_ptr, Value::function(dxil_module::FuncId(0)));
    let name = md.push_string(b"main");
    let c8 = m.constants.int(i32t, 8);
    let c4 = m.constants.int(i32t, 4);
    let c16 = m.constants.int(i64t, 16);
    let md = &mut m.metadata;
    let m8 = v(md, i32t, Value::constant(c8));
    let m1 = v(md, i32t, Value::constant(c1));
    let m0 = v(md, i32t, Value::constant(c0));
    let m4 = v(md, i32t, Value::constant(c4));
    let m16 = v(md, i64t, Value::constant(c16));
    let threads = md.push_node(false, &[Some(m8), Some(m1), Some(m1)]);
    let props = md.push_node(false, &[Some(m0), Some(m16), Some(m4), Some(threads)]);
    let entry = md.push_node(false, &[Some(f_main), Some(name), None, None, Some(props)]);
    md.push_named("dx.entryPoints", &[entry]);
    m
}

#[test]
fn hand_built_module_round_trips_and_disassembles() {
    let m = hand_built();
    let out = write_module(&m, &WriteOptions::default()).unwrap();
    let back = read_module(&out, 0).unwrap();
    // The default kind table stands in for the missing one.
    let kinds: Vec<&str> = back
        .metadata
        .kinds
        .iter()
        .map(|k| k.name.as_ref())
        .collect();
    assert_eq!(kinds, dxil_module::write::DXC_DEFAULT_KINDS);
    // The duplicate `i32 93` became one constant; the module reads back to the same meaning.
    let mut m2 = m.clone();
    m2.metadata.kinds = back.metadata.kinds.clone();
    m2.attr_groups[0].attrs.reverse();
    assert_eq!(write_support::dump(&back), write_support::dump(&m2));
    // Writing what we read gives the same bytes again.
    assert_eq!(write_module(&back, &WriteOptions::default()).unwrap(), out);
    let ints: Vec<i64> = back
        .constants
        .iter()
        .filter_map(|(_, k)| match k.data {
            ConstData::Int(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(ints.iter().filter(|&&v| v == 93).count(), 1);

    let Some(tool) = llvm_dis() else { return };
    let dir = TempDir::new("hand");
    let text = disassemble(tool, &dir, "hand", &out).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("call i32 @dx.op.threadId.i32(i32 93, i32 0)"),
        "{text}"
    );
    assert!(text.contains("add i32 %1, %2"), "{text}");
    assert!(text.contains("!dx.entryPoints = !{!"), "{text}");
}
