//! The conformance case model (versions 1 and 2 of the case format) and its strict TOML reader.

mod parse;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::format::Format;
use crate::init::Init;

pub use parse::CaseError;

/// The largest resource (or memory) a case may declare; bounds allocations driven by case files.
pub const MAX_RESOURCE_SIZE: u64 = 256 << 20;
/// D3D12's limit on thread groups per dispatch dimension.
pub const MAX_GROUPS_PER_DIMENSION: u32 = 65535;
/// D3D12's largest CBV/SRV/UAV heap (resource binding tier 2 and up).
pub const MAX_HEAP_SIZE: u32 = 1_000_000;
/// D3D12's largest shader-visible sampler heap.
pub const MAX_SAMPLER_HEAP_SIZE: u32 = 2048;
/// A root signature has at most 64 DWORDs, so never more than 64 parameters or constants.
pub const MAX_ROOT_PARAMETERS: u32 = 64;
/// Register numbers per class in the default binding model: `shift(class) + n` must not reach
/// the next class's shift.
pub const REGISTERS_PER_CLASS: u32 = 100;

/// A loaded case: what to run and what to expect.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The case file, for messages.
    pub source: PathBuf,
    /// The DXIL container, resolved against the case file's folder.
    pub shader: PathBuf,
    /// Entry point name (needed for library containers).
    pub entry: Option<String>,
    /// Thread groups of the single dispatch. Always present in version 1; in version 2 it may be
    /// absent when `[[pass]]` tables give the dispatches.
    pub dispatch: Option<[u32; 3]>,
    /// How resources reach the shader.
    pub binding: Binding,
    /// What the resources must hold afterwards.
    pub expects: Vec<Expect>,
}

/// The two binding models of the case format.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    /// Version 1: resources bound by register (set = space, binding = shift(class) + register).
    Registers(Vec<Resource>),
    /// Version 2: a root signature, descriptor heaps and root arguments.
    RootSignature(Box<HeapLayout>),
}

/// A D3D register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterClass {
    /// `b`: constant buffers.
    Cbv,
    /// `t`: shader resource views.
    Srv,
    /// `u`: unordered access views.
    Uav,
    /// `s`: samplers.
    Sampler,
}

impl RegisterClass {
    /// The register letter.
    pub fn letter(self) -> char {
        match self {
            RegisterClass::Cbv => 'b',
            RegisterClass::Srv => 't',
            RegisterClass::Uav => 'u',
            RegisterClass::Sampler => 's',
        }
    }

    /// The binding shift of the default binding model.
    pub fn shift(self) -> u32 {
        match self {
            RegisterClass::Cbv => 0,
            RegisterClass::Srv => 100,
            RegisterClass::Uav => 200,
            RegisterClass::Sampler => 300,
        }
    }

    fn from_letter(c: char) -> Option<Self> {
        Some(match c {
            'b' => RegisterClass::Cbv,
            't' => RegisterClass::Srv,
            'u' => RegisterClass::Uav,
            's' => RegisterClass::Sampler,
            _ => return None,
        })
    }
}

/// A register: class, number and space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Register {
    pub class: RegisterClass,
    pub number: u32,
    pub space: u32,
}

impl Register {
    /// The Vulkan (set, binding) of this register in the default binding model.
    pub fn default_binding(self) -> (u32, u32) {
        (self.space, self.class.shift() + self.number)
    }

    /// The inverse of [`Register::default_binding`], for bindings below 400.
    pub fn from_default_binding(set: u32, binding: u32) -> Option<Register> {
        let class = match binding / REGISTERS_PER_CLASS {
            0 => RegisterClass::Cbv,
            1 => RegisterClass::Srv,
            2 => RegisterClass::Uav,
            3 => RegisterClass::Sampler,
            _ => return None,
        };
        Some(Register {
            class,
            number: binding % REGISTERS_PER_CLASS,
            space: set,
        })
    }

    /// The dump file stem of the case format: `u0`, or `u0_space1` outside space 0.
    pub fn file_stem(self) -> String {
        if self.space == 0 {
            format!("{}{}", self.class.letter(), self.number)
        } else {
            format!("{}{}_space{}", self.class.letter(), self.number, self.space)
        }
    }
}

impl fmt::Display for Register {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.letter(), self.number)?;
        if self.space != 0 {
            write!(f, " (space {})", self.space)?;
        }
        Ok(())
    }
}

/// What a version-1 resource is, as D3D sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceKind {
    /// ByteAddressBuffer / RWByteAddressBuffer.
    Raw,
    /// StructuredBuffer with the given element stride.
    Structured { stride: u32 },
    /// Buffer / RWBuffer with an element format.
    Typed { format: Format },
    /// A constant buffer.
    Constant,
    /// A sampler (`s` registers); no memory. The runner binds a point-filtering, wrapping sampler.
    Sampler,
}

/// One `[[resource]]` of a version-1 case.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub register: Register,
    pub kind: ResourceKind,
    /// Size in bytes (0 for samplers).
    pub size: u64,
    pub init: Init,
}

/// Where the version-2 root signature comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum RootSignatureSource {
    /// `"embedded"`: the RTS0 part of the shader's own container.
    Embedded,
    /// `{ hlsl = "..." }`: an HLSL root signature string.
    Hlsl(String),
    /// `{ file = "..." }`: a container with an RTS0 part, or a raw RTS0 payload.
    File { path: PathBuf, bytes: Vec<u8> },
}

/// The version-2 part of a case.
#[derive(Clone, Debug, PartialEq)]
pub struct HeapLayout {
    pub root_signature: RootSignatureSource,
    /// CBV/SRV/UAV heap slots.
    pub heap_size: u32,
    /// Sampler heap slots.
    pub sampler_heap_size: u32,
    pub memories: Vec<Memory>,
    pub views: Vec<View>,
    pub samplers: Vec<SamplerDesc>,
    /// Top-level root arguments.
    pub root: Vec<RootArgument>,
    /// Dispatches in order; empty means one dispatch of [`Case::dispatch`].
    pub passes: Vec<Pass>,
}

/// A named buffer resource (`[[memory]]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Memory {
    pub name: String,
    pub size: u64,
    pub init: Init,
}

/// The D3D12 view type of a `[[view]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewType {
    Srv,
    Uav,
    Cbv,
    NullSrv,
    NullUav,
    NullCbv,
}

impl ViewType {
    /// Whether this is one of the null descriptor types.
    pub fn is_null(self) -> bool {
        matches!(
            self,
            ViewType::NullSrv | ViewType::NullUav | ViewType::NullCbv
        )
    }
}

/// How a buffer view's elements are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewShape {
    /// `raw = true`: 4-byte words.
    Raw,
    /// `stride = N`.
    Structured { stride: u32 },
    /// `format = "..."`.
    Typed { format: Format },
    /// A constant buffer view: elements are bytes.
    Constant,
}

impl ViewShape {
    /// Bytes per element.
    pub fn element_size(self) -> u32 {
        match self {
            ViewShape::Raw => 4,
            ViewShape::Structured { stride } => stride,
            ViewShape::Typed { format } => format.size(),
            ViewShape::Constant => 1,
        }
    }
}

/// A UAV counter: a memory and a byte offset into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    /// Index into [`HeapLayout::memories`].
    pub memory: usize,
    pub offset: u64,
}

/// One descriptor written into the CBV/SRV/UAV heap.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub slot: u32,
    pub ty: ViewType,
    /// Index into [`HeapLayout::memories`]; `None` for null views.
    pub memory: Option<usize>,
    pub shape: ViewShape,
    pub first_element: u64,
    pub num_elements: u64,
    pub counter: Option<Counter>,
}

/// Sampler filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    Point,
    Linear,
    Anisotropic,
}

/// Sampler addressing, applied to all three axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Mirror,
    Clamp,
    Border,
    MirrorOnce,
}

/// One sampler written into the sampler heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    pub slot: u32,
    pub filter: Filter,
    pub address: AddressMode,
}

/// A root argument's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootValue {
    /// A descriptor table starting at this heap slot.
    Table(u32),
    /// A root CBV/SRV/UAV: an address inside a memory (index into [`HeapLayout::memories`]).
    Address { memory: usize, offset: u64 },
    /// 32-bit root constants from DestOffsetIn32BitValues 0.
    Constants(Vec<u32>),
}

/// One `[[root]]` (or `[[pass.root]]`) entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootArgument {
    pub index: u32,
    pub value: RootValue,
}

/// One `[[pass]]`: a dispatch with its own root-argument overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    pub groups: [u32; 3],
    pub root: Vec<RootArgument>,
}

/// One `[[expect]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    /// Index into the resources (version 1) or memories (version 2).
    pub target: usize,
    pub values: Expected,
}

/// The expected leading contents of a resource.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32 {
        values: Vec<f32>,
        tolerance_ulp: u32,
    },
    /// `hex = "file"`: expected bytes (read when the case is loaded).
    Bytes {
        path: PathBuf,
        bytes: Vec<u8>,
    },
}

impl Expected {
    /// Bytes covered by the expectation.
    pub fn byte_len(&self) -> u64 {
        let words = match self {
            Expected::U32(v) => v.len(),
            Expected::I32(v) => v.len(),
            Expected::F32 { values, .. } => values.len(),
            Expected::Bytes { bytes, .. } => return bytes.len() as u64,
        };
        words as u64 * 4
    }
}

impl Case {
    /// Reads and validates a case file; relative paths inside it are resolved against its folder.
    pub fn load(path: impl AsRef<Path>) -> Result<Case, CaseError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| CaseError::Read {
            file: path.to_path_buf(),
            source,
        })?;
        Case::parse(&text, path)
    }

    /// Parses case text as if it had been read from `path` (which only names the file in messages
    /// and gives the folder that relative paths are resolved against).
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Case, CaseError> {
        parse::parse_case(text, path.as_ref())
    }

    /// The format version: 1 for the default binding model, 2 with a root signature.
    pub fn version(&self) -> u32 {
        match self.binding {
            Binding::Registers(_) => 1,
            Binding::RootSignature(_) => 2,
        }
    }

    /// Human-readable name of an expectation target (`u0`, `u1 (space 2)`, or a memory name).
    pub fn target_name(&self, target: usize) -> String {
        match &self.binding {
            Binding::Registers(resources) => resources
                .get(target)
                .map_or_else(|| format!("#{target}"), |r| r.register.to_string()),
            Binding::RootSignature(heap) => heap
                .memories
                .get(target)
                .map_or_else(|| format!("#{target}"), |m| m.name.clone()),
        }
    }
}
