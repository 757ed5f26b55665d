// Loops with data-dependent trip counts: each thread runs count[i] rounds of a hash over words
// of the input, so lanes of one wave run different numbers of iterations.
StructuredBuffer<uint> counts : register(t0);
StructuredBuffer<uint> data : register(t1);
RWStructuredBuffer<uint> result : register(u0);
cbuffer Params : register(b0)
{
    uint mask;
};

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint n = counts[id.x];
    uint h = id.x;
    for (uint k = 0; k < n; k++)
    {
        h = h * 1664525u + 1013904223u;
        h ^= data[(id.x + k * 4099) & mask];
    }
    result[id.x] = h;
}
