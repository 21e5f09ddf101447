"""Channels: which apprise URLs exist (desk file, ``DESKD_NOTIFY_URLS``, apprise config
files), which of them a role's pages go to, whether they look reachable, and the doctor's
checks. URLs are shown only through ``mask_url``; apprise is loaded only to send or probe.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from deskd.adapters.channels.base import SEND_BUDGET_S, Target, mask_url, secret_parts
from deskd.config import PYTHON_CHANNEL_SCHEME, Settings
from deskd.core.values import PRIORITIES
from deskd.desk import ENV_VAR, Desk, expand_vars
from deskd.errors import EmptyChannel, UnknownChannel

ENV_CHANNEL = "DESKD_NOTIFY_URLS"


@dataclass(frozen=True, slots=True, kw_only=True)
class Channel:
    name: str
    urls: tuple[str, ...]
    """As written (``${VAR}`` kept); never shown unmasked."""
    severity: tuple[str, ...] = ()
    quiet: str | None = None
    config: str | None = None
    """An apprise config file (YAML or TEXT) whose services this channel sends to."""
    source: str = "desk"

    def takes(self, priority: str) -> bool:
        return not self.severity or priority in self.severity


class DoctorCheck(TypedDict):
    name: str
    level: Literal["ok", "warn", "fail"]
    detail: str


def all_channels(settings: Settings | None, desk: Desk) -> dict[str, Channel]:
    """Every channel: the desk file's, then ``DESKD_NOTIFY_URLS`` as one more."""
    found = {
        c.name: Channel(
            name=c.name,
            urls=tuple(c.urls),
            severity=tuple(c.severity),
            quiet=c.quiet,
            config=c.apprise_config,
        )
        for c in desk.data.channels
    }
    env_urls = settings.notify_url_list if settings is not None else []
    if env_urls:
        found[ENV_CHANNEL] = Channel(name=ENV_CHANNEL, urls=tuple(env_urls), source="env")
    return found


def routes(settings: Settings | None, desk: Desk, role: str) -> list[Channel]:
    """A role's channels: its own, else the desk's default ones; ``DESKD_NOTIFY_URLS`` always."""
    channels = all_channels(settings, desk)
    config = desk.roles.get(role)
    names = list(config.channels) if config is not None and config.channels else []
    names = names or list(desk.section.default_channels)
    picked = [channels[n] for n in names if n in channels]
    if ENV_CHANNEL in channels:
        picked.append(channels[ENV_CHANNEL])
    return picked


def shown_url(url: str) -> str:
    """A URL as deskd shows it: masked, except a Python channel's, which holds no secret."""
    return url if url.startswith(PYTHON_CHANNEL_SCHEME) else mask_url(url)


def missing_vars(url: str) -> list[str]:
    return [m.group(1) for m in ENV_VAR.finditer(url) if not os.environ.get(m.group(1))]


def targets_of(channel: Channel) -> list[Target]:
    """The channel's URLs, ``${VAR}`` filled; a config file is read (this loads apprise)."""
    found = [
        Target(key=f"{channel.name}#{i}", url=expand_vars(u), masked=shown_url(u))
        for i, u in enumerate(channel.urls)
    ]
    if channel.config:
        from deskd.adapters.channels.apprise import expand_config

        for i, (url, private) in enumerate(expand_config(channel.config)):
            found.append(Target(key=f"{channel.name}#c{i}", url=url, masked=mask_url(private)))
    return found


def secrets_of(url: str) -> list[str]:
    """Everything in a URL (expanded) that must never be shown, for scrubbing error texts."""
    if url.startswith(PYTHON_CHANNEL_SCHEME):
        return []  # a channel name, no credential
    return secret_parts(expand_vars(url)) + [
        os.environ[m.group(1)] for m in ENV_VAR.finditer(url) if os.environ.get(m.group(1))
    ]


# -- `deskd channels` -----------------------------------------------------------------


def channel_views(settings: Settings, desk: Desk, *, check: bool) -> list[dict[str, Any]]:
    """Every channel with masked URLs, who it serves, and (``check``) a reachability probe."""
    views = []
    for channel in all_channels(settings, desk).values():
        serves = [r for r in desk.role_names if channel in routes(settings, desk, r)]
        urls = []
        for url in channel.urls:
            entry: dict[str, Any] = {"url": shown_url(url), "missing": missing_vars(url)}
            if check:
                entry["check"] = _probe(url)
            urls.append(entry)
        view: dict[str, Any] = {
            "name": channel.name,
            "source": channel.source,
            "urls": urls,
            "severity": list(channel.severity) or list(PRIORITIES),
            "quiet": channel.quiet,
            "apprise_config": channel.config,
            "roles": serves,
        }
        if channel.config and check:
            view["config_check"] = _config_probe(channel.config)
        views.append(view)
    return views


def _probe(url: str) -> str:
    """``ok``-ish words for one URL: can apprise read it, and does its host answer on TCP?"""
    missing = missing_vars(url)
    if missing:
        return "not set: " + ", ".join(f"${{{m}}}" for m in missing)
    if url.startswith(PYTHON_CHANNEL_SCHEME):
        from deskd.config import host_config

        name = url[len(PYTHON_CHANNEL_SCHEME) :]
        known = name in host_config().senders
        return "registered Python channel" if known else "invalid: no Python channel registered"
    from deskd.adapters.channels.apprise import endpoint, readable

    real = expand_vars(url)
    if not readable(real):
        return "invalid: apprise cannot read this URL"
    where = endpoint(real)
    if where is None:
        return "valid (service endpoint not probed)"
    try:
        with socket.create_connection(where, timeout=3):
            return f"reachable ({where[0]}:{where[1]})"
    except OSError as exc:
        return f"unreachable ({where[0]}:{where[1]}: {exc.strerror or type(exc).__name__})"


def _config_probe(path: str) -> str:
    from deskd.adapters.channels.apprise import expand_config

    if not os.path.isfile(path):
        return f"missing: {path}"
    found = expand_config(path)
    return (
        f"{len(found)} service(s) in {path}" if found else f"no service apprise can read in {path}"
    )


def send_test(settings: Settings, desk: Desk, name: str) -> dict[str, Any]:
    """Send a test message on one channel; one result per URL (nothing is written)."""
    from deskd.adapters.channels.python import PythonTransport, SplitTransport
    from deskd.config import host_config

    def apprise() -> Any:
        from deskd.adapters.channels.apprise import AppriseTransport

        return AppriseTransport()

    channels = all_channels(settings, desk)
    if name not in channels:
        raise UnknownChannel(name, list(channels))
    targets = targets_of(channels[name])
    if not targets:
        raise EmptyChannel(name)
    got = SplitTransport(PythonTransport(host_config().senders), apprise).send(
        targets,
        title=f"deskd: test page from desk {desk.name}",
        body=f"A test of channel {name!r} (`deskd channels test {name}`). No action needed.",
        kind="notice",
        budget_s=SEND_BUDGET_S,
    )
    results = [
        {
            "name": name,
            "url": t.masked,
            "status": "sent" if got[t.key].ok else "failed",
            "error": got[t.key].error,
        }
        for t in targets
    ]
    ok = sum(r["status"] == "sent" for r in results)
    status = "sent" if ok == len(results) else ("partial" if ok else "failed")
    return {"name": name, "status": status, "channels": results}


# -- `deskd doctor` -------------------------------------------------------------------


def doctor_checks(settings: Settings | None, desk: Desk) -> list[DoctorCheck]:
    """Checks for ``deskd doctor``: each ``{"name", "level" (ok|warn|fail), "detail"}``.

    Reads the desk and the environment only (no apprise, no network): the human rung is
    wired for every role, no literal credential sits in deskd.toml (agents running as the
    same user can read it), and every ``${VAR}`` a URL needs is set.
    """
    checks: list[DoctorCheck] = []
    channels = all_channels(settings, desk)
    rungs = [name for name, _ in desk.ladder]
    if "notify" in rungs:
        unwired = [r for r in desk.enabled_roles if not routes(settings, desk, r)]
        if unwired:
            checks.append(
                {
                    "name": "human rung",
                    "level": "warn",
                    "detail": "human rung unwired: the notify rung reaches no channel for "
                    + ", ".join(unwired)
                    + " (pages wait in the outbox, `deskd pages`; add [[channels]] and "
                    "default_channels, or set DESKD_NOTIFY_URLS)",
                }
            )
        else:
            names = ", ".join(sorted(channels)) or "none"
            checks.append(
                {"name": "human rung", "level": "ok", "detail": f"every role pages ({names})"}
            )
    literal = []
    missing = []
    for channel in desk.data.channels:
        for url in channel.urls:
            if secret_parts(url):
                literal.append(f"{channel.name}: {mask_url(url)}")
            missing += [f"{channel.name}: ${{{m}}}" for m in missing_vars(url)]
        if channel.apprise_config and not os.path.isfile(channel.apprise_config):
            missing.append(f"{channel.name}: apprise_config {channel.apprise_config} not found")
    if literal:
        checks.append(
            {
                "name": "channel secrets",
                "level": "warn",
                "detail": "deskd.toml holds literal credentials ("
                + "; ".join(literal)
                + "): agents running as this user can read it; use ${VAR} from the "
                "environment or .env instead",
            }
        )
    elif desk.data.channels:
        checks.append(
            {"name": "channel secrets", "level": "ok", "detail": "no literal credentials"}
        )
    if missing:
        checks.append(
            {
                "name": "channel variables",
                "level": "warn",
                "detail": "not set: " + "; ".join(missing),
            }
        )
    return checks
