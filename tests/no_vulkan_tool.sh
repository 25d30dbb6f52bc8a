#!/bin/sh
# A tool run without a Vulkan loader must exit non-zero with a clear message.
# usage: no_vulkan_tool.sh TOOL SHIM
tool=$1
shim=$2
out=$(LD_PRELOAD="$shim" "$tool" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then
    echo "FAIL $tool exited 0 without a Vulkan loader"
    echo "0 passed, 1 failed"
    exit 1
fi
case "$out" in
*"no Vulkan loader"*) echo "PASS $tool: exit $rc with a message naming the missing loader"; echo "1 passed, 0 failed" ;;
*) echo "FAIL $tool: no message naming the missing loader"; echo "0 passed, 1 failed"; exit 1 ;;
esac
