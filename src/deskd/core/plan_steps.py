"""The plan's steps on a live attempt: close it (``Closure``), page a person (``PageAction``),
or say why it holds (``Note``) — core/records.py's ``Plan`` holds them.

In a module of their own, built with the first such step: a tick with no live attempt and
nothing paused or held builds none of them (a frozen dataclass costs ~1 ms of CPU to build,
docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Closure:
    """A live attempt the plan closes, with its outcome and why."""

    attempt_id: int
    outcome: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PageAction:
    """A page to queue. ``key`` is the demand key it is about; a ``notice`` (a usage limit or a
    daily cap parking launches) carries its own once-only ``notice_key``."""

    key: str
    role: str
    title: str
    body: str
    follow_up: bool = False
    notice_key: str | None = None
    attempt_id: int | None = None
    """The live attempt it is about, when this tick inserts none for the key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """Why a role is or is not being woken this tick (for `wake explain`, `--json`)."""

    role: str
    key: str | None
    text: str
