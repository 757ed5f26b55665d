//! Patching a specialization constant and re-signing the container, in place:
//! `cargo bench -p dxil-from-spirv --bench spec_patch`.
//!
//! Translates `tests/data/spec_loop.spv` (a small shader) and `tests/data/spec_big.spv`
//! (about 10 KB of container) with patchable constants and times `spec::patch` of one
//! constant: the VBR rewrite, the `HASH` part's MD5 and the container digest. Target: ≤ 10 µs
//! for a 10 KB container. Both `spec::patch` and the prepared `spec::Patcher` are timed.

use std::time::Instant;

use dxil_from_spirv::{Options, SpecMode};

fn main() {
    let options = Options {
        spec_constants: SpecMode::Patchable,
        ..Options::default()
    };
    let runs = 20_000;
    for (label, spv) in [
        (
            "spec_loop",
            &include_bytes!("../tests/data/spec_loop.spv")[..],
        ),
        (
            "spec_big",
            &include_bytes!("../tests/data/spec_big.spv")[..],
        ),
    ] {
        let out = dxil_from_spirv::translate_bytes(spv, &options).expect("translates");
        let table = out.spec_constants;
        let mut c = out.container.clone();
        let mut times = Vec::with_capacity(runs);
        for i in 0..runs {
            let t = Instant::now();
            dxil_from_spirv::spec::patch(&mut c, &table, &[(0, (i % 1000) as u64)]).expect("patch");
            times.push(t.elapsed());
        }
        report(&format!("{label} ({} bytes) patch", c.len()), &mut times);
        // The prepared patcher: layout parsed once, prefix hash states kept.
        let mut p = dxil_from_spirv::spec::Patcher::new(c, table).expect("prepares");
        times.clear();
        for i in 0..runs {
            let t = Instant::now();
            p.set(&[(0, (i % 1000) as u64)]).expect("set");
            times.push(t.elapsed());
        }
        report(&format!("{label} Patcher::set"), &mut times);
    }
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
