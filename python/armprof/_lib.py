# SPDX-License-Identifier: Apache-2.0
# _lib.py: the extension module (cffi over libarmprof.so and libarmprof-engine.so) and the helpers that turn C errors into the package's exceptions.
import os

from . import _config
from ._errors import DecodeError, Error, ScenarioError
from ._ffi import ffi, lib

__all__ = ["ffi", "lib", "raise_ape", "text", "bindir"]


def text(cstr):
    """A C string (char * or char[]) as str; None for NULL."""
    if cstr == ffi.NULL:
        return None
    return ffi.string(cstr).decode("utf-8", "replace")


def bindir():
    """The folder of the armprof tools that belong to this package (build tree or prefix)."""
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), _config.BINDIR))


def raise_ape(err):
    """Raises the exception an ape_error stands for."""
    msg = text(err.text)
    code = err.code
    if code == lib.APE_ERR_SCENARIO:
        key = text(err.key) or None
        value = text(err.value) or None
        raise ScenarioError(msg, key=key, value=value, line=err.line or None, column=err.column or None, code=code)
    if code == lib.APE_ERR_IO:
        raise OSError(msg)
    if code == lib.APE_ERR_NOMEM:
        raise MemoryError(msg)
    if code == lib.APE_ERR_DECODE:
        raise DecodeError(msg, code)
    raise Error(msg, code)
