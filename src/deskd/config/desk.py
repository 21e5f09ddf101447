"""The desk file's shape, declared once, and the validated desk as every process holds it.

Each table of ``deskd.toml`` is a record here (a NamedTuple: cheap to define and build,
docs/performance.md) whose fields are the table's keys: name, type and default, the one
declaration of each. ``deskd.config.desk_file`` builds its pydantic models from these records
and adds only the checks; the validated data (``model_dump``) becomes the records again, and
the same data is kept in the desk cache (``deskd.config.cache``) so a command whose desk file
has not changed builds its ``Desk`` from the cache without importing pydantic. Both ways give
the same records. Floor 2 of deskd.config: stdlib (and ``deskd.core.sessions``'s defaults and
``deskd.core.values``' closed sets, ``deskd.core.ladder``'s rungs).
"""

# ruff: noqa: RUF012
# (A record's list default is one list every record without that key shares: records are read,
# never changed, and ``deskd.config.desk_file`` gives each model a copy of its own.)

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from deskd.core.ladder import DEFAULT_LADDER
from deskd.core.ladder import RungName as Rung
from deskd.core.sessions import DEFAULT_ONLINE_S, DEFAULT_SUSPECT_S
from deskd.core.values import AGENT_KINDS as AGENT_KINDS
from deskd.core.values import AgentKind as AgentKind
from deskd.core.values import EventKind
from deskd.core.values import Priority as Severity

if TYPE_CHECKING:
    from deskd.config.host import HostConfig
    from deskd.config.settings import Settings

DEFAULT_ALLOWED_TOOLS = ["Read", "Grep", "Glob", "Edit", "Write", "Bash"]

ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${VAR}`` in a channel URL: filled from the environment (and the desk's ``.env``, see
``service.paging.channels.var_values``), so secrets stay out of the file."""


def expand_vars(text: str, values: Mapping[str, str] | None = None) -> str:
    """``text`` with every ``${VAR}`` filled from ``values`` (default: the environment;
    unset: empty — callers that send refuse an unset variable first)."""
    source = os.environ if values is None else values
    return ENV_VAR.sub(lambda m: source.get(m.group(1), ""), text)


DEFAULT_RETRY_WAIT_S = 2


class DeskSection(NamedTuple):
    """``[desk]``."""

    name: str = "desk"
    timezone: str = "UTC"
    inbox_sources: list[str] = ["alert"]
    probe_allowlist: list[str] = []
    inbox_batch: int = 180
    stall_after: int = 3
    reopen_after: int = 3
    """Failed checks of one task (``--done-when``) before a person is paged about it."""
    stuck_after: int = 900
    """Silence (no heartbeat, no output) of a running launch before it is stopped and resumed."""
    rollover_at: str = "04:00"
    default_channels: list[str] = []
    max_launches_per_day: int = 48
    max_cost_per_day: float = 0.0
    probe_timeout: int = 10
    probe_budget: int = 20
    console_url: str | None = None
    """Where a person acts on a page (the supervisor console); pages say so when set."""
    max_running: int = 0
    """Agent launches running at once on the whole desk (0: no cap); more wait, queued."""
    max_running_per_host: int = 0
    """Agent launches running at once on one host (0: no cap)."""


class BudgetSection(NamedTuple):
    """``[budget]``, or a role's ``budget = {…}``: what launches may use per period (None: no
    limit), counted in the desk's time zone; ``window`` is the rolling period of the
    ``*_per_window`` limits."""

    tokens_per_day: int | None = None
    tokens_per_week: int | None = None
    tokens_per_month: int | None = None
    tokens_per_window: int | None = None
    usd_per_day: float | None = None
    usd_per_week: float | None = None
    usd_per_month: float | None = None
    usd_per_window: float | None = None
    window: int | None = None
    reserve: float = 0.0
    """Room on top of each limit, as a fraction of it, that only urgent work may use."""
    expected_tokens: int | None = None
    """A launch's expected tokens while its role has no history (then: its recent median)."""


class PresenceSection(NamedTuple):
    """``[presence]``: seconds a heartbeat keeps a role online, then suspect."""

    online: int = DEFAULT_ONLINE_S
    suspect: int = DEFAULT_SUSPECT_S


class AgentSection(NamedTuple):
    """``[agent]``, or a role's own ``agent`` table: None where it says nothing."""

    kind: AgentKind | None = None
    command: str | None = None
    args: list[str] | None = None
    model: str | None = None
    timeout: int | None = None
    allowed_tools: list[str] | None = None
    retry_wait: int | None = None
    """First wait before retrying a quick transient launch failure (doubling, at most 10×)."""
    account: str | None = None
    """The account the CLI runs on: a usage limit one role hits holds every role on it."""


class RoleConfig(NamedTuple):
    """One ``[[roles]]`` table."""

    name: str
    title: str = ""
    capabilities: list[str] = []
    workdir: str | None = None
    enabled: bool = True
    prompt: str = ""
    channels: list[str] = []
    agent: AgentSection | None = None
    host: str | None = None
    """The one host whose executors run it (``DESKD_HOST_NAME``); None: any host."""
    account: str | None = None
    budget: BudgetSection | None = None
    reopen_after: int | None = None
    """The desk's ``reopen_after`` for this role's tasks; None: the desk's."""
    stuck_after: int | None = None
    """The desk's ``stuck_after`` for this role's launches; None: the desk's."""
    worktree: bool | str = False
    """A git worktree of its own for the role (true: branch ``deskd/<role>``; text: that
    branch), under the desk folder's ``worktrees/`` (service/engine/worktrees.py)."""


class LadderRung(NamedTuple):
    """One ``[[ladder]]`` table."""

    rung: Rung
    sla: int | None = None


class ChannelConfig(NamedTuple):
    """One ``[[channels]]`` table."""

    name: str
    urls: list[str] = []
    severity: list[Severity] = []
    quiet: str | None = None
    apprise_config: str | None = None


class EventSource(NamedTuple):
    """One ``[[events]]`` table: a sender that may ``POST /events/<source>``. ``for`` and
    ``from`` are Python keywords: the records say ``for_`` and ``from_``."""

    source: str
    kind: EventKind = "json"
    for_: str | None = None
    capability: str | None = None
    token: str | None = None
    """Bearer token (``${VAR}``, from the environment or ``.env``)."""
    secret: str | None = None
    """GitHub's webhook secret: checked against ``X-Hub-Signature-256``."""
    title: str | None = None
    """The item's title, ``{dotted.path}`` filled from the payload."""
    priority: Severity = "normal"


class ReplySection(NamedTuple):
    """``[reply]``: whose emailed replies to a page act on it (``DESKD_REPLY_IMAP_URL``)."""

    from_: list[str] = []


class DeskFile(NamedTuple):
    """The whole validated file."""

    desk: DeskSection = DeskSection()
    presence: PresenceSection = PresenceSection()
    agent: AgentSection = AgentSection()
    roles: list[RoleConfig] = []
    ladder: list[LadderRung] = []
    channels: list[ChannelConfig] = []
    events: list[EventSource] = []
    reply: ReplySection = ReplySection()
    budget: BudgetSection = BudgetSection()


_ROLE_TABLES: dict[str, Callable[..., object]] = {"agent": AgentSection, "budget": BudgetSection}


def _role(table: dict[str, Any]) -> RoleConfig:
    nested = {k: record(**table[k]) for k, record in _ROLE_TABLES.items() if table[k] is not None}
    return RoleConfig(**(table | nested))


def desk_file(data: dict[str, Any]) -> DeskFile:
    """The records of validated desk data (``DeskFile.model_dump()``, or the cache's copy)."""
    events = [EventSource(**e) for e in data.get("events", [])]
    desk = DeskSection(**data["desk"])
    # Declaring an event source is allowing it: its items come from that source.
    added = [e.source for e in events if e.source not in desk.inbox_sources]
    return DeskFile(
        desk=desk._replace(inbox_sources=[*desk.inbox_sources, *added]) if added else desk,
        presence=PresenceSection(**data["presence"]),
        agent=AgentSection(**data["agent"]),
        roles=[_role(r) for r in data["roles"]],
        ladder=[LadderRung(**r) for r in data["ladder"]],
        channels=[ChannelConfig(**c) for c in data["channels"]],
        events=events,
        reply=ReplySection(**data.get("reply", {})),
        budget=BudgetSection(**data["budget"]),
    )


class Desk:
    """The validated desk: the file plus what ``DESKD_CONFIG_MODULE`` added.

    ``data`` is ``DeskFile.model_dump()`` of the validated file (from ``deskd.config.desk_file`` or the
    desk cache).
    """

    def __init__(self, data: dict[str, Any], *, path: Path, host: HostConfig | None = None) -> None:
        self.raw = data
        self.data = desk_file(data)
        self.path = path
        self.host = host
        self.roles: dict[str, RoleConfig] = {r.name: r for r in self.data.roles}
        self.section: DeskSection = self.data.desk
        self.presence: PresenceSection = self.data.presence
        self.name, self.timezone = self.section.name, self.section.timezone
        self.role_names: list[str] = sorted(self.roles)
        self.enabled_roles: list[str] = sorted(n for n, r in self.roles.items() if r.enabled)
        ladder = [(r.rung, r.sla) for r in self.data.ladder]
        self.ladder: list[tuple[str, int | None]] = ladder or list(DEFAULT_LADDER)

    def host_of(self, role: str) -> str | None:
        """The host a role is bound to, or None when any host may run it."""
        config = self.roles.get(role)
        return config.host if config is not None else None

    def account_of(self, role: str) -> str | None:
        """The account a role's CLI runs on (its own, its agent table's, the desk's)."""
        config = self.roles[role]
        own = config.agent.account if config.agent is not None else None
        return config.account or own or self.data.agent.account

    def runs_here(self, role: str, host: str) -> bool:
        """Whether ``host``'s executors may launch ``role``."""
        bound = self.host_of(role)
        return bound is None or bound == host

    def role(self, name: str) -> RoleConfig:
        """The role named ``name``; refuses with the desk's roles listed."""
        from deskd.errors import NoRoles, UnknownRole

        if not self.roles:
            raise NoRoles()
        try:
            return self.roles[name]
        except KeyError:
            raise UnknownRole(name, self.roles) from None

    def agent_for(self, name: str, settings: Settings | None = None) -> AgentSettings:
        """The effective agent settings of a role (docs/contract.md precedence).

        Environment overrides win over the role's own setting, which wins over the desk's
        ``[agent]``, which wins over deskd's built-in default — except allowed tools, where a
        role's own grant wins over ``DESKD_WAKE_ALLOWED_TOOLS`` (a read-only role stays read-only).
        """
        role = self.role(name)
        own = role.agent or AgentSection()
        base = self.data.agent
        kind = own.kind or base.kind or AGENT_KINDS[0]
        command = own.command or base.command or (kind if kind != "command" else "")
        model = own.model if own.model is not None else (base.model or "")
        timeout = own.timeout or base.timeout or 30 * 60
        env_tools = None
        if settings is not None:
            command = settings.agent_cmd or command
            model = settings.wake_model or model
            if settings.wake_timeout:
                from deskd.core.timeparse import parse_duration

                timeout = parse_duration(settings.wake_timeout, what="DESKD_WAKE_TIMEOUT")
            if settings.wake_allowed_tools:
                env_tools = [t.strip() for t in settings.wake_allowed_tools.split(",") if t.strip()]
        grants = (own.allowed_tools, env_tools, base.allowed_tools, DEFAULT_ALLOWED_TOOLS)
        return AgentSettings(
            kind=kind,
            command=command,
            args=tuple(own.args if own.args is not None else (base.args or [])),
            model=model,
            timeout=timeout,
            allowed_tools=tuple(next(t for t in grants if t is not None)),
            retry_wait=next(
                (w for w in (own.retry_wait, base.retry_wait) if w is not None),
                DEFAULT_RETRY_WAIT_S,
            ),
        )


class AgentSettings(NamedTuple):
    """A role's effective agent settings, after every override (``Desk.agent_for``)."""

    kind: str
    command: str
    """The executable; empty for a ``command`` agent the desk has not given one."""
    args: tuple[str, ...]
    model: str
    timeout: int
    """Seconds a launch may run."""
    allowed_tools: tuple[str, ...]
    retry_wait: int = DEFAULT_RETRY_WAIT_S
    """Seconds before retrying a quick transient launch failure (doubling, at most 10×)."""
