# shellcheck shell=bash
# Sourced (not run) by the command-line tests, svk_train_cli.sh,
# svk_generate_cli.sh and svk_train_resume.sh, with
#     . "$(dirname "$0")/cli_checks.sh"
# (meson runs them by their path in the source tree, where this file is).
# It makes $dir, a temporary directory removed on exit and the current
# directory from then on, and the tallies
# $pass and $fail, and gives the checks below; each check runs one command
# with its output in $dir/out and prints one PASS or FAIL line, a failure
# followed by the output's last lines, indented. The test ends with
# `summary`, whose status is the test's.

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The tools run in it, so that what they write by default in the current
# directory (svk-train's svk-train.csv and .svg) stays out of the build
# tree and apart from other tests'. The tools' paths ($train, $gen: meson
# gives them whole, a user by hand perhaps relative) are made absolute
# first.
for tool_var in train gen; do
    if [ -n "${!tool_var:-}" ] && [ "${!tool_var#/}" = "${!tool_var}" ]; then
        printf -v "$tool_var" '%s/%s' "$PWD" "${!tool_var}"
    fi
done
cd "$dir" || exit 1
pass=0
fail=0

passed() { # the PASS line's text
    echo "PASS $1"
    pass=$((pass + 1))
}

failed() { # the FAIL line's text, lines of $dir/out to show
    echo "FAIL $1"
    sed 's/^/     /' "$dir/out" | tail -"$2"
    fail=$((fail + 1))
}

check() { # description, command...: passes if the command succeeds
    local what=$1
    shift
    if "$@" >"$dir/out" 2>&1; then
        passed "$what"
    else
        failed "$what" 20
    fi
}

expect() { # description, exit status, expected text, command...
    local what=$1 want_rc=$2 want=$3
    shift 3
    "$@" >"$dir/out" 2>&1
    local rc=$?
    if [ "$rc" -ne "$want_rc" ]; then
        failed "$what: exit status $rc, expected $want_rc" 5
    elif ! grep -qF -- "$want" "$dir/out"; then
        failed "$what: output lacks '$want'" 5
    else
        passed "$what: $(head -1 "$dir/out")"
    fi
}

# A bad command line: exit status 2, and a message naming the option, the
# value and what is allowed.
usage_error() { # description, expected text, command...
    local what=$1 want=$2
    shift 2
    expect "$what" 2 "$want" "$@"
}

refused() { # description, expected text, command...: any failing status
    local what=$1 want=$2
    shift 2
    if "$@" >"$dir/out" 2>&1; then
        failed "$what: exited 0" 20
    elif grep -qF -- "$want" "$dir/out"; then
        passed "$what: $(head -1 "$dir/out")"
    else
        failed "$what: message lacks '$want'" 20
    fi
}

summary() { # the tallies; fails if any check failed
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
