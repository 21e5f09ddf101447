"""Keep the roles table in line with the desk: the desk file wins; removed roles are disabled."""

from __future__ import annotations

import json

from deskd.desk_view import Desk
from deskd.store.dialect import Connection
from deskd.store.events import add_event
from deskd.store.meta import get_meta, set_meta
from deskd.store.roles import disable_roles_not_in, upsert_role

_FINGERPRINT = "desk_roles"


def sync_roles(conn: Connection, desk: Desk, *, now: int) -> bool:
    """Seed or update role rows from the desk; returns True when anything changed.

    Runs inside write transactions only (read paths never write). A fingerprint in
    ``meta`` makes the common case — nothing changed — one indexed read.
    """
    fingerprint = json.dumps(
        [[r.name, r.title, r.enabled] for r in sorted(desk.roles.values(), key=lambda r: r.name)]
    )
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
