#version 450
// A larger shader (about 10 KB of DXIL) with specialization constants, for the patch timing
// bench: the hashes cover the whole container, so its size sets the cost.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint COUNT = 4;
layout(constant_id = 1) const float SCALE = 2.0;
layout(set = 0, binding = 0) buffer In { vec4 v[]; } src;
layout(set = 0, binding = 1) buffer Out { vec4 v[]; } dst;
layout(set = 0, binding = 2) uniform Params { vec4 k[16]; } params;
void main() {
    uint x = gl_GlobalInvocationID.x;
    vec4 a = src.v[x] * SCALE;
    vec4 b = src.v[x + 1u];
    a = a * params.k[0] + sin(b.yzwx * 1.0) - b * float(COUNT);
    b = mix(a, b, params.k[0].x) + vec4(0.5, COUNT, x, 1.0);
    a = a * params.k[1] + sin(b.yzwx * 2.0) - b * float(COUNT);
    b = mix(a, b, params.k[7].x) + vec4(1.5, COUNT, x, 1.0);
    a = a * params.k[2] + sin(b.yzwx * 3.0) - b * float(COUNT);
    b = mix(a, b, params.k[14].x) + vec4(2.5, COUNT, x, 1.0);
    a = a * params.k[3] + sin(b.yzwx * 4.0) - b * float(COUNT);
    b = mix(a, b, params.k[5].x) + vec4(3.5, COUNT, x, 1.0);
    a = a * params.k[4] + sin(b.yzwx * 5.0) - b * float(COUNT);
    b = mix(a, b, params.k[12].x) + vec4(4.5, COUNT, x, 1.0);
    a = a * params.k[5] + sin(b.yzwx * 6.0) - b * float(COUNT);
    b = mix(a, b, params.k[3].x) + vec4(5.5, COUNT, x, 1.0);
    a = a * params.k[6] + sin(b.yzwx * 7.0) - b * float(COUNT);
    b = mix(a, b, params.k[10].x) + vec4(6.5, COUNT, x, 1.0);
    a = a * params.k[7] + sin(b.yzwx * 8.0) - b * float(COUNT);
    b = mix(a, b, params.k[1].x) + vec4(7.5, COUNT, x, 1.0);
    a = a * params.k[8] + sin(b.yzwx * 9.0) - b * float(COUNT);
    b = mix(a, b, params.k[8].x) + vec4(8.5, COUNT, x, 1.0);
    a = a * params.k[9] + sin(b.yzwx * 10.0) - b * float(COUNT);
    b = mix(a, b, params.k[15].x) + vec4(9.5, COUNT, x, 1.0);
    a = a * params.k[10] + sin(b.yzwx * 11.0) - b * float(COUNT);
    b = mix(a, b, params.k[6].x) + vec4(10.5, COUNT, x, 1.0);
    a = a * params.k[11] + sin(b.yzwx * 12.0) - b * float(COUNT);
    b = mix(a, b, params.k[13].x) + vec4(11.5, COUNT, x, 1.0);
    a = a * params.k[12] + sin(b.yzwx * 13.0) - b * float(COUNT);
    b = mix(a, b, params.k[4].x) + vec4(12.5, COUNT, x, 1.0);
    for (uint i = 0; i < COUNT; i++) { a += b * float(i); }
    dst.v[x] = a + b;
}
