# SPDX-License-Identifier: Apache-2.0
# decode.py: armprof.decode(): an SPE buffer dump as a pandas DataFrame, one row per record, decoded by libarmprof's decoder in C and handed over as numpy arrays.
import mmap
import os

import numpy as np
import pandas as pd

from ._lib import ffi, lib, raise_ape, text

__all__ = ["decode", "COLUMNS"]

# The columns, in order, with what armprof-decode --json calls them where the name differs.
COLUMNS = [
    "offset", "size", "pc", "el", "ns", "op", "subclass", "op_desc", "events", "event_names", "lat_total",
    "lat_issue", "lat_xlat", "saturated", "target", "target_el", "target_ns", "va", "va_tag", "pa", "pa_ns",
    "contextidr_el1", "contextidr_el2", "data_source", "ts", "end", "ignored_packets",
]
JSON_NAMES = {"events": "events_raw", "event_names": "events"}

_CLASSES = None
_EVENT_NAMES = None


def _class_names():
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = [text(lib.spe_op_class_name(c)) for c in range(4)]
    return _CLASSES


def _event_names():
    global _EVENT_NAMES
    if _EVENT_NAMES is None:
        _EVENT_NAMES = [text(lib.spe_event_name(b)) or "e%d" % b for b in range(64)]
    return _EVENT_NAMES


def _op_desc(key):
    buf = ffi.new("char[96]")
    lib.spe_op_describe(int(key) >> 8, int(key) & 0xFF, buf, 96)
    return text(buf)


def _events_label(bits):
    names = _event_names()
    bits = int(bits)
    return ",".join(names[b] for b in range(64) if bits >> b & 1)


def _sat_label(bits):
    bits = int(bits)
    if not bits:
        return None
    return ",".join(n for i, n in enumerate(("total", "issue", "xlat")) if bits >> i & 1)


def _categorical(keys, absent, label):
    """A Categorical of label(key) per element (a Python call per distinct key, not per record);
    NA where absent (a boolean array, or None) or where label gives None. Small unsigned keys
    (8 or 16 bits) go through a table indexed by the key, others through a hash table."""
    if keys.dtype.itemsize <= 2:
        present = np.flatnonzero(np.bincount(keys, minlength=1))
        uniques, codes = present, None
    else:
        codes, uniques = pd.factorize(keys, sort=False)
    labels = [label(u) for u in uniques]
    cats = list(dict.fromkeys(lb for lb in labels if lb is not None))
    pos = {c: i for i, c in enumerate(cats)}
    if codes is None:
        lut = np.full(1 << (8 * keys.dtype.itemsize), -1, dtype=np.int8 if len(cats) < 127 else np.int32)
        for u, lb in zip(uniques, labels):
            lut[u] = pos[lb] if lb is not None else -1
        out = lut[keys]
    else:
        lut = np.array([pos[lb] if lb is not None else -1 for lb in labels] or [-1],
                       dtype=np.int8 if len(cats) < 127 else np.int32)
        out = lut[codes] if len(codes) else np.empty(0, dtype=lut.dtype)
    if absent is not None:
        out[absent] = -1
    return pd.Categorical.from_codes(out, categories=cats)


def _buffer(source):
    """(cdata buffer, length, object to keep alive) for bytes-like input or a file path."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return ffi.NULL, 0, None
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return ffi.from_buffer(mm), size, mm
    if isinstance(source, (bytes, bytearray, memoryview, np.ndarray)):
        mv = memoryview(source)
        if mv.nbytes == 0:
            return ffi.NULL, 0, None
        if not mv.c_contiguous:
            raise TypeError("armprof.decode: the buffer must be contiguous")
        return ffi.from_buffer(mv), mv.nbytes, mv
    raise TypeError("armprof.decode: expected a file path or bytes-like buffer, got %s" % type(source).__name__)


def _take(ptr, n, dtype):
    """n elements of a column the engine allocated, as a numpy array that frees it when it goes."""
    owned = ffi.gc(ptr, lib.ape_free)
    nbytes = n * np.dtype(dtype).itemsize
    return np.frombuffer(ffi.buffer(owned, nbytes), dtype=dtype) if n else np.empty(0, dtype=dtype)


def decode(source, *, lenient=False, max_size=0, base=0, count_bits=12):
    """Decodes an SPE Profiling Buffer dump into a DataFrame, one row per record.

    ``source`` is a file path or a bytes-like object. Columns (``COLUMNS``) are those of
    ``armprof-decode --json`` (``events`` holds the Events packet's bits, ``event_names`` their
    names joined by commas); a field a record does not have is NA. ``lenient`` resynchronises
    after an error as ``armprof-decode --lenient`` does (the number of errors is in
    ``df.attrs["errors"]``); otherwise a malformed stream raises ``armprof.DecodeError`` naming the
    offset. ``max_size`` checks record lengths against PMSIDR_EL1.MaxSize, ``base`` is the
    buffer address of byte 0, ``count_bits`` the counter width (12 or 16) that ``saturated``
    is judged by.
    """
    if count_bits not in (12, 16):
        raise ValueError("armprof.decode: count_bits is 12 or 16, got %r" % (count_bits,))
    buf, length, keep = _buffer(source)
    opts = ffi.new("ape_decode_opts *", {"max_size": max_size, "base": base, "lenient": 1 if lenient else 0})
    cols = ffi.new("ape_columns *")
    err = ffi.new("ape_error *")
    nerr = ffi.new("uint64_t *")
    n = lib.ape_decode_alloc(buf, length, opts, cols, nerr, err)
    del keep
    if n < 0:
        raise_ape(err[0])
    c = cols[0]
    u8, u16, u32, u64 = np.uint8, np.uint16, np.uint32, np.uint64
    _take(c.have, n, u32)   # the same as the masks below; freed with its array
    absent = [_take(c.absent[b], n, np.bool_) for b in range(lib.APE_PARTS)]

    def missing(flag):
        return absent[flag.bit_length() - 1]

    given = set()

    def mask(flag):
        """The flag's absence mask for one column: each column owns its mask (pandas writes into
        it on assignment), so columns after the first of a flag get a copy."""
        m = missing(flag)
        if flag in given:
            return m.copy()
        given.add(flag)
        return m

    def opt(ptr, dtype, flag):
        return pd.arrays.IntegerArray(_take(ptr, n, dtype), mask(flag))

    def opt_arr(values, flag):
        return pd.arrays.IntegerArray(values, mask(flag))

    R = lib
    op_class = _take(c.op_class, n, u8)
    op_sub = _take(c.op_subclass, n, u8)
    events = _take(c.events, n, u64)
    lat_total = _take(c.lat_total, n, u16)
    lat_issue = _take(c.lat_issue, n, u16)
    lat_xlat = _take(c.lat_xlat, n, u16)
    cmax = (1 << count_bits) - 1
    sat = (((lat_total == cmax) & ~missing(R.SPE_R_TOTAL_LAT)).astype(u8)
           | (((lat_issue == cmax) & ~missing(R.SPE_R_ISSUE_LAT)).astype(u8) << 1)
           | (((lat_xlat == cmax) & ~missing(R.SPE_R_XLAT_LAT)).astype(u8) << 2))
    no_op = missing(R.SPE_R_OPTYPE)
    op_codes = np.minimum(op_class, 3).astype(np.int8)
    op_codes[no_op] = -1
    data = {
        "offset": _take(c.offset, n, u64),
        "size": _take(c.size, n, u32),
        "pc": opt(c.pc, u64, R.SPE_R_PC),
        "el": opt(c.el, u8, R.SPE_R_PC),
        "ns": opt(c.ns, u8, R.SPE_R_PC),
        "op": pd.Categorical.from_codes(op_codes, categories=_class_names()),
        "subclass": opt_arr(op_sub, R.SPE_R_OPTYPE),
        "op_desc": _categorical(op_class.astype(np.uint16) << 8 | op_sub, no_op, _op_desc),
        "events": opt_arr(events, R.SPE_R_EVENTS),
        "event_names": _categorical(events.astype(np.uint16) if n and int(events.max()) < 1 << 16 else events,
                                    missing(R.SPE_R_EVENTS), _events_label),
        "lat_total": opt_arr(lat_total, R.SPE_R_TOTAL_LAT),
        "lat_issue": opt_arr(lat_issue, R.SPE_R_ISSUE_LAT),
        "lat_xlat": opt_arr(lat_xlat, R.SPE_R_XLAT_LAT),
        "saturated": _categorical(sat, None, _sat_label),
        "target": opt(c.target, u64, R.SPE_R_TARGET),
        "target_el": opt(c.target_el, u8, R.SPE_R_TARGET),
        "target_ns": opt(c.target_ns, u8, R.SPE_R_TARGET),
        "va": opt(c.va, u64, R.SPE_R_DATA_VA),
        "va_tag": opt(c.va_tag, u8, R.SPE_R_DATA_VA),
        "pa": opt(c.pa, u64, R.SPE_R_DATA_PA),
        "pa_ns": opt(c.pa_ns, u8, R.SPE_R_DATA_PA),
        "contextidr_el1": opt(c.contextidr_el1, u32, R.SPE_R_CONTEXT_EL1),
        "contextidr_el2": opt(c.contextidr_el2, u32, R.SPE_R_CONTEXT_EL2),
        "data_source": opt(c.data_source, u16, R.SPE_R_DATA_SOURCE),
        "ts": opt(c.ts, u64, R.SPE_R_TIMESTAMP),
        "end": missing(R.SPE_R_TIMESTAMP),
        "ignored_packets": _take(c.ignored_packets, n, u16),
    }
    df = pd.DataFrame(data, copy=False)
    df.attrs["errors"] = int(nerr[0])
    return df
