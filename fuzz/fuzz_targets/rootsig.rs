#![no_main]
// The body lives in `dxil_rootsig::fuzzing` so that `cargo test -p dxil-rootsig` runs it as a
// smoke test; this target only feeds it.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Every input is tried both as an RTS0 payload and as an HLSL root signature string.
    dxil_rootsig::fuzzing::run(data);
});
