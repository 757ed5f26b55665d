//! Test support, not part of the library: where the shared DXC corpus is and which of its files
//! a test walks. Every crate's corpus tests take it as a dev-dependency so that they agree on
//! the rules:
//!
//! - the corpus is `$DXIL_CORPUS`, or `../shared/corpus` relative to the workspace root;
//! - when it is missing a test skips with a printed `SKIPPED: ...` line, but fails when the
//!   environment variable `CI` is set (a skipped check must never pass silently there);
//! - file lists are sorted by path (component by component), so samples taken every n-th file
//!   are the same from run to run and machine to machine;
//! - a corpus test states the exact outcome it expects for every input in a committed
//!   expectations file ([`Expectations`]); `BLESS=1` rewrites the file, any other run fails on
//!   the first input whose outcome changed, better or worse, and names each one.
#![forbid(unsafe_code)]

mod expect;

pub use expect::{Expectations, bless_requested};

use std::fmt::Display;
use std::path::{Path, PathBuf};

/// The workspace root, from this crate's own manifest directory (`crates/dxil-corpus`), fixed at
/// compile time so that it does not depend on which crate's test asks.
pub const WORKSPACE_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Where the corpus should be: `$DXIL_CORPUS`, else `../shared/corpus` from the workspace root.
/// Whether it exists is not checked.
pub fn default_corpus_dir() -> PathBuf {
    std::env::var_os("DXIL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(WORKSPACE_ROOT).join("../shared/corpus"))
}

/// The corpus directory, or `None` after a printed `SKIPPED: ...` line when it is missing.
///
/// # Panics
/// When it is missing and `CI` is set.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = default_corpus_dir();
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_or_fail(format_args!(
            "corpus not found at {} (set DXIL_CORPUS)",
            dir.display()
        ));
        None
    }
}

/// Reports a check that cannot run: prints `SKIPPED: {msg}` to stderr, the caller then returns.
///
/// # Panics
/// With `msg` when `CI` is set: there every check must run.
pub fn skip_or_fail(msg: impl Display) {
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
    eprintln!("SKIPPED: {msg}");
}

/// DXC's validator from the shared tools beside the corpus (`tools/dxc/bin/dxv`), or `None` after
/// [`skip_or_fail`] when it is missing.
pub fn dxv() -> Option<PathBuf> {
    let shared = default_corpus_dir()
        .parent()
        .map_or_else(|| PathBuf::from("../shared"), Path::to_path_buf);
    let p = shared.join("tools/dxc/bin/dxv");
    if p.is_file() {
        Some(p)
    } else {
        skip_or_fail(format!("dxv not found at {}", p.display()));
        None
    }
}

/// Validates `container` with `dxv` (written to `file`, removed afterwards): `Ok` when the
/// validator exits successfully and says so on its standard output, else its whole output.
///
/// # Panics
/// When the file cannot be written or the validator cannot be started.
pub fn run_dxv(dxv: &Path, file: &Path, container: &[u8]) -> Result<(), String> {
    std::fs::write(file, container).expect("write the container for dxv");
    let run = std::process::Command::new(dxv)
        .arg(file)
        .output()
        .expect("run dxv");
    let _ = std::fs::remove_file(file);
    let stdout = String::from_utf8_lossy(&run.stdout);
    if run.status.success() && stdout.contains("Validation succeeded") {
        Ok(())
    } else {
        Err(stdout.into_owned() + &String::from_utf8_lossy(&run.stderr))
    }
}

/// Every file under `dir` (recursively) whose extension is `ext`, sorted by path. Unreadable
/// directories are passed over.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // An explicit stack, not recursion: the depth of the tree does not grow the call stack.
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in rd.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == ext) {
                out.push(p);
            }
        }
    }
    // `PathBuf` orders by components, so this is the order of a depth-first walk that visits
    // each directory's entries sorted by name.
    out.sort();
    out
}

/// Every container `X.dxil` under `dir`, sorted.
pub fn containers(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "dxil")
}

/// Every container `X.dxil` under `dir` that has DXC's listing `X.ll` next to it, sorted.
pub fn containers_with_listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = containers(dir);
    out.retain(|p| p.with_extension("ll").is_file());
    out
}

/// Every DXC listing `X.ll` under `dir`, sorted.
pub fn listings(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "ll")
}

/// `p` relative to the corpus directory `dir`, for messages (the whole path if not below it).
pub fn relative_name(dir: &Path, p: &Path) -> String {
    p.strip_prefix(dir).unwrap_or(p).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small tree in the system temp directory; the test removes it at the end.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dxil-corpus-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("b/c")).unwrap();
        std::fs::create_dir_all(d.join("b.x")).unwrap();
        for f in [
            "z.dxil",
            "z.ll",
            "a.dxil",
            "b/c/k.dxil",
            "b/c/k.ll",
            "b/m.dxil",
            "b.x/q.dxil",
        ] {
            std::fs::write(d.join(f), b"").unwrap();
        }
        d
    }

    #[test]
    fn walks_sorted_depth_first_and_filters_by_listing() {
        let d = scratch("walk");
        let names = |v: Vec<PathBuf>| v.iter().map(|p| relative_name(&d, p)).collect::<Vec<_>>();
        assert_eq!(
            names(containers(&d)),
            ["a.dxil", "b/c/k.dxil", "b/m.dxil", "b.x/q.dxil", "z.dxil"]
        );
        assert_eq!(names(containers_with_listing(&d)), ["b/c/k.dxil", "z.dxil"]);
        assert_eq!(names(listings(&d)), ["b/c/k.ll", "z.ll"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn missing_directory_lists_nothing() {
        let d = std::env::temp_dir().join("dxil-corpus-does-not-exist-3b1f");
        assert!(containers(&d).is_empty());
    }

    #[test]
    fn workspace_root_holds_the_workspace_manifest() {
        let toml = std::fs::read_to_string(Path::new(WORKSPACE_ROOT).join("Cargo.toml")).unwrap();
        assert!(toml.contains("[workspace]"));
    }
}
