"""Builders shared by the meeting tests (not a conftest: see tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Desk

FAKES = Path(__file__).resolve().parents[1] / "fakes"


def fake_agent(desk: Desk) -> None:
    """Every launch really runs tests/fakes/fake-claude (it lands and ends its turn), even in a
    module whose launches are otherwise recorded; tick with ``wait``."""
    from deskd.service.engine import dispatch

    desk.setenv("DESKD_AGENT_CMD", str(FAKES / "fake-claude"))
    desk.monkeypatch.setattr("deskd.service.engine.tick.start_executor", dispatch.start_executor)


def call(
    desk: Desk,
    *attendees: str,
    by: str = "alpha",
    agenda: str = "schema v3",
    **options: str | int,
) -> int:
    """``deskd meeting call``; returns the meeting id."""
    args = ["meeting", "call", "--by", by, "--agenda", agenda, "--attendees", ",".join(attendees)]
    for name, value in options.items():
        args += [f"--{name.replace('_', '-')}", str(value)]
    return int(desk.json(*args)["meeting_id"])


def check_in(desk: Desk, meeting: int, *roles: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for role in roles:
        out = desk.json("meeting", "check-in", str(meeting), "--role", role)
    return out


def meeting_of(desk: Desk, *attendees: str, **options: str | int) -> int:
    """A meeting called by alpha with every attendee checked in."""
    m = call(desk, *attendees, **options)
    check_in(desk, m, *attendees)
    return m


def say(desk: Desk, meeting: int, role: str, body: str, *extra: str) -> dict[str, Any]:
    out: dict[str, Any] = desk.json(
        "meeting", "send", str(meeting), "--role", role, "--body", body, *extra
    )
    return out


def status(desk: Desk, meeting: int) -> dict[str, Any]:
    out: dict[str, Any] = desk.json("meeting", "status", str(meeting))
    return out


def waiting(desk: Desk, meeting: int) -> list[tuple[str, str]]:
    return [(w["role"], w["why"]) for w in status(desk, meeting)["waiting_on"]]


def tick(desk: Desk, *, execute: bool = False, wait: bool = False) -> dict[str, Any]:
    flags = (["--execute"] if execute else []) + (["--wait"] if wait else [])
    out: dict[str, Any] = desk.json("tick", *flags)
    return out


def keys(tick_json: dict[str, Any]) -> list[str]:
    """The keys of the attempts a tick started (or would start)."""
    return sorted(a["key"] for a in tick_json["attempts"])


def demanded(desk: Desk) -> dict[str, dict[str, Any]]:
    """What a dry-run tick would start now, keyed by demand key (no live attempt yet)."""
    return {a["key"]: a for a in tick(desk)["attempts"]}


def prompt_of(tick_json: dict[str, Any], role: str) -> str:
    (action,) = [a for a in tick_json["actions"] if a["role"] == role]
    return str(action["prompt"])


def open_attempts(desk: Desk) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = desk.json("wake", "list", "--open")
    return out


def closures(tick_json: dict[str, Any]) -> list[tuple[str, str]]:
    return [(r["outcome"], r["reason"]) for r in tick_json["resolved"]]


def error_code(out: Any) -> str:
    return str(out.error()["code"])
