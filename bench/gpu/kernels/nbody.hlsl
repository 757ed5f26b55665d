// All-pairs gravity-like sums with float4 tiles of 256 bodies in groupshared memory and an
// inner loop unrolled by 8 (by hand: DXC reads [unroll(8)] as "at most 8 iterations" for DXIL
// but unrolls fully for SPIR-V). abs() keeps every term positive so results can be checked to a
// tolerance.
StructuredBuffer<float4> bodies : register(t0);
RWStructuredBuffer<float4> result : register(u0);
cbuffer Params : register(b0)
{
    uint count;
    float softening;
};
groupshared float4 tile[256];

void interact(float4 me, float4 other, inout float4 acc)
{
    float3 d = abs(other.xyz - me.xyz);
    float r2 = dot(d, d) + softening;
    float inv = rsqrt(r2);
    float s = other.w * inv * inv * inv;
    acc.xyz += d * s;
    acc.w += other.w * inv;
}

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    float4 me = bodies[id.x];
    float4 acc = 0;
    for (uint base = 0; base < count; base += 256)
    {
        tile[gi] = bodies[base + gi];
        GroupMemoryBarrierWithGroupSync();
        [loop]
        for (uint j = 0; j < 256; j += 8)
        {
            [unroll]
            for (uint u = 0; u < 8; u++)
                interact(me, tile[j + u], acc);
        }
        GroupMemoryBarrierWithGroupSync();
    }
    result[id.x] = acc;
}
