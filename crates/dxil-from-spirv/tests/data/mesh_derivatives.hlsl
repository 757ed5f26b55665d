// Derivatives in a mesh shader (shader model 6.6), over quads of a
// 1D thread group of 4.
struct Vertex {
    float4 pos : SV_Position;
    float4 color : COLOR;
};

[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex, out vertices Vertex verts[4], out indices uint3 tris[2]) {
    SetMeshOutputCounts(4, 2);
    float2 uv = float2(i & 1, i >> 1);
    verts[i].pos = float4(uv, 0.0, 1.0);
    verts[i].color = ddx(uv).xyxy + ddy_fine(uv).xyxy;
    if (i < 2) {
        tris[i] = uint3(0, 1 + i, 2 + i);
    }
}
