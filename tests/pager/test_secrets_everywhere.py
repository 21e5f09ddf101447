"""Every secret-bearing setting is absent from every output, log, database row and agent
environment; ``${VAR}`` in a channel URL is filled from ``.env`` too, and an unset one is
refused, never sent to a half-filled URL."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

from pager_helpers import desk_with, http_receiver

from conftest import Desk, urgent

OPS_PASS = "OpsPassFromEnv4411"
OPS_PATH = "OpsPathFromDotEnv5522"
NOTIFY_TOKEN = "N0tifyT0ken6633"
NOTIFY_PATH = "notifyPath7744"
PING_SECRET = "PingS3cret8855"
ACCESS_CODE = "SupervisorCode9966"
SECRETS = (OPS_PASS, OPS_PATH, NOTIFY_TOKEN, PING_SECRET, ACCESS_CODE)
"""(A json:// path is not a credential to apprise, so NOTIFY_PATH may be shown.)"""

DUMP_ENV = "import json, os, sys; open(sys.argv[1], 'w').write(json.dumps(dict(os.environ)))"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _everything_written(desk: Desk) -> list[tuple[str, str]]:
    found = [("database", json.dumps(desk.dump(), default=str))]
    for path in sorted(desk.home.rglob("*")):
        if path.is_file() and path.name not in (".env", "deskd.db", "deskd.db-wal", "deskd.db-shm"):
            found.append((str(path), path.read_text(encoding="utf-8", errors="replace")))
    return found


def test_no_channel_secret_reaches_any_output_log_row_or_agent(desk: Desk, tmp_path: Path) -> None:
    env_dump = tmp_path / "agent-env.json"
    closed = _closed_port()
    with http_receiver() as rx:
        urls = ["json://ops:${OPS_PASS}@127.0.0.1:" + f"{rx.port}/" + "${OPS_PATH}"]
        text = desk_with({"ops": urls}, default=["ops"], short_ladder=False)
        text = text.replace(
            "[[roles]]",
            '[agent]\nkind = "command"\n'
            f"command = {json.dumps(sys.executable)}\n"
            f"args = ['-c', {json.dumps(DUMP_ENV)}, {json.dumps(str(env_dump))}]\n\n"
            '[[ladder]]\nrung = "spawn"\nsla = "1m"\n[[ladder]]\nrung = "notify"\nsla = "5m"\n'
            '[[ladder]]\nrung = "badge"\n\n[[roles]]',
            1,
        )
        desk.write_desk(text)
        # .env holds a channel variable and a secret setting (the run/ cache must not copy it).
        (desk.home / ".env").write_text(
            f"OPS_PATH={OPS_PATH}\nDESKD_TICK_PING_URL=http://127.0.0.1:{closed}/{PING_SECRET}\n",
            encoding="utf-8",
        )
        desk.monkeypatch.setenv("OPS_PASS", OPS_PASS)
        desk.setenv(
            "DESKD_NOTIFY_URLS",
            f"json://127.0.0.1:{rx.port}/{NOTIFY_PATH}?+X-Token={NOTIFY_TOKEN}",
        )
        desk.setenv("DESKD_SUPERVISOR_ACCESS_CODE", ACCESS_CODE)

        outputs: list[tuple[str, str]] = []

        def record(*args: str) -> None:
            out = desk.run(*args)
            outputs.append((" ".join(args), out.stdout + out.stderr))

        urgent(desk)
        record("tick", "--execute", "--wait")
        record("page", "--from", "alpha", "--title", "stuck on a deploy")
        record("tick", "--execute", "--wait")
        for args in (
            ("pages",),
            ("pages", "--json"),
            ("channels",),
            ("channels", "--json"),
            ("channels", "test", "ops", "--json"),
            ("doctor", "--json"),
            ("doctor",),
            ("agent", "command", "--role", "alpha", "--json"),
            ("agent", "command", "--role", "alpha"),
            ("status", "--json"),
            ("wake", "list", "--json"),
        ):
            record(*args)
        # The .env-only variable was filled: the page reached the real path.
        assert f"/{OPS_PATH}" in rx.paths
        assert any(p.startswith(f"/{NOTIFY_PATH}") for p in rx.paths)

    agent_env = json.loads(env_dump.read_text(encoding="utf-8"))
    for name in ("DESKD_NOTIFY_URLS", "DESKD_TICK_PING_URL", "OPS_PASS", "OPS_PATH"):
        assert name not in agent_env
    assert not any(k.startswith("DESKD_SUPERVISOR_") for k in agent_env)
    env_dump.unlink()  # the dump holds the agent's environment, checked above
    shown = [*outputs, *_everything_written(desk), ("agent env", json.dumps(agent_env))]
    for where, text in shown:
        for secret in SECRETS:
            assert secret not in text, (secret, where, text[:3000])


def test_an_unset_variable_fails_the_page_with_its_name_and_sends_nothing(desk: Desk) -> None:
    with http_receiver() as rx:
        urls = [f"json://127.0.0.1:{rx.port}/" + "${MISSING_HOOK_PATH}"]
        desk.write_desk(desk_with({"ops": urls}, default=["ops"]))
        desk.ok("page", "--from", "alpha", "--title", "help")
        desk.ok("tick", "--execute")
        assert rx.got == []
    (page,) = desk.json("pages")
    assert page["status"] == "failed"
    (channel,) = page["channels"]
    assert "${MISSING_HOOK_PATH}" in channel["error"]
    assert "not set" in channel["error"]
    test = desk.run("channels", "test", "ops", "--json")
    assert json.loads(test.stdout)["status"] == "failed"


def test_the_environment_wins_over_dot_env(desk: Desk) -> None:
    with http_receiver() as rx:
        urls = [f"json://127.0.0.1:{rx.port}/" + "${HOOK_PATH}"]
        desk.write_desk(desk_with({"ops": urls}, default=["ops"]))
        (desk.home / ".env").write_text("HOOK_PATH=from-dot-env\n", encoding="utf-8")
        desk.monkeypatch.setenv("HOOK_PATH", "from-environment")
        desk.ok("channels", "test", "ops")
        assert rx.paths == ["/from-environment"]


def test_the_agent_never_gets_dot_env(desk: Desk) -> None:
    (desk.home / ".env").write_text("DOT_ENV_ONLY=zzz\n", encoding="utf-8")
    out = desk.json("agent", "command", "--role", "alpha", DESKD_AGENT_CMD=sys.executable)
    assert "DOT_ENV_ONLY" not in json.dumps(out)
