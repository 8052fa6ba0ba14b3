# SPDX-License-Identifier: Apache-2.0
# conftest.py: what the armprof package's tests share: the tools that belong to the package under test (ARMPROF_BIN: the build tree's or the installed prefix's bin/).
import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def bindir():
    d = os.environ.get("ARMPROF_BIN")
    if not d or not os.path.isdir(d):
        pytest.fail("ARMPROF_BIN must name the folder of armprof-run, armprof-decode and armprof-explore")
    return d


@pytest.fixture(scope="session")
def tool(bindir):
    def path(name):
        p = os.path.join(bindir, name)
        if not os.access(p, os.X_OK):
            pytest.fail("%s is not built" % p)
        return p

    return path


@pytest.fixture(scope="session")
def examples():
    return os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def run_tool(*args, **kw):
    """Runs a tool; its output, or a failure with its stderr."""
    ok = kw.pop("ok", (0,))
    p = subprocess.run(list(args), capture_output=True, text=kw.pop("text", True), **kw)
    if p.returncode not in ok:
        raise AssertionError("%s exited %d: %s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p.stdout


@pytest.fixture
def have_gnuplot():
    return shutil.which("gnuplot") is not None
