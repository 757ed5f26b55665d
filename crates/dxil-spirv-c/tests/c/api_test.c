/* Exercises every function of the dxil_spv C API and every option kind.
 *
 * Usage: api_test FILE...
 * Each FILE is a DXIL container. For each, the program translates the first entry point twice: without remappers
 * (set = space, binding = register) and with remappers that place everything in descriptor heaps the way a
 * D3D12 layer does (tables indexed from root constants, root constants, counters through an address table,
 * offset buffer). It prints one line per translation: "<file> <mode> <result> <spirv words>" (words 0 on failure)
 * and how often each remapper was called,
 * then checks the error paths and the calls that need no container, and exits non-zero when a check fails.
 * Run under valgrind by the crate's tests: no leak and no invalid access is allowed on any path. */
#define DXIL_SPV_ENABLE_EXPERIMENTAL_WORKGRAPHS
#define DXIL_SPV_ENABLE_EXPERIMENTAL_MULTIVIEW
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dxil_spirv_c.h"
#include "support.h"

static int failures;

#define CHECK(cond)                                                                     \
	do                                                                                  \
	{                                                                                   \
		if (!(cond))                                                                    \
		{                                                                               \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                                 \
		}                                                                               \
	} while (0)

/* ---- Remappers --------------------------------------------------------------------------------------------- */

struct counts
{
	unsigned srv, sampler, uav, cbv, vertex_input, stream_output, stage_io;
};

static dxil_spv_bool srv_cb(void *ud, const dxil_spv_d3d_binding *b, dxil_spv_srv_vulkan_binding *vk)
{
	((struct counts *)ud)->srv++;
	if (is_raw(b->kind))
	{
		heap_binding(b, 2, 0, &vk->buffer_binding);
		vk->buffer_binding.descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO;
	}
	else
		heap_binding(b, 1, 2, &vk->buffer_binding);
	vk->offset_binding.set = 1;
	vk->offset_binding.binding = 1;
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool sampler_cb(void *ud, const dxil_spv_d3d_binding *b, dxil_spv_vulkan_binding *vk)
{
	((struct counts *)ud)->sampler++;
	heap_binding(b, 0, 0, vk);
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool uav_cb(void *ud, const dxil_spv_uav_d3d_binding *b, dxil_spv_uav_vulkan_binding *vk)
{
	((struct counts *)ud)->uav++;
	if (is_raw(b->d3d_binding.kind))
	{
		heap_binding(&b->d3d_binding, 2, 0, &vk->buffer_binding);
		vk->buffer_binding.descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_SSBO;
	}
	else
		heap_binding(&b->d3d_binding, 1, 2, &vk->buffer_binding);
	if (b->has_counter)
		heap_binding(&b->d3d_binding, 1, 0, &vk->counter_binding);
	vk->offset_binding.set = 1;
	vk->offset_binding.binding = 1;
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool cbv_cb(void *ud, const dxil_spv_d3d_binding *b, dxil_spv_cbv_vulkan_binding *vk)
{
	((struct counts *)ud)->cbv++;
	if (b->register_space == 0 && b->register_index == 0 && b->range_size == 1)
	{
		/* b0 is root constants: words 2.. of the constant words. */
		vk->push_constant = DXIL_SPV_TRUE;
		vk->vulkan.push_constant.offset_in_words = 2;
		return DXIL_SPV_TRUE;
	}
	vk->push_constant = DXIL_SPV_FALSE;
	heap_binding(b, 2, 0, &vk->vulkan.uniform_binding);
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool refuse_srv(void *ud, const dxil_spv_d3d_binding *b, dxil_spv_srv_vulkan_binding *vk)
{
	(void)ud;
	(void)b;
	(void)vk;
	return DXIL_SPV_FALSE;
}

static dxil_spv_bool vertex_input_cb(void *ud, const dxil_spv_d3d_vertex_input *in, dxil_spv_vulkan_vertex_input *out)
{
	((struct counts *)ud)->vertex_input++;
	CHECK(in->semantic != NULL);
	out->location = in->start_row;
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool stream_output_cb(void *ud, const dxil_spv_d3d_stream_output *in, dxil_spv_vulkan_stream_output *out)
{
	((struct counts *)ud)->stream_output++;
	CHECK(in->semantic != NULL);
	out->enable = DXIL_SPV_FALSE;
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool stage_io_cb(void *ud, const dxil_spv_d3d_shader_stage_io *in, dxil_spv_vulkan_shader_stage_io *out)
{
	((struct counts *)ud)->stage_io++;
	CHECK(in->semantic != NULL);
	(void)out; /* keep the proposed location */
	return DXIL_SPV_TRUE;
}

static unsigned log_messages;
static void log_cb(void *ud, dxil_spv_log_level level, const char *msg)
{
	(void)ud;
	CHECK(level <= DXIL_SPV_LOG_LEVEL_ERROR);
	CHECK(msg && strlen(msg) > 0 && msg[strlen(msg) - 1] == '\n');
	log_messages++;
}

/* ---- Options ----------------------------------------------------------------------------------------------- */

/* Adds the options a D3D12 layer on a desktop device adds to every shader; every one is accepted. */
static void add_layer_options(dxil_spv_converter c)
{
	const dxil_spv_option_ssbo_alignment align = { { DXIL_SPV_OPTION_SSBO_ALIGNMENT }, 16 };
	const dxil_spv_option_physical_storage_buffer psb = { { DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER }, DXIL_SPV_TRUE };
	const dxil_spv_option_bindless_typed_buffer_offsets typed = { { DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS }, DXIL_SPV_TRUE };
	const dxil_spv_option_bindless_offset_buffer_layout layout = { { DXIL_SPV_OPTION_BINDLESS_OFFSET_BUFFER_LAYOUT }, 0, 1, 2 };
	const dxil_spv_option_sbt_descriptor_size_log2 sbt = { { DXIL_SPV_OPTION_SBT_DESCRIPTOR_SIZE_LOG2 }, 5, 5 };
	const dxil_spv_option_precise_control precise = { { DXIL_SPV_OPTION_PRECISE_CONTROL }, DXIL_SPV_FALSE, DXIL_SPV_FALSE };
	const dxil_spv_option_shader_source_file file = { { DXIL_SPV_OPTION_SHADER_SOURCE_FILE }, "0123456789abcdef.dxil" };
	const dxil_spv_option_subgroup_properties sub = { { DXIL_SPV_OPTION_SUBGROUP_PROPERTIES }, 8, 8 };
	const dxil_spv_option_shader_demote_to_helper demote = { { DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER }, DXIL_SPV_TRUE };
	const dxil_spv_option_typed_uav_read_without_format read = { { DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT }, DXIL_SPV_TRUE };
	const dxil_spv_option_compute_shader_derivatives deriv = { { DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_denorm_preserve_support denorm = { { DXIL_SPV_OPTION_DENORM_PRESERVE_SUPPORT }, DXIL_SPV_FALSE, DXIL_SPV_FALSE };
	const dxil_spv_option_float8_support f8 = { { DXIL_SPV_OPTION_FLOAT8_SUPPORT }, DXIL_SPV_FALSE, DXIL_SPV_FALSE };
	const dxil_spv_option_scalar_block_layout scalar = { { DXIL_SPV_OPTION_SCALAR_BLOCK_LAYOUT }, DXIL_SPV_TRUE, DXIL_SPV_FALSE };
	const dxil_spv_option_barycentric_khr bary = { { DXIL_SPV_OPTION_BARYCENTRIC_KHR }, DXIL_SPV_TRUE };
	const dxil_spv_option_shader_i8_dot dot = { { DXIL_SPV_OPTION_SHADER_I8_DOT }, DXIL_SPV_TRUE };
	const dxil_spv_option_storage_input_output_16bit io16 = { { DXIL_SPV_OPTION_STORAGE_INPUT_OUTPUT_16BIT }, DXIL_SPV_TRUE };
	const dxil_spv_option_base *all[] = {
		&align.base, &psb.base, &typed.base, &layout.base, &sbt.base, &precise.base, &file.base, &sub.base,
		&demote.base, &read.base, &deriv.base, &denorm.base, &f8.base, &scalar.base, &bary.base, &dot.base,
		&io16.base,
	};
	unsigned i;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		CHECK(dxil_spv_converter_add_option(c, all[i]) == DXIL_SPV_SUCCESS);
}

/* Every option kind, with values that ask for nothing the translator lacks: each is accepted, and a run after all
 * of them still succeeds. */
static void add_every_option_kind(dxil_spv_converter c)
{
	static const unsigned identity_swizzles[2] = { 0xe4, 0xe4 };
	const dxil_spv_option_shader_demote_to_helper o1 = { { DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER }, DXIL_SPV_TRUE };
	const dxil_spv_option_dual_source_blending o2 = { { DXIL_SPV_OPTION_DUAL_SOURCE_BLENDING }, DXIL_SPV_FALSE };
	const dxil_spv_option_output_swizzle o3 = { { DXIL_SPV_OPTION_OUTPUT_SWIZZLE }, identity_swizzles, 2 };
	const dxil_spv_option_rasterizer_sample_count o4 = { { DXIL_SPV_OPTION_RASTERIZER_SAMPLE_COUNT }, 4, DXIL_SPV_FALSE };
	const dxil_spv_option_root_constant_inline_uniform_block o5 = { { DXIL_SPV_OPTION_ROOT_CONSTANT_INLINE_UNIFORM_BLOCK }, 0, 0, DXIL_SPV_FALSE };
	const dxil_spv_option_bindless_cbv_ssbo_emulation o6 = { { DXIL_SPV_OPTION_BINDLESS_CBV_SSBO_EMULATION }, DXIL_SPV_FALSE };
	const dxil_spv_option_physical_storage_buffer o7 = { { DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER }, DXIL_SPV_TRUE };
	const dxil_spv_option_sbt_descriptor_size_log2 o8 = { { DXIL_SPV_OPTION_SBT_DESCRIPTOR_SIZE_LOG2 }, 5, 5 };
	const dxil_spv_option_ssbo_alignment o9 = { { DXIL_SPV_OPTION_SSBO_ALIGNMENT }, 16 };
	const dxil_spv_option_typed_uav_read_without_format o10 = { { DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT }, DXIL_SPV_TRUE };
	const dxil_spv_option_shader_source_file o11 = { { DXIL_SPV_OPTION_SHADER_SOURCE_FILE }, NULL };
	const dxil_spv_option_bindless_typed_buffer_offsets o12 = { { DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS }, DXIL_SPV_TRUE };
	const dxil_spv_option_bindless_offset_buffer_layout o13 = { { DXIL_SPV_OPTION_BINDLESS_OFFSET_BUFFER_LAYOUT }, 0, 1, 2 };
	const dxil_spv_option_storage_input_output_16bit o14 = { { DXIL_SPV_OPTION_STORAGE_INPUT_OUTPUT_16BIT }, DXIL_SPV_TRUE };
	const dxil_spv_option_descriptor_qa o15 = { { DXIL_SPV_OPTION_DESCRIPTOR_QA }, DXIL_SPV_FALSE, 2, 0, 0, 0, 0, 0 };
	const dxil_spv_option_min_precision_native_16bit o16 = { { DXIL_SPV_OPTION_MIN_PRECISION_NATIVE_16BIT }, DXIL_SPV_TRUE };
	const dxil_spv_option_shader_i8_dot o17 = { { DXIL_SPV_OPTION_SHADER_I8_DOT }, DXIL_SPV_TRUE };
	const dxil_spv_option_shader_ray_tracing_primitive_culling o18 = { { DXIL_SPV_OPTION_SHADER_RAY_TRACING_PRIMITIVE_CULLING }, DXIL_SPV_TRUE };
	const dxil_spv_option_invariant_position o19 = { { DXIL_SPV_OPTION_INVARIANT_POSITION }, DXIL_SPV_TRUE };
	const dxil_spv_option_scalar_block_layout o20 = { { DXIL_SPV_OPTION_SCALAR_BLOCK_LAYOUT }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_barycentric_khr o21 = { { DXIL_SPV_OPTION_BARYCENTRIC_KHR }, DXIL_SPV_TRUE };
	const dxil_spv_option_robust_physical_cbv_load o22 = { { DXIL_SPV_OPTION_ROBUST_PHYSICAL_CBV_LOAD }, DXIL_SPV_FALSE };
	const dxil_spv_option_arithmetic_relaxed_precision o23 = { { DXIL_SPV_OPTION_ARITHMETIC_RELAXED_PRECISION }, DXIL_SPV_TRUE };
	const dxil_spv_option_physical_address_descriptor_indexing o24 = { { DXIL_SPV_OPTION_PHYSICAL_ADDRESS_DESCRIPTOR_INDEXING }, 1, 0 };
	const dxil_spv_option_force_subgroup_size o25 = { { DXIL_SPV_OPTION_FORCE_SUBGROUP_SIZE }, 0, DXIL_SPV_FALSE };
	const dxil_spv_option_denorm_preserve_support o26 = { { DXIL_SPV_OPTION_DENORM_PRESERVE_SUPPORT }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_strict_helper_lane_wave_ops o27 = { { DXIL_SPV_OPTION_STRICT_HELPER_LANE_WAVE_OPS }, DXIL_SPV_TRUE };
	const dxil_spv_option_subgroup_partitioned_nv o28 = { { DXIL_SPV_OPTION_SUBGROUP_PARTITIONED_NV }, DXIL_SPV_FALSE };
	const dxil_spv_option_dead_code_eliminate o29 = { { DXIL_SPV_OPTION_DEAD_CODE_ELIMINATE }, DXIL_SPV_TRUE };
	const dxil_spv_option_precise_control o30 = { { DXIL_SPV_OPTION_PRECISE_CONTROL }, DXIL_SPV_FALSE, DXIL_SPV_TRUE };
	const dxil_spv_option_sample_grad_optimization_control o31 = { { DXIL_SPV_OPTION_SAMPLE_GRAD_OPTIMIZATION_CONTROL }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_opacity_micromap o32 = { { DXIL_SPV_OPTION_OPACITY_MICROMAP }, DXIL_SPV_FALSE };
	const dxil_spv_option_branch_control o33 = { { DXIL_SPV_OPTION_BRANCH_CONTROL }, DXIL_SPV_TRUE, DXIL_SPV_FALSE, DXIL_SPV_FALSE, DXIL_SPV_FALSE, DXIL_SPV_FALSE };
	const dxil_spv_option_subgroup_properties o34 = { { DXIL_SPV_OPTION_SUBGROUP_PROPERTIES }, 4, 128 };
	const dxil_spv_option_descriptor_heap_robustness o35 = { { DXIL_SPV_OPTION_DESCRIPTOR_HEAP_ROBUSTNESS }, DXIL_SPV_FALSE };
	const dxil_spv_option_compute_shader_derivatives_nv o36 = { { DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_NV }, DXIL_SPV_TRUE };
	const dxil_spv_option_quad_control_reconvergence o37 = { { DXIL_SPV_OPTION_QUAD_CONTROL_RECONVERGENCE }, DXIL_SPV_TRUE, DXIL_SPV_TRUE, DXIL_SPV_FALSE };
	const dxil_spv_option_raw_access_chains_nv o38 = { { DXIL_SPV_OPTION_RAW_ACCESS_CHAINS_NV }, DXIL_SPV_FALSE };
	const dxil_spv_option_driver_version o39 = { { DXIL_SPV_OPTION_DRIVER_VERSION }, 13, 0x6400000 };
	const dxil_spv_option_compute_shader_derivatives o40 = { { DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_instruction_instrumentation o41 = { { DXIL_SPV_OPTION_INSTRUCTION_INSTRUMENTATION }, DXIL_SPV_FALSE, 2, 0, 0, 0, 0, 0, DXIL_SPV_INSTRUCTION_INSTRUMENTATION_TYPE_FULL_NAN_INF };
	const dxil_spv_option_shader_quirk o42 = { { DXIL_SPV_OPTION_SHADER_QUIRK }, DXIL_SPV_SHADER_QUIRK_NONE };
	const dxil_spv_option_extended_robustness o43 = { { DXIL_SPV_OPTION_EXTENDED_ROBUSTNESS }, DXIL_SPV_TRUE, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_max_tess_factor o44 = { { DXIL_SPV_OPTION_MAX_TESS_FACTOR }, 16 };
	const dxil_spv_option_vulkan_memory_model o45 = { { DXIL_SPV_OPTION_VULKAN_MEMORY_MODEL }, DXIL_SPV_FALSE };
	const dxil_spv_option_float8_support o46 = { { DXIL_SPV_OPTION_FLOAT8_SUPPORT }, DXIL_SPV_FALSE, DXIL_SPV_FALSE };
	const dxil_spv_option_nvapi o47 = { { DXIL_SPV_OPTION_NVAPI }, DXIL_SPV_FALSE, 0, 0 };
	const dxil_spv_option_extended_non_semantic o48 = { { DXIL_SPV_OPTION_EXTENDED_NON_SEMANTIC }, DXIL_SPV_TRUE };
	const dxil_spv_option_view_instancing o49 = { { DXIL_SPV_OPTION_VIEW_INSTANCING }, DXIL_SPV_FALSE, DXIL_SPV_FALSE, ~0u, ~0u };
	const dxil_spv_option_mixed_float_dot_product o50 = { { DXIL_SPV_OPTION_MIXED_FLOAT_DOT_PRODUCT }, DXIL_SPV_TRUE, { 0 } };
	const dxil_spv_option_compute_shader_derivatives_quad o51 = { { DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES_QUAD }, DXIL_SPV_TRUE };
	const dxil_spv_option_base *all[] = {
		&o1.base, &o2.base, &o3.base, &o4.base, &o5.base, &o6.base, &o7.base, &o8.base, &o9.base, &o10.base,
		&o11.base, &o12.base, &o13.base, &o14.base, &o15.base, &o16.base, &o17.base, &o18.base, &o19.base,
		&o20.base, &o21.base, &o22.base, &o23.base, &o24.base, &o25.base, &o26.base, &o27.base, &o28.base,
		&o29.base, &o30.base, &o31.base, &o32.base, &o33.base, &o34.base, &o35.base, &o36.base, &o37.base,
		&o38.base, &o39.base, &o40.base, &o41.base, &o42.base, &o43.base, &o44.base, &o45.base, &o46.base,
		&o47.base, &o48.base, &o49.base, &o50.base, &o51.base,
	};
	unsigned i;
	CHECK(sizeof(all) / sizeof(all[0]) == 51);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
	{
		CHECK(all[i]->type == (dxil_spv_option)(i + 1));
		CHECK(dxil_spv_converter_supports_option(all[i]->type));
		CHECK(dxil_spv_converter_add_option(c, all[i]) == DXIL_SPV_SUCCESS);
	}
}

/* Options whose request the translator cannot honour: each is accepted, and then fails the run. */
static void check_refused_options(dxil_spv_parsed_blob blob)
{
	const dxil_spv_option_shader_quirk quirk = { { DXIL_SPV_OPTION_SHADER_QUIRK }, DXIL_SPV_SHADER_QUIRK_PRECISE_FMA };
	const dxil_spv_option_descriptor_qa qa = { { DXIL_SPV_OPTION_DESCRIPTOR_QA }, DXIL_SPV_TRUE, 2, 10, 0, 10, 1, 0x1234 };
	const dxil_spv_option_precise_control precise = { { DXIL_SPV_OPTION_PRECISE_CONTROL }, DXIL_SPV_TRUE, DXIL_SPV_FALSE };
	const dxil_spv_option_nvapi nvapi = { { DXIL_SPV_OPTION_NVAPI }, DXIL_SPV_TRUE, 0, 99 };
	const dxil_spv_option_view_instancing view = { { DXIL_SPV_OPTION_VIEW_INSTANCING }, DXIL_SPV_TRUE, DXIL_SPV_TRUE, ~0u, ~0u };
	const dxil_spv_option_force_subgroup_size force = { { DXIL_SPV_OPTION_FORCE_SUBGROUP_SIZE }, 1, DXIL_SPV_FALSE };
	const dxil_spv_option_base *refused[] = { &quirk.base, &qa.base, &precise.base, &nvapi.base,
		&view.base, &force.base };
	unsigned i;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		dxil_spv_converter c = NULL;
		dxil_spv_compiled_spirv spirv;
		unsigned before = log_messages;
		CHECK(dxil_spv_create_converter(blob, &c) == DXIL_SPV_SUCCESS);
		CHECK(dxil_spv_converter_add_option(c, refused[i]) == DXIL_SPV_SUCCESS);
		CHECK(dxil_spv_converter_run(c) == DXIL_SPV_ERROR_UNSUPPORTED_FEATURE);
		CHECK(log_messages > before);
		CHECK(dxil_spv_converter_get_compiled_spirv(c, &spirv) == DXIL_SPV_ERROR_GENERIC);
		dxil_spv_converter_free(c);
	}
}

/* ---- One container ----------------------------------------------------------------------------------------- */

static void inspect_blob(dxil_spv_parsed_blob blob)
{
	unsigned count = 0, index = ~0u, outputs = 7;
	const char *name = NULL, *demangled = NULL;
	const void *ir = NULL;
	size_t ir_size = 0;
	dxil_spv_node_input_data node;
	dxil_spv_node_output_data node_out;
	dxil_spv_rdat_subobject sub;
	dxil_spv_shader_stage stage = dxil_spv_parsed_blob_get_shader_stage(blob);

	CHECK(stage != DXIL_SPV_STAGE_UNKNOWN);
	CHECK(dxil_spv_parsed_blob_get_num_entry_points(blob, &count) == DXIL_SPV_SUCCESS);
	CHECK(count >= 1);
	CHECK(dxil_spv_parsed_blob_get_entry_point_name(blob, 0, &name) == DXIL_SPV_SUCCESS && name);
	CHECK(dxil_spv_parsed_blob_get_entry_point_demangled_name(blob, 0, &demangled) == DXIL_SPV_SUCCESS && demangled);
	CHECK(dxil_spv_parsed_blob_get_entry_point_name(blob, count, &name) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	CHECK(dxil_spv_parsed_blob_get_entry_index_by_name(blob, demangled, &index) == DXIL_SPV_SUCCESS && index == 0);
	CHECK(dxil_spv_parsed_blob_get_entry_index_by_name(blob, "no such entry", &index) == DXIL_SPV_ERROR_GENERIC);
	CHECK(dxil_spv_parsed_blob_get_shader_stage_for_entry(blob, demangled) == stage);
	CHECK(dxil_spv_parsed_blob_get_shader_stage_for_entry(blob, "no such entry") == DXIL_SPV_STAGE_UNKNOWN);
	CHECK(dxil_spv_parsed_blob_get_raw_ir(blob, &ir, &ir_size) == DXIL_SPV_SUCCESS && ir && ir_size > 0);
	CHECK(dxil_spv_parsed_blob_get_entry_point_node_input(blob, 0, &node) == DXIL_SPV_SUCCESS);
	CHECK(node.node_id && node.node_id[0] == '\0' && node.payload_stride == 0);
	CHECK(dxil_spv_parsed_blob_get_entry_point_num_node_outputs(blob, 0, &outputs) == DXIL_SPV_SUCCESS && outputs == 0);
	CHECK(dxil_spv_parsed_blob_get_entry_point_node_output(blob, 0, 0, &node_out) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	memset(&sub, 0xff, sizeof(sub));
	dxil_spv_parsed_blob_get_rdat_subobject(blob, dxil_spv_parsed_blob_get_num_rdat_subobjects(blob), &sub);
	CHECK(sub.num_exports == 0 && sub.payload == NULL && sub.subobject_name == NULL);
}

/* One line per library: "<file> rdat <count> <kind>:<name>:<exports>:<payload bytes>:<args>..." */
static void print_subobjects(const char *path, dxil_spv_parsed_blob blob)
{
	unsigned n = dxil_spv_parsed_blob_get_num_rdat_subobjects(blob), i, k;
	if (!n)
		return;
	printf("%s rdat %u", path, n);
	for (i = 0; i < n; i++)
	{
		dxil_spv_rdat_subobject sub;
		dxil_spv_parsed_blob_get_rdat_subobject(blob, i, &sub);
		CHECK(sub.subobject_name != NULL);
		printf(" %d:%s:", (int)sub.kind, sub.subobject_name ? sub.subobject_name : "?");
		for (k = 0; k < sub.num_exports; k++)
			printf("%s%s", k ? "," : "", sub.exports[k]);
		printf(":%zu:%u,%u", sub.payload_size, sub.args[0], sub.args[1]);
	}
	printf("\n");
}

static int translate(const char *path, dxil_spv_parsed_blob blob, int heap)
{
	dxil_spv_converter c = NULL;
	dxil_spv_compiled_spirv spirv = { NULL, 0 };
	struct counts n;
	dxil_spv_result r;
	const char *entry = NULL;
	unsigned x = 0, y = 0, z = 0, w0, w1, w2;

	memset(&n, 0, sizeof(n));
	CHECK(dxil_spv_create_converter(blob, &c) == DXIL_SPV_SUCCESS);
	add_layer_options(c);
	if (heap)
	{
		dxil_spv_converter_set_srv_remapper(c, srv_cb, &n);
		dxil_spv_converter_set_sampler_remapper(c, sampler_cb, &n);
		dxil_spv_converter_set_uav_remapper(c, uav_cb, &n);
		dxil_spv_converter_set_cbv_remapper(c, cbv_cb, &n);
		dxil_spv_converter_set_root_constant_word_count(c, 8);
		dxil_spv_converter_set_root_descriptor_count(c, 1);
	}
	dxil_spv_converter_set_vertex_input_remapper(c, vertex_input_cb, &n);
	dxil_spv_converter_set_stream_output_remapper(c, stream_output_cb, &n);
	r = dxil_spv_converter_run(c);
	if (r == DXIL_SPV_SUCCESS)
	{
		CHECK(dxil_spv_converter_get_compiled_spirv(c, &spirv) == DXIL_SPV_SUCCESS);
		CHECK(spirv.size >= 20 && spirv.size % 4 == 0 && *(const unsigned *)spirv.data == 0x07230203u);
		CHECK(dxil_spv_converter_get_compiled_entry_point(c, &entry) == DXIL_SPV_SUCCESS && entry && entry[0]);
		CHECK(dxil_spv_converter_get_compute_workgroup_dimensions(c, &x, &y, &z) == DXIL_SPV_SUCCESS);
		CHECK(dxil_spv_converter_get_compute_wave_size_range(c, &w0, &w1, &w2) == DXIL_SPV_SUCCESS);
		if (dxil_spv_parsed_blob_get_shader_stage(blob) == DXIL_SPV_STAGE_COMPUTE)
			CHECK(x >= 1 && y >= 1 && z >= 1);
	}
	else
		CHECK(dxil_spv_converter_get_compiled_spirv(c, &spirv) == DXIL_SPV_ERROR_GENERIC);
	printf("%s %s %d %u srv=%u sampler=%u uav=%u cbv=%u vertex-input=%u stream-output=%u", path,
	       heap ? "heap" : "fixed", (int)r, (unsigned)(spirv.size / 4), n.srv, n.sampler, n.uav, n.cbv,
	       n.vertex_input, n.stream_output);
	/* Tessellation stages: the input control points and the patch constants' first location. */
	if (dxil_spv_parsed_blob_get_shader_stage(blob) == DXIL_SPV_STAGE_HULL ||
	    dxil_spv_parsed_blob_get_shader_stage(blob) == DXIL_SPV_STAGE_DOMAIN)
	{
		unsigned patch_vertices = 99, patch_offset = 99;
		CHECK(dxil_spv_converter_get_patch_vertex_count(c, &patch_vertices) == DXIL_SPV_SUCCESS);
		CHECK(dxil_spv_converter_get_patch_location_offset(c, &patch_offset) == DXIL_SPV_SUCCESS);
		printf(" patch-vertices=%u patch-location=%u", patch_vertices, patch_offset);
	}
	printf("\n");
	dxil_spv_converter_free(c);
	return r == DXIL_SPV_SUCCESS;
}

/* Libraries: every export by its demangled name, under the heap remappers and a local root signature laid out as a
 * D3D12 layer passes one (constants b5, root UAVs u1 and u2, a table holding u3; handles step by 32 bytes). Prints
 * one line per export: its name, the compiled entry point (the DXIL name), the result and the SPIR-V words. */
static void library_exports(const char *path, dxil_spv_parsed_blob blob)
{
	const dxil_spv_option_sbt_descriptor_size_log2 sbt = { { DXIL_SPV_OPTION_SBT_DESCRIPTOR_SIZE_LOG2 }, 5, 5 };
	unsigned i, count = 0;
	CHECK(dxil_spv_parsed_blob_get_num_entry_points(blob, &count) == DXIL_SPV_SUCCESS);
	for (i = 0; i < count; i++)
	{
		dxil_spv_converter c = NULL;
		dxil_spv_compiled_spirv spirv = { NULL, 0 };
		const char *name = NULL, *compiled = "-";
		struct counts n;
		dxil_spv_result r;

		memset(&n, 0, sizeof(n));
		CHECK(dxil_spv_parsed_blob_get_entry_point_demangled_name(blob, i, &name) == DXIL_SPV_SUCCESS);
		CHECK(dxil_spv_create_converter(blob, &c) == DXIL_SPV_SUCCESS);
		add_layer_options(c);
		CHECK(dxil_spv_converter_add_option(c, &sbt.base) == DXIL_SPV_SUCCESS);
		dxil_spv_converter_set_srv_remapper(c, srv_cb, &n);
		dxil_spv_converter_set_sampler_remapper(c, sampler_cb, &n);
		dxil_spv_converter_set_uav_remapper(c, uav_cb, &n);
		dxil_spv_converter_set_cbv_remapper(c, cbv_cb, &n);
		dxil_spv_converter_set_root_constant_word_count(c, 8);
		dxil_spv_converter_set_root_descriptor_count(c, 1);
		dxil_spv_converter_add_local_root_constants(c, 0, 5, 4);
		dxil_spv_converter_add_local_root_descriptor(c, DXIL_SPV_RESOURCE_CLASS_UAV, 0, 1);
		dxil_spv_converter_add_local_root_descriptor(c, DXIL_SPV_RESOURCE_CLASS_UAV, 0, 2);
		CHECK(dxil_spv_converter_begin_local_root_descriptor_table(c) == DXIL_SPV_SUCCESS);
		dxil_spv_converter_add_local_root_descriptor_table(c, DXIL_SPV_RESOURCE_CLASS_UAV, 0, 3, 1, 0);
		CHECK(dxil_spv_converter_end_local_root_descriptor_table(c) == DXIL_SPV_SUCCESS);
		dxil_spv_converter_set_entry_point(c, name);
		r = dxil_spv_converter_run(c);
		if (r == DXIL_SPV_SUCCESS)
		{
			CHECK(dxil_spv_converter_get_compiled_spirv(c, &spirv) == DXIL_SPV_SUCCESS);
			CHECK(dxil_spv_converter_get_compiled_entry_point(c, &compiled) == DXIL_SPV_SUCCESS);
		}
		printf("%s export=%s %s %d %u srv=%u uav=%u cbv=%u\n", path, name, compiled, (int)r,
		       (unsigned)(spirv.size / 4), n.srv, n.uav, n.cbv);
		dxil_spv_converter_free(c);
	}
}

/* Reflection and the remaining converter calls on one translation. */
static void reflection_calls(dxil_spv_parsed_blob blob)
{
	dxil_spv_converter c = NULL;
	dxil_spv_bool multiview = DXIL_SPV_FALSE;
	unsigned v = 12345, a = 1, b = 1, d = 1;
	const char *demangled = NULL;
	static const unsigned char debug_blob[4] = { 1, 2, 3, 4 };

	CHECK(dxil_spv_create_converter_with_reflection(blob, NULL, &c) == DXIL_SPV_SUCCESS);
	/* Before a run: zeros, and no SPIR-V. */
	CHECK(dxil_spv_converter_get_compute_workgroup_dimensions(c, &a, &b, &d) == DXIL_SPV_SUCCESS && a == 0);
	CHECK(dxil_spv_converter_get_compiled_entry_point(c, &demangled) == DXIL_SPV_ERROR_GENERIC);
	CHECK(dxil_spv_parsed_blob_get_entry_point_demangled_name(blob, 0, &demangled) == DXIL_SPV_SUCCESS);
	dxil_spv_converter_set_entry_point(c, demangled);
	dxil_spv_converter_set_entry_point(c, NULL);
	dxil_spv_converter_set_entry_point(c, demangled);
	dxil_spv_converter_set_stage_input_remapper(c, stage_io_cb, NULL);
	dxil_spv_converter_set_stage_output_remapper(c, stage_io_cb, NULL);
	dxil_spv_converter_set_stage_input_remapper(c, NULL, NULL);
	dxil_spv_converter_set_stage_output_remapper(c, NULL, NULL);
	dxil_spv_converter_add_root_parameter_mapping(c, 0, 16);
	dxil_spv_converter_add_root_descriptor_mapping(c, 1, 2, 3);
	dxil_spv_converter_add_non_semantic_debug_info(c, "RootSignature", debug_blob, sizeof(debug_blob));
	dxil_spv_converter_set_patch_location_offset(c, 3);
	CHECK(dxil_spv_converter_set_meta_descriptor(c, DXIL_SPV_META_DESCRIPTOR_RESOURCE_DESCRIPTOR_HEAP_SIZE,
	                                             DXIL_SPV_META_DESCRIPTOR_KIND_PUSH_CONSTANT, 0, 4) == DXIL_SPV_SUCCESS);
	CHECK(dxil_spv_converter_set_meta_descriptor(c, DXIL_SPV_META_DESCRIPTOR_INT_MAX,
	                                             DXIL_SPV_META_DESCRIPTOR_KIND_PUSH_CONSTANT, 0, 4) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	add_every_option_kind(c);
	CHECK(dxil_spv_converter_run(c) == DXIL_SPV_SUCCESS);
	/* Hints recorded but not acted on are reported. */
	CHECK(dxil_spv_converter_get_analysis_warnings(c) != NULL);
	CHECK(dxil_spv_converter_uses_subgroup_size(c) == DXIL_SPV_FALSE || dxil_spv_converter_uses_subgroup_size(c) == DXIL_SPV_TRUE);
	CHECK(dxil_spv_converter_uses_shader_feature(c, DXIL_SPV_SHADER_FEATURE_NATIVE_16BIT_OPERATIONS) <= 1);
	CHECK(dxil_spv_converter_uses_shader_feature(c, (dxil_spv_shader_feature)7) == DXIL_SPV_FALSE);
	CHECK(dxil_spv_converter_get_compute_required_wave_size(c, &v) == DXIL_SPV_SUCCESS || v == 12345);
	CHECK(dxil_spv_converter_get_compute_heuristic_max_wave_size(c, &v) == DXIL_SPV_SUCCESS && v == 0);
	CHECK(dxil_spv_converter_get_compute_heuristic_min_wave_size(c, &v) == DXIL_SPV_SUCCESS && v == 0);
	CHECK(dxil_spv_converter_get_patch_vertex_count(c, &v) == DXIL_SPV_SUCCESS && v == 0);
	CHECK(dxil_spv_converter_get_patch_location_offset(c, &v) == DXIL_SPV_SUCCESS && v == 3);
	CHECK(dxil_spv_converter_is_multiview_compatible(c, &multiview) == DXIL_SPV_SUCCESS && multiview == DXIL_SPV_TRUE);
	/* A second run replaces the first. */
	CHECK(dxil_spv_converter_run(c) == DXIL_SPV_SUCCESS);
	dxil_spv_converter_free(c);

	/* Local root signatures are recorded in parameter order; stages other than ray tracing ignore them. */
	CHECK(dxil_spv_create_converter(blob, &c) == DXIL_SPV_SUCCESS);
	dxil_spv_converter_add_local_root_constants(c, 0, 1, 4);
	dxil_spv_converter_add_local_root_descriptor(c, DXIL_SPV_RESOURCE_CLASS_SRV, 0, 2);
	dxil_spv_converter_add_local_root_descriptor(c, DXIL_SPV_RESOURCE_CLASS_INT_MAX, 0, 2);
	dxil_spv_converter_add_local_root_descriptor_table(c, DXIL_SPV_RESOURCE_CLASS_UAV, 0, 3, 1, 0);
	CHECK(dxil_spv_converter_end_local_root_descriptor_table(c) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	CHECK(dxil_spv_converter_begin_local_root_descriptor_table(c) == DXIL_SPV_SUCCESS);
	CHECK(dxil_spv_converter_begin_local_root_descriptor_table(c) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	/* An open table fails the run. */
	CHECK(dxil_spv_converter_run(c) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	dxil_spv_converter_add_local_root_descriptor_table(c, DXIL_SPV_RESOURCE_CLASS_SRV, 0, 4, 2, 0);
	dxil_spv_converter_add_local_root_descriptor_table(c, DXIL_SPV_RESOURCE_CLASS_SAMPLER, 0, 0, 1, 8);
	CHECK(dxil_spv_converter_end_local_root_descriptor_table(c) == DXIL_SPV_SUCCESS);
	CHECK(dxil_spv_converter_run(c) == DXIL_SPV_SUCCESS);
	dxil_spv_converter_free(c);

	/* A refusing remapper fails the run with an invalid argument, when the shader has an SRV. */
	CHECK(dxil_spv_create_converter(blob, &c) == DXIL_SPV_SUCCESS);
	dxil_spv_converter_set_srv_remapper(c, refuse_srv, NULL);
	{
		dxil_spv_result r = dxil_spv_converter_run(c);
		CHECK(r == DXIL_SPV_SUCCESS || r == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	}
	dxil_spv_converter_free(c);
}

static void scan(dxil_spv_parsed_blob blob)
{
	struct counts n;
	memset(&n, 0, sizeof(n));
	CHECK(dxil_spv_parsed_blob_scan_resources(blob, srv_cb, sampler_cb, cbv_cb, uav_cb, &n) == DXIL_SPV_SUCCESS);
	CHECK(dxil_spv_parsed_blob_scan_resources(blob, NULL, NULL, NULL, NULL, &n) == DXIL_SPV_SUCCESS);
}

/* ---- Calls without a container ----------------------------------------------------------------------------- */

static void no_container_calls(void)
{
	static const unsigned char garbage[64] = { 'D', 'X', 'B', 'C', 1, 2, 3 };
	unsigned major = 0, minor = 0, patch = 9, k;
	dxil_spv_parsed_blob blob = NULL;
	dxil_spv_converter c = NULL;
	unsigned before = log_messages;

	dxil_spv_get_version(&major, &minor, &patch);
	CHECK(major == DXIL_SPV_API_VERSION_MAJOR && minor == DXIL_SPV_API_VERSION_MINOR && patch == DXIL_SPV_API_VERSION_PATCH);
	CHECK(dxil_spv_parse_dxil_blob(garbage, sizeof(garbage), &blob) == DXIL_SPV_ERROR_PARSER && blob == NULL);
	CHECK(log_messages > before);
	CHECK(dxil_spv_parse_dxil_blob(garbage, sizeof(garbage), NULL) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	CHECK(dxil_spv_parse_dxil_blob(NULL, 4, &blob) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	CHECK(dxil_spv_parse_reflection_dxil_blob(garbage, sizeof(garbage), &blob) == DXIL_SPV_ERROR_PARSER);
	CHECK(dxil_spv_parse_dxil(garbage, sizeof(garbage), &blob) == DXIL_SPV_ERROR_PARSER && blob == NULL);
	CHECK(dxil_spv_create_converter(NULL, &c) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	CHECK(dxil_spv_parsed_blob_get_shader_stage(NULL) == DXIL_SPV_STAGE_UNKNOWN);
	CHECK(dxil_spv_converter_run(NULL) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	CHECK(dxil_spv_converter_add_option(NULL, NULL) == DXIL_SPV_ERROR_INVALID_ARGUMENT);
	dxil_spv_converter_free(NULL);
	dxil_spv_parsed_blob_free(NULL);
	for (k = 0; k < 60; k++)
		CHECK(dxil_spv_converter_supports_option((dxil_spv_option)k) == (k >= 1 && k <= 51));
	CHECK(dxil_spv_converter_supports_option(DXIL_SPV_OPTION_INT_MAX) == DXIL_SPV_FALSE);
	dxil_spv_begin_thread_allocator_context();
	dxil_spv_reset_thread_allocator_context();
	dxil_spv_end_thread_allocator_context();
}

int main(int argc, char **argv)
{
	int i;
	dxil_spv_set_thread_log_callback(log_cb, NULL);
	no_container_calls();
	for (i = 1; i < argc; i++)
	{
		size_t size = 0;
		void *data = read_file(argv[i], &size);
		dxil_spv_parsed_blob blob = NULL, reflection = NULL;
		const void *ir = NULL;
		size_t ir_size = 0;
		dxil_spv_result r;
		CHECK(data != NULL);
		if (!data)
			continue;
		r = dxil_spv_parse_dxil_blob(data, size, &blob);
		if (r != DXIL_SPV_SUCCESS)
		{
			printf("%s parse %d 0\n", argv[i], (int)r);
			free(data);
			continue;
		}
		/* The reflection copy, when present, parses like the program. */
		r = dxil_spv_parse_reflection_dxil_blob(data, size, &reflection);
		CHECK(r == DXIL_SPV_SUCCESS || r == DXIL_SPV_ERROR_NO_DATA);
		dxil_spv_parsed_blob_free(reflection);
		inspect_blob(blob);
		scan(blob);
		print_subobjects(argv[i], blob);
		translate(argv[i], blob, 0);
		if (strstr(argv[i], ".lib_"))
			library_exports(argv[i], blob);
		if (translate(argv[i], blob, 1) && i == 1)
		{
			const char *text = NULL;
			dxil_spv_parsed_blob raw = NULL;
			reflection_calls(blob);
			check_refused_options(blob);
			CHECK(dxil_spv_parsed_blob_get_disassembled_ir(blob, &text) == DXIL_SPV_SUCCESS && text && strstr(text, "define"));
			/* Bare bitcode parses too. */
			CHECK(dxil_spv_parsed_blob_get_raw_ir(blob, &ir, &ir_size) == DXIL_SPV_SUCCESS);
			CHECK(dxil_spv_parse_dxil(ir, ir_size, &raw) == DXIL_SPV_SUCCESS);
			dxil_spv_parsed_blob_dump_llvm_ir(raw);
			dxil_spv_parsed_blob_free(raw);
		}
		dxil_spv_parsed_blob_free(blob);
		free(data);
	}
	dxil_spv_set_thread_log_callback(NULL, NULL);
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
