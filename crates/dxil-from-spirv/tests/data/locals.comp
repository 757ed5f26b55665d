#version 450
// Function-local variables as glslang writes them (every one an OpVariable, no optimization):
// vectors, a struct and a loop counter indexed by constants only (kept in registers), an array
// indexed by a loop counter (kept in memory), a variable written on one path only (a phi with
// an undefined operand), and one never written (kept in memory: its undefined value must not
// reach the division).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint n; vec4 v[]; } data;
struct Pair { vec2 a; float b; };
void main() {
    uint x = gl_GlobalInvocationID.x;
    vec4 acc = vec4(0.0);
    Pair p;
    p.a = data.v[x].xy;
    p.b = data.v[x].z;
    float table[8];
    for (int i = 0; i < 8; i++) {
        table[i] = float(i) * p.b;
        if ((x & uint(i)) != 0u) {
            acc.xy += p.a;
        } else {
            acc.zw -= p.a;
        }
    }
    uint u;
    if (data.n > 4u) {
        u = data.n;
    }
    uint w;
    acc.x += table[x & 7u] + float(x / u) + float(x / w);
    data.v[x] = acc;
}
