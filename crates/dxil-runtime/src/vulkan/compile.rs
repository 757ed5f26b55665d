//! The driver's cost of a module on its own: shader module and compute pipeline creation under a
//! pipeline layout made from the module's reflection, with nothing bound or dispatched.

use std::ffi::CString;
use std::time::{Duration, Instant};

use ash::vk;

use super::device::Runtime;
use super::execute::{Objects, descriptor_type, vk_err};
use crate::reflect::{DescriptorCount, reflect};
use crate::report::RunError;

/// Descriptors given to a runtime-sized array in the layout (any count makes the pipeline valid;
/// the shader is never run).
const RUNTIME_ARRAY_COUNT: u32 = 16;

impl Runtime {
    /// Creates a compute pipeline for `words` (entry point `entry`, empty for the only one) and
    /// returns how long `vkCreateShaderModule` plus `vkCreateComputePipelines` took: the driver's
    /// compilation. No pipeline cache is passed; a driver's own caches still apply (Mesa's disk
    /// cache unless `MESA_SHADER_CACHE_DISABLE=true`, NVIDIA's unless
    /// `__GL_SHADER_DISK_CACHE=0`), and some drivers finish compiling at the first dispatch
    /// (llvmpipe, behind lavapipe, generates machine code then).
    ///
    /// Each (set, binding) the module declares gets its reflected descriptor type (the first one
    /// where variables of several types alias it), runtime arrays [`RUNTIME_ARRAY_COUNT`]
    /// descriptors, and the push-constant block its reflected size.
    pub fn pipeline_creation(&self, words: &[u32], entry: &str) -> Result<Duration, RunError> {
        let reflection = reflect(words, entry)?;
        let d = &self.device;
        let mut o = Objects::new(d, false);
        let set_count = reflection
            .bindings
            .iter()
            .map(|b| b.set.saturating_add(1))
            .max()
            .unwrap_or(0);
        if set_count > self.limits.max_bound_descriptor_sets {
            return Err(RunError::Unsupported(format!(
                "the module uses {set_count} descriptor sets; the device binds {}",
                self.limits.max_bound_descriptor_sets
            )));
        }
        for set in 0..set_count {
            let bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = reflection
                .bindings
                .iter()
                .filter(|b| b.set == set)
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(descriptor_type(b.kind))
                        .descriptor_count(match b.count {
                            DescriptorCount::Fixed(n) => n.max(1),
                            DescriptorCount::Runtime => RUNTIME_ARRAY_COUNT,
                        })
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: valid device; reflection lists each (set, binding) once.
            let layout = unsafe { d.create_descriptor_set_layout(&info, None) }
                .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
            o.set_layouts.push(layout);
        }
        let push = reflection.push_constant_size;
        if push > self.limits.max_push_constants_size {
            return Err(RunError::Unsupported(format!(
                "{push} bytes of push constants; the device allows {}",
                self.limits.max_push_constants_size
            )));
        }
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: push,
        }];
        let layout_info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&o.set_layouts)
            .push_constant_ranges(if push > 0 { &ranges[..] } else { &[] });
        // SAFETY: valid device; the set layouts are alive.
        o.pipeline_layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_err("vkCreatePipelineLayout"))?;
        let name = CString::new(reflection.entry_point.as_str())
            .map_err(|_| RunError::BadSpirv("entry point name has a NUL".into()))?;
        self.time_pipeline(&mut o, words, &name)
    }

    /// Creates `o`'s shader module and pipeline (under `o.pipeline_layout`) and times both.
    pub(super) fn time_pipeline(
        &self,
        o: &mut Objects<'_>,
        words: &[u32],
        entry: &CString,
    ) -> Result<Duration, RunError> {
        let d = &self.device;
        let started = Instant::now();
        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: the words parsed as SPIR-V during reflection; drivers validate the rest.
        o.shader = unsafe { d.create_shader_module(&module_info, None) }
            .map_err(vk_err("vkCreateShaderModule"))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(o.shader)
            .name(entry);
        let pipeline_info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(o.pipeline_layout)];
        // SAFETY: module, layout and name are alive; reflection found this GLCompute entry point
        // and the layout covers every binding it declares.
        let pipelines =
            unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) }
                .map_err(|(_, e)| RunError::Vulkan {
                    call: "vkCreateComputePipelines",
                    result: e,
                })?;
        o.pipeline = pipelines.first().copied().unwrap_or_default();
        Ok(started.elapsed())
    }
}
