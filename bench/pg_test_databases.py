"""What a PostgreSQL test desk's database costs, per test: an empty database that deskd's first
connection migrates; a copy of a database migrated once (``CREATE DATABASE … TEMPLATE``); and
a database reused from a pool of such copies, reset after each test — the last is what the
test suite's ``desk`` fixture uses under the both-backend folders (tests/pg_databases.py).

    .venv/bin/python bench/pg_test_databases.py            # --rounds 30 (the default)

All forms run against one throwaway cluster (harness.pgcluster), in a rotating order each
round after one uncounted warm-up round, so all see the same load. Each form is timed in this
process over a test's whole life: the database made (or taken from the pool), deskd's
connection opened at the current schema, one row written, closed, and the database dropped
(or reset and given back). Wall time and this process's CPU time are printed, median and
min–max in milliseconds, and the server's CPU for the whole run of each form (its processes'
utime+stime from /proc, summed over the rounds), which is where a copy's cost mostly lands.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def _with_dbname(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def _server_cpu_s(root: str) -> float:
    """utime+stime of the cluster's processes (postmaster and every live backend) plus what
    the postmaster reaped from its finished children (cutime+cstime)."""
    with open(os.path.join(root, "data", "postmaster.pid")) as fh:
        postmaster = int(fh.readline())
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in [postmaster, *_children(postmaster)]:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
        if pid == postmaster:
            total += int(fields[13]) + int(fields[14])
    return total / tick


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args(argv)

    import psycopg
    from harness.pgcluster import Cluster

    from deskd.store.db import connect
    from deskd.store.migrations import LATEST, schema_version
    from pg_databases import Pool

    cluster = Cluster().start()
    try:
        admin_url = cluster.url()
        admin = psycopg.connect(admin_url, autocommit=True)
        template = "bench_template"
        admin.execute(f'CREATE DATABASE "{template}"')
        connect(_with_dbname(admin_url, template)).close()
        pool = Pool(admin_url, template)

        def use(name: str) -> None:
            conn = connect(_with_dbname(admin_url, name))
            assert schema_version(conn) == LATEST
            conn.execute("INSERT INTO events (at, kind) VALUES (1, 'bench')")
            conn.close()

        def fresh() -> None:
            name = f"bench_{uuid.uuid4().hex[:12]}"
            admin.execute(f'CREATE DATABASE "{name}"')
            use(name)
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')

        def copied() -> None:
            name = f"bench_{uuid.uuid4().hex[:12]}"
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            use(name)
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')

        def pooled() -> None:
            name = pool.take()
            use(name)
            pool.give_back(name)

        forms: dict[str, Callable[[], None]] = {
            "empty, migrated by deskd": fresh,
            "copy of the migrated template": copied,
            "pooled copy, reset after use": pooled,
        }
        wall: dict[str, list[float]] = {label: [] for label in forms}
        cpu: dict[str, list[float]] = {label: [] for label in forms}
        server: dict[str, float] = dict.fromkeys(forms, 0.0)
        for round_no in range(args.rounds + 1):
            order = list(forms.items())
            order = order[round_no % len(order) :] + order[: round_no % len(order)]
            for label, form in order:
                before_server = _server_cpu_s(cluster.root)
                start, start_cpu = time.perf_counter(), time.process_time()
                form()
                elapsed = (time.perf_counter() - start) * 1000
                used = (time.process_time() - start_cpu) * 1000
                if round_no:
                    wall[label].append(elapsed)
                    cpu[label].append(used)
                    server[label] += _server_cpu_s(cluster.root) - before_server
        pool.close()
        admin.close()
    finally:
        cluster.stop()

    base = statistics.median(wall["empty, migrated by deskd"])
    for label, values in wall.items():
        median = statistics.median(values)
        print(
            f"{label:30} wall median {median:6.1f} ms  min–max {min(values):6.1f}–"
            f"{max(values):6.1f}  ratio {median / base:.2f}  client CPU "
            f"{statistics.median(cpu[label]):5.1f} ms  server CPU "
            f"{server[label] * 1000 / args.rounds:6.1f} ms/round"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
