"""The apprise transport: every service apprise knows (Discord, Slack, email, ntfy, …).

The only module that imports apprise, and only inside functions, so commands that never
page never load it. One send is bounded by ``budget_s`` whatever the services do: apprise's
own call deadline stops waiting for a stuck service, and the retry policy below stops
before the budget runs out.
"""

from __future__ import annotations

import time
from typing import Any

from deskd.adapters.channels.base import Delivery, Target, scrub
from deskd.adapters.channels.privacy import asset, rendered, secret_parts, service_of

# Transient failures (a refused connection, a 5xx, a timeout) are retried inside the send:
# a short, bounded policy, configured once, as data.
RETRY_ATTEMPTS = 3
RETRY_FIRST_WAIT_S = 0.25
RETRY_MAX_WAIT_S = 2.0
_NOTIFY_TYPES = {"page": "warning", "follow_up": "failure", "settled": "success", "notice": "info"}


class AppriseTransport:
    """Sends one message to several apprise URLs; one ``Delivery`` per target."""

    def send(
        self, targets: list[Target], *, title: str, body: str, kind: str, budget_s: float
    ) -> dict[str, Delivery]:
        from tenacity import (
            Retrying,
            retry_if_result,
            stop_after_attempt,
            stop_after_delay,
            wait_exponential,
        )

        started = time.monotonic()
        results: dict[str, Delivery] = {}
        pending = list(targets)

        def one_round() -> list[Target]:
            nonlocal pending
            left = budget_s - (time.monotonic() - started)
            if left <= 0.2:
                return []
            got = _notify_once(pending, title=title, body=body, kind=kind, timeout_s=left)
            results.update(got)
            pending = [t for t in pending if not got[t.key].ok and not got[t.key].permanent]
            return pending

        retrying = Retrying(
            stop=stop_after_attempt(RETRY_ATTEMPTS) | stop_after_delay(budget_s * 0.6),
            wait=wait_exponential(multiplier=RETRY_FIRST_WAIT_S, max=RETRY_MAX_WAIT_S),
            retry=retry_if_result(bool),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else [],
        )
        retrying(one_round)
        for t in targets:
            results.setdefault(t.key, Delivery(key=t.key, ok=False, error="not sent: no time left"))
        return results


def _notify_once(
    targets: list[Target], *, title: str, body: str, kind: str, timeout_s: float
) -> dict[str, Delivery]:
    import apprise

    out: dict[str, Delivery] = {}
    notifier = apprise.Apprise(asset=asset())
    for t in targets:
        if not notifier.add(t.url, tag=t.key):
            out[t.key] = Delivery(
                key=t.key,
                ok=False,
                permanent=True,
                error="apprise cannot read this URL (unknown service or missing values)",
            )
    if len(notifier) == 0:
        return out
    result = notifier.notify(
        body=body,
        title=title,
        notify_type=_NOTIFY_TYPES.get(kind, "info"),
        body_format="text",
        timeout=timeout_s,
    )
    by_key = {t.key: t for t in targets}
    for service in result:
        key = next((tag for tag in service.tag if tag in by_key), None)
        if key is None:
            continue
        out[key] = _delivery(key, service, secret_parts(by_key[key].url))
    for t in targets:
        out.setdefault(t.key, Delivery(key=t.key, ok=False, error="apprise did not send it"))
    return out


def _delivery(key: str, service: Any, secrets: list[str]) -> Delivery:
    """apprise 2's per-service result: its status, and the last warning it logged as the why."""
    status = getattr(service.status, "name", str(service.status))
    if status == "SUCCESS":
        return Delivery(key=key, ok=True)
    messages = [e.message for e in service.logs() if e.level in ("WARNING", "ERROR", "CRITICAL")]
    why = messages[-1] if messages else ""
    if status == "TIMEOUT":
        why = f"timed out{': ' + why if why else ''}"
    return Delivery(key=key, ok=False, error=scrub(why or status.lower(), secrets)[:300])


def expand_config(path: str) -> list[tuple[str, str]]:
    """(URL, apprise's privacy URL) of each service in an existing apprise config file
    (YAML or TEXT), so a team reuses the configuration it already has."""
    import apprise

    config = apprise.AppriseConfig(asset=asset())
    if not config.add(path):
        return []
    services: list[Any] = list(config.services())  # apprise's services are untyped
    return [(str(s.url()), rendered(s)) for s in services]


def readable(url: str) -> bool:
    """True when apprise knows the service and the URL carries what it needs."""
    return service_of(url) is not None


def endpoint(url: str) -> tuple[str, int] | None:
    """The (host, port) a URL's service connects to, when the URL names it (for a probe)."""
    service = service_of(url)
    if service is None:
        return None
    host = getattr(service, "smtp_host", None) or getattr(service, "host", None)
    if not host or ("." not in str(host) and host != "localhost"):
        return None
    port = getattr(service, "port", None) or (443 if getattr(service, "secure", False) else 80)
    return str(host), int(port)
