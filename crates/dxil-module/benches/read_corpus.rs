//! Reads every corpus container (container parse + module read) and prints the total time, the
//! per-container median, p90 and worst, and throughput.
//!
//! `cargo bench -p dxil-module --bench read_corpus` (set `DXIL_CORPUS` if the corpus is not at
//! `../shared/corpus`). Each container is read `REPEAT` times and its fastest run counts, so the
//! per-container figures are stable on a busy machine; the total is one plain pass.

use std::time::{Duration, Instant};

const REPEAT: usize = 5;

fn main() {
    let dir = dxil_corpus::default_corpus_dir();
    let files = dxil_corpus::containers(&dir);
    if files.is_empty() {
        eprintln!("no corpus at {}; set DXIL_CORPUS", dir.display());
        return;
    }
    let data: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let total_bytes: usize = data.iter().map(|d| d.len()).sum();

    let read = |bytes: &[u8]| -> bool {
        let Ok(c) = dxil_container::Container::parse(bytes) else {
            return false;
        };
        match c.program() {
            Some(Ok(p)) => {
                dxil_module::read_module(p.bitcode, p.bitcode_byte_offset_in_container as u64)
                    .is_ok()
            }
            _ => true,
        }
    };

    let t = Instant::now();
    let mut failures = 0;
    for d in &data {
        if !read(d) {
            failures += 1;
        }
    }
    let total = t.elapsed();

    let mut per: Vec<(Duration, usize)> = data
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let best = (0..REPEAT)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(read(d));
                    t.elapsed()
                })
                .min()
                .unwrap_or_default();
            (best, i)
        })
        .collect();
    per.sort();
    let pick = |q: f64| per[((per.len() - 1) as f64 * q) as usize].0;
    let (worst, wi) = per[per.len() - 1];
    // The container layer alone, for comparison.
    let mut cont: Vec<Duration> = data
        .iter()
        .map(|d| {
            (0..REPEAT)
                .map(|_| {
                    let t = Instant::now();
                    if let Ok(c) = dxil_container::Container::parse(d) {
                        std::hint::black_box(c.program().map(|p| p.is_ok()));
                    }
                    t.elapsed()
                })
                .min()
                .unwrap_or_default()
        })
        .collect();
    cont.sort();
    println!(
        "containers:       {} ({} failed to read)",
        data.len(),
        failures
    );
    println!("bytes:            {:.2} MB", total_bytes as f64 / 1e6);
    println!("total (one pass): {:.1} ms", total.as_secs_f64() * 1e3);
    println!(
        "throughput:       {:.1} MB/s",
        total_bytes as f64 / 1e6 / total.as_secs_f64()
    );
    println!(
        "per container:    median {:.1} µs, p90 {:.1} µs, worst {:.1} µs ({})",
        pick(0.5).as_secs_f64() * 1e6,
        pick(0.9).as_secs_f64() * 1e6,
        worst.as_secs_f64() * 1e6,
        files[wi].strip_prefix(&dir).unwrap_or(&files[wi]).display()
    );
    println!(
        "  of which container parse: median {:.1} µs",
        cont[cont.len() / 2].as_secs_f64() * 1e6
    );
}
