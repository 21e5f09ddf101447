"""What `deskd init` writes and what a host calls itself: text that stays valid and shown safely.

An emoji in a role's title is written as itself (TOML has no surrogate pairs: JSON's
``\\ud83d\\ude00`` made every later command fail with "not valid TOML"); ``DESKD_HOST_NAME`` is
stored for good and printed by ``status``, so one with a newline, an escape or 70,000
characters is refused in one line naming the variable, changing nothing."""

from __future__ import annotations

import pytest
from test_init_command import empty  # noqa: F401  (the fixture)

from conftest import Desk
from deskd.config.desk_file import load_desk


def test_an_emoji_title_is_written_as_valid_toml(empty: Desk) -> None:  # noqa: F811
    empty.ok("init", "--role", "coder:Coder \U0001f600 \x7f", "--yes")
    text = (empty.home / "deskd.toml").read_text(encoding="utf-8")
    assert "\\ud83d" not in text and "\U0001f600" in text
    assert load_desk(empty.home / "deskd.toml").roles["coder"].title == "Coder \U0001f600 \x7f"
    empty.ok("status")


@pytest.mark.parametrize(
    "name", ["gpu\nbox", "gpu\x1b[2Jbox", "x" * 70_000, "-flag", "gpu box", ""], ids=repr
)
def test_a_host_name_that_is_no_host_name_is_refused(desk: Desk, name: str) -> None:
    before = desk.dump()
    out = desk.run("status", DESKD_HOST_NAME=name)
    if name == "":  # unset, as good as absent: the machine's own name
        assert out.exit_code == 0, out.stderr
        return
    assert out.exit_code != 0 and out.stderr.count("\n") == 1, out.stderr[:300]
    assert "DESKD_HOST_NAME" in out.stderr and "letters, digits" in out.stderr
    assert desk.dump() == before
    desk.ok("status", DESKD_HOST_NAME="gpu-box.local_2")


def test_init_creates_the_desk_folder_private_and_doctor_counts_roles_in_words(
    empty: Desk,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import stat

    home = empty.home / "new-desk"
    monkeypatch.setenv("DESKD_HOME", str(home))
    empty.ok("init", "--role", "solo", "--yes", DESKD_HOME=str(home))
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    doctor = empty.run("doctor", "--json", DESKD_HOME=str(home))
    (desk_file,) = [c for c in doctor.json()["checks"] if c["name"] == "desk file"]
    assert ": 1 role (solo)" in desk_file["detail"]
