// 256-bin histogram of the bytes of the input: groupshared atomics per group, then one global
// atomic add per bin and group.
ByteAddressBuffer src : register(t0);
RWByteAddressBuffer bins : register(u0);
groupshared uint local_bins[256];

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    local_bins[gi] = 0;
    GroupMemoryBarrierWithGroupSync();
    uint4 w = src.Load4(id.x * 16);
    [unroll]
    for (uint c = 0; c < 4; c++)
    {
        uint v = w[c];
        InterlockedAdd(local_bins[v & 0xff], 1);
        InterlockedAdd(local_bins[(v >> 8) & 0xff], 1);
        InterlockedAdd(local_bins[(v >> 16) & 0xff], 1);
        InterlockedAdd(local_bins[v >> 24], 1);
    }
    GroupMemoryBarrierWithGroupSync();
    bins.InterlockedAdd(gi * 4, local_bins[gi]);
}
