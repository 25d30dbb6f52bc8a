#!/usr/bin/env python3
"""Compile one GLSL compute shader to a validated SPIR-V C array.

Runs glslangValidator (GLSL -> SPIR-V), then spirv-val on the result, then
writes a header defining `static const uint32_t <name>[]`. Any failure exits
non-zero with the tool's own message, which fails the build.
"""
import argparse
import os
import subprocess
import sys
import tempfile

TARGET_ENV = "vulkan1.2"


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout)
        sys.stderr.write("error: command failed: %s\n" % " ".join(cmd))
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--glslang", required=True)
    ap.add_argument("--spirv-val", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--depfile", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("-D", dest="defines", action="append", default=[])
    ap.add_argument("input")
    ap.add_argument("output")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        spv = os.path.join(tmp, "out.spv")
        cmd = [args.glslang, "-V", "--target-env", TARGET_ENV, "-g0",
               "--depfile", args.depfile, "-o", spv]
        cmd += ["-I" + d for d in args.include]
        cmd += ["-D" + d for d in args.defines]
        cmd.append(args.input)
        run(cmd)
        run([args.spirv_val, "--target-env", TARGET_ENV, spv])
        with open(spv, "rb") as f:
            blob = f.read()

    # glslang names the depfile's target after its own -o path (a temporary
    # file); point it at the header ninja actually asked for.
    with open(args.depfile) as f:
        dep = f.read()
    _, _, deps = dep.partition(":")
    with open(args.depfile, "w") as f:
        f.write("%s:%s" % (args.output.replace(" ", "\\ "), deps))

    if len(blob) % 4 != 0:
        sys.stderr.write("error: %s: SPIR-V size %d is not a multiple of 4\n" % (args.input, len(blob)))
        sys.exit(1)
    words = [int.from_bytes(blob[i:i + 4], "little") for i in range(0, len(blob), 4)]
    lines = []
    for i in range(0, len(words), 8):
        lines.append("    " + ", ".join("0x%08xu" % w for w in words[i:i + 8]) + ",")
    with open(args.output, "w") as f:
        f.write("/* Generated from %s by compile_shader.py: do not edit. */\n"
                % os.path.basename(args.input))
        f.write("static const uint32_t %s[] = {\n%s\n};\n" % (args.name, "\n".join(lines)))


if __name__ == "__main__":
    main()
