// Implicit-LOD sampling in a compute shader whose thread group cannot be cut into quads.
Texture2D<float4> t : register(t0);
SamplerState s : register(s0);
RWStructuredBuffer<float4> o : register(u0);

[numthreads(8, 9, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    o[id.x + id.y * 8] = t.Sample(s, id.xy / 8.0);
}
