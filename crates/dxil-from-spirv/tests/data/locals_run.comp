#version 450
// Function-local variables as glslang writes them without optimization (each an OpVariable),
// for a run: vectors, a struct, arrays indexed by constants (registers after promotion) and by
// data (memory), variables written on some paths and carried around loops, and a swap through
// a temporary. Every read follows a write, so both modules compute the same words.
layout(local_size_x = 64) in;

// Words 0..127: two random inputs per lane; then one block of 64 words for each result.
layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

struct Pair {
    uvec2 a;
    uint b;
};

void put(uint k, uint i, uint r) {
    data.v[128u + 64u * k + i] = r;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    uint x = data.v[i];
    uint y = data.v[i + 64u];
    Pair p;
    p.a = uvec2(x, y);
    p.b = x ^ y;
    uint table[8];
    uvec4 acc = uvec4(0u);
    for (int k = 0; k < 8; k++) {
        table[k] = uint(k) * p.b + p.a.y;
        if ((x & (1u << uint(k))) != 0u) {
            acc.xy += p.a;
        } else {
            acc.zw -= p.a.yx;
        }
        uint t = p.a.x;
        p.a.x = p.a.y;
        p.a.y = t + 1u;
    }
    uint last;
    uint which = 0u;
    if ((y & 1u) != 0u) {
        last = table[7];
        which = 1u;
    } else {
        last = table[x & 7u];
    }
    uint consts[4] = uint[4](3u, 5u, 7u, 11u);
    consts[2] = consts[1] * last;
    put(0u, i, acc.x);
    put(1u, i, acc.y ^ acc.z);
    put(2u, i, acc.w + p.b);
    put(3u, i, last + which);
    put(4u, i, consts[0] + consts[2] + consts[3]);
    put(5u, i, table[y & 7u] + p.a.x * p.a.y);
}
