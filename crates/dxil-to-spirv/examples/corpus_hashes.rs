//! Prints one line per corpus translation: its name and a hash of its output (or the error's kind and message), to
//! check that a change keeps every output: `cargo run --release --example corpus_hashes > before.txt`.
//!
//! Every compute, vertex, pixel and geometry container of the manifests is translated with the default binding
//! model; those that carry a root signature (RTS0 part) are translated once more under it (lines tagged `[rs]`),
//! and compute shaders also under root signatures made from their declarations, as `tests/rootsig_corpus.rs` makes
//! them (lines tagged `[shape variant]`).
//! `STAGES=cs,vs` limits the stages (profile prefixes); `MAX_SIZE=n` keeps only containers of at most n bytes
//! (profiling the typical small shader); `LOOPS=n` translates the selection n times (profiling aid) and prints
//! nothing; `WORDS_ONLY=1` hashes the SPIR-V words alone.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dxil_to_spirv::{Error, Options, RootSignatureBindings};

#[path = "../tests/support/synth_rootsig.rs"]
mod synth_rootsig;

/// A stable name of the error's kind: its variant, and for `Unsupported`/`Invalid` nothing of the location.
fn kind(e: &Error) -> &'static str {
    match e {
        Error::Container(_) => "container",
        Error::NoProgram => "no-program",
        Error::Module(_) => "module",
        Error::Metadata(_) => "metadata",
        Error::Stage { .. } => "stage",
        Error::Unsupported { .. } => "unsupported",
        Error::Invalid { .. } => "invalid",
        Error::ControlFlow { .. } => "control-flow",
        Error::Binding(_) => "binding",
        Error::Limit(_) => "limit",
        Error::UnknownOpcode { .. } => "unknown-opcode",
        _ => "other",
    }
}

fn main() {
    let dir = match std::env::var_os("DXIL_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let stages: Vec<String> = std::env::var("STAGES")
        .unwrap_or_else(|_| "cs,vs,ps,gs".into())
        .split(',')
        .map(|s| format!("{}_6_", s.trim()))
        .collect();
    let max_size: usize = std::env::var("MAX_SIZE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let mut inputs = Vec::new();
    for suite in ["dxil-spirv", "vkd3d-proton", "vkd3d-proton-prebuilt"] {
        let Ok(text) = std::fs::read_to_string(dir.join(suite).join("manifest.jsonl")) else {
            continue;
        };
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let profile = v["profile"].as_str().unwrap_or("");
            if !stages.iter().any(|s| profile.starts_with(s.as_str())) || v.get("error").is_some() {
                continue;
            }
            let name = format!("{suite}/{}", v["name"].as_str().unwrap_or(""));
            let Ok(bytes) = std::fs::read(format!("{}.dxil", dir.join(&name).display())) else {
                continue;
            };
            if bytes.len() > max_size {
                continue;
            }
            let module = match dxil_to_spirv::read_container(&bytes) {
                Ok(m) => m,
                Err(e) => {
                    println!("{name} read error {}: {e}", kind(&e));
                    continue;
                }
            };
            let entry_point = v["entry"].as_str().map(str::to_string);
            let has_rs = matches!(
                dxil_rootsig::find_part(&bytes, dxil_rootsig::RTS0),
                Ok(Some(_))
            );
            if let Some(rs) = has_rs
                .then(|| dxil_rootsig::RootSignature::from_container(&bytes).ok())
                .flatten()
            {
                let layout = dxil_rootsig::LayoutOptions {
                    typed_offset_buffer: true,
                    ..Default::default()
                };
                match RootSignatureBindings::from_root_signature(
                    &rs,
                    &dxil_rootsig::DeviceLimits::default(),
                    &layout,
                ) {
                    Ok(model) => {
                        let options = Options {
                            entry_point: entry_point.clone(),
                            binding: Arc::new(model),
                            ..Default::default()
                        };
                        inputs.push((format!("{name} [rs]"), module.clone(), options));
                    }
                    Err(e) => println!("{name} [rs] model error: {e}"),
                }
            }
            if profile.starts_with("cs_") {
                synthesized(&name, &module, entry_point.as_deref(), &mut inputs);
            }
            let options = Options {
                entry_point,
                ..Default::default()
            };
            inputs.push((name, module, options));
        }
    }
    let loops: usize = std::env::var("LOOPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut tr = dxil_to_spirv::Translator::new();
    for _ in 0..loops {
        for (_, m, o) in &inputs {
            let _ = std::hint::black_box(tr.translate(m, o));
        }
    }
    if loops > 0 {
        return;
    }
    // `WORDS_ONLY=1`: hash the SPIR-V words alone (not the bindings and the other fields, whose `Debug` text names
    // types).
    let words_only = std::env::var_os("WORDS_ONLY").is_some();
    let (mut ok, mut failed) = (0usize, 0usize);
    for (name, m, o) in &inputs {
        match tr.translate(m, o) {
            Ok(t) => {
                ok += 1;
                let mut h = DefaultHasher::new();
                t.words.hash(&mut h);
                if words_only {
                    println!("{name} {:016x} {}", h.finish(), t.words.len());
                    continue;
                }
                format!("{:?}", t.bindings).hash(&mut h);
                let rest = (
                    &t.entry_point,
                    t.stage,
                    t.workgroup_size,
                    t.push_constant_bytes,
                    t.wave_size,
                    t.spirv_version,
                    t.vulkan_version,
                    &t.capabilities,
                    &t.extensions,
                );
                format!("{rest:?}").hash(&mut h);
                println!("{name} {:016x} {}", h.finish(), t.words.len());
            }
            Err(e) => {
                failed += 1;
                println!("{name} error {}: {e}", kind(&e));
            }
        }
    }
    eprintln!("{ok} translated, {failed} failed");
}

/// The compute shader under root signatures made from its declarations: every shape on the default layout, the
/// other layouts with `Roots` (as `tests/rootsig_corpus.rs` runs them).
fn synthesized(
    name: &str,
    module: &dxil_module::Module,
    entry: Option<&str>,
    inputs: &mut Vec<(String, dxil_module::Module, Options)>,
) {
    use synth_rootsig::{Shape, synthesize, variants};
    let Ok(info) = dxil_to_spirv::dxil::read_entry(module, entry) else {
        return;
    };
    for shape in [Shape::Tables, Shape::Roots, Shape::Constants] {
        let text = synthesize(&info.resources, shape);
        let Ok(rs) = dxil_rootsig::parse_hlsl(&text, &dxil_rootsig::ParseOptions::default()) else {
            println!("{name} [{shape:?}] root signature does not parse");
            continue;
        };
        for (v, limits, layout) in variants() {
            if v != "default" && shape != Shape::Roots {
                continue;
            }
            match RootSignatureBindings::from_root_signature(&rs, &limits, &layout) {
                Ok(model) => {
                    let options = Options {
                        entry_point: entry.map(str::to_string),
                        binding: Arc::new(model),
                        ..Default::default()
                    };
                    inputs.push((format!("{name} [{shape:?} {v}]"), module.clone(), options));
                }
                Err(e) => println!("{name} [{shape:?} {v}] model error: {e}"),
            }
        }
    }
}
