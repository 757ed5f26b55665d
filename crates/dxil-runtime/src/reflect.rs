//! What a SPIR-V compute module expects to be bound: descriptor types per (set, binding) and the
//! push-constant block size.
//!
//! Descriptor types come from the module rather than from the case, so that the same case runs
//! with DXC's SPIR-V and with our translator's even where the two lower a D3D resource to
//! different Vulkan descriptor types (say, a raw buffer as a storage buffer or as a texel buffer).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

/// A module that cannot be run as given.
#[derive(Debug, thiserror::Error)]
pub enum ReflectError {
    #[error("the SPIR-V module cannot be parsed: {0}")]
    Parse(String),
    #[error(
        "the SPIR-V module has no GLCompute entry point named `{wanted}` (compute entry points: {found})"
    )]
    NoEntryPoint { wanted: String, found: String },
    #[error("the SPIR-V module has {0} GLCompute entry points; name one")]
    AmbiguousEntryPoint(usize),
    #[error("variable %{id} at set {set}, binding {binding}: {message}")]
    Unsupported {
        id: u32,
        set: u32,
        binding: u32,
        message: String,
    },
    #[error(
        "set {set}, binding {binding} is declared both as {first:?} and as {second:?}, which the binding it is bound to cannot hold"
    )]
    Conflict {
        set: u32,
        binding: u32,
        first: DescriptorKind,
        second: DescriptorKind,
    },
}

/// The Vulkan descriptor type a binding needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    UniformBuffer,
    StorageBuffer,
    UniformTexelBuffer,
    StorageTexelBuffer,
    Sampler,
    SampledImage,
    StorageImage,
    CombinedImageSampler,
    AccelerationStructure,
}

/// How many descriptors a binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorCount {
    /// A single descriptor, or a fixed-size array of them.
    Fixed(u32),
    /// A runtime-sized array.
    Runtime,
}

/// One (set, binding) the entry point uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorBinding {
    pub set: u32,
    pub binding: u32,
    /// The descriptor type of the first variable declared on this binding.
    pub kind: DescriptorKind,
    /// Other descriptor types declared on the same binding by aliasing variables (a heap array
    /// read as storage buffers and as uniform buffers through one mutable binding, say).
    pub aliases: Vec<DescriptorKind>,
    pub count: DescriptorCount,
    /// The declared image format of texel buffers (`None` for Unknown or non-images).
    pub image_format: Option<spirv::ImageFormat>,
    /// The variable's debug name, when the module has one.
    pub name: Option<String>,
}

/// The binding interface of one compute entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflection {
    pub entry_point: String,
    /// `LocalSize` when given as literals.
    pub local_size: Option<[u32; 3]>,
    /// Sorted by (set, binding); one entry per binding even when several variables alias it.
    pub bindings: Vec<DescriptorBinding>,
    /// Bytes of the push-constant block (0 when there is none).
    pub push_constant_size: u32,
}

fn lit(op: Option<&Operand>) -> Option<u32> {
    match op {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

fn id(op: Option<&Operand>) -> Option<u32> {
    match op {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => None,
    }
}

struct Decorations {
    set: HashMap<u32, u32>,
    binding: HashMap<u32, u32>,
    block: HashMap<u32, bool>, // true: BufferBlock
    array_stride: HashMap<u32, u32>,
    member_offset: HashMap<(u32, u32), u32>,
}

fn decorations(annotations: &[Instruction]) -> Decorations {
    let mut d = Decorations {
        set: HashMap::new(),
        binding: HashMap::new(),
        block: HashMap::new(),
        array_stride: HashMap::new(),
        member_offset: HashMap::new(),
    };
    for inst in annotations {
        match inst.class.opcode {
            Op::Decorate => {
                let (Some(target), Some(Operand::Decoration(dec))) =
                    (id(inst.operands.first()), inst.operands.get(1))
                else {
                    continue;
                };
                let value = lit(inst.operands.get(2));
                match (dec, value) {
                    (Decoration::DescriptorSet, Some(v)) => {
                        d.set.insert(target, v);
                    }
                    (Decoration::Binding, Some(v)) => {
                        d.binding.insert(target, v);
                    }
                    (Decoration::ArrayStride, Some(v)) => {
                        d.array_stride.insert(target, v);
                    }
                    (Decoration::Block, _) => {
                        d.block.entry(target).or_insert(false);
                    }
                    (Decoration::BufferBlock, _) => {
                        d.block.insert(target, true);
                    }
                    _ => {}
                }
            }
            Op::MemberDecorate => {
                if let (
                    Some(target),
                    Some(member),
                    Some(Operand::Decoration(Decoration::Offset)),
                    Some(off),
                ) = (
                    id(inst.operands.first()),
                    lit(inst.operands.get(1)),
                    inst.operands.get(2),
                    lit(inst.operands.get(3)),
                ) {
                    d.member_offset.insert((target, member), off);
                }
            }
            _ => {}
        }
    }
    d
}

/// Reflects the entry point `entry` (or the module's only GLCompute entry point when `entry` is
/// empty).
pub fn reflect(words: &[u32], entry: &str) -> Result<Reflection, ReflectError> {
    let module = rspirv::dr::load_words(words).map_err(|e| ReflectError::Parse(e.to_string()))?;

    let computes: Vec<&Instruction> = module
        .entry_points
        .iter()
        .filter(|e| {
            matches!(
                e.operands.first(),
                Some(Operand::ExecutionModel(spirv::ExecutionModel::GLCompute))
            )
        })
        .collect();
    let chosen = choose_entry_point(&computes, entry)?;
    let entry_fn = id(chosen.operands.get(1));
    let interface: Vec<u32> = chosen
        .operands
        .iter()
        .skip(3)
        .filter_map(|o| id(Some(o)))
        .collect();
    // Before SPIR-V 1.4 the interface lists only Input/Output variables, so every resource
    // variable in the module counts.
    let version = module.header.as_ref().map_or(0, |h| h.version);
    let interface_lists_resources = version >= 0x0001_0400;

    let local_size = module.execution_modes.iter().find_map(|m| {
        if id(m.operands.first()) != entry_fn {
            return None;
        }
        match m.operands.get(1) {
            Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSize)) => Some([
                lit(m.operands.get(2))?,
                lit(m.operands.get(3))?,
                lit(m.operands.get(4))?,
            ]),
            _ => None,
        }
    });

    let decs = decorations(&module.annotations);
    let names: HashMap<u32, &str> = module
        .debug_names
        .iter()
        .filter(|i| i.class.opcode == Op::Name)
        .filter_map(|i| match (id(i.operands.first()), i.operands.get(1)) {
            (Some(t), Some(Operand::LiteralString(s))) => Some((t, s.as_str())),
            _ => None,
        })
        .collect();

    let mut types: HashMap<u32, &Instruction> = HashMap::new();
    let mut constants: HashMap<u32, u64> = HashMap::new();
    // Byte sizes of types, computed in declaration order: SPIR-V declares every type before its
    // uses, so one forward pass suffices and nothing recurses.
    let mut sizes: HashMap<u32, u64> = HashMap::new();
    let mut bindings: Vec<DescriptorBinding> = Vec::new();
    let mut push_constant_size = 0u64;

    for inst in &module.types_global_values {
        let Some(result) = inst.result_id else {
            continue;
        };
        match inst.class.opcode {
            Op::Constant => {
                match inst.operands.first() {
                    Some(Operand::LiteralBit32(v)) => constants.insert(result, u64::from(*v)),
                    Some(Operand::LiteralBit64(v)) => constants.insert(result, *v),
                    _ => None,
                };
            }
            Op::Variable => {
                let pointer = inst.result_type.and_then(|t| types.get(&t));
                let storage = match inst.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => continue,
                };
                if storage == StorageClass::PushConstant {
                    let pointee = pointer.and_then(|p| id(p.operands.get(1)));
                    let size = pointee.and_then(|t| sizes.get(&t)).copied().unwrap_or(0);
                    push_constant_size = push_constant_size.max(size);
                    continue;
                }
                let (Some(&set), Some(&binding)) =
                    (decs.set.get(&result), decs.binding.get(&result))
                else {
                    continue;
                };
                if interface_lists_resources && !interface.contains(&result) {
                    continue;
                }
                let unsupported = |message: String| ReflectError::Unsupported {
                    id: result,
                    set,
                    binding,
                    message,
                };
                let ty = pointer
                    .and_then(|p| id(p.operands.get(1)))
                    .and_then(|t| types.get(&t).copied())
                    .ok_or_else(|| {
                        unsupported("its type is not a pointer to a declared type".into())
                    })?;
                let (ty, count) = descriptor_array(ty, &types, &constants, &unsupported)?;
                let (kind, image_format) = descriptor_kind(storage, ty, &decs, &unsupported)?;
                let name = names.get(&result).map(|s| s.to_string());
                add_binding(
                    &mut bindings,
                    DescriptorBinding {
                        set,
                        binding,
                        kind,
                        aliases: Vec::new(),
                        count,
                        image_format,
                        name,
                    },
                );
            }
            _ => {
                if let Some(size) = type_size(inst, &sizes, &constants, &decs) {
                    sizes.insert(result, size);
                }
                if is_type(inst.class.opcode) {
                    types.insert(result, inst);
                }
            }
        }
    }

    bindings.sort_by_key(|b| (b.set, b.binding));
    Ok(Reflection {
        entry_point: entry_point_name(chosen),
        local_size,
        bindings,
        push_constant_size: u32::try_from(push_constant_size).unwrap_or(u32::MAX),
    })
}

/// An entry point's name (its third operand), empty when it has none.
fn entry_point_name(e: &Instruction) -> String {
    match e.operands.get(2) {
        Some(Operand::LiteralString(s)) => s.clone(),
        _ => String::new(),
    }
}

/// The compute entry point named `entry`, or the only one when `entry` is empty.
fn choose_entry_point<'a>(
    computes: &[&'a Instruction],
    entry: &str,
) -> Result<&'a Instruction, ReflectError> {
    let chosen = if entry.is_empty() {
        match computes {
            [one] => *one,
            [] => {
                return Err(ReflectError::NoEntryPoint {
                    wanted: String::new(),
                    found: "none".into(),
                });
            }
            many => return Err(ReflectError::AmbiguousEntryPoint(many.len())),
        }
    } else {
        computes
            .iter()
            .copied()
            .find(|e| entry_point_name(e) == entry)
            .ok_or_else(|| {
                let names: Vec<String> = computes.iter().map(|e| entry_point_name(e)).collect();
                ReflectError::NoEntryPoint {
                    wanted: entry.to_string(),
                    found: if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    },
                }
            })?
    };
    Ok(chosen)
}

/// A variable's descriptor type and count: an array (sized by a literal constant) or runtime
/// array of descriptors gives its element type and length, anything else one descriptor.
fn descriptor_array<'a>(
    mut ty: &'a Instruction,
    types: &HashMap<u32, &'a Instruction>,
    constants: &HashMap<u32, u64>,
    unsupported: &impl Fn(String) -> ReflectError,
) -> Result<(&'a Instruction, DescriptorCount), ReflectError> {
    let mut count = DescriptorCount::Fixed(1);
    match ty.class.opcode {
        Op::TypeArray => {
            let n = id(ty.operands.get(1))
                .and_then(|c| constants.get(&c))
                .copied();
            let n = n
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| unsupported("a descriptor array without a literal length".into()))?;
            count = DescriptorCount::Fixed(n);
            ty = id(ty.operands.first())
                .and_then(|t| types.get(&t).copied())
                .ok_or_else(|| unsupported("bad array element type".into()))?;
        }
        Op::TypeRuntimeArray => {
            count = DescriptorCount::Runtime;
            ty = id(ty.operands.first())
                .and_then(|t| types.get(&t).copied())
                .ok_or_else(|| unsupported("bad array element type".into()))?;
        }
        _ => {}
    }
    Ok((ty, count))
}

/// The Vulkan descriptor kind of a variable of storage class `storage` and (element) type `ty`,
/// with the image format a storage image or texel buffer declares.
fn descriptor_kind(
    storage: StorageClass,
    ty: &Instruction,
    decs: &Decorations,
    unsupported: &impl Fn(String) -> ReflectError,
) -> Result<(DescriptorKind, Option<spirv::ImageFormat>), ReflectError> {
    let mut image_format = None;
    let kind = match (storage, ty.class.opcode) {
        (StorageClass::StorageBuffer, _) => DescriptorKind::StorageBuffer,
        (StorageClass::Uniform, _) => match ty.result_id.and_then(|t| decs.block.get(&t)) {
            Some(true) => DescriptorKind::StorageBuffer,
            _ => DescriptorKind::UniformBuffer,
        },
        (StorageClass::UniformConstant, Op::TypeSampler) => DescriptorKind::Sampler,
        (StorageClass::UniformConstant, Op::TypeSampledImage) => {
            DescriptorKind::CombinedImageSampler
        }
        (StorageClass::UniformConstant, Op::TypeAccelerationStructureKHR) => {
            DescriptorKind::AccelerationStructure
        }
        (StorageClass::UniformConstant, Op::TypeImage) => {
            let dim = match ty.operands.get(1) {
                Some(Operand::Dim(d)) => *d,
                _ => return Err(unsupported("malformed OpTypeImage".into())),
            };
            let sampled = lit(ty.operands.get(5)).unwrap_or(0);
            if let Some(Operand::ImageFormat(f)) = ty.operands.get(6)
                && *f != spirv::ImageFormat::Unknown
            {
                image_format = Some(*f);
            }
            match (dim, sampled) {
                (spirv::Dim::DimBuffer, 2) => DescriptorKind::StorageTexelBuffer,
                (spirv::Dim::DimBuffer, _) => DescriptorKind::UniformTexelBuffer,
                (_, 2) => DescriptorKind::StorageImage,
                _ => DescriptorKind::SampledImage,
            }
        }
        (s, op) => {
            return Err(unsupported(format!(
                "a {s:?} variable of type {op:?} is not a descriptor"
            )));
        }
    };
    Ok((kind, image_format))
}

/// Adds a binding, or merges it into an earlier variable at the same set and binding (an
/// alias): the larger count, the first image format, other kinds as aliases.
fn add_binding(bindings: &mut Vec<DescriptorBinding>, new: DescriptorBinding) {
    let DescriptorBinding {
        set,
        binding,
        kind,
        count,
        image_format,
        ..
    } = new;
    match bindings
        .iter_mut()
        .find(|b| b.set == set && b.binding == binding)
    {
        Some(existing) => {
            // Whether differently typed aliases are allowed depends on the binding
            // model (mutable heap bindings take them), so they are only recorded here.
            if existing.kind != kind && !existing.aliases.contains(&kind) {
                existing.aliases.push(kind);
            }
            existing.image_format = existing.image_format.or(image_format);
            if let (DescriptorCount::Fixed(a), DescriptorCount::Fixed(b)) = (existing.count, count)
            {
                existing.count = DescriptorCount::Fixed(a.max(b));
            } else {
                existing.count = DescriptorCount::Runtime;
            }
        }
        None => bindings.push(new),
    }
}

fn is_type(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypeImage
            | Op::TypeSampler
            | Op::TypeSampledImage
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeStruct
            | Op::TypePointer
            | Op::TypeForwardPointer
            | Op::TypeFunction
            | Op::TypeAccelerationStructureKHR
    )
}

/// The byte size of a type in an explicitly laid out block (push constants), from sizes of the
/// types it is made of.
fn type_size(
    inst: &Instruction,
    sizes: &HashMap<u32, u64>,
    constants: &HashMap<u32, u64>,
    decs: &Decorations,
) -> Option<u64> {
    let size_of = |op: Option<&Operand>| id(op).and_then(|t| sizes.get(&t)).copied();
    match inst.class.opcode {
        Op::TypeInt | Op::TypeFloat => lit(inst.operands.first()).map(|bits| u64::from(bits) / 8),
        Op::TypeBool => Some(4),
        Op::TypeVector | Op::TypeMatrix => Some(
            size_of(inst.operands.first())?.saturating_mul(u64::from(lit(inst.operands.get(1))?)),
        ),
        Op::TypePointer | Op::TypeForwardPointer => Some(8),
        Op::TypeArray => {
            let n = id(inst.operands.get(1))
                .and_then(|c| constants.get(&c))
                .copied()?;
            let stride = match inst.result_id.and_then(|r| decs.array_stride.get(&r)) {
                Some(&s) => u64::from(s),
                None => size_of(inst.operands.first())?,
            };
            Some(stride.saturating_mul(n))
        }
        Op::TypeStruct => {
            let struct_id = inst.result_id?;
            let mut end = 0u64;
            let mut packed = 0u64;
            for (member, op) in inst.operands.iter().enumerate() {
                let size = size_of(Some(op))?;
                let offset = u32::try_from(member)
                    .ok()
                    .and_then(|m| decs.member_offset.get(&(struct_id, m)))
                    .map_or(packed, |&o| u64::from(o));
                packed = offset.saturating_add(size);
                end = end.max(packed);
            }
            Some(end)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
