use super::*;
use crate::limits;
use crate::writer::BitstreamWriter;

fn write(f: impl FnOnce(&mut BitstreamWriter)) -> Vec<u8> {
    let mut w = BitstreamWriter::new();
    f(&mut w);
    w.finish().unwrap()
}

/// Reads everything, entering every block; returns the records as (code, abbrev id, ops,
/// blob) and the final error, if any.
/// (code, abbrev id, operands, blob) of one record.
type Rec = (u32, u32, Vec<u64>, Option<Vec<u8>>);

fn records(bytes: &[u8]) -> (Vec<Rec>, Option<Error>) {
    let mut out = Vec::new();
    let mut r = match BitstreamReader::new(bytes, 0) {
        Ok(r) => r,
        Err(e) => return (out, Some(e)),
    };
    let mut ops = Vec::new();
    loop {
        let step = match r.next() {
            Ok(Entry::SubBlock { .. }) => r.enter_block(),
            Ok(Entry::Record { .. }) => r.read_record(&mut ops).map(|rec| {
                out.push((
                    rec.code,
                    rec.abbrev_id,
                    ops.clone(),
                    rec.blob.map(|b| b.bytes.to_vec()),
                ))
            }),
            Ok(Entry::EndOfStream) => return (out, None),
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        };
        if let Err(e) = step {
            return (out, Some(e));
        }
    }
}

#[test]
fn every_encoding_reads_back() {
    use AbbrevOp::*;
    let chars: Vec<u64> = b"azAZ09._".iter().map(|&c| u64::from(c)).collect();
    let bytes = write(|w| {
        w.enter_subblock(8, 5).unwrap();
        let scalars = w
            .define_abbrev(&[
                Literal(7),
                Fixed(0),
                Vbr(0),
                Fixed(1),
                Fixed(64),
                Vbr(2),
                Vbr(32),
                Char6,
                Literal(u64::MAX),
            ])
            .unwrap();
        let fixed_code = w.define_abbrev(&[Fixed(32), Array, Fixed(8)]).unwrap();
        let char6 = w.define_abbrev(&[Char6, Array, Char6]).unwrap();
        let vbr_arr = w.define_abbrev(&[Vbr(6), Array, Vbr(6)]).unwrap();
        let blob = w.define_abbrev(&[Literal(3), Fixed(3), Blob]).unwrap();
        w.emit_record(
            scalars,
            7,
            &[
                0,
                0,
                1,
                u64::MAX,
                u64::MAX,
                u64::MAX,
                u64::from(b'_'),
                u64::MAX,
            ],
        )
        .unwrap();
        w.emit_record(
            scalars,
            7,
            &[0, 0, 0, 0, 0, 1 << 63, u64::from(b'.'), u64::MAX],
        )
        .unwrap();
        w.emit_record(fixed_code, u32::MAX, &[0, 255, 128]).unwrap();
        w.emit_record(char6, u32::from(b'Z'), &chars).unwrap();
        w.emit_record(vbr_arr, 1000, &[31, 32, 1 << 40, u64::MAX])
            .unwrap();
        w.emit_record(vbr_arr, 0, &[]).unwrap();
        for len in 0..6 {
            w.emit_record_with_blob(blob, 3, &[5], &b"hello"[..len])
                .unwrap();
        }
        w.emit_record_unabbrev(u32::MAX, &[u64::MAX, 0, 63])
            .unwrap();
        w.exit_block().unwrap();
    });
    let (recs, err) = records(&bytes);
    assert!(err.is_none(), "{err:?}");
    let mut expect = vec![
        (
            7,
            4,
            vec![
                0,
                0,
                1,
                u64::MAX,
                u64::MAX,
                u64::MAX,
                u64::from(b'_'),
                u64::MAX,
            ],
            None,
        ),
        (
            7,
            4,
            vec![0, 0, 0, 0, 0, 1 << 63, u64::from(b'.'), u64::MAX],
            None,
        ),
        (u32::MAX, 5, vec![0, 255, 128], None),
        (u32::from(b'Z'), 6, chars.clone(), None),
        (1000, 7, vec![31, 32, 1 << 40, u64::MAX], None),
        (0, 7, vec![], None),
    ];
    for len in 0..6 {
        expect.push((3, 8, vec![5], Some(b"hello"[..len].to_vec())));
    }
    expect.push((u32::MAX, 3, vec![u64::MAX, 0, 63], None));
    assert_eq!(recs, expect);
}

#[test]
fn zero_width_operands_take_no_bits() {
    use AbbrevOp::*;
    let mut start = 0;
    let bytes = write(|w| {
        w.enter_subblock(9, 3).unwrap();
        let id = w
            .define_abbrev(&[Fixed(0), Vbr(0), Literal(5), Fixed(0)])
            .unwrap();
        start = w.bit_position();
        w.emit_record(id, 0, &[0, 5, 0]).unwrap();
        assert_eq!(w.bit_position(), start + 3, "only the abbreviation id");
        w.exit_block().unwrap();
    });
    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
    r.enter_block().unwrap();
    assert!(matches!(
        r.next().unwrap(),
        Entry::DefineAbbrev {
            abbrev_id: 4,
            blockinfo_target: None,
            ..
        }
    ));
    assert_eq!(
        r.abbrev(4),
        Some(&[Fixed(0), Vbr(0), Literal(5), Fixed(0)][..])
    );
    assert_eq!(
        r.next().unwrap(),
        Entry::Record {
            abbrev_id: 4,
            bit_offset: start
        }
    );
    let mut ops = vec![99];
    let rec = r.read_record(&mut ops).unwrap();
    assert_eq!((rec.code, ops.as_slice()), (0, &[0, 5, 0][..]));
    assert_eq!(r.bit_position(), start + 3);
}

#[test]
fn blockinfo_abbrevs_come_first_and_survive_skipping() {
    use AbbrevOp::*;
    let bytes = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        w.define_blockinfo_abbrev(11, &[Literal(4), Vbr(8)])
            .unwrap();
        w.emit_record_unabbrev(blockinfo_code::BLOCKNAME, &[97])
            .unwrap();
        w.define_blockinfo_abbrev(12, &[Literal(10)]).unwrap();
        w.exit_block().unwrap();
        w.enter_subblock(11, 4).unwrap();
        let local = w.define_abbrev(&[Literal(1), Fixed(8)]).unwrap();
        assert_eq!(local, 5);
        w.emit_record(4, 4, &[300]).unwrap();
        w.emit_record(5, 1, &[200]).unwrap();
        w.exit_block().unwrap();
        w.enter_subblock(12, 4).unwrap();
        w.emit_record(4, 10, &[]).unwrap();
        w.exit_block().unwrap();
        w.exit_block().unwrap();
    });
    let expect = vec![
        (4, 4, vec![300], None),
        (1, 5, vec![200], None),
        (10, 4, vec![], None),
    ];
    // Entered: the BLOCKINFO records are visible.
    let (recs, err) = records(&bytes);
    assert!(err.is_none());
    assert_eq!(recs.iter().filter(|r| r.1 == UNABBREV_RECORD).count(), 3);
    assert_eq!(
        recs.into_iter()
            .filter(|r| r.1 != UNABBREV_RECORD)
            .collect::<Vec<_>>(),
        expect
    );

    // Skipped: BLOCKINFO is still applied.
    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    let mut ops = Vec::new();
    let mut seen = Vec::new();
    loop {
        match r.next().unwrap() {
            Entry::SubBlock {
                block_id: BLOCKINFO_BLOCK_ID,
                ..
            } => r.skip_block().unwrap(),
            Entry::SubBlock { .. } => r.enter_block().unwrap(),
            Entry::Record { .. } => {
                let rec = r.read_record(&mut ops).unwrap();
                seen.push((rec.code, rec.abbrev_id, ops.clone(), None));
            }
            Entry::DefineAbbrev {
                blockinfo_target, ..
            } => assert!(blockinfo_target.is_none()),
            Entry::EndOfStream => break,
            _ => {}
        }
    }
    assert_eq!(seen, expect);
    assert_eq!(r.blockinfo_abbrev(11, 4), Some(&[Literal(4), Vbr(8)][..]));
    assert_eq!(r.blockinfo_abbrev(11, 5), None);

    // Not touched at all (next() skips the pending block): same.
    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
    r.enter_block().unwrap();
    assert!(matches!(
        r.next().unwrap(),
        Entry::SubBlock { block_id: 0, .. }
    ));
    assert!(matches!(
        r.next().unwrap(),
        Entry::SubBlock { block_id: 11, .. }
    ));
    r.enter_block().unwrap();
    assert_eq!(r.abbrev_count(), 1);
    assert!(matches!(
        r.next().unwrap(),
        Entry::DefineAbbrev { abbrev_id: 5, .. }
    ));
    assert_eq!(r.abbrev_count(), 2);
    assert_eq!(r.block_stack().collect::<Vec<_>>(), [8, 11]);
}

/// Writes raw fields at BLOCKINFO level to get past the writer's own checks.
fn raw_blockinfo(f: impl FnOnce(&mut BitstreamWriter)) -> Vec<u8> {
    write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        f(w);
        w.exit_block().unwrap();
        w.exit_block().unwrap();
    })
}

#[test]
fn blockinfo_order_errors() {
    // DEFINE_ABBREV before SETBID: id 2 in width 2, one literal operand.
    let bytes = raw_blockinfo(|w| {
        w.emit_fixed(2, 2).unwrap();
        w.emit_vbr(1, 5).unwrap();
        w.emit_fixed(1, 1).unwrap();
        w.emit_vbr(1, 8).unwrap();
    });
    let err = records(&bytes).1.unwrap();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.block_id(), Some(0));
    // BLOCKNAME before SETBID, and SETBID without operand.
    for (code, ops) in [(2u64, 1u64), (1, 0)] {
        let bytes = raw_blockinfo(|w| {
            w.emit_fixed(3, 2).unwrap();
            w.emit_vbr(code, 6).unwrap();
            w.emit_vbr(ops, 6).unwrap();
            for _ in 0..ops {
                w.emit_vbr(97, 6).unwrap();
            }
        });
        assert_eq!(
            records(&bytes).1.unwrap().kind(),
            ErrorKind::Malformed,
            "{code}"
        );
    }
}

#[test]
fn trailing_data_and_wrapper() {
    let module = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.emit_record_unabbrev(1, &[2]).unwrap();
        w.exit_block().unwrap();
    });
    for (extra, all_zero) in [
        ([0u8; 4], true),
        ([0, 0, 0, 0x80], false),
        ([0xFF; 4], false),
    ] {
        let mut bytes = module.clone();
        bytes.extend_from_slice(&extra);
        bytes.extend_from_slice(&[0; 4]);
        let mut r = BitstreamReader::new(&bytes, 100).unwrap();
        assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
        assert_eq!(
            r.next().unwrap(),
            Entry::TrailingData {
                bit_offset: (100 + module.len() as u64) * 8,
                byte_len: 8,
                all_zero
            }
        );
        assert_eq!(r.next().unwrap(), Entry::EndOfStream);
    }
    // A second top-level block is a block, not trailing data.
    let mut two = module.clone();
    two.extend_from_slice(&module[4..]);
    let mut r = BitstreamReader::new(&two, 0).unwrap();
    assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
    assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));
    assert_eq!(r.next().unwrap(), Entry::EndOfStream);

    // Wrapper: magic, version, offset, size, cputype, then the bitcode and some padding.
    let mut wrapped = Vec::new();
    for word in [WRAPPER_MAGIC, 0, 20, module.len() as u32, 7] {
        wrapped.extend_from_slice(&word.to_le_bytes());
    }
    wrapped.extend_from_slice(&module);
    wrapped.extend_from_slice(&[0xAB; 4]);
    let r = BitstreamReader::new(&wrapped, 1000).unwrap();
    assert_eq!(r.bitcode_byte_offset(), 1020);
    assert_eq!(r.bit_position(), 1024 * 8);
    assert_eq!(records(&wrapped).0, [(1, 3, vec![2], None)]);
    wrapped.truncate(30);
    assert_eq!(
        BitstreamReader::new(&wrapped, 0).unwrap_err().kind(),
        ErrorKind::Truncated
    );
    assert_eq!(
        BitstreamReader::new(&wrapped[..12], 0).unwrap_err().kind(),
        ErrorKind::Truncated
    );
}

#[test]
fn header_and_structure_errors() {
    let kind = |bytes: &[u8]| records(bytes).1.map(|e| e.kind());
    assert_eq!(kind(b"BC"), Some(ErrorKind::Truncated));
    assert_eq!(kind(b"BC\xC0\xDD"), Some(ErrorKind::Malformed));
    assert_eq!(kind(b"BC\xC0\xDE\0"), Some(ErrorKind::Malformed));
    assert_eq!(kind(b"BC\xC0\xDE"), None);

    // Abbreviation width 0 and 33.
    for width in [0, 33] {
        let bytes = write(|w| {
            w.emit_fixed(1, 2).unwrap();
            w.emit_vbr(8, 8).unwrap();
            w.emit_vbr(width, 4).unwrap();
            w.align32();
            w.emit_fixed(0, 32).unwrap();
        });
        assert_eq!(kind(&bytes), Some(ErrorKind::Malformed), "{width}");
    }
    // Undefined abbreviation id.
    let bytes = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.emit_fixed(4, 3).unwrap();
        w.exit_block().unwrap();
    });
    let err = records(&bytes).1.unwrap();
    assert_eq!(
        (err.kind(), err.bit_offset(), err.block_id()),
        (ErrorKind::Malformed, 96, Some(8))
    );

    // A length word that disagrees with END_BLOCK, either way.
    let module = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.emit_record_unabbrev(1, &[2]).unwrap();
        w.exit_block().unwrap();
    });
    for delta in [-1i32, 1] {
        let mut bytes = module.clone();
        let len = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        bytes[8..12].copy_from_slice(&len.wrapping_add_signed(delta).to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
        assert_eq!(kind(&bytes), Some(ErrorKind::Malformed), "{delta}");
    }
    // A length word beyond the data.
    let mut bytes = module.clone();
    bytes[8..12].copy_from_slice(&1000u32.to_le_bytes());
    assert_eq!(kind(&bytes), Some(ErrorKind::Truncated));

    // An operand count the data cannot hold: no allocation, a typed error.
    let bytes = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.emit_fixed(3, 3).unwrap();
        w.emit_vbr(1, 6).unwrap();
        w.emit_vbr(u64::from(u32::MAX), 6).unwrap();
        w.align32();
        w.exit_block().unwrap();
    });
    assert_eq!(kind(&bytes), Some(ErrorKind::Truncated));
}

#[test]
fn nesting_is_limited() {
    let bytes = write(|w| {
        for _ in 0..limits::MAX_NESTING_DEPTH {
            w.enter_subblock(9, 2).unwrap();
        }
        assert_eq!(
            w.enter_subblock(9, 2).unwrap_err().kind(),
            ErrorKind::LimitExceeded
        );
        for _ in 0..limits::MAX_NESTING_DEPTH {
            w.exit_block().unwrap();
        }
    });
    assert!(records(&bytes).1.is_none());
    // One more level, written by hand.
    let mut deeper = bytes[..4].to_vec();
    let inner = write(|w| {
        for _ in 0..limits::MAX_NESTING_DEPTH {
            w.enter_subblock(9, 2).unwrap();
        }
        for _ in 0..limits::MAX_NESTING_DEPTH {
            w.exit_block().unwrap();
        }
    });
    // Wrap `inner`'s body in one more block: header, length, body, END_BLOCK word.
    deeper.extend_from_slice(&[0x25, 0x08, 0, 0]);
    deeper.extend_from_slice(&((inner.len() as u32 - 4) / 4 + 1).to_le_bytes());
    deeper.extend_from_slice(&inner[4..]);
    deeper.extend_from_slice(&[0; 4]);
    assert_eq!(records(&deeper).1.unwrap().kind(), ErrorKind::LimitExceeded);
}

#[test]
fn api_misuse_and_stopping() {
    let bytes = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.emit_record_unabbrev(1, &[2]).unwrap();
        w.exit_block().unwrap();
    });
    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    let mut ops = Vec::new();
    assert_eq!(
        r.read_record(&mut ops).unwrap_err().kind(),
        ErrorKind::Usage
    );
    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    assert_eq!(r.enter_block().unwrap_err().kind(), ErrorKind::Usage);
    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    assert_eq!(r.skip_record().unwrap_err().kind(), ErrorKind::Usage);
    // Misuse changes no state, so reading goes on.
    assert!(matches!(r.next().unwrap(), Entry::SubBlock { .. }));

    // A data error stops the reader.
    let mut bad = bytes.clone();
    bad[12] = 0xFF;
    let mut r = BitstreamReader::new(&bad, 0).unwrap();
    r.next().unwrap();
    r.enter_block().unwrap();
    assert_eq!(r.next().unwrap_err().kind(), ErrorKind::Malformed);
    assert_eq!(r.next().unwrap_err().kind(), ErrorKind::Usage, "stopped");

    let mut r = BitstreamReader::new(&bytes, 0).unwrap();
    r.next().unwrap();
    r.enter_block().unwrap();
    assert!(matches!(r.next().unwrap(), Entry::Record { .. }));
    r.skip_record().unwrap();
    assert!(matches!(
        r.next().unwrap(),
        Entry::EndBlock { block_id: 8, .. }
    ));
    assert_eq!(r.depth(), 0);
    assert_eq!(r.next().unwrap(), Entry::EndOfStream);
    assert_eq!(r.next().unwrap(), Entry::EndOfStream);
}

/// Builds a stream exercising every path, then truncates it at every word: always a typed
/// error, never a panic. Length words of blocks cut by the truncation are shortened to fit,
/// so that reading reaches the cut instead of failing at the block header.
#[test]
fn truncation_at_every_word_is_a_typed_error() {
    use AbbrevOp::*;
    let full = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        w.define_blockinfo_abbrev(12, &[Literal(2), Vbr(6), Array, Char6])
            .unwrap();
        w.exit_block().unwrap();
        let a = w
            .define_abbrev(&[Fixed(5), Fixed(64), Vbr(4), Array, Fixed(8)])
            .unwrap();
        let b = w.define_abbrev(&[Literal(9), Blob]).unwrap();
        w.emit_record(a, 17, &[u64::MAX, 1 << 40, 1, 2, 3, 4, 5])
            .unwrap();
        w.emit_record_with_blob(b, 9, &[], b"0123456789").unwrap();
        w.enter_subblock(12, 4).unwrap();
        w.emit_record(4, 2, &[1000, u64::from(b'x'), u64::from(b'.')])
            .unwrap();
        w.emit_record_unabbrev(3, &[u64::MAX; 5]).unwrap();
        w.exit_block().unwrap();
        w.emit_record_unabbrev(1, &[1]).unwrap();
        w.exit_block().unwrap();
    });
    assert!(records(&full).1.is_none());
    // Length-word positions and block ends, from a full read.
    let mut blocks = Vec::new();
    let mut r = BitstreamReader::new(&full, 0).unwrap();
    loop {
        match r.next().unwrap() {
            Entry::SubBlock { length_words, .. } => {
                r.enter_block().unwrap();
                let content = (r.bit_position() / 8) as usize;
                blocks.push((content - 4, content + length_words as usize * 4));
            }
            Entry::EndOfStream => break,
            _ => {}
        }
    }
    for cut in (8..full.len()).step_by(4) {
        let mut bytes = full[..cut].to_vec();
        for &(len_at, end) in &blocks {
            if len_at + 4 <= cut && end > cut {
                let words = ((cut - len_at - 4) / 4) as u32;
                bytes[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());
            }
        }
        let err = records(&bytes)
            .1
            .unwrap_or_else(|| panic!("cut at {cut} read cleanly"));
        assert_eq!(err.kind(), ErrorKind::Truncated, "cut at {cut}: {err}");
        assert!(err.bit_offset() <= cut as u64 * 8, "cut at {cut}: {err}");
        // Unpatched, too: typed error.
        let err = records(&full[..cut]).1.unwrap();
        assert_eq!(err.kind(), ErrorKind::Truncated, "cut at {cut}: {err}");
    }
    for cut in 0..full.len() {
        if cut % 4 != 0 {
            assert!(records(&full[..cut]).1.is_some());
        }
    }
}

/// `advance` sees what `next` + `read_record` see, at the same offsets, and fails the same
/// way on every truncation.
#[test]
fn advance_matches_next_and_read_record() {
    use AbbrevOp::*;
    let full = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        w.define_blockinfo_abbrev(12, &[Literal(2), Vbr(6), Array, Char6])
            .unwrap();
        w.exit_block().unwrap();
        let a = w
            .define_abbrev(&[Fixed(5), Fixed(64), Vbr(4), Array, Fixed(8)])
            .unwrap();
        let b = w.define_abbrev(&[Literal(9), Blob]).unwrap();
        w.emit_record(a, 17, &[u64::MAX, 1 << 40, 1, 2, 3]).unwrap();
        w.emit_record_with_blob(b, 9, &[], b"0123456789").unwrap();
        w.enter_subblock(12, 4).unwrap();
        w.emit_record(4, 2, &[1000, u64::from(b'x')]).unwrap();
        w.emit_record_unabbrev(3, &[u64::MAX, 0, 31, 32, 1 << 20])
            .unwrap();
        w.exit_block().unwrap();
        w.exit_block().unwrap();
    });
    // (what, bit offset reported for the entry, operands, blob)
    type Seen = (String, u64, Vec<u64>, Option<Vec<u8>>);
    fn by_next(bytes: &[u8]) -> (Vec<Seen>, Option<ErrorKind>) {
        let mut out = Vec::new();
        let mut r = BitstreamReader::new(bytes, 7).unwrap();
        let mut ops = Vec::new();
        loop {
            let e = match r.next() {
                Ok(e) => e,
                Err(e) => return (out, Some(e.kind())),
            };
            let at = r.entry_bit_offset();
            match e {
                Entry::SubBlock { .. } => {
                    out.push((format!("{e:?}"), at, vec![], None));
                    if let Err(e) = r.enter_block() {
                        return (out, Some(e.kind()));
                    }
                }
                Entry::Record { bit_offset, .. } => {
                    assert_eq!(bit_offset, at);
                    match r.read_record(&mut ops) {
                        Ok(rec) => out.push((
                            format!("record {} {}", rec.code, rec.abbrev_id),
                            at,
                            ops.clone(),
                            rec.blob.map(|b| b.bytes.to_vec()),
                        )),
                        Err(e) => return (out, Some(e.kind())),
                    }
                }
                Entry::EndOfStream => return (out, None),
                _ => out.push((format!("{e:?}"), at, vec![], None)),
            }
        }
    }
    fn by_advance(bytes: &[u8]) -> (Vec<Seen>, Option<ErrorKind>) {
        let mut out = Vec::new();
        let mut r = BitstreamReader::new(bytes, 7).unwrap();
        let mut ops = vec![99];
        loop {
            let s = match r.advance(&mut ops) {
                Ok(s) => s,
                Err(e) => return (out, Some(e.kind())),
            };
            let at = r.entry_bit_offset();
            match s {
                Step::Entry(e @ Entry::SubBlock { .. }) => {
                    out.push((format!("{e:?}"), at, vec![], None));
                    if let Err(e) = r.enter_block() {
                        return (out, Some(e.kind()));
                    }
                }
                Step::Record(rec) => {
                    assert_eq!(rec.bit_offset, at);
                    out.push((
                        format!("record {} {}", rec.code, rec.abbrev_id),
                        at,
                        ops.clone(),
                        rec.blob.map(|b| b.bytes.to_vec()),
                    ));
                }
                Step::Entry(Entry::EndOfStream) => return (out, None),
                Step::Entry(e) => out.push((format!("{e:?}"), at, vec![], None)),
            }
        }
    }
    let (a, ea) = by_next(&full);
    assert_eq!(ea, None);
    // SETBID, then the four records written above.
    assert_eq!(a.iter().filter(|s| s.0.starts_with("record")).count(), 5);
    assert_eq!((a.clone(), ea), by_advance(&full));
    for cut in (4..full.len()).step_by(4) {
        assert_eq!(
            by_next(&full[..cut]),
            by_advance(&full[..cut]),
            "cut at {cut}"
        );
    }
    // A stopped reader refuses `advance` too.
    let mut r = BitstreamReader::new(&full[..20], 0).unwrap();
    let mut ops = Vec::new();
    while r.advance(&mut ops).is_ok() {}
    assert_eq!(r.advance(&mut ops).unwrap_err().kind(), ErrorKind::Usage);
}

/// A BLOCKINFO block identical to one read before on this thread is not decoded again;
/// what it registers is the same either way, and a different block is decoded.
#[test]
fn blockinfo_memo_gives_the_same_abbreviations() {
    use AbbrevOp::*;
    let stream = |width: u64| {
        write(|w| {
            w.enter_subblock(8, 3).unwrap();
            w.enter_blockinfo().unwrap();
            w.define_blockinfo_abbrev(12, &[Literal(2), Vbr(6), Array, Char6])
                .unwrap();
            w.define_blockinfo_abbrev(11, &[Literal(1), Fixed(width as u32)])
                .unwrap();
            w.exit_block().unwrap();
            w.enter_subblock(11, 4).unwrap();
            w.emit_record(4, 1, &[width]).unwrap();
            w.exit_block().unwrap();
            w.enter_subblock(12, 4).unwrap();
            w.emit_record(4, 2, &[7, u64::from(b'a')]).unwrap();
            w.exit_block().unwrap();
            w.exit_block().unwrap();
        })
    };
    let read = |bytes: &[u8]| {
        let mut r = BitstreamReader::new(bytes, 0).unwrap();
        let mut ops = Vec::new();
        let mut out = Vec::new();
        loop {
            match r.advance(&mut ops).unwrap() {
                Step::Entry(Entry::SubBlock { block_id: 0, .. }) => r.skip_block().unwrap(),
                Step::Entry(Entry::SubBlock { .. }) => r.enter_block().unwrap(),
                Step::Record(rec) => out.push((rec.code, ops.clone())),
                Step::Entry(Entry::EndOfStream) => break,
                Step::Entry(_) => {}
            }
        }
        let abbrev = |id| r.blockinfo_abbrev(11, id).map(<[AbbrevOp]>::to_vec);
        (out, abbrev(4), abbrev(5))
    };
    let (a, b) = (stream(5), stream(9));
    let first = read(&a);
    assert_eq!(first.0, [(1, vec![5]), (2, vec![7, u64::from(b'a')])]);
    assert_eq!(first.1, Some(vec![Literal(1), Fixed(5)]));
    assert_eq!(first.2, None);
    // Again (from the memo), then a different block, then the first again.
    assert_eq!(read(&a), first);
    let other = read(&b);
    assert_eq!(other.1, Some(vec![Literal(1), Fixed(9)]));
    assert_eq!(other.0[0], (1, vec![9]));
    assert_eq!(read(&a), first);
    // A reader that takes the memo and then reads a second BLOCKINFO block adds to its
    // own copy: the memo's tables are unchanged for the next reader.
    let mut twice = a.clone();
    let extra = write(|w| {
        w.enter_subblock(8, 3).unwrap();
        w.enter_blockinfo().unwrap();
        w.define_blockinfo_abbrev(11, &[Literal(3)]).unwrap();
        w.exit_block().unwrap();
        w.exit_block().unwrap();
    });
    twice.extend_from_slice(&extra[4..]);
    let mut r = BitstreamReader::new(&twice, 0).unwrap();
    let mut ops = Vec::new();
    loop {
        match r.advance(&mut ops).unwrap() {
            // Both BLOCKINFO blocks are skipped, so both go through the memo path.
            Step::Entry(Entry::SubBlock { block_id: 0, .. }) => r.skip_block().unwrap(),
            Step::Entry(Entry::SubBlock { .. }) => r.enter_block().unwrap(),
            Step::Entry(Entry::EndOfStream) => break,
            _ => {}
        }
    }
    assert_eq!(r.blockinfo_abbrev(11, 5), Some(&[Literal(3)][..]));
    assert_eq!(read(&a), first);
}
