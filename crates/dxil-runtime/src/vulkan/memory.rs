//! Buffers and their memory: host-visible buffers that the host fills and reads directly, or, in
//! device-local mode (timed runs), device-local buffers with a host-visible staging twin and a
//! device-local pristine copy of the initial contents.
//!
//! Host-visible memory is system memory on a discrete GPU: shaders reach it over the bus, which
//! is right for a correctness run and wrong for timing one, so a timed run moves its buffers into
//! the GPU's own memory and copies contents in and out around the dispatches.

use ash::vk;

use super::device::Runtime;
use super::execute::{Objects, vk_err};
use crate::report::RunError;

/// The helpers of one device-local buffer (same index as the buffer in [`Objects::buffers`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Staging {
    /// Host-visible, mapped: filled with the initial contents, receives the final ones.
    pub host: vk::Buffer,
    /// Device-local: the initial contents, copied back into the buffer before each repetition.
    pub pristine: vk::Buffer,
    pub size: u64,
}

/// Where a buffer's memory should come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// Host-visible and coherent, host-cached where offered (fast read-back).
    Host,
    /// Device-local.
    Device,
}

/// Usage of every buffer a case may bind (any descriptor type) and copy.
fn shader_usage() -> vk::BufferUsageFlags {
    vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::UNIFORM_BUFFER
        | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
        | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST
}

impl Runtime {
    fn find_memory_type(&self, type_bits: u32, placement: Placement) -> Option<u32> {
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let preferences: &[vk::MemoryPropertyFlags] = match placement {
            // Cached memory makes the read-back fast; any coherent host-visible type works.
            Placement::Host => &[host | vk::MemoryPropertyFlags::HOST_CACHED, host],
            // Vulkan lists memory types so that the first match is the best one with those
            // properties: plain device memory before a host-visible window onto it.
            Placement::Device => &[vk::MemoryPropertyFlags::DEVICE_LOCAL],
        };
        let count = usize::try_from(self.memory.memory_type_count).unwrap_or(0);
        let types = self.memory.memory_types.get(..count).unwrap_or(&[]);
        preferences.iter().find_map(|&want| {
            types.iter().enumerate().find_map(|(i, t)| {
                let i = u32::try_from(i).ok()?;
                let allowed = type_bits & (1u32 << i) != 0;
                (allowed && t.property_flags.contains(want)).then_some(i)
            })
        })
    }

    /// A buffer of `size` bytes bound to fresh memory of `placement`, recorded in `o` (the
    /// memory always; the buffer in `o.extra_buffers` unless the caller takes it). Returns the
    /// buffer and its memory.
    fn bound_buffer(
        &self,
        o: &mut Objects<'_>,
        size: u64,
        usage: vk::BufferUsageFlags,
        placement: Placement,
    ) -> Result<(vk::Buffer, vk::DeviceMemory), RunError> {
        let d = &self.device;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer = unsafe { d.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        // SAFETY: the buffer was just created from this device.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let Some(type_index) = self.find_memory_type(req.memory_type_bits, placement) else {
            // SAFETY: the buffer is unused and owned by nobody else.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err(RunError::Unsupported(match placement {
                Placement::Host => "no host-visible, host-coherent memory type for buffers".into(),
                Placement::Device => "no device-local memory type for buffers".into(),
            }));
        };
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        if usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
            alloc = alloc.push_next(&mut flags);
        }
        // SAFETY: valid allocate info with a type index the device listed; the device-address
        // flag is only asked for with that usage, which callers only request when
        // bufferDeviceAddress was enabled.
        let memory = match unsafe { d.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: as above.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(vk_err("vkAllocateMemory")(e));
            }
        };
        o.memories.push(memory);
        // SAFETY: the memory is fresh, of a type allowed for the buffer, and large enough.
        if let Err(e) = unsafe { d.bind_buffer_memory(buffer, memory, 0) } {
            // SAFETY: the buffer is unused; its memory is freed with `o`.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err(vk_err("vkBindBufferMemory")(e));
        }
        Ok((buffer, memory))
    }

    /// Maps all of `memory` (host-visible, bound to a buffer of `len` bytes).
    fn map(&self, memory: vk::DeviceMemory, len: usize) -> Result<(*mut u8, usize), RunError> {
        // SAFETY: host-visible memory of this device, mapped once, whole range; it is unmapped
        // implicitly when `Objects` frees it.
        let ptr = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .map_err(vk_err("vkMapMemory"))?;
        Ok((ptr.cast::<u8>(), len))
    }

    /// Creates a buffer of `size` bytes (zeroed) that shaders may bind, and returns its index in
    /// `o.buffers`; its bytes are `o.bytes_mut(index)` until the dispatch and `o.bytes(index)`
    /// after it. `device_address`: the buffer's GPU address may be taken.
    pub(super) fn create_buffer(
        &self,
        o: &mut Objects<'_>,
        size: u64,
        device_address: bool,
    ) -> Result<usize, RunError> {
        let len =
            usize::try_from(size).map_err(|_| RunError::Unsupported(format!("{size} bytes")))?;
        let mut usage = shader_usage();
        if device_address {
            usage |= vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        }
        let index = o.buffers.len();
        if o.device_local {
            let (buffer, _) = self.bound_buffer(o, size, usage, Placement::Device)?;
            o.buffers.push(buffer);
            let copies = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
            let (host, host_memory) = self.bound_buffer(o, size, copies, Placement::Host)?;
            o.extra_buffers.push(host);
            let (pristine, _) = self.bound_buffer(o, size, copies, Placement::Device)?;
            o.extra_buffers.push(pristine);
            o.staging.push(Staging {
                host,
                pristine,
                size,
            });
            let mapped = self.map(host_memory, len)?;
            o.mapped.push(mapped);
        } else {
            let (buffer, memory) = self.bound_buffer(o, size, usage, Placement::Host)?;
            o.buffers.push(buffer);
            let mapped = self.map(memory, len)?;
            o.mapped.push(mapped);
        }
        if let Some(bytes) = o.bytes_mut(index) {
            bytes.fill(0);
        }
        Ok(index)
    }

    /// The GPU address of buffer `index`, which was created with `device_address`.
    pub(super) fn buffer_address(&self, o: &Objects<'_>, index: usize) -> u64 {
        let Some(&buffer) = o.buffers.get(index) else {
            return 0;
        };
        let info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
        // SAFETY: the buffer is live, was created with SHADER_DEVICE_ADDRESS usage and bound to
        // memory allocated with the DEVICE_ADDRESS flag.
        unsafe { self.device.get_buffer_device_address(&info) }
    }
}
