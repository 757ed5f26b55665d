//! Corpus checks: every container of the shared corpus parses strictly, its digest classifies as
//! the manifest says, every part decodes, every typed part writes back byte for byte, and the
//! whole container re-assembles (and re-signs) to the input bytes.

mod common;

use std::collections::BTreeMap;

use dxil_container::{
    CompilerVersion, Container, DebugName, DigestMode, DigestStatus, FeatureInfo, FourCC,
    ProgramHeader, ShaderHash, Signature, ValidatorVersion, hash, write_container,
};

/// Validator versions whose signature byte rules fit a container with this PSV0 version. The
/// PSV0 version follows the validator version; v2 covers 1.6 (unaligned) and 1.7 (aligned).
fn validator_candidates(psv_version: Option<u32>) -> &'static [ValidatorVersion] {
    const V1_6: ValidatorVersion = ValidatorVersion::new(1, 6);
    const V1_7: ValidatorVersion = ValidatorVersion::new(1, 7);
    const V1_8: ValidatorVersion = ValidatorVersion::new(1, 8);
    match psv_version {
        Some(3..) => &[V1_8],
        Some(2) => &[V1_7, V1_6],
        Some(_) => &[V1_6],
        None => &[V1_8, V1_6],
    }
}

/// Re-serializes one part from its typed form; `None` for parts kept as raw bytes.
fn reserialize(
    container: &Container<'_>,
    fourcc: FourCC,
    data: &[u8],
    base: usize,
) -> Result<Option<Vec<u8>>, String> {
    let e = |e: dxil_container::Error| e.to_string();
    Ok(Some(match fourcc {
        FourCC::DXIL | FourCC::STAT | FourCC::ILDB => ProgramHeader::parse(data, base, fourcc)
            .map_err(e)?
            .write(fourcc)
            .map_err(e)?,
        FourCC::ISG1 | FourCC::OSG1 | FourCC::PSG1 => {
            let sig = Signature::parse(data, base, fourcc).map_err(e)?;
            let psv_version = container.psv().and_then(|p| p.ok()).map(|p| p.version);
            let mut last = Vec::new();
            for &v in validator_candidates(psv_version) {
                last = sig.write(fourcc, v).map_err(e)?;
                if last == data {
                    break;
                }
            }
            last
        }
        FourCC::PSV0 => {
            let psv = container.psv().ok_or("no PSV0")?.map_err(e)?;
            if !psv.trailing.is_empty() || !psv.runtime_info_extra.is_empty() {
                return Err(format!(
                    "PSV0 v{} has {} trailing and {} extra runtime-info bytes",
                    psv.version,
                    psv.trailing.len(),
                    psv.runtime_info_extra.len()
                ));
            }
            psv.write().map_err(e)?
        }
        FourCC::SFI0 => FeatureInfo::parse(data, base).map_err(e)?.write(),
        FourCC::HASH => ShaderHash::parse(data, base).map_err(e)?.write().to_vec(),
        FourCC::ILDN => DebugName::parse(data, base)
            .map_err(e)?
            .write()
            .map_err(e)?,
        FourCC::VERS => CompilerVersion::parse(data, base)
            .map_err(e)?
            .write()
            .map_err(e)?,
        _ => return Ok(None),
    }))
}

#[test]
fn digests_classify_as_the_manifest_says() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let entries = common::load(&root);
    assert!(
        !entries.is_empty(),
        "no containers under {}",
        root.display()
    );
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for entry in &entries {
        let container = match Container::parse(&entry.bytes) {
            Ok(c) => c,
            Err(err) => {
                failures.push(format!("{}: {err}", entry.name));
                continue;
            }
        };
        let status = container.digest_status();
        let key = format!("validated={:?} {:?}", entry.validated, status);
        *counts.entry(key).or_default() += 1;
        let expected = match entry.validated {
            Some(true) => DigestStatus::Signed,
            Some(false) => DigestStatus::Unsigned,
            None => continue,
        };
        if status != expected {
            failures.push(format!("{}: {status:?}, expected {expected:?}", entry.name));
        }
        if status == DigestStatus::Signed {
            assert_eq!(container.computed_digest(), container.header().digest);
        }
    }
    println!(
        "digest classes over {} containers: {counts:#?}",
        entries.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let signed = counts
        .iter()
        .filter(|(k, _)| k.starts_with("validated=Some(true) Signed"))
        .map(|(_, n)| n)
        .sum::<usize>();
    assert!(signed > 1000, "only {signed} signed containers");
}

#[test]
fn every_part_round_trips_byte_for_byte() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let entries = common::load(&root);
    // fourcc -> (identical, total)
    let mut per_part: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut exceptions = Vec::new();
    let mut reassembled = 0;
    let mut hash_checked = 0;
    for entry in &entries {
        let container =
            Container::parse(&entry.bytes).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
        assert!(
            container.problems().is_empty(),
            "{}: {:?}",
            entry.name,
            container.problems()
        );
        let mut rebuilt: Vec<(FourCC, Vec<u8>)> = Vec::new();
        for part in container.parts() {
            container
                .decode(part)
                .unwrap_or_else(|e| panic!("{}: {e}", entry.name));
            let bytes = match reserialize(&container, part.fourcc, part.data, part.data_offset) {
                Ok(Some(bytes)) => {
                    let slot = per_part.entry(part.fourcc.to_string()).or_default();
                    slot.1 += 1;
                    if bytes == part.data {
                        slot.0 += 1;
                    } else {
                        exceptions.push(format!(
                            "{}: {} differs ({} bytes written, {} read)",
                            entry.name,
                            part.fourcc,
                            bytes.len(),
                            part.data.len()
                        ));
                    }
                    bytes
                }
                Ok(None) => part.data.to_vec(),
                Err(err) => {
                    exceptions.push(format!("{}: {}: {err}", entry.name, part.fourcc));
                    part.data.to_vec()
                }
            };
            rebuilt.push((part.fourcc, bytes));
        }
        if let (Some(Ok(h)), Some(Ok(p))) = (container.shader_hash(), container.program())
            && !h.includes_source()
        {
            assert_eq!(
                h.digest,
                hash::md5(p.bitcode),
                "{}: HASH digest",
                entry.name
            );
            hash_checked += 1;
        }
        let mode = match container.digest_status() {
            DigestStatus::Signed => DigestMode::Retail,
            _ => DigestMode::Keep(container.header().digest),
        };
        let out = write_container(&rebuilt, mode).expect("re-assembly fits");
        if out == entry.bytes {
            reassembled += 1;
        } else {
            exceptions.push(format!("{}: re-assembled container differs", entry.name));
        }
    }
    println!(
        "{} containers, {reassembled} re-assembled byte for byte (re-signed where signed); \
         HASH = MD5(bitcode) checked in {hash_checked}",
        entries.len()
    );
    println!("parts identical/total: {per_part:#?}");
    assert!(
        exceptions.is_empty(),
        "{} exceptions:\n{}",
        exceptions.len(),
        exceptions.join("\n")
    );
}

/// A small deterministic generator for the mutation test (xorshift64*).
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

#[test]
fn truncations_and_bit_flips_end_in_errors_not_panics() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let entries = common::load(&root);
    // Every truncation re-hashes the whole prefix, so the cost grows with the square of the
    // size; the 5% of containers above 6 KiB are left out of the sample.
    let small: Vec<&common::Entry> = entries
        .iter()
        .filter(|e| e.bytes.len() <= 6 << 10)
        .collect();
    // Unoptimized builds are some 20 times slower; they check a fifth of the sample.
    let (count, flips) = if cfg!(debug_assertions) {
        (10, 100)
    } else {
        (50, 300)
    };
    let step = (small.len() / count).max(1);
    let sample: Vec<&common::Entry> = small.into_iter().step_by(step).take(count).collect();
    let start = std::time::Instant::now();
    let mut cases = 0usize;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for entry in &sample {
        let bytes = &entry.bytes;
        for len in 0..=bytes.len() {
            dxil_container::fuzz::fuzz_container(&bytes[..len]);
            cases += 1;
        }
        // Flips land in the header and small parts half of the time: the bitcode is not decoded
        // here, so flips there test little.
        let mut mutated = bytes.clone();
        for _ in 0..flips {
            mutated.copy_from_slice(bytes);
            for _ in 0..1 + rng.below(4) {
                let at = if rng.below(2) == 0 {
                    rng.below(bytes.len().min(1024))
                } else {
                    rng.below(bytes.len())
                };
                mutated[at] ^= 1 << rng.below(8);
            }
            dxil_container::fuzz::fuzz_container(&mutated);
            cases += 1;
        }
    }
    println!(
        "{} containers, {cases} truncated or mutated inputs in {:?}",
        sample.len(),
        start.elapsed()
    );
    assert_eq!(sample.len(), count);
}

#[test]
fn json_names_enums_and_resolves_names() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let entries = common::load(&root);
    let mut seen = 0;
    for entry in &entries {
        let container = Container::parse(&entry.bytes).unwrap();
        let Some(Ok(psv)) = container.psv() else {
            continue;
        };
        if psv.input_elements.is_empty() || psv.runtime_info.entry_function_name.is_none() {
            continue;
        }
        let json = serde_json::to_value(container.info()).unwrap();
        let parts = json["parts"].as_array().unwrap();
        let psv_json = parts
            .iter()
            .find(|p| p["fourcc"] == "PSV0")
            .expect("PSV0 listed");
        let content = &psv_json["content"]["Ok"]["content"];
        assert!(content["entry_function_name"].is_string(), "{content}");
        assert!(content["runtime_info"]["v1"]["shader_stage"].is_string());
        let element = &content["input_elements"][0];
        assert!(element["semantic_kind"].is_string(), "{element}");
        assert!(element["semantic_indices"].is_array(), "{element}");
        let isg1 = parts.iter().find(|p| p["fourcc"] == "ISG1").unwrap();
        let first = &isg1["content"]["Ok"]["content"]["elements"][0];
        assert!(first["name"].is_string() && first["system_value"].is_string());
        assert!(json["digest_status"]["status"].is_string());
        seen += 1;
    }
    assert!(seen > 100, "only {seen} containers with input elements");
}
