/* Times shader translation through the dxil_spv C API in-process: for each container, RUNS times the whole
 * sequence a D3D12 layer performs (parse, create a converter, set remappers and options, run, fetch the SPIR-V,
 * free), and prints one line per container: "<path>\t<result>\t<median ns>\t<fastest ns>\t<spirv words>".
 * The library is whichever libdxil-spirv-c-shared.so.2 the loader finds (LD_LIBRARY_PATH), so the same binary
 * times dxil-spirv and dxil-rs.
 *
 * Usage: bench_capi [--runs N] [--mode heap|fixed] [--log] LIST   (LIST: one container path per line)
 *   --log: the library's error messages on stderr, each prefixed with its container (to see why a translation
 *          fails, e.g. over the shaders vkd3d-proton dumped for a failing test)
 *   heap:  remappers place every resource in descriptor heaps indexed from root constants (a D3D12 layer's way)
 *   fixed: no remappers (set = space, binding = register) */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dxil_spirv_c.h"
#include "support.h"

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static dxil_spv_bool srv_cb(void *ud, const dxil_spv_d3d_binding *b, dxil_spv_srv_vulkan_binding *vk)
{
	(void)ud;
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
	(void)ud;
	heap_binding(b, 0, 0, vk);
	return DXIL_SPV_TRUE;
}

static dxil_spv_bool uav_cb(void *ud, const dxil_spv_uav_d3d_binding *b, dxil_spv_uav_vulkan_binding *vk)
{
	(void)ud;
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
	(void)ud;
	vk->push_constant = DXIL_SPV_FALSE;
	heap_binding(b, 2, 0, &vk->vulkan.uniform_binding);
	return DXIL_SPV_TRUE;
}

static void add_options(dxil_spv_converter c)
{
	const dxil_spv_option_ssbo_alignment align = { { DXIL_SPV_OPTION_SSBO_ALIGNMENT }, 16 };
	const dxil_spv_option_physical_storage_buffer psb = { { DXIL_SPV_OPTION_PHYSICAL_STORAGE_BUFFER }, DXIL_SPV_TRUE };
	const dxil_spv_option_bindless_typed_buffer_offsets typed = { { DXIL_SPV_OPTION_BINDLESS_TYPED_BUFFER_OFFSETS }, DXIL_SPV_TRUE };
	const dxil_spv_option_bindless_offset_buffer_layout layout = { { DXIL_SPV_OPTION_BINDLESS_OFFSET_BUFFER_LAYOUT }, 0, 1, 2 };
	const dxil_spv_option_shader_demote_to_helper demote = { { DXIL_SPV_OPTION_SHADER_DEMOTE_TO_HELPER }, DXIL_SPV_TRUE };
	const dxil_spv_option_typed_uav_read_without_format read = { { DXIL_SPV_OPTION_TYPED_UAV_READ_WITHOUT_FORMAT }, DXIL_SPV_TRUE };
	const dxil_spv_option_compute_shader_derivatives deriv = { { DXIL_SPV_OPTION_COMPUTE_SHADER_DERIVATIVES }, DXIL_SPV_TRUE, DXIL_SPV_TRUE };
	const dxil_spv_option_barycentric_khr bary = { { DXIL_SPV_OPTION_BARYCENTRIC_KHR }, DXIL_SPV_TRUE };
	const dxil_spv_option_shader_i8_dot dot = { { DXIL_SPV_OPTION_SHADER_I8_DOT }, DXIL_SPV_TRUE };
	const dxil_spv_option_storage_input_output_16bit io16 = { { DXIL_SPV_OPTION_STORAGE_INPUT_OUTPUT_16BIT }, DXIL_SPV_TRUE };
	const dxil_spv_option_base *all[] = { &align.base, &psb.base, &typed.base, &layout.base, &demote.base,
		&read.base, &deriv.base, &bary.base, &dot.base, &io16.base };
	unsigned i;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		dxil_spv_converter_add_option(c, all[i]);
}

/* One full translation; returns the result and the SPIR-V size in words. */
static dxil_spv_result translate_once(const void *data, size_t size, int heap, unsigned *words)
{
	dxil_spv_parsed_blob blob = NULL;
	dxil_spv_converter c = NULL;
	dxil_spv_compiled_spirv spirv;
	dxil_spv_result r = dxil_spv_parse_dxil_blob(data, size, &blob);
	*words = 0;
	if (r != DXIL_SPV_SUCCESS)
		return r;
	r = dxil_spv_create_converter(blob, &c);
	if (r == DXIL_SPV_SUCCESS)
	{
		add_options(c);
		if (heap)
		{
			dxil_spv_converter_set_srv_remapper(c, srv_cb, NULL);
			dxil_spv_converter_set_sampler_remapper(c, sampler_cb, NULL);
			dxil_spv_converter_set_uav_remapper(c, uav_cb, NULL);
			dxil_spv_converter_set_cbv_remapper(c, cbv_cb, NULL);
			dxil_spv_converter_set_root_constant_word_count(c, 8);
			dxil_spv_converter_set_root_descriptor_count(c, 0);
		}
		r = dxil_spv_converter_run(c);
		if (r == DXIL_SPV_SUCCESS && dxil_spv_converter_get_compiled_spirv(c, &spirv) == DXIL_SPV_SUCCESS)
			*words = (unsigned)(spirv.size / 4);
		dxil_spv_converter_free(c);
	}
	dxil_spv_parsed_blob_free(blob);
	return r;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static void quiet(void *ud, dxil_spv_log_level level, const char *msg)
{
	(void)ud;
	(void)level;
	(void)msg;
}

/* --log: errors go to stderr, each after the container it belongs to. */
static const char *current;
static void to_stderr(void *ud, dxil_spv_log_level level, const char *msg)
{
	(void)ud;
	if (level >= DXIL_SPV_LOG_LEVEL_ERROR)
		fprintf(stderr, "%s: %s%s", current, msg, msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
}

int main(int argc, char **argv)
{
	int runs = 5, heap = 1, log = 0, i, k;
	const char *list = NULL;
	char line[4096];
	FILE *f;
	long long *times;

	for (i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			heap = strcmp(argv[++i], "fixed") != 0;
		else if (!strcmp(argv[i], "--log"))
			log = 1;
		else
			list = argv[i];
	}
	if (!list || runs < 1 || !(f = fopen(list, "r")))
	{
		fprintf(stderr, "usage: bench_capi [--runs N] [--mode heap|fixed] [--log] LIST\n");
		return 2;
	}
	times = malloc(sizeof(*times) * (size_t)runs);
	dxil_spv_set_thread_log_callback(log ? to_stderr : quiet, NULL);
	dxil_spv_begin_thread_allocator_context();
	while (fgets(line, sizeof(line), f))
	{
		size_t size = 0, n = strcspn(line, "\r\n");
		void *data;
		unsigned words = 0;
		dxil_spv_result r = DXIL_SPV_ERROR_GENERIC;
		line[n] = '\0';
		if (!n || !(data = read_file(line, &size)))
			continue;
		current = line;
		/* One untimed run warms caches and allocators. */
		translate_once(data, size, heap, &words);
		for (k = 0; k < runs; k++)
		{
			long long t0 = now_ns();
			r = translate_once(data, size, heap, &words);
			times[k] = now_ns() - t0;
			dxil_spv_reset_thread_allocator_context();
		}
		qsort(times, (size_t)runs, sizeof(*times), cmp_ll);
		printf("%s\t%d\t%lld\t%lld\t%u\n", line, (int)r, times[runs / 2], times[0], words);
		fflush(stdout);
		free(data);
	}
	dxil_spv_end_thread_allocator_context();
	fclose(f);
	free(times);
	return 0;
}
