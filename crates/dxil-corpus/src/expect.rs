//! Committed per-input expectations: the snapshot habit of naga's and wasm-tools' test suites,
//! for corpus tests whose every input has one outcome line.
//!
//! A file holds one `input: outcome` line per input, sorted by input, after `#` comment lines that
//! say what the file is. A test collects the outcome of each input it ran and calls
//! [`Expectations::check`]: with `BLESS=1` in the environment the file is rewritten; otherwise
//! every input whose line differs (new, gone or changed) is listed and the test fails. An outcome
//! is a short stable description: no timings, no addresses, nothing that changes between runs of
//! the same code.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Whether the run asked for expectation files to be rewritten (`BLESS` set to anything but `0`).
pub fn bless_requested() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

/// The outcomes of one corpus test, keyed by input name.
#[derive(Debug)]
pub struct Expectations {
    path: PathBuf,
    header: String,
    outcomes: BTreeMap<String, String>,
}

impl Expectations {
    /// Outcomes to be compared with the file at `path` (usually
    /// `concat!(env!("CARGO_MANIFEST_DIR"), "/tests/expected/NAME.txt")`). `header` says, in a
    /// line or two, what the outcomes mean; it is written as `#` comments when blessing.
    pub fn new(path: impl Into<PathBuf>, header: &str) -> Expectations {
        Expectations {
            path: path.into(),
            header: header.to_string(),
            outcomes: BTreeMap::new(),
        }
    }

    /// Records the outcome of `input`. Line breaks in the outcome are folded to spaces, so that
    /// each input stays one line.
    ///
    /// # Panics
    /// When `input` was recorded before: each input has one outcome.
    pub fn record(&mut self, input: impl Into<String>, outcome: impl AsRef<str>) {
        let input = input.into();
        let outcome = fold(outcome.as_ref());
        if let Some(old) = self.outcomes.insert(input.clone(), outcome) {
            panic!("{input}: recorded twice (first: {old})");
        }
    }

    /// How many inputs have each outcome, for a summary line (outcomes cut at the first `:`).
    pub fn tally(&self) -> BTreeMap<String, usize> {
        let mut t = BTreeMap::new();
        for o in self.outcomes.values() {
            let kind = o.split(':').next().unwrap_or(o).trim().to_string();
            *t.entry(kind).or_insert(0) += 1;
        }
        t
    }

    /// The number of inputs recorded.
    pub fn len(&self) -> usize {
        self.outcomes.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
    }

    /// Compares with the committed file (or rewrites it under `BLESS=1`).
    ///
    /// # Panics
    /// When any input's outcome differs from the file, when the file is missing (run with
    /// `BLESS=1` to create it), or when nothing was recorded.
    pub fn check(&self) {
        self.check_with(|expected, got| expected == got);
    }

    /// [`check`](Self::check) where `accepts(expected, got)` decides whether an outcome still
    /// meets the committed one: for outcomes that are a set by nature (a racy shader may or may
    /// not show its race on a given run). The rule belongs in the test's docs.
    pub fn check_with(&self, accepts: impl Fn(&str, &str) -> bool) {
        assert!(
            !self.outcomes.is_empty(),
            "{}: no input was recorded",
            self.path.display()
        );
        let text = self.render();
        if bless_requested() {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            }
            std::fs::write(&self.path, text)
                .unwrap_or_else(|e| panic!("{}: {e}", self.path.display()));
            eprintln!("blessed {} ({} inputs)", self.path.display(), self.len());
            return;
        }
        let committed = match std::fs::read_to_string(&self.path) {
            Ok(s) => s,
            Err(e) => panic!(
                "{}: {e} (run the test with BLESS=1 to write it)",
                self.path.display()
            ),
        };
        let expected = parse(&committed);
        let report = diff(&expected, &self.outcomes, &accepts);
        if !report.is_empty() {
            panic!(
                "{} outcome(s) differ from {} (BLESS=1 rewrites it when the change is intended):\n{report}",
                report.lines().count(),
                display(&self.path)
            );
        }
    }

    fn render(&self) -> String {
        let mut s = String::new();
        for line in self.header.lines() {
            let _ = writeln!(s, "# {line}");
        }
        for (k, v) in &self.tally() {
            let _ = writeln!(s, "# {k}: {v}");
        }
        for (input, outcome) in &self.outcomes {
            let _ = writeln!(s, "{input}: {outcome}");
        }
        s
    }
}

fn fold(s: &str) -> String {
    s.split(['\n', '\r'])
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `input: outcome` lines; the input is everything before the first `": "`.
fn parse(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            l.split_once(": ")
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

fn diff(
    expected: &BTreeMap<String, String>,
    got: &BTreeMap<String, String>,
    accepts: &dyn Fn(&str, &str) -> bool,
) -> String {
    let mut out = String::new();
    for (k, want) in expected {
        match got.get(k) {
            None => {
                let _ = writeln!(out, "  {k}: missing (expected `{want}`)");
            }
            Some(g) if !accepts(want, g) => {
                let _ = writeln!(out, "  {k}: expected `{want}`, got `{g}`");
            }
            Some(_) => {}
        }
    }
    for (k, g) in got {
        if !expected.contains_key(k) {
            let _ = writeln!(out, "  {k}: new input, got `{g}`");
        }
    }
    out
}

/// The path shown in messages: relative to the workspace root when below it.
fn display(p: &Path) -> String {
    let root = Path::new(crate::WORKSPACE_ROOT);
    match (p.canonicalize(), root.canonicalize()) {
        (Ok(p), Ok(r)) => p.strip_prefix(&r).unwrap_or(&p).display().to_string(),
        _ => p.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("dxil-expect-{name}-{}.txt", std::process::id()))
    }

    #[test]
    fn parse_and_diff_name_every_change() {
        let expected = parse("# header\na.dxil: ok\nb.dxil: error: x: y\nc.dxil: ok\n");
        assert_eq!(expected["b.dxil"], "error: x: y");
        let mut got = expected.clone();
        got.insert("b.dxil".into(), "ok".into());
        got.remove("c.dxil");
        got.insert("d.dxil".into(), "ok".into());
        let exact = |a: &str, b: &str| a == b;
        let d = diff(&expected, &got, &exact);
        assert_eq!(d.lines().count(), 3, "{d}");
        assert!(d.contains("b.dxil: expected `error: x: y`, got `ok`"));
        assert!(d.contains("c.dxil: missing"));
        assert!(d.contains("d.dxil: new input"));
        assert!(diff(&expected, &expected, &exact).is_empty());
        let lenient = |a: &str, b: &str| a == b || (a.starts_with("error") && b == "ok");
        assert_eq!(diff(&expected, &got, &lenient).lines().count(), 2);
    }

    #[test]
    fn render_round_trips_and_folds_lines() {
        let mut e = Expectations::new(scratch("render"), "what this is");
        e.record("z", "ok");
        e.record("a", "error: two\nlines");
        let text = e.render();
        assert!(text.starts_with("# what this is\n"));
        assert_eq!(parse(&text), e.outcomes);
        assert_eq!(e.outcomes["a"], "error: two | lines");
        assert_eq!(e.tally()["error"], 1);
    }

    #[test]
    fn check_fails_on_a_changed_outcome() {
        let path = scratch("check");
        std::fs::write(&path, "a: ok\nb: ok\n").unwrap();
        let mut e = Expectations::new(&path, "h");
        e.record("a", "ok");
        e.record("b", "error: now broken");
        if !bless_requested() {
            let r = std::panic::catch_unwind(|| e.check());
            assert!(r.is_err());
        }
        let mut same = Expectations::new(&path, "h");
        same.record("a", "ok");
        same.record("b", "ok");
        if !bless_requested() {
            same.check();
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    #[should_panic(expected = "recorded twice")]
    fn an_input_has_one_outcome() {
        let mut e = Expectations::new(scratch("twice"), "h");
        e.record("a", "ok");
        e.record("a", "ok");
    }
}
