//! Errors: what went wrong and at which SPIR-V instruction (word offset, result id).

use std::fmt;

/// Where in the SPIR-V module an error was found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// Offset of the instruction's first word (the header is words 0..5).
    pub word: u32,
    /// The instruction's result id, when it has one.
    pub result_id: Option<u32>,
    /// The instruction's opcode.
    pub opcode: u16,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = spirv::Op::from_u32(u32::from(self.opcode))
            .map(|o| format!("Op{o:?}"))
            .unwrap_or_else(|| format!("opcode {}", self.opcode));
        match self.result_id {
            Some(id) => write!(f, "%{id} = {name} at word {}", self.word),
            None => write!(f, "{name} at word {}", self.word),
        }
    }
}

/// The class of a failure; the expectation files of the corpus tests record it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ErrorKind {
    /// The input is not a well-formed SPIR-V module (bad header, truncated instruction,
    /// undefined id, wrong operand kind).
    Malformed,
    /// Valid SPIR-V that uses a feature this translator does not lower (yet).
    Unsupported,
    /// Valid SPIR-V whose meaning DXIL cannot express (e.g. buffer device addresses).
    Inexpressible,
    /// The requested entry point is missing or ambiguous.
    EntryPoint,
    /// A binding cannot be mapped to a register (map entry missing, register overflow).
    Binding,
    /// A specialization constant is used where it cannot stay patchable and the options
    /// refuse to fold it, or a patch names an unknown constant.
    SpecConstant,
    /// The module exceeds a size limit of this translator (ids, instructions, nesting).
    Limit,
    /// The DXIL writers refused the translated module (a translator bug).
    Internal,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Malformed => "malformed",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Inexpressible => "inexpressible",
            ErrorKind::EntryPoint => "entry-point",
            ErrorKind::Binding => "binding",
            ErrorKind::SpecConstant => "spec-constant",
            ErrorKind::Limit => "limit",
            ErrorKind::Internal => "internal",
        })
    }
}

/// A translation error: its kind, the instruction it concerns (when there is one) and what
/// is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    pub kind: ErrorKind,
    pub location: Option<Location>,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(l) => write!(f, "{} ({l}): {}", self.kind, self.message),
            None => write!(f, "{}: {}", self.kind, self.message),
        }
    }
}

impl Error {
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            location: None,
            message: message.into(),
        }
    }

    #[cold]
    pub fn at(kind: ErrorKind, location: Location, message: impl Into<String>) -> Error {
        Error {
            kind,
            location: Some(location),
            message: message.into(),
        }
    }

    /// Sets the location when the error has none yet (inner helpers know what failed, the
    /// instruction loop knows where).
    #[cold]
    pub fn or_at(mut self, location: Location) -> Error {
        if self.location.is_none() {
            self.location = Some(location);
        }
        self
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

#[cold]
pub(crate) fn malformed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Malformed, message)
}

#[cold]
pub(crate) fn unsupported(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Unsupported, message)
}

#[cold]
pub(crate) fn inexpressible(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Inexpressible, message)
}

#[cold]
pub(crate) fn limit(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Limit, message)
}

#[cold]
pub(crate) fn internal(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Internal, message)
}
