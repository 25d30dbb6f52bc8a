"""The PASS/FAIL lines and tally of the Python tests, as tu_check gives the
C tests theirs (tests/test_util.h). Each test imports it from its own folder,
which Python puts on the path of a script it runs."""
import random
import sys

passed = failed = 0


def check(ok, what):
    """Prints one PASS or FAIL line for what; returns ok."""
    global passed, failed
    print("%s %s" % ("PASS" if ok else "FAIL", what))
    sys.stdout.flush()
    if ok:
        passed += 1
    else:
        failed += 1
    return ok


def summary():
    """The tally's line; the test's exit status: 1 when a check failed or
    none ran."""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


def take_seed(args):
    """The run's seed: --seed N taken out of args (a list, changed in place),
    else a fresh one, which the test prints so a run can be repeated."""
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
        return seed
    return random.randrange(1 << 32)
