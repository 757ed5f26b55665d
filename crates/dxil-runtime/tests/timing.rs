//! Timed runs: resources in device-local memory, warm-up and timed repetitions each on the
//! initial contents, one GPU time per timed repetition, and the last repetition's results checked
//! like any run's; and pipeline creation of a module on its own.
//!
//! Needs `../shared/conformance` beside the repository and a Vulkan device: without either the
//! tests are skipped with a message, unless `CI` is set, where they fail.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use dxil_runtime::{Case, RunError, RunOptions, Runtime, ShaderModule, Summary, Timing};

fn skip_or_fail(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{what} (required when CI is set)");
    }
    eprintln!("SKIPPED: {what}");
}

fn setup(case: &str) -> Option<(Runtime, Case, ShaderModule)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/v1");
    let path: PathBuf = dir.join(case);
    if !path.is_file() {
        skip_or_fail(&format!("no conformance case at {}", path.display()));
        return None;
    }
    let rt = match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            skip_or_fail(&format!("no Vulkan device: {e}"));
            return None;
        }
    };
    let case = Case::load(&path).unwrap();
    let bytes = std::fs::read(case.shader.with_extension("spv")).unwrap();
    let module = ShaderModule::from_bytes(&bytes, "main").unwrap();
    Some((rt, case, module))
}

/// Atomics accumulate into their buffer: only a run whose every repetition starts from the
/// initial contents ends with the single-dispatch expectations.
#[test]
fn repetitions_start_from_the_initial_contents() {
    let Some((rt, case, module)) = setup("atomics_raw.toml") else {
        return;
    };
    let options = RunOptions {
        timing: Some(Timing {
            warmup: 2,
            warmup_time: Duration::from_millis(5),
            dispatches: 7,
        }),
        ..RunOptions::default()
    };
    let report = rt.run(&case, &module, &options).unwrap();
    assert!(report.passed(), "{:?}", report.mismatches);
    assert_eq!(report.dispatch_times.len(), 7);
    let s = Summary::of(&report.dispatch_times).unwrap();
    assert!(s.min <= s.median && s.median <= s.max);
    assert!(report.timings.pipeline <= report.timings.setup);

    // An untimed run reports no GPU times.
    let plain = rt.run(&case, &module, &RunOptions::default()).unwrap();
    assert!(plain.passed());
    assert!(plain.dispatch_times.is_empty());
}

/// Several modules timed together on one set of resources: each gets its own GPU times and its
/// own checked results, timed or not.
#[test]
fn modules_timed_together_each_get_their_results() {
    let Some((rt, case, module)) = setup("atomics_raw.toml") else {
        return;
    };
    let modules = [module.clone(), module];
    for timing in [
        None,
        Some(Timing {
            warmup: 1,
            warmup_time: Duration::ZERO,
            dispatches: 4,
        }),
    ] {
        let options = RunOptions {
            timing,
            ..RunOptions::default()
        };
        let reports = rt.run_many(&case, &modules, &options).unwrap();
        assert_eq!(reports.len(), 2);
        for r in &reports {
            assert!(r.passed(), "{:?}", r.mismatches);
            assert_eq!(r.dispatch_times.len(), if timing.is_some() { 4 } else { 0 });
        }
    }
}

#[test]
fn timing_needs_at_least_one_timed_dispatch() {
    let Some((rt, case, module)) = setup("add_raw.toml") else {
        return;
    };
    let options = RunOptions {
        timing: Some(Timing {
            warmup: 1,
            warmup_time: Duration::ZERO,
            dispatches: 0,
        }),
        ..RunOptions::default()
    };
    let err = rt.run(&case, &module, &options).unwrap_err();
    assert!(matches!(err, RunError::Unsupported(_)), "{err}");
}

#[test]
fn pipeline_creation_of_a_module_alone() {
    let Some((rt, _, module)) = setup("groupshared_sum.toml") else {
        return;
    };
    rt.pipeline_creation(&module.words, "").unwrap();
    let err = rt.pipeline_creation(&module.words, "nope").unwrap_err();
    assert!(matches!(err, RunError::Reflect(_)), "{err}");
}
