//! `dxil run` end to end: every shared version-1 case (`../shared/conformance/v1`) and every ported vkd3d-proton
//! case (`conformance/vkd3d-proton`) passes with the command's own translation, through the built binary, as
//! `cargo run --release -- run CASE` would. Version-2 cases also run with `--layout no-mutable,spilled`, and
//! `--explain` must describe the layout.
//!
//! Needs the shared folder beside the repository and a Vulkan device; skipped with a message without them, unless
//! `CI` is set.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's rule: a printed skip, or a failure under `CI`.
fn skip_or_fail(what: &str) {
    dxil_corpus::skip_or_fail(what);
}

fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn run(case: &Path, extra: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_dxil"))
        .arg("run")
        .arg(case)
        .args(extra)
        .output()
        .map_err(|e| format!("cannot start dxil: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!("exit {:?}: {text}", out.status.code()))
    }
}

#[test]
fn dxil_run_passes_v1_and_vkd3d_proton_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let v1 = cases(&root.join("../shared/conformance/v1"));
    let v2 = cases(&root.join("conformance/vkd3d-proton"));
    assert!(!v2.is_empty(), "no cases in conformance/vkd3d-proton");
    if v1.is_empty() || !root.join("../shared/corpus").is_dir() {
        skip_or_fail("no shared conformance cases or corpus beside the repository");
        return;
    }
    if let Err(e) = dxil_runtime::Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        skip_or_fail(&format!("no Vulkan device: {e}"));
        return;
    }
    let mut failures = Vec::new();
    let mut runs = 0;
    for case in v1.iter().chain(&v2) {
        let layouts: &[&[&str]] = if v2.contains(case) {
            &[&[], &["--layout", "no-mutable,spilled"]]
        } else {
            &[&[]]
        };
        for extra in layouts {
            runs += 1;
            if let Err(e) = run(case, extra) {
                failures.push(format!("{} {extra:?}: {e}", case.display()));
            }
        }
    }
    // The layout account of a version-2 case.
    let explained = run(&v2[0], &["--explain"]).unwrap_or_else(|e| e);
    for part in [
        "root signature",
        "descriptor sets",
        "root block",
        "heap views",
    ] {
        assert!(
            explained.contains(part),
            "--explain lacks `{part}`:\n{explained}"
        );
    }
    eprintln!(
        "dxil run: {} version-1 and {} version-2 cases, {} of {runs} runs pass",
        v1.len(),
        v2.len(),
        runs - failures.len()
    );
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failing runs", failures.len());
}
