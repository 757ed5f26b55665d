//! Writes every corpus module back and compares with DXC's bitcode.
//!
//! `read_module → write_module` must give DXC's bytes; where it does not, the report names the
//! first differing bit and the block and record of DXC's stream that hold it.

mod write_support;

use std::time::{Duration, Instant};

use dxil_module::{WriteOptions, read_module, write_module};
use write_support::{corpus_programs, describe_position, dump};

#[test]
fn corpus_round_trip_is_byte_identical() {
    let Some(programs) = corpus_programs() else {
        return;
    };
    let opts = WriteOptions::default();
    let (mut same, mut differ, mut failed) = (0usize, 0usize, 0usize);
    let mut reports = Vec::new();
    let mut write_time = Duration::ZERO;
    let mut read_time = Duration::ZERO;
    for (name, bitcode) in &programs {
        let t = Instant::now();
        let m = read_module(bitcode, 0).unwrap_or_else(|e| panic!("{name}: read: {e}"));
        read_time += t.elapsed();
        let t = Instant::now();
        let out = match write_module(&m, &opts) {
            Ok(out) => out,
            Err(e) => {
                failed += 1;
                if reports.len() < 40 {
                    reports.push(format!("{name}: write error: {e}"));
                }
                continue;
            }
        };
        write_time += t.elapsed();
        if &out == bitcode {
            same += 1;
            continue;
        }
        differ += 1;
        if reports.len() < 40 {
            reports.push(format!("{name}: {}", describe_position(bitcode, &out)));
        }
    }
    let total = programs.len();
    eprintln!(
        "write round trip: {same}/{total} byte-identical, {differ} differ, {failed} failed; \
         read {:?}, write {:?} ({:.1} µs/module)",
        read_time,
        write_time,
        write_time.as_secs_f64() * 1e6 / total.max(1) as f64
    );
    for r in &reports {
        eprintln!("  {r}");
    }
    assert_eq!(failed, 0, "every corpus module must be writable");
    assert!(
        same * 100 >= total * 90,
        "only {same} of {total} modules are byte-identical"
    );
}

#[test]
fn corpus_rewrite_reads_back_to_the_same_module() {
    let Some(programs) = corpus_programs() else {
        return;
    };
    let mut checked = 0;
    for (name, bitcode) in &programs {
        let m = read_module(bitcode, 0).unwrap();
        let out = write_module(&m, &WriteOptions::default())
            .unwrap_or_else(|e| panic!("{name}: write: {e}"));
        let m2 = read_module(&out, 0).unwrap_or_else(|e| panic!("{name}: re-read: {e}"));
        let (a, b) = (dump(&m), dump(&m2));
        if a != b {
            let line = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let show = |s: &str| s.lines().nth(line).unwrap_or("").to_string();
            panic!(
                "{name}: module differs after a write/read round trip at dump line {line}:\n  \
                 {}\n  {}",
                show(&a),
                show(&b)
            );
        }
        checked += 1;
    }
    assert_eq!(checked, programs.len());
}
