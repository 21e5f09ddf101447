"""The desk cache (run/desk-cache.json) and the pydantic-free settings path give exactly what
validating gives, never a stale desk, and a refusal the moment the file turns invalid."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

import deskd
from conftest import DESK_TOML, Desk
from deskd.config import cache as desk_cache
from deskd.config import desk as records
from deskd.config import desk_file as models
from deskd.config.desk_file import parse_desk
from deskd.config.load import load_settings
from deskd.config.settings_model import validate_settings as validated_settings
from deskd.errors import SettingsError

RICH = (
    DESK_TOML
    + """
[presence]
online = "3m"

[agent]
kind = "codex"
retry_wait = "5s"

[[channels]]
name = "ops"
urls = ["json://localhost/${TOKEN}"]
severity = ["urgent"]

[[ladder]]
rung = "session"
sla = "90s"
[[ladder]]
rung = "badge"
"""
).replace('title = "Gamma"', 'title = "Gamma"\nchannels = ["ops"]\nagent = { retry_wait = "0s" }')


def cache_file(desk: Desk) -> Path:
    return desk.home / "run" / desk_cache.CACHE_NAME


def cached(desk: Desk) -> deskd.config.desk.Desk | None:
    return desk_cache.cached_desk(desk.home, desk.home / "deskd.toml")


def test_the_cached_desk_is_the_validated_desk(desk: Desk) -> None:
    desk.write_desk(RICH)
    assert cached(desk) is None
    desk.ok("roles")
    from_cache = cached(desk)
    assert from_cache is not None
    validated = parse_desk(RICH, path=desk.home / "deskd.toml")
    assert from_cache.raw == validated.raw
    assert from_cache.ladder == [("session", 90), ("badge", None)]
    assert from_cache.role("gamma").channels == ["ops"]
    assert from_cache.agent_for("gamma").retry_wait == 0
    assert from_cache.agent_for("alpha").retry_wait == 5
    assert from_cache.agent_for("alpha").kind == "codex"


def test_a_same_size_rewrite_with_the_same_mtime_is_not_served_stale(desk: Desk) -> None:
    desk.ok("roles")
    path = desk.home / "deskd.toml"
    before = path.stat()
    path.write_text(DESK_TOML.replace('"Beta"', '"Bxta"'), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert cached(desk) is None
    desk.ok("roles")
    from_cache = cached(desk)
    assert from_cache is not None and from_cache.role("beta").title == "Bxta"


def test_an_invalid_edit_is_refused_although_the_cache_holds_the_valid_desk(desk: Desk) -> None:
    desk.ok("roles")
    desk.write_desk(DESK_TOML + '\n[desk2]\nname = "x"\n')
    out = desk.run("inbox", "list", "--for", "alpha")
    assert out.exit_code != 0
    assert "deskd.toml: desk2: unknown key" in out.stderr


def test_a_damaged_or_foreign_cache_is_ignored_and_rewritten(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk.ok("roles")
    cache_file(desk).write_text("{not json", encoding="utf-8")
    assert cached(desk) is None
    desk.ok("roles")
    assert cached(desk) is not None
    monkeypatch.setattr(deskd, "__version__", "99.0")  # another deskd wrote it
    assert cached(desk) is None


def test_the_cache_is_private_to_the_desk_owner(desk: Desk) -> None:
    desk.ok("roles")
    assert stat.S_IMODE(cache_file(desk).stat().st_mode) == 0o600


TABLES = ["DeskFile", "DeskSection", "PresenceSection", "AgentSection", "RoleConfig",
          "LadderRung", "ChannelConfig"]  # fmt: skip


@pytest.mark.parametrize("table", TABLES)
def test_each_desk_record_carries_its_models_fields(table: str) -> None:
    # The records a command reads (deskd.config.desk) are built from what the models
    # (deskd.config.desk_file) validated: the same fields, in the same order.
    assert list(getattr(records, table)._fields) == list(getattr(models, table).model_fields)


def test_the_role_without_an_agent_table_has_every_agent_field_unset() -> None:
    assert records.AgentSection()._asdict() == models.AgentSection().model_dump()


# -- settings without pydantic ------------------------------------------------------------

ENVS = [
    {},
    {"DESKD_ROLE": "alpha", "DESKD_NOW": "2026-12-01T09:00:00Z", "DESKD_SESSION_ID": "s"},
    {"DESKD_DB": "~/x.db", "DESKD_DESK": "/srv/d.toml", "DESKD_LOG_DIR": "~/logs"},
    {"DESKD_WAKE_EXECUTE": "1", "DESKD_NOTIFY_URLS": "json://a, json://b", "DESKD_FOO": "x"},
    {"DESKD_PORT": "9001", "DESKD_SUPERVISOR_AUTH_MODE": "hybrid", "DESKD_WAKE_TIMEOUT": "5m"},
]


@pytest.mark.parametrize("env", ENVS, ids=range(len(ENVS)))
def test_fast_settings_equal_validated_settings(tmp_path: Path, env: dict[str, str]) -> None:
    full = {"DESKD_HOME": str(tmp_path), **env}
    assert load_settings(full) == validated_settings(full)


def test_a_variable_that_needs_checking_is_still_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"DESKD_HOME": str(tmp_path), "DESKD_PORT": "eighty"})
    assert "DESKD_PORT" in caught.value.message


def test_dot_env_is_honoured_the_environment_winning_and_edits_seen(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file = desk.home / ".env"
    env_file.write_text("DESKD_WAKE_MODEL=from-file\nDESKD_AGENT_CMD=/opt/a\n", encoding="utf-8")
    assert load_settings().wake_model == "from-file"  # validated, then remembered
    assert desk_cache.env_file_values(desk.home, str(env_file)) is not None
    assert (load_settings().wake_model, load_settings().agent_cmd) == ("from-file", "/opt/a")
    monkeypatch.setenv("DESKD_WAKE_MODEL", "from-env")
    assert load_settings().wake_model == "from-env"
    env_file.write_text("DESKD_WAKE_MODEL=edited\n", encoding="utf-8")
    monkeypatch.delenv("DESKD_WAKE_MODEL")
    assert load_settings().wake_model == "edited"
    assert load_settings() == validated_settings()


def test_secrets_in_dot_env_are_never_copied_into_the_cache(desk: Desk) -> None:
    (desk.home / ".env").write_text("DESKD_SUPERVISOR_ACCESS_CODE=s3cret-code\n", encoding="utf-8")
    assert load_settings().supervisor_access_code == "s3cret-code"
    assert load_settings().supervisor_access_code == "s3cret-code"
    desk.ok("roles")
    text = cache_file(desk).read_text(encoding="utf-8")
    assert "s3cret-code" not in text
    assert "env_file" not in json.loads(text)
