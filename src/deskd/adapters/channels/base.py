"""What every channel transport shares: a target to send to, its result, and scrubbing.

Channel URLs are secrets (webhook tokens, SMTP passwords). They are shown only through
``privacy.private_url`` — in logs, ``deskd pages``, ``deskd channels`` and ``deskd doctor``
— and an error text from a transport is passed through ``scrub`` before it is stored or
printed.

The outbox: with no channel for the role (none of its own, no desk default, no
``DESKD_NOTIFY_URLS``), the page row itself is the page: ``deskd pages`` and the board show
it, and the pager sends it the moment a channel appears (lesson 12); ``outbox_reason`` says
why it waits there.

Python channels (``deskd.config.register_channel``): a registered channel's URL is
``python://NAME``, so the pager routes, holds, retries and settles it exactly like an apprise
URL; only the send differs. ``SplitTransport`` sends ``python://`` targets to the host's
callable and the rest through apprise, loading apprise only when some target needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import NamedTuple, Protocol

from deskd.config.host import PYTHON_CHANNEL_SCHEME, ChannelSender, PageMessage

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


class PythonTransport:
    """Calls each target's registered sender, bounded by the send budget."""

    def __init__(self, senders: Mapping[str, ChannelSender]) -> None:
        self.senders = senders

    def send(
        self, targets: list[Target], *, title: str, body: str, kind: str, budget_s: float
    ) -> dict[str, Delivery]:
        message = PageMessage(title=title, body=body, kind=kind)
        return {t.key: self._one(t, message, budget_s) for t in targets}

    def _one(self, target: Target, message: PageMessage, budget_s: float) -> Delivery:
        name = target.url[len(PYTHON_CHANNEL_SCHEME) :]
        sender = self.senders.get(name)
        if sender is None:
            return Delivery(
                key=target.key,
                ok=False,
                error=f"python channel {name!r} is not registered in this process "
                "(register_channel in the DESKD_CONFIG_MODULE's configure_deskd())",
            )
        outcome: list[object] = []
        failure: list[BaseException] = []

        def call() -> None:
            try:
                outcome.append(sender(message))
            except BaseException as exc:  # the host's bug is this send's failure, not ours
                failure.append(exc)

        # A thread so a stuck sender cannot hold the tick past the send budget.
        worker = threading.Thread(target=call, daemon=True, name=f"deskd-channel-{name}")
        worker.start()
        worker.join(timeout=budget_s)
        if worker.is_alive():
            return Delivery(key=target.key, ok=False, error=f"no answer within {budget_s:g}s")
        if failure:
            exc = failure[0]
            text = " ".join(str(exc).split()) or type(exc).__name__
            return Delivery(key=target.key, ok=False, error=f"{type(exc).__name__}: {text}")
        if outcome and outcome[0] is False:
            return Delivery(key=target.key, ok=False, error="the sender returned False")
        return Delivery(key=target.key, ok=True)


class SplitTransport:
    """``python://`` targets to ``python``; every other target to ``other()`` (apprise)."""

    def __init__(self, python: Transport, other: Callable[[], Transport]) -> None:
        self.python = python
        self.other = other

    def send(
        self, targets: list[Target], *, title: str, body: str, kind: str, budget_s: float
    ) -> dict[str, Delivery]:
        mine = [t for t in targets if t.url.startswith(PYTHON_CHANNEL_SCHEME)]
        rest = [t for t in targets if t not in mine]
        results: dict[str, Delivery] = {}
        if mine:
            results.update(
                self.python.send(mine, title=title, body=body, kind=kind, budget_s=budget_s)
            )
        if rest:
            results.update(
                self.other().send(rest, title=title, body=body, kind=kind, budget_s=budget_s)
            )
        return results
