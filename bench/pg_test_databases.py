"""What a PostgreSQL test desk's database costs: an empty database that deskd's first
connection migrates, against a copy of a database migrated once (``CREATE DATABASE … TEMPLATE``),
which is what the test suite's ``desk`` fixture uses under the both-backend folders.

    .venv/bin/python bench/pg_test_databases.py            # --rounds 30 (the default)

Both forms run against one throwaway cluster (harness.pgcluster), alternating each round
after one uncounted warm-up round, so both see the same load. Each form is timed in this
process, from CREATE DATABASE to deskd's connection being open at the current schema and
closed; the database is dropped afterwards, untimed. Median and min–max in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit


def _with_dbname(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args(argv)

    import psycopg
    from harness.pgcluster import Cluster

    from deskd.store.db import connect
    from deskd.store.migrations import LATEST, schema_version

    cluster = Cluster().start()
    try:
        admin_url = cluster.url()
        admin = psycopg.connect(admin_url, autocommit=True)
        template = "bench_template"
        admin.execute(f'CREATE DATABASE "{template}"')
        connect(_with_dbname(admin_url, template)).close()

        def fresh(name: str) -> None:
            admin.execute(f'CREATE DATABASE "{name}"')
            conn = connect(_with_dbname(admin_url, name))
            assert schema_version(conn) == LATEST
            conn.close()

        def copied(name: str) -> None:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            conn = connect(_with_dbname(admin_url, name))
            assert schema_version(conn) == LATEST
            conn.close()

        forms: dict[str, Callable[[str], None]] = {
            "empty, migrated by deskd": fresh,
            "copy of the migrated template": copied,
        }
        samples: dict[str, list[float]] = {label: [] for label in forms}
        for round_no in range(args.rounds + 1):
            order = list(forms.items())
            if round_no % 2:
                order.reverse()
            for label, form in order:
                name = f"bench_{uuid.uuid4().hex[:12]}"
                start = time.perf_counter()
                form(name)
                elapsed = (time.perf_counter() - start) * 1000
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
                if round_no:
                    samples[label].append(elapsed)
        admin.close()
    finally:
        cluster.stop()

    base = statistics.median(samples["empty, migrated by deskd"])
    for label, values in samples.items():
        median = statistics.median(values)
        print(
            f"{label:32} median {median:6.1f} ms  min–max {min(values):6.1f}–{max(values):6.1f}"
            f"  ratio {median / base:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
