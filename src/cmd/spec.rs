//! `dxil spec`: change specialization constants of a container that `dxil from-spirv
//! --spec-constants patchable` wrote, in place (no translation, no validator).

use std::path::PathBuf;

use dxil_from_spirv::SpecTable;

#[derive(clap::Args)]
pub struct Args {
    /// The container (`-` for standard input).
    input: PathBuf,
    /// A new value (`ID=VALUE`; decimal, 0x hex, true/false, or a float). Repeatable.
    #[arg(long = "set", value_name = "ID=VALUE")]
    set: Vec<String>,
    /// Where to write the patched container (standard output when omitted).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print the container's specialization constants as JSON instead.
    #[arg(long)]
    list: bool,
}

pub fn run(a: Args) -> super::Result {
    let mut bytes = super::read_input(&a.input)?;
    let table = SpecTable::from_container(&bytes)
        .map_err(|e| format!("{}: {e}", a.input.display()))?
        .ok_or_else(|| {
            format!(
                "{}: no specialization-constant table (translate with --spec-constants patchable)",
                a.input.display()
            )
        })?;
    if a.list {
        let mut text = serde_json::to_string_pretty(&table.constants)?;
        text.push('\n');
        return super::write_output(None, text.as_bytes());
    }
    let mut values = Vec::new();
    for s in &a.set {
        values.push(super::from_spirv::parse_assignment(s)?);
    }
    dxil_from_spirv::spec::patch(&mut bytes, &table, &values)
        .map_err(|e| format!("{}: {e}", a.input.display()))?;
    if a.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err("refusing to write a binary container to a terminal: pass -o FILE".into());
    }
    super::write_output(a.output.as_deref(), &bytes)
}
