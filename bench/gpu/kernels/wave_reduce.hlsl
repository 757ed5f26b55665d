// Wave intrinsics: per-wave sum, maximum and count of odd values (WaveActiveSum, WaveActiveMax,
// WaveActiveCountBits), combined per group through groupshared atomics by each wave's first lane.
ByteAddressBuffer src : register(t0);
RWByteAddressBuffer dst : register(u0);
groupshared uint g_sum;
groupshared uint g_max;
groupshared uint g_odd;

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
    {
        g_sum = 0;
        g_max = 0;
        g_odd = 0;
    }
    GroupMemoryBarrierWithGroupSync();
    uint4 v = src.Load4(id.x * 16);
    uint s = WaveActiveSum(v.x + v.y + v.z + v.w);
    uint m = WaveActiveMax(max(max(v.x, v.y), max(v.z, v.w)));
    uint odd = WaveActiveCountBits((v.x & 1) != 0) + WaveActiveCountBits((v.y & 1) != 0);
    if (WaveIsFirstLane())
    {
        InterlockedAdd(g_sum, s);
        InterlockedMax(g_max, m);
        InterlockedAdd(g_odd, odd);
    }
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0)
        dst.Store3(gid.x * 12, uint3(g_sum, g_max, g_odd));
}
