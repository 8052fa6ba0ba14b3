# SPDX-License-Identifier: Apache-2.0
# engine.py: armprof.run(), armprof.sweep() and armprof.platform() over libarmprof-engine.so: the C-level run, the sweep engine and armprof-vp's fork server, with results as dicts and DataFrames.
import json
import math
import os
import sys
import tempfile
import threading
import warnings

import numpy as np
import pandas as pd

from ._errors import Error
from ._lib import bindir, ffi, lib, raise_ape, text
from .decode import decode

__all__ = ["run", "platform", "sweep", "RunResult", "SweepResult", "Recommendation", "metrics", "parameters"]


def metrics():
    """The metrics a point has, {name: help}, in the order of results.csv's columns."""
    return {text(lib.ape_metric_name(m)): text(lib.ape_metric_help(m)) for m in range(lib.ape_metric_count())}


def parameters():
    """The parameters a scenario can set or a sweep can sweep, {name: help} (armprof-explore --list-params)."""
    return {text(lib.ape_param_name(p)): text(lib.ape_param_help(p)) for p in range(lib.ape_param_count())}


def _metric_names():
    return [text(lib.ape_metric_name(m)) for m in range(lib.ape_metric_count())]


def _plain(x):
    """numpy scalars (a value taken from a DataFrame) as the Python numbers they hold."""
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError("Object of type %s is not JSON serializable" % type(x).__name__)


def _load(spec, kind, model):
    """An ape_sweep from a dict (sent as JSON, which the engine's YAML reader reads as it is) or a
    path to a YAML file; freed when the handle goes."""
    err = ffi.new("ape_error *")
    if isinstance(spec, dict):
        try:
            body = json.dumps(spec, indent=1, allow_nan=False, default=_plain)
        except (TypeError, ValueError) as e:
            raise Error("armprof: the scenario is not plain data (numbers, text, lists, dicts): %s" % e) from None
        name = str(spec.get("name", "sweep" if kind == lib.APE_KIND_SWEEP else "scenario"))
        h = lib.ape_sweep_load(ffi.NULL, name.encode(), body.encode(), kind, model, err)
    elif isinstance(spec, (str, os.PathLike)):
        path = os.fspath(spec)
        if not os.path.exists(path):
            raise FileNotFoundError("armprof: no such scenario file: %s" % path)
        h = lib.ape_sweep_load(path.encode(), ffi.NULL, ffi.NULL, kind, model, err)
    else:
        raise TypeError("armprof: a scenario is a dict or the path of a YAML file, got %s" % type(spec).__name__)
    if h == ffi.NULL:
        raise_ape(err[0])
    return ffi.gc(h, lib.ape_sweep_free)


def _model(name):
    if name in ("c", "C"):
        return lib.APE_MODEL_C
    if name == "platform":
        return lib.APE_MODEL_PLATFORM
    raise ValueError("armprof: model is 'c' or 'platform', got %r" % (name,))


def _vp(vp):
    """The armprof-vp to run: vp, else $ARMPROF_VP, else the one beside the package's tools."""
    p = lib.ape_find_vp(os.fspath(vp).encode() if vp else ffi.NULL, bindir().encode())
    if p == ffi.NULL:
        raise Error("armprof: the platform model needs armprof-vp: %s" %
                    ("%s is not an executable" % vp if vp else
                     "none at $ARMPROF_VP or in %s (build it, or pass vp=PATH)" % bindir()))
    return text(p)


def _metrics_dict(values):
    return {n: (int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v))
            for n, v in zip(_metric_names(), values) if not math.isnan(v)}


class RunResult:
    """What armprof.run() and armprof.platform() return.

    ``stats``: the run's metrics, {name: value} (the columns of a sweep's table); ``summary``: its
    summary.json as a dict (armprof-vp's for the platform); ``dump``: the path of spe.bin (the
    buffer contents the driver copied out), ``trbe_dump`` that of trbe.bin (or None); ``out``:
    the folder; ``records``: the dump decoded (armprof.decode), on first use.
    """

    def __init__(self, out, stats, summary, model):
        self.out = out
        self.stats = stats
        self.summary = summary
        self.model = model
        spe = os.path.join(out, "spe.bin")
        trbe = os.path.join(out, "trbe.bin")
        self.dump = spe if os.path.exists(spe) else None
        self.trbe_dump = trbe if os.path.exists(trbe) else None
        self._records = None

    @property
    def records(self):
        if self._records is None:
            self._records = decode(self.dump) if self.dump else decode(b"")
        return self._records

    def __repr__(self):
        return "<armprof.RunResult %s model, %d metrics, dump %s>" % (self.model, len(self.stats), self.dump)


def _run(scenario, out, model, vp):
    h = _load(scenario, lib.APE_KIND_SCENARIO, model)
    if out is None:
        out = tempfile.mkdtemp(prefix="armprof-run-")
    out = os.fspath(out)
    opts = ffi.new("ape_run_opts *")
    # The char arrays must outlive the call: a cdata assigned to a field is not kept alive by it.
    outb = ffi.new("char[]", out.encode())
    opts.outdir = outb
    vpb = None
    if model == lib.APE_MODEL_PLATFORM:
        vpb = ffi.new("char[]", _vp(vp).encode())
        opts.vp_path = vpb
    m = ffi.new("double[]", lib.ape_metric_count())
    summ = ffi.new("char **")
    err = ffi.new("ape_error *")
    if lib.ape_run(h, opts, m, summ, err) != 0:
        raise_ape(err[0])
    try:
        summary = json.loads(text(summ[0]))
    finally:
        lib.ape_free(summ[0])
    return RunResult(out, _metrics_dict(m), summary, "platform" if model == lib.APE_MODEL_PLATFORM else "c")


def run(scenario, out=None):
    """Runs a scenario on the C-level model (armprof-run's engine: the SPU over a flat memory with a
    Linux-like driver, and the TRBU when a trbe_* parameter is set).

    ``scenario`` is a dict of parameters (``armprof.parameters()``; nested ``workload:``,
    ``spe:``... as in a YAML file) or the path of a YAML scenario (a sweep file without
    ``sweep:``). The point's seed is derived as armprof-explore derives it, so the result equals
    that sweep point's. ``out`` is the folder for spe.bin, trbe.bin and summary.json (default: a
    new temporary folder). A bad scenario raises armprof.ScenarioError naming the key and value.
    """
    return _run(scenario, out, lib.APE_MODEL_C, None)


def platform(scenario, out=None, vp=None):
    """Runs a scenario on the SystemC platform: armprof-vp through its fork server, with the same
    scenario and result shapes as run(). Only the parameters armprof-vp has may be set (as with
    armprof-explore --model platform). ``vp``: the armprof-vp to run (default: $ARMPROF_VP,
    else the one installed beside this package's tools)."""
    return _run(scenario, out, lib.APE_MODEL_PLATFORM, vp)


class Recommendation:
    """One line of a sweep's recommendation: for a line of the plot (``line_param`` = ``line_value``,
    e.g. a memory latency or a drain bandwidth), the smallest ``size_param`` (``size``) that keeps
    ``metric`` under ``target`` % at the worst point of the line (``worst``: the worst of the
    ``seeds`` seeds each point ran with), or, when no swept size does (``met`` False), the best one
    (``best_size`` with ``best_worst``), what it lacks (``needed``: the drop in the metric still
    needed) and what would meet the target. ``text`` is armprof-explore's line.

    What would meet it, from the worst point of the best size (``ref_point``, an index of
    ``SweepResult.points``) and Little's law (bytes in flight = byte rate x latency), None where it
    does not apply: ``limit`` ("drain", "memory", "slots" or "buffer"), ``record_bytes_per_cycle``
    and ``record_gbytes_per_s`` (the records' byte rate, the memory bandwidth they need at
    ``clock_hz``), the point's ``drain``, ``write_latency_cycles``, ``write_bytes``,
    ``outstanding_writes`` and ``capacity_bytes_per_cycle``; ``bytes_in_flight`` (rate x latency)
    and ``min_outstanding_writes`` (for the mean rate); and, at most 90 % in use so that a FIFO
    absorbs bursts, ``need_drain``, ``need_outstanding_writes``, ``need_write_bytes`` (with the
    point's writes in flight) or ``max_write_latency_ns``; for data lost, ``need_buffer_bytes``."""

    NEEDS = ("record_bytes_per_cycle", "record_gbytes_per_s", "clock_hz", "drain", "write_latency_cycles",
             "write_bytes", "outstanding_writes", "capacity_bytes_per_cycle", "bytes_in_flight",
             "min_outstanding_writes", "need_drain", "need_outstanding_writes", "need_write_bytes",
             "max_write_latency_ns", "need_buffer_bytes")

    def __init__(self, r):
        def num(x):
            return None if math.isnan(x) else (int(x) if float(x).is_integer() else float(x))

        self.size_param = text(r.size_param) or None
        self.metric = text(r.metric) or None
        self.target = num(r.target)
        self.line_param = text(r.line_param) or None
        self.line_value = text(r.line_value) or None
        self.line_number = num(r.line_number)
        self.met = bool(r.met)
        self.size = num(r.size)
        self.worst = num(r.worst)
        self.best_size = num(r.best_size)
        self.best_worst = num(r.best_worst)
        self.seeds = int(r.seeds)
        self.text = text(r.text)
        self.needed = None if self.met or self.best_worst is None or self.target is None \
            else self.best_worst - self.target
        self.ref_point = int(r.ref_point) if self.size_param else None
        self.limit = text(r.limit) or None
        for k in self.NEEDS:
            setattr(self, k, num(getattr(r, k)))

    def as_dict(self):
        return {k: v for k, v in vars(self).items()}

    def __repr__(self):
        return "<armprof.Recommendation %s>" % self.text


class SweepResult:
    """What armprof.sweep() returns: ``points``, a DataFrame with one row per point (index: the
    point's index; columns: the swept parameters, then every metric some point measured, as in
    results.csv), ``recommendation`` (a list of Recommendation; empty when the sweep was
    interrupted), ``interrupted``, ``name``, ``out`` (the folder of the files, or None) and
    ``seeds``: the seeds each configuration ran with (``seeds: N``; with N > 1 ``points`` has a
    ``seed`` column and N rows per configuration); ``params``: the swept parameters (the columns
    before the metrics)."""

    def __init__(self, name, points, recommendation, interrupted, out, seeds=1, params=()):
        self.name = name
        self.points = points
        self.recommendation = recommendation
        self.interrupted = interrupted
        self.out = out
        self.seeds = seeds
        self.params = list(params)

    def recommendation_frame(self):
        return pd.DataFrame([r.as_dict() for r in self.recommendation])

    def seed_spread(self, metric):
        """``metric`` over the seeds of each configuration: a DataFrame indexed by the other swept
        parameters, with columns min, mean, max and seeds (the spread the plots' error bars show,
        and the worst seed, max, the recommendation takes)."""
        if metric not in self.points.columns:
            raise KeyError("armprof: no metric %r in this sweep's points" % (metric,))
        params = [c for c in self.params if c != "seed"]
        g = self.points.groupby(params, observed=True, sort=True)[metric] if params else \
            self.points.groupby(lambda _: 0)[metric]
        return g.agg(["min", "mean", "max", "count"]).rename(columns={"count": "seeds"})

    def __repr__(self):
        return "<armprof.SweepResult %s: %d points%s>" % (self.name, len(self.points),
                                                          ", interrupted" if self.interrupted else "")


class _Progress:
    """Progress of a sweep: a tqdm bar when tqdm is there (its notebook bar in a notebook with
    ipywidgets), else a plain line every tenth of the points on stderr."""

    def __init__(self, total, name, mode):
        self.total, self.name, self.bar, self.shown, self.last_tenth = total, name, None, 0, -1
        self.mode = mode
        if not mode:
            return
        try:
            bar_cls = None
            if "ipykernel" in sys.modules:
                try:
                    import ipywidgets  # noqa: F401
                    from tqdm.notebook import tqdm as bar_cls
                except ImportError:
                    bar_cls = None
            if bar_cls is None:
                from tqdm import tqdm as bar_cls
            self.bar = bar_cls(total=total, desc=name, unit="point")
        except ImportError:
            self.bar = None

    def update(self, done):
        if not self.mode:
            return
        if self.bar is not None:
            if done > self.shown:
                self.bar.update(done - self.shown)
        else:
            tenth = done * 10 // max(self.total, 1)
            if tenth != self.last_tenth:
                self.last_tenth = tenth
                print("armprof.sweep %s: %d/%d points" % (self.name, done, self.total), file=sys.stderr, flush=True)
        self.shown = done

    def close(self):
        if self.bar is not None:
            self.bar.close()


def sweep(spec, jobs=None, out=None, fresh=False, plots=False, progress=None, model="c", vp=None):
    """Runs a design-space sweep through armprof-explore's engine.

    ``spec`` is a dict (a scenario plus ``sweep: {param: [values]}``, or a list of such
    mappings) or the path of a sweep YAML file. ``jobs``: worker threads (default: the cores).
    ``out``: a folder for points.jsonl (finished points resume), results.csv/json,
    recommendation.txt and, with ``plots``, gnuplot's plots, as armprof-explore writes them
    (default: none, the results in memory only). ``progress``: None shows a progress bar (tqdm
    when present, plain lines otherwise), False nothing. ``model``: "c" or "platform"
    (armprof-vp, ``vp`` as in platform()). Ctrl-C stops the workers: the points done are
    returned with ``interrupted`` set.
    """
    mdl = _model(model)
    h = _load(spec, lib.APE_KIND_SWEEP, mdl)
    n = lib.ape_sweep_points(h)
    name = text(lib.ape_sweep_name(h))
    nm = lib.ape_metric_count()
    met = np.full(n * nm, np.nan)
    have = np.zeros(n, dtype=np.uint8)
    opts = ffi.new("ape_sweep_opts *")
    keep = []

    def cstr(s):
        b = ffi.new("char[]", os.fspath(s).encode())
        keep.append(b)
        return b

    opts.jobs = int(jobs or 0)
    if out is not None:
        opts.outdir = cstr(out)
    opts.fresh = 1 if fresh else 0
    opts.plots = 1 if plots else 0
    if mdl == lib.APE_MODEL_PLATFORM:
        opts.vp_path = cstr(_vp(vp))
    stop = ffi.new("int *")
    done = ffi.new("size_t *")
    opts.stop = stop
    opts.done = done
    err = ffi.new("ape_error *")
    rc = [None]

    finished = threading.Event()

    def work():
        try:
            rc[0] = lib.ape_sweep_run(h, opts, ffi.from_buffer("double[]", met),
                                      ffi.from_buffer("unsigned char[]", have), err)
        finally:
            finished.set()

    bar = _Progress(n, name, progress is None or bool(progress))
    t = threading.Thread(target=work, name="armprof-sweep", daemon=True)
    t.start()
    interrupted = False
    # The engine runs in a thread of its own so that Ctrl-C (KeyboardInterrupt, raised only in the
    # main thread) is seen at once: it raises the stop flag, and the workers finish the points
    # they are running and start no other. (An Event, not Thread.join: a join that a
    # KeyboardInterrupt cuts short may leave the thread reported as not alive.)
    while not finished.is_set():
        try:
            finished.wait(0.1)
            bar.update(done[0])
        except KeyboardInterrupt:
            interrupted = True
            stop[0] = 1
    t.join()
    bar.update(done[0])
    bar.close()
    if rc[0] != 0 and not (err.code == lib.APE_ERR_INTERRUPTED and stop[0]):
        raise_ape(err[0])
    interrupted = interrupted or bool(stop[0]) and rc[0] != 0
    table = _points_frame(h, met.reshape(n, nm) if n else met.reshape(0, nm), have.astype(bool))
    reco = []
    if not interrupted:
        nr = lib.ape_sweep_recommend(h, ffi.from_buffer("double[]", met), ffi.NULL, 0)
        if nr > 0:
            arr = ffi.new("ape_reco[]", nr)
            lib.ape_sweep_recommend(h, ffi.from_buffer("double[]", met), arr, nr)
            reco = [Recommendation(arr[i]) for i in range(nr)]
    else:
        warnings.warn("armprof.sweep %s: interrupted: %d of %d points done" % (name, int(have.sum()), n),
                      RuntimeWarning, stacklevel=2)
    return SweepResult(name, table, reco, interrupted, os.fspath(out) if out is not None else None,
                       seeds=int(lib.ape_sweep_seeds(h)),
                       params=[text(lib.ape_sweep_axis_name(h, a)) for a in range(lib.ape_sweep_axes(h))])


def _points_frame(h, met, have):
    """The points with a result as results.csv has them: parameters, then the metrics some point measured."""
    idx = np.flatnonzero(have)
    cols = {}
    buf = ffi.new("char[256]")
    num = ffi.new("double *")
    for a in range(lib.ape_sweep_axes(h)):
        name = text(lib.ape_sweep_axis_name(h, a))
        numeric = lib.ape_sweep_axis_numeric(h, a)
        vals = []
        for i in idx:
            lib.ape_sweep_point_param(h, int(i), a, buf, 256, num)
            vals.append(num[0] if numeric else text(buf))
        if numeric:
            arr = np.array(vals, dtype=float)
            if len(arr) and np.all(arr == np.floor(arr)) and np.all(np.abs(arr) < 2**63):
                arr = arr.astype(np.int64)
            cols[name] = arr
        else:
            cols[name] = pd.Categorical(vals)
    sel = met[idx] if len(idx) else met[:0]
    for k, name in enumerate(_metric_names()):
        col = sel[:, k]
        if len(col) and not np.all(np.isnan(col)):
            whole = not np.any(np.isnan(col)) and np.all(col == np.floor(col)) and np.all(np.abs(col) < 2**53)
            cols[name] = col.astype(np.int64) if whole else col
    df = pd.DataFrame(cols, index=pd.Index(idx, name="index"))
    return df

