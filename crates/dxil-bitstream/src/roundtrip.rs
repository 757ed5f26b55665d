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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abbrev::decode_char6;
    use crate::reader::BLOCKINFO_BLOCK_ID;
    use proptest::prelude::*;

    /// Draws numbers from proptest's entropy; zeros once it runs out.
    struct Draw<'e>(std::slice::Iter<'e, u64>);

    impl Draw<'_> {
        fn next(&mut self) -> u64 {
            self.0.next().copied().unwrap_or(0)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        /// A value of varied magnitude: small ones are common, 64-bit ones occur.
        fn value(&mut self) -> u64 {
            let v = self.next();
            v >> (v % 64)
        }
    }

    fn mask(w: u32) -> u64 {
        if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }
    }

    fn scalar_op(d: &mut Draw<'_>, for_array: bool) -> AbbrevOp {
        match d.below(if for_array { 3 } else { 4 }) {
            0 => AbbrevOp::Fixed(if for_array {
                1 + d.below(64)
            } else {
                d.below(65)
            } as u32),
            1 => AbbrevOp::Vbr(match d.below(8) {
                0 if !for_array => 0,
                _ => 2 + d.below(31) as u32,
            }),
            2 => AbbrevOp::Char6,
            _ => AbbrevOp::Literal(d.value()),
        }
    }

    fn random_abbrev(d: &mut Draw<'_>) -> Vec<AbbrevOp> {
        let mut ops = vec![match d.below(4) {
            0 => AbbrevOp::Fixed(d.below(33) as u32),
            1 => AbbrevOp::Vbr(2 + d.below(31) as u32),
            2 => AbbrevOp::Char6,
            _ => AbbrevOp::Literal(d.below(1 << 32)),
        }];
        for _ in 0..d.below(5) {
            ops.push(scalar_op(d, false));
        }
        match d.below(4) {
            0 => {
                ops.push(AbbrevOp::Array);
                ops.push(scalar_op(d, true));
            }
            1 => ops.push(AbbrevOp::Blob),
            _ => {}
        }
        ops
    }

    fn value_for(d: &mut Draw<'_>, op: AbbrevOp) -> u64 {
        match op {
            AbbrevOp::Literal(v) => v,
            AbbrevOp::Fixed(w) => d.value() & mask(w),
            AbbrevOp::Vbr(0) => 0,
            AbbrevOp::Vbr(_) => d.value(),
            AbbrevOp::Char6 => u64::from(decode_char6(d.next())),
            AbbrevOp::Array | AbbrevOp::Blob => 0,
        }
    }

    /// A record valid for `abbrev`: code, operands and blob.
    fn record_for(d: &mut Draw<'_>, abbrev: &[AbbrevOp]) -> (u32, Vec<u64>, Option<Vec<u8>>) {
        let code = (value_for(d, abbrev[0]) & u64::from(u32::MAX)) as u32;
        let code = match abbrev[0] {
            AbbrevOp::Char6 | AbbrevOp::Literal(_) => value_for(d, abbrev[0]) as u32,
            _ => code,
        };
        let mut ops = Vec::new();
        let mut blob = None;
        let mut i = 1;
        while i < abbrev.len() {
            match abbrev[i] {
                AbbrevOp::Array => {
                    for _ in 0..d.below(12) {
                        ops.push(value_for(d, abbrev[i + 1]));
                    }
                    i += 1;
                }
                AbbrevOp::Blob => {
                    blob = Some((0..d.below(20)).map(|_| d.next() as u8).collect());
                }
                op => ops.push(value_for(d, op)),
            }
            i += 1;
        }
        (code, ops, blob)
    }

    /// Writes a random, valid stream and returns it with the items a reader must see.
    fn random_stream(entropy: &[u64]) -> (Vec<u8>, Vec<Item>) {
        let mut d = Draw(entropy.iter());
        let mut w = BitstreamWriter::new();
        let mut items = Vec::new();
        // Open blocks: (abbrev width, abbreviations usable in it).
        let mut stack: Vec<(u32, Vec<Vec<AbbrevOp>>)> = Vec::new();
        let mut blockinfo: Vec<(u32, Vec<AbbrevOp>)> = Vec::new();
        let enter = |w: &mut BitstreamWriter,
                     items: &mut Vec<Item>,
                     stack: &mut Vec<(u32, Vec<Vec<AbbrevOp>>)>,
                     blockinfo: &[(u32, Vec<AbbrevOp>)],
                     block_id: u32,
                     width: u32| {
            w.enter_subblock(block_id, width).unwrap();
            items.push(Item::Block {
                block_id,
                abbrev_width: width,
            });
            let inherited = blockinfo
                .iter()
                .filter(|(id, _)| *id == block_id)
                .map(|(_, a)| a.clone())
                .collect();
            stack.push((width, inherited));
        };
        enter(
            &mut w,
            &mut items,
            &mut stack,
            &blockinfo,
            8,
            2 + d.below(5) as u32,
        );
        for _ in 0..d.below(60) {
            let depth = stack.len();
            let Some((width, abbrevs)) = stack.last_mut() else {
                break;
            };
            let width = *width;
            match d.below(10) {
                0 if depth < 5 => {
                    let id = 9 + d.below(4) as u32;
                    let width = if d.below(8) == 0 {
                        32
                    } else {
                        2 + d.below(4) as u32
                    };
                    enter(&mut w, &mut items, &mut stack, &blockinfo, id, width);
                }
                1 if depth > 1 => {
                    w.exit_block().unwrap();
                    items.push(Item::EndBlock);
                    stack.pop();
                }
                2 => {
                    // A BLOCKINFO block registering abbreviations for blocks 9..=12.
                    w.enter_blockinfo().unwrap();
                    items.push(Item::Block {
                        block_id: BLOCKINFO_BLOCK_ID,
                        abbrev_width: 2,
                    });
                    let mut selected = None;
                    for _ in 0..d.below(4) {
                        let target = 9 + d.below(4) as u32;
                        let ops = random_abbrev(&mut d);
                        let id = w.define_blockinfo_abbrev(target, &ops).unwrap();
                        // SETBID is written only when the target changes.
                        if selected != Some(target) {
                            selected = Some(target);
                            items.push(Item::Record {
                                abbrev_id: crate::builtin_abbrev::UNABBREV_RECORD,
                                code: crate::blockinfo_code::SETBID,
                                ops: vec![u64::from(target)],
                                blob: None,
                            });
                        }
                        items.push(Item::Abbrev {
                            abbrev_id: id,
                            blockinfo_target: Some(target),
                            ops: ops.clone(),
                        });
                        blockinfo.push((target, ops));
                    }
                    w.exit_block().unwrap();
                    items.push(Item::EndBlock);
                }
                3 if abbrevs.len() < 20 => {
                    let ops = random_abbrev(&mut d);
                    let id = w.define_abbrev(&ops).unwrap();
                    assert_eq!(id as usize, 4 + abbrevs.len());
                    items.push(Item::Abbrev {
                        abbrev_id: id,
                        blockinfo_target: None,
                        ops: ops.clone(),
                    });
                    abbrevs.push(ops);
                }
                4..=6 if !abbrevs.is_empty() => {
                    let index = d.below(abbrevs.len() as u64) as usize;
                    let id = 4 + index as u32;
                    if width < 32 && id >> width != 0 {
                        continue;
                    }
                    let abbrev = abbrevs[index].clone();
                    let (code, ops, blob) = record_for(&mut d, &abbrev);
                    match &blob {
                        Some(b) => w.emit_record_with_blob(id, code, &ops, b),
                        None => w.emit_record(id, code, &ops),
                    }
                    .unwrap_or_else(|e| panic!("{abbrev:?} {code} {ops:?}: {e}"));
                    items.push(Item::Record {
                        abbrev_id: id,
                        code,
                        ops,
                        blob,
                    });
                }
                _ => {
                    let code = d.value() as u32;
                    let ops: Vec<u64> = (0..d.below(10)).map(|_| d.value()).collect();
                    w.emit_record_unabbrev(code, &ops).unwrap();
                    items.push(Item::Record {
                        abbrev_id: crate::builtin_abbrev::UNABBREV_RECORD,
                        code,
                        ops,
                        blob: None,
                    });
                }
            }
        }
        while stack.pop().is_some() {
            w.exit_block().unwrap();
            items.push(Item::EndBlock);
        }
        (w.finish().unwrap(), items)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn write_then_read_round_trips(entropy in prop::collection::vec(any::<u64>(), 0..600)) {
            let (bytes, items) = random_stream(&entropy);
            prop_assert_eq!(read_items(&bytes).unwrap(), items);
            prop_assert_eq!(reencode(&bytes).unwrap().bytes, bytes.clone());
            check_roundtrip(&bytes).unwrap();
        }
    }

    /// A small deterministic generator for the fuzz smoke test.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn assert_no_internal_error(data: &[u8]) {
        if let Err(e) = check_roundtrip(data) {
            assert_ne!(e.kind(), ErrorKind::Internal, "{e} on {data:02x?}");
        }
    }

    /// What the fuzz target does, on a few hundred inputs: random bytes behind the magic, and
    /// valid streams with bits flipped, bytes dropped or words duplicated.
    #[test]
    fn fuzz_smoke() {
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let mut valid_inputs = 0;
        for round in 0..400 {
            let entropy: Vec<u64> = (0..200).map(|_| rng.next()).collect();
            let (mut bytes, _) = random_stream(&entropy);
            match round % 4 {
                0 => {
                    bytes.truncate(4);
                    bytes.extend((0..rng.next() % 64).map(|_| rng.next() as u8));
                }
                1 => {
                    for _ in 0..1 + rng.next() % 4 {
                        let bit = rng.next() as usize % (bytes.len() * 8);
                        bytes[bit / 8] ^= 1 << (bit % 8);
                    }
                }
                2 => {
                    let at = rng.next() as usize % bytes.len();
                    bytes.remove(at);
                }
                _ => {
                    let at = (rng.next() as usize % (bytes.len() / 4)) * 4;
                    let word = bytes[at..at + 4].to_vec();
                    bytes.splice(at..at, word);
                }
            }
            if read_items(&bytes).is_ok() {
                valid_inputs += 1;
            }
            assert_no_internal_error(&bytes);
        }
        // The mutations must leave some inputs readable, or the oracle is never exercised.
        assert!(valid_inputs > 20, "only {valid_inputs} readable inputs");
    }
}
