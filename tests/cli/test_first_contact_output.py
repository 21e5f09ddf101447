"""What a person sees first: colours only on a terminal and never under NO_COLOR (no-color.org),
and a mistyped role or time zone answered with the name meant."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk

DESKD = str(Path(sys.executable).parent / "deskd")


def on_a_terminal(desk: Desk, *args: str, **env: str) -> bytes:
    """What ``deskd ARGS`` writes to a terminal (a pseudo-terminal as its stdout)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_") and k != "NO_COLOR"}
    full.update(desk.env(**env))
    main, side = pty.openpty()
    try:
        done = subprocess.run(
            [DESKD, *args], env=full, stdout=side, stderr=subprocess.PIPE, timeout=120, check=True
        )
        assert done.returncode == 0
        os.close(side)
        out = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the writer is gone and everything was read
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        os.close(main)


@pytest.mark.parametrize("args", [("status",), ("doctor",)], ids=" ".join)
def test_no_color_turns_colours_off_on_a_terminal(desk: Desk, args: tuple[str, ...]) -> None:
    desk.ok("roles")
    coloured = on_a_terminal(desk, *args)
    plain = on_a_terminal(desk, *args, NO_COLOR="1")
    assert b"\x1b[" in coloured
    assert b"\x1b[" not in plain and plain.strip()


def test_a_mistyped_role_is_answered_with_the_role_meant(desk: Desk) -> None:
    out = desk.run("inbox", "list", "--for", "alpah")
    assert out.exit_code != 0 and "did you mean 'alpha'?" in out.stderr, out.stderr


def test_a_mistyped_time_zone_is_answered_with_the_zone_meant(desk: Desk) -> None:
    desk.write_desk(
        '[desk]\nname = "t"\ntimezone = "America/New_Yrok"\n\n[[roles]]\nname = "alpha"\n'
    )
    out = desk.run("status")
    assert out.exit_code != 0 and "did you mean 'America/New_York'?" in out.stderr, out.stderr
