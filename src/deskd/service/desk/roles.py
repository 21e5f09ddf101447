"""Keep the roles table in line with the desk: the desk file wins; removed roles are disabled."""

from __future__ import annotations

import json

from deskd.config.desk import Desk
from deskd.store.dialect import Connection
from deskd.store.events import add_event
from deskd.store.meta import get_meta, set_meta
from deskd.store.roles import disable_roles_not_in, upsert_role

_FINGERPRINT = "desk_roles"
# The last desk's roles and their fingerprint: a tick writes several times with one desk, and
# at a thousand roles the fingerprint costs milliseconds each time.
_last: tuple[object, str] = (None, "")


def sync_roles(conn: Connection, desk: Desk, *, now: int) -> bool:
    """Seed or update role rows from the desk; returns True when anything changed.

    Runs inside write transactions only (read paths never write). A fingerprint in
    ``meta`` makes the common case — nothing changed — one indexed read.
    """
    fingerprint = _fingerprint(desk)
    if get_meta(conn, _FINGERPRINT) == fingerprint:
        return False
    for role in desk.roles.values():
        upsert_role(conn, name=role.name, title=role.title, enabled=role.enabled, now=now)
    removed = disable_roles_not_in(conn, list(desk.roles), now=now)
    set_meta(conn, _FINGERPRINT, fingerprint)
    add_event(
        conn, at=now, kind="roles.synced", detail={"roles": desk.role_names, "disabled": removed}
    )
    return True


def _fingerprint(desk: Desk) -> str:
    global _last
    roles = desk.roles
    if _last[0] is roles:  # the same parsed desk (desks are immutable once loaded)
        return _last[1]
    fingerprint = json.dumps([[r.name, r.title, r.enabled] for _, r in sorted(roles.items())])
    _last = (roles, fingerprint)
    return fingerprint
