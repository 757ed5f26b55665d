// Inclusive prefix sum of each block of 1024 words: every thread scans its own Load4, the wave
// scans the thread totals (WavePrefixSum), groupshared memory carries the wave totals.
ByteAddressBuffer src : register(t0);
RWByteAddressBuffer dst : register(u0);
groupshared uint wave_totals[256];

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint4 v = src.Load4(id.x * 16);
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    uint lanes = WaveGetLaneCount();
    uint before = WavePrefixSum(v.w);
    uint wave = gi / lanes;
    if (WaveGetLaneIndex() == lanes - 1)
        wave_totals[wave] = before + v.w;
    GroupMemoryBarrierWithGroupSync();
    uint carry = 0;
    for (uint w = 0; w < wave; w++)
        carry += wave_totals[w];
    dst.Store4(id.x * 16, v + before + carry);
}
