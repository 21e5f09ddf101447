"""A page's action links: signed, bound to one page and one action, expiring, used once.

A link is ``<console>/act/<page>.<action>.<expiry>.<mac>``: the MAC is HMAC-SHA256, under
the desk's link key (``data/page-links.key``, 0600, like the console's session key), over
the other three parts, so changing the page, the action or the expiry breaks it. Whether a
link was used already is the database's answer (``store.pages.use_page_link``, in the
action's own transaction: service/ops/page_actions.py). Stdlib only; time is an argument.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import TYPE_CHECKING

from deskd.adapters.private import private_key_file
from deskd.errors import LinkRefused

if TYPE_CHECKING:
    from deskd.config.desk import Desk
    from deskd.config.settings import Settings

KEY_FILE = "page-links.key"
DEFAULT_TTL_S = 24 * 3600
ACTIONS = {
    "ack": "Acknowledge",
    "snooze1h": "Snooze 1 h",
    "snooze4h": "Snooze 4 h",
    "resolve": "Resolve",
    "pause": "Pause the role",
}
"""Each action a link may carry, with its label in the page and on the confirm page; a
question's page adds ``a0``, ``a1`` …: answer with its first, second … option."""


def is_action(action: str) -> bool:
    return action in ACTIONS or (len(action) == 2 and action[0] == "a" and action[1].isdigit())


def console_address(settings: Settings, desk: Desk) -> str | None:
    """The console as people reach it (``DESKD_CONSOLE_URL``, else the desk file's
    ``console_url``), without a trailing slash; None when the desk does not know it."""
    url = settings.console_url or desk.section.console_url
    return url.rstrip("/") if url else None


def link_ttl_s(settings: Settings) -> int:
    """How long a link works: ``DESKD_LINK_TTL`` (checked when settings load), else 24 h."""
    if not settings.link_ttl:
        return DEFAULT_TTL_S
    from deskd.core.timeparse import parse_duration

    return parse_duration(settings.link_ttl, what="DESKD_LINK_TTL")


def link_key(settings: Settings) -> bytes:
    return private_key_file(settings.home / "data" / KEY_FILE)


def _mac(key: bytes, message: str) -> str:
    digest = hmac.new(key, message.encode(), hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def reply_tag(key: bytes, page_id: int) -> str:
    """The MAC a page's subject token carries (``[deskd page N TAG]``): 14 URL-safe characters
    (84 bits), so a forged reply cannot guess it. ``reply.N`` has two parts, a link's message
    three: a tag is never a link's MAC."""
    return _mac(key, f"reply.{page_id}")[:14]


def make_token(key: bytes, page_id: int, action: str, *, expires_ms: int) -> str:
    """The link's last path segment (short: a chat app shows it whole)."""
    message = f"{page_id}.{action}.{expires_ms // 1000:x}"
    return f"{message}.{_mac(key, message)}"


def read_token(key: bytes, token: str, *, now: int) -> tuple[int, str]:
    """The (page id, action) a genuine, unexpired token carries; else LinkRefused saying why."""
    parts = token.split(".") if token.isascii() and len(token) <= 100 else []
    if len(parts) != 4 or not parts[0].isdigit() or not is_action(parts[1]):
        raise LinkRefused("it is not a deskd page link (copy the whole address)")
    message = ".".join(parts[:3])
    if not hmac.compare_digest(parts[3], _mac(key, message)):
        raise LinkRefused("its signature does not match (altered, or from another desk)")
    try:
        expires_ms = int(parts[2], 16) * 1000
    except ValueError:
        raise LinkRefused("its expiry is unreadable") from None
    if expires_ms <= now:
        raise LinkRefused("it has expired; act from the console or the shell instead")
    return int(parts[0]), parts[1]


def action_lines(
    settings: Settings,
    desk: Desk,
    *,
    page_id: int,
    role: str,
    attempt_id: int,
    now: int,
    question: tuple[int, list[str] | None] | None = None,
) -> list[str]:
    """How a person acts on a page, for its message: the exact shell commands always, and
    one signed link per action (and one into the console) when the console's address is
    known. A ``question`` (id, options) adds how to answer it, a link per option."""
    qid, options = question or (0, None)
    lines = [f"Answer: `deskd answer {qid} {'|'.join(options or ['TEXT'])}`"] if question else []
    lines += [
        f'Act: once someone has it, `deskd wake ack {attempt_id} --note "…"` stops the climb '
        f'(`deskd wake explain --role {role}` shows it); `deskd pause --role {role} --reason "…"` '
        "stops its wakes and pages.",
    ]
    base = console_address(settings, desk)
    if base is None:
        return lines
    key, expires = link_key(settings), now + link_ttl_s(settings) * 1000
    answers = {f"a{n}": f"Answer {option!r}" for n, option in enumerate(options or [])}
    for action, label in {**answers, **ACTIONS}.items():
        token = make_token(key, page_id, action, expires_ms=expires)
        lines.append(f"{label}: {base}/act/{token}")
    lines.append(f"Console: {base}/pages#page-{page_id}")
    return lines
