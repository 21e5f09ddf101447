"""The tick through the CLI, walking a desk through pinned time."""

from __future__ import annotations

import subprocess
import sys

from conftest import Desk, urgent


def test_it_writes_nothing_at_all_in_dry_run(desk: Desk) -> None:
    urgent(desk)
    desk.ok(
        "status",
        "set",
        "--role",
        "beta",
        "--state",
        "resting",
        "--session-id",
        "5723d554-8b39-58c8-ad87-ce451ba2fd93",
    )
    desk.json("tick", "--execute")  # a first recorded tick, so there is history to disturb
    desk.advance(minutes=5)
    urgent(desk, "beta")
    before = desk.dump()
    out = desk.json("tick")
    assert out["dry_run"] is True and out["actions"]
    assert all(a["attempt_id"] is None for a in out["actions"])
    assert desk.dump() == before


def test_it_defaults_to_dry_run_and_obeys_deskd_wake_execute(desk: Desk) -> None:
    urgent(desk)
    assert desk.json("tick")["dry_run"] is True
    out = desk.json("tick", DESKD_WAKE_EXECUTE="1")
    assert out["dry_run"] is False and out["actions"][0]["attempt_id"] == 1
    assert desk.json("tick", "--dry-run", DESKD_WAKE_EXECUTE="1")["dry_run"] is True


def test_execute_and_dry_run_together_are_refused_as_a_usage_error(desk: Desk) -> None:
    urgent(desk)
    before = desk.dump()
    for args in (["--execute", "--dry-run"], ["--dry-run", "--execute", "--json"]):
        out = desk.run("tick", *args)
        assert out.exit_code == 2, (args, out)
        assert "--execute and --dry-run contradict each other" in out.stderr, out.stderr
        assert out.stdout == ""
    assert desk.dump() == before


def test_it_records_a_spawn_for_a_role_never_seen_with_the_prompt_naming_the_item(
    desk: Desk,
) -> None:
    urgent(desk, title="5xx above 2%")
    out = desk.json("tick", "--execute")
    (action,) = out["actions"]
    assert action["role"] == "alpha" and action["rung"] == "spawn"
    assert "5xx above 2%" in action["prompt"] and action["attempt_ids"] == [action["attempt_id"]]
    (row,) = desk.json("wake", "list")
    assert (
        row["rung"] == "spawn" and row["outcome"] == "pending" and row["launch_status"] == "planned"
    )


def test_it_resumes_an_idle_role_and_leaves_a_working_one_to_its_hook(desk: Desk) -> None:
    desk.ok(
        "status",
        "set",
        "--role",
        "alpha",
        "--state",
        "resting",
        "--session-id",
        "06959d39-ba9f-5930-9a45-62cfd95e4b48",
    )
    desk.ok(
        "status",
        "set",
        "--role",
        "beta",
        "--state",
        "working",
        "--session-id",
        "5723d554-8b39-58c8-ad87-ce451ba2fd93",
    )
    urgent(desk, "alpha")
    urgent(desk, "beta")
    out = desk.json("tick", "--execute")
    rungs = {a["role"]: a["rung"] for a in out["attempts"]}
    assert rungs == {"alpha": "resume", "beta": "session"}
    assert [(a["role"], a["session_id"]) for a in out["actions"]] == [
        ("alpha", "06959d39-ba9f-5930-9a45-62cfd95e4b48")
    ]


def test_it_batches_normal_items_for_the_inbox_batch(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "fyi")
    assert desk.json("tick", "--execute")["attempts"] == []
    desk.advance(minutes=3)
    assert [a["key"] for a in desk.json("tick", "--execute")["attempts"]] == ["inbox:alpha"]


def test_reading_the_items_resolves_the_attempt(desk: Desk) -> None:
    desk.ok(
        "status",
        "set",
        "--role",
        "alpha",
        "--state",
        "working",
        "--session-id",
        "b399b87c-8c3a-56c0-94e2-7fb71eb1a500",
    )
    item = urgent(desk)
    desk.json("tick", "--execute")
    desk.ok("inbox", "ack", "--for", "alpha", "--id", str(item))
    desk.advance(minutes=1)
    out = desk.json("tick", "--execute")
    assert [(r["outcome"], r["reason"]) for r in out["resolved"]] == [("resolved", "items read")]
    assert desk.json("wake", "list", "--open") == []


def test_a_session_rung_climbs_to_a_page_for_a_busy_role_that_never_answers(desk: Desk) -> None:
    desk.ok(
        "status",
        "set",
        "--role",
        "alpha",
        "--state",
        "working",
        "--session-id",
        "b399b87c-8c3a-56c0-94e2-7fb71eb1a500",
    )
    urgent(desk)
    seen = []
    for _ in range(12):
        out = desk.json("tick", "--execute")
        seen += [a["rung"] for a in out["attempts"]]
        desk.advance(minutes=1)
        desk.ok(
            "heartbeat", "--role", "alpha", "--session-id", "b399b87c-8c3a-56c0-94e2-7fb71eb1a500"
        )
    # busy: session → resume (skipped, role busy) → spawn (skipped) → notify
    assert seen[:4] == ["session", "resume", "spawn", "notify"]
    rows = desk.json("wake", "list")
    assert {r["launch_status"] for r in rows if r["rung"] in ("resume", "spawn")} == {"skipped"}


def test_overlapping_ticks_skip(desk: Desk) -> None:
    with desk.holding("tick"):
        out = desk.json("tick", "--execute")
    where = "run/tick.lock" if desk.backend == "sqlite" else "the database's tick lock"
    assert out["skipped"] == f"another tick holds {where}"


def test_a_dry_tick_plans_while_an_executing_tick_holds_the_lock(desk: Desk) -> None:
    # A dry run records nothing, so it takes no tick lock (service/engine/tick.py).
    urgent(desk)
    before = desk.dump()
    with desk.holding("tick"):
        out = desk.json("tick", "--dry-run")
    assert out["dry_run"] is True and out["skipped"] is None
    assert [(a["role"], a["rung"]) for a in out["actions"]] == [("alpha", "spawn")]
    assert desk.dump() == before


def test_every_tick_logs_one_line_even_when_quiet(desk: Desk) -> None:
    desk.ok("tick")
    desk.ok("tick", "--execute")
    lines = (desk.home / "logs" / "tick.log").read_text().splitlines()
    assert len(lines) == 2
    assert "dry-run" in lines[0] and "execute" in lines[1]
    assert desk.db_target in lines[0] and "demands=0" in lines[0]


def test_pause_holds_wakes_and_resume_releases_them(desk: Desk) -> None:
    desk.ok("pause", "--role", "alpha", "--reason", "maintenance")
    urgent(desk)
    out = desk.json("tick", "--execute")
    # The demand is recorded (the design: "demand is still recorded"), nothing launches.
    (held,) = out["attempts"]
    assert held["role"] == "alpha" and out["launched"] == [] and out["actions"] == []
    assert "maintenance" in out["notes"][0]["text"]
    (row,) = desk.json("wake", "list", "--role", "alpha")
    assert row["outcome"] == "pending" and "paused: maintenance" in (row["detail"] or "")
    desk.advance(minutes=30)  # nothing climbs while paused
    out = desk.json("tick", "--execute")
    assert out["attempts"] == [] and out["pages"] == [] and out["launched"] == []
    assert any(
        "paused" in line for line in desk.json("wake", "explain", "--role", "alpha")["lines"]
    )
    desk.ok("resume", "--role", "alpha")
    out = desk.json("tick", "--execute")
    assert out["attempts"][0]["role"] == "alpha" and len(out["launched"]) == 1
    assert [(c["reason"]) for c in out["resolved"]] == ["resumed"]


def test_agents_cannot_pause_or_ack(desk: Desk) -> None:
    assert desk.run("pause", "--reason", "x", role="alpha").exit_code == 1
    urgent(desk)
    desk.json("tick", "--execute")
    out = desk.run("wake", "ack", "1", "--note", "mine", role="alpha")
    assert out.exit_code == 1 and "people" in out.stderr


def test_a_person_acks_an_attempt_and_it_stops_climbing(desk: Desk) -> None:
    urgent(desk)
    desk.json("tick", "--execute")
    acked = desk.json("wake", "ack", "1", "--note", "on it")
    assert acked["id"] == 1
    assert desk.run("wake", "ack", "99", "--note", "x").exit_code == 1


def test_wake_explain_says_when_the_batch_wakes(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "fyi")
    desk.advance(minutes=1)
    lines = desk.json("wake", "explain", "--role", "alpha")["lines"]
    assert any("wakes in 2m" in line for line in lines)


def test_tick_loop_duration_is_validated(desk: Desk) -> None:
    out = desk.run("tick", "--loop", "soon")
    assert out.exit_code == 1 and "duration" in out.stderr


def test_concurrent_executing_ticks_record_one_attempt(desk: Desk) -> None:
    urgent(desk)
    env = desk.env()
    code = "from deskd.cli.main import main; main(['tick', '--execute', '--json'])"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            env={**__import__("os").environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(6)
    ]
    for p in procs:
        p.communicate(timeout=60)
        assert p.returncode == 0
    # One launch was recorded (its executor may since have failed and the wake climbed).
    assert [r["rung"] for r in desk.json("wake", "list")].count("spawn") == 1


def test_an_overdue_item_covered_by_a_live_attempt_is_escalated(desk: Desk) -> None:
    item = urgent(desk)
    desk.json("tick", "--execute")
    desk.advance(minutes=6)
    (row,) = desk.json("ledger", "--for", "alpha")
    assert row["item_id"] == item and row["state"] == "escalated"
    desk.ok("pause", "--reason", "x")
    desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "b", "--sla", "1s")
    desk.advance(minutes=1)
    assert [r["state"] for r in desk.json("ledger", "--for", "beta")] == ["overdue"]


def test_the_board_shows_live_wakes_and_pauses(desk: Desk) -> None:
    urgent(desk)
    desk.json("tick", "--execute")
    desk.ok("pause", "--role", "beta", "--reason", "deploy")
    board = desk.json("status")
    assert [(a["role"], a["rung"], a["badge"]) for a in board["attempts"]] == [
        ("alpha", "spawn", False)
    ]
    assert board["paused"] == [
        {"role": "beta", "reason": "deploy", "since": board["paused"][0]["since"]}
    ]
    assert board["health"]["last_tick_age_s"] == 0


def test_a_corrupt_row_of_one_role_leaves_the_other_roles_wakes_intact(desk: Desk) -> None:
    urgent(desk, "alpha")
    desk.json("tick", "--execute")
    with desk.db() as conn:
        conn.execute("UPDATE attempts SET item_ids = 'not json' WHERE role = 'alpha'")
    urgent(desk, "beta")
    desk.advance(minutes=5)
    out = desk.json("tick", "--execute")
    assert [a["role"] for a in out["attempts"]] == ["beta"]
    assert any(n["role"] == "alpha" and n["text"].startswith("error:") for n in out["notes"])


def test_the_board_sees_a_dry_run_tick_through_its_log(desk: Desk) -> None:
    assert desk.json("status")["health"]["last_tick_at"] is None
    desk.ok("tick")  # dry-run: writes nothing to the database
    desk.advance(seconds=30)
    health = desk.json("status")["health"]
    assert (health["last_tick_age_s"], health["last_tick_mode"]) == (30, "dry-run")
    desk.ok("tick", "--execute")
    assert desk.json("status")["health"]["last_tick_mode"] == "execute"
