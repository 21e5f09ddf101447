"""The desk file: validated with file, key and reason; unknown keys refused (typo protection);
roles removed from it disabled, not deleted; ${VAR} in channel URLs from the environment;
agent settings with docs/contract.md's precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Desk
from deskd.config.desk import expand_vars
from deskd.config.desk_file import DEFAULT_ALLOWED_TOOLS, AgentSettings, parse_desk
from deskd.config.settings_model import validate_settings
from deskd.errors import DeskFileError

HEAD = '[desk]\ntimezone = "America/New_York"\n'


def _refusal(text: str) -> str:
    with pytest.raises(DeskFileError) as caught:
        parse_desk(text, path=Path("/srv/desk/deskd.toml"))
    return caught.value.message


INVALID = {
    "bad role name": (
        HEAD + '[[roles]]\nname = "alpha"\n[[roles]]\nname = "Research Lead"\n',
        "deskd.toml: roles[1].name: 'Research Lead' is not a role name: lowercase letters",
    ),
    "role name too long": (
        HEAD + f'[[roles]]\nname = "{"a" * 33}"\n',
        f"deskd.toml: roles[0].name: '{'a' * 33}' is not a role name",
    ),
    "supervisor reserved": (
        HEAD + '[[roles]]\nname = "supervisor"\n',
        "deskd.toml: roles[0].name: 'supervisor' is reserved",
    ),
    "duplicate role": (
        HEAD + '[[roles]]\nname = "alpha"\n[[roles]]\nname = "beta"\n[[roles]]\nname = "alpha"\n',
        "deskd.toml: roles[2].name: role 'alpha' is defined twice",
    ),
    "unknown role key": (
        HEAD + '[[roles]]\nname = "alpha"\ntitel = "Alpha"\n',
        "deskd.toml: roles[0].titel: unknown key (valid keys: name, title,",
    ),
    "unknown desk key": (
        '[desk]\ntimezon = "UTC"\n',
        "deskd.toml: desk.timezon: unknown key (valid keys: name, timezone,",
    ),
    "unknown table": (
        '[dsk]\nname = "x"\n',
        "deskd.toml: dsk: unknown key (valid keys: desk, presence, agent, roles, ladder, channels",
    ),
    "unknown role agent key": (
        HEAD + '[[roles]]\nname = "alpha"\nagent = { modle = "x" }\n',
        "deskd.toml: roles[0].agent.modle: unknown key (valid keys: kind, command,",
    ),
    "unknown channel in a role": (
        HEAD + '[[roles]]\nname = "alpha"\nchannels = ["ops"]\n',
        "deskd.toml: roles[0].channels: unknown channel 'ops' (channels: none)",
    ),
    "unknown channel in a role, channels named": (
        HEAD + '[[channels]]\nname = "pager"\nurls = ["json://x"]\n'
        '[[roles]]\nname = "alpha"\n[[roles]]\nname = "beta"\nchannels = ["ops"]\n',
        "deskd.toml: roles[1].channels: unknown channel 'ops' (channels: pager)",
    ),
    "unknown default channel": (
        '[desk]\ndefault_channels = ["ops"]\n',
        "deskd.toml: desk.default_channels: unknown channel 'ops'",
    ),
    "bad timezone": (
        '[desk]\ntimezone = "Mars/Olympus_Mons"\n',
        "deskd.toml: desk.timezone: unknown timezone 'Mars/Olympus_Mons'",
    ),
    "bad inbox_batch": (
        '[desk]\ninbox_batch = "3 minutes"\n',
        "deskd.toml: desk.inbox_batch: must be a duration like 90s, 5m, 2h, 1d",
    ),
    "bad presence duration": (
        '[presence]\nonline = "soon"\n',
        "deskd.toml: presence.online: must be a duration",
    ),
    "bad agent timeout": (
        '[agent]\ntimeout = "forever"\n',
        "deskd.toml: agent.timeout: must be a duration",
    ),
    "bad role agent timeout": (
        HEAD + '[[roles]]\nname = "alpha"\nagent = { timeout = "1.5h" }\n',
        "deskd.toml: roles[0].agent.timeout: must be a duration",
    ),
    "bad ladder sla": (
        '[[ladder]]\nrung = "session"\nsla = "quick"\n',
        "deskd.toml: ladder[0].sla: must be a duration",
    ),
    "reserved inbox source": (
        '[desk]\ninbox_sources = ["alert", "system"]\n',
        "deskd.toml: desk.inbox_sources: 'system' is reserved for deskd itself",
    ),
    "bad agent kind": (
        '[agent]\nkind = "copilot"\n',
        "deskd.toml: agent.kind: ",
    ),
    "roles not a list": (
        'roles = "alpha"\n',
        "deskd.toml: roles: ",
    ),
    "invalid toml": (
        "[desk\nname = 1\n",
        "deskd.toml: not valid TOML: ",
    ),
    "negative max_running": (
        "[desk]\nmax_running = -1\n",
        "deskd.toml: desk.max_running: Input should be greater than or equal to 0",
    ),
    "window limit without a window": (
        "[budget]\ntokens_per_window = 400_000\n",
        'deskd.toml: budget.window: tokens_per_window and usd_per_window need a window, like "5h"',
    ),
    "window without a window limit": (
        '[budget]\nwindow = "5h"\ntokens_per_day = 1\n',
        "deskd.toml: budget.window: a window needs tokens_per_window or usd_per_window",
    ),
    "reserve over 1": (
        "[budget]\nreserve = 1.5\n",
        "deskd.toml: budget.reserve: Input should be less than or equal to 1",
    ),
    "zero budget": (
        HEAD + '[[roles]]\nname = "alpha"\nbudget = { usd_per_day = 0 }\n',
        "deskd.toml: roles[0].budget.usd_per_day: Input should be greater than 0",
    ),
    "budget typo": (
        "[budget]\ntokens_per_dya = 5\n",
        "deskd.toml: budget.tokens_per_dya: unknown key (valid keys: tokens_per_day, ",
    ),
}


@pytest.mark.parametrize(("text", "start"), INVALID.values(), ids=INVALID.keys())
def test_it_refuses_an_invalid_desk_file_with_file_key_and_reason(text: str, start: str) -> None:
    message = _refusal(text)
    assert message.startswith(start), message
    assert "\n" not in message


def test_it_names_every_valid_key_of_the_table_with_the_typo() -> None:
    message = _refusal(HEAD + '[[roles]]\nname = "alpha"\nenable = false\n')
    for key in (
        "name",
        "title",
        "capabilities",
        "workdir",
        "enabled",
        "prompt",
        "channels",
        "agent",
    ):
        assert key in message.split("valid keys: ")[1]


def test_it_refuses_an_invalid_desk_file_in_the_cli_with_one_line(desk: Desk) -> None:
    desk.write_desk(HEAD + '[[roles]]\nname = "alpha"\n[[roles]]\nname = "Bad"\n')
    out = desk.run("inbox", "list", "--for", "alpha")
    assert out.exit_code == 1
    assert out.stderr == (
        "deskd: deskd.toml: roles[1].name: 'Bad' is not a role name: lowercase letters, digits, "
        "- and _, starting with a letter, at most 32 characters ([a-z][a-z0-9_-]{0,31}); "
        "did you mean 'bad'?\n"
    )
    out = desk.run("ledger", "--json")
    assert out.error()["code"] == "invalid_desk"


def test_it_refuses_a_missing_desk_file_saying_how_to_make_one(desk: Desk) -> None:
    (desk.home / "deskd.toml").unlink()
    out = desk.run("inbox", "list", "--for", "alpha")
    assert out.exit_code == 1
    assert "deskd init" in out.stderr and "DESKD_HOME" in out.stderr


def test_it_reads_the_desk_file_deskd_desk_names(desk: Desk, tmp_path: Path) -> None:
    other = tmp_path / "prod.toml"
    other.write_text(HEAD + '[[roles]]\nname = "delta"\n', encoding="utf-8")
    listed = desk.run("inbox", "list", "--for", "alpha", DESKD_DESK=str(other))
    assert listed.stderr == "deskd: unknown role 'alpha' (roles: delta)\n"
    other.write_text(HEAD + '[[roles]]\nname = "Delta"\n', encoding="utf-8")
    out = desk.run("ledger", DESKD_DESK=str(other))
    assert out.stderr.startswith("deskd: prod.toml: roles[0].name:")


def test_it_accepts_the_annotated_contract_example() -> None:
    text = (Path(__file__).parent / "contract_desk.toml").read_text(encoding="utf-8")
    desk = parse_desk(text, path=Path("deskd.toml"))
    assert desk.role_names == ["researcher"]
    assert desk.section.inbox_batch == 180
    assert (desk.presence.online, desk.presence.suspect) == (120, 600)
    assert desk.ladder == [
        ("session", 60), ("resume", 120), ("spawn", 180), ("notify", 300), ("badge", None)
    ]  # fmt: skip


# -- a desk with no roles ------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x"),
        ("inbox", "list", "--for", "alpha"),
        ("inbox", "list"),
        ("inbox", "ack", "--for", "alpha", "--seen"),
        ("send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b"),
        ("send", "--to", "beta", "--subject", "s", "--body", "b"),
        ("ledger", "--for", "alpha"),
    ],
)
def test_it_refuses_role_commands_on_a_desk_without_roles(
    desk: Desk, args: tuple[str, ...]
) -> None:
    desk.write_desk(HEAD + 'inbox_sources = ["alert"]\n')
    out = desk.run(*args, "--json")
    assert out.exit_code == 1
    error = out.error()
    assert error["code"] == "no_roles", error
    assert "[[roles]]" in error["message"] and "deskd.toml" in error["message"]
    assert desk.dump() == {}


# -- roles table follows the desk ----------------------------------------------------------


def _roles(desk: Desk) -> dict[str, tuple[int, int]]:
    conn = desk.db()
    try:
        return {
            r["name"]: (r["enabled"], r["in_desk"]) for r in conn.execute("SELECT * FROM roles")
        }
    finally:
        conn.close()


def test_it_disables_a_role_removed_from_the_desk_and_keeps_its_rows(desk: Desk) -> None:
    for role in ("alpha", "gamma"):
        desk.ok("inbox", "enqueue", "--for", role, "--source", "alert", "--title", "x")
    assert _roles(desk) == {"alpha": (1, 1), "beta": (1, 1), "gamma": (1, 1)}
    desk.write_desk(
        HEAD + 'inbox_sources = ["alert"]\n[[roles]]\nname = "alpha"\n[[roles]]\nname = "beta"\n'
    )
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "y")
    assert _roles(desk) == {"alpha": (1, 1), "beta": (1, 1), "gamma": (0, 0)}
    conn = desk.db()
    assert conn.execute("SELECT COUNT(*) FROM items WHERE role = 'gamma'").fetchone()[0] == 1
    out = desk.run("inbox", "enqueue", "--for", "gamma", "--source", "alert", "--title", "z")
    assert out.stderr == "deskd: unknown role 'gamma' (roles: alpha, beta)\n"

    desk.write_desk(HEAD + 'inbox_sources = ["alert"]\n[[roles]]\nname = "gamma"\n')
    desk.ok("inbox", "enqueue", "--for", "gamma", "--source", "alert", "--title", "back")
    assert _roles(desk) == {"alpha": (0, 0), "beta": (0, 0), "gamma": (1, 1)}


def test_it_disables_a_role_set_enabled_false(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "beta", "--source", "alert", "--title", "x")
    desk.write_desk(
        HEAD + 'inbox_sources = ["alert"]\n[[roles]]\nname = "alpha"\n'
        '[[roles]]\nname = "beta"\nenabled = false\n'
    )
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "y")
    assert _roles(desk) == {"alpha": (1, 1), "beta": (0, 1), "gamma": (0, 0)}


def test_it_takes_the_title_from_the_desk_file(desk: Desk) -> None:
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "x")
    desk.write_desk(HEAD + 'inbox_sources = ["alert"]\n[[roles]]\nname = "alpha"\ntitle = "Lead"\n')
    desk.ok("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "y")
    conn = desk.db()
    assert conn.execute("SELECT title FROM roles WHERE name = 'alpha'").fetchone()[0] == "Lead"


# -- channels ------------------------------------------------------------------------------


def test_it_fills_channel_urls_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_WEBHOOK", "123/abc")
    monkeypatch.setenv("SMTP_USER", "ops")
    monkeypatch.setenv("SMTP_PASS", "s3cret")
    desk = parse_desk(
        '[[channels]]\nname = "ops"\n'
        'urls = ["discord://${DISCORD_WEBHOOK}", "mailto://${SMTP_USER}:${SMTP_PASS}@example.com"]\n',
        path=Path("deskd.toml"),
    )
    (channel,) = desk.data.channels
    assert [expand_vars(u) for u in channel.urls] == [
        "discord://123/abc",
        "mailto://ops:s3cret@example.com",
    ]
    assert channel.urls[0] == "discord://${DISCORD_WEBHOOK}"  # the secret is not kept in the model


# -- agent settings precedence -------------------------------------------------------------

AGENT_DESK = """\
[agent]
kind = "claude"
command = "claude-desk"
model = "desk-model"
timeout = "20m"
allowed_tools = ["Read", "Grep"]

[[roles]]
name = "alpha"
agent = { command = "alpha-claude", model = "alpha-model", timeout = "5m", allowed_tools = ["Read"] }

[[roles]]
name = "beta"
"""


def _agent(role: str, text: str = AGENT_DESK, **env: str) -> AgentSettings:
    desk = parse_desk(text, path=Path("deskd.toml"))
    settings = validate_settings({"DESKD_HOME": "/srv/desk", **env})
    return desk.agent_for(role, settings)


def test_it_lets_the_role_win_over_the_desk_agent() -> None:
    alpha = _agent("alpha")
    assert (alpha.command, alpha.model, alpha.timeout) == (
        "alpha-claude",
        "alpha-model",
        300,
    )
    assert alpha.allowed_tools == ("Read",)
    beta = _agent("beta")
    assert (beta.command, beta.model, beta.timeout) == ("claude-desk", "desk-model", 1200)
    assert beta.allowed_tools == ("Read", "Grep")


def test_it_falls_back_to_builtin_defaults() -> None:
    agent = _agent("alpha", '[[roles]]\nname = "alpha"\n')
    assert (agent.kind, agent.command, agent.model, agent.timeout) == (
        "claude",
        "claude",
        "",
        1800,
    )
    assert agent.allowed_tools == tuple(DEFAULT_ALLOWED_TOOLS)


def test_it_lets_environment_overrides_win_over_role_and_desk() -> None:
    env = {
        "DESKD_AGENT_CMD": "/opt/fake",
        "DESKD_WAKE_MODEL": "env-model",
        "DESKD_WAKE_TIMEOUT": "90s",
    }
    for role in ("alpha", "beta"):
        agent = _agent(role, **env)
        assert (agent.command, agent.model, agent.timeout) == (
            "/opt/fake",
            "env-model",
            90,
        )


def test_it_lets_a_roles_own_tool_grant_win_over_the_environment() -> None:
    # lesson 31: a read-only role stays read-only whatever the global grant says.
    env = {"DESKD_WAKE_ALLOWED_TOOLS": "Read, Bash ,Edit"}
    assert _agent("beta", **env).allowed_tools == ("Read", "Bash", "Edit")
    assert _agent("alpha", **env).allowed_tools == ("Read",)
