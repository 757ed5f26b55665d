//! DXIL → SPIR-V translation.
//!
//! The crate is being built up module by module. [`cfg`](mod@cfg) turns the arbitrary reducible control-flow graph of a DXIL
//! function into the structured form SPIR-V requires (merge declarations, properly nested constructs).
//!
//! No crates.io crate covers that step for our input: general SPIR-V builders (`rspirv`) emit whatever CFG they are
//! given, and shader translators that structurize (naga, SPIRV-Cross) do it from their own IRs, not from an abstract
//! LLVM-style CFG, so the structurizer is written here.
#![forbid(unsafe_code)]

pub mod cfg;
