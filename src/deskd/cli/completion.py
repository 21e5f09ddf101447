"""Shell completion: ``deskd completion bash|zsh|fish`` prints click's script, and values
(role names, capabilities, open meeting and task ids, channels, …) come from the desk.

The values are attached here, by parameter name, instead of on each of the hundred option
declarations: one table says that every ``--role``/``--for``/``--to`` completes with role
names. ``attach`` runs only when the shell asks for completions (``_DESKD_COMPLETE`` is set),
so an ordinary command pays nothing for it (the shell's words travel in the environment,
not in argv).
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Callable
from typing import Any

import click
from click.shell_completion import CompletionItem, get_completion_class

from deskd.cli.common import Command, on_desk
from deskd.quoting import visible
from deskd.store.hooks import list_hooks
from deskd.store.meetings import live_meetings
from deskd.store.pauses import live_silences
from deskd.store.tasks import open_tasks

COMPLETE_VAR = "_DESKD_COMPLETE"
SHELLS = ("bash", "zsh", "fish")

Source = Callable[[Any], list[tuple[str, str]]]
"""A desk context -> (value, help) pairs."""


def _roles(ctx: Any) -> list[tuple[str, str]]:
    return [(name, ctx.desk.roles[name].title or "") for name in ctx.desk.enabled_roles]


def _capabilities(ctx: Any) -> list[tuple[str, str]]:
    found: dict[str, list[str]] = {}
    for name in ctx.desk.enabled_roles:
        for capability in ctx.desk.roles[name].capabilities or ():
            found.setdefault(capability, []).append(name)
    return [(cap, ", ".join(roles)) for cap, roles in sorted(found.items())]


# Parameter name -> where its values come from. A parameter with its own completion (a
# click.Choice such as --priority) keeps it.
BY_NAME: dict[str, Source] = {
    **dict.fromkeys(("role", "owner", "sender", "to", "attendees"), _roles),
    "capability": _capabilities,
    "source": lambda ctx: [(s, "") for s in ctx.desk.section.inbox_sources or ()],
    "meeting_id": lambda ctx: [(str(m.id), m.agenda) for m in live_meetings(ctx.conn)],
    "task_id": lambda ctx: [(str(t.id), f"{t.role}: {t.title}") for t in open_tasks(ctx.conn)],
    "hook_id": lambda ctx: [
        (str(h.id), f"{h.owner}: {h.title}")
        for h in list_hooks(ctx.conn, owner=None, include_closed=False)
    ],
    "silence_id": lambda ctx: [
        (str(s.id), f"{s.role}: {s.reason}") for s in live_silences(ctx.conn, now=ctx.now)
    ],
    "tz": lambda _ctx: [(zone, "") for zone in sorted(zoneinfo.available_timezones())],
}
# (command path, parameter name) -> source, where a parameter's name alone is too generic.
BY_COMMAND: dict[tuple[str, ...], dict[str, Source]] = {
    ("channels", "test"): {"name": lambda ctx: [(c.name, "") for c in ctx.desk.data.channels or ()]}
}


def desk_values(source: Source, _ctx: click.Context, incomplete: str) -> list[CompletionItem]:
    """The desk's values from ``source`` that start with ``incomplete``; none when the desk
    cannot be read: a completion never prints an error into the user's prompt."""
    try:
        pairs = on_desk(source)
    except Exception:  # any failure means "nothing to offer", never a traceback at the prompt
        return []
    # A comma-separated list (--attendees alpha,be<TAB>) completes its last element.
    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    return [
        # One line each: the shells read one value or description a line, so a title's
        # newline would shift every answer after it (visible() escapes it).
        CompletionItem(prefix + value, help=visible(text) or None)
        for value, text in pairs
        if value.startswith(last)
    ]


def attach(
    command: click.Command, path: tuple[str, ...] = (), ctx: click.Context | None = None
) -> None:
    """Give every parameter in ``command``'s tree that names desk values its completion."""
    ctx = ctx or click.Context(command)
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                attach(sub, (*path, name), ctx)
        return
    for param in command.params:
        name = param.name or ""
        source = BY_COMMAND.get(path, {}).get(name) or BY_NAME.get(name)
        if source is None or isinstance(param.type, click.Choice):
            continue
        # The instance's shell_complete shadows the class's: what click calls for this
        # parameter's values, as a shell_complete= declaration would.
        param.shell_complete = functools.partial(desk_values, source)  # type: ignore[method-assign]


@click.command("completion", cls=Command, json=False)
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish); install it once.

    Examples:
      bash:  deskd completion bash > ~/.local/share/bash-completion/completions/deskd
      zsh:   deskd completion zsh > "${fpath[1]}/_deskd"
      fish:  deskd completion fish > ~/.config/fish/completions/deskd.fish
    Commands and options complete, and so do the desk's values: role names,
    capabilities, inbox sources, open meeting, task, wake hook and silence ids, channel
    names and time zones (read from the desk in DESKD_HOME when you press TAB).
    """
    cls = get_completion_class(shell)  # what click's _DESKD_COMPLETE=<shell>_source prints
    if cls is None:  # click.Choice already refused anything else
        raise click.BadParameter(f"{shell!r} is not one of {', '.join(SHELLS)}")
    root = click.get_current_context().find_root().command  # deskd's group: no import of it
    click.echo(cls(root, {}, "deskd", COMPLETE_VAR).source(), nl=False)
