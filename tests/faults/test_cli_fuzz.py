"""Every option and argument of every CLI command, given hostile values, answers without a
traceback: a refusal (exit 1), a usage error (exit 2), or a normal run.

The commands are enumerated from click's command tree, so a new command or option is fuzzed
without editing this file. In-process (CliRunner: click's code path, in seconds), plus a
subprocess sample of the hot commands, which the console script runs without click.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from procs import deskd

from conftest import Desk
from deskd.cli.main import cli

HOSTILE = {
    "huge": "9" * 30,
    "negative": "-1",
    "superscript": "²",
    "arabic-indic": "١٢",
    "nul": "a\x00b",
    "surrogate": "\udcff\udcfe",
    "1 MB": "7" * 1_000_000,
    "5000 digits": "9" * 5000,
}
# Commands that start servers or demos, or install into the machine: not fuzzed here (the
# console has its own fuzz over HTTP).
SKIP = {"serve", "demo", "timer install"}
BENIGN = {
    "--for": "alpha", "--role": "alpha", "--from": "alpha", "--by": "alpha", "--to": "beta",
    "--source": "alert", "--title": "t", "--body": "b", "--subject": "s", "--reason": "r",
    "--note": "n", "--agenda": "a", "--attendees": "beta", "--resolution": "done",
    "--older-than": "30d", "--until": "online", "--timeout": "1s", "--id": "k1",
    "--path": "/x", "--mode": "spawn",
}  # fmt: skip


def commands(
    command: click.Command = cli, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from commands(sub, (*path, name))
    elif " ".join(path) not in SKIP:
        yield path, command


def valued(command: click.Command) -> list[click.Parameter]:
    return [
        p
        for p in command.params
        if not (isinstance(p, click.Option) and (p.is_flag or p.name == "as_json"))
    ]


def benign(param: click.Parameter, tmp: Path) -> str:
    if isinstance(param, click.Option):
        name = param.opts[0]
        if isinstance(param.type, click.Path):
            return str(tmp / name.strip("-"))
        return BENIGN.get(name, "1")
    return "1" if param.type.name == "integer" or "ID" in (param.name or "").upper() else "t"


def line_for(
    path: tuple[str, ...], command: click.Command, target: click.Parameter, value: str, tmp: Path
) -> list[str]:
    """The command line: ``value`` for ``target``, benign values for the other required ones."""
    args = list(path)
    positional: list[str] = []
    for param in valued(command):
        if param is target:
            text = value
        elif param.required:
            text = benign(param, tmp)
        else:
            continue
        if isinstance(param, click.Option):
            args.append(f"{param.opts[0]}={text}")
        else:
            positional.append(text)
    return [*args, "--", *positional] if positional else args


CASES = [
    (path, param.name)
    for path, command in commands()
    for param in valued(command)
    if isinstance(param, click.Option | click.Argument)
]


@pytest.fixture
def busy_desk(desk: Desk) -> Desk:
    """A task, a meeting, a wake hook and a silence to point ids at (no unread urgent item:
    nothing here may launch an agent)."""
    desk.ok("task", "add", "t", "--for", "alpha", "--by", "beta")
    desk.ok("meeting", "call", "--by", "alpha", "--agenda", "a", "--attendees", "beta")
    desk.ok("hook", "add", "--for", "alpha", "--title", "t", "--every", "1h")
    desk.ok("silence", "add", "--role", "alpha", "--for", "1h", "--reason", "r")
    return desk


def test_every_option_of_every_command_is_fuzzed() -> None:
    assert len(CASES) > 140  # the tree really was walked


def test_no_hostile_value_gives_a_traceback(
    busy_desk: Desk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `hooks install` and friends write only here
    runner = CliRunner()
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("DESKD_")}
    env.update(busy_desk.env())
    tracebacks: list[str] = []
    runs = 0
    for path, command in commands():
        for param in valued(command):
            for label, value in HOSTILE.items():
                args = line_for(path, command, param, value, tmp_path)
                result = runner.invoke(cli, args, env=env)
                runs += 1
                crashed = result.exception is not None and not isinstance(
                    result.exception, SystemExit
                )
                if crashed or "Traceback" in result.output:
                    tracebacks.append(
                        f"deskd {' '.join(path)} {param.name}={label}: {result.exception!r}"
                    )
                assert result.exit_code in (0, 1, 2, 3) or crashed, (args[:4], result.exit_code)
    assert runs > 1000
    assert tracebacks == [], f"{len(tracebacks)} tracebacks:\n" + "\n".join(tracebacks)


# The agent-facing commands, as real
# processes: argv cannot hold NUL, so that value stays in-process.
FAST = [
    ("inbox", "list", "--for", "alpha", "--limit", "{}"),
    ("inbox", "ack", "--for", "alpha", "--id", "{}"),
    ("inbox", "enqueue", "--for", "alpha", "--source", "alert", "--title", "{}"),
    ("heartbeat", "--role", "alpha", "--token", "{}"),
    ("status", "set", "--role", "alpha", "--activity", "{}"),
    ("task", "update", "{}", "--note", "n", "--by", "alpha"),
    ("meeting", "send", "{}", "--role", "alpha", "--body", "b"),
    ("meeting", "send", "1", "--role", "alpha", "--body", "b", "--reply-to", "{}"),
    ("meeting", "updates", "{}", "--role", "beta"),
    ("hook", "add", "--for", "alpha", "--title", "t", "--every", "{}"),
    ("tick", "--loop", "{}"),
    ("send", "--from", "alpha", "--to", "beta", "--subject", "s", "--body", "b", "--sla", "{}"),
]
RAW = {
    "huge": b"9" * 30,
    "superscript": "²".encode(),
    "arabic-indic": "١٢".encode(),
    "undecodable": b"\xff\xfe",
    "5000 digits": b"9" * 5000,
    "100 KB": b"7" * 100_000,  # over the 64 KiB cap; one argv string holds at most 128 KiB
}


def test_the_fast_path_gives_no_traceback_either(busy_desk: Desk) -> None:
    tracebacks = []
    labels = itertools.cycle(RAW)
    for args in FAST:
        for _ in range(3):
            label = next(labels)
            argv = [RAW[label] if a == "{}" else a for a in args]
            out = deskd(busy_desk, *argv)
            if "Traceback" in out.stderr or out.exit_code not in (0, 1, 2, 3):
                tracebacks.append(f"{args[:2]} {label}: {out.stderr[-300:]}")
    assert tracebacks == []
