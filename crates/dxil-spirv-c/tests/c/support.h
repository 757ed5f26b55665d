/* What the C test (api_test.c) and the C benchmark (tools/bench-capi/bench_capi.c) share: reading a container and
 * the heap layout their remappers answer with. Header-only (static functions): each program is one translation
 * unit, built by a single compiler call. */
#ifndef DXIL_SPIRV_C_TEST_SUPPORT_H
#define DXIL_SPIRV_C_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include "dxil_spirv_c.h"

/* The whole file, malloc'ed (the caller frees it); NULL when it cannot be read. */
static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *data;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(n > 0 ? (size_t)n : 1);
	if (data && fread(data, 1, (size_t)n, f) != (size_t)n)
	{
		free(data);
		data = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return data;
}

static int is_raw(dxil_spv_resource_kind kind)
{
	return kind == DXIL_SPV_RESOURCE_KIND_RAW_BUFFER || kind == DXIL_SPV_RESOURCE_KIND_STRUCTURED_BUFFER;
}

/* Heap layout: samplers set 0, typed views set 1 binding 2 (binding 0: counter addresses, 1: offset buffer), raw
 * views and CBVs set 2 binding 0. Table word 1 holds every table's start; the slot is the register. A descriptor
 * heap view (space ~0u) is indexed by the shader alone. */
static void heap_binding(const dxil_spv_d3d_binding *b, unsigned set, unsigned binding, dxil_spv_vulkan_binding *vk)
{
	int heap = b->register_space == ~0u;
	vk->set = set;
	vk->binding = binding;
	vk->root_constant_index = heap ? ~0u : 1;
	vk->bindless.use_heap = DXIL_SPV_TRUE;
	vk->bindless.heap_root_offset = heap ? 0 : b->register_index;
	vk->descriptor_type = DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY;
}

#endif
