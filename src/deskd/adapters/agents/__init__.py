"""Agent CLI adapters, one per ``[agent] kind``: ``adapter_for(kind)`` is the registry."""

from __future__ import annotations

from deskd.adapters.agents.base import (
    FAILURE_CLASSES,
    PERMANENT,
    SESSION,
    TASK,
    TRANSIENT,
    TURN,
    USAGE_LIMIT,
    AgentAdapter,
    LaunchSpec,
    RunOutcome,
    RunState,
)
from deskd.adapters.agents.claude import ClaudeAdapter
from deskd.adapters.agents.codex import CodexAdapter
from deskd.adapters.agents.command import CommandAdapter
from deskd.adapters.agents.gemini import GeminiAdapter
from deskd.adapters.agents.opencode import OpencodeAdapter
from deskd.core.values import AGENT_KINDS
from deskd.errors import InvalidLaunch

ADAPTERS: dict[str, type[AgentAdapter]] = {
    cls.kind: cls
    for cls in (ClaudeAdapter, CodexAdapter, GeminiAdapter, OpencodeAdapter, CommandAdapter)
}


def adapter_for(kind: str) -> AgentAdapter:
    """The adapter for an ``[agent] kind``; refuses an unknown kind naming the known ones."""
    try:
        return ADAPTERS[kind]()
    except KeyError:
        raise InvalidLaunch(kind, f"unknown agent kind (kinds: {', '.join(AGENT_KINDS)})") from None


__all__ = [
    "ADAPTERS",
    "FAILURE_CLASSES",
    "PERMANENT",
    "SESSION",
    "TASK",
    "TRANSIENT",
    "TURN",
    "USAGE_LIMIT",
    "AgentAdapter",
    "LaunchSpec",
    "RunOutcome",
    "RunState",
    "adapter_for",
]
