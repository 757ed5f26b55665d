#!/usr/bin/env bash
# Runs vkd3d-proton's d3d12 tests one per process, with a time limit, on one shader compiler library.
#
# Usage: tools/vkd3d-proton/run-suite.sh VKD3D_SRC OUT IMPL [RESULTS.tsv]
#   VKD3D_SRC  the vkd3d-proton checkout (its tests/d3d12_tests.h lists the tests)
#   OUT        the directory build.sh filled
#   IMPL       dxil-spirv or dxil-rs: the library directory under OUT/lib put first on LD_LIBRARY_PATH
#              (with D3D12 set to a build that links dxil-spirv statically, the name only labels the results)
# Environment:
#   D3D12        the test binary (default OUT/vkd3d-build/tests/d3d12)
#   TESTS        a file with the test names to run (default: every test)
#   SHADER_MODEL passed as VKD3D_SHADER_MODEL (e.g. 6_6) when set
#   JOBS         tests run at once (default 2)     TIMEOUT  seconds per test (default 120)
#   RETRY=1      tests that crash or time out run once more, alone (lavapipe crashes under parallel load); the
#                second result counts, and the line gets a seventh field "retried"
#   DUMP=1       vkd3d-proton dumps every shader it compiles into OUT/dump/<test>/ (<hash>.dxil, <hash>.dxbc,
#                <hash>.spv): report.py classifies tests from it
#   VK_DRIVER_FILES  the Vulkan driver (default: lavapipe)
# Writes one line per test to RESULTS.tsv (default OUT/results-IMPL[-SM].tsv):
#   name, result (pass, skip, fail, crash, timeout), checks executed, failures, skipped, seconds;
# each test's output goes to OUT/logs-IMPL[-SM]/<name>.log.
set -euo pipefail

VKD3D_SRC=${1:?usage: run-suite.sh VKD3D_SRC OUT IMPL [RESULTS.tsv]}
OUT=$(cd "${2:?}" && pwd)
IMPL=${3:?}
SUFFIX=$IMPL${SHADER_MODEL:+-sm$SHADER_MODEL}
RESULTS=${4:-$OUT/results-$SUFFIX.tsv}
LIB="$OUT/lib/$IMPL"
D3D12=${D3D12:-$OUT/vkd3d-build/tests/d3d12}
LOGS="$OUT/logs-$SUFFIX"
if [ -z "${D3D12_STATIC:-}" ] && [ ! -e "$LIB/libdxil-spirv-c-shared.so.2" ]; then
    echo "no library in $LIB (run build.sh, or set D3D12_STATIC=1 for a statically linked D3D12)" >&2
    exit 1
fi
[ -x "$D3D12" ] || { echo "no test binary at $D3D12 (run build.sh)" >&2; exit 1; }
mkdir -p "$LOGS" "$OUT/dump"

LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT
if [ -n "${TESTS:-}" ]; then
    cp "$TESTS" "$LIST"
else
    sed -n 's/^decl_test(\([A-Za-z0-9_]*\));.*/\1/p' "$VKD3D_SRC/tests/d3d12_tests.h" >"$LIST"
fi

export D3D12 LIB LOGS OUT
export TIMEOUT=${TIMEOUT:-120}
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.json}
export DUMP=${DUMP:-0}
export SM=${SHADER_MODEL:-}

run_one() {
    local t=$1 log="$LOGS/$1.log" start rc result executed failures skipped summary
    local -a env=(VKD3D_TEST_MATCH="$t" VKD3D_SHADER_CACHE_PATH=0 LD_LIBRARY_PATH="$LIB")
    [ -n "$SM" ] && env+=(VKD3D_SHADER_MODEL="$SM")
    if [ "$DUMP" = 1 ]; then
        rm -rf "$OUT/dump/$t"
        mkdir -p "$OUT/dump/$t"
        env+=(VKD3D_SHADER_DUMP_PATH="$OUT/dump/$t")
    fi
    start=$(date +%s%N)
    set +e
    env "${env[@]}" timeout -k 10 "$TIMEOUT" "$D3D12" >"$log" 2>&1 </dev/null
    rc=$?
    set -e
    summary=$(grep -a -E '^d3d12: [0-9]+ tests executed' "$log" | tail -1 || true)
    executed=$(sed -E 's/^d3d12: ([0-9]+) tests executed.*/\1/' <<<"$summary")
    failures=$(sed -E 's/.*\(([0-9]+) failures.*/\1/' <<<"$summary")
    skipped=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$summary")
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        result=timeout
    elif [ -z "$summary" ] || [ "$rc" -gt 128 ]; then
        result=crash
    elif [ "$rc" = 0 ] && [ "${executed:-0}" = 0 ]; then
        result=skip
    elif [ "$rc" = 0 ]; then
        result=pass
    else
        result=fail
    fi
    local tenths=$((($(date +%s%N) - start) / 100000000))
    printf '%s\t%s\t%s\t%s\t%s\t%d.%d\n' "$t" "$result" "${executed:--}" "${failures:--}" \
        "${skipped:--}" $((tenths / 10)) $((tenths % 10))
}
export -f run_one

xargs -a "$LIST" -P "${JOBS:-2}" -I{} bash -c 'run_one "$@"' _ {} | tee "$RESULTS.partial"
if [ "${RETRY:-0}" = 1 ]; then
    awk -F'\t' '$2 == "crash" || $2 == "timeout" { print $1 }' "$RESULTS.partial" >"$LIST.retry"
    awk -F'\t' '$2 != "crash" && $2 != "timeout"' "$RESULTS.partial" >"$RESULTS.kept"
    while read -r t; do
        printf '%s\tretried\n' "$(run_one "$t")"
    done <"$LIST.retry" | tee -a "$RESULTS.kept"
    mv "$RESULTS.kept" "$RESULTS.partial"
    rm -f "$LIST.retry"
fi
sort "$RESULTS.partial" >"$RESULTS"
rm -f "$RESULTS.partial"
echo "results: $RESULTS ($(cut -f2 "$RESULTS" | sort | uniq -c | tr '\n' ' '))"
