//! Shared helpers of the translator's integration tests: corpus discovery, manifests, `spirv-val`.
#![allow(dead_code)]

pub mod differential_case;
pub mod inspect;

use std::path::{Path, PathBuf};
use std::process::Command;

/// `$DXIL_CORPUS` or `../shared/corpus` beside the repository, from the workspace's test-support
/// crate (a printed skip, or a failure under `CI`, when it is missing).
pub fn corpus_dir() -> Option<PathBuf> {
    dxil_corpus::corpus_dir()
}

/// Skips (with a visible message) or, under `CI`, fails; the rule of the test-support crate,
/// taking `&str` so that the tests' `&format!(..)` calls stay as they are.
pub fn skip_or_fail(what: &str) {
    dxil_corpus::skip_or_fail(what);
}

pub fn ci() -> bool {
    std::env::var_os("CI").is_some()
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn conformance_dir() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/conformance/v1");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_or_fail(&format!("no conformance cases at {}", dir.display()));
        None
    }
}

/// One compute shader of the corpus.
#[derive(Clone, Debug)]
pub struct Shader {
    /// Path without extension (`.dxil`, `.spv`, `.ll` beside it).
    pub base: PathBuf,
    pub name: String,
    pub profile: String,
    pub entry: Option<String>,
    pub has_spirv: bool,
}

/// Every `cs_6_*` entry of the corpus manifests that has a container.
pub fn compute_shaders(corpus: &Path) -> Vec<Shader> {
    shaders_of(corpus, &["cs_6_"])
}

/// Every entry of the corpus manifests whose profile starts with one of `prefixes` and that has a container.
pub fn shaders_of(corpus: &Path, prefixes: &[&str]) -> Vec<Shader> {
    let mut out = Vec::new();
    for suite in ["dxil-spirv", "vkd3d-proton", "vkd3d-proton-prebuilt"] {
        let manifest = corpus.join(suite).join("manifest.jsonl");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let profile = v["profile"].as_str().unwrap_or("").to_string();
            if !prefixes.iter().any(|p| profile.starts_with(p)) || v.get("error").is_some() {
                continue;
            }
            let name = v["name"].as_str().unwrap_or("").to_string();
            let base = corpus.join(suite).join(&name);
            if !base.with_extension("dxil").is_file()
                && !PathBuf::from(format!("{}.dxil", base.display())).is_file()
            {
                continue;
            }
            out.push(Shader {
                base,
                name: format!("{suite}/{name}"),
                profile,
                entry: v["entry"].as_str().map(str::to_string),
                has_spirv: v["spirv"].as_bool().unwrap_or(false),
            });
        }
    }
    out
}

impl Shader {
    pub fn file(&self, ext: &str) -> PathBuf {
        PathBuf::from(format!("{}.{ext}", self.base.display()))
    }
}

/// Runs `spirv-val` for a Vulkan version; `Err` holds its message.
pub fn spirv_val(words: &[u32], vulkan: (u8, u8), tag: &str) -> Result<(), String> {
    let path = std::env::temp_dir().join(format!("dxil-to-spirv-{}-{tag}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let out = Command::new("spirv-val")
        .arg("--target-env")
        .arg(format!("vulkan{}.{}", vulkan.0, vulkan.1))
        .arg(&path)
        .output()
        .map_err(|e| format!("cannot run spirv-val: {e}"))?;
    let _ = std::fs::remove_file(&path);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

pub fn have_spirv_val() -> bool {
    Command::new("spirv-val").arg("--version").output().is_ok()
}

/// Validates a translation with `spirv-val` for its Vulkan version. Without `spirv-val` it skips (with a message), or
/// fails under `CI`. Tests run in parallel: each call validates its own file.
pub fn validate(t: &dxil_to_spirv::Translation) -> Result<(), String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if !have_spirv_val() {
        skip_or_fail("spirv-val is not installed");
        return Ok(());
    }
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    spirv_val(&t.words, t.vulkan_version, &format!("valid-{n}"))
}

/// Translates `m` and validates the result; panics naming `what` when either fails.
pub fn translate_valid(
    m: &dxil_module::Module,
    options: &dxil_to_spirv::Options,
    what: &str,
) -> dxil_to_spirv::Translation {
    let t = dxil_to_spirv::translate(m, options).unwrap_or_else(|e| panic!("{what}: {e}"));
    validate(&t).unwrap_or_else(|e| panic!("{what}: spirv-val: {e}"));
    t
}
