"""``create_app(settings)``: the supervisor console as a FastAPI application.

The edge of every request: the clock is read once (``request.state.now``), security headers
are set on every response, and refusals map to statuses in one place — a DeskdError to
400/404/409/503 by its code, a missing session to the login page (pages) or 401.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from deskd.adapters.clock import now_ms
from deskd.config.settings import Settings
from deskd.errors import DeskdError
from deskd.service.ops.console import is_loopback, session_secret
from deskd.web.auth.guard import LoginRequired, Refused, path_of, wants_json
from deskd.web.auth.sessions import SessionCodec
from deskd.web.console import Console, allowed_hosts, host_of

STATIC = Path(__file__).with_name("static")
# No inline script or style anywhere (the ladder picture uses SVG attributes, not CSS), so
# the policy can forbid both; frame-ancestors stops the console being framed (clickjacking).
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
NOT_FOUND_CODES = ("unknown_", "no_")
CONFLICT_CODES = ("already_", "conflict", "attempt_closed", "hook_closed", "silence_over")


def create_app(
    settings: Settings,
    *,
    clock: Callable[[], int] | None = None,
    host: str | None = None,
    poll_s: float = 1.0,
    stream_polls: int | None = None,
) -> FastAPI:
    """The console for the desk ``settings`` names. ``clock`` (Unix ms) defaults to the
    system clock or ``DESKD_NOW``; ``host`` is the bind address (cookies are ``Secure`` off
    loopback); ``poll_s``/``stream_polls`` pace the live-refresh stream."""
    from deskd.web.auth import guard as auth
    from deskd.web.routes import actions, desk_pages, outside

    app = FastAPI(title="deskd console", docs_url=None, redoc_url=None, openapi_url=None)
    bind = host or settings.host
    url_host = urlsplit(settings.console_url or "").hostname or ""
    app.state.console = Console(
        settings=settings,
        clock=clock or (lambda: now_ms(settings.now)),
        sessions=SessionCodec(session_secret(settings)),
        # The name in DESKD_CONSOLE_URL is one people reach the console by (its links do).
        hosts=allowed_hosts(bind, f"{settings.console_hosts or ''} {url_host}"),
        # Off loopback the console sits behind TLS (docs/operations.md): a cookie that
        # could travel in clear text would hand the session to anyone on the path.
        secure_cookies=not is_loopback(bind),
        poll_s=poll_s,
        stream_polls=stream_polls,
    )

    @app.middleware("http")
    async def edge(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        refusal = _wrong_host(request, app.state.console)
        if refusal is not None:
            response: Response = PlainTextResponse(refusal + "\n", status_code=421)
        else:
            request.state.now = app.state.console.clock()
            response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    app.add_exception_handler(LoginRequired, _login_required)  # type: ignore[arg-type]
    app.add_exception_handler(Refused, _refused)  # type: ignore[arg-type]
    app.add_exception_handler(DeskdError, _deskd_error)  # type: ignore[arg-type]
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # Every route needs the supervisor but those ``outside`` it (/act, /events, /metrics).
    for module in (auth, desk_pages, actions, outside):
        app.include_router(module.router)
    return app


def _wrong_host(request: Request, console: Console) -> str | None:
    """Why a request's Host is not this console's (a DNS-rebinding page names its own
    domain, which resolves to this address), or None."""
    given = request.headers.get("host", "")
    if host_of(given) in console.hosts:
        return None
    allowed = ", ".join(sorted(console.hosts))
    shown = given if given.isprintable() and len(given) <= 100 else repr(given[:100])
    return (
        f"Host {shown!r} is not this console's (allowed: {allowed}); add a name it is "
        "reached by to DESKD_CONSOLE_HOSTS"
    )


async def _login_required(request: Request, exc: LoginRequired) -> Response:
    if request.method == "GET" and not wants_json(request) and request.url.path != "/live":
        target = quote(path_of(request), safe="")
        return RedirectResponse(f"/login?next={target}", status_code=303)
    return _error(request, 401, exc.reason)


async def _refused(request: Request, exc: Refused) -> Response:
    response = _error(request, exc.status, exc.message)
    if exc.retry_after_s is not None:
        response.headers["Retry-After"] = str(exc.retry_after_s)
    return response


async def _deskd_error(request: Request, exc: DeskdError) -> Response:
    return _error(request, status_of(exc), exc.message, code=exc.code)


def status_of(exc: DeskdError) -> int:
    """One mapping from deskd's refusals to HTTP statuses."""
    if exc.exit_code == 3:
        return 503
    if exc.code.startswith(NOT_FOUND_CODES):
        return 404
    if exc.code.startswith(CONFLICT_CODES):
        return 409
    if exc.code in ("not_permitted", "not_owner", "not_task_party"):
        return 403
    return 400


def _error(request: Request, status: int, message: str, *, code: str | None = None) -> Response:
    if (
        wants_json(request)
        or request.url.path == "/live"
        or request.url.path.startswith("/events/")
    ):
        return JSONResponse({"error": {"code": code or str(status), "message": message}}, status)
    from deskd.web.render import page

    return page(request, "error.html", ctx=None, status=status, message=message)
