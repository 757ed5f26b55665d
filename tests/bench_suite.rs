//! The GPU benchmark suite (`bench/gpu/`) as a correctness check: every kernel's small case runs
//! under each route (DXC's SPIR-V, our translation, and the reference translator's module where
//! the suite has one) through `dxil bench kernels`, and every route must meet the case's exact
//! expectations. No timing is involved.
//!
//! Needs a Vulkan device; skipped with a message without one, unless `CI` is set.

use std::path::Path;
use std::process::Command;

fn skip_or_fail(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{what} (required when CI is set)");
    }
    eprintln!("SKIPPED: {what}");
}

#[test]
fn every_kernel_passes_under_every_route() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = root.join("bench/gpu/suite.toml");
    let manifest = std::fs::read_to_string(&suite).expect("bench/gpu/suite.toml");
    let names: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .collect();
    assert!(names.len() >= 17, "the suite lists {} kernels", names.len());
    if let Err(e) = dxil_runtime::Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        skip_or_fail(&format!("no Vulkan device: {e}"));
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_dxil"))
        .args(["bench", "kernels"])
        .arg(&suite)
        .args(["--timeout", "300"])
        .output()
        .expect("cannot start dxil");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "dxil bench kernels failed ({:?}):\n{stdout}\n{stderr}",
        out.status.code()
    );
    for name in names {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no result line for {name}:\n{stdout}"));
        for route in ["dxc", "ours"] {
            assert!(
                line.contains(&format!("{route} pass")),
                "{name}: {route} did not pass: {line}"
            );
        }
        let reference = root.join(format!("bench/gpu/kernels/{name}.ref.spv"));
        if reference.is_file() {
            assert!(
                line.contains("ref pass"),
                "{name}: ref did not pass: {line}"
            );
        }
    }
}
