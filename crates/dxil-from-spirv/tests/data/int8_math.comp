#version 450
// 8-bit integer arithmetic in registers: wrap-around, signed and unsigned division, shifts,
// comparisons, conversions to and from 16-bit, 32-bit and float, and bitcasts to words.
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require

layout(local_size_x = 64) in;

// Words 0..191: three inputs per lane; then one block of 64 words for each result.
layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

void put(uint k, uint i, uint r) {
    data.v[192u + 64u * k + i] = r;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    u8vec4 a = unpack8(data.v[i]);
    i8vec4 b = unpack8(int(data.v[i + 64u]));
    // Positive divisors: -128 / -1 does not fit a byte.
    i8vec4 c = (unpack8(int(data.v[i + 128u])) & i8vec4(63)) | i8vec4(1);
    put(0u, i, pack32(a + u8vec4(b)));
    put(1u, i, pack32(a * u8vec4(200)));
    put(2u, i, uint(pack32(b / c)));
    put(3u, i, uint(pack32(b % c)));
    put(4u, i, uint(pack32(b >> 2)));
    put(5u, i, pack32((a >> 1) ^ (a << 3)));
    put(6u, i, pack32(~a));
    put(7u, i, uint(pack32(-b)));
    bvec4 lt = lessThan(b, i8vec4(a));
    bvec4 ult = lessThan(a, u8vec4(b));
    put(8u, i, uint(lt.x) | uint(lt.y) << 1 | uint(lt.z) << 2 | uint(lt.w) << 3
        | uint(ult.x) << 4 | uint(ult.y) << 5 | uint(ult.z) << 6 | uint(ult.w) << 7);
    ivec4 w = ivec4(b);
    uvec4 uw = uvec4(a);
    put(9u, i, uint(w.x + w.y * 3 + w.z * 5 + w.w * 7) ^ (uw.x + uw.y * 11u));
    vec4 f = vec4(a) + vec4(b);
    put(10u, i, floatBitsToUint(f.x + f.y + f.z + f.w));
    put(11u, i, uint(pack32(i8vec4(vec4(b) * 0.5))));
    i16vec4 h = i16vec4(b) * int16_t(3);
    put(12u, i, uint(pack32(i8vec4(h))));
    int8_t k = int8_t(-3);
    uint8_t m = uint8_t(250);
    put(13u, i, uint(int(b.x * k)) ^ uint(a.y + m));
}
