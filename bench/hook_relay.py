"""The session hook's CPU on SQLite, on PostgreSQL working alone, and on PostgreSQL through
the host's relay (``deskd relay``), as fresh processes interleaved in the same rounds.

Builds the desk of ``bench/hook_latency.py`` (50 unread items for ``alpha`` past the
10,000-character cut, a fresh ``session_id`` each run, so every call is the heavy case) three
times: in a SQLite file, and in two PostgreSQL databases of one throwaway cluster (or
``DESKD_BENCH_PG_URL``) — one for the hook working alone, one behind a running relay. Forms:

- ``sqlite``: the console script on the SQLite desk (the baseline);
- ``pg direct``: the console script on PostgreSQL with no relay (it imports psycopg);
- ``pg relay``: the console script through the relay; psycopg is hidden from it, so a call
  that did not go through the relay fails the bench (it logs, and the bench checks the log);
- ``import psycopg`` and ``bare`` (``python -c pass``), for scale.

The relay's own CPU per call is read from ``/proc`` around the rounds and printed beside it.
The goal: ``pg relay`` at most 2x the SQLite hook's CPU.

    .venv/bin/python bench/hook_relay.py [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hook_latency import FIXTURE, bench_env, interpreter_of, make_desk, timed

RELAY_TARGET = 2.0
"""The session hook on PostgreSQL costs at most this many times the SQLite hook's CPU."""


def process_cpu_ms(pid: int) -> float:
    """User + system CPU a live process has used so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def second_database(url: str, name: str) -> str:
    """A new empty database ``name`` on ``url``'s server; its URL."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def main_relay(runs: int) -> int:
    """SQLite hook vs PostgreSQL hook alone vs PostgreSQL hook through the relay."""
    from harness.pgcluster import server
    from interleave import Form, interleave, print_table, report

    from deskd.relay.server import answering, stop

    console = Path(sys.executable).parent / "deskd-session-hook"
    python = interpreter_of(console)
    payload = json.dumps(dict(json.loads(FIXTURE.read_text(encoding="utf-8")), session_id="S"))
    with (
        server(os.environ.get("DESKD_BENCH_PG_URL")) as url,
        tempfile.TemporaryDirectory(prefix="deskd-hook-bench-") as tmp,
    ):
        homes = {name: Path(tmp) / name for name in ("sqlite", "direct", "relay")}
        for home in homes.values():
            home.mkdir()
        lite = bench_env(homes["sqlite"], make_desk(homes["sqlite"]))
        direct = bench_env(homes["direct"], make_desk(homes["direct"], url))
        relay_db = second_database(url, "deskd_bench_relay")  # the same state as direct's
        relay_db = make_desk(homes["relay"], relay_db)
        hidden = Path(tmp) / "no_psycopg"
        hidden.mkdir()
        (hidden / "psycopg.py").write_text("raise ImportError('not through the relay')\n")
        relayed = dict(bench_env(homes["relay"], relay_db), PYTHONPATH=str(hidden))
        relay_env = {k: v for k, v in relayed.items() if k not in ("PYTHONPATH", "DESKD_ROLE")}
        relay = subprocess.Popen([python, "-m", "deskd", "relay"], env=relay_env)
        try:
            while not answering(str(homes["relay"] / "run")):
                if relay.poll() is not None:
                    raise SystemExit("the relay did not start")
                time.sleep(0.05)
            for env in (lite, direct, relayed):  # by hand once, output checked
                timed([str(console)], payload.replace('"S"', '"check"').encode(), env, True)
            stdin = payload.replace('"S"', '"bench-{n}"').encode()  # a new session each run
            forms = [
                Form("sqlite", [str(console)], lite, stdin),
                Form("pg direct", [str(console)], direct, stdin),
                Form("pg relay", [str(console)], relayed, stdin),
                Form("import psycopg", [python, "-c", "import psycopg"], direct),
                Form("bare", [python, "-c", "pass"], lite),
            ]
            before = process_cpu_ms(relay.pid)
            figures = report(interleave(forms, runs), "sqlite")
            relay_ms = (process_cpu_ms(relay.pid) - before) / (runs + 1)
        finally:
            stop(str(homes["relay"] / "run"))
            relay.wait(timeout=60)
        for home in homes.values():
            if (home / "logs" / "hook.log").exists():
                raise SystemExit(
                    f"the hook logged a problem ({home.name}):\n"
                    + (home / "logs" / "hook.log").read_text()
                )
    print(f"interpreter: {python} (Python {sys.version.split()[0]}), {runs} rounds")
    print("PostToolUse fixture, fresh session_id per run, 50 queued items, × the SQLite hook")
    print_table(figures, "sqlite")
    print(f"relay process: {relay_ms:.1f} ms CPU per call (not in the hook's figure)")
    ratio = figures["pg relay"]["cpu"]["ratio"]
    verdict = "within" if ratio <= RELAY_TARGET else "OVER"
    print(f"pg relay / sqlite hook = {ratio:.2f}x CPU ({verdict} the {RELAY_TARGET}x target)")
    return 0 if ratio <= RELAY_TARGET else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    return main_relay(parser.parse_args().runs)


if __name__ == "__main__":
    sys.exit(main())
