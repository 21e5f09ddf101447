"""An allowlisted probe module runs only callables it defines itself, and a module whose file
resolves outside the allowed roots (a symlink out of the desk) is refused before it runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

from conftest import DESK_TOML, Desk

WATCHERS = """
import os
from os import getcwd

def found():
    return {"title": "defined here"}
"""


def _desk(desk: Desk) -> None:
    desk.write_desk(
        DESK_TOML.replace(
            'inbox_sources = ["alert", "signal"]',
            'inbox_sources = ["alert", "signal"]\nprobe_allowlist = ["watchers"]',
        )
    )


def _fire(desk: Desk, target: str) -> dict[str, object]:
    desk.json("hook", "add", "--for", "alpha", "--title", "p", "--probe", target, "--every", "1m")
    desk.advance(minutes=2)
    out = desk.json("tick", "--execute")
    fired: dict[str, object] = out["hooks_fired"][0]
    return fired


def test_a_callable_the_module_only_imported_is_refused(desk: Desk) -> None:
    _desk(desk)
    (desk.home / "watchers.py").write_text(textwrap.dedent(WATCHERS))
    fired = _fire(desk, "watchers:getcwd")
    assert "not defined in watchers" in str(fired["error"])
    assert desk.json("inbox", "list", "--for", "alpha") == []


def test_a_callable_defined_in_the_module_runs(desk: Desk) -> None:
    _desk(desk)
    (desk.home / "watchers.py").write_text(textwrap.dedent(WATCHERS))
    fired = _fire(desk, "watchers:found")
    assert fired["error"] is None
    (item,) = desk.json("inbox", "list", "--for", "alpha")
    assert item["title"] == "defined here"


def test_a_module_symlinked_outside_the_roots_is_refused_before_it_runs(
    desk: Desk, tmp_path: Path
) -> None:
    _desk(desk)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    marker = tmp_path / "ran"
    (outside / "evil.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\ndef found():\n    return {{'title': 'x'}}\n"
    )
    (desk.home / "watchers.py").symlink_to(outside / "evil.py")
    fired = _fire(desk, "watchers:found")
    assert "outside" in str(fired["error"])
    assert not marker.exists()
