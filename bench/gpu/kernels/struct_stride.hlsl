// Structured buffers of odd strides: 20-byte elements in, 36-byte elements out.
struct In
{
    uint3 a;
    uint2 b;
};
struct Out
{
    uint3 x;
    uint3 y;
    uint3 z;
};
StructuredBuffer<In> src : register(t0);
RWStructuredBuffer<Out> dst : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    In e = src[id.x];
    Out o;
    o.x = e.a + e.b.x;
    o.y = e.a ^ e.b.y;
    o.z = uint3(e.a.x * e.b.x, e.a.y * e.b.y, e.a.z + e.b.x + e.b.y);
    dst[id.x] = o;
}
