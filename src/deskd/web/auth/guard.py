"""Who is asking: every page and read needs a session (simple mode) or a signed assertion
(signed mode); ``hybrid`` takes either. Every POST also needs the session's CSRF token, or
is itself signed. Refusals are exceptions the app maps to 303 (to the login page), 401,
403 or 429. And the routes that make a session: logging in with the access code (simple and
hybrid modes) or a login link, and logging out."""

from __future__ import annotations

import secrets
from contextlib import AbstractContextManager
from dataclasses import dataclass
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from deskd.core.timeparse import iso_utc
from deskd.errors import ConsoleRefused
from deskd.service.desk.context import DeskContext
from deskd.service.ops import console as console_service
from deskd.service.ops import console_sessions
from deskd.web.auth.sessions import LOGIN_COOKIE, SESSION_COOKIE, PoolFull, Session, csrf_matches
from deskd.web.console import Console, console_of
from deskd.web.render import page

NONCE_KEEP_MS = 20 * 60 * 1000  # twice the assertion window: older replays are stale anyway
LOGIN_TOKEN_S = 3600
router = APIRouter()


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
    return console_of(request).desk(now_of(request))


def path_of(request: Request) -> str:
    """The path with its query, as signed and as a login returns to."""
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


async def _signed(request: Request, console: Console, body: bytes) -> Principal | None:
    """The signed principal, after its nonce is burned; None when the request is unsigned."""
    from deskd.web.auth.signed import AssertionRefused, parse, verify

    try:
        assertion = parse({k.lower(): v for k, v in request.headers.items()})
        if assertion is None:
            return None
        try:
            keys = console_service.read_public_keys(console.settings.supervisor_keys)
        except ConsoleRefused as exc:  # the server's own keys file: not the caller's fault
            raise Refused(503, f"signed requests cannot be checked: {exc.message}") from None
        now = now_of(request)
        verify(assertion, keys, method=request.method, path=path_of(request), body=body, now=now)
    except AssertionRefused as exc:
        raise Refused(401, f"signed request refused: {exc}") from None
    fresh = await run_in_threadpool(
        console.call,
        now,
        console_service.burn_nonce,
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
    number = await run_in_threadpool(console.call, now, console_sessions.live_session, session.sid)
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


def safe_next(target: str | None) -> str:
    """Only a path on this console: never another site (an open redirect) or ``//host``."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def client_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.get("/login")
def login_form(request: Request, next: str = "/") -> Response:
    return _login_page(request, next=next)


def _login_page(
    request: Request, *, next: str = "/", error: str = "", status: int = 200, csrf: str = ""
) -> Response:
    """The login form; without ``csrf`` (the one its form carried), with a fresh CSRF token
    of its own (cookie and hidden field)."""
    console = console_of(request)
    token = csrf or secrets.token_urlsafe(24)
    response = page(
        request,
        "login.html",
        ctx=None,
        status=status,
        login_csrf=token,
        next=safe_next(next),
        accepts_sessions=console.accepts_sessions,
        error=error,
    )
    if not csrf:
        _cookie(response, console, LOGIN_COOKIE, token, LOGIN_TOKEN_S)
    return response


def _cookie(response: Response, console: Console, name: str, value: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        samesite="strict",
        secure=console.secure_cookies,
    )


@router.post("/login")
async def login(request: Request) -> Response:
    console, now = _login_console(request)
    form = dict(parse_qsl((await request.body()).decode("utf-8", "replace")))
    # A login form needs its own CSRF token (double submit): without it another site could
    # log a browser in under the attacker's code.
    if not csrf_matches(request.cookies.get(LOGIN_COOKIE, ""), form.get("csrf")):
        raise Refused(403, "missing or invalid CSRF token: reload the login page")
    try:
        console.checker.reserve()
    except PoolFull:
        raise Refused(503, "too many logins at once: try again in a moment") from None
    try:
        client = client_of(request)
        await _not_throttled(console, client, now)
        settings, code = console.settings, form.get("code", "")
        right = await console.checker.run(lambda: console_service.check_access_code(settings, code))
    finally:
        console.checker.release()
    if not right:
        return _login_page(
            request,
            next=form.get("next") or "/",
            error="wrong access code",
            status=401,
            csrf=form.get("csrf", ""),
        )
    return await _signed_in(console, client, now, safe_next(form.get("next")))


@router.get("/login/link")
async def login_link(request: Request, token: str = "") -> Response:
    """A link ``deskd serve --open-link`` printed: it works once, within minutes, and leads
    to the board (the token leaves the address bar at once); any other gets the login form.

    A door of its own, never throttled: 32 random bytes cannot be guessed, and counting wrong
    links as wrong codes let any local process keep the supervisor's code and link at 429."""
    console, now = _login_console(request)
    client = client_of(request)
    reason = await run_in_threadpool(console.call, now, console_sessions.use_login_link, token)
    if reason is not None:
        return _login_page(request, error=reason, status=401)
    return await _signed_in(console, client, now, "/")


def _login_console(request: Request) -> tuple[Console, int]:
    """The console and the request's clock; a login is refused in signed mode."""
    console = console_of(request)
    if not console.accepts_sessions:
        raise Refused(403, "this console accepts signed requests only (signed mode)")
    return console, now_of(request)


async def _not_throttled(console: Console, client: str, now: int) -> None:
    """Count an attempt as wrong until it proves right; 429 while the client must wait."""
    until = await run_in_threadpool(console.call, now, console_sessions.login_attempt, client)
    if until is not None:
        wait_s = max(1, -(-(until - now) // 1000))
        raise Refused(
            429,
            f"too many wrong codes from this client: wait {wait_s} s (until {iso_utc(until)}) "
            "before the next try",
            retry_after_s=wait_s,
        )


async def _signed_in(console: Console, client: str, now: int, target: str) -> Response:
    """The one way a session starts (access code or login link): its row, its cookie, and a
    redirect to ``target``."""
    session, cookie = console.sessions.new(now=now)
    await run_in_threadpool(_start, console, client, session.sid, session.expires_at, now)
    response = RedirectResponse(target, status_code=303)
    _cookie(response, console, SESSION_COOKIE, cookie, console.sessions.ttl_ms // 1000)
    response.delete_cookie(LOGIN_COOKIE)
    return response


def _start(console: Console, client: str, sid: str, expires_at: int, now: int) -> None:
    with console.desk(now) as ctx:
        console_sessions.login_succeeded(ctx, client)
        console_sessions.start_session(ctx, sid, expires_at=expires_at)


@router.post("/logout")
async def logout(request: Request, who: Principal = Depends(actor)) -> Response:
    console = console_of(request)
    if who.session is not None:
        await run_in_threadpool(
            console.call, now_of(request), console_sessions.end_session, who.session.sid
        )
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response
