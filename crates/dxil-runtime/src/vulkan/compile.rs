//! The driver's cost of a module on its own: shader module and compute pipeline creation under a
//! pipeline layout made from the module's reflection, with nothing bound or dispatched.

use std::ffi::CString;
use std::time::{Duration, Instant};

use ash::vk;

use super::device::Runtime;
use super::execute::{Objects, descriptor_type, vk_err};
use crate::reflect::{DescriptorCount, reflect};
use crate::report::RunError;

/// What a pipeline made for inspection captures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Capture {
    Nothing,
    Statistics,
    Internals,
}

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
    /// Set numbers past the device's limit (register spaces of vendor extensions, say) are made
    /// dense first (0, 1, … in order), which changes nothing in the compiled code. Each (set,
    /// binding) the module declares gets its reflected descriptor type (the first one
    /// where variables of several types alias it), runtime arrays [`RUNTIME_ARRAY_COUNT`]
    /// descriptors, and the push-constant block its reflected size.
    pub fn pipeline_creation(&self, words: &[u32], entry: &str) -> Result<Duration, RunError> {
        self.reflected_pipeline_with(words, entry, Capture::Nothing)
            .map(|(t, _)| t)
    }

    /// The driver's statistics of the compiled module (`VK_KHR_pipeline_executable_properties`:
    /// register count, instruction count and the like, as `(name, value)` pairs of the first
    /// executable), from a pipeline made as for [`Runtime::pipeline_creation`]. Empty where the
    /// device does not offer them.
    pub fn pipeline_statistics(
        &self,
        words: &[u32],
        entry: &str,
    ) -> Result<Vec<(String, String)>, RunError> {
        self.executable_info(words, entry, Capture::Statistics)
    }

    /// The driver's internal representations of the compiled module (`(name, text)`, such as its
    /// machine code listing where the driver offers one; binary ones are left out), from a
    /// pipeline made as for [`Runtime::pipeline_creation`]. Empty where the device does not offer
    /// them.
    pub fn pipeline_internals(
        &self,
        words: &[u32],
        entry: &str,
    ) -> Result<Vec<(String, String)>, RunError> {
        self.executable_info(words, entry, Capture::Internals)
    }

    /// What `capture` reads of the pipeline's executables; empty without
    /// `VK_KHR_pipeline_executable_properties`.
    fn executable_info(
        &self,
        words: &[u32],
        entry: &str,
        capture: Capture,
    ) -> Result<Vec<(String, String)>, RunError> {
        if !self.device_info().has_feature("pipeline_executable_info") {
            return Ok(Vec::new());
        }
        self.reflected_pipeline_with(words, entry, capture)
            .map(|(_, s)| s)
    }

    fn reflected_pipeline_with(
        &self,
        words: &[u32],
        entry: &str,
        capture: Capture,
    ) -> Result<(Duration, Vec<(String, String)>), RunError> {
        let first = reflect(words, entry)?;
        let mut sets: Vec<u32> = first.bindings.iter().map(|b| b.set).collect();
        sets.sort_unstable();
        sets.dedup();
        let dense;
        let (words, reflection) = if sets
            .last()
            .is_some_and(|&s| s >= self.limits.max_bound_descriptor_sets)
        {
            dense = renumber_sets(words, &sets);
            (&dense[..], reflect(&dense, entry)?)
        } else {
            (words, first)
        };
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
        let set_layouts = o.set_layouts.clone();
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
            .set_layouts(&set_layouts)
            .push_constant_ranges(if push > 0 { &ranges[..] } else { &[] });
        // SAFETY: valid device; the set layouts are alive.
        let layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_err("vkCreatePipelineLayout"))?;
        o.pipeline_layouts.push(layout);
        let name = CString::new(reflection.entry_point.as_str())
            .map_err(|_| RunError::BadSpirv("entry point name has a NUL".into()))?;
        let flags = match capture {
            Capture::Nothing => vk::PipelineCreateFlags::empty(),
            Capture::Statistics => vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR,
            Capture::Internals => vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR,
        };
        let (pipeline, time) = self.time_pipeline(&mut o, layout, words, &name, flags)?;
        let found = match capture {
            Capture::Nothing => Vec::new(),
            Capture::Statistics => self.executable_statistics(pipeline)?,
            Capture::Internals => self.executable_internals(pipeline)?,
        };
        Ok((time, found))
    }

    /// The text internal representations of executable 0 of `pipeline` (made with
    /// `CAPTURE_INTERNAL_REPRESENTATIONS_KHR`).
    fn executable_internals(
        &self,
        pipeline: vk::Pipeline,
    ) -> Result<Vec<(String, String)>, RunError> {
        let ext =
            ash::khr::pipeline_executable_properties::Device::new(&self.instance, &self.device);
        let get = ext
            .fp()
            .get_pipeline_executable_internal_representations_khr;
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(0);
        let call = |count: &mut u32, data: *mut vk::PipelineExecutableInternalRepresentationKHR| {
            // SAFETY: the pipeline is live and was created with
            // CAPTURE_INTERNAL_REPRESENTATIONS_KHR on a device with pipelineExecutableInfo
            // enabled; `data` is null or points at `count` structures whose data pointers are null
            // or point at `data_size` writable bytes (set up below).
            unsafe { get(self.device.handle(), &info, count, data) }.result()
        };
        let mut count = 0u32;
        call(&mut count, std::ptr::null_mut())
            .map_err(vk_err("vkGetPipelineExecutableInternalRepresentationsKHR"))?;
        let n = usize::try_from(count).unwrap_or(0);
        let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); n];
        call(&mut count, reps.as_mut_ptr())
            .map_err(vk_err("vkGetPipelineExecutableInternalRepresentationsKHR"))?;
        // Bounded: a listing of one compute shader; larger data is skipped.
        const MAX: usize = 64 << 20;
        let mut bufs: Vec<Vec<u8>> = reps
            .iter()
            .map(|r| vec![0u8; if r.data_size <= MAX { r.data_size } else { 0 }])
            .collect();
        for (r, b) in reps.iter_mut().zip(&mut bufs) {
            r.data_size = b.len();
            r.p_data = b.as_mut_ptr().cast();
        }
        let written = call(&mut count, reps.as_mut_ptr());
        if written.is_err() && written != Err(vk::Result::INCOMPLETE) {
            written.map_err(vk_err("vkGetPipelineExecutableInternalRepresentationsKHR"))?;
        }
        Ok(reps
            .iter()
            .zip(&bufs)
            .filter(|(r, _)| r.is_text == vk::TRUE)
            .map(|(r, b)| {
                let name = r
                    .name_as_c_str()
                    .map_or_else(|_| String::from("?"), |c| c.to_string_lossy().into_owned());
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                (name, String::from_utf8_lossy(&b[..end]).into_owned())
            })
            .collect())
    }

    /// The statistics of executable 0 of `pipeline` (made with `CAPTURE_STATISTICS_KHR`).
    fn executable_statistics(
        &self,
        pipeline: vk::Pipeline,
    ) -> Result<Vec<(String, String)>, RunError> {
        let ext =
            ash::khr::pipeline_executable_properties::Device::new(&self.instance, &self.device);
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(0);
        // SAFETY: the pipeline is live and was created with CAPTURE_STATISTICS_KHR on a device
        // with pipelineExecutableInfo enabled (the caller checked).
        let stats = unsafe { ext.get_pipeline_executable_statistics(&info) }
            .map_err(vk_err("vkGetPipelineExecutableStatisticsKHR"))?;
        Ok(stats
            .iter()
            .map(|s| {
                let name = s
                    .name_as_c_str()
                    .map_or_else(|_| String::from("?"), |c| c.to_string_lossy().into_owned());
                // SAFETY: `format` says which member of the union the driver wrote.
                let value = unsafe {
                    match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                            (s.value.b32 != 0).to_string()
                        }
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                            s.value.f64.to_string()
                        }
                        _ => String::from("?"),
                    }
                };
                (name, value)
            })
            .collect())
    }

    /// Creates a shader module and a compute pipeline under `layout` with `flags`, both owned by
    /// `o`; returns the pipeline and the time the two creations took.
    pub(super) fn time_pipeline(
        &self,
        o: &mut Objects<'_>,
        layout: vk::PipelineLayout,
        words: &[u32],
        entry: &CString,
        flags: vk::PipelineCreateFlags,
    ) -> Result<(vk::Pipeline, Duration), RunError> {
        let d = &self.device;
        let started = Instant::now();
        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: the words parsed as SPIR-V during reflection; drivers validate the rest.
        let shader = unsafe { d.create_shader_module(&module_info, None) }
            .map_err(vk_err("vkCreateShaderModule"))?;
        o.shaders.push(shader);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(entry);
        let pipeline_info = [vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(layout)];
        // SAFETY: module, layout and name are alive; reflection found this GLCompute entry point
        // and the layout covers every binding it declares.
        let pipelines =
            unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) }
                .map_err(|(_, e)| RunError::Vulkan {
                    call: "vkCreateComputePipelines",
                    result: e,
                })?;
        let time = started.elapsed();
        let pipeline = pipelines.first().copied().unwrap_or_default();
        o.pipelines.push(pipeline);
        Ok((pipeline, time))
    }
}

/// `words` with every `DescriptorSet` decoration's set replaced by its position in `sets`.
fn renumber_sets(words: &[u32], sets: &[u32]) -> Vec<u32> {
    const OP_DECORATE: u32 = spirv::Op::Decorate as u32;
    const DESCRIPTOR_SET: u32 = spirv::Decoration::DescriptorSet as u32;
    let mut out = words.to_vec();
    let mut at = 5;
    while let Some(&head) = out.get(at) {
        let len = (head >> 16) as usize;
        if len == 0 {
            break;
        }
        if head & 0xFFFF == OP_DECORATE
            && out.get(at + 2) == Some(&DESCRIPTOR_SET)
            && let Some(w) = out.get_mut(at + 3)
            && let Some(i) = sets.iter().position(|s| s == w)
        {
            *w = u32::try_from(i).unwrap_or(u32::MAX);
        }
        at += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::renumber_sets;

    #[test]
    fn sets_become_dense() {
        let decorate = |id: u32, set: u32| [(4 << 16) | 71, id, 34, set];
        let mut words = vec![0x0723_0203, 0x0001_0500, 0, 10, 0];
        words.extend(decorate(1, 0x7FFF_0ADF));
        words.extend(decorate(2, 3));
        words.extend([(4 << 16) | 71, 3, 33, 0x7FFF_0ADF]); // a Binding stays as it is
        let out = renumber_sets(&words, &[3, 0x7FFF_0ADF]);
        assert_eq!(&out[5..9], &decorate(1, 1));
        assert_eq!(&out[9..13], &decorate(2, 0));
        assert_eq!(out[16], 0x7FFF_0ADF);
    }
}
