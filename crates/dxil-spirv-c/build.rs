//! The shared library carries dxil-spirv's soname, so that a program linked against dxil-spirv's
//! `libdxil-spirv-c-shared.so.2` loads this one when it is found first (`LD_LIBRARY_PATH`).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdxil-spirv-c-shared.so.2");
    println!("cargo:rerun-if-changed=build.rs");
}
