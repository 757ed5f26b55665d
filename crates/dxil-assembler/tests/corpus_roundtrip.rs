//! Assembles the printed module of every container in the shared corpus and compares the result
//! with DXC's container:
//!
//! (a) the listing of the assembled container equals the listing it was assembled from, for
//!     every container (libraries included);
//! (b) for every non-library, the bitcode and the SFI0, ISG1, OSG1, PSG1 and PSV0 parts equal
//!     DXC's byte for byte, and the whole container equals DXC's, digest included, when the parts
//!     the module cannot give back (STAT, RTS0, ...) are passed through.
//!
//! The outcome of every container is committed in tests/expected/corpus_roundtrip.txt; any
//! change, better or worse, fails the test (`BLESS=1` rewrites the file).
//!
//! Libraries are left out of (b): their RDAT part is not generated. Their bitcode, SFI0 and
//! HASH are still compared and reported.
//!
//! The corpus is `$DXIL_CORPUS` or `../shared/corpus` from the workspace root; the test skips
//! with a message when it is missing, unless `CI` is set.

use std::collections::BTreeMap;
use std::time::Instant;

use dxil_assembler::{AssembleOptions, EXTRA_PARTS, build_container, build_parts};
use dxil_container::{Container, DigestMode, DigestStatus, FourCC};

/// The parts compared one by one, in report order.
const COMPARED: [FourCC; 6] = [
    FourCC::DXIL,
    FourCC::SFI0,
    FourCC::ISG1,
    FourCC::OSG1,
    FourCC::PSG1,
    FourCC::PSV0,
];

#[derive(Default)]
struct Tally {
    total: usize,
    libraries: usize,
    /// (a): listing of the assembled container == listing assembled.
    text_same: usize,
    /// Per part: (non-library containers where ours equals DXC's, where it differs).
    parts: BTreeMap<String, (usize, usize)>,
    /// Libraries: bitcode, SFI0 and HASH equal DXC's.
    library_parts_same: usize,
    /// Non-libraries whose every compared part matches.
    all_parts_same: usize,
    /// Whole containers equal to DXC's with nothing passed through.
    whole_same_plain: usize,
    /// Non-libraries without parts that cannot be derived (STAT, RTS0, ...).
    derivable: usize,
    /// Whole containers equal to DXC's with the underivable parts passed through.
    whole_same_passed: usize,
    non_library: usize,
    failures: Vec<String>,
    exceptions: Vec<String>,
}

fn listing(bitcode: &[u8]) -> Result<String, String> {
    let m = dxil_module::read_module(bitcode, 0).map_err(|e| format!("read: {e}"))?;
    Ok(dxil_text::module_to_string(&m))
}

/// The bitcode of a `DXIL` part payload.
fn program_bitcode(payload: &[u8]) -> Option<&[u8]> {
    let size = u32::from_le_bytes(payload.get(20..24)?.try_into().ok()?) as usize;
    payload.get(24..24 + size)
}

fn check(name: &str, bytes: &[u8], t: &mut Tally) {
    let c = match Container::parse(bytes) {
        Ok(c) => c,
        Err(e) => return t.failures.push(format!("{name}: container: {e}")),
    };
    let Some(Ok(p)) = c.program() else {
        return t.failures.push(format!("{name}: no readable DXIL part"));
    };
    // dis(X.dxil)
    let text = match listing(p.bitcode) {
        Ok(s) => s,
        Err(e) => return t.failures.push(format!("{name}: {e}")),
    };
    let module = match dxil_text::parse_module(&text) {
        Ok(m) => m,
        Err(e) => return t.failures.push(format!("{name}: parse: {e}")),
    };
    let is_library = c.part(FourCC::RDAT).is_some() || c.part(FourCC::PSV0).is_none();
    t.total += 1;
    if is_library {
        t.libraries += 1;
    } else {
        t.non_library += 1;
    }

    // What a validator stored: the retail hash, or the unsigned form of `-Vd` containers.
    let digest = match c.digest_status() {
        DigestStatus::Signed => DigestMode::Retail,
        DigestStatus::Unsigned => DigestMode::Zero,
        _ => DigestMode::Keep(c.header().digest),
    };
    // (a) dis(as(dis(X))) == dis(X).
    let plain = AssembleOptions {
        allow_library_without_rdat: true,
        digest,
        ..Default::default()
    };
    let ours = match build_container(&module, &plain) {
        Ok(b) => b,
        Err(e) => return t.failures.push(format!("{name}: assemble: {e}")),
    };
    let ours_c = match Container::parse(&ours) {
        Ok(c) => c,
        Err(e) => return t.failures.push(format!("{name}: our container: {e}")),
    };
    match ours_c.program() {
        Some(Ok(op)) => match listing(op.bitcode) {
            Ok(again) if again == text => t.text_same += 1,
            Ok(again) => {
                let line = again
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map_or(0, |i| i + 1);
                t.failures
                    .push(format!("{name}: the listing changes (line {line})"));
            }
            Err(e) => t.failures.push(format!("{name}: our bitcode: {e}")),
        },
        _ => t
            .failures
            .push(format!("{name}: our container has no DXIL part")),
    }
    let underivable = c
        .parts()
        .iter()
        .any(|p| EXTRA_PARTS.contains(&p.fourcc) || p.fourcc == FourCC::RTS0);
    if !underivable && !is_library {
        t.derivable += 1;
    }
    if ours == bytes {
        t.whole_same_plain += 1;
    } else if !underivable && !is_library {
        t.exceptions.push(format!(
            "{name}: whole container differs though every part is derivable (digest {:?})",
            c.digest_status()
        ));
    }

    // (b) part by part.
    let parts = match build_parts(&module, &plain) {
        Ok(p) => p,
        Err(e) => return t.failures.push(format!("{name}: parts: {e}")),
    };
    let ours_of = |f: FourCC| {
        parts
            .iter()
            .find(|(p, _)| *p == f)
            .map(|(_, b)| b.as_slice())
    };
    let dxc_of = |f: FourCC| c.part(f).map(|p| p.data);
    let mut differing = Vec::new();
    for f in COMPARED {
        let (a, b) = if f == FourCC::DXIL {
            (
                ours_of(f).and_then(program_bitcode),
                dxc_of(f).and_then(program_bitcode),
            )
        } else {
            (ours_of(f), dxc_of(f))
        };
        if a.is_none() && b.is_none() {
            // Neither has it (PSG1 outside hull, domain and mesh shaders).
            continue;
        }
        if is_library {
            if matches!(f, FourCC::DXIL | FourCC::SFI0) && a != b {
                differing.push(f.to_string());
            }
            continue;
        }
        let e = t.parts.entry(f.to_string()).or_default();
        if a == b {
            e.0 += 1;
        } else {
            e.1 += 1;
            differing.push(f.to_string());
        }
    }
    if ours_of(FourCC::HASH) != dxc_of(FourCC::HASH) {
        differing.push("HASH".into());
    }
    if is_library {
        if differing.is_empty() {
            t.library_parts_same += 1;
        } else {
            let why = if fast_math_beyond_text(p.bitcode) {
                " (fast-math flag sets that the text prints as `fast`)"
            } else {
                ""
            };
            t.exceptions.push(format!(
                "{name} (library): {} differ{why}",
                differing.join(", ")
            ));
        }
        return;
    }
    if differing.is_empty() {
        t.all_parts_same += 1;
    } else {
        t.exceptions
            .push(format!("{name}: {} differ", differing.join(", ")));
    }

    // The whole container, with what the module cannot give back passed through.
    let passed = AssembleOptions {
        root_signature: c.root_signature().map(<[u8]>::to_vec),
        extra_parts: c
            .parts()
            .iter()
            .filter(|p| EXTRA_PARTS.contains(&p.fourcc))
            .map(|p| (p.fourcc, p.data.to_vec()))
            .collect(),
        digest,
        allow_library_without_rdat: false,
        ..AssembleOptions::default()
    };
    match build_container(&module, &passed) {
        Ok(whole) if whole == bytes => t.whole_same_passed += 1,
        Ok(whole) => {
            let what = if whole.len() != bytes.len() {
                format!("{} bytes, DXC's has {}", whole.len(), bytes.len())
            } else if whole[..20] != bytes[..20] {
                "the digest differs".to_string()
            } else {
                "differs".to_string()
            };
            if differing.is_empty() {
                t.exceptions.push(format!("{name}: whole container {what}"));
            }
        }
        Err(e) => t.failures.push(format!("{name}: assemble with parts: {e}")),
    }
}

/// Whether the module has floating-point operations with unsafe-algebra but not every other
/// fast-math flag: LLVM prints all such sets as `fast`, so the text cannot give them back.
fn fast_math_beyond_text(bitcode: &[u8]) -> bool {
    let Ok(m) = dxil_module::read_module(bitcode, 0) else {
        return false;
    };
    m.functions
        .iter()
        .filter_map(|f| f.body.as_ref())
        .flat_map(|b| &b.insts)
        .any(|i| match &i.kind {
            dxil_module::InstKind::Binary { flags, .. }
            | dxil_module::InstKind::Cmp { flags, .. } => flags & 1 != 0 && flags & 0x1f != 0x1f,
            _ => false,
        })
}

fn pct(n: usize, d: usize) -> f64 {
    100.0 * n as f64 / d.max(1) as f64
}

#[test]
fn assembled_corpus_matches_dxc() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers_with_listing(&dir);
    assert!(!files.is_empty(), "no containers under {}", dir.display());
    let start = Instant::now();
    let mut t = Tally::default();
    let mut expect = dxil_corpus::Expectations::new(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/expected/corpus_roundtrip.txt"
        ),
        "dis -> as -> compare with DXC's container, per container: `identical` (listing, every\n\
         compared part, and the whole container with STAT/RTS0/... passed through), else what differs;\n\
         `plain` says whether the container assembled from the listing alone equals DXC's",
    );
    for f in &files {
        let name = dxil_corpus::relative_name(&dir, f);
        let bytes = std::fs::read(f).unwrap();
        let (failures, exceptions, plain) =
            (t.failures.len(), t.exceptions.len(), t.whole_same_plain);
        check(&name, &bytes, &mut t);
        let strip = |s: &String| {
            s.strip_prefix(&name)
                .unwrap_or(s)
                .trim_start_matches(": ")
                .trim_start()
                .to_string()
        };
        let outcome = if t.failures.len() > failures {
            let e: Vec<String> = t.failures[failures..].iter().map(strip).collect();
            format!("error: {}", e.join("; "))
        } else {
            let e: Vec<String> = t.exceptions[exceptions..].iter().map(strip).collect();
            let plain = if t.whole_same_plain > plain {
                "same"
            } else {
                "differs"
            };
            if e.is_empty() {
                format!("identical; plain {plain}")
            } else {
                format!("{}; plain {plain}", e.join("; "))
            }
        };
        expect.record(name, outcome);
    }
    let n = t.non_library;
    eprintln!(
        "assembler corpus: {} containers ({} libraries) in {:.2?}",
        t.total,
        t.libraries,
        start.elapsed()
    );
    eprintln!(
        "  (a) dis(as(dis(X))) == dis(X): {}/{} ({:.1}%)",
        t.text_same,
        t.total,
        pct(t.text_same, t.total)
    );
    for (part, (same, differ)) in &t.parts {
        let what = if part == "DXIL" { "bitcode" } else { "part" };
        eprintln!(
            "  (b) {part} {what} identical: {same}/{} ({:.1}%){}",
            same + differ,
            pct(*same, same + differ),
            if *differ > 0 {
                format!(", {differ} differ")
            } else {
                String::new()
            }
        );
    }
    eprintln!(
        "  (b) every compared part identical: {}/{n} non-libraries ({:.1}%)",
        t.all_parts_same,
        pct(t.all_parts_same, n)
    );
    eprintln!(
        "  whole container identical to DXC's (digest included): {}/{n} with STAT/RTS0/... \
         passed through; {}/{} with nothing passed through ({} non-libraries \
         have only derivable parts)",
        t.whole_same_passed, t.whole_same_plain, t.total, t.derivable
    );
    eprintln!(
        "  libraries (no RDAT generated): bitcode, SFI0 and HASH identical for {}/{}",
        t.library_parts_same, t.libraries
    );
    for e in t.failures.iter().take(30) {
        eprintln!("  FAIL {e}");
    }
    for e in t.exceptions.iter().take(60) {
        eprintln!("  exception: {e}");
    }
    if t.exceptions.len() > 60 {
        eprintln!("  ... and {} more exceptions", t.exceptions.len() - 60);
    }
    expect.check();
}
