"""The console's login state, all in the database so a restart forgets none of it: sessions
and the access code's generation, the per-client login throttle, and how each supervisor
action was authenticated. Time is ``ctx.now``."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets

from deskd.service.desk.context import DeskContext
from deskd.service.ops.console import session_secret, stored_access
from deskd.store import console as console_rows
from deskd.store.dialect import Connection

# Wrong codes a client may make before it must wait; then each wait doubles, up to the cap.
FREE_FAILURES = 3
FIRST_WAIT_MS = 1000
MAX_WAIT_MS = 15 * 60 * 1000
FORGET_FAILURES_MS = 24 * 3600 * 1000  # a client quiet this long starts afresh
# A login link (``deskd serve --open-link``) works once, within this long of the start.
LINK_TTL_MS = 5 * 60 * 1000
LINK_META = "login_link"
USED = "this login link was used already (it works once): log in with the access code"


# -- sessions and the code's generation (in the database: a restart forgets none of it) -------


def _generation(conn: Connection) -> int:
    value = console_rows.meta(conn, "code_generation")
    return int(value) if value else 0


def sync_code_generation(ctx: DeskContext, *, new_code: bool = False) -> int:
    """Start a new generation (ending every session) when the code changed since the last
    start, or when ``new_code`` says it just did; returns the current generation."""
    settings = ctx.settings
    if settings.supervisor_access_code:
        material = settings.supervisor_access_code
    else:
        stored = stored_access(settings)
        material = json.dumps(stored, sort_keys=True) if stored else ""
    fingerprint = hmac.new(session_secret(settings), material.encode(), "sha256").hexdigest()
    with ctx.write() as conn:
        current = console_rows.meta(conn, "code_generation")
        generation = int(current) if current else 0
        changed = console_rows.meta(conn, "code_fingerprint") != fingerprint
        if new_code or (changed and current is not None):
            generation += 1
            console_rows.set_meta(conn, LINK_META, "")  # a link printed before it ends too
        console_rows.set_meta(conn, "code_generation", str(generation))
        console_rows.set_meta(conn, "code_fingerprint", fingerprint)
    return generation


def start_session(ctx: DeskContext, sid: str, *, expires_at: int) -> int:
    """Record a new session of the current generation; returns its number."""
    with ctx.write() as conn:
        console_rows.forget_sessions(conn, before=ctx.now)
        return console_rows.add_session(
            conn, sid, generation=_generation(conn), now=ctx.now, expires_at=expires_at
        )


def live_session(ctx: DeskContext, sid: str) -> int | None:
    """The session's number while it is unrevoked, unexpired and of the current generation."""
    row = console_rows.session_row(ctx.conn, sid)
    if row is None or row["revoked_at"] is not None or row["expires_at"] <= ctx.now:
        return None
    return int(row["id"]) if row["generation"] == _generation(ctx.conn) else None


def end_session(ctx: DeskContext, sid: str) -> None:
    with ctx.write() as conn:
        console_rows.revoke_session(conn, sid, now=ctx.now)


# -- the login throttle: per client, growing waits, kept in the database ----------------------


def throttle_wait_ms(failures: int) -> int:
    """How long a client must wait after its ``failures``-th wrong code in a row: nothing
    before the ``FREE_FAILURES``-th, so the attempt after it is the first refused (429)."""
    if failures < FREE_FAILURES:
        return 0
    return min(FIRST_WAIT_MS << min(failures - FREE_FAILURES, 30), MAX_WAIT_MS)


def login_attempt(ctx: DeskContext, client: str) -> int | None:
    """Count a login attempt from ``client`` as wrong until it proves right (so parallel
    guesses cannot all slip through before the first is checked). Returns until when the
    client must wait (Unix ms) instead, counting nothing, when it is too early."""
    with ctx.write() as conn:
        console_rows.forget_throttles(conn, before=ctx.now - FORGET_FAILURES_MS)
        row = console_rows.throttle_row(conn, client)
        if row is not None and row["wait_until"] > ctx.now:
            return int(row["wait_until"])
        failures = (int(row["failures"]) if row is not None else 0) + 1
        wait_until = ctx.now + throttle_wait_ms(failures)
        console_rows.set_throttle(
            conn, client, failures=failures, now=ctx.now, wait_until=wait_until
        )
    return None


def login_succeeded(ctx: DeskContext, client: str) -> None:
    with ctx.write() as conn:
        console_rows.clear_throttle(conn, client)


# -- the single-use login link: only its hash is kept, and only the newest one counts ---------


def _link_hash(token: str) -> str:
    # 32 random bytes need no salt or slow hash: nothing can be guessed from the digest.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue_login_link(ctx: DeskContext, *, ttl_ms: int = LINK_TTL_MS) -> str:
    """A new login link's token (any older link stops working); the database keeps only its
    SHA-256 and when it expires."""
    token = secrets.token_urlsafe(32)
    value = json.dumps({"hash": _link_hash(token), "expires_at": ctx.now + ttl_ms, "used": 0})
    with ctx.write() as conn:
        console_rows.set_meta(conn, LINK_META, value)
    return token


def use_login_link(ctx: DeskContext, token: str) -> str | None:
    """Spend the link ``token``: None when it was this console's current link, unused and
    unexpired (it is used up now, for good); else why not, in words for the login page."""
    stored = console_rows.meta(ctx.conn, LINK_META)
    link = json.loads(stored) if stored else None
    if link is None or not hmac.compare_digest(link["hash"], _link_hash(token)):
        return (
            "this login link is unknown or was replaced (each start with --open-link prints "
            "a new one, and only the newest works): log in with the access code"
        )
    if link["used"]:
        return USED
    if link["expires_at"] <= ctx.now:
        minutes = LINK_TTL_MS // 60000
        return (
            f"this login link expired (it works for {minutes} minutes after deskd serve "
            "printed it): log in with the access code, or restart with --open-link"
        )
    spent = json.dumps({**link, "used": ctx.now})
    with ctx.write() as conn:
        if not console_rows.swap_meta(conn, LINK_META, old=stored or "", new=spent):
            return USED
    return None
