//! Reader and writer for the LLVM bitstream container format (LLVM's
//! `docs/BitCodeFormat.rst`): blocks, abbreviations, BLOCKINFO and records. The crate knows
//! nothing of LLVM IR or DXIL; `dxil-module` turns the records into IR.
//!
//! # Why not the `llvm-bitcode` crate
//! It misreads the zero-width abbreviation operands (`Fixed(0)`, `VBR(0)`) that DXC writes and
//! LLVM decodes as a literal 0, and it cannot write. This project must also reproduce DXC's
//! bitcode byte for byte, which needs a writer that lays bits out exactly as LLVM 3.7's
//! `BitstreamWriter` does and keeps abbreviation definitions as written.
//!
//! # Reading
//! [`BitstreamReader`] is a pull cursor over a borrowed slice. [`BitstreamReader::next`]
//! yields an [`Entry`]: a sub-block header (enter or skip it), a record header (decode it into
//! a reusable `Vec<u64>` with [`BitstreamReader::read_record`], so steady-state reading does
//! not allocate, or skip it), an abbreviation definition, the end of a block, trailing data
//! after the top-level blocks, or the end of the stream. [`BitstreamReader::advance`] does the
//! same but decodes a record in the same call ([`Step`]). Positions and errors carry absolute
//! bit offsets: the reader adds the `base_offset` of the bitcode in its file.
//!
//! BLOCKINFO is interpreted as LLVM does: SETBID selects a block id, and abbreviations defined
//! there are prepended to the abbreviation list of every later block with that id. Entering a
//! BLOCKINFO block shows its records; skipping it still registers its abbreviations.
//!
//! The reader accepts what LLVM 3.7's reader accepts, with these deliberate differences:
//! - an abbreviation's structure (Array second to last with a scalar element, Blob last, no
//!   Array or Blob as the record code) is checked when it is defined, not when first used;
//! - a block whose END_BLOCK does not land exactly where its length word says is malformed
//!   (LLVM ignores the length when reading sequentially but uses it to skip, so such a file
//!   reads differently depending on the path taken);
//! - a truncated blob is an error, not an empty record;
//! - a second BLOCKINFO block adds to the first instead of being ignored;
//! - anything at the top level that is not a block is reported as [`Entry::TrailingData`]
//!   (DXC's reader rejects it as "Unused bits in buffer");
//! - the [`limits`] bound nesting depth and abbreviation counts.
//!
//! # Writing
//! [`BitstreamWriter`] produces the same bits LLVM's writer produces for the same calls:
//! canonical VBRs, `DEFINE_ABBREV` with explicit widths (including 0), back-patched block
//! lengths, blobs padded to 32 bits. [`BitstreamWriter::emit_record_min_chunks`] writes a
//! deliberately over-long VBR operand and returns its bit position, and [`patch_vbr`]
//! rewrites such a field in place (patchable specialization constants).
//!
//! # Tools
//! [`dump`] prints a stream as text for debugging; [`reencode`] reads a stream and writes it
//! back with the same abbreviations and abbreviation ids, which reproduces LLVM-written
//! bitcode byte for byte; [`check_roundtrip`] is the fuzzing oracle.
#![forbid(unsafe_code)]

mod abbrev;
mod bits;
mod dump;
mod error;
pub mod limits;
mod reader;
mod roundtrip;
mod writer;

pub use abbrev::{AbbrevOp, decode_char6, encode_char6, is_char6, validate_abbrev};
pub use dump::{DumpOptions, Names, dump};
pub use error::{Error, ErrorKind, Result};
pub use reader::{
    BITCODE_MAGIC, BLOCKINFO_BLOCK_ID, BitstreamReader, Blob, Entry, Record, Step,
    TOP_LEVEL_ABBREV_WIDTH, WRAPPER_MAGIC, blockinfo_code, builtin_abbrev,
};
pub use roundtrip::{Item, Reencoded, check_roundtrip, read_items, reencode};
pub use writer::{BitstreamWriter, BlockRecording, BlockinfoRecording, patch_vbr};
