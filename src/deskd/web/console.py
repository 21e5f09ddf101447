"""What one console process holds: settings, the clock, the session codec, the code checker,
the names it answers to, and the per-request edge (the clock read once, the desk opened for
the supervisor)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, TypeVar

from deskd.config.settings import Settings
from deskd.core.values import SUPERVISOR
from deskd.errors import StoreError
from deskd.service.desk.context import DeskContext, open_context
from deskd.service.ops.console import CODE_MODES, KEY_MODES, is_loopback
from deskd.web.auth.sessions import CodeChecker, SessionCodec

MIN_SECRET = 8  # shorter values are words of the page (``page``, ``hook``), not maskable there
P = ParamSpec("P")
T = TypeVar("T")


@dataclass
class Console:
    settings: Settings
    clock: Callable[[], int]
    sessions: SessionCodec
    checker: CodeChecker = field(default_factory=CodeChecker)
    hosts: frozenset[str] = frozenset()
    """The names a request's Host may carry (a DNS-rebinding page carries its own)."""
    secure_cookies: bool = False
    poll_s: float = 1.0
    stream_polls: int | None = None
    """How many polls one event stream lasts (None: until the client leaves); tests bound it."""

    @property
    def accepts_sessions(self) -> bool:
        return self.settings.supervisor_auth_mode in CODE_MODES

    @property
    def accepts_signed(self) -> bool:
        return self.settings.supervisor_auth_mode in KEY_MODES

    @contextmanager
    def desk(self, now: int) -> Iterator[DeskContext]:
        """The desk for one request, acting as the supervisor at the request's instant."""
        ctx = open_context(settings=self.settings, now=now, actor=SUPERVISOR)
        try:
            yield ctx
        except StoreError as exc:  # damage a read met is remembered, as the CLI's boundary does:
            raise ctx.failed(exc) from None  # every later request refuses before opening it
        finally:
            ctx.close()

    def call(
        self, now: int, fn: Callable[Concatenate[DeskContext, P], T], *a: P.args, **kw: P.kwargs
    ) -> T:
        """``fn(ctx, …)`` on the desk at ``now`` (a route's one service call, often run in a
        thread off the event loop)."""
        with self.desk(now) as ctx:
            return fn(ctx, *a, **kw)

    def secrets(self, ctx: DeskContext | None) -> list[str]:
        """Values that must never appear on a page: the access code, channel credentials."""
        found = [self.settings.supervisor_access_code or ""]
        found.extend(_url_secrets(self.settings.tick_ping_url))
        for url in self.settings.notify_url_list:
            found.extend(_url_secrets(url))
        names: set[str] = set()
        if ctx is not None:
            from deskd.service.paging.channels import all_channels, secrets_of, var_values

            values = var_values(self.settings)
            channels = all_channels(self.settings, ctx.desk)
            names = {*channels, *ctx.desk.roles}
            for channel in channels.values():
                for url in channel.urls:
                    found.extend(secrets_of(url, values))
        # Searched for in the whole page: a short part (a webhook path ``/page``) or a name the
        # page itself uses (an ntfy topic named like a role) is a word of the page there, not
        # a secret; where URLs are shown, apprise's privacy rendering hides it (privacy.py).
        return sorted(
            {s for s in found if len(s) >= MIN_SECRET and s not in names}, key=len, reverse=True
        )


def _url_secrets(url: str | None) -> list[str]:
    """A URL that is itself a credential (a ping URL's path is its token): the whole URL,
    and its path and query, which pages may show without the scheme and host."""
    if not url:
        return []
    rest = url.split("://", 1)[-1]
    path = rest.split("/", 1)[1] if "/" in rest else ""
    return [url, rest] + ([path] if len(path) >= 8 else [])


_TOJSON = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})
"""What ``tojson`` escapes in the JSON it dumps."""


def _encodings(secret: str) -> set[str]:
    """A secret as a page may carry it: as written, HTML-escaped, JSON-escaped (``tojson``
    writes ``<>&'`` and non-ASCII as ``\\u…``), and JSON-escaped then HTML-escaped."""
    import json

    from markupsafe import escape

    forms = {secret, str(escape(secret))}
    for ascii_only in (True, False):
        dumped = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        html_safe = dumped.translate(_TOJSON)
        forms |= {dumped, html_safe, str(escape(dumped)), str(escape(html_safe))}
    return {f for f in forms if f}


def mask(text: str, secrets: list[str]) -> str:
    """Every secret (as written and in every encoding a page uses) replaced by a mask."""
    for secret in secrets:
        for form in sorted(_encodings(secret), key=len, reverse=True):
            text = text.replace(form, "••••")
    return text


def mask_data(value: Any, secrets: list[str]) -> Any:
    """``value`` with every secret masked in every string inside it, before any template
    encodes it (masking afterwards cannot know every encoding a filter might choose)."""
    from markupsafe import Markup

    if not secrets:
        return value
    if isinstance(value, Markup):
        return Markup(mask(str(value), secrets))
    if isinstance(value, str):
        return mask(value, secrets)
    if isinstance(value, dict):
        return {k: mask_data(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        masked = (mask_data(v, secrets) for v in value)
        if hasattr(value, "_make"):  # a record (NamedTuple): the same record, masked
            return value._make(masked)
        return type(value)(masked)
    return value


def allowed_hosts(bind: str, configured: str | None) -> frozenset[str]:
    """The bound address, ``localhost`` (and the loopback addresses when bound to loopback or
    to every address, which includes loopback), and the names ``DESKD_CONSOLE_HOSTS`` lists."""
    names = {bind.strip("[]").lower(), "localhost"}
    if is_loopback(bind) or bind.strip("[]") in ("0.0.0.0", "::"):
        names |= {"127.0.0.1", "::1"}
    names |= {n.strip().lower() for n in (configured or "").replace(",", " ").split()}
    return frozenset(n for n in names if n)


def host_of(header: str) -> str:
    """The name in a Host header, without its port (``[::1]:8000`` is ``::1``)."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def as_int(value: Any, what: str) -> int:
    """An id or count from a form or query, by deskd's one parser for the numbers people type
    (``deskd.ids``: ASCII digits only, within the database's integer range)."""
    from deskd.ids import parse_int

    return parse_int(str(value or "").strip(), what, low=0)


def console_of(request: Any) -> Console:
    console: Console = request.app.state.console
    return console
