"""Simple-mode sessions: a signed, expiring cookie with its own CSRF token, and the bounded
pool that checks access codes off the event loop. Stdlib only; time is an argument.

A cookie only says which session it is; whether that session is still live (not logged out,
not from before a new code) is the database's answer (``service.ops.console``), so a
restart forgets neither a logout nor a throttled client.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

SESSION_COOKIE = "deskd_session"
LOGIN_COOKIE = "deskd_login"
SESSION_TTL_MS = 8 * 3600 * 1000
# Access codes are checked by this many threads, with this many more logins allowed to wait;
# any further login is refused at once (503) rather than queued behind a flood.
HASH_WORKERS = 2
HASH_QUEUE = 4


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True, slots=True)
class Session:
    sid: str
    expires_at: int
    csrf: str


@dataclass
class SessionCodec:
    """Makes and checks session cookies: ``payload.mac`` with HMAC-SHA256 over the payload."""

    secret: bytes
    ttl_ms: int = SESSION_TTL_MS

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self.secret, payload.encode(), hashlib.sha256).digest())

    def new(self, *, now: int) -> tuple[Session, str]:
        session = Session(
            sid=secrets.token_urlsafe(16),
            expires_at=now + self.ttl_ms,
            csrf=secrets.token_urlsafe(24),
        )
        body = {"sid": session.sid, "exp": session.expires_at, "csrf": session.csrf}
        payload = _b64(json.dumps(body, separators=(",", ":")).encode())
        return session, f"{payload}.{self._mac(payload)}"

    def read(self, cookie: str | None, *, now: int) -> Session | None:
        """The session a cookie carries, or None when it is absent, malformed, forged or
        expired (whether it was revoked is the database's answer)."""
        if not cookie or "." not in cookie or not cookie.isascii() or len(cookie) > 4096:
            return None
        payload, mac = cookie.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(payload)):
            return None
        try:
            data = json.loads(_unb64(payload))
            session = Session(
                sid=str(data["sid"]), expires_at=int(data["exp"]), csrf=str(data["csrf"])
            )
        except (ValueError, KeyError, TypeError):
            return None
        return session if session.expires_at > now else None


def csrf_matches(expected: str, given: str | None) -> bool:
    if not given:
        return False
    raw = str(given).encode("utf-8", "surrogatepass")
    return hmac.compare_digest(expected.encode("utf-8", "surrogatepass"), raw)


class PoolFull(Exception):
    """Every worker is busy and the queue is full: refuse the login now."""


@dataclass
class CodeChecker:
    """Checks access codes (scrypt: tens of milliseconds of CPU) on a few threads, so pages
    keep being served during a login flood; at most ``HASH_WORKERS + HASH_QUEUE`` at once."""

    workers: int = HASH_WORKERS
    queue: int = HASH_QUEUE
    busy: int = 0
    pool: ThreadPoolExecutor = field(init=False)

    def __post_init__(self) -> None:
        self.pool = ThreadPoolExecutor(self.workers, thread_name_prefix="deskd-login")

    def reserve(self) -> None:
        """Take a place (on the event loop's thread, so the count needs no lock)."""
        if self.busy >= self.workers + self.queue:
            raise PoolFull()
        self.busy += 1

    def release(self) -> None:
        self.busy -= 1

    async def run(self, check: Callable[[], bool]) -> bool:
        """Run ``check`` on the pool, with a place taken by ``reserve``."""
        import asyncio

        return await asyncio.get_running_loop().run_in_executor(self.pool, check)
