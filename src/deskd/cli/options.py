"""Click parameters several commands declare alike, and ``params`` to stack a set of them.

Each use of one of these decorators makes its own ``click.Option``, so a command's help and
``scripts/cli_docs.py``'s tables read exactly as if the option were written out in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def params(*decorators: Callable[[Any], Any]) -> Callable[[F], F]:
    """Several click parameters as one decorator, in the order they would be stacked."""

    def apply(fn: F) -> F:
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn

    return apply


role_option = click.option("--role", help="The role (default: DESKD_ROLE).")
session_id_option = click.option(
    "--session-id", help="The agent's native session id (default: DESKD_SESSION_ID)."
)
priority_option = click.option(
    "--priority", default="normal", show_default=True, help="low, normal, high or urgent."
)
sla_option = click.option("--sla", help="Override the priority's SLA (90s, 5m, 2h, 1d).")
capability_option = click.option(
    "--capability", help="Instead of --for: the most available enabled role with this capability."
)
