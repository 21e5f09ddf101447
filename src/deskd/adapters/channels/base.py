"""What every channel transport shares: a target to send to, its result, and scrubbing.

Channel URLs are secrets (webhook tokens, SMTP passwords). They are shown only through
``privacy.private_url`` — in logs, ``deskd pages``, ``deskd channels`` and ``deskd doctor``
— and an error text from a transport is passed through ``scrub`` before it is stored or
printed.

The outbox: with no channel for the role (none of its own, no desk default, no
``DESKD_NOTIFY_URLS``), the page row itself is the page: ``deskd pages`` and the board show
it, and the pager sends it the moment a channel appears (lesson 12); ``outbox_reason`` says
why it waits there.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

SEND_BUDGET_S = 15.0
"""Longest one send may take, every service and retry included (a tick runs each minute)."""


class Target(NamedTuple):
    """One apprise URL to send to; ``key`` identifies it in the results."""

    key: str
    url: str
    """The real URL (``${VAR}`` filled): never printed."""
    masked: str
    problem: str | None = None
    """Why it cannot be sent (a ``${VAR}`` it needs is not set): refused, never sent half-filled."""


class Delivery(NamedTuple):
    """How one target took one send: ``ok``, or the error text (already scrubbed)."""

    key: str
    ok: bool
    error: str | None = None
    permanent: bool = False
    """True when retrying cannot help (apprise cannot read the URL)."""


class Transport(Protocol):
    def send(
        self, targets: list[Target], *, title: str, body: str, kind: str, budget_s: float
    ) -> dict[str, Delivery]: ...


def scrub(text: str, secrets: list[str]) -> str:
    """``text`` (an error from a transport) with every known secret replaced by ``****``."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        # A short secret (a two-letter password) is replaced only where it sits in a URL,
        # so ordinary words in the message survive.
        if len(secret) >= 3:
            text = text.replace(secret, "****")
        else:
            for before, after in ((":", "@"), ("/", "/"), ("=", "&")):
                text = text.replace(f"{before}{secret}{after}", f"{before}****{after}")
    return text


def outbox_reason(role: str, priority: str, *, filtered: bool) -> str:
    """Why a page for ``role`` has no channel: shown as the page's ``why`` in ``deskd pages``."""
    if filtered:
        return f"outbox: no channel of {role} takes {priority} pages (see severity in deskd.toml)"
    return (
        f"outbox: no channel for {role} (add channels = [...] to the role, "
        "default_channels to [desk], or set DESKD_NOTIFY_URLS)"
    )
