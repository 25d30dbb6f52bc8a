#!/bin/bash
# Checks libsvk's VK_KHR_cooperative_matrix path on a CPU, where Debian 12
# can't: its lavapipe (Mesa 22.3) offers no cooperative matrices and its
# spirv-val (SPIRV-Tools 2023.1) doesn't know the KHR extension. Debian
# unstable's lavapipe offers VK_KHR_cooperative_matrix (at subgroup size 8)
# and its spirv-val and validation layer know it. So this builds a minimal
# Debian unstable tree with debootstrap and runs, inside it, the binaries
# of an existing build made on Debian 12 (they run on a newer libc):
#   - spirv-val on the KHR module libsvk embeds (shaders/coopmat_khr.py's
#     rewrite of gemm_coopmat.comp's NV module);
#   - svk-info, which must list the KHR extension;
#   - the GEMM conformance rows, the coopmat ones included, under the
#     validation layer, at subgroup sizes 8 and 16;
#   - the model test's cooperative-matrix step against the CPU reference.
#
# usage: scripts/khr_check.sh BUILD_DIR [ROOT]
#   BUILD_DIR  a meson build with tests (build-test)
#   ROOT       where the Debian unstable tree goes (default /tmp/svk-sid),
#              reused when it exists; about 700 MB, 3-5 minutes to make
# Needs root (debootstrap, chroot, a bind mount) and Debian's mirror.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
build=$(cd "$1" && pwd)
root=${2:-/tmp/svk-sid}
src=$(cd "$(dirname "$0")/.." && pwd)
pkgs=mesa-vulkan-drivers,libvulkan1,vulkan-validationlayers,spirv-tools,libcjson1

if [ ! -x "$root/usr/bin/spirv-val" ]; then
    command -v debootstrap >/dev/null || apt-get install -y debootstrap
    debootstrap --variant=minbase --include="$pkgs" sid "$root" http://deb.debian.org/debian
fi
# The repository at the same path inside, so the build's paths hold.
mkdir -p "$root$src" "$root/proc"
mountpoint -q "$root$src" || mount --bind "$src" "$root$src"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
if [ "${build#"$src"/}" = "$build" ]; then
    echo "khr_check: BUILD_DIR must lie inside $src" >&2
    exit 2
fi
trap 'umount "$root$src" "$root/proc" 2>/dev/null || true' EXIT

# The embedded KHR module, back to a .spv file.
python3 - "$build/shaders/gemm_coopmat_khr.spv.h" "$root/tmp/gemm_coopmat_khr.spv" <<'EOF'
import re, struct, sys
words = [int(w, 16) for w in re.findall(r"0x([0-9a-f]{8})u", open(sys.argv[1]).read())]
open(sys.argv[2], "wb").write(struct.pack("<%dI" % len(words), *words))
EOF

fail=0
run() {
    local name=$1
    shift
    if chroot "$root" env -C "$build" SVK_PIPELINE_CACHE=0 "$@" >"$root/tmp/khr_$name.txt" 2>&1; then
        printf '%-40s PASS\n' "$name"
    else
        printf '%-40s FAIL (log: %s)\n' "$name" "$root/tmp/khr_$name.txt"
        tail -5 "$root/tmp/khr_$name.txt"
        fail=1
    fi
}
run spirv-val spirv-val --target-env vulkan1.2 /tmp/gemm_coopmat_khr.spv
run svk-info sh -c 'tools/svk-info | tee /dev/stderr | grep -q "VK_KHR_cooperative_matrix"'
run conformance-gemm-sg8 env LP_NATIVE_VECTOR_WIDTH=256 tools/conformance/svk-conformance --kernel gemm --validation
grep -h "coopmat rows\|passed" "$root/tmp/khr_conformance-gemm-sg8.txt" || true
run conformance-gemm-sg16 env LP_NATIVE_VECTOR_WIDTH=512 tools/conformance/svk-conformance --kernel gemm --validation
grep -h "coopmat rows\|passed" "$root/tmp/khr_conformance-gemm-sg16.txt" || true
run model-coopmat env LP_NATIVE_VECTOR_WIDTH=256 SVK_VALIDATION=1 tests/test_model --test=coopmat
grep -h "cooperative" "$root/tmp/khr_model-coopmat.txt" || true
exit $fail
