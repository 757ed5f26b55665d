#!/usr/bin/env python3
"""Experiment: our SPIR-V with the UMin clamps of groupshared (Workgroup) indices removed.

Reads a module, replaces each `UMin(i, n)` used as an index of an OpAccessChain into a Workgroup
variable by `i` (the clamp itself is left dead), and writes the result. Uses spirv-dis/spirv-as.

Usage: noclamp.py IN.spv OUT.spv
"""

import re
import subprocess
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    text = subprocess.run(["spirv-dis", "--raw-id", src], check=True, capture_output=True,
                          text=True).stdout
    lines = text.splitlines()
    umin = {}
    workgroup_ptrs = set()
    workgroup_vars = set()
    for line in lines:
        m = re.match(r"\s*(%\w+) = OpExtInst %\w+ %\w+ UMin (%\w+) (%\w+)", line)
        if m:
            umin[m.group(1)] = m.group(2)
        m = re.match(r"\s*(%\w+) = OpTypePointer Workgroup", line)
        if m:
            workgroup_ptrs.add(m.group(1))
        m = re.match(r"\s*(%\w+) = OpVariable (%\w+) Workgroup", line)
        if m:
            workgroup_vars.add(m.group(1))
    out = []
    changed = 0
    for line in lines:
        m = re.match(r"(\s*%\w+ = OpAccessChain (%\w+) (%\w+))(.*)", line)
        if m and (m.group(2) in workgroup_ptrs or m.group(3) in workgroup_vars):
            ids = m.group(4).split()
            new = [umin.get(i, i) for i in ids]
            changed += sum(1 for a, b in zip(ids, new) if a != b)
            line = m.group(1) + " " + " ".join(new)
        out.append(line)
    version = re.search(r"; Version: (\d+\.\d+)", text).group(1)
    subprocess.run(["spirv-as", "--target-env", "spv" + version, "-o", dst, "-"], check=True,
                   input="\n".join(out) + "\n", text=True)
    env = "vulkan1.1" if version <= "1.3" else "vulkan1.2"
    subprocess.run(["spirv-val", "--target-env", env, dst], check=True)
    print(f"{src}: {changed} clamped indices unclamped")


if __name__ == "__main__":
    main()
