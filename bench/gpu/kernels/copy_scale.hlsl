// Typed buffer stream: one float4 texel read, scaled and biased, one float4 texel written.
Buffer<float4> src : register(t0);
RWBuffer<float4> dst : register(u0);
cbuffer Params : register(b0)
{
    float scale;
    float bias;
};

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    dst[id.x] = src[id.x] * scale + bias;
}
