"""Simple-mode sessions: a signed, expiring cookie with its own CSRF token, logout that
revokes it, and a lockout after repeated wrong codes. Stdlib only; time is an argument.

State kept in memory (revoked sessions, failure counts) is per server process: a restart
forgets a lockout, and the console runs as one process (``deskd serve``), so nothing is
shared that needs the database.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field

SESSION_COOKIE = "deskd_session"
LOGIN_COOKIE = "deskd_login"
SESSION_TTL_MS = 8 * 3600 * 1000
MAX_FAILURES = 5
LOCKOUT_MS = 15 * 60 * 1000


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
    revoked: dict[str, int] = field(default_factory=dict)

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
        """The session a cookie carries, or None when it is absent, forged, expired or revoked."""
        if not cookie or "." not in cookie:
            return None
        payload, mac = cookie.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(payload)):
            return None
        try:
            data = json.loads(_unb64(payload))
            session = Session(sid=str(data["sid"]), expires_at=int(data["exp"]), csrf=data["csrf"])
        except (ValueError, KeyError, TypeError):
            return None
        if session.expires_at <= now or session.sid in self.revoked:
            return None
        return session

    def revoke(self, session: Session, *, now: int) -> None:
        self.revoked[session.sid] = session.expires_at
        # Forget revocations whose cookies have expired anyway, so the map stays small.
        for sid in [s for s, exp in self.revoked.items() if exp <= now]:
            del self.revoked[sid]


def csrf_matches(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), str(given).encode())


@dataclass
class Lockout:
    """Five wrong codes from one client lock it out for fifteen minutes."""

    failures: dict[str, list[int]] = field(default_factory=dict)
    locked_until: dict[str, int] = field(default_factory=dict)

    def locked(self, client: str, *, now: int) -> int | None:
        """Until when ``client`` is locked out (Unix ms), or None."""
        until = self.locked_until.get(client)
        if until is None:
            return None
        if until <= now:
            del self.locked_until[client]
            self.failures.pop(client, None)
            return None
        return until

    def fail(self, client: str, *, now: int) -> None:
        recent = [t for t in self.failures.get(client, []) if t > now - LOCKOUT_MS]
        recent.append(now)
        self.failures[client] = recent
        if len(recent) >= MAX_FAILURES:
            self.locked_until[client] = now + LOCKOUT_MS

    def succeed(self, client: str) -> None:
        self.failures.pop(client, None)
