//! The shared conformance cases (version 1) pass with our translation on the available Vulkan device.
//!
//! Needs `../shared/conformance/v1` beside the repository and a Vulkan device (lavapipe here); without either
//! the test is skipped with a message, unless `CI` is set.

mod support;

use dxil_runtime::{Case, RunOptions, Runtime, ShaderModule};
use support::*;

#[test]
fn every_v1_case_passes_with_our_translation() {
    let Some(dir) = conformance_dir() else { return };
    let rt = match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            skip_or_fail(&format!("no Vulkan device: {e}"));
            return;
        }
    };
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    let mut failures = Vec::new();
    for path in &cases {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case = Case::load(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = std::fs::read(&case.shader).unwrap();
        let options = dxil_to_spirv::Options {
            entry_point: case.entry.clone(),
            ..Default::default()
        };
        let t = match dxil_to_spirv::translate_container(&bytes, &options) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("TRANSLATE FAIL {name}: {e}");
                failures.push(name);
                continue;
            }
        };
        if have_spirv_val()
            && let Err(e) = spirv_val(&t.words, t.vulkan_version, "conf")
        {
            eprintln!("SPIRV-VAL FAIL {name}: {e}");
            failures.push(name);
            continue;
        }
        let module = ShaderModule {
            words: t.words,
            entry: t.entry_point,
        };
        match rt.run(&case, &module, &RunOptions::default()) {
            Ok(report) if report.passed() => eprintln!("pass {name}"),
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
        "conformance v1: {} of {} cases pass on {}",
        cases.len() - failures.len(),
        cases.len(),
        rt.device_info().name
    );
    assert!(failures.is_empty(), "failing cases: {failures:?}");
}
