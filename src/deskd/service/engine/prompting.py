"""The host's ``prompt_builder`` (``deskd.config.configure``), applied when a launch is
recorded: the prompt deskd built is the default the builder may keep, extend or replace.

A builder that raises or returns nothing usable must not cost the wake: the launch keeps
deskd's prompt and an event says why.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from deskd.core.prompts import PROMPT_CAP_BYTES
from deskd.store.events import add_event

if TYPE_CHECKING:
    from deskd.core.records import Plan
    from deskd.store.dialect import Connection


def launch_prompt(
    conn: Connection, *, role: str, reasons: Sequence[str], default: str, now: int
) -> str:
    """The prompt to record for a launch of ``role``: the host builder's, else ``default``
    (and an event saying why the builder's was not used)."""
    built, failed = build_prompt(role=role, reasons=reasons, default=default)
    if failed is not None:
        add_event(
            conn,
            at=now,
            kind="prompt_builder.failed",
            role=role,
            detail={"error": " ".join(failed.split())[:500], "used": "deskd's prompt"},
        )
    return built


def previewed(plan: Plan) -> Plan:
    """The plan with each launch's prompt as an executing tick would record it: a dry run
    shows what would be launched, the host builder's prompt included. It writes nothing (a
    failing builder's event is an executing tick's)."""
    if not plan.launches:
        return plan
    launches = tuple(
        x._replace(prompt=build_prompt(role=x.role, reasons=x.reasons, default=x.prompt)[0])
        for x in plan.launches
    )
    return plan._replace(launches=launches)


def build_prompt(*, role: str, reasons: Sequence[str], default: str) -> tuple[str, str | None]:
    """(the prompt for a launch of ``role``, why the host builder's could not be used or None)."""
    # A builder exists only if DESKD_CONFIG_MODULE was loaded, through deskd.config.host; a
    # tick without one need not import it.
    config = sys.modules.get("deskd.config.host")
    builder = config.host_config().prompt_builder if config is not None else None
    if builder is None:
        return default, None
    try:
        built = builder(role, tuple(reasons), default)
    except Exception as exc:
        return default, f"{type(exc).__name__}: {exc}"
    if not isinstance(built, str) or not built.strip():
        return default, "it returned no prompt"
    encoded = built.encode("utf-8")
    if len(encoded) > PROMPT_CAP_BYTES:  # argv limits hold for the host's prompt too
        built = encoded[:PROMPT_CAP_BYTES].decode("utf-8", errors="ignore")
    return built, None
