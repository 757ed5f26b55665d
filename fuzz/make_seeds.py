#!/usr/bin/env python3
"""Seeds every fuzz target's corpus folder (fuzz/corpus/<target>/) from the shared DXIL corpus.

container, shader: whole containers; bitstream, module: the DXIL part's bitcode; text, assemble,
translate: DXC's listings; rootsig: RTS0 payloads (standalone blobs and shader parts); from_spirv: the
SPIR-V modules of the corpus and of corpus-spirv beside it. Usage:
    python3 fuzz/make_seeds.py [CORPUS] [--every N]
"""
import os
import struct
import sys


def parts(data):
    if data[:4] != b"DXBC" or len(data) < 32:
        return
    count = struct.unpack_from("<I", data, 28)[0]
    for i in range(min(count, 64)):
        if 32 + 4 * i + 4 > len(data):
            return
        off = struct.unpack_from("<I", data, 32 + 4 * i)[0]
        if off + 8 > len(data):
            continue
        fourcc = data[off:off + 4]
        size = struct.unpack_from("<I", data, off + 4)[0]
        yield fourcc, data[off + 8:off + 8 + size]


def bitcode(program):
    # Program header: version, size in dwords, then 'DXIL', DXIL version, bitcode offset
    # (from the 'DXIL' field), bitcode size.
    if len(program) < 24:
        return None
    offset, size = struct.unpack_from("<II", program, 16)
    start = 8 + offset
    return program[start:start + size]


def main():
    args = [a for a in sys.argv[1:]]
    every = 1
    if "--every" in args:
        i = args.index("--every")
        every = int(args[i + 1])
        del args[i:i + 2]
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = args[0] if args else os.path.join(here, "..", "..", "shared", "corpus")
    out = os.path.join(here, "corpus")
    for t in ["container", "shader", "bitstream", "module", "text", "assemble", "translate", "rootsig", "from_spirv"]:
        os.makedirs(os.path.join(out, t), exist_ok=True)
    files = []
    for root, _, names in os.walk(corpus):
        files += [os.path.join(root, n) for n in names]
    spirv = os.path.join(os.path.dirname(os.path.abspath(corpus)), "corpus-spirv")
    for root, _, names in os.walk(spirv):
        files += [os.path.join(root, n) for n in names if n.endswith(".spv")]
    files.sort()
    n = 0
    for path in files:
        name = os.path.relpath(path, corpus).replace(os.sep, "_")
        if path.endswith(".dxil"):
            n += 1
            if n % every:
                continue
            data = open(path, "rb").read()
            for t in ["container", "shader"]:
                open(os.path.join(out, t, name), "wb").write(data)
            for fourcc, body in parts(data):
                if fourcc == b"DXIL":
                    bc = bitcode(body)
                    if bc:
                        for t in ["bitstream", "module"]:
                            open(os.path.join(out, t, name + ".bc"), "wb").write(bc)
                elif fourcc == b"RTS0":
                    open(os.path.join(out, "rootsig", name + ".rts0"), "wb").write(body)
        elif path.endswith(".spv"):
            name = os.path.relpath(path, os.path.dirname(os.path.abspath(corpus))).replace(os.sep, "_")
            open(os.path.join(out, "from_spirv", name), "wb").write(open(path, "rb").read())
        elif path.endswith(".ll") and n % every == 0:
            listing = open(path, "rb").read()
            for t in ["text", "assemble", "translate"]:
                open(os.path.join(out, t, name), "wb").write(listing)
    for t in sorted(os.listdir(out)):
        print(t, len(os.listdir(os.path.join(out, t))))


if __name__ == "__main__":
    main()
