//! `dxil rootsig`: print a root signature and its Vulkan layout; write it as a container.

use std::fmt::Write as _;
use std::path::PathBuf;

use dxil_rootsig::{
    DeviceLimits, LayoutOptions, ParameterLayout, ParseOptions, PipelineLayout, RootBlockStorage,
    RootSignature, Version,
};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// A container with an RTS0 part (a shader or a standalone root signature), or a raw RTS0
    /// payload. Leave out with `--hlsl`.
    src: Option<PathBuf>,
    /// An HLSL root signature string instead of a file.
    #[arg(long, conflicts_with = "src")]
    hlsl: Option<String>,
    /// Convert to this version (1.0, 1.1 or 1.2) before printing and writing.
    #[arg(long)]
    version: Option<String>,
    /// Print JSON: the root signature and the Vulkan layout.
    #[arg(long)]
    json: bool,
    /// Write the root signature as a standalone container with one RTS0 part.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Serialize)]
struct Report<'a> {
    root_signature: &'a RootSignature,
    vulkan_layout: Option<&'a PipelineLayout>,
    layout_error: Option<String>,
}

fn parse_version(s: &str) -> super::Result<Version> {
    Ok(match s {
        "1.0" | "1_0" | "rootsig_1_0" => Version::V1_0,
        "1.1" | "1_1" | "rootsig_1_1" => Version::V1_1,
        "1.2" | "1_2" => Version::V1_2,
        _ => return Err(format!("unknown root signature version {s:?} (1.0, 1.1 or 1.2)").into()),
    })
}

pub fn run(a: Args) -> super::Result {
    let target = a.version.as_deref().map(parse_version).transpose()?;
    let mut rs = match (&a.hlsl, &a.src) {
        (Some(text), _) => {
            let v = target.unwrap_or(Version::V1_1);
            dxil_rootsig::parse_hlsl(text, &ParseOptions::version(v))
                .map_err(|e| format!("HLSL root signature: {e}"))?
        }
        (None, Some(path)) => {
            let bytes = super::read_input(path)?;
            if bytes.starts_with(b"DXBC") {
                RootSignature::from_container(&bytes)?
            } else {
                dxil_rootsig::read_rts0(&bytes)?
            }
        }
        (None, None) => return Err("give a file or --hlsl \"...\"".into()),
    };
    let original_bytes = rs.to_rts0_bytes().ok();
    if let Some(v) = target
        && v != rs.version
    {
        rs = rs.convert(v)?;
    }
    if let Err(errors) = dxil_rootsig::validate(&rs, &Default::default()) {
        eprintln!("warning: the root signature breaks D3D12's rules:\n{errors}");
    }
    let layout = dxil_rootsig::layout(&rs, &DeviceLimits::default(), &LayoutOptions::default());
    if let Some(out) = &a.output {
        // Without a conversion the payload is written back as read, byte for byte.
        let payload = match (target, original_bytes) {
            (None, Some(b)) => b,
            _ => rs.to_rts0_bytes()?,
        };
        let bytes = dxil_container::write_container(
            &[(dxil_container::FourCC::RTS0, payload)],
            dxil_container::DigestMode::Retail,
        )?;
        std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    if a.json {
        let report = Report {
            root_signature: &rs,
            vulkan_layout: layout.as_ref().ok(),
            layout_error: layout.as_ref().err().map(|e| e.to_string()),
        };
        let mut s = serde_json::to_string_pretty(&report)?;
        s.push('\n');
        return super::write_output(None, s.as_bytes());
    }
    if a.output.is_some() {
        return Ok(());
    }
    let mut o = String::new();
    writeln!(o, "root signature version {}", rs.version.short_name())?;
    match rs.to_hlsl() {
        Ok(h) => writeln!(o, "hlsl: {h}")?,
        Err(e) => writeln!(o, "hlsl: (not expressible: {e})")?,
    }
    match &layout {
        Ok(l) => describe_layout(&mut o, l)?,
        Err(e) => writeln!(o, "vulkan layout: not possible: {e}")?,
    }
    super::write_output(None, o.as_bytes())
}

/// The human form of a pipeline layout, also used by `dxil run --explain`.
pub fn describe_layout(o: &mut String, l: &PipelineLayout) -> std::fmt::Result {
    let b = &l.root_block;
    let storage = match &b.storage {
        RootBlockStorage::PushConstants => "push constants".to_string(),
        other => format!("{other:?}"),
    };
    writeln!(
        o,
        "vulkan layout:\n  root block: {} bytes in {}; {} root addresses at 0, constants at {}, {} table words at {}",
        b.size_in_bytes,
        storage,
        b.root_address_count,
        b.root_constants_offset,
        b.descriptor_table_count,
        b.descriptor_tables_offset
    )?;
    for (i, p) in l.parameters.iter().enumerate() {
        match p {
            ParameterLayout::DescriptorTable {
                table_index,
                offset_in_block,
                ranges,
            } => {
                writeln!(
                    o,
                    "  parameter {i}: descriptor table #{table_index}, heap offset word at byte {offset_in_block}"
                )?;
                for r in ranges {
                    let count = if r.num_descriptors == u32::MAX {
                        "unbounded".to_string()
                    } else {
                        r.num_descriptors.to_string()
                    };
                    writeln!(
                        o,
                        "    {:?} registers {}.. (x{count}) space {} at table offset {}",
                        r.range_type, r.base_shader_register, r.register_space, r.offset_in_table
                    )?;
                }
            }
            ParameterLayout::RootConstants {
                offset_in_block,
                dword_count,
            } => writeln!(
                o,
                "  parameter {i}: {dword_count} root constants at byte {offset_in_block}"
            )?,
            ParameterLayout::RootAddress {
                offset_in_block, ..
            } => writeln!(
                o,
                "  parameter {i}: root descriptor as a buffer device address at byte {offset_in_block}"
            )?,
            ParameterLayout::RootDescriptor {
                set,
                binding,
                descriptor_type,
            } => writeln!(
                o,
                "  parameter {i}: root descriptor, {descriptor_type:?} at set {set} binding {binding}"
            )?,
        }
    }
    for s in &l.heap.sets {
        writeln!(
            o,
            "  set {}: {:?} heap array at binding {} ({:?}{})",
            s.set,
            s.heap,
            s.array_binding,
            s.descriptor_type,
            if s.mutable_types.is_empty() {
                String::new()
            } else {
                format!(" of {:?}", s.mutable_types)
            }
        )?;
    }
    if let Some(set) = l.static_sampler_set {
        writeln!(
            o,
            "  set {set}: {} static samplers",
            l.static_samplers.len()
        )?;
    }
    if let Some(set) = l.root_descriptor_set {
        writeln!(o, "  set {set}: root descriptors (push descriptors)")?;
    }
    Ok(())
}
