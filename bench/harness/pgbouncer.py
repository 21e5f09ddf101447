"""A throwaway PgBouncer in front of a throwaway (or given) PostgreSQL, for tests and benches.

``Bouncer(server_socket_dir).start()`` runs Debian's ``pgbouncer`` in the foreground as a
child process, in a fresh temporary folder, listening only on a unix socket inside it (no
TCP port to collide on), in ``transaction`` pooling unless told otherwise: the mode people
run, and the one that breaks anything holding session state. As root it runs as
``postgres``, as the cluster does (PgBouncer refuses to run as root). A bouncer whose
starter was killed before ``stop()`` is stopped by the next ``start()`` (``reap_orphans``).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from harness.pgcluster import USER, claim, orphaned, process_mark

PORT = 6432
CHILD = "pgbouncer.mark"
"""The file in a bouncer's folder naming its pgbouncer process (pid and start time)."""


class BouncerUnavailable(Exception):
    pass


def find_pgbouncer() -> str:
    found = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if os.access("/usr/sbin/pgbouncer", os.X_OK) else None
    )
    if found is None:
        raise BouncerUnavailable("no pgbouncer program: apt-get install pgbouncer")
    return found


def reap_orphans() -> list[str]:
    """Stop every throwaway bouncer whose starter has exited and delete its folder; the
    folders reaped."""
    reaped = []
    for root in glob.glob(os.path.join(tempfile.gettempdir(), "deskd-bouncer-*")):
        if not orphaned(root):
            continue
        try:
            with open(os.path.join(root, CHILD)) as fh:
                child = fh.read().strip()
            if process_mark(int(child.split()[0])) == child:  # still that pgbouncer
                os.kill(int(child.split()[0]), signal.SIGTERM)
        except (OSError, ValueError):
            pass  # it never started, or is gone already
        shutil.rmtree(root, ignore_errors=True)
        reaped.append(root)
    return reaped


@dataclass
class Bouncer:
    server_socket_dir: str
    pool_mode: str = "transaction"
    pool_size: int = 10
    max_client_conn: int = 2000
    reserve_pool_size: int = 0
    query_wait_timeout: int = 120
    """PgBouncer's defaults; docs/operations.md's configuration sets 5 and 30."""
    root: str = ""
    _proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{USER}@/{dbname}?host={self.root}&port={PORT}"

    def start(self, *, ready_within_s: float = 60.0) -> Bouncer:
        program = find_pgbouncer()
        user = "postgres" if os.geteuid() == 0 else None
        reap_orphans()
        self.root = tempfile.mkdtemp(prefix="deskd-bouncer-")
        claim(self.root)
        if user is not None:
            shutil.chown(self.root, user=user)
        users = os.path.join(self.root, "users.txt")
        with open(users, "w", encoding="utf-8") as f:
            f.write(f'"{USER}" ""\n')
        config = os.path.join(self.root, "pgbouncer.ini")
        with open(config, "w", encoding="utf-8") as f:
            f.write(
                "[databases]\n"
                f"* = host={self.server_socket_dir} port=5432\n"
                "[pgbouncer]\n"
                "listen_addr =\n"
                f"listen_port = {PORT}\n"
                f"unix_socket_dir = {self.root}\n"
                "auth_type = trust\n"
                f"stats_users = {USER}\n"  # SHOW POOLS for the scale bench
                f"auth_file = {users}\n"
                f"pool_mode = {self.pool_mode}\n"
                f"default_pool_size = {self.pool_size}\n"
                f"max_client_conn = {self.max_client_conn}\n"
                f"reserve_pool_size = {self.reserve_pool_size}\n"
                f"query_wait_timeout = {self.query_wait_timeout}\n"
                "server_reset_query = DISCARD ALL\n"
                f"logfile = {os.path.join(self.root, 'pgbouncer.log')}\n"
            )
        for path in (users, config):
            if user is not None:
                shutil.chown(path, user=user)
        self._proc = subprocess.Popen(
            [program, config],
            user=user,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        mark = process_mark(self._proc.pid)
        if mark is not None:
            with open(os.path.join(self.root, CHILD), "w") as fh:
                fh.write(mark)
        socket = os.path.join(self.root, f".s.PGSQL.{PORT}")
        deadline = time.monotonic() + ready_within_s  # an outer bound: the event is the socket
        while not os.path.exists(socket):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                log = self.log()
                self.stop()
                raise BouncerUnavailable(f"pgbouncer did not start: {log[-300:]}")
            time.sleep(0.02)
        return self

    def log(self) -> str:
        try:
            with open(os.path.join(self.root, "pgbouncer.log"), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self.root:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = ""
