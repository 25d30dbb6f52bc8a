#!/usr/bin/env python3
"""Checks shaders/coopmat_khr.py, the NV -> KHR cooperative-matrix rewrite.

Debian 12's spirv-val cannot validate the KHR module (scripts/khr_check.sh
does, with Debian unstable's tools and lavapipe), so this checks what the
rewrite promises, instruction by instruction, on the module libsvk embeds:
the NV module the build validated, rewritten again here and compared with
the embedded one, then every cooperative-matrix instruction's operands.
And that it refuses what it cannot rewrite faithfully.

usage: test_coopmat_khr.py SHADERS_SRC_DIR BUILD_SHADERS_DIR
"""
import os
import re
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import coopmat_khr as ck  # noqa: E402

# The SPIR-V registry's numbers, written out here rather than taken from
# the module under test.
CAP_NV, CAP_KHR = 5357, 6022
KHR_TYPE, KHR_LOAD, KHR_STORE, KHR_MULADD = 4456, 4457, 4458, 4459
USE_A, USE_B, USE_ACC = 0, 1, 2          # MatrixAKHR, MatrixBKHR, MatrixAccumulatorKHR
ROW_MAJOR, COL_MAJOR = 0, 1              # RowMajorKHR, ColumnMajorKHR
OP_CAPABILITY, OP_EXTENSION, OP_CONSTANT, OP_SPEC_CONSTANT_OP, OP_SELECT = 17, 10, 43, 52, 169
OP_TRUE, OP_FALSE, OP_SPEC_TRUE, OP_SPEC_FALSE = 41, 42, 48, 49

failures = 0


def check(ok, what):
    global failures
    print("%s %s" % ("PASS" if ok else "FAIL", what))
    failures += not ok


def words_of_header(path):
    return [int(w, 16) for w in re.findall(r"0x([0-9a-f]{8})u", open(path).read())]


def refused(words, needle, what):
    try:
        ck.rewrite(words)
        check(False, "%s: refused (it was rewritten)" % what)
    except ck.RewriteError as e:
        check(needle in str(e), "%s: refused (%s)" % (what, e))


nv = words_of_header(os.path.join(sys.argv[2], "gemm_coopmat.spv.h"))
embedded = words_of_header(os.path.join(sys.argv[2], "gemm_coopmat_khr.spv.h"))
khr = ck.rewrite(nv)
check(khr == embedded, "the embedded KHR module is the rewrite of the embedded NV module")

_, insts = ck.parse(khr)
ops = [i[0] for i in insts]
check(not any(5357 <= op <= 5362 for op in ops), "no NV opcode is left")
caps = [i[1] for i in insts if i[0] == OP_CAPABILITY]
check(CAP_KHR in caps and CAP_NV not in caps, "capability CooperativeMatrixKHR only")
exts = [ck.decode_string(i[1:]) for i in insts if i[0] == OP_EXTENSION]
check(exts == ["SPV_KHR_cooperative_matrix"], "extensions: %s" % exts)

# Definitions, in module order: every id is defined before it is used in
# the types-and-constants section (what a validator would check first).
defined_at = {}
for n, inst in enumerate(insts):
    op = inst[0]
    if op in (21, 20, KHR_TYPE, 19, 22, 28, 32):  # types: result is word 1
        defined_at[inst[1]] = n
    elif len(inst) >= 3 and op in (OP_CONSTANT, OP_SPEC_CONSTANT_OP, 50, OP_SPEC_TRUE,
                                    OP_SPEC_FALSE, OP_TRUE, OP_FALSE):
        defined_at[inst[2]] = n
const_value = {i[2]: i[3] for i in insts if i[0] == OP_CONSTANT and len(i) == 4}

types = {i[1]: i for i in insts if i[0] == KHR_TYPE}
check(len(types) == 3, "three matrix types (A, B, accumulator): %d" % len(types))
uses = {}
for t, inst in types.items():
    check(len(inst) == 7, "type %%%d has the use operand" % t)
    use_id = inst[6]
    check(defined_at.get(use_id, 1 << 30) < defined_at[t], "type %%%d's use %%%d is defined before it" % (t, use_id))
    uses[t] = const_value.get(use_id)

value_type = {}
for inst in insts:
    if inst[0] in ck.VALUE_OPS | {KHR_LOAD, KHR_MULADD} and len(inst) >= 3 and inst[1] in types:
        value_type[inst[2]] = inst[1]
muladds = [i for i in insts if i[0] == KHR_MULADD]
check(len(muladds) > 0, "%d multiply-adds" % len(muladds))
for inst in muladds:
    rtype, _, a, b, c = inst[1:6]
    got = (uses.get(value_type.get(a)), uses.get(value_type.get(b)), uses.get(value_type.get(c)), uses.get(rtype))
    check(got == (USE_A, USE_B, USE_ACC, USE_ACC), "multiply-add operand uses A, B, C, result: %s" % (got,))
    check(len(inst) == 6, "float multiply-add without operands")

spec_select = {i[2]: i for i in insts if i[0] == OP_SPEC_CONSTANT_OP and i[3] == OP_SELECT}
nv_inst = ck.parse(nv)[1]
nv_loads = [i for i in nv_inst if i[0] == 5359]  # OpCooperativeMatrixLoadNV
nv_stores = [i for i in nv_inst if i[0] == 5360]  # OpCooperativeMatrixStoreNV
loads = [i for i in insts if i[0] == KHR_LOAD]
stores = [i for i in insts if i[0] == KHR_STORE]
check(len(loads) == len(nv_loads) and len(stores) == len(nv_stores), "every load and store kept")


def layout_matches(layout_id, col_major_id, what):
    """The KHR layout says what NV's boolean said."""
    nv_bools = {i[2]: i[0] for i in nv_inst if i[0] in (41, 42, 48, 49)}
    kind = nv_bools.get(col_major_id)
    if kind in (OP_TRUE, OP_FALSE):
        want = COL_MAJOR if kind == OP_TRUE else ROW_MAJOR
        check(const_value.get(layout_id) == want, "%s: constant layout %s" % (what, const_value.get(layout_id)))
    else:
        sel = spec_select.get(layout_id)
        ok = sel is not None and sel[4] == col_major_id and const_value.get(sel[5]) == COL_MAJOR and \
            const_value.get(sel[6]) == ROW_MAJOR
        check(ok, "%s: layout follows the specialisation boolean %%%d" % (what, col_major_id))


for k, (new, old) in enumerate(zip(loads, nv_loads)):
    # NV: type, id, pointer, stride, column-major, memory operands...
    # KHR: type, id, pointer, layout, stride, memory operands...
    check(new[1:4] == old[1:4] and new[5] == old[4] and new[6:] == old[6:], "load %d: operands moved" % k)
    layout_matches(new[4], old[5], "load %d" % k)
for k, (new, old) in enumerate(zip(stores, nv_stores)):
    check(new[1:3] == old[1:3] and new[4] == old[3] and new[5:] == old[5:], "store %d: operands moved" % k)
    layout_matches(new[3], old[4], "store %d" % k)
header = khr[:5]
check(header[3] > max(max(defined_at), max(value_type)), "the id bound covers the new ids")

# What it must refuse.
refused(ck.parse(nv)[0][:4] + [0], "declares no", "a module without matrices")
refused([0x12345678] + nv[1:], "not a SPIR-V module", "a module with a wrong magic number")
# One matrix type used as both A and B: the B operand's value re-typed as A's type.
h, ins = ck.parse(nv)
vt = {}
for i in ins:
    if i[0] in ck.VALUE_OPS and len(i) >= 3:
        vt[i[2]] = i[1]
first = next(i for i in ins if i[0] == 5361)
a_type, b_val = vt[first[3]], first[4]
for i in ins:
    if i[0] in ck.VALUE_OPS and len(i) >= 3 and i[2] == b_val:
        i[1] = a_type
refused(ck.serialise(h, ins), "two operands", "a matrix type used as both A and B")
# A matrix type in no multiply-add.
h, ins = ck.parse(nv)
ins = [i for i in ins if i[0] != 5361]
refused(ck.serialise(h, ins), "in no multiply-add", "a matrix type in no multiply-add")

print("%d failed" % failures)
sys.exit(1 if failures else 0)
