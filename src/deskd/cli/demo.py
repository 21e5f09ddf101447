"""``deskd demo``: a scripted walkthrough of a desk, driven through the real CLI and hook.

Every step runs the real ``deskd`` (``python -m deskd``) or ``deskd-session-hook`` as a
subprocess with ``DESKD_HOME`` set, and prints the command before its output, so the
transcript is something a person can replay by hand.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import click

from deskd.adapters.agents.claude import hook_executable
from deskd.cli.common import Command
from deskd.core.ladder import RUNGS
from deskd.errors import AlreadyExists, DemoFailed, HookNotFound
from deskd.sim.agent import write_launcher

DEMO_DESK = """\
# The rehearsal desk: three roles served by deskd's simulated `claude -p`
# (deskd.sim.agent: the same flags, stream JSON and session-hook calls), short SLAs.
ladder = [
  {{ rung = "session", sla = "30s" }},
  {{ rung = "resume", sla = "30s" }},
  {{ rung = "spawn", sla = "60s" }},
  {{ rung = "notify", sla = "2m" }},
  {{ rung = "badge" }},
]

[desk]
name = "rehearsal"
timezone = "America/New_York"
inbox_sources = ["alert"]
inbox_batch = "45s"
default_channels = ["phone"]
[agent]
kind = "claude"
timeout = "60s"
retry_wait = "0s"   # the rehearsal's clock is pinned: retries need not wait real seconds

[[roles]]
name = "alpha"
title = "Operator (has a parked session: it is resumed)"
agent = {{ command = "{acking}" }}

[[roles]]
name = "beta"
title = "Reviewer (never ran: it is spawned)"
agent = {{ command = "{acking}" }}

[[roles]]
name = "gamma"
title = "On-call (never answers: it climbs to a person)"
agent = {{ command = "{silent}" }}

{channels}"""

START = "2026-12-01T14:00:00Z"  # 09:00 in New York


class Transcript:
    """Runs commands in the demo desk and prints them like a terminal session."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.steps = 0
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
        self.env.update(DESKD_HOME=str(home), DESKD_NOW=START)
        self.now = datetime.fromisoformat(START.replace("Z", "+00:00"))

    def advance(self, seconds: int) -> None:
        """Move the rehearsal clock (DESKD_NOW) on: the desk runs on pinned time."""
        self.now += timedelta(seconds=seconds)
        self.env["DESKD_NOW"] = self.now.strftime("%Y-%m-%dT%H:%M:%SZ")
        local = self.now.astimezone(ZoneInfo("America/New_York")).strftime("%H:%M:%S")
        click.echo(click.style(f"\n   ⏱  {local} (+{seconds}s)", fg="yellow"))
        self._prompt(f"export DESKD_NOW={self.env['DESKD_NOW']}")

    def json(self, line: str) -> Any:
        """Run ``deskd LINE --json``, print the command (not its JSON), return what it printed."""
        args = shlex.split(line)
        self._prompt(f"deskd {shlex.join(args)} --json   # read by the demo")
        proc = self._run([sys.executable, "-m", "deskd", *args, "--json"], timeout=180)
        if proc.returncode != 0:
            raise DemoFailed(shlex.join(args), stderr=proc.stderr.strip())
        return json.loads(proc.stdout)

    def step(self, title: str) -> None:
        self.steps += 1
        click.echo("")
        click.echo(click.style(f"── {self.steps}. {title} ", bold=True).ljust(72, "─"))

    def say(self, text: str) -> None:
        click.echo(click.style(f"   {text}", dim=True))

    def deskd(
        self, line: str, *, role: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``deskd LINE`` (as ``role`` when given) and print it with its output."""
        args = shlex.split(line)
        prefix = f"DESKD_ROLE={role} " if role else ""
        self._prompt(f"{prefix}deskd {shlex.join(args)}")
        proc = self._run([sys.executable, "-m", "deskd", *args], role=role, timeout=120)
        self._output(proc.stdout)
        self._output(proc.stderr)
        if check and proc.returncode != 0:
            raise DemoFailed(shlex.join(args), exited=proc.returncode)
        return proc

    def alert(self, role: str, title: str, more: str = "") -> None:
        """An alert arrives for ``role``: ``deskd inbox enqueue --source alert``."""
        self.deskd(f"inbox enqueue --for {role} --source alert --title {shlex.quote(title)} {more}")

    def hook(
        self, executable: str, payload: dict[str, object], *, role: str
    ) -> subprocess.CompletedProcess[str]:
        """Feed the session hook one Claude Code event, as Claude Code would. The event is
        written into the desk folder first, so the printed command can be replayed."""
        event = self.home / f"{payload['hook_event_name']}.json"
        event.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        click.echo(f"  ({event.name} in the desk folder: {json.dumps(payload)})")
        self._prompt(f"DESKD_ROLE={role} deskd-session-hook < {event.name}")
        return self._run([executable], role=role, timeout=60, stdin=event.read_text("utf-8"))

    def _run(
        self, argv: list[str], *, timeout: int, role: str | None = None, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` in the desk folder with the demo's environment (as ``role`` when given)."""
        return subprocess.run(
            argv,
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            env={**self.env, "DESKD_ROLE": role} if role else self.env,
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def _prompt(self, line: str) -> None:
        click.echo(click.style(f"$ {line}", fg="cyan"))

    def _output(self, text: str) -> None:
        for line in text.rstrip("\n").splitlines():
            click.echo(f"  {line}".rstrip())


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


class LocalChannel:
    """A person's phone for the rehearsal: a loopback HTTP server that apprise's ``json://``
    URL posts pages to; each page is printed the moment it arrives."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.received = 0
        channel = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    title = json.loads(body or b"{}").get("title") or ""
                except (ValueError, AttributeError):  # not a JSON object: still a page
                    title = ""
                channel.received += 1
                click.echo(
                    click.style(f"   📟 page received on the local channel: {title}", fg="magenta")
                )
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"json://127.0.0.1:{self.server.server_address[1]}/page"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def walkthrough(home: Path) -> None:
    """The rehearsal: a desk of three simulated agents walked through a few minutes."""
    channel = LocalChannel()
    try:
        rehearse(Transcript(home), home, channel)
    finally:
        channel.server.shutdown()


def rehearse(t: Transcript, home: Path, channel: LocalChannel) -> None:
    click.echo(click.style("deskd demo", bold=True) + f": a rehearsal desk in {home}")
    t.say(
        "Every command runs with DESKD_HOME set to that folder and the clock pinned by DESKD_NOW;"
        " each is printed, so you can replay them in a shell."
    )
    t._prompt(f"export DESKD_HOME={shlex.quote(str(home))} DESKD_NOW={t.env['DESKD_NOW']}")

    t.step("A desk with three roles")
    t.deskd("init")
    (home / "agents").mkdir(exist_ok=True)  # two simulated agent CLIs: one acks, one is silent
    desk = DEMO_DESK.format(
        acking=write_launcher(home / "agents" / "sim-acking", {"DESKD_SIM_ACK": "1"}),
        silent=write_launcher(home / "agents" / "sim-silent", {"DESKD_SIM_MODE": "never_lands"}),
        channels=f'[[channels]]\nname = "phone"\nurls = ["{channel.url}"]\n',
    )
    (home / "deskd.toml").write_text(desk, encoding="utf-8")
    t.say("deskd.toml: alpha and beta are served by a simulated `claude -p` that reads its items")
    t.say(
        "and acks them; gamma's never takes a turn. Pages go to a local channel (apprise json://)."
    )
    t.deskd(f"status set --role alpha --state resting --session-id {uuid.uuid4()}")
    t.say("alpha worked earlier today: its session is parked (idle), so it will be resumed.")
    t.deskd("roles")

    t.step("Items arrive")
    for who, title, prio in (
        ("alpha", "deploy failed on web-2", "urgent"),
        ("beta", "review PR 41", "normal"),
        ("gamma", "disk 95% on db-1", "urgent"),
    ):
        t.alert(who, title, f"--priority {prio}")

    t.step("The tick, dry-run first: what it would do")
    t.deskd("tick")

    t.step("The tick, executing: launches run, the wake ledger records every attempt")
    t.say("alpha is resumed and lands; gamma is spawned and never takes a turn; beta's normal")
    t.say("item waits for the inbox batch (45s) so a burst of items is one wake.")
    t.deskd("tick --execute --wait")
    t.deskd("wake list")
    t.deskd("ledger --for alpha")

    t.advance(50)
    t.deskd("tick --execute --wait")
    t.say("alpha's items were read, so its wake resolved; beta's batch is due: it is spawned.")

    for _ in range(4):
        t.advance(60)
        out = t.json("tick --execute --wait")
        for a in out["attempts"]:
            t.say(
                f"{a['role']}: {a['key']} climbed to {a['rung']}"
                + (f" ({a['skipped']})" if a["skipped"] else "")
            )
        for pg in out["pages"]:
            t.say(f"page queued for {pg['role']}: {pg['title']}")
        for sent in out.get("pages_sent") or []:
            t.say(
                f"page {sent.get('page_id', '')} ({sent.get('kind', '')}) → {sent.get('status', '')}"
            )
        if any(RUNGS[a["rung"]].pages for a in out["attempts"]):
            break
    t.deskd("pages")

    t.step("A person acts on gamma's page")
    item = t.json("inbox list --for gamma")[0]["id"]
    t.deskd(f"inbox ack --for gamma --id {item}")
    t.advance(30)
    t.deskd("tick --execute --wait")
    t.say(
        "gamma's demand is gone: the attempt resolved; a delivered page gets one 'settled' follow-up."
    )

    t.step("A working agent is shown new items by its session hook")
    t.say("Between wakes nothing runs. While a turn runs, the agent's own hook surfaces items:")
    session = str(uuid.uuid4())
    t.deskd(
        f"status set --state working --activity 'rolling back web-2' --session-id {session}",
        role="alpha",
    )
    t.alert("alpha", "5xx above 2% on api", "--priority urgent")
    t.alert("alpha", "nightly report")
    try:
        hook = hook_executable()
    except HookNotFound:
        t.say("deskd-session-hook is not installed here (pip install -e .); skipping this step.")
    else:
        show_hook_output(t, t.hook(hook, post_tool_use(session, home), role="alpha"))
    t.deskd("inbox ack --seen", role="alpha")
    t.deskd("status set --state resting", role="alpha")
    t.say("resting = the turn ended and the session is resumable: idle, not dead.")

    t.step("The board")
    t.deskd("status")
    t.deskd(f"wake explain {t.json('wake list --role gamma')[-1]['id']}")
    received = channel.received
    click.echo("")
    click.echo(
        f"The local channel received {received} page{'s' if received != 1 else ''}. "
        "On a real desk the tick runs every minute (`deskd cron-line`), agents are real CLIs,\n"
        "and channels are Discord, Slack, email … (any apprise URL)."
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


@click.command(cls=Command, json=False)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build the demo desk in this (empty) folder and keep it; default: a temporary one.",
)
def demo(directory: Path | None) -> None:
    """Rehearse a desk: three roles served by a simulated `claude -p`, a few minutes of ticks.

    Items arrive; alpha's parked session is resumed and lands (its session hook surfaces the
    items and it acks them); beta is spawned after the inbox batch; gamma never answers and
    climbs the ladder to a page on a local channel, which a person then settles. The clock
    is pinned (DESKD_NOW) and moved on by the script; every command is printed before its
    output.

    Examples:
      deskd demo
      deskd demo --dir /tmp/my-demo-desk   # keep the desk to poke at afterwards
    """
    if directory is not None:
        if directory.is_dir() and any(directory.iterdir()):  # before init would advise --force
            raise AlreadyExists(
                f"{directory} is not empty: `deskd demo --dir` builds its desk in a new or "
                "empty folder (name another one)"
            )
        directory.mkdir(parents=True, exist_ok=True)
        walkthrough(directory.resolve())
        click.echo(f"\nThe demo desk is kept in {directory.resolve()}")
        return
    with tempfile.TemporaryDirectory(prefix="deskd-demo-") as tmp:
        walkthrough(Path(tmp))
    click.echo("\n(the temporary desk was removed; `deskd demo --dir DIR` keeps one)")
