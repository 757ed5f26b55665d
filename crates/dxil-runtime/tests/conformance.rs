//! Runs the shared conformance cases (version 1) with DXC's own SPIR-V, the `--spirv` path of
//! `dxil run`, on the available Vulkan device.
//!
//! Needs `../shared/conformance` beside the repository and a Vulkan device: without either the
//! tests are skipped with a message, unless `CI` is set, where they fail.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use dxil_runtime::case::Expected;
use dxil_runtime::{Case, RunError, RunOptions, Runtime, ShaderModule};

/// The workspace's rule: a printed skip, or a failure under `CI`.
fn skip_or_fail(what: &str) {
    dxil_corpus::skip_or_fail(what);
}

fn conformance_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/v1");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_or_fail(&format!("no conformance cases at {}", dir.display()));
        None
    }
}

fn runtime() -> Option<Runtime> {
    match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => Some(rt),
        Err(e) => {
            skip_or_fail(&format!("no Vulkan device: {e}"));
            None
        }
    }
}

fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    cases
}

fn load(path: &Path) -> (Case, ShaderModule) {
    let case = Case::load(path).unwrap_or_else(|e| panic!("{e}"));
    let spv = case.shader.with_extension("spv");
    let bytes = std::fs::read(&spv).unwrap_or_else(|e| panic!("{}: {e}", spv.display()));
    let module = ShaderModule::from_bytes(&bytes, case.entry.clone().unwrap_or_default()).unwrap();
    (case, module)
}

#[test]
fn every_v1_case_passes_with_dxc_spirv() {
    let (Some(dir), Some(rt)) = (conformance_dir(), runtime()) else {
        return;
    };
    let all = cases(&dir);
    assert!(!all.is_empty(), "no cases in {}", dir.display());
    let mut failures = Vec::new();
    for path in &all {
        let (case, module) = load(path);
        let started = Instant::now();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match rt.run(&case, &module, &RunOptions::default()) {
            Ok(report) if report.passed() => {
                eprintln!("pass {name} ({:?})", started.elapsed());
            }
            Ok(report) => {
                for m in &report.mismatches {
                    eprintln!("FAIL {name}: {m}");
                }
                failures.push(name);
            }
            Err(e) => {
                eprintln!("ERROR {name}: {e}");
                failures.push(name);
            }
        }
    }
    eprintln!(
        "{} of {} cases pass on {}",
        all.len() - failures.len(),
        all.len(),
        rt.device_info().name
    );
    assert!(failures.is_empty(), "failing cases: {failures:?}");
}

#[test]
fn a_wrong_expectation_reports_the_first_differing_word() {
    let (Some(dir), Some(rt)) = (conformance_dir(), runtime()) else {
        return;
    };
    let (mut case, module) = load(&dir.join("typed_buffer.toml"));
    let Some(Expected::U32(values)) = case.expects.first_mut().map(|e| &mut e.values) else {
        panic!("typed_buffer.toml should expect u32 words");
    };
    values[5] = 99;
    values[7] = 98;
    let report = rt.run(&case, &module, &RunOptions::default()).unwrap();
    assert_eq!(report.exit_code(), 1);
    let m = &report.mismatches[0];
    assert_eq!(
        (m.target.as_str(), m.index, m.actual, m.differing),
        ("u0", 5, 16, 2)
    );
    assert!(m.to_string().starts_with("u0: word 5: expected 99"), "{m}");
}

#[test]
fn dump_writes_every_resource() {
    let (Some(dir), Some(rt)) = (conformance_dir(), runtime()) else {
        return;
    };
    let (case, module) = load(&dir.join("add_raw.toml"));
    let out = std::env::temp_dir().join(format!("dxil-runtime-dump-{}", std::process::id()));
    let options = RunOptions {
        dump_dir: Some(out.clone()),
        ..RunOptions::default()
    };
    let report = rt.run(&case, &module, &options).unwrap();
    assert!(report.passed());
    for (stem, first_word) in [("t0", 0u32), ("t1", 1000), ("u0", 1000)] {
        let bytes = std::fs::read(out.join(format!("{stem}.bin"))).unwrap();
        assert_eq!(bytes.len(), 512, "{stem}");
        assert_eq!(
            u32::from_le_bytes(bytes[..4].try_into().unwrap()),
            first_word,
            "{stem}"
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_resource_the_shader_needs_but_the_case_lacks_is_exit_2() {
    let (Some(dir), Some(rt)) = (conformance_dir(), runtime()) else {
        return;
    };
    let path = dir.join("add_raw.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("bind = \"t1\"", "bind = \"t2\"");
    let case = Case::parse(&text, &path).unwrap();
    let (_, module) = load(&path);
    let err = rt.run(&case, &module, &RunOptions::default()).unwrap_err();
    assert!(matches!(err, RunError::Binding(_)), "{err}");
    assert!(err.to_string().contains("t1"), "{err}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn a_missing_entry_point_is_exit_2() {
    let (Some(dir), Some(rt)) = (conformance_dir(), runtime()) else {
        return;
    };
    let (case, mut module) = load(&dir.join("add_raw.toml"));
    module.entry = "not_there".into();
    let err = rt.run(&case, &module, &RunOptions::default()).unwrap_err();
    assert!(err.to_string().contains("not_there"), "{err}");
}
