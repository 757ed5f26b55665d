//! Reads the module of every container in the shared corpus.

use std::time::Instant;

#[test]
fn every_corpus_module_reads() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers(&dir);
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
