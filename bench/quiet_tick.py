"""The per-minute executing tick with nothing to launch, beside ``meeting send`` and a dry tick.

Desks: bench/tick_scaling.py's 50-role desk with ``--small`` (1,000) and ``--big`` (100,000)
rows of history in each table it seeds (items, attempts, events, sessions, pages, meetings
and their messages, tasks and notes, wake hooks), plus as many rows in every other table a
tick reads: handoffs, help requests, ended pauses and silences, meeting attendees,
obligations, proposals, votes and events. The same live rows on both (unread items, live
sessions, open tasks and hooks, a live meeting). A first executing tick records the live
demands (its launches go to a recorder, not to agents) and the bench marks those launches
landed and finished: the measured executing ticks find attempts pending within their SLA,
nothing to launch, page or sweep. The clock is pinned (``DESKD_NOW``), so every run sees
the same desk. ``meeting send`` runs on its own copy of each desk (its messages would
otherwise become the ticks' demands), whose live meeting gets a budget for every run.

Measured as fresh processes interleaved with ``python -c pass`` (bench/interleave.py): CPU
median as a multiple of the floor (and wall), and peak resident memory of each command
(``VmHWM``, read by the command's own process, forked from a small shell: Linux carries a
parent's peak across ``exec``, see tick_scaling.py). The seeding runs in a child process,
so this one stays small. Goals: ``tick --execute`` ≤ 8× ``python -c pass`` CPU and ≤ 25 MiB;
``meeting send`` ≤ 6×; ``tick --dry-run`` ≤ 7×.

    .venv/bin/python bench/quiet_tick.py [--runs 15] [--small 1000] [--big 100000]
        [--against SRC] [--json]

``--against SRC`` also runs every command from another source tree (SRC/src first on
``PYTHONPATH``; e.g. ``git archive main src | tar -x -C /tmp/base``) on its own copies of the
desks, in the same rounds: a before/after comparison under the same load.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import Form, interleave, print_table, report

HERE = Path(__file__).resolve()
COMMANDS = ("tick --execute", "tick --dry-run", "meeting send")


def seed(home_root: Path, size: int) -> None:
    """Child process: build the desk, add the other tables' history, settle the live rows."""
    import os

    import tick_scaling

    home = tick_scaling.make_desk(home_root, size)
    extra_history(home, size)
    os.environ.update({"DESKD_HOME": str(home), "DESKD_NOW": tick_scaling.NOW})
    import deskd.service.engine.tick as tick_module
    from deskd.service.desk.context import open_context
    from deskd.service.engine.dispatch import Dispatched

    tick_module.start_executor = lambda ctx, attempt_id, role: Dispatched(  # type: ignore[assignment]
        attempt_id=attempt_id, role=role, pid=0
    )
    ctx = open_context()
    tick_module.run_tick(ctx, execute=True)
    now = ctx.now
    with ctx.write() as conn:  # bench-only SQL: the agents landed and finished their turn
        conn.execute(
            "UPDATE attempts SET launch_status = 'finished', launched_at = ?, landed_at = ?, "
            "finished_at = ? WHERE launch_status = 'planned'",
            (now, now, now),
        )
    again = tick_module.run_tick(ctx, execute=True)
    caller, meeting_id = ctx.conn.execute(
        "SELECT caller, id FROM meetings WHERE closed_at IS NULL ORDER BY id"
    ).fetchone()
    (home / "meeting.json").write_text(json.dumps({"id": meeting_id, "caller": caller}))
    ctx.close()
    data = again.to_json()
    busy = {k: data[k] for k in ("attempts", "actions", "pages", "launched", "pages_sent")}
    if any(busy.values()) or data["hooks_fired"]:
        raise SystemExit(f"the settled desk still has work for a tick: {busy}")
    print(home)


_PROPOSAL_ENDS = ("accepted", "rejected", "withdrawn")


def extra_history(home: Path, size: int) -> None:
    """``size`` rows in each table a tick reads that tick_scaling.py does not seed."""
    import random

    from tick_scaling import DAY, NOW_MS, ROLES

    from deskd.store.db import connect, transaction

    conn = connect(str(home / "data" / "deskd.db"))
    rng = random.Random(size)
    t0 = NOW_MS - 31 * DAY

    def at(n: int) -> int:
        return t0 + (30 * DAY * n) // size

    def role(n: int) -> str:
        return ROLES[n % len(ROLES)]

    meetings = max(1, size // 100)  # tick_scaling's closed meetings: ids 1..size/100
    seeds: list[tuple[str, list[tuple[Any, ...]]]] = [
        (
            "INSERT INTO handoffs (role, note, by, created_at) VALUES (?, 'handed over', ?, ?)",
            [(role(n), role(n), at(n)) for n in range(size)],
        ),
        (
            "INSERT INTO help_requests (item_id, role, created_at) VALUES (?, ?, ?)",
            [(n + 1, role(n), at(n)) for n in range(size)],
        ),
        (
            "INSERT INTO pauses (role, reason, started_at, ended_at, started_by, ended_by) "
            "VALUES (?, 'maintenance', ?, ?, 'lead', 'lead')",
            [(role(n) if n % 5 else None, at(n), at(n) + 600_000) for n in range(size)],
        ),
        (
            "INSERT INTO silences (role, reason, started_at, until_at, ended_at) "
            "VALUES (?, 'quiet', ?, ?, ?)",
            [(role(n), at(n), at(n) + 3_600_000, at(n) + 3_600_000) for n in range(size)],
        ),
        (
            "INSERT INTO meeting_attendees (meeting_id, role, status, invited_at, checked_in_at, "
            "left_at) VALUES (?, ?, 'left', ?, ?, ?) ON CONFLICT DO NOTHING",  # ≤ 50 a meeting
            [(n % meetings + 1, role(n), at(n), at(n) + 1000, at(n) + 60_000) for n in range(size)],
        ),
        (
            "INSERT INTO meeting_obligations (meeting_id, message_id, debtor, creditor, "
            "created_at, due_at, status, closed_at) VALUES (?, ?, ?, ?, ?, ?, 'settled', ?)",
            [
                (n // 100 + 1, n + 1, role(n + 1), role(n), at(n), at(n) + 600_000, at(n) + 60_000)
                for n in range(size)
            ],
        ),
        (
            "INSERT INTO meeting_proposals (meeting_id, proposer, resolution, generation, "
            "status, opened_at, closed_at) VALUES (?, ?, 'done', ?, ?, ?, ?)",
            [
                (
                    n % meetings + 1,
                    role(n),
                    n,
                    ("accepted", "rejected", "withdrawn")[n % 3],
                    at(n),
                    at(n) + 60_000,
                )
                for n in range(size)
            ],
        ),
        (
            "INSERT INTO meeting_votes (proposal_id, role, vote, at) VALUES (?, ?, ?, ?)",
            [(n + 1, role(n), ("confirm", "reject")[rng.randrange(2)], at(n)) for n in range(size)],
        ),
        (
            "INSERT INTO meeting_events (meeting_id, at, kind, role, text) "
            "VALUES (?, ?, 'checked_in', ?, 'checked in')",
            [(n % meetings + 1, at(n), role(n)) for n in range(size)],
        ),
    ]
    for sql, rows in seeds:
        with transaction(conn):
            conn.executemany(sql, rows)
    conn.execute("ANALYZE")
    conn.close()


def clean_env(home: Path, src: str | None = None) -> dict[str, str]:
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DESKD_") and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
    }
    env.update({"DESKD_HOME": str(home), "DESKD_NOW": "2026-12-01T14:00:00Z"})
    if src is not None:
        env["PYTHONPATH"] = str(Path(src) / "src")
    return env


def argvs(home: Path) -> dict[str, list[str]]:
    meeting = json.loads((home / "meeting.json").read_text())
    return {
        "tick --execute": ["tick", "--execute"],
        "tick --dry-run": ["tick", "--dry-run"],
        "meeting send": [
            "meeting",
            "send",
            str(meeting["id"]),
            "--role",
            meeting["caller"],
            "--body",
            "point {n}",
        ],
    }


def forms_for(homes: dict[str, Path], tag: str, src: str | None) -> list[Form]:
    deskd = str(Path(sys.executable).parent / "deskd")
    forms = []
    for size, home in homes.items():
        send_home = home.parent / (home.name + "-send")
        for name, args in argvs(home).items():
            where = send_home if name == "meeting send" else home
            forms.append(Form(f"{name} {size}{tag}", [deskd, *args], clean_env(where, src)))
    return forms


# The command's own peak, read by its process (a grandchild of this one, see the docstring).
READ_PEAK = """
import resource, sys
hwm = [l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, *hwm, file=sys.stderr)
"""
PEAK = (
    """
import sys
from deskd.cli.main import main
sys.argv = ["deskd", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
"""
    + READ_PEAK
)


# The shell forks the command (``exit`` after it keeps the shell from exec-ing it).
_FORKED = 'p=$0 c=$1; shift; "$p" -c "$c" "$@"; exit $?'


def peak_mib(form: Form, runs: int = 3) -> float:
    """The largest peak resident size (MiB) of ``runs`` fresh processes of ``form``."""
    peaks = []
    for n in range(runs):
        args = [a.replace("{n}", f"peak {n}") for a in form.argv[1:]]
        # The floor (``python -c pass``) runs only the lines that read the peak.
        code = PEAK if form.argv[0].endswith("deskd") else READ_PEAK
        proc = subprocess.run(
            ["/bin/sh", "-c", _FORKED, sys.executable, code, *args],
            env=dict(form.env),
            capture_output=True,
            text=True,
            check=True,
        )
        peaks.append(max(int(v) for v in proc.stderr.strip().splitlines()[-1].split()))
    return round(max(peaks) / 1024, 1)


def build(root: Path, sizes: dict[str, int]) -> dict[str, Path]:
    """Seed each desk in a child process (this one stays small), and copy it for sends."""
    homes = {}
    for label, size in sizes.items():
        proc = subprocess.run(
            [sys.executable, str(HERE), "--seed", str(root), "--size", str(size)],
            env=clean_env(root),
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        home = Path(proc.stdout.strip().splitlines()[-1])
        send = home.parent / (home.name + "-send")
        shutil.copytree(home, send)
        # Bench-only SQL: a budget for every run's message (a meeting pauses at 20 by default).
        conn = sqlite3.connect(send / "data" / "deskd.db")
        with conn:
            conn.execute("UPDATE meetings SET max_messages = 100000 WHERE closed_at IS NULL")
        conn.close()
        homes[label] = home
    return homes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--against", metavar="SRC", help="also run the commands from SRC/src")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seed", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed:
        return seed(args.seed, args.size)
    results: dict[str, Any] = {"python": sys.version.split()[0], "runs": args.runs}
    with tempfile.TemporaryDirectory(prefix="deskd-quiet-tick-") as tmp:
        homes = build(Path(tmp), {"1k": args.small, "100k": args.big})
        forms = [Form("python -c pass", [sys.executable, "-c", "pass"], clean_env(Path(tmp)))]
        forms += forms_for(homes, "", None)
        if args.against:
            copies = {}
            for label, home in homes.items():
                for suffix in ("", "-send"):
                    shutil.copytree(home.parent / (home.name + suffix),
                                    home.parent / f"base-{home.name}{suffix}")  # fmt: skip
                copies[label] = home.parent / f"base-{home.name}"
            forms += forms_for(copies, f" ({Path(args.against).name})", args.against)
        results["figures"] = report(interleave(forms, args.runs), "python -c pass")
        results["peak_mib"] = {f.name: peak_mib(f) for f in forms}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"python {results['python']}, {args.runs} interleaved rounds of fresh processes")
    print_table(results["figures"], "python -c pass")
    print("\npeak resident memory (VmHWM, largest of 3 runs):")
    for name, mib in results["peak_mib"].items():
        print(f"  {name:<40} {mib:6.1f} MiB")


if __name__ == "__main__":
    main()
