#!/usr/bin/env python3
"""Compile one GLSL compute shader to a validated SPIR-V C array.

Runs glslangValidator (GLSL -> SPIR-V), then spirv-val on the result, then
writes a header defining `static const uint32_t <name>[]`. Any failure exits
non-zero with the tool's own message, which fails the build.

With --coopmat-khr the validated module (which uses
SPV_NV_cooperative_matrix) is rewritten into its SPV_KHR_cooperative_matrix
form (coopmat_khr.py) and that is embedded. The rewrite is validated too
where spirv-val knows the KHR extension (SPIRV-Tools 2023.4 and later);
Debian 12's 2023.1 refuses its capability as unknown, and then only the NV
module it came from has been validated here (scripts/khr_check.sh validates
and runs it with Debian's newer tools).
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import coopmat_khr  # noqa: E402 (after the line above)

TARGET_ENV = "vulkan1.2"


def run(cmd, tolerate=None):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        if tolerate and tolerate in proc.stdout:
            return
        sys.stderr.write(proc.stdout)
        sys.stderr.write("error: command failed: %s\n" % " ".join(cmd))
        sys.exit(1)


def to_khr(spv, out, source):
    """Rewrites the NV module spv into out (KHR); exits on what it refuses."""
    with open(spv, "rb") as f:
        blob = f.read()
    try:
        words = coopmat_khr.rewrite(list(struct.unpack("<%dI" % (len(blob) // 4), blob)))
    except coopmat_khr.RewriteError as e:
        sys.stderr.write("error: %s: rewriting into SPV_KHR_cooperative_matrix: %s\n" % (source, e))
        sys.exit(1)
    with open(out, "wb") as f:
        f.write(struct.pack("<%dI" % len(words), *words))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--glslang", required=True)
    ap.add_argument("--spirv-val", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--depfile", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("-D", dest="defines", action="append", default=[])
    ap.add_argument("--coopmat-khr", action="store_true",
                    help="embed the module rewritten from SPV_NV_ into SPV_KHR_cooperative_matrix")
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
        if args.coopmat_khr:
            khr = os.path.join(tmp, "khr.spv")
            to_khr(spv, khr, args.input)
            # The capability's number, which a validator predating the
            # extension names as unknown: nothing else is tolerated.
            run([args.spirv_val, "--target-env", TARGET_ENV, khr],
                tolerate="Invalid capability operand: %d" % coopmat_khr.CAP_COOPMAT_KHR)
            spv = khr
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
