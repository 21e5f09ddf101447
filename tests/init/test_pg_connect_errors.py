"""A PostgreSQL desk that cannot connect says what failed (authentication, no such database,
server unreachable) and what to check — never the restore-from-backup advice, since nothing is
damaged. A real server (tests/conftest.py's throwaway cluster); `deskd` through the console
script's own entry, in-process (tests/console_entry.py): the refusal is what they check."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from conftest import Outcome
from console_entry import console_with

BIN = Path(sys.executable).parent


def status(home: Path, url: str) -> Outcome:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DESKD_", "PG"))}
    env.update({"DESKD_HOME": str(home), "DESKD_DB": url})
    return console_with(env, "status")


def _with(url: str, *, user: str | None = None, dbname: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if user is not None:
        netloc = f"{user}@{netloc.rpartition('@')[2]}"
    path = f"/{dbname}" if dbname is not None else parts.path
    return urlunsplit((parts.scheme, netloc, path, parts.query, parts.fragment))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "deskd.toml").write_text('[[roles]]\nname = "alpha"\n', encoding="utf-8")
    return tmp_path


def test_an_authentication_failure_says_so_and_what_to_check(home: Path, pg_server: str) -> None:
    out = status(home, _with(pg_server, user="nobody"))
    assert out.exit_code == 3
    line = out.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "authentication failed" in line and 'role "nobody" does not exist' in line
    assert "pg_hba.conf" in line and "password" in line
    assert "backup" not in line


def test_a_missing_database_says_so_and_how_to_create_it(home: Path, pg_server: str) -> None:
    out = status(home, _with(pg_server, dbname="deskd_no_such_db"))
    assert out.exit_code == 3
    line = out.stderr.strip()
    assert "no such database" in line and "createdb" in line
    assert "backup" not in line


def test_an_unreachable_server_says_so_and_what_to_check(home: Path) -> None:
    pytest.importorskip("psycopg")
    out = status(home, "postgresql://deskd@127.0.0.1:1/desk")
    assert out.exit_code == 3
    line = out.stderr.strip()
    assert "server unreachable" in line and "Connection refused" in line
    assert "host and port" in line
    assert "backup" not in line


def test_doctor_on_a_working_postgresql_desk_writes_nothing_in_the_desk_folder(
    home: Path, pg_migrated_database: str
) -> None:
    before = sorted(p.name for p in home.iterdir())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DESKD_", "PG"))}
    env.update({"DESKD_HOME": str(home), "DESKD_DB": pg_migrated_database, "PATH": str(BIN)})
    out = console_with(env, "doctor")
    assert "✓ database" in out.stdout, out.stdout
    assert sorted(p.name for p in home.iterdir()) == before
