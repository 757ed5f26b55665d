//! The crate's error type: one word wide, always carrying an absolute byte offset.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use crate::FourCC;

/// What class of failure an [`Error`] is, so callers can sort failures without matching on text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data ends before a structure that it announces.
    Truncated,
    /// A field holds a value that makes the structure unreadable (bad magic, offsets that overlap).
    Malformed,
    /// Well-formed, but a version or feature this crate does not read.
    Unsupported,
    /// Readable, but it breaks a rule of the format (a container rule checked in strict mode).
    Invalid,
    /// A writer was asked to produce something the format cannot hold (a size over `u32`).
    Limit,
}

/// An error from reading or writing a container or one of its parts.
///
/// The offset is absolute: counted from the first byte of the container, even when the failing
/// reader only saw one part's payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{inner}")]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    part: Option<FourCC>,
    offset: usize,
    message: Cow<'static, str>,
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(part) = self.part {
            write!(f, "{part}: ")?;
        }
        write!(f, "{} (at byte offset {:#x})", self.message, self.offset)
    }
}

impl Error {
    #[cold]
    pub(crate) fn new(
        kind: ErrorKind,
        offset: usize,
        part: Option<FourCC>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                part,
                offset,
                message: message.into(),
            }),
        }
    }

    /// The class of failure.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The part being read or written when the error happened, if any.
    pub fn part(&self) -> Option<FourCC> {
        self.inner.part
    }

    /// Absolute byte offset in the container (for writers: in the output being built).
    pub fn offset(&self) -> usize {
        self.inner.offset
    }

    /// The message without part name and offset.
    pub fn message(&self) -> &str {
        &self.inner.message
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_part_and_offset() {
        let e = Error::new(
            ErrorKind::Truncated,
            0x1c4,
            Some(FourCC::PSV0),
            "string table ends early",
        );
        assert_eq!(
            e.to_string(),
            "PSV0: string table ends early (at byte offset 0x1c4)"
        );
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert_eq!(e.part(), Some(FourCC::PSV0));
        assert_eq!(e.offset(), 0x1c4);
        let e = Error::new(ErrorKind::Malformed, 0, None, "bad magic");
        assert_eq!(e.to_string(), "bad magic (at byte offset 0x0)");
    }

    #[test]
    fn error_is_one_word() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }
}
