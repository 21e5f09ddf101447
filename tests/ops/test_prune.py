"""`deskd prune --older-than DUR`: closed history older than DUR goes, live rows never do
(lesson 44), the foreign keys hold, and every refusal changes nothing."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from conftest import Desk

DAY_MS = 86_400_000


def attempt(
    conn: sqlite3.Connection,
    key: str,
    *,
    resolved_at: int | None,
    outcome: str | None = None,
    supersedes: int | None = None,
    primary_id: int | None = None,
    launch_status: str | None = None,
    at: int = 0,
) -> int:
    outcome = outcome or ("pending" if resolved_at is None else "resolved")
    cur = conn.execute(
        "INSERT INTO attempts (key, kind, role, rung, level, attempted_at, outcome, "
        "resolved_at, supersedes, primary_id, launch_status) "
        "VALUES (?, 'inbox', 'alpha', 'resume', 1, ?, ?, ?, ?, ?, ?)",
        (key, at, outcome, resolved_at, supersedes, primary_id, launch_status),
    )
    return int(cur.lastrowid or 0)


def page(conn: sqlite3.Connection, attempt_id: int, *, resolved_at: int | None) -> int:
    cur = conn.execute(
        "INSERT INTO pages (attempt_id, key, role, title, status, created_at, resolved_at) "
        "VALUES (?, 'k', 'alpha', 't', ?, 0, ?)",
        (attempt_id, "resolved" if resolved_at else "sent", resolved_at),
    )
    return int(cur.lastrowid or 0)


def session(conn: sqlite3.Connection, role: str, state: str, *, ended_at: int | None) -> int:
    cur = conn.execute(
        "INSERT INTO sessions (role, state, started_at, ended_at, last_heartbeat_at) "
        "VALUES (?, ?, 0, ?, 0)",
        (role, state, ended_at),
    )
    return int(cur.lastrowid or 0)


def ids(conn: sqlite3.Connection, table: str) -> set[int]:
    return {int(r[0]) for r in conn.execute(f"SELECT id FROM {table}")}


@pytest.fixture
def history(desk: Desk) -> dict[str, Any]:
    """Old and recent, closed and live rows of every kind; the clock then sits 31 days on."""
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "old read")
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "read later")
    desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "never read")
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "1")
    old = desk.now_ms
    desk.advance(days=31)
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "2")
    recent = desk.now_ms - 1000

    conn = desk.db()
    with conn:
        a: dict[str, int] = {}
        a["climbed"] = attempt(conn, "k1", resolved_at=old, outcome="superseded")
        a["live"] = attempt(conn, "k1b", resolved_at=None, supersedes=a["climbed"])
        a["alone"] = attempt(conn, "k2", resolved_at=old)
        a["open_paged"] = attempt(conn, "k3", resolved_at=old)
        a["old_paged"] = attempt(conn, "k4", resolved_at=old)
        a["recent_paged"] = attempt(conn, "k5", resolved_at=old)
        a["under_recent"] = attempt(conn, "k6", resolved_at=old, outcome="superseded")
        a["recent"] = attempt(conn, "k6b", resolved_at=recent, supersedes=a["under_recent"])
        a["running"] = attempt(conn, "k7", resolved_at=old, launch_status="running")
        a["primary"] = attempt(conn, "k8", resolved_at=old, launch_status="finished")
        a["rider"] = attempt(conn, "k8b", resolved_at=None, primary_id=a["primary"])
        a["chain_low"] = attempt(conn, "k9", resolved_at=old, outcome="superseded")
        a["chain_top"] = attempt(conn, "k9b", resolved_at=old, supersedes=a["chain_low"])
        a["deep_low"] = attempt(conn, "k10", resolved_at=old, outcome="superseded")
        a["deep_mid"] = attempt(
            conn, "k10b", resolved_at=old, outcome="superseded", supersedes=a["deep_low"]
        )
        a["deep_live"] = attempt(conn, "k10c", resolved_at=None, supersedes=a["deep_mid"])
        p = {
            "open": page(conn, a["open_paged"], resolved_at=None),
            "old": page(conn, a["old_paged"], resolved_at=old),
            "recent": page(conn, a["recent_paged"], resolved_at=recent),
        }
        s = {
            "alpha_old": session(conn, "alpha", "ended", ended_at=old),
            "alpha_recent": session(conn, "alpha", "superseded", ended_at=recent),
            "alpha_live": session(conn, "alpha", "resting", ended_at=None),
            "beta_only": session(conn, "beta", "ended", ended_at=old),
            "gamma_old": session(conn, "gamma", "superseded", ended_at=old),
            "gamma_live": session(conn, "gamma", "working", ended_at=None),
        }
        for started, ended in ((old, old), (old, None), (old, recent)):
            conn.execute(
                "INSERT INTO pauses (role, reason, started_at, ended_at) VALUES (NULL, 'r', ?, ?)",
                (started, ended),
            )
        for status, fired in (("done", old), ("active", old), ("cancelled", recent)):
            conn.execute(
                "INSERT INTO hooks (owner, kind, spec, title, status, created_at, last_fire_at) "
                "VALUES ('alpha', 'every', '60', 't', ?, ?, ?)",
                (status, old, fired),
            )
        conn.execute("INSERT INTO events (at, kind) VALUES (?, 'old')", (old,))
        conn.execute("INSERT INTO events (at, kind) VALUES (?, 'recent')", (recent,))
    old_events = conn.execute(
        "SELECT COUNT(*) FROM events WHERE at < ?", (desk.now_ms - 30 * DAY_MS,)
    ).fetchone()[0]
    conn.close()
    return {"attempts": a, "pages": p, "sessions": s, "old_events": old_events}


def test_it_deletes_old_closed_history_and_keeps_every_live_row(
    desk: Desk, history: dict[str, Any]
) -> None:
    out = desk.json("prune", "--older-than", "30d")

    a, p, s = history["attempts"], history["pages"], history["sessions"]
    gone_attempts = {a[k] for k in ("alone", "old_paged", "chain_low", "chain_top")}
    deleted = {k: v for k, v in out["deleted"].items() if v}
    assert deleted == {
        "pages": 1,
        "attempts": len(gone_attempts),
        "items": 1,
        "sessions": 2,
        "pauses": 1,
        "hooks": 1,
        "events": history["old_events"],
    }
    assert out["cutoff"] == "2026-12-02T14:00:00Z"
    assert out["older_than"] == 30 * 86400

    conn = desk.db()
    assert ids(conn, "attempts") == set(a.values()) - gone_attempts
    assert ids(conn, "pages") == {p["open"], p["recent"]}
    assert ids(conn, "sessions") == set(s.values()) - {s["alpha_old"], s["gamma_old"]}
    titles = {r[0] for r in conn.execute("SELECT title FROM items")}
    assert titles == {"read later", "never read"}
    assert [r[0] for r in conn.execute("SELECT ended_at IS NULL FROM pauses ORDER BY id")] == [
        1,
        0,
    ]
    assert {r[0] for r in conn.execute("SELECT status FROM hooks")} == {"active", "cancelled"}
    kinds = [r[0] for r in conn.execute("SELECT kind FROM events ORDER BY id")]
    assert "old" not in kinds and "recent" in kinds and kinds[-1] == "pruned"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()


def test_live_rows_stay_even_when_everything_else_is_older(
    desk: Desk, history: dict[str, Any]
) -> None:
    desk.advance(days=400)
    desk.ok("prune", "--older-than", "1d")
    conn = desk.db()
    a = history["attempts"]
    pending = {r[0] for r in conn.execute("SELECT id FROM attempts WHERE outcome = 'pending'")}
    assert pending == {a["live"], a["rider"], a["deep_live"]}
    # what the live attempts reference, the open page's attempt and a running launch stay
    for name in ("climbed", "primary", "deep_mid", "deep_low", "open_paged", "running"):
        assert a[name] in ids(conn, "attempts"), name
    assert conn.execute("SELECT COUNT(*) FROM pages WHERE resolved_at IS NULL").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM items WHERE read_at IS NULL").fetchone()[0] == 1
    live = conn.execute("SELECT role, state FROM sessions WHERE ended_at IS NULL").fetchall()
    assert sorted(tuple(r) for r in live) == [("alpha", "resting"), ("gamma", "working")]
    # beta's only session is its current one: beta still reads offline, not never
    assert [r[0] for r in conn.execute("SELECT state FROM sessions WHERE role = 'beta'")] == [
        "ended"
    ]
    assert conn.execute("SELECT COUNT(*) FROM pauses WHERE ended_at IS NULL").fetchone()[0] == 1
    assert [r[0] for r in conn.execute("SELECT status FROM hooks")] == ["active"]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()
    assert desk.ok("roles").exit_code == 0


def test_a_second_prune_finds_nothing_more(desk: Desk, history: dict[str, Any]) -> None:
    desk.ok("prune", "--older-than", "30d")
    again = desk.json("prune", "--older-than", "30d")["deleted"]
    assert sum(again.values()) == 0


def test_dry_run_counts_exactly_and_changes_nothing(desk: Desk, history: dict[str, Any]) -> None:
    before = desk.dump()
    dry = desk.json("prune", "--older-than", "30d", "--dry-run")
    assert dry["dry_run"] is True
    assert desk.dump() == before
    real = desk.json("prune", "--older-than", "30d")
    assert real["deleted"] == dry["deleted"]
    assert sum(real["deleted"].values()) > 0


@pytest.mark.parametrize(
    ("args", "env", "code"),
    [
        (("--older-than", "0"), {}, "too_recent"),
        (("--older-than", "23h"), {}, "too_recent"),
        (("--older-than", "soon"), {}, "invalid_value"),
        (("--older-than", "-3d", "--force"), {}, "invalid_value"),
        (("--older-than", "30d"), {"DESKD_ROLE": "alpha"}, "operator_only"),
    ],
)
def test_refusals_change_nothing(
    desk: Desk, history: dict[str, Any], args: tuple[str, ...], env: dict[str, str], code: str
) -> None:
    before = desk.dump()
    out = desk.run("prune", *args, "--json", **env)
    assert out.exit_code == 1, out.stderr
    assert out.error()["code"] == code
    assert out.stdout == ""
    assert desk.dump() == before


def test_force_allows_less_than_a_day(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "t")
    desk.ok("inbox", "ack", "--for", "alpha", "--id", "1")
    desk.advance(hours=2)
    refused = desk.run("prune", "--older-than", "1h")
    assert refused.exit_code == 1
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    out = desk.json("prune", "--older-than", "1h", "--force")
    assert out["deleted"]["items"] == 1


def test_the_readable_form_names_the_cutoff_and_counts(desk: Desk) -> None:
    out = desk.ok("prune", "--older-than", "7d")
    assert "2026-11-24 09:00 EST" in out.stdout
    assert "nothing to delete" in out.stdout
