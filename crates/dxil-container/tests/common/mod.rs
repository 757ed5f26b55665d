//! Locating the shared corpus for the corpus tests.

use std::path::{Path, PathBuf};

/// One container of the corpus.
pub struct Entry {
    /// Path relative to the corpus root.
    pub name: String,
    pub bytes: Vec<u8>,
    /// From the manifest: `Some(true)` validated and signed, `Some(false)` compiled with `-Vd`,
    /// `None` for containers no manifest lists (the root-signature blobs).
    pub validated: Option<bool>,
}

/// The corpus root: `$DXIL_CORPUS`, else `../shared/corpus` next to the repository. `None` (with
/// a visible message) when absent; a panic when absent and `CI` is set.
pub fn corpus_root() -> Option<PathBuf> {
    let root = match std::env::var_os("DXIL_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    if root.is_dir() {
        return Some(root);
    }
    if std::env::var_os("CI").is_some() {
        panic!("corpus not found at {} (CI is set)", root.display());
    }
    eprintln!(
        "SKIPPED: corpus not found at {} (set DXIL_CORPUS)",
        root.display()
    );
    None
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "dxil") {
            out.push(path);
        }
    }
}

/// Every `.dxil` file under the corpus root, with its manifest's `validated` flag.
pub fn load(root: &Path) -> Vec<Entry> {
    let mut validated = std::collections::HashMap::new();
    let mut manifests = Vec::new();
    if let Ok(dirs) = std::fs::read_dir(root) {
        for d in dirs.flatten() {
            let m = d.path().join("manifest.jsonl");
            if m.is_file() {
                manifests.push((d.path(), m));
            }
        }
    }
    for (dir, manifest) in manifests {
        let text = std::fs::read_to_string(&manifest).expect("manifest is readable");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).expect("manifest line is JSON");
            let (Some(name), Some(ok)) = (v["name"].as_str(), v["validated"].as_bool()) else {
                continue;
            };
            validated.insert(dir.join(format!("{name}.dxil")), ok);
        }
    }
    let mut paths = Vec::new();
    walk(root, &mut paths);
    paths
        .into_iter()
        .map(|path| Entry {
            name: path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string(),
            bytes: std::fs::read(&path).expect("corpus file is readable"),
            validated: validated.get(&path).copied(),
        })
        .collect()
}
