# SPDX-License-Identifier: Apache-2.0
# test_run.py: armprof.run() is armprof-explore's point on the C-level model (same metrics), with its dump, summary and records; armprof.platform() is armprof-vp's run with the same shapes; bad scenarios raise ScenarioError.
import json
import math
import os

import pytest

import armprof
from conftest import run_tool

SCENARIO = {"ops": 3000000, "interval": 512, "buffer_bytes": "16K", "irq_latency": 3000, "fifo_bytes": 256,
            "workload": {"mix": "memory"}}


def test_run_equals_the_sweep_point(tmp_path):
    """run(scenario) gives the metrics armprof-explore gives the same point (one-value sweep)."""
    r = armprof.run(SCENARIO, out=tmp_path / "run")
    s = armprof.sweep({**SCENARIO, "sweep": {"interval": [512]}}, progress=False)
    row = s.points.iloc[0]
    for k, v in r.stats.items():
        if k != "host_seconds":
            assert row[k] == pytest.approx(v, rel=1e-12), k
    assert set(r.stats) == {c for c in s.points.columns if c != "interval"}


def test_run_outputs_dump_summary_and_records(tmp_path):
    r = armprof.run(SCENARIO, out=tmp_path / "run")
    assert r.model == "c" and r.dump == str(tmp_path / "run" / "spe.bin") and r.trbe_dump is None
    with open(tmp_path / "run" / "summary.json") as f:
        assert json.load(f) == r.summary
    spu = r.summary["spu"]
    # Every record written is either copied out by the driver or still lost to DL (none here).
    assert spu["dl_events"] == 0
    assert os.path.getsize(r.dump) == spu["dumped_bytes"]
    assert len(r.records) == r.stats["records_written"] == spu["records_written"]
    assert r.stats["buffer_full_events"] > 0 and spu["buffer_full_events"] == r.stats["buffer_full_events"]
    assert r.records["contextidr_el1"].eq(0x1234).all()


def test_run_trbe_writes_trace(tmp_path):
    r = armprof.run({"ops": 1000000, "trbe_buffer_bytes": "64K", "trbe_bytes": "1M"}, out=tmp_path)
    assert r.trbe_dump and os.path.getsize(r.trbe_dump) == r.summary["trbu"]["dumped_bytes"] > 0
    assert r.stats["trbe_bytes_in"] > 0


def test_run_default_folder():
    r = armprof.run({"ops": 100000})
    assert os.path.isdir(r.out) and os.path.basename(r.out).startswith("armprof-run-")


@pytest.mark.parametrize("scenario, key, value", [
    ({"ops": "many"}, "ops", "many"),
    ({"interval": 100}, "interval", "100"),
    ({"spe": {"fifo_bytes": -4}}, "spe.fifo_bytes", "-4"),
    ({"workload": {"p_load": 2}}, "workload.p_load", "2"),
    ({"bogus": 1}, "bogus", "1"),
    ({"fifo_bytes": 1024, "sweep": {"drain": [1, 2]}}, "sweep", None),
])
def test_bad_scenario_raises_scenario_error(scenario, key, value):
    with pytest.raises(armprof.ScenarioError) as e:
        armprof.run(scenario)
    assert (e.value.key, e.value.value) == (key, value), str(e.value)
    assert e.value.line and e.value.column


def test_bad_scenario_values_that_are_not_data():
    with pytest.raises(armprof.Error):
        armprof.run({"ops": object()})
    with pytest.raises(armprof.Error):
        armprof.run({"ops": math.nan})


@pytest.mark.platform
def test_platform_same_shapes(tool, tmp_path):
    """armprof.platform(): the platform's summary.json, spe.bin and the same metrics shape."""
    scen = {"ops": 1000000, "interval": 1024, "buffer_bytes": "8K"}
    p = armprof.platform(scen, out=tmp_path / "vp", vp=tool("armprof-vp"))
    c = armprof.run(scen, out=tmp_path / "c")
    assert p.model == "platform"
    with open(tmp_path / "vp" / "summary.json") as f:
        assert json.load(f) == p.summary
    assert set(p.stats) <= set(c.stats) and {"samples", "records_written", "buffer_full_events"} <= set(p.stats)
    assert p.stats["buffer_full_events"] > 0
    assert len(p.records) > 0 and list(p.records.columns) == armprof.COLUMNS
    assert json.loads(run_tool(tool("armprof-decode"), "--json", p.dump).splitlines()[0])["offset"] == 0


@pytest.mark.platform
def test_platform_refuses_c_only_parameters(tool):
    with pytest.raises(armprof.ScenarioError) as e:
        armprof.platform({"ops": 100000, "write_latency": 5}, vp=tool("armprof-vp"))
    assert e.value.key == "write_latency" and e.value.value == "fixed:5"   # its canonical text
    with pytest.raises(armprof.Error):
        armprof.platform({"ops": 100000}, vp="/nonexistent/armprof-vp")
