#![no_main]
// SPIR-V → DXIL: any input must give an error naming a place in the module, or a container
// that parses, is signed, reads back, and stays signed when its specialization constants are
// patched. The body lives in the crate (`dxil_from_spirv::fuzz`) so `cargo test` runs it too.
// Seeds: the shared SPIR-V corpora (`make_seeds.py`).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dxil_from_spirv::fuzz::fuzz_translate(data);
});
