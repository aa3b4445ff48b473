# sitecustomize.py (tests/refshim): what the TwainMQ Python library (0.1.9)
# needs to import on Linux, for the interop tests and
# tests/vectors/regenerate.py.  Python runs it at start-up when this
# directory is on PYTHONPATH (require_ref in tests/test_helper.bash puts it
# there), before anything imports the library:
#
# - ctypes.WinDLL: twainmq/atomic_append.py calls ctypes.WinDLL("kernel32")
#   at import time on every system, and uses the result only on Windows.
#   Off Windows it gets a stand-in whose functions raise OSError if called.
# - dataclasses_jsonschema: the library's group messages take
#   JsonSchemaMixin as a base class and use nothing of it.  fallback/
#   holds a stand-in, put at the end of sys.path, so an installed
#   dataclasses_jsonschema is still the one imported.
#
# This file shadows any other sitecustomize (Debian's installs apport's
# exception hook); it runs that one afterwards.
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))

if os.name != "nt":
    import ctypes

    if not hasattr(ctypes, "WinDLL"):
        class WinDLL:
            """A Windows DLL that is not there: any function of it raises."""

            def __init__(self, name, *args, **kwargs):
                self._name = name

            def __getattr__(self, attr):
                if attr.startswith("__"):
                    raise AttributeError(attr)

                def unavailable(*args, **kwargs):
                    raise OSError("%s.%s: Windows only (tests/refshim)"
                                  % (self._name, attr))
                return unavailable

        ctypes.WinDLL = WinDLL

sys.path.append(os.path.join(_here, "fallback"))


def _run_shadowed():
    import importlib.machinery
    import importlib.util

    rest = [p for p in sys.path
            if os.path.abspath(p or os.curdir) != _here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_run_shadowed()
del _run_shadowed
