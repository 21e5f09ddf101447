"""The agent CLIs deskd launches: ``KINDS``, one line per ``[agent] kind``, which every other
module asks.

A line names the kind's adapter class (a module of this package, imported on first use, so a
command that only checks a session id stays light), the shape of the session ids its CLI
prints and how its CLI is installed (what ``deskd doctor`` suggests). The adapter
(``base.AgentAdapter``) holds the rest of the CLI's launch shape: the argv of a spawn and a
resume with the prompt in it, the session id it assigns up front, deskd's session hook
installed for one run, and the reading of its output (session id, landing, usage, cost,
failure class). docs/architecture.md "Adding an agent CLI" says what a new kind takes.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, NamedTuple

from deskd.errors import InvalidLaunch
from deskd.session_ids import UUID, WORD, Shape, shape
from deskd.session_ids import session_id_problem as shape_problem

if TYPE_CHECKING:
    from deskd.adapters.agents.base import AgentAdapter


class Kind(NamedTuple):
    adapter: str  # "module.Class", the module relative to this package (".claude") or absolute
    session_ids: Shape
    install: str = ""
    dropped: tuple[str, ...] = ()
    """Variables no child of deskd inherits (a name, or a prefix ending in ``_``): what the
    CLI sets for its own children and refuses, or misbehaves on, when deskd runs inside it."""


KINDS: dict[str, Kind] = {
    # lesson 30: a claude that inherits CLAUDECODE refuses to start; one that inherits
    # CLAUDE_CODE_* (CLAUDE_CODE_CHILD_SESSION…) writes no transcript and cannot be resumed.
    "claude": Kind(
        ".claude.ClaudeAdapter",
        UUID,
        "npm install -g @anthropic-ai/claude-code",
        dropped=("CLAUDECODE", "CLAUDE_CODE_"),
    ),
    "codex": Kind(".codex.CodexAdapter", UUID, "npm install -g @openai/codex"),
    "gemini": Kind(".gemini.GeminiAdapter", UUID, "npm install -g @google/gemini-cli"),
    "opencode": Kind(
        ".opencode.OpencodeAdapter",
        shape(r"ses_[0-9A-Za-z]{1,60}", "ses_ and letters or digits"),
        "npm install -g opencode-ai",
    ),
    "command": Kind(".command.CommandAdapter", WORD),
}


def kind_of(kind: str) -> Kind:
    """The line of an ``[agent] kind``; refuses an unknown kind naming the known ones."""
    try:
        return KINDS[kind]
    except KeyError:
        raise InvalidLaunch(kind, f"unknown agent kind (kinds: {', '.join(KINDS)})") from None


def adapter_for(kind: str) -> AgentAdapter:
    line = kind_of(kind)
    module, name = line.adapter.rsplit(".", 1)
    adapter: type[AgentAdapter] = getattr(import_module(module, __name__), name)
    return adapter(kind, line.session_ids)


def session_id_problem(kind: str, value: str) -> str | None:
    """Why ``value`` is not a session id the ``kind`` agent CLI prints (None: it is one)."""
    return shape_problem(kind_of(kind).session_ids, value, f"the {kind} CLI")
