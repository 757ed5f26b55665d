// Sparse matrix times vector in CSR form, one row per thread: the row's length comes from the
// row pointers, so the loop's trip count is data-dependent, and x is gathered by column index.
StructuredBuffer<uint> row_start : register(t0);
StructuredBuffer<uint> columns : register(t1);
StructuredBuffer<float> values : register(t2);
StructuredBuffer<float> x : register(t3);
RWStructuredBuffer<float> y : register(u0);
cbuffer Params : register(b0)
{
    uint rows;
};

[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint r = id.x;
    if (r >= rows)
        return;
    float acc = 0;
    for (uint k = row_start[r]; k < row_start[r + 1]; k++)
        acc += values[k] * x[columns[k]];
    y[r] = acc;
}
