"""A dispatch in front of click for the commands agents run many times a turn.

Importing click costs a command about as much as everything else it does. For the hot
commands below, when the arguments are plain (long options, ``--opt value`` or
``--opt=value``, the declared positional arguments, every required option present, integers
in range), this parses them and calls the command's body in ``deskd.cli.hot`` directly.
Anything else — ``--help``, an unknown or short option, a missing value, ``--`` — returns
``None`` and click handles the whole command line, so help and usage errors are click's,
unchanged. click stays the definition of the CLI: ``SPEC`` is what click declares for these
commands, and tests/docs/test_fast_dispatch.py fails when the two differ. Stdlib only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

# One parameter: (name, option or None for a positional argument, kind, required, default).
# kind: "text", "int", "int:LO:HI" (an IntRange), "flag", "many" (multiple=True),
# "const:V" (a flag that sets its parameter to V, several sharing one parameter).
Param = tuple[str, str | None, str, bool, Any]

SPEC: dict[tuple[str, ...], tuple[str, tuple[Param, ...]]] = {
    ("inbox", "enqueue"): ("inbox_enqueue", (
        ("role", "--for", "text", False, None),
        ("capability", "--capability", "text", False, None),
        ("source", "--source", "text", True, None),
        ("title", "--title", "text", True, None),
        ("body", "--body", "text", False, ""),
        ("ref", "--ref", "text", False, None),
        ("priority", "--priority", "text", False, "normal"),
        ("dedup_key", "--dedup-key", "text", False, None),
        ("sla", "--sla", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
    ("inbox", "list"): ("inbox_list", (
        ("role", "--for", "text", False, None),
        ("include_read", "--all", "flag", False, False),
        ("limit", "--limit", "int:1:10000", False, 200),
        ("as_json", "--json", "flag", False, False),
    )),
    ("inbox", "ack"): ("inbox_ack", (
        ("role", "--for", "text", False, None),
        ("ids", "--id", "many", False, ()),
        ("seen", "--seen", "flag", False, False),
        ("as_json", "--json", "flag", False, False),
    )),
    ("send",): ("send", (
        ("sender", "--from", "text", False, None),
        ("to", "--to", "many", True, ()),
        ("subject", "--subject", "text", True, None),
        ("body", "--body", "text", True, None),
        ("priority", "--priority", "text", False, "normal"),
        ("sla", "--sla", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
    ("status", "set"): ("status_set", (
        ("role", "--role", "text", False, None),
        ("state", "--state", "text", False, "working"),
        ("activity", "--activity", "text", False, None),
        ("session_id", "--session-id", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
    ("heartbeat",): ("heartbeat", (
        ("role", "--role", "text", False, None),
        ("session_id", "--session-id", "text", False, None),
        ("token", "--token", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
    ("task", "update"): ("task_update", (
        ("task_id", None, "int", True, None),
        ("status", "--status", "text", False, None),
        ("blocked_on", "--blocked-on", "text", False, None),
        ("priority", "--priority", "text", False, None),
        ("due", "--due", "text", False, None),
        ("role", "--for", "text", False, None),
        ("note", "--note", "text", False, None),
        ("by", "--by", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
    ("meeting", "send"): ("meeting_send", (
        ("meeting_id", None, "text", True, None),
        ("role", "--role", "text", False, None),
        ("body", "--body", "text", True, None),
        ("kind", "--kind", "text", False, "evidence"),
        ("reply_to", "--reply-to", "text", False, None),
        ("resolves", "--resolves", "many", False, ()),
        ("as_json", "--json", "flag", False, False),
    )),
    ("meeting", "updates"): ("meeting_updates", (
        ("meeting_id", None, "text", True, None),
        ("role", "--role", "text", False, None),
        ("mark_read", "--mark-read", "flag", False, False),
        ("as_json", "--json", "flag", False, False),
    )),
    ("status",): ("status_board", (
        ("as_json", "--json", "flag", False, False),
    )),
    ("tick",): ("tick", (
        ("mode", "--execute", "const:execute", False, None),
        ("mode", "--dry-run", "const:dry", False, None),
        ("wait", "--wait", "flag", False, False),
        ("loop", "--loop", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
    ("hook", "add"): ("hook_add", (
        ("owner", "--for", "text", False, None),
        ("title", "--title", "text", True, None),
        ("at", "--at", "text", False, None),
        ("every", "--every", "text", False, None),
        ("cron", "--cron", "text", False, None),
        ("tz", "--tz", "text", False, None),
        ("probe", "--probe", "text", False, None),
        ("timeout", "--timeout", "text", False, None),
        ("body", "--body", "text", False, ""),
        ("priority", "--priority", "text", False, "normal"),
        ("until", "--until", "text", False, None),
        ("as_json", "--json", "flag", False, False),
    )),
}  # fmt: skip


def parse(argv: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """(body name, keyword arguments) for a plain hot command line, else None (click's)."""
    for length in (2, 1):
        found = SPEC.get(tuple(argv[:length]))
        if found is not None:
            break
    else:
        return None
    body, params = found
    options = {p[1]: p for p in params if p[1] is not None}
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
    """Run a plain hot command and return its exit code; None: hand the line to click."""
    parsed = parse(argv)
    if parsed is None:
        return None
    body, values = parsed
    import sqlite3

    from deskd.cli.boundary import check_arguments, refusal
    from deskd.cli.out import refuse
    from deskd.errors import DeskdError

    try:  # the same boundary as click's DeskdGroup.invoke
        check_arguments(argv)
        from deskd.cli import hot

        getattr(hot, body)(**values)
    except (DeskdError, sqlite3.Error, OSError) as exc:
        refused = refusal(exc)
        if refused is None:
            raise
        return refuse(refused, values["as_json"])
    return 0


def main() -> None:
    """The ``deskd`` console script: the fast dispatch, else click."""
    code = dispatch(sys.argv[1:])
    if code is None:
        from deskd.cli.main import main as click_main

        click_main()
        return
    sys.exit(code)
