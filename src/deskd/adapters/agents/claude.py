"""Claude Code headless (``claude -p … --output-format stream-json --verbose``).

Confirmed with the real Claude Code 2.1.332 (npm ``@anthropic-ai/claude-code``) against a
loopback Messages API (tests/real_agents; captures in tests/adapters/fixtures/real):
``-p`` with a positional prompt, ``--session-id=UUID`` (a pre-assigned id), ``--resume=SID``
(the model is sent the earlier turns; ``--resume`` takes an optional value, so deskd always
uses the ``=`` form: a value after ``=`` is never read as a flag, and a value that is not a
UUID is refused: "Provided value … is not a UUID and does not match any session title"),
``--output-format stream-json --verbose``, ``--allowedTools`` (a ``Bash`` call runs), ``--settings FILE`` (its SessionStart,
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

The settings that wire ``deskd-session-hook`` (per run, and into a project by hand with
``deskd session-hook install``), shaped as Claude Code's hooks reference says: a top-level
``"hooks"`` object mapping an event name to a list of matcher groups, each
``{"matcher": "*", "hooks": [{"type": "command", "command": "…", "timeout": s}]}``. The
matcher is a tool name for ``PostToolUse``/``PostToolUseFailure``, the ``source`` for
``SessionStart`` and the error type for ``StopFailure``; ``"*"`` matches all.
``UserPromptSubmit`` and ``Stop`` take no matcher, so their groups have none. A command hook's
``command`` is run by a shell with the event JSON on stdin, so the executable path is
shell-quoted. A top-level ``"env"`` object sets variables for the session and everything it
runs (tools and hooks): the per-run settings pass ``DESKD_DB`` explicitly (lesson 49).

Not verified against a running Claude Code: the ``timeout`` deskd sets (Claude's default is
much longer; the hook itself gives up on a locked database after 1.5 s).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from deskd.adapters.agents import base
from deskd.adapters.agents.base import TURN, AgentAdapter, LaunchSpec, RunOutcome, RunState
from deskd.core.values import PERMANENT, TASK, TRANSIENT, USAGE_LIMIT
from deskd.errors import HookNotFound, UnreadableSettings

_LIMIT_RESET = re.compile(r"limit reached\|(\d{9,11})\b")
_TASK_SUBTYPES = frozenset({"error_max_turns", "error_during_execution", "error_max_budget_usd"})


class ClaudeAdapter(AgentAdapter):
    login_hint = "run `claude /login` as the desk's user"

    def new_session_id(self) -> str:
        return str(uuid.uuid4())  # known before the first line, and reused by a retry

    def install_hooks(self, run_file: Path | None, env: Mapping[str, str]) -> str:
        """Per-run settings (``--settings``) wiring every event to the session hook, with the
        launch's desk, database, role and wake token as the session's ``env``."""
        if run_file is None:
            return "<per-run settings file>"
        keys = ("DESKD_HOME", "DESKD_DB", "DESKD_ROLE", "DESKD_WAKE_TOKEN")
        settings = run_settings(hook_command=hook_executable(), env={k: env[k] for k in keys})
        return str(write_settings(run_file, settings))

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
            if event.get("is_error") is False and (base.number(event.get("num_turns")) or 0) > 0:
                # A successful result is itself a model turn, even if no assistant line came.
                signals |= state.model_turn()
        return signals

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        result = state.result
        if result is None:
            _read_reset_from_text(state, stderr_tail)
            return self.without_result(state, exit_code=exit_code, stderr_tail=stderr_tail)
        if result.get("is_error") is not True:
            said = base.last_line(str(result.get("result") or "")) or "finished"
            return self.done(state, None, said)
        return self.done(state, *self._classify_error(result))

    def _classify_error(self, result: dict[str, Any]) -> tuple[str, str]:
        """Branch on is_error, terminal_reason and api_error_status — never on subtype alone
        (an API failure is reported with ``subtype: success``)."""
        text = _result_text(result)
        said = base.last_line(text) or str(result.get("terminal_reason") or "error")
        status = base.number(result.get("api_error_status"))
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
    resets = base.number(info.get("resetsAt"))
    if resets is None:
        return
    # A window that is still "allowed" only says when it would reset; a rejection wins.
    if info.get("status") != "allowed" or state.reset_at_ms is None:
        state.reset_at_ms = int(resets * 1000)


def _read_reset_from_text(state: RunState, text: str) -> None:
    match = _LIMIT_RESET.search(text or "")
    if match:
        state.reset_at_ms = int(match.group(1)) * 1000


HOOK_NAME = "deskd-session-hook"
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
)
MATCHER_EVENTS = frozenset({"SessionStart", "PostToolUse", "PostToolUseFailure", "StopFailure"})
HOOK_TIMEOUT_S = 30


def hook_executable() -> str:
    """The absolute path of ``deskd-session-hook`` of this environment.

    Next to ``sys.executable`` first (a venv's bin folder, without resolving its symlinks),
    then PATH: cron and agents have a different PATH, so the settings name the file itself.
    """
    beside = Path(sys.executable).parent / HOOK_NAME
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which(HOOK_NAME)
    if found:
        return str(Path(found).absolute())
    raise HookNotFound(f"{beside.parent} and PATH")


def run_settings(*, hook_command: str, env: Mapping[str, str]) -> dict[str, Any]:
    """Claude Code settings wiring ``hook_command`` for every event the session hook handles,
    with ``env`` (DESKD_DB, DESKD_HOME, DESKD_ROLE …) as the session's environment."""
    command = hook_command  # the shell text Claude Code runs: a file's path is quoted
    if os.path.isabs(hook_command) and os.path.isfile(hook_command):
        command = shlex.quote(hook_command)
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event in HOOK_EVENTS:
        entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
        matcher = {"matcher": "*"} if event in MATCHER_EVENTS else {}
        hooks[event] = [{**matcher, "hooks": [entry]}]
    settings: dict[str, Any] = {"hooks": hooks}
    if env:
        settings["env"] = {str(k): str(v) for k, v in env.items()}
    return settings


def desk_env(*, home: Path, db: str | Path | None, role: str | None) -> dict[str, str]:
    """The ``env`` block: absolute desk folder and database (a file, or a PostgreSQL URL kept
    as it is; None: read from the desk's ``.env``), and the role when given."""
    env = {"DESKD_HOME": str(home.absolute())}
    if db is not None:
        env["DESKD_DB"] = str(db) if "://" in str(db) else str(Path(db).absolute())
    if role:
        env["DESKD_ROLE"] = role
    return env


def write_settings(path: Path, settings: Mapping[str, Any]) -> Path:
    """Write a settings file (the per-run one is private to the desk's user)."""
    from deskd.adapters.private import open_private, private_dir

    private_dir(path.parent)
    with open_private(path, "w", encoding="utf-8") as handle:
        json.dump(settings, handle, indent=2)
        handle.write("\n")
    return path


def is_deskd_hook(entry: object) -> bool:
    """True for a hook entry that runs deskd's session hook (any path, any version)."""
    if not isinstance(entry, dict):
        return False
    command = str(entry.get("command") or "")
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return any(os.path.basename(w) in (HOOK_NAME, "session_hook.py") for w in words[:3])


def merge_settings(existing: Mapping[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
    """``existing`` with deskd's hooks and env merged in; everything else kept as it was.

    deskd's earlier entries (any path to the hook) are replaced, not duplicated; the user's
    own hooks, in the same groups or others, stay in place.
    """
    merged: dict[str, Any] = json.loads(json.dumps(existing))
    hooks = merged.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    for event, groups in ours.get("hooks", {}).items():
        kept: list[Any] = []
        current = hooks.get(event)
        for group in current if isinstance(current, list) else []:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                others = [h for h in group["hooks"] if not is_deskd_hook(h)]
                if not others:
                    continue
                group = {**group, "hooks": others}
            kept.append(group)
        hooks[event] = kept + json.loads(json.dumps(groups))
    merged["hooks"] = hooks
    if ours.get("env"):
        env = merged.get("env")
        merged["env"] = {**(env if isinstance(env, dict) else {}), **ours["env"]}
    return merged


class Installed(NamedTuple):
    path: Path
    backup: Path | None  # None: there was no file, or nothing changed
    changed: bool
    created: bool


def install(project: Path, settings: Mapping[str, Any], *, stamp: str) -> Installed:
    """Merge ``settings`` into ``PROJECT/.claude/settings.json``, backing up the old file as
    ``settings.json.bak-STAMP`` first. A second install with the same settings changes nothing."""
    path = project / ".claude" / "settings.json"
    existing: dict[str, Any] = {}
    created = not path.exists()
    if not created:
        try:
            loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
        except ValueError as exc:
            raise UnreadableSettings(path, f"not valid JSON ({exc})") from None
        except OSError as exc:
            raise UnreadableSettings(path, exc.strerror or str(exc)) from None
        if not isinstance(loaded, dict):
            raise UnreadableSettings(path, "not a JSON object")
        existing = loaded
    merged = merge_settings(existing, settings)
    if not created and merged == existing:
        return Installed(path=path, backup=None, changed=False, created=False)
    backup = None
    if not created:
        backup = _free_name(path.with_name(f"{path.name}.bak-{stamp}"))
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.deskd-tmp")
    tmp.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return Installed(path=path, backup=backup, changed=True, created=created)


def _free_name(path: Path) -> Path:
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate
