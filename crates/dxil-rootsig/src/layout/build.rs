//! [`layout`]: a root signature's pipeline layout, and where each register lands in it.

use super::heap::heap_layout;
use super::*;

/// How one root descriptor is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RootDescriptorPath {
    Address,
    Descriptor(DescriptorType),
}

/// Computes the Vulkan pipeline layout of a (valid, global) root signature under the given
/// device limits and options.
///
/// Fails when the root signature is invalid ([`validate`]), is a local root signature, needs
/// root descriptors the device cannot provide (no buffer device address and no way to bind a
/// descriptor), or needs more descriptor sets than `max_bound_descriptor_sets`.
pub fn layout(
    rs: &RootSignature,
    limits: &DeviceLimits,
    options: &LayoutOptions,
) -> Result<PipelineLayout, Error> {
    validate(rs, &ValidationOptions::default())
        .map_err(|e| layout_error(format!("invalid root signature:\n{e}")))?;
    if rs.is_local() {
        return Err(layout_error(
            "local root signatures map to shader records, not to a pipeline layout",
        ));
    }

    let path = |kind: &RootParameterKind| root_descriptor_path(kind, limits, options);

    // Root block: addresses, then constants, then table words.
    let mut parameters: Vec<Option<ParameterLayout>> = vec![None; rs.parameters.len()];
    let mut root_block = place_root_block(rs, &path, &mut parameters);
    let spilled = root_block.size_in_bytes > limits.max_push_constants_size;

    // Sets: heaps, static samplers, root descriptors.
    let mut set_layouts = Vec::new();
    let heap = heap_layout(limits, options, &mut set_layouts);

    let (static_sampler_set, static_samplers) = static_sampler_set(rs, &mut set_layouts);

    let (root_descriptor_set, storage) = root_descriptor_set(
        rs,
        limits,
        &path,
        spilled,
        &mut parameters,
        &mut set_layouts,
    );
    root_block.storage = storage;

    if set_layouts.len() as u32 > limits.max_bound_descriptor_sets {
        return Err(layout_error(format!(
            "needs {} descriptor sets, but the device binds at most {}",
            set_layouts.len(),
            limits.max_bound_descriptor_sets
        )));
    }

    let parameters: Vec<ParameterLayout> = parameters
        .into_iter()
        .enumerate()
        .map(|(i, p)| p.ok_or_else(|| layout_error(format!("root parameter [{i}] got no place"))))
        .collect::<Result<_, _>>()?;
    let registers = register_table(rs, &parameters, &static_samplers);

    Ok(PipelineLayout {
        root_block,
        heap,
        static_sampler_set,
        root_descriptor_set,
        set_layouts,
        parameters,
        static_samplers,
        resource_heap_directly_indexed: rs
            .flags
            .contains(RootSignatureFlags::CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED),
        sampler_heap_directly_indexed: rs
            .flags
            .contains(RootSignatureFlags::SAMPLER_HEAP_DIRECTLY_INDEXED),
        registers,
    })
}

/// How a root parameter of `kind` is read: root CBVs by address when the options and the
/// device allow it, SRVs and UAVs by address when the device has buffer device addresses,
/// otherwise through a descriptor; `None` for tables and constants.
fn root_descriptor_path(
    kind: &RootParameterKind,
    limits: &DeviceLimits,
    options: &LayoutOptions,
) -> Option<RootDescriptorPath> {
    match kind {
        RootParameterKind::Cbv(_)
            if limits.buffer_device_address && options.root_cbv == RootCbvPolicy::Address =>
        {
            Some(RootDescriptorPath::Address)
        }
        RootParameterKind::Cbv(_) => Some(RootDescriptorPath::Descriptor(
            DescriptorType::UniformBuffer,
        )),
        RootParameterKind::Srv(_) | RootParameterKind::Uav(_) if limits.buffer_device_address => {
            Some(RootDescriptorPath::Address)
        }
        RootParameterKind::Srv(_) | RootParameterKind::Uav(_) => Some(
            RootDescriptorPath::Descriptor(DescriptorType::StorageBuffer),
        ),
        _ => None,
    }
}

/// Places root addresses, then root constants, then one word per descriptor table in the root
/// block, recording each parameter's place; the storage is decided later (push constants
/// unless the block is too large).
fn place_root_block(
    rs: &RootSignature,
    path: &impl Fn(&RootParameterKind) -> Option<RootDescriptorPath>,
    parameters: &mut [Option<ParameterLayout>],
) -> RootBlock {
    let mut offset: u32 = 0;
    let mut stages = ShaderStages::default();
    let mut root_address_count = 0;
    for (i, p) in rs.parameters.iter().enumerate() {
        if path(&p.kind) == Some(RootDescriptorPath::Address) {
            parameters[i] = Some(ParameterLayout::RootAddress {
                offset_in_block: offset,
                root_address_index: root_address_count,
            });
            root_address_count += 1;
            offset += 8;
            stages = stages | ShaderStages::from_visibility(p.shader_visibility);
        }
    }
    let root_constants_offset = offset;
    for (i, p) in rs.parameters.iter().enumerate() {
        if let RootParameterKind::Constants(c) = &p.kind {
            parameters[i] = Some(ParameterLayout::RootConstants {
                offset_in_block: offset,
                dword_count: c.num_32bit_values,
            });
            // Validation bounded the cost to 64 DWORDs, so this cannot overflow.
            offset += 4 * c.num_32bit_values;
            stages = stages | ShaderStages::from_visibility(p.shader_visibility);
        }
    }
    let descriptor_tables_offset = offset;
    let mut table_count = 0;
    for (i, p) in rs.parameters.iter().enumerate() {
        if let RootParameterKind::DescriptorTable(table) = &p.kind {
            let ranges = table
                .ranges
                .iter()
                .zip(table.resolved_offsets())
                .map(|(r, start)| TableRange {
                    range_type: r.range_type,
                    register_space: r.register_space,
                    base_shader_register: r.base_shader_register,
                    num_descriptors: r.num_descriptors,
                    // Validation rejected unrepresentable starts.
                    offset_in_table: start.unwrap_or(u32::MAX),
                })
                .collect();
            parameters[i] = Some(ParameterLayout::DescriptorTable {
                table_index: table_count,
                offset_in_block: offset,
                ranges,
            });
            table_count += 1;
            offset += 4;
            stages = stages | ShaderStages::from_visibility(p.shader_visibility);
        }
    }
    RootBlock {
        size_in_bytes: offset,
        root_address_count,
        root_constants_offset,
        descriptor_tables_offset,
        descriptor_table_count: table_count,
        storage: RootBlockStorage::PushConstants,
        stages,
    }
}

/// The set of the static samplers (immutable samplers, one binding each), if there are any,
/// and where each landed.
fn static_sampler_set(
    rs: &RootSignature,
    set_layouts: &mut Vec<DescriptorSetLayout>,
) -> (Option<u32>, Vec<SetBinding>) {
    let mut static_sampler_set = None;
    let mut static_samplers = Vec::with_capacity(rs.static_samplers.len());
    if !rs.static_samplers.is_empty() {
        let set = set_layouts.len() as u32;
        static_sampler_set = Some(set);
        let bindings = rs
            .static_samplers
            .iter()
            .enumerate()
            .map(|(i, s)| {
                static_samplers.push(SetBinding {
                    set,
                    binding: i as u32,
                });
                DescriptorSetLayoutBinding {
                    binding: i as u32,
                    descriptor_type: DescriptorType::Sampler,
                    descriptor_count: 1,
                    stages: ShaderStages::from_visibility(s.shader_visibility),
                    mutable_types: Vec::new(),
                    immutable_sampler: Some(i as u32),
                    flags: BindingFlags::default(),
                }
            })
            .collect();
        set_layouts.push(DescriptorSetLayout {
            set,
            purpose: SetPurpose::StaticSamplers,
            push_descriptor: false,
            update_after_bind_pool: false,
            bindings,
        });
    }
    (static_sampler_set, static_samplers)
}

/// The set of the root descriptors read through descriptors (push descriptors when the device
/// has enough), with the spilled root block's uniform buffer last; returns the set, if any, and
/// where the root block lives.
fn root_descriptor_set(
    rs: &RootSignature,
    limits: &DeviceLimits,
    path: &impl Fn(&RootParameterKind) -> Option<RootDescriptorPath>,
    spilled: bool,
    parameters: &mut [Option<ParameterLayout>],
    set_layouts: &mut Vec<DescriptorSetLayout>,
) -> (Option<u32>, RootBlockStorage) {
    let root_set = set_layouts.len() as u32;
    let mut root_bindings = Vec::new();
    for (i, p) in rs.parameters.iter().enumerate() {
        if let Some(RootDescriptorPath::Descriptor(descriptor_type)) = path(&p.kind) {
            let binding = root_bindings.len() as u32;
            parameters[i] = Some(ParameterLayout::RootDescriptor {
                set: root_set,
                binding,
                descriptor_type,
            });
            root_bindings.push(DescriptorSetLayoutBinding {
                binding,
                descriptor_type,
                descriptor_count: 1,
                stages: ShaderStages::from_visibility(p.shader_visibility),
                mutable_types: Vec::new(),
                immutable_sampler: None,
                flags: BindingFlags::default(),
            });
        }
    }
    let storage = if spilled {
        let binding = root_bindings.len() as u32;
        root_bindings.push(DescriptorSetLayoutBinding {
            binding,
            descriptor_type: DescriptorType::UniformBuffer,
            descriptor_count: 1,
            stages: ShaderStages::ALL,
            mutable_types: Vec::new(),
            immutable_sampler: None,
            flags: BindingFlags::default(),
        });
        RootBlockStorage::UniformBuffer(SetBinding {
            set: root_set,
            binding,
        })
    } else {
        RootBlockStorage::PushConstants
    };
    let mut root_descriptor_set = None;
    if !root_bindings.is_empty() {
        root_descriptor_set = Some(root_set);
        let count = root_bindings.len() as u32;
        set_layouts.push(DescriptorSetLayout {
            set: root_set,
            purpose: SetPurpose::RootDescriptors,
            push_descriptor: limits.max_push_descriptors >= count,
            update_after_bind_pool: false,
            bindings: root_bindings,
        });
    }
    (root_descriptor_set, storage)
}

fn register_table(
    rs: &RootSignature,
    parameters: &[ParameterLayout],
    static_samplers: &[SetBinding],
) -> Vec<RegisterRange> {
    let mut out = Vec::new();
    for (i, (p, place)) in rs.parameters.iter().zip(parameters).enumerate() {
        let parameter = i as u32;
        let visibility = p.shader_visibility;
        match (&p.kind, place) {
            (
                RootParameterKind::DescriptorTable(table),
                ParameterLayout::DescriptorTable {
                    table_index,
                    offset_in_block,
                    ranges,
                },
            ) => {
                for (r, (range, placed)) in table.ranges.iter().zip(ranges).enumerate() {
                    out.push(RegisterRange {
                        class: range.range_type,
                        space: range.register_space,
                        first: range.base_shader_register,
                        last: range.last_register(),
                        visibility,
                        target: Resolved::Table {
                            parameter,
                            range: r as u32,
                            table_index: *table_index,
                            table_offset_in_block: *offset_in_block,
                            offset_in_table: placed.offset_in_table,
                            range_base_register: range.base_shader_register,
                            range_count: range.num_descriptors,
                        },
                    });
                }
            }
            (
                RootParameterKind::Constants(c),
                ParameterLayout::RootConstants {
                    offset_in_block,
                    dword_count,
                },
            ) => out.push(RegisterRange {
                class: RangeType::Cbv,
                space: c.register_space,
                first: c.shader_register,
                last: c.shader_register,
                visibility,
                target: Resolved::RootConstants {
                    parameter,
                    offset_in_block: *offset_in_block,
                    dword_count: *dword_count,
                },
            }),
            (kind, place) => {
                let Some((class, d)) = kind.root_descriptor() else {
                    continue;
                };
                let target = match place {
                    ParameterLayout::RootAddress {
                        offset_in_block,
                        root_address_index,
                    } => Resolved::RootAddress {
                        parameter,
                        offset_in_block: *offset_in_block,
                        root_address_index: *root_address_index,
                    },
                    ParameterLayout::RootDescriptor {
                        set,
                        binding,
                        descriptor_type,
                    } => Resolved::RootDescriptor {
                        parameter,
                        set: *set,
                        binding: *binding,
                        descriptor_type: *descriptor_type,
                    },
                    _ => continue,
                };
                out.push(RegisterRange {
                    class,
                    space: d.register_space,
                    first: d.shader_register,
                    last: d.shader_register,
                    visibility,
                    target,
                });
            }
        }
    }
    for (i, (s, place)) in rs.static_samplers.iter().zip(static_samplers).enumerate() {
        out.push(RegisterRange {
            class: RangeType::Sampler,
            space: s.register_space,
            first: s.shader_register,
            last: s.shader_register,
            visibility: s.shader_visibility,
            target: Resolved::StaticSampler {
                index: i as u32,
                set: place.set,
                binding: place.binding,
            },
        });
    }
    out.sort_by_key(|r| (r.class, r.space, r.first, r.last));
    out
}
