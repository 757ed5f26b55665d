#version 450
// Compiled with -gV: glslang's NonSemantic.Shader.DebugInfo.100 records, among them the lines of
// the declarations after main, which it puts between main's last terminator and OpFunctionEnd.
layout(local_size_x = 4) in;
layout(binding = 0) buffer Data { int v[]; };
layout(constant_id = 1) const int base = 3;

int twice(int x) {
    if (x > 8) {
        return x;
    }
    return x * 2;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    v[i] = twice(v[i]) + base;
}

const int later = base + 2;
const int latest = later * 4;
