#![no_main]
// Shader layer: container → module → DxilModule → every dx.op call decoded and every handle
// operand resolved; the body lives in the crate (`dxil_shader::fuzz`) so `cargo test` runs it too.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dxil_shader::fuzz::fuzz_shader(data);
});
