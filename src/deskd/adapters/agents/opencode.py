"""OpenCode (``opencode run --format json PROMPT``).

Confirmed with the real OpenCode 1.18.33 (npm ``opencode-ai``) against a loopback chat
completions API, aimed by a provider in ``$HOME/.config/opencode/opencode.json``
(tests/real_agents; captures in tests/adapters/fixtures/real): JSONL events, each with
``sessionID``: ``step_start``, ``text``, ``step_finish`` (``part.cost``) and ``error``
(``error.name`` ``APIError`` with ``data.statusCode`` and ``isRetryable``); a 401 is one
``error`` event and exit 1. ``--session SID`` continues the session (the model is sent the
earlier turns). OpenCode retries a 429 or a 5xx by itself, without end and printing
nothing (it honours ``retry-after``), so deskd sees a usage limit or an overload only as a
timeout: transient, and the reset is unknown.

Not verified: the error names other than ``APIError`` (from OpenCode's source names:
``ProviderAuthError``, ``ProviderModelNotFoundError``, ``MessageAbortedError``,
``MessageOutputLengthError``); ``tool_use`` and ``reasoning`` events counting as a model
turn. OpenCode's tool names differ from Claude's, so ``allowed_tools`` is not passed.
"""

from __future__ import annotations

from typing import Any

from deskd.adapters.agents import base
from deskd.adapters.agents.base import AgentAdapter, LaunchSpec, RunOutcome, RunState
from deskd.core.values import PERMANENT, TASK, TRANSIENT, USAGE_LIMIT

_TURN_EVENTS = frozenset({"text", "tool_use", "reasoning"})


class OpencodeAdapter(AgentAdapter):
    login_hint = "run `opencode auth login` as the desk's user"

    def build(self, spec: LaunchSpec) -> list[str]:
        argv = [spec.command, "run", "--format", "json"]
        if spec.model:
            argv += ["--model", spec.model]
        if spec.mode == "resume":
            argv.append(f"--session={self.resume_id(spec)}")  # never read as a flag
        return [*argv, *spec.args, spec.prompt]

    def read(self, state: RunState, event: dict[str, Any]) -> set[str]:
        signals = self.session(state, event.get("sessionID"))
        kind = event.get("type")
        if kind in _TURN_EVENTS:
            signals |= state.model_turn()
        elif kind == "step_finish":
            part = event.get("part")
            if isinstance(part, dict):
                state.add_cost(part.get("cost"))
                _count(state, part.get("tokens"))
            if state.result is None or state.result.get("type") != "error":
                state.result = event
        elif kind == "error":
            state.result = event
            state.errors.append(base.error_text(event.get("error"), "name"))
        return signals

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        result = state.result
        if result is not None and result.get("type") == "error":
            return self.done(state, *self._classify_error(result.get("error")))
        if result is not None and state.landed:
            return self.done(state, None, "finished")
        return self.without_result(state, exit_code=exit_code, stderr_tail=stderr_tail)

    def _classify_error(self, error: object) -> tuple[str, str]:
        text = base.error_text(error, "name")
        said = base.last_line(text)
        name = error.get("name") if isinstance(error, dict) else None
        data: dict[str, Any] = {}
        if isinstance(error, dict) and isinstance(error.get("data"), dict):
            data = error["data"]
        status = base.number(data.get("statusCode"))
        if name == "ProviderAuthError" or status in (401.0, 403.0):
            return PERMANENT, f"not logged in: {self.login_hint} ({said})"
        if status == 429.0:
            return USAGE_LIMIT, f"usage limit: {said}"
        if name == "ProviderModelNotFoundError":
            return PERMANENT, f"model not found: {said}"
        if name == "MessageOutputLengthError":
            return TASK, f"output too long: {said}"
        if name == "MessageAbortedError":
            return TRANSIENT, f"aborted: {said}"
        found = self.classify(text)
        if found is not None:
            return found
        if data.get("isRetryable") is True or (status is not None and status >= 500):
            return TRANSIENT, f"API error: {said}"
        if status is not None and 400 <= status < 500:
            return PERMANENT, f"request refused ({int(status)}): {said}"
        return TRANSIENT, f"error: {said}"


def _count(state: RunState, tokens: object) -> None:
    """One step's tokens; its reasoning tokens are output, as the other CLIs count them."""
    if not isinstance(tokens, dict):
        return
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    output, reasoning = base.number(tokens.get("output")), base.number(tokens.get("reasoning"))
    state.count(
        input=tokens.get("input"),
        output=None if output is None else output + (reasoning or 0.0),
        cache_read=cache.get("read"),
        cache_write=cache.get("write"),
    )
