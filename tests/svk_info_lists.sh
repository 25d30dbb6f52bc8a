#!/bin/sh
# svk-info must exit 0 and print a device with its limits.
out=$("$1" 2>&1)
rc=$?
echo "$out"
for want in "device 0" "max storage range" "subgroup size" "max workgroup count" "timestamps"; do
    case "$out" in
    *"$want"*) ;;
    *) echo "FAIL svk-info output lacks '$want'"; echo "0 passed, 1 failed"; exit 1 ;;
    esac
done
[ "$rc" -eq 0 ] || { echo "FAIL svk-info exited $rc"; echo "0 passed, 1 failed"; exit 1; }
echo "PASS svk-info lists a device with its limits"
echo "1 passed, 0 failed"
