#!/usr/bin/env python3
"""Makes the reference route's modules: the reference DXIL → SPIR-V translator (dxil-spirv's CLI)
on each kernel's DXIL, rebound to the conformance cases' default binding model.

dxil-spirv binds register r of space s at (set s, binding r) for every register class, so that
t0 and u0 share a binding. This script runs it with raw and structured buffers as storage buffers
(`--ssbo-uav --ssbo-srv`, as vkd3d-proton does where the device's alignment allows), then moves each
binding by its class (b + 0, t + 100, u + 200, s + 300), read from the variable's type: uniform
blocks are CBVs, storage buffers decorated NonWritable and sampled images (and uniform texel
buffers) SRVs, other storage buffers and storage images UAVs, samplers samplers. The result is
checked with spirv-val (scalar block layout, which the runtime enables and the reference relies on) and written to kernels/NAME.ref.spv.

Usage: ref.py PATH/TO/dxil-spirv [NAME...]
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
SHIFT = {"b": 0, "t": 100, "u": 200, "s": 300}


def dis(path):
    return subprocess.run(["spirv-dis", "--raw-id", path], check=True, capture_output=True,
                          text=True).stdout


def classes(text):
    """Register class of each decorated variable, from its type."""
    types = {}
    for line in text.splitlines():
        m = re.match(r"\s*(%\w+) = (Op\w+)(.*)", line)
        if m:
            types[m.group(1)] = (m.group(2), m.group(3).split())
    nonwritable = set(re.findall(r"OpDecorate (%\w+) NonWritable", text))
    member_nw = set(re.findall(r"OpMemberDecorate (%\w+) \d+ NonWritable", text))
    out = {}
    for var, (op, args) in types.items():
        if op != "OpVariable":
            continue
        ptr, storage = args[0], args[1]
        pointee = types[ptr][1][1]
        # Look through descriptor arrays.
        while types.get(pointee, ("",))[0] in ("OpTypeArray", "OpTypeRuntimeArray"):
            pointee = types[pointee][1][0]
        kind = types.get(pointee, ("", []))
        if storage == "Uniform":
            out[var] = "b"
        elif storage == "StorageBuffer":
            out[var] = "t" if var in nonwritable or pointee in member_nw else "u"
        elif storage == "UniformConstant":
            if kind[0] == "OpTypeSampler":
                out[var] = "s"
            elif kind[0] == "OpTypeImage":
                # OpTypeImage sampled-type dim depth arrayed ms sampled format
                out[var] = "t" if kind[1][5] == "1" else "u"
    return out


def rebind(text):
    cls = classes(text)
    lines = []
    for line in text.splitlines():
        m = re.match(r"(\s*OpDecorate (%\w+) Binding )(\d+)$", line)
        if m:
            var = m.group(2)
            if var not in cls:
                raise SystemExit(f"no register class for {var}")
            line = m.group(1) + str(int(m.group(3)) + SHIFT[cls[var]])
        lines.append(line)
    return "\n".join(lines) + "\n"


def main():
    tool = sys.argv[1]
    names = sys.argv[2:] or sorted(f[:-5] for f in os.listdir(KERNELS) if f.endswith(".hlsl"))
    for name in names:
        src = os.path.join(KERNELS, name + ".dxil")
        raw = f"/tmp/{name}.ref.raw.spv"
        subprocess.run([tool, src, "--ssbo-uav", "--ssbo-srv", "--output", raw], check=True)
        text = dis(raw)
        version = re.search(r"; Version: (\d+\.\d+)", text).group(1)
        out = os.path.join(KERNELS, name + ".ref.spv")
        subprocess.run(["spirv-as", "--preserve-numeric-ids", "--target-env", "spv" + version, "-o",
                        out, "-"], check=True, input=rebind(text), text=True)
        env = "vulkan1.1" if version <= "1.3" else "vulkan1.2"
        subprocess.run(["spirv-val", "--scalar-block-layout", "--target-env", env, out], check=True)
        print("wrote", out)


if __name__ == "__main__":
    main()
