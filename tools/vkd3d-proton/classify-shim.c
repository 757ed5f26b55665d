/* Preloaded into vkd3d-proton's d3d12 test binary (LD_PRELOAD) to record, for each shader container the
 * shader compiler is asked to parse, whether it holds DXIL or only DXBC (shader model 4/5) bytecode: one line,
 * "dxil" or "dxbc", appended to the file named by $CLASSIFY_LOG. The call then goes on to the real library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*parse_fn)(const void *data, size_t size, void **blob);

static uint32_t read_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Whether a DXBC container has a DXIL part (header: magic, digest, version, size, part count, offsets). */
static int has_dxil_part(const unsigned char *data, size_t size)
{
    uint32_t count, i;
    if (size < 32 || memcmp(data, "DXBC", 4) != 0)
        return 0;
    count = read_u32(data + 28);
    for (i = 0; i < count && 32 + 4 * (size_t)i + 4 <= size; i++)
    {
        uint32_t offset = read_u32(data + 32 + 4 * i);
        if ((size_t)offset + 4 <= size && memcmp(data + offset, "DXIL", 4) == 0)
            return 1;
    }
    return 0;
}

int dxil_spv_parse_dxil_blob(const void *data, size_t size, void **blob)
{
    static parse_fn real;
    const char *path = getenv("CLASSIFY_LOG");
    if (!real)
        real = (parse_fn)dlsym(RTLD_NEXT, "dxil_spv_parse_dxil_blob");
    if (path && data)
    {
        FILE *f = fopen(path, "a");
        if (f)
        {
            fputs(has_dxil_part(data, size) ? "dxil\n" : "dxbc\n", f);
            fclose(f);
        }
    }
    return real ? real(data, size, blob) : -2;
}
