"""The real-agent tier's timeout gate, loaded by every Python process the tier starts (this
folder is put on ``PYTHONPATH``) and inert unless ``REAL_AGENTS_TIMEOUT_GATE`` names a file.

A test that waits for deskd's launch timeout must not depend on how fast the machine is: a
real CLI takes seconds of CPU to reach its model call, many more on a loaded machine. So the
executor's clock for that timeout (``deskd.adapters.process``, the module's ``time``) runs
normally until the stand-in model API creates the gate file, on the request the test is
about (the hung call, the refused one); from then on it reads a billion seconds later, and
deskd's own timeout check ends the run at its next poll. deskd's configured timeout stays
the outer bound for a CLI that never gets there. Nothing is imported unless the process
imports ``deskd.adapters.process`` itself (the session hook does not).
"""

from __future__ import annotations

import os
import sys

_GATE = os.environ.get("REAL_AGENTS_TIMEOUT_GATE")
_TARGET = "deskd.adapters.process"


class _GatedClock:
    """``time`` as ``deskd.adapters.process`` sees it: ``monotonic`` jumps once the gate opens."""

    def __init__(self, real: object, gate: str) -> None:
        self._real = real
        self._gate = gate

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def monotonic(self) -> float:
        now: float = self._real.monotonic()
        return now + 1e9 if os.path.exists(self._gate) else now


class _Finder:
    """Finds ``deskd.adapters.process`` as usual, then swaps its ``time`` once it has run."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: object) -> None:
            run(module)
            module.time = _GatedClock(module.time, str(_GATE))

        loader.exec_module = exec_module
        return spec


if _GATE:
    sys.meta_path.insert(0, _Finder())
