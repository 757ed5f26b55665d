//! Differential execution against DXC's own SPIR-V: for every corpus compute shader that has `X.spv` and uses
//! only buffer resources (raw, structured, typed, constant), build the version-1 differential case (every
//! declared resource 64 KiB of words in 0..=255, two groups), run DXC's SPIR-V and our translation on the
//! Vulkan device, and compare every resource afterwards.
//!
//! Prints a summary and every disagreement; `DIFFERENTIAL.md` records why each disagreement happens and which
//! side D3D12 semantics favour. The outcome of every shader on a device is committed in
//! `tests/expected/differential-<device>.txt` (`llvmpipe` for lavapipe); any change fails the test, except for
//! races, which need not show the same way twice: shaders known to race (`known_race`, with the reason) are
//! recorded as `racy` whatever a run shows, and a run where DXC's own module disagrees with itself meets any
//! expectation (it says nothing about our translation). Our module alone disagreeing with itself is `ours-racy`.
//! `BLESS=1` rewrites the file.

mod support;

use std::time::Instant;

use dxil_runtime::differential::{diff_reports, differential_case};
use dxil_runtime::{RunError, RunOptions, Runtime, ShaderModule};
use support::differential_case::{declared, known_race, rebind_to_listing};
use support::*;

/// Tells the parent process which module is running (to attribute a driver crash).
fn phase(which: &str) {
    use std::io::Write;
    if std::env::var_os("DIFF_CHILD_START").is_some() {
        println!("PHASE {which}");
        let _ = std::io::stdout().flush();
    }
}

enum Outcome {
    Agree,
    /// Two runs of DXC's module already differ: the shader itself races or reads undefined memory.
    Nondeterministic(String),
    /// DXC's module repeated its results, two runs of ours did not.
    OursNondeterministic(String),
    Disagree(String),
    /// DXC's SPIR-V could not run (binding conventions the runner does not support, ...).
    ReferenceError(String),
    OursError(String),
    Skipped(String),
}

fn run(
    rt: &mut Runtime,
    case: &dxil_runtime::Case,
    module: &ShaderModule,
) -> Result<dxil_runtime::RunReport, RunError> {
    let r = rt.run(case, module, &RunOptions::default());
    if let Err(e) = &r
        && e.device_is_stuck()
        && let Ok(fresh) = Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref())
    {
        // A timed-out dispatch poisons the runtime; later shaders get a fresh one.
        *rt = fresh;
    }
    r
}

fn compare(rt: &mut Runtime, sh: &Shader) -> Outcome {
    let bytes = std::fs::read(sh.file("dxil")).unwrap();
    let module = match dxil_to_spirv::read_container(&bytes) {
        Ok(m) => m,
        Err(e) => return Outcome::OursError(e.to_string()),
    };
    if module
        .function_by_name("dx.op.createHandleFromHeap")
        .is_some()
    {
        return Outcome::Skipped("uses the descriptor heap".into());
    }
    let entry = match dxil_to_spirv::dxil::read_entry(&module, sh.entry.as_deref()) {
        Ok(e) => e,
        Err(e) => return Outcome::OursError(e.to_string()),
    };
    let decl = match declared(&entry.resources) {
        Ok(d) => d,
        Err(why) => return Outcome::Skipped(why),
    };
    let case = match differential_case(sh.file("dxil"), sh.entry.clone(), &decl) {
        Ok(c) => c,
        Err(e) => return Outcome::Skipped(e.to_string()),
    };
    let options = dxil_to_spirv::Options {
        entry_point: sh.entry.clone(),
        ..Default::default()
    };
    let ours = match dxil_to_spirv::translate(&module, &options) {
        Ok(t) => {
            let sg = rt.device_info().subgroup_size;
            if let Some(w) = t.wave_size
                && !(w.min..=w.max).contains(&sg)
            {
                // D3D12 refuses such a pipeline on this device.
                return Outcome::Skipped(format!(
                    "needs wave size {}..={}, the device has {sg}",
                    w.min, w.max
                ));
            }
            ShaderModule {
                words: t.words,
                entry: t.entry_point,
            }
        }
        Err(e) => return Outcome::OursError(e.to_string()),
    };
    let spv = std::fs::read(sh.file("spv")).unwrap();
    let mut reference = match ShaderModule::from_bytes(&spv, sh.entry.clone().unwrap_or_default()) {
        Ok(m) => m,
        Err(e) => return Outcome::ReferenceError(e.to_string()),
    };
    if let Ok(ll) = std::fs::read_to_string(sh.file("ll")) {
        rebind_to_listing(&mut reference.words, &ll);
    }
    // Ours first: a driver crash on DXC's module must not hide whether ours runs.
    phase("ours");
    let b = run(rt, &case, &ours);
    phase("reference");
    let a = match run(rt, &case, &reference) {
        Ok(r) => r,
        Err(e) => return Outcome::ReferenceError(e.to_string()),
    };
    let b = match b {
        Ok(r) => r,
        Err(e) => return Outcome::OursError(e.to_string()),
    };
    let diffs = diff_reports(&a, &b);
    let describe = || {
        diffs
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    };
    if diffs.is_empty() {
        Outcome::Agree
    } else if (0..2)
        .any(|_| run(rt, &case, &reference).is_ok_and(|again| !diff_reports(&a, &again).is_empty()))
    {
        // DXC's module does not even agree with itself: the shader races or reads undefined memory.
        Outcome::Nondeterministic(describe())
    } else if (0..2)
        .any(|_| run(rt, &case, &ours).is_ok_and(|again| !diff_reports(&b, &again).is_empty()))
    {
        Outcome::OursNondeterministic(describe())
    } else {
        Outcome::Disagree(
            diffs
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
}

/// Runs the comparisons from shader `start` on, printing one `RESULT <index> <kind> <detail>` line per shader.
/// Lavapipe can crash on a shader (seen: a thread stack overflow compiling ~250-deep nested branches), so the
/// parent runs this in a child process and restarts it after the shader that killed it.
fn child(start: usize) {
    use std::io::Write;
    let Some(corpus) = corpus_dir() else { return };
    let shaders = candidates(&corpus);
    let mut rt = match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            println!("NODEVICE {e}");
            return;
        }
    };
    println!("DEVICE {}", rt.device_info().name);
    for (i, sh) in shaders.iter().enumerate().skip(start) {
        println!("START {i}");
        let _ = std::io::stdout().flush();
        let (kind, detail) = match compare(&mut rt, sh) {
            Outcome::Agree => ("agree", String::new()),
            Outcome::Nondeterministic(d) => ("racy", d),
            Outcome::OursNondeterministic(d) => ("ours-racy", d),
            Outcome::Disagree(d) => ("disagree", d),
            Outcome::ReferenceError(e) => ("reference", e),
            Outcome::OursError(e) => ("ours", e),
            Outcome::Skipped(e) => ("skipped", e),
        };
        println!("RESULT {i} {kind} {}", detail.replace('\n', " "));
        let _ = std::io::stdout().flush();
        if rt.is_poisoned() || detail.contains("did not finish") {
            // A dispatch that timed out keeps a driver thread busy and can bring the process down later:
            // start over in a fresh process.
            println!("RESTART");
            let _ = std::io::stdout().flush();
            dxil_runtime::exit_now(0);
        }
    }
    println!("DONE");
}

fn candidates(corpus: &std::path::Path) -> Vec<Shader> {
    let filter = std::env::var("DIFF_FILTER").ok();
    compute_shaders(corpus)
        .into_iter()
        .filter(|s| s.has_spirv)
        .filter(|s| filter.as_deref().is_none_or(|f| s.name.contains(f)))
        .collect()
}

#[test]
#[ignore = "child process of differential_against_dxc_spirv"]
fn differential_child() {
    if let Some(start) = std::env::var("DIFF_CHILD_START")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        child(start);
    }
}

#[test]
#[ignore = "runs about 200 shaders twice on the Vulkan device (about a minute on lavapipe); cargo test -- --ignored"]
fn differential_against_dxc_spirv() {
    use std::io::BufRead;
    let Some(corpus) = corpus_dir() else { return };
    let shaders = candidates(&corpus);
    let started = Instant::now();
    let exe = std::env::current_exe().unwrap();
    let mut results: Vec<Option<(String, String)>> = vec![None; shaders.len()];
    let mut device = String::new();
    let mut start = 0;
    let mut retried: Vec<usize> = Vec::new();
    while start < shaders.len() {
        let mut child = std::process::Command::new(&exe)
            .args([
                "--ignored",
                "--exact",
                "differential_child",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("DIFF_CHILD_START", start.to_string())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut current = None;
        let mut which = String::new();
        let mut done = false;
        let mut restart = false;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest may print "test differential_child ... " in front of the first line.
            let line = [
                "NODEVICE ",
                "DEVICE ",
                "PHASE ",
                "START ",
                "RESULT ",
                "RESTART",
                "DONE",
            ]
            .iter()
            .filter_map(|m| line.find(m))
            .min()
            .map_or(line.as_str(), |p| &line[p..])
            .to_string();
            if let Some(d) = line.strip_prefix("DEVICE ") {
                device = d.to_string();
            } else if let Some(e) = line.strip_prefix("NODEVICE ") {
                skip_or_fail(&format!("no Vulkan device: {e}"));
                let _ = child.wait();
                return;
            } else if let Some(p) = line.strip_prefix("PHASE ") {
                which = p.to_string();
            } else if let Some(i) = line.strip_prefix("START ") {
                current = i.parse::<usize>().ok();
            } else if let Some(r) = line.strip_prefix("RESULT ") {
                let mut parts = r.splitn(3, ' ');
                let i: usize = parts.next().and_then(|x| x.parse().ok()).unwrap();
                let kind = parts.next().unwrap_or("").to_string();
                let detail = parts.next().unwrap_or("").to_string();
                results[i] = Some((kind, detail));
                current = None;
            } else if line == "DONE" {
                done = true;
            } else if line == "RESTART" {
                restart = true;
            }
        }
        let status = child.wait().unwrap();
        if done {
            break;
        }
        if restart && current.is_none() {
            start = results
                .iter()
                .rposition(Option::is_some)
                .map_or(start, |i| i + 1);
            continue;
        }
        match current {
            Some(i) if !retried.contains(&i) => {
                // Lavapipe sometimes crashes on a shader it runs fine in a fresh process: try once more.
                retried.push(i);
                start = i;
            }
            Some(i) => {
                // A crash on DXC's module leaves nothing to compare; on ours it counts against us.
                let kind = if which == "ours" {
                    "crash"
                } else {
                    "reference"
                };
                results[i] = Some((
                    kind.into(),
                    format!("the Vulkan driver crashed ({status}) running the {which} module"),
                ));
                start = i + 1;
            }
            None => panic!("differential child failed before starting a shader: {status}"),
        }
    }
    let slug = device_slug(&device);
    let mut expect = dxil_corpus::Expectations::new(
        format!(
            "{}/tests/expected/differential-{slug}.txt",
            env!("CARGO_MANIFEST_DIR")
        ),
        &format!(
            "differential execution against DXC's SPIR-V on {device}, per corpus compute shader with X.spv:\n\
             agree | disagree: <first differences> | racy (a known race, or DXC's module disagrees with itself: meets every expectation) |\n\
             ours-racy (only ours disagrees with itself) | a recorded race is also met by agree, disagree or ours-racy |\n\
             skipped: <why> | reference: <DXC's module cannot run> | ours: <ours cannot run> | crash: <driver crash>"
        ),
    );
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for (sh, r) in shaders.iter().zip(&results) {
        let (kind, detail) = r.clone().unwrap_or(("missing".into(), String::new()));
        *counts.entry(kind.clone()).or_default() += 1;
        if kind != "agree" {
            eprintln!("{kind:<10} {}: {detail}", sh.name);
        }
        let comparable_kind = kind == "agree" || kind == "disagree" || kind.ends_with("racy");
        // A race need not show the same way twice: only its kind is recorded.
        let outcome = if comparable_kind && known_race(&sh.name).is_some() {
            "racy".to_string()
        } else if kind == "agree" || kind.ends_with("racy") || detail.is_empty() {
            kind
        } else {
            format!("{kind}: {}", shorten(&detail))
        };
        expect.record(sh.name.clone(), outcome);
    }
    let get = |k: &str| counts.get(k).copied().unwrap_or(0);
    let (agree, disagree, ours, crash) = (get("agree"), get("disagree"), get("ours"), get("crash"));
    let racy = get("racy");
    // Our module failing to run where DXC's runs counts against us.
    let comparable = agree + disagree + ours + crash;
    eprintln!(
        "differential on {device}: {} shaders with DXC SPIR-V; {} skipped (not buffer-only / not expressible in a \
         version-1 case); {} DXC SPIR-V not runnable; {racy} nondeterministic (a module disagrees with itself); \
         {comparable} compared: {agree} agree, {disagree} disagree, {ours} ours not runnable, {crash} driver crashes \
         ({:.1}% agreement) in {:.1?}",
        shaders.len(),
        get("skipped"),
        get("reference"),
        100.0 * agree as f64 / comparable.max(1) as f64,
        started.elapsed()
    );
    if std::env::var_os("DIFF_FILTER").is_some() {
        // A filtered run checks nothing against the file (it holds every shader).
        return;
    }
    // A race need not show the same way twice: a shader recorded as racy (or ours-racy) may agree, disagree or race
    // on a run. DXC's module disagreeing with itself says nothing about our translation, so `racy` meets every
    // expectation; our module alone disagreeing with itself meets only a recorded race.
    expect.check_with(|expected, got| {
        let recorded_race = expected == "racy" || expected == "ours-racy";
        expected == got
            || got == "racy"
            || (recorded_race
                && (got == "agree" || got == "ours-racy" || got.starts_with("disagree")))
    });
}

/// The expectations file's name for a device: `llvmpipe` for every lavapipe build, else the device name in lower
/// case with runs of other characters as `-`.
fn device_slug(device: &str) -> String {
    if device.contains("llvmpipe") {
        return "llvmpipe".into();
    }
    let mut s = String::new();
    for c in device.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches('-').to_string()
}

/// A disagreement's detail cut to its first few differences (the file stays readable).
fn shorten(detail: &str) -> String {
    let parts: Vec<&str> = detail.split("; ").collect();
    let mut s = parts.iter().take(3).copied().collect::<Vec<_>>().join("; ");
    if parts.len() > 3 {
        s.push_str(&format!("; ... {} more", parts.len() - 3));
    }
    s
}
