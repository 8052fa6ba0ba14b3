# SPDX-License-Identifier: Apache-2.0
# __init__.py: the armprof Python package: the models of the Arm SPE, TRBE and PMU-snapshot units for architects, over libarmprof's C API and the engines of its tools.
"""armprof: the Arm profiling-unit models from Python.

- ``armprof.decode(path_or_bytes)``: an SPE buffer dump as a DataFrame, one row per record.
- ``armprof.run(scenario)``: the C-level main job (armprof-run's engine); ``armprof.platform(scenario)``
  the same on the SystemC platform (armprof-vp).
- ``armprof.sweep(spec, jobs=N)``: armprof-explore's sweep engine: a DataFrame of points and the
  recommendation.
- ``armprof.Spu(config)``: one unit over the C API, for scripted checks.

Errors: ``armprof.Error`` (a C call failed, with its text), ``armprof.ScenarioError`` (a bad
scenario: ``.key`` and ``.value`` name what is wrong), ``armprof.DecodeError``.
"""
from . import _config
from ._errors import DecodeError, Error, ScenarioError
from .decode import COLUMNS, decode
from .engine import Recommendation, RunResult, SweepResult, metrics, parameters, platform, run, sweep
from .spu import Spu

__version__ = _config.VERSION

__all__ = [
    "decode", "COLUMNS", "run", "platform", "sweep", "metrics", "parameters", "Spu", "RunResult", "SweepResult",
    "Recommendation", "Error", "ScenarioError", "DecodeError", "__version__",
]
