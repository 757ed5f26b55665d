#version 460
#extension GL_EXT_ray_query : require
#extension GL_EXT_nonuniform_qualifier : require

// Two ray queries in one array, chosen per invocation (a dynamic index into the handles),
// each tracing into one of two acceleration structures (a non-uniform descriptor index); every kind of candidate handling.
layout(local_size_x = 8) in;

layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas[2];
layout(set = 0, binding = 1, std430) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint k = i & 1u;
    rayQueryEXT rq[2];
    rayQueryInitializeEXT(rq[k], tlas[nonuniformEXT(k)], gl_RayFlagsCullBackFacingTrianglesEXT, 0xFF,
                          vec3(float(i), 0.0, 0.0), 0.01, vec3(0.0, 0.0, 1.0), 100.0);
    while (rayQueryProceedEXT(rq[k])) {
        if (rayQueryGetIntersectionTypeEXT(rq[k], false) == gl_RayQueryCandidateIntersectionTriangleEXT) {
            if (rayQueryGetIntersectionTEXT(rq[k], false) < 50.0)
                rayQueryConfirmIntersectionEXT(rq[k]);
        } else if (rayQueryGetIntersectionCandidateAABBOpaqueEXT(rq[k])) {
            rayQueryGenerateIntersectionEXT(rq[k], 3.0);
        } else {
            rayQueryTerminateEXT(rq[k]);
        }
    }
    vec4 r = vec4(rayQueryGetRayTMinEXT(rq[k]), float(rayQueryGetRayFlagsEXT(rq[k])),
                  rayQueryGetWorldRayOriginEXT(rq[k]).x, rayQueryGetWorldRayDirectionEXT(rq[k]).z);
    if (rayQueryGetIntersectionTypeEXT(rq[k], true) != gl_RayQueryCommittedIntersectionNoneEXT) {
        mat4x3 m = rayQueryGetIntersectionObjectToWorldEXT(rq[k], true);
        r += vec4(rayQueryGetIntersectionBarycentricsEXT(rq[k], true), m[3][0],
                  float(rayQueryGetIntersectionInstanceCustomIndexEXT(rq[k], true)
                        + rayQueryGetIntersectionInstanceIdEXT(rq[k], true)
                        + rayQueryGetIntersectionGeometryIndexEXT(rq[k], true)
                        + rayQueryGetIntersectionPrimitiveIndexEXT(rq[k], true)));
        if (rayQueryGetIntersectionFrontFaceEXT(rq[k], true))
            r.w += rayQueryGetIntersectionObjectRayOriginEXT(rq[k], true).y;
    }
    o.v[i] = r;
}
