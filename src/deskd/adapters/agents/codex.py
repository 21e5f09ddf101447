"""OpenAI Codex CLI (``codex exec --json``), run with stdin closed.

Confirmed with the real Codex 0.171.0 (npm ``@openai/codex``) against a loopback Responses
API (tests/real_agents; captures in tests/adapters/fixtures/real). Aim it with a provider
in ``$HOME/.codex/config.toml`` (``OPENAI_BASE_URL`` is not honoured by ``codex exec``).
JSONL events: ``thread.started`` (``thread_id``, the native session id, before any model
call), ``turn.started``, ``item.started``/``item.completed`` (``agent_message``,
``command_execution`` …; an ``error`` item is a warning such as unknown model metadata),
``turn.completed`` and ``turn.failed`` (``error.message``). A top-level ``error`` line alone
is a reconnect warning; only ``turn.failed`` fails a turn, and with nothing listening Codex
reconnects for ever, so only deskd's timeout ends it. ``codex exec resume SID … PROMPT``
continues the thread (the model is sent the earlier turns), also a thread whose first model
call failed. A 401 is "unexpected status 401 Unauthorized"; a usage limit says "try again at
12:14 PM" (a time of day, read as the next such local time after the run started) or "try
again at Dec 1st, 2026 3:05 AM"; outside a git work tree it refuses with "Not inside a
trusted directory and --skip-git-repo-check was not specified" (exit 1), a configuration
failure: permanent.

Not verified: whether ``-m`` is accepted after ``exec resume`` (deskd passes it there as for
``exec``); relative forms ("try again in 2 hours") leave the reset unknown. Codex has no
per-tool allow list: ``allowed_tools`` is not passed.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from deskd.adapters.agents import base
from deskd.adapters.agents.base import AgentAdapter, LaunchSpec, RunOutcome, RunState
from deskd.core.values import TRANSIENT, USAGE_LIMIT

_MODEL_ITEMS = frozenset(
    {
        "agent_message",
        "reasoning",
        "command_execution",
        "file_change",
        "mcp_tool_call",
        "web_search",
        "todo_list",
    }
)
_RESET_TIME = re.compile(r"try again at\s+(\d{1,2}):(\d{2})\s*([AaPp][Mm])")
_RESET_AT = re.compile(
    r"try again at\s+([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}),?\s+"
    r"(\d{1,2}):(\d{2})\s*([AaPp][Mm])"
)


class CodexAdapter(AgentAdapter):
    login_hint = "run `codex login` as the desk's user"

    def build(self, spec: LaunchSpec) -> list[str]:
        # Positionals (the session id, the prompt) come after ``--``, so neither can be read
        # as a flag whatever it starts with.
        if spec.mode == "resume":
            argv = [spec.command, "exec", "resume", "--json"]
            positionals = [self.resume_id(spec), spec.prompt]
        else:
            argv = [spec.command, "exec", "--json"]
            positionals = [spec.prompt]
        if spec.model:
            argv += ["-m", spec.model]
        return [*argv, *spec.args, "--", *positionals]

    def read(self, state: RunState, event: dict[str, Any]) -> set[str]:
        kind = event.get("type")
        signals = self.session(state, event.get("thread_id")) if kind == "thread.started" else set()
        if kind in ("item.started", "item.completed", "item.updated"):
            item = event.get("item")
            item_type = item.get("type") if isinstance(item, dict) else None
            if item_type in _MODEL_ITEMS:
                signals |= state.model_turn()
            elif item_type == "error" and isinstance(item, dict):
                state.errors.append(str(item.get("message") or "error item"))
        elif kind == "turn.completed":
            state.result = event
            _count(state, event.get("usage"))
            signals |= state.model_turn()
        elif kind == "turn.failed":
            state.result = event
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            state.errors.append(str(message or "turn failed"))
        elif kind == "error":
            # A reconnect warning on its own; kept only to explain a run that then dies.
            state.errors.append(str(event.get("message") or "error"))
        return signals

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        result = state.result
        if result is None:
            return self._usage_reset(
                state, self.without_result(state, exit_code=exit_code, stderr_tail=stderr_tail)
            )
        if result.get("type") == "turn.completed":
            return self.done(state, None, "turn completed")
        message = state.errors[-1] if state.errors else "turn failed"
        found = self.classify(message)
        if found is None:
            found = (TRANSIENT, f"turn failed: {base.last_line(message)}")
        return self._usage_reset(state, self.done(state, *found))

    def _usage_reset(self, state: RunState, outcome: RunOutcome) -> RunOutcome:
        """Re-issue a usage-limit outcome with the reset time its message gives, if any."""
        if outcome.failure_class != USAGE_LIMIT or state.reset_at_ms is not None:
            return outcome
        for text in reversed(state.errors):
            reset = parse_reset_at(text, after_ms=state.started_at_ms)
            if reset is not None:
                state.reset_at_ms = reset
                return self.done(state, USAGE_LIMIT, outcome.detail)
        return outcome


def _count(state: RunState, usage: object) -> None:
    """A turn's usage: Codex's ``input_tokens`` include the cached ones, counted apart here."""
    if not isinstance(usage, dict):
        return
    given = base.number(usage.get("input_tokens"))
    cached = base.number(usage.get("cached_input_tokens"))
    fresh = None if given is None else max(0.0, given - (cached or 0.0))
    state.count(input=fresh, output=usage.get("output_tokens"), cache_read=cached)


def parse_reset_at(text: str, *, after_ms: int = 0) -> int | None:
    """Unix ms of "try again at Dec 1st, 2026 3:05 AM" (machine local time), or None.

    Codex prints only the time of day when the reset is within the day ("try again at
    11:27 AM"): that is the first such local time after ``after_ms`` (the run's start).
    """
    match = _RESET_AT.search(text)
    if match is None:
        clock = _RESET_TIME.search(text)
        return None if clock is None else _next_time_of_day(clock.groups(), after_ms)
    month, day, year, hour, minute, half = match.groups()
    try:
        stamp = datetime.strptime(
            f"{month[:3].title()} {day} {year} {hour}:{minute} {half.upper()}",
            "%b %d %Y %I:%M %p",
        )
    except ValueError:
        return None
    return int(stamp.astimezone().timestamp() * 1000)


def _next_time_of_day(parts: tuple[str, ...], after_ms: int) -> int | None:
    hour_text, minute_text, half = parts
    hour, minute = int(hour_text) % 12, int(minute_text)
    if not 1 <= int(hour_text) <= 12 or minute > 59:
        return None
    if half.upper() == "PM":
        hour += 12
    base = datetime.fromtimestamp(after_ms / 1000).astimezone()
    stamp = base.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if stamp.timestamp() * 1000 <= after_ms:
        stamp += timedelta(days=1)
    return int(stamp.timestamp() * 1000)
