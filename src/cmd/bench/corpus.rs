//! `dxil bench corpus`: our SPIR-V against DXC's over the corpus's compute shaders (those with
//! DXC's `X.spv` beside `X.dxil`): module sizes, and with `--pipelines` the driver's pipeline
//! creation time for both modules of each shader, measured alternately in one process.
//!
//! With `--rounds R` every module pair is timed R times, each round on a fresh Vulkan device (so no
//! in-memory pipeline cache of the driver survives from one round to the next) and with the order
//! of the two routes flipped between rounds; each module's best time of the R rounds is what the
//! summary compares. A single compile of a small module now and then takes 10-20 ms longer on a
//! busy machine, on either side, which moves a one-round total by several percent; the best of a
//! few rounds is the steadier figure. Every round's own totals are printed too.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use dxil_runtime::{Runtime, ShaderModule};

use super::median;

#[derive(clap::Args)]
pub struct CorpusArgs {
    /// The corpus folder (default: $DXIL_CORPUS, else ../shared/corpus).
    dir: Option<PathBuf>,
    /// Also time pipeline creation of both modules on the Vulkan device (run lavapipe with
    /// MESA_SHADER_CACHE_DISABLE=true, NVIDIA with __GL_SHADER_DISK_CACHE=0, or a warm cache
    /// hides the compile).
    #[arg(long)]
    pipelines: bool,
    /// With --pipelines: time every module this many times, each round on a fresh device, and
    /// compare each module's best time.
    #[arg(long, value_name = "R", default_value_t = 1)]
    rounds: u32,
    /// Use the Vulkan device whose name contains NAME.
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// How many of the largest ratios to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    worst: usize,
    /// Only shaders whose path contains TEXT.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Translate without explicit bounds checks (as for a device with robustBufferAccess2).
    #[arg(long)]
    no_checks: bool,
    /// Write each of our modules to DIR/<path with / as _>.spv.
    #[arg(long, value_name = "DIR")]
    save_spirv: Option<PathBuf>,
    /// Write per-shader sizes (and times) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// One shader's numbers.
struct Row {
    name: String,
    dxc_bytes: usize,
    ours_bytes: usize,
    /// Pipeline creation of DXC's module and ours.
    times: Option<(Duration, Duration)>,
}

fn corpus_dir(a: &CorpusArgs) -> PathBuf {
    if let Some(d) = &a.dir {
        return d.clone();
    }
    if let Some(d) = std::env::var_os("DXIL_CORPUS") {
        return PathBuf::from(d);
    }
    PathBuf::from("../shared/corpus")
}

/// Every `X.spv` under `dir` with an `X.dxil` beside it, sorted (the `.spv` paths).
fn pairs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "spv")
                && p.with_extension("dxil").is_file()
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn words_of(t: &[u32]) -> usize {
    t.len() * 4
}

pub fn run(a: CorpusArgs) -> ExitCode {
    match run_inner(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(a: &CorpusArgs) -> Result<(), String> {
    let dir = corpus_dir(a);
    let mut stems = pairs(&dir);
    if let Some(f) = &a.filter {
        stems.retain(|p| p.to_string_lossy().contains(f.as_str()));
    }
    if stems.is_empty() {
        return Err(format!(
            "no X.spv with X.dxil under {} (set DXIL_CORPUS)",
            dir.display()
        ));
    }
    let options = dxil_to_spirv::Options {
        bounds_checks: !a.no_checks,
        ..dxil_to_spirv::Options::default()
    };
    let mut rows = Vec::new();
    let mut modules = Vec::new();
    let mut failures = Vec::new();
    for spv_path in &stems {
        let name = spv_path
            .with_extension("")
            .strip_prefix(&dir)
            .unwrap_or(spv_path)
            .to_string_lossy()
            .into_owned();
        let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
        let dxil = read(&spv_path.with_extension("dxil"))?;
        let spv = read(spv_path)?;
        let ours = match dxil_to_spirv::translate_container(&dxil, &options) {
            Ok(t) => t.words,
            Err(e) => {
                failures.push(format!("{name}: translation: {e}"));
                continue;
            }
        };
        if let Some(dir) = &a.save_spirv {
            let path = dir.join(format!("{}.spv", name.replace('/', "_")));
            let bytes: Vec<u8> = ours.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        rows.push(Row {
            name,
            dxc_bytes: spv.len(),
            ours_bytes: words_of(&ours),
            times: None,
        });
        modules.push((spv, ours));
    }
    if a.pipelines {
        time_rounds(a, &mut rows, &modules, &mut failures)?;
    }
    report(a, &rows, &failures);
    if let Some(path) = &a.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "dxc_bytes": r.dxc_bytes,
                    "ours_bytes": r.ours_bytes,
                    "dxc_pipeline_ms": r.times.map(|t| t.0.as_secs_f64() * 1e3),
                    "ours_pipeline_ms": r.times.map(|t| t.1.as_secs_f64() * 1e3),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Times every module pair `a.rounds` times, each round on a fresh device, and keeps each
/// module's best time per route in `rows`; a module that fails in any round is dropped from the
/// timing (and listed in `failures`).
fn time_rounds(
    a: &CorpusArgs,
    rows: &mut [Row],
    modules: &[(Vec<u8>, Vec<u32>)],
    failures: &mut Vec<String>,
) -> Result<(), String> {
    let rounds = a.rounds.max(1);
    let mut failed = vec![false; rows.len()];
    for round in 0..rounds {
        let rt = Runtime::new(a.device.as_deref()).map_err(|e| e.to_string())?;
        if round == 0 {
            let info = rt.device_info();
            println!("device: {}, driver: {}", info.name, info.driver);
        }
        let mut this_round = Vec::with_capacity(rows.len());
        for (i, (row, (spv, ours))) in rows.iter_mut().zip(modules).enumerate() {
            if failed[i] {
                continue;
            }
            let ours_first = (i + round as usize) % 2 == 1;
            match time_both(&rt, spv, ours, ours_first) {
                Ok(t) => {
                    this_round.push(t);
                    row.times = Some(match row.times {
                        Some(best) => (best.0.min(t.0), best.1.min(t.1)),
                        None => t,
                    });
                }
                Err(e) => {
                    failures.push(format!("{}: pipeline: {e}", row.name));
                    failed[i] = true;
                    row.times = None;
                }
            }
        }
        if rounds > 1 {
            print_times(&format!("round {}", round + 1), &this_round);
        }
    }
    Ok(())
}

/// Pipeline creation of DXC's module and ours, the order alternating between shaders.
fn time_both(
    rt: &Runtime,
    dxc: &[u8],
    ours: &[u32],
    ours_first: bool,
) -> Result<(Duration, Duration), String> {
    let dxc = ShaderModule::from_bytes(dxc, "").map_err(|e| format!("DXC's module: {e}"))?;
    let time = |words: &[u32], who: &str| {
        rt.pipeline_creation(words, "")
            .map_err(|e| format!("{who} module: {e}"))
    };
    if ours_first {
        let o = time(ours, "our")?;
        Ok((time(&dxc.words, "DXC's")?, o))
    } else {
        let d = time(&dxc.words, "DXC's")?;
        Ok((d, time(ours, "our")?))
    }
}

fn report(a: &CorpusArgs, rows: &[Row], failures: &[String]) {
    for f in failures {
        eprintln!("skipped {f}");
    }
    let total = |f: fn(&Row) -> usize| rows.iter().map(f).sum::<usize>();
    let (dxc, ours) = (total(|r| r.dxc_bytes), total(|r| r.ours_bytes));
    let ratio = |r: &Row| r.ours_bytes as f64 / r.dxc_bytes.max(1) as f64;
    let ratios: Vec<f64> = rows.iter().map(ratio).collect();
    println!(
        "{} shaders: SPIR-V bytes ours {ours}, DXC {dxc}: total {:.3}x, median {:.3}x, worst {:.2}x",
        rows.len(),
        ours as f64 / dxc.max(1) as f64,
        median(&ratios).unwrap_or(f64::NAN),
        ratios.iter().copied().fold(0.0, f64::max)
    );
    let mut by_ratio: Vec<&Row> = rows.iter().collect();
    by_ratio.sort_by(|x, y| ratio(y).total_cmp(&ratio(x)));
    for r in by_ratio.iter().take(a.worst) {
        println!(
            "  {:>6.2}x {:>7} / {:>7} B  {}",
            ratio(r),
            r.ours_bytes,
            r.dxc_bytes,
            r.name
        );
    }
    let timed: Vec<(Duration, Duration)> = rows.iter().filter_map(|r| r.times).collect();
    if !timed.is_empty() {
        let label = match a.rounds {
            0 | 1 => String::new(),
            r => format!(", best of {r} rounds"),
        };
        print_times(&format!("pipeline creation{label}"), &timed);
    }
}

/// One line: the totals of both routes' pipeline creation and the ratios (total, median).
fn print_times(label: &str, timed: &[(Duration, Duration)]) {
    if timed.is_empty() {
        return;
    }
    let sum = |f: fn(&(Duration, Duration)) -> Duration| {
        timed.iter().map(f).sum::<Duration>().as_secs_f64()
    };
    let (d, o) = (sum(|t| t.0), sum(|t| t.1));
    let per: Vec<f64> = timed
        .iter()
        .map(|t| t.1.as_secs_f64() / t.0.as_secs_f64().max(1e-9))
        .collect();
    println!(
        "{label} over {} shaders: ours {:.3} s, DXC {:.3} s: total {:.3}x, median {:.3}x",
        timed.len(),
        o,
        d,
        o / d.max(1e-9),
        median(&per).unwrap_or(f64::NAN)
    );
}
