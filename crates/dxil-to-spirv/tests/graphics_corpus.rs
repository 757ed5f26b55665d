//! Every vertex, pixel and geometry container of the corpus (`vs_6_*`, `ps_6_*`, `gs_6_*` in the manifests) with
//! the default binding model: counts how many translate, asserts that every translation passes `spirv-val` for
//! the Vulkan version it reports, and lists the containers that do not translate, grouped by reason.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use dxil_to_spirv::{Options, Translator};
use support::*;

/// The reason of a translation error without its location (so that equal reasons group).
fn reason(e: &dxil_to_spirv::Error) -> String {
    match e {
        dxil_to_spirv::Error::Unsupported { what, .. } => format!("unsupported {what}"),
        dxil_to_spirv::Error::Invalid { what, .. } => format!("invalid input: {what}"),
        other => other.to_string(),
    }
}

#[test]
fn every_graphics_shader_that_translates_validates() {
    let Some(corpus) = corpus_dir() else { return };
    let shaders = shaders_of(&corpus, &["vs_6_", "ps_6_", "gs_6_"]);
    assert!(
        !shaders.is_empty(),
        "no graphics shaders in {}",
        corpus.display()
    );
    if !have_spirv_val() {
        skip_or_fail("spirv-val is not installed");
        return;
    }
    let unsupported: Mutex<BTreeMap<String, Vec<String>>> = Mutex::new(BTreeMap::new());
    let invalid = Mutex::new(Vec::new());
    let translated: [AtomicUsize; 3] = Default::default();
    let totals: [AtomicUsize; 3] = Default::default();
    let stage_index = |profile: &str| match &profile[..2] {
        "vs" => 0,
        "ps" => 1,
        _ => 2,
    };
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (shaders, unsupported, invalid, translated, totals, next) = (
                &shaders,
                &unsupported,
                &invalid,
                &translated,
                &totals,
                &next,
            );
            s.spawn(move || {
                let mut tr = Translator::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(sh) = shaders.get(i) else { break };
                    let k = stage_index(&sh.profile);
                    totals[k].fetch_add(1, Ordering::Relaxed);
                    let bytes = std::fs::read(sh.file("dxil")).unwrap();
                    let options = Options {
                        entry_point: sh.entry.clone(),
                        ..Options::default()
                    };
                    let result = dxil_to_spirv::read_container(&bytes)
                        .and_then(|m| tr.translate(&m, &options));
                    match result {
                        Ok(out) => {
                            translated[k].fetch_add(1, Ordering::Relaxed);
                            if let Err(e) =
                                spirv_val(&out.words, out.vulkan_version, &format!("g{t}"))
                            {
                                let first = e.lines().take(3).collect::<Vec<_>>().join(" | ");
                                invalid
                                    .lock()
                                    .unwrap()
                                    .push(format!("{}: {first}", sh.name));
                            }
                        }
                        Err(e) => unsupported
                            .lock()
                            .unwrap()
                            .entry(reason(&e))
                            .or_default()
                            .push(sh.name.clone()),
                    }
                }
            });
        }
    });
    let unsupported = unsupported.into_inner().unwrap();
    let mut invalid = invalid.into_inner().unwrap();
    invalid.sort();
    let mut by_count: Vec<_> = unsupported.iter().collect();
    by_count.sort_by_key(|(r, v)| (std::cmp::Reverse(v.len()), r.as_str()));
    for (why, names) in &by_count {
        eprintln!("NOT TRANSLATED ({}): {why}", names.len());
        for n in names.iter().take(3) {
            eprintln!("    {n}");
        }
    }
    for f in &invalid {
        eprintln!("SPIRV-VAL FAIL {f}");
    }
    let ok: usize = translated.iter().map(|a| a.load(Ordering::Relaxed)).sum();
    for (k, stage) in ["vertex", "pixel", "geometry"].iter().enumerate() {
        eprintln!(
            "{stage}: {}/{} translate",
            translated[k].load(Ordering::Relaxed),
            totals[k].load(Ordering::Relaxed)
        );
    }
    eprintln!(
        "corpus: {ok}/{} graphics containers translate; {}/{ok} pass spirv-val",
        shaders.len(),
        ok - invalid.len()
    );
    assert!(ok > 0, "no graphics container translates");
    assert!(
        invalid.is_empty(),
        "{} translations fail spirv-val",
        invalid.len()
    );
}
