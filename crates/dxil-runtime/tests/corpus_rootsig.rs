//! Every corpus container with an RTS0 part gives a version-2 case a root signature, a Vulkan
//! layout and a binding contract: shaders with `[RootSignature]` through `"embedded"`, DXC's
//! standalone root signature blobs through `{ file = ... }`. No device is needed.
//!
//! Reads `$DXIL_CORPUS`, else `../shared/corpus` beside the repository; without it the test is
//! skipped with a message, unless `CI` is set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use dxil_rootsig::{DeviceLimits, LayoutOptions, RTS0, find_part};
use dxil_runtime::case::Binding;
use dxil_runtime::{Case, DerivedLayout, root_signature_of};

#[test]
fn every_corpus_root_signature_gets_a_layout_and_contract() {
    let Some(dir) = dxil_corpus::corpus_dir() else {
        return;
    };
    let all = dxil_corpus::containers(&dir);
    let (mut embedded, mut standalone) = (0, 0);
    for path in &all {
        let bytes = std::fs::read(path).unwrap();
        let Ok(Some(_)) = find_part(&bytes, RTS0) else {
            continue;
        };
        let is_blob = path.components().any(|c| c.as_os_str() == "rootsig");
        let source = if is_blob {
            standalone += 1;
            format!("{{ file = {:?} }}", path.display().to_string())
        } else {
            embedded += 1;
            "\"embedded\"".to_string()
        };
        let text = format!(
            "shader = {:?}\ndispatch = [1, 1, 1]\nroot_signature = {source}\n",
            path.display().to_string()
        );
        let case = Case::parse(&text, dir.join("case.toml")).unwrap();
        let Binding::RootSignature(heap) = &case.binding else {
            panic!("not a version-2 case")
        };
        let rs =
            root_signature_of(&case, heap).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let local = rs.is_local();
        let derived = DerivedLayout::new(
            rs,
            DeviceLimits::default(),
            LayoutOptions {
                typed_offset_buffer: true,
                ..LayoutOptions::default()
            },
        );
        // Local root signatures describe shader records; a case cannot run them.
        if local {
            let e = derived.expect_err("a local root signature has no pipeline layout");
            assert!(e.contains("local root signature"), "{e}");
            continue;
        }
        let derived = derived.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            derived.contract.parameters.len(),
            derived.root_signature.parameters.len(),
            "{}",
            path.display()
        );
        assert_eq!(
            derived.contract.root_block.size_in_bytes,
            derived.layout.root_block.size_in_bytes
        );
        let text = derived.explain();
        assert_eq!(
            text.matches("\n  [").count(),
            derived.root_signature.parameters.len(),
            "{}:\n{text}",
            path.display()
        );
    }
    eprintln!("{embedded} shaders with embedded root signatures, {standalone} standalone blobs");
    assert!(
        embedded >= 5,
        "only {embedded} shaders embed a root signature"
    );
    assert!(
        standalone >= 30,
        "only {standalone} standalone root signatures"
    );
}
