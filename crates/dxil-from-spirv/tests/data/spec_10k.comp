#version 450
// A 10 KB container with specialization constants used near the top of the body, as real
// shaders have them (a feature switch and a loop count), for the patch timing bench: the
// hashes cover the bytes from the first use on, so their number sets the cost.
layout(local_size_x = 64) in;
layout(constant_id = 0) const bool USE_BIAS = true;
layout(constant_id = 1) const uint TAPS = 4;
layout(constant_id = 2) const float SCALE = 2.0;
layout(set = 0, binding = 0) buffer In { vec4 v[]; } src;
layout(set = 0, binding = 1) buffer Out { vec4 v[]; } dst;
layout(set = 0, binding = 2) uniform Params { vec4 k[16]; vec4 bias; } params;
void main() {
    uint x = gl_GlobalInvocationID.x;
    vec4 a = src.v[x];
    if (USE_BIAS) {
        a += params.bias;
    }
    vec4 b = src.v[x + 1u];
    for (uint i = 0; i < TAPS; i++) {
        b += src.v[x + 2u + i] * params.k[i & 15u];
    }
    a = a * params.k[0] + sin(b.yzwx * 1.0) - b * SCALE;
    b = mix(a, b, params.k[0].x) + vec4(0.5, TAPS, x, 1.0);
    a = a * params.k[1] + cos(b.yzwx * 2.0) - b;
    b = mix(a, b, params.k[7].x) + vec4(1.5, 2.0, x, 1.0);
    a = a * params.k[2] + sin(b.yzwx * 3.0) - b;
    b = clamp(b, a, params.k[14]) + vec4(2.5, 3.0, x, 1.0);
    a = a * params.k[3] + exp2(b.yzwx * 4.0) - b;
    b = mix(a, b, params.k[5].x) + vec4(3.5, 4.0, x, 1.0);
    a = a * params.k[4] + sin(b.yzwx * 5.0) - b;
    b = max(a, b * params.k[12].x) + vec4(4.5, 5.0, x, 1.0);
    a = a * params.k[5] + cos(b.yzwx * 6.0) - b;
    b = mix(a, b, params.k[3].x) + vec4(5.5, 6.0, x, 1.0);
    a = a * params.k[6] + sqrt(abs(b.yzwx * 7.0)) - b;
    b = mix(a, b, params.k[10].x) + vec4(6.5, 7.0, x, 1.0);
    a = a * params.k[7] + sin(b.yzwx * 8.0) - b;
    b = min(a, b * params.k[1].x) + vec4(7.5, 8.0, x, 1.0);
    a = a * params.k[8] + cos(b.yzwx * 9.0) - b;
    b = mix(a, b, params.k[8].x) + vec4(8.5, 9.0, x, 1.0);
    a = a * params.k[9] + fract(b.yzwx * 10.0) - b;
    b = mix(a, b, params.k[15].x) + vec4(9.5, 10.0, x, 1.0);
    a = a * params.k[10] + sin(b.yzwx * 11.0) - b;
    b = mix(a, b, params.k[6].x) + vec4(10.5, 11.0, x, 1.0);
    a = a * params.k[11] + log2(abs(b.yzwx) + 12.0) - b;
    b = mix(a, b, params.k[13].x) + vec4(11.5, 12.0, x, 1.0);
    a = a * params.k[12] + sin(b.yzwx * 13.0) - b;
    b = mix(a, b, params.k[4].x) + vec4(12.5, 13.0, x, 1.0);
    a = a * params.k[13] + cos(b.yzwx * 14.0) - b;
    b = mix(a, b, params.k[2].x) + vec4(13.5, 14.0, x, 1.0);
    a = a * params.k[14] + sin(b.yzwx * 15.0) - b;
    b = mix(a, b, params.k[9].x) + vec4(14.5, 15.0, x, 1.0);
    a = a * params.k[15] + cos(b.yzwx * 16.0) - b;
    b = mix(a, b, params.k[11].x) + vec4(15.5, 16.0, x, 1.0);
    a = a * params.k[1] + sin(b.yzwx * 17.0) - b;
    b = mix(a, b, params.k[0].y) + vec4(16.5, 17.0, x, 1.0);
    a = a * params.k[2] + cos(b.yzwx * 18.0) - b;
    b = mix(a, b, params.k[3].y) + vec4(17.5, 18.0, x, 1.0);
    a = a * params.k[3] + sin(b.yzwx * 19.0) - b;
    b = mix(a, b, params.k[5].y) + vec4(18.5, 19.0, x, 1.0);
    a = a * params.k[4] + cos(b.yzwx * 20.0) - b;
    b = mix(a, b, params.k[7].y) + vec4(19.5, 20.0, x, 1.0);
    a = a * params.k[5] + cos(b.yzwx * 21.0) - b;
    b = mix(a, b, params.k[3].y) + vec4(20.5, 21.0, x, 1.0);
    a = a * params.k[6] + tanh(b.yzwx * 22.0) - b;
    b = mix(a, b, params.k[10].z) + vec4(21.5, 22.0, x, 1.0);
    a = a * params.k[7] + sin(b.yzwx * 23.0) - b;
    b = mix(a, b, params.k[1].w) + vec4(22.5, 23.0, x, 1.0);
    a = a * params.k[8] + sin(b.yzwx * 24.0) - b;
    b = mix(a, b, params.k[8].x) + vec4(23.5, 24.0, x, 1.0);
    a = a * params.k[9] + cos(b.yzwx * 25.0) - b;
    b = mix(a, b, params.k[15].y) + vec4(24.5, 25.0, x, 1.0);
    a = a * params.k[10] + exp2(b.yzwx * 26.0) - b;
    b = mix(a, b, params.k[6].z) + vec4(25.5, 26.0, x, 1.0);
    a = a * params.k[11] + fract(b.yzwx * 27.0) - b;
    b = mix(a, b, params.k[13].w) + vec4(26.5, 27.0, x, 1.0);
    a = a * params.k[12] + sin(b.yzwx * 28.0) - b;
    b = mix(a, b, params.k[4].x) + vec4(27.5, 28.0, x, 1.0);
    a = a * params.k[13] + cos(b.yzwx * 29.0) - b;
    b = mix(a, b, params.k[11].y) + vec4(28.5, 29.0, x, 1.0);
    a = a * params.k[14] + tanh(b.yzwx * 30.0) - b;
    b = mix(a, b, params.k[2].z) + vec4(29.5, 30.0, x, 1.0);
    a = a * params.k[15] + sin(b.yzwx * 31.0) - b;
    b = mix(a, b, params.k[9].w) + vec4(30.5, 31.0, x, 1.0);
    a = a * params.k[0] + sin(b.yzwx * 32.0) - b;
    b = mix(a, b, params.k[0].x) + vec4(31.5, 32.0, x, 1.0);
    a = a * params.k[1] + cos(b.yzwx * 33.0) - b;
    b = mix(a, b, params.k[7].y) + vec4(32.5, 33.0, x, 1.0);
    a = a * params.k[2] + exp2(b.yzwx * 34.0) - b;
    b = mix(a, b, params.k[14].z) + vec4(33.5, 34.0, x, 1.0);
    a = a * params.k[3] + fract(b.yzwx * 35.0) - b;
    b = mix(a, b, params.k[5].w) + vec4(34.5, 35.0, x, 1.0);
    a = a * params.k[4] + sin(b.yzwx * 36.0) - b;
    b = mix(a, b, params.k[12].x) + vec4(35.5, 36.0, x, 1.0);
    a = a * params.k[5] + cos(b.yzwx * 37.0) - b;
    b = mix(a, b, params.k[3].y) + vec4(36.5, 37.0, x, 1.0);
    a = a * params.k[6] + tanh(b.yzwx * 38.0) - b;
    b = mix(a, b, params.k[10].z) + vec4(37.5, 38.0, x, 1.0);
    a = a * params.k[7] + sin(b.yzwx * 39.0) - b;
    b = mix(a, b, params.k[1].w) + vec4(38.5, 39.0, x, 1.0);
    a = a * params.k[8] + sin(b.yzwx * 40.0) - b;
    b = mix(a, b, params.k[8].x) + vec4(39.5, 40.0, x, 1.0);
    dst.v[x] = a + b;
}
