#version 450
#extension GL_NV_shader_subgroup_partitioned : require

// Partitioned scans that WaveMultiPrefixOp expresses: inclusive and exclusive, sums,
// products, bitwise and logical operations; the partition from subgroupPartitionNV.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer Data { uint key[32]; float f[32]; uint u[32]; uint o[32 * 6]; };

void main()
{
    uint i = gl_LocalInvocationID.x;
    uvec4 part = subgroupPartitionNV(key[i]);
    o[i] = floatBitsToUint(subgroupPartitionedInclusiveAddNV(f[i], part));
    o[32 + i] = subgroupPartitionedExclusiveMulNV(u[i], part);
    o[64 + i] = subgroupPartitionedInclusiveOrNV(u[i], part);
    o[96 + i] = subgroupPartitionedInclusiveXorNV(u[i], part);
    o[128 + i] = subgroupPartitionedInclusiveAndNV(u[i] > 3u, part) ? 1u : 0u;
    o[160 + i] = subgroupPartitionedExclusiveOrNV(u[i] == 0u, part) ? 1u : 0u;
}
