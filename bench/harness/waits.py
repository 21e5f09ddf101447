"""What a hook of the scale bench can wait for, sampled every second while a wave runs
(``Waits``): server sessions waiting on a lock and open transactions (``pg_stat_activity``),
the pooler's queue (``SHOW POOLS``) and each host's relay counters."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

OBSERVER = "deskd-scale-observer"
"""The bench's own connections: not counted in the peak."""


class Waits(threading.Thread):
    """Samples, every second, what a hook can wait for: server sessions waiting on a lock
    (``pg_stat_activity``, by wait event), the oldest open transaction, the pooler's queue
    (``SHOW POOLS``: clients waiting, the longest wait) and each host's relay counters."""

    def __init__(self, direct: str, homes: list[Path], bouncer: str | None) -> None:
        super().__init__(daemon=True)
        self.direct, self.homes, self.bouncer = direct, homes, bouncer
        self.peaks: dict[str, Any] = {}
        self.relays: dict[str, Any] = {}
        self.sums: dict[str, float] = {}
        self.samples = 0
        self.seen: dict[str, int] = {}
        """What sessions in a long transaction or waiting on a lock were running, by samples."""
        self.timeline: list[dict[str, float]] = []
        self.stopping = threading.Event()

    def keep(self, key: str, value: float) -> None:
        self.peaks[key] = max(self.peaks.get(key, 0), value)

    def count(self, what: str) -> None:
        self.seen[what] = self.seen.get(what, 0) + 1

    def summary(self) -> dict[str, Any]:
        means = {k: round(v / max(1, self.samples), 1) for k, v in self.sums.items()}
        top = sorted(self.seen.items(), key=lambda kv: -kv[1])[:12]
        return {
            "peaks": self.peaks,
            "means": means,
            "seen": dict(top),
            "relays": self.relays,
            "timeline": self.timeline,
        }

    def run(self) -> None:
        import psycopg

        server = psycopg.connect(self.direct, autocommit=True, application_name=OBSERVER)
        pooler = (
            psycopg.connect(self.bouncer, autocommit=True, cursor_factory=psycopg.ClientCursor)
            if self.bouncer
            else None
        )
        started = time.monotonic()
        with server:
            while not self.stopping.wait(1.0):
                sample: dict[str, float] = {}
                for kind, state, age_ms, query in server.execute(
                    "SELECT coalesce(wait_event_type || ':' || wait_event, ''), state, "
                    "coalesce(extract(epoch FROM now() - xact_start) * 1000, 0), "
                    "left(regexp_replace(query, '\\s+', ' ', 'g'), 70) FROM pg_stat_activity "
                    "WHERE datname = 'desk' AND application_name <> %s",
                    (OBSERVER,),
                ).fetchall():
                    idle = kind in ("", "Client:ClientRead")  # waiting for its client
                    key = f"server {state if idle else kind}"
                    sample[key] = sample.get(key, 0) + 1
                    self.keep("oldest transaction ms", round(float(age_ms)))
                    if kind.startswith("Lock"):
                        self.count(f"waiting on a lock: {query}")
                    elif state != "idle" and float(age_ms) > 1000:
                        self.count(f"in a transaction over 1 s ({state}): {query}")
                if pooler is not None:
                    cur = pooler.execute("SHOW POOLS")
                    names = [c.name for c in cur.description or ()]
                    for row in cur.fetchall():
                        pool = dict(zip(names, row, strict=True))
                        if pool["database"] == "desk":
                            sample["pooler cl_waiting"] = int(pool["cl_waiting"])
                            sample["pooler sv_active"] = int(pool["sv_active"])
                            wait_ms = pool["maxwait"] * 1000 + pool["maxwait_us"] / 1000
                            self.keep("pooler maxwait ms", round(wait_ms))
                for h, home in enumerate(self.homes):
                    status = relay_status(home / "run")
                    if status is not None:
                        self.relays[f"h{h}"] = status
                        sample[f"relay h{h} waiting"] = int(status.get("waiting", 0))
                for key, value in sample.items():
                    self.keep(key, value)
                    self.sums[key] = self.sums.get(key, 0) + value
                self.samples += 1
                if self.samples % 5 == 1:
                    self.timeline.append({"s": round(time.monotonic() - started), **sample})
        if pooler is not None:
            pooler.close()


def relay_status(run: Path) -> dict[str, Any] | None:
    """A relay's counters (``{"status": true}`` on its socket), or None when none answers."""
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5.0)
            sock.connect(str(run / "relay.sock"))
            sock.sendall(b'{"status": true}\n')
            with sock.makefile("rb") as reader:
                answer = json.loads(reader.readline() or b"null")
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None
