#version 460
#extension GL_EXT_ray_query : require

// A ray query in a pixel shader: shadowing by the first hit.
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;
layout(location = 0) in vec3 pos;
layout(location = 0) out vec4 color;

void main()
{
    rayQueryEXT rq;
    rayQueryInitializeEXT(rq, tlas, gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsOpaqueEXT, 0xFF,
                          pos, 0.0, vec3(0.0, 1.0, 0.0), 1000.0);
    rayQueryProceedEXT(rq);
    bool lit = rayQueryGetIntersectionTypeEXT(rq, true) == gl_RayQueryCommittedIntersectionNoneEXT;
    color = vec4(lit ? 1.0 : 0.2);
}
