//! Patching a specialization constant and re-signing the container, in place:
//! `cargo bench -p dxil-from-spirv --bench spec_patch`.
//!
//! Translates `tests/data/spec_loop.spv` (a small shader), `tests/data/spec_big.spv` (a
//! 4.8 KB container), `tests/data/spec_10k.spv` (a 10 KB container whose constants are used
//! near the top of its body, as real shaders use them) and, when `../shared/corpus-spirv` is
//! there, the two SPIR-V inputs of the corpus whose containers are the largest among those with
//! a patchable constant; then times patching one constant: the VBR rewrite, the `HASH` part's
//! MD5 and the container digest. Target: ≤ 10 µs for a 10 KB container. Both `spec::patch`
//! and the prepared `spec::Patcher` are timed, and beside them the floor: hashing the bytes
//! after the first patch site with one MD5 stream and with the paired pass.

use std::time::Instant;

use dxil_from_spirv::{Options, SpecMode};

fn main() {
    let options = Options {
        spec_constants: SpecMode::Patchable,
        ..Options::default()
    };
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        (
            "spec_loop".into(),
            include_bytes!("../tests/data/spec_loop.spv").to_vec(),
        ),
        (
            "spec_big".into(),
            include_bytes!("../tests/data/spec_big.spv").to_vec(),
        ),
        (
            "spec_10k".into(),
            include_bytes!("../tests/data/spec_10k.spv").to_vec(),
        ),
    ];
    cases.extend(largest_corpus_cases(&options, 2));
    let runs = 20_000;
    for (label, spv) in cases {
        let out = dxil_from_spirv::translate_bytes(&spv, &options).expect("translates");
        let table = out.spec_constants;
        let Some((id, values)) = first_patchable(&table) else {
            println!("{label}: no patchable constant");
            continue;
        };
        let mut c = out.container.clone();
        let mut times = Vec::with_capacity(runs);
        for i in 0..runs {
            let t = Instant::now();
            dxil_from_spirv::spec::patch(&mut c, &table, &[(id, (i % values) as u64)])
                .expect("patch");
            times.push(t.elapsed());
        }
        // What a prepared patcher rehashes: the bytes from the first site on.
        let first = table
            .constants
            .iter()
            .filter(|c| c.folded.is_none())
            .flat_map(|c| c.bit_offsets.iter())
            .map(|&o| (o / 8) as usize)
            .min()
            .unwrap_or(c.len());
        report(
            &format!(
                "{label} ({} bytes, first site at byte {first}, {} after) patch",
                c.len(),
                c.len().saturating_sub(first)
            ),
            &mut times,
        );
        // The prepared patcher: layout parsed once, prefix hash states kept.
        let mut p = dxil_from_spirv::spec::Patcher::new(c, table).expect("prepares");
        times.clear();
        for i in 0..runs {
            let t = Instant::now();
            p.set(&[(id, (i % values) as u64)]).expect("set");
            times.push(t.elapsed());
        }
        report(&format!("{label} Patcher::set"), &mut times);
        floor(
            &label,
            &p.container()[first.min(p.container().len())..],
            runs,
        );
    }
}

/// What hashing the bytes after the first site costs by itself: one MD5 stream (the `md5`
/// crate, as the `HASH` part alone would need) and the two streams of a patch interleaved (our
/// paired pass, both over the same bytes), to compare `Patcher::set` with its floor.
fn floor(label: &str, tail: &[u8], runs: usize) {
    use dxil_container::hash::{Md5Prefix, RetailPrefix, md5};
    let mut times = Vec::with_capacity(runs);
    let mut sink = 0u8;
    for _ in 0..runs {
        let t = Instant::now();
        sink ^= md5(std::hint::black_box(tail))[0];
        times.push(t.elapsed());
    }
    let one = per_byte(&mut times, tail.len());
    times.clear();
    let (r, m) = (RetailPrefix::new(tail, 0), Md5Prefix::new(tail, 0));
    for _ in 0..runs {
        let t = Instant::now();
        let (q, d) = r.advance_with_md5(std::hint::black_box(tail), tail.len(), &m, tail);
        sink ^= d[0] ^ q.finish(tail)[0];
        times.push(t.elapsed());
    }
    let two = per_byte(&mut times, tail.len());
    println!(
        "{label} floor over the {} bytes after the first site: one MD5 stream {one}; two interleaved {two} ({sink:02x})",
        tail.len()
    );
}

/// Median time and ns per byte.
fn per_byte(times: &mut [std::time::Duration], bytes: usize) -> String {
    times.sort();
    let m = times[times.len() / 2];
    format!(
        "median {m:.2?} = {:.2} ns/byte",
        m.as_nanos() as f64 / bytes.max(1) as f64
    )
}

/// The first patchable constant and how many values to cycle through (two for a bool).
fn first_patchable(table: &dxil_from_spirv::spec::SpecTable) -> Option<(u32, usize)> {
    table
        .constants
        .iter()
        .find(|c| c.folded.is_none() && !c.bit_offsets.is_empty())
        .map(|c| {
            let values = if c.ty == dxil_from_spirv::spec::SpecType::Bool {
                2
            } else {
                1000
            };
            (c.spec_id, values)
        })
}

/// The `count` corpus inputs whose patchable containers are the largest, by container size.
fn largest_corpus_cases(options: &Options, count: usize) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(dxil_corpus::WORKSPACE_ROOT).join("../shared/corpus-spirv");
    if !dir.is_dir() {
        println!(
            "corpus-spirv not found at {}: test data only",
            dir.display()
        );
        return Vec::new();
    }
    let mut sized: Vec<(usize, String, Vec<u8>)> = Vec::new();
    for path in dxil_corpus::files_with_extension(&dir, "spv") {
        let Ok(spv) = std::fs::read(&path) else {
            continue;
        };
        let Ok(out) = dxil_from_spirv::translate_bytes(&spv, options) else {
            continue;
        };
        if first_patchable(&out.spec_constants).is_some() {
            let name = dxil_corpus::relative_name(&dir, &path);
            sized.push((out.container.len(), name, spv));
        }
    }
    sized.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    sized
        .into_iter()
        .take(count)
        .map(|(_, name, spv)| (name, spv))
        .collect()
}

fn report(label: &str, times: &mut [std::time::Duration]) {
    times.sort();
    println!(
        "{label}: median {:.2?}, p90 {:.2?}, min {:.2?}",
        times[times.len() / 2],
        times[times.len() * 9 / 10],
        times[0]
    );
}
