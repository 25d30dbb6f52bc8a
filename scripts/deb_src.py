#!/usr/bin/env python3
"""Prints deb-src lines for the Debian mirrors apt already uses for this
release, in one-line form (apt's sources.list(5)), for `apt-get source`.

Read: the deb822 files /etc/apt/sources.list.d/*.sources and the one-line
files /etc/apt/sources.list and /etc/apt/sources.list.d/*.list. Kept: the
'deb' entries that are enabled and whose suites belong to this release
(VERSION_CODENAME in /etc/os-release: bookworm, bookworm-updates,
bookworm-security), with their URI, components and Signed-By unchanged, so
the sources come from the same mirror, checked with the same key, as the
binary packages. Prints nothing when no entry qualifies.
"""
import glob
import re
import sys


def codename():
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                if line.startswith("VERSION_CODENAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return ""


def ours(suite, release):
    return bool(release) and (suite == release or suite.startswith(release + "-") or suite.startswith(release + "/"))


def from_deb822(path, release):
    out = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for stanza in re.split(r"\n[ \t]*\n", text):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            if line[0] in " \t":  # a continuation (an inline key): not a path to pass on
                if key:
                    fields[key] = None
                continue
            m = re.match(r"([A-Za-z-]+):\s*(.*)$", line)
            if m:
                key = m.group(1).lower()
                fields[key] = m.group(2).strip()
        if "deb" not in (fields.get("types") or "").split() or (fields.get("enabled") or "yes").lower() == "no":
            continue
        options = ""
        if "signed-by" in fields:
            if fields["signed-by"] is None:
                continue
            options = " [signed-by=%s]" % fields["signed-by"]
        comps = fields.get("components") or ""
        for uri in (fields.get("uris") or "").split():
            for suite in (fields.get("suites") or "").split():
                if ours(suite, release):
                    out.append("deb-src%s %s %s %s" % (options, uri, suite, comps))
    return out


def from_list(path, release):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)$", line)
            if m and ours(m.group(3), release):
                out.append("deb-src %s%s %s %s" % (m.group(1) or "", m.group(2), m.group(3), m.group(4).strip()))
    return out


def main():
    release = codename()
    lines = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        lines += from_deb822(path, release)
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        try:
            lines += from_list(path, release)
        except FileNotFoundError:
            pass
    for line in dict.fromkeys(lines):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
