#!/usr/bin/env python3
"""Compares two bench_capi outputs (dxil-spirv's library, then dxil-rs's).

Usage: compare.py DXIL_SPIRV.tsv... -- DXIL_RS.tsv...
With several files per library (rounds), each container keeps its fastest round. Prints, over the containers both libraries translate: the median of the per-container medians, p90, the worst
container and the ratio; then the counts of containers each library translates or refuses. Times in µs.
"""
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            name, result, median, fastest, words = parts
            rows[name] = (int(result), int(median) / 1000.0, int(fastest) / 1000.0, int(words))
    return rows


def load_rounds(paths):
    best = {}
    for p in paths:
        for k, v in load(p).items():
            if k not in best or v[1] < best[k][1]:
                best[k] = v
    return best


def stats(values):
    v = sorted(values)
    if not v:
        return (0.0, 0.0, 0.0)
    return (v[len(v) // 2], v[len(v) * 9 // 10], v[-1])


def main():
    args = sys.argv[1:]
    if "--" in args:
        i = args.index("--")
        ref, ours = load_rounds(args[:i]), load_rounds(args[i + 1:])
    else:
        ref, ours = load(args[0]), load(args[1])
    both = [k for k in ref if k in ours and ref[k][0] == 0 and ours[k][0] == 0]
    r = stats([ref[k][1] for k in both])
    o = stats([ours[k][1] for k in both])
    worst = max(both, key=lambda k: ours[k][1]) if both else "-"
    print(f"containers: {len(ref)} listed; both translate {len(both)}")
    print(f"dxil-spirv: median {r[0]:.1f} us, p90 {r[1]:.1f} us, worst {r[2]:.1f} us")
    print(f"dxil-rs:    median {o[0]:.1f} us, p90 {o[1]:.1f} us, worst {o[2]:.1f} us ({worst})")
    if r[0]:
        print(f"median ratio dxil-rs / dxil-spirv: {o[0] / r[0]:.3f}")
    over = [k for k in ours if ours[k][0] == 0 and ours[k][1] > 5000.0]
    print(f"dxil-rs containers over 5 ms: {len(over)}")
    for name, rows in (("dxil-spirv", ref), ("dxil-rs", ours)):
        ok = sum(1 for v in rows.values() if v[0] == 0)
        print(f"{name}: {ok} translated, {len(rows) - ok} refused")
    only_ref = sorted(k for k in ref if ref[k][0] == 0 and k in ours and ours[k][0] != 0)
    print(f"translated by dxil-spirv only: {len(only_ref)}")
    all_ours = stats([v[1] for v in ours.values() if v[0] == 0])
    print(f"dxil-rs over everything it translates: median {all_ours[0]:.1f} us, worst {all_ours[2]:.1f} us")


if __name__ == "__main__":
    main()
