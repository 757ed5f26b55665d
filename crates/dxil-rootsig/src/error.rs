//! The crate's error type.

use crate::model::Version;
use std::fmt;

/// Which byte sequence an offset in an [`Error`] counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The RTS0 payload (the bytes after the part header).
    Rts0,
    /// The whole DXBC container.
    Container,
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Region::Rts0 => "RTS0 payload",
            Region::Container => "container",
        })
    }
}

/// Everything that can go wrong in this crate. Binary errors carry a byte offset, HLSL errors a
/// column; validation errors are collected separately ([`crate::ValidationErrors`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A structure reaches past the end of its bytes.
    #[error(
        "{what} needs bytes {start:#x}..{end:#x} of the {region}, which is only {len:#x} bytes long"
    )]
    Truncated {
        /// The structure being read.
        what: String,
        /// First byte of the structure.
        start: u64,
        /// One past its last byte.
        end: u64,
        /// Length of the region.
        len: u64,
        /// What the offsets count from.
        region: Region,
    },
    /// A field holds a value the format does not allow.
    #[error("{region} byte {offset:#x}: {message}")]
    Malformed {
        /// Offset of the offending field.
        offset: u64,
        /// What the offset counts from.
        region: Region,
        /// What is wrong.
        message: String,
    },
    /// The container has no RTS0 part.
    #[error("the container has no RTS0 part")]
    NoRootSignature,
    /// HLSL root signature syntax error. The column is 1-based and counts bytes.
    #[error("root signature string, column {column}: {message}")]
    Syntax {
        /// 1-based byte column of the offending token.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The root signature cannot be expressed in the requested version or form without losing
    /// information.
    #[error("cannot express the root signature as {target}: {reason}")]
    Lossy {
        /// The requested form ("version 1.0", "HLSL", ...).
        target: String,
        /// What would be lost.
        reason: String,
    },
    /// The root signature has no Vulkan layout under the given device limits.
    #[error("Vulkan layout: {0}")]
    Layout(String),
}

impl Error {
    /// Re-bases a payload-relative error onto the container that holds the payload at
    /// `payload_offset`.
    pub(crate) fn in_container(self, payload_offset: u64) -> Error {
        match self {
            Error::Truncated {
                what,
                start,
                end,
                region: Region::Rts0,
                ..
            } => Error::Malformed {
                offset: payload_offset + start,
                region: Region::Container,
                message: format!(
                    "{what} (payload bytes {start:#x}..{end:#x}) runs past the end of the RTS0 part"
                ),
            },
            Error::Malformed {
                offset,
                region: Region::Rts0,
                message,
            } => Error::Malformed {
                offset: payload_offset + offset,
                region: Region::Container,
                message,
            },
            other => other,
        }
    }

    pub(crate) fn lossy_version(target: Version, reason: impl Into<String>) -> Error {
        Error::Lossy {
            target: format!("version {}", target.short_name()),
            reason: reason.into(),
        }
    }
}
