"""The repository's .env.example and the one `deskd init` writes name the same variables:
every DESKD_* variable Settings reads, each commented out; and .env is never committed."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Desk
from deskd.config.settings_model import SettingsModel

ROOT = Path(__file__).resolve().parents[2]
ASSIGNED = re.compile(r"^#\s*(DESKD_[A-Z_]+)=", flags=re.M)


def variables(text: str) -> set[str]:
    """The DESKD_* variables a .env.example gives a (commented) value for."""
    return set(ASSIGNED.findall(text))


def test_the_root_example_and_the_one_init_writes_list_the_same_variables(
    desk: Desk, tmp_path: Path
) -> None:
    home = tmp_path / "fresh"
    home.mkdir()
    desk.ok("init", DESKD_HOME=str(home))
    written = variables((home / ".env.example").read_text(encoding="utf-8"))
    root = variables((ROOT / ".env.example").read_text(encoding="utf-8"))
    settings = {f"DESKD_{name.upper()}" for name in SettingsModel.model_fields}
    assert root == written == settings


def test_the_root_example_changes_nothing_when_copied() -> None:
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert all(line.startswith("#") for line in text.splitlines() if line.strip())


def test_dotenv_is_ignored_by_git() -> None:
    patterns = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".env" in patterns
    assert ".env.example" not in patterns
