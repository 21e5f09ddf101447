"""Wake hook rules: how a hook's spec is stored, when it fires, what a probe may be."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from deskd.core.timeparse import iso_utc
from deskd.errors import InvalidValue
from deskd.schedule.rules import AtSpec, CronSpec, EverySpec, Spec, due, next_fire, span_text

PROBE_DEFAULT_EVERY_S = 600
PROBE_ERRORS_TO_DISABLE = 3
PROBE_KEYS = frozenset({"title", "body", "priority", "ref", "dedup_key"})
SPECS: dict[str, type[Spec]] = {"at": AtSpec, "every": EverySpec, "probe": EverySpec}
"""The spec record a hook kind stores (``cron`` is the rest)."""


class FireDecision(NamedTuple):
    """Whether a hook fires now, what it absorbed, and when it fires next."""

    fire_at: int | None
    missed: int
    next_fire_at: int | None
    status: str


def spec_json(
    spec: Spec,
    *,
    target: str | None = None,
    timeout_s: int | None = None,
    done_when: str | None = None,
) -> str:
    extra = {"target": target, "timeout_s": timeout_s, "done_when": done_when and done_when.strip()}
    data = spec._asdict() | {k: v for k, v in extra.items() if v is not None}
    return json.dumps(data, sort_keys=True)


def spec_from_json(kind: str, text: str) -> Spec:
    data = json.loads(text)
    record = SPECS.get(kind, CronSpec)
    return record._make(data[field] for field in record._fields)


def probe_target(text: str) -> str:
    """The ``module:function`` a probe hook calls, stored in its spec."""
    return str(json.loads(text)["target"])


def probe_timeout(text: str) -> int | None:
    """A probe hook's own ``--timeout`` in seconds, stored in its spec; None: the desk's."""
    value = json.loads(text).get("timeout_s")
    return None if value is None else int(value)


def spec_text(kind: str, text: str) -> str:
    """What `hook list` shows as the spec: the expression, interval or time."""
    data = json.loads(text)
    if kind == "cron":
        return f"{data['expr']} ({data['tz']})"
    if kind == "every":
        return f"every {span_text(data['every_s'])}"
    if kind == "probe":
        timeout = f", timeout {span_text(data['timeout_s'])}" if "timeout_s" in data else ""
        return f"{data['target']} every {span_text(data['every_s'])}{timeout}"
    return str(iso_utc(int(data["at_ms"])))


def decide_fire(spec: Spec, *, since: int, now: int, until_at: int | None) -> FireDecision:
    """Whether a hook fires at ``now`` (missed fires coalesce into one) and what comes next.

    ``since`` is its last fire (or when it was added). An ``at`` hook is done after firing;
    a hook whose ``--until`` has passed retires instead of firing again.
    """
    if until_at is not None and now >= until_at:
        decision, following = due(spec, since=since, now=until_at), None
    else:
        decision = due(spec, since=since, now=now)
        following = next_fire(spec, after=now)
        if until_at is not None and following is not None and following >= until_at:
            following = None
    status = "active" if following is not None else "done"
    return FireDecision(
        fire_at=decision.fire_at, missed=decision.missed, next_fire_at=following, status=status
    )


def probe_allowed(target: str, allowlist: list[str]) -> bool:
    """``module:function`` whose module is an allowlisted prefix at a dotted-name boundary.

    ``myapp.watchers`` allows ``myapp.watchers`` and ``myapp.watchers.disk`` but not
    ``myapp.watchersevil``; an empty allowlist allows nothing.
    """
    module = target.split(":", 1)[0]
    return any(module == p or module.startswith(p + ".") for p in allowlist if p)


def check_probe_target(target: str, allowlist: list[str], *, what: str = "--probe") -> str:
    module, sep, function = target.partition(":")
    if (
        not sep
        or not module
        or not function.isidentifier()
        or not all(part.isidentifier() for part in module.split("."))
    ):
        raise InvalidValue(what, target, "module:function, like myapp.watchers:disk_full")
    if not probe_allowed(target, allowlist):
        allowed = ", ".join(allowlist) if allowlist else "none: set probe_allowlist in deskd.toml"
        raise InvalidValue(what, target, f"its module is not in probe_allowlist ({allowed})")
    return target


def probe_items(value: Any) -> list[dict[str, Any]]:
    """A probe's return value as item fields: a truthy dict, a list of dicts, or nothing."""
    if not value:
        return []
    entries = value if isinstance(value, list) else [value]
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ValueError(
                f"a probe returns dict | list[dict] | None, got {type(entry).__name__}"
            )
        unknown = set(entry) - PROBE_KEYS
        if unknown:
            raise ValueError(
                f"unknown keys {sorted(unknown)} (keys: {', '.join(sorted(PROBE_KEYS))})"
            )
        if not entry:
            continue
        if not str(entry.get("title", "")).strip():
            raise ValueError("a probe item needs a title")
        out.append(entry)
    return out
