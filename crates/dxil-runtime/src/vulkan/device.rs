//! Instance and device creation: device choice, features and extensions.

use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use crate::report::RunError;

/// What was found out about the chosen device and what was turned on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    /// `discrete`, `integrated`, `virtual`, `cpu` or `other`.
    pub device_type: &'static str,
    pub vendor_id: u32,
    /// Device API version (major, minor, patch).
    pub api_version: (u32, u32, u32),
    /// Driver name and info, as the driver reports them.
    pub driver: String,
    /// Features enabled at device creation, by their Vulkan field names.
    pub enabled_features: Vec<&'static str>,
    /// Features this runtime asks for that the device does not offer.
    pub missing_features: Vec<&'static str>,
    /// Device extensions enabled.
    pub enabled_extensions: Vec<&'static str>,
    /// Subgroup size and the subgroup operation classes compute shaders may use.
    pub subgroup_size: u32,
    pub subgroup_operations: Vec<&'static str>,
    /// All device names the loader listed, in its order.
    pub all_devices: Vec<String>,
}

impl DeviceInfo {
    /// Whether a feature (by Vulkan field name, e.g. `robust_buffer_access2`) was enabled.
    pub fn has_feature(&self, name: &str) -> bool {
        self.enabled_features.contains(&name)
    }
}

/// An instance, the chosen device and its compute queue.
///
/// One `Runtime` runs any number of cases, one at a time. After a dispatch has timed out the
/// device may still be executing it, so the runtime then refuses further runs and, when dropped,
/// leaks its Vulkan objects instead of destroying them (destroying a device that is still busy
/// can block forever on a CPU implementation).
pub struct Runtime {
    // Keeps the loader library loaded for as long as the function pointers below are used.
    _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    /// Submissions need external synchronisation; runs on several threads take turns here.
    pub(crate) queue: std::sync::Mutex<vk::Queue>,
    pub(crate) queue_family: u32,
    /// `timestampValidBits` of the queue family (0: no timestamps there).
    pub(crate) timestamp_bits: u32,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    pub(crate) caps: BindingCaps,
    pub(crate) poisoned: AtomicBool,
    info: DeviceInfo,
}

/// What the D3D12 binding model (version-2 cases) can use on the device: the inputs of the
/// root signature layout beyond `VkPhysicalDeviceLimits`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BindingCaps {
    /// `VK_KHR_push_descriptor` enabled: its `maxPushDescriptors`, else 0.
    pub max_push_descriptors: u32,
    pub mutable_descriptors: bool,
    pub buffer_device_address: bool,
    pub null_descriptor: bool,
    /// Heap arrays: runtime descriptor arrays, partially bound, variable count, update after bind
    /// for buffers, texel buffers and samplers (images are not used by cases yet).
    pub descriptor_heaps: bool,
    /// `descriptorBindingUpdateUnusedWhilePending`.
    pub update_unused_while_pending: bool,
    /// Uniform buffers can form a whole CBV heap (update after bind, non-uniform indexing and a
    /// per-stage limit of at least a million).
    pub uniform_buffer_heap: bool,
    /// The smallest per-stage update-after-bind limit among the heap's descriptor types.
    pub max_heap_descriptors: u32,
    pub sampler_anisotropy: bool,
    pub sampler_filter_minmax: bool,
    pub sampler_mirror_clamp_to_edge: bool,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("device", &self.info.name)
            .field("poisoned", &self.poisoned.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> RunError {
    move |result| RunError::Vulkan { call, result }
}

fn device_type_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual",
        vk::PhysicalDeviceType::CPU => "cpu",
        _ => "other",
    }
}

fn c_chars_to_string(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| u8::from_ne_bytes(c.to_ne_bytes()))
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Turns on in `$enabled` each listed feature that `$supported` has, recording its name in
/// `$names.0`, or in `$names.1` when the device lacks it.
macro_rules! enable {
    ($names:ident, $supported:expr, $enabled:expr, [$($field:ident),* $(,)?]) => {
        $(
            if $supported.$field == vk::TRUE {
                $enabled.$field = vk::TRUE;
                $names.0.push(stringify!($field));
            } else {
                $names.1.push(stringify!($field));
            }
        )*
    };
}

/// Extensions turned on when the device has them.
const OPTIONAL_EXTENSIONS: &[&CStr] = &[
    ash::ext::robustness2::NAME,
    ash::ext::mutable_descriptor_type::NAME,
    ash::khr::push_descriptor::NAME,
    ash::khr::pipeline_executable_properties::NAME,
];

impl Runtime {
    /// Opens the Vulkan loader, picks a device and creates it with every feature a translated
    /// shader may need that the device offers.
    ///
    /// `device`: pick the first device whose name contains this text; without it, the first
    /// discrete GPU, else the first device.
    pub fn new(device: Option<&str>) -> Result<Runtime, RunError> {
        // SAFETY: loading the system Vulkan loader runs its library initialisers; the loader is
        // the platform's and is trusted like libc. The Entry is kept alive in the Runtime.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| RunError::NoLoader(e.to_string()))?;

        // SAFETY: plain query through a valid entry.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vk_err("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_2 {
            return Err(RunError::Unsupported(format!(
                "the Vulkan loader offers API {}.{}; Vulkan 1.2 is needed",
                vk::api_version_major(loader_version),
                vk::api_version_minor(loader_version)
            )));
        }
        let api = loader_version.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default()
            .application_name(c"dxil-runtime")
            .engine_name(c"dxil-runtime")
            .api_version(api);
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the create info and everything it points to live across the call.
        let instance =
            unsafe { entry.create_instance(&create, None) }.map_err(vk_err("vkCreateInstance"))?;

        match open_device(&instance, device) {
            Ok(opened) => Ok(Runtime {
                _entry: entry,
                instance,
                physical: opened.physical,
                device: opened.device,
                queue: std::sync::Mutex::new(opened.queue),
                queue_family: opened.queue_family,
                timestamp_bits: opened.timestamp_bits,
                memory: opened.memory,
                limits: opened.limits,
                caps: opened.caps,
                poisoned: AtomicBool::new(false),
                info: opened.info,
            }),
            Err(e) => {
                // SAFETY: nothing created from this instance is alive.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    /// The chosen device and what was enabled on it.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Whether an earlier dispatch timed out, leaving the device unusable for this runtime.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    pub(crate) fn poison(&self) {
        self.poisoned.store(true, Ordering::Release);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if self.is_poisoned() {
            // A timed-out dispatch may still be running: waiting for it or destroying the device
            // under it could block forever, so the device and instance are leaked on purpose.
            return;
        }
        // SAFETY: every run waits for its own work and destroys its objects before returning,
        // so the device is idle and nothing created from it is alive; the instance outlives it.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// The parts of a [`Runtime`] made from an instance.
struct Opened {
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    timestamp_bits: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    limits: vk::PhysicalDeviceLimits,
    caps: BindingCaps,
    info: DeviceInfo,
}

fn open_device(instance: &ash::Instance, wanted: Option<&str>) -> Result<Opened, RunError> {
    let (physical, prop, names, index) = choose_physical(instance, wanted)?;
    let name = names.get(index).cloned().unwrap_or_default();
    if prop.api_version < vk::API_VERSION_1_2 {
        return Err(RunError::Unsupported(format!(
            "device `{name}` supports Vulkan {}.{}; 1.2 is needed",
            vk::api_version_major(prop.api_version),
            vk::api_version_minor(prop.api_version)
        )));
    }
    // SAFETY: valid physical device; query only.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let Some(queue_family) = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .and_then(|i| u32::try_from(i).ok())
    else {
        return Err(RunError::Unsupported(format!(
            "device `{name}` has no compute queue"
        )));
    };

    let timestamp_bits = usize::try_from(queue_family)
        .ok()
        .and_then(|i| families.get(i))
        .map_or(0, |f| f.timestamp_valid_bits);

    // SAFETY: valid physical device; query only.
    let available = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(vk_err("vkEnumerateDeviceExtensionProperties"))?;
    let has_ext = |ext: &CStr| {
        available
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ext))
    };
    let extensions: Vec<&CStr> = OPTIONAL_EXTENSIONS
        .iter()
        .copied()
        .filter(|e| has_ext(e))
        .collect();
    let ext = Ext {
        v13: prop.api_version >= vk::API_VERSION_1_3,
        robustness2: has_ext(ash::ext::robustness2::NAME),
        mutable: has_ext(ash::ext::mutable_descriptor_type::NAME),
        exec_props: has_ext(ash::khr::pipeline_executable_properties::NAME),
    };
    let supported = query_features(instance, physical, ext);
    let mut en = enabled_features(&supported, ext);
    let priorities = [1.0f32];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let ext_ptrs: Vec<*const std::ffi::c_char> = extensions.iter().map(|e| e.as_ptr()).collect();
    let mut e2 = vk::PhysicalDeviceFeatures2::default()
        .features(en.e10)
        .push_next(&mut en.e11)
        .push_next(&mut en.e12);
    if ext.v13 {
        e2 = e2.push_next(&mut en.e13);
    }
    if ext.robustness2 {
        e2 = e2.push_next(&mut en.erb2);
    }
    if ext.mutable {
        e2 = e2.push_next(&mut en.emut);
    }
    if ext.exec_props {
        e2 = e2.push_next(&mut en.eexec);
    }
    let create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_info)
        .enabled_extension_names(&ext_ptrs)
        .push_next(&mut e2);
    // SAFETY: every feature enabled was reported supported, every extension was listed,
    // the chain only holds structures matching them, and all of it lives across the call.
    let device = unsafe { instance.create_device(physical, &create, None) }
        .map_err(vk_err("vkCreateDevice"))?;
    // SAFETY: the family was requested with one queue at device creation.
    let queue = unsafe { device.get_device_queue(queue_family, 0) };

    let has_push_descriptor = has_ext(ash::khr::push_descriptor::NAME);
    let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut indexing = vk::PhysicalDeviceDescriptorIndexingProperties::default();
    let mut push = vk::PhysicalDevicePushDescriptorPropertiesKHR::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut sub)
        .push_next(&mut driver)
        .push_next(&mut indexing);
    if has_push_descriptor {
        p2 = p2.push_next(&mut push);
    }
    // SAFETY: core 1.1/1.2 structures on a 1.2+ device, and the push-descriptor properties only
    // when the device lists the extension; all alive across the call.
    unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
    let caps = binding_caps(&en, ext, &indexing, has_push_descriptor.then_some(&push));
    // SAFETY: valid physical device; query only.
    let memory = unsafe { instance.get_physical_device_memory_properties(physical) };

    let subgroup_operations = subgroup_operations(&sub);
    let driver_text = format!(
        "{} {}",
        c_chars_to_string(&driver.driver_name),
        c_chars_to_string(&driver.driver_info)
    )
    .trim()
    .to_string();

    let info = DeviceInfo {
        name,
        device_type: device_type_name(prop.device_type),
        vendor_id: prop.vendor_id,
        api_version: (
            vk::api_version_major(prop.api_version),
            vk::api_version_minor(prop.api_version),
            vk::api_version_patch(prop.api_version),
        ),
        driver: driver_text,
        enabled_features: en.names.0,
        missing_features: en.names.1,
        enabled_extensions: extensions.iter().filter_map(|e| e.to_str().ok()).collect(),
        subgroup_size: sub.subgroup_size,
        subgroup_operations,
        all_devices: names,
    };
    Ok(Opened {
        physical,
        device,
        queue,
        queue_family,
        timestamp_bits,
        memory,
        limits: prop.limits,
        caps,
        info,
    })
}

/// Which optional parts the device has: Vulkan 1.3, and the extensions whose features we query.
#[derive(Clone, Copy)]
struct Ext {
    v13: bool,
    robustness2: bool,
    mutable: bool,
    exec_props: bool,
}

/// The physical device named (by part of its name) or the first discrete GPU, else the first;
/// with its properties, every device's name and its index.
fn choose_physical(
    instance: &ash::Instance,
    wanted: Option<&str>,
) -> Result<
    (
        vk::PhysicalDevice,
        vk::PhysicalDeviceProperties,
        Vec<String>,
        usize,
    ),
    RunError,
> {
    // SAFETY: valid instance; queries only.
    let physicals = unsafe { instance.enumerate_physical_devices() }
        .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
    let props: Vec<vk::PhysicalDeviceProperties> = physicals
        .iter()
        // SAFETY: handles just returned by the instance.
        .map(|&p| unsafe { instance.get_physical_device_properties(p) })
        .collect();
    let names: Vec<String> = props
        .iter()
        .map(|p| c_chars_to_string(&p.device_name))
        .collect();
    let chosen = match wanted {
        Some(text) => names.iter().position(|n| n.contains(text)),
        None => props
            .iter()
            .position(|p| p.device_type == vk::PhysicalDeviceType::DISCRETE_GPU)
            .or((!props.is_empty()).then_some(0)),
    };
    let Some(index) = chosen else {
        return Err(match wanted {
            Some(text) if !names.is_empty() => RunError::DeviceNotFound {
                wanted: text.to_string(),
                available: names.join(", "),
            },
            _ => RunError::NoDevice,
        });
    };
    let (Some(&physical), Some(prop)) = (physicals.get(index), props.get(index)) else {
        return Err(RunError::NoDevice);
    };
    Ok((physical, *prop, names, index))
}

/// The features the device offers (the chain's `p_next` pointers are stale once this returns:
/// only the flags are read).
struct Supported {
    s10: vk::PhysicalDeviceFeatures,
    s11: vk::PhysicalDeviceVulkan11Features<'static>,
    s12: vk::PhysicalDeviceVulkan12Features<'static>,
    s13: vk::PhysicalDeviceVulkan13Features<'static>,
    srb2: vk::PhysicalDeviceRobustness2FeaturesEXT<'static>,
    smut: vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT<'static>,
    sexec: vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR<'static>,
}

fn query_features(instance: &ash::Instance, physical: vk::PhysicalDevice, ext: Ext) -> Supported {
    let mut s11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut s12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut s13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut srb2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    let mut smut = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default();
    let mut sexec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut s2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut s11)
        .push_next(&mut s12);
    if ext.v13 {
        s2 = s2.push_next(&mut s13);
    }
    if ext.robustness2 {
        s2 = s2.push_next(&mut srb2);
    }
    if ext.mutable {
        s2 = s2.push_next(&mut smut);
    }
    if ext.exec_props {
        s2 = s2.push_next(&mut sexec);
    }
    // SAFETY: the chain holds only structures for the device's API version and extensions
    // it reports, all alive across the call.
    unsafe { instance.get_physical_device_features2(physical, &mut s2) };
    let s10 = s2.features;
    Supported {
        s10,
        s11,
        s12,
        s13,
        srb2,
        smut,
        sexec,
    }
}

/// The features we turn on (each one the device offers of those we use), and the names of those
/// turned on and of those missing.
struct Enabled {
    names: (Vec<&'static str>, Vec<&'static str>),
    e10: vk::PhysicalDeviceFeatures,
    e11: vk::PhysicalDeviceVulkan11Features<'static>,
    e12: vk::PhysicalDeviceVulkan12Features<'static>,
    e13: vk::PhysicalDeviceVulkan13Features<'static>,
    erb2: vk::PhysicalDeviceRobustness2FeaturesEXT<'static>,
    emut: vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT<'static>,
    eexec: vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR<'static>,
}

fn enabled_features(s: &Supported, ext: Ext) -> Enabled {
    let mut f: (Vec<&'static str>, Vec<&'static str>) = (Vec::new(), Vec::new());
    let mut e10 = vk::PhysicalDeviceFeatures::default();
    enable!(
        f,
        s.s10,
        e10,
        [
            robust_buffer_access,
            shader_int16,
            shader_int64,
            shader_float64,
            shader_uniform_buffer_array_dynamic_indexing,
            shader_storage_buffer_array_dynamic_indexing,
            shader_sampled_image_array_dynamic_indexing,
            shader_storage_image_array_dynamic_indexing,
            shader_storage_image_extended_formats,
            shader_storage_image_read_without_format,
            shader_storage_image_write_without_format,
            shader_image_gather_extended,
            sampler_anisotropy,
        ]
    );
    let mut e11 = vk::PhysicalDeviceVulkan11Features::default();
    enable!(
        f,
        s.s11,
        e11,
        [
            storage_buffer16_bit_access,
            uniform_and_storage_buffer16_bit_access,
            storage_push_constant16,
            variable_pointers_storage_buffer,
            variable_pointers,
        ]
    );
    let mut e12 = vk::PhysicalDeviceVulkan12Features::default();
    enable!(
        f,
        s.s12,
        e12,
        [
            storage_buffer8_bit_access,
            uniform_and_storage_buffer8_bit_access,
            storage_push_constant8,
            shader_buffer_int64_atomics,
            shader_shared_int64_atomics,
            shader_float16,
            shader_int8,
            descriptor_indexing,
            shader_uniform_texel_buffer_array_dynamic_indexing,
            shader_storage_texel_buffer_array_dynamic_indexing,
            shader_uniform_buffer_array_non_uniform_indexing,
            shader_sampled_image_array_non_uniform_indexing,
            shader_storage_buffer_array_non_uniform_indexing,
            shader_storage_image_array_non_uniform_indexing,
            shader_uniform_texel_buffer_array_non_uniform_indexing,
            shader_storage_texel_buffer_array_non_uniform_indexing,
            descriptor_binding_uniform_buffer_update_after_bind,
            descriptor_binding_sampled_image_update_after_bind,
            descriptor_binding_storage_image_update_after_bind,
            descriptor_binding_storage_buffer_update_after_bind,
            descriptor_binding_uniform_texel_buffer_update_after_bind,
            descriptor_binding_storage_texel_buffer_update_after_bind,
            descriptor_binding_update_unused_while_pending,
            descriptor_binding_partially_bound,
            descriptor_binding_variable_descriptor_count,
            runtime_descriptor_array,
            scalar_block_layout,
            uniform_buffer_standard_layout,
            shader_subgroup_extended_types,
            sampler_mirror_clamp_to_edge,
            sampler_filter_minmax,
            buffer_device_address,
            vulkan_memory_model,
            vulkan_memory_model_device_scope,
            vulkan_memory_model_availability_visibility_chains,
            timeline_semaphore,
        ]
    );
    let mut e13 = vk::PhysicalDeviceVulkan13Features::default();
    if ext.v13 {
        enable!(
            f,
            s.s13,
            e13,
            [
                robust_image_access,
                inline_uniform_block,
                descriptor_binding_inline_uniform_block_update_after_bind,
                shader_demote_to_helper_invocation,
                shader_terminate_invocation,
                subgroup_size_control,
                compute_full_subgroups,
                shader_zero_initialize_workgroup_memory,
                shader_integer_dot_product,
                maintenance4,
            ]
        );
    }
    let mut erb2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    if ext.robustness2 && e10.robust_buffer_access == vk::TRUE {
        // robustBufferAccess2 requires robustBufferAccess on.
        enable!(
            f,
            s.srb2,
            erb2,
            [robust_buffer_access2, robust_image_access2, null_descriptor]
        );
    } else if ext.robustness2 {
        enable!(f, s.srb2, erb2, [null_descriptor]);
    }
    let mut emut = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default();
    if ext.mutable {
        enable!(f, s.smut, emut, [mutable_descriptor_type]);
    }
    let mut eexec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    if ext.exec_props {
        enable!(f, s.sexec, eexec, [pipeline_executable_info]);
    }
    Enabled {
        names: f,
        e10,
        e11,
        e12,
        e13,
        erb2,
        emut,
        eexec,
    }
}

/// What the binding model may use on this device.
fn binding_caps(
    en: &Enabled,
    ext: Ext,
    indexing: &vk::PhysicalDeviceDescriptorIndexingProperties<'_>,
    push: Option<&vk::PhysicalDevicePushDescriptorPropertiesKHR<'_>>,
) -> BindingCaps {
    let on = |b: vk::Bool32| b == vk::TRUE;
    let max_heap_descriptors = [
        indexing.max_per_stage_descriptor_update_after_bind_storage_buffers,
        indexing.max_per_stage_descriptor_update_after_bind_uniform_buffers,
        indexing.max_per_stage_descriptor_update_after_bind_sampled_images,
        indexing.max_per_stage_descriptor_update_after_bind_storage_images,
        indexing.max_per_stage_update_after_bind_resources,
    ]
    .into_iter()
    .min()
    .unwrap_or(0);
    BindingCaps {
        max_push_descriptors: push.map_or(0, |p| p.max_push_descriptors),
        mutable_descriptors: ext.mutable && on(en.emut.mutable_descriptor_type),
        buffer_device_address: on(en.e12.buffer_device_address),
        null_descriptor: ext.robustness2 && on(en.erb2.null_descriptor),
        descriptor_heaps: on(en.e12.runtime_descriptor_array)
            && on(en.e12.descriptor_binding_partially_bound)
            && on(en.e12.descriptor_binding_variable_descriptor_count)
            && on(en.e12.descriptor_binding_storage_buffer_update_after_bind)
            && on(en
                .e12
                .descriptor_binding_uniform_texel_buffer_update_after_bind)
            && on(en
                .e12
                .descriptor_binding_storage_texel_buffer_update_after_bind)
            && on(en.e12.descriptor_binding_sampled_image_update_after_bind)
            && on(en.e12.descriptor_binding_storage_image_update_after_bind),
        update_unused_while_pending: on(en.e12.descriptor_binding_update_unused_while_pending),
        uniform_buffer_heap: on(en.e12.descriptor_binding_uniform_buffer_update_after_bind)
            && on(en.e12.shader_uniform_buffer_array_non_uniform_indexing)
            && indexing.max_per_stage_descriptor_update_after_bind_uniform_buffers >= 1_000_000,
        max_heap_descriptors,
        sampler_anisotropy: on(en.e10.sampler_anisotropy),
        sampler_filter_minmax: on(en.e12.sampler_filter_minmax),
        sampler_mirror_clamp_to_edge: on(en.e12.sampler_mirror_clamp_to_edge),
    }
}

/// The subgroup operations the device supports in compute shaders, by name.
fn subgroup_operations(sub: &vk::PhysicalDeviceSubgroupProperties<'_>) -> Vec<&'static str> {
    let mut subgroup_operations = Vec::new();
    if sub.supported_stages.contains(vk::ShaderStageFlags::COMPUTE) {
        for (bit, label) in [
            (vk::SubgroupFeatureFlags::BASIC, "basic"),
            (vk::SubgroupFeatureFlags::VOTE, "vote"),
            (vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic"),
            (vk::SubgroupFeatureFlags::BALLOT, "ballot"),
            (vk::SubgroupFeatureFlags::SHUFFLE, "shuffle"),
            (
                vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
                "shuffle_relative",
            ),
            (vk::SubgroupFeatureFlags::CLUSTERED, "clustered"),
            (vk::SubgroupFeatureFlags::QUAD, "quad"),
        ] {
            if sub.supported_operations.contains(bit) {
                subgroup_operations.push(label);
            }
        }
    }
    subgroup_operations
}
