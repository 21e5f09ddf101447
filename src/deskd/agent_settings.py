"""``AgentSettings``: a role's effective agent settings, in a module of its own.

Only what launches an agent (the executor, ``deskd agent command``, ``doctor``) asks for them
(``Desk.agent_for``).
"""

from __future__ import annotations

from typing import NamedTuple

from deskd.desk_view import DEFAULT_RETRY_WAIT_S


class AgentSettings(NamedTuple):
    """A role's effective agent settings, after every override (``Desk.agent_for``)."""

    kind: str
    command: str
    """The executable; empty for a ``command`` agent the desk has not given one."""
    args: tuple[str, ...]
    model: str
    timeout: int
    """Seconds a launch may run."""
    allowed_tools: tuple[str, ...]
    retry_wait: int = DEFAULT_RETRY_WAIT_S
    """Seconds before retrying a quick transient launch failure (doubling, at most 10×)."""
