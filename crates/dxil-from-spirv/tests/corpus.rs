//! Every SPIR-V module of the shared corpora, translated and validated by DXC's validator:
//! `../shared/corpus/**/*.spv` (DXC's SPIR-V of the corpus compute shaders) and
//! `../shared/corpus-spirv/{glslang,dxc}/**/*.spv`. Each input's outcome (`ok`, the
//! translation error, or the validator's first complaint) must equal the line recorded in
//! `tests/corpus.expected`; `BLESS=1` rewrites that file. Every translated container must also
//! parse, carry a valid digest and read back as a module.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

fn shared_dir() -> PathBuf {
    let corpus = dxil_corpus::default_corpus_dir();
    corpus
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("../shared"))
}

/// The inputs: (name in the expectations, path).
fn inputs() -> Option<Vec<(String, PathBuf)>> {
    let shared = shared_dir();
    let corpus = dxil_corpus::default_corpus_dir();
    let spirv = shared.join("corpus-spirv");
    if !corpus.is_dir() || !spirv.is_dir() {
        dxil_corpus::skip_or_fail(format!(
            "SPIR-V corpora not found at {} and {} (set DXIL_CORPUS)",
            corpus.display(),
            spirv.display()
        ));
        return None;
    }
    let mut out = Vec::new();
    for p in dxil_corpus::files_with_extension(&corpus, "spv") {
        out.push((
            format!("corpus/{}", dxil_corpus::relative_name(&corpus, &p)),
            p,
        ));
    }
    for set in ["glslang", "dxc"] {
        let dir = spirv.join(set);
        for p in dxil_corpus::files_with_extension(&dir, "spv") {
            out.push((format!("{set}/{}", dxil_corpus::relative_name(&dir, &p)), p));
        }
    }
    Some(out)
}

/// The outcome line of one input.
fn outcome(path: &Path, dxv: &Path, scratch: &Path, n: usize) -> String {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return format!("unreadable: {e}"),
    };
    let out = match dxil_from_spirv::translate_bytes(&bytes, &Default::default()) {
        Ok(o) => o,
        Err(e) => return e.to_string(),
    };
    // Structural checks of our own before the validator.
    let c = dxil_container::Container::parse(&out.container)
        .unwrap_or_else(|e| panic!("{}: the container does not parse: {e}", path.display()));
    assert_eq!(
        c.digest_status(),
        dxil_container::DigestStatus::Signed,
        "{}: digest",
        path.display()
    );
    let program = c
        .program()
        .unwrap_or_else(|| panic!("{}: no DXIL part", path.display()))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    dxil_module::read_module(program.bitcode, 0)
        .unwrap_or_else(|e| panic!("{}: the bitcode does not read back: {e}", path.display()));
    let file = scratch.join(format!("{n}.dxil"));
    match dxil_corpus::run_dxv(dxv, &file, &out.container) {
        Ok(()) => "ok".into(),
        Err(text) => {
            let first = text
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("validation failed")
                .trim()
                .to_string();
            format!("dxv: {first}")
        }
    }
}

#[test]
fn corpus_translates_and_validates() {
    let Some(inputs) = inputs() else { return };
    let Some(dxv) = dxil_corpus::dxv() else {
        return;
    };
    let scratch =
        std::env::temp_dir().join(format!("dxil-from-spirv-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let lines: Vec<String> = inputs
        .par_iter()
        .enumerate()
        .map(|(n, (name, path))| format!("{name}: {}", outcome(path, &dxv, &scratch, n)))
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    let mut text = String::new();
    for l in &lines {
        let _ = writeln!(text, "{l}");
    }
    let expected_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus.expected");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected_path, &text).expect("write expectations");
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    let ok = lines.iter().filter(|l| l.ends_with(": ok")).count();
    eprintln!("{ok} of {} inputs translate and pass dxv", lines.len());
    if expected != text {
        let exp: Vec<&str> = expected.lines().collect();
        let mut diffs = Vec::new();
        for l in &lines {
            if !exp.contains(&l.as_str()) {
                diffs.push(format!("now:      {l}"));
            }
        }
        for e in &exp {
            if !lines.iter().any(|l| l == e) {
                diffs.push(format!("expected: {e}"));
            }
        }
        panic!(
            "{} outcomes differ from tests/corpus.expected (BLESS=1 to accept):\n{}",
            diffs.len(),
            diffs.join("\n")
        );
    }
}
