//! Hostile length and count fields: every one ends in a typed error, quickly, without reserving
//! memory in proportion to the field. Peak virtual memory (Linux `VmPeak`) is compared before and
//! after; this file holds a single test so no other test shares the process while it measures.

use std::time::{Duration, Instant};

use dxil_container::parts::{Psv, RuntimeData};
use dxil_container::{
    CompilerVersion, Container, DigestMode, ErrorKind, FourCC, ProgramHeader, Signature,
    write_container,
};

fn vm_peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmPeak:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A v1 PSV0 prefix (36-byte runtime info of a vertex shader) followed by `rest`.
fn psv_v1(elements_in: u8, rest: &[u32]) -> Vec<u8> {
    let mut b = words(&[36, 0, 0, 0, 0, 0, u32::MAX]);
    b.extend_from_slice(&[1, 0, 0, 0, elements_in, 0, 0, 1, 1, 0, 0, 0]);
    b.extend_from_slice(&words(rest));
    b
}

#[test]
fn hostile_counts_are_bounded() {
    let before = vm_peak_kib();
    let start = Instant::now();
    let max = u32::MAX;

    // Container: a part count of 2^32-1 and a size field past the input.
    let mut c = words(&[0x4342_5844, 0, 0, 0, 0, 1, max, max]);
    c.extend_from_slice(&words(&[40, 0x4C49_5844, max]));
    assert!(Container::parse(&c).is_err());
    let lenient = Container::parse_lenient(&c).unwrap();
    assert!(lenient.parts().len() <= c.len() / 4);

    // A well-formed container whose parts carry the hostile fields.
    let cases: Vec<(FourCC, Vec<u8>)> = vec![
        (FourCC::ISG1, words(&[max, 8])),
        (FourCC::OSG1, words(&[0x0800_0000, 8, 0])),
        (FourCC::PSV0, words(&[max])),
        (FourCC::PSV0, words(&[24, 0, 0, 0, 0, 0, max, max, max])),
        (FourCC::PSV0, words(&[24, 0, 0, 0, 0, 0, max, max, 16])),
        (FourCC::PSV0, psv_v1(0, &[0, 0xffff_fffc])),
        (FourCC::PSV0, psv_v1(0, &[0, 0, 0x3fff_ffff])),
        (FourCC::PSV0, psv_v1(255, &[0, 0, 0, max])),
        (FourCC::RDAT, words(&[0x10, 0x3fff_ffff])),
        (FourCC::RDAT, words(&[0x10, 1, 12, 3, max])),
        (FourCC::VERS, words(&[0x000a_0001, 0, 0, max])),
        (
            FourCC::DXIL,
            words(&[0x60, max, 0x4C49_5844, 0x100, 16, max]),
        ),
        (FourCC::DXIL, words(&[0x60, 6, 0x4C49_5844, 0x100, max, 8])),
    ];
    for (fourcc, payload) in &cases {
        let container = write_container(&[(*fourcc, payload)], DigestMode::Zero).unwrap();
        let parsed = Container::parse(&container).unwrap();
        let part = &parsed.parts()[0];
        let err = parsed
            .decode(part)
            .expect_err("hostile field must not decode");
        assert!(
            matches!(err.kind(), ErrorKind::Truncated | ErrorKind::Malformed),
            "{fourcc}: {err}"
        );
        assert_eq!(err.part(), Some(*fourcc), "{err}");
        assert!(err.offset() >= part.data_offset, "{err}");
        dxil_container::fuzz::fuzz_container(&container);
    }
    // The typed readers on their own, without the container around them.
    assert!(Signature::parse(&words(&[max, 8]), 0, FourCC::ISG1).is_err());
    assert!(Psv::parse(&words(&[max]), 0, None).is_err());
    assert!(RuntimeData::parse(&words(&[0x10, max]), 0).is_err());
    assert!(CompilerVersion::parse(&words(&[1, 0, 0, max]), 0).is_err());
    assert!(ProgramHeader::parse(&words(&[0, max, 0, 0, 0, 0]), 0, FourCC::DXIL).is_err());

    // Many elements naming one long unterminated string, and a long run of empty strings: both
    // stay linear in the input size. Sized so that a quadratic reader would scan about 2.7e11
    // bytes (minutes) while a linear one takes milliseconds: the time limit below is only a hang
    // guard, far above what any machine needs for the linear work.
    let count = 64 * 1024u32;
    let mut sig = words(&[count, 8]);
    let strings = 8 + 32 * count;
    for _ in 0..count {
        sig.extend_from_slice(&words(&[0, strings, 0, 0, 3, 0, 0xf, 0]));
    }
    sig.resize(sig.len() + (4 << 20), b'a');
    let err = Signature::parse(&sig, 0, FourCC::ISG1).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    let mut zeros = words(&[1, 8, 0, 40, 0, 0, 3, 0, 0xf, 0]);
    zeros.extend_from_slice(b"A\0");
    zeros.resize(zeros.len() + (1 << 20), 0);
    let parsed = Signature::parse(&zeros, 0, FourCC::ISG1).unwrap();
    assert_eq!(parsed.elements[0].name, "A");

    assert!(
        start.elapsed() < Duration::from_secs(60),
        "took {:?}: the hostile signatures are read in more than linear time",
        start.elapsed()
    );
    if let (Some(before), Some(after)) = (before, vm_peak_kib()) {
        assert!(
            after.saturating_sub(before) < 64 * 1024,
            "peak virtual memory grew from {before} KiB to {after} KiB"
        );
    }
}
