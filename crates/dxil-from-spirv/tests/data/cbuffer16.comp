#version 450
// 16-bit elements of a uniform buffer in scalar layout at a dynamic index: an element sits in
// the low or the high half of its word depending on the index.
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(scalar, binding = 0) uniform U { uint16_t h[64]; } u;
layout(binding = 200) buffer Out { uint o[]; } outb;
void main() {
    uint i = gl_LocalInvocationIndex;
    outb.o[i] = uint(u.h[i]);
}
