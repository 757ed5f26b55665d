//! DXIL shader semantics on top of the LLVM module: what the `dx.op` operations are
//! and mean.
//!
//! [`ops`] holds the DXIL operation table (opcodes, classes, overloads, attributes,
//! versions, DXC's disassembly comments), generated at build time from
//! `data/dxil-ops.txt`. No crates.io crate carries this table for DXIL 1.9 (the
//! DXC bindings link the C++ compiler and expose no per-opcode data), so it is kept
//! here as a reviewed data file.

#![forbid(unsafe_code)]

pub mod ops;
