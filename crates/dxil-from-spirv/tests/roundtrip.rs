//! Execution round trip: for every corpus compute shader with DXC's SPIR-V (`X.spv`) beside
//! DXC's DXIL (`X.dxil`), run the SPIR-V as it is, and run `X.spv` → `from-spirv` →
//! `to-spirv` on the same differential case (every resource DXC's DXIL declares, filled with
//! the same data), then compare every resource afterwards. Each shader's outcome must equal
//! the line in `tests/roundtrip.expected` (`BLESS=1` rewrites it). Races show or not with the
//! machine's load: a shader whose original SPIR-V disagrees with itself meets any expectation,
//! one recorded as racy stays racy, and one whose SPIR-V once ran past the hang guard stays
//! skipped as too slow.
//!
//! Bindings: DXC's SPIR-V uses set = space and binding = register + 0 (b), 100 (t), 200 (u),
//! 300 (s) for explicit registers and 0, 1, ... for implicit ones; implicit bindings are first
//! rewritten from DXC's listing (the registers its DXIL gave them), then `from-spirv` maps them
//! back with [`BindingMap::Shifted`], so the translated DXIL binds what DXC's does.
//!
//! Needs a Vulkan device (lavapipe in CI) and about a minute: ignored by default, run by
//! `.ci/run` with `--ignored`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use dxil_from_spirv::{BindingMap, Options};
use dxil_runtime::differential::{diff_reports, differential_case};
use dxil_runtime::{RunOptions, Runtime, ShaderModule};

// The same case construction as the translator's differential test, so both compare like with like.
#[path = "../../dxil-to-spirv/tests/support/differential_case.rs"]
mod differential_case;
use differential_case::{declared, known_race, rebind_to_listing};

/// Every `X.spv` with `X.dxil` beside it, sorted, as (name, base path without extension).
fn shaders(corpus: &Path) -> Vec<(String, PathBuf)> {
    dxil_corpus::files_with_extension(corpus, "spv")
        .into_iter()
        .filter(|p| p.with_extension("dxil").is_file())
        .map(|p| {
            let name = dxil_corpus::relative_name(corpus, &p);
            (name, p.with_extension(""))
        })
        .collect()
}

fn file(base: &Path, ext: &str) -> PathBuf {
    PathBuf::from(format!("{}.{ext}", base.display()))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// One shader's outcome line.
fn compare(rt: &mut Runtime, base: &Path) -> String {
    let Ok(dxil) = std::fs::read(file(base, "dxil")) else {
        return "skipped: no DXC container".into();
    };
    let module = match dxil_to_spirv::read_container(&dxil) {
        Ok(m) => m,
        Err(e) => return format!("skipped: DXC's container: {e}"),
    };
    if module
        .function_by_name("dx.op.createHandleFromHeap")
        .is_some()
    {
        return "skipped: uses the descriptor heap".into();
    }
    let entry = match dxil_to_spirv::dxil::read_entry(&module, None) {
        Ok(e) => e,
        Err(e) => return format!("skipped: {e}"),
    };
    let decl = match declared(&entry.resources) {
        Ok(d) => d,
        Err(why) => return format!("skipped: {why}"),
    };
    let case = match differential_case(file(base, "dxil"), None, &decl) {
        Ok(c) => c,
        Err(e) => return format!("skipped: {e}"),
    };
    let spv = std::fs::read(file(base, "spv")).unwrap_or_default();
    let mut w = words(&spv);
    if let Ok(ll) = std::fs::read_to_string(file(base, "ll")) {
        rebind_to_listing(&mut w, &ll);
    }
    let options = Options {
        bindings: BindingMap::Shifted,
        ..Options::default()
    };
    let out = match dxil_from_spirv::translate(&w, &options) {
        Ok(o) => o,
        Err(e) => return format!("not translated: {}", e.kind),
    };
    let ours_module = match dxil_to_spirv::read_container(&out.container) {
        Ok(m) => m,
        Err(e) => return format!("ours: reading back: {e}"),
    };
    let ours = match dxil_to_spirv::translate(&ours_module, &Default::default()) {
        Ok(t) => ShaderModule {
            words: t.words,
            entry: t.entry_point,
        },
        Err(e) => return format!("ours: to-spirv: {e}"),
    };
    let entry_name = {
        let m = dxil_from_spirv::spv::Module::parse(&w);
        m.ok()
            .and_then(|m| m.entry_points.first().map(|e| e.name.clone()))
            .unwrap_or_else(|| "main".into())
    };
    let reference = ShaderModule {
        words: w,
        entry: entry_name,
    };
    phase("reference");
    let a = match run(rt, &case, &reference) {
        Ok(r) => r,
        Err(e) => {
            return format!(
                "skipped: the SPIR-V does not run: {}",
                first_line(&e.to_string())
            );
        }
    };
    phase("translated");
    let b = match run(rt, &case, &ours) {
        Ok(r) => r,
        Err(e) => return format!("ours: run: {}", first_line(&e.to_string())),
    };
    let diffs = diff_reports(&a, &b);
    if diffs.is_empty() {
        return "agree".into();
    }
    // A shader that races (or reads memory nobody wrote) does not agree with itself.
    if (0..4)
        .any(|_| run(rt, &case, &reference).is_ok_and(|again| !diff_reports(&a, &again).is_empty()))
    {
        return REFERENCE_RACY.into();
    }
    if run(rt, &case, &ours).is_ok_and(|again| !diff_reports(&b, &again).is_empty()) {
        "racy: runs of one module differ".into()
    } else {
        format!("differ: {}", diffs.len())
    }
}

/// Runs a module; a dispatch that timed out poisons the runtime, so later shaders get a fresh
/// one.
fn run(
    rt: &mut Runtime,
    case: &dxil_runtime::Case,
    module: &ShaderModule,
) -> Result<dxil_runtime::RunReport, dxil_runtime::RunError> {
    let r = rt.run(case, module, &RunOptions::default());
    if let Err(e) = &r
        && e.device_is_stuck()
        && let Ok(fresh) = Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref())
    {
        *rt = fresh;
    }
    r
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// Tells the parent which module runs now (to attribute a driver crash).
fn phase(which: &str) {
    use std::io::Write;
    println!("PHASE {which}");
    let _ = std::io::stdout().flush();
}

/// Compares the shaders from index `start` on, printing `RESULT <index> <line>` for each.
/// Lavapipe can crash on a shader, so the parent runs this in a child process and starts a
/// new child after the shader that killed the last one.
fn child(start: usize) {
    use std::io::Write;
    let Some(corpus) = dxil_corpus::corpus_dir() else {
        return;
    };
    let list = shaders(&corpus);
    let mut rt = match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            println!("NODEVICE {e}");
            return;
        }
    };
    for (i, (_, base)) in list.iter().enumerate().skip(start) {
        println!("START {i}");
        let line = compare(&mut rt, base);
        println!("RESULT {i} {}", line.replace('\n', " "));
        let _ = std::io::stdout().flush();
        if rt.is_poisoned() {
            println!("RESTART");
            let _ = std::io::stdout().flush();
            dxil_runtime::exit_now(0);
        }
    }
    println!("DONE");
}

#[test]
#[ignore = "child process of roundtrip_matches_the_spirv"]
fn roundtrip_child() {
    if let Some(start) = std::env::var("ROUNDTRIP_START")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        child(start);
    }
}

#[test]
#[ignore = "runs about 200 shaders on the Vulkan device (a minute on lavapipe); cargo test -- --ignored"]
fn roundtrip_matches_the_spirv() {
    use std::io::BufRead;
    let Some(corpus) = dxil_corpus::corpus_dir() else {
        return;
    };
    let list = shaders(&corpus);
    let exe = std::env::current_exe().expect("test executable");
    let mut results: Vec<Option<String>> = vec![None; list.len()];
    let mut start = 0;
    let mut retried: Vec<usize> = Vec::new();
    while start < list.len() {
        let first = start;
        let mut child = std::process::Command::new(&exe)
            .args([
                "--ignored",
                "--exact",
                "roundtrip_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ROUNDTRIP_START", start.to_string())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn the child");
        let out = child.stdout.take().expect("child stdout");
        let mut current: Option<usize> = None;
        let mut phase_now = String::new();
        let mut done = false;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            // The test harness's "test roundtrip_child ... " starts the first line.
            let line = line
                .strip_prefix("test roundtrip_child ... ")
                .unwrap_or(&line);
            if let Some(i) = line.strip_prefix("START ") {
                current = i.trim().parse().ok();
                phase_now.clear();
            } else if let Some(p) = line.strip_prefix("PHASE ") {
                phase_now = p.to_string();
            } else if let Some(rest) = line.strip_prefix("RESULT ") {
                if let Some((i, r)) = rest.split_once(' ')
                    && let Ok(i) = i.parse::<usize>()
                {
                    results[i] = Some(r.to_string());
                    start = i + 1;
                }
                current = None;
            } else if line == "DONE" {
                done = true;
            } else if let Some(e) = line.strip_prefix("NODEVICE ") {
                let _ = child.wait();
                dxil_corpus::skip_or_fail(format!("no Vulkan device: {e}"));
                return;
            }
        }
        let status = child.wait();
        if done {
            break;
        }
        assert!(
            current.is_some() || start > first,
            "the child process starting at shader {first} ended without a result ({status:?})"
        );
        if let Some(i) = current
            && !retried.contains(&i)
        {
            // Lavapipe sometimes crashes on a shader it runs fine in a fresh process (seen on a
            // loaded machine): try once more.
            retried.push(i);
            start = i;
        } else if let Some(i) = current {
            // The driver died on this shader twice.
            let who = if phase_now.is_empty() {
                "setup".to_string()
            } else {
                phase_now.clone()
            };
            results[i] = Some(format!(
                "crash: the driver crashed running the {who} module"
            ));
            start = i + 1;
        }
    }
    // A shader found racing once stays classified as racing: its outcome varies from run to
    // run (agree, differ or racy), and it is not compared.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/roundtrip.expected");
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    let known_racy = |name: &str| {
        known_race(name).is_some()
            || expected.lines().any(|l| {
                l.strip_prefix(name)
                    .is_some_and(|r| r.starts_with(": racy"))
            })
    };
    // Likewise a shader whose SPIR-V once ran past the hang guard stays skipped as too slow
    // (whether it finishes in time depends on the machine's load).
    let known_slow = |name: &str| {
        expected.lines().find_map(|l| {
            l.strip_prefix(name)
                .and_then(|r| r.strip_prefix(": "))
                .filter(|r| r.contains("did not finish within"))
        })
    };
    let bless = std::env::var_os("BLESS").is_some();
    let mut text = String::new();
    let (mut agree, mut compared) = (0, 0);
    for ((name, _), r) in list.iter().zip(&results) {
        let mut r = r.as_deref().unwrap_or("missing").to_string();
        if r == REFERENCE_RACY {
            // The original SPIR-V disagreeing with itself says nothing about the translation
            // (whether a race shows depends on the machine's load): it meets any expectation,
            // and is recorded as racy when blessed.
            r = "racy: runs of one module differ".into();
            let recorded = expected.lines().find_map(|l| {
                l.strip_prefix(name.as_str())
                    .and_then(|rest| rest.strip_prefix(": "))
            });
            if let (false, Some(rec)) = (bless, recorded) {
                r = rec.to_string();
            }
        }
        let varies = r == "agree"
            || r.starts_with("differ")
            || r.starts_with("racy")
            || r.starts_with("crash");
        if varies && (r.starts_with("racy") || known_racy(name)) {
            r = "racy: runs of one module differ".into();
        }
        if let Some(slow) = known_slow(name)
            && (varies || r.contains("did not finish within"))
        {
            r = slow.to_string();
        }
        if r == "agree" {
            agree += 1;
        }
        if !r.starts_with("skipped") && !r.starts_with("not translated") && !r.starts_with("racy") {
            compared += 1;
        }
        let _ = writeln!(text, "{name}: {r}");
    }
    eprintln!("{agree} of {compared} compared shaders agree");
    if bless {
        std::fs::write(&path, &text).expect("write expectations");
        return;
    }
    if expected != text {
        let exp: Vec<&str> = expected.lines().collect();
        let now: Vec<&str> = text.lines().collect();
        let diffs: Vec<String> = now
            .iter()
            .filter(|l| !exp.contains(l))
            .map(|l| format!("now:      {l}"))
            .chain(
                exp.iter()
                    .filter(|l| !now.contains(l))
                    .map(|l| format!("expected: {l}")),
            )
            .collect();
        panic!(
            "{} outcomes differ from tests/roundtrip.expected (BLESS=1 to accept):\n{}",
            diffs.len(),
            diffs.join("\n")
        );
    }
}

/// A shader's outcome when the original SPIR-V's own runs differ (see `roundtrip_matches_the_spirv`).
const REFERENCE_RACY: &str = "racy: the original SPIR-V's runs differ";

/// Translates a SPIR-V module with the shifted bindings (and `options`), then back to SPIR-V.
fn through_dxil(words: &[u32], options: Options) -> Result<(Vec<u8>, ShaderModule), String> {
    let out = dxil_from_spirv::translate(
        words,
        &Options {
            bindings: BindingMap::Shifted,
            ..options
        },
    )
    .map_err(|e| e.to_string())?;
    let container = out.container;
    let module = to_spirv(&container)?;
    Ok((container, module))
}

fn to_spirv(container: &[u8]) -> Result<ShaderModule, String> {
    let m = dxil_to_spirv::read_container(container).map_err(|e| e.to_string())?;
    let t = dxil_to_spirv::translate(&m, &Default::default()).map_err(|e| e.to_string())?;
    Ok(ShaderModule {
        words: t.words,
        entry: t.entry_point,
    })
}

fn device() -> Option<Runtime> {
    match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => Some(rt),
        Err(e) => {
            dxil_corpus::skip_or_fail(format!("no Vulkan device: {e}"));
            None
        }
    }
}

/// The visible conformance cases that have DXC's SPIR-V: each runs with the SPIR-V taken
/// through `from-spirv` and `to-spirv`, and its expectations must hold.
#[test]
fn conformance_cases_through_from_spirv() {
    let Some(corpus) = dxil_corpus::corpus_dir() else {
        return;
    };
    let dir = corpus
        .parent()
        .map(|p| p.join("conformance/v1"))
        .unwrap_or_default();
    let cases = dxil_corpus::files_with_extension(&dir, "toml");
    if cases.is_empty() {
        dxil_corpus::skip_or_fail(format!("no conformance cases in {}", dir.display()));
        return;
    }
    let Some(mut rt) = device() else { return };
    let mut ran = 0;
    for toml in cases {
        let spv = toml.with_extension("spv");
        let Ok(bytes) = std::fs::read(&spv) else {
            continue;
        };
        let case =
            dxil_runtime::Case::load(&toml).unwrap_or_else(|e| panic!("{}: {e}", toml.display()));
        let (_, module) = through_dxil(&words(&bytes), Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", spv.display()));
        let report =
            run(&mut rt, &case, &module).unwrap_or_else(|e| panic!("{}: {e}", toml.display()));
        assert!(
            report.passed(),
            "{}: {:?}",
            toml.display(),
            report.mismatches
        );
        ran += 1;
    }
    assert_eq!(ran, 8, "the visible cases with SPIR-V");
}

/// A patched specialization constant changes what the shader computes: the loop count, a
/// branch, a float scale and a signed offset of `tests/data/spec_loop.comp`.
#[test]
fn patched_spec_constants_change_execution() {
    let spv = include_bytes!("data/spec_loop.spv");
    let Some(mut rt) = device() else { return };
    let case_text = |expect: &[u32]| {
        format!(
            "shader = \"spec_loop.dxil\"\ndispatch = [1, 1, 1]\n\n[[resource]]\nbind = \"u0\"\nkind = \"raw\"\nsize = 16\ninit = \"zero\"\n\n[[expect]]\nbind = \"u0\"\nu32 = {expect:?}\n"
        )
    };
    let out = dxil_from_spirv::translate(
        &words(spv),
        &Options {
            bindings: BindingMap::Shifted,
            spec_constants: dxil_from_spirv::SpecMode::Patchable,
            ..Options::default()
        },
    )
    .unwrap();
    // Defaults: sum 1..=4 = 10, no branch, scale 2, offset -3 + 100.
    let expect_default: Vec<u32> = (0..4).map(|x| 10 + 2 * x + 97).collect();
    // Patched: sum 1..=10 = 55, +1000, scale 0.5, offset -50 + 100.
    let expect_patched: Vec<u32> = (0..4).map(|x| 1055 + x / 2 + 50).collect();
    let mut patched = out.container.clone();
    dxil_from_spirv::spec::patch(
        &mut patched,
        &out.spec_constants,
        &[
            (0, 10),
            (1, 1),
            (2, u64::from(0.5f32.to_bits())),
            (3, u64::from((-50i32) as u32)),
        ],
    )
    .unwrap();
    for (container, expect) in [
        (&out.container, &expect_default),
        (&patched, &expect_patched),
    ] {
        let case = dxil_runtime::Case::parse(&case_text(expect), "spec_loop.toml").unwrap();
        let module = to_spirv(container).unwrap();
        let report = run(&mut rt, &case, &module).unwrap();
        assert!(
            report.passed(),
            "expected {expect:?}: {:?}",
            report.mismatches
        );
    }
}
