#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# progress_width.py: armprof-explore's progress on a terminal fits its width (a pty of 60 columns, and $COLUMNS when the pty has no size); in a log it is whole lines; the summary comes after the recommendation in both.
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios

EXPLORE = sys.argv[1]
# Enough points (and work per point) that the bar is redrawn several times.
SWEEP = """\
name: width
ops: 2000000
ops_per_cycle: 24
interval: 256
workload: {mix: compute}
recommend: {max_collision_pct: 1}
sweep:
  drain: [2, 3]
  fifo_bytes: [64, 128, 256, 512, 1024, 2048, 4096, 8192]
"""
failures = []
passed = [0]


def check(cond, what):
    if cond:
        passed[0] += 1
    else:
        failures.append(what)
        print("FAIL:", what)


def run_on_pty(tmp, cols, env_columns):
    """Runs the sweep with stderr and stdout on a pty of `cols` columns (0: no size set); returns
    everything the terminal received."""
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if env_columns:
        env["COLUMNS"] = str(env_columns)
    out = os.path.join(tmp, "pty-%d-%s" % (cols, env_columns))
    p = subprocess.Popen([EXPLORE, "-j", "2", "--no-plots", "--fresh", "-o", out, os.path.join(tmp, "w.yaml")],
                         stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    data = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        data += chunk
    p.wait(timeout=60)
    os.close(master)
    check(p.returncode == 0, "exit status %s on a %d-column pty" % (p.returncode, cols))
    return data.decode()


def screen_lines(text):
    """What each \\r-redraw and each line puts on the terminal: the segments between \\r and \\n."""
    return [seg for line in text.replace("\r\n", "\n").split("\n") for seg in line.split("\r")]


def check_terminal(text, width, what):
    bar = [s for s in screen_lines(text) if re.search(r"\d+/16 points", s)]
    check(len(bar) >= 2, "%s: the progress line is drawn (%d times)" % (what, len(bar)))
    for s in bar:
        check(len(s) <= width - 1, "%s: progress line of %d columns on a %d-column terminal: %r" %
              (what, len(s), width, s))
    check(any("16/16 points 100.0%" in s for s in bar), "%s: the last progress line says 16/16" % what)
    # The redraws are in place: bare carriage returns (the pty turns each \n into \r\n).
    check(len(re.findall(r"\r(?!\n)", text)) >= 2, "%s: the bar is redrawn in place with \\r" % what)
    check_order(text, what)


def check_order(text, what):
    reco = text.find("drain 3 B/cycle: the smallest record FIFO depth")
    files = text.find("width: 16 points ->")
    stats = text.find("16 points (16 run, 0 resumed) in")
    check(0 <= reco < files < stats, "%s: recommendation, then files, then the run's summary (%d, %d, %d)" %
          (what, reco, files, stats))
    last = [l for l in text.replace("\r", "\n").split("\n") if l.strip()][-1]
    check("16 points (16 run, 0 resumed) in" in last, "%s: the summary is the last line: %r" % (what, last))


with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "w.yaml"), "w") as f:
        f.write(SWEEP)
    # A 60-column terminal: its own size (TIOCGWINSZ), whatever $COLUMNS says.
    check_terminal(run_on_pty(tmp, 60, 200), 60, "60-column pty")
    # A terminal with no size (ws_col 0): $COLUMNS.
    check_terminal(run_on_pty(tmp, 0, 40), 40, "pty without a size, COLUMNS=40")
    # A wide terminal keeps every field.
    wide = run_on_pty(tmp, 200, None)
    check_terminal(wide, 200, "200-column pty")
    check(re.search(r"\[#{30}\] 16/16 points 100\.0%  [\d.]+ points/s  elapsed \d\d:\d\d  ETA 00:00", wide) is not None,
          "200-column pty: the whole line (30-column bar, rate, elapsed, ETA)")
    # A log: whole lines (no \r), one per tenth of the points, and the same order.
    log = os.path.join(tmp, "log.txt")
    with open(log, "w") as f:
        p = subprocess.run([EXPLORE, "-j", "2", "--no-plots", "--fresh", "-o", os.path.join(tmp, "log"),
                            os.path.join(tmp, "w.yaml")], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    check(p.returncode == 0, "log run exit status %d" % p.returncode)
    text = open(log).read()
    check("\r" not in text, "log: no carriage return")
    progress = [l for l in text.splitlines() if re.match(r"\[[#.]{30}\] \d+/16 points", l)]
    check(3 <= len(progress) <= 11, "log: one progress line per tenth (%d)" % len(progress))
    check(progress and progress[-1].startswith("[" + "#" * 30 + "] 16/16 points 100.0%"),
          "log: the last progress line is complete")
    check_order(text, "log")

print("%d passed, %d failed" % (passed[0], len(failures)))
sys.exit(1 if failures else 0)
