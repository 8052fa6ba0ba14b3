#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_linux.py: the assertions of the `linux` tests on what a guest run left (tests/linux/linux_test.sh).
"""Each subcommand checks one property of a guest run's output folder and exits non-zero with a
message naming what differs.

  probe OUT MAXREC ALIGN   dmesg: arm_spe_pmu probed every vCPU with the model's PMSIDR/PMBIDR
  top OUT SYMBOL           report.txt: the first symbol line is SYMBOL
  records OUT              perf report -D decodes as many records as the model wrote
  kernel OUT present|absent  EL1 samples resolved through kallsyms, or none at all
  buffer_full OUT N        at least N buffer-full events, each serviced by the driver
  el1 OUT                  the test module's EL1 reads and writes match the register layouts, and
                           its Profiling Buffer phases (written, translation fault, RHXSYK) behave
  el0 OUT                  every SPE register access from EL0 raised SIGILL (UNDEFINED)
  refusals OUT QEMU PLUGIN GUEST   bad configurations are refused at start, naming the option
"""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read(out, name):
    path = os.path.join(out, name)
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))


def model(out):
    return json.loads(read(out, "model/armprof-qemu-system.json"))


def probe(out, maxrec, align):
    d = model(out)
    pmsidr, pmbidr = int(d["pmsidr_el1"], 16), int(d["pmbidr_el1"], 16)
    # PMSIDR_EL1.MaxSize [15:12] and PMBIDR_EL1.Align [3:0] (seed 001 §4.3.5, §4.3.1)
    want_max, want_align = 1 << ((pmsidr >> 12) & 0xF), 1 << (pmbidr & 0xF)
    if (want_max, want_align) != (int(maxrec), int(align)):
        fail("the model was configured with MaxSize %d B, Align %d B, the test asked for %s, %s"
             % (want_max, want_align, maxrec, align))
    m = re.search(r"arm_spe_pmu \S+: probed for CPUs (\S+) \[max_record_sz (\d+), align (\d+)",
                  read(out, "dmesg.txt"))
    if not m:
        fail("no 'arm_spe_pmu ... probed' line in dmesg.txt: the driver did not bind")
    n = len(d["vcpus"])
    cpus = "0" if n == 1 else "0-%d" % (n - 1)
    if m.group(1) != cpus:
        fail("driver probed CPUs %s, the model has %s" % (m.group(1), cpus))
    if (int(m.group(2)), int(m.group(3))) != (want_max, want_align):
        fail("driver saw max_record_sz %s, align %s; PMSIDR_EL1/PMBIDR_EL1 say %d, %d"
             % (m.group(2), m.group(3), want_max, want_align))
    print("probe: %s" % m.group(0))


SYM = re.compile(r"^\s+[\d.]+%\s+[\d.]+%\s+\[(.)\]\s+(\S+)")


def top(out, symbol):
    for line in read(out, "report.txt").splitlines():
        m = SYM.match(line)
        if m:
            if m.group(2) != symbol:
                fail("the report's first symbol is %s, not %s: %s" % (m.group(2), symbol, line.strip()))
            print("top: " + line.strip())
            return
    fail("report.txt has no symbol line")


def count_records(out):
    """Records in perf report -D: each ends with a Timestamp or an End packet (§2.3.5)."""
    n = 0
    aux_flags = []
    for line in read(out, "report-D.txt").splitlines():
        if re.match(r"^\.\s+[0-9a-f]{8}:\s+(71|01)\s", line):
            n += 1
        m = re.search(r"PERF_RECORD_AUX offset: \S+ size: \S+ flags: (0x[0-9a-f]+|\d+) \[(\S*)\]", line)
        if m and int(m.group(1), 0):
            aux_flags.append(m.group(2))
    return n, aux_flags


def records(out):
    d = model(out)
    n, flags = count_records(out)
    written = d["records_written"]
    print("records: model wrote %d, perf decoded %d, discarded %d, AUX flags %s"
          % (written, n, d["records_discarded"], flags or "none"))
    if written == 0:
        fail("the model wrote no record")
    if n != written:
        fail("perf report -D decodes %d records, the model wrote %d" % (n, written))
    # A record the model discarded is one software was told about: with PMBSR_EL1.S set, or
    # the buffer disabled because perf had no room, which perf reports as truncated AUX data.
    if d["records_discarded"] and not any("T" in f for f in flags):
        fail("%d records discarded while perf reports no truncated AUX data" % d["records_discarded"])


def kernel(out, want):
    ks = [l.strip() for l in read(out, "report.txt").splitlines()
          if SYM.match(l) and SYM.match(l).group(1) == "k"]
    el1 = len(re.findall(r"PC 0x[0-9a-f]+ el[12]", read(out, "report-D.txt")))
    if want == "present":
        named = [k for k in ks if not re.search(r"\]\s+0x[0-9a-f]+$", k)]
        if not named:
            fail("no kernel sample resolved to a symbol (kallsyms)")
        print("kernel: %d [k] lines, e.g. %s; %d EL1 records" % (len(ks), named[0], el1))
    else:
        if ks or el1:
            fail("exclude_kernel: %d [k] lines and %d EL1 records" % (len(ks), el1))
        print("kernel: no EL1 sample")


def buffer_full(out, n):
    d = model(out)
    full = sum(v["buffer_full_events"] for v in d["vcpus"])
    irq = sum(v["pmbirq"] for v in d["vcpus"])
    mgmt = sum(v["management_events"] for v in d["vcpus"])
    print("buffer_full: %d buffer-full events, %d management events, PMBIRQ asserted %d times"
          % (full, mgmt, irq))
    if full < int(n):
        fail("%d buffer-full events, expected at least %s" % (full, n))
    if irq != mgmt:
        fail("PMBIRQ asserted %d times for %d management events" % (irq, mgmt))
    # every event was serviced: the driver cleared PMBSR_EL1.S, so the run went on writing
    # records after the last one and the interrupt is low at the end
    log = read(out, "record.log")
    if "lost" in log.lower() and "0 lost" not in log.lower():
        print("perf record says: " + log.strip())


# What EL1 must read back after writing all-ones and then zero to each read/write register, in the
# configuration of the `regs` test (no EL2 or EL3, FEAT_SPE without v1p2, ECV or nVM, 12-bit
# counters, ERnd 0), from the register layouts (seed 001 §4.3; REGISTERS.md):
EL1_WRITES = {
    # PCT[6] TS PA CX E1SPE E0SPE; PCT is RES1 without EL2 (§3.3), so a zero write keeps it
    "PMSCR_EL1": (0x7B, 0x40),
    "PMSICR_EL1": (0xFFFFFFFF, 0),               # COUNT[31:0]; ECOUNT only with ERnd
    "PMSIRR_EL1": (0xFFFFFF01, 0),               # INTERVAL[31:8], RND
    "PMSFCR_EL1": (0x70007, 0),                  # ST LD B, FL FT FE (FnE only with SPEv1p2)
    "PMSEVFR_EL1": (0xFFFF0000FF00F0AA, 0),      # E[63:48,31:24,15:12], E[7,5,3,1]
    "PMSLATFR_EL1": (0xFFF, 0),                  # MINLAT as wide as the 12-bit counters
    "PMBLIMITR_EL1": (0xFFFFFFFFFFFFF007, 0),    # LIMIT[63:12], FM[2:1] (reserved 0b11 kept, §4.3.2), E
    "PMBPTR_EL1": (0xFFFFFFFFFFFFFFFF, 0),
    # EC 0b111111 is reserved: EC keeps its value (docs/implementation-defined.md); with EC 0
    # the syndrome is BSC[5:0], so MSS[15:6] reads 0; DL EA S COLL are kept
    "PMBSR_EL1": (0x000F003F, 0),
}


def el1(out):
    lines = [l for l in read(out, "dmesg.txt").splitlines() if "spe_regs_el1: " in l]
    if not any(l.endswith("spe_regs_el1: done") for l in lines):
        fail("the test module did not finish: %s" % lines[-3:])
    d = model(out)
    cpus = sorted(set(int(m) for m in re.findall(r"spe_regs_el1: cpu(\d+) ", "\n".join(lines))))
    if cpus != list(range(len(d["vcpus"]))):
        fail("the module ran on CPUs %s, the model has %d" % (cpus, len(d["vcpus"])))
    # PMSIDR_EL1: CountSize 0b0010, MaxSize 0b0111 (128 B), Interval 0b0100 (1024), LDS ArchInst
    # FL FT FE; PMBIDR_EL1: F, P = 0 (EL1 owns the buffer), Align 0b0110 (64 B)
    want_reset = {"PMSIDR_EL1": 0x2741F, "PMBIDR_EL1": 0x26}
    for cpu in cpus:
        got = {}
        for l in lines:
            m = re.search(r"cpu%d (\S+) reset 0x([0-9a-f]+)$" % cpu, l)
            if m:
                got[m.group(1)] = int(m.group(2), 16)
        for name, v in want_reset.items():
            if got.get(name) != v:
                fail("cpu%d %s reads 0x%x after reset, the configuration gives 0x%x"
                     % (cpu, name, got.get(name, -1), v))
        if got.get("PMBLIMITR_EL1", 1) & 1:
            fail("cpu%d PMBLIMITR_EL1.E is not 0 after reset" % cpu)
        if got.get("PMSCR_EL1", 0) & 0x40 != 0x40:
            fail("cpu%d PMSCR_EL1.PCT reads 0 after reset; it is RES1 without EL2 (§3.3)" % cpu)
        if not re.search(r"cpu%d ID_AA64DFR0_EL1.PMSVer 1$" % cpu, "\n".join(lines), re.M):
            fail("cpu%d: ID_AA64DFR0_EL1.PMSVer is not 1 (FEAT_SPE)" % cpu)
        for name, (ones, zeros) in EL1_WRITES.items():
            m = re.search(r"cpu%d %s ones 0x([0-9a-f]+) zeros 0x([0-9a-f]+)$" % (cpu, name),
                          "\n".join(lines), re.M)
            if not m:
                fail("cpu%d: no write line for %s" % (cpu, name))
            got1, got0 = int(m.group(1), 16), int(m.group(2), 16)
            if (got1, got0) != (ones, zeros):
                fail("cpu%d %s: all-ones reads 0x%x, zero reads 0x%x; expected 0x%x, 0x%x"
                     % (cpu, name, got1, got0, ones, zeros))
    print("el1: reset values and write masks of 11 registers on %d CPUs as the layouts give"
          % len(cpus))
    buffer_el1(out, "\n".join(lines))


def buffer_el1(out, text):
    """The module's Profiling Buffer phases at EL1, through the kernel's page tables."""
    m = re.search(r"buffer good pmbsr 0x([0-9a-f]+) written (\d+) first 0x([0-9a-f]+) pc_top 0x([0-9a-f]+)", text)
    if not m:
        fail("no 'buffer good' line from the module")
    sr, written, first, top = int(m.group(1), 16), int(m.group(2)), int(m.group(3), 16), int(m.group(4), 16)
    # No management event; whole records padded to Align (64 B); the first packet is the PC
    # (Address packet, index 0: header 0xB0) of an EL1 Non-secure operation (payload bits
    # [63:56]: NS 1, EL 0b01, seed 001 §5.3.1)
    if sr != 0 or written == 0 or written % 64 or first != 0xB0 or top != 0xA0:
        fail("buffer in the linear map: PMBSR_EL1 0x%x, %d bytes written, first byte 0x%x, PC top "
             "byte 0x%x; expected 0, whole 64-byte records, 0xb0, 0xa0" % (sr, written, first, top))
    m = re.search(r"buffer fault pmbsr 0x([0-9a-f]+) pmbptr 0x([0-9a-f]+)", text)
    if not m:
        fail("no 'buffer fault' line from the module")
    sr, ptr = int(m.group(1), 16), int(m.group(2), 16)
    ec, s_bit, fsc = (sr >> 26) & 0x3F, (sr >> 17) & 1, sr & 0x3F
    # PMBSR_EL1 (seed 002): EC 0b100100 stage 1 data abort, S, MSS.FSC a translation fault
    # (0b0001xx, the level in [1:0]); PMBPTR_EL1 at the write that faulted
    if ec != 0x24 or not s_bit or fsc & 0x3C != 0x04 or ptr != 0:
        fail("buffer at unmapped VA 0: PMBSR_EL1 0x%x (EC 0x%x S %d FSC 0x%x), PMBPTR_EL1 0x%x; expected "
             "EC 0x24, S 1, a translation fault, PMBPTR_EL1 0" % (sr, ec, s_bit, fsc, ptr))
    m = re.search(r"buffer limit_below pmbsr 0x([0-9a-f]+) pmbptr_moved (\d+) bytes_changed (\d+)", text)
    if not m:
        fail("no 'buffer limit_below' line from the module")
    sr, moved, changed = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
    # RHXSYK broken: CONSTRAINED UNPREDICTABLE, the model's choice (docs/implementation-defined.md,
    # ptr_policy buffer-full): a buffer full event, S 1, EC 0, BSC 0b000001, and no write at all
    if sr != 0x20001 or moved or changed:
        fail("limit below the pointer: PMBSR_EL1 0x%x, PMBPTR_EL1 moved %d, %d bytes changed; expected "
             "0x20001 (S, buffer full), 0, 0" % (sr, moved, changed))
    print("el1 buffer: records through the kernel's tables, a stage 1 translation fault (PMBSR_EL1 0x%x), "
          "and the limit below the pointer as a buffer full event" % int(re.search(r"buffer fault pmbsr 0x([0-9a-f]+)", text).group(1), 16))


def el0(out):
    lines = read(out, "el0_regs.txt").splitlines()
    acc = [l for l in lines if l.startswith("el0 ") and not l.startswith("el0 accesses")]
    if len(acc) != 30 or "el0 accesses 30" not in lines:
        fail("expected 30 accesses (15 registers, MRS and MSR), got: %s" % lines)
    bad = [l for l in acc if not l.endswith("SIGILL code=ILL_ILLOPC")]
    if bad:
        fail("EL0 accesses that did not raise SIGILL (UNDEFINED): %s" % bad)
    if read(out, "el0_regs.rc").strip() != "0":
        fail("el0_regs exited %s" % read(out, "el0_regs.rc").strip())
    log = read(out, "regs.log")
    if re.search(r"el=0 ", log):
        fail("an EL0 access reached the model: " + re.search(r".*el=0 .*", log).group(0))
    print("el0: all 30 MRS/MSR of SPE registers from EL0 are UNDEFINED (SIGILL, ILL_ILLOPC)")


def refusals(out, qemu, plugin, guest):
    # sbsa-ref always has a VGA card: an empty option ROM lets it reach the machine's creation
    roms = os.path.join(out, "roms")
    os.makedirs(roms, exist_ok=True)
    with open(os.path.join(roms, "vgabios-stdvga.bin"), "wb") as f:
        f.write(bytes(65536))
    base = [qemu, "-nographic", "-nic", "none", "-monitor", "none", "-L", roms, "-kernel",
            os.path.join(guest, "Image")]
    cases = [
        ("an Armv8.0 CPU", ["-M", "virt", "-cpu", "cortex-a57,spe=on", "-plugin", plugin],
         r"spe=on: CPU type 'cortex-a57-arm-cpu' is not Armv8\.2"),
        ("no backend", ["-M", "virt", "-cpu", "max,spe=on"],
         r"spe=on: no Statistical Profiling Extension backend"),
        ("a board without PMBIRQ", ["-M", "sbsa-ref", "-cpu", "max,spe=on", "-plugin", plugin],
         r"spe=on: machine type 'sbsa-ref' does not connect the Profiling Buffer interrupt"),
        ("a bad plugin option", ["-M", "virt", "-cpu", "max,spe=on", "-plugin", plugin + ",min_interval=300"],
         r"option 'min_interval': '300' is not one of"),
        ("an unknown plugin option", ["-M", "virt", "-cpu", "max,spe=on", "-plugin", plugin + ",bogus=1"],
         r"unknown option 'bogus'"),
    ]
    for what, args, pattern in cases:
        try:
            p = subprocess.run(base + args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            fail("%s: QEMU did not refuse the configuration (still running after 60 s)" % what)
        msg = p.stdout + p.stderr
        if p.returncode == 0 or not re.search(pattern, msg):
            fail("%s: exit %d, expected a refusal matching /%s/: %s" % (what, p.returncode, pattern,
                                                                       msg.strip()[-400:]))
        print("refused (%s): %s" % (what, re.search(pattern + r".*", msg).group(0)))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    cmd, args = sys.argv[1], sys.argv[2:]
    fns = {"probe": probe, "top": top, "records": records, "kernel": kernel,
           "buffer_full": buffer_full, "el1": el1, "el0": el0, "refusals": refusals}
    if cmd not in fns:
        print(__doc__)
        sys.exit(2)
    fns[cmd](*args)


if __name__ == "__main__":
    main()
