//! The parser over the shared corpus: every DXC listing (`X.ll`) must parse; printing the parsed
//! module gives DXC's listing back; `print → parse → print` is the identity on our own output;
//! and writing the parsed module gives DXC's bitcode for most containers.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dxil_container::Container;

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DXIL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var_os("CI").is_some() {
        panic!("corpus not found at {} (set DXIL_CORPUS)", dir.display());
    } else {
        eprintln!(
            "SKIPPED: corpus not found at {} (set DXIL_CORPUS)",
            dir.display()
        );
        None
    }
}

/// Every `X.ll` with its `X.dxil` (when there is one).
fn listings(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            listings(&p, out);
        } else if p.extension().is_some_and(|e| e == "ll") {
            out.push(p);
        }
    }
}

fn name(dir: &Path, p: &Path) -> String {
    p.strip_prefix(dir).unwrap_or(p).display().to_string()
}

/// Lines that carry the module: no comment or blank lines, runs of blanks as one space.
fn normalize(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with(';')
        })
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn first_difference(a: &[String], b: &[String]) -> Option<String> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(format!("line {}\n    ours: {}\n    want: {}", i + 1, a[i], b[i])),
        None if a.len() != b.len() => Some(format!(
            "{} lines, expected {}; first extra: {:?}",
            a.len(),
            b.len(),
            a.get(b.len()).or(b.get(a.len()))
        )),
        None => None,
    }
}

fn report(title: &str, failures: &[String]) {
    for f in failures.iter().take(30) {
        eprintln!("  {title}: {f}");
    }
    if failures.len() > 30 {
        eprintln!("  ... and {} more", failures.len() - 30);
    }
}

/// The module of a container's DXIL part (the debug module if there is one, as DXC lists it).
fn read_container(bytes: &[u8]) -> Result<(dxil_module::Module, Vec<u8>), String> {
    let c = Container::parse(bytes).map_err(|e| format!("container: {e}"))?;
    let p = c
        .program_part(dxil_container::FourCC::ILDB)
        .or_else(|| c.program())
        .ok_or("no DXIL part")?
        .map_err(|e| format!("program header: {e}"))?;
    let m = dxil_module::read_module(p.bitcode, 0).map_err(|e| format!("read: {e}"))?;
    Ok((m, p.bitcode.to_vec()))
}

#[test]
fn every_dxc_listing_parses_and_prints_back() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = Vec::new();
    listings(&dir, &mut files);
    assert!(!files.is_empty(), "no listings under {}", dir.display());
    let mut parse_failures = Vec::new();
    let mut print_failures = Vec::new();
    let mut parse_time = Duration::ZERO;
    let mut bytes = 0usize;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        bytes += text.len();
        let t = Instant::now();
        let parsed = dxil_text::parse_module(&text);
        parse_time += t.elapsed();
        let m = match parsed {
            Ok(m) => m,
            Err(e) => {
                parse_failures.push(format!("{}: {e}", name(&dir, f)));
                continue;
            }
        };
        if let Err(e) = dxil_module::check::check_ids(&m) {
            parse_failures.push(format!("{}: inconsistent model: {e}", name(&dir, f)));
            continue;
        }
        let printed = dxil_text::module_to_string(&m);
        if let Some(d) = first_difference(&normalize(&printed), &normalize(&text)) {
            print_failures.push(format!("{}: {d}", name(&dir, f)));
        }
    }
    let n = files.len();
    eprintln!(
        "parse corpus: {}/{n} listings parse, {}/{n} print back as DXC's listing; \
         parsing {:.1} MB took {:?} ({:.1} µs/listing, {:.0} MB/s)",
        n - parse_failures.len(),
        n - parse_failures.len() - print_failures.len(),
        bytes as f64 / 1e6,
        parse_time,
        parse_time.as_secs_f64() * 1e6 / n as f64,
        bytes as f64 / 1e6 / parse_time.as_secs_f64()
    );
    report("parse", &parse_failures);
    report("print", &print_failures);
    assert!(parse_failures.is_empty(), "{} listings fail to parse", parse_failures.len());
    assert!(print_failures.is_empty(), "{} listings print differently", print_failures.len());
}

#[test]
fn print_parse_print_is_the_identity() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = Vec::new();
    listings(&dir, &mut files);
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let Ok(bytes) = std::fs::read(f.with_extension("dxil")) else {
            continue;
        };
        let (m, _) = match read_container(&bytes) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{}: {e}", name(&dir, f)));
                continue;
            }
        };
        checked += 1;
        let first = dxil_text::module_to_string(&m);
        let again = match dxil_text::parse_module(&first) {
            Ok(m2) => dxil_text::module_to_string(&m2),
            Err(e) => {
                failures.push(format!("{}: {e}", name(&dir, f)));
                continue;
            }
        };
        if first != again {
            let (a, b): (Vec<String>, Vec<String>) = (
                again.lines().map(String::from).collect(),
                first.lines().map(String::from).collect(),
            );
            failures.push(format!(
                "{}: {}",
                name(&dir, f),
                first_difference(&a, &b).unwrap_or_default()
            ));
        }
    }
    eprintln!(
        "print/parse/print: {}/{checked} identical",
        checked - failures.len()
    );
    report("round trip", &failures);
    assert!(checked > 0);
    assert!(failures.is_empty(), "{} modules differ", failures.len());
}

#[test]
fn written_modules_match_dxc_bitcode() {
    let Some(dir) = corpus_dir() else { return };
    let mut files = Vec::new();
    listings(&dir, &mut files);
    let (mut same, mut total) = (0usize, 0usize);
    let mut failures = Vec::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f.with_extension("dxil")) else {
            continue;
        };
        let Ok(c) = Container::parse(&bytes) else {
            continue;
        };
        if c.program_part(dxil_container::FourCC::ILDB).is_some() {
            // The listing shows the debug module; the DXIL part is a different module.
            continue;
        }
        let Some(Ok(p)) = c.program() else { continue };
        total += 1;
        let text = std::fs::read_to_string(f).unwrap();
        let m = match dxil_text::parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: parse: {e}", name(&dir, f)));
                continue;
            }
        };
        match dxil_module::write_module(&m, &dxil_module::WriteOptions::default()) {
            Ok(out) if out == p.bitcode => same += 1,
            Ok(out) => failures.push(format!(
                "{}: differs ({} bytes, DXC {})",
                name(&dir, f),
                out.len(),
                p.bitcode.len()
            )),
            Err(e) => failures.push(format!("{}: write: {e}", name(&dir, f))),
        }
    }
    eprintln!(
        "write(parse(X.ll)) == X.dxil: {same}/{total} ({:.1}%)",
        100.0 * same as f64 / total.max(1) as f64
    );
    report("bitcode", &failures);
    assert!(total > 0);
    assert!(
        same * 100 >= total * 90,
        "only {same} of {total} modules give DXC's bitcode"
    );
}
