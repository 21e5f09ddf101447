"""Native session ids: the shapes agent CLIs give their own, checked wherever one enters deskd.

A session id is passed back to the agent CLI on the next resume, so a value that looked like
a flag (``--dangerously-skip-permissions``) would become one. Every way in — ``deskd status
set`` and ``heartbeat``, the session hook's stdin, an agent's own output — accepts only the
shape its CLI really prints (each kind's line in ``deskd.adapters.agents.KINDS`` names it),
and the adapters pass ids in a form no CLI reads as a flag. Stdlib only: the session hook
imports this.
"""

from __future__ import annotations

import re

MAX_LENGTH = 200
Shape = tuple[re.Pattern[str], str]
"""A session id's pattern and how a refusal describes it."""


def shape(pattern: str, said: str) -> Shape:
    return re.compile(pattern, re.ASCII), said


UUID = shape(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "a UUID"
)
WORD = shape(r"[0-9A-Za-z][0-9A-Za-z._:-]{0,199}", "letters, digits and ._:- not starting with -")
ANY_KIND = (WORD[0], "a UUID, ses_… or a word of letters, digits and ._:- not starting with -")
"""Where the agent's kind is not known (the session hook, which Claude Code and a desk's own
``command`` agent both call): a word, the shape every CLI's ids fit. The adapters check the
id against their own CLI's shape again before passing it back."""


def session_id_problem(ids: Shape, value: str, who: str = "any agent CLI") -> str | None:
    """Why ``value`` is not a session id of the ``ids`` shape (None: it is one)."""
    if len(value) <= MAX_LENGTH and ids[0].fullmatch(value):
        return None
    return f"not a session id {who} prints: expected {ids[1]}"
