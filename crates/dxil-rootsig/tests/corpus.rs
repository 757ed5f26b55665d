//! Corpus checks: every RTS0 part in the corpus round-trips byte for byte, every HLSL string of
//! `rootsig/strings.json` compiles to DXC's bytes, and blobs and strings compare equal.
//!
//! The corpus lives outside the repository: `$DXIL_CORPUS`, else `../shared/corpus` next to
//! the repository root. Without it the tests are skipped with a message, unless `CI` is set.

use dxil_rootsig::{
    DeviceLimits, LayoutOptions, ParseOptions, RTS0, RootSignature, Version, find_part, layout,
    parse_hlsl, validate,
};
use std::path::PathBuf;

/// The corpus, which must hold the `rootsig` folder of HLSL strings and blobs.
fn corpus_dir() -> Option<PathBuf> {
    let dir = dxil_corpus::default_corpus_dir();
    if dir.join("rootsig").is_dir() {
        return Some(dir);
    }
    dxil_corpus::skip_or_fail(format_args!(
        "corpus not found at {} (set DXIL_CORPUS)",
        dir.display()
    ));
    None
}

/// Checks one RTS0 payload: byte-exact round trip, HLSL round trip, validation, layout.
fn check_payload(name: &str, payload: &[u8]) -> RootSignature {
    let rs = RootSignature::from_rts0(payload).unwrap_or_else(|e| panic!("{name}: {e}"));
    let written = rs.to_rts0_bytes().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(written, payload, "{name}: rewritten RTS0 differs");
    validate(&rs, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = rs.to_hlsl().unwrap_or_else(|e| panic!("{name}: {e}"));
    let reparsed = parse_hlsl(&text, &ParseOptions::version(rs.version))
        .unwrap_or_else(|e| panic!("{name}: printed {text:?} does not parse: {e}"));
    assert_eq!(reparsed, rs, "{name}: HLSL round trip via {text:?}");
    if !rs.is_local() {
        layout(&rs, &DeviceLimits::default(), &LayoutOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    rs
}

#[test]
fn every_corpus_rts0_round_trips() {
    let Some(corpus) = corpus_dir() else { return };
    let files = dxil_corpus::containers(&corpus);
    assert!(
        !files.is_empty(),
        "no .dxil files under {}",
        corpus.display()
    );
    let (mut standalone, mut embedded) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.display().to_string();
        let Some((offset, payload)) =
            find_part(&bytes, RTS0).unwrap_or_else(|e| panic!("{name}: {e}"))
        else {
            continue;
        };
        let rs = check_payload(&name, payload);
        assert_eq!(
            RootSignature::from_container(&bytes).expect("container read"),
            rs
        );
        assert!(offset > 0);
        if path.starts_with(corpus.join("rootsig")) {
            standalone += 1;
        } else {
            embedded += 1;
        }
    }
    eprintln!(
        "{} containers scanned, {standalone} standalone and {embedded} embedded RTS0 parts round-trip",
        files.len()
    );
    assert!(
        standalone >= 46,
        "expected the 46 rootsig blobs, saw {standalone}"
    );
    assert!(embedded > 0, "no shader in the corpus carried an RTS0 part");
}

#[test]
fn hlsl_strings_match_dxc_bytes() {
    let Some(corpus) = corpus_dir() else { return };
    let dir = corpus.join("rootsig");
    let json = std::fs::read_to_string(dir.join("strings.json")).expect("strings.json");
    let strings: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&json).expect("strings.json is a JSON object");
    let mut compared = 0;
    for (name, text) in &strings {
        let text = text.as_str().expect("strings are JSON strings");
        for (version, suffix) in [(Version::V1_0, "rs1_0"), (Version::V1_1, "rs1_1")] {
            let path = dir.join(format!("{name}.{suffix}.dxil"));
            let parsed = parse_hlsl(text, &ParseOptions::version(version));
            let Ok(blob) = std::fs::read(&path) else {
                // DXC rejected this string for this version (flags in 1.0): so must we.
                assert!(
                    parsed.is_err(),
                    "{name}: DXC wrote no {suffix} blob, but we parsed {parsed:?}"
                );
                continue;
            };
            let parsed = parsed.unwrap_or_else(|e| panic!("{name} ({suffix}): {e}"));
            let (_, payload) = find_part(&blob, RTS0)
                .expect("container")
                .expect("RTS0 part");
            assert_eq!(
                parsed.to_rts0_bytes().expect("writes"),
                payload,
                "{name} ({suffix}): bytes differ from DXC's"
            );
            assert_eq!(
                RootSignature::from_rts0(payload).expect("reads"),
                parsed,
                "{name} ({suffix}): string and blob describe different root signatures"
            );
            compared += 1;
        }
    }
    eprintln!("{compared} (string, version) pairs match DXC's blobs");
    assert!(compared >= 46, "only {compared} pairs compared");
}
