"""The desk in Prometheus' text format, built from the database on every scrape.

deskd keeps no process between ticks, so nothing could count in memory: a custom collector
reads the ledger's aggregates (store/metrics.py, a bounded number of rows each) at ``now``
and turns them into metric families. ``/metrics`` in ``deskd serve`` and ``deskd metrics``
(for node_exporter's textfile collector) print the same text. prometheus_client is imported
here only, and this module only by those two.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from deskd import __version__
from deskd.core.usage import TOKEN_KINDS
from deskd.service.desk.presence import is_overdue, overdue_after_s
from deskd.store import items as item_rows
from deskd.store import metrics as agg
from deskd.store.hosts import list_hosts
from deskd.store.metrics import usage_by_role

if TYPE_CHECKING:
    from deskd.service.desk.context import DeskContext

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LANDING_BUCKETS_S = (5, 15, 30, 60, 120, 300, 600, 1800, 3600)
"""From a resume that lands in seconds to a wake that needed a person within the hour."""
COUNTER, GAUGE = CounterMetricFamily, GaugeMetricFamily
FAMILIES: dict[str, tuple[type[GaugeMetricFamily | CounterMetricFamily], str, str]] = {
    "deskd_wake_attempts": (
        COUNTER,
        "rung outcome",
        "Closed wake attempts by rung and outcome (pending ones: deskd_wakes_live).",
    ),
    "deskd_wakes_live": (GAUGE, "role rung", "Pending wake attempts by role and rung."),
    "deskd_stuck_launches": (
        COUNTER,
        "role result",
        "Launches stopped as stuck (silent for stuck_after): recovered when the resumed "
        "session landed, else stopped.",
    ),
    "deskd_launches": (
        COUNTER,
        "result failure_class",
        "Launches that ended, by result and failure class (none when it did not fail).",
    ),
    "deskd_tokens": (
        COUNTER,
        "role kind",
        "Tokens the launches' agent CLIs reported, by role and kind (deskd usage).",
    ),
    "deskd_cost_usd": (
        COUNTER,
        "role",
        "USD the launches' agent CLIs reported costing, by role (none: no cost given).",
    ),
    "deskd_pages": (
        COUNTER,
        "channel result",
        "Page deliveries by channel and result: sent, or gave_up after a day of retries.",
    ),
    "deskd_pages_failing": (
        GAUGE,
        "channel",
        "Open pages whose delivery to the channel failed and is being retried.",
    ),
    "deskd_items_unread": (GAUGE, "role", "Unread items per role."),
    "deskd_items_overdue": (GAUGE, "role", "Unread items past their SLA per role."),
    "deskd_role_paused": (GAUGE, "role", "1 while the role is paused (by itself)."),
    "deskd_host_last_tick_timestamp_seconds": (
        GAUGE,
        "host",
        "When the host's last executing tick ran (Unix time).",
    ),
    "deskd_host_ticks": (COUNTER, "host", "Executing ticks the host ran."),
    "deskd_host_tick_overdue": (
        GAUGE,
        "host",
        "1 when the host has not ticked for more than {after_s} s (DESKD_TICK_OVERDUE).",
    ),
    "deskd_host_tick_duration_seconds": (
        GAUGE,
        "host",
        "How long the host's last executing tick took, paging included.",
    ),
}
"""Each labelled metric family: its kind, label names and help (``{after_s}``: the setting)."""


def render(ctx: DeskContext) -> bytes:
    """The exposition text of the desk at ``ctx.now``."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DeskCollector(ctx))
    return generate_latest(registry)


class DeskCollector(Collector):
    """Every deskd metric, read from the database in one read transaction per scrape."""

    def __init__(self, ctx: DeskContext) -> None:
        self.ctx = ctx
        self.after_s = overdue_after_s(ctx.settings)

    def collect(self) -> Iterator[Metric]:
        from deskd.store.db import read_transaction

        with read_transaction(self.ctx.conn):
            yield from self._wakes()
            yield from self._launches_and_pages()
            yield from self._roles()
            yield from self._hosts()
        info = GaugeMetricFamily(
            "deskd_info", "The deskd release serving these metrics.", labels=["version"]
        )
        info.add_metric([__version__], 1)
        yield info

    def _family(self, name: str, samples: Iterable[tuple[tuple[str, ...], float]]) -> Metric:
        """The family ``name`` of ``FAMILIES`` with one sample per (label values, value)."""
        kind, labels, documentation = FAMILIES[name]
        family = kind(name, documentation.format(after_s=self.after_s), labels=labels.split())
        for values, value in samples:
            family.add_metric(list(values), value)
        return family

    def _wakes(self) -> Iterator[Metric]:
        conn = self.ctx.conn
        closed = agg.closed_attempts(conn)
        yield self._family("deskd_wake_attempts", (((r, o), n) for r, o, n in closed))
        live = agg.live_wakes(conn)
        yield self._family("deskd_wakes_live", (((r, g), n) for r, g, n in live))
        bounds = [s * 1000 for s in LANDING_BUCKETS_S]
        cumulative, count, total_ms = agg.landing_histogram(conn, bounds)
        landing = HistogramMetricFamily(
            "deskd_wake_landing_seconds", "Time from a wake attempt to its landing."
        )
        buckets = [(f"{float(s)}", n) for s, n in zip(LANDING_BUCKETS_S, cumulative, strict=True)]
        landing.add_metric([], [*buckets, ("+Inf", count)], sum_value=total_ms / 1000)
        yield landing

    def _launches_and_pages(self) -> Iterator[Metric]:
        conn = self.ctx.conn
        stuck: Counter[tuple[str, str]] = Counter(
            (role, "recovered" if ok else "stopped")
            for role, *_, ok in agg.stuck_launches(conn, since=0)
        )
        yield self._family("deskd_stuck_launches", sorted(stuck.items()))
        finished = agg.finished_launches(conn)
        yield self._family(
            "deskd_launches", (((status, fail or "none"), n) for status, fail, n in finished)
        )
        used = usage_by_role(conn, since=0)
        yield self._family(
            "deskd_tokens",
            (
                ((str(t.key), kind), getattr(t, f"{kind}_tokens") or 0)
                for t in used
                for kind in TOKEN_KINDS
            ),
        )
        yield self._family("deskd_cost_usd", (((str(t.key),), t.cost_usd or 0.0) for t in used))
        sent: Counter[tuple[str, str]] = Counter()
        retrying: Counter[str] = Counter()
        for channel, status, gave_up, open_page, count in agg.page_deliveries(conn):
            if status == "sent":
                sent[(channel, "sent")] += count
            elif status == "failed" and gave_up:
                sent[(channel, "gave_up")] += count
            elif status == "failed" and open_page:
                retrying[channel] += count
            retrying[channel] += 0  # every channel that paged has a sample, 0 when none fails
        yield self._family("deskd_pages", sorted(sent.items()))
        yield self._family("deskd_pages_failing", (((c,), n) for c, n in sorted(retrying.items())))

    def _roles(self) -> Iterator[Metric]:
        ctx = self.ctx
        roles = ctx.desk.role_names
        # The board's counts, by the board's rule (a closed meeting's item is not overdue).
        unread = item_rows.count_unread_by_role(ctx.conn)
        overdue = Counter(item.role for item in item_rows.overdue_unread(ctx.conn, now=ctx.now))
        shown = sorted({*roles, *unread})
        yield self._family("deskd_items_unread", (((r,), unread.get(r, 0)) for r in shown))
        yield self._family("deskd_items_overdue", (((r,), overdue[r]) for r in shown))
        paused = set(agg.paused_roles(ctx.conn))
        every = sorted({*roles, *(p for p in paused if p)})
        yield self._family("deskd_role_paused", (((r,), int(r in paused)) for r in every))
        yield GaugeMetricFamily(
            "deskd_desk_paused", "1 while the whole desk is paused.", value=1 if "" in paused else 0
        )

    def _hosts(self) -> Iterator[Metric]:
        ctx = self.ctx
        hosts = list_hosts(ctx.conn)
        yield self._family(
            "deskd_host_last_tick_timestamp_seconds",
            (((name,), last_at / 1000) for name, _first, last_at, _count in hosts),
        )
        yield self._family(
            "deskd_host_ticks", (((name,), count) for name, _first, _last, count in hosts)
        )
        yield self._family(
            "deskd_host_tick_overdue",
            (
                ((name,), int(is_overdue(last_at, now=ctx.now, after_s=self.after_s)))
                for name, _first, last_at, _count in hosts
            ),
        )
        durations = agg.tick_durations(ctx.conn)
        yield self._family(
            "deskd_host_tick_duration_seconds", (((name,), ms / 1000) for name, ms in durations)
        )
