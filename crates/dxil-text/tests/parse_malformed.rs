//! Malformed text: corpus listings truncated at many points and mutated (bytes replaced, tokens
//! dropped, duplicated or swapped) must never panic, and every error must name a line and a
//! column inside the text that agree with its byte offset; what still parses must print, parse
//! back to the same text and write without panicking.

/// Line and column (1-based, columns in characters) of a byte offset.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let col = before[start..]
        .iter()
        .filter(|&&c| c & 0xC0 != 0x80)
        .count()
        + 1;
    (line as u32, col as u32)
}

/// Parses; on error checks the position. Returns whether it parsed.
fn check(text: &str, what: &str) -> bool {
    match dxil_text::parse_module(text) {
        Ok(m) => {
            if let Err(e) = dxil_module::check::check_ids(&m) {
                panic!("{what}: parsed into an inconsistent module: {e}");
            }
            // What parses must also print, parse again to the same text, and write.
            dxil_text::parse::fuzz::fuzz_text(text.as_bytes());
            true
        }
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1, "{what}: {e}");
            assert!(
                e.offset as usize <= text.len(),
                "{what}: offset past the end: {e}"
            );
            assert_eq!(
                (e.line, e.column),
                position(text, e.offset as usize),
                "{what}: line/column disagree with the offset: {e}"
            );
            assert!(!e.message.is_empty(), "{what}: empty message");
            false
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Byte offsets of token-ish pieces (runs of non-blank characters).
fn pieces(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let s = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i > s {
            v.push((s, i));
        }
    }
    v
}

#[test]
fn truncated_and_mutated_listings_fail_cleanly() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::listings(&dir);
    assert!(!files.is_empty());
    // `PARSE_MUTATION_ROUNDS` raises the effort for a longer local run.
    let rounds: usize = std::env::var("PARSE_MUTATION_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(40);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut cases, mut errors) = (0usize, 0usize);
    // Every 8th listing keeps the test quick; the set still covers every suite and shader kind.
    for f in files.iter().step_by(8) {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.display().to_string();
        assert!(check(&text, &name), "{name} must parse");
        // Truncation at character boundaries, spread over the whole text.
        for k in 1..=rounds / 2 {
            let mut cut = text.len() * k / (rounds / 2 + 1) + rng.below(16);
            while cut < text.len() && !text.is_char_boundary(cut) {
                cut += 1;
            }
            let t = &text[..cut.min(text.len())];
            cases += 1;
            errors += usize::from(!check(t, &format!("{name} cut at {cut}")));
        }
        let toks = pieces(&text);
        let mut bytes = text.clone().into_bytes();
        for _ in 0..rounds {
            bytes.clear();
            bytes.extend_from_slice(text.as_bytes());
            let (s, e) = toks[rng.below(toks.len())];
            let (s2, e2) = toks[rng.below(toks.len())];
            match rng.below(6) {
                // Replace a byte by an interesting one.
                0 => {
                    const ODD: &[u8] = b"%@!#\"{}[]()<>,=*:;x0-9\\\n \xff";
                    let at = s + rng.below(e - s);
                    bytes[at] = ODD[rng.below(ODD.len())];
                }
                // Drop a piece.
                1 => {
                    bytes.drain(s..e);
                }
                // Duplicate a piece.
                2 => {
                    let dup = bytes[s..e].to_vec();
                    bytes.splice(e..e, dup);
                }
                // Put a piece somewhere else.
                3 => {
                    let other = bytes[s2..e2].to_vec();
                    bytes.splice(s..e, other);
                }
                // A number made huge.
                4 => {
                    bytes.splice(s..e, b"4294967296".iter().copied());
                }
                // A random byte anywhere.
                _ => {
                    let at = rng.below(bytes.len());
                    bytes[at] = rng.next() as u8;
                }
            }
            let t = String::from_utf8_lossy(&bytes);
            cases += 1;
            errors += usize::from(!check(&t, &format!("{name} mutated")));
        }
    }
    eprintln!(
        "malformed listings: {cases} cases, {errors} rejected with a position, none panicked"
    );
    assert!(errors * 2 > cases, "most mutations should be errors");
}
