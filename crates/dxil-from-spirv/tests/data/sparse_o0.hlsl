// Unoptimized (-O0), DXC keeps the residency status in a function variable between the sample
// and CheckAccessFullyMapped.
Texture2D<float4> t : register(t0);
SamplerState s : register(s0);

float4 main(float2 uv : TEXCOORD) : SV_Target {
    uint status;
    float4 c = t.Sample(s, uv, int2(0, 0), 0.0, status);
    uint fetched;
    float4 d = t.Load(int3(uv * 8.0, 0), int2(0, 0), fetched);
    return (CheckAccessFullyMapped(status) ? c : 0) + (CheckAccessFullyMapped(fetched) ? d : 0);
}
