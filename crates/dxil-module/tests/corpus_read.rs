//! Reads the module of every container in the shared corpus.

use std::path::PathBuf;
use std::time::Instant;

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DXIL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var_os("CI").is_some() {
        panic!("corpus not found at {} (set DXIL_CORPUS)", dir.display());
    } else {
        eprintln!("SKIPPED: corpus not found at {}", dir.display());
        None
    }
}

fn containers(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            containers(&p, out);
        } else if p.extension().is_some_and(|e| e == "dxil") {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_module_reads() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = Vec::new();
    containers(&dir, &mut files);
    let (mut ok, mut fail, mut no_dxil) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut insts = 0usize;
    let t = Instant::now();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let c = dxil_container::Container::parse(&bytes).unwrap();
        let Some(p) = c.program() else {
            no_dxil += 1;
            continue;
        };
        let p = p.unwrap();
        match dxil_module::read_module(p.bitcode, p.bitcode_byte_offset_in_container as u64) {
            Ok(m) => {
                ok += 1;
                insts += m
                    .functions
                    .iter()
                    .filter_map(|f| f.body.as_ref())
                    .map(|b| b.insts.len())
                    .sum::<usize>();
            }
            Err(e) => {
                fail += 1;
                if failures.len() < 20 {
                    failures.push(format!("{}: {e}", f.display()));
                }
            }
        }
    }
    eprintln!(
        "read {ok} modules ({insts} instructions), {fail} failed, {no_dxil} without DXIL part, in {:?}",
        t.elapsed()
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert_eq!(fail, 0);
    assert!(ok > 1800);
}
