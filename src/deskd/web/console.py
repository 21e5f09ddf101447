"""What one console process holds: settings, the clock, the session codec and lockout, and
the per-request edge (the clock read once, the desk opened for the supervisor)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from deskd.adapters.clock import now_ms
from deskd.core.values import SUPERVISOR
from deskd.service.desk.context import DeskContext, open_context
from deskd.service.ops.console import is_loopback, session_secret
from deskd.settings import Settings
from deskd.web.auth import Lockout, SessionCodec

MIN_SECRET = 4  # shorter values are too common to mask without mangling the page


@dataclass
class Console:
    settings: Settings
    clock: Callable[[], int]
    sessions: SessionCodec
    lockout: Lockout = field(default_factory=Lockout)
    secure_cookies: bool = False
    poll_s: float = 1.0
    stream_polls: int | None = None
    """How many polls one event stream lasts (None: until the client leaves); tests bound it."""

    @classmethod
    def build(
        cls,
        settings: Settings,
        *,
        clock: Callable[[], int] | None = None,
        host: str | None = None,
        poll_s: float = 1.0,
        stream_polls: int | None = None,
    ) -> Console:
        return cls(
            settings=settings,
            clock=clock or (lambda: now_ms(settings.now)),
            sessions=SessionCodec(session_secret(settings)),
            # Off loopback the console sits behind TLS (docs/operations.md): a cookie that
            # could travel in clear text would hand the session to anyone on the path.
            secure_cookies=not is_loopback(host or settings.host),
            poll_s=poll_s,
            stream_polls=stream_polls,
        )

    @property
    def mode(self) -> str:
        return self.settings.supervisor_auth_mode

    @property
    def accepts_sessions(self) -> bool:
        return self.mode in ("simple", "hybrid")

    @property
    def accepts_signed(self) -> bool:
        return self.mode in ("signed", "hybrid")

    @contextmanager
    def desk(self, now: int) -> Iterator[DeskContext]:
        """The desk for one request, acting as the supervisor at the request's instant."""
        ctx = open_context(settings=self.settings, now=now, actor=SUPERVISOR)
        try:
            yield ctx
        finally:
            ctx.close()

    def secrets(self, ctx: DeskContext | None) -> list[str]:
        """Values that must never appear on a page: the access code, channel credentials."""
        found = [self.settings.supervisor_access_code or ""]
        if ctx is not None:
            from deskd.service.paging.channels import all_channels, secrets_of, var_values

            values = var_values(self.settings)
            for channel in all_channels(self.settings, ctx.desk).values():
                for url in channel.urls:
                    found.extend(secrets_of(url, values))
        return sorted({s for s in found if len(s) >= MIN_SECRET}, key=len, reverse=True)


def mask(text: str, secrets: list[str]) -> str:
    """Every secret (as written and as HTML-escaped) replaced by a fixed mask."""
    from markupsafe import escape

    for secret in secrets:
        for form in {secret, str(escape(secret))}:
            text = text.replace(form, "••••")
    return text


def as_int(value: Any, what: str) -> int:
    from deskd.errors import InvalidValue

    text = str(value or "").strip()
    if not text.isdigit():
        raise InvalidValue(what, text, "a whole number")
    return int(text)


def console_of(request: Any) -> Console:
    """The console a request belongs to (``app.state.console``)."""
    console: Console = request.app.state.console
    return console
