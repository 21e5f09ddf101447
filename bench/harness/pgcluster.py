"""A throwaway PostgreSQL cluster for the tests, the bench and trying a multi-host desk locally.

``Cluster.start()`` runs Debian's (or any) ``initdb``/``pg_ctl`` in a fresh temporary folder,
listening only on a unix socket inside that folder (no TCP port to collide on, nothing
reachable from another machine), trust authentication for one superuser ``deskd``, fsync off
(the data is thrown away). The server refuses to run as root, so as root the folder is
handed to the ``postgres`` system user and the programs run as that user. ``stop()`` shuts
the server down and deletes the folder. Stdlib only: psycopg is not needed to start one.

A run killed before its ``stop()`` (a CI timeout, ``kill -9``) leaves its server running:
each cluster's folder names the process that started it (``claim``), and every ``start()``
first stops and deletes the clusters whose starter is gone (``reap_orphans``), so the next
run heals the leak. harness/pgbouncer.py does the same for its bouncers.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

USER = "deskd"
OWNER = "owner"
"""The file in a cluster's folder naming the process that started it (see ``process_mark``)."""


class ClusterUnavailable(Exception):
    """No PostgreSQL server programs here, or the server would not start (the reason says)."""


def find_bindir() -> str:
    """The folder holding ``initdb`` and ``pg_ctl``: ``$PG_BINDIR``, Debian's layout, or PATH."""
    env = os.environ.get("PG_BINDIR")
    candidates = [env] if env else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if folder and os.access(os.path.join(folder, "initdb"), os.X_OK):
            return folder
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(found)
    raise ClusterUnavailable(
        "no PostgreSQL server programs (initdb) found: apt-get install postgresql, or set PG_BINDIR"
    )


def process_mark(pid: int) -> str | None:
    """A process's pid and start time (``/proc``), so a reused pid is not taken for it; None
    when there is no such process (or no ``/proc`` to ask)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            after_name = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return f"{pid} {after_name[19]}"  # field 22 of stat(5), counting from the state (field 3)


def _server_user() -> str | None:
    """The server refuses to run as root: as root, its programs run as ``postgres``."""
    return "postgres" if os.geteuid() == 0 else None


def claim(root: str) -> None:
    """Name this process as the starter of the throwaway folder ``root`` (see ``orphaned``)."""
    mark = process_mark(os.getpid())
    if mark is not None:
        with open(os.path.join(root, OWNER), "w") as fh:
            fh.write(mark)


def orphaned(root: str) -> bool:
    """Whether ``root``'s starter has exited (False while it lives, or when none is named:
    the folder is still being made, or is not ours to judge)."""
    try:
        with open(os.path.join(root, OWNER)) as fh:
            owner = fh.read().strip()
    except OSError:
        return False
    return process_mark(int(owner.split()[0])) != owner


def reap_orphans() -> list[str]:
    """Stop and delete every throwaway cluster whose starter has exited; the folders reaped."""
    reaped = []
    for root in glob.glob(os.path.join(tempfile.gettempdir(), "deskd-pg-*")):
        if not orphaned(root):
            continue
        try:
            Cluster(root=root, bindir=find_bindir()).stop()
        except ClusterUnavailable:
            continue  # another run is reaping it at the same moment
        reaped.append(root)
    return reaped


@dataclass
class Cluster:
    root: str = ""
    bindir: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    """Server settings for the start (``{"max_connections": "40"}``)."""

    @property
    def socket_dir(self) -> str:
        return self.root

    def url(self, dbname: str = "postgres") -> str:
        """A libpq URL for ``dbname`` over the cluster's unix socket."""
        return f"postgresql://{USER}@/{dbname}?host={self.root}"

    def start(self) -> Cluster:
        self.bindir = self.bindir or find_bindir()
        reap_orphans()
        self.root = tempfile.mkdtemp(prefix="deskd-pg-")
        data = os.path.join(self.root, "data")
        claim(self.root)
        if _server_user() is not None:
            shutil.chown(self.root, user=_server_user())
        try:
            self._run("initdb", "-D", data, "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync")
            options = f"-k {self.root} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
            options += "".join(f" -c {k}={v}" for k, v in self.settings.items())
            log = os.path.join(self.root, "server.log")
            self._run("pg_ctl", "-D", data, "-l", log, "-o", options, "-w", "-t", "30", "start")
        except ClusterUnavailable:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        return self

    def stop(self) -> None:
        if not self.root:
            return
        data = os.path.join(self.root, "data")
        try:
            if os.path.exists(os.path.join(data, "postmaster.pid")):
                self._run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = ""

    def _run(self, program: str, *args: str) -> None:
        argv = [os.path.join(self.bindir, program), *args]
        try:
            subprocess.run(
                argv,
                check=True,
                capture_output=True,
                text=True,
                user=_server_user(),
                cwd=self.root,
                timeout=300,  # a bound for a hang: initdb takes over a minute on a loaded box
            )
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", None) or str(exc)
            raise ClusterUnavailable(f"{program} failed: {detail.strip()[-300:]}") from None


@contextmanager
def server(url: str | None = None) -> Iterator[str]:
    """An admin URL for the block: ``url`` when one is given (a server someone runs, e.g.
    ``DESKD_BENCH_PG_URL``), else a throwaway cluster started now and stopped after it."""
    if url:
        yield url
        return
    cluster = Cluster().start()
    try:
        yield cluster.url()
    finally:
        cluster.stop()
