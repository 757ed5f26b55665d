//! Writes every corpus module back to bitcode and prints per-module read and write times
//! (median, p90, worst), each the fastest of `REPEAT` runs, and the total of one plain pass.
//!
//! `cargo bench -p dxil-module --bench write_corpus` (set `DXIL_CORPUS` if the corpus is not
//! at `../shared/corpus`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use dxil_module::{WriteOptions, read_module, write_module};

const REPEAT: usize = 5;

fn best(f: &mut dyn FnMut()) -> Duration {
    (0..REPEAT)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let dir = dxil_corpus::default_corpus_dir();
    let files = dxil_corpus::containers(&dir);
    let mut programs: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(c) = dxil_container::Container::parse(&bytes) else {
            continue;
        };
        if let Some(Ok(p)) = c.program() {
            programs.push((f.clone(), p.bitcode.to_vec()));
        }
    }
    if programs.is_empty() {
        eprintln!("no corpus at {}; set DXIL_CORPUS", dir.display());
        return;
    }
    let modules: Vec<_> = programs
        .iter()
        .map(|(_, b)| read_module(b, 0).unwrap())
        .collect();
    let opts = WriteOptions::default();

    let t = Instant::now();
    let mut same = 0;
    for ((_, b), m) in programs.iter().zip(&modules) {
        if write_module(m, &opts).is_ok_and(|o| &o == b) {
            same += 1;
        }
    }
    let total = t.elapsed();

    let mut reads: Vec<Duration> = programs
        .iter()
        .map(|(_, b)| {
            best(&mut || {
                std::hint::black_box(read_module(b, 0).is_ok());
            })
        })
        .collect();
    let mut writes: Vec<(Duration, usize)> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let d = best(&mut || {
                std::hint::black_box(write_module(m, &opts).is_ok());
            });
            (d, i)
        })
        .collect();
    reads.sort();
    writes.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let q = |v: &[Duration], x: f64| v[((v.len() - 1) as f64 * x) as usize];
    let wd: Vec<Duration> = writes.iter().map(|w| w.0).collect();
    let (worst, wi) = writes[writes.len() - 1];
    println!(
        "modules:          {} ({same} byte-identical)",
        programs.len()
    );
    println!("write, one pass:  {:.1} ms", total.as_secs_f64() * 1e3);
    println!(
        "read  per module: median {:.1} µs, p90 {:.1} µs, worst {:.1} µs",
        us(q(&reads, 0.5)),
        us(q(&reads, 0.9)),
        us(reads[reads.len() - 1])
    );
    println!(
        "write per module: median {:.1} µs, p90 {:.1} µs, worst {:.1} µs ({})",
        us(q(&wd, 0.5)),
        us(q(&wd, 0.9)),
        us(worst),
        programs[wi]
            .0
            .strip_prefix(&dir)
            .unwrap_or(&programs[wi].0)
            .display()
    );
}
