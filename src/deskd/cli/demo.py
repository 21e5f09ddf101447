"""``deskd demo``: a scripted walkthrough of a desk, driven through the real CLI and hook.

Every step runs the real ``deskd`` (``python -m deskd``) or ``deskd-session-hook`` as a
subprocess with ``DESKD_HOME`` set, and prints the command before its output, so the
transcript is something a person can replay by hand.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import click

from deskd.errors import DeskdError

DEMO_DESK = """\
# The demo desk: two roles, no real agents (the "command" agent is `true`).
[desk]
name = "demo"
timezone = "UTC"
inbox_sources = ["alert"]

[agent]
kind = "command"
command = "true"

[[roles]]
name = "alpha"
title = "Alpha"

[[roles]]
name = "beta"
title = "Beta"
"""


class Transcript:
    """Runs commands in the demo desk and prints them like a terminal session."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.steps = 0
        env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
        env["DESKD_HOME"] = str(home)
        self.env = env

    def step(self, title: str) -> None:
        self.steps += 1
        click.echo("")
        click.echo(click.style(f"── {self.steps}. {title} ", bold=True).ljust(72, "─"))

    def say(self, text: str) -> None:
        click.echo(click.style(f"   {text}", dim=True))

    def deskd(
        self, *args: str, role: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``deskd ARGS`` (as ``role`` when given) and print it with its output."""
        prefix = f"DESKD_ROLE={role} " if role else ""
        self._prompt(f"{prefix}deskd {shlex.join(args)}")
        env = dict(self.env)
        if role:
            env["DESKD_ROLE"] = role
        proc = subprocess.run(
            [sys.executable, "-m", "deskd", *args],
            env=env,
            cwd=self.home,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        self._output(proc.stdout)
        self._output(proc.stderr)
        if check and proc.returncode != 0:
            raise DeskdError(
                f"demo stopped: `deskd {shlex.join(args)}` exited {proc.returncode}",
                code="demo_failed",
            )
        return proc

    def hook(
        self, executable: str, payload: dict[str, object], *, role: str
    ) -> subprocess.CompletedProcess[str]:
        """Feed the session hook one Claude Code event, as Claude Code would."""
        self._prompt(f"DESKD_ROLE={role} deskd-session-hook < {payload['hook_event_name']}.json")
        env = dict(self.env)
        env["DESKD_ROLE"] = role
        return subprocess.run(
            [executable],
            input=json.dumps(payload),
            env=env,
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def _prompt(self, line: str) -> None:
        click.echo(click.style(f"$ {line}", fg="cyan"))

    def _output(self, text: str) -> None:
        for line in text.rstrip("\n").splitlines():
            click.echo(f"  {line}".rstrip())


def find_hook() -> str | None:
    """``deskd-session-hook`` next to this interpreter (its venv), else on PATH."""
    beside = Path(sys.executable).parent / "deskd-session-hook"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("deskd-session-hook")


def post_tool_use(session_id: str, home: Path) -> dict[str, object]:
    """A PostToolUse payload shaped like the one Claude Code sends after a Bash call."""
    return {
        "session_id": session_id,
        "transcript_path": f"/tmp/{session_id}.jsonl",
        "cwd": str(home),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q", "description": "Run tests"},
        "tool_response": {"stdout": "12 passed", "stderr": "", "interrupted": False},
        "tool_use_id": "toolu_demo",
        "duration_ms": 1840,
    }


def walkthrough(home: Path) -> None:
    """The demo itself: presence, two items, the hook surfacing them, the ack, the ledger,
    and what the tick would do for a role with no session."""
    t = Transcript(home)
    session = str(uuid.uuid4())
    click.echo(click.style("deskd demo", bold=True) + f": a desk in {home}")
    t.say("Every command below runs with DESKD_HOME set to that folder.")

    t.step("Create a desk")
    t.deskd("init")
    (home / "deskd.toml").write_text(DEMO_DESK, encoding="utf-8")
    t.say("deskd.toml replaced with a two-role desk (alpha, beta) and no real agents:")
    for line in DEMO_DESK.splitlines():
        click.echo(f"  {line}".rstrip())
    t.deskd("doctor", check=False)

    t.step("alpha starts working")
    t.say("Inside a session deskd launched, DESKD_ROLE is set, so --role defaults to it.")
    t.deskd(
        "status",
        "set",
        "--state",
        "working",
        "--activity",
        "triaging the 5xx alert",
        "--session-id",
        session,
        role="alpha",
    )
    t.deskd("roles")

    t.step("Two items arrive for alpha")
    t.say("A monitoring script (no DESKD_ROLE: the operator) enqueues an urgent and a normal item.")
    t.deskd(
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "5xx above 2% on api",
        "--priority",
        "urgent",
    )
    t.deskd("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "nightly report")
    t.deskd("ledger")

    t.step("alpha's next tool call: the session hook surfaces them")
    t.say("Claude Code runs the hook after each tool call; it prints additionalContext.")
    hook = find_hook()
    if hook is None:
        t.say("deskd-session-hook is not installed here (pip install -e .); skipping this step.")
    else:
        proc = t.hook(hook, post_tool_use(session, home), role="alpha")
        show_hook_output(t, proc)
    t.deskd("ledger")

    t.step("alpha reads and acks what it was shown")
    t.deskd("inbox", "ack", "--seen", role="alpha")
    t.deskd("ledger")

    t.step("alpha ends its turn")
    t.say("resting = the turn ended and the session is resumable: idle, not dead.")
    t.deskd("status", "set", "--state", "resting", role="alpha")
    t.deskd("roles")

    t.step("beta has no session: what would the tick do?")
    t.say("The tick runs every minute from cron or a timer; without --execute it only plans.")
    t.deskd(
        "inbox",
        "enqueue",
        "--for",
        "beta",
        "--source",
        "alert",
        "--title",
        "disk 91% on db-2",
        "--priority",
        "urgent",
    )
    t.deskd("tick", check=False)

    click.echo("")
    click.echo(
        "With `deskd tick --execute` (or DESKD_WAKE_EXECUTE=1) that plan is recorded and beta's\n"
        "agent is launched; `deskd cron-line` prints the line that runs the tick every minute."
    )


def show_hook_output(t: Transcript, proc: subprocess.CompletedProcess[str]) -> None:
    if not proc.stdout.strip():
        t.say(f"(the hook printed nothing; exit {proc.returncode}; see logs/hook.log)")
        return
    try:
        context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        t._output(proc.stdout)
        return
    t.say("additionalContext, as the agent sees it in its turn:")
    for line in str(context).splitlines():
        click.echo(f"  │ {line}".rstrip())


@click.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Build the demo desk in this (empty) folder and keep it; default: a temporary one.",
)
def demo(directory: Path | None) -> None:
    """Walk through a desk with the real CLI: presence, items, the session hook, the ledger.

    Creates a desk with roles alpha and beta (no real agents), marks alpha working,
    enqueues an urgent and a normal item for it, runs deskd-session-hook with a
    PostToolUse event as Claude Code would, and shows the ledger move from queued to
    notified to read; then asks a dry-run tick what it would do about an urgent item for
    beta, who has no session. Each command is printed before its output.

    \b
    Examples:
      deskd demo
      deskd demo --dir /tmp/my-demo-desk   # keep the desk to poke at afterwards
    """
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        walkthrough(directory.resolve())
        click.echo(f"\nThe demo desk is kept in {directory.resolve()}")
        return
    with tempfile.TemporaryDirectory(prefix="deskd-demo-") as tmp:
        walkthrough(Path(tmp))
    click.echo("\n(the temporary desk was removed; `deskd demo --dir DIR` keeps one)")
