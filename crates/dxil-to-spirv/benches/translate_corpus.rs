//! Translation speed over every corpus compute container, in one process:
//! `cargo bench -p dxil-to-spirv --bench translate_corpus`.
//!
//! For each container: parse the container, read the module and translate it (one reused [`Translator`]), several
//! times; the container's time is the median of its runs. Prints the median, p90 and worst of those times and the
//! total of one pass over the corpus. Targets: median ≤ 20 µs, worst ≤ 5 ms (release build, 2 cores).
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; exits quietly with a message when it is missing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dxil_to_spirv::{Options, Translator};

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("DXIL_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    dir.is_dir().then_some(dir)
}

/// (container path, entry point) of every `cs_6_*` manifest entry.
fn compute_containers(corpus: &Path) -> Vec<(PathBuf, Option<String>)> {
    let mut out = Vec::new();
    for suite in ["dxil-spirv", "vkd3d-proton", "vkd3d-proton-prebuilt"] {
        let Ok(text) = std::fs::read_to_string(corpus.join(suite).join("manifest.jsonl")) else {
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
            let name = v["name"].as_str().unwrap_or("");
            let path = PathBuf::from(format!("{}.dxil", corpus.join(suite).join(name).display()));
            if path.is_file() {
                out.push((path, v["entry"].as_str().map(str::to_string)));
            }
        }
    }
    out
}

fn main() {
    let Some(dir) = corpus() else {
        eprintln!("SKIPPED: no corpus (set DXIL_CORPUS)");
        return;
    };
    let files = compute_containers(&dir);
    let inputs: Vec<(String, Vec<u8>, Options)> = files
        .iter()
        .map(|(p, entry)| {
            (
                p.strip_prefix(&dir).unwrap_or(p).display().to_string(),
                std::fs::read(p).expect("readable container"),
                Options {
                    entry_point: entry.clone(),
                    ..Options::default()
                },
            )
        })
        .collect();
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let mut times = Vec::with_capacity(runs);
    let mut tr = Translator::new();
    let mut failures = 0;
    // Warm up allocations and caches once.
    for (_, bytes, options) in &inputs {
        let _ = dxil_to_spirv::read_container(bytes).and_then(|m| tr.translate(&m, options));
    }
    if std::env::var_os("TRANSLATE_ONLY").is_some() {
        // Profiling aid: translation of already-read modules only.
        let max_size: usize = std::env::var("MAX_SIZE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(usize::MAX);
        let modules: Vec<_> = inputs
            .iter()
            .filter(|(_, b, _)| b.len() <= max_size)
            .filter_map(|(_, b, o)| dxil_to_spirv::read_container(b).ok().map(|m| (m, o)))
            .collect();
        let mut all = Vec::new();
        for (m, o) in &modules {
            times.clear();
            for _ in 0..runs {
                let t = Instant::now();
                let _ = std::hint::black_box(tr.translate(m, o));
                times.push(t.elapsed());
            }
            times.sort();
            // The fastest run: the least disturbed by other processes on a shared machine.
            all.push(if std::env::var_os("MIN").is_some() {
                times[0]
            } else {
                times[times.len() / 2]
            });
        }
        all.sort();
        if std::env::var_os("SHADER_META").is_some() {
            let mut meta = Vec::new();
            for (m, _) in &modules {
                times.clear();
                for _ in 0..runs {
                    let t = Instant::now();
                    let _ = std::hint::black_box(dxil_shader::DxilModule::from_module(m));
                    times.push(t.elapsed());
                }
                times.sort();
                meta.push(times[0]);
            }
            meta.sort();
            println!(
                "dxil-shader DxilModule::from_module: median {:.1?}",
                meta[meta.len() / 2]
            );
        }
        println!(
            "translate only: median {:.1?}, p90 {:.1?}, worst {:.1?}, total {:.2?}",
            all[all.len() / 2],
            all[all.len() * 9 / 10],
            all[all.len() - 1],
            all.iter().sum::<Duration>()
        );
        return;
    }
    let mut per_container: Vec<(Duration, &str)> = Vec::with_capacity(inputs.len());
    let mut words = 0usize;
    for (name, bytes, options) in &inputs {
        times.clear();
        for _ in 0..runs {
            let t = Instant::now();
            let r = dxil_to_spirv::read_container(bytes).and_then(|m| tr.translate(&m, options));
            times.push(t.elapsed());
            match r {
                Ok(out) => words = words.max(out.words.len()),
                Err(_) => failures += 1,
            }
        }
        times.sort();
        per_container.push((times[times.len() / 2], name));
    }
    // Reading alone (container + module), for the split.
    let mut read_only: Vec<Duration> = Vec::with_capacity(inputs.len());
    for (_, bytes, _) in &inputs {
        times.clear();
        for _ in 0..runs {
            let t = Instant::now();
            let _ = std::hint::black_box(dxil_to_spirv::read_container(bytes));
            times.push(t.elapsed());
        }
        times.sort();
        read_only.push(times[times.len() / 2]);
    }
    read_only.sort();
    let mut parse_only: Vec<Duration> = Vec::with_capacity(inputs.len());
    for (_, bytes, _) in &inputs {
        times.clear();
        for _ in 0..runs {
            let t = Instant::now();
            let c = dxil_container::Container::parse(bytes);
            let _ =
                std::hint::black_box(c.map(|c| c.program().map(|p| p.map(|p| p.bitcode.len()))));
            times.push(t.elapsed());
        }
        times.sort();
        parse_only.push(times[times.len() / 2]);
    }
    parse_only.sort();
    per_container.sort();
    let n = per_container.len();
    let pct = |p: usize| per_container[(n * p / 100).min(n - 1)].0;
    let total: Duration = per_container.iter().map(|(t, _)| *t).sum();
    let (worst, worst_name) = per_container[n - 1];
    println!(
        "{n} compute containers, {runs} runs each (read + translate): median {:.1?}, p90 {:.1?}, worst {:.1?} ({worst_name}), total {:.2?}; largest module {words} words; {} failed runs",
        pct(50),
        pct(90),
        worst,
        total,
        failures
    );
    println!(
        "  of which reading (container + bitcode): median {:.1?}, p90 {:.1?}, total {:.2?}",
        read_only[n / 2],
        read_only[(n * 90 / 100).min(n - 1)],
        read_only.iter().sum::<Duration>()
    );
    println!(
        "  of which the container alone: median {:.1?}",
        parse_only[n / 2],
    );
    for (t, name) in per_container.iter().rev().take(5) {
        println!("  slowest: {t:>10.1?}  {name}");
    }
}
