"""What a ``NOTIFY`` in each desk-wide write costs (docs/performance.md, "The console listens").

D desks (a database each) on one server, each with one writer running deskd's desk-wide write
transaction (the desk's advisory lock, one UPDATE, COMMIT) as fast as it can, with and
without the ``pg_notify`` on the desk's channel that ``PgConnection.begin`` now sends. A
notifying commit takes a server-wide lock, so the desks' writers meet there: what hooks of
different roles (or desks) would pay if every hook write notified.
Printed: transactions a second over all desks, per variant.

    .venv/bin/python bench/notify_cost.py [--desks 1 8] [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.pgcluster import server

from deskd.store.pg import CHANNEL, LOCK_CLASS, WRITE_LOCK


def rate(admin: str, desks: int, seconds: float, notify: bool) -> float:
    import psycopg

    done = [0] * desks
    stop = time.monotonic() + seconds
    tail = f"; SELECT pg_notify({CHANNEL}, '')" if notify else ""
    body = f"BEGIN; SELECT pg_advisory_xact_lock({LOCK_CLASS}, {WRITE_LOCK}){tail}; "
    body += "UPDATE t SET n = n + 1; COMMIT"

    def writer(i: int) -> None:
        with psycopg.connect(admin.replace("/postgres?", f"/notify{i}?"), autocommit=True) as c:
            while time.monotonic() < stop:
                c.execute(body)
                done[i] += 1

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(desks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--desks", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    import psycopg

    with server(os.environ.get("DESKD_BENCH_PG_URL")) as admin:
        with psycopg.connect(admin, autocommit=True) as conn:
            for i in range(max(args.desks)):
                conn.execute(f"CREATE DATABASE notify{i}")
                with psycopg.connect(
                    admin.replace("/postgres?", f"/notify{i}?"), autocommit=True
                ) as d:
                    d.execute("CREATE TABLE t (n int); INSERT INTO t VALUES (0)")
        print("| desks | without NOTIFY | with NOTIFY | load avg |")
        print("|---|---|---|---|")
        for desks in args.desks:
            plain, notified = (rate(admin, desks, args.seconds, on) for on in (False, True))
            load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"| {desks} | {plain:.0f}/s | {notified:.0f}/s | {load} |", flush=True)


if __name__ == "__main__":
    main()
