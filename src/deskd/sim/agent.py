"""A simulated ``claude -p``: the same flags, the same stream JSON, the same hook calls.

It accepts what ``deskd.adapters.agents.claude`` emits (``-p PROMPT``, ``--session-id UUID``
or ``--resume SID``, ``--output-format stream-json --verbose``, ``--model``,
``--allowedTools``, ``--settings FILE|JSON``) and refuses what Claude Code refuses
(a ``--session-id`` that is not a UUID; ``stream-json`` without ``--verbose``). Like Claude
Code it applies the settings' ``env`` block to its own environment, then runs the settings'
command hooks for each event: through a shell (``/bin/sh -c COMMAND``), with the event JSON
on stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and the event's
own fields, shaped like tests/hook/fixtures), the inherited environment plus
``CLAUDE_PROJECT_DIR``, in the session's folder, under the hook's ``timeout`` (Claude Code's
default: 600 s), an identical handler once; matchers are compared with the tool name
(``PostToolUse``, ``PostToolUseFailure``), the source (``SessionStart``) or the error
(``StopFailure``). A hook's ``additionalContext`` (for ``SessionStart`` and
``UserPromptSubmit`` also plain text) is what the simulated model "reads".

``DESKD_SIM_MODE`` picks the run:

- ``success`` (default): init, SessionStart, UserPromptSubmit, an assistant turn with one
  Bash tool call (PostToolUse, or PostToolUseFailure when it fails), a closing assistant
  message, Stop, a success result. With ``DESKD_SIM_ACK=1`` the tool call really runs
  ``deskd inbox ack --seen`` (``python -m deskd``, inherited environment), so a wake resolves.
- ``never_lands``: init and SessionStart, then exit 0 with no model turn.
- ``not_logged_in``: init, SessionStart, StopFailure ``authentication_failed``, the
  ``api_error_status: 401`` result; exit 1.
- ``usage_limit``: init, SessionStart, a rejected ``rate_limit_event`` (``resetsAt`` from
  ``DESKD_SIM_RESETS_AT``, Unix seconds, else an hour on), StopFailure ``rate_limit``, the
  ``api_error_status: 429`` result; exit 1.
- ``hang``: init and SessionStart, then sleeps until killed.
- ``no_result``: everything ``success`` does except the final result line; exit 0.
- ``task_failed``: a model turn, then the ``error_max_turns`` result; exit 1.
- ``overloaded``: init, SessionStart, UserPromptSubmit, StopFailure ``server_error``, the
  ``api_error_status: 529`` result (a transient failure); exit 1.
- ``rollover_ok``: a wind-down that does what the rollover prompt asks: its tool call runs
  ``deskd session handoff --note TEXT`` (``DESKD_SIM_HANDOFF``, else a stock note) and its
  closing message ends with ``SESSION_DONE`` on a line of its own; otherwise like ``success``.
- ``rollover_no_handoff``: prints ``SESSION_DONE`` but stores no hand-off.
- every result reports the run's usage: ``DESKD_SIM_USAGE`` (``INPUT,OUTPUT,CACHE_READ,
  CACHE_WRITE`` tokens, e.g. ``1200,300,4000,500``), else the figures in ``USAGE``; an API
  failure reports zeros, as Claude Code does.
- ``long``: like ``success``, with ``DESKD_SIM_TOOLS`` tool calls (default 6), each after
  ``DESKD_SIM_TOOL_EVERY`` seconds (default 5): a run that lasts and calls its session hook
  every few seconds, for the scale bench. With ``DESKD_SIM_TIMINGS`` (a file), every hook
  call appends ``{"event", "ms"}`` to it as a JSON line.

It runs past 400 lines because it mirrors one real CLI's whole surface (flags, stream,
hooks, run modes) in one file a test author reads top to bottom.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

MODES = (
    "success",
    "never_lands",
    "not_logged_in",
    "usage_limit",
    "hang",
    "no_result",
    "task_failed",
    "overloaded",
    "rollover_ok",
    "rollover_no_handoff",
    "long",
)
API_FAILURES = {  # mode: (HTTP status, the text shown, StopFailure's error, its details)
    "not_logged_in": (
        401,
        "Not logged in · Please run /login",
        "authentication_failed",
        "401 Unauthorized",
    ),
    "usage_limit": (429, "API Error: Rate limit reached", "rate_limit", "429 rate_limit_error"),
    "overloaded": (529, "API Error: Overloaded", "server_error", "529 overloaded_error"),
}
HANDOFF = "Open: nothing urgent. First next step: read the inbox."
MODEL = "claude-sim-1"
COST = 0.0123
USAGE = (1200, 300, 4000, 500)  # input, output, cache read, cache write
TOOLS = ["Bash", "Read", "Grep", "Glob", "Edit", "Write"]

MATCHED_FIELD = {
    "SessionStart": "source",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "StopFailure": "error",
}
DEFAULT_TIMEOUT_S = 600.0
PLAIN_TEXT_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})


class SimError(Exception):
    """A refusal Claude Code would print on stderr before doing anything (exit 1)."""


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        mode = os.environ.get("DESKD_SIM_MODE") or "success"
        if mode not in MODES:
            raise SimError(f"DESKD_SIM_MODE={mode!r}: expected one of {', '.join(MODES)}")
        settings = load_settings(args.settings)
        env = settings.get("env")
        if isinstance(env, dict):
            os.environ.update({str(k): str(v) for k, v in env.items()})
        return Session(args, settings, mode).run()
    except SimError as exc:
        sys.stderr.write(f"Error: {exc}\n")
        return 1


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="claude", add_help=True, allow_abbrev=False)
    parser.add_argument("prompt", nargs="?")
    parser.add_argument("-p", "--print", action="store_true", dest="print_mode")
    parser.add_argument("--session-id")
    parser.add_argument("-r", "--resume")
    parser.add_argument("--output-format", default="text", choices=["text", "json", "stream-json"])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--model", default="")
    parser.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", default="")
    parser.add_argument("--settings")
    args, _unknown = parser.parse_known_args(argv)
    if args.session_id is not None:
        try:
            uuid.UUID(args.session_id)
        except ValueError:
            raise SimError("Invalid session ID. Must be a valid UUID.") from None
    if args.output_format == "stream-json" and not args.verbose:
        raise SimError("When using --print, --output-format=stream-json requires --verbose")
    if args.prompt is None and not sys.stdin.isatty():
        args.prompt = sys.stdin.read()
    if not args.prompt:
        raise SimError("Input must be provided either through stdin or as a prompt argument")
    return args


def load_settings(value: str | None) -> dict[str, Any]:
    """``--settings``: a JSON string or a file path, as Claude Code takes it."""
    if not value:
        return {}
    try:
        text = value if value.lstrip().startswith("{") else Path(value).read_text("utf-8")
        settings = json.loads(text)
    except OSError as exc:
        raise SimError(f"Settings file not found or unreadable: {value} ({exc.strerror})") from None
    except ValueError as exc:
        raise SimError(f"Invalid settings JSON in {value}: {exc}") from None
    if not isinstance(settings, dict):
        raise SimError(f"Invalid settings in {value}: not a JSON object")
    return settings


class Session:
    def __init__(self, args: argparse.Namespace, settings: dict[str, Any], mode: str) -> None:
        self.args = args
        self.settings = settings
        self.cwd = os.getcwd()
        self.session_id = args.resume or args.session_id or str(uuid.uuid4())
        self.model = args.model or MODEL
        self.stream = args.output_format == "stream-json"
        folder = re.sub(r"[^A-Za-z0-9]", "-", self.cwd)
        self.transcript = str(
            Path.home() / ".claude" / "projects" / folder / f"{self.session_id}.jsonl"
        )
        self.context: list[str] = []
        self.turns = 0
        self.mode = mode

    # The runs, by mode.

    def run(self) -> int:
        mode = self.mode
        self.emit(
            {
                "type": "system",
                "subtype": "init",
                "session_id": self.session_id,
                "cwd": self.cwd,
                "model": self.model,
                "permissionMode": "default",
                "tools": self.tools(),
            }
        )
        self.hook(
            "SessionStart", source="resume" if self.args.resume else "startup", model=self.model
        )
        if mode == "never_lands":
            return 0
        if mode == "hang":
            while True:
                time.sleep(3600)
        # Claude Code runs UserPromptSubmit when the prompt is submitted, before any model
        # call: a run that then fails authentication has run it too. So it proves nothing.
        self.hook("UserPromptSubmit", permission_mode="default", prompt=self.args.prompt)
        if mode == "usage_limit":
            self.emit(
                {
                    "type": "rate_limit_event",
                    "rate_limit_info": {
                        "status": "rejected",
                        "resetsAt": resets_at(),
                        "rateLimitType": "five_hour",
                    },
                }
            )
        if mode in API_FAILURES:
            return self.api_failure(*API_FAILURES[mode])
        if mode == "long":
            every = float(os.environ.get("DESKD_SIM_TOOL_EVERY") or 5)
            for _ in range(int(os.environ.get("DESKD_SIM_TOOLS") or 6) - 1):
                time.sleep(every)  # a model thinking: real time, the point of this mode
                self.tool_turn()
            time.sleep(every)
        self.tool_turn()
        if mode == "task_failed":
            self.result("max_turns", errors=[f"Reached maximum number of turns ({self.turns})"])
            return 1
        closing = self.closing_text()
        self.assistant([{"type": "text", "text": closing}])
        self.hook("Stop", stop_hook_active=False, last_assistant_message=closing)
        if mode == "no_result":
            return 0
        self.result("completed", closing)
        return 0

    def api_failure(self, status: int, text: str, error: str, details: str) -> int:
        self.hook("StopFailure", error=error, error_details=details, last_assistant_message=text)
        self.result("api_error", text, api_error_status=status, total_cost_usd=0.0)
        return 1

    def tool_turn(self) -> None:
        """One assistant turn with a Bash call, its hook, and the tool result."""
        ack = os.environ.get("DESKD_SIM_ACK") == "1"
        command = "deskd inbox ack --seen" if ack else "true"
        purpose = "Ack the items I was shown" if ack else "Look around"
        deskd_args = ["inbox", "ack", "--seen"] if ack else None
        if self.mode == "rollover_ok":
            note = os.environ.get("DESKD_SIM_HANDOFF") or HANDOFF
            deskd_args = ["session", "handoff", "--note", note]
            command, purpose = "deskd " + " ".join(deskd_args), "Write the hand-off"
        tool_id = "toolu_" + uuid.uuid4().hex[:20]
        tool_input = {"command": command, "description": purpose}
        self.assistant(
            [
                {"type": "text", "text": "Checking my deskd inbox."},
                {"type": "tool_use", "id": tool_id, "name": "Bash", "input": tool_input},
            ]
        )
        started = time.monotonic()
        code, out, err = run_deskd(deskd_args, self.cwd) if deskd_args else (0, "", "")
        call = {  # what both tool hooks carry
            "tool_name": "Bash",
            "tool_input": tool_input,
            "tool_use_id": tool_id,
            "duration_ms": int((time.monotonic() - started) * 1000),
        }
        if code == 0:
            content, is_error = out, False
            said = {"stdout": out, "stderr": err, "interrupted": False}
            self.hook("PostToolUse", permission_mode="default", tool_response=said, **call)
        else:
            content, is_error = f"Exit code {code}\n{err or out}".strip(), True
            self.hook("PostToolUseFailure", **call, error=content, is_interrupt=False)
        answer = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
        self.message("user", [{**answer, "is_error": is_error}])

    def closing_text(self) -> str:
        if self.mode.startswith("rollover"):
            return "Parked my work for the next session.\nSESSION_DONE"
        shown = sorted(
            {int(n) for text in self.context for n in re.findall(r"^#(\d+) ", text, re.M)}
        )
        if not shown:
            return "Nothing new for me; done."
        listed = ", ".join(f"#{n}" for n in shown)
        return f"The session hook showed me {len(shown)} item(s) ({listed}); handled."

    # Output.

    def tools(self) -> list[str]:
        allowed = [t.strip() for t in re.split(r"[,\s]+", self.args.allowed_tools) if t.strip()]
        return allowed or list(TOOLS)

    def assistant(self, content: list[dict[str, Any]]) -> None:
        self.turns += 1
        self.message("assistant", content, model=self.model)

    def message(self, role: str, content: list[dict[str, Any]], **fields: Any) -> None:
        """A ``user`` or ``assistant`` line; ``fields`` go in its message, before the content."""
        message = {"role": role, **fields, "content": content}
        self.emit(
            {"type": role, "session_id": self.session_id, "message": message}
            | ({"parent_tool_use_id": None} if role == "assistant" else {})
        )

    def result(self, terminal_reason: str, result: str | None = None, **extra: Any) -> None:
        """The result line. Claude Code reports an API failure with ``subtype: success``, so
        only a turn limit has its own subtype; ``is_error`` is every end but ``completed``."""
        doc: dict[str, Any] = {
            "type": "result",
            "subtype": "error_max_turns" if terminal_reason == "max_turns" else "success",
            "is_error": terminal_reason != "completed",
            **({} if result is None else {"result": result}),
            "session_id": self.session_id,
            "num_turns": self.turns,
            "duration_ms": 0,
            "total_cost_usd": COST,  # an API failure says 0.0 in ``extra``
            "usage": usage(zero=terminal_reason == "api_error"),
            "terminal_reason": terminal_reason,
            **extra,
        }
        text = self.args.output_format == "text"
        self.emit(str(result or "") if text else doc, final=True)

    def emit(self, doc: dict[str, Any] | str, *, final: bool = False) -> None:
        """A stream line (the result, ``final``, is printed in every output format)."""
        if self.stream or final:
            sys.stdout.write((doc if isinstance(doc, str) else json.dumps(doc)) + "\n")
            sys.stdout.flush()

    # Hooks, the way Claude Code runs command hooks.

    def hook(self, event: str, **fields: Any) -> None:
        payload = {
            "session_id": self.session_id,
            "transcript_path": self.transcript,
            "cwd": self.cwd,
            "hook_event_name": event,
            **fields,
        }
        started = time.monotonic()
        self.context += run_hooks(self.settings, payload, cwd=self.cwd)
        timings = os.environ.get("DESKD_SIM_TIMINGS")
        if timings:
            ms = round((time.monotonic() - started) * 1000, 1)
            with open(timings, "a", encoding="utf-8") as f:
                f.write(json.dumps({"event": event, "ms": ms}) + "\n")


def run_deskd(args: list[str], cwd: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "deskd", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    return proc.returncode, proc.stdout, proc.stderr


def usage(*, zero: bool = False) -> dict[str, int]:
    """The result's ``usage``, shaped as Claude Code prints it (``DESKD_SIM_USAGE``)."""
    given = os.environ.get("DESKD_SIM_USAGE")
    figures = [int(n) for n in given.split(",")] if given else list(USAGE)
    names = ("input", "output", "cache_read_input", "cache_creation_input")
    return {f"{name}_tokens": 0 if zero else n for name, n in zip(names, figures, strict=True)}


def resets_at() -> int:
    """``DESKD_SIM_RESETS_AT`` (Unix seconds), else an hour after now (``DESKD_NOW`` if pinned)."""
    pinned = os.environ.get("DESKD_SIM_RESETS_AT")
    if pinned and pinned.strip().isdigit():
        return int(pinned)
    from deskd.adapters.clock import now_ms

    try:
        now = now_ms(os.environ.get("DESKD_NOW")) / 1000
    except Exception:  # an unreadable DESKD_NOW: the wall clock, as without one
        now = time.time()
    return int(now) + 3600


def write_launcher(path: Path, env: dict[str, str] | None = None) -> Path:
    """An executable at ``path`` that runs this simulator with this interpreter, with ``env``
    (e.g. ``DESKD_SIM_MODE``) set for it: a desk's agent ``command`` for rehearsals."""
    sets = "".join(f"os.environ[{k!r}] = {v!r}\n" for k, v in (env or {}).items())
    path.write_text(
        f"#!{sys.executable}\nimport os\n{sets}"
        "from deskd.sim.agent import main\nraise SystemExit(main())\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return path


# Command hooks, the way Claude Code runs them.


def run_hooks(settings: dict[str, Any], payload: dict[str, Any], *, cwd: str) -> list[str]:
    """Run the hooks for ``payload["hook_event_name"]``; the context they returned."""
    event = str(payload["hook_event_name"])
    key = MATCHED_FIELD.get(event)
    value = str(payload.get(key, "")) if key else None
    seen: set[str] = set()
    context: list[str] = []
    hooks = settings.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    for group in [g for g in groups if isinstance(g, dict)] if isinstance(groups, list) else []:
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


if __name__ == "__main__":
    sys.exit(main())
