//! Translation speed over every SPIR-V module of the shared corpora:
//! `cargo bench -p dxil-from-spirv --bench translate_corpus`.
//!
//! For each module that translates: the whole translation (read the words, lower, write the
//! bitcode, assemble and sign the container), several times; the module's time is the median
//! of its runs. Prints the median, p90 and worst of those times per input set and overall.
//! Targets: median ≤ 50 µs, worst ≤ 5 ms (release build).
//!
//! Reads `$DXIL_CORPUS` (and `corpus-spirv` beside it) or `../shared/corpus`; exits quietly
//! with a message when it is missing. `RUNS` sets the runs per module (default 11); `STAT=min`
//! takes each module's fastest run instead of its median (for a loaded machine). `TOP=N` also
//! lists the N slowest modules with their times and DXIL sizes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn shared() -> Option<PathBuf> {
    let corpus = match std::env::var_os("DXIL_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    corpus
        .is_dir()
        .then(|| corpus.parent().map(Path::to_path_buf).unwrap_or_default())
}

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            spv_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "spv") {
            out.push(p);
        }
    }
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let Some(shared) = shared() else {
        eprintln!("SKIPPED: no corpus (set DXIL_CORPUS)");
        return;
    };
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(11);
    // On a shared machine the fastest run estimates the unloaded time better than the median.
    let fastest = std::env::var("STAT").is_ok_and(|s| s == "min");
    let top: usize = std::env::var("TOP")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let mut slowest: Vec<(Duration, String, usize)> = Vec::new();
    let options = dxil_from_spirv::Options::default();
    let sets = [
        ("corpus (compute)", shared.join("corpus")),
        ("glslang", shared.join("corpus-spirv/glslang")),
        ("dxc (graphics)", shared.join("corpus-spirv/dxc")),
    ];
    let mut all = Vec::new();
    let mut worst_name = String::new();
    let mut worst = Duration::ZERO;
    for (label, dir) in sets {
        let mut files = Vec::new();
        spv_files(&dir, &mut files);
        let mut times = Vec::new();
        let mut failed = 0;
        // Total container bytes: code size changes show here.
        let mut bytes_out = 0usize;
        for f in &files {
            let Ok(bytes) = std::fs::read(f) else {
                continue;
            };
            let Ok(words) = dxil_from_spirv::words_from_bytes(&bytes) else {
                continue;
            };
            let size = match dxil_from_spirv::translate(&words, &options) {
                Ok(out) => out.container.len(),
                Err(_) => {
                    failed += 1;
                    continue;
                }
            };
            bytes_out += size;
            let mut runs_t = Vec::with_capacity(runs);
            for _ in 0..runs {
                let t = Instant::now();
                let out = dxil_from_spirv::translate(std::hint::black_box(&words), &options);
                std::hint::black_box(&out);
                runs_t.push(t.elapsed());
            }
            runs_t.sort();
            let m = if fastest {
                runs_t[0]
            } else {
                runs_t[runs_t.len() / 2]
            };
            let name = f.strip_prefix(&shared).unwrap_or(f).display().to_string();
            if m > worst {
                worst = m;
                worst_name = name.clone();
            }
            if top > 0 {
                slowest.push((m, name, size));
            }
            times.push(m);
        }
        times.sort();
        println!(
            "{label:18} {:4} modules ({failed} not translated, {bytes_out} bytes of DXIL): median {:.1?}, p90 {:.1?}, worst {:.1?}",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.9),
            times.last().copied().unwrap_or_default(),
        );
        all.extend(times);
    }
    all.sort();
    let total: Duration = all.iter().sum();
    println!(
        "all                {:4} modules: median {:.1?}, p90 {:.1?}, worst {:.1?} ({worst_name}); one pass {:.1?}",
        all.len(),
        percentile(&all, 0.5),
        percentile(&all, 0.9),
        worst,
        total
    );
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    for (t, name, size) in slowest.iter().take(top) {
        println!("{t:>10.1?} {size:>8} B  {name}");
    }
}
