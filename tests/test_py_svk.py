#!/usr/bin/env python3
"""python/svk, the ctypes binding, against libsvk's own tools.

usage: test_py_svk.py LIBSVK SVK_TRAIN SVK_GENERATE PY_LAYOUT PYTHON_DIR [--seed N]

The binding's structs against the C compiler's layout (tests/py_layout.c);
the device list; then svk-train runs a few steps and Python drives the same
public calls (the same data generator and seed, the same learning rates
from svk_lr_schedule_ex) on the same library: each step's loss and gradient
norm must equal svk-train's CSV bit for bit (%.9g, which reads back as the
same float32). The same library on the same device runs the same kernels on
the same inputs, and a run is deterministic (README.md), so any difference
is the binding's mistake, never rounding: no tolerance is allowed. Runs:
svk-train's default run (the addition task and its 2 x 32 model) on the
Vulkan device and on the CPU reference (there with bfloat16 activations
too), and docs/MODEL.md's default model on a text file's bytes. Then the
Python model's evaluation against svk-train's checkpoint of the same run,
its save and open round trip (a resumed step equal to a continued one),
greedy generation against svk-generate's, and errors: svk.Error carrying
libsvk's status and message. Under the validation layer ($SVK_VALIDATION=1,
as every device test) the context must end with no message.
"""
import csv
import os
import random
import subprocess
import sys
import tempfile

from pytally import check, summary, take_seed


def layout(svk_structs, py_layout):
    """Every size and field offset of _structs.py equals the C compiler's."""
    import ctypes
    c = {}
    for line in subprocess.run([py_layout], check=True, capture_output=True, text=True).stdout.splitlines():
        name, *rest = line.split()
        c[name + (" size" if rest[0] == "size" else "")] = int(rest[-1])
    py = {}
    for cname, cls in svk_structs.ALL.items():
        py[cname + " size"] = ctypes.sizeof(cls)
        for f, _ in cls._fields_:
            py["%s.%s" % (cname, f)] = getattr(cls, f).offset
    bad = sorted(k for k in set(c) | set(py) if c.get(k) != py.get(k))
    check(not bad, "ctypes layouts of %d structs (%d sizes and offsets) equal C's%s"
          % (len(svk_structs.ALL), len(c), "" if not bad else ": " + ", ".join(
              "%s C %s ctypes %s" % (k, c.get(k), py.get(k)) for k in bad[:8])))


def read_csv(path):
    with open(path) as f:
        return [(float(r["loss"]), float(r["grad_norm"])) for r in csv.DictReader(f)]


def svk_train(exe, args, tmp, name):
    """Runs svk-train with a CSV and a --save; returns the CSV's (loss, grad_norm) rows and the checkpoint."""
    log, ckpt = os.path.join(tmp, name + ".csv"), os.path.join(tmp, name + ".safetensors")
    r = subprocess.run([exe] + args + ["--log", log, "--save", ckpt], capture_output=True, text=True)
    if not check(r.returncode == 0, "svk-train %s (%s) exits 0" % (" ".join(args), name)):
        print(r.stdout + r.stderr)
        return None, None
    return read_csv(log), ckpt


def same_run(svk, np, name, want, model, data, B, T, steps, lr, warmup):
    """Trains model on data's batches at svk-train's rates; every loss and gradient norm must be svk-train's."""
    got = []
    for s in range(steps):
        tok, tgt = data.batch(B, T)
        loss = model.train_step(tok, tgt, svk.lr_schedule(s, steps, lr, warmup=warmup))
        got.append((loss, model.last_step()["grad_norm"]))
    # The CSV's %.9g values read back as the very float32s (then widened to
    # double, as ctypes gives c_float's value): equality is bitwise.
    same = want is not None and [(np.float32(a), np.float32(b)) for a, b in want] == \
        [(np.float32(a), np.float32(b)) for a, b in got]
    check(same, "%s: %d steps' losses and gradient norms equal svk-train's bit for bit (Python %s, svk-train %s)"
          % (name, steps, ["%.9g" % l for l, _ in got], ["%.9g" % l for l, _ in want or []]))
    return tok, tgt


def errors(svk, np, ctx, model, tmp):
    """Bad calls raise svk.Error with libsvk's status and message."""
    def raises(what, status, fn, contains=()):
        try:
            fn()
        except svk.Error as e:
            ok = e.status == status and e.name == svk.status_string(status) and all(c in e.message for c in contains)
            return check(ok, "%s: svk.Error %s: %s" % (what, e.name, e.message))
        return check(False, "%s raises svk.Error" % what)

    missing = os.path.join(tmp, "missing.safetensors")
    raises("Model.open of a missing file", 10, lambda: svk.Model.open(missing, ctx), [missing])
    not_ckpt = os.path.join(tmp, "not_a_checkpoint.safetensors")
    with open(not_ckpt, "wb") as f:
        f.write(b"this is not a safetensors file")
    raises("Model.open of a file that is not a checkpoint", 11, lambda: svk.Model.open(not_ckpt, ctx), [not_ckpt])
    raises("an unknown configuration key", 14, lambda: svk.Model.create(ctx, {"widht": 32}), ["widht"])
    raises("an unknown precision", 1, lambda: svk.Model.create(ctx, precision="fp8"), ["fp8"])
    B, T = 2, 8
    ok = np.zeros((B, T), dtype=np.int32)
    raises("targets of another shape than tokens", 1, lambda: model.train_step(ok, ok[:, :-1], 1e-3), ["targets"])
    raises("1-D tokens", 1, lambda: model.eval_loss(ok[0], ok[0]), ["tokens"])
    raises("float tokens", 1, lambda: model.logits(ok.astype(np.float32)), ["tokens"])
    ctx_len = model.config["ctx"]
    long = np.zeros((1, ctx_len + 1), dtype=np.int32)
    raises("a batch longer than ctx (libsvk's refusal)", 1, lambda: model.eval_loss(long, long), [str(ctx_len)])
    vocab = model.config["vocab"]
    big = ok.copy()
    big[1, 3] = vocab
    raises("a token >= vocab (libsvk's refusal)", 1, lambda: model.train_step(big, ok, 1e-3), [str(vocab)])
    step = model.step
    check(model.step == step, "the refused steps changed nothing (step %d)" % step)
    raises("Model.save to a directory", 10, lambda: model.save(tmp))
    raises("TextData of a missing file", 10, lambda: svk.TextData(missing), [missing])
    raises("an addition batch shorter than a problem", 1, lambda: svk.Addition().batch(2, 4))


def main():
    args = sys.argv[1:]
    seed = take_seed(args)
    if len(args) != 5:
        print(__doc__)
        return 2
    lib_path, train, generate, py_layout, python_dir = args
    try:
        import numpy as np
    except ImportError as e:
        print("FAIL numpy is not importable by %s (%s): install Debian's python3-numpy (scripts/setup.sh)"
              % (sys.executable, e))
        return 1
    os.environ["SVK_LIBRARY"] = lib_path
    sys.path.insert(0, python_dir)
    import svk
    from svk import _structs
    print("seed: %d (repeat with --seed %d); libsvk %s at %s" % (seed, seed, svk.version(), lib_path))

    layout(_structs, py_layout)
    r = subprocess.run([sys.executable, "-c", "import svk; svk.list_devices()"], capture_output=True, text=True,
                       env=dict(os.environ, SVK_LIBRARY=os.path.join(python_dir, "no-such-libsvk.so"),
                                PYTHONPATH=python_dir))
    check(r.returncode != 0 and "svk.LibraryNotFound" in r.stderr and "SVK_LIBRARY" in r.stderr,
          "a missing library raises svk.LibraryNotFound naming SVK_LIBRARY: %s" % r.stderr.strip().splitlines()[-1])

    devices = svk.list_devices()
    check(len(devices) > 0 and all(d["name"] for d in devices),
          "list_devices: %s" % ", ".join("%s (%s%s)" % (d["name"], d["type"], "" if d["supported"] else
                                                        ", unsupported: " + d["unsupported_reason"])
                                         for d in devices))
    ctx = svk.Context()
    check(ctx.device["name"] in [d["name"] for d in devices], "the context's device is listed: %s" % ctx.device["name"])
    validation = os.environ.get("SVK_VALIDATION") == "1"
    check(ctx.validation_enabled == validation, "validation layer %s, as $SVK_VALIDATION says"
          % ("on" if validation else "off"))

    with tempfile.TemporaryDirectory(prefix="py-svk-") as tmp:
        # svk-train's default run, shortened: the addition task (answers
        # reversed, operands padded), its 2 x 32 RoPE model, lr 5e-3.
        B, T, steps, warmup = 8, 32, 6, 2
        common = ["--seed", str(seed), "--steps", str(steps), "--batch", str(B), "--seq", str(T),
                  "--warmup", str(warmup), "--eval", "0"]
        addition_cfg = {"layers": 2, "width": 32, "pos": "rope"}

        def addition():
            return svk.Addition(seed=seed, heldout=0, answer="reversed", operands="padded")

        want, ckpt = svk_train(train, common, tmp, "addition")
        model = svk.Model.create(ctx, addition_cfg, seed=seed)
        check(model.param_count == 34304 and model.config["width"] == 32,
              "Model.create: svk-train's addition model, %d parameters" % model.param_count)
        tok, tgt = same_run(svk, np, "addition task on %s" % ctx.device["name"], want, model, addition(), B, T,
                            steps, 5e-3, warmup)
        check(model.step == steps, "model.step is %d" % model.step)

        # The checkpoint svk-train saved holds the weights Python trained.
        loss = model.eval_loss(tok, tgt)
        if ckpt:
            with svk.Model.open(ckpt, ctx, optimizer=True) as theirs:
                check(theirs.step == steps and theirs.eval_loss(tok, tgt) == loss,
                      "eval_loss %.9g equals that of svk-train's checkpoint, step %d" % (loss, theirs.step))
                check(np.array_equal(theirs.logits(tok), model.logits(tok)),
                      "logits [%d, %d, %d] equal those of svk-train's checkpoint" % (B, T, model.config["vocab"]))
        check(model.eval_loss(tok, tgt) == loss and model.step == steps, "eval_loss leaves the model as it was")

        # save and open: a resumed step is the continued one's.
        saved = os.path.join(tmp, "py.safetensors")
        model.save(saved, optimizer=True)
        nxt, nxt_tgt = addition().batch(B, T)
        with svk.Model.open(saved, ctx, optimizer=True) as again:
            check(again.config == model.config and again.step == steps and again.eval_loss(tok, tgt) == loss,
                  "save and Model.open: the configuration, step and eval_loss come back")
            a, b = model.train_step(nxt, nxt_tgt, 1e-3), again.train_step(nxt, nxt_tgt, 1e-3)
            check(a == b, "a step after the round trip equals the continued model's: %.9g" % a)
            exported = os.path.join(tmp, "py-export.safetensors")
            again.save(exported)
            with svk.Model.open(exported, ctx) as weights:
                check(weights.step == 0 and weights.eval_loss(tok, tgt) == again.eval_loss(tok, tgt),
                      "save without the optimiser: the weights, at step 0")

        # Greedy generation: svk-generate's text from the same checkpoint.
        prompt = "12+34="
        out = model.generate(prompt, 8)
        text = prompt + bytes(out.astype(np.uint8).tolist()).decode("latin-1")
        model.save(saved)
        r = subprocess.run([generate, saved, "--prompt", prompt, "--tokens", "8"], capture_output=True)
        theirs = r.stdout.decode("latin-1")
        check(r.returncode == 0 and theirs in (text, text + "\n") and len(out) == 8,
              "generate: greedy %r, svk-generate's %r" % (text, theirs))
        check(np.array_equal(model.generate(prompt, 8, no_cache=True), out),
              "generate without the key-value cache gives the same tokens")

        # The same run on the CPU reference (no context), with float32 and
        # with bfloat16 activations.
        want, _ = svk_train(train, common + ["--device", "cpu"], tmp, "addition-cpu")
        with svk.Model.create(None, addition_cfg, seed=seed) as cpu:
            same_run(svk, np, "addition task on the CPU reference", want, cpu, addition(), B, T, steps, 5e-3, warmup)
        want, _ = svk_train(train, common + ["--device", "cpu", "--precision", "bf16"], tmp, "addition-cpu-bf16")
        with svk.Model.create(None, addition_cfg, seed=seed, precision="bf16") as cpu:
            same_run(svk, np, "addition task on the CPU reference, bf16 activations", want, cpu, addition(), B, T,
                     steps, 5e-3, warmup)

        # docs/MODEL.md's default model (4 x 128) on a text file's bytes,
        # svk-train --data with --holdout 0 (the whole file), lr 3e-3.
        text_file = os.path.join(tmp, "text.txt")
        with open(text_file, "wb") as f:
            f.write(bytes(random.Random(seed).choice(b"abc de\n") for _ in range(4000)))
        B, T, steps = 4, 32, 4
        want, _ = svk_train(train, ["--data", text_file, "--holdout", "0", "--seed", str(seed), "--steps", str(steps),
                                    "--batch", str(B), "--seq", str(T), "--warmup", str(warmup)], tmp, "text")
        with svk.Model.create(ctx, seed=seed) as default, svk.TextData(text_file, seed=seed) as data:
            check(default.config["layers"] == 4 and default.config["width"] == 128 and data.size == 4000,
                  "Model.create with no config: docs/MODEL.md's default, %d parameters" % default.param_count)
            same_run(svk, np, "text file, the default model", want, default, data, B, T, steps, 3e-3, warmup)

        errors(svk, np, ctx, model, tmp)

    if validation:
        v = ctx.validation_counts()
        check(v["errors"] == 0 and v["warnings"] == 0,
              "the validation layer reported nothing (%d errors, %d warnings%s)"
              % (v["errors"], v["warnings"], ": " + v["last_message"] if v["last_message"] else ""))
    ctx.close()
    check(model._h is None, "Context.close closed its models")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
