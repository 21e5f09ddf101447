"""Hook writes a second on PostgreSQL at a 1 ms round trip, with 1/4/16/64 concurrent streams.

Each stream is one role's session hook write (``deskd.hook.surface``, in a process of its
own as each agent's hook is, on a connection of its own): the heartbeat and what the role
has not been shown, in one transaction. The streams reach a throwaway cluster (or
``DESKD_BENCH_PG_URL``'s server through its unix socket) through ``DelayProxy``: a loopback TCP
proxy holding each chunk 0.5 ms each way (``tc netem`` is not in every kernel), so every
round trip costs what one to a nearby database server does (in a process of its own: it
costs the streams no interpreter lock; its own CPU is printed, see harness/delay_proxy.py).

``--lock desk`` runs the same calls as the whole desk's one writer (the write lock deskd took
for every write transaction before the hook's named its role), ``--lock role`` as they run now.
``--via relay`` sends each call as the hook does to a ``deskd relay`` (its default connections)
instead of writing it in-process (``direct``). Printed: calls a second, p50 and p99 latency,
failures, the round trips a call made (counted by the proxy), the CPU a call cost the
streams, the relay, the server (its postmaster and backends) and the proxy (from ``/proc``),
how many of the machine's cores were busy over the run (every process, the bench's or not),
and the load average, per stream count.

    .venv/bin/python bench/hook_streams.py [--seconds 10] [--streams 1 4 16 64] \
        [--lock role desk] [--via direct relay] [--relay-connections N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.delay_proxy import DelayProxy
from harness.pgcluster import server

from deskd import hook
from deskd.store import db as store_db

NOW_MS = 1_796_140_800_000  # 2026-12-01T14:00:00Z
DELAY_S = 0.0005
"""Each chunk is held this long each way: a 1 ms round trip."""


class Delayed:
    """A database behind the proxy: its ``url``, the ``proxy``, the server's postmaster pid
    (None when the server is not ours to read: its CPU is then not counted)."""

    def __init__(self, url: str, proxy: DelayProxy, server_pid: int | None) -> None:
        self.url, self.proxy, self.server_pid = url, proxy, server_pid


@contextlib.contextmanager
def delayed_database(name: str) -> Iterator[Delayed]:
    """A fresh database ``name`` on a throwaway cluster (or ``DESKD_BENCH_PG_URL``'s server),
    reached through a ``DelayProxy``."""
    import psycopg

    with server(os.environ.get("DESKD_BENCH_PG_URL")) as admin:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
            try:  # the postmaster's pid, first in its pid file (a superuser's read)
                text = conn.execute("SELECT pg_read_file('postmaster.pid')").fetchone()
                pid: int | None = int(text[0].split()[0]) if text else None
            except psycopg.Error:
                pid = None
        folder = admin.split("host=", 1)[1].split("&", 1)[0]
        proxy = DelayProxy(os.path.join(folder, ".s.PGSQL.5432"), DELAY_S)
        try:
            yield Delayed(f"postgresql://deskd@127.0.0.1:{proxy.port}/{name}", proxy, pid)
        finally:
            proxy.close()


def tree_cpu_ms(pid: int) -> tuple[float, int]:
    """CPU a process, its live children and the children it has reaped used so far, and
    how many children it has: the server's, from its postmaster (a backend is a child)."""

    def stat(p: str) -> list[str]:
        return Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()

    ticks, children = sum(int(t) for t in stat(str(pid))[11:15]), 0  # utime … cstime
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError, IndexError):
            if entry.isdigit() and int((fields := stat(entry))[1]) == pid:
                ticks, children = ticks + int(fields[11]) + int(fields[12]), children + 1
    return ticks * 1000 / os.sysconf("SC_CLK_TCK"), children


def settled_cpu_ms(pid: int, children: int) -> float:
    """``tree_cpu_ms`` once the run's backends have exited and their CPU shows in the
    postmaster's reaped total (a reaped backend leaves ``/proc`` some milliseconds before its
    CPU shows there: a read in between missed it); within 5 s."""
    deadline, last = time.monotonic() + 5, None
    while (got := tree_cpu_ms(pid)) != last or got[1] > children:
        if time.monotonic() > deadline:
            break
        last = got
        time.sleep(0.05)
    return got[0]


def busy_cores() -> tuple[float, float]:
    """The machine's busy and total CPU time so far (seconds, every core: ``/proc/stat``)."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / hz, sum(ticks) / hz


def make_desk(home: Path, url: str, roles: int) -> dict[str, str]:
    from deskd.service.desk.context import open_context

    toml = ['[desk]\ntimezone = "UTC"\n'] + [
        f'[[roles]]\nname = "r{i:02d}"\n' for i in range(roles)
    ]
    (home / "deskd.toml").write_text("\n".join(toml))
    env = {"DESKD_HOME": str(home), "DESKD_DB": url, "DESKD_NOW": "2026-12-01T14:00:00Z"}
    os.environ.update(env)
    ctx = open_context()
    with ctx.write():  # the roles synced
        pass
    ctx.close()
    return env


@contextlib.contextmanager
def desk_wide(on: bool) -> Iterator[None]:
    """``transaction`` as before hooks named their role: every write the desk's one writer."""
    plain = store_db.transaction
    if on:
        store_db.transaction = lambda conn, role=None, notify=True: plain(conn, notify=notify)  # type: ignore[assignment]
    try:
        yield
    finally:
        store_db.transaction = plain


def call_for(url: str, env: dict[str, str], via: str) -> Callable[[Any, int], None]:
    """One hook call of stream ``n`` (``conn``: the stream's own connection, when direct)."""
    run_dir = os.path.join(env["DESKD_HOME"], "run")

    def call(conn: Any, n: int) -> None:
        role, session = f"r{n:02d}", f"3f1c9a7e-5b2d-4c8e-9a61-0d2e7b4f{n:04d}"
        payload = {"hook_event_name": "PostToolUse", "session_id": session, "tool_name": "Bash"}
        if via == "relay":
            if not hook.relayed(run_dir, payload, event="PostToolUse", role=role, now=NOW_MS,
                                env={**env, "DESKD_ROLE": role}, db=url):  # fmt: skip
                raise RuntimeError("refused by the relay")
            return
        hook.surface(conn, payload, event="PostToolUse", role=role, native=session,
                     now=NOW_MS, env=env, out=lambda *_: None, note=lambda _: None)  # fmt: skip

    return call


@contextlib.contextmanager
def relay_running(
    env: dict[str, str], on: bool, connections: int | None = None
) -> Iterator[int | None]:
    """The relay's pid while it serves (None when ``on`` is false)."""
    from deskd.relay.server import answering, stop

    if not on:
        yield None
        return
    run_dir = os.path.join(env["DESKD_HOME"], "run")
    relay_env = {k: v for k, v in {**os.environ, **env}.items() if k != "DESKD_NOW"}
    size = [] if connections is None else ["--connections", str(connections)]
    proc = subprocess.Popen([sys.executable, "-m", "deskd", "relay", *size], env=relay_env)
    try:
        while not answering(run_dir):
            if proc.poll() is not None:
                raise SystemExit("the relay did not start")
            time.sleep(0.05)
        yield proc.pid
    finally:
        stop(run_dir)
        proc.wait()


def run(
    db: Delayed, env: dict[str, str], streams: int, seconds: float, via: str, relay: int | None
) -> dict[str, float]:
    """Each stream in a process of its own, as each agent's hook is (forked: it keeps the
    desk's environment and ``desk_wide``'s patch): no interpreter lock shared between them."""
    import multiprocessing

    stop = time.monotonic() + seconds
    call = call_for(db.url, env, via)
    answers: Any = multiprocessing.get_context("fork").SimpleQueue()

    def stream(n: int) -> None:
        conn = store_db.connect(db.url, busy_ms=hook.BUSY_MS, create=False)
        mine: list[float] = []
        failed = 0
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                call(conn, n)
            except Exception:
                failed += 1
                continue
            mine.append(time.perf_counter() - started)
        conn.close()
        answers.put((mine, failed, time.process_time()))

    procs = [
        multiprocessing.get_context("fork").Process(target=stream, args=(n,))
        for n in range(streams)
    ]
    # Every process's CPU over the run: the relay, the server, the proxy, the machine.
    pids = {"relay": relay, "server": db.server_pid, "proxy": db.proxy.proc.pid}
    before = {k: tree_cpu_ms(pid) for k, pid in pids.items() if pid}
    cpu = {k: ms for k, (ms, _) in before.items()}
    machine, trips = busy_cores(), db.proxy.round_trips()
    for proc in procs:
        proc.start()
    latencies: list[float] = []
    failures = 0
    cpu["streams"] = 0.0
    for _ in procs:
        mine, failed, cpu_s = answers.get()
        latencies.extend(mine)
        failures += failed
        cpu["streams"] += cpu_s * 1000
    for proc in procs:
        proc.join()
    cpu.update({k: settled_cpu_ms(pid, before[k][1]) - cpu[k] for k, pid in pids.items() if pid})
    busy, total = (end - start for end, start in zip(busy_cores(), machine, strict=True))
    latencies.sort()

    def pct(p: float) -> float:
        if not latencies:  # no call answered in the run (a machine too loaded to connect)
            return float("nan")
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    calls = max(1, len(latencies))
    return {
        "per_s": len(latencies) / seconds,
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "failures": failures,
        "trips": (db.proxy.round_trips() - trips) / calls,
        **{
            f"{k}_ms": cpu.get(k, float("nan")) / calls
            for k in ("streams", "relay", "server", "proxy")
        },
        "cores": busy / total * (os.cpu_count() or 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--streams", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--lock", nargs="+", choices=("role", "desk"), default=["role", "desk"])
    parser.add_argument("--via", nargs="+", choices=("direct", "relay"), default=["direct"])
    parser.add_argument(
        "--relay-connections", type=int, help="the relay's connections (its default)"
    )
    args = parser.parse_args()
    with delayed_database("bench_streams") as db, tempfile.TemporaryDirectory() as tmp:
        env = make_desk(Path(tmp), db.url, max(args.streams))
        print(
            "| via | lock | streams | hooks/s | p50 ms | p99 ms | failures | round trips a call "
            "| CPU ms a call: streams, relay, server, proxy | cores busy | load average |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for via, lock in [(v, k) for v in args.via for k in args.lock]:
            if via == "relay" and lock == "desk":
                continue  # the relay's writers run the code as it is: no desk-wide variant
            relay = relay_running(env, via == "relay", args.relay_connections)
            with relay as pid, desk_wide(lock == "desk"):
                for streams in args.streams:
                    got = run(db, env, streams, args.seconds, via, pid)
                    load = " / ".join(f"{n:.0f}" for n in os.getloadavg())
                    cpu = ", ".join(
                        f"{got[k + '_ms']:.2f}" for k in ("streams", "relay", "server", "proxy")
                    )
                    print(
                        f"| {via} | {lock} | {streams} | {got['per_s']:.0f} | {got['p50_ms']:.1f} "
                        f"| {got['p99_ms']:.1f} | {got['failures']:.0f} | {got['trips']:.1f} "
                        f"| {cpu} | {got['cores']:.2f} | {load} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
