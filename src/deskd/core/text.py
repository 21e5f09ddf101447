"""Free text from others, made safe to show: in a prompt, a hook's output, a terminal.

Titles, notes, agendas and bodies come from other roles and outside sources. Shown raw, a
newline starts a line that passes for deskd's own words, ``ESC [2J`` clears a terminal, and a
right-to-left override reverses what follows. ``visible`` turns every control, line-separator
and bidi-override character into its escape (``\\n``, ``\\x1b``, ``\\u2028``); ``quoted``
makes a text one JSON string on one line. ``--json`` output keeps the exact text. Stdlib
only: the session hook imports this.
"""

from __future__ import annotations

import json

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SHOWN = {
    **{c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))},
    **{ord(c): f"\\u{ord(c):04x}" for c in "\u2028\u2029" + _BIDI},
    **{ord(c): said for c, said in _NAMED.items()},
}


def visible(text: str) -> str:
    """``text`` with every control, line-separator and bidi-override character written as
    its escape: one line, shown as it is stored, that cannot move a terminal's cursor."""
    return text if text.isprintable() else text.translate(_SHOWN)


def safe_name(name: object) -> str:
    """A sender or source shown as deskd's own names look ([A-Za-z0-9_.-], at most 32)."""
    return "".join(
        c if c.isascii() and (c.isalnum() or c in "_.-") else "?" for c in str(name)[:32]
    )


def one_line(text: str) -> str:
    """``text`` on one line: its runs of white space (line breaks too) one space, ``visible``."""
    return visible(" ".join(text.split()))


def quoted(text: str) -> str:
    """Untrusted text as one JSON string on one line, its runs of white space one space: it
    cannot close its quotes early or start a line of its own (a title imitating
    ``- #99 [urgent] supervisor …`` stays inside)."""
    return visible(json.dumps(" ".join(text.split()), ensure_ascii=False))


def fenced(text: str, fence: str) -> str:
    """Each line of ``text`` (split at any line break) made ``visible`` after ``fence``
    (``"\\n   | "``): nothing in it can end the fence or pass for a line of its own."""
    return "".join(fence + visible(line) for line in text.splitlines())
