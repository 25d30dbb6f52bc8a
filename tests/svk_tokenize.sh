#!/bin/bash
# svk-tokenize and svk-generate --tokenizer on a small GPT-2-style tokenizer
# made here (the 256 byte tokens in GPT-2's order, a few merges,
# <|endoftext|>): a shard with the llm.c header, the known tokens and
# <|endoftext|> before each file (--eot), which svk-train trains on; a
# checkpoint from it continues a prompt through the tokenizer, the same
# greedy text with and without the key-value cache, cut after a --stop;
# every refusal named: a token past uint16, a missing file, a corrupt
# vocabulary, no <|endoftext|> for --eot, a model with fewer tokens than the
# tokenizer. A tiny model on the CPU backend, so it takes seconds.
# usage: svk_tokenize.sh SVK_TOKENIZE SVK_TRAIN SVK_GENERATE
set -u
tokenize=$1
train=$2
gen=$3
[ "${tokenize#/}" = "$tokenize" ] && tokenize=$PWD/$tokenize
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"

# make_tokenizer DIR EXTRA: GPT-2's byte tokens (ids in GPT-2's order: the
# bytes that print as themselves first), the merges, then <|endoftext|>;
# EXTRA=big puts the merge "a b" at id 65536 instead, past uint16.
make_tokenizer() {
    python3 - "$1" "$2" <<'EOF'
import json, os, sys
out, extra = sys.argv[1], sys.argv[2]
printable = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
order = printable + [b for b in range(256) if b not in printable]
char = {}
for n, b in enumerate(b for b in range(256) if b not in printable):
    char[b] = chr(256 + n)
for b in printable:
    char[b] = chr(b)
tokens = [char[b] for b in order]
if extra == "big":
    merges = [("a", "b")]
    tokens += ["<filler%d>" % i for i in range(65536 - len(tokens))] + ["ab"]
else:
    merges = [("\u0120", "t"), ("h", "e"), ("\u0120t", "he"), ("\u0120", "a"), ("\u0120a", "n"), ("\u0120an", "d")]
    tokens += [a + b for a, b in merges] + ["<|endoftext|>"]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
    json.dump({t: i for i, t in enumerate(tokens)}, f, ensure_ascii=False)
with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
    f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))
EOF
}
make_tokenizer "$dir/tok" small || { echo "FAIL making the tokenizer"; exit 1; }
# Its ids: 'x' is byte 0x78, the 0x78 - 0x21 = 87th printable; " the" is
# merge 2 (id 258), " and" merge 5 (261), <|endoftext|> 262.
vocab=263

# int32 and uint16 little-endian values of a file, one a line.
i32() { od -An -v -t d4 -j "$2" -N "$3" "$1" | tr -s ' ' '\n' | sed '/^$/d'; }
u16() { od -An -v -t u2 -j "$2" ${3:+-N "$3"} "$1" | tr -s ' ' '\n' | sed '/^$/d'; }

printf 'x the and' > "$dir/known.txt"
check "svk-tokenize writes a shard" "$tokenize" --tokenizer "$dir/tok" --out "$dir/known.bin" "$dir/known.txt"
header=$(i32 "$dir/known.bin" 0 12 | tr '\n' ' ')
tokens=$(u16 "$dir/known.bin" 1024 | tr '\n' ' ')
if [ "$header" = "20240520 1 3 " ] && [ "$tokens" = "87 258 261 " ] && [ "$(wc -c < "$dir/known.bin")" -eq 1030 ]; then
    passed "'x the and' is x, Ġthe, Ġand: 87 258 261 after the header 20240520 1 3"
else
    echo "header: $header tokens: $tokens" > "$dir/out"
    failed "'x the and': expected header 20240520 1 3 and tokens 87 258 261" 2
fi

# Two documents with --eot: <|endoftext|> before each; long enough to train.
for i in 1 2 3 4 5 6; do printf 'the cat and the dog and the end\n'; done > "$dir/doc1.txt"
for i in 1 2 3 4 5 6; do printf 'and then the other one\n'; done > "$dir/doc2.txt"
check "--eot with two files" "$tokenize" --tokenizer "$dir/tok" --eot --out "$dir/docs.bin" "$dir/doc1.txt" "$dir/doc2.txt"
n=$(i32 "$dir/docs.bin" 8 4 | tr -d ' ')
first=$(u16 "$dir/docs.bin" 1024 2 | tr -d ' ')
eots=$(u16 "$dir/docs.bin" 1024 | grep -cx 262)
if [ "$first" = 262 ] && [ "$eots" -eq 2 ] && [ "$(wc -c < "$dir/docs.bin")" -eq $((1024 + 2 * n)) ]; then
    passed "--eot: $n tokens, <|endoftext|> (262) first and before each of the 2 files"
else
    echo "count $n, first token $first, $eots of 262" > "$dir/out"
    failed "--eot: <|endoftext|> before each file" 1
fi

# 300 steps (2 s): enough for greedy text to end a line, for --stop-newline.
small=(--device cpu --config vocab=$vocab --config width=32 --config layers=1 --config heads=2 --config ctx=16
       --batch 4 --seq 16)
check "svk-train reads the shard (--train-data, --token-format llmc)" "$train" "${small[@]}" \
    --train-data "$dir/docs.bin" --token-format llmc --steps 300 --lr 3e-3 --eval 0 --no-log \
    --save "$dir/bpe.safetensors"

# Generation through the tokenizer: the prompt as given, then the decoded
# text; greedy is the same without the cache.
run_gen() { # NAME ARGS...
    local name=$1
    shift
    "$gen" "$dir/bpe.safetensors" --device cpu --tokenizer "$dir/tok" --prompt " the" --tokens 12 "$@" \
        > "$dir/$name" 2> "$dir/$name.err"
}
if run_gen cached && run_gen uncached --no-cache && [ "$(head -c 4 "$dir/cached")" = " the" ] &&
   cmp -s "$dir/cached" "$dir/uncached"; then
    passed "svk-generate --tokenizer: ' the' continued by $(($(wc -c < "$dir/cached") - 4)) bytes, the same without the cache"
else
    cat "$dir/cached" "$dir/cached.err" "$dir/uncached" "$dir/uncached.err" > "$dir/out" 2>/dev/null
    failed "svk-generate --tokenizer: the prompt, then text; the same with --no-cache" 10
fi
# --stop with the first generated byte: cut after the first token, whose
# bytes begin the full text's continuation (a newline follows unless the
# token ends with one). Bytes compared in Python: the text is any bytes.
stop=$(python3 -c 'import sys; b = open(sys.argv[1], "rb").read()[4:5]; print(b.decode() if b and 0x20 <= b[0] < 0x7f else "")' \
       "$dir/cached")
if [ -z "$stop" ]; then
    passed "--stop not checked: the first generated byte is not printable ASCII"
elif run_gen stopped --stop "$stop" && python3 - "$dir/cached" "$dir/stopped" > "$dir/out" 2>&1 <<'EOF_PY'
import sys
full, cut = (open(p, "rb").read()[4:] for p in sys.argv[1:3])
token = cut[:-1] if not full.startswith(cut) else cut
print("full %r, cut %r" % (full, cut))
sys.exit(0 if token and full.startswith(token) and len(token) <= 4 else 1)
EOF_PY
then
    passed "--stop '$stop' with --tokenizer: cut after the first token ($(cat "$dir/out"))"
else
    cat "$dir/stopped.err" >> "$dir/out" 2>/dev/null
    failed "--stop '$stop' with --tokenizer: not cut after the first token" 5
fi
# --stop-newline: the full text up to its first newline, when it has one.
if [ "$(tail -c +5 "$dir/cached" | head -c -1 | tr -dc '\n' | wc -c)" -gt 0 ]; then
    if run_gen newline --stop-newline && python3 - "$dir/cached" "$dir/newline" > "$dir/out" 2>&1 <<'EOF_PY'
import sys
full, cut = (open(p, "rb").read()[4:] for p in sys.argv[1:3])
print("full %r, cut %r" % (full, cut))
sys.exit(0 if cut == full[:full.index(b"\n") + 1] else 1)
EOF_PY
    then
        passed "--stop-newline with --tokenizer: cut after the first newline ($(cat "$dir/out"))"
    else
        cat "$dir/newline.err" >> "$dir/out" 2>/dev/null
        failed "--stop-newline with --tokenizer: not cut after the first newline" 5
    fi
else
    passed "--stop-newline not checked: the greedy text has no newline before its end"
fi

# Refusals.
refused "a tokenizer folder without vocab.json" "$dir/none/vocab.json" \
    "$tokenize" --tokenizer "$dir/none" --out "$dir/x.bin" "$dir/known.txt"
refused "a missing input file" "$dir/missing.txt" \
    "$tokenize" --tokenizer "$dir/tok" --out "$dir/x.bin" "$dir/known.txt" "$dir/missing.txt"
mkdir -p "$dir/corrupt" && printf '{"a": 0,' > "$dir/corrupt/vocab.json" && : > "$dir/corrupt/merges.txt"
refused "a corrupt vocab.json" "vocab.json: not JSON" \
    "$tokenize" --tokenizer "$dir/corrupt" --out "$dir/x.bin" "$dir/known.txt"
make_tokenizer "$dir/big" big
printf 'xab' > "$dir/ab.txt"
refused "a token past uint16" "token 65536 (the file's token 1) does not fit" \
    "$tokenize" --tokenizer "$dir/big" --out "$dir/x.bin" "$dir/ab.txt"
refused "--eot without <|endoftext|> in the vocabulary" "\"<|endoftext|>\" is not in the vocabulary" \
    "$tokenize" --tokenizer "$dir/big" --eot --out "$dir/x.bin" "$dir/known.txt"
[ ! -e "$dir/x.bin" ] && passed "no shard written by a failed run" || { : > "$dir/out"; failed "x.bin written" 1; }
usage_error "no file" "no FILE given" "$tokenize" --tokenizer "$dir/tok" --out "$dir/x.bin"
usage_error "no --out" "no --out PATH given" "$tokenize" --tokenizer "$dir/tok" "$dir/known.txt"
usage_error "an unknown option" "unknown option '--bogus'" "$tokenize" --bogus
expect "--help lists the exit statuses" 0 "exit status: 0 ok, 1 the run failed, 2 bad command line" \
    "$tokenize" --help
refused "svk-generate --tokenizer of a missing folder" "$dir/none/vocab.json" \
    "$gen" "$dir/bpe.safetensors" --device cpu --tokenizer "$dir/none"
printf 'the cat and the dog and the end\n%.0s' 1 2 3 > "$dir/bytes.txt"
if "$train" --device cpu --config width=16 --config layers=1 --config heads=2 --config ctx=16 --batch 2 --seq 16 \
        --data "$dir/bytes.txt" --steps 1 --eval 0 --no-log --save "$dir/bytes.safetensors" > "$dir/out" 2>&1; then
    refused "svk-generate --tokenizer with a model of fewer tokens" "has vocab 256, fewer than the 263 tokens" \
        "$gen" "$dir/bytes.safetensors" --device cpu --tokenizer "$dir/tok"
else
    failed "training the byte-level checkpoint" 10
fi
summary
