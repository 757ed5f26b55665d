#version 450
// A tessellation control shader whose specialization constants are used by both DXIL
// functions (control points and patch constants): each constant has two patch sites.
// Its domain is left to tess_quad.tese (quads, fractional odd spacing, clockwise).
layout(vertices = 4) out;
layout(constant_id = 7) const float LEVEL = 4.0;
layout(constant_id = 8) const int SCALE = 2;
layout(location = 0) in vec4 inPos[];
layout(location = 0) out vec4 outPos[];
layout(location = 1) patch out vec4 center;
void main() {
  outPos[gl_InvocationID] = inPos[gl_InvocationID] * float(SCALE);
  barrier();
  if (gl_InvocationID == 0) {
    gl_TessLevelOuter[0] = LEVEL;
    gl_TessLevelOuter[1] = LEVEL;
    gl_TessLevelOuter[2] = LEVEL;
    gl_TessLevelOuter[3] = LEVEL;
    gl_TessLevelInner[0] = LEVEL * float(SCALE);
    gl_TessLevelInner[1] = LEVEL;
    center = (outPos[0] + outPos[1] + outPos[2] + outPos[3]) / 4.0;
  }
}
