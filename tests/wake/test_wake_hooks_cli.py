"""Wake hooks through the CLI: add, list, next, cancel, and firing on the tick."""

from __future__ import annotations

import textwrap

from conftest import DESK_TOML, Desk


def test_it_adds_lists_and_previews_a_cron_hook_in_the_desk_timezone(desk: Desk) -> None:
    out = desk.json(
        "hook", "add", "--for", "alpha", "--title", "standup", "--cron", "0 9 * * MON-FRI"
    )
    assert out == {"id": 1, "kind": "cron", "next_fire_at": "2026-12-02T14:00:00Z"}
    (row,) = desk.json("hook", "list")
    assert row["owner"] == "alpha" and row["spec"] == "0 9 * * MON-FRI (America/New_York)"
    fires = desk.json("hook", "next", "1", "--count", "3")["fires"]
    assert [f["utc"] for f in fires] == [
        "2026-12-02T14:00:00Z",
        "2026-12-03T14:00:00Z",
        "2026-12-04T14:00:00Z",
    ]
    assert fires[0]["local"].startswith("2026-12-02 09:00")


def test_it_refuses_bad_schedules_and_changes_nothing(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "seed")
    before = desk.dump()
    for args, expect in [
        (["--every", "30s"], "at least 60 seconds"),
        (["--cron", "0 0 30 2 *"], "never fire"),
        (["--cron", "0 9 * *"], "5 fields"),
        (["--at", "2026-12-01T08:00"], "later than now"),
        (["--every", "5m", "--cron", "* * * * *"], "exactly one"),
        (["--probe", "os:getcwd"], "probe_allowlist"),
        (["--cron", "0 9 * * *", "--tz", "Mars/Base"], "timezone"),
    ]:
        out = desk.run("hook", "add", "--for", "alpha", "--title", "x", *args)
        assert out.exit_code == 1, args
        assert expect in out.stderr, (args, out.stderr)
    assert desk.dump() == before


def test_only_the_owner_cancels_its_hook(desk: Desk) -> None:
    desk.json("hook", "add", "--for", "alpha", "--title", "t", "--every", "5m")
    assert desk.run("hook", "cancel", "1", "--by", "beta").exit_code == 1
    assert desk.run("hook", "cancel", "1", role="beta").exit_code == 1
    assert desk.json("hook", "cancel", "1", role="alpha")["status"] == "cancelled"
    assert desk.json("hook", "list") == []
    assert desk.json("hook", "list", "--all")[0]["status"] == "cancelled"


def test_a_fired_hook_enqueues_one_item_for_its_owner_and_missed_fires_coalesce(desk: Desk) -> None:
    desk.json("hook", "add", "--for", "alpha", "--title", "poll CI", "--every", "5m")
    desk.advance(minutes=23)  # fires due at +5, +10, +15, +20: one fire, three missed
    out = desk.json("tick", "--execute")
    (fired,) = out["hooks_fired"]
    assert fired["missed"] == 3 and fired["fire_at"] == "2026-12-01T14:20:00Z"
    (item,) = desk.json("inbox", "list", "--for", "alpha", "--all")
    assert item["source"] == "system" and item["title"] == "poll CI"
    (row,) = desk.json("hook", "list")
    assert row["fire_count"] == 1 and row["missed_count"] == 3
    assert row["next_fire_at"] == "2026-12-01T14:25:00Z"  # anchored to the schedule, not to now
    desk.advance(minutes=5)
    desk.json("tick", "--execute")
    assert len(desk.json("inbox", "list", "--for", "alpha")) == 1  # deduped by hook while unread
    with desk.db() as conn:
        (ref,) = conn.execute("SELECT ref FROM items").fetchone()
    assert ref == "hook:1"


def test_an_at_hook_fires_once_then_is_done(desk: Desk) -> None:
    desk.json(
        "hook", "add", "--for", "alpha", "--title", "check deploy", "--at", "2026-12-01T09:30"
    )
    desk.advance(minutes=31)
    assert len(desk.json("tick", "--execute")["hooks_fired"]) == 1
    desk.advance(minutes=31)
    assert desk.json("tick", "--execute")["hooks_fired"] == []
    assert desk.json("hook", "list", "--all")[0]["status"] == "done"


def test_until_retires_a_hook(desk: Desk) -> None:
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "t",
        "--every",
        "10m",
        "--until",
        "2026-12-01T09:25",
    )
    assert [f["utc"] for f in desk.json("hook", "next", "1", "--count", "5")["fires"]] == [
        "2026-12-01T14:10:00Z",
        "2026-12-01T14:20:00Z",
    ]
    desk.advance(hours=1)
    desk.json("tick", "--execute")
    assert desk.json("hook", "list", "--all")[0]["status"] == "done"


def test_a_dry_run_tick_shows_would_fire_and_writes_nothing(desk: Desk) -> None:
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "urgent poll",
        "--every",
        "5m",
        "--priority",
        "urgent",
    )
    desk.advance(minutes=6)
    before = desk.dump()
    out = desk.json("tick")
    assert [(h["hook_id"], h["would"]) for h in out["hooks_fired"]] == [(1, "fire")]
    assert [a["role"] for a in out["actions"]] == ["alpha"]  # the would-be item wakes alpha
    assert desk.dump() == before


PROBES = """
import json, os, pathlib, time

def found():
    return {"title": "disk 91%", "body": os.getcwd(), "priority": "high", "dedup_key": "disk"}

def many():
    return [{"title": "a"}, {"title": "b", "dedup_key": "b"}]

def quiet():
    return None

def broken():
    raise RuntimeError("boom")

def slow():
    time.sleep(3600)
"""


def probe_desk(desk: Desk) -> None:
    desk.write_desk(
        DESK_TOML.replace(
            'inbox_sources = ["alert", "signal"]',
            'inbox_sources = ["alert", "signal"]\nprobe_allowlist = ["watchers"]',
        )
    )
    (desk.home / "watchers.py").write_text(textwrap.dedent(PROBES))


def test_a_probe_runs_in_a_child_process_in_the_desk_folder_and_its_dict_becomes_an_item(
    desk: Desk,
) -> None:
    probe_desk(desk)
    assert (
        desk.run(
            "hook", "add", "--for", "alpha", "--title", "t", "--probe", "watchersevil:x"
        ).exit_code
        == 1
    )
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "disk",
        "--probe",
        "watchers:found",
        "--every",
        "1m",
    )
    desk.json(
        "hook",
        "add",
        "--for",
        "beta",
        "--title",
        "many",
        "--probe",
        "watchers:many",
        "--every",
        "1m",
    )
    desk.json(
        "hook",
        "add",
        "--for",
        "gamma",
        "--title",
        "quiet",
        "--probe",
        "watchers:quiet",
        "--every",
        "1m",
    )
    desk.advance(minutes=1)
    assert [h["would"] for h in desk.json("tick")["hooks_fired"]] == ["run", "run", "run"]
    desk.json("tick", "--execute")
    (item,) = desk.json("inbox", "list", "--for", "alpha")
    assert item["title"] == "disk 91%" and item["priority"] == "high"
    with desk.db() as conn:
        (body,) = conn.execute("SELECT body FROM items WHERE role = 'alpha'").fetchone()
    assert body == str(desk.home)
    assert sorted(i["title"] for i in desk.json("inbox", "list", "--for", "beta")) == ["a", "b"]
    assert desk.json("inbox", "list", "--for", "gamma") == []


def test_three_probe_errors_disable_it_and_tell_its_owner(desk: Desk) -> None:
    probe_desk(desk)
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "broken",
        "--probe",
        "watchers:broken",
        "--every",
        "1m",
    )
    for _ in range(3):
        desk.advance(minutes=2)
        out = desk.json("tick", "--execute")
        assert "boom" in (out["hooks_fired"][0]["error"] or "")
    (row,) = desk.json("hook", "list", "--all")
    assert row["status"] == "disabled" and row["error_streak"] == 3
    (item,) = desk.json("inbox", "list", "--for", "alpha")
    assert "disabled after 3 errors" in item["title"]


def test_a_probe_past_its_timeout_is_killed_and_counted_as_an_error(desk: Desk) -> None:
    # The desk's 1s timeout is for alpha's probe, which never returns; beta's probe takes its
    # own 10-minute --timeout (and the budget is as long), so however slow the machine is its
    # child answers well inside it.
    probe_desk(desk)
    desk.write_desk(
        (desk.home / "deskd.toml")
        .read_text()
        .replace("probe_allowlist", 'probe_timeout = "1s"\nprobe_budget = "10m"\nprobe_allowlist')
    )
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "slow",
        "--probe",
        "watchers:slow",
        "--every",
        "1m",
    )
    desk.json(
        "hook",
        "add",
        "--for",
        "beta",
        "--title",
        "disk",
        "--probe",
        "watchers:found",
        "--every",
        "1m",
        "--timeout",
        "10m",
    )
    desk.advance(minutes=1)
    out = desk.json("tick", "--execute")
    errors = {h["owner"]: h["error"] for h in out["hooks_fired"]}
    assert errors == {"alpha": "timed out after 1s", "beta": None}
    assert desk.json("hook", "list", "--for", "alpha")[0]["error_streak"] == 1
    (beta,) = desk.json("hook", "list", "--for", "beta")
    assert beta["spec"] == "watchers:found every 1m, timeout 10m"


def test_a_probe_timeout_is_only_for_probes_between_a_second_and_the_budget(desk: Desk) -> None:
    probe_desk(desk)
    before = desk.dump()
    for args, expect in [
        (["--every", "5m", "--timeout", "10s"], "only probe hooks take a timeout"),
        (["--probe", "watchers:found", "--timeout", "0s"], "at least 1s"),
        (["--probe", "watchers:found", "--timeout", "soon"], "duration"),
        # The tick cuts every probe at its probe_budget (20s): a longer timeout would lie.
        (["--probe", "watchers:found", "--timeout", "1h"], "at most the probe_budget, 20s"),
    ]:
        out = desk.run("hook", "add", "--for", "alpha", "--title", "x", *args)
        assert out.exit_code == 1, args
        assert "--timeout" in out.stderr and expect in out.stderr, (args, out.stderr)
    assert desk.dump() == before


def test_wake_sources_lists_everything_that_can_wake_a_role(desk: Desk) -> None:
    desk.json("hook", "add", "--for", "alpha", "--title", "standup", "--cron", "0 9 * * *")
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "fyi")
    data = desk.json("wake", "sources", "--role", "alpha")
    assert set(data) >= {"hooks", "inbox", "tasks", "meetings", "attempts", "manage"}
    assert [h["title"] for h in data["hooks"]] == ["standup"]
    assert data["inbox"]["unread"] == 1 and data["inbox"]["wakes_at"] == "2026-12-01T14:03:00Z"
    assert any("hook cancel" in m for m in data["manage"])
    assert "standup" in desk.ok("wake", "sources", "--role", "alpha").stdout


def test_a_probe_removed_from_the_allowlist_does_not_run(desk: Desk) -> None:
    probe_desk(desk)
    desk.json(
        "hook",
        "add",
        "--for",
        "alpha",
        "--title",
        "disk",
        "--probe",
        "watchers:found",
        "--every",
        "1m",
    )
    desk.write_desk(DESK_TOML)
    desk.advance(minutes=1)
    out = desk.json("tick", "--execute")
    assert "no longer in probe_allowlist" in out["hooks_fired"][0]["error"]
    assert desk.json("inbox", "list", "--for", "alpha") == []
