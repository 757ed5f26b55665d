#version 450
// The evaluation shader paired with spec_hull.tesc: quads, fractional odd spacing, clockwise.
layout(quads, fractional_odd_spacing, cw) in;
layout(location = 0) in vec4 inPos[];
layout(location = 1) patch in vec4 center;
void main() {
  vec4 a = mix(inPos[0], inPos[1], gl_TessCoord.x);
  vec4 b = mix(inPos[2], inPos[3], gl_TessCoord.x);
  gl_Position = mix(a, b, gl_TessCoord.y) + center * 0.0;
}
