#!/bin/bash
# svk-generate's command line: every bad value refused with exit status 2
# and a message naming the option, the value and what is allowed (it used to
# wrap --top-k -1, generate nothing for --tokens "" or 4294967296 and exit 0,
# and open device 0 for --device vulkan:abc); a good run generates exactly
# --tokens tokens; --help lists the exit statuses and the options; greedy
# text is the same with the key-value cache, without it (--no-cache) and
# with a tiny --top-p; --stop ends the text. A tiny model on the CPU
# backend, so it takes seconds.
# usage: svk_generate_cli.sh SVK_TRAIN SVK_GENERATE
set -u
train=$1
gen=$2
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
ckpt=$dir/tiny.safetensors
if ! "$train" --device cpu --config width=16 --config layers=1 --config heads=2 --config ctx=16 --batch 2 --seq 16 \
        --steps 1 --eval 0 --jsonl --save "$ckpt" > "$dir/train.out" 2>&1; then
    echo "FAIL training the tiny checkpoint"
    cat "$dir/train.out"
    exit 1
fi

# The issue's command lines, and their neighbours.
expect "--tokens -1" 2 "--tokens '-1': not an integer in 1..1048576" "$gen" "$ckpt" --device cpu --tokens -1
expect "--tokens 4294967296" 2 "--tokens '4294967296': not an integer in 1..1048576" "$gen" "$ckpt" --device cpu \
    --tokens 4294967296
expect "--tokens ''" 2 "--tokens '': not an integer in 1..1048576" "$gen" "$ckpt" --device cpu --tokens ""
expect "--tokens 0" 2 "--tokens '0'" "$gen" "$ckpt" --device cpu --tokens 0
expect "--tokens 1048577" 2 "--tokens '1048577'" "$gen" "$ckpt" --device cpu --tokens 1048577
expect "--tokens 12x" 2 "--tokens '12x'" "$gen" "$ckpt" --device cpu --tokens 12x
expect "--top-k -1" 2 "--top-k '-1': not an integer" "$gen" "$ckpt" --device cpu --top-k -1
expect "--top-k past the vocabulary" 2 "--top-k 257: more than the 256 tokens" "$gen" "$ckpt" --device cpu \
    --top-k 257
expect "--temperature nan" 2 "--temperature 'nan': not a finite number >= 0" "$gen" "$ckpt" --device cpu \
    --temperature nan
expect "--temperature -1" 2 "--temperature '-1'" "$gen" "$ckpt" --device cpu --temperature -1
expect "--temperature inf" 2 "--temperature 'inf'" "$gen" "$ckpt" --device cpu --temperature inf
expect "--seed 2^64" 2 "--seed '18446744073709551616'" "$gen" "$ckpt" --device cpu --seed 18446744073709551616
expect "--seed -1" 2 "--seed '-1'" "$gen" "$ckpt" --device cpu --seed -1
expect "--device vulkan:4294967295" 2 "--device 'vulkan:4294967295': not cpu, vulkan or vulkan:N" "$gen" "$ckpt" \
    --device vulkan:4294967295
expect "--device vulkan:abc" 2 "--device 'vulkan:abc'" "$gen" "$ckpt" --device vulkan:abc
expect "--device gpu" 2 "--device 'gpu'" "$gen" "$ckpt" --device gpu
expect "unknown option" 2 "unknown option '--bogus'" "$gen" "$ckpt" --bogus
expect "unknown option without a value" 2 "unknown option '--bogus'" "$gen" "$ckpt" --device cpu --bogus
expect "missing value" 2 "--tokens needs a value" "$gen" "$ckpt" --device cpu --tokens
expect "two checkpoints" 2 "one checkpoint only" "$gen" "$ckpt" "$ckpt" --device cpu
expect "no checkpoint" 2 "no CHECKPOINT given" "$gen" --device cpu
expect "empty prompt" 2 "--prompt must not be empty" "$gen" "$ckpt" --device cpu --prompt ""
# Failures of the run, not of the command line: status 1.
expect "missing checkpoint" 1 "$dir/nope.safetensors" "$gen" "$dir/nope.safetensors" --device cpu
expect "--device vulkan:99 names the index and the device count" 1 "--device vulkan:99: " "$gen" "$ckpt" \
    --device vulkan:99
if ! grep -Eq "Vulkan device 99, but there (is|are) [0-9]+" "$dir/out"; then
    echo "FAIL --device vulkan:99: no device count in: $(cat "$dir/out")"
    fail=$((fail + 1))
fi
expect "--top-p 0" 2 "--top-p '0': not a number in (0, 1]" "$gen" "$ckpt" --device cpu --top-p 0
expect "--top-p 1.5" 2 "--top-p '1.5': not a number in (0, 1]" "$gen" "$ckpt" --device cpu --top-p 1.5
expect "--top-p nan" 2 "--top-p 'nan'" "$gen" "$ckpt" --device cpu --top-p nan
expect "--stop ''" 2 "--stop '': not a stop string (at most 64; 1..256 bytes each)" "$gen" "$ckpt" --device cpu \
    --stop ""
expect "--stop 257 bytes" 2 "not a stop string" "$gen" "$ckpt" --device cpu --stop "$(printf 'x%.0s' $(seq 257))"
expect "--stop without a value" 2 "--stop needs a value" "$gen" "$ckpt" --device cpu --stop
expect "--help names --top-p, --stop and --no-cache" 0 "--no-cache" "$gen" --help
if ! grep -q -- "--top-p P" "$dir/out" || ! grep -q -- "--stop STR" "$dir/out"; then
    echo "FAIL --help lacks --top-p or --stop"
    fail=$((fail + 1))
fi
expect "--help lists the exit statuses" 0 "exit status: 0 ok, 1 the run failed, 2 bad command line" "$gen" --help

# A good run: the prompt, then exactly --tokens bytes (and a newline when the
# last is none), on both the largest-k and sampled paths.
for extra in "" "--temperature 0.8 --top-k 256 --seed 18446744073709551615"; do
    # shellcheck disable=SC2086
    if "$gen" "$ckpt" --device cpu --prompt "ab" --tokens 5 $extra > "$dir/good" 2> "$dir/good.err"; then
        n=$(wc -c < "$dir/good")
        last=$(tail -c 1 "$dir/good" | od -An -c | tr -d ' ')
        # 2 prompt bytes + 5 generated, + 1 newline unless the 5th was one.
        if [ "$(head -c 2 "$dir/good")" = "ab" ] && { [ "$n" -eq 8 ] || { [ "$n" -eq 7 ] && [ "$last" = '\n' ]; }; }; then
            echo "PASS --tokens 5 ${extra:-greedy}: $n bytes"
            pass=$((pass + 1))
        else
            echo "FAIL --tokens 5 ${extra:-greedy}: $n bytes, expected 2 + 5 (+ newline)"
            od -c "$dir/good" | head -3
            fail=$((fail + 1))
        fi
    else
        echo "FAIL --tokens 5 ${extra:-greedy}: exit status $?"
        cat "$dir/good.err"
        fail=$((fail + 1))
    fi
done
# The key-value cache: 40 tokens from a 2-byte prompt pass the tiny model's
# ctx of 16, so the window slides; greedy text with the cache, without it
# (--no-cache) and with a tiny --top-p at temperature 1 is the same.
run_gen() { # NAME ARGS...: the text into $dir/NAME
    local name=$1
    shift
    if ! "$gen" "$ckpt" --device cpu --prompt "ab" --tokens 40 "$@" > "$dir/$name" 2> "$dir/$name.err"; then
        echo "FAIL $name: exit status $?"
        cat "$dir/$name.err"
        fail=$((fail + 1))
    fi
}
run_gen cached
run_gen uncached --no-cache
run_gen top_p --temperature 1 --top-p 1e-6 --seed 3
for other in uncached top_p; do
    if cmp -s "$dir/cached" "$dir/$other"; then
        echo "PASS greedy with the cache == $other"
        pass=$((pass + 1))
    else
        echo "FAIL greedy with the cache != $other"
        od -c "$dir/cached" | head -4
        od -c "$dir/$other" | head -4
        fail=$((fail + 1))
    fi
done
# --stop with the greedy text's first generated byte (unless NUL or a
# newline, which an argument cannot hold or the check would confuse): the
# prompt, that byte, a newline.
first=$(od -An -tu1 -j2 -N1 "$dir/cached" | tr -d ' ')
if [ "$first" -ne 0 ] && [ "$first" -ne 10 ]; then
    byte=$(printf "\\$(printf '%03o' "$first")")
    run_gen stopped --stop "never" --stop "$byte"
    if [ "$(wc -c < "$dir/stopped")" -eq 4 ] && [ "$(head -c 3 "$dir/stopped")" = "ab$byte" ]; then
        echo "PASS --stop at the first generated byte ($first)"
        pass=$((pass + 1))
    else
        echo "FAIL --stop at the first generated byte ($first)"
        od -c "$dir/stopped" | head -3
        fail=$((fail + 1))
    fi
else
    echo "PASS --stop not checked: the first generated byte is $first"
    pass=$((pass + 1))
fi
summary
