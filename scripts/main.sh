#!/bin/bash
# The main job: install what is missing, build, list the devices, and train
# svk-train's default: a small SiameseNorm model that learns two-digit addition
# on the default device (SVK_DEVICE picks another; arguments go to svk-train,
# e.g. --device cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -f build/build.ninja ]; then
    meson setup --reconfigure build >/dev/null
else
    meson setup build >/dev/null
fi
ninja -C build
echo
./build/tools/svk-info
echo
./build/tools/train/svk-train "$@"
