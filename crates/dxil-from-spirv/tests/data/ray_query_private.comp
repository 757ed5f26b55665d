#version 460
#extension GL_EXT_ray_query : require
#extension GL_EXT_nonuniform_qualifier : require

// A private ray query initialized in a called function, into an unsized array of
// acceleration structures indexed non-uniformly.
layout(local_size_x=4) in;
layout(set=0,binding=0) uniform accelerationStructureEXT tlas[];
layout(set=0,binding=1) buffer B { uint o[]; };
rayQueryEXT pq;
void trace(uint i) { rayQueryInitializeEXT(pq, tlas[nonuniformEXT(i)], 0, 0xFF, vec3(i), 0.0, vec3(0,1,0), 100.0); }
void main(){ uint i = gl_LocalInvocationID.x; trace(i); rayQueryProceedEXT(pq); o[i] = rayQueryGetIntersectionTypeEXT(pq, true); }
