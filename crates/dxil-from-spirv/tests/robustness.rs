//! Hostile input: truncated, bit-flipped and spliced SPIR-V must give errors (never panics,
//! never invalid containers). Runs the fuzz body on every prefix of the test shaders and on
//! deterministic mutations of them and of a sample of the corpus.

use dxil_from_spirv::fuzz::fuzz_translate;

const SHADERS: &[&[u8]] = &[
    include_bytes!("data/spec_loop.spv"),
    include_bytes!("data/spec_big.spv"),
    include_bytes!("data/spec_hull.spv"),
    include_bytes!("data/tess_quad.spv"),
];

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn every_truncation_is_an_error_or_a_valid_container() {
    for s in SHADERS {
        for n in (0..=s.len()).step_by(4) {
            fuzz_translate(&s[..n]);
        }
    }
}

fn mutate(rng: &mut XorShift, bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for _ in 0..1 + rng.next() % 4 {
        let words = b.len() / 4;
        if words <= 5 {
            break;
        }
        let w = 5 + (rng.next() as usize) % (words - 5);
        match rng.next() % 5 {
            // Flip a bit.
            0 => b[w * 4 + (rng.next() % 4) as usize] ^= 1 << (rng.next() % 8),
            // A small number (ids, counts, literals).
            1 => b[w * 4..w * 4 + 4].copy_from_slice(&((rng.next() % 64) as u32).to_le_bytes()),
            // A huge number.
            2 => b[w * 4..w * 4 + 4]
                .copy_from_slice(&(u32::MAX - (rng.next() % 4) as u32).to_le_bytes()),
            // Copy another word here (a plausible id or opcode word).
            3 => {
                let from = 5 + (rng.next() as usize) % (words - 5);
                let v: [u8; 4] = b[from * 4..from * 4 + 4].try_into().unwrap_or([0; 4]);
                b[w * 4..w * 4 + 4].copy_from_slice(&v);
            }
            // Cut the module short.
            _ => b.truncate(w * 4),
        }
    }
    b
}

#[test]
fn mutated_test_shaders_never_panic() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    // ROBUSTNESS_ITERATIONS runs a longer campaign by hand.
    let n = std::env::var("ROBUSTNESS_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    for _ in 0..n {
        for s in SHADERS {
            fuzz_translate(&mutate(&mut rng, s));
        }
    }
}

#[test]
fn mutated_corpus_modules_never_panic() {
    let Some(corpus) = dxil_corpus::corpus_dir() else {
        return;
    };
    let Some(shared) = corpus.parent() else {
        return;
    };
    let mut files = dxil_corpus::files_with_extension(&corpus, "spv");
    files.extend(dxil_corpus::files_with_extension(
        &shared.join("corpus-spirv"),
        "spv",
    ));
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    // Every 16th module (every module with ROBUSTNESS_ALL), 20 mutations each.
    let step = if std::env::var_os("ROBUSTNESS_ALL").is_some() {
        1
    } else {
        16
    };
    for f in files.iter().step_by(step) {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        fuzz_translate(&bytes);
        for _ in 0..20 {
            fuzz_translate(&mutate(&mut rng, &bytes));
        }
    }
}
