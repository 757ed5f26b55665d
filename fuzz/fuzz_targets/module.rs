#![no_main]
// Module layer: LLVM 3.7 records → module model. Whatever reads must be internally consistent
// (`dxil_module::check::check_ids`); the body lives in the crate so `cargo test` runs it too.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dxil_module::check::fuzz_read(data);
    if !data.starts_with(b"BC") {
        let mut v = b"BC\xc0\xde".to_vec();
        v.extend_from_slice(data);
        dxil_module::check::fuzz_read(&v);
    }
});
