//! The strict TOML reader for case files.
//!
//! The TOML syntax is read by the `toml` crate into a value tree; this module then walks the tree
//! by hand rather than through serde derive, so that every rule of the format (unknown keys,
//! ranges, cross references, which keys go together) is checked in one place and every error
//! names the key path it is about (`resource[1].stride`).

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::*;

/// A case file that cannot be used; every message names the file and, where there is one, the key.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{}: cannot read the case file: {source}", file.display())]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not valid TOML: {message}", file.display())]
    Syntax { file: PathBuf, message: String },
    #[error("{}: unknown key `{at}`", file.display())]
    UnknownKey { file: PathBuf, at: String },
    #[error("{}: missing key `{at}`", file.display())]
    MissingKey { file: PathBuf, at: String },
    #[error("{}: `{at}`: expected {expected}, found {found}", file.display())]
    WrongType {
        file: PathBuf,
        at: String,
        expected: &'static str,
        found: String,
    },
    #[error("{}: `{at}`: {message}", file.display())]
    Invalid {
        file: PathBuf,
        at: String,
        message: String,
    },
    #[error("{}: `{at}`: cannot read {}: {source}", file.display(), path.display())]
    DataFile {
        file: PathBuf,
        at: String,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl CaseError {
    /// The key path the error is about, if any.
    pub fn at(&self) -> Option<&str> {
        match self {
            CaseError::Read { .. } | CaseError::Syntax { .. } => None,
            CaseError::UnknownKey { at, .. }
            | CaseError::MissingKey { at, .. }
            | CaseError::WrongType { at, .. }
            | CaseError::Invalid { at, .. }
            | CaseError::DataFile { at, .. } => Some(at),
        }
    }
}

type Result<T> = std::result::Result<T, CaseError>;

const TOP_V1: &[&str] = &["shader", "entry", "dispatch", "resource", "expect"];
const TOP_V2: &[&str] = &[
    "shader",
    "entry",
    "dispatch",
    "root_signature",
    "heap_size",
    "sampler_heap_size",
    "memory",
    "view",
    "sampler",
    "root",
    "pass",
    "expect",
];
const RESOURCE_KEYS: &[&str] = &["bind", "space", "kind", "stride", "format", "size", "init"];
const EXPECT_V1_KEYS: &[&str] = &["bind", "space", "u32", "i32", "f32", "hex", "tolerance_ulp"];
const EXPECT_V2_KEYS: &[&str] = &["memory", "u32", "i32", "f32", "hex", "tolerance_ulp"];
const MEMORY_KEYS: &[&str] = &["name", "size", "init"];
const VIEW_KEYS: &[&str] = &[
    "slot",
    "type",
    "dimension",
    "memory",
    "raw",
    "stride",
    "format",
    "first_element",
    "num_elements",
    "counter",
    "counter_offset",
];
const SAMPLER_KEYS: &[&str] = &["slot", "filter", "address"];
const ROOT_KEYS: &[&str] = &["index", "table", "va", "constants"];
const PASS_KEYS: &[&str] = &["groups", "root"];

/// D3D12's alignment for constant buffer view placement and size.
const CBV_ALIGNMENT: u64 = 256;
/// D3D12's largest constant buffer view (4096 sixteen-byte registers).
const MAX_CBV_SIZE: u64 = 65536;

struct Parser<'a> {
    file: &'a Path,
    dir: &'a Path,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(super) fn parse_case(text: &str, file: &Path) -> Result<Case> {
    let dir = file.parent().unwrap_or(Path::new(""));
    let p = Parser { file, dir };
    let top: Table = text
        .parse()
        .map_err(|e: toml::de::Error| CaseError::Syntax {
            file: file.to_path_buf(),
            message: syntax_message(text, &e),
        })?;
    let v2 = top.contains_key("root_signature");
    p.check_keys(&top, "", if v2 { TOP_V2 } else { TOP_V1 })?;

    let shader = p.path_value(p.req(&top, "", "shader")?, "shader")?;
    let entry = match top.get("entry") {
        Some(v) => {
            let s = p.string(v, "entry")?;
            if s.is_empty() || s.contains('\0') {
                return Err(p.invalid(
                    "entry",
                    "an entry point name must be non-empty and have no NUL",
                ));
            }
            Some(s.to_string())
        }
        None => None,
    };
    let dispatch = match top.get("dispatch") {
        Some(v) => Some(p.groups(v, "dispatch")?),
        None => None,
    };

    let (binding, expects) = if v2 {
        let heap = p.heap_layout(&top)?;
        if dispatch.is_none() && heap.passes.is_empty() {
            return Err(p.missing("dispatch"));
        }
        let expects = p.expects(&top, |p, t, at| p.expect_target_v2(t, at, &heap.memories))?;
        (Binding::RootSignature(Box::new(heap)), expects)
    } else {
        if dispatch.is_none() {
            return Err(p.missing("dispatch"));
        }
        let resources = p.resources(&top)?;
        let expects = p.expects(&top, |p, t, at| p.expect_target_v1(t, at, &resources))?;
        for (i, e) in expects.iter().enumerate() {
            p.check_expect_fits(e, resources.get(e.target).map_or(0, |r| r.size), i)?;
        }
        (Binding::Registers(resources), expects)
    };
    if let Binding::RootSignature(heap) = &binding {
        for (i, e) in expects.iter().enumerate() {
            p.check_expect_fits(e, heap.memories.get(e.target).map_or(0, |m| m.size), i)?;
        }
    }

    Ok(Case {
        source: file.to_path_buf(),
        shader,
        entry,
        dispatch,
        binding,
        expects,
    })
}

impl Parser<'_> {
    // ---- errors ----

    fn invalid(&self, at: &str, message: impl Into<String>) -> CaseError {
        CaseError::Invalid {
            file: self.file.to_path_buf(),
            at: at.to_string(),
            message: message.into(),
        }
    }

    fn missing(&self, at: &str) -> CaseError {
        CaseError::MissingKey {
            file: self.file.to_path_buf(),
            at: at.to_string(),
        }
    }

    fn wrong_type(&self, at: &str, expected: &'static str, found: &Value) -> CaseError {
        CaseError::WrongType {
            file: self.file.to_path_buf(),
            at: at.to_string(),
            expected,
            found: found.type_str().to_string(),
        }
    }

    // ---- generic accessors ----

    fn check_keys(&self, table: &Table, path: &str, allowed: &[&str]) -> Result<()> {
        match table.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(CaseError::UnknownKey {
                file: self.file.to_path_buf(),
                at: join(path, k),
            }),
            None => Ok(()),
        }
    }

    fn req<'t>(&self, table: &'t Table, path: &str, key: &str) -> Result<&'t Value> {
        table.get(key).ok_or_else(|| self.missing(&join(path, key)))
    }

    fn string<'v>(&self, v: &'v Value, at: &str) -> Result<&'v str> {
        v.as_str().ok_or_else(|| self.wrong_type(at, "a string", v))
    }

    fn integer(&self, v: &Value, at: &str) -> Result<i64> {
        v.as_integer()
            .ok_or_else(|| self.wrong_type(at, "an integer", v))
    }

    fn u32_value(&self, v: &Value, at: &str) -> Result<u32> {
        let i = self.integer(v, at)?;
        u32::try_from(i).map_err(|_| self.invalid(at, format!("{i} is not in 0..=4294967295")))
    }

    fn u64_value(&self, v: &Value, at: &str) -> Result<u64> {
        let i = self.integer(v, at)?;
        u64::try_from(i).map_err(|_| self.invalid(at, format!("{i} is negative")))
    }

    fn bool_value(&self, v: &Value, at: &str) -> Result<bool> {
        v.as_bool()
            .ok_or_else(|| self.wrong_type(at, "a boolean", v))
    }

    fn array<'v>(&self, v: &'v Value, at: &str) -> Result<&'v [Value]> {
        v.as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| self.wrong_type(at, "an array", v))
    }

    fn table<'v>(&self, v: &'v Value, at: &str) -> Result<&'v Table> {
        v.as_table()
            .ok_or_else(|| self.wrong_type(at, "a table", v))
    }

    /// An array of tables (`[[name]]`), absent meaning empty.
    fn tables<'t>(
        &self,
        top: &'t Table,
        path: &str,
        key: &str,
    ) -> Result<Vec<(String, &'t Table)>> {
        let at = join(path, key);
        let Some(v) = top.get(key) else {
            return Ok(Vec::new());
        };
        let items = self.array(v, &at)?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = format!("{at}[{i}]");
                let t = self.table(item, &at)?;
                Ok((at, t))
            })
            .collect()
    }

    fn opt_u32(&self, t: &Table, path: &str, key: &str) -> Result<Option<u32>> {
        t.get(key)
            .map(|v| self.u32_value(v, &join(path, key)))
            .transpose()
    }

    fn opt_u64(&self, t: &Table, path: &str, key: &str) -> Result<Option<u64>> {
        t.get(key)
            .map(|v| self.u64_value(v, &join(path, key)))
            .transpose()
    }

    fn path_value(&self, v: &Value, at: &str) -> Result<PathBuf> {
        let s = self.string(v, at)?;
        if s.is_empty() {
            return Err(self.invalid(at, "a path must not be empty"));
        }
        Ok(self.dir.join(s))
    }

    fn read_data(&self, v: &Value, at: &str, limit: u64) -> Result<(PathBuf, Vec<u8>)> {
        let path = self.path_value(v, at)?;
        let meta = std::fs::metadata(&path).map_err(|source| CaseError::DataFile {
            file: self.file.to_path_buf(),
            at: at.to_string(),
            path: path.clone(),
            source,
        })?;
        // Checked before reading so that a huge file is never loaded.
        if meta.len() > limit {
            return Err(self.invalid(
                at,
                format!(
                    "{} has {} bytes, more than the {limit} bytes of its resource",
                    path.display(),
                    meta.len()
                ),
            ));
        }
        let bytes = std::fs::read(&path).map_err(|source| CaseError::DataFile {
            file: self.file.to_path_buf(),
            at: at.to_string(),
            path: path.clone(),
            source,
        })?;
        if bytes.len() as u64 > limit {
            return Err(self.invalid(at, format!("{} grew while being read", path.display())));
        }
        Ok((path, bytes))
    }

    // ---- shared pieces ----

    fn groups(&self, v: &Value, at: &str) -> Result<[u32; 3]> {
        let items = self.array(v, at)?;
        let [x, y, z] = items else {
            return Err(self.invalid(
                at,
                format!("expected 3 group counts, found {}", items.len()),
            ));
        };
        let mut out = [0u32; 3];
        for (i, (slot, item)) in out.iter_mut().zip([x, y, z]).enumerate() {
            let at = format!("{at}[{i}]");
            let n = self.u32_value(item, &at)?;
            if n > MAX_GROUPS_PER_DIMENSION {
                return Err(self.invalid(
                    &at,
                    format!(
                        "{n} thread groups exceed D3D12's {MAX_GROUPS_PER_DIMENSION} per dimension"
                    ),
                ));
            }
            *slot = n;
        }
        Ok(out)
    }

    fn size(&self, t: &Table, path: &str) -> Result<u64> {
        let at = join(path, "size");
        let size = self.u64_value(self.req(t, path, "size")?, &at)?;
        if size == 0 {
            return Err(self.invalid(&at, "size must be at least 1 byte"));
        }
        if size > MAX_RESOURCE_SIZE {
            return Err(self.invalid(
                &at,
                format!("{size} bytes exceed this runner's limit of {MAX_RESOURCE_SIZE}"),
            ));
        }
        Ok(size)
    }

    fn init(&self, t: &Table, path: &str, size: u64) -> Result<Init> {
        let at = join(path, "init");
        let v = self.req(t, path, "init")?;
        match v {
            Value::String(s) => self.init_string(s, &at),
            Value::Array(items) => {
                if items.len() as u64 * 4 > size {
                    return Err(self.invalid(
                        &at,
                        format!("{} words do not fit in {size} bytes", items.len()),
                    ));
                }
                let words = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| self.u32_value(item, &format!("{at}[{i}]")))
                    .collect::<Result<Vec<u32>>>()?;
                Ok(Init::Words(words))
            }
            Value::Table(inner) => {
                self.check_keys(inner, &at, &["file"])?;
                let file_at = join(&at, "file");
                let (path, bytes) =
                    self.read_data(self.req(inner, &at, "file")?, &file_at, size)?;
                Ok(Init::File { path, bytes })
            }
            other => {
                Err(self.wrong_type(&at, "a string, an array of words or { file = ... }", other))
            }
        }
    }

    fn init_string(&self, s: &str, at: &str) -> Result<Init> {
        let mut parts = s.split(':');
        let form = parts.next().unwrap_or("");
        let args: Vec<&str> = parts.collect();
        let want = |n: usize| -> Result<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.invalid(
                    at,
                    format!(
                        "`{form}` takes {n} argument(s) after `:`, found {}",
                        args.len()
                    ),
                ))
            }
        };
        let decimal = |s: &str, what: &str| -> Result<u32> {
            parse_decimal(s).ok_or_else(|| {
                self.invalid(
                    at,
                    format!("{what} `{s}` is not a decimal number in 0..=4294967295"),
                )
            })
        };
        match form {
            "zero" => want(0).map(|()| Init::Zero),
            "iota-u32" => want(0).map(|()| Init::Iota),
            "random-u32" => {
                want(1)?;
                let seed = decimal(args.first().copied().unwrap_or(""), "seed")?;
                if seed == 0 {
                    return Err(self.invalid(at, "the xorshift32 seed must be non-zero"));
                }
                Ok(Init::Random { seed })
            }
            "random-range" => {
                want(3)?;
                let [seed, lo, hi] = [0, 1, 2].map(|i| args.get(i).copied().unwrap_or(""));
                let seed = decimal(seed, "seed")?;
                if seed == 0 {
                    return Err(self.invalid(at, "the xorshift32 seed must be non-zero"));
                }
                let lo = decimal(lo, "LO")?;
                let hi = decimal(hi, "HI")?;
                if lo > hi {
                    return Err(self.invalid(at, format!("LO {lo} is greater than HI {hi}")));
                }
                Ok(Init::RandomRange { seed, lo, hi })
            }
            "fill-u32" => {
                want(1)?;
                let text = args.first().copied().unwrap_or("");
                let value = match text.strip_prefix("0x") {
                    Some(hex) => parse_hex(hex),
                    None => parse_decimal(text),
                };
                value.map(Init::Fill).ok_or_else(|| {
                    self.invalid(at, format!("fill value `{text}` is not a decimal or 0x-prefixed u32"))
                })
            }
            _ => Err(self.invalid(
                at,
                format!(
                    "unknown init `{s}` (zero, iota-u32, random-u32:SEED, random-range:SEED:LO:HI, fill-u32:VALUE)"
                ),
            )),
        }
    }

    // ---- version 1 ----

    fn register(&self, t: &Table, path: &str) -> Result<Register> {
        let at = join(path, "bind");
        let bind = self.string(self.req(t, path, "bind")?, &at)?;
        let mut chars = bind.chars();
        let class = chars
            .next()
            .and_then(RegisterClass::from_letter)
            .ok_or_else(|| {
                self.invalid(
                    &at,
                    format!("`{bind}` does not start with a register class t, u, b or s"),
                )
            })?;
        let number = parse_decimal(chars.as_str())
            .ok_or_else(|| self.invalid(&at, format!("`{bind}` has no decimal register number")))?;
        let space = self.opt_u32(t, path, "space")?.unwrap_or(0);
        Ok(Register {
            class,
            number,
            space,
        })
    }

    fn resources(&self, top: &Table) -> Result<Vec<Resource>> {
        let mut out: Vec<Resource> = Vec::new();
        for (at, t) in self.tables(top, "", "resource")? {
            self.check_keys(t, &at, RESOURCE_KEYS)?;
            let register = self.register(t, &at)?;
            if register.number >= REGISTERS_PER_CLASS {
                return Err(self.invalid(
                    &join(&at, "bind"),
                    format!(
                        "register {} is past {}: in the default binding model binding = shift + register must stay below the next class's shift",
                        register.number,
                        REGISTERS_PER_CLASS - 1
                    ),
                ));
            }
            if let Some(other) = out.iter().position(|r| r.register == register) {
                return Err(self.invalid(
                    &join(&at, "bind"),
                    format!("{register} is already declared by resource[{other}]"),
                ));
            }
            let resource = if register.class == RegisterClass::Sampler {
                // A sampler has no memory; only its register may be given.
                for key in ["kind", "stride", "format", "size", "init"] {
                    if t.contains_key(key) {
                        return Err(self.invalid(
                            &join(&at, key),
                            "a sampler register (s) takes only `bind` and `space`",
                        ));
                    }
                }
                Resource {
                    register,
                    kind: ResourceKind::Sampler,
                    size: 0,
                    init: Init::Zero,
                }
            } else {
                let kind = self.resource_kind(t, &at, register.class)?;
                let size = self.size(t, &at)?;
                let init = self.init(t, &at, size)?;
                Resource {
                    register,
                    kind,
                    size,
                    init,
                }
            };
            out.push(resource);
        }
        Ok(out)
    }

    fn resource_kind(&self, t: &Table, path: &str, class: RegisterClass) -> Result<ResourceKind> {
        let at = join(path, "kind");
        let kind = self.string(self.req(t, path, "kind")?, &at)?;
        let stride = self.opt_u32(t, path, "stride")?;
        let format = t.get("format");
        let forbid = |key: &str, present: bool| -> Result<()> {
            if present {
                Err(self.invalid(
                    &join(path, key),
                    format!("`{key}` does not apply to kind `{kind}`"),
                ))
            } else {
                Ok(())
            }
        };
        let kind = match kind {
            "raw" => {
                forbid("stride", stride.is_some())?;
                forbid("format", format.is_some())?;
                ResourceKind::Raw
            }
            "structured" => {
                forbid("format", format.is_some())?;
                let stride_at = join(path, "stride");
                let stride = stride.ok_or_else(|| self.missing(&stride_at))?;
                check_stride(self, stride, &stride_at)?;
                ResourceKind::Structured { stride }
            }
            "typed" => {
                forbid("stride", stride.is_some())?;
                let format_at = join(path, "format");
                let v = format.ok_or_else(|| self.missing(&format_at))?;
                ResourceKind::Typed {
                    format: self.format(v, &format_at)?,
                }
            }
            "constant" => {
                forbid("stride", stride.is_some())?;
                forbid("format", format.is_some())?;
                ResourceKind::Constant
            }
            other => {
                return Err(self.invalid(
                    &at,
                    format!("unknown kind `{other}` (raw, structured, typed, constant)"),
                ));
            }
        };
        let is_cbv_kind = kind == ResourceKind::Constant;
        if is_cbv_kind != (class == RegisterClass::Cbv) {
            return Err(self.invalid(
                &at,
                format!(
                    "a {} register cannot hold a `{}` resource (b registers are constant buffers, t and u are not)",
                    class.letter(),
                    t.get("kind").and_then(Value::as_str).unwrap_or("")
                ),
            ));
        }
        Ok(kind)
    }

    fn format(&self, v: &Value, at: &str) -> Result<Format> {
        let name = self.string(v, at)?;
        Format::from_name(name).ok_or_else(|| {
            self.invalid(
                at,
                format!("`{name}` is not a supported typed-buffer format"),
            )
        })
    }

    fn expect_target_v1(&self, t: &Table, at: &str, resources: &[Resource]) -> Result<usize> {
        self.check_keys(t, at, EXPECT_V1_KEYS)?;
        let register = self.register(t, at)?;
        let index = resources
            .iter()
            .position(|r| r.register == register)
            .ok_or_else(|| {
                self.invalid(
                    &join(at, "bind"),
                    format!("no resource declares {register}"),
                )
            })?;
        if register.class == RegisterClass::Sampler {
            return Err(self.invalid(&join(at, "bind"), "a sampler has no contents to expect"));
        }
        Ok(index)
    }

    // ---- expectations ----

    fn expects(
        &self,
        top: &Table,
        target: impl Fn(&Self, &Table, &str) -> Result<usize>,
    ) -> Result<Vec<Expect>> {
        let mut out = Vec::new();
        for (at, t) in self.tables(top, "", "expect")? {
            let target = target(self, t, &at)?;
            let present: Vec<&str> = ["u32", "i32", "f32", "hex"]
                .into_iter()
                .filter(|k| t.contains_key(*k))
                .collect();
            let key = match present.as_slice() {
                [one] => *one,
                [] => {
                    return Err(
                        self.invalid(&at, "an expectation needs one of u32, i32, f32 or hex")
                    );
                }
                [_, second, ..] => {
                    return Err(self.invalid(
                        &join(&at, second),
                        "an expectation takes only one of u32, i32, f32 or hex",
                    ));
                }
            };
            let key_at = join(&at, key);
            let tolerance = self.opt_u32(t, &at, "tolerance_ulp")?;
            if tolerance.is_some() && key != "f32" {
                return Err(self.invalid(
                    &join(&at, "tolerance_ulp"),
                    "tolerance_ulp applies to f32 expectations only",
                ));
            }
            let v = self.req(t, &at, key)?;
            let values = match key {
                "u32" => Expected::U32(self.numbers(v, &key_at, |p, v, at| p.u32_value(v, at))?),
                "i32" => Expected::I32(self.numbers(v, &key_at, |p, v, at| {
                    let i = p.integer(v, at)?;
                    i32::try_from(i).map_err(|_| p.invalid(at, format!("{i} is not an i32")))
                })?),
                "f32" => Expected::F32 {
                    values: self.numbers(v, &key_at, |p, v, at| match v {
                        // f64 → f32 rounds to nearest, which is what writing the literal as f32 means.
                        #[allow(clippy::cast_possible_truncation)]
                        Value::Float(f) => Ok(*f as f32),
                        Value::Integer(i) => {
                            let f = *i as f64;
                            #[allow(clippy::cast_possible_truncation)]
                            Ok(f as f32)
                        }
                        other => Err(p.wrong_type(at, "a number", other)),
                    })?,
                    tolerance_ulp: tolerance.unwrap_or(0),
                },
                _ => {
                    let (path, bytes) = self.read_data(v, &key_at, MAX_RESOURCE_SIZE)?;
                    Expected::Bytes { path, bytes }
                }
            };
            out.push(Expect { target, values });
        }
        Ok(out)
    }

    fn numbers<T>(
        &self,
        v: &Value,
        at: &str,
        each: impl Fn(&Self, &Value, &str) -> Result<T>,
    ) -> Result<Vec<T>> {
        let items = self.array(v, at)?;
        if items.is_empty() {
            return Err(self.invalid(at, "an expectation must list at least one value"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| each(self, item, &format!("{at}[{i}]")))
            .collect()
    }

    fn check_expect_fits(&self, e: &Expect, size: u64, index: usize) -> Result<()> {
        let len = e.values.byte_len();
        if len > size {
            return Err(self.invalid(
                &format!("expect[{index}]"),
                format!("expects {len} bytes of a resource of {size} bytes"),
            ));
        }
        Ok(())
    }

    // ---- version 2 ----

    fn heap_layout(&self, top: &Table) -> Result<HeapLayout> {
        let root_signature = self.root_signature(self.req(top, "", "root_signature")?)?;
        let heap_size = self.opt_u32(top, "", "heap_size")?.unwrap_or(4096);
        if heap_size == 0 || heap_size > MAX_HEAP_SIZE {
            return Err(self.invalid("heap_size", format!("must be in 1..={MAX_HEAP_SIZE}")));
        }
        let sampler_heap_size = self.opt_u32(top, "", "sampler_heap_size")?.unwrap_or(64);
        if sampler_heap_size == 0 || sampler_heap_size > MAX_SAMPLER_HEAP_SIZE {
            return Err(self.invalid(
                "sampler_heap_size",
                format!("must be in 1..={MAX_SAMPLER_HEAP_SIZE}"),
            ));
        }

        let mut memories: Vec<Memory> = Vec::new();
        for (at, t) in self.tables(top, "", "memory")? {
            self.check_keys(t, &at, MEMORY_KEYS)?;
            let name_at = join(&at, "name");
            let name = self.string(self.req(t, &at, "name")?, &name_at)?;
            if name.is_empty() {
                return Err(self.invalid(&name_at, "a memory name must not be empty"));
            }
            if memories.iter().any(|m| m.name == name) {
                return Err(self.invalid(&name_at, format!("memory `{name}` is declared twice")));
            }
            let size = self.size(t, &at)?;
            let init = self.init(t, &at, size)?;
            memories.push(Memory {
                name: name.to_string(),
                size,
                init,
            });
        }

        let mut views: Vec<View> = Vec::new();
        for (at, t) in self.tables(top, "", "view")? {
            let view = self.view(t, &at, heap_size, &memories)?;
            if let Some(other) = views.iter().position(|v| v.slot == view.slot) {
                return Err(self.invalid(
                    &join(&at, "slot"),
                    format!(
                        "heap slot {} is already written by view[{other}]",
                        view.slot
                    ),
                ));
            }
            views.push(view);
        }

        let mut samplers: Vec<SamplerDesc> = Vec::new();
        for (at, t) in self.tables(top, "", "sampler")? {
            let sampler = self.sampler(t, &at, sampler_heap_size)?;
            if let Some(other) = samplers.iter().position(|s| s.slot == sampler.slot) {
                return Err(self.invalid(
                    &join(&at, "slot"),
                    format!(
                        "sampler heap slot {} is already written by sampler[{other}]",
                        sampler.slot
                    ),
                ));
            }
            samplers.push(sampler);
        }

        let limits = (heap_size, sampler_heap_size);
        let root = self.root_arguments(top, "", &memories, limits)?;
        let mut passes = Vec::new();
        for (at, t) in self.tables(top, "", "pass")? {
            self.check_keys(t, &at, PASS_KEYS)?;
            let groups = self.groups(self.req(t, &at, "groups")?, &join(&at, "groups"))?;
            let root = self.root_arguments(t, &at, &memories, limits)?;
            passes.push(Pass { groups, root });
        }

        Ok(HeapLayout {
            root_signature,
            heap_size,
            sampler_heap_size,
            memories,
            views,
            samplers,
            root,
            passes,
        })
    }

    fn root_signature(&self, v: &Value) -> Result<RootSignatureSource> {
        let at = "root_signature";
        match v {
            Value::String(s) if s == "embedded" => Ok(RootSignatureSource::Embedded),
            Value::String(s) => Err(self.invalid(
                at,
                format!("`{s}`: a string root signature must be \"embedded\"; use {{ hlsl = ... }} or {{ file = ... }}"),
            )),
            Value::Table(t) => {
                self.check_keys(t, at, &["hlsl", "file"])?;
                match (t.get("hlsl"), t.get("file")) {
                    (Some(h), None) => {
                        let s = self.string(h, "root_signature.hlsl")?;
                        if s.trim().is_empty() {
                            return Err(self.invalid("root_signature.hlsl", "the root signature string is empty"));
                        }
                        Ok(RootSignatureSource::Hlsl(s.to_string()))
                    }
                    (None, Some(f)) => {
                        let (path, bytes) = self.read_data(f, "root_signature.file", MAX_RESOURCE_SIZE)?;
                        Ok(RootSignatureSource::File { path, bytes })
                    }
                    _ => Err(self.invalid(at, "give exactly one of `hlsl` or `file`")),
                }
            }
            other => Err(self.wrong_type(at, "\"embedded\" or a table", other)),
        }
    }

    fn memory_ref(&self, v: &Value, at: &str, memories: &[Memory]) -> Result<usize> {
        let name = self.string(v, at)?;
        memories
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| self.invalid(at, format!("no memory is named `{name}`")))
    }

    fn view(&self, t: &Table, at: &str, heap_size: u32, memories: &[Memory]) -> Result<View> {
        self.check_keys(t, at, VIEW_KEYS)?;
        let slot_at = join(at, "slot");
        let slot = self.u32_value(self.req(t, at, "slot")?, &slot_at)?;
        if slot >= heap_size {
            return Err(self.invalid(
                &slot_at,
                format!("slot {slot} is outside the heap of {heap_size} slots"),
            ));
        }
        let type_at = join(at, "type");
        let ty = match self.string(self.req(t, at, "type")?, &type_at)? {
            "srv" => ViewType::Srv,
            "uav" => ViewType::Uav,
            "cbv" => ViewType::Cbv,
            "null-srv" => ViewType::NullSrv,
            "null-uav" => ViewType::NullUav,
            "null-cbv" => ViewType::NullCbv,
            other => {
                return Err(self.invalid(
                    &type_at,
                    format!(
                        "unknown view type `{other}` (srv, uav, cbv, null-srv, null-uav, null-cbv)"
                    ),
                ));
            }
        };
        if let Some(d) = t.get("dimension") {
            let d_at = join(at, "dimension");
            let d = self.string(d, &d_at)?;
            if d != "buffer" {
                return Err(self.invalid(
                    &d_at,
                    format!("dimension `{d}` is not supported (only buffer)"),
                ));
            }
        }

        let memory = match (t.get("memory"), ty.is_null()) {
            (Some(_), true) => {
                return Err(self.invalid(&join(at, "memory"), "a null view takes no memory"));
            }
            (None, true) => None,
            (None, false) => return Err(self.missing(&join(at, "memory"))),
            (Some(v), false) => Some(self.memory_ref(v, &join(at, "memory"), memories)?),
        };

        let raw = match t.get("raw") {
            Some(v) => self.bool_value(v, &join(at, "raw"))?,
            None => false,
        };
        let stride = self.opt_u32(t, at, "stride")?.filter(|&s| s != 0);
        let format = t
            .get("format")
            .map(|v| self.format(v, &join(at, "format")))
            .transpose()?;
        let is_cbv = matches!(ty, ViewType::Cbv | ViewType::NullCbv);
        let shape = if is_cbv {
            for (key, present) in [
                ("raw", raw),
                ("stride", stride.is_some()),
                ("format", format.is_some()),
            ] {
                if present {
                    return Err(self.invalid(
                        &join(at, key),
                        "a constant buffer view takes no raw, stride or format",
                    ));
                }
            }
            ViewShape::Constant
        } else {
            match (raw, stride, format) {
                (true, None, None) => ViewShape::Raw,
                (false, Some(stride), None) => {
                    check_stride(self, stride, &join(at, "stride"))?;
                    ViewShape::Structured { stride }
                }
                (false, None, Some(format)) => ViewShape::Typed { format },
                (false, None, None) => {
                    return Err(self.invalid(
                        at,
                        "a buffer view needs one of raw = true, stride or format",
                    ));
                }
                _ => {
                    return Err(
                        self.invalid(at, "raw = true, stride and format exclude each other")
                    );
                }
            }
        };

        let first_element = self.opt_u64(t, at, "first_element")?.unwrap_or(0);
        let num_elements = match self.opt_u64(t, at, "num_elements")? {
            Some(n) => n,
            None if ty.is_null() => 0,
            None => return Err(self.missing(&join(at, "num_elements"))),
        };
        if let Some(m) = memory.and_then(|i| memories.get(i)) {
            if is_cbv {
                if first_element % CBV_ALIGNMENT != 0 || num_elements % CBV_ALIGNMENT != 0 {
                    return Err(self.invalid(
                        at,
                        "a constant buffer view's offset (first_element) and size (num_elements) must be multiples of 256",
                    ));
                }
                if num_elements == 0 || num_elements > MAX_CBV_SIZE {
                    return Err(self.invalid(
                        &join(at, "num_elements"),
                        format!("a constant buffer view holds 256..={MAX_CBV_SIZE} bytes"),
                    ));
                }
            } else if num_elements == 0 {
                return Err(self.invalid(
                    &join(at, "num_elements"),
                    "a buffer view needs at least one element",
                ));
            }
            let size = u64::from(shape.element_size());
            let end = first_element
                .checked_add(num_elements)
                .and_then(|e| e.checked_mul(size));
            // A CBV may run past its memory in D3D12 (the size is rounded up to 256); the reads past
            // the end are then out of bounds, so only views starting inside the memory are required.
            let fits = match end {
                Some(end) if is_cbv => {
                    first_element < m.size && end <= m.size.next_multiple_of(CBV_ALIGNMENT)
                }
                Some(end) => end <= m.size,
                None => false,
            };
            if !fits {
                return Err(self.invalid(
                    at,
                    format!(
                        "elements {first_element}..{first_element}+{num_elements} of {size} bytes do not fit in memory `{}` of {} bytes",
                        m.name, m.size
                    ),
                ));
            }
        }

        let counter = match t.get("counter") {
            None => {
                if t.contains_key("counter_offset") {
                    return Err(
                        self.invalid(&join(at, "counter_offset"), "counter_offset needs counter")
                    );
                }
                None
            }
            Some(v) => {
                let c_at = join(at, "counter");
                if ty != ViewType::Uav || !matches!(shape, ViewShape::Structured { .. }) {
                    return Err(self.invalid(&c_at, "only a structured uav view has a counter"));
                }
                let memory = self.memory_ref(v, &c_at, memories)?;
                let offset = self.opt_u64(t, at, "counter_offset")?.unwrap_or(0);
                let size = memories.get(memory).map_or(0, |m| m.size);
                if offset % 4 != 0 || offset.checked_add(4).is_none_or(|end| end > size) {
                    return Err(self.invalid(
                        &join(at, "counter_offset"),
                        format!("the 4-byte counter at offset {offset} must be aligned and inside its memory of {size} bytes"),
                    ));
                }
                Some(Counter { memory, offset })
            }
        };

        Ok(View {
            slot,
            ty,
            memory,
            shape,
            first_element,
            num_elements,
            counter,
        })
    }

    fn sampler(&self, t: &Table, at: &str, heap_size: u32) -> Result<SamplerDesc> {
        self.check_keys(t, at, SAMPLER_KEYS)?;
        let slot_at = join(at, "slot");
        let slot = self.u32_value(self.req(t, at, "slot")?, &slot_at)?;
        if slot >= heap_size {
            return Err(self.invalid(
                &slot_at,
                format!("slot {slot} is outside the sampler heap of {heap_size} slots"),
            ));
        }
        let filter_at = join(at, "filter");
        let filter = match self.string(self.req(t, at, "filter")?, &filter_at)? {
            "point" => Filter::Point,
            "linear" => Filter::Linear,
            "anisotropic" => Filter::Anisotropic,
            other => {
                return Err(self.invalid(
                    &filter_at,
                    format!("unknown filter `{other}` (point, linear, anisotropic)"),
                ));
            }
        };
        let address_at = join(at, "address");
        let address = match self.string(self.req(t, at, "address")?, &address_at)? {
            "wrap" => AddressMode::Wrap,
            "mirror" => AddressMode::Mirror,
            "clamp" => AddressMode::Clamp,
            "border" => AddressMode::Border,
            "mirror-once" => AddressMode::MirrorOnce,
            other => {
                return Err(self.invalid(
                    &address_at,
                    format!(
                        "unknown address mode `{other}` (wrap, mirror, clamp, border, mirror-once)"
                    ),
                ));
            }
        };
        Ok(SamplerDesc {
            slot,
            filter,
            address,
        })
    }

    fn root_arguments(
        &self,
        parent: &Table,
        path: &str,
        memories: &[Memory],
        (heap_size, sampler_heap_size): (u32, u32),
    ) -> Result<Vec<RootArgument>> {
        let mut out: Vec<RootArgument> = Vec::new();
        for (at, t) in self.tables(parent, path, "root")? {
            self.check_keys(t, &at, ROOT_KEYS)?;
            let index_at = join(&at, "index");
            let index = self.u32_value(self.req(t, &at, "index")?, &index_at)?;
            if index >= MAX_ROOT_PARAMETERS {
                return Err(self.invalid(
                    &index_at,
                    format!("a root signature has at most {MAX_ROOT_PARAMETERS} parameters"),
                ));
            }
            if out.iter().any(|r| r.index == index) {
                return Err(self.invalid(
                    &index_at,
                    format!("root parameter {index} is set twice here"),
                ));
            }
            let value = match (t.get("table"), t.get("va"), t.get("constants")) {
                (Some(v), None, None) => {
                    let table_at = join(&at, "table");
                    let slot = self.u32_value(v, &table_at)?;
                    // Which heap the table indexes depends on the root signature; the exact check
                    // is made when the case runs, this one catches slots outside both heaps.
                    if slot >= heap_size.max(sampler_heap_size) {
                        return Err(
                            self.invalid(&table_at, format!("slot {slot} is outside the heap"))
                        );
                    }
                    RootValue::Table(slot)
                }
                (None, Some(v), None) => {
                    let va_at = join(&at, "va");
                    let va = self.table(v, &va_at)?;
                    self.check_keys(va, &va_at, &["memory", "offset"])?;
                    let memory = self.memory_ref(
                        self.req(va, &va_at, "memory")?,
                        &join(&va_at, "memory"),
                        memories,
                    )?;
                    let offset = self.opt_u64(va, &va_at, "offset")?.unwrap_or(0);
                    let size = memories.get(memory).map_or(0, |m| m.size);
                    if offset >= size {
                        return Err(self.invalid(
                            &join(&va_at, "offset"),
                            format!("offset {offset} is outside its memory of {size} bytes"),
                        ));
                    }
                    RootValue::Address { memory, offset }
                }
                (None, None, Some(v)) => {
                    let c_at = join(&at, "constants");
                    let items = self.array(v, &c_at)?;
                    if items.len() as u64 > u64::from(MAX_ROOT_PARAMETERS) {
                        return Err(
                            self.invalid(&c_at, "a root signature holds at most 64 constants")
                        );
                    }
                    let words = items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| self.u32_value(item, &format!("{c_at}[{i}]")))
                        .collect::<Result<Vec<u32>>>()?;
                    RootValue::Constants(words)
                }
                _ => {
                    return Err(self.invalid(
                        &at,
                        "a root argument needs exactly one of table, va or constants",
                    ));
                }
            };
            out.push(RootArgument { index, value });
        }
        Ok(out)
    }

    fn expect_target_v2(&self, t: &Table, at: &str, memories: &[Memory]) -> Result<usize> {
        self.check_keys(t, at, EXPECT_V2_KEYS)?;
        self.memory_ref(self.req(t, at, "memory")?, &join(at, "memory"), memories)
    }
}

fn check_stride(p: &Parser<'_>, stride: u32, at: &str) -> Result<()> {
    // D3D12 caps structure strides at 2048 bytes; with 16-bit types they need not be a multiple
    // of 4 (`StructuredBuffer<half>` has stride 2).
    if stride == 0 || stride > 2048 {
        return Err(p.invalid(at, format!("stride {stride} is not in 1..=2048")));
    }
    Ok(())
}

/// `line L, column C: message`, from the error's byte span.
fn syntax_message(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim_end().replace('\n', "; ");
    let Some(start) = e.span().map(|s| s.start) else {
        return message.to_string();
    };
    let before = text.get(..start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}: {message}")
}

/// Plain decimal digits only (no sign, no `_`, no prefix), within u32.
fn parse_decimal(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_hex(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests;
