"""The closed vocabularies of docs/contract.md "Values", and their validators."""

from __future__ import annotations

import re
from typing import Literal, get_args

from deskd.errors import InvalidValue
from deskd.quoting import priority_name as priority_name  # shared with the session hook

# Each closed set is declared once, as a ``Literal`` for mypy and pydantic (the desk file's
# model in config/desk.py names these types), and its runtime tuple is derived from it.

Priority = Literal["low", "normal", "high", "urgent"]
PRIORITIES: tuple[str, ...] = get_args(Priority)
"""Item, task and page priorities, lowest first; the index is the stored rank. The session
hook keeps a copy (it may not import typing or core), held equal by a test."""

URGENT = PRIORITIES.index("urgent")

# docs/contract.md: item SLA defaults by priority, in seconds.
DEFAULT_SLA_S: dict[str, int] = {
    "urgent": 5 * 60,
    "high": 15 * 60,
    "normal": 30 * 60,
    "low": 4 * 3600,
}

RESERVED_SOURCES: tuple[str, ...] = ("system", "message", "meeting", "supervisor")
"""Item sources deskd writes itself; never accepted from `deskd inbox enqueue`."""

EventKind = Literal["alertmanager", "github", "json"]
"""How ``POST /events/<source>`` reads a source's payload (``[[events]] kind``)."""

ROLE_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
SUPERVISOR = "supervisor"
"""The human overseer: not a role; acts only through the console, never launched."""
RESERVED_ROLE_NAMES: frozenset[str] = frozenset({SUPERVISOR})

SESSION_STATES: tuple[str, ...] = ("working", "resting")
"""What `deskd status set --state` accepts; `ended` comes only from `status end`."""

AgentKind = Literal["claude", "codex", "gemini", "opencode", "command"]
AGENT_KINDS: tuple[str, ...] = get_args(AgentKind)
"""The desk file's ``[agent] kind``: a line each in ``deskd.adapters.agents.KINDS``, the table
of agent CLIs (a test holds the two equal)."""

FailureClass = Literal["permanent", "transient", "usage_limit", "task"]
FAILURE_CLASSES: tuple[str, ...] = get_args(FailureClass)
"""How an agent adapter classifies a failed launch (docs/contract.md "The agent CLIs");
``stopped`` and ``host_down`` are set by deskd itself, never by an adapter."""
PERMANENT, TRANSIENT, USAGE_LIMIT, TASK = FAILURE_CLASSES


def priority_rank(name: str) -> int:
    """The stored rank of a priority name; refuses anything else with the valid choices."""
    try:
        return PRIORITIES.index(name)
    except ValueError:
        raise InvalidValue("priority", name, "choose one of: " + ", ".join(PRIORITIES)) from None


def role_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a role name, or None when it can."""
    if not ROLE_NAME.fullmatch(name):
        fixed = re.sub(r"[^a-z0-9_-]+", "-", name.strip().lower()).strip("-_")[:32]
        guess = f"; did you mean {fixed!r}?" if ROLE_NAME.fullmatch(fixed) else ""
        return (
            f"{name!r} is not a role name: lowercase letters, digits, - and _, starting with a "
            f"letter, at most 32 characters ([a-z][a-z0-9_-]{{0,31}}){guess}"
        )
    if name in RESERVED_ROLE_NAMES:
        return f"{name!r} is reserved (the supervisor is a person, not a role)"
    return None


MAX_ARGUMENT = 64 * 1024
"""The longest text any one command-line value may be (an item body's own cap)."""
MAX_TEXT: dict[str, int] = {
    "--ref": 300,
    "--dedup-key": 200,
    "--activity": 200,
    "--session-id": 200,
    "--reason": 2000,
    "--note": 2000,
    "--blocked-on": 500,
    "--resolution": 2000,
    "--agenda": 500,
    "--title": 500,  # an item's or a task's title: one line, shown in every listing
}
"""Caps for short fields (refs, keys, reasons): every one of them is stored and shown often."""


def check_text(what: str, value: str | None, limit: int | None = None) -> str | None:
    """``value`` when it is UTF-8-encodable text within ``limit`` characters (default: the
    cap ``MAX_TEXT`` names for ``what``, else ``MAX_ARGUMENT``); refused otherwise. A lone
    surrogate (undecodable bytes in argv, a ``\\udXXX`` JSON escape) cannot be stored."""
    if value is None:
        return None
    cap = limit if limit is not None else MAX_TEXT.get(what, MAX_ARGUMENT)
    if len(value) > cap:
        raise InvalidValue(what, value[:40] + "…", f"at most {cap} characters")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "backslashreplace").decode()[:40]
            raise InvalidValue(what, shown, "not valid UTF-8 text (a lone surrogate)") from None
    return value


# An item's delivery state for its recipient, derived at read time (docs/contract.md ledger).
LEDGER_STATES: tuple[str, ...] = ("queued", "notified", "read", "escalated", "overdue")


def ledger_state(
    *,
    read_at: int | None,
    notified_at: int | None,
    sla_due_at: int,
    now: int,
    escalated: bool = False,
) -> str:
    """Precedence ``read`` > ``escalated`` > ``overdue`` > ``notified`` > ``queued``.

    ``escalated`` is an overdue item that a live wake attempt covers (the wake engine
    passes it); without one, an unread item past its SLA is ``overdue``.
    """
    if read_at is not None:
        return "read"
    if now >= sla_due_at:
        return "escalated" if escalated else "overdue"
    return "queued" if notified_at is None else "notified"
