//! Translation errors: what could not be translated, why, and where.
//!
//! The readers' errors are kept as the causes they are ([`Error::Container`], [`Error::Module`],
//! [`MetadataError::Shader`], [`Invalid::DxOp`]). An instruction the translator does not implement is
//! [`Error::Unsupported`], input breaking a DXIL rule the translation relies on is [`Error::Invalid`]; both carry
//! the [`Location`] and a reason ([`Unsupported`], [`Invalid`]) whose variant says what kind of thing is wrong and
//! whose text names the instance.

use std::borrow::Cow;
use std::fmt;

use dxil_shader::ops::OpCode;

use crate::cfg::StructurizeError;

/// Where in the input an instruction sits: function, basic block and instruction index within the function body
/// (the numbering of the module's instruction list, void instructions included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub function: String,
    pub block: u32,
    pub inst: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "function @{}, block {}, instruction {}",
            self.function, self.block, self.inst
        )
    }
}

/// The text naming one instance of a reason (an operand, a type, a resource kind...).
pub type Detail = Cow<'static, str>;

/// Why an instruction or declaration is not translated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsupported {
    /// A DXIL operation with no lowering in this stage or at all.
    #[error("{} (opcode {})", .0.name(), .0.as_u32())]
    Operation(OpCode),
    /// A DXIL operation that needs what Vulkan or the translator lacks.
    #[error("{} ({why})", .op.name())]
    OperationNeeds { op: OpCode, why: &'static str },
    /// An LLVM instruction form (atomic loads, `va_arg`, calls to other functions...).
    #[error("{0}")]
    Instruction(Detail),
    /// A type or constant without a SPIR-V form here.
    #[error("{0}")]
    Type(Detail),
    /// A use of pointers beyond variables and constant-shaped access chains.
    #[error("{0}")]
    Pointer(&'static str),
    /// An operation on values of a class it does not handle (bit operations on 64-bit values, wave arithmetic on
    /// bools...).
    #[error("{0}")]
    Value(Detail),
    /// A resource used in a way the binding or the lowering does not express.
    #[error("{0}")]
    Resource(Detail),
    /// A signature element of a graphics stage.
    #[error("{0}")]
    Signature(Detail),
}

/// Which DXIL rule the input breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Invalid {
    /// A `dx.op` call whose operands do not fit its opcode (dxil-shader's operation table).
    #[error(transparent)]
    DxOp(#[from] dxil_shader::DxOpError),
    /// A call operand missing, not constant or without a type.
    #[error("{0}")]
    Operand(Detail),
    /// An operand or a constant index out of its range (components, rows, streams...).
    #[error("{0}")]
    Range(Detail),
    /// An instruction, constant, global or block that does not exist where it is referred to.
    #[error("{0}")]
    Reference(Detail),
    /// Operand types that do not fit the instruction.
    #[error("{0}")]
    Type(Detail),
    /// An enumeration operand (atomic operation, wave operation, predicate...) out of its values.
    #[error("unknown {what} {value}")]
    Enum { what: &'static str, value: i64 },
    /// A resource of a class or kind the operation does not take, or a handle that does not resolve.
    #[error("{0}")]
    Resource(Detail),
    /// Blocks, terminators and phis that do not form the function.
    #[error("{0}")]
    Block(Detail),
    /// An operation the entry's stage may not use (the stages of DXIL.rst's operation table).
    #[error("{} in a {stage} shader (DXIL allows it in other stages only)", .op.name())]
    OpStage { op: OpCode, stage: &'static str },
    /// Something else the entry's stage may not have (groupshared memory outside compute, mesh and amplification
    /// shaders).
    #[error("{what} in a {stage} shader (DXIL allows it in other stages only)")]
    Stage {
        what: &'static str,
        stage: &'static str,
    },
    /// A `dx.op` function whose overload suffix the operation does not have (`dx.op.unary.f64` for
    /// `DerivCoarseX`).
    #[error("{} called through @{function}: no such overload of the operation", .op.name())]
    Overload { op: OpCode, function: String },
    /// A `dx.op` function of one class called with the opcode of an operation of another.
    #[error("{} called through @{function}, a function of another class", .op.name())]
    Class { op: OpCode, function: String },
    /// The lowering's own bookkeeping does not hold (a translator bug, reported rather than panicking).
    #[error("{0}")]
    Internal(Detail),
}

/// Module metadata the translation cannot use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataError {
    /// dxil-shader cannot read the module's metadata.
    #[error(transparent)]
    Shader(#[from] dxil_shader::Error),
    /// The entry point (shader model, `dx.entryPoints`, the entry function).
    #[error("{0}")]
    Entry(Detail),
    /// A `dx.resources` record.
    #[error("{0}")]
    Resource(Detail),
    /// A signature element or the geometry shader state.
    #[error("{0}")]
    Signature(Detail),
}

/// A limit of the SPIR-V encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Limit {
    /// An instruction longer than 65535 words.
    #[error("switch with {0} words")]
    SwitchWords(u32),
    #[error("phi with {0} predecessors")]
    PhiPredecessors(u32),
    #[error("constant with {0} elements")]
    ConstantElements(usize),
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("container: {0}")]
    Container(#[from] dxil_container::Error),
    #[error("the container has no DXIL program part")]
    NoProgram,
    #[error("bitcode: {0}")]
    Module(#[from] dxil_module::ReadError),
    #[error("metadata: {0}")]
    Metadata(#[from] MetadataError),
    /// A stage the translator does not translate (yet): see the crate docs for those it does.
    #[error("{stage} shaders are not supported yet")]
    Stage { stage: &'static str },
    /// A stage Vulkan cannot express.
    #[error("{stage} shaders cannot be translated: {why}")]
    StageNeeds {
        stage: &'static str,
        why: &'static str,
    },
    /// An operation the translator does not implement.
    #[error("unsupported {what} at {at}")]
    Unsupported { what: Unsupported, at: Location },
    /// A `dx.op` call whose opcode is no DXIL operation.
    #[error("unknown dx.op opcode {opcode} at {at}")]
    UnknownOpcode { opcode: i64, at: Location },
    /// Input that breaks a DXIL rule the translation depends on.
    #[error("invalid input at {at}: {what}")]
    Invalid { what: Invalid, at: Location },
    #[error("control flow of @{function}: {source}")]
    ControlFlow {
        function: String,
        #[source]
        source: StructurizeError,
    },
    /// The binding model cannot place a resource.
    #[error("binding: {0}")]
    Binding(String),
    /// An option the translator cannot honour, or a device feature the translation needs but may not use.
    #[error("option {option}: {why}")]
    Option { option: &'static str, why: String },
    /// A limit of the SPIR-V encoding.
    #[error("limit: {0}")]
    Limit(#[from] Limit),
}

/// Constructors taking `&'static str` or `String` for the detail variants.
macro_rules! detail_ctors {
    ($ty:ident: $($f:ident => $v:ident),* $(,)?) => {
        impl $ty {
            $(
                pub(crate) fn $f(detail: impl Into<Detail>) -> $ty {
                    $ty::$v(detail.into())
                }
            )*
        }
    };
}

detail_ctors!(Unsupported:
    instruction => Instruction,
    ty => Type,
    value => Value,
    resource => Resource,
    signature => Signature,
);
detail_ctors!(Invalid:
    operand => Operand,
    range => Range,
    reference => Reference,
    ty => Type,
    resource => Resource,
    block => Block,
    internal => Internal,
);
detail_ctors!(MetadataError:
    entry => Entry,
    resource => Resource,
    signature => Signature,
);
