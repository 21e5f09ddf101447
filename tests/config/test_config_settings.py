"""Settings: every DESKD_* variable of docs/contract.md, `.env` in DESKD_HOME honoured with the
environment winning, and a bad value refused naming the DESKD_ variable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import Desk
from deskd.config.settings_model import SettingsModel, validate_settings
from deskd.errors import SettingsError

# docs/contract.md "Environment": variable -> (a value to set, the Settings attribute, expected)
# DESKD_HOME is checked separately (it is resolved to a path).
VARIABLES: dict[str, tuple[str, str, object]] = {
    "DESKD_DESK": ("/srv/desk/other.toml", "desk_path", Path("/srv/desk/other.toml")),
    "DESKD_DB": ("/srv/db/deskd.db", "db_path", Path("/srv/db/deskd.db")),
    "DESKD_CONFIG_MODULE": ("myapp.deskd_config", "config_module", "myapp.deskd_config"),
    "DESKD_WAKE_EXECUTE": ("1", "execute", True),
    "DESKD_AGENT_CMD": ("/opt/fake-claude", "agent_cmd", "/opt/fake-claude"),
    "DESKD_WAKE_MODEL": ("opus", "wake_model", "opus"),
    "DESKD_WAKE_TIMEOUT": ("10m", "wake_timeout", "10m"),
    "DESKD_WAKE_ALLOWED_TOOLS": ("Read,Grep", "wake_allowed_tools", "Read,Grep"),
    "DESKD_NOTIFY_URLS": (
        "json://a.example, json://b.example json://c.example",
        "notify_url_list",
        ["json://a.example", "json://b.example", "json://c.example"],
    ),
    "DESKD_LOG_DIR": ("/var/log/deskd", "log_path", Path("/var/log/deskd")),
    "DESKD_DATABASE_URL": (
        "postgresql://desk@db.internal/desk",
        "database",
        "postgresql://desk@db.internal/desk",
    ),
    "DESKD_HOST_NAME": ("gpu-box", "host_id", "gpu-box"),
    "DESKD_HOST": ("0.0.0.0", "host", "0.0.0.0"),
    "DESKD_PORT": ("9001", "port", 9001),
    "DESKD_SUPERVISOR_AUTH_MODE": ("hybrid", "supervisor_auth_mode", "hybrid"),
    "DESKD_SUPERVISOR_ACCESS_CODE": ("c0de", "supervisor_access_code", "c0de"),
    "DESKD_NOW": ("2026-12-01T09:00:00-05:00", "now", "2026-12-01T09:00:00-05:00"),
    "DESKD_TICK_PING_URL": (
        "https://hc.example/ping/x",
        "tick_ping_url",
        "https://hc.example/ping/x",
    ),
    "DESKD_ROLE": ("alpha", "role", "alpha"),
    "DESKD_WAKE_TOKEN": ("tok-1", "wake_token", "tok-1"),
    "DESKD_SESSION_ID": ("sess-1", "session_id", "sess-1"),
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for key in list(os.environ):
        if key.startswith("DESKD_"):
            monkeypatch.delenv(key)
    home = tmp_path / "desk"
    home.mkdir()
    monkeypatch.setenv("DESKD_HOME", str(home))
    return home


@pytest.mark.parametrize("variable", VARIABLES)
def test_it_reads_each_contract_variable_from_the_environment(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    value, attribute, expected = VARIABLES[variable]
    monkeypatch.setenv(variable, value)
    assert getattr(validate_settings(), attribute) == expected


@pytest.mark.parametrize("variable", VARIABLES)
def test_it_reads_each_contract_variable_from_a_mapping(clean_env: Path, variable: str) -> None:
    value, attribute, expected = VARIABLES[variable]
    settings = validate_settings({"DESKD_HOME": str(clean_env), variable: value})
    assert getattr(settings, attribute) == expected


def test_it_has_a_field_for_every_contract_variable() -> None:
    fields = {"DESKD_" + name.upper() for name in SettingsModel.model_fields}
    assert {"DESKD_HOME", *VARIABLES} <= fields


def test_it_resolves_the_desk_from_deskd_home(clean_env: Path) -> None:
    settings = validate_settings()
    assert settings.home == clean_env.resolve()
    assert settings.desk_path == clean_env / "deskd.toml"
    assert settings.db_path == clean_env / "data" / "deskd.db"
    assert settings.log_path == clean_env / "logs"


def test_it_uses_the_current_folder_without_deskd_home(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DESKD_HOME")
    monkeypatch.chdir(clean_env)
    settings = validate_settings()
    assert settings.home == clean_env
    assert settings.db_path == clean_env / "data" / "deskd.db"


def test_it_leaves_overrides_unset_by_default(clean_env: Path) -> None:
    s = validate_settings()
    assert (s.host, s.port, s.supervisor_auth_mode, s.execute) == (
        "127.0.0.1",
        8000,
        "simple",
        False,
    )
    for name in (
        "config_module", "agent_cmd", "wake_model", "wake_timeout", "wake_allowed_tools",
        "notify_urls", "supervisor_access_code", "now", "tick_ping_url", "role", "wake_token",
        "session_id",
    ):  # fmt: skip
        assert getattr(s, name) is None, name
    assert s.notify_url_list == []


@pytest.mark.parametrize("value", ["0", "yes", "true", "", " 2"])
def test_it_is_a_dry_run_unless_wake_execute_is_1(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("DESKD_WAKE_EXECUTE", value)
    assert validate_settings().execute is False


def test_it_honours_dotenv_in_the_desk_with_the_environment_winning(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (clean_env / ".env").write_text(
        "# desk settings\nDESKD_PORT=9100\nDESKD_WAKE_MODEL=from-file\nOTHER_TOOL=x\n",
        encoding="utf-8",
    )
    assert (validate_settings().port, validate_settings().wake_model) == (9100, "from-file")
    monkeypatch.setenv("DESKD_PORT", "9200")
    settings = validate_settings()
    assert (settings.port, settings.wake_model) == (9200, "from-file")


def test_it_uses_the_database_a_dotenv_names(desk: Desk) -> None:
    other = desk.home / "elsewhere" / "desk.db"
    (desk.home / ".env").write_text(f"DESKD_DB={other}\n", encoding="utf-8")
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
    assert other.exists()
    assert not desk.db_path.exists()


BAD = [
    ("DESKD_PORT", "abc"),
    ("DESKD_PORT", "70000"),
    ("DESKD_PORT", "0"),
    ("DESKD_SUPERVISOR_AUTH_MODE", "x"),
    ("DESKD_WAKE_TIMEOUT", "forever"),
    ("DESKD_WAKE_TIMEOUT", "0"),
]


@pytest.mark.parametrize(("variable", "value"), BAD)
def test_it_refuses_a_bad_value_naming_the_variable(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as caught:
        validate_settings()
    message = caught.value.message
    assert message.startswith(f"{variable}: ")
    field = variable.removeprefix("DESKD_").lower()
    if "_" in field:  # the Python field name is not what users set
        assert field not in message, message
    assert "\n" not in message


@pytest.mark.parametrize(("variable", "value"), BAD)
def test_it_refuses_a_bad_value_in_the_cli_with_exit_1(
    desk: Desk, variable: str, value: str
) -> None:
    out = desk.run("inbox", "list", "--for", "alpha", **{variable: value})
    assert out.exit_code == 1
    assert out.stderr.startswith(f"deskd: {variable}")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = desk.run("inbox", "list", "--for", "alpha", "--json", **{variable: value})
    assert out.error()["code"] == "invalid_setting"
    assert desk.dump() == {}


def test_it_refuses_a_bad_value_from_dotenv_naming_the_variable(desk: Desk) -> None:
    (desk.home / ".env").write_text("DESKD_PORT=eighty\n", encoding="utf-8")
    out = desk.run("ledger")
    assert out.exit_code == 1
    assert out.stderr.startswith("deskd: DESKD_PORT")


def test_it_refuses_a_bad_deskd_now(desk: Desk) -> None:
    out = desk.run("ledger", DESKD_NOW="yesterday-ish")
    assert out.exit_code == 1
    assert "DESKD_NOW" in out.stderr


def test_the_validating_model_is_built_from_the_one_declaration() -> None:
    # deskd.config.settings.Settings declares each variable once (name, type, default); the
    # pydantic-settings model that validates them is made from it, so the fast reader and the
    # validator cannot name different variables or defaults.
    import typing

    from deskd.config.settings import Settings

    assert list(SettingsModel.model_fields) == list(Settings._fields)
    hints = typing.get_type_hints(Settings)
    for name, field in SettingsModel.model_fields.items():
        assert field.annotation == hints[name], name
        if name != "home":
            assert field.default == Settings._field_defaults[name], name
