#!/bin/bash
# The soak test (tests/soak.c): builds the test tree as scripts/test.sh does
# (gcc, build-test) and replays thousands of training steps on a tiny model,
# failing if host memory grows or the model's device memory changes.
#   bash scripts/soak.sh [--steps N] [--seed S] [--growth-kib K]
# Default 5000 steps, about a minute on lavapipe. SVK_VALIDATION=1 adds the
# validation layer (several times slower).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -f build-test/build.ninja ]; then
    CC=gcc CXX=g++ meson setup --reconfigure build-test -Dwerror=true -Dvalidation=enabled >/dev/null
else
    CC=gcc CXX=g++ meson setup build-test -Dwerror=true -Dvalidation=enabled >/dev/null
fi
ninja -C build-test tests/soak >/dev/null
SVK_PIPELINE_CACHE=0 exec build-test/tests/soak "$@"
