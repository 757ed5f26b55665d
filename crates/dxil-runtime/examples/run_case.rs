//! Runs one case with a given SPIR-V module (the `dxil run --spirv` path, without translation):
//!
//! `cargo run -p dxil-runtime --example run_case -- CASE.toml [--spirv FILE] [--dump DIR]
//!  [--timeout SECONDS] [--device NAME] [--explain | --explain-json]`
//!
//! Without `--spirv` it runs the `.spv` beside the case's shader. Exit status as `dxil run`.
//! `--explain` prints the Vulkan layout derived from a version-2 case's root signature and runs
//! nothing; `--explain-json` prints it as JSON.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use dxil_runtime::{Case, LayoutOverrides, RunOptions, Runtime, ShaderModule};

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<u8, String> {
    let mut args = std::env::args().skip(1);
    let mut case_path = None;
    let mut spirv = None;
    let mut options = RunOptions::default();
    let mut device = None;
    let mut explain = None;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--spirv" => spirv = Some(PathBuf::from(value()?)),
            "--dump" => options.dump_dir = Some(PathBuf::from(value()?)),
            "--device" => device = Some(value()?),
            "--explain" => explain = Some(false),
            "--explain-json" => explain = Some(true),
            "--timeout" => {
                let v = value()?;
                let secs: f64 = v.parse().map_err(|_| format!("bad --timeout {v}"))?;
                options.timeout = Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())?;
            }
            _ if case_path.is_none() => case_path = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument {arg}")),
        }
    }
    let case_path = case_path.ok_or(
        "usage: run_case CASE.toml [--spirv FILE] [--dump DIR] [--timeout S] [--device NAME] [--explain | --explain-json]",
    )?;
    let case = Case::load(&case_path).map_err(|e| e.to_string())?;
    if let Some(json) = explain {
        let runtime = Runtime::new(device.as_deref()).map_err(|e| e.to_string())?;
        let derived = runtime
            .derive_layout(&case, &LayoutOverrides::default())
            .map_err(|e| e.to_string())?;
        println!(
            "{}",
            if json {
                derived.to_json()
            } else {
                derived.explain()
            }
        );
        return Ok(0);
    }
    let spirv = spirv.unwrap_or_else(|| case.shader.with_extension("spv"));
    let bytes = std::fs::read(&spirv).map_err(|e| format!("{}: {e}", spirv.display()))?;
    let entry = case.entry.clone().unwrap_or_default();
    let module = ShaderModule::from_bytes(&bytes, entry).map_err(|e| e.to_string())?;
    let runtime = Runtime::new(device.as_deref()).map_err(|e| e.to_string())?;
    let info = runtime.device_info();
    eprintln!(
        "device: {} ({}, Vulkan {:?}, {})",
        info.name, info.device_type, info.api_version, info.driver
    );
    eprintln!("enabled: {}", info.enabled_features.join(" "));
    eprintln!("not offered: {}", info.missing_features.join(" "));
    eprintln!(
        "subgroup size {}: {}",
        info.subgroup_size,
        info.subgroup_operations.join(" ")
    );
    let report = match runtime.run(&case, &module, &options) {
        Ok(report) => report,
        Err(e) if e.device_is_stuck() => {
            eprintln!("error: {e}");
            dxil_runtime::exit_now(2)
        }
        Err(e) => return Err(e.to_string()),
    };
    for m in &report.mismatches {
        println!("{m}");
    }
    eprintln!("timings: {:?}", report.timings);
    println!("{}", if report.passed() { "pass" } else { "FAIL" });
    Ok(if report.passed() { 0 } else { 1 })
}
