"""``DESKD_TICK_PING_URL``: a dead-man's switch the tick calls (healthchecks.io convention).

Every tick calls ``<url>/start`` before its work, then ``<url>`` on success or
``<url>/fail`` (with the reason as the body) on error. A monitor that stops hearing the
pings pages someone: that is what catches a dead cron line or a broken environment, which
the tick itself cannot report. A ping is short (``PING_TIMEOUT_S``) and never fails the tick.
"""

from __future__ import annotations

from deskd.service.desk.context import DeskContext

PING_TIMEOUT_S = 5.0
_SUFFIX = {"start": "/start", "success": "", "fail": "/fail"}


def ping_url(base: str, phase: str) -> str:
    """The URL a phase calls: ``/start`` and ``/fail`` go before any query string."""
    path, sep, query = base.strip().partition("?")
    return path.rstrip("/") + _SUFFIX[phase] + sep + query


def ping(ctx: DeskContext, phase: str, reason: str = "") -> None:
    """``phase`` is ``start``, ``success`` or ``fail``; a failed ping never fails the tick."""
    base = ctx.settings.tick_ping_url
    if not base or phase not in _SUFFIX:
        return
    import urllib.request  # only with a ping URL: it loads http, email and ssl

    data = reason[:1000].encode("utf-8", "replace") if phase == "fail" and reason else None
    try:  # building the request too: a URL urllib cannot parse is a failed ping, no more
        request = urllib.request.Request(
            ping_url(base, phase),
            data=data,
            method="POST" if data is not None else "GET",
            headers={"User-Agent": "deskd-tick"},
        )
        with urllib.request.urlopen(request, timeout=PING_TIMEOUT_S) as response:
            response.read(1024)
    except Exception:
        pass  # the monitor notices a missing ping; the tick itself goes on
