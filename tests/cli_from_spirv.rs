//! `dxil from-spirv` and `dxil spec` end to end: translation to a file, `--reflect`,
//! binding maps, patching from the embedded table, and the errors a user sees.

use std::path::{Path, PathBuf};
use std::process::Command;

const SPEC_LOOP: &str = "crates/dxil-from-spirv/tests/data/spec_loop.spv";

fn dxil(args: &[&str]) -> (bool, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_dxil"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run dxil");
    (
        out.status.success(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dxil-cli-from-spirv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn translates_reflects_and_patches() {
    let dir = scratch("roundtrip");
    let out = dir.join("s.dxil");
    let (ok, stdout, err) = dxil(&[
        "from-spirv",
        SPEC_LOOP,
        "--spec-constants",
        "patchable",
        "--reflect",
        "-o",
        path(&out),
    ]);
    assert!(ok, "{err}");
    assert!(stdout.is_empty());
    // --reflect with -o prints the JSON on stderr.
    let json: serde_json::Value = serde_json::from_str(&err).expect("reflection JSON");
    assert_eq!(json["profile"], "cs_6_0");
    let b = &json["bindings"][0];
    assert_eq!(
        (b["set"].as_u64(), b["binding"].as_u64()),
        (Some(0), Some(200))
    );
    // Godot's arithmetic: register 0·10⁸ + 200·10⁵.
    assert_eq!(
        (b["class"].as_str(), b["register"].as_u64()),
        (Some("uav"), Some(20_000_000))
    );
    assert_eq!(json["registers"][0]["register"], "u20000000,space0");
    assert_eq!(json["spec_constants"].as_array().map(Vec::len), Some(5));

    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"DXBC");
    let (ok, list, err) = dxil(&["spec", path(&out), "--list"]);
    assert!(ok, "{err}");
    let list: serde_json::Value = serde_json::from_slice(&list).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(5));

    let patched = dir.join("p.dxil");
    let (ok, _, err) = dxil(&[
        "spec",
        path(&out),
        "--set",
        "0=10",
        "--set",
        "1=true",
        "--set",
        "2=0.5",
        "--set",
        "3=-50",
        "-o",
        path(&patched),
    ]);
    assert!(ok, "{err}");
    let p = std::fs::read(&patched).unwrap();
    assert_eq!(p.len(), bytes.len());
    assert_ne!(p, bytes);
    let (ok, _, err) = dxil(&["info", path(&patched)]);
    assert!(ok && !err.contains("error"), "{err}");

    // A folded constant and an unknown one are refused with their ids.
    let (ok, _, err) = dxil(&["spec", path(&out), "--set", "4=3", "-o", path(&patched)]);
    assert!(
        !ok && err.contains("specialization constant 4") && err.contains("folded"),
        "{err}"
    );
    let (ok, _, err) = dxil(&["spec", path(&out), "--set", "7=3", "-o", path(&patched)]);
    assert!(!ok && err.contains("no specialization constant 7"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn binding_map_and_errors() {
    let dir = scratch("map");
    let map = dir.join("map.json");
    std::fs::write(
        &map,
        r#"[{"set": 0, "binding": 200, "space": 3, "register": 7}]"#,
    )
    .unwrap();
    let out = dir.join("m.dxil");
    let (ok, _, err) = dxil(&[
        "from-spirv",
        SPEC_LOOP,
        "--bindings",
        path(&map),
        "--reflect",
        "-o",
        path(&out),
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(json["registers"][0]["register"], "u7,space3");
    // The shifted convention: binding 200 is u0 in space 0 (set).
    let (ok, _, err) = dxil(&[
        "from-spirv",
        SPEC_LOOP,
        "--bindings",
        "shifted",
        "--reflect",
        "-o",
        path(&out),
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(json["registers"][0]["register"], "u0,space0");
    // A container without a table, and input that is not SPIR-V.
    let (ok, _, err) = dxil(&["spec", path(&out), "--list"]);
    assert!(
        !ok && err.contains("no specialization-constant table"),
        "{err}"
    );
    let bad = dir.join("bad.spv");
    std::fs::write(&bad, b"not spirv").unwrap();
    let (ok, _, err) = dxil(&["from-spirv", path(&bad), "-o", path(&out)]);
    assert!(!ok && err.contains("malformed"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
