// C = A * B for n x n matrices (n a multiple of 16), 16 x 16 tiles staged in groupshared memory.
StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> C : register(u0);
cbuffer Params : register(b0)
{
    uint n;
};
groupshared float As[16][16];
groupshared float Bs[16][16];

[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 lt : SV_GroupThreadID)
{
    float acc = 0;
    for (uint t = 0; t < n; t += 16)
    {
        As[lt.y][lt.x] = A[id.y * n + t + lt.x];
        Bs[lt.y][lt.x] = B[(t + lt.y) * n + id.x];
        GroupMemoryBarrierWithGroupSync();
        [unroll]
        for (uint k = 0; k < 16; k++)
            acc = mad(As[lt.y][k], Bs[k][lt.x], acc);
        GroupMemoryBarrierWithGroupSync();
    }
    C[id.y * n + id.x] = acc;
}
