#![no_main]
//! The bitstream layer: read arbitrary bytes to the end, entering every block, and round-trip
//! whatever reads cleanly through the writer (`dxil_bitstream::check_roundtrip`). Also reads
//! the same bytes skipping every block, and dumps them. Invalid input must give an error,
//! never a panic; an error of kind `Internal` means reader and writer disagree.

use dxil_bitstream::{BITCODE_MAGIC, BitstreamReader, DumpOptions, Entry, ErrorKind};

fn run(data: &[u8]) {
    if let Err(e) = dxil_bitstream::check_roundtrip(data) {
        assert_ne!(e.kind(), ErrorKind::Internal, "{e}");
    }
    // The skipping paths (length words, BLOCKINFO read for its side effects).
    if let Ok(mut r) = BitstreamReader::new(data, 0) {
        while let Ok(entry) = r.next() {
            match entry {
                Entry::EndOfStream => break,
                Entry::SubBlock { .. } if r.depth() % 2 == 1 => {
                    if r.skip_block().is_err() {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let mut text = String::new();
    let _ = dxil_bitstream::dump(data, 0, &DumpOptions::default(), &mut text);
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    run(data);
    // Most inputs lack the magic; try them behind it too, so the fuzzer reaches the blocks.
    if data.get(..4) != Some(&BITCODE_MAGIC[..]) {
        let mut with_magic = BITCODE_MAGIC.to_vec();
        with_magic.extend_from_slice(data);
        run(&with_magic);
    }
});
