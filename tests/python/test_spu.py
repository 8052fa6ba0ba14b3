# SPDX-License-Identifier: Apache-2.0
# test_spu.py: armprof.Spu over the C API: registers with their access checks, operations, time and statistics; C errors raise armprof.Error with the C error's text.
import pandas as pd
import pytest

import armprof
from armprof._lib import lib, text
from test_decode import feed, program


def test_spu_records_what_was_retired():
    """A sampled load's record holds its PC, latencies and VA; PMBPTR_EL1 moves past it."""
    spu = armprof.Spu({"fifo_bytes": 256}, contextidr_el1=0x77)
    program(spu)
    base = spu.memory_base
    assert spu.read_reg("PMBPTR_EL1") == base
    feed(spu, pc=0x400100, op_class="ldst", total_lat=30, issue_lat=7, data_va=0xABC0)
    feed(spu, pc=0x400200, op_class="branch", op_subclass=1, total_lat=5, issue_lat=2)
    recs = spu.records()
    assert len(recs) == 2
    assert spu.read_reg("PMBPTR_EL1") == base + int(recs["size"].sum())
    a, b = recs.iloc[0], recs.iloc[1]
    assert (a.pc, a.op, a.lat_total, a.lat_issue, a.va, a.contextidr_el1) == (0x400100, "ldst", 30, 7, 0xABC0, 0x77)
    assert (b.pc, b.op, b.lat_total, b.end) == (0x400200, "branch", 5, True) and a.ts is pd.NA
    st = spu.stats()
    assert st["feed"] == 2 and st["records_written"] == 2 and st["bytes_written"] == recs["size"].sum()
    assert st["discarded"]["service"] == 0 and not spu.irq


def test_spu_buffer_full_raises_pmbirq():
    """A buffer of one page fills: PMBSR_EL1.S (bit 17) and PMBIRQ go high (buffer full: EC 0,
    BSC 1), once."""
    spu = armprof.Spu(memory_size=1 << 16)
    base = spu.memory_base
    spu.write_reg("PMSIRR_EL1", 256)
    spu.write_reg("PMBPTR_EL1", base)
    spu.write_reg("PMBLIMITR_EL1", (base + 0x1000) | 1)
    spu.write_reg("PMSCR_EL1", 0b10)
    for _ in range(400):
        feed(spu, pc=0x1000, total_lat=3)
        if spu.irq:
            break
    assert spu.irq
    sr = spu.read_reg("PMBSR_EL1")
    assert (sr >> 17) & 1 == 1 and (sr >> 26) & 0x3F == 0 and sr & 0x3F == 1
    st = spu.stats()
    assert st["buffer_full_events"] == 1 and st["management_events"] == 1 and st["irq_rises"] == 1
    # Nothing is written at or past the limit (RHXSYK).
    assert spu.read_reg("PMBPTR_EL1") <= base + 0x1000 and st["bytes_written"] <= 0x1000


def test_spu_errors_carry_the_c_text():
    with pytest.raises(armprof.Error) as e:
        armprof.Spu({"max_size": 3})
    assert "invalid configuration" in str(e.value) and e.value.code is not None
    with pytest.raises(armprof.Error, match="no field 'fifo'"):
        armprof.Spu({"fifo": 1})
    spu = armprof.Spu()
    with pytest.raises(armprof.Error) as e:
        spu.write_reg("PMSIDR_EL1", 0)   # an ID register: no MSR form
    assert "PMSIDR_EL1" in str(e.value) and e.value.code == lib.ARMPROF_ERR_UNDEFINED
    assert str(e.value).endswith(text(lib.armprof_strerror(e.value.code)))
    with pytest.raises(armprof.Error, match="no register 'PMXYZ'"):
        spu.read_reg("PMXYZ")
    el0 = armprof.Spu(el=0)
    with pytest.raises(armprof.Error) as e:
        el0.read_reg("PMBSR_EL1")          # UNDEFINED from EL0
    assert "undefined" in str(e.value).lower()
    with pytest.raises(armprof.Error, match="outside"):
        spu.memory(0, 16)
    spu.close()
    spu.close()
