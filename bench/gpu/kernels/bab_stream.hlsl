// Raw buffer stream: two 16-byte loads, one 16-byte store per thread.
ByteAddressBuffer a : register(t0);
ByteAddressBuffer b : register(t1);
RWByteAddressBuffer o : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint at = id.x * 16;
    o.Store4(at, a.Load4(at) + b.Load4(at) * 3);
}
