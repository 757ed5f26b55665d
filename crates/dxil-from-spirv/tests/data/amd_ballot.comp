#version 450
// SPV_AMD_shader_ballot's group operations (OpGroup*NonUniformAMD) and the Groups-capability
// ones (OpGroupIAdd, ...) beside the KHR subgroup operations that compute the same values: each
// result block k holds the AMD form, block k + 9 the KHR form.
#extension GL_AMD_shader_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 64) in;

// Words 0..127: an unsigned and a signed input per lane; then one block of 64 words per result.
layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

void put(uint k, uint i, uint amd, uint khr) {
    data.v[128u + 64u * k + i] = amd;
    data.v[128u + 64u * (k + 9u) + i] = khr;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    uint a = data.v[i] & 0xffffu;
    int b = int(data.v[i + 64u]);
    float f = float(b) * 0.25;
    put(0u, i, addInvocationsAMD(a), subgroupAdd(a));
    put(1u, i, uint(minInvocationsAMD(b)), uint(subgroupMin(b)));
    put(2u, i, maxInvocationsInclusiveScanAMD(a), subgroupInclusiveMax(a));
    put(3u, i, floatBitsToUint(addInvocationsExclusiveScanAMD(f)), floatBitsToUint(subgroupExclusiveAdd(f)));
    put(4u, i, uint(maxInvocationsNonUniformAMD(b)), uint(subgroupMax(b)));
    put(5u, i, minInvocationsNonUniformAMD(a), subgroupMin(a));
    put(6u, i, addInvocationsInclusiveScanNonUniformAMD(a), subgroupInclusiveAdd(a));
    put(7u, i, floatBitsToUint(minInvocationsExclusiveScanNonUniformAMD(f)), floatBitsToUint(subgroupExclusiveMin(f)));
    put(8u, i, floatBitsToUint(maxInvocationsAMD(f)), floatBitsToUint(subgroupMax(f)));
}
