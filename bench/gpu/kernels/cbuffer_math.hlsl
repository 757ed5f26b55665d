// Constant-buffer-heavy math: a 4 x 4 transform, then a cubic whose coefficients come from a
// dynamically indexed constant array.
StructuredBuffer<float4> src : register(t0);
RWStructuredBuffer<float4> dst : register(u0);
cbuffer Params : register(b0)
{
    float4x4 transform;
    float4 coefficients[16];
    float4 offset;
};

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 v = mul(transform, src[id.x]) + offset;
    float4 c = coefficients[id.x & 15];
    dst[id.x] = ((c.x * v + c.y) * v + c.z) * v + c.w;
}
