//! Findings on DXIL this repository had not seen (hand-reduced reports and the `translate` fuzz target's
//! findings), kept as listings in `tests/regressions/`: each must translate to a module `spirv-val` accepts or fail
//! with an error naming the instruction or element and the reason, never translate to a module the validator
//! rejects. The outcome of each is committed in `tests/expected/regressions.txt` (`ok`, or the error); `BLESS=1`
//! rewrites it. A new finding is a new listing here, with a comment saying what went wrong.

mod support;

use dxil_corpus::Expectations;
use dxil_to_spirv::{Options, translate};
use support::*;

#[test]
fn every_finding_translates_validly_or_fails_with_a_named_error() {
    if !have_spirv_val() {
        skip_or_fail("spirv-val is not installed");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no listings in {}", dir.display());
    let mut expect = Expectations::new(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/expected/regressions.txt"
        ),
        "tests/regressions/*.ll: ok (translates, spirv-val passes), spirv-val: ... (a bug), or the error",
    );
    let mut rejected = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let module = dxil_text::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let outcome = match translate(&module, &Options::default()) {
            Ok(t) => match spirv_val(&t.words, t.vulkan_version, "regression") {
                Ok(()) => "ok".to_string(),
                Err(e) => {
                    rejected.push(name.clone());
                    format!("spirv-val: {}", e.lines().next().unwrap_or(""))
                }
            },
            Err(e) => format!("error: {e}"),
        };
        expect.record(name, outcome);
    }
    expect.check();
    assert!(
        rejected.is_empty(),
        "translations spirv-val rejects: {rejected:?}"
    );
}
