"""The console's change cue on PostgreSQL: one ``LISTEN`` connection per console process, on
this desk's channel, shared by every viewer (each reads a counter in memory, so viewers cost
the server nothing per second).

Who notifies: every write transaction (ticks, commands, executors; ``pg.begin``), in the
transaction, so a rolled-back write says nothing; but the session hook's: a transaction that
notifies takes a server-wide lock at commit, which would put every tool call of every desk on
the cluster in one line again. What a hook writes shows at the next other write.

Behind a pooler (PgBouncer in transaction pooling hands the server connection to another
client after each statement, and a notification with it) the listener cannot listen: it
reads the server's write-ahead log position once a second instead, still once for all viewers.
"""

from __future__ import annotations

import threading

from deskd.store.pg import CHANNEL, PgConnection, open_pg

RECONNECT_S = 2.0
BUSY_MS = 2000
POLL_S = 1.0
"""Behind a pooler: how often the one reader looks at the write-ahead log position."""


class ChangeListener:
    """A thread blocked on the desk's channel; ``count`` moves on every notification, and on
    every reconnect (what was said while away is lost, so a reconnect counts as a change)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.count = 0
        self._stop = threading.Event()
        self._conn = self._listen()  # the first LISTEN before any mark is read: none missed
        self._thread = threading.Thread(target=self._run, name="deskd-listen", daemon=True)
        self._thread.start()

    def _listen(self) -> PgConnection:
        conn = open_pg(self.url, busy_ms=BUSY_MS)
        try:
            pid = conn.raw_execute("SELECT pg_backend_pid()").fetchone()[0]
            self.pooled = pid != conn.raw.info.backend_pid  # as ``pg_probe`` tells a pooler
            if not self.pooled:
                conn.raw_execute(f"DO $$ BEGIN EXECUTE format('LISTEN %I', {CHANNEL}); END $$")
        except BaseException:
            conn.close()
            raise
        return conn

    def _run(self) -> None:
        conn: PgConnection | None = self._conn
        wal = None
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = self._listen()
                    self.count += 1
                if not self.pooled:
                    for _ in conn.raw.notifies(timeout=RECONNECT_S):
                        self.count += 1
                elif not self._stop.wait(POLL_S):
                    was, wal = wal, conn.raw_execute("SELECT pg_current_wal_lsn()").fetchone()
                    self.count += was != wal
            except Exception:  # the server went away: try again shortly
                if conn is not None:
                    conn.close()
                conn = None
                self._stop.wait(RECONNECT_S)
        if conn is not None:
            conn.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


_listeners: dict[str, ChangeListener] = {}
_lock = threading.Lock()


def changes(url: str) -> int:
    """How many times this desk said it changed since this process began listening."""
    with _lock:
        if url not in _listeners:
            _listeners[url] = ChangeListener(url)
    return _listeners[url].count


def stop_listening() -> None:
    """End every listener of this process (a test's desk; a console lives until it exits)."""
    with _lock:
        for listener in _listeners.values():
            listener.stop()
        _listeners.clear()
