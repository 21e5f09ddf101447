"""Tick, board and session hook against history of every kind: they should follow live rows.

Two desks of 50 roles with the same live rows (two unread items per role, one urgent; a live
session for half the roles; an open task and an active wake hook per role; an open meeting
and page), one with ``--small`` (default 1,000) and one with ``--big`` (default 100,000) rows
of history in *each* of: items, attempts, events, sessions, pages, meeting messages, tasks
(and their notes), wake hooks. History is written with ``executemany`` in one transaction
per table (bench-only SQL; the schema is deskd's own, migrated by ``deskd.store.db``).

Measured as fresh processes interleaved (bench/interleave.py), median with min–max:

- whole process: ``deskd tick --dry-run``, ``deskd status --json`` and the session hook
  (``deskd-session-hook``, a PostToolUse call) on each desk, and ``python -c pass``;
- in-process: a fresh process (this script, ``--child``) opens a context and runs a dry
  tick ``--ticks`` times, then an executing tick (after one first executing tick records
  the attempts; launches go to a recorder, not to agents), and prints the medians;
- peak memory: ``ru_maxrss`` of the whole-process dry tick.

Goals: in-process tick ≤ 10 ms at the big size; big/small ≤ 1.2 whole-process and
in-process; peak memory of a tick ≤ 35 MiB.

    .venv/bin/python bench/tick_scaling.py [--runs 9] [--small 1000] [--big 100000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import Form, interleave, print_table, report, summary

NOW_MS = 1_796_140_800_000  # 2026-12-01T14:00:00Z
NOW = "2026-12-01T14:00:00Z"
ROLES = [f"r{i:02d}" for i in range(50)]
DAY = 86_400_000


def clean_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DESKD_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW})
    return env


def make_desk(root: Path, history: int) -> Path:
    """A 50-role desk with ``history`` rows in every history table and the same live rows."""
    from deskd.service.desk.context import open_context
    from deskd.store.db import transaction

    home = root / f"desk-{history}"
    home.mkdir()
    toml = ['[desk]\ntimezone = "America/New_York"\ninbox_sources = ["alert"]\n']
    toml += [f'[[roles]]\nname = "{n}"\n' for n in ROLES]
    (home / "deskd.toml").write_text("\n".join(toml))
    os.environ.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW})
    ctx = open_context()
    with ctx.write():  # seeds the roles table
        pass
    conn = ctx.conn
    rng = random.Random(history)
    span = 30 * DAY
    t0 = NOW_MS - span - DAY

    def at(n: int) -> int:
        return t0 + (span * n) // history

    def role(n: int) -> str:
        return ROLES[n % len(ROLES)]

    seeds: list[tuple[str, list[tuple[Any, ...]]]] = [
        (
            "INSERT INTO items (role, source, priority, title, body, enqueued_at, sla_due_at, "
            "notified_at, seen_at, read_at, read_by) VALUES (?, 'alert', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    role(n),
                    rng.randrange(4),
                    f"old {n}",
                    "body " * rng.randrange(1, 20),
                    at(n),
                    at(n) + 1_800_000,
                    at(n) + 60_000,
                    at(n) + 60_000,
                    at(n) + 120_000,
                    role(n),
                )
                for n in range(history)
            ],
        ),
        (
            "INSERT INTO attempts (key, kind, role, rung, level, reason, attempted_at, due_at, "
            "outcome, outcome_reason, resolved_at, launch_status, launched_at, landed_at, "
            "finished_at) VALUES (?, 'inbox', ?, ?, ?, 'old', ?, ?, 'resolved', 'items read', "
            "?, 'finished', ?, ?, ?)",
            [
                (
                    f"inbox:{role(n)}",
                    role(n),
                    ("session", "resume", "spawn")[n % 3],
                    n % 3,
                    at(n),
                    at(n) + 120_000,
                    at(n) + 90_000,
                    at(n) + 1000,
                    at(n) + 5000,
                    at(n) + 60_000,
                )
                for n in range(history)
            ],
        ),
        (
            "INSERT INTO events (at, kind, role, subject, detail) VALUES (?, ?, ?, ?, '{}')",
            [
                (at(n), ("item.enqueued", "item.read", "launch.landed")[n % 3], role(n), f"x:{n}")
                for n in range(history)
            ],
        ),
        (
            "INSERT INTO sessions (role, native_id, agent, state, started_at, ended_at, "
            "end_reason, last_heartbeat_at, heartbeats) VALUES (?, ?, 'claude', ?, ?, ?, ?, ?, 3)",
            [
                (
                    role(n),
                    f"old-{n}",
                    ("ended", "superseded")[n % 2],
                    at(n),
                    at(n) + 3_600_000,
                    ("rollover", "superseded")[n % 2],
                    at(n) + 3_000_000,
                )
                for n in range(history)
            ],
        ),
        (
            "INSERT INTO pages (attempt_id, key, role, kind, title, status, created_at, sent_at, "
            "resolved_at, tries) VALUES (?, ?, ?, 'page', 'old page', 'resolved', ?, ?, ?, 1)",
            [
                (n + 1, f"inbox:{role(n)}", role(n), at(n), at(n) + 1000, at(n) + 600_000)
                for n in range(history)
            ],
        ),
        (
            "INSERT INTO meetings (agenda, agenda_key, caller, state, max_messages, spent, "
            "consensus_at, idle_s, reply_sla_s, called_at, last_activity_at, closed_at, "
            "resolution) VALUES (?, ?, ?, 'closed', 40, 20, 2, 900, 600, ?, ?, ?, 'done')",
            [
                (
                    f"old {m}",
                    f"old-{m}",
                    role(m),
                    at(m * 100),
                    at(m * 100) + 60_000,
                    at(m * 100) + 120_000,
                )
                for m in range(max(1, history // 100))
            ],
        ),
        (
            "INSERT INTO meeting_messages (meeting_id, sender, kind, body, body_key, recipients, "
            "sent_at) VALUES (?, ?, 'evidence', ?, ?, '[]', ?)",
            [(n // 100 + 1, role(n), f"point {n}", f"k{n}", at(n)) for n in range(history)],
        ),
        (
            "INSERT INTO tasks (role, title, status, priority, created_by, created_at, "
            "updated_at, closed_at) VALUES (?, ?, ?, 1, 'lead', ?, ?, ?)",
            [
                (
                    role(n),
                    f"old task {n}",
                    ("done", "cancelled")[n % 2],
                    at(n),
                    at(n) + DAY,
                    at(n) + DAY,
                )
                for n in range(history)
            ],
        ),
        (
            "INSERT INTO task_notes (task_id, at, by, note) VALUES (?, ?, 'lead', 'progress')",
            [(n + 1, at(n)) for n in range(history)],
        ),
        (
            "INSERT INTO hooks (owner, kind, spec, title, status, created_at, last_fire_at, "
            "fire_count) VALUES (?, 'at', ?, 'old hook', 'done', ?, ?, 1)",
            [(role(n), str(at(n)), at(n), at(n) + 60_000) for n in range(history)],
        ),
    ]
    for sql, rows in seeds:
        with transaction(conn):
            conn.executemany(sql, rows)
    ctx.close()
    live(home)
    return home


def live(home: Path) -> None:
    """The same live rows on every desk, through deskd's own service functions."""
    from deskd.service.desk.context import open_context
    from deskd.service.desk.inbox import NewItem, enqueue
    from deskd.service.engine.hooks import HookRequest, add_hook
    from deskd.service.meetings.lifecycle import Call, call_meeting
    from deskd.service.work.tasks import add_task
    from deskd.store.sessions import record_heartbeat

    ctx = open_context()
    ctx.now = NOW_MS - 600_000
    for i, name in enumerate(ROLES):
        enqueue(ctx, NewItem(role=name, source="alert", title="live", priority="normal"))
        enqueue(ctx, NewItem(role=name, source="alert", title="live urgent", priority="urgent"))
        add_task(ctx, title=f"open task {i}", role=name, by=ROLES[0])
        add_hook(ctx, HookRequest(owner=name, title="check", every="1h"))
        if i % 2:
            with ctx.write() as conn:
                record_heartbeat(conn, role=name, now=NOW_MS - 30_000, native_id=f"live-{i}")
    call_meeting(ctx, Call(caller=ROLES[0], agenda="live", attendees=ROLES[1:4]))
    ctx.close()


def child(home: Path, ticks: int) -> None:
    """In-process ticks in this fresh process: median of dry ticks, then executing ticks."""
    os.environ.update({"DESKD_HOME": str(home), "DESKD_NOW": NOW})
    import deskd.service.engine.tick as tick_module
    from deskd.service.desk.context import open_context
    from deskd.service.engine.dispatch import Dispatched

    # The executing tick's launches go to a recorder: this measures the tick, not agents.
    tick_module.start_executor = lambda ctx, attempt_id, role: Dispatched(  # type: ignore[assignment]
        attempt_id=attempt_id, role=role, pid=0
    )

    def one(execute: bool) -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        ctx = open_context()
        tick_module.run_tick(ctx, execute=execute)
        ctx.close()
        return (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000

    one(False)
    dry = [one(False) for _ in range(ticks)]
    execute = [one(True) for _ in range(ticks)]
    figures = {
        f"{name}_{kind}": statistics.median(t[i] for t in runs)
        for name, runs in (("dry", dry), ("execute", execute))
        for i, kind in enumerate(("wall", "cpu"))
    }
    print(json.dumps(figures))


def in_process(homes: dict[str, Path], rounds: int, ticks: int) -> dict[str, Any]:
    """Fresh child processes, alternating desks; each reports its in-process medians."""
    import subprocess

    kinds = ("dry_wall", "dry_cpu", "execute_wall", "execute_cpu")
    out: dict[str, dict[str, list[float]]] = {n: {k: [] for k in kinds} for n in homes}
    for home in homes.values():  # the first executing tick records the live attempts
        subprocess.run([sys.executable, __file__, "--child", str(home), "--ticks", "1"],
                       env=clean_env(home), check=True, capture_output=True)  # fmt: skip
    for r in range(rounds):
        order = list(homes.items()) if r % 2 == 0 else list(reversed(homes.items()))
        for name, home in order:
            proc = subprocess.run(
                [sys.executable, __file__, "--child", str(home), "--ticks", str(ticks)],
                env=clean_env(home),
                check=True,
                capture_output=True,
                text=True,
            )
            fig = json.loads(proc.stdout.strip().splitlines()[-1])
            for kind in kinds:
                out[name][kind].append(fig[kind])
    return {n: {k: summary(v) for k, v in figs.items()} for n, figs in out.items()}


def whole_process(homes: dict[str, Path], runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    bindir = Path(sys.executable).parent
    deskd = str(bindir / "deskd")
    hook = str(bindir / "deskd-session-hook")
    payload = json.dumps(
        {"hook_event_name": "PostToolUse", "session_id": "live-1", "tool_name": "Bash"}
    ).encode()
    forms = [
        Form(
            "python -c pass", [sys.executable, "-c", "pass"], clean_env(next(iter(homes.values())))
        )
    ]
    for name, home in homes.items():
        env = clean_env(home)
        forms += [
            Form(f"tick --dry-run {name}", [deskd, "tick", "--dry-run"], env),
            Form(f"status --json {name}", [deskd, "status", "--json"], env),
            Form(f"session hook {name}", [hook], {**env, "DESKD_ROLE": ROLES[1]}, payload),
        ]
    figures = report(interleave(forms, runs), "python -c pass")
    return figures, {name: peak_mib(home) for name, home in homes.items()}


# Linux carries a process's peak resident size across exec, so a child forked from this
# (large, seeded) bench would report the bench's peak. The tick runs in a grandchild forked
# from a small shell instead, and reads its own peak (cross-checked with VmHWM).
PEAK = """
import resource, sys
from deskd.cli.main import main
try:
    main(["tick", "--dry-run"])
except SystemExit:
    pass
hwm = [l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, *hwm, file=sys.stderr)
"""


def peak_mib(home: Path) -> float:
    """The largest peak resident size (MiB) of three fresh dry-tick processes."""
    import subprocess

    peaks = []
    for _ in range(3):
        proc = subprocess.run(
            ["/bin/sh", "-c", '"$0" -c "$1"; exit $?', sys.executable, PEAK],
            env=clean_env(home),
            capture_output=True,
            text=True,
            check=True,
        )
        peaks.append(max(int(v) for v in proc.stderr.strip().splitlines()[-1].split()))
    return round(max(peaks) / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="interleaved whole-process rounds")
    parser.add_argument("--rounds", type=int, default=5, help="in-process child processes each")
    parser.add_argument("--ticks", type=int, default=15, help="ticks per child process")
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.ticks)
        return
    results: dict[str, Any] = {"python": sys.version.split()[0], "roles": len(ROLES)}
    with tempfile.TemporaryDirectory(prefix="deskd-scaling-") as tmp:
        homes = {}
        for label, size in (("small", args.small), ("big", args.big)):
            start = time.perf_counter()
            homes[label] = make_desk(Path(tmp), size)
            results[f"seed_{label}_s"] = round(time.perf_counter() - start, 1)
        results["history"] = {"small": args.small, "big": args.big}
        results["in_process"] = in_process(homes, args.rounds, args.ticks)
        results["whole_process"], results["peak_mib"] = whole_process(homes, args.runs)
    ip = results["in_process"]
    wp = results["whole_process"]
    kinds = ("dry_wall", "dry_cpu", "execute_wall", "execute_cpu")
    ratios = {
        f"in-process {k.replace('_', ' tick, ')}": ip["big"][k]["median_ms"]
        / ip["small"][k]["median_ms"]
        for k in kinds
    }
    for what in ("tick --dry-run", "status --json", "session hook"):
        for kind in ("wall", "cpu"):
            big, small = wp[f"{what} big"][kind], wp[f"{what} small"][kind]
            ratios[f"{what}, {kind}"] = big["median_ms"] / small["median_ms"]
    results["ratios_big_small"] = {k: round(v, 2) for k, v in ratios.items()}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"50 roles; history {args.small:,} vs {args.big:,} rows in every table "
          f"(seeded in {results['seed_small_s']} s / {results['seed_big_s']} s)")  # fmt: skip
    print(f"\nin-process, {args.rounds} fresh processes × {args.ticks} ticks (median of medians):")
    for kind in kinds:
        for name in ("small", "big"):
            f = ip[name][kind]
            span = f"({f['min_ms']:.2f}-{f['max_ms']:.2f})"
            print(f"  {kind:<13} {name:<6} {f['median_ms']:6.2f} ms {span}")
    print(f"\nwhole process, {args.runs} interleaved rounds:")
    print_table(wp, "python -c pass")
    print(f"\npeak memory of a dry tick (ru_maxrss): {results['peak_mib']} MiB")
    print("\nbig/small ratios (of medians):")
    for name, ratio in results["ratios_big_small"].items():
        print(f"  {name:<32} {ratio:.2f}")


if __name__ == "__main__":
    main()
