#!/bin/bash
# Debian's source of cJSON, for a build whose target has no libcjson to
# link: the Windows cross build (cross/x86_64-w64-mingw32.ini), for which
# Debian packages no mingw cJSON. The version is the installed
# libcjson-dev's, with Debian's patches applied (its security fixes
# included), unpacked into subprojects/cjson/cjson/, which
# subprojects/cjson/meson.build builds. The downloaded files are kept in
# subprojects/packagecache/. Neither is committed (.gitignore).
#
# Idempotent: nothing is fetched when that version is unpacked already.
# The first run adds deb-src lines for the mirrors apt already uses
# (scripts/deb_src.py), which needs root (or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(dpkg-query -W -f='${source:Version}' libcjson-dev)
upstream=${version#*:} # file names carry no epoch
dest=subprojects/cjson/cjson
stamp=$dest/.debian-version
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
    echo "cjson source: $version present in $dest"
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
fi

cache=subprojects/packagecache
mkdir -p "$cache"
dsc=$cache/cjson_$upstream.dsc
if [ ! -f "$dsc" ]; then
    if ! apt-get source --print-uris "cjson=$version" >/dev/null 2>&1; then
        list=/etc/apt/sources.list.d/svk-deb-src.list
        echo "cjson source: adding deb-src lines ($list)"
        python3 scripts/deb_src.py | $sudo tee "$list" >/dev/null
        if [ ! -s "$list" ]; then
            echo "cjson source: no Debian mirror for this release found in apt's sources" >&2
            exit 1
        fi
        $sudo apt-get update -qq
    fi
    want="cjson=$version"
    if ! apt-get source --print-uris "$want" >/dev/null 2>&1; then
        # The mirror has moved on (a newer security update): its current
        # source, which differs from the installed library by Debian's
        # patches alone. The stamp keeps the installed version, so the next
        # run does not fetch again.
        echo "cjson source: $version is no longer on the mirror; taking its current cjson source" >&2
        want=cjson
    fi
    echo "cjson source: downloading $want into $cache"
    (cd "$cache" && apt-get source --download-only -qq "$want")
    dsc=$(ls -t "$cache"/cjson_*.dsc | head -1)
fi

rm -rf "$dest"
# Checks the files against the .dsc's checksums (apt checked the .dsc against
# the mirror's signed index; the keyring that would check its own signature
# is not installed: the warning about it is expected), and applies Debian's
# patches.
mkdir -p "$(dirname "$dest")"
dpkg-source --no-copy -x "$dsc" "$dest" >/dev/null
echo "$version" >"$stamp"
echo "cjson source: $version unpacked into $dest"
