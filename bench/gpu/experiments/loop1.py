#!/usr/bin/env python3
"""Experiment: loops whose continue block only branches back to the header get the header as
their continue target (a one-block loop), and an exit block that only branches to the merge is
bypassed. Usage: loop1.py IN.spv OUT.spv"""
import re, subprocess, sys

src, dst = sys.argv[1], sys.argv[2]
text = subprocess.run(["spirv-dis", "--raw-id", src], check=True, capture_output=True, text=True).stdout
lines = text.splitlines()
# block label -> list of instruction lines
blocks, order, cur = {}, [], None
for idx, l in enumerate(lines):
    m = re.match(r"\s*(%\w+) = OpLabel", l)
    if m:
        cur = m.group(1); blocks[cur] = [idx]; order.append(cur)
    elif cur:
        blocks[cur].append(idx)
        if re.search(r"\bOp(Branch|BranchConditional|Return|Switch|Kill|Unreachable)\b", l):
            cur = None
def body(b): return [lines[i].strip() for i in blocks[b][1:]]
drop, changed = set(), 0
for h in order:
    for i in blocks[h]:
        m = re.match(r"\s*OpLoopMerge (%\w+) (%\w+) (.*)", lines[i])
        if not m: continue
        merge, cont, ctl = m.groups()
        if cont == h or body(cont) != [f"OpBranch {h}"]: continue
        t = blocks[h][-1]
        bm = re.match(r"(\s*OpBranchConditional (%\w+)) (%\w+) (%\w+)(.*)", lines[t])
        if not bm: continue
        a, b = bm.group(3), bm.group(4)
        exit_ = b if a == cont else a if b == cont else None
        if exit_ is None: continue
        if exit_ != merge and body(exit_) != [f"OpBranch {merge}"]: continue
        new_exit = merge
        na, nb = (h, new_exit) if a == cont else (new_exit, h)
        lines[t] = f"{bm.group(1)} {na} {nb}{bm.group(5)}"
        lines[i] = lines[i].replace(f"OpLoopMerge {merge} {cont}", f"OpLoopMerge {merge} {h}")
        # phis in the header: incoming from cont -> from h; in merge: from exit -> from h
        for j in blocks[h]:
            lines[j] = re.sub(rf"({re.escape(cont)})(\s|$)", lambda mm: h + mm.group(2), lines[j]) if "OpPhi" in lines[j] else lines[j]
        if exit_ != merge:
            for j in blocks[merge]:
                if "OpPhi" in lines[j]:
                    lines[j] = re.sub(rf"{re.escape(exit_)}(\s|$)", lambda mm: h + mm.group(1), lines[j])
            drop.update(blocks[exit_])
        drop.update(blocks[cont])
        changed += 1
out = "\n".join(l for k, l in enumerate(lines) if k not in drop) + "\n"
version = re.search(r"; Version: (\d+\.\d+)", text).group(1)
subprocess.run(["spirv-as", "--preserve-numeric-ids", "--target-env", "spv" + version, "-o", dst, "-"], check=True, input=out, text=True)
env = "vulkan1.1" if version <= "1.3" else "vulkan1.2"
subprocess.run(["spirv-val", "--target-env", env, dst], check=True)
print(f"{src}: {changed} loops made one-block")
