#![no_main]
// Container layer: header, part table and every typed part view, plus the write-back checks;
// the body lives in the crate (`dxil_container::fuzz`) so `cargo test` runs it too.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dxil_container::fuzz::fuzz_container(data);
});
