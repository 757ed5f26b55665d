// Random gathers of 28-byte structures (two float3 and a uint) through an index buffer.
struct Item
{
    float3 position;
    float3 normal;
    uint id;
};
StructuredBuffer<Item> items : register(t0);
StructuredBuffer<uint> indices : register(t1);
RWStructuredBuffer<float4> result : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Item it = items[indices[id.x]];
    result[id.x] = float4(it.position + it.normal, asfloat(it.id));
}
