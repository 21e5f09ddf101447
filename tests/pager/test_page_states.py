"""The per-URL delivery state machine (core/paging.py), transition by transition, as tables."""

from __future__ import annotations

import pytest

from deskd.core.paging import (
    RECHECK_MS,
    RETRY_WINDOW_MS,
    Entry,
    Hold,
    entries_of,
    mark,
    outcome,
    results_of,
    triage,
)

T0 = 1_796_140_800_000  # 2026-12-01T14:00:00Z
MIN = 60_000


def entry(status: str = "pending", name: str = "ops", **kw: object) -> Entry:
    return Entry(name=name, url=f"json://{name}", status=status, **kw)  # type: ignore[arg-type]


# (before, ok, after: status, tries, retry_at)
MARKS = [
    (entry(), True, ("sent", 1, None)),
    (entry(), False, ("failed", 1, T0 + 1 * MIN)),
    (entry("failed", tries=1), False, ("failed", 2, T0 + 2 * MIN)),
    (entry("failed", tries=3), False, ("failed", 4, T0 + 8 * MIN)),
    (entry("failed", tries=9), False, ("failed", 10, T0 + 60 * MIN)),  # capped at an hour
    (entry("failed", tries=2, error="boom"), True, ("sent", 3, None)),
    (entry("held", until=T0 + 5 * MIN, why="quiet"), True, ("sent", 1, None)),
]


@pytest.mark.parametrize(("before", "ok", "expected"), MARKS)
def test_it_marks_one_try(before: Entry, ok: bool, expected: tuple[object, ...]) -> None:
    after = mark(before, ok=ok, error=None if ok else "refused", now=T0)
    assert (after.status, after.tries, after.retry_at) == expected
    assert after.at == T0 and after.until is None and after.why is None
    assert after.error == (None if ok else "refused")
    assert before.tries == expected[1] - 1  # the old state is untouched


QUIET = {"quiet": (T0 + 60 * MIN, "quiet hours on quiet (22:00-07:00)")}

# (entry, created, after: status, gave_up, until; sent now?)
TRIAGE = [
    (entry(), T0, ("pending", False, None), True),
    (entry("sent", tries=1), T0, ("sent", False, None), False),
    (entry("failed", tries=1, retry_at=T0 + MIN), T0, ("failed", False, None), False),
    (entry("failed", tries=1, retry_at=T0 - 1), T0 - MIN, ("failed", False, None), True),
    (
        entry("failed", tries=5, retry_at=T0 - 1),
        T0 - RETRY_WINDOW_MS,
        ("failed", True, None),
        False,
    ),
    (entry(name="quiet"), T0, ("held", False, T0 + 60 * MIN), False),
    (entry("failed", name="quiet", retry_at=T0 - 1), T0, ("held", False, T0 + 60 * MIN), False),
    (entry("held", until=T0 - 1, why="quiet hours"), T0, ("held", False, T0 - 1), True),
]


@pytest.mark.parametrize(("before", "created", "expected", "due"), TRIAGE)
def test_it_picks_what_to_send_now(
    before: Entry, created: int, expected: tuple[object, ...], due: bool
) -> None:
    (after,), indexes = triage([before], quiet=QUIET, now=T0, created_at=created)
    assert (after.status, after.gave_up, after.until) == expected
    assert indexes == ((0,) if due else ())


H = T0 + 30 * MIN

# (entries, hold, recheck, kind, expected: status, next try, held until, closed)
OUTCOMES: list[tuple[list[Entry], Hold | None, bool, str, tuple[object, ...]]] = [
    ([entry("sent"), entry("sent")], None, False, "page", ("sent", None, None, False)),
    (
        [entry("sent"), entry("failed", retry_at=H)],
        None,
        False,
        "page",
        ("partial", H, None, False),
    ),
    ([entry("failed", retry_at=H)], None, False, "page", ("failed", H, None, False)),
    ([entry("held", until=H, why="q")], None, False, "page", ("held", H, H, False)),
    ([entry()], None, False, "page", ("queued", T0, None, False)),
    ([entry()], (H, "silenced"), False, "page", ("held", H, H, False)),
    ([entry()], (None, "paused"), True, "page", ("held", T0 + RECHECK_MS, None, False)),
    ([], (None, "no channel"), True, "page", ("queued", T0 + RECHECK_MS, None, False)),
    ([], (H, "acknowledged"), False, "page", ("held", H, H, False)),
    ([entry("sent")], None, False, "notice", ("sent", None, None, True)),
    ([entry("sent")], None, False, "settled", ("sent", None, None, True)),
    ([entry("failed", retry_at=H)], None, False, "settled", ("failed", H, None, False)),
]


@pytest.mark.parametrize(("entries", "hold", "recheck", "kind", "expected"), OUTCOMES)
def test_it_sums_the_entries_into_the_page_status(
    entries: list[Entry], hold: Hold | None, recheck: bool, kind: str, expected: tuple[object, ...]
) -> None:
    got = outcome(entries, kind=kind, created_at=T0, now=T0, hold=hold, recheck=recheck)
    assert (got.status, got.next_try_at, got.held_until, got.closed) == expected


def test_it_stops_retrying_failed_urls_after_the_window() -> None:
    failed = [entry("failed", retry_at=T0 + MIN)]
    late = outcome(failed, kind="page", created_at=T0 - RETRY_WINDOW_MS, now=T0)
    assert (late.status, late.next_try_at) == ("failed", None)


def test_it_round_trips_entries_through_the_results_column() -> None:
    entries = (entry("failed", tries=2, error="x", retry_at=T0), entry("held", until=T0, why="q"))
    assert entries_of(results_of(entries)) == entries
    assert entries_of('[{"name": "ops", "url": "json://o"}]') == (
        Entry(name="ops", url="json://o"),
    )
