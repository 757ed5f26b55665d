//! Corpus checks over the DXIL parts of every container in the shared corpus: read every block
//! and record, re-encode byte for byte, and compare a sample with `llvm-bcanalyzer-14 -dump`.
//! The corpus is `$DXIL_CORPUS` or `../shared/corpus` beside the repository; when it is
//! missing these tests are skipped with a message, or fail if `CI` is set.

use std::process::Command;
use std::time::Instant;

use dxil_bitstream::{BLOCKINFO_BLOCK_ID, BitstreamReader, Entry, builtin_abbrev, reencode};

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(*b.get(at..)?.first_chunk::<4>()?))
}

/// The bitcode of a container's DXIL part and its byte offset in the file, or `None` when the
/// container has no DXIL part (root-signature-only containers).
fn dxil_bitcode(file: &[u8]) -> Result<Option<(usize, &[u8])>, String> {
    if file.get(..4) != Some(b"DXBC") {
        return Err("not a DXBC container".into());
    }
    let count = u32_at(file, 28).ok_or("short header")? as usize;
    for i in 0..count {
        let part = u32_at(file, 32 + 4 * i).ok_or("short part table")? as usize;
        if file.get(part..part + 4) != Some(b"DXIL") {
            continue;
        }
        let data = part + 8;
        let offset = u32_at(file, data + 16).ok_or("short program header")? as usize;
        let size = u32_at(file, data + 20).ok_or("short program header")? as usize;
        let start = data + 8 + offset;
        let bitcode = file
            .get(start..start + size)
            .ok_or("bitcode past the end of the file")?;
        return Ok(Some((start, bitcode)));
    }
    Ok(None)
}

struct Sample {
    name: String,
    file: Vec<u8>,
    offset: usize,
    size: usize,
}

impl Sample {
    fn bitcode(&self) -> &[u8] {
        &self.file[self.offset..self.offset + self.size]
    }
}

fn load_corpus() -> Option<(Vec<Sample>, usize)> {
    let dir = dxil_corpus::corpus_dir()?;
    let paths = dxil_corpus::containers(&dir);
    assert!(!paths.is_empty(), "no .dxil files under {}", dir.display());
    let mut samples = Vec::new();
    let mut without_dxil = 0;
    for p in paths {
        let file = std::fs::read(&p).unwrap();
        let name = p.strip_prefix(&dir).unwrap().display().to_string();
        match dxil_bitcode(&file) {
            Ok(Some((offset, bc))) => {
                let size = bc.len();
                samples.push(Sample {
                    name,
                    file,
                    offset,
                    size,
                })
            }
            Ok(None) => without_dxil += 1,
            Err(e) => panic!("{name}: {e}"),
        }
    }
    Some((samples, without_dxil))
}

#[derive(Default, Debug)]
struct Counts {
    blocks: u64,
    records: u64,
    abbrev_records: u64,
    operands: u64,
    abbrev_defs: u64,
}

/// Reads every block and record; positions are absolute in the container file.
fn read_all(
    bitcode: &[u8],
    base: u64,
    counts: &mut Counts,
    ops: &mut Vec<u64>,
) -> Result<(), String> {
    let mut r = BitstreamReader::new(bitcode, base).map_err(|e| e.to_string())?;
    loop {
        match r.next().map_err(|e| e.to_string())? {
            Entry::SubBlock { .. } => {
                counts.blocks += 1;
                r.enter_block().map_err(|e| e.to_string())?;
            }
            Entry::Record {
                abbrev_id,
                bit_offset,
            } => {
                let rec = r.read_record(ops).map_err(|e| e.to_string())?;
                assert_eq!((rec.abbrev_id, rec.bit_offset), (abbrev_id, bit_offset));
                assert!(bit_offset >= base * 8);
                counts.records += 1;
                counts.operands += ops.len() as u64;
                if abbrev_id != builtin_abbrev::UNABBREV_RECORD {
                    counts.abbrev_records += 1;
                }
            }
            Entry::DefineAbbrev { .. } => counts.abbrev_defs += 1,
            Entry::EndBlock { .. } => {}
            Entry::TrailingData {
                byte_len,
                all_zero,
                bit_offset,
            } => {
                return Err(format!(
                    "{byte_len} trailing bytes at bit {bit_offset} (all zero: {all_zero})"
                ));
            }
            Entry::EndOfStream => return Ok(()),
        }
    }
}

#[test]
fn corpus_reads_every_block_and_record() {
    let Some((samples, without_dxil)) = load_corpus() else {
        return;
    };
    let mut counts = Counts::default();
    let mut ops = Vec::new();
    let mut failures = Vec::new();
    let mut bytes = 0;
    for s in &samples {
        bytes += s.size;
        if let Err(e) = read_all(s.bitcode(), s.offset as u64, &mut counts, &mut ops) {
            failures.push(format!("{}: {e}", s.name));
        }
    }
    println!(
        "read {} bitcode streams ({bytes} bytes; {without_dxil} containers without DXIL part): {counts:?}",
        samples.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(counts.records > 0 && counts.abbrev_records > 0);
}

#[test]
fn corpus_reencodes_byte_identical() {
    let Some((samples, _)) = load_corpus() else {
        return;
    };
    let mut failures = Vec::new();
    for s in &samples {
        match reencode(s.bitcode()) {
            Ok(out) if out.bytes == s.bitcode() && out.trailing.is_none() => {}
            Ok(out) => {
                let at = out
                    .bytes
                    .iter()
                    .zip(s.bitcode())
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.bytes.len().min(s.size));
                failures.push(format!(
                    "{}: differs at byte {at} (lengths {} vs {})",
                    s.name,
                    out.bytes.len(),
                    s.size
                ));
            }
            Err(e) => failures.push(format!("{}: {e}", s.name)),
        }
    }
    println!(
        "re-encoded {} bitcode streams, {} identical",
        samples.len(),
        samples.len() - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[derive(Debug, PartialEq, Eq)]
enum Event {
    Block {
        id: u32,
        width: u32,
        words: u32,
    },
    BlockInfo,
    End,
    Record {
        code: u32,
        abbrev: Option<u32>,
        ops: Vec<u64>,
    },
}

fn our_events(bitcode: &[u8]) -> Vec<Event> {
    let mut r = BitstreamReader::new(bitcode, 0).unwrap();
    let mut ops = Vec::new();
    let mut events = Vec::new();
    loop {
        match r.next().unwrap() {
            Entry::SubBlock {
                block_id: BLOCKINFO_BLOCK_ID,
                ..
            } => {
                // llvm-bcanalyzer prints BLOCKINFO as a single empty element.
                events.push(Event::BlockInfo);
                r.skip_block().unwrap();
            }
            Entry::SubBlock {
                block_id,
                abbrev_width,
                length_words,
                ..
            } => {
                events.push(Event::Block {
                    id: block_id,
                    width: abbrev_width,
                    words: length_words,
                });
                r.enter_block().unwrap();
            }
            Entry::Record { .. } => {
                let rec = r.read_record(&mut ops).unwrap();
                events.push(Event::Record {
                    code: rec.code,
                    abbrev: (rec.abbrev_id != builtin_abbrev::UNABBREV_RECORD)
                        .then_some(rec.abbrev_id),
                    ops: ops.clone(),
                });
            }
            Entry::EndBlock { .. } => events.push(Event::End),
            Entry::DefineAbbrev { .. } => {}
            Entry::TrailingData { .. } => panic!("trailing data"),
            Entry::EndOfStream => return events,
        }
    }
}

fn field(token: &str, key: &str) -> Option<u64> {
    token
        .strip_prefix(key)?
        .trim_end_matches("/>")
        .trim_end_matches('>')
        .parse()
        .ok()
}

/// Parses `llvm-bcanalyzer -dump --non-symbolic` output (the part before the summary).
fn bcanalyzer_events(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("Summary of") {
            break;
        }
        if line.starts_with("</") {
            events.push(Event::End);
            continue;
        }
        if line.starts_with("<BLOCKINFO_BLOCK") {
            events.push(Event::BlockInfo);
            continue;
        }
        if !line.starts_with('<') {
            continue;
        }
        // Everything after the element's "/>" (e.g. "record string = ...") is commentary.
        let element = line.split("/>").next().unwrap_or(line);
        let tokens: Vec<&str> = element.split_whitespace().skip(1).collect();
        let get = |key: &str| tokens.iter().find_map(|t| field(t, key));
        if let Some(id) = get("BlockID=") {
            events.push(Event::Block {
                id: id as u32,
                width: get("BlockCodeSize=").expect(line) as u32,
                words: get("NumWords=").expect(line) as u32,
            });
        } else if let Some(code) = get("codeid=") {
            let ops = tokens
                .iter()
                .filter(|t| t.starts_with("op"))
                .map(|t| {
                    let (_, v) = t.split_once('=').expect(line);
                    v.parse::<u64>()
                        .unwrap_or_else(|_| panic!("operand in {line}"))
                })
                .collect();
            events.push(Event::Record {
                code: code as u32,
                abbrev: get("abbrevid=").map(|a| a as u32),
                ops,
            });
        } else {
            panic!("unrecognised bcanalyzer line: {line}");
        }
    }
    events
}

#[test]
fn corpus_sample_matches_llvm_bcanalyzer() {
    let Some((samples, _)) = load_corpus() else {
        return;
    };
    let tool = "llvm-bcanalyzer-14";
    if Command::new(tool).arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} not found and CI is set"
        );
        eprintln!("SKIPPED: {tool} not found");
        return;
    }
    const SAMPLE: usize = 30;
    let step = (samples.len() / SAMPLE).max(1);
    let dir = std::env::temp_dir().join(format!("dxil-bitstream-bca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut files, mut events) = (0, 0);
    for s in samples.iter().step_by(step).take(SAMPLE) {
        let path = dir.join("sample.bc");
        std::fs::write(&path, s.bitcode()).unwrap();
        let out = Command::new(tool)
            .args(["-dump", "--non-symbolic"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {tool} failed", s.name);
        let theirs = bcanalyzer_events(&String::from_utf8_lossy(&out.stdout));
        let ours = our_events(s.bitcode());
        if let Some(i) = ours.iter().zip(&theirs).position(|(a, b)| a != b) {
            panic!(
                "{}: event {i} differs: ours {:?}, bcanalyzer {:?}",
                s.name, ours[i], theirs[i]
            );
        }
        assert_eq!(ours.len(), theirs.len(), "{}: event counts", s.name);
        files += 1;
        events += ours.len();
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("{files} files, {events} blocks/records identical to {tool}");
    assert!(files >= SAMPLE.min(samples.len()));
}

/// CPU seconds this process has used (user + system), from `/proc/self/stat`; `None`
/// elsewhere. Reported beside wall time because other builds may share the machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn throughput(label: &str, bytes: usize, mut f: impl FnMut()) {
    // DXIL_BENCH=<word> runs only the measurements whose label starts with it.
    if std::env::var("DXIL_BENCH").is_ok_and(|only| !label.starts_with(&only)) {
        return;
    }
    f();
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let seconds = std::env::var("DXIL_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let mut iterations = 0u32;
    while start.elapsed().as_secs_f64() < seconds {
        f();
        iterations += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let total = bytes as f64 * f64::from(iterations) / 1e6;
    let cpu = cpu_start
        .zip(cpu_seconds())
        .map(|(a, b)| format!(", {:.0} MB/s of CPU time", total / (b - a)))
        .unwrap_or_default();
    println!(
        "{label}: {:.0} MB/s wall{cpu} ({bytes} bytes x {iterations} in {secs:.2} s)",
        total / secs
    );
}

#[test]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
fn bench_corpus_throughput() {
    let Some((samples, _)) = load_corpus() else {
        return;
    };
    let total: usize = samples.iter().map(|s| s.size).sum();
    let mut ops = Vec::with_capacity(1024);
    throughput(
        "read (enter every block, decode every record)",
        total,
        || {
            for s in &samples {
                let mut r = BitstreamReader::new(s.bitcode(), 0).unwrap();
                loop {
                    match r.next().unwrap() {
                        Entry::SubBlock { .. } => r.enter_block().unwrap(),
                        Entry::Record { .. } => {
                            std::hint::black_box(r.read_record(&mut ops).unwrap());
                        }
                        Entry::EndOfStream => break,
                        _ => {}
                    }
                }
            }
        },
    );
    throughput("skip (enter every block, skip every record)", total, || {
        for s in &samples {
            let mut r = BitstreamReader::new(s.bitcode(), 0).unwrap();
            loop {
                match r.next().unwrap() {
                    Entry::SubBlock { .. } => r.enter_block().unwrap(),
                    Entry::EndOfStream => break,
                    _ => {}
                }
            }
        }
    });
    throughput("re-encode (read + write)", total, || {
        for s in &samples {
            std::hint::black_box(reencode(s.bitcode()).unwrap());
        }
    });
}
