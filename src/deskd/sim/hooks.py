"""Run a settings file's command hooks for one event, the way Claude Code runs them.

Each matching ``{"type": "command"}`` handler runs through a shell (``/bin/sh -c COMMAND``)
with the event JSON on stdin, the inherited environment plus ``CLAUDE_PROJECT_DIR``, in the
session's folder, under its ``timeout`` (Claude Code's default: 600 s); an identical handler
runs once. Matchers are compared with the tool name (``PostToolUse``,
``PostToolUseFailure``), the source (``SessionStart``) or the error (``StopFailure``); other
events ignore them. What a hook prints as ``hookSpecificOutput.additionalContext`` (or, for
``SessionStart`` and ``UserPromptSubmit``, as plain text) is returned as context.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

MATCHED_FIELD = {
    "SessionStart": "source",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "StopFailure": "error",
}
DEFAULT_TIMEOUT_S = 600.0
PLAIN_TEXT_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})


def run_hooks(settings: dict[str, Any], payload: dict[str, Any], *, cwd: str) -> list[str]:
    """Run the hooks for ``payload["hook_event_name"]``; the context they returned."""
    event = str(payload["hook_event_name"])
    key = MATCHED_FIELD.get(event)
    value = str(payload.get(key, "")) if key else None
    seen: set[str] = set()
    context: list[str] = []
    for group in hook_groups(settings, event):
        if value is not None and not matches(group.get("matcher"), value):
            continue
        for entry in group.get("hooks") or []:
            if not isinstance(entry, dict) or entry.get("type") != "command":
                continue
            command = str(entry.get("command") or "")
            if not command or command in seen:
                continue  # Claude Code runs an identical handler once
            seen.add(command)
            text = run_one(event, command, payload, entry.get("timeout"), cwd=cwd)
            if text is not None:
                context.append(text)
    return context


def run_one(
    event: str, command: str, payload: dict[str, Any], timeout: object, *, cwd: str
) -> str | None:
    limit = float(timeout) if isinstance(timeout, int | float) else DEFAULT_TIMEOUT_S
    env = dict(os.environ)
    env["CLAUDE_PROJECT_DIR"] = cwd
    try:
        proc = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        sys.stderr.write(f"{event} hook timed out after {limit:g}s: {command}\n")
        return None
    if proc.returncode != 0:
        sys.stderr.write(f"{event} hook exited {proc.returncode}: {proc.stderr.strip()}\n")
    text = proc.stdout.strip()
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return text if event in PLAIN_TEXT_CONTEXT else None
    specific = doc.get("hookSpecificOutput") if isinstance(doc, dict) else None
    if isinstance(specific, dict) and isinstance(specific.get("additionalContext"), str):
        return str(specific["additionalContext"])
    return None


def hook_groups(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    hooks = settings.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    return [g for g in groups if isinstance(g, dict)] if isinstance(groups, list) else []


def matches(matcher: object, value: str) -> bool:
    """Claude Code's matcher rule: ``*``/empty/absent match all; letters, digits, ``_`` and
    ``|`` are exact names; anything else is an unanchored regular expression."""
    if matcher is None or matcher in ("", "*"):
        return True
    text = str(matcher)
    if re.fullmatch(r"[A-Za-z0-9_|]+", text):
        return value in text.split("|")
    try:
        return re.search(text, value) is not None
    except re.error:
        return False
