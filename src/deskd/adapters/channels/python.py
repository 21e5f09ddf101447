"""Python channels (``deskd.config.register_channel``): pages handed to a host callable.

A registered channel's URL is ``python://NAME``, so the pager routes, holds, retries and
settles it exactly like an apprise URL; only the send differs. ``SplitTransport`` sends
``python://`` targets here and the rest through apprise, loading apprise only when some
target needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from deskd.adapters.channels.base import Delivery, Target, Transport
from deskd.config.host import PYTHON_CHANNEL_SCHEME, ChannelSender, PageMessage


def is_python(url: str) -> bool:
    return url.startswith(PYTHON_CHANNEL_SCHEME)


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
        mine = [t for t in targets if is_python(t.url)]
        rest = [t for t in targets if not is_python(t.url)]
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
