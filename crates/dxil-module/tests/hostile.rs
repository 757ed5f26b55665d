//! Bad input: truncated and bit-flipped corpus bitcode must end in a typed error with a
//! position, never a panic, a hang or an outsized allocation.

use std::path::PathBuf;
use std::time::Instant;

fn corpus_bitcodes(limit: usize, max_len: usize) -> Vec<(PathBuf, Vec<u8>, u64)> {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return Vec::new();
    };
    let files = dxil_corpus::containers(&dir);
    let mut out = Vec::new();
    // Spread the sample over the whole corpus.
    let step = (files.len() / (limit * 3)).max(1);
    for f in files.iter().step_by(step) {
        let bytes = std::fs::read(f).unwrap();
        let Ok(c) = dxil_container::Container::parse(&bytes) else {
            continue;
        };
        let Some(Ok(p)) = c.program() else { continue };
        if p.bitcode.len() > max_len {
            continue;
        }
        out.push((
            f.clone(),
            p.bitcode.to_vec(),
            p.bitcode_byte_offset_in_container as u64,
        ));
        if out.len() == limit {
            break;
        }
    }
    out
}

fn xorshift(x: &mut u32) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x
}

#[test]
fn truncated_bitcode_is_a_typed_error_at_every_length() {
    let (limit, max_len) = if cfg!(debug_assertions) {
        (8, 2000)
    } else {
        (50, 4000)
    };
    let sample = corpus_bitcodes(limit, max_len);
    let t = Instant::now();
    let mut cases = 0;
    for (path, bc, base) in &sample {
        for len in 0..bc.len() {
            cases += 1;
            match dxil_module::read_module(&bc[..len], *base) {
                Ok(_) => panic!("{}: truncated to {len} bytes still reads", path.display()),
                Err(e) => {
                    let at = e.bit_offset();
                    assert!(
                        at <= (*base + len as u64) * 8 + 64,
                        "{}: error position {at} beyond the data: {e}",
                        path.display()
                    );
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
    eprintln!(
        "{cases} truncations of {} modules in {:?}",
        sample.len(),
        t.elapsed()
    );
}

#[test]
fn bit_flips_never_panic() {
    let (limit, flips) = if cfg!(debug_assertions) {
        (8, 100)
    } else {
        (50, 400)
    };
    let sample = corpus_bitcodes(limit, 6000);
    let mut seed = 0x1234_5678u32;
    let (mut ok, mut err) = (0, 0);
    let t = Instant::now();
    for (_, bc, base) in &sample {
        for _ in 0..flips {
            let mut v = bc.clone();
            let n = 1 + xorshift(&mut seed) % 3;
            for _ in 0..n {
                let bit = xorshift(&mut seed) as usize % (v.len() * 8);
                v[bit / 8] ^= 1 << (bit % 8);
            }
            match dxil_module::read_module(&v, *base) {
                Ok(m) => {
                    dxil_module::check::check_ids(&m).unwrap();
                    ok += 1;
                }
                Err(_) => err += 1,
            }
        }
    }
    eprintln!(
        "{ok} flipped modules still read (consistently), {err} errors, in {:?}",
        t.elapsed()
    );
}

#[test]
fn fuzz_body_smoke() {
    let mut seed = 7u32;
    for len in 0..300usize {
        let mut v = b"BC\xc0\xde".to_vec();
        for _ in 0..len {
            v.push(xorshift(&mut seed) as u8);
        }
        dxil_module::check::fuzz_read(&v);
    }
}
