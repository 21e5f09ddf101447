"""A desk of many roles on several simulated hosts, on one PostgreSQL, for the scale bench.

``run(Scale(...))`` starts a throwaway cluster (with ``max_connections`` as given), optionally
a PgBouncer in front of it, and a desk folder per host (every host's processes get their own
``DESKD_HOST_NAME``), with ``roles`` roles bound to the hosts in turn and served by the
simulated ``claude -p`` in its ``long`` mode (a run of several tool calls a few seconds
apart, each calling the session hook). Every role gets one urgent item; each host ticks
every ``tick_every_s`` (``deskd tick --execute``) until every launch has ended; meanwhile
each host runs ``deskd status`` and ``deskd inbox enqueue`` now and then, as people and
scripts would. It reports what a desk of that size needs to hold: launches, duplicates,
refused commands, hook failures, the peak of server connections, and tick and hook times.

The real clock runs here (agents take real time), not a pinned one. It runs past 400 lines
because the wave, its samplers (the peak of server connections and what they were then) and
its report are read together.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.waits import OBSERVER, Waits

SEED = """
import sys
from deskd.service.desk.context import open_context
from deskd.service.desk.inbox import enqueue
from deskd.service.desk.inbox import NewItem

ctx = open_context()
for i in range(int(sys.argv[1])):
    item = NewItem(role=f"r{i:04d}", source="alert", title=f"wake {i}", priority="urgent")
    enqueue(ctx, item)
ctx.close()
"""
"""Every role's urgent item, through the service layer (what ``inbox enqueue`` calls)."""


@dataclass(frozen=True)
class Scale:
    hosts: int = 3
    roles: int = 50
    max_connections: int = 40
    pooler: str = "none"
    """``none`` (straight to the server) or a PgBouncer pool mode: ``transaction``."""
    pool_size: int = 20
    reserve_pool_size: int = 0
    query_wait_timeout: int = 120
    """PgBouncer's own defaults; ``bench/scale.py`` passes docs/operations.md's (5 and 30)."""
    tools: int = 4
    tool_every_s: float = 5.0
    tick_every_s: float = 10.0
    give_up_s: float = 900.0
    server_nice: int = 0
    """The server's and the pooler's nice value: below 0 they run ahead of the simulated
    hosts' processes, as on a machine of their own (one machine plays every part here)."""
    executor_connections: str = ""
    """Each host's ``DESKD_EXECUTOR_CONNECTIONS`` (empty: deskd's default)."""


@dataclass
class Report:
    scale: dict[str, Any]
    launches: int = 0
    roles_run: int = 0
    duplicates: int = 0
    refused: int = 0
    refusals: list[str] = field(default_factory=list)
    hook_failures: int = 0
    hook_samples: list[str] = field(default_factory=list)
    peak_connections: int = 0
    tick_ms_p50: float = 0.0
    tick_ms_p99: float = 0.0
    hook_ms_p50: float = 0.0
    hook_ms_p99: float = 0.0
    seconds: float = 0.0
    relays: int = 0
    """Hosts whose tick started the session-hook relay (stopped at the end)."""
    peak_running: int = 0
    """The most launches running at once (polled every 2 s)."""
    waits: dict[str, Any] = field(default_factory=dict)
    """Where a hook's time went (``_Waits``): the peaks of the server's lock waits and
    transaction ages, the pooler's queue, and the relays' last counters."""
    hook_failure_kinds: dict[str, int] = field(default_factory=dict)
    """The hook log's lines by what they say (times, pids and roles left out)."""


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def _nice(pid: int, value: int) -> None:
    if value:
        os.setpriority(os.PRIO_PROCESS, pid, value)


@contextmanager
def _database(scale: Scale) -> Iterator[tuple[str, str]]:
    """(the URL deskd uses, a direct admin URL for the observer)."""
    from harness.pgbouncer import Bouncer
    from harness.pgcluster import Cluster

    cluster = Cluster(settings={"max_connections": str(scale.max_connections)}).start()
    with open(os.path.join(cluster.root, "data", "postmaster.pid")) as fh:
        _nice(int(fh.readline()), scale.server_nice)  # its backends, forked later, inherit it
    bouncer = None
    try:
        import psycopg

        with psycopg.connect(cluster.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE desk")
        direct = cluster.url("desk")
        if scale.pooler != "none":
            bouncer = Bouncer(
                cluster.socket_dir,
                pool_mode=scale.pooler,
                pool_size=scale.pool_size,
                reserve_pool_size=scale.reserve_pool_size,
                query_wait_timeout=scale.query_wait_timeout,
            ).start()
            assert bouncer._proc is not None
            _nice(bouncer._proc.pid, scale.server_nice)
            yield bouncer.url("desk"), direct
        else:
            yield direct, direct
    finally:
        if bouncer is not None:
            bouncer.stop()
        cluster.stop()


@dataclass
class Hosts:
    """Desk folders of simulated hosts on one PostgreSQL desk, each its own ``DESKD_HOST_NAME``."""

    base: Path
    """The temporary folder holding them (and the hook timings, when asked for)."""
    homes: list[Path]
    url: str
    """The URL deskd uses (through the pooler when there is one)."""
    direct: str
    """A direct URL to the desk's database, for the bench's own queries."""
    extra_env: dict[str, str]

    def env(self, h: int) -> dict[str, str]:
        out = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
        out.update(DESKD_HOME=str(self.homes[h]), DESKD_DB=self.url, DESKD_HOST_NAME=f"h{h}")
        out.update(self.extra_env)
        return out

    def deskd(self, h: int, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "deskd", *args],
            env=self.env(h),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def stop_relays(self) -> int:
        """Stop each host's relay (an executing tick starts one on a PostgreSQL desk); how
        many ran."""
        from deskd.relay.server import stop

        return sum(stop(str(home / "run")) is not None for home in self.homes)


@contextmanager
def hosts(
    scale: Scale,
    name: str,
    roles: Sequence[tuple[str, str | None]],
    sim_env: dict[str, str],
    *,
    root: Path | None = None,
    extra_env: dict[str, str] | None = None,
    timings: bool = False,
) -> Iterator[Hosts]:
    """``scale.hosts`` desk folders on a throwaway database (see ``_database``), with
    ``roles`` (name, bound host or None) served by the simulated ``claude -p`` in ``long``
    mode (``sim_env`` adds its settings; ``timings`` has it log each hook call's time to
    ``base/hooks.jsonl``). The desk's schema is set up before the block."""
    from deskd.sim.agent import write_launcher

    with (
        # An agent's process may still be writing its log as the wave ends: the folder goes
        # as far as it can, and the report is not lost to it.
        tempfile.TemporaryDirectory(
            prefix=f"deskd-{name}-", dir=root, ignore_cleanup_errors=True
        ) as tmp,
        _database(scale) as (url, direct),
    ):
        base = Path(tmp)
        sim_env = {"DESKD_SIM_MODE": "long", **sim_env}
        if timings:
            sim_env["DESKD_SIM_TIMINGS"] = str(base / "hooks.jsonl")
        agent = write_launcher(base / "claude", sim_env)
        listed = "".join(
            f'\n[[roles]]\nname = "{role}"\n' + (f'host = "{host}"\n' if host else "")
            for role, host in roles
        )
        toml = (
            f'[desk]\nname = "{name}"\ntimezone = "UTC"\ninbox_sources = ["alert"]\n\n'
            f'[agent]\nkind = "claude"\ncommand = "{agent}"\ntimeout = "30m"\n{listed}'
        )
        homes = []
        for h in range(scale.hosts):
            home = base / f"h{h}"
            home.mkdir()
            (home / "deskd.toml").write_text(toml, encoding="utf-8")
            homes.append(home)
        desk = Hosts(base, homes, url, direct, extra_env or {})
        first = desk.deskd(0, "inbox", "list", "--for", roles[0][0], "--json")  # the schema
        if first.returncode != 0:
            raise RuntimeError(f"the desk did not open: {first.stderr.strip()}")
        yield desk


class _Peak(threading.Thread):
    """The most server connections to the desk's database seen at once (polled), and what
    they were then: by state, age (``old``: opened over 10 s before) and last statement."""

    def __init__(self, direct: str) -> None:
        super().__init__(daemon=True)
        self.direct, self.peak = direct, 0
        self.at_peak: Counter[str] = Counter()
        self.stopping = threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.direct, autocommit=True, application_name=OBSERVER) as conn:
            while not self.stopping.wait(0.2):
                rows = conn.execute(
                    "SELECT state, left(regexp_replace(query, '\\s+', ' ', 'g'), 50), "
                    "now() - backend_start > interval '10 seconds' FROM pg_stat_activity "
                    "WHERE datname = 'desk' AND application_name <> %s",
                    (OBSERVER,),
                ).fetchall()
                if len(rows) > self.peak:
                    self.peak = len(rows)
                    self.at_peak = Counter(
                        f"{s} | {'old' if o else 'new'} | {q}" for s, q, o in rows
                    )


def run(scale: Scale, *, root: Path | None = None) -> Report:
    """One wave: every role woken at once, until every launch ended (or ``give_up_s``)."""
    report = Report(scale=asdict(scale))
    roles = [(f"r{i:04d}", f"h{i % scale.hosts}") for i in range(scale.roles)]
    sim_env = {"DESKD_SIM_TOOLS": str(scale.tools), "DESKD_SIM_TOOL_EVERY": str(scale.tool_every_s)}
    execute = {"DESKD_WAKE_EXECUTE": "1"}
    if scale.executor_connections:
        execute["DESKD_EXECUTOR_CONNECTIONS"] = scale.executor_connections
    with hosts(scale, "scale", roles, sim_env, root=root, extra_env=execute, timings=True) as desk:
        # Every role's urgent item from one process (a process per item is minutes here).
        seed = subprocess.run(
            [sys.executable, "-c", SEED, str(scale.roles)],
            env=desk.env(0),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if seed.returncode != 0:
            raise RuntimeError(f"enqueue failed: {seed.stderr.strip()[-300:]}")
        peak = _Peak(desk.direct)
        peak.start()
        pooler = desk.url.replace("/desk?", "/pgbouncer?") if scale.pooler != "none" else None
        waits = Waits(desk.direct, desk.homes, pooler)
        waits.start()
        started = time.monotonic()
        tick_ms: list[float] = []
        lock = threading.Lock()

        def refused(what: str, done: subprocess.CompletedProcess[str]) -> None:
            with lock:
                report.refused += 1
                if len(report.refusals) < 10:
                    report.refusals.append(f"{what}: {done.stderr.strip()[-200:]}")

        def host_loop(h: int, stop: threading.Event) -> None:
            n = 0
            while not stop.is_set():
                t0 = time.monotonic()
                done = desk.deskd(h, "tick", "--execute", "--json")
                with lock:
                    tick_ms.append((time.monotonic() - t0) * 1000)
                if done.returncode != 0:
                    refused(f"h{h} tick", done)
                n += 1
                side = (
                    desk.deskd(h, "status", "--json")
                    if n % 2
                    else desk.deskd(
                        h,
                        "inbox",
                        "enqueue",
                        "--for",
                        f"r{h:04d}",
                        "--source",
                        "alert",
                        "--title",
                        f"later {n}",
                    )
                )
                if side.returncode != 0:
                    refused(f"h{h} {'status' if n % 2 else 'enqueue'}", side)
                stop.wait(max(0.0, scale.tick_every_s - (time.monotonic() - t0)))

        stop = threading.Event()
        loops = [threading.Thread(target=host_loop, args=(h, stop)) for h in range(scale.hosts)]
        for t in loops:
            t.start()
        import psycopg

        try:
            with psycopg.connect(desk.direct, autocommit=True, application_name=OBSERVER) as watch:
                while time.monotonic() - started < scale.give_up_s:
                    time.sleep(0.25)  # one cheap query: the wave's end is seen at once
                    row = watch.execute(
                        "SELECT count(*) FILTER (WHERE launch_status IN ('planned', 'running')), "
                        "count(*) FILTER (WHERE launch_status = 'running'), "
                        "count(DISTINCT role) FILTER (WHERE "
                        "launch_status IN ('finished', 'failed', 'timed_out')) FROM attempts"
                    ).fetchone()
                    if row is not None:
                        report.peak_running = max(report.peak_running, int(row[1]))
                    if row is not None and row[0] == 0 and row[2] >= scale.roles:
                        break
        finally:
            stop.set()
            for t in loops:
                t.join()
            peak.stopping.set()
            peak.join()
            waits.stopping.set()
            waits.join()
            report.waits = waits.summary()
            report.relays = desk.stop_relays()
        report.seconds = round(time.monotonic() - started, 1)
        with psycopg.connect(desk.direct, autocommit=True) as conn:
            per_role = conn.execute(
                "SELECT role, count(*) FROM attempts WHERE launch_status IS NOT NULL "
                "AND primary_id IS NULL AND launch_status <> 'skipped' GROUP BY role"
            ).fetchall()
        report.launches = sum(int(n) for _, n in per_role)
        report.roles_run = len(per_role)
        # Two launches of one role at once would be a duplicate; more than one launch a role
        # is the ladder or the later items (one at a time, by the role lock).
        report.duplicates = _overlaps(desk.direct)
        report.peak_connections = peak.peak
        report.waits["at peak"] = dict(peak.at_peak.most_common())
        report.tick_ms_p50, report.tick_ms_p99 = _pct(tick_ms, 0.5), _pct(tick_ms, 0.99)
        hooks = []
        timings = desk.base / "hooks.jsonl"
        if timings.exists():
            hooks = [json.loads(line)["ms"] for line in timings.read_text().splitlines()]
        report.hook_ms_p50, report.hook_ms_p99 = _pct(hooks, 0.5), _pct(hooks, 0.99)
        for home in desk.homes:
            lines = _hook_failures(home)
            report.hook_failures += len(lines)
            for line in lines:
                kind = re.sub(r"\d+", "N", line.split(" ", 4)[-1])[:120]
                report.hook_failure_kinds[kind] = report.hook_failure_kinds.get(kind, 0) + 1
            report.hook_samples.extend(lines[: max(0, 5 - len(report.hook_samples))])
    return report


def _overlaps(direct: str) -> int:
    """Pairs of one role's launches whose runs overlapped in time (never allowed)."""
    import psycopg

    with psycopg.connect(direct, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM attempts a JOIN attempts b ON a.role = b.role AND a.id < b.id "
            "WHERE a.launched_at IS NOT NULL AND b.launched_at IS NOT NULL "
            "AND b.launched_at < COALESCE(a.finished_at, a.launched_at) "
            "AND a.primary_id IS NULL AND b.primary_id IS NULL"
        ).fetchone()
    return int(row[0]) if row else 0


def _hook_failures(home: Path) -> list[str]:
    log = home / "logs" / "hook.log"
    if not log.exists():
        return []
    return [line for line in log.read_text(errors="replace").splitlines() if line.strip()]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0
