#!/usr/bin/env bash
# Compiles every kernel with DXC into DXIL (kernels/NAME.dxil) and into DXC's own SPIR-V
# (kernels/NAME.spv), with D3D memory layouts and the register shifts of the default binding
# model (b 0, t 100, u 200, s 300), as the conformance case format prescribes for `--spirv`.
# DXC is looked up at ../shared/tools/dxc beside the repository, or $DXC.
set -euo pipefail
cd "$(dirname "$0")/kernels"
DXC=${DXC:-../../../../shared/tools/dxc/bin/dxc}
shifts="-fvk-b-shift 0 all -fvk-t-shift 100 all -fvk-u-shift 200 all -fvk-s-shift 300 all"
for src in *.hlsl; do
    name=${src%.hlsl}
    profile=cs_6_0
    extra=()
    case $name in
        half_math) profile=cs_6_2; extra=(-enable-16bit-types) ;;
    esac
    "$DXC" -T $profile -E main "${extra[@]}" -Fo "$name.dxil" "$src" >/dev/null
    "$DXC" -T $profile -E main "${extra[@]}" -spirv -fspv-target-env=vulkan1.2 -fvk-use-dx-layout \
        $shifts -Fo "$name.spv" "$src" >/dev/null
done
