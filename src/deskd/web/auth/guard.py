"""Who is asking: every page and read needs a session (simple mode) or a signed assertion
(signed mode); ``hybrid`` takes either. Every POST also needs the session's CSRF token, or
is itself signed. Refusals are exceptions the app maps to 303 (to the login page), 401,
403 or 429."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from urllib.parse import parse_qsl

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from deskd.service.desk.context import DeskContext
from deskd.web.auth.sessions import SESSION_COOKIE, Session, csrf_matches
from deskd.web.console import Console, console_of

NONCE_KEEP_MS = 20 * 60 * 1000  # twice the assertion window: older replays are stale anyway


class LoginRequired(Exception):
    """No valid session: a page redirects to the login form, anything else is a 401."""

    def __init__(self, reason: str = "log in first") -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(Exception):
    """An HTTP refusal with a status and a sentence for the person."""

    def __init__(self, status: int, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after_s = retry_after_s  # a 429's Retry-After header, in seconds


@dataclass(frozen=True, slots=True)
class Principal:
    kind: str  # "session" or "signed"
    session: Session | None = None
    key_id: str | None = None
    number: int | None = None  # the session's row in the database

    @property
    def csrf(self) -> str:
        return self.session.csrf if self.session is not None else ""

    @property
    def auth(self) -> str:
        """How the supervisor was authenticated, as recorded on its events."""
        if self.kind == "signed":
            return f"signed, key {self.key_id}"
        return f"access code, session {self.number}"


def now_of(request: Request) -> int:
    """The request's instant, read once at the edge (``DESKD_NOW`` honoured)."""
    now: int = request.state.now
    return now


def desk_of(request: Request) -> AbstractContextManager[DeskContext]:
    """The desk for this request, as the supervisor at the request's instant."""
    return console_of(request).desk(now_of(request))


def path_of(request: Request) -> str:
    """The path with its query, as signed and as a login returns to."""
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


async def _signed(request: Request, console: Console, body: bytes) -> Principal | None:
    """The signed principal, after its nonce is burned; None when the request is unsigned."""
    from deskd.errors import ConsoleRefused
    from deskd.service.ops.console import read_public_keys
    from deskd.web.auth.signed import AssertionRefused, parse, verify

    try:
        assertion = parse({k.lower(): v for k, v in request.headers.items()})
        if assertion is None:
            return None
        try:
            keys = read_public_keys(console.settings.supervisor_keys)
        except ConsoleRefused as exc:  # the server's own keys file: not the caller's fault
            raise Refused(503, f"signed requests cannot be checked: {exc.message}") from None
        now = now_of(request)
        verify(assertion, keys, method=request.method, path=path_of(request), body=body, now=now)
    except AssertionRefused as exc:
        raise Refused(401, f"signed request refused: {exc}") from None
    from deskd.service.ops.console import burn_nonce

    fresh = await run_in_threadpool(
        console.call,
        now,
        burn_nonce,
        assertion.nonce,
        key_id=assertion.key_id,
        keep_ms=NONCE_KEEP_MS,
    )
    if not fresh:
        raise Refused(401, "signed request refused: nonce already used (a replay)")
    return Principal(kind="signed", key_id=assertion.key_id)


async def _session(request: Request, console: Console) -> Principal | None:
    """The cookie's session while the database says it is live (not logged out, not from
    before a new access code)."""
    if not console.accepts_sessions:
        return None
    now = now_of(request)
    session = console.sessions.read(request.cookies.get(SESSION_COOKIE), now=now)
    if session is None:
        return None
    from deskd.service.ops.console_sessions import live_session

    number = await run_in_threadpool(console.call, now, live_session, session.sid)
    return None if number is None else Principal(kind="session", session=session, number=number)


async def reader(request: Request) -> Principal:
    """Dependency of every page: a live session or a signed request, else login."""
    console = console_of(request)
    found = await _session(request, console)
    if found is None and console.accepts_signed:
        found = await _signed(request, console, await request.body())
    if found is None:
        raise LoginRequired()
    request.state.principal = found
    return found


async def actor(request: Request) -> Principal:
    """Dependency of every action: a session with its CSRF token, or a signed request.

    The form is parsed here (url-encoded) and kept on ``request.state.form``."""
    console = console_of(request)
    body = await request.body()
    request.state.form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    found = await _signed(request, console, body) if console.accepts_signed else None
    if found is None:
        found = await _session(request, console)
        if found is None:
            raise LoginRequired("no valid session (log in again)")
        given = request.state.form.get("csrf") or request.headers.get("x-csrf-token")
        if not csrf_matches(found.csrf, given):
            raise Refused(403, "missing or invalid CSRF token: reload the page and try again")
    request.state.principal = found
    return found
