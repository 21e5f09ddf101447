"""N hosts × M agents' session-hook traffic against PostgreSQL at a 1 ms round trip.

Each host is a process of its own (its own desk home, so through the relay its own
``deskd relay``), sharing one database behind ``hook_streams.DelayProxy`` (0.5 ms each way).
Its M agents are M roles calling their hook at an even, open-loop pace: ``--rate`` hook
calls a second over the whole desk, whatever the answers' speed, so a slow answer queues
the next ones as a busy desk would. Direct, each call opens its own connection as the hook
does on every tool call; through the relay, it hands the call to its host's relay.
A call's latency runs from when it was due to its answer. Printed: hooks/s answered,
p50/p99 latency, failures (an error, or a relay that refused), and the load average.

    .venv/bin/python bench/hook_scale.py [--hosts 10] [--agents 100] [--rate 100] \
        [--seconds 300] [--via direct relay]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from subprocess import PIPE, Popen

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hook_streams import call_for, delayed_database, make_desk, relay_running

from deskd import hook
from deskd.store import db as store_db

WORKERS = 64
"""Calls in flight at once per host, at most (a host's agents are separate processes)."""


def host(args: argparse.Namespace) -> None:
    """One host: its agents' calls at their pace; prints its latencies (ms) and failures."""
    env = {"DESKD_HOME": args.home, "DESKD_DB": args.url, "DESKD_NOW": "2026-12-01T14:00:00Z"}
    os.environ.update(env)
    call = call_for(args.url, env, args.via)
    latencies: list[float] = []
    failures = [0]
    kinds: dict[str, str] = {}  # a failure's kind: one message of it
    lock = threading.Lock()

    def one(n: int, due: float) -> None:
        try:
            if args.via == "relay":
                call(None, n)
            else:
                conn = store_db.connect(args.url, busy_ms=hook.BUSY_MS, create=False)
                try:
                    call(conn, n)
                finally:
                    conn.close()
        except Exception as exc:
            with lock:
                failures[0] += 1
                kinds[type(exc).__name__] = str(exc).splitlines()[0][:120] if str(exc) else ""
            return
        with lock:
            latencies.append((time.perf_counter() - due) * 1000)

    with relay_running(env, args.via == "relay"), ThreadPoolExecutor(WORKERS) as pool:
        start = time.perf_counter() + 0.5
        for i in range(int(args.rate * args.seconds)):
            due = start + i / args.rate
            time.sleep(max(0.0, due - time.perf_counter()))
            pool.submit(one, args.first + i % args.agents, due)
    print(json.dumps({"latencies": latencies, "failures": failures[0], "kinds": kinds}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=10)
    parser.add_argument("--agents", type=int, default=100, help="agents per host")
    parser.add_argument("--rate", type=float, default=100.0, help="hook calls a second, all hosts")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--via", nargs="+", choices=("direct", "relay"), default=["direct"])
    parser.add_argument("--host", action="store_true", help=argparse.SUPPRESS)
    for name in ("home", "url"):
        parser.add_argument(f"--{name}", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host:
        return host(args)
    with delayed_database("bench_scale") as db, tempfile.TemporaryDirectory() as tmp:
        homes = [Path(tmp, f"host{h}") for h in range(args.hosts)]
        for home in homes:
            home.mkdir()
        make_desk(homes[0], db.url, args.hosts * args.agents)
        for home in homes[1:]:
            (home / "deskd.toml").write_text((homes[0] / "deskd.toml").read_text())
        print("| via | hosts × agents | hooks/s | p50 ms | p99 ms | failures | load avg |")
        print("|---|---|---|---|---|---|---|")
        for via in args.via:
            each = ["--via", via, "--url", db.url, "--agents", str(args.agents)]
            each += ["--seconds", str(args.seconds), "--rate", str(args.rate / args.hosts)]
            argv = [sys.executable, __file__, "--host", *each, "--first"]
            procs = [
                Popen([*argv, str(h * args.agents), "--home", str(home)], stdout=PIPE)
                for h, home in enumerate(homes)
            ]
            results = [json.loads(p.communicate()[0]) for p in procs]
            latencies = sorted(ms for r in results for ms in r["latencies"])
            failures = sum(r["failures"] for r in results)

            def pct(p: float, got: list[float] = latencies) -> float:
                return got[min(len(got) - 1, int(p * len(got)))] if got else float("nan")

            for kind, said in {k: v for r in results for k, v in r["kinds"].items()}.items():
                print(f"<!-- {via} failure: {kind}: {said} -->", file=sys.stderr)
            load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"| {via} | {args.hosts} × {args.agents} | {len(latencies) / args.seconds:.1f} | "
                  f"{pct(0.5):.1f} | {pct(0.99):.1f} | {failures} | {load} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
