"""Each agent-facing command's parameters are declared once, in click: the console script's
table (deskd.cli.agent_params) is generated from those declarations (scripts/cli_docs.py,
``make docs``) and cannot drift from them or from the bodies that take them."""

from __future__ import annotations

import inspect
from pathlib import Path

import click
import pytest

from cli_tree import command_at, generator
from deskd.cli import agent_commands
from deskd.cli.agent_params import PARAMS

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_is_what_the_generator_writes() -> None:
    gen = generator()
    written = gen.PARAMS_PY.read_text(encoding="utf-8")
    assert gen.agent_params() == written, "deskd/cli/agent_params.py is stale: run `make docs`"


@pytest.mark.parametrize("path", list(PARAMS), ids=" ".join)
def test_click_runs_the_body_the_table_names_with_the_same_parameters(
    path: tuple[str, ...],
) -> None:
    body_name, params = PARAMS[path]
    command = command_at(path)
    assert command.callback is not None
    body = inspect.unwrap(command.callback)
    assert body is getattr(agent_commands, body_name)
    assert [p.name for p in command.params] == [p[0] for p in params]
    assert set(inspect.signature(body).parameters) == {p[0] for p in params}


def test_an_option_added_to_click_only_changes_the_table() -> None:
    gen = generator()
    command = command_at(("inbox", "list"))
    before = gen.agent_params()
    extra = click.Option(["--extra"], default=None)
    command.params.append(extra)
    try:
        with pytest.raises(SystemExit, match=r"deskd inbox list: click declares .*'extra'"):
            gen.agent_params()  # the body does not take it: the generator refuses
    finally:
        command.params.remove(extra)
    assert gen.agent_params() == before


def test_a_parameter_added_to_the_body_only_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    gen = generator()
    command = command_at(("inbox", "list"))
    assert command.callback is not None

    def inbox_list(
        role: str | None, include_read: bool, limit: int, as_json: bool, extra: str
    ) -> None:
        raise AssertionError("never run")

    inbox_list.__module__ = agent_commands.__name__
    monkeypatch.setattr(command.callback, "__wrapped__", inbox_list)
    with pytest.raises(SystemExit, match=r"inbox_list takes .*'extra'"):
        gen.agent_params()


def test_what_the_parser_cannot_read_is_refused_at_generation() -> None:
    gen = generator()
    command = command_at(("inbox", "list"))
    ctx = click.Context(command)
    short = click.Option(["-x", "--extra"], default=None)
    with pytest.raises(SystemExit, match="one long option"):
        gen.parser_form("inbox list", short, ctx)
    from_env = click.Option(["--extra"], envvar="EXTRA")
    with pytest.raises(SystemExit, match="no envvar"):
        gen.parser_form("inbox list", from_env, ctx)
