//! Errors of the bitcode writer.

use std::fmt;

/// What kind of problem the writer found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum WriteErrorKind {
    /// An id (type, value, constant, metadata, block, attribute list) is out of range or names
    /// something of the wrong kind.
    InvalidId,
    /// Types do not fit together well enough to be encoded (a load from a non-pointer, a call
    /// with the wrong number of arguments, a constant whose payload does not match its type).
    TypeMismatch,
    /// Valid IR that this writer does not encode (debug-info metadata records, for example).
    Unsupported,
    /// The module exceeds a limit of the format (more than 2^32 values, say).
    Limit,
    /// The bitstream layer refused a record; this means a bug in the writer.
    Internal,
}

impl fmt::Display for WriteErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WriteErrorKind::InvalidId => "invalid id",
            WriteErrorKind::TypeMismatch => "type mismatch",
            WriteErrorKind::Unsupported => "unsupported",
            WriteErrorKind::Limit => "limit exceeded",
            WriteErrorKind::Internal => "internal error",
        })
    }
}

/// Where in the module the problem is.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct WriteLocation {
    /// Function index (module function list) and name.
    pub function: Option<(u32, String)>,
    /// Instruction index inside the function (void instructions included).
    pub instruction: Option<u32>,
}

/// A writer error: kind, message and location. Boxed so `Result` stays one word wide.
#[derive(Clone, PartialEq, Eq)]
pub struct WriteError(Box<Inner>);

#[derive(Clone, PartialEq, Eq, Debug)]
struct Inner {
    kind: WriteErrorKind,
    message: String,
    at: WriteLocation,
}

impl WriteError {
    #[cold]
    pub fn new(kind: WriteErrorKind, message: impl Into<String>) -> WriteError {
        WriteError(Box::new(Inner {
            kind,
            message: message.into(),
            at: WriteLocation::default(),
        }))
    }

    pub fn kind(&self) -> WriteErrorKind {
        self.0.kind
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    pub fn location(&self) -> &WriteLocation {
        &self.0.at
    }

    pub(crate) fn with_function(mut self, index: u32, name: &str) -> WriteError {
        if self.0.at.function.is_none() {
            self.0.at.function = Some((index, name.to_string()));
        }
        self
    }

    pub(crate) fn with_instruction(mut self, inst: u32) -> WriteError {
        if self.0.at.instruction.is_none() {
            self.0.at.instruction = Some(inst);
        }
        self
    }
}

impl From<dxil_bitstream::Error> for WriteError {
    #[cold]
    fn from(e: dxil_bitstream::Error) -> WriteError {
        WriteError::new(WriteErrorKind::Internal, format!("bitstream: {e}"))
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.kind, self.0.message)?;
        if let Some((i, name)) = &self.0.at.function {
            write!(f, " (in function {i} `{name}`")?;
            if let Some(n) = self.0.at.instruction {
                write!(f, ", instruction {n}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for WriteError {}

pub type Result<T> = std::result::Result<T, WriteError>;

#[cold]
pub(crate) fn invalid(msg: impl Into<String>) -> WriteError {
    WriteError::new(WriteErrorKind::InvalidId, msg)
}

#[cold]
pub(crate) fn mismatch(msg: impl Into<String>) -> WriteError {
    WriteError::new(WriteErrorKind::TypeMismatch, msg)
}

#[cold]
pub(crate) fn unsupported(msg: impl Into<String>) -> WriteError {
    WriteError::new(WriteErrorKind::Unsupported, msg)
}

#[cold]
pub(crate) fn limit(msg: impl Into<String>) -> WriteError {
    WriteError::new(WriteErrorKind::Limit, msg)
}
