#!/bin/bash
# What `meson install` produces, used as an application would, from a
# staged copy (meson install --destdir) in a temporary directory:
#   - the layout: libsvk.so with its versioned soname and links, libsvk.a,
#     every public header (svk/version.h included), svk.pc;
#   - every installed tool runs from the prefix with no LD_LIBRARY_PATH
#     (the run path is $ORIGIN-relative and names the staged libsvk), and
#     its --help exits 0 with a usage text;
#   - tests/consumer/consumer.c built with `pkg-config --cflags --libs svk`
#     alone against the shared library, and with --static against
#     libsvk.a, and both run;
#   - python/svk imported from the prefix with PYTHONPATH alone loads the
#     prefix's libsvk (when the environment names $SVK_PYTHON_DIR, where
#     meson installed it, and $SVK_TEST_PYTHON, a python3 with numpy).
# usage: install_test.sh MESON BUILD_ROOT PREFIX BINDIR LIBDIR INCLUDEDIR VERSION
#                        SRC_HEADERS_DIR CONSUMER_C SANITIZE CC...
set -uo pipefail
meson=$1 build=$2 prefix=$3 bindir=$4 libdir=$5 includedir=$6 version=$7
src_headers=$8 consumer=$9 sanitize=${10}
shift 10
cc=("$@")

passed=0 failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/svk-install.XXXXXX")
# meson install rewrites the build's install log, which `ninja uninstall`
# reads: it is put back as it was, so the staging leaves no trace there.
log="$build/meson-logs/install-log.txt"
[ -f "$log" ] && cp -p "$log" "$tmp/install-log.txt.saved"
cleanup() {
    if [ -f "$tmp/install-log.txt.saved" ]; then
        cp -p "$tmp/install-log.txt.saved" "$log"
    else
        rm -f "$log"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# A relative libdir or bindir is under the prefix; an absolute one is
# staged as it is.
under() { case "$1" in /*) echo "$tmp/stage$1" ;; *) echo "$tmp/stage$prefix/$1" ;; esac; }
root="$tmp/stage$prefix"
lib=$(under "$libdir") bin=$(under "$bindir") inc=$(under "$includedir")

if ! "$meson" install -C "$build" --no-rebuild --destdir "$tmp/stage" >"$tmp/install.out" 2>&1; then
    cat "$tmp/install.out"
    fail "meson install --destdir"
    finish
fi
pass "meson install --destdir $tmp/stage (prefix $prefix)"

# --- layout
major=${version%%.*}
soname=$(readelf -d "$lib/libsvk.so.$version" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = "libsvk.so.$major" ] && [ "$(readlink "$lib/libsvk.so")" = "libsvk.so.$major" ] &&
   [ "$(readlink "$lib/libsvk.so.$major")" = "libsvk.so.$version" ]; then
    pass "libsvk.so.$version, soname $soname, links libsvk.so -> libsvk.so.$major -> libsvk.so.$version"
else
    ls -l "$lib"
    fail "libsvk.so.$version with soname libsvk.so.$major and its links (soname: '$soname')"
fi
[ -f "$lib/libsvk.a" ] && pass "libsvk.a" || fail "no libsvk.a in $lib"
[ -f "$lib/pkgconfig/svk.pc" ] && pass "svk.pc" || fail "no svk.pc in $lib/pkgconfig"
missing=""
for h in "$src_headers"/*.h version.h; do
    h=$(basename "$h")
    [ -f "$inc/svk/$h" ] || missing="$missing $h"
done
extra=$(cd "$inc/svk" && ls | grep -v '\.h$' | tr '\n' ' ')
if [ -z "$missing" ] && [ -z "$extra" ]; then
    pass "headers: $(cd "$inc/svk" && ls | tr '\n' ' ')"
else
    fail "headers: missing:${missing:- none}; not headers: ${extra:-none}"
fi

# --- the tools, from the prefix, with nothing in the environment to help
have_info=0 have_train=0
for tool in "$bin"/*; do
    name=$(basename "$tool")
    [ "$name" = svk-info ] && have_info=1
    [ "$name" = svk-train ] && have_train=1
    how="libsvk linked in"
    if case $(readelf -d "$tool") in *"[libsvk.so.$major]"*) true ;; *) false ;; esac; then
        runpath=$(readelf -d "$tool" | sed -n 's/.*Library r[un]*path: \[\(.*\)\]/\1/p')
        found=$(env -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$tool" 2>&1 | sed -n 's/.*libsvk\.so\.[0-9]* => \([^ ]*\).*/\1/p')
        case "$runpath" in
        '$ORIGIN'*) ;;
        *) fail "$name: run path '$runpath' is not \$ORIGIN-relative"; continue ;;
        esac
        if [ "$(readlink -f "$found")" != "$(readlink -f "$lib/libsvk.so.$major")" ]; then
            fail "$name loads libsvk from '$found', not the installed $lib"
            continue
        fi
        how="libsvk.so.$major through run path $runpath"
    fi
    out=$(env -u LD_LIBRARY_PATH "$tool" --help 2>&1)
    rc=$?
    # The first line by expansion, not through head: under pipefail, head
    # leaving early can fail printf with SIGPIPE when the help is long.
    first=${out%%$'\n'*}
    if [ "$rc" -eq 0 ] && [ "${first#"usage: $name"}" != "$first" ]; then
        pass "$name --help from the prefix ($how): exit 0, $(printf '%s\n' "$out" | wc -l) lines"
    else
        printf '%s\n' "$out" | head -n 20
        fail "$name --help from the prefix: exit $rc, first line not 'usage: $name'"
    fi
done
[ "$have_info" -eq 1 ] && [ "$have_train" -eq 1 ] || fail "svk-info and svk-train not both installed in $bin"

# --- python/svk from the prefix: PYTHONPATH alone finds the package, and
# the package the prefix's library (its _install.py). Not in the sanitizer
# build, whose libsvk cannot load into an uninstrumented python3.
if [ -n "${SVK_PYTHON_DIR:-}" ] && [ "$sanitize" = none ]; then
    pydir=$(under "$SVK_PYTHON_DIR")
    if out=$(env -u SVK_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$pydir" "$SVK_TEST_PYTHON" -c \
             'import svk, svk._lib; print(svk.version(), svk._lib.lib()._name)' 2>&1) &&
       [ "$(readlink -f "${out#* }")" = "$(readlink -f "$lib/libsvk.so.$major")" ]; then
        pass "python/svk from $pydir: libsvk ${out%% *} at ${out#* }"
    else
        printf '%s\n' "$out" | tail -n 5
        fail "python/svk from $pydir does not load the prefix's libsvk.so.$major"
    fi
fi

# --- an application built with pkg-config alone
export PKG_CONFIG_PATH="$lib/pkgconfig"
pc=(pkg-config)
# A build directory configured before svk.pc became relocatable
# (pkgconfig.relocatable, a project default) names the real prefix.
if ! grep -q '^prefix=${pcfiledir}' "$lib/pkgconfig/svk.pc"; then
    echo "note: svk.pc is not relocatable here (pkgconfig.relocatable=false): its prefix is redefined"
    pc+=(--define-variable=prefix="$root")
fi
cflags=(-std=c11 -Wall -Wextra -Wpedantic -Werror)
[ "$sanitize" = none ] || cflags+=("-fsanitize=$sanitize")

if flags=$("${pc[@]}" --cflags --libs svk) &&
   "${cc[@]}" "${cflags[@]}" "$consumer" $flags -o "$tmp/consumer" >"$tmp/cc.out" 2>&1; then
    if out=$(env LD_LIBRARY_PATH="$lib" "$tmp/consumer" 2>&1); then
        pass "shared: cc consumer.c \$(pkg-config --cflags --libs svk) [$flags]: $out"
    else
        fail "shared: the consumer failed: $out"
    fi
else
    cat "$tmp/cc.out" 2>/dev/null
    fail "shared: cc consumer.c \$(pkg-config --cflags --libs svk) [${flags:-}]"
fi

# -l:libsvk.a picks the archive beside libsvk.so; the rest of the line is
# svk.pc's Libs.private and Requires.private, which must be complete.
if flags=$("${pc[@]}" --static --cflags --libs svk) &&
   flags=$(printf '%s\n' "$flags" | sed 's/\(^\|[[:space:]]\)-lsvk\([[:space:]]\|$\)/\1-l:libsvk.a\2/') &&
   "${cc[@]}" "${cflags[@]}" "$consumer" $flags -o "$tmp/consumer_static" >"$tmp/cc.out" 2>&1; then
    if case $(readelf -d "$tmp/consumer_static") in *"[libsvk"*) true ;; *) false ;; esac; then
        fail "static: the consumer still needs libsvk.so"
    elif out=$(env -u LD_LIBRARY_PATH "$tmp/consumer_static" 2>&1); then
        pass "static: cc consumer.c \$(pkg-config --static --cflags --libs svk) [$flags]: $out"
    else
        fail "static: the consumer failed: $out"
    fi
else
    cat "$tmp/cc.out" 2>/dev/null
    fail "static: cc consumer.c \$(pkg-config --static --cflags --libs svk) [${flags:-}]"
fi

finish
