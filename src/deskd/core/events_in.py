"""Events that come in over HTTP (``POST /events/<source>``), read into what deskd does with
them: pure rules, no I/O. A sender's payload becomes zero or more ``Incoming`` (open an item,
or acknowledge the one a resolved alert opened), each keyed by the sender's delivery id so a
replayed delivery adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

GITHUB_ACTIONS = {
    "issues": ("opened", "reopened", "closed"),
    "pull_request": ("opened", "reopened", "closed", "ready_for_review"),
    "check_run": ("completed",),
}
"""The GitHub events and actions that make an item; any other delivery is ignored."""
QUIET_CONCLUSIONS = ("success", "neutral", "skipped")
"""A check run that ended so wakes nobody: only failures are news."""
SEVERITY_PRIORITY = {"critical": "urgent", "page": "urgent", "error": "high", "warning": "high"}
"""An alert's ``severity`` label, as an item priority (other values keep the source's)."""

_FIELD = re.compile(r"\{([A-Za-z0-9_.-]+)\}")


class PayloadRefused(ValueError):
    """A payload deskd cannot read: the sentence names what is wrong."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Incoming:
    """One thing to do: ``open`` an item, or ``resolve`` (acknowledge) the unread items
    opened under ``dedup_key``."""

    action: Literal["open", "resolve"]
    delivery: str | None
    title: str = ""
    body: str = ""
    ref: str | None = None
    dedup_key: str | None = None
    priority: str | None = None


def lookup(payload: Any, path: str) -> Any:
    """The value at ``a.b.0.c`` in ``payload``, or None."""
    value = payload
    for part in path.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def fill(template: str, payload: Any) -> str:
    """``template`` with each ``{dotted.path}`` replaced by the payload's value there; a path
    the payload lacks is refused, naming it."""

    def one(match: re.Match[str]) -> str:
        value = lookup(payload, match.group(1))
        if value is None:
            raise PayloadRefused(f"the payload has no {match.group(1)!r} (title = {template!r})")
        return value if isinstance(value, str) else json.dumps(value)

    return _FIELD.sub(one, template)


def template_problem(template: str) -> str | None:
    """Why ``template`` cannot build a title, or None."""
    if not template.strip():
        return "must not be empty"
    if "{" in _FIELD.sub("", template):
        return "a field is {dotted.path} into the payload, like {issue.title}"
    return None


def read_payload(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PayloadRefused(f"the body is not JSON: {exc}") from None


def incoming(
    kind: str, payload: Any, *, headers: dict[str, str], title: str | None
) -> tuple[list[Incoming], str]:
    """What a delivery asks of deskd, and a word on it (``ignored: …`` when nothing).
    ``headers`` are lower-cased; ``title`` is the source's own template, if any."""
    if not isinstance(payload, dict):
        raise PayloadRefused("the body must be a JSON object")
    if kind == "alertmanager":
        return _alertmanager(payload, title), ""
    if kind == "github":
        return _github(payload, headers, title)
    delivery = headers.get("idempotency-key") or headers.get("x-delivery-id")
    text = fill(title or "{title}", payload)
    body = payload.get("body")
    shown = body if isinstance(body, str) else json.dumps(payload, indent=1)
    ref = payload.get("ref") if isinstance(payload.get("ref"), str) else None
    return [Incoming(action="open", delivery=delivery, title=text, body=shown, ref=ref)], ""


def _alertmanager(payload: dict[str, Any], title: str | None) -> list[Incoming]:
    group, status = payload.get("groupKey"), payload.get("status")
    alerts = payload.get("alerts")
    if not isinstance(group, str) or status not in ("firing", "resolved"):
        raise PayloadRefused("not an Alertmanager webhook: needs groupKey and status")
    alerts = [a for a in alerts if isinstance(a, dict)] if isinstance(alerts, list) else []
    # Alertmanager sends no delivery id: a notification is its group, its status and its
    # alerts' instants; a repeat of the same notice (or a replay) is the same delivery.
    seen = sorted(f"{a.get('fingerprint')}@{a.get('startsAt')}@{a.get('status')}" for a in alerts)
    digest = hashlib.sha256("\n".join([group, status, *seen]).encode()).hexdigest()[:40]
    key = "alertmanager:" + hashlib.sha256(group.encode()).hexdigest()[:32]
    if status == "resolved":
        return [Incoming(action="resolve", delivery=digest, dedup_key=key)]
    common = payload.get("commonLabels") or {}
    notes = payload.get("commonAnnotations") or {}
    name = common.get("alertname", "alert")
    summary = notes.get("summary") or notes.get("description") or ""
    default = f"{name}: {summary}" if summary else f"{name} firing ({len(alerts)} alerts)"
    lines = [
        f"{a.get('status')}: "
        + ", ".join(f"{k}={v}" for k, v in sorted((a.get("labels") or {}).items()))
        + (f" — {(a.get('annotations') or {}).get('summary')}" if a.get("annotations") else "")
        for a in alerts
    ]
    return [
        Incoming(
            action="open",
            delivery=digest,
            title=fill(title, payload) if title else default,
            body="\n".join(lines),
            ref=payload.get("externalURL") if isinstance(payload.get("externalURL"), str) else None,
            dedup_key=key,
            priority=SEVERITY_PRIORITY.get(str(common.get("severity", "")).lower()),
        )
    ]


def _github(
    payload: dict[str, Any], headers: dict[str, str], title: str | None
) -> tuple[list[Incoming], str]:
    event = headers.get("x-github-event", "")
    action = str(payload.get("action", ""))
    if action not in GITHUB_ACTIONS.get(event, ()):
        return [], f"ignored: GitHub {event or '(no X-GitHub-Event)'} {action}".rstrip()
    repo = lookup(payload, "repository.full_name") or "?"
    if event == "check_run":
        run = payload.get("check_run") or {}
        if run.get("conclusion") in QUIET_CONCLUSIONS:
            return [], f"ignored: check run {run.get('conclusion')}"
        default = f"{repo}: check {run.get('name')} {run.get('conclusion')} on {lookup(run, 'check_suite.head_branch') or run.get('head_sha', '')[:12]}"
        subject = run
    else:
        subject = payload.get("issue" if event == "issues" else "pull_request") or {}
        noun = "issue" if event == "issues" else "pull request"
        merged = " (merged)" if subject.get("merged") else ""
        default = (
            f"{repo}: {noun} #{subject.get('number')} {action}{merged}: {subject.get('title')}"
        )
    body = subject.get("body") or lookup(subject, "output.summary") or ""
    return [
        Incoming(
            action="open",
            delivery=headers.get("x-github-delivery"),
            title=fill(title, payload) if title else default,
            body=body if isinstance(body, str) else "",
            ref=subject.get("html_url") if isinstance(subject.get("html_url"), str) else None,
        )
    ], ""
