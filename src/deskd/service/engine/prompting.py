"""The host's ``prompt_builder`` (``deskd.config.configure``), applied when a launch is
recorded: the prompt deskd built is the default the builder may keep, extend or replace.

A builder that raises or returns nothing usable must not cost the wake: the launch keeps
deskd's prompt and an event says why.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Sequence

from deskd.core.prompts import PROMPT_CAP_BYTES
from deskd.store.events import add_event


def launch_prompt(
    conn: sqlite3.Connection, *, role: str, reasons: Sequence[str], default: str, now: int
) -> str:
    """The prompt to record for a launch of ``role``: the host builder's, else ``default``."""
    # A builder exists only if DESKD_CONFIG_MODULE was loaded, through deskd.config; a tick
    # without one never imports it (and with it, pydantic-settings).
    config = sys.modules.get("deskd.config")
    builder = config.host_config().prompt_builder if config is not None else None
    if builder is None:
        return default
    try:
        built = builder(role, tuple(reasons), default)
    except Exception as exc:
        return _fallback(conn, role, default, f"{type(exc).__name__}: {exc}", now=now)
    if not isinstance(built, str) or not built.strip():
        return _fallback(conn, role, default, "it returned no prompt", now=now)
    encoded = built.encode("utf-8")
    if len(encoded) > PROMPT_CAP_BYTES:  # argv limits hold for the host's prompt too
        built = encoded[:PROMPT_CAP_BYTES].decode("utf-8", errors="ignore")
    return built


def _fallback(conn: sqlite3.Connection, role: str, default: str, why: str, *, now: int) -> str:
    add_event(
        conn,
        at=now,
        kind="prompt_builder.failed",
        role=role,
        detail={"error": " ".join(why.split())[:500], "used": "deskd's prompt"},
    )
    return default
