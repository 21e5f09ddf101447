"""Every deskd name a bench script or the bench harness imports still exists.

The benches run by hand, not in the suite, so a module that moves in src would leave a bench
that fails only when someone next measures with it (bench/tick_statements.py once imported
the hand-off service from a module that had moved). This reads each file's imports without
running it: a ``from deskd.x import y`` must name a module that imports and a ``y`` it has.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
FILES = sorted(BENCH.rglob("*.py"))


def _deskd_imports(path: Path) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("deskd"):
            found += [(str(node.module), alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name.startswith("deskd")]
    return found


def test_there_are_benches_to_check() -> None:
    assert any(p.name == "tick_statements.py" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(BENCH)))
def test_every_deskd_name_a_bench_imports_exists(path: Path) -> None:
    missing = []
    for module, name in _deskd_imports(path):
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"{module}: {exc}")
            continue
        if name is None or hasattr(loaded, name):
            continue
        try:
            importlib.import_module(f"{module}.{name}")
        except ImportError:
            missing.append(f"{module} has no {name}")
    assert not missing, f"{path.relative_to(BENCH)} imports what src no longer has: {missing}"
