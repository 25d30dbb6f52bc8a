#!/bin/bash
# The main job learns: svk-train with no options (what scripts/main.sh runs)
# must answer at least 90% of the addition task's 500 held-out problems
# exactly. The run is deterministic on a device, so this checks the defaults,
# the task's format and the held-out evaluation together, not luck; its time
# is the benchmark's business (README.md quotes it), not this test's.
set -u
train=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$train" > out.txt 2>&1
rc=$?
cat out.txt
fail() { echo "FAIL $*"; echo "0 passed, 1 failed"; exit 1; }
[ "$rc" -eq 0 ] || fail "svk-train exited $rc"
line=$(grep '^held-out accuracy: ' out.txt) || fail "no held-out accuracy line"
right=$(sed -E 's|^held-out accuracy: ([0-9]+)/500 .*|\1|' <<< "$line")
[[ "$right" =~ ^[0-9]+$ ]] || fail "cannot read '$line'"
[ "$right" -ge 450 ] || fail "the main job answered $right of 500 held-out problems, fewer than 90%"
[ -s svk-train.csv ] && [ -s svk-train.svg ] || fail "no svk-train.csv and .svg in the current directory"
echo "PASS the main job answers $right of 500 held-out additions (at least 450)"
echo "1 passed, 0 failed"
