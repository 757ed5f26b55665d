//! Bad input through the whole reading pipeline, as `dxil info` runs it: container, every part,
//! the DXIL part's bitcode, the DXIL metadata. 50 corpus containers are truncated at every byte
//! offset and bit-flipped at random; every case must end in a typed error that names where it
//! happened (the part and byte offset, the bit offset in the bitcode, the metadata node), or read
//! successfully — never a panic.
//!
//! The corpus is `$DXIL_CORPUS` or `../shared/corpus`; without it the test skips with a message,
//! unless `CI` is set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use dxil_container::Container;

/// 50 containers spread over the corpus (sorted by path, every n-th), each at most 12 KiB so
/// that truncating at every byte stays quick.
fn sample(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = dxil_corpus::containers(root);
    files.retain(|p| std::fs::metadata(p).unwrap().len() <= 12 * 1024);
    let step = (files.len() / 50).max(1);
    files
        .into_iter()
        .step_by(step)
        .take(50)
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// Where a failure happened, as the error reports it.
#[derive(Debug)]
enum Failure {
    Container {
        part: Option<String>,
        offset: usize,
        message: String,
    },
    Bitcode {
        bit_offset: u64,
        message: String,
    },
    Metadata {
        node: Option<u32>,
        context: &'static str,
        message: String,
    },
}

fn container_failure(e: dxil_container::Error) -> Failure {
    Failure::Container {
        part: e.part().map(|p| p.to_string()),
        offset: e.offset(),
        message: e.to_string(),
    }
}

/// Reads everything `dxil info` reads; the first failure, or `None` when all of it reads.
fn read_everything(bytes: &[u8], strict: bool) -> Option<Failure> {
    let c = if strict {
        Container::parse(bytes)
    } else {
        Container::parse_lenient(bytes)
    };
    let c = match c {
        Ok(c) => c,
        Err(e) => return Some(container_failure(e)),
    };
    let mut first = None;
    for part in c.parts() {
        if let Err(e) = c.decode(part) {
            first.get_or_insert(container_failure(e));
        }
    }
    let program = match c.program()? {
        Ok(p) => p,
        Err(e) => return Some(first.unwrap_or(container_failure(e))),
    };
    let module = match dxil_module::read_module(
        program.bitcode,
        program.bitcode_byte_offset_in_container as u64,
    ) {
        Ok(m) => m,
        Err(e) => {
            return Some(first.unwrap_or(Failure::Bitcode {
                bit_offset: e.bit_offset(),
                message: e.to_string(),
            }));
        }
    };
    if let Err(e) = dxil_shader::DxilModule::from_module(&module) {
        return Some(first.unwrap_or(Failure::Metadata {
            node: e.node().map(|n| n.0),
            context: e.context(),
            message: e.to_string(),
        }));
    }
    first
}

/// The failure names a place inside the input.
fn check_located(f: &Failure, len: usize, what: &str) {
    match f {
        Failure::Container {
            part,
            offset,
            message,
        } => {
            assert!(
                *offset <= len,
                "{what}: byte offset {offset} beyond {len}: {message}"
            );
            assert!(
                message.contains("byte offset"),
                "{what}: no offset: {message}"
            );
            if let Some(p) = part {
                assert!(message.starts_with(p.as_str()), "{what}: {message}");
            }
        }
        Failure::Bitcode {
            bit_offset,
            message,
        } => {
            assert!(
                *bit_offset <= (len as u64 + 8) * 8,
                "{what}: bit offset {bit_offset} beyond {len} bytes: {message}"
            );
            assert!(message.contains("at bit"), "{what}: no offset: {message}");
        }
        Failure::Metadata {
            node,
            context,
            message,
        } => {
            assert!(
                node.is_some() || !context.is_empty(),
                "{what}: metadata error without a node or context: {message}"
            );
        }
    }
}

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

#[test]
fn truncated_containers_are_located_errors() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let sample = sample(&root);
    assert_eq!(
        sample.len(),
        50,
        "the corpus has fewer than 50 small containers"
    );
    let t = Instant::now();
    let mut cases = 0usize;
    for (path, bytes) in &sample {
        for len in 0..bytes.len() {
            cases += 1;
            let what = format!("{} truncated to {len}", path.display());
            // The header declares the size: a strict read of a prefix must fail.
            let f = read_everything(&bytes[..len], true)
                .unwrap_or_else(|| panic!("{what}: still reads"));
            check_located(&f, len, &what);
            // A lenient read goes on past the size field into whatever parts remain.
            if let Some(f) = read_everything(&bytes[..len], false) {
                check_located(&f, len, &what);
            }
        }
    }
    println!(
        "{cases} truncations of {} containers in {:.2?}",
        sample.len(),
        t.elapsed()
    );
}

#[test]
fn bit_flipped_containers_read_or_fail_located() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let sample = sample(&root);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let (mut read, mut failed) = (0usize, 0usize);
    let t = Instant::now();
    for (path, bytes) in &sample {
        for _ in 0..400 {
            let mut v = bytes.clone();
            // Past the digest (bytes 4..20): a flipped digest only changes the digest status.
            for _ in 0..1 + xorshift(&mut seed) % 3 {
                let bit = 160 + (xorshift(&mut seed) as usize % ((v.len() - 20) * 8));
                v[bit / 8] ^= 1 << (bit % 8);
            }
            let what = format!("{} with flipped bits", path.display());
            match read_everything(&v, false) {
                None => read += 1,
                Some(f) => {
                    check_located(&f, v.len(), &what);
                    failed += 1;
                }
            }
        }
    }
    println!(
        "{} bit-flipped containers: {read} read, {failed} located errors, in {:.2?}",
        read + failed,
        t.elapsed()
    );
}
