"""A throwaway PostgreSQL cluster for the tests, the bench and trying a multi-host desk locally.

``Cluster.start()`` runs Debian's (or any) ``initdb``/``pg_ctl`` in a fresh temporary folder,
listening only on a unix socket inside that folder (no TCP port to collide on, nothing
reachable from another machine), trust authentication for one superuser ``deskd``, fsync off
(the data is thrown away). The server refuses to run as root, so as root the folder is
handed to the ``postgres`` system user and the programs run as that user. ``stop()`` shuts
the server down and deletes the folder. Stdlib only: psycopg is not needed to start one.
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


@dataclass
class Cluster:
    root: str = ""
    bindir: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    """Server settings for the start (``{"max_connections": "40"}``)."""
    _user: str | None = field(default=None, repr=False)

    @property
    def socket_dir(self) -> str:
        return self.root

    def url(self, dbname: str = "postgres") -> str:
        """A libpq URL for ``dbname`` over the cluster's unix socket."""
        return f"postgresql://{USER}@/{dbname}?host={self.root}"

    def start(self) -> Cluster:
        self.bindir = self.bindir or find_bindir()
        self._user = "postgres" if os.geteuid() == 0 else None
        self.root = tempfile.mkdtemp(prefix="deskd-pg-")
        data = os.path.join(self.root, "data")
        if self._user is not None:
            shutil.chown(self.root, user=self._user)
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
                user=self._user,
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
