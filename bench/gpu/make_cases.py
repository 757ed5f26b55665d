#!/usr/bin/env python3
"""Writes the benchmark suite's cases: for each kernel a small case (`kernels/NAME.toml`, run on
lavapipe in CI, every output word checked) and a timing case (`kernels/NAME.gpu.toml`, sized to
keep a large GPU busy for tens to hundreds of microseconds, its leading output words checked).

Inputs come from the case format's generators (xorshift32, reproduced here to compute the
expected words); floats are drawn as bit patterns in [0x3F800000, 0x3FFFFFFF], i.e. uniformly
spaced values in [1, 2). Inputs that no generator can describe (CSR row pointers) are binary
files beside the case: small ones are committed, the timing case's are written by
`python3 make_cases.py --data` (run.sh does this) and ignored by git.

Float expectations carry a tolerance in units in the last place where the GPU may round or
contract differently from this script (which computes in double precision and rounds once);
results are kept away from zero so that a relative tolerance is meaningful.

Usage: make_cases.py            write every case and data file (slow: minutes of pure Python)
       make_cases.py --data     only the timing cases' data files
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
F1, F2 = 0x3F800000, 0x3FFFFFFF  # float bit patterns of [1, 2)


def stream(seed):
    """The case format's xorshift32 words, endlessly."""
    x = seed
    while True:
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        yield x


def xorshift(seed, n):
    g = stream(seed)
    return [next(g) for _ in range(n)]


def pick(seed, lo, hi, wanted):
    """{index: word} of a random-range resource for the given word indices."""
    wanted = set(wanted)
    last = max(wanted)
    span = hi - lo + 1
    out = {}
    for i, x in enumerate(stream(seed)):
        if i in wanted:
            out[i] = lo + x % span
        if i >= last:
            return out


def rand_range(seed, lo, hi, n):
    span = hi - lo + 1
    return [lo + x % span for x in xorshift(seed, n)]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def floats(seed, n):
    return [bits_f32(b) for b in rand_range(seed, F1, F2, n)]


class Case:
    def __init__(self, shader, dispatch):
        self.lines = [f'shader = "{shader}"', f"dispatch = {list(dispatch)}", ""]

    def resource(self, bind, kind, size, init, stride=None, fmt=None):
        self.lines.append("[[resource]]")
        self.lines.append(f'bind = "{bind}"')
        self.lines.append(f'kind = "{kind}"')
        if stride is not None:
            self.lines.append(f"stride = {stride}")
        if fmt is not None:
            self.lines.append(f'format = "{fmt}"')
        self.lines.append(f"size = {size}")
        if isinstance(init, list):
            self.lines.append(f"init = {init}")
        elif isinstance(init, dict):
            self.lines.append(f'init = {{ file = "{init["file"]}" }}')
        else:
            self.lines.append(f'init = "{init}"')
        self.lines.append("")

    def expect(self, bind, u32=None, f32s=None, tol=0):
        self.lines.append("[[expect]]")
        self.lines.append(f'bind = "{bind}"')
        if u32 is not None:
            self.lines.append(f"u32 = {u32}")
        else:
            self.lines.append("f32 = [" + ", ".join(repr(v) for v in f32s) + "]")
            if tol:
                self.lines.append(f"tolerance_ulp = {tol}")
        self.lines.append("")

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.lines).rstrip() + "\n")


def constants(words):
    """A constant buffer's init: floats as their bits, ints as they are."""
    return [f32_bits(w) if isinstance(w, float) else w for w in words]


# Each kernel: a function (size, check) -> Case, where `check` is how many leading output words
# (or elements) to compute; None = all of them.


def copy_scale(n, check):
    c = Case("copy_scale.dxil", [n // 256, 1, 1])
    c.resource("t0", "typed", n * 16, f"random-range:1:{F1}:{F2}", fmt="r32g32b32a32_float")
    c.resource("u0", "typed", n * 16, "zero", fmt="r32g32b32a32_float")
    c.resource("b0", "constant", 256, constants([2.0, 0.5]))
    k = n * 4 if check is None else check
    c.expect("u0", f32s=[f32(x * 2.0 + 0.5) for x in floats(1, k)])
    return c


def bab_stream(n, check):
    c = Case("bab_stream.dxil", [n // 256, 1, 1])
    c.resource("t0", "raw", n * 16, "random-u32:2")
    c.resource("t1", "raw", n * 16, "random-u32:3")
    c.resource("u0", "raw", n * 16, "zero")
    k = n * 4 if check is None else check
    a, b = xorshift(2, k), xorshift(3, k)
    c.expect("u0", u32=[(x + 3 * y) & 0xFFFFFFFF for x, y in zip(a, b)])
    return c


def scan_wave(n, check):
    words = n * 4
    c = Case("scan_wave.dxil", [n // 256, 1, 1])
    c.resource("t0", "raw", words * 4, "random-range:4:0:1000")
    c.resource("u0", "raw", words * 4, "zero")
    k = words if check is None else check
    v = rand_range(4, 0, 1000, k)
    out, acc = [], 0
    for i, x in enumerate(v):
        acc = x if i % 1024 == 0 else acc + x
        out.append(acc)
    c.expect("u0", u32=out)
    return c


def matmul_tiled(n, check):
    c = Case("matmul_tiled.dxil", [n // 16, n // 16, 1])
    c.resource("t0", "structured", n * n * 4, f"random-range:5:{F1}:{F2}", stride=4)
    c.resource("t1", "structured", n * n * 4, f"random-range:6:{F1}:{F2}", stride=4)
    c.resource("u0", "structured", n * n * 4, "zero", stride=4)
    c.resource("b0", "constant", 256, [n])
    rows = n if check is None else max(1, check // n)
    cols = n if check is None else min(n, check)
    a = floats(5, rows * n)
    b = floats(6, n * n)
    out = []
    for i in range(rows):
        for j in range(cols):
            out.append(f32(sum(a[i * n + k] * b[k * n + j] for k in range(n))))
    c.expect("u0", f32s=out, tol=max(64, n))
    return c


def nbody(n, check):
    c = Case("nbody.dxil", [n // 256, 1, 1])
    c.resource("t0", "structured", n * 16, f"random-range:7:{F1}:{F2}", stride=16)
    c.resource("u0", "structured", n * 16, "zero", stride=16)
    c.resource("b0", "constant", 256, constants([n, 0.01]))
    bodies = floats(7, n * 4)
    rows = n if check is None else check // 4
    out = []
    for i in range(rows):
        me = bodies[4 * i : 4 * i + 4]
        acc = [0.0, 0.0, 0.0, 0.0]
        for j in range(n):
            o = bodies[4 * j : 4 * j + 4]
            d = [abs(o[0] - me[0]), abs(o[1] - me[1]), abs(o[2] - me[2])]
            inv = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 0.01) ** -0.5
            s = o[3] * inv * inv * inv
            acc[0] += d[0] * s
            acc[1] += d[1] * s
            acc[2] += d[2] * s
            acc[3] += o[3] * inv
        out.extend(f32(x) for x in acc)
    c.expect("u0", f32s=out, tol=8192)
    return c


def blur5x5(w, h, check):
    c = Case("blur5x5.dxil", [w // 16, h // 16, 1])
    c.resource("t0", "structured", w * h * 4, f"random-range:8:{F1}:{F2}", stride=4)
    c.resource("u0", "structured", w * h * 4, "zero", stride=4)
    c.resource("b0", "constant", 256, [w, h])
    k = w * h if check is None else check
    rows = (k + w - 1) // w + 2
    img = floats(8, min(h, rows) * w)
    out = []
    for i in range(k):
        x, y = i % w, i // w
        s = 0.0
        for dy in range(-2, 3):
            for dx in range(-2, 3):
                xx = min(max(x + dx, 0), w - 1)
                yy = min(max(y + dy, 0), h - 1)
                s += img[yy * w + xx]
        out.append(f32(s * f32(0.04)))
    c.expect("u0", f32s=out, tol=16)
    return c


def bitonic_local(n, check):
    c = Case("bitonic_local.dxil", [n // 1024, 1, 1])
    c.resource("t0", "structured", n * 4, "random-u32:9", stride=4)
    c.resource("u0", "structured", n * 4, "zero", stride=4)
    k = n if check is None else check
    keys = xorshift(9, ((k + 1023) // 1024) * 1024)
    out = []
    for b in range(0, len(keys), 1024):
        out.extend(sorted(keys[b : b + 1024]))
    c.expect("u0", u32=out[:k])
    return c


def histogram(groups):
    words = groups * 1024
    c = Case("histogram.dxil", [groups, 1, 1])
    c.resource("t0", "raw", words * 4, "random-u32:10")
    c.resource("u0", "raw", 1024, "zero")
    bins = [0] * 256
    g = stream(10)
    for v in (next(g) for _ in range(words)):
        bins[v & 0xFF] += 1
        bins[(v >> 8) & 0xFF] += 1
        bins[(v >> 16) & 0xFF] += 1
        bins[v >> 24] += 1
    c.expect("u0", u32=bins)
    return c


def reduce_dot(n, groups, check):
    stride = groups * 256
    c = Case("reduce_dot.dxil", [groups, 1, 1])
    c.resource("t0", "structured", n * 4, f"random-range:11:{F1}:{F2}", stride=4)
    c.resource("t1", "structured", n * 4, f"random-range:12:{F1}:{F2}", stride=4)
    c.resource("u0", "structured", groups * 4, "zero", stride=4)
    c.resource("b0", "constant", 256, [n, stride])
    k = groups if check is None else check
    sums = [0.0] * k
    for i, (x, y) in enumerate(zip(stream(11), stream(12))):
        if i >= n:
            break
        g = (i % stride) // 256
        if g < k:
            sums[g] += bits_f32(F1 + x % (F2 - F1 + 1)) * bits_f32(F1 + y % (F2 - F1 + 1))
    out = [f32(s) for s in sums]
    c.expect("u0", f32s=out, tol=256)
    return c


def gather_float3(items, n, check):
    c = Case("gather_float3.dxil", [n // 256, 1, 1])
    c.resource("t0", "structured", items * 28, f"random-range:13:{F1}:{F2}", stride=28)
    c.resource("t1", "structured", n * 4, f"random-range:14:0:{items - 1}", stride=4)
    c.resource("u0", "structured", n * 16, "zero", stride=16)
    k = n if check is None else check // 4
    idx = rand_range(14, 0, items - 1, k)
    data = pick(13, F1, F2, [7 * i + j for i in idx for j in range(7)])
    out = []
    for i in idx:
        e = [data[7 * i + j] for j in range(7)]
        p = [bits_f32(x) for x in e[0:3]]
        q = [bits_f32(x) for x in e[3:6]]
        out.extend(f32(p[j] + q[j]) for j in range(3))
        out.append(bits_f32(e[6]))
    c.expect("u0", f32s=out)
    return c


def cbuffer_math(n, check):
    c = Case("cbuffer_math.dxil", [n // 256, 1, 1])
    c.resource("t0", "structured", n * 16, f"random-range:15:{F1}:{F2}", stride=16)
    c.resource("u0", "structured", n * 16, "zero", stride=16)
    m = [[0.25 * ((r * 4 + col) % 5 + 1) for col in range(4)] for r in range(4)]
    coeffs = [[0.125 * (1 + (i + j) % 7) for j in range(4)] for i in range(16)]
    offset = [0.5, 0.25, 0.75, 1.0]
    # HLSL packs cbuffer matrices column by column.
    cb = [m[r][col] for col in range(4) for r in range(4)]
    cb += [x for row in coeffs for x in row] + offset
    c.resource("b0", "constant", 512, constants(cb))
    k = n if check is None else check // 4
    src = floats(15, k * 4)
    out = []
    for i in range(k):
        s = src[4 * i : 4 * i + 4]
        v = [sum(m[r][col] * s[col] for col in range(4)) + offset[r] for r in range(4)]
        cx, cy, cz, cw = coeffs[i & 15]
        out.extend(f32(((cx * x + cy) * x + cz) * x + cw) for x in v)
    c.expect("u0", f32s=out, tol=64)
    return c


def half_math(n, check):
    c = Case("half_math.dxil", [n // 256, 1, 1])
    c.resource("t0", "raw", n * 8, "random-u32:16")
    c.resource("u0", "raw", n * 16, "zero")
    c.resource("b0", "constant", 256, constants([0.25, 0.5, 0.75, 0.0]))
    k = n if check is None else check // 4
    words = xorshift(16, k * 2)
    out = []
    for i in range(k):
        halves = []
        for w in words[2 * i : 2 * i + 2]:
            halves += [w & 0xFFFF, w >> 16]
        for h in halves:
            x = struct.unpack("<e", struct.pack("<H", (h & 0x3FF) | 0x3C00))[0]
            xa = f16(x * 0.25)
            y = x
            for _ in range(8):
                y = f16(f16(y * xa) + 0.5)
            q = f16(x + f16(0.75 * f16(y - x)))
            out.append(f32(f16(q * x)))
    # A few half-precision ulps (2^13 single-precision ulps each): contraction and lerp's
    # expansion may round differently.
    c.expect("u0", f32s=out, tol=4 << 13)
    return c


def atomics(n):
    c = Case("atomics.dxil", [n // 256, 1, 1])
    c.resource("t0", "raw", n * 4, "random-u32:17")
    c.resource("u0", "raw", 12288, "zero")
    c.resource("u1", "raw", 4096, "fill-u32:4294967295")
    count, hi, lo, bits = [0] * 1024, [0] * 1024, [0xFFFFFFFF] * 1024, [0] * 1024
    g = stream(17)
    for v in (next(g) for _ in range(n)):
        s = v >> 22
        count[s] += 1
        hi[s] = max(hi[s], v & 0xFFFF)
        lo[s] = min(lo[s], v & 0xFFFF)
        bits[s] |= 1 << (v & 31)
    c.expect("u0", u32=count + hi + bits)
    c.expect("u1", u32=lo)
    return c


def struct_stride(n, check):
    c = Case("struct_stride.dxil", [n // 256, 1, 1])
    c.resource("t0", "structured", n * 20, "random-u32:18", stride=20)
    c.resource("u0", "structured", n * 36, "zero", stride=36)
    k = n if check is None else check // 9
    src = xorshift(18, k * 5)
    out = []
    m = 0xFFFFFFFF
    for i in range(k):
        a0, a1, a2, b0, b1 = src[5 * i : 5 * i + 5]
        out += [(a0 + b0) & m, (a1 + b0) & m, (a2 + b0) & m]
        out += [a0 ^ b1, a1 ^ b1, a2 ^ b1]
        out += [(a0 * b0) & m, (a1 * b1) & m, (a2 + b0 + b1) & m]
    c.expect("u0", u32=out)
    return c


def wave_reduce(groups, check):
    c = Case("wave_reduce.dxil", [groups, 1, 1])
    c.resource("t0", "raw", groups * 4096, "random-range:19:0:65535")
    c.resource("u0", "raw", groups * 12, "zero")
    k = groups if check is None else check // 3
    v = rand_range(19, 0, 65535, k * 1024)
    out = []
    for g in range(k):
        block = v[g * 1024 : g * 1024 + 1024]
        odd = sum(1 for t in range(256) for x in block[4 * t : 4 * t + 2] if x & 1)
        out += [sum(block), max(block), odd]
    c.expect("u0", u32=out)
    return c


def dyn_loop(n, data_words, check):
    c = Case("dyn_loop.dxil", [n // 256, 1, 1])
    c.resource("t0", "structured", n * 4, "random-range:20:0:63", stride=4)
    c.resource("t1", "structured", data_words * 4, "random-u32:21", stride=4)
    c.resource("u0", "structured", n * 4, "zero", stride=4)
    c.resource("b0", "constant", 256, [data_words - 1])
    k = n if check is None else check
    counts = rand_range(20, 0, 63, k)
    data = xorshift(21, data_words)
    out = []
    for i in range(k):
        h = i
        for j in range(counts[i]):
            h = (h * 1664525 + 1013904223) & 0xFFFFFFFF
            h ^= data[(i + j * 4099) & (data_words - 1)]
        out.append(h)
    c.expect("u0", u32=out)
    return c


def spmv_rows(rows):
    """Row pointers: row lengths 0..31 from xorshift seed 22, as little-endian u32 words."""
    starts, at = [0], 0
    for x in xorshift(22, rows):
        at += x % 32
        starts.append(at)
    return starts


def spmv_csr(rows, data_file, check, write_data):
    starts = spmv_rows(rows)
    nnz = starts[-1]
    if write_data:
        with open(os.path.join(KERNELS, data_file), "wb") as f:
            f.write(struct.pack(f"<{len(starts)}I", *starts))
    c = Case("spmv_csr.dxil", [(rows + 255) // 256, 1, 1])
    c.resource("t0", "structured", (rows + 1) * 4, {"file": data_file}, stride=4)
    c.resource("t1", "structured", nnz * 4, f"random-range:23:0:{rows - 1}", stride=4)
    c.resource("t2", "structured", nnz * 4, f"random-range:24:{F1}:{F2}", stride=4)
    c.resource("t3", "structured", rows * 4, f"random-range:25:{F1}:{F2}", stride=4)
    c.resource("u0", "structured", rows * 4, "zero", stride=4)
    c.resource("b0", "constant", 256, [rows])
    k = rows if check is None else check
    cols = rand_range(23, 0, rows - 1, starts[k])
    vals = floats(24, starts[k])
    x = floats(25, rows)
    out = [f32(sum(vals[j] * x[cols[j]] for j in range(starts[r], starts[r + 1]))) for r in range(k)]
    c.expect("u0", f32s=out, tol=64)
    return c


def main():
    data_only = "--data" in sys.argv[1:]
    if data_only:
        spmv_csr(1 << 20, "spmv_csr.gpu.rows.bin", 1, True)
        return
    # (name, small case, timing case); the timing case checks its first 64..1024 words.
    cases = [
        ("copy_scale", lambda: copy_scale(1024, None), lambda: copy_scale(8 << 20, 1024)),
        ("bab_stream", lambda: bab_stream(1024, None), lambda: bab_stream(4 << 20, 1024)),
        ("scan_wave", lambda: scan_wave(1024, None), lambda: scan_wave(4 << 20, 2048)),
        ("matmul_tiled", lambda: matmul_tiled(64, None), lambda: matmul_tiled(1024, 64)),
        ("nbody", lambda: nbody(512, None), lambda: nbody(32768, 32)),
        ("blur5x5", lambda: blur5x5(64, 48, None), lambda: blur5x5(4096, 4096, 512)),
        ("bitonic_local", lambda: bitonic_local(2048, None), lambda: bitonic_local(16 << 20, 1024)),
        ("histogram", lambda: histogram(4), lambda: histogram(16384)),
        ("reduce_dot", lambda: reduce_dot(8192, 4, None), lambda: reduce_dot(16 << 20, 1024, 2)),
        ("gather_float3", lambda: gather_float3(1024, 1024, None),
         lambda: gather_float3(4 << 20, 8 << 20, 512)),
        ("cbuffer_math", lambda: cbuffer_math(1024, None), lambda: cbuffer_math(8 << 20, 512)),
        ("half_math", lambda: half_math(1024, None), lambda: half_math(8 << 20, 512)),
        ("atomics", lambda: atomics(1024), lambda: atomics(4 << 20)),
        ("struct_stride", lambda: struct_stride(1024, None), lambda: struct_stride(3 << 20, 576)),
        ("wave_reduce", lambda: wave_reduce(4, None), lambda: wave_reduce(16384, 192)),
        ("dyn_loop", lambda: dyn_loop(1024, 4096, None), lambda: dyn_loop(4 << 20, 4 << 20, 256)),
        ("spmv_csr", lambda: spmv_csr(1024, "spmv_csr.rows.bin", None, True),
         lambda: spmv_csr(1 << 20, "spmv_csr.gpu.rows.bin", 256, True)),
    ]
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for name, small, big in cases:
        if only and name not in only:
            continue
        small().write(os.path.join(KERNELS, f"{name}.toml"))
        big().write(os.path.join(KERNELS, f"{name}.gpu.toml"))
        print("wrote", name, flush=True)


if __name__ == "__main__":
    main()
