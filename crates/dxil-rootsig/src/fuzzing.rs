//! Fuzz bodies, shared by `fuzz/fuzz_targets/rootsig.rs` and this crate's smoke tests.
//!
//! They feed arbitrary bytes to the RTS0 reader and to the HLSL parser and check the
//! properties the rest of the crate promises on whatever parses. They panic (that is how a
//! fuzzer reports) only when a property fails; errors on bad input are fine.

use crate::{
    DeviceLimits, LayoutOptions, ParseOptions, RootCbvPolicy, RootSignature, ValidationOptions,
    Version, layout, parse_hlsl, read_rts0, validate,
};

/// Runs both bodies on one input.
pub fn run(data: &[u8]) {
    rts0(data);
    hlsl(data);
}

/// `data` as an RTS0 payload. If it reads: writing gives DXC's canonical bytes, which read
/// back to the same model and write the same bytes again; validation, layout and the HLSL
/// printer terminate without panicking, and printed HLSL parses back to the same model.
pub fn rts0(data: &[u8]) {
    let Ok(rs) = read_rts0(data) else { return };
    let bytes = match rs.to_rts0_bytes() {
        Ok(bytes) => bytes,
        Err(e) => panic!("a root signature that was read must write: {e}\n{rs:?}"),
    };
    match read_rts0(&bytes) {
        Ok(again) => assert_eq!(again, rs, "canonical bytes read back differently"),
        Err(e) => panic!("canonical bytes do not read: {e}"),
    }
    check_model(&rs);
}

/// `data` (as UTF-8, lossily) as an HLSL root signature string, compiled for 1.0 and 1.1. If
/// it parses: the RTS0 bytes read back to the same model, and printing then parsing again
/// gives the same model.
pub fn hlsl(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for version in [Version::V1_0, Version::V1_1] {
        let Ok(rs) = parse_hlsl(&text, &ParseOptions::version(version)) else {
            continue;
        };
        let bytes = match rs.to_rts0_bytes() {
            Ok(bytes) => bytes,
            Err(e) => panic!("a parsed root signature must write: {e}\n{text:?}"),
        };
        match read_rts0(&bytes) {
            Ok(again) => assert_eq!(again, rs, "bytes of {text:?} read back differently"),
            Err(e) => panic!("bytes of {text:?} do not read: {e}"),
        }
        check_model(&rs);
    }
}

fn check_model(rs: &RootSignature) {
    let valid = validate(rs, &ValidationOptions::default()).is_ok();
    for (limits, options) in [
        (DeviceLimits::default(), LayoutOptions::default()),
        (
            DeviceLimits {
                max_push_constants_size: 128,
                mutable_descriptors: false,
                buffer_device_address: false,
                ..DeviceLimits::default()
            },
            LayoutOptions {
                root_cbv: RootCbvPolicy::PushDescriptor,
                ..LayoutOptions::default()
            },
        ),
    ] {
        if let Ok(l) = layout(rs, &limits, &options) {
            assert!(valid, "layout accepted an invalid root signature");
            assert_eq!(l.parameters.len(), rs.parameters.len());
            assert!(l.root_block.size_in_bytes <= 256);
        }
    }
    if let Ok(text) = rs.to_hlsl() {
        match parse_hlsl(&text, &ParseOptions::version(rs.version)) {
            Ok(again) => assert_eq!(&again, rs, "printed {text:?} parses differently"),
            Err(e) => panic!("printed {text:?} does not parse: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: a deterministic generator, so that a failure reproduces.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    const SEEDS: &[&str] = &[
        "",
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | DENY_HULL_SHADER_ROOT_ACCESS), CBV(b0), \
         RootConstants(num32BitConstants=4, b1, space=2), \
         DescriptorTable(SRV(t0, numDescriptors=unbounded, flags=DESCRIPTORS_VOLATILE), visibility=SHADER_VISIBILITY_PIXEL), \
         DescriptorTable(Sampler(s0, numDescriptors=16, offset=3)), UAV(u0, flags=DATA_STATIC), \
         StaticSampler(s16, filter=FILTER_MIN_MAG_MIP_LINEAR, mipLODBias=-0.5, maxLOD=4.5, \
         comparisonFunc=COMPARISON_ALWAYS, borderColor=STATIC_BORDER_COLOR_OPAQUE_BLACK_UINT)",
        "DescriptorTable(CBV(b1, space=7), SRV(t16, numDescriptors=8), UAV(u3, numDescriptors=unbounded, offset=44))",
        "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_MESH), SRV(t1, space=3), StaticSampler(s0, space=1)",
    ];

    const VOCABULARY: &[&str] = &[
        "RootFlags",
        "RootConstants",
        "DescriptorTable",
        "StaticSampler",
        "CBV",
        "SRV",
        "UAV",
        "Sampler",
        "numDescriptors",
        "unbounded",
        "space",
        "offset",
        "DESCRIPTOR_RANGE_OFFSET_APPEND",
        "num32BitConstants",
        "flags",
        "visibility",
        "filter",
        "addressU",
        "maxLOD",
        "mipLODBias",
        "maxAnisotropy",
        "comparisonFunc",
        "borderColor",
        "SHADER_VISIBILITY_PIXEL",
        "DATA_STATIC",
        "DESCRIPTORS_VOLATILE",
        "LOCAL_ROOT_SIGNATURE",
        "FILTER_ANISOTROPIC",
        "COMPARISON_LESS",
        "TEXTURE_ADDRESS_BORDER",
        "b0",
        "t1",
        "u4294967295",
        "s2",
        "0",
        "1",
        "-1",
        "4294967296",
        "1.5",
        "-0.25f",
        "3.4e38",
        "1e-50",
        ".",
        "(",
        ")",
        ",",
        "=",
        "|",
        " ",
        "\t",
        ";",
    ];

    #[test]
    fn smoke_mutated_blobs() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        for text in SEEDS {
            for version in [Version::V1_0, Version::V1_1, Version::V1_2] {
                // Seeds with flags do not compile for 1.0.
                let Ok(rs) = parse_hlsl(text, &ParseOptions::version(version)) else {
                    continue;
                };
                seeds.push(rs.to_rts0_bytes().unwrap_or_else(|e| panic!("{e}")));
            }
        }
        let interesting = [
            0u32,
            1,
            2,
            3,
            4,
            8,
            0x18,
            0x7f,
            0xffff_ffff,
            0xffff_fff0,
            0x8000_0000,
        ];
        let mut accepted = 0;
        for _ in 0..3000 {
            let mut data = seeds[rng.below(seeds.len())].clone();
            for _ in 0..1 + rng.below(4) {
                let len = data.len();
                match rng.below(4) {
                    0 if len > 0 => data[rng.below(len)] ^= 1 << rng.below(8),
                    1 if len >= 4 => {
                        let at = rng.below(len / 4) * 4;
                        let value = interesting[rng.below(interesting.len())];
                        data[at..at + 4].copy_from_slice(&value.to_le_bytes());
                    }
                    2 => data.truncate(rng.below(len + 1)),
                    _ => data.extend((0..rng.below(16)).map(|_| rng.next() as u8)),
                }
            }
            rts0(&data);
            accepted += usize::from(read_rts0(&data).is_ok());
        }
        // The mutations must leave enough inputs readable to exercise the write side.
        assert!(accepted > 300, "only {accepted} mutated blobs read");
    }

    #[test]
    fn smoke_token_soup() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let mut parsed = 0;
        for i in 0..3000 {
            let text = if i % 2 == 0 {
                // Mutate a valid string: delete, duplicate or replace a slice.
                let mut text = SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec();
                for _ in 0..1 + rng.below(3) {
                    let len = text.len();
                    let at = rng.below(len + 1);
                    let end = (at + rng.below(8)).min(len);
                    match rng.below(3) {
                        0 => {
                            text.drain(at..end);
                        }
                        1 => {
                            let copy = text[at..end].to_vec();
                            text.splice(at..at, copy);
                        }
                        _ => {
                            let word = VOCABULARY[rng.below(VOCABULARY.len())].as_bytes();
                            text.splice(at..end, word.iter().copied());
                        }
                    }
                }
                text
            } else {
                let mut text = Vec::new();
                for _ in 0..rng.below(24) {
                    text.extend(VOCABULARY[rng.below(VOCABULARY.len())].as_bytes());
                    if rng.below(3) == 0 {
                        text.push(b' ');
                    }
                }
                text
            };
            hlsl(&text);
            parsed += usize::from(
                parse_hlsl(&String::from_utf8_lossy(&text), &ParseOptions::default()).is_ok(),
            );
        }
        assert!(parsed > 100, "only {parsed} generated strings parsed");
    }

    #[test]
    fn smoke_raw_bytes() {
        let mut rng = Rng(42);
        for _ in 0..2000 {
            let data: Vec<u8> = (0..rng.below(200)).map(|_| rng.next() as u8).collect();
            run(&data);
        }
    }
}
