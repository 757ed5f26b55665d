#!/usr/bin/env bash
# Times translation through the dxil_spv C API with dxil-spirv's library and with dxil-rs's, over every DXIL
# container of the corpus (every stage), and compares them.
#
# Usage: tools/bench-capi/run.sh LIBDIR_DXIL_SPIRV LIBDIR_DXIL_RS [OUT]
#   LIBDIR_*  directories holding libdxil-spirv-c-shared.so.2 (tools/vkd3d-proton/build.sh makes both)
# Environment: DXIL_CORPUS (default ../shared/corpus), RUNS (default 5), MODE (heap or fixed, default heap),
#   LIST (a file of container paths instead of the whole corpus), ROUNDS (default 3): the libraries take turns,
#   ROUNDS times each, and each container keeps its fastest round, so that other load on the machine weighs on both.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
REF=$(cd "${1:?usage: run.sh LIBDIR_DXIL_SPIRV LIBDIR_DXIL_RS [OUT]}" && pwd)
OURS=$(cd "${2:?}" && pwd)
OUT=${3:-$(mktemp -d)}
mkdir -p "$OUT"
CORPUS=${DXIL_CORPUS:-$REPO/../shared/corpus}

gcc -std=c11 -O2 -Wall -Wextra -I "$REPO/crates/dxil-spirv-c/include" -I "$REPO/crates/dxil-spirv-c/tests/c" \
    "$REPO/tools/bench-capi/bench_capi.c" \
    -o "$OUT/bench_capi" -L "$OURS" -l:libdxil-spirv-c-shared.so.2
if [ -n "${LIST:-}" ]; then
    cp "$LIST" "$OUT/list"
else
    find "$CORPUS" -name '*.dxil' | sort >"$OUT/list"
fi
for round in $(seq "${ROUNDS:-3}"); do
    for lib in "$REF" "$OURS"; do
        name=$([ "$lib" = "$REF" ] && echo dxil-spirv || echo dxil-rs)
        LD_LIBRARY_PATH="$lib" "$OUT/bench_capi" --runs "${RUNS:-5}" --mode "${MODE:-heap}" "$OUT/list" \
            >"$OUT/$name.$round.tsv"
    done
done
python3 "$REPO/tools/bench-capi/compare.py" "$OUT"/dxil-spirv.*.tsv -- "$OUT"/dxil-rs.*.tsv
echo "per-container times: $OUT/{dxil-spirv,dxil-rs}.<round>.tsv"
