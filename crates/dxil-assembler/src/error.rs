//! The assembler's error: which stage failed, with that stage's own position information
//! (line and column for the text, metadata node and field for the DXIL metadata, function and
//! instruction for the bitcode writer, part and offset for the container).

use dxil_container::FourCC;

/// Why a listing or module could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The listing is not valid LLVM 3.7 assembly (the error has line and column).
    #[error("{0}")]
    Parse(#[from] dxil_text::ParseError),
    /// The `dx.*` metadata is missing or malformed.
    #[error("DXIL metadata: {0}")]
    Metadata(#[from] dxil_shader::Error),
    /// The bitcode writer refused the module.
    #[error("bitcode: {0}")]
    Bitcode(#[from] dxil_module::WriteError),
    /// A container part could not be written.
    #[error("container: {0}")]
    Container(#[from] dxil_container::Error),
    /// The root signature given to embed is not a valid RTS0.
    #[error("root signature: {0}")]
    RootSignature(String),
    /// The module asks for something this assembler cannot produce (e.g. a library's `RDAT`).
    #[error("{0}")]
    Unsupported(String),
    /// A value from the module does not fit the part field that holds it.
    #[error("{part}: {message}")]
    Field {
        /// The part being written.
        part: FourCC,
        /// What did not fit, and where it came from.
        message: String,
    },
}

impl Error {
    /// The 1-based (line, column) of a text error.
    pub fn line_column(&self) -> Option<(u32, u32)> {
        match self {
            Error::Parse(e) => Some((e.line, e.column)),
            _ => None,
        }
    }

    #[cold]
    pub(crate) fn field(part: FourCC, message: impl Into<String>) -> Error {
        Error::Field {
            part,
            message: message.into(),
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
