#!/usr/bin/env python3
"""libsvk.so exports its public API and nothing else.

The public API is every function declared with SVK_API in the public
headers (include/svk/*.h). The exports are the dynamic symbols libsvk.so
defines (nm -D --defined-only). They must be the same set: an export
missing from the headers is an internal name leaking (the library is
compiled hidden, lib/meson.build), and a declaration missing from the
exports is a function an application cannot link.

usage: exports.py NM LIBSVK_SO HEADERS_DIR
"""
import pathlib
import re
import subprocess
import sys

# SVK_API, the return type (any words, pointers, qualifiers), the name, "(".
DECL = re.compile(r"\bSVK_API\b[^;(]*?\b(svk_\w+)\s*\(")
# Comments and preprocessor lines hold no declarations (the "#define
# SVK_API" lines themselves, say).
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)


def declared(headers):
    names = set()
    for h in sorted(pathlib.Path(headers).glob("*.h")):
        text = DIRECTIVE.sub("", COMMENT.sub(" ", h.read_text()))
        names.update(DECL.findall(text))
    return names


def exported(nm, lib):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        # "ADDRESS TYPE NAME"; w/v (weak) and A (absolute) symbols count too.
        if len(parts) == 3:
            names.add(parts[2].split("@")[0])
    return names


def main():
    nm, lib, headers = sys.argv[1:4]
    api, exports = declared(headers), exported(nm, lib)
    if not api:
        print("FAIL no SVK_API declaration found in %s" % headers)
        return 1
    leaked, missing = sorted(exports - api), sorted(api - exports)
    for name in leaked:
        print("FAIL exported but not public API (no SVK_API declaration): %s" % name)
    for name in missing:
        print("FAIL declared SVK_API but not exported by %s: %s" % (lib, name))
    if leaked or missing:
        print("0 passed, 1 failed (%d leaked, %d missing, of %d exports)" % (len(leaked), len(missing), len(exports)))
        return 1
    print("PASS %s exports exactly the %d SVK_API functions of %s" % (lib, len(api), headers))
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
