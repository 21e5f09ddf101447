"""The environment a launched agent gets: scrubbed of what must not leak, with deskd's own set.

What each agent CLI sets for its own children is dropped (its line in ``KINDS``: lesson 30);
the supervisor's secrets never reach an agent, nor do the channel secrets
(``DESKD_NOTIFY_URLS``, ``DESKD_TICK_PING_URL`` and every variable a channel URL references:
an agent that could read a webhook could page people as deskd).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Mapping
from pathlib import Path

from deskd.adapters.agents import KINDS

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
_BY_KINDS = {name for kind in KINDS.values() for name in kind.dropped}
DROPPED_PREFIXES = ("DESKD_SUPERVISOR_", *sorted(n for n in _BY_KINDS if n.endswith("_")))
DROPPED = frozenset(
    {n for n in _BY_KINDS if not n.endswith("_")}
    | {
        "DESKD_WAKE_EXECUTE",
        "DESKD_ROLE",
        "DESKD_WAKE_TOKEN",
        "DESKD_SESSION_ID",
        "DESKD_NOTIFY_URLS",
        "DESKD_TICK_PING_URL",
        "DESKD_METRICS_TOKEN",
        "DESKD_REPLY_IMAP_URL",
    }
)


def agent_env(
    base: Mapping[str, str],
    *,
    role: str,
    token: str,
    home: Path,
    db: str | Path,
    session_id: str | None,
    withheld: Collection[str] = (),
) -> dict[str, str]:
    """``base`` without the scrubbed variables, plus DESKD_ROLE, DESKD_WAKE_TOKEN, DESKD_DB,
    DESKD_HOME (absolute) and a PATH that finds this environment's ``deskd`` first.
    ``withheld`` names more variables to drop (the channel secrets of this desk).
    ``DESKD_NOW`` passes through, so a rehearsal keeps one pinned clock."""
    env = scrubbed(base, withheld)
    env["DESKD_ROLE"] = role
    env["DESKD_WAKE_TOKEN"] = token
    env["DESKD_HOME"] = str(home.absolute())
    env["DESKD_DB"] = str(db) if "://" in str(db) else str(Path(db).absolute())
    if session_id:
        env["DESKD_SESSION_ID"] = session_id
    bin_dir = str(Path(sys.executable).parent)
    path = [p for p in (base.get("PATH") or DEFAULT_PATH).split(os.pathsep) if p]
    env["PATH"] = os.pathsep.join([bin_dir, *[p for p in path if p != bin_dir]])
    env.setdefault("HOME", str(Path.home()))
    return env


def scrubbed(base: Mapping[str, str], withheld: Collection[str] = ()) -> dict[str, str]:
    """``base`` without what must not leak to a child deskd did not write: a launched agent,
    a task's check command (which runs as nobody's role: no ``DESKD_ROLE`` either)."""
    return {
        k: v
        for k, v in base.items()
        if k not in DROPPED and k not in withheld and not k.startswith(DROPPED_PREFIXES)
    }
