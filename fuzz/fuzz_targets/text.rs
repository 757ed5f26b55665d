#![no_main]
// Text layer: LLVM 3.7 assembly → module model. Errors must point inside the text; a module that
// parses must be consistent and survive print → parse → print unchanged; the body lives in the
// crate (`dxil_text::parse::fuzz`) so `cargo test` runs it too.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dxil_text::parse::fuzz::fuzz_text(data);
});
