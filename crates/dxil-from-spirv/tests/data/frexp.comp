#version 450
// frexp of doubles (zeros, denormals and normals), halves (with 16-bit exponents) and floats.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require

layout(local_size_x = 64) in;

// Words 0..127: two random inputs per lane; then one block of 64 words for each result.
layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

void put(uint k, uint i, uint r) {
    data.v[128u + 64u * k + i] = r;
}

// Keeps an exponent field out of the infinities and NaNs (frexp is undefined there).
uint finite(uint bits, uint shift, uint top) {
    uint field = (bits >> shift) & top;
    return (bits & ~(top << shift)) | (min(field, top - 1u) << shift);
}

void main() {
    uint i = gl_LocalInvocationIndex;
    uint lo = data.v[i];
    uint hi = finite(data.v[i + 64u], 20u, 0x7ffu);
    if (i % 8u == 0u) {
        hi &= 0x80000000u;
        lo = 0u;
    } else if (i % 8u == 1u) {
        hi &= 0x800fffffu;
    }
    int e;
    double m = frexp(packDouble2x32(uvec2(lo, hi)), e);
    uvec2 mb = unpackDouble2x32(m);
    put(0u, i, mb.x);
    put(1u, i, mb.y);
    put(2u, i, uint(e));

    uint hb = finite(lo & 0xffffu, 10u, 0x1fu);
    i16vec2 he;
    f16vec2 hm = frexp(f16vec2(uint16BitsToFloat16(uint16_t(hb)), float16_t(-6.5)), he);
    put(3u, i, uint(float16BitsToUint16(hm.x)) | (uint(float16BitsToUint16(hm.y)) << 16));
    put(4u, i, uint(int(he.x)) & 0xffffu | (uint(int(he.y)) << 16));

    // Floats stay normal: DXIL flushes float denormals.
    uint fb = finite(data.v[i + 64u], 23u, 0xffu);
    if ((fb & 0x7f800000u) == 0u) {
        fb |= 0x00800000u;
    }
    int fe;
    float fm = frexp(uintBitsToFloat(fb), fe);
    put(5u, i, floatBitsToUint(fm));
    put(6u, i, uint(fe));
}
