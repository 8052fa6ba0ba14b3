# SPDX-License-Identifier: Apache-2.0
# spu.py: armprof.Spu, the Statistical Profiling Unit over the C API (spu_open, spu_reg_write/read, spu_retire, spu_advance, spu_get_stats) with a flat memory, for scripted checks.
from ._errors import Error
from ._lib import ffi, lib, text

__all__ = ["Spu"]

_OP_RESULTS = {0: "not_counted", 1: "counted", 2: "sampled", 3: "collided"}
_OP_FLAGS = {"exception": "SPU_OP_EXCEPTION", "not_retired": "SPU_OP_NOT_RETIRED"}
_CLASSES = {"other": 0, "ldst": 1, "branch": 2}


def _check(e, what):
    if e != lib.ARMPROF_OK:
        raise Error("%s: %s" % (what, text(lib.armprof_strerror(e))), code=int(e))


class Spu:
    """One SPU (``spu_open``) with a flat memory of ``memory_size`` bytes at ``memory_base``: the
    unit writes its Profiling Buffer there, and a write outside it is a stage 1 translation fault.

    ``config`` is a dict of ``spu_config`` fields (``fifo_bytes``, ``max_size``, ``align``,
    ``drain_bytes_per_cycle``, ...) over ``spu_config_default()``; ``el`` the PE's Exception
    level, ``write_latency`` the cycles memory takes to accept each write. Every failing C call
    raises armprof.Error with the C error's text (``armprof_strerror`` and, for a configuration,
    the rule ``spu_config_validate`` names).
    """

    def __init__(self, config=None, *, memory_base=0x10000000, memory_size=1 << 20, el=1, contextidr_el1=0,
                 write_latency=0):
        cfg = ffi.new("spu_config *")
        lib.spu_config_default(cfg)
        for k, v in (config or {}).items():
            try:
                setattr(cfg, k, v)
            except AttributeError:
                raise Error("armprof.Spu: spu_config has no field '%s'" % k) from None
            except (TypeError, OverflowError) as e:
                raise Error("armprof.Spu: spu_config.%s = %r: %s" % (k, v, e)) from None
        why = ffi.new("char[256]")
        e = lib.spu_config_validate(cfg, why, 256)
        if e != lib.ARMPROF_OK:
            raise Error("armprof.Spu: invalid configuration: %s (%s)" % (text(why), text(lib.armprof_strerror(e))),
                        code=int(e))
        host = lib.apy_host_new(memory_base, memory_size)
        if host == ffi.NULL:
            raise MemoryError("armprof.Spu: no memory for %d bytes" % memory_size)
        self._host = ffi.gc(host, lib.apy_host_free)
        self._host.latency = write_latency
        out = ffi.new("spu_t **")
        _check(lib.apy_spu_open(cfg, self._host, out), "armprof.Spu: spu_open")
        self._spu = ffi.gc(out[0], lib.spu_close)
        self.config = {k: getattr(cfg, k) for k in dir(cfg)}
        ctx = ffi.new("armprof_pe_ctx *")
        lib.armprof_pe_ctx_default(ctx)
        ctx.el = el
        ctx.contextidr_el1 = contextidr_el1
        _check(lib.spu_set_pe_context(self._spu, ctx), "armprof.Spu: spu_set_pe_context")
        self._regs = {}
        info = ffi.new("spu_reg_info *")
        for i in range(lib.spu_reg_count(self._spu)):
            if lib.spu_reg_info_at(self._spu, i, info) == lib.ARMPROF_OK:
                self._regs[text(info.name)] = info.enc

    # ----- registers -----------------------------------------------------------------------------

    @property
    def registers(self):
        """{name: encoding} of the unit's registers (its access table)."""
        return dict(self._regs)

    def _enc(self, reg):
        if isinstance(reg, int):
            return reg
        try:
            return self._regs[reg.upper()]
        except KeyError:
            raise Error("armprof.Spu: no register '%s' (one of %s)" % (reg, ", ".join(sorted(self._regs)))) from None

    def write_reg(self, reg, value):
        """MSR: writes a register by name ("PMSCR_EL1") or encoding, with the access checks."""
        _check(lib.spu_reg_write(self._spu, self._enc(reg), value), "armprof.Spu: write %s" % (reg,))

    def read_reg(self, reg):
        """MRS: the register's value."""
        v = ffi.new("uint64_t *")
        _check(lib.spu_reg_read(self._spu, self._enc(reg), v), "armprof.Spu: read %s" % (reg,))
        return int(v[0])

    # ----- operations and time -------------------------------------------------------------------

    def retire(self, op=None, **fields):
        """Reports one retired operation (a dict of spu_op fields, or keywords: pc, op_class
        ("ldst", "branch", "other" or a number), op_subclass, total_lat, data_va, ...; flags may
        also be given as exception=True, not_retired=True). Returns "not_counted", "counted",
        "sampled" or "collided"."""
        o = ffi.new("spu_op *")
        for k, v in {**(op or {}), **fields}.items():
            if k in _OP_FLAGS:
                if v:
                    o.flags |= getattr(lib, _OP_FLAGS[k])
                continue
            if k == "op_class" and isinstance(v, str):
                v = _CLASSES[v]
            try:
                setattr(o, k, v)
            except AttributeError:
                raise Error("armprof.Spu.retire: spu_op has no field '%s'" % k) from None
        if o.data_va and not fields.get("flags") and not (op or {}).get("flags"):
            o.flags |= lib.SPU_OP_HAS_VA
        return _OP_RESULTS[int(lib.spu_retire(self._spu, o))]

    def skip(self, n):
        """Reports n operations that are not sampled (at most ops_until_sample); returns how many were taken."""
        return int(lib.spu_skip(self._spu, n))

    @property
    def ops_until_sample(self):
        return int(lib.spu_ops_until_sample(self._spu))

    def advance(self, cycles):
        """Moves time on: in-flight operations complete, records go through the FIFO to memory."""
        lib.spu_advance(self._spu, cycles)

    def psb_csync(self):
        lib.spu_psb_csync(self._spu)

    @property
    def now(self):
        return int(lib.spu_now(self._spu))

    @property
    def irq(self):
        """PMBIRQ's level."""
        return bool(lib.spu_irq_level(self._spu))

    def stats(self):
        """spu_get_stats() as a dict (``discarded``: {reason: count})."""
        st = ffi.new("spu_stats *")
        lib.spu_get_stats(self._spu, st)
        d = {}
        for k in dir(st[0]):
            if k == "discarded":
                d[k] = {text(lib.spu_discard_reason_name(i)): int(st.discarded[i]) for i in range(lib.SPU_DISCARD__COUNT)}
            else:
                d[k] = int(getattr(st, k))
        d["irq_rises"] = int(self._host.irq_rises)
        return d

    # ----- memory --------------------------------------------------------------------------------

    @property
    def memory_base(self):
        return int(self._host.base)

    def memory(self, start=None, end=None):
        """The flat memory's bytes from address start (default: its base) to end (default: its end)."""
        base, size = int(self._host.base), int(self._host.size)
        start = base if start is None else start
        end = base + size if end is None else end
        if not base <= start <= end <= base + size:
            raise Error("armprof.Spu.memory: [0x%x, 0x%x) is outside [0x%x, 0x%x)" % (start, end, base, base + size))
        return bytes(ffi.buffer(self._host.mem + (start - base), end - start))

    def records(self):
        """The records written so far: memory from the base to PMBPTR_EL1, decoded (armprof.decode)."""
        from .decode import decode

        ptr = self.read_reg("PMBPTR_EL1")
        end = min(max(ptr, self.memory_base), self.memory_base + int(self._host.size))
        return decode(self.memory(self.memory_base, end))

    def close(self):
        """Closes the unit now (otherwise when the object goes)."""
        if self._spu is not None:
            spu = self._spu
            self._spu = None
            ffi.release(spu)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
