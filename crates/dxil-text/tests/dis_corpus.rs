//! Prints the module of every container in the shared corpus and compares it with DXC's listing
//! (`X.ll`), ignoring comment lines, blank lines and the width of runs of blanks.

use std::time::Instant;

use dxil_container::{Container, FourCC};

/// The lines that must match: no comment lines, no blank lines, runs of blanks as one space.
fn normalize(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with(';')
        })
        .map(|l| {
            let mut s = String::with_capacity(l.len());
            let mut blank = false;
            for c in l.chars() {
                if c == ' ' || c == '\t' {
                    blank = true;
                } else {
                    if blank {
                        s.push(' ');
                        blank = false;
                    }
                    s.push(c);
                }
            }
            if blank {
                s.push(' ');
            }
            s
        })
        .collect()
}

/// The module's listing, from the debug module when the container has one (as DXC does).
fn listing(bytes: &[u8]) -> Result<String, String> {
    let c = Container::parse(bytes).map_err(|e| format!("container: {e}"))?;
    let p = c
        .program_part(FourCC::ILDB)
        .or_else(|| c.program())
        .ok_or("no DXIL part")?
        .map_err(|e| format!("program header: {e}"))?;
    let m = dxil_module::read_module(p.bitcode, p.bitcode_byte_offset_in_container as u64)
        .map_err(|e| format!("read: {e}"))?;
    let mut text = String::new();
    dxil_text::print_module(&m, &mut text).map_err(|e| format!("print: {e}"))?;
    Ok(text)
}

#[test]
fn listings_match_dxc() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers_with_listing(&dir);
    assert!(
        !files.is_empty(),
        "no containers with listings under {}",
        dir.display()
    );
    let t = Instant::now();
    let mut expect = dxil_corpus::Expectations::new(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/expected/dis_corpus.txt"),
        "our listing against DXC's X.ll (comments, blank lines and blank runs ignored), per container",
    );
    for f in &files {
        let name = dxil_corpus::relative_name(&dir, f);
        let bytes = std::fs::read(f).unwrap();
        let expected = std::fs::read_to_string(f.with_extension("ll")).unwrap();
        let outcome = match listing(&bytes) {
            Ok(ours) => compare(&normalize(&ours), &normalize(&expected)),
            Err(e) => format!("error: {e}"),
        };
        expect.record(name, outcome);
    }
    eprintln!(
        "dis corpus: {:?} over {} listings in {:.2?}",
        expect.tally(),
        files.len(),
        t.elapsed()
    );
    expect.check();
}

/// `match`, or where our lines first depart from DXC's.
fn compare(a: &[String], b: &[String]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        None if a.len() == b.len() => "match".to_string(),
        None => format!(
            "differs: {} lines, DXC has {}; first extra: {:?}",
            a.len(),
            b.len(),
            a.get(b.len()).or(b.get(a.len()))
        ),
        Some(i) => format!("differs: line {}: ours `{}`, dxc `{}`", i + 1, a[i], b[i]),
    }
}

/// Corrupts ids all over read modules (operands, constant and metadata pools, types,
/// initializers) and prints them: the printer must not panic or loop on malformed models.
#[test]
fn corrupted_modules_print_without_panicking() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers_with_listing(&dir);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rng = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // `DIS_CORRUPT_ROUNDS` raises the effort for a longer local run.
    let rounds: usize = std::env::var("DIS_CORRUPT_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let mut printed = 0;
    for f in files.iter().step_by(40) {
        let bytes = std::fs::read(f).unwrap();
        let Ok(c) = Container::parse(&bytes) else {
            continue;
        };
        let Some(Ok(p)) = c.program() else { continue };
        let Ok(module) = dxil_module::read_module(p.bitcode, 0) else {
            continue;
        };
        for _ in 0..rounds {
            let mut m = module.clone();
            for _ in 0..4 {
                let r = rng();
                // Half small ids (likely in range), half anything.
                let v = if r & 1 == 0 {
                    ((r >> 8) as u32 & 0xE000_0000) | ((r >> 40) as u32 & 63)
                } else {
                    (r >> 16) as u32
                };
                let pick = |len: usize| (r >> 32) as usize % len.max(1);
                match (r >> 4) % 6 {
                    0 => {
                        let n = m.constants.values.len();
                        if let Some(x) = m.constants.values.get_mut(pick(n)) {
                            *x = dxil_module::Value(v);
                        }
                    }
                    1 => {
                        let n = m.metadata.operands.len();
                        if let Some(x) = m.metadata.operands.get_mut(pick(n)) {
                            *x = v & 0xFFFF;
                        }
                    }
                    2 => {
                        let n = m.types.len();
                        m.types.set(
                            dxil_module::TypeId(pick(n) as u32),
                            dxil_module::TypeData::Pointer {
                                pointee: dxil_module::TypeId(v & 0xFF),
                                address_space: 0,
                            },
                        );
                    }
                    3 => {
                        let n = m.globals.len();
                        if let Some(g) = m.globals.get_mut(pick(n)) {
                            g.init = Some(dxil_module::Value(v));
                        }
                    }
                    _ => {
                        for func in m.functions.iter_mut() {
                            if let Some(b) = func.body.as_mut() {
                                let n = b.pool.len();
                                if let Some(x) = b.pool.get_mut(pick(n)) {
                                    *x = v;
                                }
                                let n = b.insts.len();
                                if r & 0x100 != 0
                                    && let Some(i) = b.insts.get_mut(pick(n))
                                {
                                    i.ty = dxil_module::TypeId(v & 0xFF);
                                }
                            }
                        }
                    }
                }
            }
            let mut text = String::new();
            dxil_text::print_module(&m, &mut text).unwrap();
            printed += 1;
        }
    }
    eprintln!("printed {printed} corrupted modules");
}

#[test]
fn normalization_drops_comments_and_collapses_blanks() {
    let text =
        "; header\n\n  %1 = add i32 %0,   1  ; trailing\n    ; indented comment\n\t!0 = !{}\n";
    assert_eq!(
        normalize(text),
        vec![" %1 = add i32 %0, 1 ; trailing", " !0 = !{}"]
    );
}
