"""The login throttle as a service with the time given: waits double from 1 s after three
wrong codes up to 15 minutes, one client's waits never touch another's, and a client quiet
for a day starts afresh."""

from __future__ import annotations

from web_helpers import WEB_DESK

from conftest import Desk


def test_waits_double_per_client_up_to_the_cap_and_are_forgotten_after_a_day(desk: Desk) -> None:
    from deskd.config.settings_model import validate_settings
    from deskd.service.desk.context import open_context
    from deskd.service.ops.console_sessions import (
        MAX_WAIT_MS,
        login_attempt,
        login_succeeded,
        throttle_wait_ms,
    )

    desk.write_desk(WEB_DESK)
    settings = validate_settings(desk.env())

    def attempt(client: str, now: int) -> int | None:
        ctx = open_context(settings=settings, now=now)
        try:
            return login_attempt(ctx, client)
        finally:
            ctx.close()

    assert [throttle_wait_ms(n) for n in range(1, 8)] == [0, 0, 1000, 2000, 4000, 8000, 16000]
    assert throttle_wait_ms(40) == MAX_WAIT_MS == 15 * 60 * 1000
    now = desk.now_ms
    for _ in range(3):  # the third is checked, then 1 s to wait
        assert attempt("10.0.0.1", now) is None
    assert attempt("10.0.0.1", now) == now + 1000
    assert attempt("10.0.0.2", now) is None  # another client is not slowed
    now += 1000
    assert attempt("10.0.0.1", now) is None
    assert attempt("10.0.0.1", now + 1999) == now + 2000
    now += 24 * 3600 * 1000 + 2000  # a quiet day: forgotten
    for _ in range(3):
        assert attempt("10.0.0.1", now) is None
    ctx = open_context(settings=settings, now=now)
    login_succeeded(ctx, "10.0.0.1")
    ctx.close()
    assert attempt("10.0.0.1", now) is None  # a right code starts the count again
