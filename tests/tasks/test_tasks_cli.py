"""`deskd task …` through the CLI with a pinned clock: the one transition table, who may
change a task, dependencies, sorting and flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Desk
from deskd.core.tasks import STATUSES, TRANSITIONS

ROOT = Path(__file__).resolve().parents[2]


def add(desk: Desk, title: str, *args: str, role: str | None = None) -> int:
    return int(desk.json("task", "add", title, *args, role=role)["id"])


def listed(desk: Desk, *args: str) -> list[dict[str, object]]:
    return list(desk.json("task", "list", *args))


def transition_table_markdown() -> str:
    """The transition table as docs/cli.md prints it."""
    lines = ["| from | may move to |", "|---|---|"]
    for status in STATUSES:
        targets = ", ".join(f"`{s}`" for s in STATUSES if s in TRANSITIONS[status])
        lines.append(f"| `{status}` | {targets or '— (closed)'} |")
    return "\n".join(lines)


def test_docs_print_the_one_transition_table() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert transition_table_markdown() in text


def test_closed_states_are_terminal_and_every_open_state_can_close() -> None:
    assert TRANSITIONS["done"] == TRANSITIONS["cancelled"] == frozenset()
    for status in ("pending", "in_progress", "blocked"):
        assert {"done", "cancelled"} <= TRANSITIONS[status]
    assert set(TRANSITIONS) == set(STATUSES)


def test_it_adds_a_task_and_lists_it_with_its_creator(desk: Desk) -> None:
    task_id = add(desk, "Review PR 12", "--for", "beta", "--by", "alpha", "--detail", "LGTM?")
    (row,) = listed(desk)
    assert (row["id"], row["role"], row["status"], row["priority"], row["created_by"]) == (
        task_id,
        "beta",
        "pending",
        "normal",
        "alpha",
    )
    assert row["detail"] == "LGTM?" and row["stalled"] is False and row["overdue"] is False


def test_an_operator_without_by_creates_as_operator(desk: Desk) -> None:
    add(desk, "x", "--for", "alpha")
    assert listed(desk)[0]["created_by"] == "operator"


def test_it_sorts_overdue_first_then_urgent_then_soonest_due(desk: Desk) -> None:
    later = add(desk, "later", "--for", "alpha", "--due", "2026-12-03T09:00")
    nodue = add(desk, "no due", "--for", "alpha", "--priority", "high")
    urgent = add(desk, "urgent", "--for", "alpha", "--priority", "urgent")
    soon = add(desk, "soon", "--for", "alpha", "--due", "2026-12-02T09:00")
    overdue = add(desk, "overdue", "--for", "alpha", "--due", "2026-12-01T08:00")
    rows = listed(desk, "--for", "alpha")
    assert [r["id"] for r in rows] == [overdue, urgent, soon, later, nodue]
    assert [r["overdue"] for r in rows] == [True, False, False, False, False]
    text = desk.ok("task", "list").stdout
    assert "OVERDUE" in text.splitlines()[1]


def test_blocked_without_a_dependency_is_refused_and_changes_nothing(desk: Desk) -> None:
    task_id = add(desk, "deploy", "--for", "alpha")
    before = desk.dump()
    out = desk.run("task", "update", str(task_id), "--status", "blocked", "--by", "alpha", "--json")
    assert out.exit_code == 1 and out.error()["code"] == "blocked_needs_dependency"
    assert desk.dump() == before


def test_leaving_blocked_clears_the_dependency(desk: Desk) -> None:
    task_id = add(desk, "deploy", "--for", "alpha")
    desk.ok("task", "update", str(task_id), "--status", "blocked", "--blocked-on", "task 9")
    assert listed(desk)[0]["blocked_on"] == "task 9"
    desk.ok("task", "update", str(task_id), "--status", "in_progress")
    row = listed(desk)[0]
    assert (row["status"], row["blocked_on"]) == ("in_progress", None)


def test_a_dependency_for_another_status_is_refused(desk: Desk) -> None:
    task_id = add(desk, "deploy", "--for", "alpha")
    out = desk.run("task", "update", str(task_id), "--blocked-on", "beta")
    assert out.exit_code == 1 and "--status blocked" in out.stderr


def test_closed_tasks_never_change(desk: Desk) -> None:
    task_id = add(desk, "deploy", "--for", "alpha")
    desk.ok("task", "done", str(task_id), "--note", "shipped")
    for args in (("--status", "pending"), ("--note", "again"), ("--priority", "urgent")):
        out = desk.run("task", "update", str(task_id), *args, "--json")
        assert out.exit_code == 1 and out.error()["code"] == "task_closed"
    assert desk.run("task", "cancel", str(task_id)).exit_code == 1
    assert listed(desk) == [] and listed(desk, "--all")[0]["status"] == "done"
    assert listed(desk, "--status", "done")[0]["closed_at"] is not None


def test_only_the_assignee_the_creator_or_the_operator_may_change_a_task(desk: Desk) -> None:
    task_id = str(add(desk, "review", "--for", "beta", "--by", "alpha"))
    out = desk.run("task", "update", task_id, "--note", "mine now", "--json", role="gamma")
    assert out.exit_code == 1 and out.error()["code"] == "not_task_party"
    out = desk.run("task", "update", task_id, "--note", "x", "--by", "alpha", role="gamma")
    assert out.exit_code == 1 and "agents may act only as their own role" in out.stderr
    desk.ok("task", "update", task_id, "--status", "in_progress", role="beta")
    desk.ok("task", "update", task_id, "--priority", "high", role="alpha")
    desk.ok("task", "update", task_id, "--note", "operator here")
    # An operator naming --by acts as that role, and the role's rights apply.
    out = desk.run("task", "update", task_id, "--note", "as gamma", "--by", "gamma")
    assert out.exit_code == 1 and "without --by" in out.stderr
    history = desk.json("task", "history", task_id)
    assert [h["by"] for h in history] == ["alpha", "beta", "alpha", "operator"]
    assert history[1]["change"] == {"status": "in_progress"}  # an object, not JSON text
    text = desk.ok("task", "history", task_id).stdout
    assert "status → in_progress" in text and "priority → high" in text and "{" not in text


def test_priorities_and_statuses_are_refused_with_the_choices(desk: Desk) -> None:
    out = desk.run("task", "add", "x", "--for", "alpha", "--priority", "critical", "--json")
    assert out.exit_code == 1 and "low, normal, high, urgent" in out.error()["message"]
    task_id = str(add(desk, "x", "--for", "alpha", "--priority", "low"))
    out = desk.run("task", "update", task_id, "--status", "finished")
    assert out.exit_code == 1 and "in_progress" in out.stderr
    assert desk.run("task", "add", "x", "--for", "nobody").exit_code == 1
    assert desk.run("task", "update", "99", "--note", "x").exit_code == 1


def test_a_due_date_can_be_moved_and_cleared(desk: Desk) -> None:
    task_id = str(add(desk, "x", "--for", "alpha", "--due", "2026-12-01T08:00"))
    assert listed(desk)[0]["due_at"] == "2026-12-01T13:00:00Z"  # naive = desk timezone (EST)
    desk.ok("task", "update", task_id, "--due", "none")
    assert listed(desk)[0]["due_at"] is None


def test_an_update_with_nothing_to_change_is_refused(desk: Desk) -> None:
    task_id = str(add(desk, "x", "--for", "alpha"))
    out = desk.run("task", "update", task_id, "--status", "pending", "--json")
    assert out.exit_code == 1 and out.error()["code"] == "nothing_to_change"


@pytest.mark.parametrize("verb,status", [("done", "done"), ("cancel", "cancelled")])
def test_done_and_cancel_close_a_task_with_a_note(desk: Desk, verb: str, status: str) -> None:
    task_id = str(add(desk, "x", "--for", "alpha"))
    out = desk.json("task", verb, task_id, "--note", "why", "--by", "alpha")
    assert out["status"] == status and out["note"] == "why"
    assert desk.json("task", "history", task_id)[-1]["note"] == "why"
