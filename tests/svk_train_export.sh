#!/bin/bash
# svk-train --export: the model alone (weights and configuration, no
# optimiser or run state), about a third of --save's file, the same weights
# byte for byte; svk-generate and --init-from take it, --resume refuses it
# and says what to do instead; a diverged run writes no export.
# usage: svk_train_export.sh SVK_TRAIN SVK_GENERATE
set -u
train=$1
gen=$2
# shellcheck source=tests/cli_checks.sh
. "$(dirname "$0")/cli_checks.sh"
small=(--device cpu --config width=32 --config layers=2 --config heads=2 --config ctx=32 --batch 4 --seq 32
       --eval 0 --no-log)

check "--save and --export at the end of one run" "$train" "${small[@]}" --steps 6 --save full.st --export model.st
# What each file holds: the export's header has the configuration and no
# optimiser or run state; its tensors are the checkpoint's weights, the
# same bytes; its size a third of the checkpoint's, to within the headers.
check "the export: the weights and configuration alone, a third of --save's size" python3 - full.st model.st <<'PY'
import json, struct, sys

def read(path):
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__")
    data = blob[8 + n:]
    return meta, {k: data[v["data_offsets"][0]:v["data_offsets"][1]] for k, v in header.items()}, len(blob)

fmeta, full, fsize = read(sys.argv[1])
emeta, export, esize = read(sys.argv[2])
print("checkpoint %d bytes, export %d bytes: %.3f of it" % (fsize, esize, esize / fsize))
assert sorted(emeta) == ["format", "svk.config"], emeta
assert emeta["svk.config"] == fmeta["svk.config"]
assert "svk.step" in fmeta and "svk-train.run" in fmeta, sorted(fmeta)
weights = {k: v for k, v in full.items() if not k.startswith("optimizer.")}
assert len(full) == 3 * len(weights) and export == weights, "the export's tensors are not the checkpoint's weights"
assert abs(esize / fsize - 1 / 3) < 0.01, esize / fsize
PY
check "--export alone writes the same file" bash -c "
    '$train' ${small[*]} --steps 6 --export alone.st > /dev/null && cmp alone.st model.st"
check "svk-generate continues from the export as from the checkpoint" bash -c "
    '$gen' full.st --device cpu --prompt '12+34=' --tokens 6 > gen_full.txt &&
    '$gen' model.st --device cpu --prompt '12+34=' --tokens 6 > gen_export.txt &&
    cat gen_export.txt && cmp gen_full.txt gen_export.txt"
check "svk-generate opens the export on the Vulkan device" "$gen" model.st --prompt '1+1=' --tokens 3
refused "--resume refuses the export, pointing to --init-from" "start a new run from its weights with --init-from" \
    "$train" --device cpu --resume model.st --steps 8 --no-log
check "--init-from trains from the export" "$train" "${small[@]}" --steps 2 --init-from model.st --save next.st
usage_error "--export and --save naming one file" "--export and --save name one file" \
    "$train" "${small[@]}" --steps 2 --save same.st --export same.st
# lr 1e30: step 1's update blows the weights up and the later steps are
# skipped; the run ends diverged (exit 3) and exports nothing.
expect "a diverged run exports nothing" 3 "not saving: the run ended with its last" bash -c "
    '$train' ${small[*]} --steps 3 --constant-lr --lr 1e30 --max-bad-steps 0 --export div.st; rc=\$?
    [ ! -e div.st ] || { echo 'div.st was written'; exit 1; }; exit \$rc"
summary
