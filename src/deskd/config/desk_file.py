"""The desk file (``deskd.toml``) validated, merged with ``DESKD_CONFIG_MODULE``.

The models are built from the records of ``deskd.config.desk`` (each key's one declaration:
name, type, default); this module adds only what a type cannot say, each table's checks and
limits. Unknown keys are refused (typo protection); every refusal names the file, the key and
the reason, e.g. ``deskd.toml: roles[1].name: 'Alpha' is not a role name: lowercase letters…``.
Floor 4 of deskd.config. It runs past 400 lines because every table's checks sit together,
beside the one place that turns pydantic's errors into the file's key and a sentence.
"""

from __future__ import annotations

import functools
import operator
import re
import tomllib
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from deskd.config import desk as records
from deskd.config.desk import AGENT_KINDS as AGENT_KINDS
from deskd.config.desk import DEFAULT_ALLOWED_TOOLS as DEFAULT_ALLOWED_TOOLS
from deskd.config.desk import AgentSettings as AgentSettings
from deskd.config.desk import Desk
from deskd.config.host import HostConfig
from deskd.core.events_in import template_problem
from deskd.core.ladder import RUNGS, rank
from deskd.core.timeparse import MAX_DURATION_S, check_duration, parse_duration
from deskd.core.values import RESERVED_SOURCES, role_name_problem
from deskd.errors import ConfigConflict, DeskdError, DeskFileError

_HHMM = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
_QUIET = re.compile(rf"\s*{_HHMM.pattern}\s*-\s*{_HHMM.pattern}\s*")
_BRANCH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/-]{0,99}(?<![/.])(?<!\.lock)")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _seconds(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("must be a duration like 90s, 5m, 2h, 1d")
    try:
        return check_duration(value) if isinstance(value, int) else parse_duration(str(value))
    except DeskdError as exc:
        if "at most" in exc.message:
            raise ValueError(f"must be at most {MAX_DURATION_S // 86400}d") from None
        raise ValueError("must be a duration like 90s, 5m, 2h, 1d") from None


def _duration_fields(*fields: str) -> Any:
    """Durations (``90s``, ``5m``, or seconds) read as seconds before the type is checked."""
    return field_validator(*fields, mode="before", check_fields=False)(_seconds)


def _checked(field: str, problem: Callable[[Any], str | None]) -> Any:
    """A validator refusing ``field``'s value (when given) with the sentence ``problem`` says."""

    def check(value: Any) -> Any:
        said = problem(value) if value is not None else None
        if said:
            raise ValueError(said)
        return value

    return field_validator(field, check_fields=False)(check)


def _unless(ok: Callable[[Any], object], says: str) -> Callable[[Any], str | None]:
    return lambda value: None if ok(value) else says


def _source_problem(source: str) -> str | None:
    if source in RESERVED_SOURCES:
        return f"{source!r} is reserved for deskd itself (reserved: {', '.join(RESERVED_SOURCES)})"
    if not re.fullmatch(r"[a-z][a-z0-9_.-]{0,31}", source):
        return f"source {source!r} must match [a-z][a-z0-9_.-]{{0,31}}"
    return None


def _timezone_problem(value: str) -> str | None:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        from zoneinfo import available_timezones

        from deskd.errors import meant

        return (
            f"unknown timezone {value!r}{meant(value, available_timezones())} (an IANA "
            "name like America/New_York or UTC)"
        )
    return None


_HOST_PROBLEM = _unless(
    lambda v: v and v == v.strip(),
    "must be a host name (DESKD_HOST_NAME of that host), like gpu-box",
)
_BRANCH_PROBLEM = _unless(
    lambda v: not isinstance(v, str) or (".." not in v and _BRANCH.fullmatch(v)),
    "must be true, false or a branch name like deskd/alpha",
)


# The checks of a table that read more than one field; the fields come from
# ``deskd.config.desk``, the checks of one field are given to ``_model`` below.


class _PresenceChecks(_Strict):
    @model_validator(mode="after")
    def _ordered(self) -> Self:
        presence = records.PresenceSection(**self.model_dump())
        if not 0 < presence.online < presence.suspect:
            raise ValueError("online must be shorter than suspect, and both above zero")
        return self


class _BudgetChecks(_Strict):
    @model_validator(mode="after")
    def _windowed(self) -> Self:
        budget = records.BudgetSection(**self.model_dump())
        per_window = budget.tokens_per_window is not None or budget.usd_per_window is not None
        if per_window and budget.window is None:
            raise _At("window", 'tokens_per_window and usd_per_window need a window, like "5h"')
        if budget.window is not None and not per_window:
            raise _At("window", "a window needs tokens_per_window or usd_per_window")
        return self


class _EventChecks(_Strict):
    @model_validator(mode="after")
    def _whole(self) -> Self:
        event = records.EventSource(**self.model_dump())
        if (event.for_ is None) == (event.capability is None):
            raise ValueError(f"source {event.source!r}: give either for = ROLE or capability")
        needs = "secret" if event.kind == "github" else "token"
        other = "token" if needs == "secret" else "secret"
        if getattr(event, needs) is None or getattr(event, other) is not None:
            raise ValueError(
                f'source {event.source!r} ({event.kind}) is checked by {needs} = "${{VAR}}" '
                "(github: secret, checked against X-Hub-Signature-256; others: a bearer token)"
            )
        return self


class _DeskFileChecks(_Strict):
    @model_validator(mode="after")
    def _consistent(self) -> Self:
        data = records.desk_file(self.model_dump())
        seen: set[str] = set()
        for index, role in enumerate(data.roles):
            if role.name in seen:
                raise _At(f"roles[{index}].name", f"role {role.name!r} is defined twice")
            seen.add(role.name)
        order = [rank(r.rung) for r in data.ladder]
        if order != sorted(set(order)):
            raise _At("ladder", "rungs must be unique and in order: " + ", ".join(RUNGS))
        for index, rung in enumerate(data.ladder):
            if not RUNGS[rung.rung].waits and rung.sla is None:
                raise _At(f"ladder[{index}].sla", f"rung {rung.rung!r} needs an sla")
        names = {c.name for c in data.channels}
        if len(names) != len(data.channels):
            raise _At("channels", "channel names must be unique")
        named = [(f"roles[{i}].channels", r.channels) for i, r in enumerate(data.roles)]
        for key, channels in [*named, ("desk.default_channels", data.desk.default_channels)]:
            for ch in channels:
                if ch not in names:
                    known = ", ".join(sorted(names)) or "none"
                    raise _At(key, f"unknown channel {ch!r} (channels: {known})")
        sources = [e.source for e in data.events]
        for index, event in enumerate(data.events):
            if sources.count(event.source) > 1:
                raise _At(f"events[{index}].source", f"source {event.source!r} is declared twice")
            if event.for_ is not None and event.for_ not in seen:
                known = ", ".join(sorted(seen)) or "none"
                raise _At(f"events[{index}].for", f"unknown role {event.for_!r} (roles: {known})")
        return self


_MODELS: dict[Any, type[BaseModel]] = {}
"""Each record of ``deskd.config.desk`` and the model built from it."""


def _model(
    record: type[Any],
    checks: type[_Strict] = _Strict,
    *,
    durations: tuple[str, ...] = (),
    problems: dict[str, Callable[[Any], str | None]] | None = None,
    **limits: dict[str, Any],
) -> type[BaseModel]:
    """The model validating ``record``'s table: its fields (name, type, default) as the record
    declares them, a record inside as that record's model, plus ``limits`` (``ge=1``…), the
    ``durations`` read as seconds, each field's ``problems`` and the validators of ``checks``."""
    types = typing.get_type_hints(record)
    fields: dict[str, Any] = {}
    for name in record._fields:
        spec = dict(limits.get(name, {}))
        if name in record._field_defaults:
            default = record._field_defaults[name]
            if type(default) in _MODELS:
                spec["default_factory"] = _MODELS[type(default)]
            elif isinstance(default, list):  # each model its own copy
                spec["default_factory"] = functools.partial(list, default)
            else:
                spec["default"] = default
        fields[name] = (_as_model(types[name]), Field(**spec))
    checked = {f"_{name}": _checked(name, problem) for name, problem in (problems or {}).items()}
    if durations:
        checked["_durations"] = _duration_fields(*durations)
    model = create_model(
        record.__name__, __base__=checks, __module__=__name__, __validators__=checked, **fields
    )
    _MODELS[record] = model
    return model


def _as_model(annotation: Any) -> Any:
    """``annotation`` with every record in it replaced by its model (``list[RoleConfig]``…)."""
    if annotation in _MODELS:
        return _MODELS[annotation]
    args = typing.get_args(annotation)
    swapped = tuple(_as_model(a) for a in args)
    if swapped == args:
        return annotation
    if typing.get_origin(annotation) is list:
        return list[swapped[0]]  # type: ignore[valid-type]
    return functools.reduce(operator.or_, swapped)  # a union: X | None


DeskSection = _model(
    records.DeskSection,
    durations=("inbox_batch", "probe_timeout", "probe_budget", "stuck_after"),
    problems={
        "timezone": _timezone_problem,
        "inbox_sources": lambda v: next(filter(None, map(_source_problem, v)), None),
        "rollover_at": _unless(_HHMM.fullmatch, "must be a local time HH:MM, like 04:00"),
    },
    stall_after={"ge": 1},
    reopen_after={"ge": 1},
    stuck_after={"ge": 60},
    max_launches_per_day={"ge": 0},
    max_cost_per_day={"ge": 0},
    probe_timeout={"ge": 1},
    probe_budget={"ge": 1},
    max_running={"ge": 0},
    max_running_per_host={"ge": 0},
)
_LIMITS: dict[str, Any] = {
    f"{u}_per_{p}": {"gt": 0} for u in ("tokens", "usd") for p in ("day", "week", "month", "window")
}
BudgetSection = _model(
    records.BudgetSection,
    _BudgetChecks,
    durations=("window",),
    reserve={"ge": 0, "le": 1},
    expected_tokens={"ge": 0},
    **_LIMITS,
)
PresenceSection = _model(records.PresenceSection, _PresenceChecks, durations=("online", "suspect"))
AgentSection = _model(
    records.AgentSection, durations=("timeout", "retry_wait"), retry_wait={"ge": 0}
)
RoleConfig = _model(
    records.RoleConfig,
    durations=("stuck_after",),
    problems={"worktree": _BRANCH_PROBLEM, "host": _HOST_PROBLEM, "name": role_name_problem},
    reopen_after={"ge": 1},
    stuck_after={"ge": 60},
)
LadderRung = _model(records.LadderRung, durations=("sla",))
ChannelConfig = _model(
    records.ChannelConfig,
    problems={"quiet": _unless(_QUIET.fullmatch, "must be local hours like 22:00-07:00")},
)
EventSource = _model(
    records.EventSource,
    _EventChecks,
    problems={"source": _source_problem, "title": template_problem},
    for_={"alias": "for"},
)
ReplySection = _model(records.ReplySection, from_={"alias": "from"})
DeskFile = _model(records.DeskFile, _DeskFileChecks)


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
        fields = parent.model_fields.items() if parent is not None else ()
        valid = ", ".join(f.alias or name for name, f in fields)
        return _key(loc), f"unknown key (valid keys: {valid})"
    ctx = err.get("ctx") or {}
    error = ctx.get("error")
    if isinstance(error, _At):
        return (_key(loc) + "." if loc else "") + error.key if loc else error.key, error.reason
    return _key(loc), str(err.get("msg", "invalid")).removeprefix("Value error, ")


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model of the table at ``loc`` (list indexes skipped), or None when it is no table."""
    current: type[BaseModel] | None = model
    for part in (p for p in loc if not isinstance(p, int)):
        field = current.model_fields.get(part) if current is not None else None
        inside = _inside(field.annotation) if field is not None else []
        current = next((t for t in inside if t in _MODELS.values()), None)
    return current


def _inside(annotation: Any) -> list[Any]:
    """``annotation`` and every type named inside it (``list[RoleConfig] | None``…)."""
    return [annotation, *(t for arg in typing.get_args(annotation) for t in _inside(arg))]


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
    for table, what, added in (
        ("roles", "role", host.roles),
        ("channels", "channel", host.channels),
    ):
        in_file = {t.get("name") for t in raw.get(table, []) if isinstance(t, dict)}
        for entry in added:
            if entry.get("name") in in_file:
                raise ConfigConflict(f"{what} {entry.get('name')!r}", label, where)
        merged[table] = [*raw.get(table, []), *added]
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
