"""Hosts of a shared desk and the launches handed to each: one named function per statement.

Every host ticks against the one database. A launch is handed to one host when it is
recorded (``launch_host``) and taken by that host's tick once (``dispatched_at``, by
compare-and-set), so two hosts never start an executor for the same launch.
"""

from __future__ import annotations

from deskd.store.dialect import Connection


def record_tick(conn: Connection, host: str, *, now: int) -> None:
    """``host`` ticked at ``now`` (a skipped tick counts: the host is alive)."""
    conn.execute(
        "INSERT INTO hosts (name, first_tick_at, last_tick_at, ticks) VALUES (?, ?, ?, 1) "
        # Columns qualified: PostgreSQL finds a bare one ambiguous beside ``excluded``.
        "ON CONFLICT (name) DO UPDATE SET last_tick_at = CASE "
        "WHEN excluded.last_tick_at > hosts.last_tick_at THEN excluded.last_tick_at "
        "ELSE hosts.last_tick_at END, ticks = hosts.ticks + 1",
        (host, now, now),
    )


def list_hosts(conn: Connection) -> list[tuple[str, int, int, int]]:
    """(name, first tick, last tick, ticks) of every host that ever ticked, by name."""
    rows = conn.execute(
        "SELECT name, first_tick_at, last_tick_at, ticks FROM hosts ORDER BY name"
    ).fetchall()
    return [(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]


def hand_launch(conn: Connection, attempt_id: int, *, host: str) -> int:
    """The planned launch ``attempt_id`` is for ``host``'s executors."""
    return conn.execute(
        "UPDATE attempts SET launch_host = ? WHERE id = ? AND launch_status = 'planned'",
        (host, attempt_id),
    ).rowcount


def take_handed(conn: Connection, host: str, *, now: int) -> list[tuple[int, str]]:
    """Claim every launch handed to ``host`` and not yet started: (attempt id, role), by id."""
    rows = conn.execute(
        "UPDATE attempts SET dispatched_at = ? WHERE launch_host = ? "
        "AND launch_status = 'planned' AND dispatched_at IS NULL "
        "AND primary_id IS NULL AND outcome = 'pending' RETURNING id, role",
        (now, host),
    ).fetchall()
    return sorted((int(r[0]), str(r[1])) for r in rows)


def rehand_launch(conn: Connection, attempt_id: int, *, host: str, now: int) -> int:
    """Restart a launch whose executor never started, on ``host``, started now."""
    return conn.execute(
        "UPDATE attempts SET planned_at = ?, launch_host = ?, dispatched_at = ? "
        "WHERE id = ? AND launch_status = 'planned'",
        (now, host, now, attempt_id),
    ).rowcount
