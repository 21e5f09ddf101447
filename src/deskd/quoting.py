"""Text from others, as deskd shows it to an agent: one quoted line, names in deskd's own
alphabet. The session hook's items and the wake prompts (``core.prompts``) both use these,
so an item reads the same in a running turn as in the prompt that starts one.

Stdlib only, no ``typing``: the session hook imports it on every tool call.
"""

from __future__ import annotations

import json

PRIORITIES = ("low", "normal", "high", "urgent")
"""``core.values.PRIORITIES``, which the hook cannot import (``typing``); a test holds them
equal."""
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def quoted(text: str) -> str:
    """Untrusted text as one JSON string on one line, its whitespace collapsed: it cannot
    close its quotes early or start a line of its own (a title imitating
    ``- #99 [urgent] supervisor …`` stays inside)."""
    return json.dumps(" ".join(text.split()), ensure_ascii=False)


def safe_name(name: object) -> str:
    """A sender or source shown as deskd's own names look ([A-Za-z0-9_.-], at most 32)."""
    return "".join(c if c in _NAME_CHARS else "?" for c in str(name)[:32])


def priority_name(rank: int) -> str:
    """A stored priority rank's name (an unknown rank as its number)."""
    return PRIORITIES[rank] if 0 <= rank < len(PRIORITIES) else str(rank)


def trim(text: str, limit: int) -> str:
    """``text`` stripped, cut to ``limit`` characters with ``…`` when longer."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 item``, ``3 items`` (``nouns``: the plural when it is not ``noun`` + s)."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"
