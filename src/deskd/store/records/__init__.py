"""The frozen records store functions return instead of ``sqlite3.Row``, and how rows fill them.

A record names the columns its readers use, each typed; ``record_of`` fills it from a row by
field name, so a column added by a later migration changes nothing until a record asks for
it, and a field the query did not select falls back to the field's default (or fails loudly
when it has none).

Building a frozen, slotted dataclass costs about 1 ms of CPU (``dataclass`` compiles six
methods for it), so the records live in one small module per table or query
(``deskd.store.records.items``…) and a command builds only those of the rows it reads: a
store reader imports its record after the query, and returns ``[]`` (or ``None``) without
importing it when no row came back — a board or tick on a desk without pauses, pages or
attempts builds none of their records. ``from deskd.store.records import Item`` still works
(the module ``__getattr__`` below imports only that record's module).

Importing ``dataclasses`` (it pulls in ``inspect``) would also cost the session hook several
times its margin over the floor (docs/performance.md): the store modules on the hook's path
(attempts, items, sessions, roles) import records only inside the functions that return
them, never at the top, and the rows only the hook reads (``items_not_shown``,
store/briefing.py) stay plain rows.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Iterable
from dataclasses import MISSING, fields
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from deskd.store.records.attempts import Attempt as Attempt
    from deskd.store.records.handoffs import Handoff as Handoff
    from deskd.store.records.help import HelpRequest as HelpRequest
    from deskd.store.records.hooks import Hook as Hook
    from deskd.store.records.items import Item as Item
    from deskd.store.records.meeting_events import MeetingEvent as MeetingEvent
    from deskd.store.records.meeting_items import MeetingItem as MeetingItem
    from deskd.store.records.meeting_messages import Confirmation as Confirmation
    from deskd.store.records.meeting_messages import Obligation as Obligation
    from deskd.store.records.meeting_messages import Proposal as Proposal
    from deskd.store.records.meetings import Attendee as Attendee
    from deskd.store.records.meetings import Meeting as Meeting
    from deskd.store.records.pages import Page as Page
    from deskd.store.records.pauses import Pause as Pause
    from deskd.store.records.roles import RoleRow as RoleRow
    from deskd.store.records.routing import Routed as Routed
    from deskd.store.records.sessions import Session as Session
    from deskd.store.records.silences import Silence as Silence
    from deskd.store.records.task_notes import TaskNote as TaskNote
    from deskd.store.records.task_wakes import IdleWake as IdleWake
    from deskd.store.records.task_wakes import TaskRef as TaskRef
    from deskd.store.records.tasks import Task as Task
    from deskd.store.records.unread_items import UnreadItem as UnreadItem

T = TypeVar("T")


_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The record's field names without and with a default, cached per record class."""
    found = _NAMES.get(cls)
    if found is None:
        every = fields(cls)
        optional = tuple(
            f.name for f in every if f.default is not MISSING or f.default_factory is not MISSING
        )
        found = (tuple(f.name for f in every if f.name not in optional), optional)
        _NAMES[cls] = found
    return found


def record_of(cls: type[T], row: sqlite3.Row) -> T:
    """``cls`` filled from ``row`` by column name."""
    required, optional = _fields(cls)
    values = {name: row[name] for name in required}
    if optional:
        present = row.keys()
        values.update((name, row[name]) for name in optional if name in present)
    made: T = cls(**values)
    return made


def maybe_record(cls: type[T], row: sqlite3.Row | None) -> T | None:
    return None if row is None else record_of(cls, row)


def records_of(cls: type[T], rows: Iterable[sqlite3.Row]) -> list[T]:
    return [record_of(cls, r) for r in rows]


# Which module holds each record, for ``from deskd.store.records import X``.
_HOME = {
    "Attempt": "attempts",
    "Page": "pages",
    "Session": "sessions",
    "Handoff": "handoffs",
    "Item": "items",
    "UnreadItem": "unread_items",
    "HelpRequest": "help",
    "Routed": "routing",
    "Hook": "hooks",
    "Meeting": "meetings",
    "Attendee": "meetings",
    "MeetingEvent": "meeting_events",
    "MeetingItem": "meeting_items",
    "Obligation": "meeting_messages",
    "Proposal": "meeting_messages",
    "Confirmation": "meeting_messages",
    "Task": "tasks",
    "TaskNote": "task_notes",
    "TaskRef": "task_wakes",
    "IdleWake": "task_wakes",
    "Pause": "pauses",
    "Silence": "silences",
    "RoleRow": "roles",
}


def __getattr__(name: str) -> object:
    """A record named from the package: import its module only (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
