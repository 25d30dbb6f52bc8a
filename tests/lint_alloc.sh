#!/bin/bash
# Every host allocation in lib/ goes through lib/core/alloc.h, or the
# fault-injection walk (test_fault) would never fail it: a bare
# malloc/calloc/realloc/strdup there fails this test.
set -euo pipefail
lib="$1"
hits=$(grep -rnE '(^|[^_A-Za-z0-9])(malloc|calloc|realloc|strdup|strndup)[[:space:]]*\(' "$lib" \
       --include='*.c' --include='*.h' | grep -v "^$lib/core/alloc\.[ch]:" || true)
if [ -n "$hits" ]; then
    echo "FAIL bare allocations in lib/ (use svk_malloc/svk_calloc/svk_realloc from core/alloc.h):"
    echo "$hits"
    exit 1
fi
echo "PASS every allocation in lib/ goes through core/alloc.h"
