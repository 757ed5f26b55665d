#version 450
// 8-bit integers in subgroup operations: reductions, scans and clustered reductions (sums and
// products wrap at the byte, signed minima and maxima order by sign), bitwise reductions,
// shuffles, broadcasts, votes and quad swaps.
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_subgroup_extended_types_int8 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_quad : require

layout(local_size_x = 64) in;

// Words 0..127: two inputs per lane; then one block of 64 words for each result.
layout(set = 0, binding = 200, std430) buffer Data {
    uint v[];
} data;

void put(uint k, uint i, uint r) {
    data.v[128u + 64u * k + i] = r;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    u8vec4 a = unpack8(data.v[i]);
    i8vec4 b = unpack8(int(data.v[i + 64u]));
    put(0u, i, pack32(subgroupAdd(a)));
    put(1u, i, pack32(subgroupMul(a | u8vec4(1))));
    put(2u, i, uint(pack32(subgroupMin(b))));
    put(3u, i, uint(pack32(subgroupMax(b))));
    put(4u, i, pack32(subgroupMin(a)));
    put(5u, i, pack32(subgroupMax(a)));
    put(6u, i, pack32(subgroupInclusiveAdd(a)));
    put(7u, i, pack32(subgroupExclusiveMul(a | u8vec4(1))));
    put(8u, i, uint(pack32(subgroupInclusiveMin(b))));
    put(9u, i, uint(pack32(subgroupExclusiveMax(b))));
    put(10u, i, pack32(subgroupClusteredAdd(a, 4u)));
    put(11u, i, uint(pack32(subgroupClusteredMin(b, 8u))));
    put(12u, i, pack32(subgroupXor(a) ^ (subgroupAnd(a) | subgroupOr(a >> 4))));
    put(17u, i, pack32(subgroupExclusiveAnd(a)) ^ uint(pack32(subgroupInclusiveMax(b))));
    put(18u, i, uint(pack32(subgroupExclusiveMin(b))) ^ pack32(subgroupExclusiveMin(a)));
    put(13u, i, pack32(subgroupShuffle(a, (i * 7u) & (gl_SubgroupSize - 1u))));
    put(14u, i, uint(pack32(subgroupShuffleXor(b, 1u))));
    put(15u, i, uint(pack32(subgroupBroadcastFirst(b))) ^ (uint(subgroupAllEqual(b.x >> 7)) << 31));
    put(16u, i, pack32(subgroupQuadSwapHorizontal(a)));
}
