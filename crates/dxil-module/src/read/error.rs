//! Errors of the bitcode reader.

use std::fmt;

/// What kind of problem the reader found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ReadErrorKind {
    /// The data ends too early.
    Truncated,
    /// The bits do not form a valid LLVM 3.7 module.
    Malformed,
    /// Valid bitcode that uses something this reader does not handle.
    Unsupported,
    /// A resource limit of the reader was exceeded.
    Limit,
}

/// Where in the module the reader was.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ReadLocation {
    /// Absolute bit offset (of the record or block being read).
    pub bit_offset: u64,
    /// Block id path from the module block inward.
    pub block: Option<u32>,
    /// Record code, when the problem is in one record.
    pub record_code: Option<u32>,
    /// Function index (module function list) and name, inside a function block.
    pub function: Option<(u32, String)>,
    /// Instruction index inside the function (void instructions included).
    pub instruction: Option<u32>,
}

/// A reader error: kind, message and location. Boxed so `Result` stays one word wide.
#[derive(Clone, PartialEq, Eq)]
pub struct ReadError(Box<Inner>);

#[derive(Clone, PartialEq, Eq, Debug)]
struct Inner {
    kind: ReadErrorKind,
    message: String,
    at: ReadLocation,
}

impl ReadError {
    #[cold]
    pub fn new(kind: ReadErrorKind, message: impl Into<String>, at: ReadLocation) -> ReadError {
        ReadError(Box::new(Inner {
            kind,
            message: message.into(),
            at,
        }))
    }

    pub fn kind(&self) -> ReadErrorKind {
        self.0.kind
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    pub fn location(&self) -> &ReadLocation {
        &self.0.at
    }

    pub fn bit_offset(&self) -> u64 {
        self.0.at.bit_offset
    }

    pub(crate) fn with_function(mut self, index: u32, name: &str) -> ReadError {
        if self.0.at.function.is_none() {
            self.0.at.function = Some((index, name.to_string()));
        }
        self
    }

    pub(crate) fn with_instruction(mut self, inst: u32) -> ReadError {
        if self.0.at.instruction.is_none() {
            self.0.at.instruction = Some(inst);
        }
        self
    }
}

fn block_name(id: u32) -> &'static str {
    crate::codes::block::short_name(id).unwrap_or("unknown block")
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        let kind = match i.kind {
            ReadErrorKind::Truncated => "truncated bitcode",
            ReadErrorKind::Malformed => "malformed bitcode",
            ReadErrorKind::Unsupported => "unsupported bitcode",
            ReadErrorKind::Limit => "bitcode reader limit",
        };
        write!(f, "{kind}: {}", i.message)?;
        let at = &i.at;
        write!(
            f,
            " (at bit {} = byte 0x{:x}",
            at.bit_offset,
            at.bit_offset / 8
        )?;
        if let Some(b) = at.block {
            write!(f, ", {} block", block_name(b))?;
        }
        if let Some(c) = at.record_code {
            write!(f, ", record code {c}")?;
        }
        if let Some((idx, name)) = &at.function {
            write!(f, ", function #{idx} @{name}")?;
        }
        if let Some(n) = at.instruction {
            write!(f, ", instruction {n}")?;
        }
        write!(f, ")")
    }
}

impl fmt::Debug for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ReadError {}

impl From<dxil_bitstream::Error> for ReadError {
    fn from(e: dxil_bitstream::Error) -> ReadError {
        let kind = match e.kind() {
            dxil_bitstream::ErrorKind::Truncated => ReadErrorKind::Truncated,
            dxil_bitstream::ErrorKind::LimitExceeded => ReadErrorKind::Limit,
            _ => ReadErrorKind::Malformed,
        };
        ReadError::new(
            kind,
            e.message().to_string(),
            ReadLocation {
                bit_offset: e.bit_offset(),
                block: e.block_id(),
                ..ReadLocation::default()
            },
        )
    }
}

pub type Result<T, E = ReadError> = std::result::Result<T, E>;
