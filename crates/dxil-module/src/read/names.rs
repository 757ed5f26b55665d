//! Names of LLVM 3.7 blocks and record codes, for bitstream dumps.

use crate::codes::{self, block};

/// Implements [`dxil_bitstream::Names`] with LLVM 3.7's block and record names.
pub struct LlvmNames;

impl dxil_bitstream::Names for LlvmNames {
    fn block_name(&self, id: u32) -> Option<&str> {
        lookup(codes::block::NAMES, id)
    }

    fn record_name(&self, block: u32, code: u32) -> Option<&str> {
        let table: &[(u32, &str)] = match block {
            block::MODULE => codes::module::NAMES,
            block::PARAMATTR => codes::paramattr::NAMES,
            block::PARAMATTR_GROUP => codes::paramattr_group::NAMES,
            block::CONSTANTS => codes::constants::NAMES,
            block::FUNCTION => codes::function::NAMES,
            block::VALUE_SYMTAB => codes::value_symtab::NAMES,
            block::METADATA | block::METADATA_ATTACHMENT => codes::metadata::NAMES,
            block::TYPE_NEW => codes::types::NAMES,
            block::USELIST => codes::uselist::NAMES,
            _ => return None,
        };
        lookup(table, code)
    }
}

fn lookup(table: &'static [(u32, &'static str)], code: u32) -> Option<&'static str> {
    table.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}
