"""The desk file (``deskd.toml``) validated into models, merged with ``DESKD_CONFIG_MODULE``.

Unknown keys are refused (typo protection); every refusal names the file, the key and the
reason, e.g. ``deskd.toml: roles[1].name: 'Alpha' is not a role name: lowercase letters…``.

It runs past 400 lines because every key of the desk file is validated here, beside the
model that names it, so one file answers "what may deskd.toml say".
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from deskd.config.desk import AGENT_KINDS as AGENT_KINDS
from deskd.config.desk import DEFAULT_ALLOWED_TOOLS as DEFAULT_ALLOWED_TOOLS
from deskd.config.desk import DEFAULT_LADDER as DEFAULT_LADDER
from deskd.config.desk import AgentSettings as AgentSettings
from deskd.config.desk import Desk, expand_vars
from deskd.config.host import HostConfig
from deskd.core.presence import DEFAULT_ONLINE_S, DEFAULT_SUSPECT_S
from deskd.core.timeparse import MAX_DURATION_S, check_duration, parse_duration
from deskd.core.values import RESERVED_SOURCES, RUNGS, role_name_problem
from deskd.errors import ConfigConflict, DeskdError, DeskFileError

_HHMM = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _seconds(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("must be a duration like 90s, 5m, 2h, 1d")
    try:
        if isinstance(value, int):
            return check_duration(value)
        return parse_duration(str(value))
    except DeskdError as exc:
        if "at most" in exc.message:
            raise ValueError(f"must be at most {MAX_DURATION_S // 86400}d") from None
        raise ValueError("must be a duration like 90s, 5m, 2h, 1d") from None


class DeskSection(_Strict):
    name: str = "desk"
    timezone: str = "UTC"
    inbox_sources: list[str] = Field(default_factory=lambda: ["alert"])
    probe_allowlist: list[str] = Field(default_factory=list)
    inbox_batch: int = 180
    stall_after: int = Field(default=3, ge=1)
    rollover_at: str = "04:00"
    default_channels: list[str] = Field(default_factory=list)
    max_launches_per_day: int = Field(default=48, ge=0)
    max_cost_per_day: float = Field(default=0.0, ge=0)
    probe_timeout: int = Field(default=10, ge=1)
    probe_budget: int = Field(default=20, ge=1)
    console_url: str | None = None
    """Where a person acts on a page (the supervisor console); pages say so when set."""

    _durations = field_validator("inbox_batch", "probe_timeout", "probe_budget", mode="before")(
        _seconds
    )

    @field_validator("timezone")
    @classmethod
    def _tz(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown timezone {value!r} (an IANA name like America/New_York or UTC)"
            ) from None
        return value

    @field_validator("inbox_sources")
    @classmethod
    def _sources(cls, value: list[str]) -> list[str]:
        for source in value:
            if source in RESERVED_SOURCES:
                raise ValueError(
                    f"{source!r} is reserved for deskd itself "
                    f"(reserved: {', '.join(RESERVED_SOURCES)})"
                )
            if not re.fullmatch(r"[a-z][a-z0-9_.-]{0,31}", source):
                raise ValueError(f"source {source!r} must match [a-z][a-z0-9_.-]{{0,31}}")
        return value

    @field_validator("rollover_at")
    @classmethod
    def _hhmm(cls, value: str) -> str:
        if not _HHMM.fullmatch(value):
            raise ValueError("must be a local time HH:MM, like 04:00")
        return value


class PresenceSection(_Strict):
    online: int = DEFAULT_ONLINE_S
    suspect: int = DEFAULT_SUSPECT_S

    _durations = field_validator("online", "suspect", mode="before")(_seconds)

    @model_validator(mode="after")
    def _ordered(self) -> PresenceSection:
        if not 0 < self.online < self.suspect:
            raise ValueError("online must be shorter than suspect, and both above zero")
        return self


class AgentSection(_Strict):
    kind: Literal["claude", "codex", "gemini", "opencode", "command"] | None = None
    command: str | None = None
    args: list[str] | None = None
    model: str | None = None
    timeout: int | None = None
    allowed_tools: list[str] | None = None
    retry_wait: int | None = Field(default=None, ge=0)
    """First wait before retrying a quick transient launch failure (doubling, at most 10×)."""

    _durations = field_validator("timeout", "retry_wait", mode="before")(_seconds)


class RoleConfig(_Strict):
    name: str
    title: str = ""
    capabilities: list[str] = Field(default_factory=list)
    workdir: str | None = None
    enabled: bool = True
    prompt: str = ""
    channels: list[str] = Field(default_factory=list)
    agent: AgentSection | None = None
    host: str | None = None  # the one host whose executors run it (DESKD_HOST_NAME); None: any

    @field_validator("host")
    @classmethod
    def _host(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or value != value.strip()):
            raise ValueError("must be a host name (DESKD_HOST_NAME of that host), like gpu-box")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        problem = role_name_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class LadderRung(_Strict):
    rung: Literal["session", "resume", "spawn", "notify", "badge"]
    sla: int | None = None

    _durations = field_validator("sla", mode="before")(_seconds)


class ChannelConfig(_Strict):
    name: str
    urls: list[str] = Field(default_factory=list)
    severity: list[Literal["low", "normal", "high", "urgent"]] = Field(default_factory=list)
    quiet: str | None = None
    apprise_config: str | None = None

    @field_validator("quiet")
    @classmethod
    def _quiet(cls, value: str | None) -> str | None:
        if value is not None:
            parts = value.split("-")
            if len(parts) != 2 or not all(_HHMM.fullmatch(p.strip()) for p in parts):
                raise ValueError("must be local hours like 22:00-07:00")
        return value


class DeskFile(_Strict):
    desk: DeskSection = Field(default_factory=DeskSection)
    presence: PresenceSection = Field(default_factory=PresenceSection)
    agent: AgentSection = Field(default_factory=AgentSection)
    roles: list[RoleConfig] = Field(default_factory=list)
    ladder: list[LadderRung] = Field(default_factory=list)
    channels: list[ChannelConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> DeskFile:
        seen: set[str] = set()
        for index, role in enumerate(self.roles):
            if role.name in seen:
                raise _At(f"roles[{index}].name", f"role {role.name!r} is defined twice")
            seen.add(role.name)
        order = [RUNGS.index(r.rung) for r in self.ladder]
        if order != sorted(set(order)):
            raise _At("ladder", "rungs must be unique and in order: " + ", ".join(RUNGS))
        for index, rung in enumerate(self.ladder):
            if rung.rung != "badge" and rung.sla is None:
                raise _At(f"ladder[{index}].sla", f"rung {rung.rung!r} needs an sla")
        names = {c.name for c in self.channels}
        if len(names) != len(self.channels):
            raise _At("channels", "channel names must be unique")
        for index, role in enumerate(self.roles):
            for ch in role.channels:
                if ch not in names:
                    raise _At(
                        f"roles[{index}].channels",
                        f"unknown channel {ch!r} (channels: {', '.join(sorted(names)) or 'none'})",
                    )
        for ch in self.desk.default_channels:
            if ch not in names:
                raise _At(
                    "desk.default_channels",
                    f"unknown channel {ch!r} (channels: {', '.join(sorted(names)) or 'none'})",
                )
        return self


class _At(ValueError):
    """A cross-field problem that knows which key it is about."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(reason)
        self.key = key
        self.reason = reason


def _key(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _explain(err: dict[str, Any], model: type[BaseModel]) -> tuple[str, str]:
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    if err.get("type") == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        valid = ", ".join(parent.model_fields) if parent is not None else ""
        return _key(loc), f"unknown key (valid keys: {valid})"
    ctx = err.get("ctx") or {}
    error = ctx.get("error")
    if isinstance(error, _At):
        return (_key(loc) + "." if loc else "") + error.key if loc else error.key, error.reason
    return _key(loc), str(err.get("msg", "invalid")).removeprefix("Value error, ")


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part)
        if field is None:
            return None
        annotation = field.annotation
        for candidate in getattr(annotation, "__args__", ()) or (annotation,):
            inner = getattr(candidate, "__args__", None)
            target = inner[0] if inner else candidate
            if isinstance(target, type) and issubclass(target, BaseModel):
                current = target
                break
        else:
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                current = annotation
            else:
                return None
    return current if isinstance(current, type) else None


def parse_desk(text: str, *, path: Path, host: HostConfig | None = None) -> Desk:
    """Validate desk-file text (and the host module's additions) into a ``Desk``."""
    label = path.name
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeskFileError(
            label, "", f"not valid TOML: {exc}{toml_hint(str(exc), text)}"
        ) from None
    except RecursionError:
        raise DeskFileError(label, "", "nested too deeply to read (arrays or tables)") from None
    host = host or HostConfig()
    raw = _merge_host(raw, host, label)
    try:
        data = DeskFile.model_validate(raw)
    except ValidationError as exc:
        key, reason = _explain(exc.errors()[0], DeskFile)  # type: ignore[arg-type]
        raise DeskFileError(label, key, reason) from None
    return Desk(data.model_dump(), path=path, host=host)


_TOML_HINTS = (
    ("Invalid value", 'text needs double quotes ("alpha", "5m"), lists are ["a", "b"]'),
    ("after a statement", 'one key = value per line; text needs double quotes ("5m")'),
    ("Expected '=' after a key", 'each line is key = value, like name = "alpha"'),
    ("Cannot overwrite a value", "a key is set twice in one table; start each role with [[roles]]"),
    ("twice", "a [table] appears twice; use [[roles]] (double brackets) to repeat one"),
    ("Unterminated string", 'a string lacks its closing quote "'),
    ("Unclosed array", 'a list lacks its closing ] or a comma between items: ["a", "b"]'),
    ("at the end of a table", "a table header is [name] or [[roles]]"),
    ("initial character for a key", "a trailing comma in { } or a key that needs quotes"),
)
"""Plain words for tomllib's common errors: a desk file is edited by hand."""


def toml_hint(error: str, text: str) -> str:
    """`` — the line: a hint`` for a TOML syntax error, or "" when there is nothing to add."""
    hint = next((h for needle, h in _TOML_HINTS if needle in error), "")
    found = re.search(r"at line (\d+)", error)
    lines = text.splitlines()
    shown = ""
    if found and 0 < int(found.group(1)) <= len(lines):
        line = lines[int(found.group(1)) - 1].strip()
        shown = f"`{line[:80]}`" if line else ""
    parts = [p for p in (shown, hint) if p]
    return f" — {': '.join(parts)}" if parts else ""


def _merge_host(raw: dict[str, Any], host: HostConfig, label: str) -> dict[str, Any]:
    if not (host.roles or host.desk or host.channels):
        return raw
    where = f"DESKD_CONFIG_MODULE ({host.module})"
    merged = dict(raw)
    file_roles = {r.get("name") for r in raw.get("roles", []) if isinstance(r, dict)}
    for role in host.roles:
        if role.get("name") in file_roles:
            raise ConfigConflict(f"role {role.get('name')!r}", label, where)
    merged["roles"] = [*raw.get("roles", []), *host.roles]
    file_channels = {c.get("name") for c in raw.get("channels", []) if isinstance(c, dict)}
    for channel in host.channels:
        if channel.get("name") in file_channels:
            raise ConfigConflict(f"channel {channel.get('name')!r}", label, where)
    merged["channels"] = [*raw.get("channels", []), *host.channels]
    desk_section = dict(raw.get("desk", {}))
    for key, value in host.desk.items():
        if key in desk_section:
            raise ConfigConflict(f"desk.{key}", label, where)
        desk_section[key] = value
    merged["desk"] = desk_section
    return merged


def load_desk(path: Path, *, host: HostConfig | None = None, required: bool = True) -> Desk:
    """Read and validate the desk file; a missing file is refused (or empty when not required)."""
    try:
        text = decode_desk_file(path.read_bytes(), path.name)
    except FileNotFoundError:
        if required:
            raise DeskFileError(
                str(path),
                "",
                "no desk file here (run `deskd init`, or set DESKD_HOME / DESKD_DESK)",
            ) from None
        text = ""
    except OSError as exc:
        raise DeskFileError(str(path), "", f"cannot read: {exc.strerror}") from None
    return parse_desk(text, path=path, host=host)


def decode_desk_file(data: bytes, label: str) -> str:
    """The desk file's text; refuses UTF-16 and other non-UTF-8 bytes with the reason."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DeskFileError(label, "", "UTF-16 text: save it as UTF-8 (TOML is UTF-8)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DeskFileError(
            label, "", f"not UTF-8 text (byte {exc.start}, line {line}): save it as UTF-8"
        ) from None


def channel_urls(channel: ChannelConfig) -> list[str]:
    """The channel's apprise URLs with ``${VAR}`` filled from the environment."""
    return [expand_vars(u) for u in channel.urls]
