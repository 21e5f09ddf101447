"""Claude Code headless (``claude -p … --output-format stream-json --verbose``).

Confirmed with the real Claude Code 2.1.332 (npm ``@anthropic-ai/claude-code``) against a
loopback Messages API (tests/real_agents; captures in tests/adapters/fixtures/real):
``-p`` with a positional prompt, ``--session-id=UUID`` (a pre-assigned id), ``--resume=SID``
(the model is sent the earlier turns; ``--resume`` takes an optional value, so deskd always
uses the ``=`` form: a value after ``=`` is never read as a flag, and a value that is not a
UUID is refused: "Provided value … is not a UUID and does not match any session title"), ``--output-format stream-json --verbose``,
``--allowedTools`` (a ``Bash`` call runs), ``--settings FILE`` (its SessionStart,
UserPromptSubmit, PostToolUse and Stop hooks run). ``system/init`` carries ``session_id``
before any model call. An API failure is an ``assistant`` event with ``"model":
"<synthetic>"`` and an ``error`` (``authentication_failed``, ``rate_limit`` …), then a
``result`` with ``is_error: true``, ``subtype: "success"``, ``terminal_reason: "api_error"``
and ``api_error_status`` (401, 429, 529); exit 1. A spawn whose model call failed still
stores its session: ``--resume`` continues it, while ``--session-id`` with that id again is
refused ("already in use"), which is why a retry resumes. With an API key a 429 prints no
reset time (no ``rate_limit_event``): the executor then holds the role for an hour. Claude
Code retries 429/529 itself (``CLAUDE_CODE_MAX_RETRIES``, a ``CLAUDE_CODE_*`` variable deskd
scrubs from the agent's environment, so set it in the user's settings ``env``).

Not verified (needs a claude.ai login): ``rate_limit_event`` with ``resetsAt`` in Unix
seconds and the subscription message ``Claude AI usage limit reached|<unix seconds>``, both
parsed for the reset; ``error_during_execution`` with "No conversation found" (resuming a
session that does not exist) as permanent, so the ladder climbs to a spawn.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from deskd.adapters.agents.base import (
    PERMANENT,
    TASK,
    TRANSIENT,
    TURN,
    USAGE_LIMIT,
    AgentAdapter,
    LaunchSpec,
    RunOutcome,
    RunState,
    last_line,
    number,
)

_LIMIT_RESET = re.compile(r"limit reached\|(\d{9,11})\b")
_TASK_SUBTYPES = frozenset({"error_max_turns", "error_during_execution", "error_max_budget_usd"})


class ClaudeAdapter(AgentAdapter):
    kind: ClassVar[str] = "claude"
    login_hint: ClassVar[str] = "run `claude /login` as the desk's user"

    def build(self, spec: LaunchSpec) -> list[str]:
        argv = [spec.command, "-p", spec.prompt]
        # ``--flag=value``: ``--resume`` takes an optional value, so ``--resume X`` would
        # read an X that starts with ``-`` as the next flag; after ``=`` it is the value.
        if spec.mode == "resume":
            argv.append(f"--resume={self.resume_id(spec)}")
        elif spec.session_id:
            argv.append(f"--session-id={self.checked_id(spec.session_id)}")
        argv += ["--output-format", "stream-json", "--verbose"]
        if spec.model:
            argv += ["--model", spec.model]
        if spec.allowed_tools:
            argv += ["--allowedTools", ",".join(spec.allowed_tools)]
        if spec.settings_path:
            argv += ["--settings", spec.settings_path]
        return argv + list(spec.args)

    def read(self, state: RunState, event: dict[str, Any]) -> set[str]:
        signals = self.session(state, event.get("session_id"))
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            state.count(model=event.get("model"))  # the model the session runs
        elif kind == "assistant":
            error = _assistant_error(event)
            if error:
                state.errors.append(error)
            else:
                state.landed = True
                signals.add(TURN)
        elif kind == "rate_limit_event":
            _read_rate_limit(state, event.get("rate_limit_info"))
        elif kind == "result":
            state.result = event
            state.add_cost(event.get("total_cost_usd"))
            usage = event.get("usage")
            if isinstance(usage, dict):
                state.count(
                    input=usage.get("input_tokens"),
                    output=usage.get("output_tokens"),
                    cache_read=usage.get("cache_read_input_tokens"),
                    cache_write=usage.get("cache_creation_input_tokens"),
                )
            _read_reset_from_text(state, _result_text(event))
            if event.get("is_error") is False and (number(event.get("num_turns")) or 0) > 0:
                # A successful result is itself a model turn, even if no assistant line came.
                signals |= state.model_turn()
        return signals

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        result = state.result
        if result is None:
            _read_reset_from_text(state, stderr_tail)
            return self.without_result(state, exit_code=exit_code, stderr_tail=stderr_tail)
        if result.get("is_error") is not True:
            said = last_line(str(result.get("result") or "")) or "finished"
            return self.done(state, None, said)
        return self.done(state, *self._classify_error(result))

    def _classify_error(self, result: dict[str, Any]) -> tuple[str, str]:
        """Branch on is_error, terminal_reason and api_error_status — never on subtype alone
        (an API failure is reported with ``subtype: success``)."""
        text = _result_text(result)
        said = last_line(text) or str(result.get("terminal_reason") or "error")
        status = number(result.get("api_error_status"))
        reason = result.get("terminal_reason")
        subtype = result.get("subtype")
        if status in (401.0, 403.0) or re.search(r"not logged in|/login", text, re.I):
            return PERMANENT, f"not logged in: {self.login_hint} ({said})"
        if status == 429.0:
            return USAGE_LIMIT, f"usage limit: {said}"
        if status == 529.0 or (status is not None and 500 <= status < 600):
            return TRANSIENT, f"API overloaded or failing ({int(status)}): {said}"
        if status is not None and 400 <= status < 500:
            found = self.classify(text)
            if found is not None and found[0] == PERMANENT:
                return found
            return PERMANENT, f"request refused ({int(status)}): {said}"
        if reason == "max_turns" or subtype == "error_max_turns":
            turns = result.get("num_turns")
            return TASK, f"reached the turn limit ({turns} turns)" if turns else said
        found = self.classify(text)
        if found is not None and (reason == "api_error" or found[0] == PERMANENT):
            return found
        if subtype in _TASK_SUBTYPES:
            return TASK, f"{subtype}: {said}"
        if reason == "api_error":
            return TRANSIENT, f"API error: {said}"
        if found is not None:
            return found
        return TASK, f"the agent reported an error: {said}"


def _assistant_error(event: dict[str, Any]) -> str | None:
    """The error an assistant event carries instead of a model turn, if any."""
    message = event.get("message")
    model = message.get("model") if isinstance(message, dict) else None
    error = event.get("error")
    if not error and model != "<synthetic>":
        return None
    text = ""
    if isinstance(message, dict):
        parts = message.get("content")
        if isinstance(parts, list):
            text = " ".join(
                str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("text")
            )
    return " ".join(x for x in (str(error or ""), text) if x) or "API error"


def _result_text(result: dict[str, Any]) -> str:
    parts = [str(result.get("result") or "")]
    errors = result.get("errors")
    if isinstance(errors, list):
        parts += [str(e) for e in errors]
    return "\n".join(p for p in parts if p)


def _read_rate_limit(state: RunState, info: object) -> None:
    if not isinstance(info, dict):
        return
    resets = number(info.get("resetsAt"))
    if resets is None:
        return
    # A window that is still "allowed" only says when it would reset; a rejection wins.
    if info.get("status") != "allowed" or state.reset_at_ms is None:
        state.reset_at_ms = int(resets * 1000)


def _read_reset_from_text(state: RunState, text: str) -> None:
    match = _LIMIT_RESET.search(text or "")
    if match:
        state.reset_at_ms = int(match.group(1)) * 1000
