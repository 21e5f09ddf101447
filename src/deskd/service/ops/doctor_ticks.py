"""The doctor's tick lines: each host's last executing tick, and whether it is overdue.

Read-only like the rest of the doctor: the database is opened without creating or migrating
it, and a database the other checks already found wanting adds no line here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from deskd.config.settings import Settings
from deskd.core.timeparse import human_age
from deskd.errors import StoreError
from deskd.service.desk.tick_overdue import is_overdue, overdue_after_s

Line = tuple[str, Literal["ok", "warn", "fail"], str]
HOW_TO_LOOK = "`deskd timer status` or `deskd cron-line --check` shows the schedule"


def tick_checks(settings: Settings, db: Path | str, *, now: int) -> list[Line]:
    """(name, level, detail) per host that ever ran an executing tick; a warning when one is
    overdue (never a failure: a desk may be ticked by hand)."""
    from deskd.errors import DeskdError
    from deskd.store.db import connect
    from deskd.store.hosts import list_hosts

    try:
        after_s = overdue_after_s(settings)
    except DeskdError as exc:
        return [("ticks", "fail", exc.message)]
    try:
        conn = connect(db, create=False, migrate=False, busy_ms=1000)
    except Exception:  # missing, lost or unreadable: the database checks say which
        return []
    try:
        hosts = list_hosts(conn)
    except StoreError:  # an old or foreign schema: the schema check says so
        return []
    finally:
        conn.close()
    if not hosts:
        return [
            (
                "ticks",
                "warn",
                "no executing tick recorded yet (a dry run records none); " + HOW_TO_LOOK,
            )
        ]
    checks: list[Line] = []
    for name, _first, last, _count in hosts:
        age = human_age((now - last) / 1000)
        if is_overdue(last, now=now, after_s=after_s):
            detail = (
                f"last executing tick {age} ago: overdue (none for {human_age(after_s)} or "
                f"more; DESKD_TICK_OVERDUE); {HOW_TO_LOOK}"
            )
            checks.append((f"ticks on {name}", "warn", detail))
        else:
            checks.append((f"ticks on {name}", "ok", f"last executing tick {age} ago"))
    return checks
