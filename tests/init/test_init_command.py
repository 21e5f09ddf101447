"""`deskd init`: an annotated desk that loads, refusals that name the files, --force keeps rows."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Desk
from deskd.config.desk_file import load_desk
from deskd.config.settings_model import SettingsModel
from deskd.store.migrations import LATEST


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    """An empty desk folder (no deskd.toml), DESKD_HOME pointing at it."""
    for key in list(os.environ):
        if key.startswith("DESKD_"):
            monkeypatch.delenv(key)
    home = tmp_path / "support"
    home.mkdir()
    monkeypatch.setenv("DESKD_HOME", str(home))
    yield Desk(home, monkeypatch)


def test_it_writes_a_desk_file_that_loads(empty: Desk) -> None:
    empty.ok("init")
    desk = load_desk(empty.home / "deskd.toml")
    assert desk.name == "support"
    assert desk.role_names == ["operator", "researcher"]
    assert desk.section.inbox_sources == ["alert", "signal"]
    assert desk.agent_for("researcher").command == "claude"
    assert [rung for rung, _ in desk.ladder] == ["session", "resume", "spawn", "notify", "badge"]


def test_it_creates_the_folders_and_a_migrated_wal_database(empty: Desk) -> None:
    out = empty.json("init")
    assert out["home"] == str(empty.home)
    assert out["desk"] == str(empty.home / "deskd.toml")
    assert out["db"] == str(empty.home / "data" / "deskd.db")
    for folder in ("data", "logs", "run"):
        assert (empty.home / folder).is_dir()
    conn = sqlite3.connect(empty.db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_written_desk_accepts_commands_right_away(empty: Desk) -> None:
    empty.ok("init")
    out = empty.json(
        "inbox", "enqueue", "--for", "researcher", "--source", "alert", "--title", "disk 91%"
    )
    assert out == {"id": 1, "deduped": False}


def test_env_example_names_every_deskd_variable(empty: Desk) -> None:
    empty.ok("init")
    text = (empty.home / ".env.example").read_text()
    missing = [
        f"DESKD_{name.upper()}"
        for name in SettingsModel.model_fields
        if f"DESKD_{name.upper()}=" not in text
    ]
    assert missing == []
    # Every variable is commented out: copying the file changes nothing until edited.
    assert all(line.startswith("#") for line in text.splitlines() if line.strip())


def test_it_refuses_to_overwrite_and_names_the_files(empty: Desk) -> None:
    empty.ok("init")
    (empty.home / "deskd.toml").write_text("# mine\n")
    out = empty.run("init", "--json")
    assert out.exit_code == 1
    error = out.error()
    assert error["code"] == "already_exists"
    assert "deskd.toml" in error["message"] and ".env.example" in error["message"]
    assert "--force" in error["message"]
    assert (empty.home / "deskd.toml").read_text() == "# mine\n"


def test_it_refuses_when_only_env_example_exists(empty: Desk) -> None:
    (empty.home / ".env.example").write_text("# mine\n")
    out = empty.run("init")
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: .env.example already exists")
    assert not (empty.home / "deskd.toml").exists()
    assert not empty.db_path.exists()


def test_force_rewrites_the_files_and_never_touches_the_database(empty: Desk) -> None:
    empty.ok("init")
    empty.ok("inbox", "enqueue", "--for", "researcher", "--source", "alert", "--title", "keep me")
    (empty.home / "deskd.toml").write_text(
        (empty.home / "deskd.toml").read_text() + "\n# my edit\n"
    )
    (empty.home / ".env.example").write_text("# stale\n")
    before = empty.dump()
    out = empty.json("init", "--force")
    assert out["db_created"] is False
    assert empty.dump() == before
    assert "# my edit" not in (empty.home / "deskd.toml").read_text()
    assert "DESKD_HOME" in (empty.home / ".env.example").read_text()
    listed = empty.json("inbox", "list", "--for", "researcher")
    assert [i["title"] for i in listed] == ["keep me"]


def test_force_keeps_a_timestamped_backup_of_what_it_replaces(empty: Desk) -> None:
    empty.ok("init")
    desk_file = empty.home / "deskd.toml"
    desk_file.write_text(desk_file.read_text() + "\n# my edit\n")
    out = empty.json("init", "--force")
    stamp = "20261201T140000Z"  # the pinned clock, in UTC
    assert out["backups"] == [
        str(empty.home / f"deskd.toml.bak-{stamp}"),
        str(empty.home / f".env.example.bak-{stamp}"),
    ]
    assert "# my edit" in (empty.home / f"deskd.toml.bak-{stamp}").read_text()
    again = empty.json("init", "--force")  # same second: a second backup, not an overwrite
    assert again["backups"][0] == str(empty.home / f"deskd.toml.bak-{stamp}-1")
    assert "# my edit" in (empty.home / f"deskd.toml.bak-{stamp}").read_text()
    human = empty.ok("init", "--force").stdout
    assert f"kept         {empty.home / f'deskd.toml.bak-{stamp}-2'}" in human


def test_it_puts_the_database_where_deskd_db_says(empty: Desk, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "desk.db"
    out = empty.json("init", DESKD_DB=str(elsewhere))
    assert out["db"] == str(elsewhere)
    assert elsewhere.exists()
    assert not empty.db_path.exists()
