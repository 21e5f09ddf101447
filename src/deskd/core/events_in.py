"""Events that come in over HTTP (``POST /events/<source>``), read into what deskd does with
them: pure rules, no I/O. A payload becomes one ``Incoming`` (open an item, or acknowledge
the one a resolved alert opened) keyed by the sender's delivery id, or nothing (ignored).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, NamedTuple

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


class Incoming(NamedTuple):
    """``open`` an item, or ``resolve``: acknowledge the unread items under ``dedup_key``."""

    action: str
    delivery: str | None
    title: str = ""
    body: str = ""
    ref: str | None = None
    dedup_key: str | None = None
    priority: str | None = None


def lookup(payload: Any, path: str) -> Any:
    """The value at ``a.b.0.c`` in ``payload``, or None."""
    for part in path.split("."):
        if isinstance(payload, list) and part.isdigit() and int(part) < len(payload):
            payload = payload[int(part)]
        else:
            payload = payload.get(part) if isinstance(payload, dict) else None
    return payload


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def fill(template: str, payload: Any) -> str:
    """``template`` with each ``{dotted.path}`` replaced by the payload's value there; a path
    the payload lacks is refused, naming it."""

    def one(match: re.Match[str]) -> str:
        value = lookup(payload, match.group(1))
        if value is None:
            raise PayloadRefused(f"the payload has no {match.group(1)!r} (title = {template!r})")
        return _text(value) or json.dumps(value)

    return _FIELD.sub(one, template)


def template_problem(template: str) -> str | None:
    """Why ``template`` cannot build a title, or None."""
    if not template.strip():
        return "must not be empty"
    if "{" in _FIELD.sub("", template):
        return "a field is {dotted.path} into the payload, like {issue.title}"
    return None


def incoming(
    kind: str, body: bytes, *, headers: dict[str, str], title: str | None
) -> tuple[Incoming | None, str]:
    """What a delivery asks of deskd, or None and why it is ignored. ``headers`` are
    lower-cased; ``title`` is the source's own template, if any."""
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise PayloadRefused(f"the body is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise PayloadRefused("the body must be a JSON object")
    try:
        if kind == "alertmanager":
            return _alertmanager(payload, title), ""
        if kind == "github":
            return _github(payload, headers, title)
    except (AttributeError, TypeError) as exc:  # a field of the wrong shape
        raise PayloadRefused(f"not a {kind} payload: {exc}") from None
    delivery = headers.get("idempotency-key") or headers.get("x-delivery-id")
    shown = _text(payload.get("body")) or json.dumps(payload, indent=1)
    text = fill(title or "{title}", payload)
    return Incoming("open", delivery, text, shown, _text(payload.get("ref"))), ""


def _alertmanager(payload: dict[str, Any], title: str | None) -> Incoming:
    group, status = payload.get("groupKey"), payload.get("status")
    if not isinstance(group, str) or status not in ("firing", "resolved"):
        raise PayloadRefused("not an Alertmanager webhook: needs groupKey and status")
    alerts = [a for a in payload.get("alerts") or [] if isinstance(a, dict)]
    # Alertmanager sends no delivery id: a notification is its group, its status and its
    # alerts' instants; a repeat of the same notice (or a replay) is the same delivery.
    seen = sorted(f"{a.get('fingerprint')}@{a.get('startsAt')}@{a.get('status')}" for a in alerts)
    digest = hashlib.sha256("\n".join([group, status, *seen]).encode()).hexdigest()[:40]
    key = "alertmanager:" + hashlib.sha256(group.encode()).hexdigest()[:32]
    if status == "resolved":
        return Incoming("resolve", digest, dedup_key=key)
    common = payload.get("commonLabels") or {}
    notes = payload.get("commonAnnotations") or {}
    name = common.get("alertname", "alert")
    summary = notes.get("summary") or notes.get("description")
    default = f"{name}: {summary}" if summary else f"{name} firing ({len(alerts)} alerts)"
    lines = [
        f"{a.get('status')}: {', '.join(f'{k}={v}' for k, v in sorted((a.get('labels') or {}).items()))}"
        f" — {lookup(a, 'annotations.summary') or ''}"
        for a in alerts
    ]
    title = fill(title, payload) if title else default
    priority = SEVERITY_PRIORITY.get(str(common.get("severity", "")).lower())
    return Incoming(
        "open", digest, title, "\n".join(lines), _text(payload.get("externalURL")), key, priority
    )


def _github(
    payload: dict[str, Any], headers: dict[str, str], title: str | None
) -> tuple[Incoming | None, str]:
    event, action = headers.get("x-github-event", ""), str(payload.get("action", ""))
    if action not in GITHUB_ACTIONS.get(event, ()):
        return None, f"ignored: GitHub {event or '(no X-GitHub-Event)'} {action}".rstrip()
    repo = lookup(payload, "repository.full_name")
    if event == "check_run":
        subject = payload.get("check_run") or {}
        ended = subject.get("conclusion")
        if ended in QUIET_CONCLUSIONS:
            return None, f"ignored: check run {ended}"
        where = lookup(subject, "check_suite.head_branch") or str(subject.get("head_sha"))[:12]
        default = f"{repo}: check {subject.get('name')} {ended} on {where}"
    else:
        subject = payload.get("issue" if event == "issues" else "pull_request") or {}
        noun = "issue" if event == "issues" else "pull request"
        merged = " (merged)" if subject.get("merged") else ""
        default = (
            f"{repo}: {noun} #{subject.get('number')} {action}{merged}: {subject.get('title')}"
        )
    body = _text(subject.get("body")) or _text(lookup(subject, "output.summary")) or ""
    title = fill(title, payload) if title else default
    delivery = headers.get("x-github-delivery")
    return Incoming("open", delivery, title, body, _text(subject.get("html_url"))), ""
