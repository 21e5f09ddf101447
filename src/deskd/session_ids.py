"""Native session ids: the shape each agent CLI gives its own, checked wherever one enters deskd.

A session id is passed back to the agent CLI on the next resume, so a value that looked like
a flag (``--dangerously-skip-permissions``) would become one. Every way in — ``deskd status
set`` and ``heartbeat``, the session hook's stdin, an agent's own output — accepts only the
shape its CLI really prints, and the adapters pass ids in a form no CLI reads as a flag.

Shapes, from each real CLI's output (tests/adapters/fixtures/real): Claude Code, Codex (its
``thread_id``) and Gemini CLI print UUIDs; OpenCode prints ``ses_`` and letters and digits
(``ses_dcf379937ffe5xa0NrKr8AzjOm``). A ``command`` agent's ids are its own: any word of
letters, digits and ``._:-`` that does not start with ``-``. Stdlib only: the session hook
imports this.
"""

from __future__ import annotations

import re

MAX_LENGTH = 200
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_SHAPES: dict[str, tuple[re.Pattern[str], str]] = {
    kind: (re.compile(rx, re.ASCII), said)
    for kind, rx, said in (
        ("claude", _UUID, "a UUID"),
        ("codex", _UUID, "a UUID"),
        ("gemini", _UUID, "a UUID"),
        ("opencode", r"ses_[0-9A-Za-z]{1,60}", "ses_ and letters or digits"),
        (
            "command",
            r"[0-9A-Za-z][0-9A-Za-z._:-]{0,199}",
            "letters, digits and ._:- not starting with -",
        ),
    )
}


ANY_KIND = "any"
"""Where the agent's kind is not known (the session hook, which Claude Code and a desk's own
``command`` agent both call): an id any of the CLIs could have printed. The adapters check
the id against their own CLI's shape again before passing it back."""


def session_id_problem(kind: str, value: str) -> str | None:
    """Why ``value`` is not a session id of the ``kind`` agent CLI (None: it is one).

    ``ANY_KIND`` accepts the shape of any CLI; an unknown kind is held to a UUID."""
    if kind == ANY_KIND:
        shapes = list(_SHAPES.values())
        said = "a UUID, ses_… or a word of letters, digits and ._:- not starting with -"
    else:
        shapes = [_SHAPES.get(kind, _SHAPES["claude"])]
        said = shapes[0][1]
    if len(value) <= MAX_LENGTH and any(p.fullmatch(value) for p, _ in shapes):
        return None
    who = "any agent CLI" if kind == ANY_KIND else f"the {kind} CLI"
    return f"not a session id {who} prints: expected {said}"


def is_session_id(kind: str, value: object) -> bool:
    """Whether ``value`` is a session id the ``kind`` agent CLI could have printed."""
    return isinstance(value, str) and session_id_problem(kind, value) is None
