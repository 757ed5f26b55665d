//! Patching a specialization constant and re-signing the container, in place:
//! `cargo bench -p dxil-from-spirv --bench spec_patch`.
//!
//! Translates `tests/data/spec_loop.spv` (a small shader) and `tests/data/spec_big.spv`
//! (about 10 KB of container) with patchable constants and times `spec::patch` of one
//! constant: the VBR rewrite, the `HASH` part's MD5 and the container digest. Target: ≤ 10 µs
//! for a 10 KB container.

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
        times.sort();
        println!(
            "{label} ({} bytes): median {:.2?}, p90 {:.2?}, min {:.2?}",
            c.len(),
            times[times.len() / 2],
            times[times.len() * 9 / 10],
            times[0]
        );
    }
}
