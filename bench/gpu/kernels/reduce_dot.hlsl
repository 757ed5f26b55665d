// Partial dot products: each thread sums a[i] * b[i] over a grid-stride loop, each group reduces
// its threads' sums in groupshared memory and writes one partial sum.
StructuredBuffer<float> a : register(t0);
StructuredBuffer<float> b : register(t1);
RWStructuredBuffer<float> partial : register(u0);
cbuffer Params : register(b0)
{
    uint count;
    uint stride;
};
groupshared float sums[256];

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    float acc = 0;
    for (uint i = id.x; i < count; i += stride)
        acc += a[i] * b[i];
    sums[gi] = acc;
    GroupMemoryBarrierWithGroupSync();
    for (uint s = 128; s > 0; s >>= 1)
    {
        if (gi < s)
            sums[gi] += sums[gi + s];
        GroupMemoryBarrierWithGroupSync();
    }
    if (gi == 0)
        partial[gid.x] = sums[0];
}
