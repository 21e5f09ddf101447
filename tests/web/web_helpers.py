"""Builders for the console tests: a desk with roles in every presence, attempts on every
rung, pages in every state and a meeting in every phase (all made through the real CLI,
with the tick's launcher recorded at its boundary), and a logged-in test client."""

from __future__ import annotations

import json
import re
import shutil
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from conftest import Desk

# The pager tests' real receivers (a loopback HTTP server) serve these tests too.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pager"))

CODE = "correct-horse-battery"
SECRET = "s3cr3t-hook-token-42"

ROLES = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta")

WEB_DESK = """\
[desk]
name = "console"
timezone = "America/New_York"
inbox_sources = ["alert", "signal"]
""" + "".join(f'\n[[roles]]\nname = "{r}"\ntitle = "{r.title()}"\n' for r in ROLES)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def record_launches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The tick's launcher replaced by a recorder at its boundary: no agent runs here."""
    from deskd.service.engine.dispatch import Dispatched

    started: list[int] = []

    def record(ctx: object, attempt_id: int, role: str) -> Dispatched:
        started.append(attempt_id)
        return Dispatched(attempt_id=attempt_id, role=role, pid=0)

    monkeypatch.setattr("deskd.service.engine.tick.start_executor", record)
    return started


def with_channels(text: str, channels: dict[str, list[str]], roles: dict[str, list[str]]) -> str:
    for role, names in roles.items():
        text = text.replace(
            f'name = "{role}"\ntitle = "{role.title()}"\n',
            f'name = "{role}"\ntitle = "{role.title()}"\nchannels = {json.dumps(names)}\n',
        )
    for name, urls in channels.items():
        text += f'\n[[channels]]\nname = "{name}"\nurls = {json.dumps(urls)}\n'
    return text


def urgent(desk: Desk, role: str, title: str) -> int:
    out = desk.json(
        "inbox", "enqueue", "--for", role, "--source", "alert", "--title", title,
        "--priority", "urgent",
    )  # fmt: skip
    return int(out["id"])


def build_full_desk(desk: Desk, receiver_url: str) -> None:
    """Every presence, every rung, every page state, every meeting phase."""
    dead_port = free_port()
    desk.write_desk(
        with_channels(
            WEB_DESK,
            {"ok": [receiver_url], "bad": [f"json://127.0.0.1:{dead_port}/x"]},
            {"gamma": ["ok"], "delta": ["bad"], "eps": ["ok", "bad"], "zeta": ["ok"]},
        )
    )
    record_launches(desk.monkeypatch)
    # Presence before the first tick decides the start rung: alpha busy (session), gamma
    # resting (resume), theta never seen (spawn); eps will be offline.
    desk.ok(
        "status", "set", "--role", "alpha", "--session-id", "06959d39-ba9f-5930-9a45-62cfd95e4b48"
    )
    desk.ok(
        "status",
        "set",
        "--role",
        "gamma",
        "--state",
        "resting",
        "--session-id",
        "5442cd03-ce93-5b4f-840e-f0daffef7a6d",
    )
    desk.ok(
        "status", "set", "--role", "eps", "--session-id", "c7a413f5-e403-5c66-9cf3-cb001ad3cc6b"
    )
    desk.ok("status", "end", "--role", "eps")
    urgent(desk, "alpha", "disk 91% on db1")
    urgent(desk, "gamma", "deploy failed")
    urgent(desk, "theta", "new hire onboarding")
    # Requests for help start at notify: one page per channel outcome.
    for role in ("gamma", "delta", "eps", "beta", "eta"):
        desk.json("page", "--from", role, "--title", f"{role} needs a person")
    desk.json("tick", "--execute")
    # A silence holds the next non-urgent page of zeta.
    desk.ok("silence", "add", "--role", "zeta", "--for", "2h", "--reason", "maintenance")
    desk.json("page", "--from", "zeta", "--title", "zeta needs a person")
    desk.advance(minutes=6)
    desk.json("tick", "--execute")  # the help wakes climb to badge; others climb a rung
    # gamma's and beta's help is answered: gamma's sent page gets its settled follow-up,
    # beta's outbox page (no channel) is resolved without one.
    for role in ("gamma", "beta"):
        wakes = desk.json("wake", "list", "--role", role, "--open")
        help_attempt = next(w for w in wakes if w["reason"] == "help")
        desk.ok("wake", "ack", str(help_attempt["id"]), "--note", "on it")
    desk.advance(minutes=1)
    desk.json("tick", "--execute")
    build_meetings(desk)
    desk.json("task", "add", "rotate the keys", "--for", "beta", "--priority", "high")
    desk.json("task", "add", "write the runbook", "--for", "gamma")
    desk.json("hook", "add", "--for", "beta", "--title", "hourly check", "--every", "1h")
    # Presence last, by heartbeat age: delta dead, beta suspect, alpha online.
    desk.ok(
        "status", "set", "--role", "delta", "--session-id", "6f9fc55d-3772-509b-bb56-3cfeff9e0830"
    )
    desk.advance(minutes=11)
    desk.ok(
        "status", "set", "--role", "beta", "--session-id", "5723d554-8b39-58c8-ad87-ce451ba2fd93"
    )
    desk.advance(minutes=3)
    desk.ok(
        "status", "set", "--role", "alpha", "--session-id", "06959d39-ba9f-5930-9a45-62cfd95e4b48"
    )


def build_meetings(desk: Desk) -> None:
    """waiting, active, consensus, closing, paused and closed."""

    def call(agenda: str, *attendees: str, **opts: str) -> str:
        args = ["meeting", "call", "--by", "alpha", "--agenda", agenda]
        args += ["--attendees", ",".join(attendees)]
        for k, v in opts.items():
            args += [f"--{k.replace('_', '-')}", v]
        return str(desk.json(*args)["meeting_id"])

    def check_in(m: str, *roles: str) -> None:
        for r in roles:
            desk.json("meeting", "check-in", m, "--role", r)

    call("waiting for people", "beta", "gamma")
    active = call("an active talk", "beta")
    check_in(active, "alpha", "beta")
    desk.json("meeting", "send", active, "--role", "alpha", "--body", "what broke?",
              "--kind", "question")  # fmt: skip
    consensus = call("reach consensus", "beta", max_messages="4", consensus_at="2")
    check_in(consensus, "alpha", "beta")
    desk.json("meeting", "send", consensus, "--role", "alpha", "--body", "option A")
    desk.json("meeting", "send", consensus, "--role", "beta", "--body", "option B")
    closing = call("wind it down", "beta")
    check_in(closing, "alpha", "beta")
    desk.json("meeting", "propose-end", closing, "--role", "alpha", "--resolution", "ship A")
    paused = call("paused talk", "beta")
    check_in(paused, "alpha", "beta")
    desk.json("meeting", "pause", paused, "--role", "beta", "--reason", "lunch")
    closed = call("already decided", "beta")
    check_in(closed, "alpha", "beta")
    desk.json("meeting", "propose-end", closed, "--role", "alpha", "--resolution", "done")
    desk.json("meeting", "confirm-end", closed, "--role", "beta")


class Clock:
    """The console's clock in tests: starts at the desk's pinned instant, moved by hand."""

    def __init__(self, now_ms: int) -> None:
        self.now = now_ms

    def __call__(self) -> int:
        return self.now

    def advance(self, *, minutes: float = 0, hours: float = 0) -> None:
        self.now += int((minutes * 60 + hours * 3600) * 1000)


def make_app(
    desk: Desk, clock: Callable[[], int] | None = None, *, stream_polls: int = 3, **env: str
) -> Any:
    from deskd.config.settings_model import validate_settings
    from deskd.web.app import create_app

    # The in-process client calls itself ``testserver``: a name the console must be told.
    settings = validate_settings({**desk.env(), "DESKD_CONSOLE_HOSTS": "testserver", **env})
    return create_app(settings, clock=clock, poll_s=0.01, stream_polls=stream_polls)


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)


def log_in(client: TestClient, code: str = CODE) -> Any:
    token = csrf_of(client.get("/login").text)
    return client.post(
        "/login", data={"csrf": token, "code": code, "next": "/"}, follow_redirects=False
    )


_BUILT: dict[str, tuple[Path, datetime]] = {}


def full_desk(desk: Desk, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Fill ``desk`` with a copy of the full desk, built once per test process (it takes
    dozens of CLI calls). Its ``ok`` channel carries ``${HOOK_TOKEN}`` = SECRET."""
    from pager_helpers import http_receiver

    if "full" not in _BUILT:
        home = tmp_path_factory.mktemp("full-desk")
        patch = pytest.MonkeyPatch()
        try:
            builder = Desk(home, patch)
            patch.setenv("HOOK_TOKEN", SECRET)
            # One try per channel URL: the dead port would otherwise cost seconds of backoff.
            patch.setattr("deskd.adapters.channels.apprise.RETRY_ATTEMPTS", 1)
            with http_receiver() as rx:
                build_full_desk(builder, f"json://deskd:${{HOOK_TOKEN}}@127.0.0.1:{rx.port}/hook")
        finally:
            patch.undo()
        _BUILT["full"] = (home, builder.now)
    home, now = _BUILT["full"]
    shutil.copytree(home, desk.home, dirs_exist_ok=True)
    desk.now = now
    desk.monkeypatch.setenv("HOOK_TOKEN", SECRET)


class Served:
    """A real `deskd serve` subprocess on a loopback port, and what it printed."""

    def __init__(self, proc: Any, url: str, printed: list[str]) -> None:
        self.proc = proc
        self.url = url
        self.printed = printed

    @property
    def code(self) -> str | None:
        for line in self.printed:
            if line.startswith("supervisor access code"):
                return line.rsplit(": ", 1)[1].strip()
        return None


@contextmanager
def serve(desk: Desk, *args: str, port: int | None = None, **env: str) -> Iterator[Served]:
    """Start `deskd serve ARGS` on ``port`` (else a free loopback port); stopped (and reaped)
    on the way out."""
    import os
    import subprocess
    import threading
    import time

    port = port or free_port()
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    full_env.update(desk.env(**env))
    deskd = Path(sys.executable).with_name("deskd")
    proc = subprocess.Popen(
        [str(deskd), "serve", "--port", str(port), *args],
        env=full_env,
        cwd=desk.home,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    printed: list[str] = []
    try:
        assert proc.stdout is not None
        while True:  # the banner comes before uvicorn starts; the code (if any) before it
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("deskd serve exited: " + "".join(printed))
            printed.append(line.rstrip("\n"))
            if line.startswith("deskd console on"):
                break
        # Keep reading what it prints (tracebacks, if any) so a full pipe never stalls it.
        drain = threading.Thread(target=_drain, args=(proc.stdout, printed), daemon=True)
        drain.start()
        deadline = time.monotonic() + 120  # a real hang only: it returns once listening
        while True:  # readiness: the port accepts connections
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("deskd serve did not start listening: " + "\n".join(printed))
            time.sleep(0.05)
        yield Served(proc, f"http://127.0.0.1:{port}", printed)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _drain(stream: Any, printed: list[str]) -> None:
    try:
        for line in stream:
            printed.append(line.rstrip("\n"))
    except (ValueError, OSError):  # closed on the way out
        pass
