"""Runs one probe in a child process: ``python -m deskd.adapters.probe_child module:function``.

The desk folder is the working directory and is on ``sys.path``; ``DESKD_CONFIG_MODULE`` is
loaded first like in every deskd process. The return value is printed as one JSON line.

Confinement (the allowlist names modules, so it must mean those modules' own code): every
module on the dotted path must live, symlinks resolved, under the desk folder or a
``sys.path`` root — checked before it is imported, so a symlink out of the desk never runs —
and the function must be defined in the module itself, not imported into it
(``from os import system`` does not make ``watchers:system`` a probe).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def main() -> int:
    target = sys.argv[1]
    home = Path.cwd()
    sys.path.insert(0, str(home))
    config_module = os.environ.get("DESKD_CONFIG_MODULE")
    if config_module:
        from deskd.config.host import load_config_module

        load_config_module(config_module, desk_home=home)
    module_name, _, function = target.partition(":")
    try:
        module = import_confined(module_name, roots=allowed_roots(home))
        fn = defined_in(module, function)
    except ProbeRefused as exc:
        sys.stderr.write(f"refused: {exc}\n")
        return 2
    value = fn()
    sys.stdout.write(json.dumps({"value": value}, default=str) + "\n")
    return 0


class ProbeRefused(Exception):
    pass


def allowed_roots(home: Path) -> list[str]:
    roots = {os.path.realpath(home)}
    roots.update(os.path.realpath(p or ".") for p in sys.path if p == "" or os.path.isdir(p))
    return sorted(roots)


def import_confined(name: str, *, roots: list[str]) -> ModuleType:
    """Import ``name`` one level at a time, refusing a level whose file resolves outside
    ``roots`` before any of its code runs."""
    parts = name.split(".")
    module: ModuleType | None = None
    for depth in range(1, len(parts) + 1):
        dotted = ".".join(parts[:depth])
        spec = importlib.util.find_spec(dotted)
        if spec is None:
            raise ProbeRefused(f"no module named {dotted!r}")
        for origin in [spec.origin, *(spec.submodule_search_locations or [])]:
            if not origin or origin in ("built-in", "frozen"):
                continue
            real = os.path.realpath(origin)
            if not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
                raise ProbeRefused(
                    f"module {dotted!r} resolves to {real}, outside the desk folder and "
                    "the Python path"
                )
        module = importlib.import_module(dotted)
    assert module is not None
    return module


def defined_in(module: ModuleType, function: str) -> Callable[[], object]:
    """The callable ``function`` of ``module``, only when the module itself defines it."""
    fn = getattr(module, function, None)
    if not callable(fn) or getattr(fn, "__module__", None) != module.__name__:
        raise ProbeRefused(
            f"{function!r} is not defined in {module.__name__} (a probe runs only functions "
            "its allowlisted module defines, not ones it imports)"
        )
    found: Callable[[], object] = fn
    return found


if __name__ == "__main__":
    sys.exit(main())
