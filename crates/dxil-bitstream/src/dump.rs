//! A text dump of a bitstream, in the spirit of `llvm-bcanalyzer -dump`.

use std::fmt::Write as _;

use crate::error::Result;
use crate::reader::{BLOCKINFO_BLOCK_ID, BitstreamReader, Entry, blockinfo_code};

/// Names for block ids and record codes, supplied by a layer that knows what they mean.
pub trait Names {
    fn block_name(&self, _block_id: u32) -> Option<&str> {
        None
    }
    fn record_name(&self, _block_id: u32, _code: u32) -> Option<&str> {
        None
    }
}

/// Options for [`dump`].
#[derive(Clone, Copy, Default)]
pub struct DumpOptions<'n> {
    /// Names to print beside ids and codes.
    pub names: Option<&'n dyn Names>,
    /// Print each entry's absolute bit offset.
    pub offsets: bool,
}

fn builtin_record_name(block_id: u32, code: u32) -> Option<&'static str> {
    if block_id != BLOCKINFO_BLOCK_ID {
        return None;
    }
    match code {
        blockinfo_code::SETBID => Some("SETBID"),
        blockinfo_code::BLOCKNAME => Some("BLOCKNAME"),
        blockinfo_code::SETRECORDNAME => Some("SETRECORDNAME"),
        _ => None,
    }
}

fn push_escaped(out: &mut String, bytes: impl Iterator<Item = u8>) {
    for b in bytes {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7E => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
}

/// Appends a dump of `bytes` (bitcode at `base_offset` in its file) to `out`: nested blocks,
/// abbreviation definitions, and records with code, abbreviation id and operands. Operands
/// that are all printable ASCII are also shown as a string. On a read error, what was read so
/// far stays in `out`.
pub fn dump(
    bytes: &[u8],
    base_offset: u64,
    options: &DumpOptions<'_>,
    out: &mut String,
) -> Result<()> {
    let mut r = BitstreamReader::new(bytes, base_offset)?;
    let mut ops = Vec::new();
    let indent = |out: &mut String, depth: usize| {
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    let at = |out: &mut String, bit: u64| {
        if options.offsets {
            let _ = write!(out, " bit={bit}");
        }
    };
    loop {
        let entry = r.next()?;
        match entry {
            Entry::SubBlock {
                block_id,
                abbrev_width,
                length_words,
                bit_offset,
            } => {
                indent(out, r.depth());
                let _ = write!(out, "<BLOCK id={block_id}");
                let name = if block_id == BLOCKINFO_BLOCK_ID {
                    Some("BLOCKINFO")
                } else {
                    options.names.and_then(|n| n.block_name(block_id))
                };
                if let Some(name) = name {
                    let _ = write!(out, " {name}");
                }
                let _ = write!(out, " abbrev_width={abbrev_width} words={length_words}");
                at(out, bit_offset);
                out.push_str(">\n");
                r.enter_block()?;
            }
            Entry::EndBlock { block_id, .. } => {
                indent(out, r.depth());
                let _ = writeln!(out, "</BLOCK id={block_id}>");
            }
            Entry::DefineAbbrev {
                abbrev_id,
                blockinfo_target,
                bit_offset,
            } => {
                let abbrev = match blockinfo_target {
                    Some(t) => r.blockinfo_abbrev(t, abbrev_id),
                    None => r.abbrev(abbrev_id),
                };
                indent(out, r.depth());
                let _ = write!(out, "<DEFINE_ABBREV id={abbrev_id}");
                if let Some(t) = blockinfo_target {
                    let _ = write!(out, " for_block={t}");
                }
                at(out, bit_offset);
                let _ = writeln!(out, " {:?}/>", abbrev.unwrap_or(&[]));
            }
            Entry::Record { .. } => {
                let block_id = r.block_id().unwrap_or(0);
                let rec = r.read_record(&mut ops)?;
                indent(out, r.depth());
                let _ = write!(out, "<RECORD code={}", rec.code);
                let name = builtin_record_name(block_id, rec.code).or_else(|| {
                    options
                        .names
                        .and_then(|n| n.record_name(block_id, rec.code))
                });
                if let Some(name) = name {
                    let _ = write!(out, " {name}");
                }
                if rec.abbrev_id == crate::builtin_abbrev::UNABBREV_RECORD {
                    out.push_str(" unabbrev");
                } else {
                    let _ = write!(out, " abbrev={}", rec.abbrev_id);
                }
                at(out, rec.bit_offset);
                let _ = write!(out, " ops={ops:?}");
                if ops.len() >= 2 && ops.iter().all(|&v| (0x20..0x7F).contains(&v)) {
                    out.push_str(" \"");
                    push_escaped(out, ops.iter().map(|&v| v as u8));
                    out.push('"');
                }
                if let Some(blob) = rec.blob {
                    let _ = write!(out, " blob[{}]=\"", blob.bytes.len());
                    push_escaped(out, blob.bytes.iter().copied().take(256));
                    out.push('"');
                    if blob.bytes.len() > 256 {
                        out.push_str("...");
                    }
                }
                out.push_str("/>\n");
            }
            Entry::TrailingData {
                bit_offset,
                byte_len,
                all_zero,
            } => {
                let _ = write!(out, "<TRAILING_DATA bytes={byte_len} all_zero={all_zero}");
                at(out, bit_offset);
                out.push_str("/>\n");
            }
            Entry::EndOfStream => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AbbrevOp, BitstreamWriter};

    struct LlvmNames;

    impl Names for LlvmNames {
        fn block_name(&self, block_id: u32) -> Option<&str> {
            (block_id == 8).then_some("MODULE_BLOCK")
        }
        fn record_name(&self, block_id: u32, code: u32) -> Option<&str> {
            (block_id == 8 && code == 2).then_some("TRIPLE")
        }
    }

    #[test]
    fn dump_shows_structure_names_strings_and_blobs() {
        let mut w = BitstreamWriter::new();
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        w.define_blockinfo_abbrev(14, &[AbbrevOp::Fixed(3), AbbrevOp::Vbr(8)])
            .unwrap();
        w.exit_block().unwrap();
        let triple: Vec<u64> = b"dxil-ms-dx".iter().map(|&c| u64::from(c)).collect();
        w.emit_record_unabbrev(2, &triple).unwrap();
        let blob = w
            .define_abbrev(&[AbbrevOp::Literal(5), AbbrevOp::Blob])
            .unwrap();
        w.emit_record_with_blob(blob, 5, &[], b"a\"\x01").unwrap();
        w.exit_block().unwrap();
        let bytes = w.finish().unwrap();

        let mut text = String::new();
        let names = LlvmNames;
        let options = DumpOptions {
            names: Some(&names),
            offsets: false,
        };
        dump(&bytes, 0, &options, &mut text).unwrap();
        let expect = [
            "<BLOCK id=8 MODULE_BLOCK abbrev_width=3 words=12>",
            "  <BLOCK id=0 BLOCKINFO abbrev_width=2 words=2>",
            "    <RECORD code=1 SETBID unabbrev ops=[14]/>",
            "    <DEFINE_ABBREV id=4 for_block=14 [Fixed(3), Vbr(8)]/>",
            "  </BLOCK id=0>",
            "  <RECORD code=2 TRIPLE unabbrev ops=[100, 120, 105, 108, 45, 109, 115, 45, 100, 120] \"dxil-ms-dx\"/>",
            "  <DEFINE_ABBREV id=4 [Literal(5), Blob]/>",
            "  <RECORD code=5 abbrev=4 ops=[] blob[3]=\"a\\\"\\x01\"/>",
            "</BLOCK id=8>",
        ];
        assert_eq!(text.lines().collect::<Vec<_>>(), expect, "{text}");

        // Offsets, and a partial dump before an error.
        let mut text = String::new();
        let options = DumpOptions {
            names: None,
            offsets: true,
        };
        let cut = &bytes[..bytes.len() - 8];
        let mut patched = cut.to_vec();
        patched[8..12].copy_from_slice(&((cut.len() as u32 - 12) / 4).to_le_bytes());
        let err = dump(&patched, 0, &options, &mut text).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Truncated);
        assert!(
            text.starts_with("<BLOCK id=8 abbrev_width=3 words="),
            "{text}"
        );
        assert!(text.contains(" bit=32>"), "{text}");
        assert!(text.contains("<RECORD code=2 unabbrev bit="), "{text}");
    }
}
