//! The corpus entries with their manifest flags, for the corpus tests (the corpus is found by
//! `dxil_corpus::corpus_dir`).

use std::path::Path;

/// One container of the corpus.
pub struct Entry {
    /// Path relative to the corpus root.
    pub name: String,
    pub bytes: Vec<u8>,
    /// From the manifest: `Some(true)` validated and signed, `Some(false)` compiled with `-Vd`,
    /// `None` for containers no manifest lists (the root-signature blobs).
    pub validated: Option<bool>,
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
    dxil_corpus::containers(root)
        .into_iter()
        .map(|path| Entry {
            name: dxil_corpus::relative_name(root, &path),
            bytes: std::fs::read(&path).expect("corpus file is readable"),
            validated: validated.get(&path).copied(),
        })
        .collect()
}
