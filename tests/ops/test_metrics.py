"""`deskd metrics`: the ledger's aggregates in Prometheus' text format, read back with
prometheus_client's own parser, on SQLite and PostgreSQL."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import Desk
from deskd.core.usage import Usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pager"))
from pager_helpers import desk_with, enqueue, free_port, http_receiver

pytestmark = pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(desk: Desk, **env: str) -> Samples:
    """Every sample `deskd metrics` printed, keyed by (name, labels)."""
    text = desk.ok("metrics", **env).stdout
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


@pytest.fixture
def no_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tick's launcher recorded at its boundary: no executor runs here."""
    from deskd.service.engine.dispatch import Dispatched

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)


def test_it_counts_pages_by_channel_live_wakes_items_pauses_and_hosts(desk: Desk) -> None:
    with http_receiver() as ops:
        dead = f"json://127.0.0.1:{free_port()}/x"
        desk.write_desk(desk_with({"ops": [ops.url()], "dead": [dead]}, default=["ops", "dead"]))
        enqueue(desk, "alpha", priority="urgent")
        desk.ok("pause", "--role", "beta", "--reason", "deploy")
        desk.ok("tick", "--execute", DESKD_HOST_NAME="build")
        assert ops.titles  # the page reached the working channel
    samples = scrape(desk)
    assert value(samples, "deskd_wakes_live", role="alpha", rung="notify") == 1
    assert value(samples, "deskd_pages_total", channel="ops", result="sent") == 1
    assert value(samples, "deskd_pages_failing", channel="dead") == 1
    assert value(samples, "deskd_pages_failing", channel="ops") == 0
    assert value(samples, "deskd_items_unread", role="alpha") == 1
    assert value(samples, "deskd_items_unread", role="gamma") == 0
    assert value(samples, "deskd_role_paused", role="beta") == 1
    assert value(samples, "deskd_role_paused", role="alpha") == 0
    assert value(samples, "deskd_desk_paused") == 0
    assert value(samples, "deskd_host_last_tick_timestamp_seconds", host="build") == (
        desk.now_ms / 1000
    )
    assert value(samples, "deskd_host_ticks_total", host="build") == 1
    assert value(samples, "deskd_host_tick_overdue", host="build") == 0
    took = value(samples, "deskd_host_tick_duration_seconds", host="build")
    assert took is not None and took >= 0

    desk.advance(minutes=20)  # past the notify rung's 5-minute SLA and the overdue mark
    later = scrape(desk)
    assert value(later, "deskd_host_tick_overdue", host="build") == 1
    assert value(later, "deskd_items_overdue", role="alpha") == 1


def test_it_times_landings_and_counts_closed_attempts_and_ended_launches(
    desk: Desk, no_launch: None
) -> None:
    from deskd.service.desk.context import open_context
    from deskd.store import attempts

    item = enqueue(desk, "alpha", priority="urgent")
    (planned,) = desk.json("tick", "--execute")["actions"]
    attempt_id = int(planned["attempt_id"])
    desk.advance(seconds=20)
    ctx = open_context(now=desk.now_ms)
    try:
        with ctx.write() as conn:  # the executor's steps: started, landed, ended with a failure
            assert attempts.claim_launch(conn, attempt_id, now=desk.now_ms)
            assert attempts.land(conn, attempt_id, now=desk.now_ms)
            attempts.finish_launch(
                conn,
                attempt_id,
                status="failed",
                now=desk.now_ms,
                exit_code=1,
                failure_class="transient",
                detail="overloaded",
                cost_usd=0.5,
                hold_until=None,
            )
            attempts.record_usage(conn, attempt_id, Usage(100, 20, 300, None, "m1"))
    finally:
        ctx.close()
    desk.ok("inbox", "ack", "--for", "alpha", "--id", str(item))
    desk.advance(minutes=1)
    desk.ok("tick", "--execute")  # the demand is gone: the attempt resolves
    samples = scrape(desk)
    assert value(samples, "deskd_wake_landing_seconds_count") == 1
    assert value(samples, "deskd_wake_landing_seconds_sum") == 20
    assert value(samples, "deskd_wake_landing_seconds_bucket", le="15.0") == 0
    assert value(samples, "deskd_wake_landing_seconds_bucket", le="30.0") == 1
    assert value(samples, "deskd_wake_landing_seconds_bucket", le="+Inf") == 1
    assert value(samples, "deskd_wake_attempts_total", rung="spawn", outcome="resolved") == 1
    assert value(samples, "deskd_launches_total", result="failed", failure_class="transient") == 1
    assert not [k for k in samples if k[0] == "deskd_wakes_live"]
    tokens = {
        kind: value(samples, "deskd_tokens_total", role="alpha", kind=kind)
        for kind in ("input", "output", "cache_read", "cache_write")
    }
    assert tokens == {"input": 100, "output": 20, "cache_read": 300, "cache_write": 0}
    assert value(samples, "deskd_cost_usd_total", role="alpha") == 0.5


def test_every_name_follows_prometheus_conventions(desk: Desk) -> None:
    text = desk.ok("metrics").stdout
    families = list(text_string_to_metric_families(text))
    names = {f.name for f in families}
    assert {
        "deskd_wake_attempts",
        "deskd_wakes_live",
        "deskd_wake_landing_seconds",
        "deskd_launches",
        "deskd_pages",
        "deskd_items_unread",
        "deskd_items_overdue",
        "deskd_host_last_tick_timestamp_seconds",
        "deskd_host_tick_duration_seconds",
        "deskd_role_paused",
        "deskd_tokens",
        "deskd_cost_usd",
    } <= names
    for family in families:
        assert family.name.startswith("deskd_")
        assert family.documentation
        if family.type == "counter":
            assert all(s.name.endswith(("_total", "_created")) for s in family.samples)


def test_a_bad_overdue_setting_is_refused_with_the_valid_choices(desk: Desk) -> None:
    out = desk.run("metrics", DESKD_TICK_OVERDUE="soon")
    assert out.exit_code == 1
    assert "DESKD_TICK_OVERDUE" in out.stderr
    assert out.stdout == ""


def test_the_shipped_not_ticking_rule_fires_for_a_desk_that_never_ticked(desk: Desk) -> None:
    """A desk that never ticked exports no last-tick series: the rule docs/operations.md ships
    must catch that with absent(), or it never fires."""
    from pathlib import Path

    desk.ok("roles")
    assert "deskd_host_last_tick_timestamp_seconds{" not in desk.ok("metrics").stdout
    docs = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
    rule = docs.read_text(encoding="utf-8").split("alert: DeskdHostNotTicking", 1)[1]
    expr = rule.split("expr:", 1)[1].splitlines()[0]
    assert "absent(deskd_host_last_tick_timestamp_seconds)" in expr, expr
