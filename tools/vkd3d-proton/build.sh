#!/usr/bin/env bash
# Builds vkd3d-proton (and its d3d12 test binary) so that its shader compiler is a shared
# libdxil-spirv-c-shared.so.2 chosen at run time, plus the two libraries to choose from:
#   $OUT/lib/dxil-spirv/  dxil-spirv's own C library (its CMake build, from the checkout's pinned submodule)
#   $OUT/lib/dxil-rs/     this repository's dxil-spirv-c crate
#
# Usage: tools/vkd3d-proton/build.sh VKD3D_SRC OUT
#   VKD3D_SRC  a vkd3d-proton checkout with every submodule level checked out (see README.md)
#   OUT        a build directory outside the repository
# Steps already done are skipped (delete their output to redo them). Long compiles run under nice.
set -euo pipefail

VKD3D_SRC=$(cd "${1:?usage: build.sh VKD3D_SRC OUT}" && pwd)
OUT=$(mkdir -p "${2:?usage: build.sh VKD3D_SRC OUT}" && cd "$2" && pwd)
REPO=$(cd "$(dirname "$0")/../.." && pwd)
JOBS=${JOBS:-2}
DXSP_SRC="$VKD3D_SRC/subprojects/dxil-spirv"

# vkd3d-proton's build looks for `widl`; Debian ships it as x86_64-w64-mingw32-widl.
mkdir -p "$OUT/bin"
if ! command -v widl >/dev/null && ! command -v widl-stable >/dev/null; then
    ln -sf "$(command -v x86_64-w64-mingw32-widl)" "$OUT/bin/widl"
fi
export PATH="$OUT/bin:$PATH"

# 1. Ours.
(cd "$REPO" && nice -n 10 cargo build --profile capi -p dxil-spirv-c)
mkdir -p "$OUT/lib/dxil-rs"
cp "$REPO/target/capi/libdxil_spirv_c.so" "$OUT/lib/dxil-rs/libdxil-spirv-c-shared.so.2"

# 2. A copy of the vkd3d-proton tree whose dxil-spirv subproject links the shared library.
SRC="$OUT/vkd3d-src"
if [ ! -d "$SRC" ]; then
    mkdir -p "$SRC"
    (cd "$VKD3D_SRC" && tar --exclude=./subprojects/dxil-spirv --exclude=./.git -cf - .) | tar -xf - -C "$SRC"
fi
SUB="$SRC/subprojects/dxil-spirv"
mkdir -p "$SUB/include" "$SUB/link"
cp "$REPO/crates/dxil-spirv-c/include/dxil_spirv_c.h" "$SUB/include/"
# Link time needs an unversioned name; which library loads is decided at run time.
ln -sf "$OUT/lib/dxil-rs/libdxil-spirv-c-shared.so.2" "$SUB/link/libdxil-spirv-c-shared.so"
cat >"$SUB/meson.build" <<MESON
project('dxil-spirv', ['c'], version : '2.66.0', meson_version : '>= 0.49')
dxil_spirv_dep = declare_dependency(
  include_directories : include_directories('include'),
  link_args : ['-L' + meson.current_source_dir() + '/link', '-ldxil-spirv-c-shared'])
MESON

# 3. vkd3d-proton with its tests.
BUILD="$OUT/vkd3d-build"
if [ ! -e "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" "$SRC" --buildtype=release -Denable_tests=true \
        -Dc_link_args=-lm -Dcpp_link_args=-lm >/dev/null
fi
nice -n 10 ninja -C "$BUILD" -j"$JOBS" tests/d3d12

# 4. dxil-spirv's shared library and CLI (SKIP_DXIL_SPIRV=1 leaves it out).
if [ "${SKIP_DXIL_SPIRV:-0}" != 1 ] && [ ! -e "$OUT/lib/dxil-spirv/libdxil-spirv-c-shared.so.2" ]; then
    cmake -S "$DXSP_SRC" -B "$OUT/dxil-spirv-build" -DCMAKE_BUILD_TYPE=Release -DDXIL_SPIRV_CLI=ON >/dev/null
    nice -n 10 cmake --build "$OUT/dxil-spirv-build" --target dxil-spirv dxil-spirv-c-shared -j"$JOBS"
    mkdir -p "$OUT/lib/dxil-spirv"
    cp -L "$OUT/dxil-spirv-build/libdxil-spirv-c-shared.so.2" "$OUT/lib/dxil-spirv/"
fi

echo "built: $BUILD/tests/d3d12; libraries in $OUT/lib/{dxil-spirv,dxil-rs}"
