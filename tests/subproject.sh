#!/bin/bash
# libsvk as a subproject: a parent project (tests/consumer/parent_meson.build)
# in a temporary directory, with this source tree as subprojects/siamese-vk,
# reaches it through dependency('svk') and its fallback alone, builds the
# library and tests/consumer/consumer.c (nothing else: no tools, tests or
# samples by default), and runs the consumer.
# --force-fallback-for=svk: an svk.pc installed on the machine must not be
# taken instead. The parent uses this build's compiler and sanitizers;
# buildtype=plain keeps the library's second build short.
# usage: subproject.sh SOURCE_ROOT PARENT_MESON_BUILD CONSUMER_C SANITIZE CC CXX
set -uo pipefail
src=$1 parent=$2 consumer=$3 sanitize=$4 cc=$5 cxx=$6

tmp=$(mktemp -d "${TMPDIR:-/tmp}/svk-subproject.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL $*"
    echo "0 passed, 1 failed"
    exit 1
}

mkdir -p "$tmp/parent/subprojects"
ln -s "$(readlink -f "$src")" "$tmp/parent/subprojects/siamese-vk"
cp "$parent" "$tmp/parent/meson.build"
cp "$consumer" "$tmp/parent/consumer.c"

opts=(--force-fallback-for=svk -Dbuildtype=plain)
[ "$sanitize" = none ] || opts+=("-Db_sanitize=$sanitize" -Db_lundef=false)
if ! CC=$cc CXX=$cxx meson setup "${opts[@]}" "$tmp/build" "$tmp/parent" >"$tmp/setup.out" 2>&1; then
    cat "$tmp/setup.out"
    fail "meson setup of the parent project"
fi
if ! ninja -C "$tmp/build" >"$tmp/build.out" 2>&1; then
    tail -n 40 "$tmp/build.out"
    fail "ninja: the parent project with libsvk as a subproject"
fi

# The library alone: the subproject's tools, tests and samples are off.
built=$(cd "$tmp/build/subprojects/siamese-vk" && ls)
for d in tools tests samples; do
    [ -e "$tmp/build/subprojects/siamese-vk/$d" ] && fail "the subproject built $d/ (has: $(echo $built))"
done
grep -q "Run-time dependency svk found: YES\|Dependency svk found: YES" "$tmp/setup.out" ||
    { cat "$tmp/setup.out"; fail "dependency('svk') was not found through the fallback"; }

out=$("$tmp/build/consumer" 2>&1) || fail "the consumer failed: $out"
echo "PASS dependency('svk', fallback : 'siamese-vk'): library alone ($(echo $built)), consumer: $out"
echo "1 passed, 0 failed"
