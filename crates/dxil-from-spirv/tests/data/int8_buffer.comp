#version 450
// 8-bit integers in a storage buffer: loads of signed and unsigned bytes, of vectors that
// straddle 32-bit words (scalar layout), at fixed and computed offsets; stores of bytes whose
// neighbours in the same word other invocations write at the same time (at computed and at
// fixed positions in the word), of whole aligned words of bytes, and of straddling structs.
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_scalar_block_layout : require

layout(local_size_x = 256) in;

struct Quad {
    uint8_t b[4];
};

// 9 bytes: `v` spans bytes 3..6 and `w` bytes 7..8 of each element.
struct Odd {
    uint8_t pad[3];
    u8vec4 v;
    i8vec2 w;
};

// Bytes 0..1087 are inputs; the rest are results (the test compares every byte).
layout(set = 0, binding = 200, scalar) buffer Data {
    int8_t in_s[256];
    uint8_t in_u[256];
    Odd odd[64];
    uint words[1024];
    uint8_t out_b[256];
    Quad quads[64];
    u8vec4 out_v4[256];
    Odd out_odd[256];
} data;

void main() {
    uint i = gl_LocalInvocationIndex;
    data.words[4u * i] = uint(int(data.in_s[i])) ^ (uint(data.in_u[i]) << 16);
    Odd o = data.odd[i & 63u];
    data.words[4u * i + 1u] = pack32(o.v) ^ uint(int(o.w.x) * 7 + int(o.w.y));
    data.words[4u * i + 2u] = pack32(data.odd[3].v) + uint(int(data.odd[5].w.y)) + i;
    data.words[4u * i + 3u] = uint(o.pad[i % 3u]) * 0x01010101u;
    // Four invocations write the four bytes of each word.
    data.out_b[i] = data.in_u[255u - i] * uint8_t(3);
    uint8_t q = uint8_t(data.in_s[i]) + uint8_t(i);
    switch (i & 3u) {
        case 0u: data.quads[i >> 2].b[0] = q; break;
        case 1u: data.quads[i >> 2].b[1] = q; break;
        case 2u: data.quads[i >> 2].b[2] = q; break;
        default: data.quads[i >> 2].b[3] = q; break;
    }
    data.out_v4[i] = u8vec4(data.in_s[i]) + u8vec4(0, 1, 2, 3);
    // Neighbouring elements share words: element i's last bytes and element i + 1's first.
    Odd r;
    r.pad[0] = o.pad[2];
    r.pad[1] = uint8_t(i);
    r.pad[2] = o.pad[0] ^ uint8_t(0x5a);
    r.v = o.v.wzyx;
    r.w = o.w * int8_t(3) - i8vec2(int8_t(i));
    data.out_odd[i] = r;
}
