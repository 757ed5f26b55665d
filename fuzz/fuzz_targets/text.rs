#![no_main]
// Placeholder until this layer's reader lands; replaced by the layer's owner.
libfuzzer_sys::fuzz_target!(|_data: &[u8]| {});
