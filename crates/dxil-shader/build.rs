// Generates the DXIL operation tables from `data/dxil-ops.txt`.
//
// The data file is the source of truth; this script only checks it strictly and
// turns it into Rust. Any malformed line stops the build with `file:line: message`.

use std::collections::HashSet;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

const DATA_FILE: &str = "data/dxil-ops.txt";

/// Core opcode count of DXIL 1.9; the table must fill exactly these slots.
const CORE_SLOTS: usize = 312;

/// Scalar overload tokens in the bit order of `OverloadMask` (ops.rs).
const SCALAR_TOKENS: [&str; 8] = ["f16", "f32", "f64", "i1", "i8", "i16", "i32", "i64"];
const UDT_BIT: u16 = 1 << 8;
const OBJ_BIT: u16 = 1 << 9;

/// Stage tokens in the bit order of `ShaderStages` (ops.rs).
const STAGE_TOKENS: [&str; 16] = [
    "vs", "ps", "gs", "hs", "ds", "cs", "lib", "rgen", "isect", "ahit", "chit", "miss", "call",
    "ms", "as", "node",
];

/// Flag tokens in the bit order of `OpFlags` (ops.rs).
const FLAG_TOKENS: [&str; 5] = ["wave", "barrier", "gradient", "derivative", "feedback"];

/// Attribute tokens and the `FnAttr` variant each one becomes.
const ATTRS: [(&str, &str); 6] = [
    ("none", "None"),
    ("readnone", "ReadNone"),
    ("readonly", "ReadOnly"),
    ("noduplicate", "NoDuplicate"),
    ("noreturn", "NoReturn"),
    ("argmemonly", "ArgMemOnly"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Core,
    Experimental,
}

pub(crate) struct Op {
    id: u32,
    name: String,
    class: String,
    attr: &'static str,
    dxil: (u8, u8),
    sm: (u8, u8),
    /// (scalar mask, vector element mask) per overload dimension.
    overloads: Vec<(u16, u16)>,
    stages: u32,
    flags: u8,
    operands: Vec<String>,
}

fn main() -> ExitCode {
    println!("cargo:rerun-if-changed={DATA_FILE}");
    println!("cargo:rerun-if-changed=build.rs");
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?;
    let path = PathBuf::from(manifest_dir).join(DATA_FILE);
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (core, experimental) = parse(&text)?;
    if core.len() != CORE_SLOTS {
        return Err(format!(
            "{DATA_FILE}: [core] has {} operations, DXIL 1.9 has {CORE_SLOTS} slots",
            core.len()
        ));
    }
    let code = generate(&core, &experimental);
    let out_dir = env::var("OUT_DIR").map_err(|e| e.to_string())?;
    let out = PathBuf::from(out_dir).join("dxil_ops.rs");
    fs::write(&out, code).map_err(|e| format!("{}: {e}", out.display()))
}

pub(crate) fn parse(text: &str) -> Result<(Vec<Op>, Vec<Op>), String> {
    let mut section = None;
    let mut core = Vec::new();
    let mut experimental = Vec::new();
    let mut seen_sections = HashSet::new();
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let err = |msg: String| format!("{DATA_FILE}:{line_no}: {msg}");
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let s = match name {
                "core" => Section::Core,
                "experimental" => Section::Experimental,
                other => return Err(err(format!("unknown section [{other}]"))),
            };
            if !seen_sections.insert(name.to_string()) {
                return Err(err(format!("section [{name}] appears twice")));
            }
            section = Some(s);
            continue;
        }
        let table = match section {
            Some(Section::Core) => &mut core,
            Some(Section::Experimental) => &mut experimental,
            None => return Err(err("operation line before any [section]".into())),
        };
        let op = parse_op(line).map_err(err)?;
        if op.id as usize != table.len() {
            return Err(err(format!(
                "id {} out of order, expected {}",
                op.id,
                table.len()
            )));
        }
        if let Some(prev) = table.iter().find(|o: &&Op| o.name == op.name) {
            return Err(err(format!(
                "name {} already used by id {}",
                op.name, prev.id
            )));
        }
        table.push(op);
    }
    Ok((core, experimental))
}

fn parse_op(line: &str) -> Result<Op, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [
        id,
        attr,
        dxil,
        sm,
        class,
        overloads,
        stages,
        flags,
        signature,
    ] = fields[..]
    else {
        return Err(format!(
            "expected 9 fields (id attr dxil sm class overloads stages flags signature), found {}",
            fields.len()
        ));
    };
    let id: u32 = id
        .parse()
        .map_err(|_| format!("id `{id}` is not a decimal number"))?;
    let attr = ATTRS
        .iter()
        .find(|(token, _)| *token == attr)
        .map(|(_, variant)| *variant)
        .ok_or_else(|| format!("unknown attribute `{attr}`"))?;
    let dxil = parse_version(dxil).map_err(|e| format!("dxil: {e}"))?;
    let sm = parse_version(sm).map_err(|e| format!("sm: {e}"))?;
    if dxil.0 != 1 {
        return Err(format!("dxil version {}.{} must be 1.x", dxil.0, dxil.1));
    }
    if sm.0 != 6 || sm.1 < dxil.1 {
        return Err(format!(
            "shader model {}.{} does not fit DXIL {}.{} (DXIL 1.x pairs with 6.x)",
            sm.0, sm.1, dxil.0, dxil.1
        ));
    }
    if !is_identifier(class) {
        return Err(format!("class `{class}` is not an identifier"));
    }
    let overloads = parse_overloads(overloads)?;
    let stages = parse_list(stages, &STAGE_TOKENS, true).map_err(|e| format!("stages: {e}"))?;
    let flags = parse_list(flags, &FLAG_TOKENS, false).map_err(|e| format!("flags: {e}"))?;
    let flags = u8::try_from(flags).map_err(|_| "flags: too many flag bits".to_string())?;
    let (name, operands) = parse_signature(signature)?;
    if class == "reserved" && (!operands.is_empty() || !overloads.is_empty()) {
        return Err(format!(
            "reserved slot {name} must have no operands and no overloads"
        ));
    }
    Ok(Op {
        id,
        name,
        class: class.to_string(),
        attr,
        dxil,
        sm,
        overloads,
        stages,
        flags,
        operands,
    })
}

fn parse_version(text: &str) -> Result<(u8, u8), String> {
    let (major, minor) = text
        .split_once('.')
        .ok_or_else(|| format!("`{text}` is not MAJOR.MINOR"))?;
    let major = major
        .parse()
        .map_err(|_| format!("`{text}` is not MAJOR.MINOR"))?;
    let minor = minor
        .parse()
        .map_err(|_| format!("`{text}` is not MAJOR.MINOR"))?;
    Ok((major, minor))
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `-` means no overload; otherwise one or more `/`-separated dimensions.
fn parse_overloads(text: &str) -> Result<Vec<(u16, u16)>, String> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let mut dims = Vec::new();
    for dim in text.split('/') {
        let mut scalar = 0u16;
        let mut vector = 0u16;
        for token in dim.split(',') {
            let (is_vector, base) = match token.strip_prefix('v') {
                Some(elem) => (true, elem),
                None => (false, token),
            };
            let bit = match base {
                "udt" if !is_vector => UDT_BIT,
                "obj" if !is_vector => OBJ_BIT,
                _ => SCALAR_TOKENS
                    .iter()
                    .position(|t| *t == base)
                    .map(|i| 1u16 << i)
                    .ok_or_else(|| format!("overloads: unknown type `{token}`"))?,
            };
            let mask = if is_vector { &mut vector } else { &mut scalar };
            if *mask & bit != 0 {
                return Err(format!("overloads: `{token}` listed twice"));
            }
            *mask |= bit;
        }
        let named = scalar & (UDT_BIT | OBJ_BIT);
        if named != 0 && (scalar != named || vector != 0 || named == UDT_BIT | OBJ_BIT) {
            return Err("overloads: udt/obj cannot be combined with other types".into());
        }
        dims.push((scalar, vector));
    }
    if dims.len() > 2 {
        return Err(format!(
            "overloads: {} dimensions, at most 2 are supported",
            dims.len()
        ));
    }
    if dims.len() == 2 && dims.iter().any(|(s, _)| s & (UDT_BIT | OBJ_BIT) != 0) {
        return Err("overloads: udt/obj only allowed with a single dimension".into());
    }
    Ok(dims)
}

/// Parses `*`/`-` or a comma list of tokens into a bitmask (bit = token index).
fn parse_list(text: &str, tokens: &[&str], star_is_all: bool) -> Result<u32, String> {
    if star_is_all && text == "*" {
        return Ok((1u32 << tokens.len()) - 1);
    }
    if !star_is_all && text == "-" {
        return Ok(0);
    }
    let mut mask = 0u32;
    for token in text.split(',') {
        let bit = tokens
            .iter()
            .position(|t| *t == token)
            .ok_or_else(|| format!("unknown entry `{token}`"))?;
        if mask & (1 << bit) != 0 {
            return Err(format!("`{token}` listed twice"));
        }
        mask |= 1 << bit;
    }
    Ok(mask)
}

fn parse_signature(text: &str) -> Result<(String, Vec<String>), String> {
    let (name, rest) = text
        .split_once('(')
        .ok_or_else(|| format!("signature `{text}` is not Name(operands)"))?;
    let args = rest
        .strip_suffix(')')
        .ok_or_else(|| format!("signature `{text}` does not end with `)`"))?;
    if !is_identifier(name) {
        return Err(format!("operation name `{name}` is not an identifier"));
    }
    let mut operands = Vec::new();
    if !args.is_empty() {
        for arg in args.split(',') {
            if !is_identifier(arg) {
                return Err(format!(
                    "operand name `{arg}` in {name} is not an identifier"
                ));
            }
            if operands.iter().any(|o| o == arg) {
                return Err(format!("operand name `{arg}` repeats in {name}"));
            }
            operands.push(arg.to_string());
        }
    }
    Ok((name.to_string(), operands))
}

fn generate(core: &[Op], experimental: &[Op]) -> String {
    let mut out = String::new();
    out.push_str("// @generated by build.rs from data/dxil-ops.txt; do not edit.\n\n");

    gen_enum(
        &mut out,
        "OpCode",
        "A core DXIL operation: the constant first operand of a `dx.op.*` call.",
        core,
        0,
    );
    gen_enum(
        &mut out,
        "ExperimentalOpCode",
        "An operation of DXC's experimental table, called with opcode `0x8000_0000 | index`.",
        experimental,
        EXPERIMENTAL_BASE,
    );
    gen_table(&mut out, "CORE_OPS", core);
    gen_table(&mut out, "EXPERIMENTAL_OPS", experimental);
    gen_name_index(&mut out, "CORE_BY_NAME", "OpCode", core);
    gen_name_index(
        &mut out,
        "EXPERIMENTAL_BY_NAME",
        "ExperimentalOpCode",
        experimental,
    );
    out
}

const EXPERIMENTAL_BASE: u32 = 0x8000_0000;

fn gen_enum(out: &mut String, name: &str, doc: &str, ops: &[Op], base: u32) {
    let _ = writeln!(out, "/// {doc}");
    out.push_str("#[repr(u32)]\n");
    out.push_str("#[allow(non_camel_case_types)]\n");
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n");
    let _ = writeln!(out, "pub enum {name} {{");
    for op in ops {
        let _ = writeln!(out, "    /// `{}`", comment(op));
        let _ = writeln!(out, "    {} = {:#x},", op.name, base | op.id);
    }
    out.push_str("}\n\n");
    let _ = writeln!(out, "impl {name} {{");
    let _ = writeln!(out, "    /// Number of slots in the table.");
    let _ = writeln!(out, "    pub const COUNT: usize = {};", ops.len());
    let _ = writeln!(out, "    /// Every value, indexed by table position.");
    let _ = writeln!(out, "    pub const ALL: [{name}; {}] = [", ops.len());
    for op in ops {
        let _ = writeln!(out, "        {name}::{},", op.name);
    }
    out.push_str("    ];\n}\n\n");
}

fn comment(op: &Op) -> String {
    format!("{}({})", op.name, op.operands.join(","))
}

fn gen_table(out: &mut String, name: &str, ops: &[Op]) {
    let _ = writeln!(out, "static {name}: [OpInfo; {}] = [", ops.len());
    for op in ops {
        let mut dims = [(0u16, 0u16); 2];
        for (slot, dim) in dims.iter_mut().zip(&op.overloads) {
            *slot = *dim;
        }
        let operands: Vec<String> = op.operands.iter().map(|o| format!("{o:?}")).collect();
        let _ = writeln!(
            out,
            "    op({:?}, {:?}, &[{}], [{:#x}, {:#x}, {:#x}, {:#x}], {}, FnAttr::{}, ({}, {}), ({}, {}), {:#x}, {:#x}, {:?}),",
            op.name,
            op.class,
            operands.join(", "),
            dims[0].0,
            dims[0].1,
            dims[1].0,
            dims[1].1,
            op.overloads.len(),
            op.attr,
            op.dxil.0,
            op.dxil.1,
            op.sm.0,
            op.sm.1,
            op.stages,
            op.flags,
            comment(op),
        );
    }
    out.push_str("];\n\n");
}

fn gen_name_index(out: &mut String, name: &str, ty: &str, ops: &[Op]) {
    let mut sorted: Vec<&Op> = ops.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let _ = writeln!(out, "static {name}: [(&str, {ty}); {}] = [", ops.len());
    for op in sorted {
        let _ = writeln!(out, "    ({:?}, {ty}::{}),", op.name, op.name);
    }
    out.push_str("];\n\n");
}
