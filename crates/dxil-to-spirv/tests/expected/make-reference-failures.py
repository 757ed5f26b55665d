#!/usr/bin/env python3
"""Runs the reference translator (dxil-spirv's command-line tool, default configuration) over every corpus
container and writes the entries it cannot translate to reference-failures.txt beside this script.

Each container of the manifests is one entry (`suite/name`); a library is one entry per entry point
(`suite/name@export`). An entry fails when the tool exits with an error (`error: ` and its message) or writes
a module that `spirv-val --target-env vulkan1.3` rejects (`spirv-val: ` and the first lines of its message).
Usage:
    python3 make-reference-failures.py PATH/TO/dxil-spirv PATH/TO/dxil [CORPUS] [--commit HASH]
`dxil` is this repository's tool (for the entry points of libraries); CORPUS defaults to ../shared/corpus.
"""
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

SUITES = ["dxil-spirv", "vkd3d-proton", "vkd3d-proton-prebuilt"]


def entries(dxil, corpus):
    for suite in SUITES:
        for line in open(os.path.join(corpus, suite, "manifest.jsonl")):
            v = json.loads(line)
            if "error" in v:
                continue
            path = os.path.join(corpus, suite, v["name"] + ".dxil")
            if not os.path.isfile(path):
                continue
            name = suite + "/" + v["name"]
            if not v["profile"].startswith("lib_"):
                yield name, path, None
                continue
            out = subprocess.run([dxil, "info", "--json", path], capture_output=True, text=True).stdout
            info = json.loads(out)
            exports = [e["name"] for e in (info.get("module") or {}).get("entry_points", []) if e["name"]]
            for e in exports:
                yield name + "@" + e, path, e
            if not exports:
                yield name, path, None


def run(ref, job):
    name, path, entry = job
    fd, out = tempfile.mkstemp(suffix=".spv")
    os.close(fd)
    try:
        cmd = [ref, path, "--output", out] + (["--entry", entry] if entry else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        msg = " | ".join((r.stderr + r.stdout).strip().splitlines())
        if r.returncode != 0:
            return name, "error: " + (msg or f"exit status {r.returncode}")
        if os.path.getsize(out) == 0:
            return name, "error: no module written" + (": " + msg if msg else "")
        v = subprocess.run(["spirv-val", "--target-env", "vulkan1.3", out], capture_output=True, text=True)
        if v.returncode != 0:
            return name, "spirv-val: " + " | ".join((v.stderr + v.stdout).strip().splitlines()[:2])
        return name, None
    finally:
        os.unlink(out)


def main():
    args = sys.argv[1:]
    commit = "unknown"
    if "--commit" in args:
        i = args.index("--commit")
        commit = args[i + 1]
        del args[i:i + 2]
    ref, dxil = args[0], args[1]
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = args[2] if len(args) > 2 else os.path.join(here, "..", "..", "..", "..", "..", "shared", "corpus")
    jobs = list(entries(dxil, corpus))
    with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        results = sorted(ex.map(lambda j: run(ref, j), jobs))
    failed = [(n, r) for n, r in results if r]
    errors = sum(1 for _, r in failed if r.startswith("error"))
    with open(os.path.join(here, "reference-failures.txt"), "w") as f:
        f.write("# The corpus entries the reference translator (dxil-spirv %s, default configuration) cannot\n" % commit)
        f.write("# translate: `error: ` (the tool fails) or `spirv-val: ` (its module fails spirv-val --target-env\n")
        f.write("# vulkan1.3). Written by make-reference-failures.py; a library is one entry per export.\n")
        f.write("# entries: %d, translated: %d, error: %d, spirv-val: %d\n"
                % (len(results), len(results) - len(failed), errors, len(failed) - errors))
        for n, r in failed:
            f.write("%s: %s\n" % (n, r.replace("\n", " ")))
    print("entries %d, translated %d, error %d, spirv-val %d" % (len(results), len(results) - len(failed), errors,
                                                              len(failed) - errors))


if __name__ == "__main__":
    main()
