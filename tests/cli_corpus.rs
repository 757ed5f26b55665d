//! Corpus checks of the `dxil` command itself, run as a user runs it (one process per container):
//!
//! - `dxil dis X.dxil` equals DXC's listing `X.ll` once comment lines and blank lines are dropped
//!   and runs of blanks collapsed (the outcome per container is committed in
//!   tests/expected/cli_dis.txt; any change fails the test);
//! - `dxil info --json X.dxil` succeeds on every container, and its resource list equals the
//!   `!dx.resources` records of `X.ll` (read here from the text, independently of our reader).
//!
//! The corpus is `$DXIL_CORPUS` or `../shared/corpus`; without it the checks skip with a message,
//! unless `CI` is set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::process::Command;

use rayon::prelude::*;

fn dxil(args: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_dxil"))
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The module text of a listing: no comment lines, no blank lines, runs of blanks collapsed.
fn module_text(listing: &str) -> Vec<String> {
    listing
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty() && !l.starts_with(';'))
        .collect()
}

#[test]
fn dis_matches_dxc_listings() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers_with_listing(&root);
    assert!(!files.is_empty(), "no containers under {}", root.display());
    let outcomes: Vec<String> = files
        .par_iter()
        .map(|p| {
            let ours = match dxil(&["dis", p.to_str().unwrap()]) {
                Ok(o) => o,
                Err(e) => return format!("error: {e}"),
            };
            let theirs = std::fs::read_to_string(p.with_extension("ll")).unwrap();
            let (a, b) = (module_text(&ours), module_text(&theirs));
            if a == b {
                return "match".to_string();
            }
            let line = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            format!(
                "differs: module line {}: ours `{}`, DXC's `{}`",
                line + 1,
                a.get(line).map_or("(end)", |s| s.as_str()),
                b.get(line).map_or("(end)", |s| s.as_str())
            )
        })
        .collect();
    let mut expect = dxil_corpus::Expectations::new(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/expected/cli_dis.txt"),
        "`dxil dis X.dxil` against the module text of DXC's X.ll, per container",
    );
    for (p, o) in files.iter().zip(outcomes) {
        expect.record(dxil_corpus::relative_name(&root, p), o);
    }
    println!("dis: {:?} over {} listings", expect.tally(), files.len());
    expect.check();
}

/// One `!dx.resources` record as the listing spells it.
#[derive(Debug, PartialEq)]
struct Record {
    class: usize,
    id: i64,
    name: String,
    space: i64,
    lower_bound: i64,
    range_size: i64,
    /// Shape (SRV/UAV), size in bytes (CBV) or sampler kind (sampler).
    field6: i64,
    /// SRV: sample count; UAV: (globally coherent, has counter, rasterizer ordered).
    extra: Vec<i64>,
    element_type: Option<i64>,
    stride: Option<i64>,
}

/// Reads `!N = ...` metadata lines of a listing into a map from N to the text after `=`.
fn metadata_nodes(listing: &str) -> HashMap<u32, &str> {
    let mut nodes = HashMap::new();
    for l in listing.lines() {
        let Some(rest) = l.strip_prefix('!') else {
            continue;
        };
        let Some((n, body)) = rest.split_once(" = ") else {
            continue;
        };
        if let Ok(n) = n.parse::<u32>() {
            nodes.insert(n, body.trim());
        }
    }
    nodes
}

/// Splits the operands of `!{a, b, ...}` (or `distinct !{...}`) at top-level commas.
fn operands(node: &str) -> Vec<&str> {
    let body = node.trim_start_matches("distinct ").trim();
    let Some(inner) = body.strip_prefix("!{").and_then(|b| b.strip_suffix('}')) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut depth, mut start, mut in_str) = (0i32, 0usize, false);
    for (i, c) in inner.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '(' | '{' | '[' | '<' if !in_str => depth += 1,
            ')' | '}' | ']' | '>' if !in_str => depth -= 1,
            ',' if !in_str && depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].trim().is_empty() {
        out.push(inner[start..].trim());
    }
    out
}

fn node_ref(op: &str) -> Option<u32> {
    op.strip_prefix('!')?.parse().ok()
}

fn int(op: &str) -> i64 {
    op.rsplit(' ')
        .next()
        .and_then(|v| match v {
            "true" => Some(1),
            "false" => Some(0),
            v => v.parse().ok(),
        })
        .unwrap_or_else(|| panic!("not an integer operand: {op}"))
}

fn string(op: &str) -> String {
    op.strip_prefix("!\"")
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a string operand: {op}"))
        .to_string()
}

fn listing_resources(listing: &str) -> Vec<Record> {
    let nodes = metadata_nodes(listing);
    let Some(tuple) = listing
        .lines()
        .find_map(|l| l.strip_prefix("!dx.resources = !{!"))
        .and_then(|r| r.trim_end_matches('}').parse::<u32>().ok())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (class, list) in operands(nodes[&tuple]).into_iter().enumerate() {
        let Some(list) = node_ref(list) else { continue };
        for rec in operands(nodes[&list]) {
            let f = operands(nodes[&node_ref(rec).unwrap()]);
            let (extra, tags_at) = match class {
                0 => (vec![int(f[7])], 8),
                1 => (vec![int(f[7]), int(f[8]), int(f[9])], 10),
                _ => (Vec::new(), 7),
            };
            let (mut element_type, mut stride) = (None, None);
            if let Some(tags) = f.get(tags_at).and_then(|t| node_ref(t)) {
                let t = operands(nodes[&tags]);
                for pair in t.chunks(2) {
                    match int(pair[0]) {
                        0 => element_type = Some(int(pair[1])),
                        1 => stride = Some(int(pair[1])),
                        _ => {}
                    }
                }
            }
            out.push(Record {
                class,
                id: int(f[0]),
                name: string(f[2]),
                space: int(f[3]),
                lower_bound: int(f[4]),
                range_size: int(f[5]),
                field6: int(f[6]),
                extra,
                element_type,
                stride,
            });
        }
    }
    out
}

fn json_int(v: &serde_json::Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// The numeric value of an enum that `dxil info --json` prints by name (or number).
fn enum_value(v: &serde_json::Value, names: &[&str]) -> i64 {
    if let Some(n) = v.as_i64() {
        return n;
    }
    let s = v.as_str().unwrap_or_else(|| panic!("not an enum: {v}"));
    names
        .iter()
        .position(|n| n == &s)
        .unwrap_or_else(|| panic!("unknown enum name {s}")) as i64
}

const SHAPES: [&str; 19] = [
    "Invalid",
    "Texture1D",
    "Texture2D",
    "Texture2DMS",
    "Texture3D",
    "TextureCube",
    "Texture1DArray",
    "Texture2DArray",
    "Texture2DMSArray",
    "TextureCubeArray",
    "TypedBuffer",
    "RawBuffer",
    "StructuredBuffer",
    "CBuffer",
    "Sampler",
    "TBuffer",
    "RTAccelerationStructure",
    "FeedbackTexture2D",
    "FeedbackTexture2DArray",
];
const COMPONENTS: [&str; 19] = [
    "Invalid",
    "I1",
    "I16",
    "U16",
    "I32",
    "U32",
    "I64",
    "U64",
    "F16",
    "F32",
    "F64",
    "SNormF16",
    "UNormF16",
    "SNormF32",
    "UNormF32",
    "SNormF64",
    "UNormF64",
    "PackedS8x32",
    "PackedU8x32",
];
const SAMPLERS: [&str; 4] = ["Default", "Comparison", "Mono", "Invalid"];

fn info_resources(info: &serde_json::Value) -> Vec<Record> {
    let r = &info["module"]["resources"];
    let mut out = Vec::new();
    for (class, key) in ["srvs", "uavs", "cbuffers", "samplers"].iter().enumerate() {
        for res in r[key].as_array().unwrap() {
            let fields = &res["fields"];
            let (field6, extra) = match class {
                0 => (
                    enum_value(&res["kind"], &SHAPES),
                    vec![json_int(&fields["Srv"]["sample_count"])],
                ),
                1 => {
                    let u = &fields["Uav"];
                    let b = |k: &str| i64::from(u[k].as_bool().unwrap());
                    (
                        enum_value(&res["kind"], &SHAPES),
                        vec![
                            b("globally_coherent"),
                            b("has_counter"),
                            b("rasterizer_ordered"),
                        ],
                    )
                }
                2 => (json_int(&fields["CBuffer"]["size_in_bytes"]), Vec::new()),
                _ => (
                    enum_value(&fields["Sampler"]["sampler_kind"], &SAMPLERS),
                    Vec::new(),
                ),
            };
            let tags = &res["tags"];
            // The listing spells the range size as a signed i32 (-1 = unbounded).
            let range_size = json_int(&res["range_size"]) as u32 as i32 as i64;
            out.push(Record {
                class,
                id: json_int(&res["id"]),
                name: res["name"].as_str().unwrap().to_string(),
                space: json_int(&res["space"]) as u32 as i32 as i64,
                lower_bound: json_int(&res["lower_bound"]) as u32 as i32 as i64,
                range_size,
                field6,
                extra,
                element_type: (!tags["element_type"].is_null())
                    .then(|| enum_value(&tags["element_type"], &COMPONENTS)),
                stride: tags["structure_stride"].as_i64(),
            });
        }
    }
    out
}

#[test]
fn info_json_resources_match_listings() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers_with_listing(&root);
    assert!(!files.is_empty(), "no containers under {}", root.display());
    let results: Vec<_> = files
        .par_iter()
        .map(|p| -> Result<usize, String> {
            let text = dxil(&["info", "--json", p.to_str().unwrap()])?;
            let info: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            if let Some(e) = info["module_error"].as_str() {
                return Err(format!("module not read: {e}"));
            }
            let listing =
                std::fs::read_to_string(p.with_extension("ll")).map_err(|e| e.to_string())?;
            let theirs = listing_resources(&listing);
            let ours = info_resources(&info);
            if ours != theirs {
                return Err(format!(
                    "resources differ:\n  info:    {ours:?}\n  listing: {theirs:?}"
                ));
            }
            Ok(ours.len())
        })
        .collect();
    let mut failed = 0;
    let mut resources = 0;
    for (p, r) in files.iter().zip(&results) {
        match r {
            Ok(n) => resources += n,
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e}", p.display());
            }
        }
    }
    println!(
        "info --json: {}/{} containers, {resources} resources equal to dx.resources",
        files.len() - failed,
        files.len()
    );
    assert_eq!(
        failed, 0,
        "info --json failed or disagreed with the listing"
    );
}
