//! Carrying out a version-1 [`Plan`]: buffers, views, descriptor sets and a pipeline per module,
//! the dispatches and the read-back, every Vulkan object owned by one [`Objects`].

use std::ffi::CString;
use std::time::{Duration, Instant};

use ash::vk;

use super::device::Runtime;
pub(super) use super::objects::{Objects, to_u32, vk_err};
use super::plan::{Plan, PlanDescriptor};
use crate::reflect::DescriptorKind;
use crate::report::{GroupOrder, RunError, Timing};

/// One descriptor write, collected before the sets exist.
struct PendingWrite {
    set: u32,
    binding: u32,
    ty: vk::DescriptorType,
    buffer_infos: Vec<vk::DescriptorBufferInfo>,
    views: Vec<vk::BufferView>,
    images: Vec<vk::DescriptorImageInfo>,
}

/// One module bound to a plan's buffers: what recording its dispatches needs.
struct Bound {
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    /// Bound from set 0.
    sets: Vec<vk::DescriptorSet>,
    push_size: u32,
    group_order: Option<GroupOrder>,
}

/// What [`Runtime::execute`] hands back: per module, the final bytes of each planned buffer,
/// pipeline creation and GPU times; and the run's host timings.
pub(super) struct Executed {
    pub outputs: Vec<Vec<Vec<u8>>>,
    pub setup: Duration,
    /// Shader module and pipeline creation of each module (part of `setup`).
    pub pipelines: Vec<Duration>,
    pub execute: Duration,
    /// Per module, the GPU time of each timed repetition (timed runs only).
    pub dispatch_times: Vec<Vec<Duration>>,
    /// Destroying the run's Vulkan objects (part of [`crate::Timings::finish`]).
    pub teardown: Duration,
}

pub(super) fn descriptor_type(kind: DescriptorKind) -> vk::DescriptorType {
    match kind {
        DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        DescriptorKind::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        DescriptorKind::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        DescriptorKind::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}

impl Runtime {
    fn create_buffers(&self, plan: &Plan<'_>, o: &mut Objects<'_>) -> Result<(), RunError> {
        for pb in &plan.buffers {
            let i = self.create_buffer(o, pb.size, false)?;
            if let Some(bytes) = o.bytes_mut(i) {
                pb.init.fill(bytes);
            }
        }
        Ok(())
    }

    pub(super) fn check_texel_format(
        &self,
        format: crate::format::Format,
        kind: DescriptorKind,
    ) -> Result<(), RunError> {
        let need = if kind == DescriptorKind::StorageTexelBuffer {
            vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER
        } else {
            vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER
        };
        // SAFETY: valid physical device; query only.
        let props = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical, format.to_vk())
        };
        if props.buffer_features.contains(need) {
            Ok(())
        } else {
            Err(RunError::Unsupported(format!(
                "the device cannot use {format} for {} texel buffers",
                if kind == DescriptorKind::StorageTexelBuffer {
                    "storage"
                } else {
                    "uniform"
                }
            )))
        }
    }

    /// Checks what the device must allow for the plan: its descriptor sets and group counts (and
    /// that groups run one at a time stay few enough).
    fn check_plan(&self, plan: &Plan<'_>, order: Option<GroupOrder>) -> Result<(), RunError> {
        let limits = &self.limits;
        let set_count = to_u32(plan.sets.len(), "descriptor sets")?;
        if set_count > limits.max_bound_descriptor_sets {
            return Err(RunError::Unsupported(format!(
                "the shader needs {set_count} descriptor sets (register spaces); the device binds {}",
                limits.max_bound_descriptor_sets
            )));
        }
        for pass in &plan.passes {
            for (axis, (&n, &max)) in pass
                .groups
                .iter()
                .zip(&limits.max_compute_work_group_count)
                .enumerate()
            {
                if n > max {
                    return Err(RunError::Unsupported(format!(
                        "{n} thread groups on axis {axis}; the device allows {max}"
                    )));
                }
            }
            check_group_order(pass.groups, order)?;
        }
        Ok(())
    }

    /// The descriptor sets of one module's plan over the buffers of `o` (views and samplers
    /// created as the plan asks), allocated and written.
    fn create_sets(
        &self,
        o: &mut Objects<'_>,
        plan: &Plan<'_>,
    ) -> Result<(Vec<vk::DescriptorSetLayout>, Vec<vk::DescriptorSet>), RunError> {
        let d = &self.device;
        let limits = &self.limits;
        let set_count = to_u32(plan.sets.len(), "descriptor sets")?;
        // Views and samplers, in plan order.
        let mut pending: Vec<PendingWrite> = Vec::new();
        let mut layouts_bindings: Vec<Vec<vk::DescriptorSetLayoutBinding<'static>>> = Vec::new();
        let mut pool_sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        for (set, bindings) in plan.sets.iter().enumerate() {
            let set = to_u32(set, "sets")?;
            let mut layout_bindings = Vec::new();
            for pb in bindings {
                let ty = descriptor_type(pb.kind);
                let count = to_u32(pb.descriptors.len(), "descriptors")?;
                layout_bindings.push(
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(pb.binding)
                        .descriptor_type(ty)
                        .descriptor_count(count)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE),
                );
                match pool_sizes.iter_mut().find(|p| p.ty == ty) {
                    Some(p) => p.descriptor_count = p.descriptor_count.saturating_add(count),
                    None => pool_sizes.push(vk::DescriptorPoolSize {
                        ty,
                        descriptor_count: count,
                    }),
                }
                let mut buffer_infos = Vec::new();
                let mut views = Vec::new();
                let mut images = Vec::new();
                for desc in &pb.descriptors {
                    match *desc {
                        PlanDescriptor::Buffer {
                            buffer,
                            offset,
                            range,
                        } => {
                            let handle = *o
                                .buffers
                                .get(buffer)
                                .ok_or(RunError::Binding("buffer index".into()))?;
                            let limit = if pb.kind == DescriptorKind::UniformBuffer {
                                limits.max_uniform_buffer_range
                            } else {
                                limits.max_storage_buffer_range
                            };
                            buffer_infos.push(vk::DescriptorBufferInfo {
                                buffer: handle,
                                offset,
                                range: range.min(u64::from(limit)),
                            });
                        }
                        PlanDescriptor::Texel {
                            buffer,
                            offset,
                            range,
                            format,
                        } => {
                            self.check_texel_format(format, pb.kind)?;
                            let handle = *o
                                .buffers
                                .get(buffer)
                                .ok_or(RunError::Binding("buffer index".into()))?;
                            let size = u64::from(format.size());
                            let elements =
                                (range / size).min(u64::from(limits.max_texel_buffer_elements));
                            if elements == 0 {
                                return Err(RunError::Binding(format!(
                                    "set {set}, binding {}: {range} bytes hold no {format} element",
                                    pb.binding
                                )));
                            }
                            let info = vk::BufferViewCreateInfo::default()
                                .buffer(handle)
                                .format(format.to_vk())
                                .offset(offset)
                                .range(elements * size);
                            // SAFETY: the buffer has texel-buffer usage, the format supports it,
                            // and the range lies inside the buffer within the element limit.
                            let view = unsafe { d.create_buffer_view(&info, None) }
                                .map_err(vk_err("vkCreateBufferView"))?;
                            o.views.push(view);
                            views.push(view);
                        }
                        PlanDescriptor::Sampler { address } => {
                            let info = vk::SamplerCreateInfo::default()
                                .mag_filter(vk::Filter::NEAREST)
                                .min_filter(vk::Filter::NEAREST)
                                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                                .address_mode_u(address)
                                .address_mode_v(address)
                                .address_mode_w(address)
                                .max_lod(vk::LOD_CLAMP_NONE);
                            // SAFETY: valid device and create info.
                            let sampler = unsafe { d.create_sampler(&info, None) }
                                .map_err(vk_err("vkCreateSampler"))?;
                            o.samplers.push(sampler);
                            images.push(vk::DescriptorImageInfo {
                                sampler,
                                ..Default::default()
                            });
                        }
                    }
                }
                pending.push(PendingWrite {
                    set,
                    binding: pb.binding,
                    ty,
                    buffer_infos,
                    views,
                    images,
                });
            }
            layouts_bindings.push(layout_bindings);
        }

        let mut set_layouts = Vec::with_capacity(layouts_bindings.len());
        for bindings in &layouts_bindings {
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
            // SAFETY: valid device; bindings are unique per set (one plan entry per binding).
            let layout = unsafe { d.create_descriptor_set_layout(&info, None) }
                .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
            o.set_layouts.push(layout);
            set_layouts.push(layout);
        }
        let mut sets = Vec::new();
        if !set_layouts.is_empty() {
            if pool_sizes.is_empty() {
                // A pool needs at least one size even when every set is empty.
                pool_sizes.push(vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: 1,
                });
            }
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(set_count)
                .pool_sizes(&pool_sizes);
            // SAFETY: valid device and create info.
            let pool = unsafe { d.create_descriptor_pool(&info, None) }
                .map_err(vk_err("vkCreateDescriptorPool"))?;
            o.pools.push(pool);
            let alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&set_layouts);
            // SAFETY: the pool was sized for exactly these layouts.
            sets = unsafe { d.allocate_descriptor_sets(&alloc) }
                .map_err(vk_err("vkAllocateDescriptorSets"))?;
        }
        let mut writes = Vec::new();
        for PendingWrite {
            set,
            binding,
            ty,
            buffer_infos,
            views,
            images,
        } in &pending
        {
            let Some(&dst) = usize::try_from(*set).ok().and_then(|s| sets.get(s)) else {
                continue;
            };
            let w = vk::WriteDescriptorSet::default()
                .dst_set(dst)
                .dst_binding(*binding)
                .descriptor_type(*ty);
            let w = if !buffer_infos.is_empty() {
                w.buffer_info(buffer_infos)
            } else if !views.is_empty() {
                w.texel_buffer_view(views)
            } else if !images.is_empty() {
                w.image_info(images)
            } else {
                continue;
            };
            writes.push(w);
        }
        // SAFETY: every write targets a binding of its set's layout with the layout's type and
        // count, and points at live buffers, views and samplers.
        unsafe { d.update_descriptor_sets(&writes, &[]) };

        Ok((set_layouts, sets))
    }

    /// Binds one module to `plan` over the buffers of `o`: its descriptor sets, pipeline layout
    /// and pipeline; returns them with the time pipeline creation took.
    fn bind_module(
        &self,
        o: &mut Objects<'_>,
        plan: &Plan<'_>,
        words: &[u32],
        entry: &str,
        order: Option<GroupOrder>,
    ) -> Result<(Bound, Duration), RunError> {
        let d = &self.device;
        let (set_layouts, sets) = self.create_sets(o, plan)?;
        let push_size = plan
            .passes
            .iter()
            .map(|p| p.push_constants.len())
            .max()
            .unwrap_or(0);
        let push_size = to_u32(push_size, "push-constant bytes")?;
        if push_size > self.limits.max_push_constants_size {
            return Err(RunError::Unsupported(format!(
                "{push_size} bytes of push constants; the device allows {}",
                self.limits.max_push_constants_size
            )));
        }
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: push_size,
        }];
        let layout_info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&set_layouts)
            .push_constant_ranges(if push_size > 0 { &ranges[..] } else { &[] });
        // SAFETY: valid device; set layouts alive.
        let layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_err("vkCreatePipelineLayout"))?;
        o.pipeline_layouts.push(layout);
        let (pipeline, time) = self.create_pipeline(o, layout, words, entry, order)?;
        Ok((
            Bound {
                pipeline,
                layout,
                sets,
                push_size,
                group_order: order,
            },
            time,
        ))
    }

    /// Records one module's dispatches: its pipeline and sets, then every pass (push constants,
    /// dispatch, a barrier between passes).
    fn record_module(&self, cb: vk::CommandBuffer, b: &Bound, plan: &Plan<'_>) {
        let d = &self.device;
        // SAFETY: recording into a command buffer in the recording state, with a pipeline, layout
        // and sets created for this plan.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, b.pipeline);
            if !b.sets.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cb,
                    vk::PipelineBindPoint::COMPUTE,
                    b.layout,
                    0,
                    &b.sets,
                    &[],
                );
            }
        }
        for (i, pass) in plan.passes.iter().enumerate() {
            if i > 0 {
                pass_barrier(d, cb);
            }
            if b.push_size > 0 {
                let mut bytes = pass.push_constants.clone();
                bytes.resize(usize::try_from(b.push_size).unwrap_or(0), 0);
                // SAFETY: recording; the push range matches the layout's range.
                unsafe {
                    d.cmd_push_constants(cb, b.layout, vk::ShaderStageFlags::COMPUTE, 0, &bytes);
                }
            }
            dispatch_pass(d, cb, pass.groups, b.group_order);
        }
    }

    /// Runs each of `modules` (its plan, words and entry point; the plans differ only in their
    /// descriptor sets, so the first one's buffers serve all) on the same buffers: without
    /// `timing` exactly one module, once; with it, all of them timed and interleaved. With
    /// `order` each pass's groups run one at a time. On a timeout the device is poisoned and the
    /// run's objects are leaked.
    pub(super) fn execute(
        &self,
        modules: &[(&Plan<'_>, &[u32], &str)],
        timeout: Duration,
        timing: Option<Timing>,
        order: Option<GroupOrder>,
    ) -> Result<Executed, RunError> {
        let Some(&(plan, _, _)) = modules.first() else {
            return Err(RunError::Unsupported("no module to run".into()));
        };
        let started = Instant::now();
        if timing.is_none() && modules.len() != 1 {
            return Err(RunError::Unsupported(
                "an untimed run runs exactly one module".into(),
            ));
        }
        self.check_plan(plan, order)?;
        let mut o = Objects::new(&self.device, timing.is_some());
        self.create_buffers(plan, &mut o)?;
        let mut bound = Vec::with_capacity(modules.len());
        let mut pipelines = Vec::with_capacity(modules.len());
        for &(p, words, entry) in modules {
            if p.buffers.len() != plan.buffers.len() {
                return Err(RunError::Binding(
                    "modules planned over different buffers".into(),
                ));
            }
            self.check_plan(p, order)?;
            let (b, time) = self.bind_module(&mut o, p, words, entry, order)?;
            bound.push((b, p));
            pipelines.push(time);
        }
        let setup = started.elapsed();
        let record = |cb: vk::CommandBuffer, k: usize| {
            if let Some((b, p)) = bound.get(k) {
                self.record_module(cb, b, p);
            }
        };
        let flow = self.run_flow(
            &mut o,
            plan.buffers.len(),
            bound.len(),
            timing,
            timeout,
            &record,
        )?;
        let teardown_started = Instant::now();
        drop(o);
        Ok(Executed {
            outputs: flow.outputs,
            setup,
            pipelines,
            execute: flow.execute,
            dispatch_times: flow.times,
            teardown: teardown_started.elapsed(),
        })
    }

    /// Creates the shader module and compute pipeline under `layout` (able to dispatch from a
    /// base group when groups run in an `order`); returns the pipeline and the time the two
    /// creations took.
    pub(super) fn create_pipeline(
        &self,
        o: &mut Objects<'_>,
        layout: vk::PipelineLayout,
        words: &[u32],
        entry: &str,
        order: Option<GroupOrder>,
    ) -> Result<(vk::Pipeline, Duration), RunError> {
        let name = CString::new(entry)
            .map_err(|_| RunError::BadSpirv("entry point name has a NUL".into()))?;
        let flags = if order.is_some() {
            vk::PipelineCreateFlags::DISPATCH_BASE
        } else {
            vk::PipelineCreateFlags::empty()
        };
        self.time_pipeline(o, layout, words, &name, flags)
    }
}

/// Makes one pass's shader writes visible to the next pass.
pub(super) fn pass_barrier(d: &ash::Device, cb: vk::CommandBuffer) {
    let b = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(
            vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::UNIFORM_READ,
        );
    // SAFETY: recording into a command buffer in the recording state.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::DependencyFlags::empty(),
            &[b],
            &[],
            &[],
        );
    }
}

/// Checks that a pass of `groups` can run its groups one at a time in `order`.
pub(super) fn check_group_order(
    groups: [u32; 3],
    order: Option<GroupOrder>,
) -> Result<(), RunError> {
    let total: u64 = groups.iter().map(|&n| u64::from(n)).product();
    if order.is_some() && total > u64::from(GroupOrder::MAX_GROUPS) {
        return Err(RunError::Unsupported(format!(
            "{total} thread groups to run one at a time; at most {}",
            GroupOrder::MAX_GROUPS
        )));
    }
    Ok(())
}

/// The groups of a `grid` in `order`, as (x, y, z) ids.
fn groups_in_order(grid: [u32; 3], order: GroupOrder) -> impl Iterator<Item = [u32; 3]> {
    let [gx, gy, gz] = grid.map(u64::from);
    let total = gx * gy * gz;
    // Each id is below its axis's count, a u32.
    let id = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    (0..total).map(move |k| {
        let i = match order {
            GroupOrder::Forward => k,
            GroupOrder::Reverse => total - 1 - k,
        };
        [id(i % gx), id((i / gx) % gy), id(i / (gx * gy))]
    })
}

/// Records one pass's dispatch of `groups`: the whole grid at once, or with `order` one group at
/// a time, each group's writes visible to the next.
pub(super) fn dispatch_pass(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    groups: [u32; 3],
    order: Option<GroupOrder>,
) {
    let Some(order) = order else {
        let [x, y, z] = groups;
        // SAFETY: recording with the pipeline and its sets bound; group counts were checked
        // against the device's limits.
        unsafe { d.cmd_dispatch(cb, x, y, z) };
        return;
    };
    for (k, [x, y, z]) in groups_in_order(groups, order).enumerate() {
        if k > 0 {
            pass_barrier(d, cb);
        }
        // SAFETY: as above; the pipeline was created with DISPATCH_BASE (create_pipeline with an
        // order), vkCmdDispatchBase is core in Vulkan 1.1 (the runtime needs 1.2), and each base
        // lies inside the checked grid, so base + 1 stays within the device's group counts.
        unsafe { d.cmd_dispatch_base(cb, x, y, z, 1, 1, 1) };
    }
}

#[cfg(test)]
mod tests {
    use super::{GroupOrder, groups_in_order};

    #[test]
    fn groups_run_x_first_in_either_order() {
        let forward: Vec<[u32; 3]> = groups_in_order([2, 3, 2], GroupOrder::Forward).collect();
        assert_eq!(forward.len(), 12);
        assert_eq!(&forward[..4], &[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]);
        assert_eq!(forward[6], [0, 0, 1]);
        assert_eq!(forward[11], [1, 2, 1]);
        let mut reverse: Vec<[u32; 3]> = groups_in_order([2, 3, 2], GroupOrder::Reverse).collect();
        reverse.reverse();
        assert_eq!(reverse, forward);
        assert_eq!(groups_in_order([0, 4, 4], GroupOrder::Forward).count(), 0);
    }
}
