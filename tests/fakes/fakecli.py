"""The fake agent CLIs behind tests/fakes/fake-*: documented output shapes, chosen by env.

``FAKE_AGENT_MODE``: success | never_lands | not_logged_in | usage_limit | hang | no_result |
task_failed (codex adds ``reconnect``: a reconnect warning, then success). ``fake-claude`` is
deskd's own simulator (``deskd.sim.agent``, hooks and all). ``FAKE_ARGV_FILE``, when set,
receives the argv as JSON, so a test can check what the executor launched. A resumed run
reports the session id it was given; ``FAKE_SESSION_ID`` overrides the spawned one.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"
CODEX_ID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
GEMINI_ID = "5d7e9f10-2a3b-4c5d-8e9f-0a1b2c3d4e5f"
OPENCODE_ID = "ses_7a8b9c0d1e2f"
USAGE = "You've hit your usage limit. Upgrade to Pro or try again at Dec 1st, 2026 3:05 AM."


def main(kind: str) -> int:
    argv = sys.argv[1:]
    target = os.environ.get("FAKE_ARGV_FILE")
    if target:  # one JSON line per launch, so a test can count agent processes
        with Path(target).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps([sys.argv[0], *argv]) + "\n")
    env_file = os.environ.get("FAKE_ENV_FILE")
    if env_file:  # the environment the agent was given, for the scrub tests
        Path(env_file).write_text(json.dumps(dict(os.environ)), encoding="utf-8")
    mode = os.environ.get("FAKE_AGENT_MODE", "success")
    if mode == "overloaded_once":  # the first launch fails transiently, the next succeeds
        marker = Path(os.environ.get("FAKE_ARGV_FILE", "fake-agent") + ".overloaded")
        mode = "success" if marker.exists() else "overloaded"
        marker.touch()
    if kind == "claude":
        sys.path.insert(0, str(SRC))
        os.environ["DESKD_SIM_MODE"] = mode
        from deskd.sim.agent import main as sim

        return sim(argv)
    runs = {"codex": codex, "gemini": gemini, "opencode": opencode}
    return runs[kind](mode, argv)


def out(*docs: dict[str, Any], indent: int | None = None) -> None:
    for doc in docs:
        sys.stdout.write(json.dumps(doc, indent=indent) + "\n")
        sys.stdout.flush()


def hang() -> int:
    while True:
        time.sleep(3600)


def after(argv: list[str], flag: str, default: str) -> str:
    """The value of ``flag`` (``--flag=value`` or ``--flag value``); for Codex's ``resume``,
    the first positional after ``--``. Else ``FAKE_SESSION_ID`` or ``default``."""
    for word in argv:
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
    if flag == "resume" and "resume" in argv and "--" in argv:
        end = argv.index("--")
        if end + 1 < len(argv):
            return argv[end + 1]
    if flag in argv and argv.index(flag) + 1 < len(argv):
        return argv[argv.index(flag) + 1]
    return os.environ.get("FAKE_SESSION_ID", default)


def codex(mode: str, argv: list[str]) -> int:
    out({"type": "thread.started", "thread_id": after(argv, "resume", CODEX_ID)})
    out({"type": "turn.started"})
    message = {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message"}}
    message["item"]["text"] = "Queue is empty; nothing to do."
    done = {"type": "turn.completed", "usage": {"input_tokens": 9120, "output_tokens": 311}}
    if mode == "success":
        out(message, done)
    elif mode == "reconnect":
        out(
            {"type": "error", "message": "Reconnecting... 1/5 (stream disconnected)"}, message, done
        )
    elif mode == "never_lands":
        pass
    elif mode == "no_result":
        out(message)
    elif mode == "hang":
        return hang()
    elif mode in ("not_logged_in", "usage_limit", "task_failed"):
        text = {
            "not_logged_in": "unexpected status 401 Unauthorized: Missing bearer authentication",
            "usage_limit": USAGE,
            "task_failed": "exceeded retry limit, last status: 500 Internal Server Error",
        }[mode]
        out({"type": "error", "message": text}, {"type": "turn.failed", "error": {"message": text}})
        return 1
    else:
        return unknown(mode)
    return 0


def gemini(mode: str, argv: list[str]) -> int:
    sys.stdout.write("Loaded cached credentials.\n")  # the banner gemini prints first
    sid = after(argv, "--resume", GEMINI_ID)
    tools = {"totalCalls": 2, "totalSuccess": 2, "totalFail": 0}
    ok = {"session_id": sid, "response": "Queue handled.", "stats": {"tools": tools}}
    failures = {
        "not_logged_in": (41, "FatalAuthenticationError", "Please set an Auth method", 41),
        "usage_limit": (1, "TerminalQuotaError", "You exceeded your current quota.", 429),
        "task_failed": (53, "FatalTurnLimitedError", "Reached max session turns", 53),
    }
    if mode == "success":
        out(ok, indent=2)
    elif mode in ("never_lands", "no_result"):
        pass
    elif mode == "hang":
        return hang()
    elif mode in failures:
        code, name, text, error_code = failures[mode]
        error = {"type": name, "message": text, "code": error_code}
        out({"session_id": sid, "response": "", "error": error}, indent=2)
        return code
    else:
        return unknown(mode)
    return 0


def opencode(mode: str, argv: list[str]) -> int:
    sid = after(argv, "--session", OPENCODE_ID)

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "timestamp": 1796036400000, "sessionID": sid, **fields}

    start = event("step_start", part={"type": "step-start"})
    text = event("text", part={"type": "text", "text": "Nothing queued."})
    finish = event("step_finish", part={"type": "step-finish", "cost": 0.0121})
    errors = {
        "not_logged_in": {"name": "ProviderAuthError", "data": {"message": "No API key found"}},
        "usage_limit": {
            "name": "APIError",
            "data": {"message": "Rate limit exceeded", "statusCode": 429, "isRetryable": True},
        },
        "task_failed": {"name": "MessageOutputLengthError", "data": {}},
    }
    out(start)
    if mode == "success":
        out(text, finish)
    elif mode == "never_lands":
        pass
    elif mode == "no_result":
        out(text)
    elif mode == "hang":
        return hang()
    elif mode in errors:
        out(event("error", error=errors[mode]))
        return 1
    else:
        return unknown(mode)
    return 0


def unknown(mode: str) -> int:
    sys.stderr.write(f"fake agent: unknown FAKE_AGENT_MODE={mode!r}\n")
    return 2
