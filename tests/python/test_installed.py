# SPDX-License-Identifier: Apache-2.0
# test_installed.py: the package under test is the one ARMPROF_PACKAGE_ROOT names (an installed prefix), loading that prefix's libraries, not the build tree's.
import os

import pytest

import armprof


def test_package_and_libraries_come_from_the_prefix():
    root = os.environ.get("ARMPROF_PACKAGE_ROOT")
    if not root:
        pytest.skip("only when run against an installed prefix (ARMPROF_PACKAGE_ROOT)")
    root = os.path.realpath(root)
    assert os.path.realpath(armprof.__file__).startswith(root + os.sep)
    armprof.decode(b"")   # the engine is loaded
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "libarmprof" in line}
    engine = [p for p in libs if "libarmprof-engine.so" in p]
    core = [p for p in libs if os.path.basename(p).startswith("libarmprof.so")]
    assert engine and core, libs
    for p in engine + core:
        assert os.path.realpath(p).startswith(root + os.sep), p
