use super::*;

const FILE: &str = "/cases/dir/case.toml";

const V1_HEAD: &str = "shader = \"a.dxil\"\ndispatch = [1, 1, 1]\n";
const V2_HEAD: &str = "shader = \"a.dxil\"\ndispatch = [1, 1, 1]\nroot_signature = \"embedded\"\n";

fn ok(text: &str) -> Case {
    Case::parse(text, FILE).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> CaseError {
    match Case::parse(text, FILE) {
        Ok(case) => panic!("expected an error, parsed {case:?}"),
        Err(e) => e,
    }
}

/// Asserts the error's kind (by a variant check), key path and message fragment.
#[track_caller]
fn check(e: CaseError, variant: fn(&CaseError) -> bool, at: &str, fragment: &str) {
    assert!(variant(&e), "wrong kind: {e:?}");
    assert_eq!(e.at(), Some(at), "{e}");
    let text = e.to_string();
    assert!(text.starts_with(FILE), "{text}");
    assert!(text.contains(fragment), "`{text}` lacks `{fragment}`");
}

fn unknown(e: &CaseError) -> bool {
    matches!(e, CaseError::UnknownKey { .. })
}
fn missing(e: &CaseError) -> bool {
    matches!(e, CaseError::MissingKey { .. })
}
fn wrong_type(e: &CaseError) -> bool {
    matches!(e, CaseError::WrongType { .. })
}
fn invalid(e: &CaseError) -> bool {
    matches!(e, CaseError::Invalid { .. })
}
fn data_file(e: &CaseError) -> bool {
    matches!(e, CaseError::DataFile { .. })
}

fn v1(resources: &str) -> String {
    format!("{V1_HEAD}{resources}")
}

fn raw_u0(extra: &str) -> String {
    v1(&format!(
        "[[resource]]\nbind = \"u0\"\nkind = \"raw\"\nsize = 16\ninit = \"zero\"\n{extra}"
    ))
}

/// A unique scratch folder with the given files.
fn scratch(files: &[(&str, &[u8])]) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "dxil-runtime-case-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir
}

#[test]
fn full_v1_case() {
    let case = ok(r#"
shader = "add.dxil"
entry = "main"
dispatch = [4, 1, 1]

[[resource]]
bind = "t0"
space = 2
kind = "structured"
stride = 16
format = "r32_uint"
size = 1024
init = "iota-u32"
"#
    .replace("format = \"r32_uint\"\n", "")
    .as_str());
    assert_eq!(case.shader, Path::new("/cases/dir/add.dxil"));
    assert_eq!(case.entry.as_deref(), Some("main"));
    assert_eq!(case.dispatch, Some([4, 1, 1]));
    assert_eq!(case.version(), 1);
    let Binding::Registers(r) = &case.binding else {
        panic!()
    };
    assert_eq!(
        r[0],
        Resource {
            register: Register {
                class: RegisterClass::Srv,
                number: 0,
                space: 2
            },
            kind: ResourceKind::Structured { stride: 16 },
            size: 1024,
            init: Init::Iota,
        }
    );
    assert_eq!(r[0].register.default_binding(), (2, 100));
    assert_eq!(r[0].register.file_stem(), "t0_space2");
    assert_eq!(case.target_name(0), "t0 (space 2)");
}

#[test]
fn every_init_form() {
    let dir = scratch(&[("in.bin", &[1, 2, 3])]);
    let text = format!(
        "{V1_HEAD}{}",
        [
            ("u0", "\"zero\"", Init::Zero),
            ("u1", "\"iota-u32\"", Init::Iota),
            ("u2", "\"random-u32:42\"", Init::Random { seed: 42 }),
            (
                "u3",
                "\"random-range:7:0:100\"",
                Init::RandomRange {
                    seed: 7,
                    lo: 0,
                    hi: 100
                }
            ),
            ("u4", "\"fill-u32:1000\"", Init::Fill(1000)),
            ("u5", "\"fill-u32:0xDEADbeef\"", Init::Fill(0xdead_beef)),
            (
                "u6",
                "[1, 2, 0xffffffff]",
                Init::Words(vec![1, 2, u32::MAX])
            ),
        ]
        .iter()
        .map(|(b, init, _)| format!(
            "[[resource]]\nbind = \"{b}\"\nkind = \"raw\"\nsize = 16\ninit = {init}\n"
        ))
        .collect::<String>()
            + "[[resource]]\nbind = \"u7\"\nkind = \"raw\"\nsize = 16\ninit = { file = \"in.bin\" }\n"
    );
    let case = Case::parse(&text, dir.join("c.toml")).unwrap();
    let Binding::Registers(r) = &case.binding else {
        panic!()
    };
    let inits: Vec<&Init> = r.iter().map(|r| &r.init).collect();
    assert_eq!(
        inits[..7],
        [
            &Init::Zero,
            &Init::Iota,
            &Init::Random { seed: 42 },
            &Init::RandomRange {
                seed: 7,
                lo: 0,
                hi: 100
            },
            &Init::Fill(1000),
            &Init::Fill(0xdead_beef),
            &Init::Words(vec![1, 2, u32::MAX]),
        ]
    );
    assert_eq!(
        inits[7],
        &Init::File {
            path: dir.join("in.bin"),
            bytes: vec![1, 2, 3]
        }
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_expectation_form() {
    let dir = scratch(&[("want.bin", &[9; 8])]);
    let text = raw_u0(
        "[[expect]]\nbind = \"u0\"\nu32 = [1, 4294967295]\n\
         [[expect]]\nbind = \"u0\"\ni32 = [-1, 2147483647]\n\
         [[expect]]\nbind = \"u0\"\nf32 = [1.5, -2, nan]\ntolerance_ulp = 3\n\
         [[expect]]\nbind = \"u0\"\nf32 = [0.1]\n\
         [[expect]]\nbind = \"u0\"\nhex = \"want.bin\"\n",
    );
    let case = Case::parse(&text, dir.join("c.toml")).unwrap();
    let values: Vec<&Expected> = case.expects.iter().map(|e| &e.values).collect();
    assert_eq!(values[0], &Expected::U32(vec![1, u32::MAX]));
    assert_eq!(values[1], &Expected::I32(vec![-1, i32::MAX]));
    let Expected::F32 {
        values: f,
        tolerance_ulp: 3,
    } = values[2]
    else {
        panic!()
    };
    assert_eq!((f[0], f[1]), (1.5, -2.0));
    assert!(f[2].is_nan());
    assert_eq!(
        values[3],
        &Expected::F32 {
            values: vec![0.1],
            tolerance_ulp: 0
        }
    );
    assert_eq!(
        values[4],
        &Expected::Bytes {
            path: dir.join("want.bin"),
            bytes: vec![9; 8]
        }
    );
    assert!(case.expects.iter().all(|e| e.target == 0));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sampler_resources_take_only_a_register() {
    let case = ok(&v1("[[resource]]\nbind = \"s3\"\nspace = 1\n"));
    let Binding::Registers(r) = &case.binding else {
        panic!()
    };
    assert_eq!(r[0].kind, ResourceKind::Sampler);
    check(
        err(&v1("[[resource]]\nbind = \"s0\"\nsize = 4\n")),
        invalid,
        "resource[0].size",
        "sampler",
    );
    check(
        err(&v1(
            "[[resource]]\nbind = \"s0\"\n[[expect]]\nbind = \"s0\"\nu32 = [0]\n",
        )),
        invalid,
        "expect[0].bind",
        "sampler",
    );
}

#[test]
fn toml_syntax_errors() {
    let e = err("shader = \n");
    assert!(matches!(e, CaseError::Syntax { .. }), "{e:?}");
    assert_eq!(e.at(), None);
    assert!(
        e.to_string()
            .contains("line 1, column 10: invalid string; expected"),
        "{e}"
    );
}

#[test]
fn unreadable_case_file() {
    let e = Case::load("/definitely/not/here.toml").unwrap_err();
    assert!(matches!(e, CaseError::Read { .. }), "{e:?}");
}

#[test]
fn top_level_errors() {
    check(
        err(&format!("{V1_HEAD}colour = 1\n")),
        unknown,
        "colour",
        "unknown key",
    );
    // Version-2 keys are unknown without root_signature, and version-1 keys with it.
    check(
        err(&format!("{V1_HEAD}heap_size = 1\n")),
        unknown,
        "heap_size",
        "unknown key",
    );
    check(
        err(&format!("{V2_HEAD}[[resource]]\nbind = \"u0\"\n")),
        unknown,
        "resource",
        "unknown key",
    );
    check(
        err("dispatch = [1, 1, 1]\n"),
        missing,
        "shader",
        "missing key",
    );
    check(
        err("shader = 3\ndispatch = [1, 1, 1]\n"),
        wrong_type,
        "shader",
        "expected a string, found integer",
    );
    check(
        err("shader = \"\"\ndispatch = [1, 1, 1]\n"),
        invalid,
        "shader",
        "empty",
    );
    check(
        err(&format!("{V1_HEAD}entry = \"\"\n")),
        invalid,
        "entry",
        "non-empty",
    );
    check(
        err("shader = \"a.dxil\"\n"),
        missing,
        "dispatch",
        "missing key",
    );
    check(
        err("shader = \"a.dxil\"\ndispatch = [1, 1]\n"),
        invalid,
        "dispatch",
        "3 group counts",
    );
    check(
        err("shader = \"a.dxil\"\ndispatch = 4\n"),
        wrong_type,
        "dispatch",
        "an array",
    );
    check(
        err("shader = \"a.dxil\"\ndispatch = [1, -1, 1]\n"),
        invalid,
        "dispatch[1]",
        "-1",
    );
    check(
        err("shader = \"a.dxil\"\ndispatch = [1, 1, 65536]\n"),
        invalid,
        "dispatch[2]",
        "65535",
    );
    check(
        err("shader = \"a.dxil\"\ndispatch = [1, 1, \"x\"]\n"),
        wrong_type,
        "dispatch[2]",
        "integer",
    );
    check(
        err(&format!("{V1_HEAD}resource = 3\n")),
        wrong_type,
        "resource",
        "an array",
    );
    check(
        err(&format!("{V1_HEAD}resource = [3]\n")),
        wrong_type,
        "resource[0]",
        "a table",
    );
}

/// Unknown keys, the register (`bind`) and the register space.
#[test]
fn resource_key_register_and_space_errors() {
    let res = |body: &str| v1(&format!("[[resource]]\n{body}"));
    check(
        err(&raw_u0("").replace("kind", "knid")),
        unknown,
        "resource[0].knid",
        "unknown key",
    );
    check(
        err(&res("kind = \"raw\"\nsize = 4\ninit = \"zero\"\n")),
        missing,
        "resource[0].bind",
        "missing",
    );
    for bad in ["x0", "t", "t-1", "t1a", "T0", "t+1", ""] {
        check(
            err(&res(&format!(
                "bind = \"{bad}\"\nkind = \"raw\"\nsize = 4\ninit = \"zero\"\n"
            ))),
            invalid,
            "resource[0].bind",
            bad,
        );
    }
    check(
        err(&res(
            "bind = \"t100\"\nkind = \"raw\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].bind",
        "past 99",
    );
    check(
        err(&raw_u0(
            "[[resource]]\nbind = \"u0\"\nkind = \"raw\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[1].bind",
        "already declared by resource[0]",
    );
    // The same register in another space is another resource.
    ok(&raw_u0(
        "[[resource]]\nbind = \"u0\"\nspace = 1\nkind = \"raw\"\nsize = 4\ninit = \"zero\"\n",
    ));
    check(
        err(&res(
            "bind = \"u0\"\nspace = -1\nkind = \"raw\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].space",
        "-1",
    );
}

/// The resource kind.
#[test]
fn resource_kind_errors() {
    let res = |body: &str| v1(&format!("[[resource]]\n{body}"));
    check(
        err(&res("bind = \"u0\"\nsize = 4\ninit = \"zero\"\n")),
        missing,
        "resource[0].kind",
        "missing",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"texture\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].kind",
        "unknown kind `texture`",
    );
    check(
        err(&res(
            "bind = \"b0\"\nkind = \"raw\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].kind",
        "b register",
    );
    check(
        err(&res(
            "bind = \"t0\"\nkind = \"constant\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].kind",
        "t register",
    );
}

/// Structured strides and typed formats, each only where its kind takes it.
#[test]
fn resource_stride_and_format_errors() {
    let res = |body: &str| v1(&format!("[[resource]]\n{body}"));
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"structured\"\nsize = 4\ninit = \"zero\"\n",
        )),
        missing,
        "resource[0].stride",
        "missing",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"structured\"\nstride = 0\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].stride",
        "1..=2048",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"structured\"\nstride = 4096\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].stride",
        "1..=2048",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"structured\"\nstride = 4\nformat = \"r32_uint\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].format",
        "does not apply",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"raw\"\nstride = 4\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].stride",
        "does not apply to kind `raw`",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"raw\"\nformat = \"r32_uint\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].format",
        "does not apply",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"typed\"\nsize = 4\ninit = \"zero\"\n",
        )),
        missing,
        "resource[0].format",
        "missing",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"typed\"\nstride = 4\nformat = \"r32_uint\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].stride",
        "does not apply",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"typed\"\nformat = \"r24g8_typeless\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].format",
        "not a supported",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"typed\"\nformat = 5\nsize = 4\ninit = \"zero\"\n",
        )),
        wrong_type,
        "resource[0].format",
        "string",
    );
    check(
        err(&res(
            "bind = \"b0\"\nkind = \"constant\"\nstride = 4\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].stride",
        "does not apply",
    );
}

/// Sizes (bounded) and the required initial contents.
#[test]
fn resource_size_and_init_errors() {
    let res = |body: &str| v1(&format!("[[resource]]\n{body}"));
    check(
        err(&res("bind = \"u0\"\nkind = \"raw\"\ninit = \"zero\"\n")),
        missing,
        "resource[0].size",
        "missing",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"raw\"\nsize = 0\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].size",
        "at least 1",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"raw\"\nsize = 1000000000000\ninit = \"zero\"\n",
        )),
        invalid,
        "resource[0].size",
        "limit",
    );
    check(
        err(&res(
            "bind = \"u0\"\nkind = \"raw\"\nsize = 1.5\ninit = \"zero\"\n",
        )),
        wrong_type,
        "resource[0].size",
        "integer",
    );
    check(
        err(&res("bind = \"u0\"\nkind = \"raw\"\nsize = 4\n")),
        missing,
        "resource[0].init",
        "missing",
    );
}

#[test]
fn init_errors() {
    let with = |init: &str| raw_u0("").replace("init = \"zero\"", &format!("init = {init}"));
    let at = "resource[0].init";
    check(err(&with("\"ones\"")), invalid, at, "unknown init `ones`");
    check(err(&with("\"zero:1\"")), invalid, at, "takes 0 argument");
    check(
        err(&with("\"iota-u32:5\"")),
        invalid,
        at,
        "takes 0 argument",
    );
    check(
        err(&with("\"random-u32\"")),
        invalid,
        at,
        "takes 1 argument",
    );
    check(err(&with("\"random-u32:0\"")), invalid, at, "non-zero");
    check(
        err(&with("\"random-u32:0x10\"")),
        invalid,
        at,
        "not a decimal",
    );
    check(
        err(&with("\"random-u32:-3\"")),
        invalid,
        at,
        "not a decimal",
    );
    check(
        err(&with("\"random-u32:4294967296\"")),
        invalid,
        at,
        "not a decimal",
    );
    check(
        err(&with("\"random-range:1:2\"")),
        invalid,
        at,
        "takes 3 argument",
    );
    check(
        err(&with("\"random-range:0:1:2\"")),
        invalid,
        at,
        "non-zero",
    );
    check(
        err(&with("\"random-range:1:5:4\"")),
        invalid,
        at,
        "LO 5 is greater than HI 4",
    );
    check(err(&with("\"random-range:1:a:4\"")), invalid, at, "LO `a`");
    check(err(&with("\"random-range:1:0:\"")), invalid, at, "HI ``");
    check(err(&with("\"fill-u32\"")), invalid, at, "takes 1 argument");
    check(err(&with("\"fill-u32:0x\"")), invalid, at, "fill value");
    check(err(&with("\"fill-u32:0x1_0\"")), invalid, at, "fill value");
    check(
        err(&with("\"fill-u32:0x100000000\"")),
        invalid,
        at,
        "fill value",
    );
    check(err(&with("\"fill-u32:12ab\"")), invalid, at, "fill value");
    check(
        err(&with("[1, 2, 3, 4, 5]")),
        invalid,
        at,
        "5 words do not fit in 16 bytes",
    );
    check(err(&with("[1, -2]")), invalid, "resource[0].init[1]", "-2");
    check(
        err(&with("[1, \"2\"]")),
        wrong_type,
        "resource[0].init[1]",
        "integer",
    );
    check(
        err(&with("7")),
        wrong_type,
        at,
        "a string, an array of words or { file = ... }",
    );
    check(
        err(&with("{ path = \"x\" }")),
        unknown,
        "resource[0].init.path",
        "unknown key",
    );
    check(
        err(&with("{ }")),
        missing,
        "resource[0].init.file",
        "missing",
    );
    check(
        err(&with("{ file = \"no-such.bin\" }")),
        data_file,
        "resource[0].init.file",
        "no-such.bin",
    );

    let dir = scratch(&[("big.bin", &[0; 17])]);
    let e = Case::parse(&with("{ file = \"big.bin\" }"), dir.join("c.toml")).unwrap_err();
    check_at(
        &e,
        "resource[0].init.file",
        "17 bytes, more than the 16 bytes",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn check_at(e: &CaseError, at: &str, fragment: &str) {
    assert_eq!(e.at(), Some(at), "{e}");
    assert!(e.to_string().contains(fragment), "{e}");
}

#[test]
fn expect_errors() {
    let exp = |body: &str| raw_u0(&format!("[[expect]]\n{body}"));
    check(
        err(&exp("bind = \"u0\"\nu32 = [1]\nnote = 1\n")),
        unknown,
        "expect[0].note",
        "unknown key",
    );
    check(
        err(&exp("bind = \"u0\"\nmemory = \"m\"\nu32 = [1]\n")),
        unknown,
        "expect[0].memory",
        "unknown key",
    );
    check(
        err(&exp("u32 = [1]\n")),
        missing,
        "expect[0].bind",
        "missing",
    );
    check(
        err(&exp("bind = \"u1\"\nu32 = [1]\n")),
        invalid,
        "expect[0].bind",
        "no resource declares u1",
    );
    check(
        err(&exp("bind = \"u0\"\nspace = 1\nu32 = [1]\n")),
        invalid,
        "expect[0].bind",
        "u0 (space 1)",
    );
    check(
        err(&exp("bind = \"u0\"\n")),
        invalid,
        "expect[0]",
        "one of u32, i32, f32 or hex",
    );
    check(
        err(&exp("bind = \"u0\"\nu32 = [1]\nf32 = [1.0]\n")),
        invalid,
        "expect[0].f32",
        "only one",
    );
    check(
        err(&exp("bind = \"u0\"\nu32 = [1]\ntolerance_ulp = 1\n")),
        invalid,
        "expect[0].tolerance_ulp",
        "f32 expectations only",
    );
    check(
        err(&exp("bind = \"u0\"\nf32 = [1.0]\ntolerance_ulp = -1\n")),
        invalid,
        "expect[0].tolerance_ulp",
        "-1",
    );
    check(
        err(&exp("bind = \"u0\"\nu32 = []\n")),
        invalid,
        "expect[0].u32",
        "at least one",
    );
    check(
        err(&exp("bind = \"u0\"\nu32 = 5\n")),
        wrong_type,
        "expect[0].u32",
        "an array",
    );
    check(
        err(&exp("bind = \"u0\"\nu32 = [4294967296]\n")),
        invalid,
        "expect[0].u32[0]",
        "4294967296",
    );
    check(
        err(&exp("bind = \"u0\"\ni32 = [2147483648]\n")),
        invalid,
        "expect[0].i32[0]",
        "not an i32",
    );
    check(
        err(&exp("bind = \"u0\"\nf32 = [\"1\"]\n")),
        wrong_type,
        "expect[0].f32[0]",
        "a number",
    );
    check(
        err(&exp("bind = \"u0\"\nu32 = [1, 2, 3, 4, 5]\n")),
        invalid,
        "expect[0]",
        "20 bytes of a resource of 16 bytes",
    );
    check(
        err(&exp("bind = \"u0\"\nhex = \"gone.bin\"\n")),
        data_file,
        "expect[0].hex",
        "gone.bin",
    );
    check(
        err(&exp("bind = \"u0\"\nhex = 1\n")),
        wrong_type,
        "expect[0].hex",
        "string",
    );
    let dir = scratch(&[("long.bin", &[0; 20])]);
    let e = Case::parse(
        &exp("bind = \"u0\"\nhex = \"long.bin\"\n"),
        dir.join("c.toml"),
    )
    .unwrap_err();
    check_at(&e, "expect[0]", "20 bytes of a resource of 16 bytes");
    std::fs::remove_dir_all(dir).unwrap();
}

const V2_FULL: &str = r#"
shader = "bindless.dxil"
dispatch = [1, 1, 1]
root_signature = { hlsl = "DescriptorTable(SRV(t0, space=1, numDescriptors=unbounded)), UAV(u0), RootConstants(num32BitConstants=2, b0)" }
heap_size = 4096
sampler_heap_size = 64

[[memory]]
name = "src"
size = 65536
init = "iota-u32"

[[memory]]
name = "dst"
size = 4096
init = "zero"

[[memory]]
name = "ctr"
size = 256
init = "zero"

[[view]]
slot = 1024
type = "srv"
dimension = "buffer"
memory = "src"
raw = false
format = "r32_uint"
first_element = 0
num_elements = 256

[[view]]
slot = 1025
type = "uav"
memory = "dst"
stride = 8
num_elements = 16
counter = "ctr"
counter_offset = 4

[[view]]
slot = 1026
type = "cbv"
memory = "src"
first_element = 256
num_elements = 512

[[view]]
slot = 1027
type = "null-srv"
raw = true

[[sampler]]
slot = 0
filter = "point"
address = "wrap"

[[root]]
index = 0
table = 1024
[[root]]
index = 1
va = { memory = "dst", offset = 0 }
[[root]]
index = 2
constants = [7, 9]

[[pass]]
groups = [2, 1, 1]
[[pass.root]]
index = 2
constants = [1, 2]

[[expect]]
memory = "dst"
u32 = [0, 1, 2]
"#;

#[test]
fn full_v2_case() {
    let case = ok(V2_FULL);
    assert_eq!(case.version(), 2);
    let Binding::RootSignature(h) = &case.binding else {
        panic!()
    };
    assert!(
        matches!(&h.root_signature, RootSignatureSource::Hlsl(s) if s.starts_with("DescriptorTable"))
    );
    assert_eq!((h.heap_size, h.sampler_heap_size), (4096, 64));
    assert_eq!(
        h.memories
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>(),
        ["src", "dst", "ctr"]
    );
    assert_eq!(
        h.views[0],
        View {
            slot: 1024,
            ty: ViewType::Srv,
            memory: Some(0),
            shape: ViewShape::Typed {
                format: Format::R32Uint
            },
            first_element: 0,
            num_elements: 256,
            counter: None,
        }
    );
    assert_eq!(h.views[1].shape, ViewShape::Structured { stride: 8 });
    assert_eq!(
        h.views[1].counter,
        Some(Counter {
            memory: 2,
            offset: 4
        })
    );
    assert_eq!(h.views[2].shape, ViewShape::Constant);
    assert_eq!(
        (h.views[3].ty, h.views[3].memory, h.views[3].shape),
        (ViewType::NullSrv, None, ViewShape::Raw)
    );
    assert_eq!(
        h.samplers[0],
        SamplerDesc {
            slot: 0,
            filter: Filter::Point,
            address: AddressMode::Wrap
        }
    );
    assert_eq!(
        h.root,
        [
            RootArgument {
                index: 0,
                value: RootValue::Table(1024)
            },
            RootArgument {
                index: 1,
                value: RootValue::Address {
                    memory: 1,
                    offset: 0
                }
            },
            RootArgument {
                index: 2,
                value: RootValue::Constants(vec![7, 9])
            },
        ]
    );
    assert_eq!(
        h.passes,
        [Pass {
            groups: [2, 1, 1],
            root: vec![RootArgument {
                index: 2,
                value: RootValue::Constants(vec![1, 2])
            }]
        }]
    );
    assert_eq!(case.expects[0].target, 1);
    assert_eq!(case.target_name(1), "dst");
}

#[test]
fn v2_defaults_and_sources() {
    let case = ok(&format!(
        "{V2_HEAD}[[memory]]\nname = \"m\"\nsize = 4\ninit = \"zero\"\n"
    ));
    let Binding::RootSignature(h) = &case.binding else {
        panic!()
    };
    assert_eq!((h.heap_size, h.sampler_heap_size), (4096, 64));
    assert_eq!(h.root_signature, RootSignatureSource::Embedded);
    // With passes, `dispatch` may be left out.
    ok("shader = \"a.dxil\"\nroot_signature = \"embedded\"\n[[pass]]\ngroups = [1, 1, 1]\n");
    let dir = scratch(&[("rs.bin", b"RTS0")]);
    let case = Case::parse(
        "shader = \"a.dxil\"\ndispatch = [1, 1, 1]\nroot_signature = { file = \"rs.bin\" }\n",
        dir.join("c.toml"),
    )
    .unwrap();
    let Binding::RootSignature(h) = &case.binding else {
        panic!()
    };
    assert_eq!(
        h.root_signature,
        RootSignatureSource::File {
            path: dir.join("rs.bin"),
            bytes: b"RTS0".to_vec()
        }
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn v2_top_level_errors() {
    let head = "shader = \"a.dxil\"\ndispatch = [1, 1, 1]\n";
    check(
        err(&format!("{head}root_signature = \"inline\"\n")),
        invalid,
        "root_signature",
        "\"embedded\"",
    );
    check(
        err(&format!("{head}root_signature = 5\n")),
        wrong_type,
        "root_signature",
        "\"embedded\" or a table",
    );
    check(
        err(&format!(
            "{head}root_signature = {{ hlsl = \"x\", file = \"y\" }}\n"
        )),
        invalid,
        "root_signature",
        "exactly one",
    );
    check(
        err(&format!("{head}root_signature = {{ }}\n")),
        invalid,
        "root_signature",
        "exactly one",
    );
    check(
        err(&format!("{head}root_signature = {{ text = \"x\" }}\n")),
        unknown,
        "root_signature.text",
        "unknown key",
    );
    check(
        err(&format!("{head}root_signature = {{ hlsl = \" \" }}\n")),
        invalid,
        "root_signature.hlsl",
        "empty",
    );
    check(
        err(&format!(
            "{head}root_signature = {{ file = \"none.bin\" }}\n"
        )),
        data_file,
        "root_signature.file",
        "none.bin",
    );
    check(
        err("shader = \"a.dxil\"\nroot_signature = \"embedded\"\n"),
        missing,
        "dispatch",
        "missing",
    );
    check(
        err(&format!("{V2_HEAD}heap_size = 0\n")),
        invalid,
        "heap_size",
        "1..=1000000",
    );
    check(
        err(&format!("{V2_HEAD}heap_size = 1000001\n")),
        invalid,
        "heap_size",
        "1..=1000000",
    );
    check(
        err(&format!("{V2_HEAD}sampler_heap_size = 2049\n")),
        invalid,
        "sampler_heap_size",
        "1..=2048",
    );
}

fn v2_memory(extra: &str) -> String {
    format!(
        "{V2_HEAD}heap_size = 16\nsampler_heap_size = 4\n[[memory]]\nname = \"m\"\nsize = 1024\ninit = \"zero\"\n{extra}"
    )
}

#[test]
fn memory_errors() {
    check(
        err(&v2_memory(
            "[[memory]]\nname = \"m\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "memory[1].name",
        "declared twice",
    );
    check(
        err(&v2_memory(
            "[[memory]]\nname = \"\"\nsize = 4\ninit = \"zero\"\n",
        )),
        invalid,
        "memory[1].name",
        "empty",
    );
    check(
        err(&v2_memory("[[memory]]\nsize = 4\ninit = \"zero\"\n")),
        missing,
        "memory[1].name",
        "missing",
    );
    check(
        err(&v2_memory(
            "[[memory]]\nname = \"n\"\nsize = 4\ninit = \"zero\"\nbind = \"u0\"\n",
        )),
        unknown,
        "memory[1].bind",
        "unknown key",
    );
    check(
        err(&v2_memory(
            "[[memory]]\nname = \"n\"\nsize = 0\ninit = \"zero\"\n",
        )),
        invalid,
        "memory[1].size",
        "at least 1",
    );
    check(
        err(&v2_memory(
            "[[memory]]\nname = \"n\"\nsize = 4\ninit = [1, 2]\n",
        )),
        invalid,
        "memory[1].init",
        "do not fit",
    );
}

/// Size, slot (in range, written once), type, dimension and memory of a view.
#[test]
fn view_slot_type_and_memory_errors() {
    let view = |body: &str| v2_memory(&format!("[[view]]\n{body}"));
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nnum_elements = 1\nsize = 4\n",
        )),
        unknown,
        "view[0].size",
        "unknown key",
    );
    check(
        err(&view(
            "type = \"srv\"\nmemory = \"m\"\nraw = true\nnum_elements = 1\n",
        )),
        missing,
        "view[0].slot",
        "missing",
    );
    check(
        err(&view(
            "slot = 16\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nnum_elements = 1\n",
        )),
        invalid,
        "view[0].slot",
        "outside the heap of 16",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"rtv\"\nmemory = \"m\"\nraw = true\nnum_elements = 1\n",
        )),
        invalid,
        "view[0].type",
        "unknown view type `rtv`",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\ndimension = \"texture2d\"\nmemory = \"m\"\nraw = true\nnum_elements = 1\n",
        )),
        invalid,
        "view[0].dimension",
        "only buffer",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nraw = true\nnum_elements = 1\n",
        )),
        missing,
        "view[0].memory",
        "missing",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"x\"\nraw = true\nnum_elements = 1\n",
        )),
        invalid,
        "view[0].memory",
        "no memory is named `x`",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"null-uav\"\nmemory = \"m\"\nraw = true\n",
        )),
        invalid,
        "view[0].memory",
        "null view takes no memory",
    );
    check(
        err(&v2_memory(
            "[[view]]\nslot = 3\ntype = \"null-srv\"\nraw = true\n[[view]]\nslot = 3\ntype = \"null-uav\"\nraw = true\n",
        )),
        invalid,
        "view[1].slot",
        "already written by view[0]",
    );
}

/// A buffer view's shape: exactly one of raw, stride or format, each of the right type.
#[test]
fn view_shape_errors() {
    let view = |body: &str| v2_memory(&format!("[[view]]\n{body}"));
    let at = "view[0]";
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nnum_elements = 1\n",
        )),
        invalid,
        at,
        "one of raw = true, stride or format",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nstride = 4\nnum_elements = 1\n",
        )),
        invalid,
        at,
        "exclude each other",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nstride = 4\nformat = \"r32_uint\"\nnum_elements = 1\n",
        )),
        invalid,
        at,
        "exclude each other",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nraw = 1\nnum_elements = 1\n",
        )),
        wrong_type,
        "view[0].raw",
        "a boolean",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nstride = 5000\nnum_elements = 1\n",
        )),
        invalid,
        "view[0].stride",
        "1..=2048",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"cbv\"\nmemory = \"m\"\nformat = \"r32_uint\"\nnum_elements = 256\n",
        )),
        invalid,
        "view[0].format",
        "constant buffer view",
    );
}

/// A view's element window: counts, offsets and alignment, inside its memory.
#[test]
fn view_window_errors() {
    let view = |body: &str| v2_memory(&format!("[[view]]\n{body}"));
    let at = "view[0]";
    check(
        err(&view(
            "slot = 0\ntype = \"cbv\"\nmemory = \"m\"\nfirst_element = 4\nnum_elements = 256\n",
        )),
        invalid,
        at,
        "multiples of 256",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"cbv\"\nmemory = \"m\"\nnum_elements = 0\n",
        )),
        invalid,
        "view[0].num_elements",
        "256..=65536",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nraw = true\n",
        )),
        missing,
        "view[0].num_elements",
        "missing",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nnum_elements = 0\n",
        )),
        invalid,
        "view[0].num_elements",
        "at least one",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nraw = true\nfirst_element = 1\nnum_elements = 256\n",
        )),
        invalid,
        at,
        "do not fit in memory `m` of 1024 bytes",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nformat = \"r32g32b32a32_float\"\nfirst_element = -1\nnum_elements = 1\n",
        )),
        invalid,
        "view[0].first_element",
        "negative",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nformat = \"r32g32b32a32_float\"\nfirst_element = 9223372036854775807\nnum_elements = 1\n",
        )),
        invalid,
        at,
        "do not fit",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"cbv\"\nmemory = \"m\"\nfirst_element = 1024\nnum_elements = 256\n",
        )),
        invalid,
        at,
        "do not fit",
    );
    // A CBV may cover the 256-byte-rounded tail of its memory.
    ok(&v2_memory(
        "[[memory]]\nname = \"c\"\nsize = 100\ninit = \"zero\"\n[[view]]\nslot = 0\ntype = \"cbv\"\nmemory = \"c\"\nnum_elements = 256\n",
    ));
}

/// UAV counters: only on raw or structured UAVs, with an offset inside their memory.
#[test]
fn view_counter_errors() {
    let view = |body: &str| v2_memory(&format!("[[view]]\n{body}"));
    check(
        err(&view(
            "slot = 0\ntype = \"srv\"\nmemory = \"m\"\nstride = 4\nnum_elements = 1\ncounter = \"m\"\n",
        )),
        invalid,
        "view[0].counter",
        "only a structured uav",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"uav\"\nmemory = \"m\"\nraw = true\nnum_elements = 1\ncounter = \"m\"\n",
        )),
        invalid,
        "view[0].counter",
        "only a structured uav",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"uav\"\nmemory = \"m\"\nstride = 4\nnum_elements = 1\ncounter_offset = 4\n",
        )),
        invalid,
        "view[0].counter_offset",
        "needs counter",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"uav\"\nmemory = \"m\"\nstride = 4\nnum_elements = 1\ncounter = \"m\"\ncounter_offset = 2\n",
        )),
        invalid,
        "view[0].counter_offset",
        "aligned",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"uav\"\nmemory = \"m\"\nstride = 4\nnum_elements = 1\ncounter = \"m\"\ncounter_offset = 1024\n",
        )),
        invalid,
        "view[0].counter_offset",
        "inside its memory",
    );
    check(
        err(&view(
            "slot = 0\ntype = \"uav\"\nmemory = \"m\"\nstride = 4\nnum_elements = 1\ncounter = \"q\"\n",
        )),
        invalid,
        "view[0].counter",
        "no memory is named `q`",
    );
}

#[test]
fn sampler_errors() {
    let s = |body: &str| v2_memory(&format!("[[sampler]]\n{body}"));
    check(
        err(&s("slot = 4\nfilter = \"point\"\naddress = \"wrap\"\n")),
        invalid,
        "sampler[0].slot",
        "outside the sampler heap of 4",
    );
    check(
        err(&s("slot = 0\nfilter = \"cubic\"\naddress = \"wrap\"\n")),
        invalid,
        "sampler[0].filter",
        "unknown filter `cubic`",
    );
    check(
        err(&s("slot = 0\nfilter = \"point\"\naddress = \"repeat\"\n")),
        invalid,
        "sampler[0].address",
        "unknown address mode `repeat`",
    );
    check(
        err(&s("slot = 0\naddress = \"wrap\"\n")),
        missing,
        "sampler[0].filter",
        "missing",
    );
    check(
        err(&s(
            "slot = 0\nfilter = \"point\"\naddress = \"wrap\"\nlod_bias = 1\n",
        )),
        unknown,
        "sampler[0].lod_bias",
        "unknown key",
    );
    for (filter, address) in [
        ("linear", "mirror"),
        ("anisotropic", "clamp"),
        ("point", "border"),
        ("point", "mirror-once"),
    ] {
        ok(&s(&format!(
            "slot = 0\nfilter = \"{filter}\"\naddress = \"{address}\"\n"
        )));
    }
    check(
        err(&v2_memory(
            "[[sampler]]\nslot = 1\nfilter = \"point\"\naddress = \"wrap\"\n[[sampler]]\nslot = 1\nfilter = \"linear\"\naddress = \"wrap\"\n",
        )),
        invalid,
        "sampler[1].slot",
        "already written",
    );
}

#[test]
fn root_and_pass_errors() {
    let r = |body: &str| v2_memory(&format!("[[root]]\n{body}"));
    check(err(&r("table = 0\n")), missing, "root[0].index", "missing");
    check(
        err(&r("index = 64\ntable = 0\n")),
        invalid,
        "root[0].index",
        "at most 64",
    );
    check(
        err(&r("index = 0\n")),
        invalid,
        "root[0]",
        "exactly one of table, va or constants",
    );
    check(
        err(&r("index = 0\ntable = 0\nconstants = [1]\n")),
        invalid,
        "root[0]",
        "exactly one",
    );
    check(
        err(&r("index = 0\ntable = 16\n")),
        invalid,
        "root[0].table",
        "outside the heap",
    );
    check(
        err(&r("index = 0\nva = { memory = \"m\", offset = 1024 }\n")),
        invalid,
        "root[0].va.offset",
        "outside its memory",
    );
    check(
        err(&r("index = 0\nva = { memory = \"z\" }\n")),
        invalid,
        "root[0].va.memory",
        "no memory is named `z`",
    );
    check(
        err(&r("index = 0\nva = { memory = \"m\", size = 4 }\n")),
        unknown,
        "root[0].va.size",
        "unknown key",
    );
    check(
        err(&r("index = 0\nva = 5\n")),
        wrong_type,
        "root[0].va",
        "a table",
    );
    check(
        err(&r("index = 0\nconstants = [1, -1]\n")),
        invalid,
        "root[0].constants[1]",
        "-1",
    );
    let many = vec!["1"; 65].join(", ");
    check(
        err(&r(&format!("index = 0\nconstants = [{many}]\n"))),
        invalid,
        "root[0].constants",
        "at most 64",
    );
    check(
        err(&r("index = 1\ntable = 0\n[[root]]\nindex = 1\ntable = 1\n")),
        invalid,
        "root[1].index",
        "set twice",
    );
    check(
        err(&r("index = 0\ntable = 0\nslot = 1\n")),
        unknown,
        "root[0].slot",
        "unknown key",
    );
    let p = |body: &str| v2_memory(&format!("[[pass]]\n{body}"));
    check(err(&p("root = []\n")), missing, "pass[0].groups", "missing");
    check(
        err(&p("groups = [1, 1, 1]\ndispatch = [1, 1, 1]\n")),
        unknown,
        "pass[0].dispatch",
        "unknown key",
    );
    check(
        err(&p(
            "groups = [1, 1, 1]\n[[pass.root]]\nindex = 99\ntable = 0\n",
        )),
        invalid,
        "pass[0].root[0].index",
        "at most 64",
    );
    check(
        err(&p("groups = [1, 1, 1, 1]\n")),
        invalid,
        "pass[0].groups",
        "3 group counts",
    );
}

#[test]
fn v2_expect_errors() {
    let e = |body: &str| v2_memory(&format!("[[expect]]\n{body}"));
    check(
        err(&e("bind = \"u0\"\nu32 = [1]\n")),
        unknown,
        "expect[0].bind",
        "unknown key",
    );
    check(
        err(&e("u32 = [1]\n")),
        missing,
        "expect[0].memory",
        "missing",
    );
    check(
        err(&e("memory = \"n\"\nu32 = [1]\n")),
        invalid,
        "expect[0].memory",
        "no memory is named `n`",
    );
    let words = vec!["0"; 257].join(", ");
    check(
        err(&e(&format!("memory = \"m\"\nu32 = [{words}]\n"))),
        invalid,
        "expect[0]",
        "1028 bytes of a resource of 1024",
    );
}
