#!/bin/bash
# The test suite: install what is missing, then build and run every test
# twice (warnings are errors in both builds):
#   build-test       gcc, every test with the Khronos validation layer on
#                    (synchronisation validation included), failing on any
#                    message it reports;
#   build-test-asan  clang with AddressSanitizer + UndefinedBehaviorSanitizer
#                    (test setup 'sanitize': leaks checked, every report
#                    fatal and written under sanitizer-logs/), plus the
#                    checkpoint fuzzer, which needs clang's libFuzzer. The
#                    layer is off here: it is not instrumented, and the gcc
#                    run already holds every test to it.
# First, the library alone cross-compiled for Windows (build-test-win,
# mingw-w64, cross/x86_64-w64-mingw32.ini), warnings as errors: nothing here
# can run it, but it must compile and link libsvk.dll with no missing
# symbol, or the run fails.
# --slow also runs suite 'slow' (tests/test_gpt2_shape.c: GPT-2-small's
# shape at full size, two minutes), which CI leaves to the quick form,
# tests/test_big_tensors.c.
set -euo pipefail
slow=(--no-suite slow)
if [ "${1:-}" = "--slow" ]; then
    slow=()
fi
cd "$(dirname "$0")/.."
bash scripts/setup.sh

configure() { # dir, C compiler, C++ compiler, meson options...
    local dir=$1 cc=$2 cxx=$3
    shift 3
    if [ -f "$dir/build.ninja" ]; then
        CC=$cc CXX=$cxx meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        CC=$cc CXX=$cxx meson setup "$dir" "$@" >/dev/null
    fi
}

# One plain summary line over a run's tests.
summary() { # name, testlog.json
    python3 - "$1" "$2" <<'PY'
import json, sys
passed = failed = 0
with open(sys.argv[2]) as f:
    for line in f:
        r = json.loads(line)
        if r.get("result") in ("OK", "EXPECTEDFAIL"):
            passed += 1
        else:
            failed += 1
print("%s: %d passed, %d failed" % (sys.argv[1], passed, failed))
PY
}

status=0

# CC and CXX name the build machine's compilers here: the cross file names
# the target's.
win=0
configure build-test-win gcc g++ --cross-file cross/x86_64-w64-mingw32.ini -Dwerror=true \
    -Dtools=disabled -Dtests=disabled -Dsamples=disabled || win=1
if [ $win -eq 0 ]; then
    ninja -C build-test-win || win=1
fi
[ $win -eq 0 ] || status=1

configure build-test gcc g++ -Dwerror=true -Dvalidation=enabled
ninja -C build-test
meson test -C build-test --print-errorlogs --num-processes 2 "${slow[@]}" || status=1

# b_lundef=false: with clang the sanitizer runtimes live in the executables,
# so the shared library leaves their symbols undefined.
configure build-test-asan clang clang++ -Dwerror=true -Dvalidation=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build-test-asan
rm -rf build-test-asan/sanitizer-logs
mkdir -p build-test-asan/sanitizer-logs
meson test -C build-test-asan --setup sanitize --print-errorlogs --num-processes 2 || status=1
# A report in a process whose exit status was not the test's own (a tool a
# script ran, say) still fails the run.
reports=$(find build-test-asan/sanitizer-logs -type f | sort)
if [ -n "$reports" ]; then
    status=1
    for r in $reports; do
        echo "==== sanitizer report: $r"
        cat "$r"
    done
fi

if [ $win -eq 0 ]; then
    echo "Windows cross build (mingw-w64): libsvk.dll built and linked"
else
    echo "Windows cross build (mingw-w64): FAILED (printed above)"
fi
summary "gcc + validation" build-test/meson-logs/testlog.json
summary "clang + ASan/UBSan" build-test-asan/meson-logs/testlog-sanitize.json
[ -z "$reports" ] || echo "sanitizer reports: $(echo "$reports" | wc -l) (printed above)"
exit $status
