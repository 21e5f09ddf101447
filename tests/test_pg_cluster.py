"""A throwaway PostgreSQL cluster left running by a killed run is stopped by the next start.

The suite's clusters are stopped when the test session ends; a run killed first (a CI
timeout, ``kill -9``) cannot stop its own, so ``bench/harness/pgcluster.py`` heals the leak at
the next start instead: a cluster whose starter has exited is stopped and deleted, and one
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

START_AND_DIE = """
import os, sys
sys.path.insert(0, "bench")
from harness.pgcluster import Cluster
print(Cluster().start().root, flush=True)
os._exit(0)  # killed before stop(): the server stays up with no one to stop it
"""


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
    started = subprocess.run(
        [sys.executable, "-c", START_AND_DIE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    orphan = started.stdout.strip()
    server = _postmaster_pid(orphan)
    assert Path(f"/proc/{server}").exists()  # left running by the dead run

    assert orphan in reap_orphans()

    assert not Path(orphan).exists()
    _wait_until_exited(server)  # returns only once the orphaned server is gone
    live = parse_qs(urlsplit(pg_server).query).get("host", [""])[0]
    if live.startswith("/"):  # the session's own cluster: its starter (this worker) lives
        assert Path(live, "data", "postmaster.pid").exists()
