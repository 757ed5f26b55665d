//! The crate's error type: one boxed word, always carrying an absolute bit offset.

use std::fmt;

/// What went wrong, coarsely, so callers can sort failures without matching on messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data ends before something it declares (a field, a record, a block, a blob).
    Truncated,
    /// The bits are present but do not form a valid bitstream (bad magic, unknown
    /// abbreviation id, block length that disagrees with the contents, ...).
    Malformed,
    /// The input is well-formed but exceeds one of the reader's limits (see [`crate::limits`]).
    LimitExceeded,
    /// The writer was asked to emit something that is not encodable (a value wider than its
    /// field, operands that do not match the abbreviation, ...).
    InvalidWrite,
    /// An API call out of order, such as `read_record` when no record is pending.
    Usage,
    /// The reader and the writer disagree with each other: a bug in this crate.
    Internal,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Truncated => "truncated bitstream",
            ErrorKind::Malformed => "malformed bitstream",
            ErrorKind::LimitExceeded => "bitstream limit exceeded",
            ErrorKind::InvalidWrite => "invalid bitstream write",
            ErrorKind::Usage => "bitstream API misuse",
            ErrorKind::Internal => "internal bitstream error",
        })
    }
}

/// A bitstream error: kind, message and the absolute bit offset where it was detected.
///
/// Reader offsets are absolute (they include the `base_offset` given to the reader); writer
/// offsets count from the first byte the writer produced.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error(Box<ErrorInner>);

#[derive(Debug, thiserror::Error)]
struct ErrorInner {
    kind: ErrorKind,
    bit_offset: u64,
    block_id: Option<u32>,
    message: String,
}

impl fmt::Display for ErrorInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (at bit {}, byte {:#x}",
            self.kind,
            self.message,
            self.bit_offset,
            self.bit_offset / 8
        )?;
        if let Some(id) = self.block_id {
            write!(f, ", in block {id}")?;
        }
        f.write_str(")")
    }
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, bit_offset: u64, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorInner {
            kind,
            bit_offset,
            block_id: None,
            message: message.into(),
        }))
    }

    /// Records the innermost enclosing block id, unless an inner layer already did.
    #[cold]
    pub(crate) fn in_block(mut self, block_id: Option<u32>) -> Self {
        if self.0.block_id.is_none() {
            self.0.block_id = block_id;
        }
        self
    }

    /// The error's category.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// Absolute bit offset where the problem was detected.
    pub fn bit_offset(&self) -> u64 {
        self.0.bit_offset
    }

    /// Absolute byte offset (the bit offset divided by 8).
    pub fn byte_offset(&self) -> u64 {
        self.0.bit_offset / 8
    }

    /// The innermost block being read or written when the error occurred, if any.
    pub fn block_id(&self) -> Option<u32> {
        self.0.block_id
    }

    /// The message without kind and location.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_kind_offset_and_block() {
        let e = Error::new(ErrorKind::Truncated, 100, "needs 6 bits").in_block(Some(12));
        assert_eq!(
            e.to_string(),
            "truncated bitstream: needs 6 bits (at bit 100, byte 0xc, in block 12)"
        );
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert_eq!(e.byte_offset(), 12);
        // The innermost block wins.
        let e = e.in_block(Some(8));
        assert_eq!(e.block_id(), Some(12));
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }
}
