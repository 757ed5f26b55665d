//! The fuzz body of the `from_spirv` target (in the crate, so that `cargo test` runs it too).

use crate::{Options, SpecMode, spec};

/// Translates `data` as a SPIR-V module with folded and with patchable specialization
/// constants, and checks what comes out: an error names a place inside the module; a
/// container parses, is signed, its bitcode reads back, and patching every patchable constant
/// keeps it signed.
pub fn fuzz_translate(data: &[u8]) {
    let Ok(words) = crate::words_from_bytes(data) else {
        return;
    };
    for mode in [SpecMode::Fold, SpecMode::Patchable] {
        let options = Options {
            spec_constants: mode,
            ..Options::default()
        };
        let out = match crate::translate(&words, &options) {
            Ok(o) => o,
            Err(e) => {
                assert!(!e.message.is_empty());
                if let Some(l) = e.location {
                    assert!((l.word as usize) < words.len(), "{e}");
                }
                continue;
            }
        };
        let c = dxil_container::Container::parse(&out.container).expect("the container parses");
        assert_eq!(c.digest_status(), dxil_container::DigestStatus::Signed);
        let p = c.program().expect("a DXIL part").expect("a program header");
        dxil_module::read_module(p.bitcode, 0).expect("the bitcode reads back");
        let mut patched = out.container.clone();
        let values: Vec<(u32, u64)> = out
            .spec_constants
            .constants
            .iter()
            .filter(|k| k.folded.is_none())
            .map(|k| (k.spec_id, 1))
            .collect();
        spec::patch(&mut patched, &out.spec_constants, &values).expect("patching");
        let c = dxil_container::Container::parse(&patched).expect("the patched container parses");
        assert_eq!(c.digest_status(), dxil_container::DigestStatus::Signed);
    }
}
