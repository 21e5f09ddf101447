"""Small modules: one past 400 lines says why in its docstring (the style guide's rule)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p for folder in ("src", "tests", "bench") for p in (ROOT / folder).rglob("*.py"))
LIMIT = 400


def _long() -> list[Path]:
    return [p for p in MODULES if len(p.read_text(encoding="utf-8").splitlines()) > LIMIT]


@pytest.mark.parametrize("path", _long(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_long_module_says_why_in_its_docstring(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert "400 lines" in doc, (
        f"{path.relative_to(ROOT)} is over {LIMIT} lines: split it or say why"
    )


def test_it_finds_the_long_modules_it_checks() -> None:
    # errors.py is long on purpose (every refusal in one place): the check above must see it.
    assert ROOT / "src" / "deskd" / "errors.py" in _long()


def test_no_module_of_src_passes_600_lines() -> None:
    src = [p for p in MODULES if p.is_relative_to(ROOT / "src")]
    lines = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in src}
    assert {path: n for path, n in lines.items() if n > 600} == {}


def test_mypy_is_strict_on_all_of_src_with_no_package_exempted() -> None:
    import tomllib

    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert mypy["strict"] is True and mypy["files"] == ["src/deskd"]
    assert "overrides" not in mypy
