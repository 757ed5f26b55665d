//! Every non-compute container of the corpus (vertex, pixel, geometry, hull, domain, mesh, amplification and
//! library profiles in the manifests) through the default binding model; a library (`lib_6_x`) once per entry
//! point it exports (`name [Export]`), with the local root signature its subobjects associate with the export. The
//! outcome of each one is committed in
//! `tests/expected/graphics_corpus.txt`: `ok` (translates and passes `spirv-val` for the Vulkan version the
//! translation reports), `spirv-val: ...` (translates to a module the validator rejects: always a bug), or the
//! translation error without its location. Any change, better or worse, fails the test; `BLESS=1` rewrites the
//! file.
//!
//! The outcomes are also held to the reference translator (dxil-spirv): a shader (or library export) it translates (`tests/expected/reference-failures.txt` lists those it does not) must translate here too,
//! except the gaps `KNOWN_GAPS` names with their reasons. Compute shaders are held to more in `tests/corpus.rs`
//! (every one translates).
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use dxil_corpus::Expectations;
use dxil_to_spirv::{Options, Translator};
use support::*;

/// The profiles checked here (compute has `corpus.rs`).
const PROFILES: [&str; 8] = [
    "vs_6_", "ps_6_", "gs_6_", "hs_6_", "ds_6_", "ms_6_", "as_6_", "lib_6_",
];

/// Profiles held to the reference translator: a container of these that we fail on while the reference translates
/// it (it is not in `tests/expected/reference-failures.txt`) fails the test, unless [`KNOWN_GAPS`] lists it. Every
/// profile of the corpus is translated, so every one is checked (library exports one by one).
const CHECKED_AGAINST_REFERENCE: [&str; 8] = PROFILES;

/// Containers of the checked profiles that the reference translates and we do not, with the reason (none today).
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// The corpus entries the reference translator fails on (`name: reason` lines of
/// `tests/expected/reference-failures.txt`, made by `make-reference-failures.py` there).
fn reference_failures() -> std::collections::BTreeMap<String, String> {
    let text = include_str!("expected/reference-failures.txt");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(": "))
        .map(|(n, r)| (our_name(n), r.to_string()))
        .collect()
}

/// A reference-list name as this test's lines spell it: a library export is `suite/name@?Export@@YAXXZ` there (the
/// function's mangled name) and `suite/name [Export]` here.
fn our_name(reference: &str) -> String {
    match reference.split_once('@') {
        Some((container, f)) => {
            let f = f.trim_start_matches('\u{1}');
            let export = match f.strip_prefix('?') {
                Some(m) => m.split('@').next().unwrap_or(m),
                None => f,
            };
            format!("{container} [{export}]")
        }
        None => reference.to_string(),
    }
}

/// The reason of a translation error without its location (so that equal reasons group).
fn reason(e: &dxil_to_spirv::Error) -> String {
    match e {
        dxil_to_spirv::Error::Unsupported { what, .. } => format!("unsupported: {what}"),
        dxil_to_spirv::Error::Invalid { what, .. } => format!("invalid input: {what}"),
        other => format!("error: {other}"),
    }
}

#[test]
fn every_graphics_shader_has_its_expected_outcome() {
    let Some(corpus) = corpus_dir() else { return };
    let shaders = shaders_of(&corpus, &PROFILES);
    assert!(
        !shaders.is_empty(),
        "no graphics shaders in {}",
        corpus.display()
    );
    if !have_spirv_val() {
        skip_or_fail("spirv-val is not installed");
        return;
    }
    let outcomes = Mutex::new(Vec::with_capacity(shaders.len()));
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (shaders, outcomes, next) = (&shaders, &outcomes, &next);
            s.spawn(move || {
                let mut tr = Translator::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(sh) = shaders.get(i) else { break };
                    let bytes = std::fs::read(sh.file("dxil")).unwrap();
                    let module = match dxil_to_spirv::read_container(&bytes) {
                        Ok(m) => m,
                        Err(e) => {
                            outcomes.lock().unwrap().push((sh.name.clone(), reason(&e)));
                            continue;
                        }
                    };
                    // A library: every exported entry point; otherwise the manifest's entry.
                    let runs: Vec<(String, Option<String>)> = if sh.profile.starts_with("lib_") {
                        match dxil_to_spirv::entry_points(&module) {
                            Ok(eps) => eps
                                .into_iter()
                                .map(|e| (format!("{} [{}]", sh.name, e.export), Some(e.export)))
                                .collect(),
                            Err(e) => {
                                outcomes.lock().unwrap().push((sh.name.clone(), reason(&e)));
                                continue;
                            }
                        }
                    } else {
                        vec![(sh.name.clone(), sh.entry.clone().filter(|e| !e.is_empty()))]
                    };
                    for (name, entry_point) in runs {
                        let local = match entry_point
                            .as_deref()
                            .filter(|_| sh.profile.starts_with("lib_"))
                        {
                            Some(e) => match dxil_to_spirv::library_local_root_signature(&bytes, e)
                            {
                                Ok(l) => l.map(Arc::new),
                                Err(e) => {
                                    outcomes.lock().unwrap().push((name, reason(&e)));
                                    continue;
                                }
                            },
                            None => None,
                        };
                        let options = Options {
                            entry_point,
                            local_root_signature: local,
                            ..Options::default()
                        };
                        let outcome = match tr.translate(&module, &options) {
                            Ok(out) => {
                                match spirv_val(&out.words, out.vulkan_version, &format!("g{t}")) {
                                    Ok(()) => "ok".to_string(),
                                    Err(e) => format!(
                                        "spirv-val: {}",
                                        e.lines().take(2).collect::<Vec<_>>().join(" | ")
                                    ),
                                }
                            }
                            Err(e) => reason(&e),
                        };
                        outcomes.lock().unwrap().push((name, outcome));
                    }
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();
    let reference = reference_failures();
    let behind: Vec<String> = outcomes
        .iter()
        .filter(|(name, outcome)| {
            outcome != "ok"
                && !reference.contains_key(name)
                && !KNOWN_GAPS.iter().any(|(n, _)| n == name)
                && shaders.iter().any(|s| {
                    s.name == name.split(" [").next().unwrap_or(name)
                        && CHECKED_AGAINST_REFERENCE
                            .iter()
                            .any(|p| s.profile.starts_with(p))
                })
        })
        .map(|(name, outcome)| format!("{name}: {outcome}"))
        .collect();
    for (name, _) in KNOWN_GAPS {
        if outcomes.iter().any(|(n, o)| n == name && o == "ok") {
            eprintln!("{name} translates now: drop it from KNOWN_GAPS");
        }
    }
    let mut expect = Expectations::new(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/expected/graphics_corpus.txt"
        ),
        "every non-compute corpus container, default binding model: ok (translates, spirv-val passes),\n\
         spirv-val: ... (translates, rejected), or the translation error",
    );
    for (name, outcome) in outcomes {
        expect.record(name, outcome);
    }
    for prefix in PROFILES {
        let of_stage: Vec<&Shader> = shaders
            .iter()
            .filter(|s| s.profile.starts_with(prefix))
            .collect();
        eprintln!("{prefix}*: {} containers", of_stage.len());
    }
    eprintln!("outcomes: {:?}", expect.tally());
    expect.check();
    assert!(
        behind.is_empty(),
        "{} containers the reference translator translates fail here:\n{}",
        behind.len(),
        behind.join("\n")
    );
}
