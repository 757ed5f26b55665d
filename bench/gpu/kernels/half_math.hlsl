// Native 16-bit math (-enable-16bit-types): 16-bit loads, a recurrence and a lerp in half
// precision; the result is widened to float for the store, so it can be checked to a tolerance.
ByteAddressBuffer src : register(t0);
RWByteAddressBuffer dst : register(u0);
cbuffer Params : register(b0)
{
    float4 coefficients;
};

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint16_t4 raw = src.Load<uint16_t4>(id.x * 8);
    half4 x = asfloat16(uint16_t4((raw & 0x3FF) | 0x3C00));
    half4 c = half4(coefficients);
    half4 xa = x * c.x;
    half4 y = x;
    [unroll]
    for (int k = 0; k < 8; k++)
        y = y * xa + c.y;
    half4 q = lerp(x, y, c.z);
    dst.Store<float4>(id.x * 16, float4(q * x));
}
