# SPDX-License-Identifier: Apache-2.0
# bench_python.py: bench-python: armprof.decode of a 100 MB dump against armprof-decode --quiet and against pandas.read_csv of armprof-decode --csv, and armprof.sweep against armprof-explore, in alternating rounds (min/median/max of the ratios).
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd

import armprof

SWEEP = """\
name: bench-python
ops: 12000000
ops_per_cycle: 24
interval: 256
inflight: 4
buffer_bytes: 256K
irq_latency: 4000
workload:
  mix: compute
sweep:
  drain: [1, 2, 3, 4, 6, 8]
  fifo_bytes: [64, 128, 256, 512, 1024, 2048, 4096, 8192]
"""


CPU = []   # CPU seconds of each timed call (this process's and its children's), beside the wall time


def cpu_now():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    c0 = cpu_now()
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    CPU.append(cpu_now() - c0)
    return t


def rounds(n, a, b, cpu=None):
    """n rounds of A then B, then B then A in the next (neither always first): lists of wall
    times; cpu (a list) gets the pairs of CPU times."""
    ta, tb = [], []
    for r in range(n):
        if r % 2 == 0:
            ta.append(timed(a))
            ca = CPU[-1]
            tb.append(timed(b))
            cb = CPU[-1]
        else:
            tb.append(timed(b))
            cb = CPU[-1]
            ta.append(timed(a))
            ca = CPU[-1]
        if cpu is not None:
            cpu.append((ca, cb))
    return ta, tb


def spread(xs):
    xs = sorted(xs)
    return "min %.2fx  median %.2fx  max %.2fx" % (xs[0], statistics.median(xs), xs[-1])


def make_dump(bindir, d, mb):
    """About mb MB of SPE records: armprof-run's dump of a default-mix run, repeated (whole
    records, so the file is one well-formed stream)."""
    out = os.path.join(d, "run")
    subprocess.run([os.path.join(bindir, "armprof-run"), "--ops", "60000000", "--interval", "256", "--buffer-bytes",
                    str(64 << 20), "--out", out], check=True, capture_output=True)
    with open(os.path.join(out, "spe.bin"), "rb") as f:
        one = f.read()
    path = os.path.join(d, "dump.bin")
    with open(path, "wb") as f:
        for _ in range(max(1, (mb << 20) // len(one))):
            f.write(one)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="folder of armprof-run, armprof-decode, armprof-explore")
    ap.add_argument("--mb", type=int, default=100, help="dump size in MB (default 100)")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    dec, exp = os.path.join(a.bin, "armprof-decode"), os.path.join(a.bin, "armprof-explore")
    with tempfile.TemporaryDirectory(prefix="bench-python-") as d:
        path = make_dump(a.bin, d, a.mb)
        size = os.path.getsize(path)
        n = len(armprof.decode(path))   # also warms the page cache
        print("armprof.decode, %.1f MB dump, %d records (%.1f B/record), %d alternating rounds"
              % (size / 1e6, n, size / n, a.rounds))

        cpu = []
        ta, tb = rounds(a.rounds, lambda: subprocess.run([dec, "--quiet", path], check=True),
                        lambda: armprof.decode(path), cpu)
        ratio = [x / y for x, y in zip(ta, tb)]
        print("  armprof-decode --quiet   %7.1f MB/s (median)" % (size / statistics.median(ta) / 1e6))
        print("  armprof.decode           %7.1f MB/s (median), %.2f M records/s"
              % (size / statistics.median(tb) / 1e6, n / statistics.median(tb) / 1e6))
        print("  armprof.decode / armprof-decode --quiet rate: %s   (target >= 0.5x): %s"
              % (spread(ratio), "met" if statistics.median(ratio) >= 0.5 else "NOT met"))
        print("  the same in CPU time (less noisy on a shared machine): %s" % spread([x / y for x, y in cpu]))

        csv = os.path.join(d, "dump.csv")
        with open(csv, "w") as f:
            subprocess.run([dec, "--csv", path], check=True, stdout=f)
        tc, td = rounds(max(3, a.rounds // 2 + 1), lambda: pd.read_csv(csv), lambda: armprof.decode(path))
        ratio = [x / y for x, y in zip(tc, td)]
        print("  pandas.read_csv of armprof-decode --csv (%.0f MB of CSV): %.2f s (median)"
              % (os.path.getsize(csv) / 1e6, statistics.median(tc)))
        print("  armprof.decode speed-up over read_csv: %s   (target >= 5x): %s"
              % (spread(ratio), "met" if statistics.median(ratio) >= 5 else "NOT met"))

        sweep = os.path.join(d, "sweep.yaml")
        with open(sweep, "w") as f:
            f.write(SWEEP)
        jobs = "2"
        te, tp = rounds(a.rounds, lambda: subprocess.run([exp, "-q", "--fresh", "--no-plots", "-j", jobs, "-o",
                                                          os.path.join(d, "explore"), sweep], check=True),
                        lambda: armprof.sweep(sweep, jobs=int(jobs), out=os.path.join(d, "py"), fresh=True,
                                              progress=False))
        ratio = [x / y for x, y in zip(te, tp)]
        print("armprof.sweep, 48 points of 12 M operations, %s workers, %d alternating rounds" % (jobs, a.rounds))
        print("  armprof-explore %.2f s, armprof.sweep %.2f s (medians)" % (statistics.median(te), statistics.median(tp)))
        print("  armprof.sweep speed / armprof-explore's: %s   (target >= 0.9x): %s"
              % (spread(ratio), "met" if statistics.median(ratio) >= 0.9 else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
