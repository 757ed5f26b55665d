//! The Vulkan objects of one run, owned by [`Objects`] so that they are destroyed on every path,
//! and the command submission that every run goes through.

use std::time::{Duration, Instant};

use ash::vk;

use super::device::Runtime;
use super::memory::Staging;
use crate::report::RunError;

pub(super) fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> RunError {
    move |result| RunError::Vulkan { call, result }
}

pub(super) fn to_u32(n: usize, what: &str) -> Result<u32, RunError> {
    u32::try_from(n).map_err(|_| RunError::Unsupported(format!("{n} {what}")))
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
    /// twin and a pristine copy ([`Staging`]), at the same index as `buffers`.
    pub(super) device_local: bool,
    pub(super) staging: Vec<Staging>,
    /// Buffers besides `buffers` (staging twins, pristine copies).
    pub(super) extra_buffers: Vec<vk::Buffer>,
    pub(super) query_pools: Vec<vk::QueryPool>,
    pub(super) views: Vec<vk::BufferView>,
    pub(super) samplers: Vec<vk::Sampler>,
    pub(super) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(super) pools: Vec<vk::DescriptorPool>,
    pub(super) pipeline_layouts: Vec<vk::PipelineLayout>,
    pub(super) shaders: Vec<vk::ShaderModule>,
    pub(super) pipelines: Vec<vk::Pipeline>,
    command_pool: vk::CommandPool,
    fences: Vec<vk::Fence>,
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
            query_pools: Vec::new(),
            views: Vec::new(),
            samplers: Vec::new(),
            set_layouts: Vec::new(),
            pools: Vec::new(),
            pipeline_layouts: Vec::new(),
            shaders: Vec::new(),
            pipelines: Vec::new(),
            command_pool: vk::CommandPool::null(),
            fences: Vec::new(),
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

    /// The bytes of the first `n` buffers.
    pub(super) fn read_back(&self, n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| self.bytes(i).map(<[u8]>::to_vec).unwrap_or_default())
            .collect()
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        if self.leaked {
            return;
        }
        let d = self.device;
        // SAFETY: all handles were created from `d` (or are null, which destroy functions
        // accept); the run waited for its fences before dropping, so none is in use; each is
        // destroyed once, dependents before what they depend on.
        unsafe {
            for &q in &self.query_pools {
                d.destroy_query_pool(q, None);
            }
            for &f in &self.fences {
                d.destroy_fence(f, None);
            }
            d.destroy_command_pool(self.command_pool, None);
            for &p in &self.pipelines {
                d.destroy_pipeline(p, None);
            }
            for &s in &self.shaders {
                d.destroy_shader_module(s, None);
            }
            for &l in &self.pipeline_layouts {
                d.destroy_pipeline_layout(l, None);
            }
            for &p in &self.pools {
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

impl Runtime {
    /// A primary command buffer in the recording state, from the command pool of `o` (created on
    /// first use).
    pub(super) fn begin_commands(
        &self,
        o: &mut Objects<'_>,
    ) -> Result<vk::CommandBuffer, RunError> {
        let d = &self.device;
        if o.command_pool == vk::CommandPool::null() {
            let pool_info =
                vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family);
            // SAFETY: valid device and queue family.
            o.command_pool = unsafe { d.create_command_pool(&pool_info, None) }
                .map_err(vk_err("vkCreateCommandPool"))?;
        }
        let cb_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(o.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool, used by this thread only.
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
        let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(vk_err("vkCreateFence"))?;
        o.fences.push(fence);
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
            unsafe { d.queue_submit(*queue, &submit, fence) }.map_err(vk_err("vkQueueSubmit"))?;
        }
        let timeout_ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the fence belongs to this device.
        match unsafe { d.wait_for_fences(&[fence], true, timeout_ns) } {
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
