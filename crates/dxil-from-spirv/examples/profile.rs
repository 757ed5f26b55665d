//! Translates the given SPIR-V files `N` times (env `N`, default 200), for profilers:
//! `cargo run --release -p dxil-from-spirv --example profile -- FILE.spv...`.

fn main() {
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let inputs: Vec<Vec<u32>> = std::env::args()
        .skip(1)
        .filter_map(|p| std::fs::read(p).ok())
        .filter_map(|b| dxil_from_spirv::words_from_bytes(&b).ok())
        .collect();
    let options = dxil_from_spirv::Options::default();
    let t = std::time::Instant::now();
    let mut ok = 0;
    for _ in 0..n {
        for w in &inputs {
            ok +=
                usize::from(dxil_from_spirv::translate(std::hint::black_box(w), &options).is_ok());
        }
    }
    let per = t.elapsed() / (n * inputs.len().max(1)) as u32;
    eprintln!("{ok} translations, {per:.1?} each");
}
