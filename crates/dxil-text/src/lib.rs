//! LLVM assembly text for DXIL modules.
//!
//! [`print_module`] writes a [`dxil_module::Module`] as the LLVM 3.7 assembly listing that DXC's
//! disassembler (`dxc -dumpbin`) prints: the same type names and struct order, value and metadata
//! numbering, constant spelling (LLVM's hex form for floats that `%e` cannot round-trip),
//! attribute groups, and DXC's `; OpName(args)` notes after `dx.op` calls. [`PrintOptions`] turns
//! LLVM's comment lines and DXC's notes off; [`write_module`] prints to an `io::Write`.
//!
//! ```
//! use dxil_module::Module;
//!
//! let mut module = Module::default();
//! module.triple = "dxil-ms-dx".into();
//! let s = module.metadata.push_string(b"dxc");
//! let node = module.metadata.push_node(false, &[Some(s)]);
//! module.metadata.push_named("llvm.ident", &[node]);
//! assert_eq!(
//!     dxil_text::module_to_string(&module),
//!     "target triple = \"dxil-ms-dx\"\n\n!llvm.ident = !{!0}\n\n!0 = !{!\"dxc\"}\n"
//! );
//! ```
//!
//! Debug-info metadata records (`DILocation`, `DISubprogram`, ...) are not spelled out, and `!dbg`
//! attachments are not printed; DXC strips debug info from the modules it ships.
//!
//! The printer is hand-written because no crate prints LLVM IR of this vintage: `llvm-ir` and
//! `inkwell` wrap a current LLVM through its C API, whose printer differs from 3.7's (opaque
//! pointers, attribute and metadata syntax), and DXIL needs DXC's own annotations on top.
#![forbid(unsafe_code)]

pub mod parse;
mod print;

pub use parse::{ParseError, parse_module};
pub use print::{PrintOptions, module_to_string, print_module, print_module_with, write_module};
