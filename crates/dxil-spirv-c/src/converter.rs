//! Converters: what a caller set up (remappers, root block, options), the run, and its results.

use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::sync::Arc;

use dxil_to_spirv::options::{
    BranchControl, Instrumentation, MetaDescriptor, Quirk, SampleCount, ViewInstancing,
};
use dxil_to_spirv::{
    Error, Features, HeapConventions, LocalParameter, LocalRange, LocalRootSignature, Options,
    Requests, ResolverBindings, RootBlock, Translator,
};

use crate::abi::{self, opt, option as o};
use crate::blob::ParsedBlob;
use crate::resolver::{CResolver, Remappers};

/// `dxil_spv_converter`.
#[derive(Debug)]
pub struct Converter {
    /// The blob the converter was made from; the caller keeps it alive longer than the converter.
    pub blob: *const ParsedBlob,
    pub entry: Option<CString>,
    pub remappers: Remappers,
    pub root_words: u32,
    pub root_descriptors: u32,
    pub features: Features,
    pub requests: Requests,
    pub conventions: HeapConventions,
    pub inline_ubo: Option<(u32, u32)>,
    /// Domain shaders: the hull shader's patch constant location ([`Options::patch_location_offset`]).
    pub patch_location_offset: Option<u32>,
    /// The local root signature's parameters, in record order (ray-tracing stages).
    pub local: Vec<LocalParameter>,
    /// Ranges of the local root descriptor table being built (between begin and end).
    pub open_table: Option<Vec<LocalRange>>,
    /// log2 of the descriptor handle increment (CBV/SRV/UAV heap, sampler heap): a table argument of a shader
    /// record is a handle, whose low word shifted right by this is the heap slot
    /// ([`LocalRootSignature::table_shift`]).
    pub sbt_shift: [u32; 2],
    pub result: Option<RunResult>,
}

/// What a successful run leaves.
#[derive(Debug)]
pub struct RunResult {
    pub words: Vec<u32>,
    pub entry_point: CString,
    pub workgroup_size: [u32; 3],
    /// (min, max, preferred); zeros without `[WaveSize]`.
    pub wave_size: (u32, u32, u32),
    /// Hull and domain shaders: the input control points; 0 for other stages.
    pub patch_vertex_count: u32,
    /// Hull and domain shaders: the location of patch constant row 0.
    pub patch_location_offset: Option<u32>,
    pub uses_subgroup_size: bool,
    pub native_16bit: bool,
    pub warnings: Option<CString>,
}

/// dxil-spirv's defaults, which its callers start from.
pub fn default_conventions() -> HeapConventions {
    HeapConventions {
        ssbo_alignment: 16,
        typed_offsets: false,
        cbv_as_ssbo: false,
        offset_layout: (0, 0, 1),
        device_addresses: false,
    }
}

impl Converter {
    pub fn new(blob: *const ParsedBlob) -> Converter {
        Converter {
            blob,
            entry: None,
            remappers: Remappers::default(),
            root_words: 0,
            root_descriptors: 0,
            features: Features::baseline(),
            requests: Requests {
                strict_helper_lane_wave_ops: true,
                min_precision_32bit: true,
                ..Requests::default()
            },
            conventions: default_conventions(),
            inline_ubo: None,
            patch_location_offset: None,
            local: Vec::new(),
            open_table: None,
            sbt_shift: [0, 0],
            result: None,
        }
    }

    pub fn add_local(&mut self, p: LocalParameter) {
        self.local.push(p);
    }

    pub fn add_meta(&mut self, m: MetaDescriptor) {
        self.requests.meta_descriptors.push(m);
    }
}

/// How a run failed: the API result and the message for the log.
#[derive(Debug)]
pub struct RunError {
    pub code: abi::DxilResult,
    pub message: String,
}

fn error_code(e: &Error) -> abi::DxilResult {
    match e {
        Error::Binding(_) => abi::ERROR_INVALID_ARGUMENT,
        Error::Stage { .. } | Error::Unsupported { .. } | Error::Option { .. } => {
            abi::ERROR_UNSUPPORTED_FEATURE
        }
        Error::Container(_) | Error::NoProgram | Error::Module(_) | Error::Metadata(_) => {
            abi::ERROR_PARSER
        }
        Error::Invalid { .. } => abi::ERROR_FAILED_VALIDATION,
        _ => abi::ERROR_GENERIC,
    }
}

thread_local! {
    // One translator per thread keeps its buffers between runs.
    static TRANSLATOR: RefCell<Translator> = RefCell::new(Translator::new());
    /// The converter freed last on this thread, for the next one made ([`Converter::create`]).
    static SPARE: std::cell::Cell<Option<Box<Converter>>> = const { std::cell::Cell::new(None) };
}

impl Converter {
    /// A converter for `blob`, in the box of the converter freed last on this thread when there is one: a layer
    /// makes, runs and frees a converter per shader.
    pub fn create(blob: *const ParsedBlob) -> Box<Converter> {
        match SPARE.try_with(std::cell::Cell::take).ok().flatten() {
            Some(mut c) => {
                *c = Converter::new(blob);
                c
            }
            None => Box::new(Converter::new(blob)),
        }
    }

    /// Frees a converter (`dxil_spv_converter_free`): its SPIR-V buffer goes back to the thread's translator for
    /// the next output and its box is kept for the next converter, two allocations fewer per shader.
    pub fn release(mut self: Box<Converter>) {
        if let Some(r) = self.result.take() {
            let _ = TRANSLATOR.try_with(|t| {
                if let Ok(mut t) = t.try_borrow_mut() {
                    t.recycle_words(r.words);
                }
            });
        }
        *self = Converter::new(std::ptr::null());
        let _ = SPARE.try_with(|s| s.set(Some(self)));
    }
}

/// Translates the converter's entry point.
pub fn run(c: &Converter, blob: &ParsedBlob) -> Result<RunResult, RunError> {
    let fail = |code, message: String| RunError { code, message };
    let entry = match &c.entry {
        Some(name) => blob
            .entry_index(name.as_bytes())
            .ok_or_else(|| {
                fail(
                    abi::ERROR_INVALID_ARGUMENT,
                    format!("no entry point named `{}`", name.to_string_lossy()),
                )
            })
            .map(Some)?,
        None => None,
    };
    let entry_name = entry.map(|i| blob.entries[i].mangled.to_string_lossy().into_owned());
    // What `get_compiled_entry_point` reports: the DXIL entry point's (mangled) name, as dxil-spirv does; the
    // SPIR-V entry point itself is `main` for every stage, which is what vkd3d-proton's pipelines ask for.
    let dxil_name = entry
        .or_else(|| (!blob.entries.is_empty()).then_some(0))
        .map(|i| blob.entries[i].mangled.clone());
    let stream_output = crate::io::check_interface(c, blob, entry)?;
    let resolver = CResolver {
        remappers: c.remappers,
        physical_storage_buffer: c.conventions.device_addresses,
    };
    let stage = dxil_stage(blob, entry).ok_or_else(|| {
        fail(
            abi::ERROR_UNSUPPORTED_FEATURE,
            "the entry point's stage is not supported".into(),
        )
    })?;
    let model = ResolverBindings::new(
        Arc::new(resolver),
        stage,
        RootBlock {
            root_descriptors: c.root_descriptors,
            constant_words: c.root_words,
            uniform_buffer: c.inline_ubo,
        },
        c.conventions,
        blob.ranges.iter().map(|r| r.info()).collect(),
    );
    let local_root_signature = (!c.local.is_empty()).then(|| {
        Arc::new(LocalRootSignature {
            parameters: c.local.clone(),
            table_shift: c.sbt_shift,
        })
    });
    let options = Options {
        entry_point: entry_name,
        entry_point_name: Some("main".into()),
        binding: Arc::new(model),
        local_root_signature,
        features: c.features,
        requests: Requests {
            stream_output,
            ..c.requests.clone()
        },
        patch_location_offset: c.patch_location_offset,
        // Each field given, not `..Options::default()`: that would make (and free) a default binding model per run.
        bounds_checks: true,
        denorm_modes: true,
        debug_names: false,
        input_varyings: None,
    };
    let mut t = dxil_to_spirv::dxil::entry_info(
        &blob.module,
        blob.dxil.clone(),
        options.entry_point.as_deref(),
    )
    .and_then(|e| TRANSLATOR.with(|t| t.borrow_mut().compile_entry(&blob.module, e, &options)))
    .map_err(|e| fail(error_code(&e), format!("{} shader: {e}", stage.name())))?;
    let notes = options.requests.notes();
    let warnings = if notes.is_empty() {
        None
    } else {
        CString::new(format!(
            "options recorded but not acted on: {}\n",
            notes.join("; ")
        ))
        .ok()
    };
    let uses_subgroup_size = t.uses_builtin(spirv::BuiltIn::SubgroupSize);
    let native_16bit = t
        .capabilities
        .iter()
        .any(|&c| matches!(c, spirv::Capability::Float16 | spirv::Capability::Int16));
    let result = RunResult {
        entry_point: dxil_name
            .unwrap_or_else(|| CString::new(t.entry_point.as_str()).unwrap_or_default()),
        workgroup_size: t.workgroup_size,
        wave_size: t
            .wave_size
            .map_or((0, 0, 0), |w| (w.min, w.max, w.preferred)),
        patch_vertex_count: t
            .tessellation
            .as_ref()
            .map_or(0, |s| s.input_control_points),
        patch_location_offset: t.tessellation.as_ref().map(|s| s.patch_location_offset),
        words: std::mem::take(&mut t.words),
        uses_subgroup_size,
        native_16bit,
        warnings,
    };
    // The rest of the translation (binding, capability and extension lists) is not reported: its lists go back to
    // the translator for the next run's.
    let _ = TRANSLATOR.try_with(|tr| {
        if let Ok(mut tr) = tr.try_borrow_mut() {
            tr.recycle(t);
        }
    });
    Ok(result)
}

/// The translator's stage of the chosen entry point.
fn dxil_stage(blob: &ParsedBlob, entry: Option<usize>) -> Option<dxil_to_spirv::Stage> {
    use abi::stage as s;
    use dxil_to_spirv::Stage;
    let n = match entry {
        Some(i) => blob.entries[i].stage,
        None => blob.entries.first().map_or(blob.stage, |e| e.stage),
    };
    Some(match n {
        s::VERTEX => Stage::Vertex,
        s::HULL => Stage::Hull,
        s::DOMAIN => Stage::Domain,
        s::GEOMETRY => Stage::Geometry,
        s::PIXEL => Stage::Pixel,
        s::COMPUTE => Stage::Compute,
        s::AMPLIFICATION => Stage::Amplification,
        s::MESH => Stage::Mesh,
        s::RAY_GENERATION => Stage::RayGeneration,
        s::INTERSECTION => Stage::Intersection,
        s::ANY_HIT => Stage::AnyHit,
        s::CLOSEST_HIT => Stage::ClosestHit,
        s::MISS => Stage::Miss,
        s::CALLABLE => Stage::Callable,
        _ => Stage::Library,
    })
}

/// Whether `add_option` knows the kind.
pub fn known_option(kind: u32) -> bool {
    (1..=o::LAST).contains(&kind)
}

fn flag(b: abi::Bool) -> bool {
    b != abi::FALSE
}

/// Sets the converter field an option of one flag (`opt::Flag`) names.
type FlagSetter = fn(&mut Converter, bool);

/// The options whose structure is a single flag, and where each flag goes.
const FLAG_OPTIONS: &[(u32, FlagSetter)] = &[
    (o::SHADER_DEMOTE_TO_HELPER, |c, v| {
        c.features.demote_to_helper = v
    }),
    (o::DUAL_SOURCE_BLENDING, |c, v| {
        c.requests.dual_source_blending = v
    }),
    (o::BINDLESS_CBV_SSBO_EMULATION, |c, v| {
        c.conventions.cbv_as_ssbo = v
    }),
    (o::PHYSICAL_STORAGE_BUFFER, |c, v| {
        c.conventions.device_addresses = v
    }),
    (o::TYPED_UAV_READ_WITHOUT_FORMAT, |c, v| {
        c.features.typed_uav_read_without_format = v
    }),
    (o::BINDLESS_TYPED_BUFFER_OFFSETS, |c, v| {
        c.conventions.typed_offsets = v
    }),
    (o::STORAGE_INPUT_OUTPUT_16BIT, |c, v| {
        c.features.storage_input_output_16bit = v
    }),
    (o::MIN_PRECISION_NATIVE_16BIT, |c, v| {
        c.requests.min_precision_32bit = !v
    }),
    (o::SHADER_I8_DOT, |c, v| c.features.int8_dot_product = v),
    (o::SHADER_RAY_TRACING_PRIMITIVE_CULLING, |c, v| {
        c.features.ray_tracing_primitive_culling = v
    }),
    (o::INVARIANT_POSITION, |c, v| {
        c.requests.invariant_position = v
    }),
    (o::BARYCENTRIC_KHR, |c, v| c.features.barycentrics = v),
    (o::ROBUST_PHYSICAL_CBV_LOAD, |c, v| {
        c.requests.robust_physical_cbv_load = v
    }),
    (o::ARITHMETIC_RELAXED_PRECISION, |c, v| {
        c.requests.relaxed_precision = v
    }),
    (o::STRICT_HELPER_LANE_WAVE_OPS, |c, v| {
        c.requests.strict_helper_lane_wave_ops = v
    }),
    (o::SUBGROUP_PARTITIONED_NV, |c, v| {
        c.features.subgroup_partitioned = v
    }),
    (o::DEAD_CODE_ELIMINATE, |c, v| {
        c.requests.dead_code_eliminate = v
    }),
    (o::OPACITY_MICROMAP, |c, v| c.features.opacity_micromap = v),
    (o::DESCRIPTOR_HEAP_ROBUSTNESS, |c, v| {
        c.requests.descriptor_heap_robustness = v
    }),
    (o::COMPUTE_SHADER_DERIVATIVES_NV, |c, v| {
        c.features.compute_derivatives_nv = v
    }),
    (o::RAW_ACCESS_CHAINS_NV, |c, v| {
        c.features.raw_access_chains = v
    }),
    (o::VULKAN_MEMORY_MODEL, |c, v| {
        c.requests.vulkan_memory_model = v
    }),
    (o::EXTENDED_NON_SEMANTIC, |c, v| {
        c.requests.extended_non_semantic = v
    }),
    (o::COMPUTE_SHADER_DERIVATIVES_QUAD, |c, v| {
        c.features.compute_derivatives_quad = v
    }),
];

/// Records an option.
///
/// # Safety
/// `base` points at the option structure its kind names, and any array or string it holds is valid.
pub unsafe fn add_option(c: &mut Converter, base: *const u32) -> abi::DxilResult {
    // SAFETY: `base` is non-null (checked by the caller) and points at a structure starting with the kind.
    let kind = unsafe { *base };
    macro_rules! read {
        ($t:ty) => {
            // SAFETY: the caller passes the structure its kind names; `$t` is that structure's layout.
            unsafe { *(base as *const $t) }
        };
    }
    if let Some((_, set)) = FLAG_OPTIONS.iter().find(|(k, _)| *k == kind) {
        set(c, flag(read!(opt::Flag).value));
        return abi::SUCCESS;
    }
    let f = &mut c.features;
    let r = &mut c.requests;
    match kind {
        o::OUTPUT_SWIZZLE => {
            let s = read!(opt::OutputSwizzle);
            r.output_swizzles = if s.swizzle_count == 0 {
                Vec::new()
            } else if s.swizzles.is_null() {
                return abi::ERROR_INVALID_ARGUMENT;
            } else {
                // SAFETY: the caller's array holds `swizzle_count` entries.
                unsafe { std::slice::from_raw_parts(s.swizzles, s.swizzle_count as usize) }.to_vec()
            };
        }
        o::RASTERIZER_SAMPLE_COUNT => {
            let s = read!(opt::SampleCount);
            r.rasterizer_sample_count = Some(if flag(s.spec_constant) {
                SampleCount::SpecConstant(s.sample_count)
            } else {
                SampleCount::Fixed(s.sample_count)
            });
        }
        o::ROOT_CONSTANT_INLINE_UNIFORM_BLOCK => {
            let u = read!(opt::InlineUniformBlock);
            c.inline_ubo = flag(u.enable).then_some((u.desc_set, u.binding));
        }
        o::SBT_DESCRIPTOR_SIZE_LOG2 => {
            let w = read!(opt::Words2);
            c.sbt_shift = [w.a, w.b];
        }
        o::SSBO_ALIGNMENT => {
            let a = read!(opt::Word).value;
            if a != 0 && !a.is_power_of_two() {
                return abi::ERROR_INVALID_ARGUMENT;
            }
            c.conventions.ssbo_alignment = a.max(1);
        }
        o::SHADER_SOURCE_FILE => {
            let s = read!(opt::SourceFile);
            r.source_file = if s.name.is_null() {
                None
            } else {
                // SAFETY: a non-null name is a NUL-terminated string.
                Some(
                    unsafe { CStr::from_ptr(s.name) }
                        .to_string_lossy()
                        .into_owned(),
                )
            };
        }
        o::BINDLESS_OFFSET_BUFFER_LAYOUT => {
            let w = read!(opt::Words3);
            c.conventions.offset_layout = (w.a, w.b, w.c);
        }
        o::DESCRIPTOR_QA => {
            let q = read!(opt::DescriptorQa);
            r.descriptor_qa = flag(q.enabled).then_some(Instrumentation {
                version: q.version,
                global: (q.global_desc_set, q.global_binding),
                heap: (q.heap_desc_set, q.heap_binding),
                shader_hash: q.shader_hash,
                kind: None,
            });
        }
        o::SCALAR_BLOCK_LAYOUT => {
            let s = read!(opt::Flags2);
            f.scalar_block_layout = flag(s.a);
            f.per_component_robustness = flag(s.b);
        }
        o::PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING => {
            let w = read!(opt::Words2);
            // Stride 1, offset 0 is the plain address table.
            r.physical_address_descriptor_indexing = ((w.a, w.b) != (1, 0)).then_some((w.a, w.b));
        }
        o::FORCE_SUBGROUP_SIZE => {
            let s = read!(opt::ForceSubgroupSize);
            r.forced_subgroup_size = (s.forced_value, flag(s.wave_size_enable));
        }
        o::DENORM_PRESERVE_SUPPORT => {
            let s = read!(opt::Flags2);
            f.denorm_preserve_f16 = flag(s.a);
            f.denorm_preserve_f64 = flag(s.b);
        }
        o::PRECISE_CONTROL => {
            let s = read!(opt::Flags2);
            r.force_precise = flag(s.a);
            r.propagate_precise = flag(s.b);
        }
        o::SAMPLE_GRAD_OPTIMIZATION_CONTROL => {
            let s = read!(opt::Flags2);
            r.grad_to_bias = flag(s.a).then_some(flag(s.b));
        }
        o::BRANCH_CONTROL => {
            let s = read!(opt::Flags5);
            r.branch_control = BranchControl {
                use_shader_metadata: flag(s.v[0]),
                force_unroll: flag(s.v[1]),
                force_loop: flag(s.v[2]),
                force_flatten: flag(s.v[3]),
                force_branch: flag(s.v[4]),
            };
        }
        o::SUBGROUP_PROPERTIES => {
            let w = read!(opt::Words2);
            f.subgroup_sizes = Some((w.a, w.b));
        }
        o::QUAD_CONTROL_RECONVERGENCE => {
            let s = read!(opt::Flags3);
            c.features.quad_control = flag(s.a);
            c.features.maximal_reconvergence = flag(s.b);
            r.force_maximal_reconvergence = flag(s.c);
        }
        o::DRIVER_VERSION => {
            let w = read!(opt::Words2);
            f.driver = Some((w.a, w.b));
        }
        o::COMPUTE_SHADER_DERIVATIVES => {
            let s = read!(opt::Flags2);
            f.compute_derivatives_nv = flag(s.a);
            f.compute_derivatives_khr = flag(s.b);
        }
        o::INSTRUCTION_INSTRUMENTATION => {
            let q = read!(opt::Instrumentation);
            r.instruction_instrumentation = flag(q.enabled).then_some(Instrumentation {
                version: q.version,
                global: (q.control_desc_set, q.control_binding),
                heap: (q.payload_desc_set, q.payload_binding),
                shader_hash: q.shader_hash,
                kind: Some(q.instrumentation_type),
            });
        }
        o::SHADER_QUIRK => {
            let q = read!(opt::Word).value;
            if q != 0 {
                r.quirks.push(Quirk(q));
            }
        }
        o::EXTENDED_ROBUSTNESS => {
            let s = read!(opt::Flags3);
            r.robust_group_shared = flag(s.a);
            r.robust_alloca = flag(s.b);
            r.robust_constant_lut = flag(s.c);
        }
        o::MAX_TESS_FACTOR => r.max_tess_factor = Some(read!(opt::Word).value),
        o::FLOAT8_SUPPORT => {
            let s = read!(opt::Flags2);
            f.float8_wmma = flag(s.a);
            f.float8_coopmat2_conversions = flag(s.b);
        }
        o::NVAPI => {
            let n = read!(opt::Nvapi);
            r.nvapi = flag(n.enabled).then_some((n.register_index, n.register_space));
        }
        o::VIEW_INSTANCING => {
            let v = read!(opt::ViewInstancing);
            r.view_instancing = flag(v.enabled).then_some(ViewInstancing {
                last_pre_rasterization_stage: flag(v.last_pre_rasterization_stage),
                view_index_to_view_instance_spec_id: v.view_index_to_view_instance_spec_id,
                view_instance_to_viewport_spec_id: v.view_instance_to_viewport_spec_id,
            });
        }
        o::MIXED_FLOAT_DOT_PRODUCT => f.mixed_float_dot_product = flag(read!(opt::Flags5).v[0]),
        _ => return abi::ERROR_UNSUPPORTED_FEATURE,
    }
    abi::SUCCESS
}
