"""Claude Code settings that wire ``deskd-session-hook``: per run, and into a project by hand.

Shape (Claude Code's hooks reference, checked in this project's reference search): a
top-level ``"hooks"`` object mapping an event name to a list of matcher groups, each
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
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from deskd.errors import HookNotFound, UnreadableSettings

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


def hook_command_line(hook_command: str) -> str:
    """The shell text Claude Code runs: an existing file path is quoted, a command line kept."""
    if os.path.isabs(hook_command) and os.path.isfile(hook_command):
        return shlex.quote(hook_command)
    return hook_command


def run_settings(*, hook_command: str, env: Mapping[str, str]) -> dict[str, Any]:
    """Claude Code settings wiring ``hook_command`` for every event the session hook handles,
    with ``env`` (DESKD_DB, DESKD_HOME, DESKD_ROLE …) as the session's environment."""
    command = hook_command_line(hook_command)
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event in HOOK_EVENTS:
        entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
        group: dict[str, Any] = {"matcher": "*"} if event in MATCHER_EVENTS else {}
        group["hooks"] = [entry]
        hooks[event] = [group]
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
