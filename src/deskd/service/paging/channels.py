"""Channels: which apprise URLs exist (desk file, ``DESKD_NOTIFY_URLS``, apprise config
files), which of them a role's pages go to, whether they look reachable, and whether a URL
holds a literal credential (the doctor's channel checks, service/ops/doctor.py). URLs are
shown only through ``privacy.private_url`` (apprise's privacy rendering); apprise is loaded
only where a URL is shown, sent or probed.

``${VAR}`` in a URL is filled from the environment, then from ``$DESKD_HOME/.env`` (the
environment wins); a URL whose variable is unset is refused, never sent half-filled. Those
variables, ``DESKD_NOTIFY_URLS`` and ``DESKD_TICK_PING_URL`` are the channel secrets: they
never reach an agent (``secret_names``).
"""

from __future__ import annotations

import os
import socket
from typing import NamedTuple

from deskd import paths
from deskd.adapters.channels.base import SEND_BUDGET_S, Target, Transport
from deskd.config.desk import ENV_VAR, Desk, expand_vars
from deskd.config.host import PYTHON_CHANNEL_SCHEME
from deskd.config.settings import Settings
from deskd.core.values import PRIORITIES
from deskd.errors import EmptyChannel, UnknownChannel
from deskd.store.records import JSON

ENV_CHANNEL = "DESKD_NOTIFY_URLS"
SECRET_SETTINGS = ("DESKD_NOTIFY_URLS", "DESKD_TICK_PING_URL")
"""Settings that hold channel URLs (webhook tokens): never passed to an agent."""


class Channel(NamedTuple):
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


def shown_url(url: str, values: dict[str, str]) -> str:
    """A URL as deskd shows it: apprise's privacy rendering (``privacy.private_url``), except
    a Python channel's, which holds no secret. Loads apprise for an apprise URL."""
    if url.startswith(PYTHON_CHANNEL_SCHEME):
        return url
    from deskd.adapters.channels.privacy import private_url

    return private_url(url, values)


def var_values(settings: Settings | None) -> dict[str, str]:
    """What ``${VAR}`` is filled from: ``$DESKD_HOME/.env``, overridden by the environment.

    Read here only, for channel URLs: ``.env`` is never loaded into any process's
    environment (an agent inherits the environment, not this)."""
    values: dict[str, str] = {}
    if settings is not None:
        values.update(paths.env_file_values(settings.home / ".env"))
    values.update(os.environ)
    return values


def missing_vars(url: str, values: dict[str, str]) -> list[str]:
    return [m.group(1) for m in ENV_VAR.finditer(url) if not values.get(m.group(1))]


def _vars(names: list[str]) -> str:
    return ", ".join(f"${{{name}}}" for name in names)


def secret_names(settings: Settings | None, desk: Desk) -> set[str]:
    """Every variable that holds a channel secret: the settings with channel URLs and every
    ``${VAR}`` a channel URL (desk file, host module, ``DESKD_NOTIFY_URLS``) or an event
    source's token or secret references."""
    names = set(SECRET_SETTINGS)
    urls = [u for c in desk.data.channels for u in c.urls]
    urls += settings.notify_url_list if settings is not None else []
    # An event source's token or secret would let an agent post events as that sender.
    urls += [e.token or e.secret or "" for e in desk.data.events]
    for url in urls:
        names.update(m.group(1) for m in ENV_VAR.finditer(url))
    return names


def targets_of(channel: Channel, values: dict[str, str]) -> list[Target]:
    """The channel's URLs, ``${VAR}`` filled from ``values``; a URL whose variable is unset
    carries the problem instead. Loads apprise (to render each URL privately)."""
    found = []
    for i, u in enumerate(channel.urls):
        unset = missing_vars(u, values)
        where = "(in the environment or $DESKD_HOME/.env)"
        found.append(
            Target(
                key=f"{channel.name}#{i}",
                url="" if unset else expand_vars(u, values),
                masked=shown_url(u, values),
                problem=f"not sent: {_vars(unset)} is not set {where}" if unset else None,
            )
        )
    if channel.config:
        from deskd.adapters.channels.apprise import expand_config

        for i, (url, private) in enumerate(expand_config(channel.config)):
            found.append(Target(key=f"{channel.name}#c{i}", url=url, masked=private))
    return found


def secrets_of(url: str, values: dict[str, str]) -> list[str]:
    """Everything in a URL (as written with ``${VAR}``, or already filled) that must never be
    shown, for scrubbing texts: what apprise's privacy rendering hides, and the value of every
    variable it references or that was filled into it (``values``: from ``var_values``)."""
    if not url or url.startswith(PYTHON_CHANNEL_SCHEME):
        return []  # a Python channel's URL is a channel name, no credential
    from deskd.adapters.channels.privacy import MIN_VALUE, secret_parts

    named = [values.get(m.group(1), "") for m in ENV_VAR.finditer(url)]
    real = expand_vars(url, values) if named else url
    found = secret_parts(real) + [v for v in named if v]
    found += [v for v in values.values() if len(v) >= MIN_VALUE and v in real]
    return found


# -- `deskd channels` -----------------------------------------------------------------


ChannelTest = JSON
"""What ``deskd channels test`` answers: the channel's ``name``, its ``status`` (sent, partial,
failed) and one result per URL (``channels``)."""


def channel_views(settings: Settings, desk: Desk, *, check: bool) -> list[JSON]:
    """Every channel as ``deskd channels`` shows it: masked URLs, who it serves, and with
    ``check`` a reachability probe (``check``, ``config_check``).

    An agent (``DESKD_ROLE`` set) gets every URL as None: channel names and results only."""
    values = var_values(settings)
    agent = settings.role is not None
    views: list[JSON] = []
    for channel in all_channels(settings, desk).values():
        serves = [r for r in desk.role_names if channel in routes(settings, desk, r)]
        urls: list[JSON] = []
        for url in channel.urls:
            entry: JSON = {
                "url": None if agent else shown_url(url, values),
                "missing": missing_vars(url, values),
            }
            if check:
                entry["check"] = _probe(url, values)
            urls.append(entry)
        view: JSON = {
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


def _probe(url: str, values: dict[str, str]) -> str:
    """``ok``-ish words for one URL: can apprise read it, and does its host answer on TCP?"""
    missing = missing_vars(url, values)
    if missing:
        return f"not set: {_vars(missing)}"
    if url.startswith(PYTHON_CHANNEL_SCHEME):
        from deskd.config.host import host_config

        name = url[len(PYTHON_CHANNEL_SCHEME) :]
        known = name in host_config().senders
        return "registered Python channel" if known else "invalid: no Python channel registered"
    from deskd.adapters.channels.apprise import endpoint, readable

    real = expand_vars(url, values)
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


def default_transport() -> Transport:
    """Apprise for URLs, the host's callables for ``python://`` channels (register_channel)."""
    from deskd.adapters.channels.base import PythonTransport, SplitTransport
    from deskd.config.host import host_config

    def apprise() -> Transport:
        from deskd.adapters.channels.apprise import AppriseTransport

        return AppriseTransport()

    return SplitTransport(PythonTransport(host_config().senders), apprise)


def send_test(settings: Settings, desk: Desk, name: str) -> ChannelTest:
    """Send a test message on one channel; one result per URL (nothing is written)."""
    channels = all_channels(settings, desk)
    if name not in channels:
        raise UnknownChannel(name, list(channels))
    values = var_values(settings)
    targets = targets_of(channels[name], values)
    if not targets:
        raise EmptyChannel(name)
    sendable = [t for t in targets if t.problem is None]
    got = default_transport().send(
        sendable,
        title=f"deskd: test page from desk {desk.name}",
        body=f"A test of channel {name!r} (`deskd channels test {name}`). No action needed.",
        kind="notice",
        budget_s=SEND_BUDGET_S,
    )
    results = [
        {
            "name": name,
            "url": None if settings.role is not None else t.masked,
            "status": "sent" if t.key in got and got[t.key].ok else "failed",
            "error": t.problem or got[t.key].error,
        }
        for t in targets
    ]
    ok = sum(r["status"] == "sent" for r in results)
    status = "sent" if ok == len(results) else ("partial" if ok else "failed")
    return {"name": name, "status": status, "channels": results}


def literal_credentials(url: str, values: dict[str, str]) -> list[str]:
    """The credentials apprise finds in ``url`` that are written in the file, not ``${VAR}``.

    The URL is expanded and parsed by apprise; a part it hides that no variable supplied
    is literal. Unset variables are stood in for by a placeholder, so the rest still parses.
    """
    if url.startswith(PYTHON_CHANNEL_SCHEME):
        return []  # a channel name in the host's code, no credential
    from deskd.adapters.channels.privacy import secret_parts

    names = {m.group(1) for m in ENV_VAR.finditer(url)}
    filled = {n: values.get(n) or f"deskdVar{i}Placeholder" for i, n in enumerate(sorted(names))}
    supplied = [v for v in filled.values() if v]
    return [
        part
        for part in secret_parts(expand_vars(url, filled))
        if not any(part in v or v in part for v in supplied)
    ]
