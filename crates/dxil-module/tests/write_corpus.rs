//! Writes every corpus module back and compares with DXC's bitcode.
//!
//! `read_module → write_module` must give DXC's bytes; where it does not, the committed
//! expectation (tests/expected/write_corpus.txt) names the first differing bit and the block and
//! record of DXC's stream that hold it, and any change in either direction fails the test.

mod write_support;

use std::time::{Duration, Instant};

use dxil_corpus::Expectations;
use dxil_module::{WriteOptions, read_module, write_module};
use write_support::{corpus_programs, describe_position, dump};

#[test]
fn corpus_round_trip_is_byte_identical() {
    let Some(programs) = corpus_programs() else {
        return;
    };
    let opts = WriteOptions::default();
    let mut expect = Expectations::new(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/expected/write_corpus.txt"
        ),
        "read_module -> write_module against DXC's bitcode, per container: identical, or where the\n\
         first differing bit lies in DXC's stream, or the write error",
    );
    let mut write_time = Duration::ZERO;
    let mut read_time = Duration::ZERO;
    for (name, bitcode) in &programs {
        let t = Instant::now();
        let m = read_module(bitcode, 0).unwrap_or_else(|e| panic!("{name}: read: {e}"));
        read_time += t.elapsed();
        let t = Instant::now();
        let out = write_module(&m, &opts);
        write_time += t.elapsed();
        let outcome = match out {
            Ok(out) if &out == bitcode => "identical".to_string(),
            Ok(out) => format!("differs: {}", describe_position(bitcode, &out)),
            Err(e) => format!("write error: {e}"),
        };
        expect.record(name.as_str(), outcome);
    }
    eprintln!(
        "write round trip: {:?} over {} modules; read {read_time:?}, write {write_time:?}",
        expect.tally(),
        programs.len()
    );
    expect.check();
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
