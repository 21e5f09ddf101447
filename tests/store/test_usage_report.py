"""`deskd usage` and the store's sums (store/metrics.py) on both backends: by role, by day in
the desk's time zone, by model, since an instant; unknown figures stay unknown."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import Desk
from usage_rows import finished, with_roles

FIGURES = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


@pytest.fixture
def used(desk: Desk) -> Desk:
    """Three roles' launches around local midnight in America/New_York (UTC-5); the clock is
    2026-12-01 09:00 local."""
    with_roles(desk)
    first = finished(
        desk, "alpha", "2026-12-01T04:30:00Z", (100, 10, 1000, 50), model="m-a", cost=0.5
    )
    finished(desk, "alpha", "2026-12-01T05:30:00Z", (200, 20, 0, 0), model="m-a", cost=0.25)
    finished(desk, "beta", "2026-12-01T13:00:00Z", (300, 30, 7, None), model="m-b")
    finished(desk, "gamma", "2026-12-01T13:30:00Z")  # a CLI that reported nothing
    finished(desk, "alpha", "2026-12-01T05:31:00Z", (9, 9, 9, 9), ride_along_of=first)
    finished(desk, "beta", "2026-11-20T12:00:00Z", (5000, 500, 0, 0), model="m-b")  # old
    return desk


def rows(out: dict[str, Any], *keys: str) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    return {
        tuple(r[k] for k in keys): (
            r["launches"],
            *(r[f] for f in FIGURES),
            r["tokens"],
            r["cost_usd"],
        )
        for r in out["rows"]
    }


def test_it_sums_by_role_and_keeps_unknown_figures_unknown(used: Desk) -> None:
    out = used.json("usage")
    assert (out["by"], out["timezone"]) == ("role", "America/New_York")
    assert out["since"] == "2026-11-25T05:00:00Z"  # local midnight six days ago: seven days
    assert rows(out, "role") == {
        ("alpha",): (2, 300, 30, 1000, 50, 1380, 0.75),
        ("beta",): (1, 300, 30, 7, None, 337, None),
        ("gamma",): (1, None, None, None, None, 0, None),
    }
    total = out["total"]
    assert (total["launches"], total["tokens"], total["cache_write_tokens"]) == (4, 1717, 50)


def test_it_puts_days_in_the_desk_time_zone(used: Desk) -> None:
    out = used.json("usage", "--by", "day")
    # 04:30Z is 23:30 on Nov 30 in New York; 05:30Z is past local midnight.
    assert rows(out, "day", "role") == {
        ("2026-11-30", "alpha"): (1, 100, 10, 1000, 50, 1160, 0.5),
        ("2026-12-01", "alpha"): (1, 200, 20, 0, 0, 220, 0.25),
        ("2026-12-01", "beta"): (1, 300, 30, 7, None, 337, None),
        ("2026-12-01", "gamma"): (1, None, None, None, None, 0, None),
    }


def test_it_sums_by_model_and_since_an_instant(used: Desk) -> None:
    out = used.json("usage", "--by", "model", "--since", "2026-11-01")
    assert rows(out, "model") == {
        ("m-a",): (2, 300, 30, 1000, 50, 1380, 0.75),
        ("m-b",): (2, 5300, 530, 7, 0, 5837, None),
        (None,): (1, None, None, None, None, 0, None),
    }
    assert used.json("usage", "--since", "10m")["rows"] == []  # nothing in the last 10 minutes
    assert list(rows(used.json("usage", "--since", "2026-12-01T08:00"), "role")) == [
        ("beta",),
        ("gamma",),
    ]


def test_the_table_prints_thousands_and_dashes(used: Desk) -> None:
    text = used.ok("usage", "--since", "30d").stdout
    lines = text.splitlines()
    assert lines[0].split() == [
        "role", "launches", "input", "output", "cache", "read", "cache", "write", "tokens", "cost",
    ]  # fmt: skip
    beta = next(ln.split() for ln in lines if ln.startswith("beta"))
    assert beta == ["beta", "2", "5,300", "530", "7", "0", "5,837", "-"]
    assert lines[-1].split()[:2] == ["total", "5"]


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--by", "week"], "invalid --by 'week' (one of role, day, model)"),
        (["--since", "yesterday"], "invalid --since 'yesterday' (a duration back from now"),
        (["--since", "2026-13-01"], "or an ISO 8601 time like 2026-12-01)"),
    ],
)
def test_bad_input_is_refused_naming_the_choices(used: Desk, args: list[str], says: str) -> None:
    before = used.dump()
    out = used.run("usage", *args)
    assert out.exit_code == 1 and says in out.stderr, out.stderr
    assert used.run("usage", *args, "--json").error()["code"] == "invalid_value"
    assert used.dump() == before


def test_an_empty_desk_says_so(desk: Desk) -> None:
    out = desk.ok("usage")
    assert out.stdout.strip() == "no launch finished since 2026-11-25T05:00:00Z"
