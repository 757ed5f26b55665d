// Sorts each block of 1024 keys ascending with a bitonic network in groupshared memory.
StructuredBuffer<uint> keys : register(t0);
RWStructuredBuffer<uint> sorted : register(u0);
groupshared uint s[1024];

[numthreads(512, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint base = gid.x * 1024;
    s[gi] = keys[base + gi];
    s[gi + 512] = keys[base + gi + 512];
    GroupMemoryBarrierWithGroupSync();
    for (uint k = 2; k <= 1024; k <<= 1)
    {
        for (uint j = k >> 1; j > 0; j >>= 1)
        {
            uint i = 2 * gi - (gi & (j - 1));
            uint l = i + j;
            bool up = (i & k) == 0;
            uint a = s[i];
            uint b = s[l];
            if ((a > b) == up)
            {
                s[i] = b;
                s[l] = a;
            }
            GroupMemoryBarrierWithGroupSync();
        }
    }
    sorted[base + gi] = s[gi];
    sorted[base + gi + 512] = s[gi + 512];
}
