"""Logging in with the access code (simple and hybrid modes) and logging out."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from deskd.core.timeparse import iso_utc
from deskd.service.ops import console as console_service
from deskd.service.ops import console_sessions
from deskd.web.auth.guard import Principal, Refused, actor, now_of
from deskd.web.auth.sessions import LOGIN_COOKIE, SESSION_COOKIE, PoolFull, csrf_matches
from deskd.web.console import Console, console_of
from deskd.web.render import page

router = APIRouter()
LOGIN_TOKEN_S = 3600


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
