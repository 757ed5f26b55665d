//! The C API from C: `tests/c/abi_dump.c` checks the header's ABI facts against `tests/abi-2.66.txt`, and
//! `tests/c/api_test.c` calls every function and option kind on containers, under valgrind (no leak, no invalid
//! access), its per-translation results compared with `tests/expected/api_test.txt` (`BLESS=1` rewrites it).
//!
//! Needs `gcc`; the container inputs are the repository's example (always) and a few corpus shaders (skipped with a
//! message without the corpus). Without valgrind the program runs bare, with a message; under `CI` valgrind and
//! the corpus are required.

use std::path::{Path, PathBuf};
use std::process::Command;

const CORPUS_INPUTS: &[&str] = &[
    "vkd3d-proton/bindless/bindless_uav_counter.cs_6_0.dxil",
    "vkd3d-proton/bindless/bindless_samplers.cs_6_0.dxil",
    "vkd3d-proton/bindless/bindless_cbv.cs_6_0.dxil",
    "vkd3d-proton/bindless/bindless_heap_sm66.cs_6_6.dxil",
    "vkd3d-proton/bindless/bindless_heap_sm66_uav_counter.cs_6_6.dxil",
    "vkd3d-proton/bindless/ps_divergent_buffer_index_varying.ps_6_0.dxil",
    "vkd3d-proton/bindless/vs_divergent_buffer_index_varying.vs_6_0.dxil",
    "vkd3d-proton/pso/gs_mismatch_1.gs_6_0.dxil",
    "vkd3d-proton/tessellation/fork_phase_hs.hs_6_0.dxil",
    "vkd3d-proton/tessellation/fork_phase_ds.ds_6_0.dxil",
    "vkd3d-proton/rt/embedded_subobject.lib_6_3.dxil",
    "vkd3d-proton-dxbc/bindless/bindless_cbv.dxbc",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding the `libdxil_spirv_c.so` built with this test: `deps/` beside the test executable (the
/// copy in the profile directory above it is only refreshed by `cargo build`).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().expect("target/<profile>/deps").to_path_buf()
}

fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dxil-spirv-c-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch directory");
    d
}

fn gcc(args: &[&str]) {
    let out = Command::new("gcc")
        .args(args)
        .output()
        .expect("gcc runs (install gcc)");
    assert!(
        out.status.success(),
        "gcc {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn ci() -> bool {
    std::env::var_os("CI").is_some()
}

fn skip_or_fail(why: &str) {
    assert!(!ci(), "{why} (required under CI)");
    eprintln!("SKIPPED part: {why}");
}

#[test]
fn header_abi_matches_the_contract() {
    let dir = scratch("abi");
    let exe = dir.join("abi_dump");
    let src = crate_dir().join("tests/c/abi_dump.c");
    let inc = crate_dir().join("include");
    gcc(&[
        "-std=c11",
        "-Wall",
        "-Werror",
        "-I",
        inc.to_str().unwrap(),
        src.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
    ]);
    let out = Command::new(&exe).output().expect("abi_dump runs");
    assert!(out.status.success());
    let got = String::from_utf8(out.stdout).expect("ASCII output");
    let want =
        std::fs::read_to_string(crate_dir().join("tests/abi-2.66.txt")).expect("contract facts");
    let _ = std::fs::remove_dir_all(&dir);
    for (g, w) in got.lines().zip(want.lines()) {
        assert_eq!(g, w, "header ABI differs from the contract");
    }
    assert_eq!(got.lines().count(), want.lines().count());
}

/// The example compute shader, assembled.
fn example_container(dir: &Path) -> PathBuf {
    let root = crate_dir().join("../..");
    let text = std::fs::read_to_string(root.join("examples/compute-add.ll")).expect("example");
    let bytes = dxil_assembler::assemble(&text, &dxil_assembler::AssembleOptions::default())
        .expect("the example assembles");
    let p = dir.join("compute-add.dxil");
    std::fs::write(&p, bytes).expect("write the example container");
    p
}

fn has_valgrind() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn every_function_and_option_kind_under_valgrind() {
    let dir = scratch("api");
    let exe = dir.join("api_test");
    let src = crate_dir().join("tests/c/api_test.c");
    let inc = crate_dir().join("include");
    let lib = lib_dir();
    assert!(
        lib.join("libdxil_spirv_c.so").exists(),
        "no libdxil_spirv_c.so in {}",
        lib.display()
    );
    // The library's soname is dxil-spirv's: the program loads `libdxil-spirv-c-shared.so.2`, found here.
    std::os::unix::fs::symlink(
        lib.join("libdxil_spirv_c.so"),
        dir.join("libdxil-spirv-c-shared.so.2"),
    )
    .expect("soname link");
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    gcc(&[
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
        "-I",
        inc.to_str().unwrap(),
        src.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "-L",
        lib.to_str().unwrap(),
        "-ldxil_spirv_c",
        &rpath,
    ]);

    let example = example_container(&dir);
    let mut inputs = vec![("example/compute-add.dxil".to_string(), example)];
    match dxil_corpus::corpus_dir() {
        Some(corpus) => {
            for f in CORPUS_INPUTS {
                inputs.push((f.to_string(), corpus.join(f)));
            }
        }
        None => skip_or_fail("corpus not found (set DXIL_CORPUS): example container only"),
    }
    // Short names in the output: each input is linked into the scratch directory under its corpus path.
    let mut args = Vec::new();
    for (name, path) in &inputs {
        let link = dir.join(name);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        if !link.exists() {
            std::fs::copy(path, &link).expect("input container");
        }
        args.push(name.clone());
    }

    let valgrind = has_valgrind();
    let mut cmd = if valgrind {
        let mut c = Command::new("valgrind");
        c.args([
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect",
            "--quiet",
        ])
        .arg(&exe);
        c
    } else {
        skip_or_fail("valgrind not found: the API test runs without it");
        Command::new(&exe)
    };
    let out = cmd
        .args(&args)
        .current_dir(&dir)
        .output()
        .expect("api_test runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let checks: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("check failed") || l.starts_with("=="))
        .collect();
    assert!(
        out.status.success(),
        "api_test exited with {:?} (99: valgrind found errors):\n{}",
        out.status.code(),
        checks.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);

    // Exact results per input and mode; the full set only with the corpus.
    if inputs.len() == 1 {
        return;
    }
    let mut expect = dxil_corpus::Expectations::new(
        crate_dir().join("tests/expected/api_test.txt"),
        "api_test per container and binding mode (fixed: no remappers; heap: descriptor heaps): the run's\n\
         dxil_spv_result, SPIR-V words, and how often each remapper was called",
    );
    for line in stdout.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(file), Some(mode), Some(rest)) = (parts.next(), parts.next(), parts.next())
        else {
            panic!("unexpected api_test output line: {line}");
        };
        expect.record(format!("{file} {mode}"), rest);
    }
    expect.check();
}
