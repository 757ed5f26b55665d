//! `dxil run`: execute a conformance case on Vulkan.
//!
//! The case's DXIL is translated here: a version-1 case with the default binding model (set = space, binding =
//! b 0 / t 100 / u 200 / s 300 + register), a version-2 case with its root signature's layout as the runtime
//! derives it on the chosen device (the same call the run makes, so shader and bindings agree). `--spirv` runs a
//! given module instead.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use dxil_runtime::{Case, LayoutOverrides, RunOptions, Runtime, ShaderModule, Summary, Timing};

/// How `--explain` prints the derived layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// Readable text.
    Text,
    /// The root signature, device limits, options, Vulkan layout and binding contract as JSON.
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    /// The case file (TOML).
    case: PathBuf,
    /// Run this SPIR-V module instead of translating the case's shader.
    #[arg(long)]
    spirv: Option<PathBuf>,
    /// Write every resource's final bytes to DIR/<bind>[_space<s>].bin.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Seconds a dispatch may take before the run ends with exit status 2 (a hang guard).
    #[arg(long, default_value_t = dxil_runtime::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Use the Vulkan device whose name contains NAME.
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// Print the Vulkan layout derived from the case's root signature (text, or `--explain=json`), then run.
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, default_missing_value = "text", require_equals = true)]
    explain: Option<ExplainFormat>,
    /// Write the translated SPIR-V module to FILE.
    #[arg(long, value_name = "FILE")]
    save_spirv: Option<PathBuf>,
    /// Version-2 cases: derive the layout as for a weaker device or another policy (comma-separated):
    /// no-mutable, single-set, spilled (8-byte push constants), push-descriptor-cbv, cbv-as-ssbo, no-bda,
    /// no-push-descriptors, raw-as-texel (64-byte storage-buffer alignment).
    #[arg(long, value_name = "VARIANTS", value_delimiter = ',')]
    layout: Vec<String>,
    /// Time N repetitions of the case's dispatches with GPU timestamps (resources in device-local
    /// memory, initial contents restored before each), after the warm-up ones; prints the median,
    /// minimum and maximum, and the pipeline creation time. The last repetition's results are
    /// checked as usual.
    #[arg(long, value_name = "N")]
    time: Option<u32>,
    /// How the translation keeps D3D12's out-of-bounds rules: auto (robust where the device has
    /// robustBufferAccess2), explicit (checks in the shader) or robust.
    #[arg(long, value_enum, default_value_t = Checks::Auto)]
    checks: Checks,
    /// Untimed repetitions before the timed ones (with `--time`) ...
    #[arg(long, value_name = "N", default_value_t = 5, requires = "time")]
    warmup: u32,
    /// ... lasting at least this many milliseconds (a GPU raises its clocks only under load).
    #[arg(long, value_name = "MS", default_value_t = 200, requires = "time")]
    warmup_ms: u64,
}

/// The layout overrides `--layout` names.
fn overrides_of(names: &[String]) -> Result<LayoutOverrides, String> {
    let mut o = LayoutOverrides::default();
    for name in names {
        match name.as_str() {
            "no-mutable" => o.no_mutable_descriptors = true,
            "single-set" => o.mutable_single_set = true,
            "spilled" => o.max_push_constants_size = Some(8),
            "push-descriptor-cbv" => o.root_cbv_push_descriptor = true,
            "cbv-as-ssbo" => o.no_uniform_buffer_heap = true,
            "no-bda" => o.no_buffer_device_address = true,
            "no-push-descriptors" => o.no_push_descriptors = true,
            "raw-as-texel" => o.min_storage_buffer_offset_alignment = Some(64),
            other => return Err(format!("--layout: unknown variant `{other}`")),
        }
    }
    Ok(o)
}

/// Prints to standard output; a closed pipe (`dxil run ... | head`) is not an error worth a panic.
fn say(text: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

pub fn run(a: Args) -> ExitCode {
    let case = match Case::load(&a.case) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return fail("--timeout must be a positive number of seconds");
    }
    let rt = match Runtime::new(a.device.as_deref()) {
        Ok(rt) => rt,
        Err(e) => return fail(e),
    };
    let overrides = match overrides_of(&a.layout) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if let Some(format) = a.explain {
        if case.version() == 1 {
            say(format_args!(
                "version-1 case: no root signature; default binding model (set = space, binding = b 0 / t 100 / u 200 / s 300 + register)"
            ));
        } else {
            match rt.derive_layout(&case, &overrides) {
                Ok(derived) => match format {
                    ExplainFormat::Text => say(format_args!("{}", derived.explain().trim_end())),
                    ExplainFormat::Json => say(format_args!("{}", derived.to_json())),
                },
                Err(e) => return fail(e),
            }
        }
    }
    let module = match &a.spirv {
        Some(p) => match std::fs::read(p) {
            Ok(bytes) => {
                match ShaderModule::from_bytes(&bytes, case.entry.clone().unwrap_or_default()) {
                    Ok(m) => m,
                    Err(e) => return fail(format!("{}: {e}", p.display())),
                }
            }
            Err(e) => return fail(format!("{}: {e}", p.display())),
        },
        None => match translate_case_shader(&rt, &case, &overrides, a.checks) {
            Ok(m) => m,
            Err(e) => return fail(e),
        },
    };
    if let Some(path) = &a.save_spirv {
        let bytes: Vec<u8> = module.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Err(e) = std::fs::write(path, bytes) {
            return fail(format!("{}: {e}", path.display()));
        }
    }
    let options = RunOptions {
        timeout: Duration::from_secs_f64(a.timeout),
        dump_dir: a.dump.clone(),
        layout: overrides,
        timing: a.time.map(|dispatches| Timing {
            warmup: a.warmup,
            warmup_time: Duration::from_millis(a.warmup_ms),
            dispatches,
        }),
        group_order: None,
    };
    match rt.run(&case, &module, &options) {
        Ok(report) => {
            for m in &report.mismatches {
                say(format_args!("{m}"));
            }
            if let Some(s) = Summary::of(&report.dispatch_times) {
                let us = |d: Duration| d.as_secs_f64() * 1e6;
                say(format_args!(
                    "gpu time: median {:.2} us, min {:.2} us, max {:.2} us over {} dispatches ({}, {})",
                    us(s.median),
                    us(s.min),
                    us(s.max),
                    s.count,
                    report.device,
                    rt.device_info().driver
                ));
                say(format_args!(
                    "pipeline creation: {:.3} ms",
                    report.timings.pipeline.as_secs_f64() * 1e3
                ));
            }
            let code = report.exit_code();
            if code == 0 {
                say(format_args!("pass: {}", a.case.display()));
            } else {
                say(format_args!("FAIL: {}", a.case.display()));
            }
            ExitCode::from(code as u8)
        }
        Err(e) if e.device_is_stuck() => {
            eprintln!("error: {e}");
            dxil_runtime::exit_now(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// How the translation keeps D3D12's out-of-bounds rules for buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Checks {
    /// `robust` where the device has robustBufferAccess2, else `explicit`.
    Auto,
    /// Explicit bounds checks in the shader (any device).
    Explicit,
    /// Rely on robustBufferAccess2: the runtime binds D3D12's exact views, and the device
    /// bounds-checks every access against them (checks remain where a view is a window of a larger
    /// descriptor, and for the results of atomics).
    Robust,
}

impl Checks {
    /// Whether the translation needs explicit checks on `rt`'s device.
    pub fn explicit_on(self, rt: &Runtime) -> bool {
        match self {
            Checks::Auto => !rt.device_info().has_feature("robust_buffer_access2"),
            Checks::Explicit => true,
            Checks::Robust => false,
        }
    }
}

/// Translates the case's shader for the binding model the run will use: the default one for version 1, the
/// root signature's layout on this device for version 2, with bounds checks as `checks` says for the device.
pub fn translate_case_shader(
    rt: &Runtime,
    case: &Case,
    overrides: &LayoutOverrides,
    checks: Checks,
) -> Result<ShaderModule, String> {
    let bounds_checks = checks.explicit_on(rt);
    let bytes =
        std::fs::read(&case.shader).map_err(|e| format!("{}: {e}", case.shader.display()))?;
    let mut options = dxil_to_spirv::Options {
        entry_point: case.entry.clone(),
        bounds_checks,
        ..dxil_to_spirv::Options::default()
    };
    if case.version() == 2 {
        let derived = rt
            .derive_layout(case, overrides)
            .map_err(|e| e.to_string())?;
        options.binding = Arc::new(dxil_to_spirv::RootSignatureBindings::new(
            derived.layout.clone(),
        ));
    }
    let t = dxil_to_spirv::translate_container(&bytes, &options)
        .map_err(|e| format!("{}: {e}", case.shader.display()))?;
    Ok(ShaderModule {
        words: t.words,
        entry: t.entry_point,
    })
}
