#version 450
// Specialization constants of every patchable kind, each visible in the result: the loop
// count, a branch, a float scale and a signed offset; SIZE sizes an array and is folded.
layout(local_size_x = 4) in;
layout(constant_id = 0) const uint COUNT = 4;
layout(constant_id = 1) const bool FLAG = false;
layout(constant_id = 2) const float SCALE = 2.0;
layout(constant_id = 3) const int OFFSET = -3;
layout(constant_id = 4) const uint SIZE = 8;
layout(set = 0, binding = 200) buffer Out { uint data[]; } o;
shared uint scratch[SIZE];
void main() {
    uint acc = 0;
    for (uint i = 0; i < COUNT; i++) {
        acc += i + 1;
    }
    if (FLAG) {
        acc += 1000;
    }
    scratch[gl_LocalInvocationIndex % SIZE] = acc;
    barrier();
    uint x = gl_GlobalInvocationID.x;
    o.data[x] = scratch[x % SIZE] + uint(float(x) * SCALE) + uint(OFFSET + 100);
}
