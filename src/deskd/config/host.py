"""The host Python API: ``DESKD_CONFIG_MODULE`` names a module whose ``configure_deskd()``
calls ``configure(...)`` and ``register_channel(...)`` (docs/python-api.md). Stdlib only.

Every command imports it (``deskd.config`` re-exports it), so its records are NamedTuples and
a plain class, which cost less to define than dataclasses (docs/performance.md)."""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from deskd.errors import DeskdError, SettingsError


class RoleSpec(NamedTuple):
    """A role declared from Python: the keys of a ``[[roles]]`` table in deskd.toml."""

    name: str
    title: str = ""
    capabilities: Sequence[str] = ()
    workdir: str | None = None
    enabled: bool = True
    prompt: str = ""
    channels: Sequence[str] = ()
    agent: Mapping[str, Any] | None = None
    """The ``agent`` table of a role: ``{"kind": "codex", "model": "gpt-5"}``."""

    def as_table(self) -> dict[str, Any]:
        """The ``[[roles]]`` table this spec stands for (validated like the file's)."""
        table = {k: v for k, v in self._asdict().items() if v is not None}
        table.update(capabilities=list(self.capabilities), channels=list(self.channels))
        if self.agent is not None:
            table["agent"] = dict(self.agent)
        return table


class PromptBuilder(Protocol):
    """Builds the prompt a launch carries. ``role`` is woken for ``reasons`` (one per wake
    the launch carries, as ``deskd wake list`` shows them: ``2 unread items (urgent)``,
    ``task``, ``meeting`` …); ``default`` is the prompt deskd built, with everything owed in
    it. Return the prompt to send (``default`` to keep it)."""

    def __call__(self, role: str, reasons: Sequence[str], default: str) -> str: ...


class PageMessage(NamedTuple):
    """What a Python channel is given: one page (or its follow-up) to deliver."""

    title: str
    body: str
    kind: str
    """``page``, ``follow_up`` (still owed), ``settled`` (no action needed) or ``notice``."""


ChannelSender = Callable[[PageMessage], object]
"""A Python channel: deliver the message, raise to fail (the pager retries with backoff);
returning ``False`` fails it too. Anything else counts as sent."""

PYTHON_CHANNEL_SCHEME = "python://"


class HostConfig:
    """What a host module added with ``configure(...)``; merged into the desk by
    ``deskd.config.desk_file``."""

    __slots__ = ("channels", "desk", "module", "prompt_builder", "roles", "senders")

    def __init__(self, module: str = "") -> None:
        self.module = module
        self.roles: list[dict[str, Any]] = []
        self.desk: dict[str, Any] = {}
        self.channels: list[dict[str, Any]] = []
        self.prompt_builder: PromptBuilder | None = None
        self.senders: dict[str, ChannelSender] = {}


_host = HostConfig()


def configure(
    *,
    roles: Sequence[RoleSpec | Mapping[str, Any]] | None = None,
    timezone: str | None = None,
    inbox_sources: Sequence[str] | None = None,
    desk: Mapping[str, Any] | None = None,
    channels: Sequence[Mapping[str, Any]] | None = None,
    prompt_builder: PromptBuilder | None = None,
) -> None:
    """Called from a host module's ``configure_deskd()`` to extend the desk file.

    ``roles`` are ``RoleSpec``s (or ``[[roles]]`` tables); ``timezone`` and
    ``inbox_sources`` set those keys of ``[desk]``, ``desk`` any other key the file leaves
    out; ``channels`` take the ``[[channels]]`` shape; ``prompt_builder`` builds wake
    prompts. Anything also defined in deskd.toml is refused with both places named.
    """
    _host.roles += [r.as_table() if isinstance(r, RoleSpec) else dict(r) for r in roles or ()]
    if timezone is not None:
        _host.desk["timezone"] = timezone
    if inbox_sources is not None:
        _host.desk["inbox_sources"] = list(inbox_sources)
    if desk:
        _host.desk.update(desk)
    _host.channels += [dict(c) for c in channels or ()]
    if prompt_builder is not None:
        if not callable(prompt_builder):
            raise _refused("prompt_builder must be callable")
        _host.prompt_builder = prompt_builder


def register_channel(name: str, send: ChannelSender) -> None:
    """A channel named ``name`` whose pages go to ``send`` (beside the apprise URLs).

    Roles and ``default_channels`` name it like any channel; the pager records its result,
    retries a failure with backoff and sends it the "settled" follow-up.
    """
    if not isinstance(name, str) or not _CHANNEL_NAME.fullmatch(name):
        raise _refused(f"channel name {name!r} must match {_CHANNEL_NAME.pattern}")
    if not callable(send):
        raise _refused(f"channel {name!r}: send must be callable")
    if name in _host.senders:
        raise _refused(f"channel {name!r} is registered twice")
    _host.senders[name] = send
    _host.channels.append({"name": name, "urls": [PYTHON_CHANNEL_SCHEME + name]})


_CHANNEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
_refused = functools.partial(SettingsError, "DESKD_CONFIG_MODULE")


def host_config() -> HostConfig:
    """What the host module configured in this process (empty without one)."""
    return _host


def load_config_module(name: str | None, *, desk_home: Path) -> HostConfig:
    """Import ``name`` (with the desk folder on ``sys.path``) and run its ``configure_deskd()``."""
    global _host
    _host = HostConfig(module=name or "")
    if not name:
        return _host
    if str(desk_home) not in sys.path:
        sys.path.insert(0, str(desk_home))
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        raise _refused(f"cannot import {name!r}: {_one_line(exc)}") from None
    hook = getattr(module, "configure_deskd", None)
    if not callable(hook):
        raise _refused(f"{name!r} has no configure_deskd() function")
    try:
        hook()
    except DeskdError:
        raise
    except Exception as exc:
        raise _refused(f"{name}.configure_deskd() failed: {_one_line(exc)}") from None
    return _host


def _one_line(exc: BaseException) -> str:
    """A host module's error as one line (lesson 50: no traceback, no multi-line dump)."""
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    if isinstance(exc, ImportError):  # "No module named 'x'" says it all
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
