"""Governing the desk for real: the cap on agents running at once and budgets, with the tick
starting real executors that run a gated simulated agent (docs/operations.md "Budgets and
caps")."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conftest import Desk, processes_with
from deskd.core.timeparse import local_day_start


def gated_agent(folder: Path) -> Path:
    """The agent executable; ``folder/<role>`` opens that role's gate."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "gated-agent"
    path.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        f"gate = os.path.join({str(folder)!r}, os.environ['DESKD_ROLE'])\n"
        # The agent waits on an event the test makes (the gate file), never on the clock.
        "while not os.path.exists(gate):\n    time.sleep(0.05)\n"
        "os.environ['DESKD_SIM_ACK'] = '1'\n"
        "from deskd.sim.agent import main\nraise SystemExit(main())\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return path


def running_agents(agent: Path) -> int:
    """Live processes running ``agent`` (its path on their command line)."""
    return len(processes_with(str(agent).encode(), where="cmdline"))


def finish(folder: Path, launched: list[dict[str, object]]) -> None:
    """Open the gates of ``launched`` and wait for their executors to exit (an event: the
    process ends; no deadline that depends on the machine's speed)."""
    for x in launched:
        (folder / str(x["role"])).touch()
    for x in launched:
        try:
            os.waitpid(int(str(x["pid"])), 0)
        except ChildProcessError:
            pass


def roles_toml(names: list[str], *, desk: str) -> str:
    return desk + "".join(f'\n[[roles]]\nname = "{n}"\n' for n in names)


def enqueue(desk: Desk, role: str, priority: str) -> None:
    desk.ok(
        *f"inbox enqueue --for {role} --source alert --title work --priority {priority}".split()
    )


def in_flight(desk: Desk) -> int:
    with desk.db() as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM attempts WHERE launch_status IN ('planned', 'running') "
            "AND primary_id IS NULL"
        ).fetchone()
    return int(row[0])


def counts(desk: Desk) -> tuple[int, int]:
    """(pages, failed launches) on the desk so far."""
    with desk.db() as conn:
        pages = conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
        failed = conn.execute(
            "SELECT COUNT(*) FROM attempts WHERE launch_status IN ('failed', 'timed_out')"
        ).fetchone()[0]
    return int(pages), int(failed)


def test_max_running_queues_by_priority_and_serves_everyone(desk: Desk, tmp_path: Path) -> None:
    urgent_roles = [f"u{i:02}" for i in range(1, 13)]
    normal_roles = ["n1", "n2"]
    desk.write_desk(
        roles_toml(
            normal_roles + urgent_roles,
            desk='[desk]\nname = "cap"\ntimezone = "America/New_York"\nmax_running = 3\n',
        )
    )
    gates = tmp_path / "gates"
    agent = gated_agent(gates)
    desk.setenv("DESKD_AGENT_CMD", str(agent))
    for role in normal_roles:  # the oldest work, but not urgent
        enqueue(desk, role, "normal")
    desk.advance(minutes=4)  # the normal items' batch is due: both kinds are demanded now
    for role in urgent_roles:
        enqueue(desk, role, "urgent")
    order: list[str] = []
    queued_seen = 0
    for _step in range(40):
        out = desk.json("tick", "--execute")
        launched = out["launched"]
        order += [str(x["role"]) for x in launched]
        assert in_flight(desk) <= 3 and running_agents(agent) <= 3
        waiting = [a for a in out["attempts"] if (a["skipped"] or "").startswith("queued")]
        queued_seen += len(waiting)
        if waiting:
            assert all(a["due_at"] is None for a in waiting)  # a queued wake never climbs
            (first,) = [w for w in waiting if w["role"] == waiting[0]["role"]][:1]
            explained = desk.ok("wake", "explain", "--role", str(first["role"])).stdout
            assert "queued: 3 of max_running 3 agents running" in explained
            assert "queued: " in desk.ok("status").stdout  # the board shows the queue
        finish(gates, launched)
        if len(order) == len(urgent_roles) + len(normal_roles):
            break
        desk.advance(minutes=1)
    assert sorted(order) == sorted(urgent_roles + normal_roles)  # all served, each once
    assert set(order[:12]) == set(urgent_roles)  # urgent before normal
    assert queued_seen >= 11 and len(order) == 14
    assert counts(desk) == (0, 0)  # no page, no failed launch for waiting in the queue


def use_tokens(desk: Desk, launched: list[dict[str, object]], tokens: int) -> None:
    """What each finished launch used, as its CLI would have reported it (the recording path
    is the usage ledger's; these scenarios need only the figures on the primary attempt)."""
    with desk.db() as conn:
        for x in launched:
            conn.execute(
                "UPDATE attempts SET input_tokens = ?, output_tokens = ? WHERE id = ?",
                (tokens - tokens // 4, tokens // 4, x["attempt_id"]),
            )  # committed as the block ends (SQLite), or at once (PostgreSQL)


def used_today(desk: Desk) -> int:
    """Tokens used since midnight in New York (the desk's day)."""
    since = local_day_start(desk.now_ms, "America/New_York")
    with desk.db() as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM attempts "
            "WHERE primary_id IS NULL AND input_tokens IS NOT NULL AND finished_at >= ?",
            (since,),
        ).fetchone()
    return int(row[0])


def pages_by_kind(desk: Desk) -> dict[str, int]:
    with desk.db() as conn:
        rows = conn.execute("SELECT kind, COUNT(*) FROM pages GROUP BY kind").fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def test_a_daily_budget_holds_launches_until_midnight(desk: Desk, tmp_path: Path) -> None:
    roles = [f"r{i:02}" for i in range(1, 21)]
    desk.write_desk(
        roles_toml(
            roles,
            desk='[desk]\nname = "budget"\ntimezone = "America/New_York"\n'
            "[budget]\ntokens_per_day = 100_000\nreserve = 0.1\nexpected_tokens = 10_000\n",
        )
    )
    gates = tmp_path / "gates"
    desk.setenv("DESKD_AGENT_CMD", str(gated_agent(gates)))
    for role in roles:
        enqueue(desk, role, "normal")
    desk.advance(minutes=4)
    served: list[str] = []

    def tick() -> dict[str, object]:
        out = desk.json("tick", "--execute")
        launched = out["launched"]
        finish(gates, launched)
        use_tokens(desk, launched, 10_000)
        served.extend(str(x["role"]) for x in launched)
        assert used_today(desk) <= 110_000  # never past the budget plus its reserve
        return out

    tick()
    assert len(served) == 10  # 10 × the expected 10,000 tokens fill the day's 100,000
    for _ in range(3):
        desk.advance(minutes=1)
        assert tick()["launched"] == []
    held = [r for r in roles if r not in served]
    explained = desk.ok("wake", "explain", "--role", held[0]).stdout
    assert (
        "held by budget desk/day: used 100,000 of 100,000 tokens; "
        "frees at 00:00 America/New_York" in explained
    )
    (row,) = desk.json("budget")
    assert (row["budget"], row["used"], row["limit"], row["holding"]) == (
        "desk/day",
        100_000,
        100_000,
        True,
    )
    shown = desk.ok("budget").stdout
    assert "desk/day" in shown and "100,000 tokens" in shown and "holding 10" in shown
    enqueue(desk, held[0], "urgent")  # urgent work may use the reserve
    tick()
    assert served[-1] == held[0] and used_today(desk) == 110_000
    enqueue(desk, held[1], "urgent")
    assert tick()["launched"] == []  # the reserve is spent too
    for _ in range(14):  # the rest of the day, hour by hour: nothing climbs, nothing pages
        desk.advance(hours=1)
        tick()
    assert desk.now_iso < "2026-12-02T05:00"  # still 1 December in New York
    assert pages_by_kind(desk) == {"notice": 1} and counts(desk)[1] == 0
    desk.advance(hours=1)  # past midnight in New York: the held work launches by itself
    tick()
    assert len(served) == 20 and set(served) == set(roles)  # each once, nobody acting
    assert pages_by_kind(desk).get("notice") == 1 and not desk.json("budget")[0]["holding"]


def test_a_usage_limit_holds_every_role_on_the_account(desk: Desk, tmp_path: Path) -> None:
    from deskd.sim.agent import write_launcher

    reset_s = desk.now_ms // 1000 + 3600
    limited = write_launcher(
        tmp_path / "limited",
        {"DESKD_SIM_MODE": "usage_limit", "DESKD_SIM_RESETS_AT": str(reset_s)},
    )
    acking = write_launcher(tmp_path / "acking", {"DESKD_SIM_ACK": "1"})
    desk.write_desk(
        '[desk]\nname = "accounts"\ntimezone = "America/New_York"\n'
        f'[agent]\naccount = "team"\ncommand = "{acking}"\n'
        f'[[roles]]\nname = "alpha"\nagent = {{ command = "{limited}" }}\n'
        '[[roles]]\nname = "beta"\n'
        '[[roles]]\nname = "gamma"\naccount = "other"\n'
    )
    enqueue(desk, "alpha", "urgent")
    (hit,) = desk.json("tick", "--execute", "--wait")["launched"]
    with desk.db() as conn:
        row = conn.execute(
            "SELECT failure_class, hold_until FROM attempts WHERE id = ?", (hit["attempt_id"],)
        ).fetchone()
    assert (row[0], row[1]) == ("usage_limit", reset_s * 1000)
    enqueue(desk, "beta", "urgent")
    enqueue(desk, "gamma", "urgent")
    desk.advance(minutes=1)
    out = desk.json("tick", "--execute", "--wait")
    assert [x["role"] for x in out["launched"]] == ["gamma"]  # another account keeps working
    (beta,) = [a for a in out["attempts"] if a["role"] == "beta"]
    assert beta["skipped"].startswith("usage limit until") and beta["due_at"] is None
    for _ in range(5):  # beta waits, without climbing, until the account's reset
        desk.advance(minutes=10)
        out = desk.json("tick", "--execute", "--wait")
        assert "beta" not in [x["role"] for x in out["launched"]]
    assert "usage limit until" in desk.ok("wake", "explain", "--role", "beta").stdout
    desk.advance(minutes=11)  # past the reset
    out = desk.json("tick", "--execute", "--wait")
    assert "beta" in [x["role"] for x in out["launched"]]
    assert counts(desk)[1] == 1  # alpha's own limited launch; beta's wait was no failure
    with desk.db() as conn:
        notices = conn.execute("SELECT key FROM pages WHERE kind = 'notice'").fetchall()
    assert [n[0] for n in notices] == [f"usage_limit:team:{reset_s * 1000}"]  # once an account
