"""`.env` is read by one parser (deskd.paths.env_file_values), the same for settings, the
session hook, channel URLs and the units deskd writes; it is what `deskd init` writes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskd.paths import env_file_values
from deskd.service.ops.scaffold import _set_env

LINES = [
    ("DESKD_DB=/srv/desk.db", "/srv/desk.db"),
    ("export DESKD_DB=/srv/desk.db", "/srv/desk.db"),
    ("  DESKD_DB = /srv/desk.db  ", "/srv/desk.db"),
    ("DESKD_DB=/srv/desk.db # the file", "/srv/desk.db"),
    ("DESKD_DB='postgresql://u:p#w@h/d'", "postgresql://u:p#w@h/d"),
    ("DESKD_DB='${HOME}/x'", "${HOME}/x"),
    ('DESKD_DB="a \\"b\\" \\\\c"', 'a "b" \\c'),
    ('DESKD_DB="two\\nlines"', "two\nlines"),
    ("DESKD_DB=", ""),
]


@pytest.mark.parametrize(("line", "value"), LINES)
def test_it_reads_a_line_as_written(tmp_path: Path, line: str, value: str) -> None:
    (tmp_path / ".env").write_text(f"# a comment\n\n{line}\nOTHER=1\n", encoding="utf-8")
    assert env_file_values(tmp_path / ".env") == {"DESKD_DB": value, "OTHER": "1"}


def test_a_missing_file_sets_nothing(tmp_path: Path) -> None:
    assert env_file_values(tmp_path / ".env") == {}


@pytest.mark.parametrize("value", ["plain", "it's", 'say "hi"', "p#ss word", "${X}"])
def test_it_reads_back_what_init_writes(tmp_path: Path, value: str) -> None:
    _set_env(tmp_path / ".env", "DESKD_SUPERVISOR_ACCESS_CODE", value)
    assert env_file_values(tmp_path / ".env") == {"DESKD_SUPERVISOR_ACCESS_CODE": value}
