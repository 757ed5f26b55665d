//! Translation under root signatures ([`RootSignatureBindings`]) over the corpus, checked with `spirv-val`.
//!
//! 1. Every corpus container that carries an RTS0 part: compute, vertex, pixel, geometry, hull, domain, mesh and
//!    amplification shaders translate with their own root signature (on every layout variant below) and pass
//!    `spirv-val`; standalone root signature blobs (no shader) get a layout and a binding model. The corpus has no container of another stage with a
//!    root signature; one would be listed and fail the test.
//! 2. Every compute shader of the corpus translates under root signatures made from its own resource
//!    declarations — everything in descriptor tables; single buffers as root descriptors and single samplers as
//!    static samplers; small constant buffers as root constants — on each layout variant (per-type or mutable heap
//!    sets, push-descriptor root CBVs, a spilled root block, storage-buffer CBVs, no buffer device addresses), and
//!    passes `spirv-val`. The only failures allowed are the ones D3D12 itself rejects or the layout cannot express,
//!    each counted and printed: dynamic indexing of root constants (a PSO creation error on D3D12), UAV counters
//!    without buffer device addresses (no counter address table), and raw views stored as texel buffers.
//!
//! Needs the corpus (`$DXIL_CORPUS` or `../shared/corpus`) and `spirv-val`; skipped with a message without
//! them, unless `CI` is set.

mod support;
#[path = "support/synth_rootsig.rs"]
mod synth_rootsig;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dxil_rootsig::{ParseOptions, RTS0, RootSignature, find_part, parse_hlsl};
use dxil_to_spirv::{Options, RootSignatureBindings, Stage, Translator};
use support::*;
use synth_rootsig::{Shape, synthesize, variants};

fn all_containers(dir: &Path) -> Vec<PathBuf> {
    // A work list, not recursion: the corpus is a few folders deep.
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                pending.push(p);
            } else if p.extension().is_some_and(|x| x == "dxil") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Translates with the model and runs `spirv-val`; `Err` says which step failed.
fn translate_checked(
    tr: &mut Translator,
    module: &dxil_module::Module,
    entry: Option<&str>,
    model: RootSignatureBindings,
    tag: &str,
) -> Result<(), String> {
    let options = Options {
        entry_point: entry.map(str::to_string),
        binding: Arc::new(model),
        ..Options::default()
    };
    let t = tr
        .translate(module, &options)
        .map_err(|e| format!("translate: {e}"))?;
    spirv_val(&t.words, t.vulkan_version, tag).map_err(|e| format!("spirv-val: {e}"))
}

#[test]
fn every_container_with_a_root_signature_translates_with_it() {
    let Some(corpus) = corpus_dir() else { return };
    if !have_spirv_val() {
        skip_or_fail("spirv-val is not installed");
        return;
    }
    let mut tr = Translator::new();
    let (mut standalone, mut compute, mut runs, mut passed) = (0, 0, 0usize, 0usize);
    let mut other_stages: Vec<String> = Vec::new();
    let mut graphics: Vec<String> = Vec::new();
    let mut local: Vec<String> = Vec::new();
    let mut failures = Vec::new();
    for path in all_containers(&corpus) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(Some(_)) = find_part(&bytes, RTS0) else {
            continue;
        };
        let name = path
            .strip_prefix(&corpus)
            .unwrap_or(&path)
            .display()
            .to_string();
        let rs = RootSignature::from_container(&bytes)
            .unwrap_or_else(|e| panic!("{name}: root signature: {e}"));
        let module = match dxil_to_spirv::read_container(&bytes) {
            Ok(m) => m,
            Err(dxil_to_spirv::Error::NoProgram) => {
                // A standalone root signature: no shader, but the model must build on every variant, except
                // for local root signatures (ray tracing shader records), which have no pipeline layout.
                standalone += 1;
                if rs
                    .flags
                    .contains(dxil_rootsig::RootSignatureFlags::LOCAL_ROOT_SIGNATURE)
                {
                    local.push(name);
                    continue;
                }
                for (v, limits, options) in variants() {
                    if let Err(e) =
                        RootSignatureBindings::from_root_signature(&rs, &limits, &options)
                    {
                        failures.push(format!("{name} [{v}]: {e}"));
                    }
                }
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        let entry = dxil_to_spirv::dxil::read_entry(&module, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        match entry.stage {
            Stage::Compute => compute += 1,
            Stage::Vertex
            | Stage::Pixel
            | Stage::Geometry
            | Stage::Hull
            | Stage::Domain
            | Stage::Mesh
            | Stage::Amplification => graphics.push(name.clone()),
            other => {
                // Not translated here (library entries), but its root signature must still
                // give a model.
                for (v, limits, options) in variants() {
                    if let Err(e) =
                        RootSignatureBindings::from_root_signature(&rs, &limits, &options)
                    {
                        failures.push(format!("{name} [{v}]: {e}"));
                    }
                }
                other_stages.push(format!("{name} ({})", other.name()));
                continue;
            }
        }
        for (v, limits, options) in variants() {
            runs += 1;
            let model = RootSignatureBindings::from_root_signature(&rs, &limits, &options)
                .unwrap_or_else(|e| panic!("{name} [{v}]: {e}"));
            match translate_checked(&mut tr, &module, None, model, "embedded") {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{name} [{v}]: {e}")),
            }
        }
    }
    eprintln!(
        "containers with RTS0: {standalone} standalone root signatures ({} local: shader records, no pipeline \
         layout), {compute} compute and {} vertex/pixel/geometry/hull/domain shaders ({runs} translations on {} layout \
         variants, {passed} pass spirv-val), {} shaders of stages the translator does not handle:",
        local.len(),
        graphics.len(),
        variants().len(),
        other_stages.len()
    );
    for s in &graphics {
        eprintln!("  graphics: {s}");
    }
    for s in &other_stages {
        eprintln!("  not translated: {s}");
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert_eq!(runs, passed, "every translation must pass spirv-val");
    assert!(
        compute > 0,
        "no compute shader with a root signature in the corpus"
    );
    // The vertex, pixel and geometry shaders of vkd3d-proton's root signature and null root signature tests.
    assert!(
        graphics.len() >= 8,
        "expected the 8 vertex/pixel/geometry containers with a root signature, found {}",
        graphics.len()
    );
    assert!(
        other_stages.is_empty(),
        "containers of untranslated stages: {other_stages:?}"
    );
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// Failures that D3D12 rejects as well, or that a layout variant cannot express.
fn allowed(message: &str) -> Option<&'static str> {
    if message.contains("dynamic indexing of root constants") {
        Some("dynamic indexing of root constants (D3D12 rejects the PSO)")
    } else if message.contains("no UAV counter address table") {
        Some("UAV counter without buffer device addresses")
    } else if message.contains("acceleration structures in tables need the address table")
        || message.contains("acceleration structure from the descriptor heap: needs")
    {
        Some("acceleration structure without buffer device addresses (no address table)")
    } else {
        None
    }
}

#[test]
fn every_compute_shader_translates_under_root_signatures_made_from_its_declarations() {
    let Some(corpus) = corpus_dir() else { return };
    if !have_spirv_val() {
        skip_or_fail("spirv-val is not installed");
        return;
    }
    let shaders = compute_shaders(&corpus);
    assert!(
        !shaders.is_empty(),
        "no compute shaders in the corpus manifests"
    );
    let mut tr = Translator::new();
    let mut runs = 0usize;
    let mut passed = 0usize;
    let mut tolerated: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for s in &shaders {
        let bytes = std::fs::read(s.file("dxil")).unwrap();
        let module =
            dxil_to_spirv::read_container(&bytes).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let entry = dxil_to_spirv::dxil::read_entry(&module, s.entry.as_deref())
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        for shape in [Shape::Tables, Shape::Roots, Shape::Constants] {
            let text = synthesize(&entry.resources, shape);
            let rs = parse_hlsl(&text, &ParseOptions::default())
                .unwrap_or_else(|e| panic!("{} {shape:?}: `{text}`: {e}", s.name));
            for (v, limits, options) in variants() {
                // Every shape on the default layout; the other layouts with the shape that uses most of them.
                if v != "default" && shape != Shape::Roots {
                    continue;
                }
                runs += 1;
                let model = match RootSignatureBindings::from_root_signature(&rs, &limits, &options)
                {
                    Ok(m) => m,
                    Err(e) => {
                        failures.push(format!(
                            "{} {shape:?} [{v}]: layout of `{text}`: {e}",
                            s.name
                        ));
                        continue;
                    }
                };
                match translate_checked(&mut tr, &module, s.entry.as_deref(), model, "synth") {
                    Ok(()) => passed += 1,
                    Err(e) => match allowed(&e) {
                        Some(why) => *tolerated.entry(why).or_default() += 1,
                        None => failures.push(format!(
                            "{} {shape:?} [{v}]: {e}\n    root signature: {text}",
                            s.name
                        )),
                    },
                }
            }
        }
    }
    eprintln!(
        "{} compute shaders, {runs} translations under synthesized root signatures: {passed} pass spirv-val, {} \
         rejected as D3D12 or the layout requires, {} failures",
        shaders.len(),
        tolerated.values().sum::<usize>(),
        failures.len()
    );
    for (why, n) in &tolerated {
        eprintln!("  rejected ({n}): {why}");
    }
    for f in failures.iter().take(40) {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}
