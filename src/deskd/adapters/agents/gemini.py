"""Google Gemini CLI headless (``gemini -p PROMPT --output-format json``).

Confirmed with the real Gemini CLI 0.61.0 (npm ``@google/gemini-cli``) against a loopback
``streamGenerateContent`` API (tests/real_agents; captures in tests/adapters/fixtures/real).
It needs ``GEMINI_API_KEY``, ``GOOGLE_GEMINI_BASE_URL`` and
``{"security":{"auth":{"selectedType":"gemini-api-key"}}}`` in ``$HOME/.gemini/settings.json``
(else exit 41). Success is one pretty-printed JSON document on stdout (``session_id``,
``response``, ``stats``), so ``feed`` buffers lines from an opening ``{`` until they parse.
A failed model call prints **nothing on stdout**: stderr carries warnings, a stack trace,
then the JSON error document (``session_id``, ``error.message``, ``error.code`` 401/429/503)
and the exit code is not a documented one (145, 173, 247 seen): the document decides. A 429
says "Suggested retry after 3593s.", read as the reset. An untrusted workdir is refused with
exit 55 ("not running in a trusted directory … GEMINI_CLI_TRUST_WORKSPACE=true"): a
configuration failure, permanent. ``--resume SID`` continues a session that had a model
turn; a session whose only model call failed is not stored ("No previous sessions found",
exit 42), so an in-rung retry spawns again (``keeps_unanswered_session``). Without ``-m``
each prompt first goes to a routing model (``generateContent`` with a JSON schema); the CLI
retries 5xx itself up to ``general.maxAttempts`` (settings.json, default 10).

Not verified: the documented exit codes 52, 53, 54 and 130 (mapped as documented). Gemini
gives no cost. Its tool names differ from Claude's, so ``allowed_tools`` is not passed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from deskd.adapters.agents import base
from deskd.adapters.agents.base import AgentAdapter, LaunchSpec, RunOutcome, RunState
from deskd.core.values import PERMANENT, TASK, TRANSIENT, USAGE_LIMIT

MAX_BUFFER = 4 * 1024 * 1024
_RETRY_AFTER = re.compile(r"retry (?:after|in) (\d+(?:\.\d+)?)\s*s\b", re.I)
EXIT_CODES: dict[int, tuple[str, str]] = {
    41: (PERMANENT, "authentication failed"),
    42: (PERMANENT, "invalid input"),
    52: (PERMANENT, "configuration error"),
    53: (TASK, "reached the turn limit"),
    54: (TASK, "a tool failed fatally"),
    55: (
        PERMANENT,
        "the workdir is not a trusted folder: set GEMINI_CLI_TRUST_WORKSPACE=true for the role",
    ),
    130: (TRANSIENT, "interrupted"),
}


class GeminiAdapter(AgentAdapter):
    keeps_unanswered_session = False  # "No previous sessions found" (exit 42)
    login_hint = "run `gemini` once as the desk's user to log in, or set GEMINI_API_KEY"

    def build(self, spec: LaunchSpec) -> list[str]:
        argv = [spec.command, "-p", spec.prompt, "--output-format", "json"]
        if spec.model:
            argv += ["-m", spec.model]
        if spec.mode == "resume":
            argv.append(f"--resume={self.resume_id(spec)}")  # never read as a flag
        return argv + list(spec.args)

    def feed(self, state: RunState, line: str) -> set[str]:
        # The document is pretty-printed: buffered from an opening ``{`` until it parses.
        if not state.buffer and not line.lstrip().startswith("{"):
            return set()  # a banner such as "Loaded cached credentials."
        state.buffer += line if line.endswith("\n") else line + "\n"
        if len(state.buffer) > MAX_BUFFER:
            state.buffer = ""
            return set()
        try:
            value = json.loads(state.buffer)
        except ValueError:
            return set()
        state.buffer = ""
        if not isinstance(value, dict):
            return set()
        state.events += 1
        return self.read(state, value)

    def read(self, state: RunState, doc: dict[str, Any]) -> set[str]:
        signals = self.session(state, doc.get("session_id"))
        if "response" not in doc and "error" not in doc:
            return signals
        state.result = doc
        _count(state, doc.get("stats"))
        error = doc.get("error")
        if error:
            state.errors.append(base.error_text(error, "type"))
            wait = _RETRY_AFTER.search(state.errors[-1])
            if wait is not None and state.reset_at_ms is None:
                state.reset_at_ms = state.started_at_ms + int(float(wait.group(1)) * 1000)
        elif str(doc.get("response") or "").strip() or _tool_calls(doc) > 0:
            signals |= state.model_turn()
        return signals

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        if state.result is None:
            doc = _trailing_json(stderr_tail)
            if doc is not None:
                state.events += 1
                self.read(state, doc)
        result = state.result
        error = result.get("error") if result is not None else None
        if error:
            return self.done(state, *self._classify_error(error, exit_code))
        if exit_code in EXIT_CODES:
            cls, label = EXIT_CODES[exit_code]
            said = base.last_line(stderr_tail)
            if cls == PERMANENT and exit_code == 41:
                label = f"not logged in: {self.login_hint}"
            return self.done(
                state, cls, f"{label} (exit {exit_code})" + (f": {said}" if said else "")
            )
        if result is not None and exit_code in (0, None):
            return self.done(
                state, None, base.last_line(str(result.get("response") or "")) or "finished"
            )
        return self.without_result(state, exit_code=exit_code, stderr_tail=stderr_tail)

    def _classify_error(self, error: object, exit_code: int | None) -> tuple[str, str]:
        text = base.error_text(error, "type")
        code = base.number(error.get("code")) if isinstance(error, dict) else None
        said = base.last_line(text)
        if code == 429.0:
            return USAGE_LIMIT, f"usage limit: {said}"
        if exit_code == 55:
            return EXIT_CODES[55][0], f"{EXIT_CODES[55][1]} ({said})"
        if code in (401.0, 403.0) or exit_code == 41:
            return PERMANENT, f"not logged in: {self.login_hint} ({said})"
        found = self.classify(text)
        if found is not None:
            return found
        if code is not None and 500 <= code < 600:
            return TRANSIENT, f"API error ({int(code)}): {said}"
        if exit_code in EXIT_CODES:
            cls, label = EXIT_CODES[exit_code]
            return cls, f"{label}: {said}"
        if code is not None and 400 <= code < 500:
            return PERMANENT, f"request refused ({int(code)}): {said}"
        return TRANSIENT, f"error: {said}"


def _count(state: RunState, stats: object) -> None:
    """Each model's tokens (``stats.models``), the busiest model named: its ``prompt`` holds
    the ``cached`` tokens (``input`` is the rest, where given) and ``thoughts`` are output."""
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict):
        return
    found = []
    for name, model in models.items():
        tokens = model.get("tokens") if isinstance(model, dict) else None
        if not isinstance(tokens, dict):
            continue
        prompt, cached = base.number(tokens.get("prompt")), base.number(tokens.get("cached"))
        fresh = base.number(tokens.get("input"))
        if fresh is None and prompt is not None:
            fresh = max(0.0, prompt - (cached or 0.0))
        output = base.number(tokens.get("candidates"))
        if output is not None:
            output += base.number(tokens.get("thoughts")) or 0.0
        found.append((name, fresh, output, cached))
    found.sort(key=lambda f: -sum(n or 0.0 for n in f[1:]))
    for name, fresh, output, cached in found:
        state.count(model=name, input=fresh, output=output, cache_read=cached)


def _tool_calls(doc: dict[str, Any]) -> float:
    stats = doc.get("stats")
    tools = stats.get("tools") if isinstance(stats, dict) else None
    return (base.number(tools.get("totalCalls")) or 0) if isinstance(tools, dict) else 0


def _trailing_json(text: str) -> dict[str, Any] | None:
    """The JSON object that ends ``text`` (an error document on stderr), if any."""
    start = text.find("{")
    while start != -1:
        try:
            value = json.loads(text[start:])
        except ValueError:
            start = text.find("{", start + 1)
            continue
        return value if isinstance(value, dict) else None
    return None
