//! A run as plain data: buffers, descriptor sets and dispatches, independent of how the case
//! bound its resources. The default binding model (version 1) is planned here; the root-signature
//! model (version 2) produces the same plan from its heaps and root arguments.

use crate::case::{Register, Resource, ResourceKind};
use crate::format::Format;
use crate::init::Init;
use crate::reflect::{DescriptorCount, DescriptorKind, Reflection};
use crate::report::RunError;

/// One buffer to create and fill.
#[derive(Debug)]
pub(crate) struct PlanBuffer<'c> {
    pub name: String,
    pub file_stem: String,
    pub size: u64,
    pub init: &'c Init,
}

/// What one descriptor points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlanDescriptor {
    /// A uniform or storage buffer range.
    Buffer {
        buffer: usize,
        offset: u64,
        range: u64,
    },
    /// A texel buffer view.
    Texel {
        buffer: usize,
        offset: u64,
        range: u64,
        format: Format,
    },
    /// A point-filtering sampler with the given addressing.
    Sampler {
        address: ash::vk::SamplerAddressMode,
    },
}

/// One binding of a descriptor set.
#[derive(Debug)]
pub(crate) struct PlanBinding {
    pub binding: u32,
    pub kind: DescriptorKind,
    pub descriptors: Vec<PlanDescriptor>,
}

/// One dispatch.
#[derive(Debug)]
pub(crate) struct PlanPass {
    pub groups: [u32; 3],
    /// Push-constant bytes (the pipeline's whole push range).
    pub push_constants: Vec<u8>,
}

#[derive(Debug)]
pub(crate) struct Plan<'c> {
    pub buffers: Vec<PlanBuffer<'c>>,
    /// Indexed by set number; empty sets still get a (bindingless) layout.
    pub sets: Vec<Vec<PlanBinding>>,
    pub passes: Vec<PlanPass>,
}

/// Plans a version-1 case: each reflected (set, binding) takes the resource of the default
/// binding model's register, array elements taking consecutive registers.
pub(crate) fn plan_registers<'c>(
    resources: &'c [Resource],
    dispatch: [u32; 3],
    reflection: &Reflection,
) -> Result<Plan<'c>, RunError> {
    // Buffers for every resource with memory, so that dumps cover unused resources too.
    let mut buffer_of: Vec<Option<usize>> = Vec::with_capacity(resources.len());
    let mut buffers = Vec::new();
    for r in resources {
        if r.kind == ResourceKind::Sampler {
            buffer_of.push(None);
            continue;
        }
        buffer_of.push(Some(buffers.len()));
        buffers.push(PlanBuffer {
            name: r.register.to_string(),
            file_stem: r.register.file_stem(),
            size: r.size,
            init: &r.init,
        });
    }

    let mut sets: Vec<Vec<PlanBinding>> = Vec::new();
    for b in &reflection.bindings {
        // One register holds one resource, so aliases must agree on the descriptor type.
        if let Some(&second) = b.aliases.first() {
            return Err(RunError::Reflect(crate::reflect::ReflectError::Conflict {
                set: b.set,
                binding: b.binding,
                first: b.kind,
                second,
            }));
        }
        let first = Register::from_default_binding(b.set, b.binding).ok_or_else(|| {
            RunError::Binding(format!(
                "set {}, binding {} is outside the default binding model (bindings 0..400)",
                b.set, b.binding
            ))
        })?;
        let count = match b.count {
            DescriptorCount::Fixed(n) => n,
            DescriptorCount::Runtime => {
                return Err(RunError::Binding(format!(
                    "set {}, binding {} ({first}) is a runtime-sized descriptor array, which needs a root signature (version 2)",
                    b.set, b.binding
                )));
            }
        };
        let mut descriptors = Vec::new();
        for i in 0..count {
            let register = Register {
                number: first.number.saturating_add(i),
                ..first
            };
            let index = resources
                .iter()
                .position(|r| r.register == register)
                .ok_or_else(|| {
                    RunError::Binding(format!(
                        "the shader uses set {}, binding {}{} ({register}) but the case declares no {register}",
                        b.set,
                        b.binding,
                        if count > 1 { format!(" element {i}") } else { String::new() }
                    ))
                })?;
            let resource = resources
                .get(index)
                .ok_or(RunError::Binding("resource index".into()))?;
            descriptors.push(descriptor_for(
                resource,
                buffer_of.get(index).copied().flatten(),
                b.kind,
                b.image_format,
            )?);
        }
        let set = usize::try_from(b.set).map_err(|_| RunError::Binding("set number".into()))?;
        // The device's set limit is checked when layouts are made; this bound only keeps a
        // hostile set number from allocating a huge vector first.
        if set >= 64 {
            return Err(RunError::Unsupported(format!(
                "descriptor set {set} (register space {set}) is past 63"
            )));
        }
        if sets.len() <= set {
            sets.resize_with(set + 1, Vec::new);
        }
        if let Some(bindings) = sets.get_mut(set) {
            bindings.push(PlanBinding {
                binding: b.binding,
                kind: b.kind,
                descriptors,
            });
        }
    }

    let push_len = usize::try_from(reflection.push_constant_size.next_multiple_of(4)).unwrap_or(0);
    Ok(Plan {
        buffers,
        sets,
        passes: vec![PlanPass {
            groups: dispatch,
            push_constants: vec![0; push_len],
        }],
    })
}

fn descriptor_for(
    resource: &Resource,
    buffer: Option<usize>,
    kind: DescriptorKind,
    image_format: Option<spirv::ImageFormat>,
) -> Result<PlanDescriptor, RunError> {
    let register = resource.register;
    let mismatch = |what: &str| {
        RunError::Binding(format!(
            "{register} is a {} resource but the shader declares it as {what}",
            kind_name(resource.kind)
        ))
    };
    match kind {
        DescriptorKind::Sampler => {
            if resource.kind != ResourceKind::Sampler {
                return Err(mismatch("a sampler"));
            }
            Ok(PlanDescriptor::Sampler {
                address: ash::vk::SamplerAddressMode::REPEAT,
            })
        }
        DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer => {
            let buffer = buffer.ok_or_else(|| mismatch("a buffer"))?;
            Ok(PlanDescriptor::Buffer {
                buffer,
                offset: 0,
                range: view_range(resource),
            })
        }
        DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer => {
            let buffer = buffer.ok_or_else(|| mismatch("a texel buffer"))?;
            // The case's format is the D3D view's; raw and structured resources read through
            // texel buffers use the shader's declared format, else 32-bit words.
            let format = match resource.kind {
                ResourceKind::Typed { format } => format,
                _ => image_format
                    .and_then(Format::from_spirv)
                    .unwrap_or(Format::R32Uint),
            };
            Ok(PlanDescriptor::Texel {
                buffer,
                offset: 0,
                range: resource.size,
                format,
            })
        }
        DescriptorKind::SampledImage
        | DescriptorKind::StorageImage
        | DescriptorKind::CombinedImageSampler
        | DescriptorKind::AccelerationStructure => Err(RunError::Unsupported(format!(
            "{register}: the shader declares a {kind:?} descriptor; cases have buffers and samplers only"
        ))),
    }
}

/// The bytes a storage or uniform buffer descriptor of `resource` covers: D3D12's view of it,
/// whole elements of a structured buffer and whole words of a raw one, so that a device's
/// robustBufferAccess2 (which bounds-checks each access against the descriptor's range) treats
/// exactly the accesses D3D12 treats as out of bounds as such. A resource smaller than one
/// element keeps its size (a descriptor cannot be empty).
fn view_range(resource: &Resource) -> u64 {
    let unit = match resource.kind {
        ResourceKind::Structured { stride } => u64::from(stride),
        ResourceKind::Raw => 4,
        _ => 1,
    };
    match resource.size - resource.size % unit.max(1) {
        0 => resource.size,
        whole => whole,
    }
}

fn kind_name(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Raw => "raw",
        ResourceKind::Structured { .. } => "structured",
        ResourceKind::Typed { .. } => "typed",
        ResourceKind::Constant => "constant",
        ResourceKind::Sampler => "sampler",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::RegisterClass;
    use crate::reflect::{DescriptorBinding, ReflectError};

    #[test]
    fn buffer_views_cover_whole_elements() {
        let r = |kind, size| Resource {
            register: Register {
                class: RegisterClass::Srv,
                number: 0,
                space: 0,
            },
            kind,
            size,
            init: Init::Zero,
        };
        assert_eq!(
            view_range(&r(ResourceKind::Structured { stride: 12 }, 100)),
            96
        );
        assert_eq!(
            view_range(&r(ResourceKind::Structured { stride: 12 }, 8)),
            8
        );
        assert_eq!(view_range(&r(ResourceKind::Raw, 103)), 100);
        assert_eq!(view_range(&r(ResourceKind::Constant, 100)), 100);
    }

    #[test]
    fn differently_typed_aliases_of_one_register_are_rejected() {
        let resources = [Resource {
            register: Register {
                class: RegisterClass::Uav,
                number: 0,
                space: 0,
            },
            kind: ResourceKind::Raw,
            size: 16,
            init: Init::Zero,
        }];
        let mut binding = DescriptorBinding {
            set: 0,
            binding: 200,
            kind: DescriptorKind::StorageBuffer,
            aliases: Vec::new(),
            count: DescriptorCount::Fixed(1),
            image_format: None,
            name: None,
        };
        let mut reflection = Reflection {
            entry_point: "main".into(),
            local_size: None,
            bindings: vec![binding.clone()],
            push_constant_size: 0,
        };
        let plan = plan_registers(&resources, [1, 1, 1], &reflection).unwrap();
        assert_eq!(plan.sets[0][0].descriptors.len(), 1);
        binding.aliases.push(DescriptorKind::StorageTexelBuffer);
        reflection.bindings = vec![binding];
        let e = plan_registers(&resources, [1, 1, 1], &reflection).unwrap_err();
        assert!(
            matches!(
                e,
                RunError::Reflect(ReflectError::Conflict {
                    set: 0,
                    binding: 200,
                    first: DescriptorKind::StorageBuffer,
                    second: DescriptorKind::StorageTexelBuffer
                })
            ),
            "{e}"
        );
    }
}
