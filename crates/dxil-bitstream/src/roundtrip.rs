//! Re-encoding a stream through the writer, and the round-trip oracle used by fuzzing.

use crate::abbrev::AbbrevOp;
use crate::builtin_abbrev::UNABBREV_RECORD;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::{BitstreamReader, Entry};
use crate::writer::BitstreamWriter;

/// One structural element of a stream, owned: everything the bits mean, nothing of how they
/// were laid out (VBR lengths, padding, length words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Block {
        block_id: u32,
        abbrev_width: u32,
    },
    Abbrev {
        abbrev_id: u32,
        blockinfo_target: Option<u32>,
        ops: Vec<AbbrevOp>,
    },
    Record {
        abbrev_id: u32,
        code: u32,
        ops: Vec<u64>,
        blob: Option<Vec<u8>>,
    },
    EndBlock,
    TrailingData {
        byte_len: u64,
        all_zero: bool,
    },
}

fn abbrev_ops<'r>(
    r: &'r BitstreamReader<'_>,
    abbrev_id: u32,
    blockinfo_target: Option<u32>,
) -> Result<&'r [AbbrevOp]> {
    let ops = match blockinfo_target {
        Some(t) => r.blockinfo_abbrev(t, abbrev_id),
        None => r.abbrev(abbrev_id),
    };
    ops.ok_or_else(|| {
        Error::new(
            ErrorKind::Internal,
            r.bit_position(),
            format!("defined abbreviation {abbrev_id} cannot be looked up"),
        )
    })
}

/// Reads a whole stream into [`Item`]s, entering every block. Allocates per item: meant for
/// tests and tools, not for the hot path.
pub fn read_items(bitcode: &[u8]) -> Result<Vec<Item>> {
    let mut r = BitstreamReader::new(bitcode, 0)?;
    let mut items = Vec::new();
    let mut ops = Vec::new();
    loop {
        let item = match r.next()? {
            Entry::SubBlock {
                block_id,
                abbrev_width,
                ..
            } => {
                r.enter_block()?;
                Item::Block {
                    block_id,
                    abbrev_width,
                }
            }
            Entry::Record { .. } => {
                let rec = r.read_record(&mut ops)?;
                Item::Record {
                    abbrev_id: rec.abbrev_id,
                    code: rec.code,
                    ops: ops.clone(),
                    blob: rec.blob.map(|b| b.bytes.to_vec()),
                }
            }
            Entry::DefineAbbrev {
                abbrev_id,
                blockinfo_target,
                ..
            } => Item::Abbrev {
                abbrev_id,
                blockinfo_target,
                ops: abbrev_ops(&r, abbrev_id, blockinfo_target)?.to_vec(),
            },
            Entry::EndBlock { .. } => Item::EndBlock,
            Entry::TrailingData {
                byte_len, all_zero, ..
            } => Item::TrailingData { byte_len, all_zero },
            Entry::EndOfStream => return Ok(items),
        };
        items.push(item);
    }
}

/// The output of [`reencode`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reencoded {
    pub bytes: Vec<u8>,
    /// The input's [`Entry::TrailingData`] as `(bit_offset, byte_len, all_zero)`; not copied.
    pub trailing: Option<(u64, u64, bool)>,
}

#[cold]
fn writer_disagrees(e: Error) -> Error {
    Error::new(
        ErrorKind::Internal,
        e.bit_offset(),
        format!("the writer rejected what the reader accepted: {e}"),
    )
}

/// Reads `bitcode` and writes it back through [`BitstreamWriter`] with the same blocks,
/// abbreviation definitions (in the same places), abbreviation ids per record and BLOCKINFO.
/// For bitcode LLVM wrote (canonical VBRs, zero padding, no wrapper) the output is identical
/// to the input. Read errors are returned as they are; an error of kind
/// [`ErrorKind::Internal`] means the writer refused something the reader accepted (a bug).
pub fn reencode(bitcode: &[u8]) -> Result<Reencoded> {
    let mut r = BitstreamReader::new(bitcode, 0)?;
    let mut w = BitstreamWriter::new();
    let mut ops = Vec::new();
    let mut trailing = None;
    loop {
        match r.next()? {
            Entry::SubBlock {
                block_id,
                abbrev_width,
                ..
            } => {
                r.enter_block()?;
                w.enter_subblock(block_id, abbrev_width)
                    .map_err(writer_disagrees)?;
            }
            Entry::Record { .. } => {
                let rec = r.read_record(&mut ops)?;
                let written = match rec.blob {
                    Some(blob) => {
                        w.emit_record_with_blob(rec.abbrev_id, rec.code, &ops, blob.bytes)
                    }
                    None if rec.abbrev_id == UNABBREV_RECORD => {
                        w.emit_record_unabbrev(rec.code, &ops)
                    }
                    None => w.emit_record(rec.abbrev_id, rec.code, &ops),
                };
                written.map_err(writer_disagrees)?;
            }
            Entry::DefineAbbrev {
                abbrev_id,
                blockinfo_target,
                bit_offset,
            } => {
                let id = w
                    .define_abbrev(abbrev_ops(&r, abbrev_id, blockinfo_target)?)
                    .map_err(writer_disagrees)?;
                if id != abbrev_id {
                    return Err(Error::new(
                        ErrorKind::Internal,
                        bit_offset,
                        format!("abbreviation read as id {abbrev_id} was written as id {id}"),
                    ));
                }
            }
            Entry::EndBlock { .. } => w.exit_block().map_err(writer_disagrees)?,
            Entry::TrailingData {
                bit_offset,
                byte_len,
                all_zero,
            } => trailing = Some((bit_offset, byte_len, all_zero)),
            Entry::EndOfStream => {
                return Ok(Reencoded {
                    bytes: w.finish().map_err(writer_disagrees)?,
                    trailing,
                });
            }
        }
    }
}

#[cold]
fn mismatch(message: String) -> Error {
    Error::new(ErrorKind::Internal, 0, message)
}

/// The fuzzing oracle. Reads `data`; if it is a valid stream, re-encodes it, reads the result
/// back and checks that it holds the same items, and that re-encoding the result reproduces it
/// byte for byte. Returns the read error for invalid input (that is fine), and an error of
/// kind [`ErrorKind::Internal`] when reader and writer disagree (a bug).
pub fn check_roundtrip(data: &[u8]) -> Result<()> {
    let mut original = read_items(data)?;
    let first = reencode(data).map_err(|e| {
        if e.kind() == ErrorKind::Internal {
            e
        } else {
            mismatch(format!("reencode failed on input read_items accepted: {e}"))
        }
    })?;
    if matches!(original.last(), Some(Item::TrailingData { .. })) {
        original.pop();
    }
    let again = read_items(&first.bytes)
        .map_err(|e| mismatch(format!("the re-encoded stream does not read back: {e}")))?;
    if again != original {
        let at = original
            .iter()
            .zip(&again)
            .position(|(a, b)| a != b)
            .unwrap_or(original.len().min(again.len()));
        return Err(mismatch(format!(
            "the re-encoded stream differs at item {at}: {:?} became {:?}",
            original.get(at),
            again.get(at)
        )));
    }
    let second = reencode(&first.bytes)
        .map_err(|e| mismatch(format!("re-encoding the re-encoded stream failed: {e}")))?;
    if second.bytes != first.bytes || second.trailing.is_some() {
        return Err(mismatch(
            "re-encoding is not idempotent on its own output".into(),
        ));
    }
    Ok(())
}
