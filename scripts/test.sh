#!/bin/bash
# The test suite: install what is missing, build with gcc and with clang
# (warnings are errors), and run every test with the validation layer on.
set -euo pipefail
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

# clang: build only, to keep both compilers warning-free.
configure build-test-clang clang clang++ -Dwerror=true
ninja -C build-test-clang >/dev/null
echo "test: clang build is warning-free"

configure build-test gcc g++ -Dwerror=true -Dvalidation=enabled
ninja -C build-test
status=0
meson test -C build-test --print-errorlogs --num-processes 2 || status=$?

# One plain summary line over all tests.
python3 - build-test/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = 0
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        if r.get("result") in ("OK", "EXPECTEDFAIL"):
            passed += 1
        else:
            failed += 1
print("%d passed, %d failed" % (passed, failed))
PY
exit $status
