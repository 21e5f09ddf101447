"""A throwaway PostgreSQL cluster or PgBouncer left running by a killed run is stopped by
the next start.

The suite's servers are stopped when the test session ends; a run killed first (a CI
timeout, ``kill -9``) cannot stop its own, so ``bench/harness/`` heals the leak at the next
start instead: a server whose starter has exited is stopped and its folder deleted, and one
whose starter lives (another run beside this one) is left alone.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from harness.pgcluster import ClusterUnavailable, find_bindir, reap_orphans

ROOT = Path(__file__).resolve().parents[1]

STARTS_AND_DIES = """
import os, sys
sys.path.insert(0, "bench")
from harness.pgbouncer import Bouncer
from harness.pgcluster import Cluster
server = Cluster() if sys.argv[1] == "cluster" else Bouncer(sys.argv[1])
print(server.start().root, flush=True)
os._exit(0)  # killed before stop(): the server stays up with no one to stop it
"""


def _start_and_die(what: str) -> str:
    """The folder of a server started by a process that then died without stopping it."""
    started = subprocess.run(
        [sys.executable, "-c", STARTS_AND_DIES, what],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return started.stdout.strip()


def _postmaster_pid(root: str) -> int:
    return int(Path(root, "data", "postmaster.pid").read_text().splitlines()[0])


def _wait_until_exited(pid: int) -> None:
    """Blocks until ``pid`` has exited (a pidfd becomes readable then): no clock involved."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)


def test_it_stops_a_cluster_whose_starter_died_and_spares_a_live_one(pg_server: str) -> None:
    try:
        find_bindir()
    except ClusterUnavailable as exc:  # a given server (DESKD_TEST_PG_URL) without the programs
        pytest.skip(str(exc))
    orphan = _start_and_die("cluster")
    server = _postmaster_pid(orphan)
    assert Path(f"/proc/{server}").exists()  # left running by the dead run

    assert orphan in reap_orphans()

    assert not Path(orphan).exists()
    _wait_until_exited(server)  # returns only once the orphaned server is gone
    live = parse_qs(urlsplit(pg_server).query).get("host", [""])[0]
    if live.startswith("/"):  # the session's own cluster: its starter (this worker) lives
        assert Path(live, "data", "postmaster.pid").exists()


def test_it_stops_a_bouncer_whose_starter_died(tmp_path: Path) -> None:
    from harness.pgbouncer import BouncerUnavailable, find_pgbouncer
    from harness.pgbouncer import reap_orphans as reap_bouncers

    try:
        find_pgbouncer()
    except BouncerUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the pgbouncer tier is mandatory under CI=true: {exc}")
        pytest.skip(f"pgbouncer tier: {exc}")
    orphan = _start_and_die(str(tmp_path))  # no server behind it: it connects only when asked
    bouncer = int(Path(orphan, "pgbouncer.mark").read_text().split()[0])
    assert Path(f"/proc/{bouncer}").exists()  # left running by the dead run

    assert orphan in reap_bouncers()

    assert not Path(orphan).exists()
    _wait_until_exited(bouncer)
