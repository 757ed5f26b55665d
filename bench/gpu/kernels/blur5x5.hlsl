// 5 x 5 box blur of a width x height float image with clamped edges: a 20 x 20 tile (16 x 16
// threads plus a 2-pixel apron) staged in groupshared memory.
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
cbuffer Params : register(b0)
{
    uint width;
    uint height;
};
groupshared float tile[20][20];

float fetch(int x, int y)
{
    x = clamp(x, 0, int(width) - 1);
    y = clamp(y, 0, int(height) - 1);
    return src[y * width + x];
}

[numthreads(16, 16, 1)]
void main(uint3 gid : SV_GroupID, uint3 lt : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    int ox = int(gid.x * 16) - 2;
    int oy = int(gid.y * 16) - 2;
    for (uint i = gi; i < 400; i += 256)
        tile[i / 20][i % 20] = fetch(ox + int(i % 20), oy + int(i / 20));
    GroupMemoryBarrierWithGroupSync();
    float sum = 0;
    [unroll]
    for (uint dy = 0; dy < 5; dy++)
        [unroll]
        for (uint dx = 0; dx < 5; dx++)
            sum += tile[lt.y + dy][lt.x + dx];
    uint x = gid.x * 16 + lt.x;
    uint y = gid.y * 16 + lt.y;
    dst[y * width + x] = sum * 0.04;
}
