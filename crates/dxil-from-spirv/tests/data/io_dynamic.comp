#version 450
// Stage inputs indexed within a vector at run time: built-in vectors (read through operations
// in DXIL, one per component) at a dynamic component.
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

void main() {
    uint i = gl_LocalInvocationIndex;
    uint k = data.v[i] % 3u;
    uint j = (data.v[i] >> 8) % 4u;
    data.v[64u + i] = gl_LocalInvocationID[k] * 100u + gl_GlobalInvocationID[2u - k];
    // Index 3 is past the vector: the result is undefined, only written where in range.
    if (j < 3u) {
        data.v[128u + i] = gl_LocalInvocationID[j] + 7u;
    }
}
