"""The ``deskd`` console script: the agent-facing commands without click, everything else
through click.

Importing click costs a command about as much as everything else it does. For the commands
in ``deskd.cli.agent_params`` (the ones agents run many times a turn, the board and the
tick), when the arguments are plain (long options, ``--opt value`` or ``--opt=value``, the
declared positional arguments, every required option present, integers in range), this
parses them and calls the command's body in ``deskd.cli.agent_commands`` directly. Anything
else — ``--help``, an unknown or short option, a missing value, ``--`` — returns ``None`` and
click handles the whole command line, so help and usage errors are click's, unchanged. click
is the one declaration of the parameters: ``agent_params`` is generated from it. Stdlib only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from deskd.cli.agent_params import PARAMS, Param


def parse(argv: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """(body name, keyword arguments) for a plain agent-facing command line, else None (click's)."""
    for length in (2, 1):
        found = PARAMS.get(tuple(argv[:length]))
        if found is not None:
            break
    else:
        return None
    body, params = found
    options: dict[str, Param] = {p[1]: p for p in params if p[1] is not None}
    positional = [p for p in params if p[1] is None]
    values: dict[str, Any] = {p[0]: p[4] for p in params}
    given: set[str] = set()
    args: list[str] = []
    rest = list(argv[length:])
    while rest:
        token = rest.pop(0)
        if not token.startswith("-") or token == "-":
            args.append(token)
            continue
        flag, eq, inline = token.partition("=")
        param = options.get(flag)
        if param is None:
            return None  # --help, --, a short or unknown option: click says what it says
        name, _, kind, _, _ = param
        if kind == "flag" or kind.startswith("const:"):
            if eq:
                return None
            values[name] = True if kind == "flag" else kind[len("const:") :]
        else:
            if eq:
                value = inline
            elif rest and not rest[0].startswith("-"):
                value = rest.pop(0)
            else:
                return None  # a missing value, or one that looks like an option
            converted = _convert(kind, value)
            if converted is None:
                return None
            values[name] = (*values[name], converted) if kind == "many" else converted
        given.add(name)
    if len(args) != len(positional):
        return None
    for param, arg in zip(positional, args, strict=True):
        converted = _convert(param[2], arg)
        if converted is None:
            return None
        values[param[0]] = converted
        given.add(param[0])
    if any(p[3] and p[0] not in given for p in params):
        return None  # click names the missing option
    return body, values


def _convert(kind: str, value: str) -> Any:
    if kind in ("text", "many"):
        return value
    from deskd.errors import InvalidValue
    from deskd.ids import parse_int

    _, low, high = kind.split(":") if kind.startswith("int:") else ("int", "1", "")
    try:  # the CLI's one parser (click's commands use it too, through cli.common.Number)
        return parse_int(value, "", low=int(low), **({"high": int(high)} if high else {}))
    except InvalidValue:
        return None  # click refuses it, naming the option


def dispatch(argv: Sequence[str]) -> int | None:
    """Run a plain agent-facing command and return its exit code; None: hand the line to click."""
    parsed = parse(argv)
    if parsed is None:
        return None
    body, values = parsed
    from deskd.cli.boundary import check_arguments, refusal
    from deskd.cli.output import refuse
    from deskd.errors import DeskdError

    try:  # the same boundary as click's DeskdGroup.invoke
        check_arguments(argv)
        from deskd.cli import agent_commands

        getattr(agent_commands, body)(**values)
    except (DeskdError, OSError) as exc:
        refused = refusal(exc)
        if refused is None:
            raise
        return refuse(refused, values["as_json"])
    return 0


def main() -> None:
    """The ``deskd`` console script: an agent-facing command without click, else click."""
    code = dispatch(sys.argv[1:])
    if code is None:
        from deskd.cli.main import main as click_main

        click_main()
        return
    sys.exit(code)
