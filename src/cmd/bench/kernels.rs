//! `dxil bench kernels`: the GPU benchmark suite under each route.
//!
//! A suite is a manifest (`suite.toml`: `[[kernel]]` tables with `name` and `what`) beside a
//! `kernels/` folder holding, per kernel, its small case (`NAME.toml`), its timing case
//! (`NAME.gpu.toml`), DXC's SPIR-V (`NAME.spv`) and optionally the reference translator's
//! (`NAME.ref.spv`). Our route translates the case's DXIL here, as `dxil run` does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use dxil_runtime::differential::diff_reports;
use dxil_runtime::{Case, LayoutOverrides, RunOptions, RunReport, Runtime, ShaderModule, Timing};
use serde::Deserialize;

use super::{geomean, median};
use crate::cmd::run::Checks;

/// Which of a kernel's two cases to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Size {
    /// `NAME.toml`: small, every output word checked (CI, lavapipe).
    Small,
    /// `NAME.gpu.toml`: sized for timing on a large GPU, leading words checked.
    Gpu,
}

/// Where a kernel's SPIR-V comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum RouteArg {
    /// DXC's own HLSL → SPIR-V output (`NAME.spv`).
    Dxc,
    /// This project's translation of DXC's DXIL, bounds checks as the runtime picks them for the
    /// device (`dxil run --checks auto`).
    Ours,
    /// Ours with explicit bounds checks in the shader (`--checks explicit`).
    OursChecked,
    /// Ours relying on robustBufferAccess2 (`--checks robust`).
    OursUnchecked,
    /// The reference translator's SPIR-V of the same DXIL (`NAME.ref.spv`), where present.
    Ref,
}

/// A route of a run: one of [`RouteArg`], or a variant module `NAME.SUFFIX.spv` (experiments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Route {
    Dxc,
    Ours,
    OursChecked,
    OursUnchecked,
    Ref,
    Variant(&'static str),
}

impl From<RouteArg> for Route {
    fn from(r: RouteArg) -> Route {
        match r {
            RouteArg::Dxc => Route::Dxc,
            RouteArg::Ours => Route::Ours,
            RouteArg::OursChecked => Route::OursChecked,
            RouteArg::OursUnchecked => Route::OursUnchecked,
            RouteArg::Ref => Route::Ref,
        }
    }
}

impl Route {
    fn label(self) -> &'static str {
        match self {
            Route::Dxc => "dxc",
            Route::Ours => "ours",
            Route::OursChecked => "ours-checked",
            Route::OursUnchecked => "ours-unchecked",
            Route::Ref => "ref",
            Route::Variant(suffix) => suffix,
        }
    }
}

#[derive(clap::Args)]
pub struct KernelsArgs {
    /// The suite manifest.
    #[arg(default_value = "bench/gpu/suite.toml")]
    suite: PathBuf,
    /// Time N dispatches per route and round with GPU timestamps (resources in device-local
    /// memory); without it each route runs once and is only checked.
    #[arg(long, value_name = "N")]
    time: Option<u32>,
    /// Untimed dispatches of every route before the timed ones ...
    #[arg(long, value_name = "N", default_value_t = 5)]
    warmup: u32,
    /// ... lasting at least this many milliseconds (a GPU raises its clocks only under load).
    #[arg(long, value_name = "MS", default_value_t = 200)]
    warmup_ms: u64,
    /// Rounds over every kernel. In each round a kernel's routes run on one set of resources,
    /// their timed dispatches interleaved (each repetition runs every route once, starting with a
    /// different one); the routes' order is reversed in every other round.
    #[arg(long, value_name = "N", default_value_t = 2)]
    rounds: u32,
    /// Which cases to run (default: gpu with --time, small without).
    #[arg(long, value_enum)]
    size: Option<Size>,
    /// Only these kernels (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Routes to run, in this order (a missing reference module skips that route).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [RouteArg::Dxc, RouteArg::Ours, RouteArg::Ref])]
    routes: Vec<RouteArg>,
    /// Also run `NAME.SUFFIX.spv` from the kernels folder (or --variant-dir) as a route named
    /// SUFFIX, for kernels that have one (hand-edited modules, experiments).
    #[arg(long, value_name = "SUFFIX", value_delimiter = ',')]
    variant: Vec<String>,
    /// Where --variant modules are.
    #[arg(long, value_name = "DIR")]
    variant_dir: Option<PathBuf>,
    /// Write every sample and result as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Use the Vulkan device whose name contains NAME.
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// Seconds one dispatch may take.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Print the driver's statistics of each route's compiled module (register and instruction
    /// counts and the like, where the device reports them).
    #[arg(long)]
    stats: bool,
    /// Write the driver's text internal representations of each route's compiled module (machine
    /// code listings, where the driver offers them) to DIR/NAME.ROUTE.txt.
    #[arg(long, value_name = "DIR")]
    internals: Option<PathBuf>,
    /// Write each route's module to DIR/NAME.ROUTE.spv.
    #[arg(long, value_name = "DIR")]
    save_spirv: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Suite {
    kernel: Vec<KernelEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelEntry {
    name: String,
    what: String,
}

/// One kernel, loaded: its case and a module per route it can run.
struct Kernel {
    name: String,
    what: String,
    case: Case,
    modules: Vec<(Route, ShaderModule)>,
}

/// What one kernel under one route gave over all rounds.
#[derive(Default)]
struct Outcome {
    /// GPU time of each timed dispatch, in microseconds, per round.
    samples: Vec<Vec<f64>>,
    pipeline_ms: Vec<f64>,
    failures: Vec<String>,
    /// Words that differ from DXC's route's outputs (per round).
    differing_words: Vec<usize>,
}

impl Outcome {
    fn all_samples(&self) -> Vec<f64> {
        self.samples.iter().flatten().copied().collect()
    }
}

fn load_kernels(a: &KernelsArgs, size: Size) -> Result<Vec<Kernel>, String> {
    let text =
        std::fs::read_to_string(&a.suite).map_err(|e| format!("{}: {e}", a.suite.display()))?;
    let suite: Suite = toml::from_str(&text).map_err(|e| format!("{}: {e}", a.suite.display()))?;
    let dir = a.suite.parent().unwrap_or(Path::new(".")).join("kernels");
    for name in &a.only {
        if !suite.kernel.iter().any(|k| &k.name == name) {
            return Err(format!("--only: the suite has no kernel `{name}`"));
        }
    }
    let mut out = Vec::new();
    for k in suite.kernel {
        if !a.only.is_empty() && !a.only.contains(&k.name) {
            continue;
        }
        let case_path = dir.join(match size {
            Size::Small => format!("{}.toml", k.name),
            Size::Gpu => format!("{}.gpu.toml", k.name),
        });
        let case = Case::load(&case_path).map_err(|e| e.to_string())?;
        let entry = case.entry.clone().unwrap_or_default();
        let mut modules = Vec::new();
        let variants = a
            .variant
            .iter()
            .map(|v| Route::Variant(Box::leak(v.clone().into_boxed_str())));
        for route in a.routes.iter().map(|&r| Route::from(r)).chain(variants) {
            let file = match route {
                Route::Dxc => dir.join(format!("{}.spv", k.name)),
                Route::Ref => dir.join(format!("{}.ref.spv", k.name)),
                Route::Variant(suffix) => a
                    .variant_dir
                    .as_deref()
                    .unwrap_or(&dir)
                    .join(format!("{}.{suffix}.spv", k.name)),
                Route::Ours | Route::OursChecked | Route::OursUnchecked => {
                    // Translated once the runtime exists (its device picks the options).
                    let placeholder = ShaderModule {
                        words: Vec::new(),
                        entry: entry.clone(),
                    };
                    modules.push((route, placeholder));
                    continue;
                }
            };
            match std::fs::read(&file) {
                Ok(bytes) => {
                    let m = ShaderModule::from_bytes(&bytes, entry.clone())
                        .map_err(|e| format!("{}: {e}", file.display()))?;
                    modules.push((route, m));
                }
                Err(_) if matches!(route, Route::Ref | Route::Variant(_)) => {}
                Err(e) => return Err(format!("{}: {e}", file.display())),
            }
        }
        out.push(Kernel {
            name: k.name,
            what: k.what,
            case,
            modules,
        });
    }
    Ok(out)
}

pub fn run(a: KernelsArgs) -> ExitCode {
    match run_inner(&a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(a: &KernelsArgs) -> Result<ExitCode, String> {
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return Err("--timeout must be a positive number of seconds".into());
    }
    let size = a.size.unwrap_or(if a.time.is_some() {
        Size::Gpu
    } else {
        Size::Small
    });
    let mut kernels = load_kernels(a, size)?;
    let rt = Runtime::new(a.device.as_deref()).map_err(|e| e.to_string())?;
    let info = rt.device_info();
    println!(
        "device: {} ({}), driver: {}, robustBufferAccess2: {}",
        info.name,
        info.device_type,
        info.driver,
        if info.has_feature("robust_buffer_access2") {
            "on"
        } else {
            "off"
        }
    );
    for k in &mut kernels {
        for (route, module) in &mut k.modules {
            let checks = match route {
                Route::Ours => Some(Checks::Auto),
                Route::OursChecked => Some(Checks::Explicit),
                Route::OursUnchecked => Some(Checks::Robust),
                _ => None,
            };
            if let Some(checks) = checks {
                *module = crate::cmd::run::translate_case_shader(
                    &rt,
                    &k.case,
                    &LayoutOverrides::default(),
                    checks,
                )?;
            }
            if let Some(dir) = &a.save_spirv {
                let path = dir.join(format!("{}.{}.spv", k.name, route.label()));
                let bytes: Vec<u8> = module.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    if a.stats {
        for k in &kernels {
            for (route, module) in &k.modules {
                let stats = rt
                    .pipeline_statistics(&module.words, &module.entry)
                    .map_err(|e| format!("{} [{}]: {e}", k.name, route.label()))?;
                let text: Vec<String> = stats.iter().map(|(n, v)| format!("{n}={v}")).collect();
                println!("stats {} [{}]: {}", k.name, route.label(), text.join(", "));
            }
        }
    }
    if let Some(dir) = &a.internals {
        for k in &kernels {
            for (route, module) in &k.modules {
                let reps = rt
                    .pipeline_internals(&module.words, &module.entry)
                    .map_err(|e| format!("{} [{}]: {e}", k.name, route.label()))?;
                let mut text = String::new();
                for (name, body) in reps {
                    text += &format!("==== {name}\n{body}\n");
                }
                let path = dir.join(format!("{}.{}.txt", k.name, route.label()));
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    let timing = a.time.map(|dispatches| Timing {
        warmup: a.warmup,
        warmup_time: Duration::from_millis(a.warmup_ms),
        dispatches,
    });
    let rounds = if timing.is_some() { a.rounds.max(1) } else { 1 };
    let options = RunOptions {
        timeout: Duration::from_secs_f64(a.timeout),
        timing,
        ..RunOptions::default()
    };
    if let Some(t) = timing {
        println!(
            "{} {} cases, {} timed dispatches after {} warm-up per route and round, {rounds} rounds, routes interleaved",
            kernels.len(),
            if size == Size::Gpu { "timing" } else { "small" },
            t.dispatches,
            t.warmup
        );
    }
    let mut outcomes: BTreeMap<(usize, Route), Outcome> = BTreeMap::new();
    let mut errors = 0;
    for round in 0..rounds {
        for (ki, k) in kernels.iter().enumerate() {
            let mut order: Vec<&(Route, ShaderModule)> = k.modules.iter().collect();
            if round % 2 == 1 {
                order.reverse();
            }
            let modules: Vec<ShaderModule> = order.iter().map(|(_, m)| m.clone()).collect();
            match rt.run_many(&k.case, &modules, &options) {
                Ok(reports) => {
                    // Outputs are compared with DXC's route (else the first one).
                    let first = order
                        .iter()
                        .position(|(r, _)| *r == Route::Dxc)
                        .and_then(|i| reports.get(i))
                        .or(reports.first());
                    for ((route, _), report) in order.iter().zip(&reports) {
                        let outcome = outcomes.entry((ki, *route)).or_default();
                        record(outcome, report, &k.name, *route);
                        if let Some(reference) = first.filter(|f| !std::ptr::eq(*f, report)) {
                            let words = diff_reports(reference, report)
                                .iter()
                                .map(|m| m.differing)
                                .sum();
                            outcome.differing_words.push(words);
                        }
                    }
                }
                Err(e) => {
                    errors += 1;
                    let msg = format!("{}: {e}", k.name);
                    eprintln!("error: {msg}");
                    for (route, _) in &order {
                        outcomes
                            .entry((ki, *route))
                            .or_default()
                            .failures
                            .push(msg.clone());
                    }
                    if e.device_is_stuck() {
                        print_table(&kernels, &outcomes, timing.is_some());
                        dxil_runtime::exit_now(2);
                    }
                }
            }
        }
    }
    print_table(&kernels, &outcomes, timing.is_some());
    if let Some(path) = &a.json {
        let json = to_json(&kernels, &outcomes, rt.device_info(), timing, rounds);
        std::fs::write(path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let failed = outcomes.values().any(|o| !o.failures.is_empty());
    Ok(if errors > 0 {
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn record(outcome: &mut Outcome, report: &RunReport, name: &str, route: Route) {
    for m in &report.mismatches {
        let msg = format!("{name} [{}]: {m}", route.label());
        eprintln!("FAIL {msg}");
        outcome.failures.push(msg);
    }
    outcome
        .pipeline_ms
        .push(report.timings.pipeline.as_secs_f64() * 1e3);
    outcome.samples.push(
        report
            .dispatch_times
            .iter()
            .map(|d| d.as_secs_f64() * 1e6)
            .collect(),
    );
}

fn print_table(kernels: &[Kernel], outcomes: &BTreeMap<(usize, Route), Outcome>, timed: bool) {
    let routes: Vec<Route> = {
        let mut r: Vec<Route> = outcomes.keys().map(|(_, r)| *r).collect();
        r.sort();
        r.dedup();
        r
    };
    let others: Vec<Route> = routes
        .iter()
        .copied()
        .filter(|r| *r != Route::Dxc)
        .collect();
    let mut header = format!("{:<16}", "kernel");
    if timed {
        for r in &routes {
            header += &format!(" {:>10}", format!("{} us", r.label()));
        }
        for r in &others {
            header += &format!(" {:>9}", format!("{}/dxc", r.label()));
        }
    }
    header += "  check";
    println!("{header}");
    let mut ratios: BTreeMap<Route, Vec<f64>> = BTreeMap::new();
    for (ki, k) in kernels.iter().enumerate() {
        let mut line = format!("{:<16}", k.name);
        let med = |r: Route| {
            outcomes
                .get(&(ki, r))
                .and_then(|o| median(&o.all_samples()))
        };
        if timed {
            for r in &routes {
                line += &match med(*r) {
                    Some(m) => format!(" {m:>10.2}"),
                    None => format!(" {:>10}", "-"),
                };
            }
            for r in &others {
                line += &match (med(*r), med(Route::Dxc)) {
                    (Some(x), Some(d)) if d > 0.0 => {
                        ratios.entry(*r).or_default().push(x / d);
                        format!(" {:>9.3}", x / d)
                    }
                    _ => format!(" {:>9}", "-"),
                };
            }
        }
        let mut checks = Vec::new();
        for r in &routes {
            if let Some(o) = outcomes.get(&(ki, *r)) {
                let state = if !o.failures.is_empty() {
                    "FAIL"
                } else if o.differing_words.iter().any(|&w| w > 0) {
                    "pass (differs)"
                } else {
                    "pass"
                };
                checks.push(format!("{} {state}", r.label()));
            }
        }
        line += &format!("  {}", checks.join(", "));
        println!("{line}");
    }
    if timed {
        let mut line = format!("{:<16}", "geomean");
        for _ in &routes {
            line += &format!(" {:>10}", "");
        }
        for r in &others {
            line += &match ratios.get(r).and_then(|v| geomean(v)) {
                Some(g) => format!(" {g:>9.3}"),
                None => format!(" {:>9}", "-"),
            };
        }
        println!("{line}");
    }
}

fn to_json(
    kernels: &[Kernel],
    outcomes: &BTreeMap<(usize, Route), Outcome>,
    info: &dxil_runtime::DeviceInfo,
    timing: Option<Timing>,
    rounds: u32,
) -> String {
    let mut ks = Vec::new();
    for (ki, k) in kernels.iter().enumerate() {
        let mut routes = serde_json::Map::new();
        for ((i, r), o) in outcomes {
            if *i != ki {
                continue;
            }
            routes.insert(
                r.label().to_string(),
                serde_json::json!({
                    "median_us": median(&o.all_samples()),
                    "round_medians_us": o.samples.iter().map(|s| median(s)).collect::<Vec<_>>(),
                    "min_us": o.all_samples().into_iter().reduce(f64::min),
                    "max_us": o.all_samples().into_iter().reduce(f64::max),
                    "samples_us": o.samples,
                    "pipeline_ms": o.pipeline_ms,
                    "failures": o.failures,
                    "differing_words_vs_dxc": o.differing_words,
                }),
            );
        }
        ks.push(serde_json::json!({
            "name": k.name,
            "what": k.what,
            "routes": routes,
        }));
    }
    let v = serde_json::json!({
        "device": info.name,
        "driver": info.driver,
        "robust_buffer_access2": info.has_feature("robust_buffer_access2"),
        "timed_dispatches": timing.map(|t| t.dispatches),
        "warmup": timing.map(|t| t.warmup),
        "rounds": rounds,
        "kernels": ks,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}
