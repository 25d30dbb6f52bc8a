#!/usr/bin/env python3
"""The user-facing tools use libsvk's public API alone.

svk-train, svk-generate, svk-info, svk-tokenize and svk-convert do nothing an
application could not: they are built against include/ and the shared
library's exports, never lib/'s headers or objects (tools/meson.build). For each tool given:
  - every compile command of its sources (compile_commands.json) has no
    include directory in lib/, shaders/ (source or build tree) or
    tools/conformance/, so no internal header (not even a static inline
    one, which leaves no symbol) is reachable;
  - it needs libsvk.so (readelf -d), and none of its own global svk_*
    symbols is defined by the internal library (nm), so no internal object
    was linked into it; except where default_library is 'static' (a parent
    project's choice), where the tools link libsvk.a, which holds them all.
svk-conformance and svk-bench test internal kernels and are exempt. The
samples (samples/) are held to the same (test samples_public_api).

usage: tools_public_api.py DEFAULT_LIBRARY BUILD_ROOT SOURCE_ROOT NM READELF LIBSVK_INTERNAL_A TOOL...
"""
import json
import os
import shlex
import subprocess
import sys


def defined(nm, path, global_only):
    out = subprocess.run([nm, "--defined-only", path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith("svk_") and (not global_only or parts[1].isupper()):
            names.add(parts[2])
    return names


def main():
    default_library, build, source, nm, readelf, internal = sys.argv[1:7]
    tools = sys.argv[7:]
    shared = default_library != "static"
    forbidden = [os.path.realpath(os.path.join(root, d))
                 for root in (source, build) for d in ("lib", "shaders", os.path.join("tools", "conformance"))]
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    internal_names = defined(nm, internal, False)
    failed = 0
    for tool in tools:
        name = os.path.basename(tool)
        prefix = os.path.relpath(tool, build) + ".p/"
        mine = [c for c in commands if c.get("output", "").startswith(prefix)]
        problems = [] if mine else ["no compile command in compile_commands.json (output %s*)" % prefix]
        bad_dirs = {}  # internal include directory -> the sources compiled with it
        for c in mine:
            args = shlex.split(c["command"]) if "command" in c else c["arguments"]
            for i, a in enumerate(args):
                if a.startswith("-I") or a == "-isystem" or a == "-iquote":
                    d = a[2:] if a.startswith("-I") and len(a) > 2 else args[i + 1] if i + 1 < len(args) else ""
                    full = os.path.realpath(os.path.join(c["directory"], d))
                    if any(full == f or full.startswith(f + os.sep) for f in forbidden):
                        bad_dirs.setdefault(full, set()).add(os.path.basename(c["file"]))
        for d, files in sorted(bad_dirs.items()):
            problems.append("internal include directory %s on the compile line of %s" % (d, ", ".join(sorted(files))))
        dyn = subprocess.run([readelf, "-d", tool], check=True, capture_output=True, text=True).stdout
        if shared and "[libsvk.so" not in dyn:
            problems.append("does not link libsvk.so (readelf -d: no NEEDED libsvk.so)")
        leaked = sorted(defined(nm, tool, True) & internal_names) if shared else []
        if leaked:
            problems.append("holds internal code of libsvk: %s" % ", ".join(leaked[:8]))
        if problems:
            failed += 1
            for p in problems:
                print("FAIL %s: %s" % (name, p))
        else:
            print("PASS %s: %d sources compiled against include/ only, %s"
                  % (name, len(mine), "linked to libsvk.so alone" if shared else "(libsvk.a: the link not checked)"))
    print("%d passed, %d failed" % (len(tools) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
