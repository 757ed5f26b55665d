//! Patchable specialization constants: the table a translation returns (and embeds), patching
//! in place changing only the value bits and the two hashes, refusals with clear errors, and
//! DXC's validator accepting patched containers.

use dxil_from_spirv::spec::{SpecTable, patch};
use dxil_from_spirv::{ErrorKind, Options, SpecMode};

const SPEC_LOOP: &[u8] = include_bytes!("data/spec_loop.spv");
/// The patch bench's 10 KB container: three constants used near the top of the body.
const SPEC_10K: &[u8] = include_bytes!("data/spec_10k.spv");

fn patchable() -> Options {
    Options {
        spec_constants: SpecMode::Patchable,
        ..Options::default()
    }
}

/// Byte ranges that patching constant `ids` may change: the digest, the HASH part's MD5 and
/// the bytes of those constants' VBR fields.
fn allowed_ranges(container: &[u8], table: &SpecTable, ids: &[u32]) -> Vec<std::ops::Range<usize>> {
    let c = dxil_container::Container::parse(container).unwrap();
    let hash = c.part(dxil_container::FourCC::HASH).unwrap();
    let mut out = vec![4..20, hash.data_offset + 4..hash.data_offset + 20];
    for k in &table.constants {
        if ids.contains(&k.spec_id) {
            for &bit in &k.bit_offsets {
                // Five VBR8 chunks: 40 bits.
                let first = (bit / 8) as usize;
                let last = ((bit + 39) / 8) as usize;
                out.push(first..last + 1);
            }
        }
    }
    out
}

#[test]
fn table_lists_every_constant_and_why_some_fold() {
    let out = dxil_from_spirv::translate_bytes(SPEC_LOOP, &patchable()).unwrap();
    let t = &out.spec_constants;
    let ids: Vec<u32> = t.constants.iter().map(|c| c.spec_id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 1, 2, 3, 4]);
    for c in &t.constants {
        if c.spec_id == 4 {
            assert_eq!(c.folded.as_deref(), Some("it sizes an array type"));
            assert!(c.bit_offsets.is_empty());
        } else {
            assert!(c.folded.is_none(), "constant {} folded", c.spec_id);
            assert_eq!(c.bit_offsets.len(), 1, "constant {}", c.spec_id);
        }
    }
    // The embedded table is the returned one.
    let embedded = SpecTable::from_container(&out.container).unwrap().unwrap();
    assert_eq!(&embedded, t);
    // Default values, as bits of each type.
    let value = |id| t.constants.iter().find(|c| c.spec_id == id).unwrap().value;
    assert_eq!(value(0), 4);
    assert_eq!(value(1), 0);
    assert_eq!(value(2), u64::from(2.0f32.to_bits()));
    assert_eq!(value(3) as u32, (-3i32) as u32);
}

#[test]
fn patching_changes_only_value_bits_and_hashes() {
    let out = dxil_from_spirv::translate_bytes(SPEC_LOOP, &patchable()).unwrap();
    let table = &out.spec_constants;
    let cases: &[(u32, u64)] = &[
        (0, 10),
        (1, 1),
        (2, u64::from(0.5f32.to_bits())),
        (3, u64::from((-100i32) as u32)),
        (0, u64::from(u32::MAX)),
        (3, u64::from(i32::MIN as u32)),
    ];
    for &(id, value) in cases {
        let mut patched = out.container.clone();
        patch(&mut patched, table, &[(id, value)]).unwrap();
        assert_ne!(
            patched, out.container,
            "patching {id} = {value} changed nothing"
        );
        let allowed = allowed_ranges(&out.container, table, &[id]);
        for (i, (a, b)) in out.container.iter().zip(&patched).enumerate() {
            if a != b {
                assert!(
                    allowed.iter().any(|r| r.contains(&i)),
                    "patching {id} = {value} changed byte {i}"
                );
            }
        }
        assert_eq!(patched.len(), out.container.len());
        let c = dxil_container::Container::parse(&patched).unwrap();
        assert_eq!(c.digest_status(), dxil_container::DigestStatus::Signed);
        // The module reads back, and the patched value is the constant's value.
        let p = c.program().unwrap().unwrap();
        dxil_module::read_module(p.bitcode, 0).unwrap();
        // The HASH part (after DXIL in patchable containers) holds the bitcode's plain MD5.
        let names: Vec<String> = c.parts().iter().map(|p| p.fourcc.to_string()).collect();
        assert_eq!(names[names.len() - 3..], ["DXIL", "HASH", "PRIV"]);
        let hash = c.part(dxil_container::FourCC::HASH).unwrap();
        assert_eq!(hash.data[4..20], dxil_container::hash::md5(p.bitcode));
        // Patching the default back restores the original bytes.
        let default = table
            .constants
            .iter()
            .find(|c| c.spec_id == id)
            .unwrap()
            .value;
        patch(&mut patched, table, &[(id, default)]).unwrap();
        assert_eq!(patched, out.container, "patching {id} back");
    }
}

#[test]
fn patching_agrees_with_translating_at_that_value() {
    // Patchable translation with initial values = patching the default translation.
    let values = [
        (0u32, 7u64),
        (1, 1),
        (2, u64::from(3.25f32.to_bits())),
        (3, 5),
    ];
    let direct = dxil_from_spirv::translate_bytes(
        SPEC_LOOP,
        &Options {
            spec_values: values.to_vec(),
            ..patchable()
        },
    )
    .unwrap();
    let mut patched = dxil_from_spirv::translate_bytes(SPEC_LOOP, &patchable()).unwrap();
    let table = patched.spec_constants.clone();
    patch(&mut patched.container, &table, &values).unwrap();
    // The embedded tables differ in the recorded values; everything else is equal.
    let strip = |c: &[u8]| {
        let parsed = dxil_container::Container::parse(c).unwrap();
        parsed
            .parts()
            .iter()
            .filter(|p| p.fourcc != dxil_container::FourCC::PRIV)
            .map(|p| (p.fourcc, p.data.to_vec()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&direct.container), strip(&patched.container));
}

#[test]
fn refusals_name_the_constant() {
    let out = dxil_from_spirv::translate_bytes(SPEC_LOOP, &patchable()).unwrap();
    let mut c = out.container.clone();
    let e = patch(&mut c, &out.spec_constants, &[(4, 16)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SpecConstant);
    assert!(
        e.message.contains("4") && e.message.contains("folded"),
        "{e}"
    );
    let e = patch(&mut c, &out.spec_constants, &[(9, 1)]).unwrap_err();
    assert!(e.message.contains("no specialization constant 9"), "{e}");
    let e = patch(&mut c, &out.spec_constants, &[(1, 2)]).unwrap_err();
    assert!(e.message.contains("does not fit"), "{e}");
    let e = patch(&mut c, &out.spec_constants, &[(0, 1 << 32)]).unwrap_err();
    assert!(e.message.contains("does not fit"), "{e}");
    assert_eq!(
        c, out.container,
        "refused patches must not change the container"
    );
}

#[test]
fn folding_mode_has_no_patch_sites() {
    let out = dxil_from_spirv::translate_bytes(SPEC_LOOP, &Options::default()).unwrap();
    assert!(
        out.spec_constants
            .constants
            .iter()
            .all(|c| c.folded.is_some())
    );
    assert!(SpecTable::from_container(&out.container).unwrap().is_none());
}

#[test]
fn table_bytes_round_trip_and_reject_damage() {
    let out = dxil_from_spirv::translate_bytes(SPEC_LOOP, &patchable()).unwrap();
    let t = out.spec_constants;
    let bytes = t.to_bytes();
    let back = SpecTable::from_bytes(&bytes).unwrap();
    assert_eq!(back.constants.len(), t.constants.len());
    for n in 0..bytes.len() {
        // Every truncation is an error, never a panic.
        assert!(SpecTable::from_bytes(&bytes[..n]).is_err());
    }
}

#[test]
fn dxv_accepts_patched_containers() {
    let Some(dxv) = dxil_corpus::dxv() else {
        return;
    };
    let out = dxil_from_spirv::translate_bytes(SPEC_LOOP, &patchable()).unwrap();
    let mut c = out.container.clone();
    patch(
        &mut c,
        &out.spec_constants,
        &[
            (0, 100),
            (1, 1),
            (2, u64::from((-1.5f32).to_bits())),
            (3, 0),
        ],
    )
    .unwrap();
    // The 10 KB container, patched by the prepared patcher (bool, uint and float constants).
    let big = dxil_from_spirv::translate_bytes(SPEC_10K, &patchable()).unwrap();
    let mut p = dxil_from_spirv::spec::Patcher::from_container(big.container.clone()).unwrap();
    p.set(&[(0, 0), (1, 9), (2, u64::from(0.25f32.to_bits()))])
        .unwrap();
    let dir = std::env::temp_dir().join(format!("dxil-from-spirv-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in [
        ("original", &out.container),
        ("patched", &c),
        ("original-10k", &big.container),
        ("patched-10k", &p.container().to_vec()),
    ] {
        if let Err(text) = dxil_corpus::run_dxv(&dxv, &dir.join(format!("{name}.dxil")), bytes) {
            panic!("{name}: {text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The prepared patcher, which hashes only the bytes from the first site on, writes exactly
/// what `patch` writes, patch after patch, on a small, a larger and a 10 KB container.
#[test]
fn patcher_matches_patch_byte_for_byte() {
    const SPEC_BIG: &[u8] = include_bytes!("data/spec_big.spv");
    for spv in [SPEC_LOOP, SPEC_BIG, SPEC_10K] {
        let out = dxil_from_spirv::translate_bytes(spv, &patchable()).unwrap();
        let table = out.spec_constants.clone();
        let ids: Vec<u32> = table
            .constants
            .iter()
            .filter(|c| c.folded.is_none())
            .map(|c| c.spec_id)
            .collect();
        assert!(!ids.is_empty());
        let mut p = dxil_from_spirv::spec::Patcher::from_container(out.container.clone()).unwrap();
        let mut reference = out.container.clone();
        for (i, value) in [1u64, 7, 0, 0x7fff_ffff, 3].into_iter().enumerate() {
            let id = ids[i % ids.len()];
            let value = if table
                .constants
                .iter()
                .any(|c| c.spec_id == id && c.ty == dxil_from_spirv::spec::SpecType::Bool)
            {
                value & 1
            } else {
                value
            };
            patch(&mut reference, &table, &[(id, value)]).unwrap();
            p.set(&[(id, value)]).unwrap();
            assert_eq!(
                p.container(),
                &reference[..],
                "after setting {id} to {value}"
            );
            assert_eq!(
                dxil_container::hash::container_digest(p.container()),
                p.container()[4..20]
            );
        }
    }
}
