//! `dxil info`: what a container holds.

use std::fmt::Write as _;
use std::path::PathBuf;

use dxil_container::{Container, DigestStatus, PartContent, Signature};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// A DXIL container; `-` reads standard input.
    file: PathBuf,
    /// Print everything as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Info<'a> {
    file: String,
    container: dxil_container::ContainerInfo<'a>,
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.file)?;
    let c = Container::parse_lenient(&bytes)?;
    let info = Info {
        file: a.file.display().to_string(),
        container: c.info(),
    };
    if a.json {
        let mut s = serde_json::to_string_pretty(&info)?;
        s.push('\n');
        return super::write_output(None, s.as_bytes());
    }
    let mut o = String::new();
    human(&mut o, &info, bytes.len())?;
    super::write_output(None, o.as_bytes())
}

fn digest_text(d: &DigestStatus) -> String {
    match d {
        DigestStatus::Signed => "signed (retail hash matches)".into(),
        DigestStatus::SignedDebug => "signed (debug hash matches)".into(),
        DigestStatus::Unsigned => "unsigned (zero)".into(),
        DigestStatus::Bypass => "bypass".into(),
        DigestStatus::Preview => "preview".into(),
        DigestStatus::Wrong { expected } => {
            let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
            format!("WRONG (the bytes hash to {hex})")
        }
    }
}

fn signature(o: &mut String, title: &str, s: &Signature<'_>) -> std::fmt::Result {
    writeln!(o, "{title}:")?;
    if s.elements.is_empty() {
        return writeln!(o, "  (none)");
    }
    writeln!(
        o,
        "  {:<20} {:>5} {:>4} {:>8} {:<18} {:<8}",
        "name", "index", "mask", "register", "system value", "type"
    )?;
    for e in &s.elements {
        let mask: String = ['x', 'y', 'z', 'w']
            .iter()
            .enumerate()
            .map(|(i, c)| if e.mask & (1 << i) != 0 { *c } else { ' ' })
            .collect();
        writeln!(
            o,
            "  {:<20} {:>5} {:>4} {:>8} {:<18} {:<8}",
            e.name,
            e.semantic_index,
            mask,
            e.register,
            format!("{:?}", e.system_value),
            format!("{:?}", e.component_type)
        )?;
    }
    Ok(())
}

fn human(o: &mut String, info: &Info<'_>, len: usize) -> std::fmt::Result {
    let c = &info.container;
    writeln!(o, "file: {} ({len} bytes)", info.file)?;
    writeln!(o, "digest: {}", digest_text(&c.digest_status))?;
    for p in &c.problems {
        writeln!(o, "problem: {p}")?;
    }
    writeln!(o, "parts:")?;
    for p in &c.parts {
        writeln!(
            o,
            "  {:<4}  offset 0x{:06x}  size {:>7}",
            p.part.fourcc.to_string(),
            p.part.header_offset,
            p.part.declared_size
        )?;
    }
    for p in &c.parts {
        match &p.content {
            Err(e) => writeln!(o, "{}: cannot decode: {e}", p.part.fourcc)?,
            Ok(PartContent::Program(h)) if p.part.fourcc.to_string() == "DXIL" => writeln!(
                o,
                "program: {:?} shader model {}.{}, DXIL {}.{}, bitcode {} bytes at 0x{:x}",
                h.shader_kind,
                h.sm_major,
                h.sm_minor,
                h.dxil_version >> 8,
                h.dxil_version & 0xff,
                h.bitcode.len(),
                h.bitcode_byte_offset_in_container
            )?,
            Ok(PartContent::Signature(s)) => {
                let title = match p.part.fourcc.to_string().as_str() {
                    "ISG1" => "input signature",
                    "OSG1" => "output signature",
                    _ => "patch constant / primitive signature",
                };
                signature(o, title, s)?;
            }
            Ok(PartContent::FeatureInfo(f)) => {
                let names: Vec<&str> = f.names().collect();
                writeln!(
                    o,
                    "features (SFI0 0x{:x}): {}",
                    f.flags,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )?;
            }
            Ok(PartContent::Psv(psv)) => {
                if let Some(n) = psv.runtime_info.num_threads
                    && n != [0, 0, 0]
                {
                    writeln!(o, "numthreads: ({}, {}, {})", n[0], n[1], n[2])?;
                }
                writeln!(o, "resources (PSV0):")?;
                if psv.resources.is_empty() {
                    writeln!(o, "  (none)")?;
                }
                for r in &psv.resources {
                    let upper = if r.upper_bound == u32::MAX {
                        "unbounded".to_string()
                    } else {
                        r.upper_bound.to_string()
                    };
                    writeln!(
                        o,
                        "  {:<24} space {:<3} registers {}..={}  {}",
                        format!("{:?}", r.res_type),
                        r.space,
                        r.lower_bound,
                        upper,
                        r.res_kind.map(|k| format!("{k:?}")).unwrap_or_default()
                    )?;
                }
            }
            Ok(PartContent::ShaderHash(h)) => {
                let hex: String = h.digest.iter().map(|b| format!("{b:02x}")).collect();
                writeln!(o, "shader hash: {hex} (flags {})", h.flags)?;
            }
            _ => {}
        }
    }
    Ok(())
}
