#![no_main]
// Assembler: listing → container. Text errors must point inside the text; an assembled container
// must parse, be signed, decode part by part, and its printed module must assemble to the same
// bytes. The body lives in the crate (`dxil_assembler::fuzz`) so `cargo test` runs it too.
// Seeds: the text target's (corpus listings).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dxil_assembler::fuzz::fuzz_assemble(data);
});
