"""Anything that looks like a URL is a URL or refused, never a file path: a PostgreSQL URL
typed with one slash (``postgresql:/desk:pw@host/db``) used to become a SQLite file under
the current folder with the password in its path, which doctor opened and cron-line wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_init_command import empty  # noqa: F401  (the fixture)

from conftest import Desk

URL_LIKE = ["postgresql:/desk:S3cret@db.example/desk", "postgres:/desk:S3cret@db/desk", "pg://x"]


@pytest.mark.parametrize("value", URL_LIKE)
@pytest.mark.parametrize("args", [("init",), ("doctor",), ("cron-line",), ("status",)], ids=str)
def test_a_url_that_is_no_url_is_refused_not_taken_as_a_path(
    empty: Desk,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    value: str,
    args: tuple[str, ...],
) -> None:
    monkeypatch.chdir(tmp_path)
    if args != ("init",):
        empty.ok("init")  # a desk whose DESKD_DB is then mistyped
    before = sorted(p.name for p in tmp_path.rglob("*"))
    out = empty.run(*args, DESKD_DB=value)
    assert out.exit_code != 0, out.stdout
    said = out.stderr + out.stdout
    assert "DESKD_DB" in said and "postgresql://" in said, said
    assert "S3cret" not in said
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # no file, no folder
