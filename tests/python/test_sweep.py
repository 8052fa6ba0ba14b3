# SPDX-License-Identifier: Apache-2.0
# test_sweep.py: armprof.sweep() equals armprof-explore on the same file (the CSV's values and the recommendation), dict and YAML alike; seeds: N rows, their spread and the worst-seed recommendation with its Little's-law figures; bad sweeps raise ScenarioError naming key and value; Ctrl-C returns the points done.
import csv
import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import armprof
from conftest import run_tool

SWEEP = textwrap.dedent("""\
    name: small
    ops: 2000000
    ops_per_cycle: 24
    interval: 256
    inflight: 4
    buffer_bytes: 256K
    irq_latency: 4000
    workload:
      mix: compute
    recommend:
      max_collision_pct: 1
      max_lost_pct: 2
    sweep:
      - drain: [1, 3, 4]
        fifo_bytes: [64, 256, 1024]
      - buffer_bytes: [8K, 32K]
        irq_latency: [1000, 8000]
        mix: [default, memory]
    """)

AS_DICT = {
    "name": "small", "ops": 2000000, "ops_per_cycle": 24, "interval": 256, "inflight": 4, "buffer_bytes": "256K",
    "irq_latency": 4000, "workload": {"mix": "compute"},
    "recommend": {"max_collision_pct": 1, "max_lost_pct": 2},
    "sweep": [{"drain": [1, 3, 4], "fifo_bytes": [64, 256, 1024]},
              {"buffer_bytes": ["8K", "32K"], "irq_latency": [1000, 8000], "mix": ["default", "memory"]}],
}


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def assert_points_equal_csv(points, rows):
    """Every cell of results.csv equals the DataFrame's (the CSV writes whole numbers as integers
    and other numbers with 6 significant digits; host time is the one figure that differs)."""
    assert len(points) == len(rows)
    assert list(points.columns) == [c for c in rows[0] if c != "index"]
    for row in rows:
        i = int(row["index"])
        for col, cell in row.items():
            if col in ("index", "host_seconds"):
                continue
            got = points.at[i, col]
            if cell == "":
                assert got is None or (isinstance(got, float) and math.isnan(got)), (i, col, got)
            elif isinstance(got, str):
                assert got == cell, (i, col)
            else:
                want = float(cell)
                assert float("%.6g" % got) == pytest.approx(want, rel=1e-12, abs=0) or \
                    ("%.0f" % got == cell), (i, col, got, cell)


@pytest.fixture(scope="module")
def explore_out(tool, tmp_path_factory):
    d = tmp_path_factory.mktemp("explore")
    path = d / "small.yaml"
    path.write_text(SWEEP)
    out = d / "out"
    run_tool(tool("armprof-explore"), "-q", "-j", "2", "--no-plots", "-o", str(out), str(path))
    return path, out


def test_sweep_equals_armprof_explore_csv(explore_out):
    path, out = explore_out
    s = armprof.sweep(str(path), jobs=2, progress=False)
    assert not s.interrupted and s.name == "small"
    assert_points_equal_csv(s.points, read_csv(out / "results.csv"))
    # The recommendation: the same lines as armprof-explore's, with their figures as fields.
    lines = (out / "recommendation.txt").read_text().splitlines()[1:]
    assert [r.text for r in s.recommendation] == lines
    fifo = [r for r in s.recommendation if r.size_param == "fifo_bytes"]
    assert [r.line_value for r in fifo] == ["1", "3", "4"] and all(r.metric == "collision_pct" for r in fifo)
    for r in s.recommendation:
        pts = s.points[s.points[r.line_param] == r.line_number]
        if r.met:
            at = pts[pts[r.size_param] == r.size][r.metric]
            assert r.worst == pytest.approx(at.max()) and r.worst < r.target and r.needed is None
        else:
            assert r.best_worst >= r.target and r.needed == pytest.approx(r.best_worst - r.target)
            assert r.best_worst == pytest.approx(pts.groupby(r.size_param)[r.metric].max().min())


def test_sweep_from_dict_equals_yaml(explore_out):
    path, out = explore_out
    s = armprof.sweep(AS_DICT, jobs=1, progress=False)
    assert_points_equal_csv(s.points, read_csv(out / "results.csv"))


def test_sweep_writes_armprof_explore_files(explore_out, tmp_path):
    path, out = explore_out
    s = armprof.sweep(str(path), jobs=2, out=tmp_path / "o", progress=False)
    assert s.out == str(tmp_path / "o")
    mine = read_csv(tmp_path / "o" / "results.csv")
    theirs = read_csv(out / "results.csv")
    for a, b in zip(mine, theirs):
        a.pop("host_seconds"), b.pop("host_seconds")
        assert a == b
    # A second call resumes every point from points.jsonl.
    again = armprof.sweep(str(path), out=tmp_path / "o", progress=False)
    pd.testing.assert_frame_equal(again.points.drop(columns="host_seconds"), s.points.drop(columns="host_seconds"))


def test_sweep_progress_lines_without_tqdm(explore_out, capfd, monkeypatch):
    """Without tqdm the progress is plain lines on stderr."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    path, _ = explore_out
    armprof.sweep(str(path), jobs=2)
    err = capfd.readouterr().err
    assert "armprof.sweep small: 17/17 points" in err


@pytest.mark.parametrize("spec, key, value, words", [
    ({"sweep": {"fifo_bytes": [64, "big"]}}, "fifo_bytes", "big", "fifo_bytes"),
    ({"sweep": {"fifo_byte": [64]}}, "fifo_byte", None, "did you mean 'fifo_bytes'"),
    ({"drain": 0, "sweep": {"fifo_bytes": [64]}}, "drain", "0", "drain"),
    ({"workload": {"mix": "gpu"}, "sweep": {"fifo_bytes": [64]}}, "mix", "gpu", "mix"),
    ({"sweep": {"fifo_bytes": 64}}, "fifo_bytes", None, "list of values"),
    ({"interval": 256}, None, None, "no 'sweep:'"),
    ({"max_size": 4, "sweep": {"fifo_bytes": [8, 64]}}, "fifo_bytes", "8", "point 0"),
])
def test_bad_sweep_raises_scenario_error(spec, key, value, words):
    with pytest.raises(armprof.ScenarioError) as e:
        armprof.sweep(spec, progress=False)
    assert e.value.key == key and e.value.value == value, (e.value.key, e.value.value, str(e.value))
    assert words in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, armprof.Error)


def test_bad_sweep_file_names_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("ops: 1000000\nsweep:\n  fifo_bytes: [64, -1]\n")
    with pytest.raises(armprof.ScenarioError) as e:
        armprof.sweep(str(p), progress=False)
    assert (e.value.key, e.value.value, e.value.line) == ("fifo_bytes", "-1", 3)
    assert str(e.value).startswith(str(p) + ":3:")
    with pytest.raises(FileNotFoundError):
        armprof.sweep(str(tmp_path / "none.yaml"))
    with pytest.raises(TypeError):
        armprof.sweep(42)


CTRL_C = textwrap.dedent("""\
    import sys, armprof
    spec = {"ops": 200000000, "interval": 256, "sweep": {"fifo_bytes": list(range(64, 64 + 40 * 64, 64))}}
    print("start", flush=True)
    s = armprof.sweep(spec, jobs=2, progress=False)
    print("result", len(s.points), s.interrupted, len(s.recommendation), sorted(s.points.index)[:3], flush=True)
    """)


def test_ctrl_c_stops_workers_and_returns_points_done(tmp_path):
    """SIGINT (Ctrl-C) during a sweep: the workers finish their points and start no other; the
    call returns the points done, marked interrupted, and the interpreter goes on."""
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C)
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=os.environ)
    assert p.stdout.readline().strip() == "start"
    time.sleep(1.5)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert time.monotonic() - t0 < 10
    words = out.split()
    assert words[0] == "result", out
    done = int(words[1])
    assert 0 < done < 40 and words[2] == "True" and words[3] == "0"
    assert "interrupted" in err


SEEDS = textwrap.dedent("""\
    name: seeded
    seeds: 3
    ops: 2400000
    ops_per_cycle: 24
    interval: 256
    rnd: true
    inflight: 4
    buffer_bytes: 64M
    clock_hz: 2e9
    spe: {drain: 16, write_bytes: 64, max_outstanding_writes: 16}
    workload: {mix: compute}
    recommend: {max_collision_pct: 1}
    sweep:
      memory.write_latency_ns: [150, 300]
      fifo_bytes: [256, 1024, 4096]
    """)


@pytest.fixture(scope="module")
def seeded(tool, tmp_path_factory):
    d = tmp_path_factory.mktemp("seeded")
    path = d / "seeded.yaml"
    path.write_text(SEEDS)
    out = d / "out"
    run_tool(tool("armprof-explore"), "-q", "-j", "2", "-o", str(out), str(path))
    return path, out, armprof.sweep(str(path), jobs=2, progress=False)


def test_seeds_rows_and_spread(seeded):
    """seeds: 3: three rows per configuration (a seed column, as in results.csv), and seed_spread()
    gives each configuration's lowest, mean and highest seed: the plot's error bars."""
    path, out, s = seeded
    assert s.seeds == 3 and s.params == ["write_latency_ns", "fifo_bytes", "seed"]
    assert_points_equal_csv(s.points, read_csv(out / "results.csv"))
    assert sorted(s.points["seed"].unique()) == [1, 2, 3]
    spread = s.seed_spread("collision_pct")
    assert len(spread) == 6 and (spread["seeds"] == 3).all()
    # the collisions plot's data: the same spread per latency block and depth
    blocks = (out / "collisions_vs_fifo.dat").read_text().split("# write_latency_ns ")[1:]
    for block in blocks:
        lines = block.strip().splitlines()
        lat = int(lines[0])
        for row in lines[1:]:
            x, mean, worst, n, lo, hi = (float(v) for v in row.split()[:6])
            got = spread.loc[(lat, int(x))]
            assert (got["min"], got["mean"], got["max"]) == pytest.approx((lo, mean, hi), rel=1e-7)
            assert worst == pytest.approx(got["max"], rel=1e-7) and n == 3


def test_seeds_recommendation_worst_seed_and_needs(seeded):
    """The recommendation takes the worst seed; a latency no depth serves names what would, with
    figures that follow from the reference point's metrics by Little's law."""
    path, out, s = seeded
    lines = (out / "recommendation.txt").read_text().splitlines()[1:]
    assert [r.text for r in s.recommendation] == lines
    spread = s.seed_spread("collision_pct")
    for r in s.recommendation:
        assert r.seeds == 3
        worst = spread.loc[r.line_number]["max"]
        if r.met:
            assert r.worst == pytest.approx(worst.loc[r.size]) and "worst of 3 seeds" in r.text
            assert r.limit is None and r.need_outstanding_writes is None
            continue
        assert r.best_worst == pytest.approx(worst.min())
        ref = s.points.loc[r.ref_point]
        assert ref["write_latency_ns"] == r.line_number and ref["fifo_bytes"] == r.best_size
        assert ref["collision_pct"] == pytest.approx(r.best_worst)
        assert r.record_bytes_per_cycle == pytest.approx(ref["record_bytes_per_cycle"])
        assert r.record_gbytes_per_s == pytest.approx(r.record_bytes_per_cycle * 2)
        # 300 ns at 2 GHz is 600 cycles; 16 writes of 64 B carry 16 x 64 / 600 B/cycle
        assert r.limit == "memory" and r.write_latency_cycles == 600
        assert (r.write_bytes, r.outstanding_writes) == (64, 16)
        assert r.capacity_bytes_per_cycle == pytest.approx(16 * 64 / 600)
        assert r.bytes_in_flight == pytest.approx(r.record_bytes_per_cycle * 600)
        assert r.min_outstanding_writes == math.ceil(r.bytes_in_flight / 64)
        assert r.need_outstanding_writes == math.ceil(r.bytes_in_flight / 0.9 / 64)
        assert r.max_write_latency_ns == pytest.approx(0.9 * 16 * 64 / r.record_bytes_per_cycle / 2)
        assert "%d outstanding writes of 64 B" % r.need_outstanding_writes in r.text
        frame = s.recommendation_frame()
        assert {"seeds", "limit", "need_outstanding_writes", "record_gbytes_per_s"} <= set(frame.columns)
    assert any(not r.met for r in s.recommendation) and any(r.met for r in s.recommendation)
