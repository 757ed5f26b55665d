//! `dxil info`: what a container holds.

use std::fmt::Write as _;
use std::path::PathBuf;

use dxil_container::{Container, DigestStatus, PartContent, Signature};
use dxil_shader::{ClassFields, DxilModule, Resource};
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
    /// The DXIL layer of the program part: shader model, entry points, resources, flags.
    /// `None` when the container has no DXIL part.
    module: Option<DxilModule>,
    /// Why the program's module could not be read, when it could not.
    module_error: Option<String>,
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.file)?;
    let c = Container::parse_lenient(&bytes)?;
    let (module, module_error) = match read_dxil_module(&c) {
        Ok(m) => (m, None),
        Err(e) => (None, Some(e)),
    };
    let info = Info {
        file: a.file.display().to_string(),
        container: c.info(),
        module,
        module_error,
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

/// The program part's bitcode read into the DXIL layer; `Ok(None)` without a program part.
fn read_dxil_module(c: &Container<'_>) -> Result<Option<DxilModule>, String> {
    let Some(p) = c.program() else {
        return Ok(None);
    };
    let p = p.map_err(|e| e.to_string())?;
    let m = dxil_module::read_module(p.bitcode, p.bitcode_byte_offset_in_container as u64)
        .map_err(|e| e.to_string())?;
    DxilModule::from_module(&m)
        .map(Some)
        .map_err(|e| e.to_string())
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
    if let Some(e) = &info.module_error {
        writeln!(o, "module: cannot read: {e}")?;
    }
    if let Some(m) = &info.module {
        module(o, m)?;
    }
    Ok(())
}

fn module(o: &mut String, m: &DxilModule) -> std::fmt::Result {
    write!(o, "shader model: {}", m.shader_model.profile())?;
    if let Some(v) = m.dxil_version {
        write!(o, ", DXIL {}.{}", v.major, v.minor)?;
    }
    if let Some(v) = m.validator_version {
        write!(o, ", validator {}.{}", v.major, v.minor)?;
    }
    writeln!(o)?;
    if let Some(c) = &m.compiler {
        writeln!(o, "compiler: {c}")?;
    }
    for e in &m.entry_points {
        let name = if e.name.is_empty() {
            "(module)"
        } else {
            &e.name
        };
        writeln!(o, "entry point: {name} ({:?})", e.shader_kind)?;
        let p = &e.properties;
        if let Some(n) = p.thread_group_size() {
            writeln!(o, "  numthreads: ({}, {}, {})", n[0], n[1], n[2])?;
        }
        if let Some(w) = &p.wave_size {
            writeln!(o, "  wave size: {w:?}")?;
        }
        if let Some(f) = p.shader_flags {
            let names: Vec<&str> = f.names().collect();
            let names = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            writeln!(o, "  shader flags: {names}")?;
        }
        if let Some(rs) = &p.root_signature {
            writeln!(o, "  root signature: {} bytes", rs.len())?;
        }
        let s = &e.signatures;
        for (title, list) in [
            ("inputs", &s.inputs),
            ("outputs", &s.outputs),
            ("patch constant / primitive", &s.patch_constant_or_primitive),
        ] {
            if !list.is_empty() {
                let names: Vec<String> = list
                    .iter()
                    .map(|el| match el.semantic_indices.as_slice() {
                        [] | [0] => el.name.clone(),
                        [i] => format!("{}{i}", el.name),
                        many => format!("{}{:?}", el.name, many),
                    })
                    .collect();
                writeln!(o, "  {title}: {}", names.join(", "))?;
            }
        }
    }
    writeln!(o, "resources (dx.resources):")?;
    let r = &m.resources;
    let all: Vec<&Resource> = r
        .srvs
        .iter()
        .chain(&r.uavs)
        .chain(&r.cbuffers)
        .chain(&r.samplers)
        .collect();
    if all.is_empty() {
        writeln!(o, "  (none)")?;
    }
    for res in all {
        let letter = res.class.register_letter().unwrap_or('?');
        let range = if res.is_unbounded() {
            format!("{letter}{}.. (unbounded)", res.lower_bound)
        } else if res.range_size == 1 {
            format!("{letter}{}", res.lower_bound)
        } else {
            format!(
                "{letter}{}..={letter}{}",
                res.lower_bound,
                res.upper_bound()
            )
        };
        let mut detail = format!("{:?}", res.kind);
        if let Some(stride) = res.tags.structure_stride {
            write!(detail, ", stride {stride}")?;
        }
        if let Some(t) = res.tags.element_type {
            write!(detail, ", {t:?}")?;
        }
        match &res.fields {
            ClassFields::CBuffer { size_in_bytes } => write!(detail, ", {size_in_bytes} bytes")?,
            ClassFields::Uav {
                has_counter: true, ..
            } => write!(detail, ", counter")?,
            _ => {}
        }
        let name = if res.name.is_empty() {
            "(unnamed)"
        } else {
            &res.name
        };
        writeln!(
            o,
            "  {:<7} {:<24} {:<16} space {:<3} {detail}",
            res.class.d3d_name(),
            name,
            range,
            res.space
        )?;
    }
    Ok(())
}
