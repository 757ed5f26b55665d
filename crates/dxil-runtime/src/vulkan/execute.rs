//! Carrying out a [`Plan`]: buffers, views, descriptor sets, the pipeline, the dispatches and the
//! read-back, with every Vulkan object owned by one [`Objects`] that destroys them on every path.

use std::ffi::CString;
use std::time::{Duration, Instant};

use ash::vk;

use super::device::Runtime;
use super::plan::{Plan, PlanDescriptor};
use crate::reflect::DescriptorKind;
use crate::report::{RunError, Timing};

pub(super) fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> RunError {
    move |result| RunError::Vulkan { call, result }
}

/// The Vulkan objects of one run. Dropping destroys them, unless [`Objects::leak`] was called
/// because the device may still be using them.
pub(super) struct Objects<'d> {
    pub(super) device: &'d ash::Device,
    /// The buffers shaders see, in creation order.
    pub(super) buffers: Vec<vk::Buffer>,
    /// Every allocation of the run (buffers in host-visible memory have one each; device-local
    /// buffers, their staging twins and pristine copies too).
    pub(super) memories: Vec<vk::DeviceMemory>,
    /// Per buffer, the host pointer and size of its bytes: the buffer's own mapping, or in
    /// device-local mode its staging twin's.
    pub(super) mapped: Vec<(*mut u8, usize)>,
    /// Device-local mode (timed runs): buffers live in device-local memory, each with a staging
    /// twin and a pristine copy ([`super::memory::Staging`]), at the same index as `buffers`.
    pub(super) device_local: bool,
    pub(super) staging: Vec<super::memory::Staging>,
    /// Buffers besides `buffers` (staging twins, pristine copies).
    pub(super) extra_buffers: Vec<vk::Buffer>,
    /// Timestamps of a timed run.
    pub(super) query_pool: vk::QueryPool,
    pub(super) views: Vec<vk::BufferView>,
    pub(super) samplers: Vec<vk::Sampler>,
    pub(super) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(super) pool: vk::DescriptorPool,
    /// More descriptor pools (the heap's update-after-bind pool, say).
    pub(super) extra_pools: Vec<vk::DescriptorPool>,
    pub(super) pipeline_layout: vk::PipelineLayout,
    pub(super) shader: vk::ShaderModule,
    pub(super) pipeline: vk::Pipeline,
    command_pool: vk::CommandPool,
    fence: vk::Fence,
    leaked: bool,
}

impl<'d> Objects<'d> {
    /// An empty set; `device_local` puts the run's buffers in device-local memory.
    pub(super) fn new(device: &'d ash::Device, device_local: bool) -> Self {
        Objects {
            device,
            buffers: Vec::new(),
            memories: Vec::new(),
            mapped: Vec::new(),
            device_local,
            staging: Vec::new(),
            extra_buffers: Vec::new(),
            query_pool: vk::QueryPool::null(),
            views: Vec::new(),
            samplers: Vec::new(),
            set_layouts: Vec::new(),
            pool: vk::DescriptorPool::null(),
            extra_pools: Vec::new(),
            pipeline_layout: vk::PipelineLayout::null(),
            shader: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
            leaked: false,
        }
    }

    fn leak(&mut self) {
        self.leaked = true;
    }

    /// The mapped bytes of buffer `i`.
    pub(super) fn bytes(&self, i: usize) -> Option<&[u8]> {
        let &(ptr, len) = self.mapped.get(i)?;
        // SAFETY: `ptr` is the start of a live host-coherent mapping of `len` bytes made in
        // `create_buffer`; it stays mapped until `self` is dropped, and the GPU is idle whenever
        // this is called (before submit, or after the fence signalled).
        Some(unsafe { std::slice::from_raw_parts(ptr, len) })
    }

    pub(super) fn bytes_mut(&mut self, i: usize) -> Option<&mut [u8]> {
        let &(ptr, len) = self.mapped.get(i)?;
        // SAFETY: as in `bytes`, and `&mut self` makes this the only slice over the mapping.
        Some(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        if self.leaked {
            return;
        }
        let d = self.device;
        // SAFETY: all handles were created from `d` (or are null, which destroy functions
        // accept); the run waited for its fence before dropping, so none is in use; each is
        // destroyed once, dependents before what they depend on.
        unsafe {
            d.destroy_query_pool(self.query_pool, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.command_pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.shader, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_pool(self.pool, None);
            for &p in &self.extra_pools {
                d.destroy_descriptor_pool(p, None);
            }
            for &l in &self.set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            for &s in &self.samplers {
                d.destroy_sampler(s, None);
            }
            for &v in &self.views {
                d.destroy_buffer_view(v, None);
            }
            for &b in self.buffers.iter().chain(&self.extra_buffers) {
                d.destroy_buffer(b, None);
            }
            for &m in &self.memories {
                d.free_memory(m, None);
            }
        }
    }
}

/// One descriptor write, collected before the sets exist.
struct PendingWrite {
    set: u32,
    binding: u32,
    ty: vk::DescriptorType,
    buffer_infos: Vec<vk::DescriptorBufferInfo>,
    views: Vec<vk::BufferView>,
    images: Vec<vk::DescriptorImageInfo>,
}

/// What [`execute`] hands back: final bytes per planned buffer, and timings.
pub(super) struct Executed {
    pub outputs: Vec<Vec<u8>>,
    pub setup: Duration,
    /// Shader module and pipeline creation (part of `setup`).
    pub pipeline: Duration,
    pub execute: Duration,
    /// The GPU time of each timed repetition (timed runs only).
    pub dispatch_times: Vec<Duration>,
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

pub(super) fn to_u32(n: usize, what: &str) -> Result<u32, RunError> {
    u32::try_from(n).map_err(|_| RunError::Unsupported(format!("{n} {what}")))
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

    /// Runs a plan; on a timeout the device is poisoned and the run's objects are leaked.
    pub(super) fn execute(
        &self,
        plan: &Plan<'_>,
        words: &[u32],
        entry: &str,
        timeout: Duration,
        timing: Option<Timing>,
    ) -> Result<Executed, RunError> {
        let started = Instant::now();
        let d = &self.device;
        let mut o = Objects::new(d, timing.is_some());
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
        }

        self.create_buffers(plan, &mut o)?;

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

        for bindings in &layouts_bindings {
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
            // SAFETY: valid device; bindings are unique per set (one plan entry per binding).
            let layout = unsafe { d.create_descriptor_set_layout(&info, None) }
                .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
            o.set_layouts.push(layout);
        }
        let mut sets = Vec::new();
        if !o.set_layouts.is_empty() {
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
            o.pool = unsafe { d.create_descriptor_pool(&info, None) }
                .map_err(vk_err("vkCreateDescriptorPool"))?;
            let alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(o.pool)
                .set_layouts(&o.set_layouts);
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

        let push_size = plan
            .passes
            .iter()
            .map(|p| p.push_constants.len())
            .max()
            .unwrap_or(0);
        let push_size = to_u32(push_size, "push-constant bytes")?;
        if push_size > limits.max_push_constants_size {
            return Err(RunError::Unsupported(format!(
                "{push_size} bytes of push constants; the device allows {}",
                limits.max_push_constants_size
            )));
        }
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: push_size,
        }];
        let layout_info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&o.set_layouts)
            .push_constant_ranges(if push_size > 0 { &ranges[..] } else { &[] });
        // SAFETY: valid device; set layouts alive.
        o.pipeline_layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_err("vkCreatePipelineLayout"))?;

        let pipeline = self.create_pipeline(&mut o, words, entry)?;
        let cb = self.begin_commands(&mut o)?;
        let between_passes = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::UNIFORM_READ,
            );
        // SAFETY: recording into a command buffer in the recording state, with the pipeline,
        // layout and sets created above.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, o.pipeline);
            if !sets.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cb,
                    vk::PipelineBindPoint::COMPUTE,
                    o.pipeline_layout,
                    0,
                    &sets,
                    &[],
                );
            }
        }
        let pipeline_layout = o.pipeline_layout;
        let mut passes = |cb: vk::CommandBuffer| {
            for (i, pass) in plan.passes.iter().enumerate() {
                // SAFETY: recording with the pipeline and sets bound above; push ranges match the
                // layout's range.
                unsafe {
                    if i > 0 {
                        d.cmd_pipeline_barrier(
                            cb,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::PipelineStageFlags::COMPUTE_SHADER,
                            vk::DependencyFlags::empty(),
                            &[between_passes],
                            &[],
                            &[],
                        );
                    }
                    if push_size > 0 {
                        let mut bytes = pass.push_constants.clone();
                        bytes.resize(usize::try_from(push_size).unwrap_or(0), 0);
                        d.cmd_push_constants(
                            cb,
                            pipeline_layout,
                            vk::ShaderStageFlags::COMPUTE,
                            0,
                            &bytes,
                        );
                    }
                    let [x, y, z] = pass.groups;
                    d.cmd_dispatch(cb, x, y, z);
                }
            }
        };
        self.record_runs(&mut o, cb, timing, &mut passes)?;
        let setup = started.elapsed();
        let execute =
            self.submit_and_wait(&mut o, cb, Self::submission_timeout(timeout, timing))?;
        let dispatch_times = self.read_timestamps(&o, timing)?;

        let outputs = (0..plan.buffers.len())
            .map(|i| o.bytes(i).map(<[u8]>::to_vec).unwrap_or_default())
            .collect();
        let teardown_started = Instant::now();
        drop(o);
        Ok(Executed {
            outputs,
            setup,
            pipeline,
            execute,
            dispatch_times,
            teardown: teardown_started.elapsed(),
        })
    }

    /// Creates the shader module and compute pipeline with `o.pipeline_layout`; returns the time
    /// the two creations took.
    pub(super) fn create_pipeline(
        &self,
        o: &mut Objects<'_>,
        words: &[u32],
        entry: &str,
    ) -> Result<Duration, RunError> {
        let name = CString::new(entry)
            .map_err(|_| RunError::BadSpirv("entry point name has a NUL".into()))?;
        self.time_pipeline(o, words, &name)
    }

    /// A primary command buffer in the recording state, from a new pool owned by `o`.
    pub(super) fn begin_commands(
        &self,
        o: &mut Objects<'_>,
    ) -> Result<vk::CommandBuffer, RunError> {
        let d = &self.device;
        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family);
        // SAFETY: valid device and queue family.
        o.command_pool = unsafe { d.create_command_pool(&pool_info, None) }
            .map_err(vk_err("vkCreateCommandPool"))?;
        let cb_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(o.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        let cbs = unsafe { d.allocate_command_buffers(&cb_info) }
            .map_err(vk_err("vkAllocateCommandBuffers"))?;
        let cb = cbs.first().copied().ok_or(RunError::Vulkan {
            call: "vkAllocateCommandBuffers",
            result: vk::Result::ERROR_UNKNOWN,
        })?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: fresh command buffer.
        unsafe { d.begin_command_buffer(cb, &begin) }.map_err(vk_err("vkBeginCommandBuffer"))?;
        Ok(cb)
    }

    /// Ends `cb`, submits it and waits up to `timeout`; returns the time from submit to the
    /// fence. On a timeout or a lost device the run's objects are leaked and the runtime
    /// poisoned.
    pub(super) fn submit_and_wait(
        &self,
        o: &mut Objects<'_>,
        cb: vk::CommandBuffer,
        timeout: Duration,
    ) -> Result<Duration, RunError> {
        let d = &self.device;
        // SAFETY: the command buffer is in the recording state.
        unsafe { d.end_command_buffer(cb) }.map_err(vk_err("vkEndCommandBuffer"))?;
        // SAFETY: valid device.
        o.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(vk_err("vkCreateFence"))?;
        let cbs = [cb];
        let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
        let submitted = Instant::now();
        {
            // A poisoned lock only means another run panicked; the queue itself is still fine.
            let queue = self
                .queue
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // SAFETY: the command buffer is executable and the fence unsignalled; the lock gives
            // this thread the external synchronisation vkQueueSubmit requires.
            unsafe { d.queue_submit(*queue, &submit, o.fence) }.map_err(vk_err("vkQueueSubmit"))?;
        }
        let timeout_ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the fence belongs to this device.
        match unsafe { d.wait_for_fences(&[o.fence], true, timeout_ns) } {
            Ok(()) => Ok(submitted.elapsed()),
            Err(vk::Result::TIMEOUT) => {
                o.leak();
                self.poison();
                Err(RunError::Timeout {
                    seconds: timeout.as_secs_f64(),
                })
            }
            Err(e) => {
                // The device is lost or out of memory; its work is over, but a lost device gives
                // no guarantee that destruction is quick, so leak and refuse further runs.
                o.leak();
                self.poison();
                Err(RunError::Vulkan {
                    call: "vkWaitForFences",
                    result: e,
                })
            }
        }
    }
}
