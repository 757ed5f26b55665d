#version 460
#extension GL_EXT_ray_query : require

// A ray query in a tessellation control shader: the hull shader's two functions each allocate
// their own query.
layout(vertices = 3) out;
layout(set=0,binding=0) uniform accelerationStructureEXT tlas;
layout(location=0) in vec3 p[];
layout(location=0) out vec3 po[];
void main(){ rayQueryEXT q; rayQueryInitializeEXT(q, tlas, 0, 0xFF, p[gl_InvocationID], 0.0, vec3(0,1,0), 100.0);
 rayQueryProceedEXT(q);
 float f = rayQueryGetIntersectionTypeEXT(q, true) == 0 ? 1.0 : 4.0;
 po[gl_InvocationID] = p[gl_InvocationID];
 if (gl_InvocationID == 0) { gl_TessLevelOuter[0]=f; gl_TessLevelOuter[1]=f; gl_TessLevelOuter[2]=f; gl_TessLevelInner[0]=f; } }
