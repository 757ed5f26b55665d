#!/usr/bin/env bash
# Runs the GPU benchmark suite with the release `dxil` binary.
#   bench/gpu/run.sh                 every kernel's small case under each route, checked (CI, lavapipe)
#   bench/gpu/run.sh --time 50       the timing cases, 50 timed dispatches per route and round,
#                                    routes interleaved, with ratios to DXC's SPIR-V and their geomean
# Other arguments go to `dxil bench kernels` (see its --help). DXIL is set to the binary to use,
# default target/release/dxil.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dxil="${DXIL:-$here/../../target/release/dxil}"
if [[ " $* " == *" --time "* ]] && [ ! -f "$here/kernels/spmv_csr.gpu.rows.bin" ]; then
    python3 "$here/make_cases.py" --data
fi
exec "$dxil" bench kernels "$here/suite.toml" "$@"
