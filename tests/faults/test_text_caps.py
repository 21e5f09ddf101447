"""Unbounded text is refused before anything is written: short fields have caps, every
argument is storable UTF-8 (a lone surrogate from undecodable argv bytes is refused cleanly)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import Desk, urgent

ENQUEUE = ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "t")


@pytest.mark.parametrize(
    "args",
    [
        (*ENQUEUE, "--ref", "r" * 301),
        (*ENQUEUE, "--ref=" + "r" * 301),
        (*ENQUEUE, "--dedup-key", "k" * 201),
        (*ENQUEUE, "--body", "b" * (64 * 1024 + 1)),
        (*ENQUEUE, "--ref", "bad\udcff"),
        ("status", "set", "--role", "alpha", "--activity", "a" * 201),
        ("status", "set", "--role", "alpha", "--session-id", "s" * 201),
        ("pause", "--role", "alpha", "--reason", "r" * 2001),
        ("silence", "add", "--role", "alpha", "--for", "1h", "--reason", "r" * 2001),
        ("task", "add", "t\udcff", "--for", "alpha"),
    ],
)
def test_over_long_or_unencodable_text_is_refused_and_writes_nothing(
    desk: Desk, args: tuple[str, ...]
) -> None:
    urgent(desk)
    before = desk.dump()
    out = desk.run(*args)
    assert out.exit_code == 1, (out.exit_code, out.stderr[:500])
    assert out.stderr.startswith("deskd: invalid ")
    assert "at most" in out.stderr or "UTF-8" in out.stderr
    assert desk.dump() == before


def test_undecodable_argv_bytes_are_refused_not_a_traceback(desk: Desk) -> None:
    urgent(desk)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(DESKD_HOME=str(desk.home), DESKD_NOW=desk.now_iso, LC_ALL="C.UTF-8")
    argv = [os.fsencode(sys.executable), b"-m", b"deskd", *[a.encode() for a in ENQUEUE]]
    done = subprocess.run([*argv, b"--ref", b"\xff\xfe"], env=env, capture_output=True, timeout=30)
    assert done.returncode == 1, done.stderr
    assert b"not valid UTF-8" in done.stderr and b"Traceback" not in done.stderr


def test_the_service_functions_cap_too(desk: Desk) -> None:
    from deskd.errors import InvalidValue
    from deskd.service.desk.context import open_context
    from deskd.service.desk.inbox import NewItem, enqueue

    desk.monkeypatch.setenv("DESKD_NOW", desk.now_iso)
    ctx = open_context()
    try:
        item = NewItem(role="alpha", source="alert", title="t", ref="r" * 301)
        with pytest.raises(InvalidValue, match="at most 300"):
            enqueue(ctx, item)
    finally:
        ctx.close()
