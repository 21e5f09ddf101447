"""``DeskContext``: what one unit of work (a CLI command, a tick, a request) runs against.

The entry point builds it once: settings from the environment, the desk file, the clock
read once (``DESKD_NOW`` or the system clock), and a lazily opened database connection.
Settings and the desk come through ``deskd.config.settings`` and ``deskd.config.cache``, which
import pydantic only when something needs validating.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from deskd.adapters.clock import now_ms
from deskd.adapters.locks import take_slot
from deskd.config.desk import Desk
from deskd.config.load import load_desk, load_settings
from deskd.config.settings import Settings
from deskd.errors import (
    DatabaseDamaged,
    DatabaseGone,
    LeaseLost,
    NotADatabaseFile,
    StoreError,
    Unavailable,
    database_unavailable,
)
from deskd.store.db import (
    DatabaseLost,
    NotRegularFile,
    connect,
    damage_noted,
    is_corruption,
    note_damage,
    transaction,
)
from deskd.store.dialect import Connection
from deskd.store.migrations import SchemaTooNew


class DeskContext:
    """What one unit of work runs against: settings, the desk, the clock read once, the
    database."""

    __slots__ = ("_conn", "_slot", "actor", "auth", "desk", "fences", "now", "settings", "slots")

    def __init__(
        self,
        *,
        settings: Settings,
        desk: Desk,
        now: int,
        actor: str = "operator",
        auth: str | None = None,
    ) -> None:
        self.settings = settings
        self.desk = desk
        self.now = now
        # Who acts for a person: ``operator`` at the shell, ``supervisor`` in the console.
        self.actor = actor
        # Locks this unit of work holds as leases (name -> token, a PostgreSQL desk's): every
        # write checks they are still its own, so a holder taken for dead writes nothing more.
        self.fences: dict[str, int] = {}
        # How the acting person was authenticated (the console: "access code, session N" or
        # "signed, key ID"): stamped on the events this unit of work writes as ``actor``.
        self.auth = auth
        self.slots = 0  # N > 0: an executor on a shared desk, one of N connected at once a host
        self._conn: Connection | None = None
        self._slot: int | None = None

    @property
    def tz(self) -> str:
        return self.desk.timezone

    @property
    def conn(self) -> Connection:
        """The database, created and migrated on first use (exit 3 when it cannot be opened,
        or when this desk had one and it is gone: that is never silently recreated)."""
        if self._conn is None:
            path = self.settings.database_shown
            if not self.settings.shared_database:
                damage = damage_noted(self.settings.run_path, self.settings.database)
                if damage is not None:
                    raise DatabaseDamaged(path, damage)
            try:
                if self.slots and self._slot is None:
                    # One of the host's N (docs/operations.md, "Executors' connections").
                    self._slot = take_slot(self.settings.run_path, "connection", self.slots)
                self._conn = connect(self.settings.database, marker=self.settings.db_marker)
            except SchemaTooNew as exc:
                raise Unavailable(str(exc)) from None
            except DatabaseLost:
                raise DatabaseGone(path) from None
            except NotRegularFile as exc:
                raise NotADatabaseFile(path, exc.kind) from None
            except StoreError as exc:
                raise self.failed(exc) from None
            except OSError as exc:
                raise Unavailable(f"database {path}: {exc.strerror}") from None
        return self._conn

    def failed(self, exc: StoreError) -> Unavailable:
        """``exc`` as exit 3; a damaged file is remembered so nothing more is written into it
        (``store.db.note_damage``)."""
        if is_corruption(exc) and not self.settings.shared_database:
            note_damage(self.settings.run_path, self.settings.database, str(exc))
        return database_unavailable(self.settings.database_shown, exc)

    def event(
        self,
        conn: Connection,
        kind: str,
        subject: str | None = None,
        *,
        role: str | None = None,
        actor: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> int:
        """Record an event of ``kind`` at this unit of work's instant (``store.events``)."""
        from deskd.store.events import add_event

        return add_event(
            conn, at=self.now, kind=kind, role=role, actor=actor, subject=subject, detail=detail
        )

    @contextmanager
    def write(self, roles: str | Iterable[str] | None = None) -> Iterator[Connection]:
        """One write transaction, with the roles table brought in line with the desk first;
        ``roles``: it changes that role's rows only, or those roles' (``store.db.transaction``).
        A stamped one is desk-wide (``_stamping``)."""
        try:
            with transaction(self.conn, roles=roles if self.auth is None else None) as conn:
                if self.fences:
                    self._check_fences(conn)
                sync_roles(conn, self.desk, now=self.now)
                if self.auth is None:
                    yield conn
                else:
                    with self._stamping(conn):
                        yield conn
        except StoreError as exc:
            raise self.failed(exc) from None

    @contextmanager
    def _stamping(self, conn: Connection) -> Iterator[None]:
        """Stamp ``auth`` on this transaction's events: a stamped write is desk-wide (no other
        writer runs beside it), so every event after the mark read under it is its own."""
        from deskd.store.console import last_event_id, stamp_auth

        mark = last_event_id(conn)
        yield
        stamp_auth(conn, after=mark, actor=self.actor, auth=str(self.auth))

    def _check_fences(self, conn: Connection) -> None:
        from deskd.store.locks import holds

        for name, token in self.fences.items():
            if not holds(conn, name, token=token):
                raise LeaseLost(name)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._slot is not None:
            os.close(self._slot)  # its flock goes with it
            self._slot = None


_FINGERPRINT = "desk_roles"
# The last desk's roles and their fingerprint: a tick writes several times with one desk, and
# at a thousand roles the fingerprint costs milliseconds each time.
_last: tuple[object, str] = (None, "")


def sync_roles(conn: Connection, desk: Desk, *, now: int) -> bool:
    """Keep the roles table in line with the desk: the desk file wins; removed roles are
    disabled. Returns True when anything changed.

    Runs inside write transactions only (read paths never write). A fingerprint in
    ``meta`` makes the common case — nothing changed — one indexed read.
    """
    from deskd.store.events import add_event, get_meta, set_meta
    from deskd.store.roles import disable_roles_not_in, upsert_role

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
    import json

    global _last
    roles = desk.roles
    if _last[0] is roles:  # the same parsed desk (desks are immutable once loaded)
        return _last[1]
    fingerprint = json.dumps([[r.name, r.title, r.enabled] for _, r in sorted(roles.items())])
    _last = (roles, fingerprint)
    return fingerprint


def open_context(
    *,
    settings: Settings | None = None,
    require_desk: bool = True,
    now: int | None = None,
    actor: str = "operator",
) -> DeskContext:
    """Settings, host config module, desk file and clock — in that order, once.

    ``now`` is given by an entry point that already read the clock (the console reads it
    once per request); otherwise it is read here."""
    settings = settings or load_settings()
    if settings.config_module:
        # A host module's configure_deskd() is code: its additions cannot be cached.
        from deskd.config.desk_file import load_desk as validate
        from deskd.config.host import load_config_module

        host = load_config_module(settings.config_module, desk_home=settings.home)
        desk = validate(settings.desk_path, host=host, required=require_desk)
    else:
        desk = load_desk(settings.home, settings.desk_path, required=require_desk)
    clock = now_ms(settings.now, tz=desk.timezone) if now is None else now
    return DeskContext(settings=settings, desk=desk, now=clock, actor=actor)
