// Global atomics on raw buffers: add, max and or into 1024 slots each of one buffer, min into
// 1024 slots of another (which starts at 0xFFFFFFFF).
ByteAddressBuffer src : register(t0);
RWByteAddressBuffer slots : register(u0);
RWByteAddressBuffer mins : register(u1);

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = src.Load(id.x * 4);
    uint slot = (v >> 22) * 4;
    slots.InterlockedAdd(slot, 1);
    slots.InterlockedMax(4096 + slot, v & 0xffff);
    slots.InterlockedOr(8192 + slot, 1u << (v & 31));
    mins.InterlockedMin(slot, v & 0xffff);
}
