# SPDX-License-Identifier: Apache-2.0
# _errors.py: the exceptions of the armprof package: Error (a C call failed, with the C error's text) and ScenarioError (a bad scenario, naming the key and the value).


class Error(Exception):
    """A call into libarmprof or libarmprof-engine failed; the message is the C error's text."""

    def __init__(self, text, code=None):
        super().__init__(text)
        self.text = text
        self.code = code


class ScenarioError(Error, ValueError):
    """A scenario or sweep the engine refuses.

    ``key`` is the parameter or key at fault (e.g. ``"fifo_bytes"``, ``"workload.mix"``), ``value``
    its value as given (both ``None`` when the error is about no one key), ``line`` and ``column``
    where it is in the YAML file or in the JSON text a dict becomes.
    """

    def __init__(self, text, key=None, value=None, line=None, column=None, code=None):
        super().__init__(text, code)
        self.key = key
        self.value = value
        self.line = line
        self.column = column


class DecodeError(Error):
    """The SPE stream is not well formed; the message gives the byte offset (as armprof-decode)."""
