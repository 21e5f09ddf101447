"""A PostgreSQL desk's URL stays a URL everywhere, and its password stays in the desk's .env.

`deskd cron-line`, `timer print` and `session-hook install` never embed the URL (cron lines, units
and a project's committed .claude/settings.json would carry the password): the tick, deskd
and the session hook read it from the desk's `.env` (0600). `deskd init` sets the database up
instead of creating a stray SQLite file, and logs and JSON show the URL with its password
masked. Against a real PostgreSQL (a throwaway cluster): the cron line's tick and the
session hook as real processes with only what they are given; the commands that print or set
up through the console script's own entry, in-process (tests/console_entry.py).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Desk, Outcome
from console_entry import console_with

PASSWORD = "S3cretPgPassw0rd"
HOOK = Path(sys.executable).parent / "deskd-session-hook"


@pytest.fixture
def url(pg_database: str) -> str:
    """The test database's URL with a password (trust authentication ignores it)."""
    return pg_database.replace("://deskd@", f"://deskd:{PASSWORD}@")


def deskd(home: Path, *args: str, check: bool = True, **env: str) -> Outcome:
    full = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    full.update({"DESKD_HOME": str(home), **env})
    done = console_with(full, *args)
    if check:
        assert done.exit_code == 0, (args, done.stderr)
    return done


def dot_env(home: Path, url: str, mode: int = 0o600) -> None:
    path = home / ".env"
    path.write_text(f"DESKD_DB={url}\n", encoding="utf-8")
    path.chmod(mode)


def everything_under(home: Path) -> str:
    """Every path and file under the desk (the .env aside), for "the password is nowhere"."""
    parts = []
    for path in sorted(home.rglob("*")):
        parts.append(str(path))
        if path.is_file() and path.name != ".env":
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def stray_sqlite(home: Path) -> list[str]:
    return [str(p) for p in home.rglob("*") if "postgresql" in p.name or p.name == "deskd.db"]


def test_cron_line_reads_the_url_from_dot_env_and_ticks_the_real_database(
    desk: Desk, url: str, tmp_path: Path
) -> None:
    home = desk.home
    refused = deskd(home, "cron-line", check=False, DESKD_DB=url)
    assert refused.exit_code == 1
    (line,) = refused.stderr.splitlines()
    assert ".env" in line and "chmod 600" in line and PASSWORD not in line
    dot_env(home, url, mode=0o644)
    refused = deskd(home, "cron-line", check=False, DESKD_DB=url)
    assert refused.exit_code == 1 and "not private" in refused.stderr
    dot_env(home, url)
    out = json.loads(deskd(home, "cron-line", "--json", DESKD_DB=url).stdout)
    assert "postgresql" not in out["line"] and PASSWORD not in json.dumps(out)
    deskd(
        home,
        "inbox",
        "enqueue",
        "--for",
        "alpha",
        "--source",
        "alert",
        "--title",
        "x",
        "--priority",
        "urgent",
    )  # fmt: skip  (through .env: the PostgreSQL database)

    bare = ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "/bin/sh", "-c", out["command"]]
    done = subprocess.run(bare, cwd=tmp_path, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    (summary,) = [x for x in (home / "logs" / "tick.log").read_text().splitlines() if " db=" in x]
    assert " db=" + url.replace(PASSWORD, "***") + " " in summary
    assert "demands=1" in summary  # the real desk, holding the item, was ticked
    assert PASSWORD not in everything_under(home)
    assert stray_sqlite(home) == []


def test_timer_units_read_the_url_from_dot_env(desk: Desk, url: str) -> None:
    dot_env(desk.home, url)
    out = json.loads(deskd(desk.home, "timer", "print", "--user", "--json", DESKD_DB=url).stdout)
    text = "".join(f["text"] for f in out["files"])
    assert "DESKD_DB" not in text and PASSWORD not in text and "postgresql" not in text
    assert f'Environment="DESKD_HOME={desk.home}"' in text
    shown = deskd(desk.home, "agent", "command", "--role", "alpha", "--json",
                  DESKD_AGENT_CMD="/bin/true").stdout  # fmt: skip
    assert json.loads(shown)["env"]["DESKD_DB"].startswith("postgresql://deskd:***@")
    assert PASSWORD not in shown


def test_init_on_a_url_sets_the_database_up_and_makes_no_stray_file(
    tmp_path: Path, url: str
) -> None:
    home = tmp_path / "desk"
    home.mkdir()
    first = deskd(home, "init", "--json", DESKD_DB=url)
    data = json.loads(first.stdout)
    assert data["db_created"] is True
    assert data["db"].startswith("postgresql://deskd:***@") and PASSWORD not in first.stdout
    again = json.loads(deskd(home, "init", "--force", "--json", DESKD_DB=url).stdout)
    assert again["db_created"] is False  # the tables were there
    assert stray_sqlite(home) == [] and PASSWORD not in everything_under(home)
    refused = deskd(home, "init", "--new-db", check=False, DESKD_DB=url)
    assert refused.exit_code == 1 and PASSWORD not in refused.stderr


def test_hooks_install_keeps_the_url_out_of_the_project(
    desk: Desk, url: str, tmp_path: Path
) -> None:
    import psycopg

    dot_env(desk.home, url)
    deskd(desk.home, "status")  # deskd's tables, in the database .env names
    project = tmp_path / "project"
    project.mkdir()
    deskd(desk.home, "session-hook", "install", "--project", str(project), "--role", "alpha")
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert "DESKD_DB" not in settings["env"]
    assert PASSWORD not in json.dumps(settings) and "postgresql" not in json.dumps(settings)

    # A session started by hand in that project: the hook gets only what settings.json sets.
    env = {k: v for k, v in os.environ.items() if not k.startswith("DESKD_")}
    env.update(settings["env"])
    command = shlex.split(settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"])
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "d82e5afd-445a-49a1-9750-6eb13f49c974",
        "tool_name": "Bash",
    }
    subprocess.run(command, input=json.dumps(payload), env=env, text=True, check=True)
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT role, native_id FROM sessions").fetchall()
    assert rows == [("alpha", "d82e5afd-445a-49a1-9750-6eb13f49c974")]
    assert stray_sqlite(desk.home) == []
