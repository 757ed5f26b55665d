//! Translation errors: what could not be translated, and where.

use std::fmt;

use crate::cfg::StructurizeError;

/// Where in the input an instruction sits: function, basic block and instruction index within the function body
/// (the numbering of the module's instruction list, void instructions included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub function: String,
    pub block: u32,
    pub inst: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "function @{}, block {}, instruction {}",
            self.function, self.block, self.inst
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("container: {0}")]
    Container(String),
    #[error("the container has no DXIL program part")]
    NoProgram,
    #[error("bitcode: {0}")]
    Module(String),
    #[error("metadata: {0}")]
    Metadata(String),
    #[error(
        "{stage} shaders are not supported yet (compute, vertex, pixel and geometry shaders are)"
    )]
    Stage { stage: &'static str },
    /// An operation the translator does not implement.
    #[error("unsupported {what} at {at}")]
    Unsupported { what: String, at: Location },
    /// A `dx.op` call whose opcode is no DXIL operation.
    #[error("unknown dx.op opcode {opcode} at {at}")]
    UnknownOpcode { opcode: i64, at: Location },
    /// Input that breaks a DXIL rule the translation depends on.
    #[error("invalid input at {at}: {what}")]
    Invalid { what: String, at: Location },
    #[error("control flow of @{function}: {source}")]
    ControlFlow {
        function: String,
        #[source]
        source: StructurizeError,
    },
    /// The binding model cannot place a resource.
    #[error("binding: {0}")]
    Binding(String),
    /// A limit of the SPIR-V encoding (an instruction longer than 65535 words, ...).
    #[error("limit: {0}")]
    Limit(String),
}
