//! What the focused tests (hull, mesh) share: a container's listing, and DXC's validator on a
//! container (skipped where the shared tools are missing, as `dxil_corpus::dxv` decides).

/// The listing of a container's module (metadata included).
pub fn listing(container: &[u8]) -> String {
    let c = dxil_container::Container::parse(container).unwrap();
    let p = c.program().unwrap().unwrap();
    let m = dxil_module::read_module(p.bitcode, 0).unwrap();
    dxil_text::module_to_string(&m)
}

/// Runs dxv on `container` (written as `NAME.dxil` under a folder of this test process); panics
/// with dxv's text when it rejects it.
pub fn dxv(test: &str, name: &str, container: &[u8]) {
    let Some(dxv) = dxil_corpus::dxv() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("dxil-from-spirv-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    if let Err(text) = dxil_corpus::run_dxv(&dxv, &dir.join(format!("{name}.dxil")), container) {
        panic!("{name}: {text}");
    }
}
