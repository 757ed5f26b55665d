#version 450
// Subgroup operations that DXIL has no instruction for (clustered and partitioned reductions,
// min/max, bitwise and logical scans), over a workgroup whose lanes are partly inactive.
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_NV_shader_subgroup_partitioned : require

layout(local_size_x = 64) in;

// Words 0..63: the inputs; then one block of 64 words for each result.
layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

// A macro rather than a function: the operations share one block, so that the translation
// reuses one lane mask's sibling lanes across them (a call would start a new block).
#define put(k, i, r) data.v[64u * (k) + (i)] = (r)

void main() {
    uint i = gl_LocalInvocationIndex;
    uint x = data.v[i];
    int sx = int(x) - 50;
    float fx = float(x) * 0.5;
    // Every third lane sits out, so that the trees see holes in their masks.
    if (i % 3u != 1u) {
        put(1u, i, subgroupClusteredAdd(x, 4u));
        put(2u, i, subgroupClusteredMin(x, 2u));
        put(3u, i, uint(subgroupClusteredMax(sx, 4u)));
        put(4u, i, floatBitsToUint(subgroupClusteredMul(fx, 1u)));
        put(5u, i, subgroupInclusiveMin(x));
        put(6u, i, uint(subgroupExclusiveMax(sx)));
        put(7u, i, subgroupExclusiveAnd(x));
        put(8u, i, subgroupInclusiveOr(x));
        put(9u, i, uint(subgroupExclusiveXor(x > 40u)));
        put(10u, i, floatBitsToUint(subgroupExclusiveMin(fx)));
        put(11u, i, floatBitsToUint(subgroupClusteredAdd(fx, 2u)));
        uvec4 p = subgroupPartitionNV(x % 4u);
        put(12u, i, subgroupPartitionedAddNV(x, p));
        put(13u, i, subgroupPartitionedMinNV(x, p));
        put(14u, i, uint(subgroupPartitionedInclusiveMaxNV(sx, p)));
        put(15u, i, subgroupPartitionedExclusiveMinNV(x, p));
        put(16u, i, uint(subgroupPartitionedOrNV(x > 50u, p)));
        put(17u, i, subgroupPartitionedExclusiveXorNV(x, p));
    }
    put(18u, i, gl_SubgroupSize);
}
