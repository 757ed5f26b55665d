//! Every compute container of the corpus (`cs_6_*` in the manifests) translates, and every result passes
//! `spirv-val` for the Vulkan version the translation reports.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use std::sync::Mutex;

use dxil_to_spirv::{Options, Translator};
use support::*;

#[test]
fn every_compute_shader_translates_and_validates() {
    let Some(corpus) = corpus_dir() else { return };
    let shaders = compute_shaders(&corpus);
    assert!(
        !shaders.is_empty(),
        "no compute shaders in {}",
        corpus.display()
    );
    let validate = have_spirv_val();
    if !validate {
        skip_or_fail("spirv-val is not installed: translation only");
    }
    let failures = Mutex::new(Vec::new());
    let invalid = Mutex::new(Vec::new());
    let translated = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (shaders, failures, invalid, translated, next) =
                (&shaders, &failures, &invalid, &translated, &next);
            s.spawn(move || {
                let mut tr = Translator::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(sh) = shaders.get(i) else { break };
                    let bytes = std::fs::read(sh.file("dxil")).unwrap();
                    let options = Options {
                        entry_point: sh.entry.clone(),
                        ..Options::default()
                    };
                    let result = dxil_to_spirv::read_container(&bytes)
                        .and_then(|m| tr.translate(&m, &options));
                    match result {
                        Ok(tr_out) => {
                            translated.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            // A pipeline needs a non-empty subgroup-size range of powers of two
                            // (`[WaveSize(n)]` alone stores no maximum).
                            if let Some(w) = tr_out.wave_size {
                                let sizes = 4..=128u32;
                                if !(sizes.contains(&w.min)
                                    && sizes.contains(&w.max)
                                    && w.min <= w.max
                                    && w.min.is_power_of_two()
                                    && w.max.is_power_of_two())
                                {
                                    failures
                                        .lock()
                                        .unwrap()
                                        .push(format!("{}: wave size range {w:?}", sh.name));
                                }
                            }
                            if validate
                                && let Err(e) = spirv_val(
                                    &tr_out.words,
                                    tr_out.vulkan_version,
                                    &format!("c{t}"),
                                )
                            {
                                let first = e.lines().take(3).collect::<Vec<_>>().join(" | ");
                                invalid
                                    .lock()
                                    .unwrap()
                                    .push(format!("{}: {first}", sh.name));
                            }
                        }
                        Err(e) => failures.lock().unwrap().push(format!("{}: {e}", sh.name)),
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    let mut invalid = invalid.into_inner().unwrap();
    failures.sort();
    invalid.sort();
    let n = shaders.len();
    let ok = translated.into_inner();
    for f in &failures {
        eprintln!("TRANSLATE FAIL {f}");
    }
    for f in &invalid {
        eprintln!("SPIRV-VAL FAIL {f}");
    }
    eprintln!(
        "corpus: {ok}/{n} compute containers translate; {}/{ok} pass spirv-val",
        ok - invalid.len()
    );
    assert!(
        failures.is_empty(),
        "{} containers do not translate",
        failures.len()
    );
    assert!(
        invalid.is_empty(),
        "{} translations fail spirv-val",
        invalid.len()
    );
}
