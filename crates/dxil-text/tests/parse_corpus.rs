//! The parser over the shared corpus: every DXC listing (`X.ll`) must parse; printing the parsed
//! module gives DXC's listing back; `print → parse → print` is the identity on our own output;
//! and writing the parsed module gives DXC's bitcode for most containers.

use std::time::{Duration, Instant};

use dxil_container::Container;
use dxil_corpus::relative_name as name;

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
        Some(i) => Some(format!(
            "line {}\n    ours: {}\n    want: {}",
            i + 1,
            a[i],
            b[i]
        )),
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
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::listings(&dir);
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
    assert!(
        parse_failures.is_empty(),
        "{} listings fail to parse",
        parse_failures.len()
    );
    assert!(
        print_failures.is_empty(),
        "{} listings print differently",
        print_failures.len()
    );
}

#[test]
fn print_parse_print_is_the_identity() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::listings(&dir);
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

/// Gives `m` the metadata kind table of `dxc` (matched by name), which the listing does not show.
fn adopt_kind_table(m: &mut dxil_module::Module, dxc: &dxil_module::Module) -> bool {
    let mut map = Vec::new();
    for k in &m.metadata.kinds {
        match dxc.metadata.kind_id(&k.name) {
            Some(id) => map.push((k.id, id)),
            None if !used_kind(m, k.id) => {}
            None => return false,
        }
    }
    for f in &mut m.functions {
        if let Some(b) = &mut f.body {
            for a in &mut b.attachments {
                a.kind = map.iter().find(|x| x.0 == a.kind).map_or(a.kind, |x| x.1);
            }
            for (k, _) in &mut b.fn_attachments {
                *k = map.iter().find(|x| x.0 == *k).map_or(*k, |x| x.1);
            }
        }
    }
    m.metadata.kinds = dxc.metadata.kinds.clone();
    true
}

fn used_kind(m: &dxil_module::Module, kind: u32) -> bool {
    m.functions.iter().filter_map(|f| f.body.as_ref()).any(|b| {
        b.attachments.iter().any(|a| a.kind == kind) || b.fn_attachments.iter().any(|a| a.0 == kind)
    })
}

/// `write(parse(X.ll))` against DXC's bitcode. The listing does not carry the metadata kind
/// table (DXC writes every kind its passes registered, used or not, in registration order), so
/// the parser rebuilds it from what the module implies; with DXC's own table substituted, the
/// bytes match for all but the modules whose fast-math flags the text cannot express (LLVM prints
/// `fast` for any flag set that includes unsafe-algebra). The outcome of every listing is
/// committed in tests/expected/written_modules.txt.
#[test]
fn written_modules_match_dxc_bitcode() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::listings(&dir);
    let mut expect = dxil_corpus::Expectations::new(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/expected/written_modules.txt"
        ),
        "write(parse(X.ll)) against the bitcode of X.dxil, per listing: identical; `identical with DXC's\n\
         kinds` (only the metadata kind table, which a listing does not carry, differs); or what fails",
    );
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
        let text = std::fs::read_to_string(f).unwrap();
        let outcome = written_outcome(&text, p.bitcode);
        expect.record(name(&dir, f), outcome);
    }
    eprintln!(
        "write(parse(X.ll)) == X.dxil: {:?} over {} modules",
        expect.tally(),
        expect.len()
    );
    expect.check();
}

fn written_outcome(text: &str, bitcode: &[u8]) -> String {
    let mut m = match dxil_text::parse_module(text) {
        Ok(m) => m,
        Err(e) => return format!("parse error: {e}"),
    };
    let opts = dxil_module::WriteOptions::default();
    match dxil_module::write_module(&m, &opts) {
        Ok(out) if out == bitcode => return "identical".into(),
        Ok(_) => {}
        Err(e) => return format!("write error: {e}"),
    }
    let dxc = dxil_module::read_module(bitcode, 0).unwrap();
    if adopt_kind_table(&mut m, &dxc)
        && dxil_module::write_module(&m, &opts).is_ok_and(|out| out == bitcode)
    {
        "identical with DXC's kinds".into()
    } else {
        "differs beyond the kind table".into()
    }
}
