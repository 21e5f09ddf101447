"""Any executable, from the desk's argv template (``kind = "command"``).

Each template element has ``{prompt}``, ``{session_id}``, ``{mode}``, ``{role}`` and
``{model}`` replaced in one pass — a prompt that itself contains ``{role}`` is not expanded
again — and stays one argv element whatever it contains (quotes, newlines): there is no
shell. An unknown ``{name}`` is left as written. ``{session_id}`` is empty when there is none.

The structured output of an arbitrary command is unknown, so the exit code decides: 0 is a
success, anything else a failure classified from stderr when it says why, else transient.
A command may still report its native session id by printing a JSON line with
``session_id``; landing is proven only by the session hook for such agents.
"""

from __future__ import annotations

import re
from typing import Any

from deskd.adapters.agents import base
from deskd.adapters.agents.base import AgentAdapter, LaunchSpec, RunOutcome, RunState
from deskd.core.values import PERMANENT, TRANSIENT
from deskd.errors import InvalidLaunch

PLACEHOLDER = re.compile(r"\{(prompt|session_id|mode|role|model)\}")


class CommandAdapter(AgentAdapter):
    def argv(self, spec: LaunchSpec) -> list[str]:
        if not spec.command:
            raise InvalidLaunch(self.kind, "no executable: set command in the desk's [agent]")
        return super().argv(spec)

    def build(self, spec: LaunchSpec) -> list[str]:
        values = {
            "prompt": spec.prompt,
            "session_id": self.checked_id(spec.session_id) if spec.session_id else "",
            "mode": spec.mode,
            "role": spec.role,
            "model": spec.model,
        }
        return [
            spec.command,
            *(PLACEHOLDER.sub(lambda m: values[m.group(1)], part) for part in spec.args),
        ]

    def feed(self, state: RunState, line: str) -> set[str]:
        # Every output line is a heartbeat: an arbitrary command's output need not be JSON.
        if not line.strip():
            return set()
        state.events += 1
        event = base.parse_json_line(line)
        return self.read(state, event) if event is not None else set()

    def read(self, state: RunState, event: dict[str, Any]) -> set[str]:
        return self.session(state, event.get("session_id"))

    def ended(self, state: RunState, *, exit_code: int | None, stderr_tail: str) -> RunOutcome:
        if exit_code == 0:
            return self.done(state, None, "exited 0")
        if exit_code in (126, 127):
            return self.done(state, PERMANENT, f"the command could not run (exit {exit_code})")
        found = self.classify(stderr_tail)
        if found is not None:
            return self.done(state, *found)
        said = base.last_line(stderr_tail)
        return self.done(state, TRANSIENT, f"exited {exit_code}" + (f": {said}" if said else ""))
