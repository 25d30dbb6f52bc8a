#!/usr/bin/env python3
"""Rewrite a SPV_NV_cooperative_matrix module into a SPV_KHR_cooperative_matrix one.

Debian 12's glslang (12.0) compiles GL_NV_cooperative_matrix but not
GL_KHR_cooperative_matrix, and AMD and Intel drivers (and lavapipe of Mesa
26) offer only VK_KHR_cooperative_matrix. The two SPIR-V extensions
express the same operations; they differ in encoding only:

- the capability (CooperativeMatrixNV -> CooperativeMatrixKHR) and the
  extension's name;
- OpTypeCooperativeMatrixKHR has a fifth operand, the matrix's use (A, B or
  accumulator), which the NV type does not record: it is read off the
  multiply-adds, where each type takes one role, and a type that takes two
  (or none) is an error, since one NV type would then be two KHR types;
- loads and stores take a memory layout (a 32-bit integer constant: row- or
  column-major) in place of NV's boolean, and before the stride instead of
  after it; a specialisation-constant boolean becomes an OpSpecConstantOp
  Select, so the layout still follows the specialisation;
- the multiply-add and length instructions change opcode only (the KHR
  multiply-add's optional operands concern integer signedness).

Anything else NV-specific in the module is refused by name, so a shader
that grows a construct this rewrite does not know fails the build rather
than producing a module nobody has validated.

Used by compile_shader.py (--coopmat-khr); `python3 coopmat_khr.py IN OUT`
rewrites a .spv file on its own.
"""
import struct
import sys

MAGIC = 0x07230203

OP_EXTENSION = 10
OP_TYPE_INT = 21
OP_CONSTANT_TRUE = 41
OP_CONSTANT_FALSE = 42
OP_CONSTANT = 43
OP_SPEC_CONSTANT_TRUE = 48
OP_SPEC_CONSTANT_FALSE = 49
OP_SPEC_CONSTANT_OP = 52
OP_FUNCTION = 54
OP_CAPABILITY = 17
OP_SELECT = 169

CAP_COOPMAT_NV = 5357
CAP_COOPMAT_KHR = 6022

NV_TYPE, NV_LOAD, NV_STORE, NV_MULADD, NV_LENGTH = 5358, 5359, 5360, 5361, 5362
KHR_TYPE, KHR_LOAD, KHR_STORE, KHR_MULADD, KHR_LENGTH = 4456, 4457, 4458, 4459, 4460

USE_A, USE_B, USE_ACC = 0, 1, 2
LAYOUT_ROW, LAYOUT_COL = 0, 1

# Opcodes whose first two operands are <result type> <result id> and that
# may produce a cooperative matrix value in the modules glslang writes.
VALUE_OPS = {
    1,      # OpUndef
    44,     # OpConstantComposite
    46,     # OpConstantNull
    61,     # OpLoad
    80,     # OpCompositeConstruct
    81,     # OpCompositeExtract
    82,     # OpCompositeInsert
    83,     # OpCopyObject
    115,    # OpFConvert
    127,    # OpFNegate
    129,    # OpFAdd
    131,    # OpFSub
    133,    # OpFMul
    136,    # OpFDiv
    143,    # OpMatrixTimesScalar
    169,    # OpSelect
    245,    # OpPhi
    NV_LOAD,
    NV_MULADD,
}


class RewriteError(Exception):
    pass


def encode_string(s):
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 4)
    return list(struct.unpack("<%dI" % (len(b) // 4), b))


def decode_string(words):
    b = struct.pack("<%dI" % len(words), *words)
    return b.split(b"\0", 1)[0].decode()


def parse(words):
    if len(words) < 5 or words[0] != MAGIC:
        raise RewriteError("not a SPIR-V module (magic 0x%08x)" % (words[0] if words else 0))
    insts = []
    i = 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            raise RewriteError("malformed instruction at word %d" % i)
        insts.append([op] + words[i + 1:i + count])
        i += count
    return words[:5], insts


def serialise(header, insts):
    out = list(header)
    for inst in insts:
        out.append((len(inst) << 16) | inst[0])
        out.extend(inst[1:])
    return out


def rewrite(words):
    header, insts = parse(words)
    bound = header[3]

    def new_id():
        nonlocal bound
        bound += 1
        return bound - 1

    nv_types = {}        # type id -> instruction
    value_type = {}      # result id -> type id, for values of a matrix type
    uint_type = None
    uint_consts = {}     # value -> id of a new OpConstant %uint
    bool_consts = {}     # id -> True/False (constants), or None (spec constants)
    for inst in insts:
        op = inst[0]
        if op == NV_TYPE:
            nv_types[inst[1]] = inst
        elif op == OP_TYPE_INT and inst[2] == 32 and inst[3] == 0 and uint_type is None:
            uint_type = inst[1]
        elif op in (OP_CONSTANT_TRUE, OP_CONSTANT_FALSE):
            bool_consts[inst[2]] = op == OP_CONSTANT_TRUE
        elif op in (OP_SPEC_CONSTANT_TRUE, OP_SPEC_CONSTANT_FALSE):
            bool_consts[inst[2]] = None
        if op in VALUE_OPS and len(inst) >= 3 and inst[1] in nv_types:
            value_type[inst[2]] = inst[1]
    if not nv_types:
        raise RewriteError("the module declares no OpTypeCooperativeMatrixNV")
    if uint_type is None:
        raise RewriteError("the module declares no 32-bit unsigned integer type")

    # Each matrix type's use, from the multiply-adds.
    use = {}

    def assign(type_id, role, what):
        if type_id is None:
            raise RewriteError("cannot tell the type of the multiply-add's %s" % what)
        if use.setdefault(type_id, role) != role:
            raise RewriteError("matrix type %%%d is used as two operands of multiply-adds "
                               "(a KHR matrix type has one use)" % type_id)

    for inst in insts:
        if inst[0] == NV_MULADD:
            rtype, _, a, b, c = inst[1:6]
            assign(rtype, USE_ACC, "result")
            assign(value_type.get(a), USE_A, "A")
            assign(value_type.get(b), USE_B, "B")
            assign(value_type.get(c), USE_ACC, "C")
    for t in nv_types:
        if t not in use:
            raise RewriteError("matrix type %%%d is in no multiply-add, so its use is unknown" % t)

    # New 32-bit unsigned constants go right after their type (the module's
    # own may come after the matrix types that would use them); layouts
    # from specialisation booleans go before the first function.
    new_consts = []
    late = []

    def uint_const(v):
        if v not in uint_consts:
            uint_consts[v] = new_id()
            new_consts.append([OP_CONSTANT, uint_type, uint_consts[v], v])
        return uint_consts[v]

    layout_of = {}

    def layout(col_major_id):
        if col_major_id in layout_of:
            return layout_of[col_major_id]
        if col_major_id not in bool_consts:
            raise RewriteError("the column-major operand %%%d is not a boolean constant" % col_major_id)
        known = bool_consts[col_major_id]
        if known is not None:
            lid = uint_const(LAYOUT_COL if known else LAYOUT_ROW)
        else:
            lid = new_id()
            late.append([OP_SPEC_CONSTANT_OP, uint_type, lid, OP_SELECT, col_major_id,
                         uint_const(LAYOUT_COL), uint_const(LAYOUT_ROW)])
        layout_of[col_major_id] = lid
        return lid

    for u in (USE_A, USE_B, USE_ACC):
        uint_const(u)

    out = []
    saw_ext = saw_cap = False
    for inst in insts:
        op = inst[0]
        if op == OP_CAPABILITY and inst[1] == CAP_COOPMAT_NV:
            inst = [OP_CAPABILITY, CAP_COOPMAT_KHR]
            saw_cap = True
        elif op == OP_EXTENSION and decode_string(inst[1:]) == "SPV_NV_cooperative_matrix":
            inst = [OP_EXTENSION] + encode_string("SPV_KHR_cooperative_matrix")
            saw_ext = True
        elif op == NV_TYPE:
            inst = [KHR_TYPE] + inst[1:6] + [uint_consts[use[inst[1]]]]
        elif op == NV_LOAD:
            rtype, rid, ptr, stride, col = inst[1:6]
            inst = [KHR_LOAD, rtype, rid, ptr, layout(col), stride] + inst[6:]
        elif op == NV_STORE:
            ptr, obj, stride, col = inst[1:5]
            inst = [KHR_STORE, ptr, obj, layout(col), stride] + inst[5:]
        elif op == NV_MULADD:
            inst = [KHR_MULADD] + inst[1:6]
        elif op == NV_LENGTH:
            inst = [KHR_LENGTH] + inst[1:]
        elif op == OP_CAPABILITY or op == OP_EXTENSION:
            pass
        elif 5357 <= op <= 5362:
            raise RewriteError("unknown NV cooperative-matrix opcode %d" % op)
        out.append(inst)
        if op == OP_TYPE_INT and inst[1] == uint_type:
            out.append(None)  # where the new constants go
    if not saw_cap or not saw_ext:
        raise RewriteError("the module lacks the CooperativeMatrixNV capability or its extension")
    at = out.index(None)
    out[at:at + 1] = new_consts
    first_fn = next((i for i, inst in enumerate(out) if inst[0] == OP_FUNCTION), None)
    if first_fn is None:
        raise RewriteError("the module has no function")
    out[first_fn:first_fn] = late
    header = list(header)
    header[3] = bound
    return serialise(header, out)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: coopmat_khr.py IN.spv OUT.spv\n")
        sys.exit(2)
    with open(sys.argv[1], "rb") as f:
        blob = f.read()
    try:
        words = rewrite(list(struct.unpack("<%dI" % (len(blob) // 4), blob)))
    except RewriteError as e:
        sys.stderr.write("error: %s: %s\n" % (sys.argv[1], e))
        sys.exit(1)
    with open(sys.argv[2], "wb") as f:
        f.write(struct.pack("<%dI" % len(words), *words))


if __name__ == "__main__":
    main()
