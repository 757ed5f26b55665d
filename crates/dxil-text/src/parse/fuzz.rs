//! The body of the `text` fuzz target, here so that `cargo test` runs it too.

use std::borrow::Cow;

use super::parse_module;

/// Parses arbitrary bytes (as UTF-8, lossily). Errors must carry a position inside the text;
/// a module that parses must be consistent, must print as text that parses again, and that
/// text must be a fixed point of print ∘ parse. Writing it as bitcode must not panic.
pub fn fuzz_text(data: &[u8]) {
    let text = match std::str::from_utf8(data) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(data),
    };
    let m = match parse_module(&text) {
        Ok(m) => m,
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1, "{e}");
            assert!(e.offset as usize <= text.len(), "{e}");
            return;
        }
    };
    if let Err(e) = dxil_module::check::check_ids(&m) {
        panic!("parsed module is inconsistent: {e}");
    }
    let printed = crate::module_to_string(&m);
    let again = match parse_module(&printed) {
        Ok(m) => m,
        Err(e) => panic!("printed module does not parse: {e}\n{printed}"),
    };
    assert_eq!(
        crate::module_to_string(&again),
        printed,
        "print(parse(print(m))) != print(m)"
    );
    let _ = dxil_module::write_module(&m, &dxil_module::WriteOptions::default());
}
