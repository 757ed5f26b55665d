//! `dxil from-spirv`: translate a SPIR-V module (Vulkan) into a signed DXIL container.

use std::path::PathBuf;

use dxil_from_spirv::{BindingInfo, BindingMap, Options, SpecMode, SpecTable};

/// What `--spec-constants` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SpecArg {
    /// Fold every specialization constant into the code.
    Fold,
    /// Keep each patchable in place (`dxil spec` changes it later).
    Patchable,
}

#[derive(clap::Args)]
pub struct Args {
    /// The SPIR-V module (`-` for standard input).
    input: PathBuf,
    /// Where to write the container (standard output when omitted).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The entry point to translate (when the module has several).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Specialization constants: folded, or kept patchable.
    #[arg(long, value_enum, default_value_t = SpecArg::Fold)]
    spec_constants: SpecArg,
    /// A value for a specialization constant (`ID=VALUE`; decimal, 0x hex, or a float with a
    /// `.`), used as the folded or initial value. Repeatable.
    #[arg(long = "spec", value_name = "ID=VALUE")]
    spec: Vec<String>,
    /// Bindings: a JSON file with a list of {"set", "binding", "space", "register"} entries
    /// (unlisted bindings use the default arithmetic), or `shifted` for the inverse of
    /// `to-spirv`'s convention (set = space, binding = b 0 / t 100 / u 200 / s 300 + register).
    #[arg(long, value_name = "MAP.json|shifted")]
    bindings: Option<String>,
    /// Leave the root signature part out.
    #[arg(long)]
    no_root_signature: bool,
    /// Print the bindings (both ways) and specialization constants as JSON.
    #[arg(long)]
    reflect: bool,
    /// The pipeline's other tessellation shader (SPIR-V): its domain, spacing, winding and
    /// output patch size complete what this one leaves out.
    #[arg(long, value_name = "OTHER.spv")]
    tessellation_from: Option<PathBuf>,
    /// Control points per input patch of a tessellation control shader (the patch list).
    #[arg(long, value_name = "N")]
    input_patch: Option<u32>,
}

/// Parses `ID=VALUE`: decimal, `0x` hex, negative integers, or floats (as f32 bits).
pub fn parse_assignment(s: &str) -> super::Result<(u32, u64)> {
    let (id, value) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected ID=VALUE"))?;
    let id: u32 = id
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: {id:?} is not a constant id"))?;
    let v = value.trim();
    let bits = if let Some(hex) = v.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).map_err(|_| format!("{s:?}: bad hex value"))?
    } else if v == "true" {
        1
    } else if v == "false" {
        0
    } else if v.contains('.') || v.contains('e') || v == "inf" || v == "-inf" {
        let f: f32 = v.parse().map_err(|_| format!("{s:?}: bad float value"))?;
        u64::from(f.to_bits())
    } else if let Some(neg) = v.strip_prefix('-') {
        let n: i64 = neg
            .parse()
            .map_err(|_| format!("{s:?}: bad integer value"))?;
        u64::from((-n) as u32)
    } else {
        v.parse().map_err(|_| format!("{s:?}: bad integer value"))?
    };
    Ok((id, bits))
}

pub fn run(a: Args) -> super::Result {
    let bytes = super::read_input(&a.input)?;
    let bindings = match a.bindings.as_deref() {
        None => BindingMap::Default,
        Some("shifted") => BindingMap::Shifted,
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            BindingMap::from_json(&text).map_err(|e| format!("{path}: {e}"))?
        }
    };
    let mut spec_values = Vec::new();
    for s in &a.spec {
        spec_values.push(parse_assignment(s)?);
    }
    let mut tessellation = match &a.tessellation_from {
        Some(path) => {
            let bytes = super::read_input(path)?;
            let words = dxil_from_spirv::words_from_bytes(&bytes)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            dxil_from_spirv::Tessellation::from_spirv(&words)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => dxil_from_spirv::Tessellation::default(),
    };
    if a.input_patch.is_some() {
        tessellation.input_patch_size = a.input_patch;
    }
    let options = Options {
        entry_point: a.entry.clone(),
        spec_constants: match a.spec_constants {
            SpecArg::Fold => SpecMode::Fold,
            SpecArg::Patchable => SpecMode::Patchable,
        },
        spec_values,
        bindings,
        root_signature: !a.no_root_signature,
        tessellation,
        ..Options::default()
    };
    let out = dxil_from_spirv::translate_bytes(&bytes, &options)
        .map_err(|e| format!("{}: {e}", a.input.display()))?;
    if a.reflect {
        let json = reflect_json(
            &out.profile,
            &out.entry_point,
            &out.bindings,
            &out.spec_constants,
        );
        let mut text = serde_json::to_string_pretty(&json)?;
        text.push('\n');
        if a.output.is_none() {
            return super::write_output(None, text.as_bytes());
        }
        eprint!("{text}");
    }
    if a.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err("refusing to write a binary container to a terminal: pass -o FILE".into());
    }
    super::write_output(a.output.as_deref(), &out.container)
}

/// `--reflect`: bindings from Vulkan to D3D12 and back, and the specialization constants.
fn reflect_json(
    profile: &str,
    entry: &str,
    bindings: &[BindingInfo],
    spec: &SpecTable,
) -> serde_json::Value {
    let registers: Vec<serde_json::Value> = bindings
        .iter()
        .map(|b| {
            serde_json::json!({
                "register": format!("{}{},space{}", b.class.letter(), b.register, b.space),
                "set": b.set,
                "binding": b.binding,
            })
        })
        .collect();
    serde_json::json!({
        "profile": profile,
        "entry_point": entry,
        "bindings": bindings,
        "registers": registers,
        "spec_constants": spec.constants,
    })
}
