//! Prints one line per corpus compute container: its name and a hash of its translation (or the error), to check
//! that a change keeps every output: `cargo run --release --example corpus_hashes > before.txt`.
//! `LOOPS=n` translates the corpus n times (profiling aid) before printing.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let dir = match std::env::var_os("DXIL_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let mut inputs = Vec::new();
    // `MAX_SIZE=n`: only containers of at most n bytes (profiling the typical small shader).
    let max_size: usize = std::env::var("MAX_SIZE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    for suite in ["dxil-spirv", "vkd3d-proton", "vkd3d-proton-prebuilt"] {
        let Ok(text) = std::fs::read_to_string(dir.join(suite).join("manifest.jsonl")) else {
            continue;
        };
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let profile = v["profile"].as_str().unwrap_or("");
            if !profile.starts_with("cs_6_") || v.get("error").is_some() {
                continue;
            }
            let name = format!("{suite}/{}", v["name"].as_str().unwrap_or(""));
            let Ok(bytes) = std::fs::read(format!("{}.dxil", dir.join(&name).display())) else {
                continue;
            };
            if bytes.len() > max_size {
                continue;
            }
            let Ok(module) = dxil_to_spirv::read_container(&bytes) else {
                continue;
            };
            let options = dxil_to_spirv::Options {
                entry_point: v["entry"].as_str().map(str::to_string),
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
    for (name, m, o) in &inputs {
        match tr.translate(m, o) {
            Ok(t) => {
                let mut h = DefaultHasher::new();
                t.words.hash(&mut h);
                format!("{:?}", t.bindings).hash(&mut h);
                println!("{name} {:016x} {}", h.finish(), t.words.len());
            }
            Err(e) => println!("{name} error: {e}"),
        }
    }
}
