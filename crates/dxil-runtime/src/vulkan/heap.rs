//! Version-2 cases on Vulkan: the root signature's pipeline layout made exactly as
//! `dxil-rootsig` computed it, the descriptor heaps as update-after-bind descriptor sets, side
//! buffers, static samplers, root blocks per pass, and the dispatches.

use std::time::{Duration, Instant};

use ash::vk;
use dxil_rootsig::{
    DescriptorSetLayout, DescriptorType, DeviceLimits, HeapType, LayoutOptions, RootCbvPolicy,
    RootSignature, SetPurpose, ShaderStages, Version,
};

use super::device::Runtime;
use super::execute::{Objects, check_group_order, dispatch_pass, pass_barrier, to_u32, vk_err};
use crate::binding::{DerivedLayout, RootBlockLocation};
use crate::case::{Case, HeapLayout};
use crate::heap::{Descriptor, HeapPlan, PlanLimits, SamplerSpec, Span, plan_heap};
use crate::reflect::{DescriptorCount, DescriptorKind, Reflection};
use crate::report::{GroupOrder, LayoutOverrides, RunError};

/// D3D12's largest CBV/SRV/UAV heap, the size vkd3d-proton gives its heap arrays.
const D3D12_MAX_HEAP: u32 = 1_000_000;
/// D3D12's largest shader-visible sampler heap.
const D3D12_MAX_SAMPLER_HEAP: u32 = 2048;

/// Final bytes of every memory and the run's timings.
pub(super) struct HeapExecuted {
    pub outputs: Vec<Vec<u8>>,
    pub setup: Duration,
    /// Shader module and pipeline creation (part of `setup`).
    pub pipeline: Duration,
    pub execute: Duration,
    /// The GPU time of each timed repetition (timed runs only).
    pub dispatch_times: Vec<Duration>,
    /// Destroying the run's Vulkan objects.
    pub teardown: Duration,
}

fn vk_descriptor_type(t: DescriptorType) -> vk::DescriptorType {
    // The crate's values are Vulkan's; the conversion cannot fail for the listed types.
    vk::DescriptorType::from_raw(i32::try_from(t.to_u32()).unwrap_or(i32::MAX))
}

fn vk_stages(stages: ShaderStages) -> vk::ShaderStageFlags {
    vk::ShaderStageFlags::from_raw(stages.0)
}

fn kind_matches(kind: DescriptorKind, t: DescriptorType) -> bool {
    matches!(
        (kind, t),
        (DescriptorKind::UniformBuffer, DescriptorType::UniformBuffer)
            | (DescriptorKind::StorageBuffer, DescriptorType::StorageBuffer)
            | (
                DescriptorKind::UniformTexelBuffer,
                DescriptorType::UniformTexelBuffer
            )
            | (
                DescriptorKind::StorageTexelBuffer,
                DescriptorType::StorageTexelBuffer
            )
            | (DescriptorKind::Sampler, DescriptorType::Sampler)
            | (DescriptorKind::SampledImage, DescriptorType::SampledImage)
            | (DescriptorKind::StorageImage, DescriptorType::StorageImage)
    )
}

/// Checks that every binding the shader declares exists in the layout with a type it can hold,
/// and that its push-constant block fits the root block: a pipeline that disagrees with its
/// layout is invalid Vulkan, which drivers need not diagnose.
pub(super) fn check_shader(
    reflection: &Reflection,
    derived: &DerivedLayout,
) -> Result<(), RunError> {
    let sets = &derived.layout.set_layouts;
    for b in &reflection.bindings {
        let at = format!("the shader's set {}, binding {}", b.set, b.binding);
        let set = usize::try_from(b.set)
            .ok()
            .and_then(|s| sets.get(s))
            .ok_or_else(|| {
                RunError::Binding(format!(
                    "{at}: the root signature's layout has {} descriptor sets",
                    sets.len()
                ))
            })?;
        let lb = set
            .bindings
            .iter()
            .find(|lb| lb.binding == b.binding)
            .ok_or_else(|| {
                RunError::Binding(format!("{at}: the layout's set has no such binding"))
            })?;
        for &kind in std::iter::once(&b.kind).chain(&b.aliases) {
            let ok = if lb.descriptor_type == DescriptorType::Mutable {
                lb.mutable_types.iter().any(|&t| kind_matches(kind, t))
            } else {
                kind_matches(kind, lb.descriptor_type)
            };
            if !ok {
                return Err(RunError::Binding(format!(
                    "{at} is declared as {kind:?}, but the layout's binding is {}",
                    lb.descriptor_type.d3d_name()
                )));
            }
        }
        if let DescriptorCount::Fixed(n) = b.count
            && n > lb.descriptor_count
        {
            return Err(RunError::Binding(format!(
                "{at} is an array of {n}, but the layout's binding holds {}",
                lb.descriptor_count
            )));
        }
    }
    let push = match derived.contract.root_block.location {
        RootBlockLocation::PushConstants { .. } => derived.contract.root_block.size_in_bytes,
        _ => 0,
    };
    if reflection.push_constant_size > push {
        return Err(RunError::Binding(format!(
            "the shader's push-constant block has {} bytes, but the root signature's layout pushes {push}",
            reflection.push_constant_size
        )));
    }
    Ok(())
}

impl Runtime {
    /// The device limits and layout options a version-2 layout is computed with on this device,
    /// after `overrides`, for descriptor heaps of `heap_sizes` (CBV/SRV/UAV, sampler) slots.
    ///
    /// The heap arrays hold exactly the case's heap sizes (at most what the device allows):
    /// vkd3d-proton sizes them for D3D12's largest heaps because its heaps are created after its
    /// root signatures, but a case names its heaps up front, and drivers (lavapipe among them)
    /// allocate sets by the layout's maximum whatever the variable count, which costs hundreds of
    /// milliseconds per run for a million descriptors. Shaders declare runtime arrays, so the
    /// array size is not part of the binding contract.
    pub fn layout_inputs(
        &self,
        overrides: &LayoutOverrides,
        heap_sizes: (u32, u32),
    ) -> (DeviceLimits, LayoutOptions) {
        let l = &self.limits;
        let c = &self.caps;
        let ssbo_alignment = u32::try_from(l.min_storage_buffer_offset_alignment).unwrap_or(256);
        let limits = DeviceLimits {
            max_push_constants_size: overrides
                .max_push_constants_size
                .map_or(l.max_push_constants_size, |m| {
                    m.min(l.max_push_constants_size)
                }),
            min_storage_buffer_offset_alignment: overrides
                .min_storage_buffer_offset_alignment
                .map_or(ssbo_alignment, |a| a.max(ssbo_alignment)),
            max_bound_descriptor_sets: l.max_bound_descriptor_sets,
            max_push_descriptors: if overrides.no_push_descriptors {
                0
            } else {
                c.max_push_descriptors
            },
            mutable_descriptors: c.mutable_descriptors && !overrides.no_mutable_descriptors,
            buffer_device_address: c.buffer_device_address && !overrides.no_buffer_device_address,
            uniform_buffer_heap: c.uniform_buffer_heap && !overrides.no_uniform_buffer_heap,
        };
        let (max_heap, max_sampler_heap) = self.max_heap_sizes(&limits, overrides);
        let options = LayoutOptions {
            root_cbv: if overrides.root_cbv_push_descriptor {
                RootCbvPolicy::PushDescriptor
            } else {
                RootCbvPolicy::Address
            },
            // D3D12 typed views start at any element; Vulkan texel views only at its alignment,
            // so the view's window goes through the offset buffer (vkd3d-proton does the same).
            typed_offset_buffer: l.min_texel_buffer_offset_alignment > 1,
            mutable_single_set: overrides.mutable_single_set,
            cbv_srv_uav_heap_size: heap_sizes.0.clamp(1, max_heap.max(1)),
            sampler_heap_size: heap_sizes.1.clamp(1, max_sampler_heap.max(1)),
        };
        (limits, options)
    }

    /// The largest heaps the device can hold as heap arrays: the per-stage update-after-bind
    /// limits count all arrays together, so what is left after the sampler heap is split
    /// between the CBV/SRV/UAV arrays.
    fn max_heap_sizes(&self, limits: &DeviceLimits, overrides: &LayoutOverrides) -> (u32, u32) {
        let per_type = self.caps.max_heap_descriptors;
        let sampler = D3D12_MAX_SAMPLER_HEAP.min(per_type);
        let probe = LayoutOptions {
            mutable_single_set: overrides.mutable_single_set,
            ..LayoutOptions::default()
        };
        let arrays = dxil_rootsig::layout(&RootSignature::new(Version::V1_1), limits, &probe)
            .map(|l| {
                l.heap
                    .sets
                    .iter()
                    .filter(|s| s.heap == HeapType::CbvSrvUav)
                    .count()
            })
            .unwrap_or(1)
            .max(1);
        let arrays = u32::try_from(arrays).unwrap_or(u32::MAX);
        // The side buffers and root descriptors also count.
        let room = per_type.saturating_sub(sampler + 64) / arrays;
        (D3D12_MAX_HEAP.min(room), sampler)
    }

    /// The root signature of a version-2 case with its Vulkan layout and binding contract on this
    /// device (what `dxil run --explain` prints and what a translator must follow).
    pub fn derive_layout(
        &self,
        case: &Case,
        overrides: &LayoutOverrides,
    ) -> Result<DerivedLayout, RunError> {
        let crate::case::Binding::RootSignature(heap) = &case.binding else {
            return Err(RunError::Unsupported(
                "a version-1 case has no root signature".into(),
            ));
        };
        let rs = crate::heap::root_signature_of(case, heap)?;
        let (limits, options) =
            self.layout_inputs(overrides, (heap.heap_size, heap.sampler_heap_size));
        DerivedLayout::new(rs, limits, options).map_err(RunError::RootSignature)
    }

    fn plan_limits(&self, derived: &DerivedLayout) -> PlanLimits {
        let l = &self.limits;
        let c = &self.caps;
        PlanLimits {
            storage_alignment: u64::from(derived.limits.min_storage_buffer_offset_alignment)
                .max(l.min_storage_buffer_offset_alignment),
            texel_alignment: l.min_texel_buffer_offset_alignment,
            uniform_alignment: l.min_uniform_buffer_offset_alignment,
            max_uniform_range: u64::from(l.max_uniform_buffer_range),
            max_storage_range: u64::from(l.max_storage_buffer_range),
            max_texel_elements: u64::from(l.max_texel_buffer_elements),
            null_descriptor: c.null_descriptor,
            max_anisotropy: c.sampler_anisotropy.then_some(l.max_sampler_anisotropy),
            max_lod_bias: l.max_sampler_lod_bias,
            filter_minmax: c.sampler_filter_minmax,
            mirror_clamp_to_edge: c.sampler_mirror_clamp_to_edge,
        }
    }

    fn create_sampler(
        &self,
        o: &mut Objects<'_>,
        s: &SamplerSpec,
    ) -> Result<vk::Sampler, RunError> {
        let mut reduction = vk::SamplerReductionModeCreateInfo::default().reduction_mode(
            s.reduction
                .unwrap_or(vk::SamplerReductionMode::WEIGHTED_AVERAGE),
        );
        let mut info = vk::SamplerCreateInfo::default()
            .mag_filter(s.mag)
            .min_filter(s.min)
            .mipmap_mode(s.mipmap)
            .address_mode_u(s.address[0])
            .address_mode_v(s.address[1])
            .address_mode_w(s.address[2])
            .mip_lod_bias(s.mip_lod_bias)
            .anisotropy_enable(s.anisotropy.is_some())
            .max_anisotropy(s.anisotropy.unwrap_or(1.0))
            .compare_enable(s.compare.is_some())
            .compare_op(s.compare.unwrap_or(vk::CompareOp::NEVER))
            .min_lod(s.min_lod)
            .max_lod(s.max_lod)
            .border_color(s.border)
            .unnormalized_coordinates(s.unnormalized);
        if s.reduction.is_some() {
            info = info.push_next(&mut reduction);
        }
        // SAFETY: the plan only asks for anisotropy, min/max reduction and mirror-clamp when the
        // device enabled them, clamps LOD and bias to the device's ranges, and applies the
        // unnormalized-coordinate restrictions.
        let sampler = unsafe { self.device.create_sampler(&info, None) }
            .map_err(vk_err("vkCreateSampler"))?;
        o.samplers.push(sampler);
        Ok(sampler)
    }

    fn create_set_layout(
        &self,
        o: &mut Objects<'_>,
        set: &DescriptorSetLayout,
        static_samplers: &[vk::Sampler],
    ) -> Result<vk::DescriptorSetLayout, RunError> {
        let immutable: Vec<Option<vk::Sampler>> = set
            .bindings
            .iter()
            .map(|b| {
                b.immutable_sampler
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| static_samplers.get(i).copied())
            })
            .collect();
        let immutable_arrays: Vec<[vk::Sampler; 1]> =
            immutable.iter().map(|s| [s.unwrap_or_default()]).collect();
        let mut bindings = Vec::with_capacity(set.bindings.len());
        let mut flags = Vec::with_capacity(set.bindings.len());
        let mut type_lists: Vec<Vec<vk::DescriptorType>> = Vec::new();
        for ((b, imm), imm_array) in set.bindings.iter().zip(&immutable).zip(&immutable_arrays) {
            let mut vb = vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(vk_descriptor_type(b.descriptor_type))
                .descriptor_count(b.descriptor_count)
                .stage_flags(vk_stages(b.stages));
            if b.immutable_sampler.is_some() {
                if imm.is_none() {
                    return Err(RunError::RootSignature(format!(
                        "set {} binding {} names a static sampler that does not exist",
                        set.set, b.binding
                    )));
                }
                vb = vb.immutable_samplers(imm_array);
            }
            bindings.push(vb);
            let mut f = vk::DescriptorBindingFlags::empty();
            if b.flags.update_after_bind {
                f |= vk::DescriptorBindingFlags::UPDATE_AFTER_BIND;
            }
            if b.flags.partially_bound {
                f |= vk::DescriptorBindingFlags::PARTIALLY_BOUND;
            }
            if b.flags.variable_descriptor_count {
                f |= vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT;
            }
            // Only a promise the runtime keeps anyway (it never updates a pending set); dropped
            // where the device cannot take it.
            if b.flags.update_unused_while_pending && self.caps.update_unused_while_pending {
                f |= vk::DescriptorBindingFlags::UPDATE_UNUSED_WHILE_PENDING;
            }
            flags.push(f);
            type_lists.push(
                b.mutable_types
                    .iter()
                    .map(|&t| vk_descriptor_type(t))
                    .collect(),
            );
        }
        let lists: Vec<vk::MutableDescriptorTypeListEXT<'_>> = type_lists
            .iter()
            .map(|l| vk::MutableDescriptorTypeListEXT::default().descriptor_types(l))
            .collect();
        let any_mutable = set
            .bindings
            .iter()
            .any(|b| b.descriptor_type == DescriptorType::Mutable);
        let mut create_flags = vk::DescriptorSetLayoutCreateFlags::empty();
        if set.update_after_bind_pool {
            create_flags |= vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL;
        }
        if set.push_descriptor {
            create_flags |= vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR;
        }
        let mut flags_info =
            vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
        let mut mutable_info =
            vk::MutableDescriptorTypeCreateInfoEXT::default().mutable_descriptor_type_lists(&lists);
        let mut info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(create_flags)
            .bindings(&bindings);
        if flags.iter().any(|f| !f.is_empty()) {
            info = info.push_next(&mut flags_info);
        }
        if any_mutable {
            info = info.push_next(&mut mutable_info);
        }
        // SAFETY: the layout was derived for this device's limits and features (mutable
        // descriptors, push descriptors and update-after-bind only where enabled, checked by
        // `layout_inputs` and `descriptor_heaps`); the flag and type lists have one entry per
        // binding; immutable samplers are live.
        let layout = unsafe { self.device.create_descriptor_set_layout(&info, None) }
            .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
        o.set_layouts.push(layout);
        Ok(layout)
    }

    /// Runs a version-2 case: see the module docs.
    pub(super) fn execute_heap(
        &self,
        case: &Case,
        heap: &HeapLayout,
        words: &[u32],
        reflection: &Reflection,
        options: &crate::report::RunOptions,
    ) -> Result<HeapExecuted, RunError> {
        let started = Instant::now();
        let (derived, plan) = self.check_heap_case(case, heap, reflection, options)?;
        let layout = &derived.layout;
        let d = &self.device;
        let mut o = Objects::new(d, options.timing.is_some());
        let bufs = self.heap_buffers(&mut o, heap, &plan, &derived)?;
        let (set_handles_layouts, push_range, pipeline_layout) =
            self.heap_pipeline_layout(&mut o, &derived, &plan)?;
        let (sets, root_sets, pushed_root) = self.heap_descriptor_sets(
            &mut o,
            &derived,
            heap,
            &set_handles_layouts,
            plan.passes.len(),
        )?;
        self.write_heap(&mut o, &plan, &sets, bufs.offsets, bufs.counters)?;
        let root_writes = root_writes(&o, &plan, &bufs);
        self.update_root_sets(&root_sets, &root_writes);

        let (pipeline_handle, pipeline) = self.create_pipeline(
            &mut o,
            pipeline_layout,
            words,
            &reflection.entry_point,
            options.group_order,
        )?;
        let root_index = layout.root_descriptor_set;
        // Everything but the root set is bound once; the root set is last in the layout.
        let bound_once: Vec<vk::DescriptorSet> = sets
            .iter()
            .enumerate()
            .filter(|(i, _)| u32::try_from(*i).ok() != root_index)
            .map(|(_, s)| *s)
            .collect();
        let recording = HeapRecording {
            passes: &plan.passes,
            blocks: &bufs.blocks,
            pipeline_layout,
            root_index,
            pushed_root,
            root_writes: &root_writes,
            root_sets: &root_sets,
            push_range,
            push_descriptor: ash::khr::push_descriptor::Device::new(&self.instance, d),
            group_order: options.group_order,
        };
        let record = |cb: vk::CommandBuffer, _module: usize| {
            // SAFETY: recording with the pipeline, layout and sets created above; the sets bound
            // from 0 are all sets before the root set, which is the layout's last.
            unsafe {
                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline_handle);
                if !bound_once.is_empty() {
                    d.cmd_bind_descriptor_sets(
                        cb,
                        vk::PipelineBindPoint::COMPUTE,
                        pipeline_layout,
                        0,
                        &bound_once,
                        &[],
                    );
                }
            }
            self.record_heap_passes(cb, &recording);
        };
        let setup = started.elapsed();
        let flow = self.run_flow(
            &mut o,
            bufs.memory_count,
            1,
            options.timing,
            options.timeout,
            &record,
        )?;
        let teardown_started = Instant::now();
        drop(o);
        Ok(HeapExecuted {
            outputs: flow.outputs.into_iter().next().unwrap_or_default(),
            setup,
            pipeline,
            execute: flow.execute,
            dispatch_times: flow.times.into_iter().next().unwrap_or_default(),
            teardown: teardown_started.elapsed(),
        })
    }

    /// What the device must offer for a heap case, its layout and its plan.
    fn check_heap_case(
        &self,
        case: &Case,
        heap: &HeapLayout,
        reflection: &Reflection,
        options: &crate::report::RunOptions,
    ) -> Result<(DerivedLayout, HeapPlan), RunError> {
        if !self.caps.descriptor_heaps {
            return Err(RunError::Unsupported(
                "the device lacks the descriptor-indexing features a D3D12 heap needs (runtime arrays, partially bound, variable count, update after bind)".into(),
            ));
        }
        let derived = self.derive_layout(case, &options.layout)?;
        let layout = &derived.layout;
        if heap.heap_size > layout.heap.cbv_srv_uav_heap_size
            || heap.sampler_heap_size > layout.heap.sampler_heap_size
        {
            return Err(RunError::Unsupported(format!(
                "heaps of {} and {} slots; this device's heap arrays hold {} and {}",
                heap.heap_size,
                heap.sampler_heap_size,
                layout.heap.cbv_srv_uav_heap_size,
                layout.heap.sampler_heap_size
            )));
        }
        check_shader(reflection, &derived)?;
        let limits = self.plan_limits(&derived);
        let plan = plan_heap(case, heap, &derived, &limits)?;
        for pass in &plan.passes {
            for (axis, (&n, &max)) in pass
                .groups
                .iter()
                .zip(&self.limits.max_compute_work_group_count)
                .enumerate()
            {
                if n > max {
                    return Err(RunError::Unsupported(format!(
                        "{n} thread groups on axis {axis}; the device allows {max}"
                    )));
                }
            }
            check_group_order(pass.groups, options.group_order)?;
        }
        Ok((derived, plan))
    }

    /// The case memories (memory `i` is buffer `i`), the offset and counter side buffers, the
    /// root blocks with their addresses, the spilled root block's buffer and the dummy buffer.
    fn heap_buffers(
        &self,
        o: &mut Objects<'_>,
        heap: &HeapLayout,
        plan: &HeapPlan,
        derived: &DerivedLayout,
    ) -> Result<HeapBuffers, RunError> {
        let addresses = plan.uses_addresses && derived.limits.buffer_device_address;
        // Case memories first, so that memory i is buffer i.
        for m in &heap.memories {
            let i = self.create_buffer(o, m.size, addresses)?;
            if let Some(bytes) = o.bytes_mut(i) {
                m.init.fill(bytes);
            }
        }
        let memory_count = heap.memories.len();
        let address_of = |o: &Objects<'_>, memory: usize, offset: u64| {
            self.buffer_address(o, memory).wrapping_add(offset)
        };
        let slots = u64::from(heap.heap_size);
        let side = |o: &mut Objects<'_>, bytes_per_slot: u64| {
            self.create_buffer(o, (slots * bytes_per_slot).max(16), false)
        };
        let offsets = match &plan.offsets {
            Some((sb, words)) => {
                let i = side(o, 16)?;
                if let Some(bytes) = o.bytes_mut(i) {
                    for (dst, w) in bytes.chunks_exact_mut(4).zip(words) {
                        dst.copy_from_slice(&w.to_le_bytes());
                    }
                }
                Some((*sb, i))
            }
            None => None,
        };
        let counters = match &plan.counters {
            Some((sb, entries)) => {
                let i = side(o, 8)?;
                let values: Vec<(usize, u64)> = entries
                    .iter()
                    .map(|e| {
                        let at = usize::try_from(e.slot)
                            .unwrap_or(usize::MAX)
                            .saturating_mul(8);
                        (at, address_of(o, e.memory, e.offset))
                    })
                    .collect();
                if let Some(bytes) = o.bytes_mut(i) {
                    for (at, va) in values {
                        if let Some(dst) = bytes.get_mut(at..at.saturating_add(8)) {
                            dst.copy_from_slice(&va.to_le_bytes());
                        }
                    }
                }
                Some((*sb, i))
            }
            None => None,
        };
        // Root blocks with their addresses.
        let blocks: Vec<Vec<u8>> = plan
            .passes
            .iter()
            .map(|p| {
                let mut block = p.block.clone();
                for a in &p.addresses {
                    let at = usize::try_from(a.offset_in_block).unwrap_or(usize::MAX);
                    let va = address_of(o, a.memory, a.offset);
                    if let Some(dst) = block.get_mut(at..at.saturating_add(8)) {
                        dst.copy_from_slice(&va.to_le_bytes());
                    }
                }
                block
            })
            .collect();
        let block_size = u64::from(derived.contract.root_block.size_in_bytes);
        let spill = match derived.contract.root_block.location {
            RootBlockLocation::UniformBuffer { set, binding } => {
                let stride = block_size
                    .max(16)
                    .next_multiple_of(self.limits.min_uniform_buffer_offset_alignment.max(16));
                let count = u64::try_from(blocks.len()).unwrap_or(u64::MAX);
                let i = self.create_buffer(o, stride.saturating_mul(count.max(1)), false)?;
                if let Some(bytes) = o.bytes_mut(i) {
                    for (k, block) in blocks.iter().enumerate() {
                        let at = usize::try_from(stride)
                            .unwrap_or(usize::MAX)
                            .saturating_mul(k);
                        if let Some(dst) = bytes.get_mut(at..at.saturating_add(block.len())) {
                            dst.copy_from_slice(block);
                        }
                    }
                }
                Some((set, binding, i, stride))
            }
            _ => None,
        };
        // Root descriptors without a null descriptor point at a small zeroed buffer instead.
        let dummy = if self.caps.null_descriptor {
            None
        } else {
            Some(self.create_buffer(o, 256, false)?)
        };
        Ok(HeapBuffers {
            memory_count,
            offsets,
            counters,
            blocks,
            block_size,
            spill,
            dummy,
        })
    }

    /// The set layouts (with the static samplers they hold immutably), the push constant range and
    /// the pipeline layout.
    fn heap_pipeline_layout(
        &self,
        o: &mut Objects<'_>,
        derived: &DerivedLayout,
        plan: &HeapPlan,
    ) -> Result<
        (
            Vec<vk::DescriptorSetLayout>,
            Option<vk::PushConstantRange>,
            vk::PipelineLayout,
        ),
        RunError,
    > {
        let layout = &derived.layout;
        let d = &self.device;
        // Static samplers, then the set layouts that hold them immutably.
        let static_vk = plan
            .static_samplers
            .iter()
            .map(|s| self.create_sampler(o, s))
            .collect::<Result<Vec<_>, _>>()?;
        let mut set_handles_layouts = Vec::with_capacity(layout.set_layouts.len());
        for (i, set) in layout.set_layouts.iter().enumerate() {
            if usize::try_from(set.set).ok() != Some(i) {
                return Err(RunError::RootSignature(format!(
                    "set layout {i} says it is set {}",
                    set.set
                )));
            }
            set_handles_layouts.push(self.create_set_layout(o, set, &static_vk)?);
        }
        let push_range = layout
            .push_constant_range(dxil_rootsig::BindPoint::Compute)
            .map(|r| vk::PushConstantRange {
                stage_flags: vk_stages(r.stages),
                offset: r.offset,
                size: r.size,
            });
        let ranges: Vec<vk::PushConstantRange> = push_range.into_iter().collect();
        let layout_info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&set_handles_layouts)
            .push_constant_ranges(&ranges);
        // SAFETY: valid device; the set layouts are alive; the push range is within the device's
        // maxPushConstantsSize (the layout spills larger blocks).
        let pipeline_layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_err("vkCreatePipelineLayout"))?;
        o.pipeline_layouts.push(pipeline_layout);
        Ok((set_handles_layouts, push_range, pipeline_layout))
    }

    /// The descriptor sets by set number, the root sets (one per pass, when the root set is an
    /// ordinary set) and whether the root set is pushed instead.
    fn heap_descriptor_sets(
        &self,
        o: &mut Objects<'_>,
        derived: &DerivedLayout,
        heap: &HeapLayout,
        set_handles_layouts: &[vk::DescriptorSetLayout],
        passes: usize,
    ) -> Result<(Vec<vk::DescriptorSet>, Vec<vk::DescriptorSet>, bool), RunError> {
        let layout = &derived.layout;
        // Descriptor sets: heap sets from an update-after-bind pool with variable counts; the
        // static sampler set and per-pass root sets from an ordinary pool.
        let heap_count_of = |set: u32| match layout
            .heap
            .sets
            .iter()
            .find(|h| h.set == set)
            .map(|h| h.heap)
        {
            Some(HeapType::Sampler) => heap.sampler_heap_size,
            _ => heap.heap_size,
        };
        let mut sets: Vec<vk::DescriptorSet> =
            vec![vk::DescriptorSet::null(); layout.set_layouts.len()];
        let heap_sets: Vec<&DescriptorSetLayout> = layout
            .set_layouts
            .iter()
            .filter(|s| s.purpose == SetPurpose::Heap)
            .collect();
        self.allocate_sets(
            o,
            &heap_sets,
            set_handles_layouts,
            true,
            &heap_count_of,
            &mut sets,
        )?;
        let root_set = layout.root_descriptor_set.and_then(|r| {
            let s = usize::try_from(r).ok()?;
            layout.set_layouts.get(s)
        });
        let pushed_root = root_set.is_some_and(|s| s.push_descriptor);
        let plain: Vec<&DescriptorSetLayout> = layout
            .set_layouts
            .iter()
            .filter(|s| s.purpose == SetPurpose::StaticSamplers)
            .collect();
        if !plain.is_empty() {
            self.allocate_sets(
                o,
                &plain,
                set_handles_layouts,
                false,
                &heap_count_of,
                &mut sets,
            )?;
        }
        // One root set per pass when the root set is an ordinary one.
        let mut root_sets: Vec<vk::DescriptorSet> = Vec::new();
        if let (Some(rs), false) = (root_set, pushed_root) {
            let layout_handle = usize::try_from(rs.set)
                .ok()
                .and_then(|s| set_handles_layouts.get(s))
                .copied()
                .unwrap_or_default();
            root_sets = self.allocate_root_sets(o, rs, layout_handle, passes)?;
        }
        Ok((sets, root_sets, pushed_root))
    }

    /// Writes each pass's root descriptors into its own root set.
    fn update_root_sets(&self, root_sets: &[vk::DescriptorSet], root_writes: &[Vec<RootWrite>]) {
        if !root_sets.is_empty() {
            let mut writes = Vec::new();
            for (set, per_pass) in root_sets.iter().zip(root_writes) {
                for (binding, ty, info) in per_pass {
                    writes.push(
                        vk::WriteDescriptorSet::default()
                            .dst_set(*set)
                            .dst_binding(*binding)
                            .descriptor_type(*ty)
                            .buffer_info(std::slice::from_ref(info)),
                    );
                }
            }
            // SAFETY: each write targets a binding of the root set layout with its type, and
            // points at live buffers (or a null buffer with nullDescriptor enabled).
            unsafe { self.device.update_descriptor_sets(&writes, &[]) };
        }
    }

    /// Records every pass: barrier, root arguments, dispatch.
    fn record_heap_passes(&self, cb: vk::CommandBuffer, r: &HeapRecording<'_>) {
        let d = &self.device;
        for (k, (pass, block)) in r.passes.iter().zip(r.blocks).enumerate() {
            if k > 0 {
                pass_barrier(d, cb);
            }
            if let Some(root) = r.root_index {
                if r.pushed_root {
                    let infos = r.root_writes.get(k).map_or(&[][..], Vec::as_slice);
                    let writes: Vec<vk::WriteDescriptorSet<'_>> = infos
                        .iter()
                        .map(|(binding, ty, info)| {
                            vk::WriteDescriptorSet::default()
                                .dst_binding(*binding)
                                .descriptor_type(*ty)
                                .buffer_info(std::slice::from_ref(info))
                        })
                        .collect();
                    // SAFETY: the root set layout was created with the push-descriptor flag and
                    // VK_KHR_push_descriptor is enabled (max_push_descriptors > 0 only then);
                    // each write matches a binding of that layout.
                    unsafe {
                        r.push_descriptor.cmd_push_descriptor_set(
                            cb,
                            vk::PipelineBindPoint::COMPUTE,
                            r.pipeline_layout,
                            root,
                            &writes,
                        );
                    }
                } else if let Some(&set) = r.root_sets.get(k) {
                    // SAFETY: a set of the root set layout, written above for this pass.
                    unsafe {
                        d.cmd_bind_descriptor_sets(
                            cb,
                            vk::PipelineBindPoint::COMPUTE,
                            r.pipeline_layout,
                            root,
                            &[set],
                            &[],
                        );
                    }
                }
            }
            if let Some(range) = r.push_range {
                let size = usize::try_from(range.size).unwrap_or(0);
                let bytes = block.get(..size).unwrap_or(block);
                // SAFETY: the range is the pipeline layout's own, and the block has its size.
                unsafe {
                    d.cmd_push_constants(cb, r.pipeline_layout, range.stage_flags, 0, bytes);
                }
            }
            dispatch_pass(d, cb, pass.groups, r.group_order);
        }
    }

    /// Allocates `sets` (heap sets from an update-after-bind pool with variable counts, or
    /// ordinary sets), storing handles by set number.
    fn allocate_sets(
        &self,
        o: &mut Objects<'_>,
        sets: &[&DescriptorSetLayout],
        handles: &[vk::DescriptorSetLayout],
        update_after_bind: bool,
        variable_count: &dyn Fn(u32) -> u32,
        out: &mut [vk::DescriptorSet],
    ) -> Result<(), RunError> {
        let d = &self.device;
        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        let mut lists: Vec<Vec<vk::DescriptorType>> = Vec::new();
        let mut counts = Vec::with_capacity(sets.len());
        let mut layouts = Vec::with_capacity(sets.len());
        for set in sets {
            let mut variable = 0;
            for b in &set.bindings {
                let count = if b.flags.variable_descriptor_count {
                    variable = variable_count(set.set);
                    variable
                } else {
                    b.descriptor_count
                };
                sizes.push(vk::DescriptorPoolSize {
                    ty: vk_descriptor_type(b.descriptor_type),
                    descriptor_count: count.max(1),
                });
                lists.push(
                    b.mutable_types
                        .iter()
                        .map(|&t| vk_descriptor_type(t))
                        .collect(),
                );
            }
            counts.push(variable);
            let handle = usize::try_from(set.set)
                .ok()
                .and_then(|s| handles.get(s))
                .copied()
                .ok_or_else(|| RunError::RootSignature(format!("no layout for set {}", set.set)))?;
            layouts.push(handle);
        }
        let type_lists: Vec<vk::MutableDescriptorTypeListEXT<'_>> = lists
            .iter()
            .map(|l| vk::MutableDescriptorTypeListEXT::default().descriptor_types(l))
            .collect();
        let mut mutable_info = vk::MutableDescriptorTypeCreateInfoEXT::default()
            .mutable_descriptor_type_lists(&type_lists);
        let mut info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(to_u32(sets.len(), "descriptor sets")?)
            .pool_sizes(&sizes);
        if update_after_bind {
            info = info.flags(vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND);
        }
        if lists.iter().any(|l| !l.is_empty()) {
            info = info.push_next(&mut mutable_info);
        }
        // SAFETY: valid device; one pool size (and type list) per binding of the sets allocated
        // below, so the pool holds exactly them.
        let pool = unsafe { d.create_descriptor_pool(&info, None) }
            .map_err(vk_err("vkCreateDescriptorPool"))?;
        o.pools.push(pool);
        let mut variable_info = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default()
            .descriptor_counts(&counts);
        let mut alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        if counts.iter().any(|&c| c > 0) {
            alloc = alloc.push_next(&mut variable_info);
        }
        // SAFETY: the pool was sized for these layouts; variable counts are within each
        // layout's maximum (the caller checked the heap sizes against the layout).
        let allocated = unsafe { d.allocate_descriptor_sets(&alloc) }
            .map_err(vk_err("vkAllocateDescriptorSets"))?;
        for (set, handle) in sets.iter().zip(allocated) {
            if let Some(slot) = usize::try_from(set.set).ok().and_then(|s| out.get_mut(s)) {
                *slot = handle;
            }
        }
        Ok(())
    }

    fn allocate_root_sets(
        &self,
        o: &mut Objects<'_>,
        set: &DescriptorSetLayout,
        handle: vk::DescriptorSetLayout,
        passes: usize,
    ) -> Result<Vec<vk::DescriptorSet>, RunError> {
        let d = &self.device;
        let n = to_u32(passes.max(1), "passes")?;
        let sizes: Vec<vk::DescriptorPoolSize> = set
            .bindings
            .iter()
            .map(|b| vk::DescriptorPoolSize {
                ty: vk_descriptor_type(b.descriptor_type),
                descriptor_count: b.descriptor_count.saturating_mul(n),
            })
            .collect();
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(n)
            .pool_sizes(&sizes);
        // SAFETY: valid device and create info.
        let pool = unsafe { d.create_descriptor_pool(&info, None) }
            .map_err(vk_err("vkCreateDescriptorPool"))?;
        o.pools.push(pool);
        let layouts = vec![handle; passes.max(1)];
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: the pool holds `n` sets of this layout.
        unsafe { d.allocate_descriptor_sets(&alloc) }.map_err(vk_err("vkAllocateDescriptorSets"))
    }

    fn write_heap(
        &self,
        o: &mut Objects<'_>,
        plan: &HeapPlan,
        sets: &[vk::DescriptorSet],
        offsets: Option<(dxil_rootsig::SetBinding, usize)>,
        counters: Option<(dxil_rootsig::SetBinding, usize)>,
    ) -> Result<(), RunError> {
        enum Info {
            Buffer(usize),
            Texel(usize),
            Image(usize),
        }
        let mut buffers: Vec<vk::DescriptorBufferInfo> = Vec::new();
        let mut views: Vec<vk::BufferView> = Vec::new();
        let mut images: Vec<vk::DescriptorImageInfo> = Vec::new();
        let mut resolved: Vec<(u32, u32, u32, vk::DescriptorType, Info)> =
            Vec::with_capacity(plan.writes.len() + 2);
        for w in &plan.writes {
            let (ty, info) = match w.descriptor {
                Descriptor::Buffer { ty, span } => {
                    buffers.push(buffer_info(o, span, None));
                    (vk_descriptor_type(ty), Info::Buffer(buffers.len() - 1))
                }
                Descriptor::Texel { ty, span, format } => {
                    let view = match span {
                        None => vk::BufferView::null(),
                        Some(span) => {
                            let kind = if ty == DescriptorType::StorageTexelBuffer {
                                DescriptorKind::StorageTexelBuffer
                            } else {
                                DescriptorKind::UniformTexelBuffer
                            };
                            self.check_texel_format(format, kind)?;
                            let buffer = o.buffers.get(span.memory).copied().ok_or_else(|| {
                                RunError::Heap(format!("no memory {}", span.memory))
                            })?;
                            let info = vk::BufferViewCreateInfo::default()
                                .buffer(buffer)
                                .format(format.to_vk())
                                .offset(span.offset)
                                .range(span.range);
                            // SAFETY: the buffer has texel-buffer usage, the format supports it,
                            // and the plan aligned the offset to minTexelBufferOffsetAlignment and
                            // kept the range inside the memory and maxTexelBufferElements.
                            let view = unsafe { self.device.create_buffer_view(&info, None) }
                                .map_err(vk_err("vkCreateBufferView"))?;
                            o.views.push(view);
                            view
                        }
                    };
                    views.push(view);
                    (vk_descriptor_type(ty), Info::Texel(views.len() - 1))
                }
                Descriptor::Sampler(spec) => {
                    let sampler = self.create_sampler(o, &spec)?;
                    images.push(vk::DescriptorImageInfo {
                        sampler,
                        ..Default::default()
                    });
                    (vk::DescriptorType::SAMPLER, Info::Image(images.len() - 1))
                }
            };
            resolved.push((w.set, w.binding, w.element, ty, info));
        }
        for (sb, buffer) in [offsets, counters].into_iter().flatten() {
            let handle = o.buffers.get(buffer).copied().unwrap_or_default();
            buffers.push(vk::DescriptorBufferInfo {
                buffer: handle,
                offset: 0,
                range: vk::WHOLE_SIZE,
            });
            resolved.push((
                sb.set,
                sb.binding,
                0,
                vk::DescriptorType::STORAGE_BUFFER,
                Info::Buffer(buffers.len() - 1),
            ));
        }
        let mut writes = Vec::with_capacity(resolved.len());
        for (set, binding, element, ty, info) in &resolved {
            let dst = usize::try_from(*set)
                .ok()
                .and_then(|s| sets.get(s))
                .copied()
                .filter(|s| *s != vk::DescriptorSet::null())
                .ok_or_else(|| RunError::Heap(format!("set {set} was not allocated")))?;
            let w = vk::WriteDescriptorSet::default()
                .dst_set(dst)
                .dst_binding(*binding)
                .dst_array_element(*element)
                .descriptor_type(*ty);
            let w = match info {
                Info::Buffer(i) => w.buffer_info(buffers.get(*i..=*i).unwrap_or(&[])),
                Info::Texel(i) => w.texel_buffer_view(views.get(*i..=*i).unwrap_or(&[])),
                Info::Image(i) => w.image_info(images.get(*i..=*i).unwrap_or(&[])),
            };
            writes.push(w);
        }
        // SAFETY: every write targets an element below the set's allocated count (the parser
        // checked slots against the heap sizes, which are the variable counts) with a type the
        // binding holds (the contract's arrays), and points at live buffers, views and samplers,
        // or at null handles with nullDescriptor enabled (the plan checked).
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }
}

fn buffer_info(
    o: &Objects<'_>,
    span: Option<Span>,
    dummy: Option<usize>,
) -> vk::DescriptorBufferInfo {
    match span {
        Some(span) => vk::DescriptorBufferInfo {
            buffer: o.buffers.get(span.memory).copied().unwrap_or_default(),
            offset: span.offset,
            range: span.range.max(1),
        },
        None => match dummy.and_then(|i| o.buffers.get(i)) {
            Some(&buffer) => vk::DescriptorBufferInfo {
                buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            },
            None => vk::DescriptorBufferInfo {
                buffer: vk::Buffer::null(),
                offset: 0,
                range: vk::WHOLE_SIZE,
            },
        },
    }
}

/// One root descriptor write: binding, descriptor type, buffer range.
type RootWrite = (u32, vk::DescriptorType, vk::DescriptorBufferInfo);

/// The buffers of a heap run (indices into [`Objects::buffers`]).
struct HeapBuffers {
    memory_count: usize,
    offsets: Option<(dxil_rootsig::SetBinding, usize)>,
    counters: Option<(dxil_rootsig::SetBinding, usize)>,
    /// Each pass's root block with its addresses filled in.
    blocks: Vec<Vec<u8>>,
    block_size: u64,
    /// The spilled root block's uniform buffer: set, binding, buffer and the stride per pass.
    spill: Option<(u32, u32, usize, u64)>,
    /// A small zeroed buffer for root descriptors when the device has no null descriptor.
    dummy: Option<usize>,
}

/// What recording the passes of a heap run needs.
struct HeapRecording<'a> {
    passes: &'a [crate::heap::PassPlan],
    blocks: &'a [Vec<u8>],
    pipeline_layout: vk::PipelineLayout,
    root_index: Option<u32>,
    pushed_root: bool,
    root_writes: &'a [Vec<RootWrite>],
    root_sets: &'a [vk::DescriptorSet],
    push_range: Option<vk::PushConstantRange>,
    push_descriptor: ash::khr::push_descriptor::Device,
    group_order: Option<GroupOrder>,
}

/// Each pass's root descriptor writes (and the spilled root block's uniform buffer).
fn root_writes(o: &Objects<'_>, plan: &HeapPlan, bufs: &HeapBuffers) -> Vec<Vec<RootWrite>> {
    let (dummy, spill, block_size) = (bufs.dummy, bufs.spill, bufs.block_size);
    // Root descriptor writes per pass.
    let root_writes: Vec<Vec<(u32, vk::DescriptorType, vk::DescriptorBufferInfo)>> = plan
        .passes
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut w: Vec<(u32, vk::DescriptorType, vk::DescriptorBufferInfo)> = p
                .root_descriptors
                .iter()
                .map(|r| {
                    let info = buffer_info(o, r.span, dummy);
                    (r.binding, vk_descriptor_type(r.ty), info)
                })
                .collect();
            if let Some((_, binding, buffer, stride)) = spill
                && let Some(&handle) = o.buffers.get(buffer)
            {
                w.push((
                    binding,
                    vk::DescriptorType::UNIFORM_BUFFER,
                    vk::DescriptorBufferInfo {
                        buffer: handle,
                        offset: stride * u64::try_from(k).unwrap_or(0),
                        range: block_size.max(16).min(stride),
                    },
                ));
            }
            w
        })
        .collect();
    root_writes
}
