//! Parsed blobs: a container's program read once, with what the C API reports about it (entry points, stages,
//! declared resources).

use std::cell::Cell;
use std::ffi::{CStr, CString};
use std::sync::{Arc, OnceLock};

use dxil_container::{Container, FourCC, ShaderKind};
use dxil_module::Module;
use dxil_to_spirv::binding::RangeInfo;
use dxil_to_spirv::{ResourceClass, ResourceKind};

use crate::abi::{self, stage};

/// Why a blob could not be parsed.
#[derive(Debug)]
pub enum ParseError {
    /// Not a container, or its program is unreadable.
    Parser(String),
    /// A container without DXIL (shader model 4/5 bytecode).
    Dxbc,
    /// No program part of the kind asked for.
    NoData,
}

impl ParseError {
    pub fn code(&self) -> abi::DxilResult {
        match self {
            ParseError::Parser(_) => abi::ERROR_PARSER,
            ParseError::Dxbc => abi::ERROR_UNSUPPORTED_FEATURE,
            ParseError::NoData => abi::ERROR_NO_DATA,
        }
    }

    pub fn message(&self) -> String {
        match self {
            ParseError::Parser(m) => m.clone(),
            ParseError::Dxbc => {
                "the container holds shader model 4/5 bytecode, not DXIL (not supported)".into()
            }
            ParseError::NoData => "the container has no such program part".into(),
        }
    }
}

/// One entry point of the module.
#[derive(Debug)]
pub struct Entry {
    pub mangled: CString,
    /// `None` when it is the mangled name (every entry of a non-library): one string fewer per parse.
    demangled: Option<CString>,
    pub stage: abi::ShaderStage,
    /// The entry's index in [`dxil_shader::DxilModule::entry_points`].
    dxil_entry: usize,
    /// Inputs and outputs as the stage interface remappers see them, made by the first run that has such a
    /// remapper: most runs have none, and these copy every element's name and indices.
    io: OnceLock<[Vec<IoElement>; 2]>,
}

impl Entry {
    /// The entry's name without a library function's mangling.
    pub fn demangled(&self) -> &CStr {
        self.demangled.as_deref().unwrap_or(&self.mangled)
    }

    /// The entry's input and output elements.
    pub fn io(&self, dm: &dxil_shader::DxilModule) -> &[Vec<IoElement>; 2] {
        self.io
            .get_or_init(|| match dm.entry_points.get(self.dxil_entry) {
                Some(e) => [
                    io_elements(&e.signatures.inputs),
                    io_elements(&e.signatures.outputs),
                ],
                None => [Vec::new(), Vec::new()],
            })
    }
}

/// A signature element, as the stage interface remappers see it.
#[derive(Debug)]
pub struct IoElement {
    pub semantic: CString,
    /// One semantic index per row.
    pub indices: Vec<u32>,
    pub start_row: u32,
    pub rows: u32,
    pub start_col: u32,
    /// A user element (not a system value): it has a location.
    pub user: bool,
}

fn io_elements(sig: &[dxil_shader::SignatureElement]) -> Vec<IoElement> {
    sig.iter()
        .map(|e| IoElement {
            semantic: CString::new(e.name.as_str()).unwrap_or_default(),
            indices: e.semantic_indices.clone(),
            start_row: e.start_row.max(0) as u32,
            rows: e.rows,
            start_col: e.start_col.max(0) as u32,
            user: e.semantic_kind == dxil_container::SemanticKind::Arbitrary,
        })
        .collect()
}

/// A declared resource range.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub class: ResourceClass,
    pub kind: ResourceKind,
    pub range_id: u32,
    pub space: u32,
    pub lower: u32,
    /// `u32::MAX`: unbounded.
    pub count: u32,
    pub stride: u32,
    pub has_counter: bool,
}

impl Range {
    pub fn info(&self) -> RangeInfo {
        RangeInfo {
            class: self.class,
            range_id: self.range_id,
            stride: self.stride,
            has_counter: self.has_counter,
        }
    }

    /// dxil-spirv's alignment hint: raw buffers 16, structured buffers the stride's lowest set bit.
    pub fn alignment(&self) -> u32 {
        match self.kind {
            ResourceKind::RawBuffer => 16,
            ResourceKind::StructuredBuffer => self.stride & self.stride.wrapping_neg(),
            _ => 0,
        }
    }
}

/// `dxil_spv_parsed_blob`.
#[derive(Debug)]
pub struct ParsedBlob {
    pub module: Arc<Module>,
    /// The module's metadata view, read once for the blob's queries and every translation of it.
    pub dxil: Arc<dxil_shader::DxilModule>,
    pub bitcode: Vec<u8>,
    pub entries: Vec<Entry>,
    /// The shader model's stage.
    pub stage: abi::ShaderStage,
    pub ranges: Vec<Range>,
    /// `get_disassembled_ir`'s text, made on first request.
    pub disassembly: Option<CString>,
    /// The `RDAT` part's state subobjects (libraries), pointing into the caller's container.
    pub subobjects: Vec<Subobject>,
}

/// A state subobject as the C API reports it: names and payload inside the caller's container, which the caller
/// keeps alive as long as it uses them.
#[derive(Debug)]
pub struct Subobject {
    pub kind: u32,
    pub name: *const std::ffi::c_char,
    pub hit_group_type: u32,
    pub exports: Vec<*const std::ffi::c_char>,
    pub args: [u32; 2],
    pub payload: *const u8,
    pub payload_size: usize,
}

impl Drop for ParsedBlob {
    /// The module's storage goes to the reader's per-thread stash: a layer parses, translates and frees blob after
    /// blob, and the next parse on this thread then reuses the arenas instead of allocating them again.
    fn drop(&mut self) {
        if let Some(m) = Arc::get_mut(&mut self.module) {
            dxil_module::recycle(std::mem::take(m));
        }
        let bitcode = std::mem::take(&mut self.bitcode);
        if bitcode.capacity() <= BITCODE_KEEP {
            let _ = BITCODE.try_with(|b| b.set(bitcode));
        }
    }
}

thread_local! {
    /// The last freed blob's bitcode buffer on this thread, for the next parse's copy.
    static BITCODE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// The last freed blob on this thread, emptied, for the next parse ([`ParsedBlob::release`]).
    static SPARE: Cell<Option<Box<ParsedBlob>>> = const { Cell::new(None) };
}

/// A larger bitcode buffer is freed rather than kept for the thread's next parse.
const BITCODE_KEEP: usize = 256 << 10;

/// A copy of `bitcode` (`get_raw_ir` returns it after the caller's container is gone), in the buffer of the blob
/// freed last on this thread when there is one.
fn copy_bitcode(bitcode: &[u8]) -> Vec<u8> {
    let mut v = BITCODE.try_with(Cell::take).unwrap_or_default();
    v.clear();
    v.extend_from_slice(bitcode);
    v
}

impl ParsedBlob {
    /// A container's `DXIL` part (`STAT` when `reflection`).
    pub fn from_container(bytes: &[u8], reflection: bool) -> Result<Box<ParsedBlob>, ParseError> {
        let c = Container::parse(bytes).map_err(|e| ParseError::Parser(e.to_string()))?;
        let part = if reflection {
            FourCC::STAT
        } else {
            FourCC::DXIL
        };
        let p = match c.program_part(part) {
            Some(p) => p.map_err(|e| ParseError::Parser(e.to_string()))?,
            None if reflection => return Err(ParseError::NoData),
            None if c.part(FourCC(*b"SHEX")).is_some() || c.part(FourCC(*b"SHDR")).is_some() => {
                return Err(ParseError::Dxbc);
            }
            None => {
                return Err(ParseError::Parser(
                    "the container has no DXIL program part".into(),
                ));
            }
        };
        let module = dxil_module::read_module(p.bitcode, p.bitcode_byte_offset_in_container as u64)
            .map_err(|e| ParseError::Parser(e.to_string()))?;
        let mut blob = ParsedBlob::from_module(module, copy_bitcode(p.bitcode))?;
        if let Some(rdat) = c.part(FourCC::RDAT) {
            // Positions are checked inside `rdat.data`, a slice of the caller's container: `wrapping_add` keeps them
            // pointers into it without dereferencing anything here.
            let base = rdat.data.as_ptr();
            blob.subobjects = crate::rdat::subobjects(rdat.data)
                .into_iter()
                .map(|s| Subobject {
                    kind: s.kind,
                    name: base.wrapping_add(s.name).cast(),
                    hit_group_type: s.hit_group_type,
                    exports: s
                        .exports
                        .iter()
                        .map(|&e| base.wrapping_add(e).cast())
                        .collect(),
                    args: s.args,
                    payload: if s.payload.1 == 0 {
                        std::ptr::null()
                    } else {
                        base.wrapping_add(s.payload.0)
                    },
                    payload_size: s.payload.1,
                })
                .collect();
        }
        Ok(blob)
    }

    /// Bare bitcode.
    pub fn from_bitcode(bitcode: &[u8]) -> Result<Box<ParsedBlob>, ParseError> {
        let module =
            dxil_module::read_module(bitcode, 0).map_err(|e| ParseError::Parser(e.to_string()))?;
        ParsedBlob::from_module(module, copy_bitcode(bitcode))
    }

    fn from_module(module: Module, bitcode: Vec<u8>) -> Result<Box<ParsedBlob>, ParseError> {
        let dm = dxil_shader::DxilModule::for_translation(&module)
            .map_err(|e| ParseError::Parser(e.to_string()))?;
        let cstr = |s: &str| {
            CString::new(s)
                .map_err(|_| ParseError::Parser(format!("entry point name `{s}` holds a NUL")))
        };
        let mut spare = SPARE.try_with(Cell::take).ok().flatten();
        let (mut entries, mut ranges) = match spare.as_mut() {
            Some(b) => (
                std::mem::take(&mut b.entries),
                std::mem::take(&mut b.ranges),
            ),
            None => (Vec::new(), Vec::new()),
        };
        for (i, e) in dm.entry_points.iter().enumerate() {
            if e.function.is_none() {
                continue;
            }
            entries.push(Entry {
                mangled: cstr(&e.name)?,
                demangled: match demangle(&e.name) {
                    d if d.len() == e.name.len() => None,
                    d => Some(cstr(d)?),
                },
                stage: stage_of(e.shader_kind),
                dxil_entry: i,
                io: OnceLock::new(),
            });
        }
        for (_, r) in dm.resources.iter() {
            let Some(class) = ResourceClass::from_u32(r.class.raw()) else {
                continue;
            };
            let kind = match class {
                ResourceClass::Cbv => ResourceKind::CBuffer,
                ResourceClass::Sampler => ResourceKind::Sampler,
                _ => match r.kind {
                    ResourceKind::Invalid | ResourceKind::Other(_) => continue,
                    k => k,
                },
            };
            ranges.push(Range {
                class,
                kind,
                range_id: r.id,
                space: r.space,
                lower: r.lower_bound,
                count: r.range_size,
                stride: r.tags.structure_stride.unwrap_or(0),
                has_counter: r.has_counter(),
            });
        }
        let stage = stage_of(dm.shader_model.kind);
        if let Some(mut b) = spare
            && let Some(m) = Arc::get_mut(&mut b.module)
        {
            *m = module;
            match Arc::get_mut(&mut b.dxil) {
                Some(d) => *d = dm,
                None => b.dxil = Arc::new(dm),
            }
            b.stage = stage;
            b.bitcode = bitcode;
            b.entries = entries;
            b.ranges = ranges;
            return Ok(b);
        }
        Ok(Box::new(ParsedBlob {
            stage,
            dxil: Arc::new(dm),
            module: Arc::new(module),
            bitcode,
            entries,
            ranges,
            disassembly: None,
            subobjects: Vec::new(),
        }))
    }

    /// Frees a blob (`dxil_spv_parsed_blob_free`). Its module's storage goes to the reader's stash as when it is
    /// dropped, and the emptied blob itself (its box, the shared boxes of its module and view, its entry and range
    /// lists) is kept for the thread's next parse: a layer parses, translates and frees blob after blob, and these
    /// were five allocations and frees per blob.
    pub fn release(mut self: Box<ParsedBlob>) {
        // A blob with unusually many entries or ranges is not kept (nor one whose view is still shared): dropped
        // as usual.
        if Arc::get_mut(&mut self.dxil).is_none()
            || self.entries.capacity() + self.ranges.capacity() > 256
        {
            return;
        }
        let Some(m) = Arc::get_mut(&mut self.module) else {
            return;
        };
        dxil_module::recycle(std::mem::take(m));
        let bitcode = std::mem::take(&mut self.bitcode);
        if bitcode.capacity() <= BITCODE_KEEP {
            let _ = BITCODE.try_with(|b| b.set(bitcode));
        }
        // The view stays until the next parse replaces it; the lists are emptied now (their capacity is what the
        // next parse keeps).
        self.entries.clear();
        self.ranges.clear();
        self.disassembly = None;
        self.subobjects.clear();
        let _ = SPARE.try_with(|s| s.set(Some(self)));
    }

    /// The entry whose mangled or demangled name is `name`.
    pub fn entry_index(&self, name: &[u8]) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.mangled.as_bytes() == name || e.demangled().to_bytes() == name)
    }
}

/// The stage of a shader kind, in the API's numbering.
fn stage_of(kind: ShaderKind) -> abi::ShaderStage {
    match kind {
        ShaderKind::Vertex => stage::VERTEX,
        ShaderKind::Hull => stage::HULL,
        ShaderKind::Domain => stage::DOMAIN,
        ShaderKind::Geometry => stage::GEOMETRY,
        ShaderKind::Pixel => stage::PIXEL,
        ShaderKind::Compute => stage::COMPUTE,
        ShaderKind::Intersection => stage::INTERSECTION,
        ShaderKind::ClosestHit => stage::CLOSEST_HIT,
        ShaderKind::Miss => stage::MISS,
        ShaderKind::AnyHit => stage::ANY_HIT,
        ShaderKind::RayGeneration => stage::RAY_GENERATION,
        ShaderKind::Callable => stage::CALLABLE,
        ShaderKind::Amplification => stage::AMPLIFICATION,
        ShaderKind::Mesh => stage::MESH,
        _ => stage::UNKNOWN,
    }
}

/// A library function's HLSL name from its mangled name (`\x01?name@@...` → `name`); other names unchanged.
pub fn demangle(name: &str) -> &str {
    match name.strip_prefix("\u{1}?") {
        Some(rest) => rest.split('@').next().unwrap_or(rest),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_library_names() {
        assert_eq!(demangle("\u{1}?RayGen@@YAXXZ"), "RayGen");
        assert_eq!(demangle("main"), "main");
        assert_eq!(demangle("\u{1}?"), "");
    }
}
