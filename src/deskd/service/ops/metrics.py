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
from deskd.service.desk.tick_overdue import is_overdue, overdue_after_s
from deskd.store import items as item_rows
from deskd.store import metrics as agg
from deskd.store.hosts import list_hosts
from deskd.store.metrics import usage_by_role

if TYPE_CHECKING:
    from deskd.service.desk.context import DeskContext

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LANDING_BUCKETS_S = (5, 15, 30, 60, 120, 300, 600, 1800, 3600)
"""From a resume that lands in seconds to a wake that needed a person within the hour."""


def render(ctx: DeskContext) -> bytes:
    """The exposition text of the desk at ``ctx.now``."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DeskCollector(ctx))
    return generate_latest(registry)


class DeskCollector(Collector):
    """Every deskd metric, read from the database in one read transaction per scrape."""

    def __init__(self, ctx: DeskContext) -> None:
        self.ctx = ctx

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

    def _wakes(self) -> Iterator[Metric]:
        conn = self.ctx.conn
        yield _family(
            CounterMetricFamily,
            "deskd_wake_attempts",
            "Closed wake attempts by rung and outcome (pending ones: deskd_wakes_live).",
            ["rung", "outcome"],
            (((rung, outcome), n) for rung, outcome, n in agg.closed_attempts(conn)),
        )
        yield _family(
            GaugeMetricFamily,
            "deskd_wakes_live",
            "Pending wake attempts by role and rung.",
            ["role", "rung"],
            (((role, rung), n) for role, rung, n in agg.live_wakes(conn)),
        )
        bounds = [s * 1000 for s in LANDING_BUCKETS_S]
        cumulative, count, total_ms = agg.landing_histogram(conn, bounds)
        landing = HistogramMetricFamily(
            "deskd_wake_landing_seconds", "Time from a wake attempt to its landing."
        )
        buckets = [(_le(s), n) for s, n in zip(LANDING_BUCKETS_S, cumulative, strict=True)]
        landing.add_metric([], [*buckets, ("+Inf", count)], sum_value=total_ms / 1000)
        yield landing

    def _launches_and_pages(self) -> Iterator[Metric]:
        conn = self.ctx.conn
        stuck: Counter[tuple[str, str]] = Counter(
            (role, "recovered" if ok else "stopped")
            for role, *_, ok in agg.stuck_launches(conn, since=0)
        )
        yield _family(
            CounterMetricFamily,
            "deskd_stuck_launches",
            "Launches stopped as stuck (silent for stuck_after): recovered when the resumed "
            "session landed, else stopped.",
            ["role", "result"],
            sorted(stuck.items()),
        )
        yield _family(
            CounterMetricFamily,
            "deskd_launches",
            "Launches that ended, by result and failure class (none when it did not fail).",
            ["result", "failure_class"],
            (
                ((status, failure or "none"), n)
                for status, failure, n in agg.finished_launches(conn)
            ),
        )
        used = usage_by_role(conn, since=0)
        yield _family(
            CounterMetricFamily,
            "deskd_tokens",
            "Tokens the launches' agent CLIs reported, by role and kind (deskd usage).",
            ["role", "kind"],
            (
                ((str(t.key), kind), getattr(t, f"{kind}_tokens") or 0)
                for t in used
                for kind in TOKEN_KINDS
            ),
        )
        yield _family(
            CounterMetricFamily,
            "deskd_cost_usd",
            "USD the launches' agent CLIs reported costing, by role (none: no cost given).",
            ["role"],
            (((str(t.key),), t.cost_usd or 0.0) for t in used),
        )
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
        yield _family(
            CounterMetricFamily,
            "deskd_pages",
            "Page deliveries by channel and result: sent, or gave_up after a day of retries.",
            ["channel", "result"],
            sorted(sent.items()),
        )
        yield _family(
            GaugeMetricFamily,
            "deskd_pages_failing",
            "Open pages whose delivery to the channel failed and is being retried.",
            ["channel"],
            (((channel,), n) for channel, n in sorted(retrying.items())),
        )

    def _roles(self) -> Iterator[Metric]:
        ctx = self.ctx
        roles = ctx.desk.role_names
        # The board's counts, by the board's rule (a closed meeting's item is not overdue).
        unread = item_rows.count_unread_by_role(ctx.conn)
        overdue = Counter(item.role for item in item_rows.overdue_unread(ctx.conn, now=ctx.now))
        shown = sorted({*roles, *unread})
        yield _family(
            GaugeMetricFamily,
            "deskd_items_unread",
            "Unread items per role.",
            ["role"],
            (((role,), unread.get(role, 0)) for role in shown),
        )
        yield _family(
            GaugeMetricFamily,
            "deskd_items_overdue",
            "Unread items past their SLA per role.",
            ["role"],
            (((role,), overdue[role]) for role in shown),
        )
        paused = set(agg.paused_roles(ctx.conn))
        yield _family(
            GaugeMetricFamily,
            "deskd_role_paused",
            "1 while the role is paused (by itself).",
            ["role"],
            (((r,), int(r in paused)) for r in sorted({*roles, *(p for p in paused if p)})),
        )
        yield GaugeMetricFamily(
            "deskd_desk_paused", "1 while the whole desk is paused.", value=1 if "" in paused else 0
        )

    def _hosts(self) -> Iterator[Metric]:
        ctx = self.ctx
        after_s = overdue_after_s(ctx.settings)
        hosts = list_hosts(ctx.conn)
        yield _family(
            GaugeMetricFamily,
            "deskd_host_last_tick_timestamp_seconds",
            "When the host's last executing tick ran (Unix time).",
            ["host"],
            (((name,), last_at / 1000) for name, _first, last_at, _count in hosts),
        )
        yield _family(
            CounterMetricFamily,
            "deskd_host_ticks",
            "Executing ticks the host ran.",
            ["host"],
            (((name,), count) for name, _first, _last, count in hosts),
        )
        yield _family(
            GaugeMetricFamily,
            "deskd_host_tick_overdue",
            f"1 when the host has not ticked for more than {after_s} s (DESKD_TICK_OVERDUE).",
            ["host"],
            (
                ((name,), int(is_overdue(last_at, now=ctx.now, after_s=after_s)))
                for name, _first, last_at, _count in hosts
            ),
        )
        yield _family(
            GaugeMetricFamily,
            "deskd_host_tick_duration_seconds",
            "How long the host's last executing tick took, paging included.",
            ["host"],
            (((name,), ms / 1000) for name, ms in agg.tick_durations(ctx.conn)),
        )


def _family(
    kind: type[GaugeMetricFamily | CounterMetricFamily],
    name: str,
    documentation: str,
    labels: list[str],
    samples: Iterable[tuple[tuple[str, ...], float]],
) -> Metric:
    """A ``kind`` family with one sample per (label values, value)."""
    family = kind(name, documentation, labels=labels)
    for values, value in samples:
        family.add_metric(list(values), value)
    return family


def _le(seconds: int) -> str:
    return f"{float(seconds)}"
