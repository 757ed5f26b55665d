//! The body of the `container` fuzz target, kept here so that `cargo test` exercises it.

use crate::parts::PartContent;
use crate::{Container, ValidatorVersion};

/// Parses `data` as a container (strictly and leniently), decodes every part, renders every
/// view as text and JSON, and writes every decoded part back. Panics only when an invariant
/// fails: a writer's output must always read back, and for PSV0 reading what was written must
/// give the same value.
pub fn fuzz_container(data: &[u8]) {
    let strict = Container::parse(data);
    let Ok(container) = Container::parse_lenient(data) else {
        assert!(
            strict.is_err(),
            "strict parse accepted what lenient refused"
        );
        return;
    };
    if let Ok(strict) = &strict {
        assert_eq!(strict.parts(), container.parts());
    }
    // The text summary classifies the digest too (two MD5 passes over the whole input).
    let _ = container.to_string();
    let _ = serde_json::to_string(&container.info());
    let stage = container
        .program()
        .and_then(|p| p.ok())
        .map(|p| p.shader_kind);
    for part in container.parts() {
        let _ = part.decode();
        let Ok(content) = container.decode(part) else {
            continue;
        };
        let _ = content.to_string();
        let _ = serde_json::to_string(&content);
        check_write_back(&content, part.data_offset, stage);
    }
    let _ = container.program();
    let _ = container.psv();
    let _ = container.input_signature();
    let _ = container.feature_info();
    let _ = container.runtime_data();
}

fn check_write_back(content: &PartContent<'_>, base: usize, stage: Option<crate::ShaderKind>) {
    match content {
        PartContent::Program(p) => {
            if let Ok(bytes) = p.write(crate::FourCC::DXIL) {
                let back = crate::ProgramHeader::parse(&bytes, base, crate::FourCC::DXIL)
                    .expect("written program part reads back");
                assert_eq!(back.bitcode, p.bitcode);
            }
        }
        PartContent::Signature(s) => {
            for v in [ValidatorVersion::new(1, 6), ValidatorVersion::new(1, 8)] {
                if let Ok(bytes) = s.write(crate::FourCC::ISG1, v) {
                    let back = crate::Signature::parse(&bytes, base, crate::FourCC::ISG1)
                        .expect("written signature reads back");
                    assert_eq!(back.elements, s.elements);
                }
            }
        }
        PartContent::Psv(p) => {
            if let Ok(bytes) = p.write() {
                let back = crate::Psv::parse(&bytes, base, stage).expect("written PSV0 reads back");
                assert_eq!(back.runtime_info, p.runtime_info);
                assert_eq!(back.resources, p.resources);
                assert_eq!(back.input_elements, p.input_elements);
                assert_eq!(back.input_to_output_tables, p.input_to_output_tables);
            }
        }
        PartContent::FeatureInfo(f) => {
            assert_eq!(crate::FeatureInfo::parse(&f.write(), base).ok(), Some(*f));
        }
        PartContent::ShaderHash(h) => {
            assert_eq!(crate::ShaderHash::parse(&h.write(), base).ok(), Some(*h));
        }
        PartContent::DebugName(n) => {
            if let Ok(bytes) = n.write() {
                assert_eq!(crate::DebugName::parse(&bytes, base).ok(), Some(*n));
            }
        }
        PartContent::CompilerVersion(v) => {
            if let Ok(bytes) = v.write() {
                assert_eq!(crate::CompilerVersion::parse(&bytes, base).ok(), Some(*v));
            }
        }
        PartContent::RuntimeData(_) | PartContent::RootSignature(_) | PartContent::Raw(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DigestMode, FourCC, write_container};

    #[test]
    fn smoke() {
        fuzz_container(&[]);
        fuzz_container(b"DXBC");
        fuzz_container(&[0xff; 64]);
        let container = write_container(
            &[
                (FourCC::SFI0, vec![1, 0, 0, 0, 0, 0, 0, 0]),
                (FourCC::ISG1, vec![0, 0, 0, 0, 8, 0, 0, 0]),
                (FourCC::HASH, vec![0; 20]),
                (FourCC::PSV0, vec![0; 4]),
            ],
            DigestMode::Retail,
        )
        .unwrap();
        fuzz_container(&container);
        for len in 0..container.len() {
            fuzz_container(&container[..len]);
        }
    }
}
