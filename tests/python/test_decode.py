# SPDX-License-Identifier: Apache-2.0
# test_decode.py: armprof.decode() equals armprof-decode --json field for field on several dumps (armprof-run's, the platform's, hand-built streams with saturated counters, errors and lenient resynchronisation).
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import armprof
from conftest import run_tool

# Columns that stand for a JSON key of another name (hex strings in JSON are numbers here).
HEX = {"pc", "target", "va", "pa"}


def json_records(decode_tool, path, *flags):
    out = run_tool(decode_tool, "--json", *flags, path, ok=(0, 1) if "--lenient" in flags else (0,))
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def expected(rec, col):
    """The DataFrame cell a JSON record implies for a column (None: NA)."""
    if col == "events":
        return int(rec["events_raw"], 16) if "events_raw" in rec else None
    if col == "event_names":
        return ",".join(rec["events"]) if "events" in rec else None
    if col == "saturated":
        return ",".join(rec["saturated"]) if "saturated" in rec else None
    if col == "end":
        return bool(rec.get("end", False))
    if col == "ignored_packets":
        return rec.get("ignored_packets", 0)
    if col not in rec:
        return None
    return int(rec[col], 16) if col in HEX else rec[col]


def assert_equal_to_json(df, recs):
    assert len(df) == len(recs)
    assert list(df.columns) == armprof.COLUMNS
    # JSON keys that no column stands for would be a field the DataFrame lost.
    known = set(armprof.COLUMNS) | {"events_raw"}
    for rec in recs:
        assert set(rec) <= known, set(rec) - known
    for col in armprof.COLUMNS:
        want = [expected(r, col) for r in recs]
        got = df[col].tolist()
        got = [None if (g is pd.NA or (isinstance(g, float) and np.isnan(g))) else g for g in got]
        got = [int(g) if isinstance(g, (np.integer,)) else g for g in got]
        assert got == want, "column %s differs at record %d" % (
            col, next(i for i, (a, b) in enumerate(zip(got, want)) if a != b))


@pytest.fixture(scope="module")
def dumps(tool, tmp_path_factory):
    """Several dumps: armprof-run's default, one with loads/stores of the memory mix, alignment
    padding and 64-byte writes, and one with a small buffer (many buffer-full events)."""
    d = tmp_path_factory.mktemp("dumps")
    runs = {
        "default": ["--ops", "2000000"],
        "aligned": ["--ops", "2000000", "--max-size", "7", "--align", "5", "--write-bytes", "64", "--seed", "7"],
        "small-buffer": ["--ops", "3000000", "--interval", "256", "--buffer-bytes", "8192", "--seed", "3"],
    }
    out = {}
    for name, args in runs.items():
        o = d / name
        run_tool(tool("armprof-run"), "--out", str(o), *args)
        out[name] = str(o / "spe.bin")
    return out


@pytest.mark.parametrize("name", ["default", "aligned", "small-buffer"])
def test_decode_equals_armprof_decode_json(tool, dumps, name):
    df = armprof.decode(dumps[name])
    assert len(df) > 1000
    assert_equal_to_json(df, json_records(tool("armprof-decode"), dumps[name]))


def test_decode_of_bytes_equals_decode_of_file(dumps):
    a = armprof.decode(dumps["default"])
    with open(dumps["default"], "rb") as f:
        b = armprof.decode(f.read())
    pd.testing.assert_frame_equal(a, b)


def test_decode_memory_mix_has_addresses_and_data_source(tool, tmp_path):
    """A run with the memory mix: loads and stores carry data addresses, other operations none."""
    s = armprof.run({"ops": 1000000, "interval": 256, "buffer_bytes": "1M", "workload": {"mix": "memory"}},
                    out=tmp_path)
    df = s.records
    assert_equal_to_json(df, json_records(tool("armprof-decode"), s.dump))
    ldst = df[df.op == "ldst"]
    assert len(ldst) > 100
    assert ldst.va.notna().mean() > 0.9
    assert df[df.op != "ldst"].va.isna().all()


def test_decode_saturated_counters_and_16_bit_counts(tool, tmp_path):
    """Hand-built records whose counters saturate (12-bit: 0xFFF; 16-bit: 0xFFFF) are marked as
    armprof-decode --count-size marks them (seed 001 §5.3.4)."""
    spu = armprof.Spu({"count_size": 3}, memory_size=1 << 16)
    program(spu)
    for i, lat in enumerate([0xFFF, 0xFFFF, 40, 0xFFFF]):
        feed(spu, pc=0x400000 + 4 * i, total_lat=lat, issue_lat=lat & 0xFFF,
             op_class="ldst", data_va=0x1000 + i)
    path = tmp_path / "sat.bin"
    path.write_bytes(spu.memory(spu.memory_base, spu.read_reg("PMBPTR_EL1")))
    for bits, flags in ((12, []), (16, ["--count-size", "16"])):
        df = armprof.decode(str(path), count_bits=bits)
        assert_equal_to_json(df, json_records(tool("armprof-decode"), str(path), *flags))
        assert df.saturated.notna().any()


def test_decode_error_and_lenient(tool, dumps, tmp_path):
    """A stream cut inside a record: a strict decode raises DecodeError naming the offset as
    armprof-decode does; a lenient one returns the records armprof-decode --lenient lists."""
    with open(dumps["default"], "rb") as f:
        data = f.read()
    bad = data[:1000] + b"\xff\x01\x02" + data[1000:2000]
    path = tmp_path / "bad.bin"
    path.write_bytes(bad)
    p = subprocess.run([tool("armprof-decode"), "--quiet", str(path)], capture_output=True, text=True)
    assert p.returncode == 1
    with pytest.raises(armprof.DecodeError) as e:
        armprof.decode(str(path))
    assert "offset" in str(e.value)
    df = armprof.decode(str(path), lenient=True)
    assert df.attrs["errors"] >= 1
    assert_equal_to_json(df, json_records(tool("armprof-decode"), str(path), "--lenient"))


def test_decode_empty_and_bad_arguments(tmp_path):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert len(armprof.decode(str(empty))) == 0
    assert list(armprof.decode(b"").columns) == armprof.COLUMNS
    with pytest.raises(TypeError):
        armprof.decode(12)
    with pytest.raises(FileNotFoundError):
        armprof.decode(str(tmp_path / "missing.bin"))


# ----- helpers shared with test_spu ---------------------------------------------------------------

def program(spu, interval=256):
    """Programs the unit as Linux's arm_spe_pmu does: PMSIRR, PMSICR, the buffer, then PMSCR_EL1
    (E1SPE and CX: records carry CONTEXTIDR_EL1; TS off: they end in an End packet)."""
    base = spu.memory_base
    spu.write_reg("PMSIRR_EL1", interval)
    spu.write_reg("PMSICR_EL1", 0)
    spu.write_reg("PMBPTR_EL1", base)
    spu.write_reg("PMBLIMITR_EL1", (base + 0x8000) | 1)
    spu.write_reg("PMSCR_EL1", 1 << 3 | 1 << 1)   # CX, E1SPE


def feed(spu, interval=256, **op):
    """Retires operations until one is sampled and lets its record reach memory."""
    for _ in range(interval * 4):
        r = spu.retire(**op)
        if r == "sampled":
            spu.advance(op.get("total_lat", 1) + 200)
            spu.psb_csync()
            return
    raise AssertionError("no sample in %d operations" % (interval * 4))
