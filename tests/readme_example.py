#!/usr/bin/env python3
"""The README's C example is a program that builds and trains.

  readme_example.py extract README.md OUT.c
      writes the README's one ```c block to OUT.c (tests/meson.build builds
      it against libsvk like any application, with -Werror);
  readme_example.py run PROGRAM
      runs it for a few steps in a temporary directory: it must exit 0, name
      its device, report the last step's finite loss, print its answer to
      57+68= and leave a checkpoint, with nothing on stderr (the validation
      layer's messages go there).
"""
import math
import os
import re
import subprocess
import sys
import tempfile


def extract(readme, out):
    text = open(readme, encoding="utf-8").read()
    blocks = re.findall(r"^```c\n(.*?)^```$", text, re.S | re.M)
    if len(blocks) != 1:
        sys.exit("%s: %d ```c blocks, want exactly one (the C API example)" % (readme, len(blocks)))
    with open(out, "w", encoding="utf-8") as f:
        f.write(blocks[0])


def run(program):
    steps = 40
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([os.path.abspath(program), str(steps)], cwd=d, capture_output=True, text=True,
                           timeout=300)
        print(p.stdout, end="")
        print(p.stderr, end="", file=sys.stderr)
        problems = []
        if p.returncode != 0:
            problems.append("exit status %d" % p.returncode)
        if p.stderr:
            problems.append("output on stderr")
        if not re.search(r"^device: \S", p.stdout, re.M):
            problems.append("no 'device:' line")
        m = re.search(r"^step %d: loss (\S+)$" % steps, p.stdout, re.M)
        if not m or not math.isfinite(float(m.group(1))):
            problems.append("no finite loss for step %d" % steps)
        if not re.search(r"^57\+68=", p.stdout, re.M):
            problems.append("no answer to 57+68=")
        ck = os.path.join(d, "addition.safetensors")
        if not os.path.isfile(ck) or os.path.getsize(ck) < 1000:
            problems.append("no checkpoint addition.safetensors")
    for q in problems:
        print("FAIL: %s" % q)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2]))
    else:
        sys.exit(__doc__)
