#!/bin/bash
# Installs the Debian 12 packages libsvk needs to build and test, skipping
# those already present. Run as root (or with sudo available).
set -euo pipefail

packages=(
    # build
    meson ninja-build pkg-config gcc g++ clang python3
    glslang-tools spirv-tools libvulkan-dev libcjson-dev
    # volk, which loads Vulkan (lib/vk/loader.c): volk.h and volk.c,
    # compiled into the library
    libvulkan-volk-dev
    # the Windows cross build of the library (cross/x86_64-w64-mingw32.ini),
    # and dpkg-source, which unpacks Debian's cJSON source for it
    # (scripts/cjson_source.sh)
    gcc-mingw-w64-x86-64-win32 dpkg-dev
    # run time: the Vulkan loader and lavapipe, Mesa's CPU Vulkan device
    libvulkan1 mesa-vulkan-drivers
    # tests: the Khronos validation layer; clang's runtime libraries
    # (libFuzzer for tests/fuzz, ASan and UBSan for the clang build);
    # nm and readelf for the install tests (tests/exports.py,
    # tests/install_test.sh), which gcc pulls in anyway
    vulkan-validationlayers libclang-rt-dev binutils
    # tests: PyTorch, which python/svk_torch is held to libsvk on
    # (tests/test_svk_torch.py; meson option torch)
    python3-torch python3-numpy
    # svk-bench: OpenBLAS's sgemm, the reference beside each GEMM row
    libopenblas-dev
    # svk-train's data parallelism under mpirun (meson option mpi,
    # docs/DISTRIBUTED.md) and its tests: Open MPI
    libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all packages present"
else
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "setup: need root to install: ${missing[*]}" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# cJSON for the Windows cross build, from Debian's source package: fetched
# once, then kept (subprojects/, not committed).
bash "$(dirname "$0")/cjson_source.sh"
