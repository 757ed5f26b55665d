//! LLVM assembly text for DXIL modules.
//!
//! [`print_module`] writes a [`dxil_module::Module`] as the LLVM 3.7 assembly listing that DXC's
//! disassembler (`dxc -dumpbin`) prints: the same type names, value numbering, constant spelling,
//! attribute groups and metadata numbering, and DXC's `; OpName(args)` notes after `dx.op` calls.
//!
//! The printer is hand-written because no crate prints LLVM IR of this vintage: `llvm-ir` and
//! `inkwell` wrap a current LLVM through its C API, whose printer differs from 3.7's (opaque
//! pointers, attribute and metadata syntax), and DXIL needs DXC's own annotations on top.
#![forbid(unsafe_code)]

mod print;

pub use print::{PrintOptions, module_to_string, print_module, print_module_with};
