#![no_main]
// Translator: a DXIL listing (text) → module → SPIR-V. The translator may refuse a module with an
// error; it must not panic, and every module it returns must pass SPIRV-Tools' validator for the
// Vulkan version the translation reports (the library behind `spirv-val`, linked in so that every
// success is validated, not a sample: a `spirv-val` process per input would cost more than the
// translation itself).
//
// Inputs are listings, so that a finding is a readable file that `dxil as` assembles and that
// becomes a regression test as it is. The custom mutator edits the module structurally (`mutate`:
// opcodes within a class, operands, overloads, constants, metadata) and prints it again; libFuzzer's
// byte-level mutations are the fallback for text that does not read. Seeds: DXC's listings of the
// corpus (`python3 fuzz/make_seeds.py`).

#[path = "translate/mutate.rs"]
mod mutate;

use std::cell::OnceCell;

use dxil_to_spirv::{Options, Translator};
use spirv_tools::val::{Validator, compiled::CompiledValidator};

thread_local! {
    static TRANSLATOR: std::cell::RefCell<Translator> = std::cell::RefCell::new(Translator::new());
    // One validator per target environment (Vulkan 1.1, 1.2, 1.3), made on first use.
    static VALIDATORS: [OnceCell<CompiledValidator>; 3] = const { [OnceCell::new(), OnceCell::new(), OnceCell::new()] };
}

/// Validates `words` for Vulkan `vulkan`.
fn validate(words: &[u32], vulkan: (u8, u8)) -> Result<(), spirv_tools::error::Error> {
    let (i, env) = match vulkan {
        (1, 0 | 1) => (0, spirv_tools::TargetEnv::Vulkan_1_1),
        (1, 2) => (1, spirv_tools::TargetEnv::Vulkan_1_2),
        _ => (2, spirv_tools::TargetEnv::Vulkan_1_3),
    };
    VALIDATORS.with(|v| v[i].get_or_init(|| CompiledValidator::with_env(env)).validate(words, None))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = dxil_text::parse_module(text) else {
        return;
    };
    let t = TRANSLATOR.with(|t| t.borrow_mut().translate(&module, &Options::default()));
    let t = match t {
        Ok(t) => t,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    if let Err(e) = validate(&t.words, t.vulkan_version) {
        panic!(
            "the translation fails validation (Vulkan {}.{}): {e}",
            t.vulkan_version.0, t.vulkan_version.1
        );
    }
});

libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    if let Some(text) = std::str::from_utf8(&data[..size])
        .ok()
        .and_then(|t| mutate::mutate_listing(t, seed))
        && text.len() <= max_size
    {
        data[..text.len()].copy_from_slice(text.as_bytes());
        return text.len();
    }
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
});
